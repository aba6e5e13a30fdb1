"""Jupyter notebook reader: cells rendered as Markdown, outputs as text, then read as Markdown."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zoomrag.errors import InputError
from zoomrag.load import load_path, read_text
from zoomrag.parse.headings import find_headings


def _nb(*cells, language="python"):
    return json.dumps({"cells": list(cells), "nbformat": 4, "nbformat_minor": 5,
                       "metadata": {"kernelspec": {"name": "k", "language": language}}})


def _md(source):
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def _code(source, outputs=()):
    return {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": source, "outputs": list(outputs)}


def test_cells_outputs_and_headings_exact(tmp_path):
    path = tmp_path / "analysis.ipynb"
    path.write_text(_nb(
        _md(["# Loading data\n", "\n", "We read the CSV first."]),
        _code(["df = load('a.csv')\n", "print(len(df))"], [
            {"output_type": "stream", "name": "stdout", "text": ["3\n"]},
            {"output_type": "execute_result", "data": {"text/plain": ["\x1b[1m   a\x1b[0m"], "text/html": "<b/>"}},
            {"output_type": "display_data", "data": {"image/png": "iVBOR"}},
            {"output_type": "error", "ename": "E", "evalue": "x", "traceback": ["\x1b[31mE\x1b[0m"]},
        ]),
        _md("## Cleaning\n\nDrop empty rows."),
        _code("s = '''\n```\n'''"),
        {"cell_type": "raw", "metadata": {}, "source": "   "},
    ), encoding="utf-8")
    doc = load_path(path)
    assert (doc.format, dict(doc.metadata)) == ("notebook", {"title": "Loading data"})
    assert doc.text == (
        "# Loading data\n\nWe read the CSV first.\n\n"
        "```python\ndf = load('a.csv')\nprint(len(df))\n```\n\n"
        "```text\n3\n   a\n```\n\n"
        "## Cleaning\n\nDrop empty rows.\n\n"
        "````python\ns = '''\n```\n'''\n````\n"
    )
    assert [(b.type, b.meta.get("language")) for b in doc.blocks] == [
        ("heading", None), ("text", None), ("code", "python"), ("code", "text"), ("heading", None),
        ("text", None), ("code", "python")]
    assert [h.title for h in find_headings(doc)] == ["Loading data", "Cleaning"]


def test_version_3_worksheets_and_heading_cells():
    raw = json.dumps({"nbformat": 3, "metadata": {"language_info": {"name": "julia"}}, "worksheets": [{"cells": [
        {"cell_type": "heading", "level": 2, "source": "Setup"},
        {"cell_type": "code", "input": "x = 1", "outputs": [{"output_type": "pyout", "text": "1"}]},
    ]}]})
    doc = read_text(raw, format="notebook")
    assert doc.text == "## Setup\n\n```julia\nx = 1\n```\n\n```text\n1\n```\n"


@pytest.mark.parametrize(("raw", "message"), [
    ("{not json", r"nb\.ipynb: not a Jupyter notebook, its JSON does not parse .*another extension"),
    ('{"a": 1}', r"nb\.ipynb: not a Jupyter notebook \(no list of cells\)"),
    ("[1, 2]", r"nb\.ipynb: not a Jupyter notebook \(no list of cells\)"),
])
def test_a_file_that_is_not_a_notebook_is_a_clear_error(tmp_path, raw, message):
    path = tmp_path / "nb.ipynb"
    path.write_text(raw, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        load_path(path)


_SOURCE = st.one_of(st.text(max_size=40), st.lists(st.text(max_size=20), max_size=4))
_CELL = st.one_of(
    st.builds(_md, _SOURCE),
    st.builds(_code, _SOURCE, st.lists(st.fixed_dictionaries(
        {"output_type": st.sampled_from(["stream", "execute_result", "error"]), "text": _SOURCE,
         "data": st.fixed_dictionaries({"text/plain": _SOURCE})}), max_size=2)),
    st.fixed_dictionaries({"cell_type": st.just("raw"), "source": _SOURCE}),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_CELL, max_size=8))
def test_any_notebook_gives_ordered_blocks_inside_its_rendering(cells):
    doc = read_text(_nb(*cells), format="notebook")
    prev = 0
    for b in doc.blocks:
        assert prev <= b.start < b.end <= len(doc.text), (b, prev)
        prev = b.end
    for c in cells:  # every markdown cell's words are in the text
        if c["cell_type"] == "markdown":
            body = "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for word in body.replace("\ufeff", " ").split():  # a text's leading BOM is not kept
                assert word in doc.text


def test_carriage_returns_inside_cells_become_newlines():
    doc = read_text(_nb(_md("a\r\nb\rc")), format="notebook")
    assert doc.text == "a\nb\nc\n"


@pytest.mark.parametrize(("raw", "text"), [
    ('{"cells": [{"cell_type": "markdown", "source": "Hi"}], "metadata": [1]}', "Hi\n"),
    ('{"cells": [{"cell_type": "code", "source": "x = 1", "outputs": 5}]}', "```python\nx = 1\n```\n"),
    ('{"cells": [{"cell_type": "code", "source": "x", "outputs": [3, {"output_type": "pyout", "data": 7}]}]}',
     "```python\nx\n```\n"),
    ('{"worksheets": [{"cells": 3}, 4]}', ""),
    ('{"worksheets": [{"cells": [{"cell_type": "heading", "level": 99, "source": "H"}]}]}', "###### H\n"),
])
def test_odd_shapes_inside_valid_json_are_read_without_failing(raw, text):
    assert read_text(raw, format="notebook").text == text

"""A question pasted from the text (an error message, a line of a log) finds where it is written."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from zoomrag.cli import main
from zoomrag.search.verbatim import holding, quoted


@pytest.mark.parametrize(("query", "said"), [
    ("Command passed to .addCommand() must have a name", "command passed to .addcommand() must have a name"),
    ('  "cannot append   standalone comments"  ', "cannot append standalone comments"),
    ("`Unexpected end of input here`", "unexpected end of input here"),
    ("database is locked", "database is locked"),
    ("is locked", None),  # too short to be a quotation
    ("How are token sizes counted?", None),  # a question wants its answer, not its quotations
    ("how do I set a cookie on a response", None),
    ("Can not call parse again when storeOptionsAsProperties is true",
     "can not call parse again when storeoptionsasproperties is true"),
    ("normalize_text_and_lines", None),  # one word: a name, looked up as a definition
    ("", None),
])
def test_a_quotation_is_a_few_words_of_text(query, said):
    assert quoted(query) == said


def test_units_holding_the_quotation_word_for_word():
    texts = {1: "Lines > add\n    if not self.append_comment(comment):\n        raise ValueError(\n"
                "            'cannot append\n            standalone comments')",
             2: "Comments that stand alone cannot be appended to a line.",
             3: "CANNOT APPEND STANDALONE COMMENTS is raised when…"}
    assert holding(texts, quoted("cannot append standalone comments")) == {1, 3}


def test_a_pasted_error_message_finds_the_line_that_raises_it_first(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "lines.py").write_text(
        "def append(line, comment):\n    \"\"\"Add a comment to a line.\"\"\"\n    if comment.standalone:\n"
        "        raise ValueError('cannot append standalone comments to a populated line')\n"
        "    line.comments.append(comment)\n", encoding="utf-8")
    (src / "guide.md").write_text(
        "# Comments\n\nA comment that stands alone on its line is a standalone comment. Appending "
        "comments to a populated line, or standalone comments to any line, is refused.\n", encoding="utf-8")
    index = str(tmp_path / "i.db")
    assert CliRunner().invoke(main, ["index", str(src), "--index", index, "--embedder", "hash"]).exit_code == 0
    for mode in ("hybrid", "bm25", "dense"):
        got = CliRunner().invoke(main, ["query", "cannot append standalone comments to a populated line",
                                        "--index", index, "--mode", mode, "--json", "--explain"])
        assert got.exit_code == 0, got.output
        first = json.loads(got.output)["contexts"][0]
        assert "raise ValueError('cannot append" in first["text"], (mode, first)
        assert "holds the question word for word" in first["rule"]
    # a question in words is ranked as before
    got = CliRunner().invoke(main, ["query", "why are standalone comments refused", "--index", index,
                                    "--json", "--explain"])
    assert all("word for word" not in c["rule"] for c in json.loads(got.output)["contexts"])
    # a question written in the text as an example (a search tool's docs) is not a quotation
    (src / "faq.md").write_text("# Asking\n\n```sh\nzoomrag query \"cannot append standalone comments?\"\n```\n",
                                encoding="utf-8")
    assert CliRunner().invoke(main, ["index", str(src), "--index", index, "--embedder", "hash"]).exit_code == 0
    got = CliRunner().invoke(main, ["query", "cannot append standalone comments?", "--index", index,
                                    "--json", "--explain"])
    assert all("word for word" not in c["rule"] for c in json.loads(got.output)["contexts"])


@given(st.text(max_size=200), st.text(max_size=60))
def test_any_text_and_query_are_read_without_error(text, query):
    said = quoted(query)
    if said is not None:
        assert holding({1: text}, said) <= {1}
        assert holding({1: query}, said) == {1}  # a query holds itself

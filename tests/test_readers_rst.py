"""reStructuredText reader: titles as heading blocks by adornment style, code as code blocks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_blocks, texts

from zoomrag import make_chunker
from zoomrag.load import read_text
from zoomrag.load.base import detect_format
from zoomrag.parse.headings import find_headings
from zoomrag.parse.router import chunker_for_profile

DOC = """\
=========
 Toolbox
=========

Intro text.

Install
=======

Run it::

    pip install toolbox

    toolbox --help

Then go on.

Details
~~~~~~~

.. code-block:: python
   :linenos:

   import toolbox
   toolbox.run()

Usage
=====

A paragraph
- not a title, as a paragraph line sits above the dashes
-----
"""


def blocks_of(doc):
    return [(b.type, b.level, dict(b.meta), doc.text[b.start:b.end]) for b in doc.blocks]


def test_titles_levels_and_code_blocks_exact():
    doc = read_text(DOC, format="rst", id="t.rst")
    assert doc.format == "rst"
    assert doc.metadata == {"title": "Toolbox"}
    assert blocks_of(doc) == [
        ("heading", 1, {"title": "Toolbox"}, "=========\n Toolbox\n========="),
        ("text", 0, {}, "Intro text."),
        ("heading", 2, {"title": "Install"}, "Install\n======="),
        ("text", 0, {}, "Run it::"),
        ("code", 0, {}, "    pip install toolbox\n\n    toolbox --help"),
        ("text", 0, {}, "Then go on."),
        ("heading", 3, {"title": "Details"}, "Details\n~~~~~~~"),
        ("code", 0, {"language": "python"},
         ".. code-block:: python\n   :linenos:\n\n   import toolbox\n   toolbox.run()"),
        ("heading", 2, {"title": "Usage"}, "Usage\n====="),
        ("text", 0, {}, "A paragraph\n- not a title, as a paragraph line sits above the dashes\n-----"),
    ]
    assert [(h.level, h.title) for h in find_headings(doc)] == [
        (1, "Toolbox"), (2, "Install"), (3, "Details"), (2, "Usage")]


DIRECTIVES = """\
Intro.

.. click:example::

    @click.command()
    def hello():
        \"\"\"Says hello.

        A docstring of prose, deeper in.
        \"\"\"

.. click:run::

    with isolated_filesystem():
        invoke(hello, args=[])

.. testcode::

   print(1)

.. note::

   x = 1 is how it starts.

.. custom::
   :class: wide

   Words of a paragraph, not code.
"""


def test_directives_whose_body_reads_as_code_are_code_blocks():
    """A Sphinx extension's example directive (click's) read as text let contexts start in the
    middle of its code."""
    doc = read_text(DIRECTIVES, format="rst")
    assert [(t, body.split("\n")[0]) for t, _, _, body in blocks_of(doc)] == [
        ("text", "Intro."),
        ("code", ".. click:example::"),
        ("code", ".. click:run::"),
        ("code", ".. testcode::"),
        ("text", ".. note::"),  # a prose directive, whatever its body looks like
        ("text", "x = 1 is how it starts."),
        ("text", ".. custom::"),  # its body reads as words
        ("text", "Words of a paragraph, not code."),
    ]
    assert blocks_of(doc)[1][3].endswith('"""')


def test_a_tilde_underline_is_a_title_not_a_code_fence():
    # read as Markdown, "~~~" opens a fence that hides every later title
    text = "Intro\n=====\n\nOld\n~~~\n\nSome text.\n\nNext\n====\n\nMore text.\n"
    titles = [h.title for h in find_headings(read_text(text, format="rst"))]
    assert titles == ["Intro", "Old", "Next"]
    tree = make_chunker("hierarchical", {"sizes": (64, 16)}).chunk(read_text(text, format="rst", id="a.rst"))
    more = next(n for n in tree.leaves() if "More text." in n.text)
    assert more.section_path == ("Next",)


def test_short_underlines_and_transitions_are_not_titles():
    text = "A long title line\n---\n\ntext\n\n----------\n\nafter\n"
    assert find_headings(read_text(text, format="rst")) == []


def test_rst_files_are_read_as_rst():
    assert detect_format(__import__("pathlib").Path("guide.rst")) == "rst"
    assert detect_format(__import__("pathlib").Path("notes.txt")) == "text"
    # Sphinx keeps each page's source beside it as text: read as the source it is
    assert [detect_format(__import__("pathlib").Path(n)) for n in (
        "_sources/json.rst.txt", "_sources/intro.md.txt", "notes.v2.txt", "report.pdf.txt", "ls.1.txt")] == [
        "rst", "markdown", "text", "text", "text"]


_RST_PIECES = st.sampled_from([
    "Title", "=====", "-----", "~~~~~", "~~~", "==", "text::", "    code", "   :opt:", ".. code-block:: py",
    ".. code::", ".. note::", ".. x:example::", "    @d", "    f(x)", "  indented", "\n", "\n\n", " ", "\t", "中文。", "😀", "::",
    "===  ===", " a    b", "+---+---+", "| a | b |", "+===+===+",
])


@settings(max_examples=200, deadline=None)
@given(st.one_of(texts, st.lists(_RST_PIECES, max_size=40).map("\n".join)))
def test_any_text_gives_ordered_blocks_inside_it(text):
    check_blocks(read_text(text, format="rst"), text, code_may_indent=True)


def test_simple_and_grid_tables_are_table_blocks_cut_between_their_lines():
    simple = ("=====  =========\n Flag   Meaning\n=====  =========\n" + "".join(
        f"-{c}     {w} the files under the folder, one by one, and say so.\n" for c, w in zip("abcdefgh", (
            "list", "copy", "move", "drop", "keep", "sort", "show", "hash"))) + "=====  =========\n")
    grid = "+------+------+\n| Left | Right|\n+======+======+\n| a    | b    |\n+------+------+\n"
    text = f"Flags\n=====\n\n{simple}\nThen a grid:\n\n  {grid.replace(chr(10), chr(10) + '  ').rstrip()}\n\nThe end.\n"
    doc = read_text(text, format="rst")
    tables = [doc.text[b.start:b.end] for b in doc.blocks if b.type == "table"]
    assert tables == [simple.rstrip("\n"), grid.replace("\n", "\n  ").rstrip()]
    tree = chunker_for_profile("default").chunk(doc)
    rows = [(n.kind, text[n.start:n.end], n.embed_text) for n in tree.nodes if n.kind in ("header", "row")]
    assert rows[:2] == [("header", " Flag   Meaning", "Flag | Meaning"),
                        ("row", "-a     list the files under the folder, one by one, and say so.",
                         "Flag: -a | Meaning: list the files under the folder, one by one, and say so.")]
    assert rows[-2:] == [("header", "| Left | Right|", "Left | Right"), ("row", "| a    | b    |", "Left: a | Right: b")]
    assert len(rows) == 11


def test_a_simple_tables_row_may_run_over_lines_and_its_header_over_rows():
    text = ("=====  ======  =========\nFlag   Since   What it\n               does\n=====  ======  =========\n"
            "-a     1.0     lists the\n               files.\n-b     2.0     copies.\n=====  ======  =========\n")
    doc = read_text(text, format="rst")
    tree = chunker_for_profile("default").chunk(doc)
    assert [(n.kind, n.embed_text) for n in tree.nodes if n.kind in ("header", "row")] == [
        ("header", "Flag | Since | What it does"),
        ("row", "Flag: -a | Since: 1.0 | What it does: lists the files."),
        ("row", "Flag: -b | Since: 2.0 | What it does: copies.")]


_TABLE_LINES = st.lists(st.sampled_from([
    "===  ===", "=====  ==  ==", " a    b", "ab   cd  ef", "     c", "---  ---", "", "  ===  ===", "  x    y",
    "+---+---+", "| a | b |", "|   | c |", "+===+===+", "  +---+", "  | a |", "text", "中文  表格"]), max_size=30)


@settings(max_examples=200, deadline=None)
@given(_TABLE_LINES)
def test_any_table_lines_give_a_tree_of_exact_spans(lines):
    from invariants import check_tree

    text = "\n".join(lines)
    doc = read_text(text, format="rst")
    check_blocks(doc, text, code_may_indent=True)
    check_tree(chunker_for_profile("default").chunk(doc), partition=False)


def test_an_opening_field_list_is_metadata_and_names_the_title():
    text = ":title: AWS CLI Return Codes\n:category: General\n:empty:\n\nIntro.\n\nCodes\n=====\n\nZero.\n"
    doc = read_text(text, format="rst")
    assert doc.text == text  # the fields stay in the text, as docutils renders them
    assert doc.metadata == {"title": "AWS CLI Return Codes", "category": "General"}
    assert blocks_of(doc)[0] == ("text", 0, {}, ":title: AWS CLI Return Codes\n:category: General\n:empty:")
    assert read_text("Intro.\n\n:title: late\n", format="rst").metadata == {}


SPHINX = """\
:mod:`json` --- JSON
====================

.. module:: json

Basic Usage
-----------

.. function:: dumps(obj, *, skipkeys=False, \\
                    indent=None)

   Serialize *obj*.

.. class:: JSONEncoder(*, skipkeys=False)

   Extensible encoder.

   .. method:: default(o)

      Return a serializable object.

.. option:: --sort-keys

   Sort the output.
"""


def test_sphinx_object_directives_are_entries_titled_by_their_names():
    doc = read_text(SPHINX, format="rst", id="json.rst")
    assert [(b.level, b.meta["title"], doc.text[b.start:b.end]) for b in doc.blocks if b.type == "heading"] == [
        (1, ":mod:`json` --- JSON", ":mod:`json` --- JSON\n===================="),
        (2, "Basic Usage", "Basic Usage\n-----------"),
        (3, "json.dumps", ".. function:: dumps(obj, *, skipkeys=False, \\\n                    indent=None)"),
        (3, "json.JSONEncoder", ".. class:: JSONEncoder(*, skipkeys=False)"),
        (4, "default", ".. method:: default(o)"),
        (3, "--sort-keys", ".. option:: --sort-keys"),
    ]
    tree = make_chunker("hierarchical", {"unit": "chars"}).chunk(doc)
    paths = {n.section_path for n in tree if n.kind == "section"}
    assert ("json --- JSON", "Basic Usage", "json.JSONEncoder", "default") in paths


def test_a_lone_top_section_titles_the_document_and_a_changelog_of_many_does_not():
    changelog = ("Version 3.1.3\n-------------\n\nReleased 2026-02-18\n\n-   A fix.\n\n"
                 "Version 3.1.2\n-------------\n\n-   Another fix.\n")
    assert read_text(changelog, format="rst").metadata.get("title") is None
    page = "Configuration\n=============\n\nIntro.\n\nBuiltin values\n--------------\n\nText.\n"
    assert read_text(page, format="rst").metadata["title"] == "Configuration"
    assert read_text("=====\nGuide\n=====\n\nText.\n", format="rst").metadata["title"] == "Guide"

"""HTML reader: a normalised markdown-like rendering whose blocks point into it."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zoomrag.errors import DecodeError
from zoomrag.load import load_path, read_text
from zoomrag.load.tables import parse_pipe_table
from zoomrag.parse import make_chunker

FIXTURES = Path(__file__).parent / "fixtures"


def blocks_of(doc):
    return [(b.type, b.level, dict(b.meta), doc.text[b.start:b.end]) for b in doc.blocks]


def test_fixture_rendering_and_blocks_exact():
    doc = load_path(FIXTURES / "sample.html")
    assert doc.format == "html"
    assert doc.metadata == {"title": "Team & roles"}
    assert doc.text == (
        "# Our team\n\n"
        "We are three people <3.\n\n"
        "- Alice\n- Bob\n  - intern\n\n"
        "| Name | Role |\n| --- | --- |\n| Alice | lead |\n| Bob | a\\|b |\n\n"
        "```python\ndef f():\n    return 1\n```\n"
    )
    assert blocks_of(doc) == [
        ("heading", 1, {}, "# Our team"),
        ("text", 0, {}, "We are three people <3."),
        ("list", 0, {"ordered": False}, "- Alice\n- Bob\n  - intern"),
        ("table", 0, {}, "| Name | Role |\n| --- | --- |\n| Alice | lead |\n| Bob | a\\|b |"),
        ("code", 0, {"language": "python"}, "```python\ndef f():\n    return 1\n```"),
    ]
    assert [(b.start, b.end) for b in doc.blocks] == [(0, 10), (12, 35), (37, 61), (63, 124), (126, 161)]


def test_loose_text_br_and_nested_containers_become_paragraphs():
    doc = read_text("<body>Loose <b>bold</b><br>next<div><div>deep</div><p>p2</p>tail</div>"
                    "<blockquote>q</blockquote></body>", format="html")
    assert blocks_of(doc) == [
        ("text", 0, {}, "Loose bold\nnext"),
        ("text", 0, {}, "deep"),
        ("text", 0, {}, "p2"),
        ("text", 0, {}, "tail"),
        ("text", 0, {}, "q"),
    ]


def test_boilerplate_is_dropped():
    html = ("<nav>menu</nav><script>var x</script><style>p{}</style><noscript>js!</noscript>"
            "<div hidden>secret</div><span aria-hidden='true'>icon</span><div role='navigation'>nav</div>"
            "<p>kept<button>Click</button></p><!-- comment -->")
    doc = read_text(html, format="html")
    assert doc.text == "kept\n"


def test_ordered_lists_count_from_their_start():
    doc = read_text("<ol start='3'><li>x</li><li><p>y</p> <em>z</em></li></ol>", format="html")
    assert blocks_of(doc) == [("list", 0, {"ordered": True}, "3. x\n4. y z")]


def test_a_list_whose_items_hold_code_keeps_each_example_a_code_block_under_its_line():
    """A manual's EXAMPLES (asciidoc, Sphinx): an item's code read into its line ran the commands
    and their ``#`` comments together into one line of words."""
    html = ("<ol start='2'><li><p>Bisect a build:</p><div class='listingblock'><pre><code>$ git bisect run make\n"
            "$ git bisect reset   # done</code></pre></div><p>It stops at the first bad commit.</p></li>"
            "<li>Plain item</li><li><p>Ask:</p><ul><li>a</li></ul></li></ol>"
            "<ul><li><p>no code</p></li></ul>")
    doc = read_text(html, format="html")
    assert blocks_of(doc) == [
        ("list", 0, {"ordered": True}, "2. Bisect a build:"),
        ("code", 0, {"language": ""}, "```\n$ git bisect run make\n$ git bisect reset   # done\n```"),
        ("text", 0, {}, "It stops at the first bad commit."),
        ("list", 0, {"ordered": True}, "3. Plain item\n4. Ask:\n  - a"),
        ("list", 0, {"ordered": False}, "- no code"),
    ]
    # an item holding only a list takes no number of its own, as in a list read whole
    gap = read_text("<ol><li><p>Run:</p><pre>make</pre></li><li><ul><li>a</li></ul></li><li>Last</li></ol>",
                    format="html")
    assert blocks_of(gap)[2:] == [("list", 0, {"ordered": True}, "- a\n2. Last")]
    deep = read_text("<ul><li><pre>x</pre>" * 200 + "end", format="html")  # bounded, read whole
    assert "end" in deep.text and deep.text.count("```") >= 2


def test_tables_without_header_cells_use_the_first_row_and_pad_rows():
    html = ("<table><caption>Scores</caption><tr><td>a</td><td>b</td></tr>"
            "<tr><td colspan='2'>wide</td></tr><tr><td>short</td></tr>"
            "<tr><td>x\\|y</td><td><b>in</b><div>ner</div></td></tr></table>")
    doc = read_text(html, format="html")
    assert blocks_of(doc) == [
        ("text", 0, {}, "Scores"),
        ("table", 0, {}, "| a | b |\n| --- | --- |\n| wide |  |\n| short |  |\n| x\\\\\\|y | in ner |"),
    ]
    table = parse_pipe_table(doc.text, doc.blocks[1].start, doc.blocks[1].end)
    assert [[c.value for c in r.cells] for r in table.rows] == [
        ["wide", ""], ["short", ""], ["x\\|y", "in ner"]]


def test_layout_tables_are_read_as_the_blocks_in_their_cells():
    # pydoc's shape: a section title row, then a cell holding a definition list and a nested table
    html = ("<table class='section'><tr><td colspan=2><a name='Parser'>class <strong>Parser</strong></a>"
            "(<a href='#Base'>Base</a>)</td></tr>"
            "<tr><td>&nbsp;</td><td><dl><dt><a name='Parser-add'><strong>add</strong></a>(self, x)</dt>"
            "<dd>Add <tt>x</tt>.<br>Twice is an error.</dd></dl>"
            "<table><tr><td><a href='os.html'>os</a></td><td><a href='re.html'>re</a></td></tr></table>"
            "</td></tr></table>"
            "<table role='presentation'><tr><td>left</td><td>right</td></tr><tr><td>a</td><td>b</td></tr></table>"
            "<table><tr><td>one cell per row</td></tr><tr><td>is a list</td></tr></table>"
            "<table><tr><td>only</td><td>one row</td></tr></table>")
    doc = read_text(html, format="html")
    assert blocks_of(doc) == [
        ("text", 0, {}, "class Parser(Base)"),
        ("text", 0, {}, "add(self, x): Add x.\nTwice is an error."),
        ("text", 0, {}, "left"), ("text", 0, {}, "right"), ("text", 0, {}, "a"), ("text", 0, {}, "b"),
        ("text", 0, {}, "one cell per row"), ("text", 0, {}, "is a list"),
        ("text", 0, {}, "only"), ("text", 0, {}, "one row"),
    ]


def test_a_table_with_header_cells_stays_a_table_when_its_cells_hold_lists():
    html = ("<table><tr><th>Option</th><th>Meaning</th></tr>"
            "<tr><td>-v</td><td><ul><li>louder</li><li>twice: debug</li></ul></td></tr>"
            "<tr><td>-q</td><td><p>quiet</p></td></tr></table>")
    doc = read_text(html, format="html")
    assert blocks_of(doc) == [("table", 0, {}, "| Option | Meaning |\n| --- | --- |\n"
                                               "| -v | louder twice: debug |\n| -q | quiet |")]


def test_pre_fence_grows_past_backticks_and_keeps_whitespace():
    doc = read_text("<pre>a ```\n  b&amp;</pre>", format="html")
    assert doc.text == "````\na ```\n  b&\n````\n"
    assert blocks_of(doc) == [("code", 0, {"language": ""}, "````\na ```\n  b&\n````")]


def test_title_falls_back_to_the_first_h1_and_whitespace_collapses():
    doc = read_text("<h2>Sub</h2><h1> Main\n  title </h1><p>a&nbsp;&nbsp;b</p>", format="html")
    assert doc.metadata == {"title": "Main title"}
    assert doc.text == "## Sub\n\n# Main title\n\na b\n"


def test_empty_html():
    for html in ("", "<html><head><title></title></head><body> </body></html>"):
        doc = read_text(html, format="html")
        assert (doc.text, doc.blocks, doc.metadata) == ("", (), {"title": None})


def test_deep_nesting_does_not_recurse():
    doc = read_text("<div>" * 3000 + "deep" + "</div>" * 3000, format="html")
    assert doc.text == "deep\n"


_HTML_PIECES = st.sampled_from([
    "<p>", "</p>", "<h2>", "</h2>", "<h6>", "<ul><li>", "</li><li>", "</li></ul>", "<ol>", "</ol>",
    "<table><tr><th>", "</th><th>", "<tr><td>", "</td><td>", "</td></tr>", "</table>", "<td colspan=3>",
    "<pre>", "</pre>", "<code class='language-js'>", "<br>", "&amp;", "&lt;", "&nbsp;", "|", "\\", "\\|",
    "text", "more words", " ", "\n", "<script>", "</script>", "<div>", "</div>", "<b>", "</b>", "```",
    "中文", "😀", "<caption>", "<blockquote>", "<!--", "-->", "<nav>", "# not", "- not",
    "<dl>", "</dl>", "<dt id='f'>", "<dt class='sig sig-object'>", "</dt>", "<dd>", "</dd>",
    "<div class='admonition note'>", "<p class='admonition-title'>", "<div class='note'>",
    "<h3 class='title'>", "</h3>", "<aside class='admonition'>", "</aside>", "<div class='navheader'>",
    "<title>text</title>", "<h2>text</h2>",
    "<a class='footnote-ref' href='#fn1' role='doc-noteref'><sup>1</sup></a>", "<a href='#x' class='footnote'>",
    "</a>", "<section class='footnotes' role='doc-endnotes'>", "</section>", "<li id='fn1'>",
    "<a href='#r' role='doc-backlink'>↩</a>", "<aside class='footnote' id='f1' role='doc-footnote'>",
    "<span class='label'>[1]</span>", "<div class='footnote'>", "<sup class='para'>[a] </sup>",
    # a filing's look: titles in bold, page breaks and their page numbers, split figures
    "<p style='font-weight:700'>", "<div style='font-size:14pt'>", "<b>", "<u>", "Item 1.", "PART II",
    "7", "<hr style='page-break-after:always'>", "<div style='break-before:page'>",
    "<td>$</td>", "<td>)</td>", "<td>(12</td>", "<td>%</td>", "<span style='display:none'>",
    "<table><tr><td><b>Item 2.</b></td><td><b>Properties</b></td></tr></table>",
    # wikis exported: a Confluence page's template and macros, a Notion page's properties and callouts
    "<span id='title-text'>Ops : Runbook</span>", "<div id='main-content'>", "<ol id='breadcrumbs'><li>Top</li></ol>",
    "<div class='page-metadata'>Created by <span class='author'>Ann</span> on Mar 1, 2024</div>",
    "<div class='pageSection'><h2 class='pageSectionTitle'>Comments:</h2>", "<div class='toc-macro'>",
    "<div class='confluence-information-macro confluence-information-macro-note'>",
    "<div class='confluence-information-macro-body'>", "<div class='plugin-tabmeta-details'>",
    "<table><tr><th>Owner</th><td>Ann</td></tr><tr><th>Status</th><td>Done</td></tr></table>",
    "<figure class='callout'><div><span class='icon'>💡</span></div><div>", "</figure>",
    "<table class='properties'><tr class='property-row property-row-multi_select'><th>Tags</th><td>"
    "<span class='selected-value'>a</span><span class='selected-value'>b</span></td></tr></table>",
])


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.lists(_HTML_PIECES, max_size=50).map("".join), st.text(max_size=200)))
def test_any_html_gives_ordered_blocks_and_well_formed_tables(html):
    _ordered_blocks(read_text(html, format="html"))


@settings(max_examples=60, deadline=None)
@given(st.lists(_HTML_PIECES, max_size=40).map("".join))
def test_any_page_of_a_notion_export_gives_ordered_blocks(html):
    _ordered_blocks(read_text(html, format="html", source="Page 3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f.html"))


def _ordered_blocks(doc):
    text = doc.text
    assert text == "" or (text.endswith("\n") and not text.endswith("\n\n"))
    prev = 0
    for b in doc.blocks:
        assert prev <= b.start < b.end <= len(text)
        piece = text[b.start:b.end]
        assert piece == piece.strip() or b.type == "code"
        assert b.start == 0 or text[b.start - 2:b.start] == "\n\n"
        prev = b.end
        if b.type == "table":
            table = parse_pipe_table(text, b.start, b.end)
            assert table is not None
            # Escaping keeps every row exactly as wide as the header.
            assert all(len(r.cells) == len(table.header.cells) for r in table.rows)
            assert len(table.rows) == piece.count("\n") - 1


def test_a_list_starting_with_a_nested_list_is_dedented():
    doc = read_text("<ul><li><ul><li>inner</li></ul></li><li>outer</li></ul>", format="html")
    assert blocks_of(doc) == [("list", 0, {"ordered": False}, "- inner\n- outer")]


def test_deeply_nested_lists_are_bounded():
    doc = read_text("<ul><li>" * 2000 + "x", format="html")
    [b] = doc.blocks
    assert b.type == "list" and doc.text[b.start:b.end].endswith("- x")


def test_page_furniture_and_navigation_lines_are_dropped_but_an_articles_header_is_kept():
    html = ("<header><a href='/'>Home</a> | <a href='/docs'>Docs</a></header>"
            "<div class='related'><p>Previous: <a href='a.html'>Intro</a> Up: <a href='i.html'>Contents</a> "
            "[<a href='g.html'>Index</a>]</p></div>"
            "<article><header><h1>Budgets</h1></header><p>A budget is a number of tokens; see "
            "<a href='x'>the guide</a>.</p></article>"
            "<aside><p>Related: chunking</p></aside><footer><p>Copyright 2026 Example.</p></footer>"
            "<p><a href='p'>Previous</a> | <a href='n'>Next</a></p>")
    doc = read_text(html, format="html")
    assert doc.text == "# Budgets\n\nA budget is a number of tokens; see the guide.\n"


#: A DocBook page as its XSL stylesheets write it (the Debian FAQ, PostgreSQL's manual): a
#: navigation table above and below the chapter, a table of contents, admonitions titled by an h3.
DOCBOOK = (
    '<div class="navheader"><table summary="Navigation header"><tr><th colspan="3">第 7 章 基础</th>'
    '</tr><tr><td><a accesskey="p" href="a.html"><img src="prev.png" alt="上一页"/></a></td><th> </th>'
    '<td><a accesskey="n" href="c.html"><img src="next.png" alt="下一页"/></a></td></tr></table><hr/></div>'
    '<div class="chapter"><div class="titlepage"><div><div><h1 class="title"><a id="b"></a>第 7 章 基础'
    '</h1></div></div></div><div class="toc"><p><b>目录</b></p><dl class="toc"><dt><span class="section">'
    '<a href="#s1">7.1. 什么是软件包？</a></span></dt></dl></div>'
    '<div class="abstract"><p class="title"><b>Abstract</b></p><p>What this chapter says.</p></div>'
    '<div class="section"><div class="titlepage"><div><div><h2 class="title"><a id="s1"></a>7.1. 什么是'
    '软件包？</h2></div></div></div><p>软件包包括一切文件。</p>'
    '<div class="tip"><h3 class="title">Tip</h3><p>Use dpkg.</p></div>'
    '<aside class="admonition warning"><p class="admonition-title">Warning</p><p>Mind it.</p></aside>'
    '<p>After the tip, still in 7.1.</p></div></div>'
    '<div class="navfooter"><hr/><table summary="Navigation footer"><tr><td>第 6 章 档案库</td><td>'
    '<a accesskey="h" href="index.html"><img src="home.png" alt="起始页"/></a></td><td>第 8 章 工具</td>'
    "</tr></table></div>"
)


def test_docbook_navigation_and_contents_are_dropped_and_admonitions_are_not_sections():
    # HTML 4 era DocBook writes its classes in capitals
    old = read_text('<DIV CLASS="TOC"><P>Contents</P></DIV><DIV CLASS="NOTE"><H3 CLASS="TITLE">Note</H3>'
                    "<P>Old style.</P></DIV>", format="html")
    assert old.text == "Note: Old style.\n"
    doc = read_text(DOCBOOK, format="html")
    assert doc.text == (
        "# 第 7 章 基础\n\nAbstract: What this chapter says.\n\n## 7.1. 什么是软件包？\n\n"
        "软件包包括一切文件。\n\nTip: Use dpkg.\n\nWarning: Mind it.\n\nAfter the tip, still in 7.1.\n"
    )
    assert [b.level for b in doc.blocks if b.type == "heading"] == [1, 2]
    tree = make_chunker("hierarchical", {"unit": "chars"}).chunk(doc)
    [leaf] = [n for n in tree.leaves() if n.text.startswith("After the tip")]
    assert leaf.section_path == ("第 7 章 基础", "7.1. 什么是软件包？")


def test_a_first_heading_repeating_the_page_title_is_above_its_sibling_headings():
    """DocBook's reference pages (PostgreSQL's ``VACUUM``) put the command and its sections all
    at h2: the title becomes their parent, so a section path names the command."""
    page = ("<html><head><title>VACUUM | PostgreSQL 15</title></head><body><div class='refnamediv'>"
            "<h2><span class='refentrytitle'>VACUUM</span></h2><p>VACUUM — garbage-collect.</p></div>"
            "<h2>Parameters</h2><p>FULL</p><p>Selects full vacuum.</p><h3>Notes</h3><p>Some.</p></body></html>")
    doc = read_text(page, format="html")
    assert doc.text == ("# VACUUM\n\nVACUUM — garbage-collect.\n\n## Parameters\n\nFULL\n\n"
                        "Selects full vacuum.\n\n### Notes\n\nSome.\n")
    assert [(b.type, b.level, doc.text[b.start:b.end]) for b in doc.blocks if b.type == "heading"] == [
        ("heading", 1, "# VACUUM"), ("heading", 2, "## Parameters"), ("heading", 3, "### Notes")]
    tree = make_chunker("hierarchical", {"unit": "chars"}).chunk(doc)
    leaf = min((n for n in tree if "Selects" in n.text), key=lambda n: n.end - n.start)
    assert leaf.section_path == ("VACUUM", "Parameters")
    # A first heading that is not the page's title, or already above the rest, stays.
    for other in ("<title>Reference</title><h2>VACUUM</h2><h2>Parameters</h2>",
                  "<title>VACUUM</title><h2>VACUUM</h2><h3>Parameters</h3>",
                  "<title>VACUUM</title><h1>VACUUM</h1><h1>Parameters</h1>"):
        rendered = read_text(other, format="html").text
        assert rendered.startswith(("## VACUUM", "# VACUUM\n\n# Parameters")), rendered


def test_a_definition_term_leads_its_definition():
    """DocBook's variable lists (a command's options), FAQs and glossaries: the term stays with
    what it defines, so no context ends on a term without its definition."""
    html = ("<dl><dt><code>FULL</code></dt><dd><p>Selects full vacuum.</p><p>Slow.</p></dd>"
            "<dt>What is a pool?</dt><dd><p>A folder of packages.</p></dd>"
            "<dt>char_length(text)</dt><dt>character_length(text)</dt><dd><p>Characters.</p></dd>"
            "<dt>Options:</dt><dd><ul><li>-v</li></ul></dd>"
            "<dt>lonely</dt><dd></dd><dt>after</dt><dd><p>Its own.</p></dd></dl><h2>Next</h2>"
            "<dl><dt>自由：</dt><dd><p>Debian 将一直是自由的。</p></dd><dt>稳定版</dt><dd><p>久经测试。</p></dd></dl>"
            '<div class="admonition seealso"><p class="admonition-title">See also</p>'
            "<dl><dt>PEP 343</dt><dd><p>The with statement.</p></dd></dl></div>"
            "<dl><dt>last term</dt><dd></dd><dt><a href='r.html'>References</a></dt></dl><p>Footer.</p>"
            "<dl><dt><a href='g.html'>gn</a></dt><dd><p>A meta-build system.</p></dd></dl>")
    doc = read_text(html, format="html")
    assert doc.text == ("FULL: Selects full vacuum.\n\nSlow.\n\nWhat is a pool? A folder of packages.\n\n"
                        "char_length(text), character_length(text): Characters.\n\nOptions:\n\n- -v\n\n"
                        "lonely\n\nafter: Its own.\n\n## Next\n\n自由：Debian 将一直是自由的。\n\n稳定版：久经测试。\n\n"
                        "See also: PEP 343: The with statement.\n\nlast term\n\nFooter.\n\ngn: A meta-build system.\n")


def test_rustdoc_version_stamps_source_links_and_toggles_are_dropped():
    """Left in, "1.0.0 · Source" before each method's heading ended the previous method's section."""
    html = ('<h1>Struct <span class="struct">Vec</span></h1><span class="sub-heading"><span class="since">'
            '1.0.0</span> · <a class="src" href="s.html">Source</a></span>'
            '<details class="toggle top-doc" open><summary class="hideme"><span>Expand description</span>'
            '</summary><div class="docblock"><p>A growable array.</p></div></details>'
            '<details class="toggle method-toggle" open><summary><section id="method.push" class="method">'
            '<span class="rightside"><span class="since">1.0.0</span> · <a class="src" href="s.html">Source'
            '</a></span><h4 class="code-header">pub fn push(&amp;mut self, value: T)</h4></section></summary>'
            '<div class="docblock"><p>Appends an element.</p></div></details>')
    assert read_text(html, format="html").text == (
        "# Struct Vec\n\nA growable array.\n\n#### pub fn push(&mut self, value: T)\n\nAppends an element.\n")


def test_a_page_with_one_main_is_read_from_it_alone():
    """Menus and pop-ups made of plain divs (a book generator's page) are outside ``main``."""
    page = ("<div id='help'><h2>Keyboard shortcuts</h2><p>Press S to search in the book</p></div>"
            "<div class='menu-bar'><h1 class='menu-title'>The Book</h1></div>"
            "<div class='page'><main><h1>Lints</h1><p>Lints help you write documentation.</p></main></div>"
            "<div class='nav-wrapper'><p>Next chapter</p></div>")
    doc = read_text(page, format="html")
    assert doc.text == "# Lints\n\nLints help you write documentation.\n"
    two = "<main><p>First part.</p></main><div><p>Between.</p></div><main hidden><p>Other.</p></main>"
    assert read_text(two, format="html").text == "First part.\n\nBetween.\n"  # two mains: the whole body


def test_a_paragraph_starting_with_hash_is_not_a_heading_of_the_page():
    from zoomrag.parse.headings import find_headings
    # pydoc renders source comments between methods; only <h1>-<h6> are the page's headings
    doc = read_text("<h2>Parser</h2><p># ======<br># Exiting methods<br># ======</p><p>exit(self)</p>",
                    format="html")
    assert [(h.level, h.title) for h in find_headings(doc)] == [(2, "Parser")]
    doc = read_text("<p># ======<br># Exiting methods</p><p>exit(self)</p>", format="html")
    assert find_headings(doc) == []


def test_lines_indented_with_no_break_spaces_keep_their_indent():
    # pydoc writes docstrings and code this way: <br> ends a line, &nbsp; indents the next
    html = "<p><tt>def&nbsp;f():<br>\n&nbsp;&nbsp;&nbsp;&nbsp;return&nbsp;&nbsp;1<br>&nbsp;&nbsp;</tt></p><p>a&nbsp;b</p>"
    assert read_text(html, format="html").text == "def f():\n    return 1\n\na b\n"


def test_heading_permalinks_are_left_out_and_other_links_kept():
    html = ('<h2 id="ex"><a class="doc-anchor" href="#ex">§</a>Examples</h2>'
            '<h3>Install<a class="headerlink" href="#install" title="Link">¶</a></h3>'
            '<p>See <a href="#x">section 2</a> and <a href="#y">#</a> marks.</p>')
    doc = read_text(html, format="html", id="p", source="p.html")
    assert doc.text == "## Examples\n\n### Install\n\nSee section 2 and marks.\n"


SPHINX = (
    "<h1>json — JSON encoder</h1><h2>Basic Usage</h2>"
    '<dl class="py function"><dt class="sig sig-object py" id="json.dumps">'
    '<span class="sig-prename descclassname"><span class="pre">json.</span></span>'
    '<span class="sig-name descname"><span class="pre">dumps</span></span>'
    '<span class="sig-paren">(</span><em class="sig-param">obj</em><span class="sig-paren">)</span>'
    '<a class="reference internal" href="_modules/json.html#dumps"><span class="viewcode-link">'
    '<span class="pre">[source]</span></span></a><a class="headerlink" href="#json.dumps">¶</a></dt>'
    "<dd><p>Serialize <em>obj</em>.</p>"
    '<div class="admonition note"><p class="admonition-title">Note</p><p>Keys are str.</p>'
    "<p>Always.</p></div></dd></dl>"
    '<dl class="py class"><dt class="sig sig-object py" id="json.JSONEncoder">'
    '<em class="property">class </em><span class="sig-prename descclassname">json.</span>'
    '<span class="sig-name descname">JSONEncoder</span></dt>'
    '<dd><p>Extensible encoder.</p><dl class="py method"><dt class="sig sig-object py" '
    'id="json.JSONEncoder.default"><span class="sig-name descname">default</span>(o)</dt>'
    "<dd><p>Return a serializable object.</p></dd></dl></dd></dl>"
    '<dl class="simple"><dt>term</dt><dd><p>a plain definition</p></dd></dl>'
    "<h2>Command Line</h2>"
    '<dl class="glossary"><dt id="term-a-very-long-glossary-term">'
    + "word " * 20 + "</dt><dd><p>Meaning.</p></dd></dl>"
)


def test_api_entries_are_headings_titled_by_their_names_and_admonition_titles_lead_in():
    doc = read_text(SPHINX, format="html")
    assert doc.text == (
        "# json — JSON encoder\n\n## Basic Usage\n\n"
        "### json.dumps(obj)\n\nSerialize obj.\n\nNote: Keys are str.\n\nAlways.\n\n"
        "### class json.JSONEncoder\n\nExtensible encoder.\n\n"
        "#### default(o)\n\nReturn a serializable object.\n\n"
        "## Basic Usage\n\nterm: a plain definition\n\n## Command Line\n\n"
        "### " + " ".join(["word"] * 20) + "\n\nMeaning.\n"
    )
    headings = [(b.level, b.meta.get("title")) for b in doc.blocks if b.type == "heading"]
    assert headings == [(1, None), (2, None), (3, "json.dumps"), (3, "json.JSONEncoder"),
                        (4, "default"), (2, None), (2, None), (3, "term-a-very-long-glossary-term")]
    tree = make_chunker("hierarchical", {"unit": "chars"}).chunk(doc)
    paths = {n.text.split("\n")[0]: n.section_path for n in tree if n.kind == "section"}
    assert paths["#### default(o)"] == ("json — JSON encoder", "Basic Usage", "json.JSONEncoder",
                                        "default")


def test_an_admonition_title_with_nothing_under_it_stays_its_own_line():
    doc = read_text('<div class="admonition"><p class="admonition-title">See also</p></div>'
                    "<p>After.</p>"
                    '<div class="admonition"><p class="admonition-title">Tip</p><pre>x = 1</pre></div>',
                    format="html")
    assert doc.text == "See also\n\nAfter.\n\nTip:\n\n```\nx = 1\n```\n"


def test_nested_admonitions_are_bounded():
    html = '<div class="admonition">' * 3000 + "deep" + "</div>" * 3000
    assert read_text(html, format="html").text == "deep\n"


def test_a_pre_keeps_each_code_flavour_on_its_lines_and_leaves_out_the_copy_button():
    html = ('<pre><input class="js-flavor-toggle" type="checkbox"><code class="language-js cjs">'
            'const a = require("a");</code><code class="language-js mjs">import a from "a";</code>'
            '<button class="copy-button">copy</button></pre>'
            '<pre><code class="language-js">a.b();\n// Returns: 1</code> <button>copy</button></pre>'
            "<pre>  indented\n    more</pre>")
    doc = read_text(html, format="html")
    assert doc.text == ('```js\nconst a = require("a");\n\nimport a from "a";\n```\n\n'
                        "```js\na.b();\n// Returns: 1\n```\n\n```\n  indented\n    more\n```\n")


def test_deeply_nested_entries_are_bounded():
    doc = read_text('<dl><dt id="x">a</dt><dd>' * 2000 + "deep" + "</dd></dl>" * 2000, format="html")
    assert doc.text.endswith("###### a\n\ndeep\n")
    assert [b.level for b in doc.blocks if b.type == "heading"][:7] == [1, 2, 3, 4, 5, 6, 6]


PAGE = "<html><head><title>T</title></head><body><main>{}</main></body></html>"


def test_footnotes_are_rendered_in_markdown_syntax_for_each_generator():
    docutils = ('<p>Kept for seven days<a class="footnote-reference brackets" href="#f1" id="r1" '
                'role="doc-noteref"><span class="fn-bracket">[</span>1<span class="fn-bracket">]</span></a>.</p>'
                '<aside class="footnote-list brackets"><aside class="footnote brackets" id="f1" role="doc-footnote">'
                '<span class="label"><span class="fn-bracket">[</span><a role="doc-backlink" href="#r1">1</a>'
                '<span class="fn-bracket">]</span></span><p>Seven is the default.</p><p>Set it per index.</p>'
                '</aside></aside>')
    pandoc = ('<p>Shared pool<a href="#fn1" class="footnote-ref" id="fnref1" role="doc-noteref"><sup>1</sup></a>.</p>'
              '<section id="footnotes" class="footnotes footnotes-end-of-document" role="doc-endnotes"><hr />'
              '<ol><li id="fn1"><p>Since version two.<a href="#fnref1" class="footnote-back" '
              'role="doc-backlink">↩︎</a></p></li><li id="fn2">Bare item.</li></ol></section>')
    markdown = ('<p>Retries<sup id="fnref:1"><a class="footnote-ref" href="#fn:1">1</a></sup>.</p>'
                '<div class="footnote"><hr /><ol><li id="fn:1"><p>Three at most.&#160;<a class="footnote-backref" '
                'href="#fnref:1" title="Jump back">&#8617;</a></p></li></ol></div>')
    github = ('<p>Lag<sup><a href="#user-content-fn-1" id="user-content-fnref-1" data-footnote-ref>1</a></sup>.</p>'
              '<section data-footnotes class="footnotes"><ol><li id="user-content-fn-1"><p>Measured hourly. '
              '<a href="#user-content-fnref-1" data-footnote-backref class="data-footnote-backref">↩</a></p>'
              '</li></ol></section>')
    docbook = ('<p>Send it to the list.<a href="#ftn.i7" class="footnote" id="i7"><sup class="footnote">[7]'
               '</sup></a></p><div class="footnotes"><br /><hr /><div id="ftn.i7" class="footnote"><p>'
               '<a href="#i7" class="para"><sup class="para">[7] </sup></a>Use the -REQUEST address.</p></div></div>')
    # docutils 0.19 (Sphinx 5-6) marks a note role="note"; a note that is only a link is content
    sphinx = ('<p>Aliases<a class="footnote-reference brackets" href="#id3" id="id1" role="doc-noteref">'
              '<span class="fn-bracket">[</span>1<span class="fn-bracket">]</span></a>.</p>'
              '<aside class="footnote-list brackets"><aside class="footnote brackets" id="id3" role="note">'
              '<span class="label"><span class="fn-bracket">[</span><a role="doc-backlink" href="#id1">1</a>'
              '<span class="fn-bracket">]</span></span><p><a class="reference external" href="https://u.org/A.txt">'
              'https://u.org/A.txt</a></p></aside></aside>')
    got = {name: read_text(PAGE.format(html), format="html").text for name, html in
           [("docutils", docutils), ("pandoc", pandoc), ("markdown", markdown), ("github", github),
            ("docbook", docbook), ("sphinx", sphinx)]}
    assert got == {
        "docutils": "Kept for seven days[^1].\n\n[^1]: Seven is the default.\n\nSet it per index.\n",
        "pandoc": "Shared pool[^1].\n\n[^1]: Since version two.\n\n[^2]: Bare item.\n",
        "markdown": "Retries[^1].\n\n[^1]: Three at most.\n",
        "github": "Lag[^1].\n\n[^1]: Measured hourly.\n",
        "docbook": "Send it to the list.[^7]\n\n[^7]: Use the -REQUEST address.\n",
        "sphinx": "Aliases[^1].\n\n[^1]: https://u.org/A.txt\n",
    }


def test_a_tables_notes_and_links_that_only_look_like_notes():
    table = ('<table><tr><th>Command</th><th>Check</th></tr><tr><td>INSERT</td><td>New row '
             '<a href="p.html#ftn.x" class="footnoteref"><sup class="footnoteref">[a]</sup></a></td></tr>'
             '<tbody class="footnotes"><tr><td colspan="2"><div id="ftn.x" class="footnote"><p>'
             '<a href="#x" class="para"><sup class="para">[a] </sup></a>If read access is needed.</p></div>'
             '</td></tr></tbody></table>')
    # DocBook's notes row of a table: the notes follow the table as notes
    assert read_text(PAGE.format(table), format="html").text == (
        "| Command | Check |\n| --- | --- |\n| INSERT | New row [^a] |\n\n[^a]: If read access is needed.\n")
    in_cell = table.replace('<tbody class="footnotes">', "<tbody>")
    assert "| [^a]: If read access is needed. |" in read_text(PAGE.format(in_cell), format="html").text
    plain = ('<p>See <a class="para" href="#s2">section 2</a> and <a href="#fn">note</a> and '
             '<a class="footnote" href="#n">the small print</a>.</p>')
    assert read_text(PAGE.format(plain), format="html").text == "See section 2 and note and the small print.\n"


def test_a_table_of_fields_reads_as_a_name_and_its_value_a_line():
    fields = ("<table><tr><th>Owner</th><td>Ana <b>Silva</b></td></tr><tr><th>Status:</th><td>Done</td></tr>"
              "<tr><th>Notes</th><td></td></tr></table>")
    doc = read_text(fields, format="html", id="f")
    assert doc.text == "Owner: Ana Silva\nStatus: Done\n"
    assert [b.type for b in doc.blocks] == ["text"]
    # a header row over the rows, or a value too long for a field: a table
    headed = "<table><tr><th>Name</th><th>Role</th></tr><tr><th>Ann</th><td>lead</td></tr></table>"
    assert read_text(headed, format="html", id="h").text.startswith("| Name | Role |")
    long = f"<table><tr><th>Summary</th><td>{'word ' * 60}</td></tr><tr><th>Owner</th><td>Ann</td></tr></table>"
    assert read_text(long, format="html", id="l").text.startswith("| Summary |")


def test_a_page_is_read_in_the_charset_its_meta_declares(tmp_path):
    """Older pages in German, French or Russian are saved in a code page their <meta> names, as
    browsers read them; they were refused as "not valid UTF-8"."""
    f = tmp_path / "alt.html"
    # declared ISO-8859-1 with windows-1252's quotes and euro sign: read as a browser does
    f.write_bytes('<html><head><meta charset="iso-8859-1"><title>Preise</title></head><body><h1>Über uns</h1>'
                  '<p>Größe „Maße“ für 5 €.</p></body></html>'.encode("cp1252"))
    assert load_path(f).text.strip() == "# Über uns\n\nGröße „Maße“ für 5 €."
    f.write_bytes('<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1251">'
                  '</head><body><h1>Глава 1</h1><p>Текст страницы.</p></body></html>'.encode("cp1251"))
    assert load_path(f).text.strip() == "# Глава 1\n\nТекст страницы."
    # UTF-8 wins over a declaration that is wrong about it; no declaration: refused, named
    f.write_bytes('<html><head><meta charset="iso-8859-1"></head><body><p>Größe</p></body></html>'.encode())
    assert load_path(f).text.strip() == "Größe"
    f.write_bytes("<html><body><p>Größe und Maße der Pakete für die Benutzer, schöne Grüße</p></body></html>"
                  .encode("latin-1"))
    with pytest.raises(DecodeError, match=r"alt.html: not valid UTF-8 \(byte 0xf6 at offset 17, line 1\)"):
        load_path(f)


def test_a_permalink_of_a_zero_width_space_and_lines_of_code_ended_by_br_read_as_a_browser_shows_them():
    # Docusaurus: a heading's "#" link is a zero-width space; each line of code a div ended by <br>
    html = ("<h2>Create your first Doc<a href='#first' class='hash-link'>\u200b</a></h2>"
            "<pre><code><div class='token-line'><span>cd my-website</span><br/></div>"
            "<div class='token-line'><span>npm run start</span><br/></div></code></pre><p>a <a id='x'></a>b</p>")
    assert read_text(html, format="html").text == (
        "## Create your first Doc\n\n```\ncd my-website\nnpm run start\n```\n\na b\n")

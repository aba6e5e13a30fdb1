"""Javadoc's pages read as a Java developer reads them: members as sections, summaries as tables,
source pages as the Java files they show."""

from __future__ import annotations

from html import escape

import pytest

from zoomrag.errors import BinaryFileError
from zoomrag.load import load_path, read_text
from zoomrag.parse import make_chunker

#: A class page as javadoc 11 writes it: members in nested lists, an ``h4`` each.
JAVADOC_11 = """<html><head><title>Tailer (IO API)</title></head><body>
<header role="banner"><nav role="navigation"><ul class="navList"><li><a href="../index.html">Overview</a></li></ul></nav></header>
<main role="main">
<div class="header">
<div class="subTitle"><span class="packageLabelInType">Package</span>&nbsp;<a href="package-summary.html">org.example.io</a></div>
<h2 title="Class Tailer" class="title">Class Tailer</h2>
</div>
<div class="contentContainer">
<div class="description"><ul class="blockList"><li class="blockList">
<pre>public class Tailer extends java.lang.Object</pre>
<div class="block">Follows the end of a file, as <code>tail -f</code> does.</div>
</li></ul></div>
<div class="summary"><ul class="blockList"><li class="blockList">
<section role="region"><ul class="blockList"><li class="blockList">
<h3>Method Summary</h3>
<table class="memberSummary">
<caption><span id="t0" class="activeTableTab"><span>All Methods</span></span><span id="t1" class="tableTab"><span><a href="javascript:show(1);">Static Methods</a></span></span></caption>
<tr><th class="colFirst" scope="col">Modifier and Type</th><th class="colSecond" scope="col">Method</th><th class="colLast" scope="col">Description</th></tr>
<tr class="altColor"><td class="colFirst"><code>void</code></td><th class="colSecond" scope="row"><code><a href="#stop()">stop</a>()</code></th><td class="colLast"><div class="block">Stops following.</div></td></tr>
</table>
<ul class="blockList"><li class="blockList"><a id="methods.inherited.from.class.java.lang.Object"><!-- --></a>
<h3>Methods inherited from class&nbsp;java.lang.Object</h3><code>clone, equals, hashCode</code></li></ul>
</li></ul></section>
</li></ul></div>
<div class="details"><ul class="blockList"><li class="blockList">
<section role="region"><ul class="blockList"><li class="blockList">
<h3>Method Detail</h3>
<a id="stop()"><!-- --></a>
<ul class="blockListLast"><li class="blockList">
<h4>stop</h4>
<pre class="methodSignature">public void stop()</pre>
<div class="block">Stops following the file; the thread ends after its next poll.</div>
<dl><dt><span class="seeLabel">See Also:</span></dt><dd><a href="#run()"><code>run()</code></a></dd></dl>
</li></ul>
</li></ul></section>
</li></ul></div>
</div></main></body></html>"""

#: A class page as javadoc 17 writes it: summaries laid out as ``div`` grids.
JAVADOC_17 = """<html><head><title>Range (Lang API)</title></head><body class="class-declaration-page">
<main role="main">
<div class="header">
<div class="sub-title"><span class="package-label-in-type">Package</span>&nbsp;<a href="package-summary.html">org.example.lang</a></div>
<h1 title="Class Range" class="title">Class Range</h1>
</div>
<section class="class-description" id="class-description">
<div class="block">An immutable range of values.</div>
</section>
<section class="summary">
<ul class="summary-list">
<li>
<section class="method-summary" id="method-summary">
<h2>Method Summary</h2>
<div id="method-summary-table">
<div class="table-tabs" role="tablist"><button role="tab" class="active-table-tab">All Methods</button></div>
<div class="summary-table three-column-summary">
<div class="table-header col-first">Modifier and Type</div>
<div class="table-header col-second">Method</div>
<div class="table-header col-last">Description</div>
<div class="col-first even-row-color"><code>boolean</code></div>
<div class="col-second even-row-color"><code><a href="#contains(T)" class="member-name-link">contains</a><wbr>(T&nbsp;element)</code></div>
<div class="col-last even-row-color"><div class="block">Checks whether the element occurs within the range.</div></div>
<div class="col-first odd-row-color"><code>T</code></div>
<div class="col-second odd-row-color"><code><a href="#fit(T)" class="member-name-link">fit</a><wbr>(T&nbsp;element)</code></div>
<div class="col-last odd-row-color"><div class="block">Fits the element into the range.</div></div>
</div>
</div>
<div class="inherited-list"><h3 id="methods-inherited-from-class-java.lang.Object">Methods inherited from class&nbsp;java.lang.Object</h3>
<code><a href="https://docs.oracle.com/Object.html#clone--">clone</a>, <a href="https://docs.oracle.com/Object.html#wait--">wait</a></code></div>
</section>
</li>
</ul>
</section>
<section class="details">
<ul class="details-list">
<li>
<section class="method-details" id="method-detail">
<h2>Method Details</h2>
<ul class="member-list">
<li>
<section class="detail" id="contains(T)">
<h3>contains</h3>
<div class="member-signature"><span class="modifiers">public</span>&nbsp;<span class="return-type">boolean</span>&nbsp;<span class="element-name">contains</span><wbr><span class="parameters">(T&nbsp;element)</span></div>
<div class="block">Checks whether the element occurs within the range, using the comparator.</div>
</section>
</li>
<li>
<section class="detail" id="fit(T)">
<h3>fit</h3>
<div class="member-signature"><span class="modifiers">public</span>&nbsp;<span class="return-type">T</span>&nbsp;<span class="element-name">fit</span><wbr><span class="parameters">(T&nbsp;element)</span></div>
<div class="block">Fits the element into the range: the minimum below it, the maximum above it.</div>
</section>
</li>
</ul>
</section>
</li>
</ul>
</section>
</main></body></html>"""

#: A source page of javadoc -linksource: each line numbered in a span of its own.
SOURCE_PAGE = """<!DOCTYPE HTML>
<html><head><title>Source code</title>
<meta name="description" content="source: package: org.example.lang, class: Range, class: Bounds">
<meta name="generator" content="javadoc/SourceToHTMLConverter">
</head><body class="source-page"><main role="main"><div class="source-container">
<pre><span class="source-line-no">001</span><span id="line-1">package org.example.lang;</span>
<span class="source-line-no">002</span><span id="line-2"></span>
<span class="source-line-no">003</span><span id="line-3">public final class Range&lt;T&gt; {</span>
<span class="source-line-no">004</span><span id="line-4">    /** Whether {@code element} is inside. */</span>
<span class="source-line-no">005</span><span id="line-5">    public boolean contains(final T element) {</span>
<span class="source-line-no">006</span><span id="line-6">        return element != null &amp;&amp; compare(element) == 0;</span>
<span class="source-line-no">007</span><span id="line-7">    }</span>
<span class="source-line-no">008</span><span id="line-8">}</span>
</pre></div></main></body></html>"""


def test_javadoc_11_members_are_sections_and_the_package_line_tabs_and_inherited_lists_are_not_text():
    doc = read_text(JAVADOC_11, format="html")
    assert doc.text == (
        "## Class Tailer\n\n"
        "```\npublic class Tailer extends java.lang.Object\n```\n\n"
        "Follows the end of a file, as tail -f does.\n\n"
        "### Method Summary\n\n"
        "| Modifier and Type | Method | Description |\n| --- | --- | --- |\n| void | stop() | Stops following. |\n\n"
        "### Method Detail\n\n"
        "#### stop\n\n"
        "```\npublic void stop()\n```\n\n"
        "Stops following the file; the thread ends after its next poll.\n\n"
        "See Also: run()\n")
    assert [b.level for b in doc.blocks if b.type == "heading"] == [2, 3, 3, 4]


def test_javadoc_17_summaries_drawn_with_divs_are_tables_and_members_sections():
    # the members inherited from Object are documented on Object's page: not a heading here
    doc = read_text(JAVADOC_17, format="html")
    assert doc.text == (
        "# Class Range\n\n"
        "An immutable range of values.\n\n"
        "## Method Summary\n\n"
        "| Modifier and Type | Method | Description |\n| --- | --- | --- |\n"
        "| boolean | contains(T element) | Checks whether the element occurs within the range. |\n"
        "| T | fit(T element) | Fits the element into the range. |\n\n"
        "## Method Details\n\n"
        "### contains\n\n"
        "public boolean contains(T element)\n\n"
        "Checks whether the element occurs within the range, using the comparator.\n\n"
        "### fit\n\n"
        "public T fit(T element)\n\n"
        "Fits the element into the range: the minimum below it, the maximum above it.\n")
    tables = [b for b in doc.blocks if b.type == "table"]
    assert len(tables) == 1 and doc.text[tables[0].start:tables[0].end].count("\n") == 3


def test_a_list_item_holding_a_heading_is_read_as_blocks_not_one_line():
    html = "<ul><li><h3>Install</h3><p>Run the installer.</p></li><li>Plain item</li></ul>"
    assert read_text(html, format="html").text == "### Install\n\nRun the installer.\n\n- Plain item\n"


def test_a_javadoc_source_page_is_the_java_file_it_shows():
    doc = read_text(SOURCE_PAGE, format="html", id="Range.html", source="src-html/Range.html")
    assert doc.format == "code"
    assert doc.metadata["language"] == "java"
    assert doc.metadata["title"] == "Range.java (org.example.lang)"
    assert doc.text == (
        "package org.example.lang;\n\npublic final class Range<T> {\n"
        "    /** Whether {@code element} is inside. */\n"
        "    public boolean contains(final T element) {\n"
        "        return element != null && compare(element) == 0;\n    }\n}\n")
    # read as a .java file is: its methods named, each with its doc comment
    body = [f"        total += element.hashCode() * {i}; // step {i} of the comparison" for i in range(12)]
    methods = [[f"    /** The {name} of the range, in {i} steps. */", f"    public int {name}(final T element) {{",
                "        int total = 0;", *body, "        return total;", "    }"]
               for i, name in enumerate(("lower", "upper", "middle"))]
    lines = ["package org.example.lang;", "", "public final class Range<T> {", *sum(methods, []), "}"]
    numbered = "\n".join(f'<span class="source-line-no">{i:03}</span><span id="line-{i}">{escape(line)}</span>'
                         for i, line in enumerate(lines, 1))
    page = SOURCE_PAGE.split("<pre>")[0] + f"<pre>{numbered}\n</pre></div></main></body></html>"
    doc = read_text(page, format="html", id="Range.html", source="src-html/Range.html")
    assert doc.text == "\n".join(lines) + "\n"
    spans = make_chunker("code", {}).split(doc)
    named = {}
    while spans:
        span = spans.pop()
        spans.extend(span.children)
        if span.section_path:
            named[span.section_path] = doc.text[span.start:span.end]
    assert set(named) >= {("Range", "lower"), ("Range", "upper"), ("Range", "middle")}
    assert named[("Range", "upper")].startswith("    /** The upper of the range")
    # Pygments' and Doxygen's line numbers are gutters too
    pygments = ('<div class="highlight"><pre><span class="linenos">1</span><span class="n">x</span> = 1\n'
                '<span class="linenos">2</span>y = 2</pre></div>')
    assert read_text(pygments, format="html").text == "```\nx = 1\ny = 2\n```\n"


def test_a_few_nul_characters_do_not_make_a_page_binary(tmp_path):
    """javadoc writes the NUL a constant documents as the character itself ('\\0'); the page
    was refused as binary. Each is read as U+FFFD; runs of NULs are still binary."""
    page = tmp_path / "CharUtils.html"
    page.write_bytes(b"<html><body><p>NUL <code>\x00</code> null control character.</p></body></html>")
    assert load_path(page).text == "NUL \ufffd null control character.\n"
    blob = tmp_path / "blob.html"
    blob.write_bytes(b"<html>" + b"\x00\x00\x01" * 10 + b"</html>")
    with pytest.raises(BinaryFileError, match=r"blob\.html: binary file \(NUL bytes found\)"):
        load_path(blob)


def test_deprecated_leads_its_reason_and_an_index_entry_keeps_its_term():
    detail = ('<h3>chomp</h3><div class="deprecation-block"><span class="deprecated-label">Deprecated.</span>'
              '<div class="deprecation-comment">use removeEnd instead</div></div><div class="block">Removes it.</div>')
    assert read_text(detail, format="html").text == (
        "### chomp\n\nDeprecated. use removeEnd instead\n\nRemoves it.\n")
    index = ('<dl class="index"><dt><a href="A.html#above(int)">above(int)</a> - Static method in class A</dt>'
             '<dd><div class="deprecation-block"><span class="deprecated-label">Deprecated.</span></div>'
             '<div class="block">Escapes above it.</div></dd></dl>')
    assert read_text(index, format="html").text == (
        "above(int) - Static method in class A: Deprecated.\n\nEscapes above it.\n")


def test_javadoc_8_package_line_and_inherited_members_by_name():
    page = ('<div class="header"><div class="subTitle">org.example.io</div>'
            '<h2 title="Class Tailer" class="title">Class Tailer</h2></div>'
            '<ul class="blockList"><li class="blockList"><a name="methods.inherited.from.class.java.lang.Object">'
            '<!-- --></a><h3>Methods inherited from class java.lang.Object</h3><code>clone, equals</code></li></ul>'
            '<div class="block">Follows a file.</div>')
    assert read_text(page, format="html").text == "## Class Tailer\n\nFollows a file.\n"
    # a page's own subtitle is its text: not under a title, or not a package's name
    blog = '<h1>Notes</h1><div class="subtitle">What we learned in May</div>'
    assert read_text(blog, format="html").text == "# Notes\n\nWhat we learned in May\n"
    header = '<div class="header"><div class="subtitle">A blog about things</div><h1 class="title">Blog</h1></div>'
    assert read_text(header, format="html").text == "A blog about things\n\n# Blog\n"


def test_headings_in_a_doc_comment_stay_under_the_class_they_document():
    """An author's <h2> in a class's description sat beside javadoc 11's <h2> title, and the
    page's "Method Detail" ended up under it (FileEntry › Method Detail › checkAndNotify)."""
    page = ('<!-- Generated by javadoc (11.0.18) -->\n<div class="header"><h2 class="title">Class Tailer</h2></div>'
            '<div class="description"><div class="block"><p>Follows a file.</p><h2>1. Listen</h2><p>Implement it.</p>'
            '<h3>1.1 Adapt</h3><p>Or extend the adapter.</p></div></div>'
            '<ul class="blockList"><li class="blockList"><h3>Method Detail</h3><ul class="blockList"><li class="blockList">'
            '<h4>stop</h4><div class="block">Stops.</div></li></ul></li></ul>')
    headings = [line for line in read_text(page, format="html").text.splitlines() if line.startswith("#")]
    assert headings == ["## Class Tailer", "### 1. Listen", "#### 1.1 Adapt", "### Method Detail", "#### stop"]
    # on a page javadoc did not make, a heading is as written
    other = page.replace("<!-- Generated by javadoc (11.0.18) -->", "")
    assert "## 1. Listen" in read_text(other, format="html").text


def test_on_javadocs_own_pages_the_member_summaries_are_left_out_and_a_packages_list_kept():
    """A summary row is the first sentence of a member's description further down the page:
    short and on point, it ranked above the description it stands for."""
    signed = JAVADOC_11.replace("<html>", "<!-- Generated by javadoc (11.0.18) -->\n<html>", 1)
    text = read_text(signed, format="html").text
    assert "Method Summary" not in text and "Stops following." not in text
    assert "#### stop\n\n```\npublic void stop()\n```\n\nStops following the file;" in text
    signed = JAVADOC_17.replace("<head>", '<head><meta name="generator" content="javadoc/ClassWriterImpl">', 1)
    text = read_text(signed, format="html").text
    assert text.startswith("# Class Range\n\nAn immutable range of values.\n\n## Method Details\n\n### contains\n")
    package = ('<meta name="generator" content="javadoc/PackageWriterImpl"><section class="summary">'
               '<ul class="summary-list"><li><div id="class-summary"><div class="summary-table two-column-summary">'
               '<div class="table-header col-first">Class</div><div class="table-header col-last">Description</div>'
               '<div class="col-first"><a href="Range.html">Range</a></div><div class="col-last"><div class="block">'
               'An immutable range.</div></div></div></div></li></ul></section>')
    assert read_text(package, format="html").text == "| Class | Description |\n| --- | --- |\n| Range | An immutable range. |\n"

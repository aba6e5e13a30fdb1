"""XML: DocBook, JATS and TEI written as the page they mean; XML of data kept as written and read
as code; anything not well-formed kept as written."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from cli_support import index_folder, top_context
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_blocks, check_rendered_blocks

from zoomrag.errors import DecodeError
from zoomrag.load import load_path, read_text
from zoomrag.load.base import detect_format, is_lined, rendered_as
from zoomrag.parse.router import chunker_for_profile

DOCBOOK = """\
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE book PUBLIC "-//OASIS//DTD DocBook XML V4.5//EN" "docbookx.dtd" [
<!ENTITY product "Frobnicator">
]>
<book>
<bookinfo><title>&product; Manual</title><author><firstname>Ann</firstname></author></bookinfo>
<chapter id="install"><title>Installing</title>
<para>Install &product; with the package manager<indexterm><primary>install</primary></indexterm>:
<programlisting>
apt-get install frob
frob --version
</programlisting>
Then check the version&mdash;it must be 2 or later.<footnote><para>Version 1 is unsupported.</para></footnote></para>
<note><para>Root access is needed.</para></note>
<sect1 id="options"><title>Options</title>
<variablelist>
<varlistentry><term><option>--fast</option></term><listitem><para>Skip the checks.</para></listitem></varlistentry>
</variablelist>
<table frame="all"><title>Exit codes</title>
<tgroup cols="2"><colspec colname="c1"/><colspec colname="c2"/>
<thead><row><entry>Code</entry><entry>Meaning</entry></row></thead>
<tbody><row><entry>0</entry><entry>Success</entry></row><row><entry>2</entry><entry>Bad <emphasis>option</emphasis></entry></row></tbody>
</tgroup></table>
<procedure><title>Upgrading</title><step><para>Stop the service.</para></step><step><para>Install it.</para></step></procedure>
</sect1>
</chapter>
</book>
"""

JATS = """\
<?xml version="1.0" encoding="UTF-8"?>
<article xmlns:xlink="http://www.w3.org/1999/xlink" article-type="research-article">
<front>
<journal-meta><journal-id>J Test</journal-id><issn>1234-5678</issn></journal-meta>
<article-meta>
<article-id pub-id-type="pmid">12345</article-id>
<title-group><article-title>Sleep and memory in <italic>Drosophila</italic></article-title></title-group>
<contrib-group><contrib><name><surname>Smith</surname><given-names>J</given-names></name></contrib></contrib-group>
<aff id="a1">Department of Biology</aff>
<abstract><p>Flies sleep &#x2014; and sleep helps memory.</p></abstract>
<kwd-group><kwd>sleep</kwd><kwd>memory</kwd></kwd-group>
<permissions><license><p>CC BY 4.0.</p></license></permissions>
</article-meta>
</front>
<body>
<sec id="s1"><label>1</label><title>Introduction</title>
<p>Sleep is conserved [<xref ref-type="bibr" rid="B1">1</xref>]. Do flies need it to remember?</p>
<table-wrap id="T1"><label>Table 1</label><caption><p>Groups.</p></caption>
<table><thead><tr><th>Group</th><th>Flies</th></tr></thead><tbody><tr><td>Rested</td><td>40</td></tr></tbody></table>
</table-wrap>
<fig id="F1"><label>Figure 1</label><caption><title>Memory after sleep loss.</title><p>Scores fell.</p></caption>
<graphic xlink:href="f1.jpg"/></fig>
</sec>
</body>
<back>
<ack><p>We thank the fly room.</p></ack>
<ref-list><title>References</title>
<ref id="B1"><mixed-citation><person-group><name><surname>Cirelli</surname><given-names>C</given-names></name>
</person-group>. <article-title>Sleep in flies</article-title>. <source>Nature</source>. <year>2005</year>.</mixed-citation></ref>
</ref-list>
</back>
</article>
"""

POM = """\
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <groupId>com.example</groupId>
  <description>A demo project that shows how a build is described.</description>
  <dependencies>
    <dependency>
      <artifactId>junit</artifactId>
      <scope>test</scope>
    </dependency>
  </dependencies>
</project>
"""


def test_docbook_is_written_as_the_manual_it_means():
    doc = read_text(DOCBOOK, format="xml", source="manual.xml")
    assert doc.format == "xml" and rendered_as("xml") == "markdown" and not is_lined(doc.format)
    assert doc.metadata["title"] == "Frobnicator Manual"
    assert doc.text == (
        "# Frobnicator Manual\n\n## Installing\n\nInstall Frobnicator with the package manager:\n\n"
        "```\napt-get install frob\nfrob --version\n```\n\n"
        "Then check the version—it must be 2 or later. [Version 1 is unsupported.]\n\n"
        "Note: Root access is needed.\n\n### Options\n\n--fast: Skip the checks.\n\nExit codes\n\n"
        "| Code | Meaning |\n| --- | --- |\n| 0 | Success |\n| 2 | Bad option |\n\n"
        "Upgrading\n\n1. Stop the service.\n2. Install it.")
    check_rendered_blocks(doc)
    assert [(b.level, doc.text[b.start:b.end]) for b in doc.blocks if b.type == "heading"] == [
        (1, "# Frobnicator Manual"), (2, "## Installing"), (3, "### Options")]
    assert {b.type for b in doc.blocks} >= {"code", "table", "list"}


def test_jats_keeps_the_paper_and_leaves_out_its_metadata():
    doc = read_text(JATS, format="xml", source="paper.nxml")
    assert doc.metadata["title"] == "Sleep and memory in Drosophila"
    assert doc.text == (
        "# Sleep and memory in Drosophila\n\n## Abstract\n\nFlies sleep — and sleep helps memory.\n\n"
        "Keywords: sleep, memory\n\n## 1 Introduction\n\nSleep is conserved [1]. Do flies need it to remember?\n\n"
        "Table 1 Groups.\n\n| Group | Flies |\n| --- | --- |\n| Rested | 40 |\n\n"
        "Figure 1 Memory after sleep loss. Scores fell.\n\n## Acknowledgements\n\nWe thank the fly room.\n\n"
        "## References\n\n- Cirelli C. Sleep in flies. Nature. 2005.")
    check_rendered_blocks(doc)


def test_tei_title_from_its_header_and_line_breaks_as_spaces():
    tei = ('<TEI xmlns="http://www.tei-c.org/ns/1.0"><teiHeader><fileDesc><titleStmt><title>A Letter</title>'
           '</titleStmt><sourceDesc><p>Manuscript.</p></sourceDesc></fileDesc></teiHeader><text><body>'
           '<div><head>To my sister</head><p>Dear Mary, the weather is fine<lb/>and the roads are dry.</p>'
           '</div></body></text></TEI>')
    doc = read_text(tei, format="xml")
    assert doc.text == "# A Letter\n\n## To my sister\n\nDear Mary, the weather is fine and the roads are dry."


def test_xml_of_data_is_kept_as_written_with_its_elements_as_an_outline():
    doc = read_text(POM, format="xml", source="pom.xml")
    assert doc.format == "xmldata" and doc.metadata["language"] == "xml" and is_lined(doc.format)
    check_blocks(doc, POM, code_may_indent=True)
    assert [(b.level, b.meta["title"], doc.text[b.start:b.end]) for b in doc.blocks if b.type == "heading"] == [
        (1, "dependencies", "<dependencies>"), (2, "dependency junit", "<dependency>")]
    assert {b.meta["language"] for b in doc.blocks if b.type == "code"} == {"xml"}


POM_BUILD = """\
<project>
  <modelVersion>4.0.0</modelVersion>
  <build>
    <!-- the compiler -->
    <plugins>
      <plugin name="compiler">
        <configuration>
          <release>17</release>
        </configuration>
      </plugin>
    </plugins>
  </build>
  <packaging>jar</packaging>
</project>
"""


def test_every_element_after_a_heading_is_one_and_a_comment_opens_its_section():
    doc = read_text(POM_BUILD, format="xml")
    headings = [(b.level, b.meta["title"], doc.text[b.start:b.end]) for b in doc.blocks if b.type == "heading"]
    assert headings == [(1, "build", "<build>"), (2, "plugins", "<!-- the compiler -->\n    <plugins>"),
                        (3, "plugin compiler", '<plugin name="compiler">'), (1, "packaging", "<packaging>jar</packaging>")]
    tree = chunker_for_profile("default").chunk(doc)
    leaf = next(n for n in tree.leaves() if "<release>17" in n.text)
    assert leaf.section_path == ("build", "plugins", "plugin compiler")


_NAMES = st.sampled_from(["a", "b", "dependency", "name", "artifactId", "x:y"])


@st.composite
def _data(draw, depth=0):
    name = draw(_NAMES)
    indent = "  " * depth
    kids = draw(st.lists(_data(depth + 1), max_size=3)) if depth < 5 else []
    value = draw(st.text(st.sampled_from("ab1 é&"), max_size=6)).replace("&", "&amp;")
    attr = f' name="{draw(st.sampled_from(["n", "", "a b"]))}"' if draw(st.booleans()) else ""
    if not kids:
        return f"{indent}<{name}{attr}>{value}</{name}>"
    return f"{indent}<{name}{attr}>\n" + "\n".join(kids) + f"\n{indent}</{name}>"


@settings(max_examples=200, deadline=None)
@given(_data(), st.sampled_from(["", '<?xml version="1.0"?>\n', "<!-- c -->\n"]))
def test_any_data_xml_keeps_its_text_with_blocks_in_order(body, head):
    text = head + body + "\n"
    doc = read_text(text, format="xmldata")
    check_blocks(doc, text, code_may_indent=True)
    assert all(1 <= b.level <= 4 for b in doc.blocks if b.type == "heading")


def test_documented_data_is_written_by_its_names():
    xml = ('<node><interface name="org.example.Power"><doc><para>Powers things on and off for the '
           'people who ask.</para></doc><method name="Toggle"><arg name="on" type="b" direction="in"/><doc>'
           '<para>Turns the thing on or off, as <tt>on</tt> says, and waits for it.</para></doc></method>'
           '<property name="Level" type="d" access="read"><doc><para>How full the battery is, in per cent '
           'of its design capacity.</para></doc></property></interface></node>')
    doc = read_text(xml, format="xml")
    assert doc.format == "xml"
    assert doc.text == (
        "# interface org.example.Power\n\nPowers things on and off for the people who ask.\n\n"
        "## method Toggle\n\narg on (type b, direction in)\n\n"
        "Turns the thing on or off, as on says, and waits for it.\n\n## property Level\n\ntype d, access read\n\n"
        "How full the battery is, in per cent of its design capacity.")


def test_what_is_not_well_formed_is_kept_as_written():
    broken = "<article><title>Half</title><para>An open para that never closes the tags it opens."
    doc = read_text(broken, format="xml")
    assert doc.format == "code" and doc.text == broken
    # an external entity is never fetched; an entity a DTD elsewhere defines is kept as written
    entity = '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]>' \
             '<article><title>T</title><para>Leak: &x; end of the para.</para></article>'
    assert read_text(entity, format="xml").text == "# T\n\nLeak: &x; end of the para."
    unknown = '<?xml version="1.0"?><!DOCTYPE article SYSTEM "article.dtd"><article><title>T</title>' \
              '<para>Made by &product; &mdash; the team.</para></article>'
    assert read_text(unknown, format="xml").text == "# T\n\nMade by &product; — the team."


def test_an_entity_bomb_is_refused_by_the_parser_and_kept_as_written():
    lols = "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10))
    bomb = f'<?xml version="1.0"?><!DOCTYPE a [<!ENTITY l0 "lol">{lols}]><article><para>&l9;</para></article>'
    doc = read_text(bomb, format="xml")
    assert doc.format == "code" and doc.text == bomb


def test_deep_nesting_is_kept_as_written():
    deep = "<article>" + "<section><title>s</title>" * 3000 + "<para>x</para>" + "</section>" * 3000 + "</article>"
    doc = read_text(deep, format="xml")
    assert doc.format == "code" and doc.text == deep


def test_the_encoding_an_xml_declaration_names_is_read(tmp_path):
    f = tmp_path / "old.xml"
    f.write_bytes('<?xml version="1.0" encoding="ISO-8859-1"?>\n<article><title>Café</title>'
                  '<para>Crème brûlée is served at the café after the main course.</para></article>'
                  .encode("latin-1"))
    doc = load_path(f)
    assert doc.text == "# Café\n\nCrème brûlée is served at the café after the main course."
    # a declaration that is wrong about UTF-8 text (common) does not garble it
    f.write_bytes('<?xml version="1.0" encoding="ISO-8859-1"?>\n<article><title>Café</title></article>'.encode())
    assert load_path(f).text == "# Café"
    f.write_bytes(b'<?xml version="1.0" encoding="ascii"?><article><title>Caf\xe9</title></article>')
    with pytest.raises(DecodeError, match=r"old.xml: neither UTF-8 nor the ascii it declares \(byte 0xe9"):
        load_path(f)


def test_xhtml_is_read_as_html():
    doc = read_text('<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Page</title></head>'
                    '<body><h1>Hello</h1><p>Some words.</p></body></html>', format="xml")
    assert doc.format == "html" and doc.text.strip() == "# Hello\n\nSome words."


def test_extensions():
    for name in ("a.xml", "a.dbk", "a.nxml", "a.tei", "a.dita", "a.pom", "App.csproj", "Info.plist", "a.xsd"):
        assert detect_format(Path(name)) == "xml"


_TAGS = st.sampled_from(["section", "para", "p", "title", "itemizedlist", "listitem", "table", "row", "entry",
                         "note", "emphasis", "programlisting", "variablelist", "varlistentry", "term", "sec",
                         "caption", "label", "footnote", "thing", "name"])
_WORDS = st.text(st.sampled_from("abc xyz&<>é—"), max_size=12)


@st.composite
def _elements(draw, depth=0):
    tag = draw(_TAGS)
    kids = draw(st.lists(_elements(depth + 1), max_size=3)) if depth < 4 else []
    text = draw(_WORDS)
    from html import escape
    inner = escape(text) + "".join(k + escape(draw(_WORDS)) for k in kids)
    attr = ' name="n"' if draw(st.booleans()) else ""
    return f"<{tag}{attr}>{inner}</{tag}>"


@settings(max_examples=200, deadline=None)
@given(st.builds(lambda body: f"<article>{body}</article>", _elements()))
def test_any_prose_tree_gives_blocks_inside_its_rendering_and_loses_no_word(xml):
    doc = read_text(xml, format="xml")
    check_rendered_blocks(doc)
    runs = [run for el in ET.fromstring(xml).iter() for run in (el.text, el.tail) if run]
    assert all(word in doc.text for run in runs for word in re.findall(r"[a-zé]+", run))


def test_a_manual_comes_back_under_its_section(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "manual.xml").write_text(DOCBOOK)
    (folder / "pom.xml").write_text(POM)
    index = index_folder(folder, tmp_path)
    top = top_context(index, "exit codes bad option")
    assert top["section_path"] == ["Frobnicator Manual", "Installing", "Options"]
    assert "| 2 | Bad option |" in top["text"] and "<entry>" not in top["text"]
    pom = top_context(index, "junit scope")
    assert pom["doc_id"] == "pom.xml" and pom["section_path"] == ["dependencies", "dependency junit"]
    assert "<scope>test</scope>" in pom["text"]


def test_a_large_file_of_no_prose_vocabulary_is_code_unparsed(monkeypatch):
    from zoomrag.load.readers import xmldoc

    monkeypatch.setattr(xmldoc, "MAX_UNKNOWN", 100)
    records = "<records>" + "<r><p>Some words of prose that run on and on here.</p></r>" * 5 + "</records>"
    assert read_text(records, format="xml").format == "code"  # not parsed: no outline either
    assert read_text(DOCBOOK, format="xml").format == "xml"  # a DocBook root is parsed however large


def test_an_empty_cross_reference_reads_as_its_targets_title():
    doc = read_text("<book><title>M</title><chapter id='a'><title>Installing</title><para>See <xref linkend='opts'/>,"
                    " <xref linkend='t1'/> or <xref linkend='nowhere'/>.</para><sect1 id='opts' xreflabel='the options'>"
                    "<title>Options</title><para>Fast.</para></sect1><table xml:id='t1'><title>Exit <emphasis>codes"
                    "</emphasis></title><tgroup cols='1'><tbody><row><entry>0</entry></row></tbody></tgroup></table>"
                    "</chapter></book>", format="xml", source="m.dbk")
    assert "See the options, Exit codes or ." in doc.text

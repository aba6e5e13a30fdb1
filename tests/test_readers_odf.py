"""OpenDocument files (text, spreadsheets, presentations): each read as the HTML it means and
then as a page is; headings by outline level or heading style, code by preformatted style,
a sheet's tables under its name, a slide a page."""

from __future__ import annotations

import io
import re
import zipfile

import pytest
from cli_support import index_folder, top_context
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import check_rendered_blocks
from odf_support import make_odf

from zoomrag.cli import main
from zoomrag.errors import InputError
from zoomrag.load import load_path
from zoomrag.load.base import detect_format

STYLES = ('<style:style style:name="Heading_20_2" style:display-name="Heading 2" style:family="paragraph"/>'
          '<style:style style:name="Preformatted_20_Text" style:display-name="Preformatted Text" '
          'style:family="paragraph"/>'
          '<text:list-style style:name="Numbering_20_123"><text:list-level-style-number text:level="1" '
          'style:num-format="1"/></text:list-style>')
#: Automatic styles derive from the named ones, as LibreOffice writes them.
AUTOMATIC = ('<style:style style:name="P1" style:family="paragraph" style:parent-style-name="Heading_20_2"/>'
             '<style:style style:name="P2" style:family="paragraph" style:parent-style-name="Preformatted_20_Text"/>')
TEXT = """
<text:p text:style-name="Title">Tenancy handbook</text:p>
<text:table-of-content><text:index-body><text:p>Deposits 1</text:p></text:index-body></text:table-of-content>
<text:h text:outline-level="1">Deposits</text:h>
<text:p>The deposit is held by a scheme.<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation>
<text:note-body><text:p>A scheme the government approves.</text:p></text:note-body></text:note> It is
returned<text:s text:c="2"/>within ten days.<office:annotation><text:p>check this</text:p></office:annotation></text:p>
<text:tracked-changes><text:changed-region><text:deletion><text:p>Old text.</text:p></text:deletion></text:changed-region></text:tracked-changes>
<text:list text:style-name="Numbering_20_123">
 <text:list-item><text:p>Ask in writing.</text:p></text:list-item>
 <text:list-item><text:p>Wait ten days.</text:p>
  <text:list><text:list-item><text:p>Then write to the scheme.</text:p></text:list-item></text:list></text:list-item>
</text:list>
<table:table table:name="Fees"><table:table-column/>
 <table:table-header-rows><table:table-row><table:table-cell><text:p>Item</text:p></table:table-cell>
  <table:table-cell><text:p>Amount</text:p></table:table-cell></table:table-row></table:table-header-rows>
 <table:table-row><table:table-cell><text:p>Deposit</text:p></table:table-cell>
  <table:table-cell><text:p>5 weeks</text:p></table:table-cell></table:table-row>
</table:table>
<text:p><draw:frame draw:name="plan"><draw:image/><svg:title>Floor plan</svg:title></draw:frame></text:p>
<text:p text:style-name="P1">Repairs</text:p>
<text:p text:style-name="P2">make repair \\</text:p>
<text:p text:style-name="P2"><text:s text:c="4"/>--roof</text:p>
<text:p>Call the landlord.</text:p>
"""


def _without(member: str, data: bytes) -> bytes:
    """``data``, a zip, without ``member``."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as z, zipfile.ZipFile(out, "w") as w:
        for info in z.infolist():
            if info.filename != member:
                w.writestr(info, z.read(info))
    return out.getvalue()


def _write(tmp_path, name, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_a_text_document_is_read_as_its_styles_mean(tmp_path):
    doc = load_path(_write(tmp_path, "h.odt", make_odf("text", TEXT, styles=STYLES, automatic=AUTOMATIC)))
    assert detect_format(tmp_path / "h.odt") == doc.format == "odt"
    # untitled in its properties: its Title paragraph names it, and stays a paragraph
    assert doc.metadata == {"title": "Tenancy handbook"}
    assert doc.text.split("\n") == [
        "Tenancy handbook", "", "# Deposits", "",
        "The deposit is held by a scheme.[^1] It is returned within ten days.", "",
        "1. Ask in writing.", "2. Wait ten days.", "  - Then write to the scheme.", "",
        "| Item | Amount |", "| --- | --- |", "| Deposit | 5 weeks |", "", "Floor plan", "", "## Repairs", "",
        "```", "make repair \\", "    --roof", "```", "", "Call the landlord.", "",
        "[^1]: A scheme the government approves."]
    assert [(b.type, b.level) for b in doc.blocks] == [
        ("text", 0), ("heading", 1), ("text", 0), ("list", 0), ("table", 0), ("text", 0), ("heading", 2),
        ("code", 0), ("text", 0), ("text", 0)]
    titled = load_path(_write(tmp_path, "t.odt", make_odf("text", TEXT, title="Handbook 2026")))
    assert titled.metadata == {"title": "Handbook 2026"}


def test_a_list_continued_by_the_lists_after_it_is_one_list(tmp_path):
    # as LibreOffice writes a list converted from Word: the nested level in a list of its own,
    # whose item holds only that level, and the rest in a list that continues the first
    body = ('<text:list xml:id="l1" text:style-name="Numbering_20_123"><text:list-item><text:p>Ask.</text:p>'
            '</text:list-item><text:list-item><text:p>Wait.</text:p></text:list-item></text:list>'
            '<text:list><text:list-item><text:list><text:list-item><text:p>Then write.</text:p></text:list-item>'
            '</text:list></text:list-item></text:list>'
            '<text:list text:continue-list="l1" text:style-name="Numbering_20_123"><text:list-item>'
            '<text:p>Go to court.</text:p></text:list-item></text:list><text:p>After.</text:p>'
            '<text:list text:style-name="Numbering_20_123"><text:list-item><text:p>Anew.</text:p></text:list-item>'
            '</text:list>')
    doc = load_path(_write(tmp_path, "l.odt", make_odf("text", body, styles=STYLES)))
    assert doc.text.split("\n") == ["1. Ask.", "2. Wait.", "  - Then write.", "3. Go to court.", "", "After.", "",
                                    "1. Anew."]


SHEETS = """
<table:table table:name="Revenue">
 <table:table-row><table:table-cell><text:p>Q3 revenue</text:p></table:table-cell></table:table-row>
 <table:table-row table:number-rows-repeated="2"><table:table-cell table:number-columns-repeated="9"/></table:table-row>
 <table:table-row><table:table-cell><text:p>Region</text:p></table:table-cell>
  <table:table-cell table:number-columns-repeated="2"/><table:table-cell><text:p>Revenue</text:p></table:table-cell>
  <table:table-cell table:number-columns-repeated="16380"/></table:table-row>
 <table:table-row><table:table-cell><text:p>Eur<text:span>ope</text:span></text:p></table:table-cell>
  <table:table-cell table:number-columns-repeated="2"/><table:table-cell office:value-type="float" office:value="4.1"><text:p>4.10 €</text:p></table:table-cell></table:table-row>
 <table:table-row table:number-rows-repeated="1048570"><table:table-cell table:number-columns-repeated="16384"/></table:table-row>
</table:table>
<table:table table:name="Empty"><table:table-row table:number-rows-repeated="1048576"><table:table-cell/></table:table-row></table:table>
<table:table table:name="Staff">
 <table:table-row><table:table-cell><text:p>Name</text:p></table:table-cell><table:table-cell><text:p>Team</text:p></table:table-cell></table:table-row>
 <table:table-row table:number-rows-repeated="2"><table:table-cell><text:p>Ann</text:p></table:table-cell><table:table-cell><text:p>Data</text:p></table:table-cell></table:table-row>
</table:table>
"""


def test_a_spreadsheet_is_its_sheets_tables_under_their_names(tmp_path):
    doc = load_path(_write(tmp_path, "s.ods", make_odf("spreadsheet", SHEETS, title="Figures")))
    assert doc.format == "ods" and doc.metadata == {"title": "Figures"}
    # repeats unrolled only as far as a filled cell or row follows; spacer columns and the empty
    # sheet left out; cells as the sheet shows them
    assert doc.text.split("\n") == [
        "# Revenue", "", "Q3 revenue", "", "| Region | Revenue |", "| --- | --- |", "| Europe | 4.10 € |", "",
        "# Staff", "", "| Name | Team |", "| --- | --- |", "| Ann | Data |", "| Ann | Data |"]
    assert [b.type for b in doc.blocks] == ["heading", "text", "table", "heading", "table"]


SLIDES = """
<draw:page draw:name="one">
 <draw:frame presentation:class="title"><draw:text-box><text:p>Quarterly review</text:p></draw:text-box></draw:frame>
 <draw:frame presentation:class="outline"><draw:text-box><text:list><text:list-item><text:p>Up 12 %</text:p>
  </text:list-item></text:list><text:list><text:list-item><text:list><text:list-item><text:p>Mostly Europe</text:p>
  </text:list-item></text:list></text:list-item><text:list-item><text:p>Costs flat</text:p></text:list-item></text:list>
  </draw:text-box></draw:frame>
 <presentation:notes><draw:page-thumbnail/><draw:frame presentation:class="notes"><draw:text-box>
  <text:p>Say that Europe grew.</text:p></draw:text-box></draw:frame></presentation:notes>
</draw:page>
<draw:page draw:name="two"/>
<draw:page draw:name="three">
 <draw:frame presentation:class="title"><draw:text-box><text:p>By region</text:p></draw:text-box></draw:frame>
 <draw:frame><table:table><table:table-row><table:table-cell><text:p>Region</text:p></table:table-cell>
  <table:table-cell><text:p>Share</text:p></table:table-cell></table:table-row>
  <table:table-row><table:table-cell><text:p>Asia</text:p></table:table-cell><table:table-cell><text:p>40 %</text:p>
  </table:table-cell></table:table-row></table:table></draw:frame>
 <draw:frame><draw:image/><svg:desc>Map of the regions</svg:desc></draw:frame>
 <draw:frame><draw:object xlink:href="./Object 1"/></draw:frame>
</draw:page>
"""
#: The chart of slide three, as LibreOffice embeds one: its title over a table of its data.
CHART = ('<chart:chart><chart:title><text:p>Revenue by quarter</text:p></chart:title><table:table>'
         '<table:table-header-rows><table:table-row><table:table-cell/><table:table-cell><text:p>Europe</text:p>'
         '</table:table-cell></table:table-row></table:table-header-rows><table:table-rows><table:table-row>'
         '<table:table-cell><text:p>Q1</text:p></table:table-cell><table:table-cell><text:p>4.1</text:p>'
         '</table:table-cell></table:table-row></table:table-rows></table:table></chart:chart>')


def test_a_presentation_is_a_slide_a_page(tmp_path):
    doc = load_path(_write(tmp_path, "p.odp", make_odf("presentation", SLIDES, objects={"Object 1": CHART})))
    assert doc.format == "odp" and doc.metadata == {"title": "Quarterly review"}
    # a level of the outline in a list of its own (as converted from PowerPoint) nests under
    # the item before it; a chart is its title over its data
    assert doc.text.split("\n") == [
        "# Quarterly review", "", "- Up 12 %", "  - Mostly Europe", "- Costs flat", "", "## Notes", "",
        "Say that Europe grew.", "\f", "", "\f", "# By region", "", "| Region | Share |", "| --- | --- |",
        "| Asia | 40 % |", "", "Map of the regions", "", "Revenue by quarter", "", "|  | Europe |", "| --- | --- |",
        "| Q1 | 4.1 |"]


def test_repeats_unrolled_past_what_a_reader_reads_are_refused(tmp_path, monkeypatch):
    from zoomrag.load.readers import xlsx

    monkeypatch.setattr(xlsx, "MAX_CELLS", 10_000)
    row = ('<table:table-row table:number-rows-repeated="999999"><table:table-cell '
           'table:number-columns-repeated="999999"><text:p>x</text:p></table:table-cell></table:table-row>')
    for kind, name, body in (("spreadsheet", "s.ods", f"<table:table>{row}</table:table>"),
                             ("text", "t.odt", f"<table:table>{row}</table:table>")):
        path = _write(tmp_path, name, make_odf(kind, body))
        with pytest.raises(InputError, match=rf"^{re.escape(str(path))}: this file holds over 10,000 cells"):
            load_path(path)


def test_a_chart_in_a_paragraph_follows_it_and_deep_nesting_is_a_clear_error(tmp_path):
    body = '<text:p>Sales rose.<draw:frame><draw:object xlink:href="./Object 1"/></draw:frame></text:p>'
    doc = load_path(_write(tmp_path, "c.odt", make_odf("text", body, objects={"Object 1": CHART})))
    assert doc.text.split("\n") == ["Sales rose.", "", "Revenue by quarter", "", "|  | Europe |", "| --- | --- |",
                                    "| Q1 | 4.1 |"]
    deep = "<text:p>" + "<text:span>" * 5000 + "x" + "</text:span>" * 5000 + "</text:p>"
    path = _write(tmp_path, "deep.odt", make_odf("text", deep))
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}: nested too deeply to read"):
        load_path(path)


def test_a_slide_reads_top_to_bottom_under_its_first_title(tmp_path):
    def frame(y: str, text: str, cls: str = "") -> str:
        kind = f' presentation:class="{cls}"' if cls else ""
        return f'<draw:frame svg:x="1cm" svg:y="{y}"{kind}><draw:text-box><text:p>{text}</text:p></draw:text-box></draw:frame>'

    # listed in drawing order: the footer first, the big number drawn over the title last
    page = ("<draw:page>" + frame("6in", "Footer words.") + frame("2cm", "Costs fell.") + frame("10mm", "Q3", "title")
            + frame("0.5cm", "01", "title") + "</draw:page>")
    doc = load_path(_write(tmp_path, "s.odp", make_odf("presentation", page)))
    assert doc.text.split("\n") == ["# 01", "", "Q3", "", "Costs fell.", "", "Footer words."]


@pytest.mark.parametrize(("name", "data", "message"), [
    ("a.odt", make_odf("text", "<text:p>x</text:p>")[:150],
     r"cannot read this text document \(BadZipFile: .+\); check that it is a complete \.odt file \(an older "
     r"format must be saved as \.odt first\)$"),
    ("a.ods", make_odf("spreadsheet", "<table:table><table:table-row>"),
     r"cannot read this spreadsheet \(ParseError: .+\); check that it is a complete \.ods file"),
    ("a.odt", _without("content.xml", make_odf("text", "<text:p>x</text:p>")),
     r"this text document holds no content.xml, so it has no text \(a file of styles only, or a damaged one\); "
     r"open and save it again in LibreOffice, or leave it out$"),
    ("a.odp", make_odf("presentation", "<draw:page/>", encrypted=True),
     r"this presentation is protected by a password; save a copy without the password .+ and index that$"),
])
def test_a_broken_or_locked_file_is_a_clear_error(tmp_path, name, data, message):
    path = _write(tmp_path, name, data)
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}: {message}"):
        load_path(path)


def test_a_context_from_a_presentation_says_its_slide(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    _write(folder, "p.odp", make_odf("presentation", SLIDES))
    _write(folder, "h.odt", make_odf("text", TEXT, styles=STYLES, automatic=AUTOMATIC))
    index = index_folder(folder, tmp_path)
    top = top_context(index, "Asia share", "--expand", "none")
    assert top["doc_id"] == "p.odp" and top["pages"] == [3, 3] and "| Asia | 40 % |" in top["text"]
    got = CliRunner().invoke(main, ["query", "Asia share", "--index", index, "--mode", "bm25", "--expand", "none"])
    # the terminal view wraps its header line where the temporary folder's path makes it long
    assert f"[{top['start']}, {top['end']}) slide 3 score" in " ".join(got.output.split())  # a deck's pages are slides
    top = top_context(index, "repair roof")
    assert top["doc_id"] == "h.odt" and top["section_path"] == ["Deposits", "Repairs"]


_WORDS = st.text(alphabet="ab <&é\t", max_size=8).map(lambda t: t.replace("&", "&amp;").replace("<", "&lt;"))
_INLINE = st.lists(st.one_of(_WORDS, st.integers(-2, 5).map(lambda n: f'<text:s text:c="{n}"/>'),
                             st.just("<text:tab/>"), st.just("<text:line-break/>"),
                             _WORDS.map(lambda w: f"<text:span>{w}</text:span>"),
                             _WORDS.map(lambda w: f"<text:note><text:note-body><text:p>{w}</text:p></text:note-body>"
                                                  "</text:note>")), max_size=5).map("".join)


def _cell(inline: str, repeat: int) -> str:
    return f'<table:table-cell table:number-columns-repeated="{repeat}"><text:p>{inline}</text:p></table:table-cell>'


_BLOCK = st.recursive(
    st.one_of(_INLINE.map(lambda i: f"<text:p>{i}</text:p>"),
              st.tuples(st.integers(-1, 9), _INLINE).map(lambda p: f'<text:h text:outline-level="{p[0]}">{p[1]}</text:h>'),
              _INLINE.map(lambda i: f'<text:p text:style-name="P2">{i}</text:p>'),
              st.lists(st.lists(st.tuples(_INLINE, st.integers(0, 3000)).map(lambda c: _cell(*c)), max_size=3)
                       .map(lambda cells: f'<table:table-row table:number-rows-repeated="3">{"".join(cells)}'
                                          "</table:table-row>"), max_size=3)
              .map(lambda rows: f"<table:table>{''.join(rows)}</table:table>")),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda items: "<text:list>" + "".join(
            f"<text:list-item>{i}</text:list-item>" for i in items) + "</text:list>"),
        st.lists(inner, max_size=3).map(lambda bs: f"<text:section>{''.join(bs)}</text:section>"),
        st.lists(inner, max_size=2).map(lambda bs: f"<draw:frame><draw:text-box>{''.join(bs)}</draw:text-box></draw:frame>")),
    max_leaves=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blocks=st.lists(_BLOCK, max_size=6))
def test_any_body_gives_blocks_inside_the_text(tmp_path, blocks):
    body = "".join(blocks)
    for kind, name in (("text", "x.odt"), ("spreadsheet", "x.ods"), ("presentation", "x.odp")):
        wrapped = {"text": body, "spreadsheet": f"<table:table>{body}</table:table>",
                   "presentation": f"<draw:page>{body}</draw:page>"}[kind]
        doc = load_path(_write(tmp_path, name, make_odf(kind, wrapped, styles=STYLES, automatic=AUTOMATIC)))
        check_rendered_blocks(doc)


def test_a_document_titled_in_bold_has_its_titles_as_headings(tmp_path):
    automatic = ('<style:style style:name="P1" style:family="paragraph"><style:text-properties fo:font-weight="bold"/>'
                 '</style:style><style:style style:name="T1" style:family="text">'
                 '<style:text-properties fo:font-weight="700"/></style:style>'
                 '<style:style style:name="P2" style:family="paragraph" style:parent-style-name="P1"/>')
    body = ('<text:p text:style-name="P1">Onboarding</text:p><text:p>Welcome to the team; your laptop arrives on day one.</text:p>'
            '<text:p><text:span text:style-name="T1">Accounts</text:span></text:p><text:p>Ask for the wiki and the tracker.</text:p>'
            '<text:p text:style-name="P2">Travel</text:p><text:p><text:span text:style-name="T1">Book</text:span> through the portal, '
            'economy class for trips under six hours.</text:p>')
    doc = load_path(_write(tmp_path, "b.odt", make_odf("text", body, automatic=automatic)))
    assert [doc.text[b.start:b.end] for b in doc.blocks if b.type == "heading"] == ["# Onboarding", "# Accounts", "# Travel"]
    assert "Book through the portal" in doc.text

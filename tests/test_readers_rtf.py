"""Rich Text: headings, lists, tables, code and footnotes read from the control words, the text
rendered as the HTML it means; fonts, fields' instructions, hidden text and a generated table of
contents left out."""

from __future__ import annotations

import re

import pytest
from cli_support import index_folder, top_context
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_rendered_blocks

from zoomrag.errors import InputError, ZoomragError
from zoomrag.load import load_path
from zoomrag.load.base import detect_format

#: As Word writes it: a style sheet, a list table, fields, a footnote, a picture, a table, text
#: in a Cyrillic code page and by \\u.
WORD = r"""{\rtf1\ansi\ansicpg1251\deff0\uc1
{\fonttbl{\f0\froman\fcharset204 Times New Roman;}{\f1\fmodern Courier New;}}
{\colortbl;\red0\green0\blue0;}
{\stylesheet{\ql \f0 Normal;}{\s1\outlinelevel0 \b heading 1;}{\s2 \b heading 2;}{\s15 Title;}{\s20 HTML Preformatted;}}
{\*\listtable{\list\listtemplateid1{\listlevel\levelnfc0{\leveltext\'02\'00.;}}}}
{\info{\title The Orchard Lease}{\author Ann Lee}}
{\header \pard\plain Page header text\par}
\pard\plain\s15 Orchard lease\par
{\field{\*\fldinst TOC \\o "1-3"}{\fldrslt \pard Contents entry 1\par}}
\pard\plain\s1 Terms\par
\pard\plain The tenant\rquote s rent is due\~monthly{\v  hidden note}.{\*\atnid AL}{\*\annotation a comment}\par
\pard\plain\ls1\ilvl0{\listtext 1.\tab}Pay on time.\par
\pard\plain\ls1\ilvl1{\listtext a.\tab}By transfer.\par
\pard\plain\ls1\ilvl0{\listtext 2.\tab}Keep the trees.\par
\pard\plain See {\field{\*\fldinst HYPERLINK "http://x.org"}{\fldrslt the site}}.{\super\chftn}{\footnote\pard\plain{\super\chftn} The site of the council.}\par
\pard\plain\s2 \'d0\'e5\'ed\'f2\'e0 and \u8364\'3f prices\par
{\pict\pngblip\picw10\pich10 89504e470d0a1a0a}
\pard\plain\s20 def rent():\par
\pard\plain\s20     return 1200\par
\trowd\cellx1000\cellx2000
\pard\intbl Year\cell Rent\cell\row
\trowd\cellx1000\cellx2000
\pard\intbl 2026\cell 1200{\bin4 ab{}}\cell\row
\pard\plain After the table.\par
\pard\plain Run {\f1 VACUUM} nightly.\par
\pard\plain\f1 SELECT 1;\line SELECT 2;\par
}
"""
#: As macOS TextEdit writes it: a paragraph ends with a backslash before the line break.
COCOA = r"""{\rtf1\ansi\ansicpg1252\cocoartf2639
\cocoatextscaling0\cocoaplatform0{\fonttbl\f0\fswiss\fcharset0 Helvetica;}
{\colortbl;\red255\green255\blue255;}
\paperw11900\paperh16840\margl1440
\pard\tx566\pardirnatural\partightenfactor0

\f0\fs24 \cf0 Shopping list\
\
Milk and bread for Sunday.\
Call the plumber about the leak.}"""
#: As pandoc writes it: no styles, list markers typed before a tab, nesting by indent.
PANDOC = (r"{\rtf1\ansi{\pard \ql \outlinelevel0 \b Steps\par}"
          r"{\pard \li360 1.\tx360\tab Open the valve.\par}"
          r"{\pard \li720 \endash \tx360\tab Slowly.\par}"
          r"{\pard \li360 2.\tx360\tab Close it.\par}{\pard Done.\par}}")


def _read(tmp_path, text: str, name: str = "a.rtf"):
    path = tmp_path / name
    path.write_bytes(text.encode("latin-1"))
    return load_path(path)


def test_a_word_document_is_read_as_its_styles_mean(tmp_path):
    doc = _read(tmp_path, WORD)
    assert detect_format(tmp_path / "a.rtf") == doc.format == "rtf"
    assert doc.metadata == {"title": "The Orchard Lease"}
    assert doc.text.split("\n") == [
        "Orchard lease", "", "# Terms", "", "The tenant’s rent is due monthly.", "",
        "1. Pay on time.", "  1. By transfer.", "2. Keep the trees.", "", "See the site.[^1]", "",
        "## Рента and € prices", "", "```", "def rent():", "    return 1200", "```", "",
        "| Year | Rent |", "| --- | --- |", "| 2026 | 1200 |", "", "After the table.", "",
        # a paragraph set in a fixed-width font alone is code; a word in one is not
        "Run VACUUM nightly.", "", "```", "SELECT 1;", "SELECT 2;", "```", "", "[^1]: The site of the council."]
    assert [(b.type, b.level) for b in doc.blocks] == [
        ("text", 0), ("heading", 1), ("text", 0), ("list", 0), ("text", 0), ("heading", 2), ("code", 0),
        ("table", 0), ("text", 0), ("text", 0), ("code", 0), ("text", 0)]


#: As LibreOffice writes a letter template: a text box as a shape in a field's result, Word's
#: placeholders as MACROBUTTON fields with no result.
LETTER = (r"{\rtf1\ansi{\field{\*\fldinst SHAPE }{\fldrslt{\shp{\*\shpinst\shpleft0{\sp{\sn wzName}{\sv Shape2}}"
          r"{\shptxt \pard Put your LOGO here\par}}}}}\pard Dear {\field{\*\fldinst MACROBUTTON  None Recipient's name}}"
          r",\par}")


@pytest.mark.parametrize(("rtf", "lines"), [
    (COCOA, ["Shopping list", "", "Milk and bread for Sunday.", "", "Call the plumber about the leak."]),
    (LETTER, ["Put your LOGO here", "", "Dear Recipient's name,"]),
    (PANDOC, ["# Steps", "", "1. Open the valve.", "  - Slowly.", "2. Close it.", "", "Done."]),
])
def test_other_writers_are_read_too(tmp_path, rtf, lines):
    assert _read(tmp_path, rtf).text.split("\n") == lines


def test_a_file_that_is_not_rich_text_is_a_clear_error(tmp_path):
    path = tmp_path / "notes.rtf"
    path.write_text("just some notes")
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}: not a Rich Text file \(it does not start "
                                         r"with \{\\rtf\); check the file, or rename it if it is plain text$"):
        load_path(path)


_PIECES = st.sampled_from([
    "{", "}", "\\par ", "\\pard", "\\s1 ", "\\outlinelevel0 ", "\\intbl ", "\\cell ", "\\row ", "\\ls1 ",
    "\\ilvl1 ", "{\\footnote ", "{\\*\\fldinst TOC}", "{\\fldrslt ", "\\u-3913?", "\\u1234 ", "\\'e9",
    "\\uc0 ", "\\bin3 ", "\\v ", "\\v0 ", "\\tab ", "\\line ", "\\\n", "1.\\tab ", "{\\stylesheet{\\s1 heading 1;}",
    "{\\info{\\title T}", "\\", "word ", "é", "\\ansicpg932 ", "\\'82\\'a0", "\\s20 ", "{\\*\\x ",
    "\\b ", "\\b0 ", "\\plain ", "Item 1.",
])


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_any_control_words_give_a_document_or_a_clear_error(tmp_path_factory, body):
    path = tmp_path_factory.mktemp("rtf") / "a.rtf"
    path.write_bytes(("{\\rtf1\\ansi " + body).encode("utf-8"))
    try:
        doc = load_path(path)
    except ZoomragError:
        return
    check_rendered_blocks(doc)


def test_a_context_from_rich_text_names_its_section(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "lease.rtf").write_bytes(WORD.encode("latin-1"))
    top = top_context(index_folder(folder, tmp_path), "trees transfer", "--expand", "none")
    assert top["section_path"] == ["Terms"] and "Keep the trees." in top["text"]
    assert "{" not in top["text"] and "\\" not in top["text"]


def test_a_contract_titled_in_bold_has_its_titles_as_headings(tmp_path):
    doc = _read(tmp_path, (
        "{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Times New Roman;}}\n"
        "\\pard\\plain {\\b MASTER SERVICES AGREEMENT}\\par\n"
        "\\pard\\plain This Agreement is made between Northwind and Contoso on the first of March.\\par\n"
        "\\pard\\plain \\b 1. Fees and Payment\\b0\\par\n"
        "\\pard\\plain Customer pays each invoice within thirty days of its date, by bank transfer.\\par\n"
        "\\pard\\plain {\\b Note:} fees exclude taxes, which the Customer pays as well.\\par\n"
        "\\pard\\plain \\b 2. Term\\par\n"
        "\\pard\\plain\\b0 The Agreement runs three years from the date above.\\par\n}"))
    assert [doc.text[b.start:b.end] for b in doc.blocks if b.type == "heading"] == [
        "# MASTER SERVICES AGREEMENT", "# 1. Fees and Payment", "# 2. Term"]
    assert "Note: fees exclude taxes" in doc.text  # a bold lead-in stays in its paragraph

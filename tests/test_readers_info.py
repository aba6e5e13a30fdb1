"""GNU Info manuals read as the manual: nodes' text without their navigation."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_rendered_blocks

from zoomrag.load import load_path, read_text
from zoomrag.load.base import detect_format

INFO = """This is demo.info, produced by makeinfo version 6.8 from demo.texi.

This manual documents Demo 1.0.
INFO-DIR-SECTION Basics
START-INFO-DIR-ENTRY
* Demo: (demo).        A demo.
END-INFO-DIR-ENTRY

\x1f
File: demo.info,  Node: Top,  Next: ls invocation,  Up: (dir)

Demo
****

This manual documents Demo 1.0.

* Menu:

* ls invocation::     List directory contents.

\x1f
File: demo.info,  Node: ls invocation,  Prev: Top,  Up: Top

1 ‘ls’: List directory contents
===============================

The ‘ls’ program lists information about files.  *Note Formatting
file timestamps::.

‘-a’
‘--all’
     In directories, do not ignore file names that start with ‘.’.

‘--time-style=STYLE’
     List timestamps in style STYLE:

     ‘iso’
          ISO 8601 dates.
     ‘locale’
          A locale-dependent form.  The following two are equivalent:

               ls -l --time-style="+%b %e"
               ls -l --time-style="locale"

   Exit status is 0 on success.

1.1 Details
-----------

     This is a quotation of several plain words that reads as prose and ends like a sentence.

   • one point
   • another point

\x1f
File: demo.info,  Node: Concept index,  Prev: ls invocation,  Up: Top

Concept index
*************

\x00\x08[index\x00\x08]
* Menu:

* all files:                             ls invocation.        (line 10)

\x1f
Tag Table:
Node: Top\x7f120
\x1f
End Tag Table
"""


def test_an_info_manual_reads_without_its_navigation():
    doc = read_text(INFO.replace("\x00\x08[index\x00\x08]\n", ""), format="info", source="demo.info")
    assert doc.text == (
        "# Demo\n\nThis manual documents Demo 1.0.\n\n"
        "## 1 ‘ls’: List directory contents\n\n"
        "The ‘ls’ program lists information about files. See Formatting file timestamps.\n\n"
        "‘-a’, ‘--all’: In directories, do not ignore file names that start with ‘.’.\n\n"
        "‘--time-style=STYLE’: List timestamps in style STYLE:\n\n"
        "‘iso’: ISO 8601 dates.\n\n"
        "‘locale’: A locale-dependent form. The following two are equivalent:\n\n"
        "```\nls -l --time-style=\"+%b %e\"\nls -l --time-style=\"locale\"\n```\n\n"
        "Exit status is 0 on success.\n\n"
        "### 1.1 Details\n\n"
        "This is a quotation of several plain words that reads as prose and ends like a sentence.\n\n"
        "- one point\n- another point\n\n"
        "# Concept index")
    assert doc.format == "info" and doc.metadata == {"title": "Demo"}
    check_rendered_blocks(doc)


def test_an_info_file_with_index_marks_is_text_not_binary(tmp_path):
    (tmp_path / "demo.info").write_bytes(INFO.encode())
    doc = load_path(tmp_path / "demo.info")
    assert doc.format == "info" and "index" not in doc.text.lower().replace("concept index", "")


def test_a_split_manuals_first_file_says_what_it_documents():
    text = ("This is find.info, produced by makeinfo.\n\nThis manual documents find 4.9.\n"
            "INFO-DIR-SECTION Basics\nSTART-INFO-DIR-ENTRY\n* find: (find).  Finding files.\nEND-INFO-DIR-ENTRY\n\n"
            "\x1f\nIndirect:\nfind.info-1: 1201\n\x1f\nTag Table:\n(Indirect)\nNode: Top\x7f1201\n\x1f\nEnd Tag Table\n")
    doc = read_text(text, format="info", source="find.info")
    assert doc.text == "This is find.info, produced by makeinfo.\n\nThis manual documents find 4.9."


def test_a_dot_info_file_of_another_tool_is_plain_text():
    text = "name = Views\ndescription = Create customized lists.\ncore = 7.x\n"
    doc = read_text(text, format="info", source="views.info")
    assert doc.format == "text" and doc.text == text


@pytest.mark.parametrize("name", ["coreutils.info", "find.info-1", "find.info-12.gz", "sed.info.bz2"])
def test_info_files_are_found_by_name(name):
    assert detect_format(Path(name)) == "info"


_LINES = st.lists(st.one_of(
    st.sampled_from(["\x1f", "File: x.info,  Node: Top,  Up: (dir)", "Title", "*****", "=====", "-----",
                     "* Menu:", "* a::  b", "‘-a’", "     body text.", "          deeper", "   • point",
                     "*Note Top::.", "", "Tag Table:", "Indirect:"]),
    st.text(alphabet="ab ‘’*:.\t-", max_size=15)), max_size=40)


@settings(max_examples=300, deadline=None)
@given(_LINES)
def test_any_info_text_reads_to_blocks_inside_its_text(lines):
    doc = read_text("\n".join(lines), format="info", source="x.info")
    if doc.format == "info":
        check_rendered_blocks(doc)
    else:
        assert doc.text == "\n".join(lines)

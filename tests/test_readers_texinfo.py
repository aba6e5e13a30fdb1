"""Texinfo sources read as makeinfo prints the manual."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_rendered_blocks

from zoomrag.load import read_text
from zoomrag.load.base import detect_format

TEXI = r"""\input texinfo   @c -*-texinfo-*-
@setfilename demo.info
@settitle Demo Manual
@set VERSION 1.2
@copying
This manual is free.
@end copying
@titlepage
@title Demo
@end titlepage
@node Top
@top Demo

This manual documents Demo @value{VERSION}.

@menu
* Invoking::  How to run it.
@end menu

@node Invoking
@chapter Invoking @command{demo}
@cindex invoking

Run @code{demo @var{file}}; @xref{Files, the files it reads}.
@ifset NOSUCHFLAG
Left out.
@end ifset
@c a comment

@table @option
@item -a
@itemx --all
Show @emph{all} entries.
@end table

@itemize @bullet
@item
One point.
@item Another point.
@end itemize

@example
demo -a @var{dir} \
    --since  @code{2024}
@end example

@multitable @columnfractions .3 .7
@headitem Key @tab Action
@item @kbd{C-a} @tab Move to the start.
@end multitable

@deftypefun int demo_run (const char *@var{name})
@deftypefunx int demo_stop (void)
Runs @var{name}.
@end deftypefun
@bye
"""


def test_a_texinfo_manual_reads_as_makeinfo_prints_it():
    doc = read_text(TEXI, format="texinfo", source="demo.texi")
    assert doc.text == (
        "# Demo\n\nThis manual documents Demo 1.2.\n\n"
        "# Invoking ‘demo’\n\n"
        "Run demo FILE; See the files it reads.\n\n"
        "-a, --all: Show all entries.\n\n"
        "- One point.\n- Another point.\n\n"
        "```\ndemo -a DIR \\\n    --since  2024\n```\n\n"
        "| Key | Action |\n| --- | --- |\n| C-a | Move to the start. |\n\n"
        "int demo_run (const char *NAME), int demo_stop (void): Runs NAME.")
    assert doc.format == "texinfo" and doc.metadata == {"title": "Demo Manual"}
    check_rendered_blocks(doc)


def test_a_texi_file_with_no_command_is_plain_text():
    doc = read_text("Just words.\n", format="texinfo", source="x.texi")
    assert doc.format == "text"


def test_texinfo_files_are_found_by_extension():
    assert {detect_format(Path(n)) for n in ("a.texi", "b.texinfo", "c.txi", "d.texi.gz")} == {"texinfo"}


_LINES = st.lists(st.one_of(
    st.sampled_from(["@node X", "@chapter A", "@section B", "@table @code", "@item a", "@itemx b", "@end table",
                     "@itemize @bullet", "@end itemize", "@example", "@end example", "@multitable", "@tab c",
                     "@end multitable", "@deffn Command f x", "@end deffn", "@ignore", "@end ignore",
                     "@code{x} @var{y} @xref{Z}", "@{ @} @@", "", "@set F", "@ifset F", "@end ifset", "@verbatim",
                     "@end verbatim", "@bye"]),
    st.text(alphabet="ab @{}.,\t", max_size=15)), max_size=30)


@settings(max_examples=300, deadline=None)
@given(_LINES)
def test_any_texinfo_reads_to_blocks_inside_its_text(lines):
    doc = read_text("@node Top\n" + "\n".join(lines), format="texinfo", source="x.texi")
    if doc.format == "texinfo":
        check_rendered_blocks(doc)

"""Paragraphs and headings of pages given as lines alone (zoomrag.load.readers.page_lines)."""

from __future__ import annotations

import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from zoomrag.load.readers.page_lines import line_paragraphs

PROSE = ("The installer asks for a folder and writes the index there, with a sample configuration beside it. "
         "It checks the disk and the version of Python before it starts, and stops with a message when "
         "either will not do. Nothing is written before both checks pass.")


def _set(*paragraphs: str, width: int = 70) -> str:
    """Paragraphs typeset to a measure, one line after another, as pypdf gives a page."""
    return "\n".join(line for p in paragraphs for line in textwrap.wrap(p, width))


def test_a_paragraph_ends_where_the_next_word_would_have_fitted():
    page = _set(PROSE, "Backups copy the index file. " + PROSE)
    pages, headings = line_paragraphs([page] * 3)
    first, second = pages[0].split("\n\n")
    assert first == "\n".join(textwrap.wrap(PROSE, 70)) and second.startswith("Backups copy")
    assert headings == {}


def test_a_short_line_between_paragraphs_over_prose_is_a_heading():
    page = _set(PROSE) + "\nRestoring\n" + _set(PROSE) + "\n2.4 The glob files\n" + _set(PROSE)
    pages, headings = line_paragraphs([page, page])
    assert headings == {1: {"Restoring": 6}, 2: {"Restoring": 6}}  # the numbered one is the outline's
    assert "\n\nRestoring\n\n" in pages[0] and "\n\n2.4 The glob files\n\n" in pages[0]


def test_lines_that_are_not_prose_and_pages_with_paragraphs_stay_as_they_are():
    table = "\n".join(f"row {n} | {n * 3}" for n in range(40))
    assert line_paragraphs([table]) == ([table], {})
    spaced = _set(PROSE) + "\n\n" + _set(PROSE) + "\n\nEnd of the page with a paragraph.\n" + _set(PROSE)
    pages, _ = line_paragraphs([spaced, _set(PROSE, PROSE, PROSE)])
    assert pages[0] == spaced
    # a hyphen at a line's end never ends a paragraph
    hyphened = _set(PROSE) + "\nthe re-\nindexing starts. " + _set(PROSE)
    assert "re-\n\n" not in line_paragraphs([hyphened] * 3)[0][0]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="abcde fghij.,ABC", min_size=1, max_size=300), min_size=1, max_size=12),
       st.integers(40, 100))
def test_only_blank_lines_are_added(paragraphs, width):
    pages = [_set(*paragraphs, width=width), _set(*reversed(paragraphs), width=width)]
    out, headings = line_paragraphs(pages)
    for before, after in zip(pages, out, strict=True):
        assert [line for line in after.split("\n") if line] == [line for line in before.split("\n") if line]
    for number, found in headings.items():
        assert all(any(line.split() == h.split() for line in out[number - 1].split("\n")) for h in found)

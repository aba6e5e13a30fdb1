"""Footnotes: where a document's notes and the places that cite them are.

A note read alone does not say what it annotates ("The default of 1 lost the checkpoint topic
once"), and a sentence that cites one leaves out what the writer put in the note. Assembly
(:mod:`zoomrag.expand.assemble`) therefore gives a context that holds a note the sentence citing
it, and a context that cites a note the note, as extra exact spans when the budget has room.

The syntax is Markdown's (GitHub, pandoc, MyST, Obsidian), which the HTML reader also renders
notes in: a reference ``[^label]`` in the text, and a definition ``[^label]: text`` at the start
of a line, which runs over the lines after it up to a blank line that no indented line follows;
and reStructuredText's: ``[1]_``, ``[#]_`` or ``[CIT2002]_`` referring to ``.. [1] text``, whose
body is the lines indented under it.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field

from ..load.spans import trim_end

#: ``[^label]``: a label is a run of characters without space or brackets.
_REF = re.compile(r"\[\^([^\]\[\s]{1,64})\]")
#: A definition's first line: up to three spaces, the reference, a colon.
_DEFINITION = re.compile(r"(?m)^ {0,3}\[\^([^\]\[\s]{1,64})\]:")
#: reStructuredText: a note's label (``1``, ``#``, ``#name``, ``*``) or a citation's (``CIT2002``).
_RST_LABEL = r"(\d{1,9}|#[\w.-]{0,64}|\*|[A-Za-z][\w.-]{0,63})"
_RST_REF = re.compile(r"\[" + _RST_LABEL + r"\]_")
_RST_DEFINITION = re.compile(r"(?m)^ {0,3}\.\. \[" + _RST_LABEL + r"\]")


@dataclass(frozen=True)
class Footnotes:
    """One document's footnotes: every definition's span and every reference's, by label."""

    #: label -> ``(start, end)`` of its definition (the first one, when a label is defined twice).
    notes: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: ``(start, end, label)`` of every reference outside a definition's marker, in text order.
    refs: list[tuple[int, int, str]] = field(default_factory=list)

    def cited_in(self, start: int, end: int) -> list[str]:
        """Labels referred to inside ``[start, end)`` (each once, in text order)."""
        i = bisect_left(self.refs, (start, -1, ""))
        out: list[str] = []
        while i < len(self.refs) and self.refs[i][1] <= end:
            label = self.refs[i][2]
            if label in self.notes and label not in out:
                out.append(label)
            i += 1
        return out

    def defined_in(self, start: int, end: int) -> list[str]:
        """Labels whose definition starts inside ``[start, end)``."""
        return [label for label, (s, _) in self.notes.items() if start <= s < end]

    def note_start(self, pos: int, reach: int) -> int:
        """Where the note ``pos`` lies inside begins, when that is past its start and at most
        ``reach`` characters back; else ``pos``."""
        for s, e in self.notes.values():
            if s < pos < e and pos - s <= reach:
                return s
        return pos

    def first_ref(self, label: str) -> tuple[int, int] | None:
        """Span of the first reference to ``label`` outside its definition."""
        return next(((s, e) for s, e, lab in self.refs if lab == label), None)


def _definition_end(text: str, start: int, definition: re.Pattern[str] = _DEFINITION, indent: str = "    ",
                    lazy: bool = True) -> int:
    """End of the definition starting at ``start``: its lines up to a blank line that no line
    indented by ``indent`` follows, or the next ``definition``, trimmed of trailing whitespace.
    Without ``lazy`` (reStructuredText), an unindented line right after it ends it too."""
    pos = start
    n = len(text)
    while True:
        nl = text.find("\n", pos)
        if nl < 0:
            return trim_end(text, start, n)
        nxt = nl + 1
        if definition.match(text, nxt):
            return trim_end(text, start, nl)
        line_end = text.find("\n", nxt)
        line = text[nxt:n if line_end < 0 else line_end]
        if not line.strip():
            # a blank line ends it unless an indented line (a continued paragraph) follows
            k = nxt
            while k < n and text[k] in " \t\r\n":
                k += 1
            back = text.rfind("\n", 0, k) + 1
            if k >= n or not (text.startswith(indent, back) or text.startswith("\t", back)):
                return trim_end(text, start, nl)
            pos = back
            continue
        if not lazy and not line.startswith((indent, "\t")):
            return trim_end(text, start, nl)
        pos = nxt


def find_footnotes(text: str) -> Footnotes:
    """The footnotes of ``text``, in Markdown's syntax and in reStructuredText's; empty, found
    fast, when it has neither."""
    notes: dict[str, tuple[int, int]] = {}
    refs: list[tuple[int, int, str]] = []
    if "[^" in text:
        markers: set[int] = set()
        for m in _DEFINITION.finditer(text):
            start = m.start(0) + len(m.group(0)) - len(m.group(1)) - 4  # the "[^" of the marker
            markers.add(start)
            notes.setdefault(m.group(1), (start, _definition_end(text, start)))
        refs += [(m.start(), m.end(), m.group(1)) for m in _REF.finditer(text) if m.start() not in markers]
    if ".. [" in text and _RST_DEFINITION.search(text):
        _rst_notes(text, notes, refs)
        refs.sort()
    return Footnotes(notes, refs)


def _rst_notes(text: str, notes: dict[str, tuple[int, int]], refs: list[tuple[int, int, str]]) -> None:
    """reStructuredText's notes and citations: ``[1]_``, ``[#]_``, ``[#name]_``, ``[*]_``,
    ``[CIT2002]_`` referring to ``.. [1] text`` and the like; auto-numbered ``[#]`` and ``[*]``
    references are matched to their notes in order, as docutils numbers them."""
    seen: dict[str, int] = {}
    for m in _RST_DEFINITION.finditer(text):
        start = m.start(0) + len(m.group(0)) - len(m.group(0).lstrip(" "))
        label = _numbered(m.group(1), seen)
        notes.setdefault(label, (start, _definition_end(text, start, _RST_DEFINITION, " ", lazy=False)))
    seen.clear()
    refs += [(m.start(), m.end(), _numbered(m.group(1), seen)) for m in _RST_REF.finditer(text)]


def _numbered(label: str, seen: dict[str, int]) -> str:
    """``#`` and ``*`` as the n-th of their kind (``#1``, ``*2``); any other label as it is."""
    if label not in ("#", "*"):
        return label
    seen[label] = seen.get(label, 0) + 1
    return f"{label}{seen[label]}"

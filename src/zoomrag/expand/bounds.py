"""Where a context may start and end, and how a span is widened to get there.

A context starts and ends at a sentence boundary (:func:`zoomrag.text.sentences.sentence_bounds`,
which also ends a sentence at a blank line, a heading line and a table row), or, in tables,
lists and code (``lines=True``), at a line boundary. Spans are widened outward to the nearest
such boundary, so the matched text stays inside; when no boundary lies within ``REACH``
characters (one sentence longer than that), the span stops at a word boundary instead, which is
the one allowed exception.

``evaluate.shape`` measures returned contexts against the same boundaries (with
``lines=False``: a metric sees only the text).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from threading import Lock

from ..load.spans import indent_width, line_end, skip_space, trim_end
from ..text.leans import leans_back
from ..text.lists import LIST_ITEM
from ..text.sentences import sentence_bounds

#: Characters looked at on each side of an edge for the boundary nearest to it.
REACH = 2000
#: A context shorter than this many words is a fragment (unless its document is that short).
MIN_WORDS = 15
#: The farthest back a context that begins inside a list item moves to the item's marker.
ITEM_REACH = 400
#: How far back :func:`item_after` looks for the marker of the item a position lies in.
AFTER_REACH = 2000
_ITEM_LINE = re.compile(r"\n" + LIST_ITEM.pattern)


def _window_lo(text: str, pos: int) -> int:
    """A line start about ``REACH`` before ``pos`` (0 when the text begins within it)."""
    lo = pos - REACH
    return 0 if lo <= 0 else text.rfind("\n", 0, lo) + 1


def _window_hi(text: str, pos: int) -> int:
    hi = pos + REACH
    if hi >= len(text):
        return len(text)
    nl = text.find("\n", hi)
    return len(text) if nl < 0 else nl


def _line_start(text: str, pos: int) -> bool:
    return pos == 0 or text[text.rfind("\n", 0, pos) + 1:pos].strip() == ""


def _line_end(text: str, pos: int) -> bool:
    nl = text.find("\n", pos)
    return text[pos:len(text) if nl < 0 else nl].strip() == ""


#: Sentence boundaries are found chunk by chunk (chunks end at blank lines, where a sentence
#: always ends), and kept for the documents seen last, up to as many characters of them as
#: _KEEP_CHARS: a query asks about many edges of the same few documents, and the next query
#: about many of the same documents again (a probe's or an evaluation's hundreds of queries).
_CHUNK = 8192
_KEEP_CHARS = 32_000_000
_SEEN: OrderedDict[tuple[int, int], _Sentences] = OrderedDict()
_SEEN_LOCK = Lock()
_kept_chars = 0


class _Sentences:
    """Sentence starts and ends of one text, computed chunk by chunk on demand."""

    def __init__(self, text: str):
        self.text = text  # kept, compared when another copy of the same length and hash comes
        self._edges: dict[int, int] = {}
        self._chunks: dict[int, tuple[list[int], list[int]]] = {}
        #: :func:`snap` results, by ``(start, end, lines)``: an evaluation or a probe asks for the
        #: same spans again with every policy and budget.
        self.snapped: dict[tuple[int, int, bool], tuple[int, int]] = {}
        #: :func:`grow` results, by ``(start, end, lines, words)``.
        self.grown: dict[tuple[int, int, bool, int], tuple[int, int]] = {}
        #: Where its fence lines (```` ``` ````, ``~~~``) begin, found when first needed.
        self.fences: list[int] | None = None

    def edge(self, k: int) -> int:
        p, n = k * _CHUNK, len(self.text)
        if p <= 0:
            return 0
        if p >= n:
            return n
        e = self._edges.get(k)
        if e is None:
            text = self.text
            f = text.find("\n\n", p, p + _CHUNK // 2)
            if f < 0:
                f = text.find("\n", p, p + _CHUNK // 2)
            e = self._edges[k] = p if f < 0 else f + 1
        return e

    def chunk_of(self, pos: int) -> int:
        k = pos // _CHUNK
        return k - 1 if k > 0 and pos < self.edge(k) else k

    def chunk(self, k: int) -> tuple[list[int], list[int]]:
        got = self._chunks.get(k)
        if got is None:
            lo, hi = self.edge(k), self.edge(k + 1)
            got = self._chunks[k] = sentence_bounds(self.text, lo, hi) if lo < hi else ([], [])
        return got

    def starts(self, pos: int) -> list[int]:
        """Sentence starts at or before ``pos`` in its chunk and the one before, in order."""
        k = self.chunk_of(pos)
        out = self.chunk(k - 1)[0] if k > 0 else []
        mine = self.chunk(k)[0]
        return out + mine[:bisect_right(mine, pos)]

    def ends(self, pos: int) -> list[int]:
        """Sentence ends at or after ``pos`` in its chunk and the one after, in order."""
        k = self.chunk_of(pos)
        prev = self.chunk(k - 1)[1] if k > 0 else []
        mine = self.chunk(k)[1]
        nxt = self.chunk(k + 1)[1] if self.edge(k + 1) < len(self.text) else []
        return prev[bisect_left(prev, pos):] + mine[bisect_left(mine, pos):] + nxt


#: Spans a text's snap or growth memo holds before it starts again (a server asks for new spans
#: of the same documents forever).
MEMO_SPANS = 65_536


def _memo(known: dict) -> dict:
    if len(known) >= MEMO_SPANS:
        known.clear()
    return known


def _sentences(text: str) -> _Sentences:
    # By content, not identity: each query reads its documents' text from the store again.
    global _kept_chars
    key = (len(text), hash(text))
    with _SEEN_LOCK:  # a server's threads share it
        got = _SEEN.get(key)
        if got is None or got.text != text:
            if got is not None:  # another text of the same length and hash
                _kept_chars -= len(_SEEN.pop(key).text)
            got = _SEEN[key] = _Sentences(text)
            _kept_chars += len(text)
            while _kept_chars > _KEEP_CHARS and len(_SEEN) > 1:
                _kept_chars -= len(_SEEN.popitem(last=False)[1].text)
        else:
            got.text = text  # the caller's copy: asked again, it is found by identity, not compared
            _SEEN.move_to_end(key)
    return got


def clean_start(text: str, pos: int, lines: bool = False) -> bool:
    """True when a context starting at ``pos`` starts at a boundary (whitespace skipped)."""
    q = skip_space(text, pos, len(text))
    if q >= len(text) or q == 0:
        return True
    if lines:
        return _line_start(text, q)
    starts = _sentences(text).starts(q)
    return bool(starts) and starts[-1] == q


def clean_end(text: str, pos: int, lines: bool = False) -> bool:
    """True when a context ending at ``pos`` ends at a boundary (whitespace skipped)."""
    q = trim_end(text, 0, pos)
    if q == 0 or q == len(text):
        return True
    if lines:
        return _line_end(text, q)
    ends = _sentences(text).ends(q)
    return bool(ends) and ends[0] == q


def _starts_before(text: str, pos: int, lines: bool) -> list[int]:
    """Boundaries a context may start at, at or before ``pos``, nearest last."""
    if not lines:
        return [s for s in _sentences(text).starts(pos) if s >= pos - REACH] or ([0] if pos <= REACH else [])
    lo = _window_lo(text, pos)
    out = {0} if lo == 0 else set()
    nl = text.find("\n", max(lo - 1, 0), pos)
    while nl >= 0:
        out.add(skip_space(text, nl + 1, len(text)))
        nl = text.find("\n", nl + 1, pos)
    return sorted(s for s in out if s <= pos)


def _ends_after(text: str, pos: int, lines: bool) -> list[int]:
    """Boundaries a context may end at, at or after ``pos``, nearest first."""
    if not lines:
        n = len(text)
        return [e for e in _sentences(text).ends(pos) if e <= pos + REACH] or ([n] if n - pos <= REACH else [])
    hi = _window_hi(text, pos)
    out = {len(text)} if hi == len(text) else set()
    nl = text.find("\n", pos)
    while 0 <= nl < hi:
        out.add(trim_end(text, 0, nl))
        nl = text.find("\n", nl + 1)
    return sorted(e for e in out if e >= pos)


def item_start(text: str, pos: int, reach: int = ITEM_REACH) -> int:
    """Where the list item holding ``pos`` begins (its marker), or ``pos`` when ``pos`` is not
    inside an item past its marker, or the marker lies more than ``reach`` characters back.

    An item runs from its marker line over the lines after it up to a blank line; a sentence
    start inside a hard-wrapped item is mid-line and reads without its bullet.
    """
    line = text.rfind("\n", 0, pos) + 1
    while pos - line <= reach:
        if LIST_ITEM.match(text, line):
            mark = skip_space(text, line, pos)
            return mark if mark < pos else pos
        if line == 0:
            return pos
        prev = text.rfind("\n", 0, line - 1) + 1
        if text[prev:line].isspace():
            return pos  # a blank line: the paragraph holding pos is no list item
        line = prev
    return pos


def item_lines(text: str) -> list[int]:
    """Where every line that opens a list item begins, ascending."""
    return [m.start() + 1 for m in _ITEM_LINE.finditer("\n" + text)]


def item_after(text: str, pos: int, end: int) -> int:
    """Where the text after the list item holding ``pos`` begins, before ``end``: the next item's
    marker or the paragraph after a blank line; ``pos`` when ``pos`` is not inside an item past
    its marker (within :data:`AFTER_REACH` characters), or nothing begins there before ``end``.

    A context that cannot start at its item's marker starts here instead of at the item's tail.
    """
    if item_start(text, pos, reach=AFTER_REACH) == pos:
        return pos
    blank = False
    nl = text.find("\n", pos, end)
    while nl >= 0:
        line = nl + 1
        nl = text.find("\n", line, end)
        stop = end if nl < 0 else nl
        if not text[line:stop].strip():
            blank = True
        elif blank or LIST_ITEM.match(text, line, stop):
            return skip_space(text, line, stop)
    return pos


_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})")
#: What ends a lead-in: a colon, ASCII or full-width ("运行以下命令：").
_LEAD_MARKS = ":："
#: A question leads to the answer set in below it (:func:`_answered_below`).
_QUESTION_MARKS = "?？"
#: What ends a sentence that leads nowhere; any other last character before a code block makes a
#: lead-in too ("Then run" / "然后运行" over the command, with the sentence going on after it).
_CLOSED = frozenset(".!?;。！？；…)]）」』”’\"'`*|")


_FENCE_LINE = re.compile("^" + _FENCE.pattern, re.M)


def _fence_lines(text: str) -> list[int]:
    """Where each fence line of the text starts, in order (found once per text)."""
    idx = _sentences(text)
    if idx.fences is None:
        idx.fences = [m.start() for m in _FENCE_LINE.finditer(text)] if "```" in text or "~~~" in text else []
    return idx.fences


def _inside_fence(text: str, pos: int) -> bool:
    """Whether ``pos`` lies inside a fenced code block: after an odd number of fence lines."""
    return bisect_left(_fence_lines(text), pos) % 2 == 1


def _leads(text: str, last: int, end: int) -> bool:
    """Whether the sentence whose last character is at ``last`` leads to what follows ``end``:
    it ends in a colon, or it is left open right over a fenced code block. A line of code is no
    sentence: inside a fenced block nothing leads (its closing fence opens nothing)."""
    if _inside_fence(text, end):
        return False
    if text[last] in _LEAD_MARKS:
        return True
    if text[last] in _QUESTION_MARKS:
        return _answered_below(text, last)
    if text[last] in _CLOSED:
        return False
    nxt = skip_space(text, end, min(len(text), end + 200))
    return nxt > end and "\n" in text[end:nxt] and _FENCE.match(text, nxt) is not None


def _answered_below(text: str, last: int) -> bool:
    """Whether the question ending at ``last`` ends its line and the next line holding text is
    set in under it: a toggle's or an FAQ list's answer (Notion exports a toggle as a list item
    with its content indented below). A question in running prose leads nowhere here."""
    eol = line_end(text, last)
    if text[last + 1:eol].strip():
        return False
    nxt = skip_space(text, eol, min(len(text), eol + 400))
    if nxt >= len(text):
        return False
    line = text.rfind("\n", 0, last) + 1
    below = text.rfind("\n", 0, nxt) + 1
    return indent_width(text[below:nxt + 1]) > indent_width(text[line:last])


def _last_char(text: str, start: int, end: int) -> int:
    """The last character of ``[start, end)`` that is not white space (``start`` at least)."""
    last = end - 1
    while last > start and text[last].isspace():
        last -= 1
    return last


def leads_on(text: str, start: int, end: int) -> bool:
    """Whether ``[start, end)`` ends with a sentence that leads to what follows ``end``
    (:func:`_leads`: ``A `package` is:``, or an open "Then run" over a command)."""
    return end > start and bool(text[end:end + 200].strip()) and _leads(text, _last_char(text, start, end), end)


def lead_in(text: str, start: int, end: int) -> int:
    """Where the last sentence of ``[start, end)`` begins when it leads to what follows ``end``
    (:func:`leads_on`) and so is left without it; ``end`` otherwise, and when that sentence is
    all of the span."""
    if not leads_on(text, start, end):
        return end
    starts = _sentences(text).starts(_last_char(text, start, end))
    return starts[-1] if starts and starts[-1] > start else end


#: A lead-in over the block a context opens with is taken back only when it is at most this long
#: (characters).
LEAD_CHARS = 400


def lead_start(text: str, start: int) -> int:
    """``start``, or where the sentence leading to the block at ``start`` begins: a context that
    opens with a line led in from just above it (a sentence ending in a colon, "to revert the last
    commit:", or one left open over a fenced code block), when that sentence is at most
    LEAD_CHARS long. The example, list or paragraph without it reads as an answer to nothing."""
    first = skip_space(text, start, min(len(text), start + 200))
    line = text.rfind("\n", 0, first) + 1
    if text[line:start].strip():  # it starts inside a line
        return start
    last = line - 1
    while last >= 0 and text[last].isspace():
        last -= 1
    if last < 0 or not _leads(text, last, last + 1):
        return start
    starts = _sentences(text).starts(last)
    begin = starts[-1] if starts else start
    return begin if start - LEAD_CHARS <= begin < start else start


def lean_start(text: str, start: int) -> int:
    """``start``, or where the sentence before begins: a context that opens with a sentence
    leaning on the one before it ("But…", "This means…", :func:`~zoomrag.text.leans.leans_back`)
    takes that sentence when it is prose in the same or the paragraph before (not a list item,
    a table row or code; at most one blank line between) and at most LEAD_CHARS long. One
    sentence a call: it says what "this" or "but" refers to; assembly asks again while the
    sentence taken leans too. A context opening on the rest of a sentence a code block
    interrupted takes the block and the sentence's start (:func:`_continued_from`)."""
    first = skip_space(text, start, min(len(text), start + 200))
    if first >= len(text):
        return start
    leans = leans_back(text, first)
    begin = _continued_from(text, first, leans)
    if begin is not None:
        return begin
    if not leans:
        return start
    starts = _sentences(text).starts(first)
    if len(starts) < 2 or starts[-1] != first:
        return start
    begin = starts[-2]
    between = text[begin:first]
    if first - begin > LEAD_CHARS or between.count("\n\n") > 1 or "```" in between or "~~~" in between \
            or LIST_ITEM.match(text, begin) or text.startswith("|", begin) or not has_words(text, begin, first, 3):
        return start
    return begin


def _continued_from(text: str, first: int, leans: bool = False) -> int | None:
    """Where the sentence begins that a line starting at ``first`` in lower case continues after
    a fenced code block ("change the line from this: [code] to this: [code]"), or that a line
    leaning on what came before (``leans``: "Then edit the file") follows through the block it
    led into ("export the list with: [code]"); None otherwise.

    The line must follow the block's closing fence with at most one blank line between, and
    the block the sentence's first part, prose (not a list item or a table row) ending without a
    full stop, with at most one blank line between; the block and the sentence's start together
    at most LED_TO_CHARS."""
    line = text.rfind("\n", 0, first) + 1
    if not (text[first].islower() or leans) or line == 0 or text[line:first].strip():
        return None
    close = _previous_line(text, first)
    if close is None or not _FENCE.fullmatch(text, *close):
        return None
    fences = _fence_lines(text)
    i = bisect_left(fences, close[0])  # the closing fence is fences[i], its opening fences[i - 1]
    if i % 2 == 0 or close[0] - fences[i - 1] > LED_TO_CHARS:
        return None
    lead = _previous_line(text, fences[i - 1])
    if lead is None or _FENCE.match(text, lead[0]) or LIST_ITEM.match(text, lead[0]) \
            or text[lead[0]:lead[1]].lstrip().startswith("|"):  # prose only, as for a leaning sentence
        return None
    last = trim_end(text, lead[0], lead[1]) - 1
    if last < 0 or text[last] in _CLOSED:
        return None
    starts = _sentences(text).starts(last)
    # not before the block above, whose text the sentence index may have run on into this line
    floor = fences[i - 2] if i >= 2 else 0
    begin = starts[-1] if starts and starts[-1] > floor else lead[0]
    return begin if first - begin <= LED_TO_CHARS else None


def _previous_line(text: str, pos: int) -> tuple[int, int] | None:
    """The span of the last non-blank line before the line holding ``pos``, with at most one
    blank line between (None otherwise)."""
    end = text.rfind("\n", 0, pos)
    blanks = 0
    while end > 0:
        line = text.rfind("\n", 0, end) + 1
        if text[line:end].strip():
            return line, end
        blanks += 1
        if blanks > 1:
            return None
        end = line - 1
    return None


#: What a lead-in leads to is taken only when it is at most this long (characters).
LED_TO_CHARS = 1500
#: A line that may close a fence of its character (at least as long as the opening one).
_CLOSING = {c: re.compile(r"\n[ \t]{0,3}(" + re.escape(c) + r"{3,})[ \t]*(?=\n|$)") for c in "`~"}
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def led_to(text: str, end: int) -> int | None:
    """Where the block after ``end`` ends (whitespace trimmed): a fenced code block to its
    closing fence, else the text up to the next blank line; None when nothing follows, or when
    that block is longer than LED_TO_CHARS."""
    start = skip_space(text, end, len(text))
    if start >= len(text):
        return None
    line = text.rfind("\n", 0, start) + 1
    fence = _FENCE.match(text, line)
    limit = start + LED_TO_CHARS + 1
    if fence is not None and line >= end:
        opening = fence.group(1)
        stop = next((m.end() for m in _CLOSING[opening[0]].finditer(text, fence.end(), limit)
                     if len(m.group(1)) >= len(opening)), -1)
    else:
        m = _BLANK_LINE.search(text, start, limit)
        stop = m.start() if m is not None else (len(text) if len(text) - start <= LED_TO_CHARS else -1)
    if stop < 0 or stop - start > LED_TO_CHARS:
        return None
    return trim_end(text, start, stop)


_ATX_LINE = re.compile(r"[ \t]{0,3}#{1,6}(?:[ \t]|$)")


def without_heading(text: str, start: int, end: int) -> int:
    """``end``, or where the last line of ``[start, end)`` begins (whitespace trimmed) when that
    line is a Markdown heading: a context does not end with a title whose text it leaves out."""
    line = text.rfind("\n", start, end) + 1
    if line <= start or not _ATX_LINE.match(text, line, end):
        return end
    return trim_end(text, start, line)


#: A line under (or over) a title in reStructuredText or Markdown's setext form: one punctuation
#: character repeated, at least three times.
_UNDERLINE = re.compile(r"([=\-~^\"'*+#:.])\1{2,}[ \t]*(?=\n|$)")
#: The lines a heading can be made of or hidden by, found at C speed: a ``#`` line, an underline,
#: a code fence.
_HEADING_PART = re.compile(r"^(?:[ \t]{0,3}#{1,6}(?:[ \t]|$)"  # a "#" line
                           r"|([=\-~^\"'*+#:.])\1{2,}[ \t]*$"  # an underline
                           r"|[ \t]{0,3}(?:`{3,}|~{3,}))",  # a fence
                           re.MULTILINE)


def _end_of_line(text: str, line: int, end: int) -> int:
    nl = text.find("\n", line, end)
    return end if nl < 0 else nl


def _title_over(text: str, line: int, start: int, end: int) -> int | None:
    """Where the title that the underline at ``line`` underlines begins (at its overline, if it has
    one): the line just above, not blank, not itself an underline, and not longer than it."""
    if line <= start:
        return None
    title = text.rfind("\n", start, line - 1) + 1
    if title < start or text[title:line].count("\n") != 1:
        return None
    words = text[title:line - 1].strip()
    if not words or _UNDERLINE.match(text, title, line - 1) is not None:
        return None
    if len(text[line:_end_of_line(text, line, end)].rstrip()) < len(words):
        return None  # a ``~~~`` fence under a longer line is no underline
    over = text.rfind("\n", start, max(start, title - 1)) + 1
    return over if over < title and _UNDERLINE.match(text, over, title - 1) else title


def heading_starts(text: str, start: int = 0, end: int | None = None) -> list[int]:
    """Where each heading of ``text[start:end]`` begins, in order: a Markdown ``#`` line (not a
    comment in a code block fenced within the range), or a title line with a line of
    ``===``/``---``/``~~~`` at least as long under it (from its overline, if it has one)."""
    end = len(text) if end is None else end
    out: list[int] = []
    fenced = False
    for m in _HEADING_PART.finditer(text, start, end):
        line = m.start()
        char = text[skip_space(text, line, end)] if line < end else ""
        if m.group(1) is not None:  # an underline (three ``~`` may also be a fence)
            title = None if fenced else _title_over(text, line, start, end)
            if title is not None:
                if not out or out[-1] < title:
                    out.append(title)
                continue
            if char != "~":
                continue
        if char in "`~":
            fenced = not fenced
        elif not fenced:
            out.append(line)
    return out


#: A line of markup and nothing else: HTML tags or comments (the frame of a centred logo or a
#: badge row in a README), a MyST target ``(label)=``, a reStructuredText one ``.. _label:``
#: or index entry (``.. index::`` over ``single: …``, ``pair: …``, ``triple: …`` lines),
#: an AsciiDoc anchor or attribute line (``[[label]]``, ``[source,sh]``, ``[quote, A. Author]``),
#: or an Org keyword, drawer or table frame line (``#+FILETAGS: :work:``, ``:PROPERTIES:``,
#: ``:ID: 42``, ``:END:``, ``|----+----|``; drawer names in capitals, so a reStructuredText
#: field ``:param x:`` stays text).
_MARKUP_LINE = re.compile(r"[ \t]*(?:(?:(?:<!--.*?-->|</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>\n]*)?/?>)[ \t]*)+"
                          r"|\([^()\s]+\)=[ \t]*|\.\. _[^\n]*|\.\. index::[^\n]*|(?<=[ \t])(?:single|pair|triple)!?:[ \t][^\n]*"
                          r"|\[\[[^\[\]\s]+\]\][ \t]*"
                          r"|\[[A-Za-z#.,%][^\[\]\s,]*(?:,[^\[\]\n]*)?\][ \t]*"
                          r"|#\+[A-Za-z_]+(?:\[[^\]\n]*\])?:[^\n]*|:[A-Z][A-Z0-9_-]*:(?:[ \t][^\n]*)?"
                          r"|\|-+(?:\+-+)+\|[ \t]*)(?=\n|$)")


#: The first characters a line of markup can start with.
_MARKUP_OPENERS = "<(.[#:|spt"


def is_markup(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is lines of bare markup only (:func:`without_markup_edges`)."""
    s, e = skip_space(text, start, end), trim_end(text, start, end)
    while s < e:
        m = _MARKUP_LINE.match(text, s, e)
        if m is None:
            return False
        s = skip_space(text, m.end(), e)
    return True


def markup_edge(text: str, start: int, end: int) -> bool:
    """Whether the first or the last line of ``[start, end)`` may be markup (a cheap first look)."""
    first = skip_space(text, start, end)
    last = text.rfind("\n", start, trim_end(text, start, end)) + 1
    last = skip_space(text, last, end) if last > start else end
    return (first < end and text[first] in _MARKUP_OPENERS) or (last < end and text[last] in _MARKUP_OPENERS)


def without_markup_edges(text: str, start: int, end: int, keep_from: int, keep_to: int) -> tuple[int, int]:
    """``[start, end)`` without lines of bare markup at its start (before ``keep_from``) and at
    its end (after ``keep_to``): ``</p>`` before a heading is no part of what a reader asked for."""
    if not markup_edge(text, start, end):
        return start, end
    s = start
    while s < min(end, keep_from):
        m = _MARKUP_LINE.match(text, s, end)
        if m is None or m.end() > keep_from:
            break
        s = skip_space(text, m.end(), end)
    e = last = trim_end(text, s, end)
    while e > max(s, keep_to):
        line = text.rfind("\n", s, e) + 1
        if line <= s or line < keep_to or _MARKUP_LINE.fullmatch(text, line, e) is None:
            break
        e = trim_end(text, s, line)
    if e == last:
        e = end  # nothing cut at the end
    if s >= e or (not has_words(text, s, e) and has_words(text, start, end)):
        return start, end  # what is left would be a fragment
    return s, e


def _word_start(text: str, pos: int) -> int:
    while pos > 0 and not text[pos - 1].isspace():
        pos -= 1
    return pos


def _word_end(text: str, pos: int) -> int:
    n = len(text)
    while pos < n and not text[pos].isspace():
        pos += 1
    return pos


def snap(text: str, start: int, end: int, lines: bool = False) -> tuple[int, int]:
    """``[start, end)`` widened to the nearest boundaries outside it (whitespace trimmed).

    Without a boundary within ``REACH`` on a side, that side goes to the nearest word boundary.
    """
    known = _memo(_sentences(text).snapped)
    key = (start, end, lines)
    got = known.get(key)
    if got is None:
        got = known[key] = _snap(text, start, end, lines)
    return got


def _snap(text: str, start: int, end: int, lines: bool) -> tuple[int, int]:
    s, e = skip_space(text, start, len(text)), trim_end(text, 0, end)
    if s >= e:
        return start, end
    before = _starts_before(text, s, lines)
    after = _ends_after(text, e, lines)
    s2 = before[-1] if before else _word_start(text, s)
    e2 = after[0] if after else _word_end(text, e)
    return s2, e2


_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


#: A word holds a letter or a digit (``|`` and ``---`` are not words).
_WORD = re.compile(r"[^\W_]+(?:\S*[^\W_])?")


def word_count(text: str, start: int, end: int) -> int:
    """Words in ``text[start:end]``: runs holding a letter or digit, each CJK character one word."""
    piece = text[start:end]
    cjk = len(_CJK.findall(piece))
    if cjk:
        piece = _CJK.sub(" ", piece)
    return cjk + len(_WORD.findall(piece))


def grow(text: str, start: int, end: int, lines: bool = False, words: int = MIN_WORDS,
         within: tuple[int, int] | None = None) -> tuple[int, int]:
    """``[start, end)`` (already at boundaries) grown by whole sentences or lines, after it
    first, then before it, alternately, until it holds ``words`` words or the whole text (or,
    ``within`` given, all of that range it can reach)."""
    known = _memo(_sentences(text).grown)
    key = (start, end, lines, words, within)
    got = known.get(key)
    if got is None:
        got = known[key] = _grow(text, start, end, lines, words, within or (0, len(text)))
    return got


def _grow(text: str, start: int, end: int, lines: bool, words: int,
          within: tuple[int, int]) -> tuple[int, int]:
    # A range that starts with a heading keeps it first, and one that ends with a lead-in reads
    # on into what it leads to: both grow forward alone until they can't.
    last = trim_end(text, start, end)
    forward = _ATX_LINE.match(text, start) is not None or (last > start and _leads(text, last - 1, end))
    after = True
    stuck = 0
    while word_count(text, start, end) < words and stuck < 2:
        if after:
            past = skip_space(text, end + 1, len(text)) if end < len(text) else end
            nxt = [x for x in _ends_after(text, past, lines) if end < x <= within[1]]
            if nxt:
                end, stuck = nxt[0], 0
                if forward:
                    continue
            else:
                stuck += 1
                forward = False
        else:
            prev = [x for x in _starts_before(text, trim_end(text, 0, start) - 1, lines)
                    if within[0] <= x < start] if start > 0 else []
            if prev:
                start, stuck = prev[-1], 0
            else:
                stuck += 1
        after = not after
    return start, end


#: A word as :func:`word_count` counts them, found in one pass: a CJK character, or a run of
#: ``_WORD`` in which CJK characters count as spaces (they end it).
_CJK_CLASS = _CJK.pattern[1:-1]
_ANY_WORD = re.compile(f"[{_CJK_CLASS}]|[^\\W_{_CJK_CLASS}]+(?:[^\\s{_CJK_CLASS}]*[^\\W_{_CJK_CLASS}])?")


def has_words(text: str, start: int, end: int, n: int = MIN_WORDS) -> bool:
    """True when ``text[start:end]`` holds at least ``n`` words, as :func:`word_count` counts
    them (stops counting there: a whole document is asked about, once per query)."""
    seen = 0
    for _ in _ANY_WORD.finditer(text, start, end):
        seen += 1
        if seen >= n:
            return True
    return False


def words_upto(text: str, start: int, end: int, n: int) -> int:
    """``min(word_count(text, start, end), n)``, counting no further than ``n`` (a shape check
    asks whether a long context reaches 15 words, not how many it holds)."""
    seen = 0
    if n > 0:
        for _ in _ANY_WORD.finditer(text, start, end):
            seen += 1
            if seen >= n:
                break
    return seen


def sentences_in(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The sentences lying wholly inside ``[start, end)`` (from the cached boundaries)."""
    idx = _sentences(text)
    out: list[tuple[int, int]] = []
    for k in range(idx.chunk_of(start), idx.chunk_of(max(start, end - 1)) + 1):
        starts, ends = idx.chunk(k)
        lo = bisect_left(starts, start)
        for a, b in zip(starts[lo:], ends[lo:]):
            if b > end:
                break
            out.append((a, b))
    return out

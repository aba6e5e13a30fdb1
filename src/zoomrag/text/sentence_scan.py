"""The vectorised sentence scan for long ranges: :mod:`.sentences`'s cuts, the common cases at once.

Most of a corpus's text is in long documents, and there the Python step per stop and per line
break of :mod:`.sentences` is most of the cost. :func:`scan` decides the common "." and line
feed cases for all of them at once, from a few characters around each (a table of character
classes and the rules of ``_latin_cut`` and ``_newline_kind``: see :func:`_stop_cuts` and
:func:`_line_feed_cuts`), and trims the sentences the same way; whatever those characters leave
open goes through the plain path's functions, one at a time. Tests compare both paths on random
text: the sentences, their offsets and the paragraphs are the same.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise, product
from operator import itemgetter
from string import ascii_lowercase, ascii_uppercase

import numpy as np

from .codes import code_points
from .sentences import (
    _CJK_CHARS,
    _CLOSE,
    _LATIN_STOPS,
    _LINE_FEED_NEXT,
    _MAYBE,
    _NEVER,
    _OPEN,
    _PLAIN_TAILS,
    _SPACES,
    _check_range,
    _cjk_cuts,
    _consonants_only,
    _has_any,
    _latin_cuts,
    _latin_ends,
    _line_feed_cut,
    _newline_cuts,
    _trimmed,
)


def paragraphs(starts: list[int], ends: list[int], breaks: list[int]) -> list[list[tuple[int, int]]]:
    """Sentences grouped by the paragraph breaks between them."""
    spans = list(zip(starts, ends))
    if not breaks or not spans:
        return [spans] if spans else []
    # The breaks before each sentence (no sentence holds one): a new count opens a paragraph.
    seen = np.searchsorted(np.array(breaks, dtype=np.int64), np.array(starts, dtype=np.int64))
    bounds = [0, *(np.flatnonzero(seen[1:] != seen[:-1]) + 1).tolist(), len(spans)]
    return [spans[a:b] for a, b in pairwise(bounds)]


#: A range takes the vectorised path when it is at least VECTOR_MIN characters long and holds
#: at least VECTOR_STOPS "." and line feeds together: below that, numpy's call overheads (half
#: a millisecond or so per range) cost more than it saves (a few microseconds per stop).
VECTOR_MIN = 8192
VECTOR_STOPS = 640


def worth_scanning(text: str, start: int, end: int) -> bool:
    """True when [start, end) is long enough and holds enough stops for :func:`scan` to pay."""
    return (end - start >= VECTOR_MIN
            and text.count(".", start, end) + text.count("\n", start, end) >= VECTOR_STOPS)


# Character classes: bits of the row of a code point in _char_classes().
_SP = 1  # whitespace (\s, str.isspace)
_LO = 2  # a-z
_LT = 4  # A-Z, a-z
_DG = 8  # 0-9
_MK = 16  # a mark of _MARKS
_OP = 32  # in _OPEN as the patterns read it
_NS = 64  # a stop _latin_cut looks for in the next character: . ! ? …
_SC = 128  # in _LATIN_STOPS or _CLOSE (as the patterns read them): a stop before it is no lone one
_ST = 256  # in _LATIN_STOPS
_CJ = 512  # in _CJK_CHARS
_IL = 1024  # str.islower()
_ID = 2048  # str.isdigit()
_IA = 4096  # str.isalpha()
_UK = 8192  # a code point above U+FFFF: the three above unknown
_ASTRAL = 0x10000  # the row of every code point above U+FFFF (the last)
_PAD = 6  # NULs on either side of a range's codes: lookups around a position need no bounds checks
#: Fewer stops of a kind, line feeds or cuts than this are handled one at a time: numpy's
#: call overheads (a few hundred microseconds for a kind) cost more than it saves on them.
_FEW = 128

#: ASCII punctuation that is no opening quote (_word_before strips those) and no stop: a "."
#: after one ends a sentence (the word before ends in it, so it is no abbreviation or number).
_MARKS = "".join(c for c in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~" if c not in _OPEN + _LATIN_STOPS)


@lru_cache(maxsize=1)
def _char_classes() -> np.ndarray:
    """Class bits per code point: U+0000..U+FFFF, then the row _ASTRAL (read with
    ``take(codes, mode="clip")``)."""
    bmp = "".join(map(chr, range(0x10000)))
    table = np.zeros(_ASTRAL + 1, dtype=np.uint16)
    for pattern, bit in ((r"\s", _SP), ("[a-z]", _LO), ("[A-Za-z]", _LT), ("[0-9]", _DG),
                         (f"[{re.escape(_MARKS)}]", _MK), (f"[{_OPEN}]", _OP), ("[.!?…]", _NS),
                         (f"[{_LATIN_STOPS}]", _SC | _ST), (f"[{_CLOSE}]", _SC),
                         (f"[{_CJK_CHARS}]", _CJ)):
        table[[m.start() for m in re.finditer(pattern, bmp)]] |= bit
    for test, bit in ((str.islower, _IL), (str.isdigit, _ID), (str.isalpha, _IA)):
        table[:0x10000][np.fromiter(map(test, bmp), dtype=bool, count=0x10000)] |= bit
    table[_ASTRAL] = _UK
    return table


# What _latin_cut decides for a lone "." after a word of one to three ASCII letters (after a
# space), before a next word (its ``nxt``): a cut, none, or (for an abbreviation and a single
# letter) not before a lower-case word or a digit, and else a cut (a variable: "to π."), a cut
# before anything but a letter (an abbreviation), or what _starts_sentence says (left open).
_W_END, _W_NEVER, _W_VARIABLE, _W_ABBREVIATION, _W_INITIAL = 1, 2, 3, 4, 5


def _short_word_verdict(word: str) -> int:
    """_latin_cut's rules for a word of ASCII letters only."""
    low = word.lower()
    if low in _NEVER:
        return _W_NEVER
    if len(word) == 1:
        return _W_INITIAL if word.isupper() else _W_VARIABLE
    if low in _MAYBE or _consonants_only(word):
        return _W_ABBREVIATION
    return _W_END


_LETTERS = ascii_lowercase + ascii_uppercase  # numbered 0-51 in _word_tables


@lru_cache(maxsize=1)
def _word_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Tables for _word_rules: _PLAIN_TAILS by the ids of three lower-case letters (_tail_id);
    the verdict of every word of one to three letters by _short_word_id; the ids of the
    five-letter ends of listed words; and the number of each ASCII letter."""
    lower = range(26)
    plain = np.array([f"{_LETTERS[a]}{_LETTERS[b]}{_LETTERS[c]}." in _PLAIN_TAILS
                      for a in lower for b in lower for c in lower], dtype=bool)
    verdicts = np.array([_short_word_verdict("".join(w)) for n in (1, 2, 3)
                         for w in product(_LETTERS, repeat=n)], dtype=np.uint8)
    listed5 = sorted({_tail_id(*map(ord, w[-5:])) for w in _NEVER | _MAYBE
                      if len(w) >= 5 and re.fullmatch("[a-z]{5}", w[-5:])})
    numbers = np.zeros(128, dtype=np.int64)
    numbers[[ord(c) for c in _LETTERS]] = np.arange(52)
    return plain, verdicts, np.array(listed5, dtype=np.int64), numbers


def _tail_id(*codes: int) -> int:
    """Id of a run of lower-case letters (code points, the last one varying fastest)."""
    k = 0
    for c in codes:
        k = k * 26 + c - 97
    return k


def scan(text: str, start: int, end: int) -> tuple[list[int], list[int], list[int]]:
    """Starts and ends of the trimmed sentences of [start, end), and the paragraph breaks:
    what _cuts and _trimmed give, the common cases decided by numpy."""
    _check_range(text, start, end)
    table = _char_classes()
    codes = _padded_codes(text, start, end)
    off = start - _PAD  # text offset of a position in codes
    decided = []  # cuts, as positions in codes
    cuts = [start, end]  # cuts decided one at a time, as text offsets
    opened = {}  # the stops left to the plain path, by character
    for c in _VECTOR_STOPS:
        if text.find(c, start, end) >= 0:
            at = np.flatnonzero(codes == ord(c))
            if len(at) >= _FEW:
                at, at_left = _stop_cuts(codes, at, table, c == ".")
                decided.append(at)
                at = at_left
            opened[c] = (at + off).tolist()
    _latin_cuts(text, start, end, _latin_ends(text, start, end, opened), cuts)
    _cjk_cuts(text, start, end, cuts)
    if _has_any(text, "\r\u2028\u2029", start, end):
        breaks = _newline_cuts(text, start, end, cuts)
    else:
        feeds = np.flatnonzero(codes == 10)
        if len(feeds) >= _FEW:
            at, paragraph, left = _line_feed_cuts(codes, feeds, table)
            decided.append(at)
            breaks = (paragraph + off).tolist()
        else:
            breaks, left = [], feeds
        if len(left):
            more: list[int] = []
            for i in (left + off).tolist():
                _line_feed_cut(text, start, _LINE_FEED_NEXT.match(text, i, end), cuts, more)
            breaks = sorted(breaks + more)
    decided.append(np.array(cuts, dtype=np.int64) - off)
    s, e = _trim(text, codes, np.sort(np.concatenate(decided)), table, off)
    return s, e, breaks


def _padded_codes(text: str, start: int, end: int) -> np.ndarray:
    """Code points of text[start:end], _PAD NULs on either side (no bounds checks needed).

    A NUL is of no class, as a position outside the range is for every rule but one: a "." at
    the end of the range (_stop_cuts leaves those open). The array is a view of the encoded
    text (see :func:`~zoomrag.text.codes.code_points`).
    """
    return code_points("\0" * _PAD + text[start:end] + "\0" * _PAD)


def _window(codes: np.ndarray, at: np.ndarray, steps: range) -> list[np.ndarray]:
    """Codes at ``at + step``, one array per step, as int64."""
    return [codes[at + k].astype(np.int64) for k in steps]


def _classes(table: np.ndarray, codes: np.ndarray) -> np.ndarray:
    return table.take(codes, mode="clip")  # every code point above U+FFFF reads the last row


_AHEAD, _BEHIND = np.arange(4), -np.arange(1, 5)  # the characters _trim looks at

#: The stops scan decides where the characters around them do (each in _LATIN_BY_STOP).
_VECTOR_STOPS = ".!?‽．"


def _stop_cuts(codes: np.ndarray, at: np.ndarray, table: np.ndarray,
               dot: bool) -> tuple[np.ndarray, np.ndarray]:
    """Cuts after the stops at ``at`` (positions in codes, one stop character) that the
    characters around them decide, and the stops left open (for _latin_cut).

    Decided: a stop that starts no match (a character other than whitespace, a closing quote, a
    stop or CJK follows: "3.5", "e.g"); and a lone stop whose next word starts after up to
    three whitespace characters and opening quotes with anything but a stop (_latin_cut's
    ``nxt``), or is a CJK character right after it. A lone "!", "?", "‽" or "．" ends a sentence
    unless that character is lower case; a lone "." as _word_rules says. Each decided stop is a
    match of one character that no other match overlaps (a "." is never inside a longer match
    after the words _word_rules decides, and a "!" or "?" is decided only after a character
    that is no stop): see _matches_at. A stop near the end of the range is left open (the NULs
    past it are no text).
    """
    near = at >= len(codes) - _PAD - 4
    may = near | ((_classes(table, codes[at + 1]) & (_SP | _CJ | _SC)) != 0)  # others start no match
    at, near = at[may], near[may]
    after = _classes(table, codes[at[:, None] + _AFTER])  # one row per stop: a1 to a4
    w = _packed(after)
    a1, a2, a3, a4 = after.T
    word = _SP | _OP | _NS  # the bits of no character that starts a word
    # \s+[OPEN]*(\S): the next word, when it starts within four characters (an opening quote
    # followed by whitespace would be the next character itself, as would a stop: left open).
    word_at2 = _has(w, (_SP, 0), (_SP, word))
    word_at3 = _has(w, (_SP, _SP, 0), (_SP, word, word)) | _has(w, (_SP, _OP, 0), (_SP, word, word))
    word_at4 = (_has(w, (_SP, _SP, _SP, 0), (_SP, word, word, word))
                | _has(w, (_SP, _SP, _OP, 0), (_SP, word, word, word))
                | _has(w, (_SP, _OP, _OP, 0), (_SP, word, word, word)))
    cjk = _has(w, (_CJ,), (_CJ | _SC,))
    lone = (word_at2 | word_at3 | word_at4 | cjk) & ~near
    nxt = np.where(cjk, a1, np.where(word_at2, a2, np.where(word_at3, a3, a4)))
    if dot:
        cand = at[lone]
        cut, no_cut = _word_rules(codes, cand, table, nxt[lone])
        spaced = codes[cand - 1] == 32  # tokenised text: the word before " ." decides
        if spaced.any():
            cut2, no_cut2 = _word_rules(codes, cand - 1, table, nxt[lone])
            cut |= spaced & cut2
            no_cut |= spaced & no_cut2
        left = ~lone
        left[np.flatnonzero(lone)[~(cut | no_cut)]] = True
        return cand[cut] + 1, at[left]
    lone &= (_classes(table, codes[at - 1]) & _ST) == 0  # no longer match may hold the stop
    return at[lone & ((nxt & _IL) == 0)] + 1, at[~lone]


def _word_rules(codes: np.ndarray, ends: np.ndarray, table: np.ndarray,
                nxt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For a lone "." after the words that end at ``ends`` (positions in codes) and before a
    next word whose first character has the classes ``nxt``: where _latin_cut's rules make a
    cut whatever the word is beyond what is read here, and where they make none.

    A cut after three lower-case letters of _PLAIN_TAILS, five lower-case letters that end no
    listed word, four digits, or a mark of _MARKS; after a word of one to three letters (after a
    space), its verdict (see _W_END).
    """
    plain, verdicts, listed5, numbers = _word_tables()
    c = codes[ends[:, None] + _BEFORE].astype(np.int64)  # one row per word: c1 (last) to c5
    before = _classes(table, c)
    b = _packed(before[:, :4])
    lower3 = _has(b, (_LO, _LO, _LO), (_LO, _LO, _LO))
    tail3 = np.where(lower3, c[:, :3] @ _TAIL3 - _TAIL3_A, 0)
    cut = lower3 & plain[tail3] | _has(b, (_DG,) * 4, (_DG,) * 4) | ((b & _MK) != 0)
    lower5 = lower3 & _has(b, (0, 0, 0, _LO), (0, 0, 0, _LO)) & ((before[:, 4] & _LO) != 0)
    if lower5.any():
        tail5 = c @ _TAIL5 - _TAIL5_A
        cut |= lower5 & (listed5[np.searchsorted(listed5, tail5).clip(max=len(listed5) - 1)] != tail5)
    # Words of one to three letters after a space.
    one = _has(b, (_LT,), (_LT,)) & (c[:, 1] == 32)
    two = _has(b, (_LT, _LT), (_LT, _LT)) & (c[:, 2] == 32)
    three = _has(b, (_LT, _LT, _LT), (_LT, _LT, _LT)) & (c[:, 3] == 32)
    short = one | two | three
    n = numbers[c[:, :3] & 127]  # the letters' numbers (the rest is not read)
    word = np.where(one, n[:, 0], np.where(two, 52 + n[:, :2] @ _WORD2, 52 + 52 ** 2 + n @ _WORD3))
    verdict = np.where(short, verdicts[np.where(short, word, 0)], 0)
    known = (nxt & _UK) == 0
    lower = known & ((nxt & (_IL | _ID)) != 0)  # a lower-case word or a digit
    other = known & ((nxt & (_IL | _ID | _IA)) == 0)  # no letter, no digit
    asks = (verdict == _W_VARIABLE) | (verdict == _W_ABBREVIATION) | (verdict == _W_INITIAL)
    cut |= ((verdict == _W_END) | (verdict == _W_VARIABLE) & known & ~lower
            | (verdict == _W_ABBREVIATION) & other)
    return cut, (verdict == _W_NEVER) | asks & lower


# Steps from a position to the characters a rule reads, and weights of letter codes in ids.
_AFTER = np.arange(1, 5)
_BEFORE = -np.arange(1, 6)
_TAIL3 = np.array([1, 26, 26 ** 2])  # _tail_id of c3 c2 c1
_TAIL3_A = 97 * int(_TAIL3.sum())
_TAIL5 = np.array([1, 26, 26 ** 2, 26 ** 3, 26 ** 4])
_TAIL5_A = 97 * int(_TAIL5.sum())
_WORD2 = np.array([1, 52])
_WORD3 = np.array([1, 52, 52 ** 2])


def _packed(classes: np.ndarray) -> np.ndarray:
    """The class rows of up to four characters (uint16 each) as one integer per row, the first
    character in the low bits: several characters tested with one mask (_has)."""
    rows = np.zeros((len(classes), 4), dtype=np.uint16)
    rows[:, :classes.shape[1]] = classes
    return rows.view(np.uint64)[:, 0]


def _has(packed: np.ndarray, bits: tuple[int, ...], mask: tuple[int, ...]) -> np.ndarray:
    """Rows whose k-th character has, of the bits ``mask[k]``, exactly ``bits[k]``."""
    m = sum(b << (16 * k) for k, b in enumerate(mask))
    v = sum(b << (16 * k) for k, b in enumerate(bits))
    return (packed & m) == v


def _line_feed_cuts(codes: np.ndarray, feeds: np.ndarray,
                    table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """_newline_kind for the "\n" at ``feeds`` (positions in codes; no other line break in the
    range) where the next three characters decide: the cuts, the paragraph breaks among them,
    and the line feeds left open. (Past the range, NULs read as a visible character that is not
    lower case: a cut, as the end of the range is.)"""
    c1, c2, c3 = _window(codes, feeds, range(1, 4))
    t1, t2, t3 = (_classes(table, c) for c in (c1, c2, c3))
    flat1, flat2, flat3 = (((t & _SP) != 0) & (c != 10) for t, c in ((t1, c1), (t2, c2), (t3, c3)))
    blank = (c1 == 10) | flat1 & ((c2 == 10) | flat2 & (c3 == 10))
    first = np.where(flat1, np.where(flat2, t3, t2), t1)  # the next line's first character
    unseen = flat1 & flat2 & flat3
    shown = ~(blank | unseen)
    lower = shown & ((first & _IL) != 0)
    left = unseen | shown & ((first & _UK) != 0)
    cut = ~(lower | left)
    if lower.any():  # a table row ("|" in the line) ends a sentence even before lower case
        pipes = np.flatnonzero(codes == 124)
        if len(pipes):
            before = np.empty_like(feeds)
            before[0] = 0
            before[1:] = feeds[:-1]
            cut |= lower & (np.searchsorted(pipes, feeds) > np.searchsorted(pipes, before))
    return feeds[cut], feeds[blank], feeds[left]


def _trim(text: str, codes: np.ndarray, cuts: np.ndarray, table: np.ndarray,
          off: int) -> tuple[list[int], list[int]]:
    """_trimmed for sorted ``cuts`` (positions in codes): the trimmed starts and ends (text
    offsets) of the pieces between them that hold more than whitespace.

    A piece [a, b) starts at the first non-space at or after a and ends after the last one
    before b; looked for up to four characters away (a piece that is all whitespace, or empty
    between equal cuts, finds them outside itself, the start at or after b, and is dropped).
    """
    if len(cuts) < _FEW:
        spans = _trimmed(text, (cuts + off).tolist())
        return list(map(itemgetter(0), spans)), list(map(itemgetter(1), spans))
    a, b = cuts[:-1], cuts[1:]
    ahead = (_classes(table, codes[a[:, None] + _AHEAD]) & _SP) == 0  # one row per piece
    behind = (_classes(table, codes[b[:, None] + _BEHIND]) & _SP) == 0
    starts = a + ahead.argmax(axis=1)
    ends = b - behind.argmax(axis=1)
    for i in np.flatnonzero(~ahead.any(axis=1)).tolist():  # more whitespace: one at a time
        p = int(a[i]) + off
        while p < len(text) and text[p] in _SPACES:
            p += 1
        starts[i] = p - off
    for i in np.flatnonzero(~behind.any(axis=1)).tolist():
        p = int(b[i]) + off
        while p > 0 and text[p - 1] in _SPACES:
            p -= 1
        ends[i] = p - off
    keep = starts < ends
    return (starts[keep] + off).tolist(), (ends[keep] + off).tolist()

"""What the full-text index sees: words as they are, CJK text as single characters.

``unicode61`` keeps a run of Chinese characters as one token, so a question could only
match a passage that contains its exact run. Each CJK character is indexed as a term of its
own, and the query side searches each pair of adjacent characters as a unit that holds both
(``"a" AND "b"``): the index keeps no positions (``detail=none``, :mod:`.schema`), so a
two-character phrase cannot be asked for: the units found are then re-scored from their text,
where a pair counts only as adjacent characters (:func:`frequencies`). Measured on
cmrc2018_trial (1,002 questions, ``bench/fts_cjk.py``): hit@3 0.907 against 0.901 for bigram
phrases over the positional index (0.879 without the re-scoring), with a full-text index of
0.36x the text instead of 0.90x (docs/benchmarks.md). Index and query sides share the
tokenizing here, so they always agree.

The FTS table is contentless: deleting a row means replaying exactly the body that was
inserted, so :data:`FTS_VERSION` is pinned in the index and a change here forces a rebuild.

Every body starts with :data:`ROW_TERM`, which no text yields (:func:`terms` never returns a
private-use character), so the units that hold it count the table's rows (``zoomrag check``):
about a byte per row, where FTS5's own row sizes (``columnsize``) cost ten.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

FTS_VERSION = "cjk-unigram-none-1"
#: A term in every row: U+E000, a private-use character (a token character to FTS5's unicode61).
ROW_TERM = "\ue000"

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
# Words are runs of letters and digits: unicode61 splits at "_" (punctuation to it), so a term
# holding one would be a phrase to FTS5, which an index without positions refuses. (Bodies of
# older indexes held "x_y" where they now hold "x y": the same tokens to FTS5.)
_RUN = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+", re.UNICODE)
_IS_CJK = re.compile(rf"[{_CJK}]")


def terms(text: str) -> list[str]:
    """Index terms in order: lower-cased words, and single CJK characters."""
    out: list[str] = []
    for m in _RUN.finditer(text.lower()):
        run = m.group()
        if _IS_CJK.match(run):
            out.extend(run)
        else:
            out.append(run)
    return out


def query_terms(text: str) -> list[str]:
    """Query terms in order: lower-cased words, and CJK character bigrams.

    A CJK run of one character stays a one-character term. Use :func:`expression` to search
    for a term.
    """
    out: list[str] = []
    for m in _RUN.finditer(text.lower()):
        run = m.group()
        if _IS_CJK.match(run) and len(run) > 1:
            out.extend(run[i:i + 2] for i in range(len(run) - 1))
        else:
            out.append(run)
    return out


def frequencies(text: str, query: Iterable[str]) -> dict[str, int]:
    """How often each term of :func:`query_terms` occurs in ``text`` (absent terms left out): a
    word as a whole word, a CJK character or pair as it stands in the text (a pair: the two
    characters next to each other)."""
    lower = text.lower()
    words: Counter[str] | None = None
    out: dict[str, int] = {}
    for t in query:
        if is_cjk(t):
            n = lower.count(t)
        else:
            if words is None:
                words = Counter(_RUN.findall(lower))
            n = words[t]
        if n:
            out[t] = n
    return out


def body(text: str) -> str:
    """The string inserted into the FTS table for one unit: :data:`ROW_TERM`, then its terms."""
    return " ".join([ROW_TERM, *terms(text)])


def is_cjk(term: str) -> bool:
    return bool(_IS_CJK.match(term))


def is_phrase(term: str) -> bool:
    """A query term made of several index terms (a CJK bigram)."""
    return len(term) > 1 and is_cjk(term)


def expression(term: str) -> str:
    """The FTS5 query for one term of :func:`query_terms`: a quoted string, never syntax.

    Inside an FTS5 string, ``"`` is doubled; a CJK bigram becomes its two characters ANDed
    (the index has no positions for a phrase).
    """
    if is_phrase(term):
        return "(" + " AND ".join(f'"{ch}"' for ch in term) + ")"
    return '"' + term.replace('"', '""') + '"'

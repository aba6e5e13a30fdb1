"""What the full-text index sees: words as they are, CJK text as single characters.

``unicode61`` keeps a run of Chinese characters as one token, so a question could only
match a passage that contains its exact run. Each CJK character is indexed as a term of its
own, and the query side searches each pair of adjacent characters as a two-character FTS5
phrase, which scores like an index of character bigrams (the classic CJK analyzer) at about
half its size: measured on cmrc2018_trial, the same hit@3 (0.901 against 0.904 over 1,002
questions) with a full-text index of 0.91x the text instead of 1.60x (docs/benchmarks.md).
Index and query sides share the tokenizing here, so they always agree.

The FTS table is contentless: deleting a row means replaying exactly the body that was
inserted, so :data:`FTS_VERSION` is pinned in the index and a change here forces a rebuild.
"""

from __future__ import annotations

import re

FTS_VERSION = "cjk-unigram-1"

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_RUN = re.compile(rf"[{_CJK}]+|[^\W{_CJK}]+", re.UNICODE)
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


def body(text: str) -> str:
    """The string inserted into the FTS table for one unit."""
    return " ".join(terms(text))


def is_cjk(term: str) -> bool:
    return bool(_IS_CJK.match(term))


def is_phrase(term: str) -> bool:
    """A query term that is searched as a phrase of index terms (a CJK bigram)."""
    return len(term) > 1 and is_cjk(term)


def expression(term: str) -> str:
    """The FTS5 query for one term of :func:`query_terms`: a quoted string, never syntax.

    Inside an FTS5 string, ``"`` is doubled; a CJK bigram becomes the phrase of its two
    characters (the tokenizer splits the string into the two index terms).
    """
    text = " ".join(term) if is_phrase(term) else term
    return '"' + text.replace('"', '""') + '"'

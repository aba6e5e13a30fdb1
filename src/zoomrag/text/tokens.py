"""Length functions: how big a span is, in characters or tokens.

Sizes are counted once per document: a counter returns the start offset of every token, and a
:class:`Measure` answers "how many tokens in [s, e)" and "where do n tokens from s end" by
binary search. Chunkers never re-tokenize text they have already measured.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Protocol, runtime_checkable

from ..errors import ConfigError


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


# CJK ideographs, kana, hangul and full-width forms: each character is a token, as in BERT.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
_APPROX = re.compile(rf"[{_CJK}]|[^\W{_CJK}]{{1,6}}|[^\w\s]", re.UNICODE)


class ApproxCounter:
    """Word-piece approximation without a tokenizer.

    Each CJK character and each punctuation mark is one token; a word is one token per six
    characters (so a long or rare word costs more, as it does in WordPiece). Measured against
    the MiniLM tokenizer in docs/strategies.md.
    """

    name = "approx"

    def token_starts(self, text: str) -> Sequence[int]:
        return [m.start() for m in _APPROX.finditer(text)]


class Measure:
    """Token positions of one text, for O(log n) size queries over its spans."""

    __slots__ = ("text", "starts", "_chars")

    def __init__(self, text: str, counter: TokenCounter):
        self.text = text
        self._chars = isinstance(counter, CharCounter)
        self.starts: Sequence[int] = counter.token_starts(text)

    @property
    def total(self) -> int:
        return len(self.starts)

    def index(self, offset: int) -> int:
        """Number of tokens that start before ``offset``."""
        if self._chars:
            return max(0, min(offset, len(self.text)))
        return bisect_left(self.starts, offset)

    def size(self, start: int, end: int) -> int:
        """Tokens that start inside [start, end)."""
        return self.index(end) - self.index(start)

    def offset_after(self, start: int, n: int) -> int:
        """Offset where the n-th token counted from ``start`` ends (the next token's start)."""
        k = self.index(start) + n
        return self.starts[k] if k < len(self.starts) else len(self.text)


_COUNTERS: dict[str, Callable[[], TokenCounter]] = {"chars": CharCounter, "approx": ApproxCounter}


def register_counter(name: str, factory: Callable[[], TokenCounter]) -> None:
    """Make a counter selectable by name (``unit="tokens"`` uses :func:`default_counter`).

    ``factory`` is called with no arguments (a class or a function); it may raise
    :class:`ConfigError` when what it needs is not installed.
    """
    _COUNTERS[name] = factory


def counter_names() -> list[str]:
    """Every unit name :func:`get_counter` accepts."""
    _load_builtin()
    return ["tokens", *sorted(_COUNTERS)]


def _load_builtin() -> None:
    # The built-in tokenizers register themselves on import; lazy to avoid an import cycle.
    from . import wordpiece  # noqa: F401


@lru_cache(maxsize=None)
def get_counter(name: str) -> TokenCounter:
    """A counter by name: ``chars``, ``approx``, or a registered tokenizer such as ``minilm``."""
    if name == "tokens":
        return default_counter()
    _load_builtin()
    factory = _COUNTERS.get(name)
    if factory is None:
        raise ConfigError(
            f"unknown length unit {name!r}; choose one of: tokens, {', '.join(sorted(_COUNTERS))}"
        )
    return factory()


@lru_cache(maxsize=1)
def default_counter() -> TokenCounter:
    """The default embedder's tokenizer when it is installed, else :class:`ApproxCounter`."""
    try:
        from .wordpiece import minilm_counter
    except ImportError:
        return ApproxCounter()
    counter = minilm_counter()
    return ApproxCounter() if counter is None else counter

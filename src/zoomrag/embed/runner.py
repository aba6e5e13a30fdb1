"""Embedding many texts fast: cache, dedupe, sort by length, batch.

Padding is the hidden cost of batching: a batch runs at the length of its longest text. Sorting
by the embedder's own token count first makes each batch nearly uniform (measured in
docs/benchmarks.md). Texts seen before (in this call or in the cache) are never sent to the
model again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from .base import Embedder
from .batching import length_batches
from .cache import EmbeddingCache, cache_key

#: ``on_progress(done, total)`` after each batch, in texts (cached and duplicate texts count as done).
Progress = Callable[[int, int], None]


@dataclass
class EmbedStats:
    """Counts since the runner was made: what was asked, what the model actually saw."""

    texts: int = 0
    unique: int = 0
    cache_hits: int = 0
    embedded: int = 0
    batches: int = 0


class EmbedRunner:
    """Embeds documents through an embedder with a cache, deduplication and sorted batches.

    A batch holds at most ``batch_size`` texts and, when ``batch_tokens`` is set, at most that
    many padded tokens (texts x the longest one's tokens).
    """

    def __init__(self, embedder: Embedder, cache: EmbeddingCache | None = None, batch_size: int = 32,
                 batch_tokens: int | None = None):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"embed runner: batch_size={batch_size!r} is out of range; use at least 1")
        if batch_tokens is not None and (isinstance(batch_tokens, bool) or not isinstance(batch_tokens, int)
                                         or batch_tokens < 1):
            raise ConfigError(
                f"embed runner: batch_tokens={batch_tokens!r} is out of range; use at least 1 or None")
        self.embedder = embedder
        self.cache = cache
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self.stats = EmbedStats()

    def embed(self, texts: Sequence[str], on_progress: Progress | None = None) -> np.ndarray:
        """``(len(texts), dimension)`` float32 unit rows, in the order of ``texts``."""
        texts = list(texts)
        self.stats.texts += len(texts)
        # Dedupe: the first occurrence of each distinct text is the one that gets embedded.
        slot: dict[str, int] = {}
        where = [slot.setdefault(t, len(slot)) for t in texts]
        unique = list(slot)
        self.stats.unique += len(unique)
        vectors: list[np.ndarray | None] = [None] * len(unique)

        keys: list[str] = []
        if self.cache is not None:
            keys = [cache_key(self.embedder, t) for t in unique]
            found = self.cache.get_many(keys)
            for i, k in enumerate(keys):
                v = found.get(k)
                if v is not None:
                    vectors[i] = v
            self.stats.cache_hits += len(found)
        todo = [i for i, v in enumerate(vectors) if v is None]
        copies = Counter(where)  # progress counts texts, and a unique text stands for its copies
        done = len(texts) - sum(copies[i] for i in todo)
        if on_progress is not None:
            on_progress(done, len(texts))

        # Exact token counts order the batches; characters break ties (batching is stable).
        todo.sort(key=lambda i: len(unique[i]))
        lengths = [self.embedder.count_tokens(unique[i]) for i in todo]
        for plan in length_batches(lengths, self.batch_size, self.batch_tokens):
            batch = [todo[j] for j in plan]
            out = self.embedder.embed_documents([unique[i] for i in batch])
            self.stats.batches += 1
            self.stats.embedded += len(batch)
            for i, v in zip(batch, out):
                vectors[i] = v
            if self.cache is not None:
                self.cache.put_many({keys[i]: out[j] for j, i in enumerate(batch)})
            done += sum(copies[i] for i in batch)
            if on_progress is not None:
                on_progress(done, len(texts))

        dim = self.embedder.dimension
        if not texts:
            return np.zeros((0, dim), dtype=np.float32)
        table = np.stack(vectors).astype(np.float32, copy=False)  # type: ignore[arg-type]
        return table[np.asarray(where)]

"""``hash``: a deterministic feature-hashing embedder, FOR TESTS ONLY.

Word unigrams and bigrams, character trigrams of each word, and CJK character unigrams and
bigrams are hashed (blake2b, so the result does not depend on ``PYTHONHASHSEED``) into signed
buckets with ``log(1 + count)`` weights, then normalised. Texts that share words get similar
vectors, which is enough to exercise indexing, caching and semantic chunking offline and in
microseconds. It knows nothing of meaning: never use it for real retrieval.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from .base import checked_vectors, l2_normalize

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_WORD = re.compile(rf"[{_CJK}]+|[^\W{_CJK}]+", re.UNICODE)
_IS_CJK = re.compile(rf"[{_CJK}]")
# Its own fixed token count (a word, a CJK character or a punctuation mark is one token), so
# tests that check exact guard numbers do not move when the approximate counter is re-tuned.
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+|[^\w\s]", re.UNICODE)


def features(text: str) -> Counter[str]:
    """The hashed features of one text (exposed for tests and for explaining a score)."""
    feats: Counter[str] = Counter()
    words: list[str] = []
    for m in _WORD.finditer(text.lower()):
        w = m.group()
        if _IS_CJK.match(w):
            feats.update("c:" + ch for ch in w)
            feats.update("cc:" + w[i:i + 2] for i in range(len(w) - 1))
            words.extend(w)
            continue
        words.append(w)
        feats["w:" + w] += 1
        padded = f"<{w}>"
        feats.update("g:" + padded[i:i + 3] for i in range(max(1, len(padded) - 2)))
    feats.update(f"b:{a} {b}" for a, b in zip(words, words[1:]))
    return feats


class HashEmbedder:
    """Feature hashing into ``dimension`` buckets; cheap, offline, deterministic. Tests only."""

    name = "hash"
    multilingual = True

    def __init__(self, dimension: int = 256, max_tokens: int = 512):
        if dimension < 8:
            raise ValueError(f"hash embedder: dimension={dimension} is too small; use at least 8")
        self.dimension = int(dimension)
        self.max_tokens = int(max_tokens)
        self.version = f"hash-v1-d{self.dimension}"

    def _vector(self, text: str) -> np.ndarray:
        v = np.zeros(self.dimension, dtype=np.float32)
        feats = features(text) or Counter({"empty": 1})  # a featureless text still gets a unit vector
        for feat, count in feats.items():
            h = int.from_bytes(hashlib.blake2b(feat.encode("utf-8"), digest_size=8).digest(), "little")
            sign = 1.0 if h & 1 else -1.0
            v[(h >> 1) % self.dimension] += sign * np.log1p(count)
        if not v.any():  # features cancelled out exactly; fall back to the empty-text vector
            v[0] = 1.0
        return v

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        rows = [self._vector(t) for t in texts]
        out = np.stack(rows) if rows else np.zeros((0, self.dimension), dtype=np.float32)
        return checked_vectors(self.name, out, len(rows), self.dimension)

    def embed_query(self, text: str) -> np.ndarray:
        return l2_normalize(self._vector(text))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_documents(texts)

    def count_tokens(self, text: str) -> int:
        """Words, CJK characters and punctuation marks, one token each (no special tokens)."""
        return sum(1 for _ in _TOKEN.finditer(text))

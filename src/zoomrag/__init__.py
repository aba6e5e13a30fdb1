"""zoomrag: match small, return large — multi-scale retrieval over exact spans.

The public names are imported on first use (PEP 562), so that ``import zoomrag`` and the CLI
asking a running server load neither numpy nor SQLite nor any model code.
"""

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
    from .embed import get_embedder
    from .embed.base import Embedder
    from .errors import (
        BinaryFileError,
        ClusterError,
        ConfigError,
        DecodeError,
        EmbedError,
        EvalError,
        IndexLockedError,
        IndexMismatchError,
        InputError,
        RerankError,
        SpanError,
        StoreError,
        ZoomragError,
    )
    from .expand import Expander, get_expander
    from .index import AddReport, CheckReport, Index, IndexStats
    from .load import load_path, read_text
    from .load.web import CrawlOptions
    from .model import Block, Context, Document, Hit, Node, Tree
    from .parse import Chunker, Span, make_chunker, strategy_names
    from .rerank import HTTPReranker, Reranker
    from .text.tokens import TokenCounter, get_counter

__version__ = "0.1.0"

__all__ = [
    "AddReport",
    "BinaryFileError",
    "Block",
    "CheckReport",
    "Chunker",
    "ClusterError",
    "ConfigError",
    "Context",
    "CrawlOptions",
    "DecodeError",
    "Document",
    "EmbedError",
    "Embedder",
    "EvalError",
    "Expander",
    "HTTPReranker",
    "Hit",
    "Index",
    "IndexLockedError",
    "IndexMismatchError",
    "IndexStats",
    "InputError",
    "Node",
    "RerankError",
    "Reranker",
    "Span",
    "SpanError",
    "StoreError",
    "TokenCounter",
    "Tree",
    "ZoomragError",
    "__version__",
    "get_counter",
    "get_embedder",
    "get_expander",
    "load_path",
    "make_chunker",
    "read_text",
    "strategy_names",
]

#: Where each public name lives (imported by :func:`__getattr__` on first use).
_HOMES = {
    ".embed": ("get_embedder",),
    ".embed.base": ("Embedder",),
    ".errors": ("BinaryFileError", "ClusterError", "ConfigError", "DecodeError", "EmbedError", "EvalError",
                "IndexLockedError", "IndexMismatchError", "InputError", "RerankError", "SpanError", "StoreError",
                "ZoomragError"),
    ".expand": ("Expander", "get_expander"),
    ".index": ("AddReport", "CheckReport", "Index", "IndexStats"),
    ".load": ("load_path", "read_text"),
    ".load.web": ("CrawlOptions",),
    ".model": ("Block", "Context", "Document", "Hit", "Node", "Tree"),
    ".parse": ("Chunker", "Span", "make_chunker", "strategy_names"),
    ".rerank": ("HTTPReranker", "Reranker"),
    ".text.tokens": ("TokenCounter", "get_counter"),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> _typing.Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'zoomrag' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module, __name__), name)
    globals()[name] = value  # the next access is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME})

"""zoomrag: match small, return large — multi-scale retrieval over exact spans."""

from .errors import (
    BinaryFileError,
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
from .index import Index
from .load import load_path, read_text
from .model import Block, Context, Document, Hit, Node, Tree
from .parse import Chunker, Span, make_chunker, strategy_names
from .rerank import HTTPReranker, Reranker

__version__ = "0.1.0"

__all__ = [
    "BinaryFileError",
    "Block",
    "Chunker",
    "ConfigError",
    "Context",
    "DecodeError",
    "Document",
    "EmbedError",
    "EvalError",
    "HTTPReranker",
    "Hit",
    "Index",
    "IndexLockedError",
    "IndexMismatchError",
    "InputError",
    "Node",
    "RerankError",
    "Reranker",
    "Span",
    "SpanError",
    "StoreError",
    "Tree",
    "ZoomragError",
    "__version__",
    "load_path",
    "make_chunker",
    "read_text",
    "strategy_names",
]

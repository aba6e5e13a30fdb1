"""zoomrag: match small, return large — multi-scale retrieval over exact spans."""

from .embed import get_embedder
from .embed.base import Embedder
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
from .expand import Expander, get_expander
from .index import AddReport, CheckReport, Index, IndexStats
from .load import load_path, read_text
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
    "ConfigError",
    "Context",
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

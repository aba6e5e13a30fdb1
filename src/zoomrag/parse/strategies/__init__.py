"""Built-in strategies, listed in :data:`BUILTIN` (the strategy registry reads it on first use)."""

from ..base import Chunker
from ..router import Router  # the strategy "auto"; it lives beside the profiles it reads
from .code import CodeChunker
from .fixed import FixedSize
from .hierarchical import Hierarchical
from .markdown import MarkdownChunker
from .none import WholeDocument
from .parent_child import ParentChild
from .recursive import Recursive
from .semantic import SemanticChunker
from .sentences import SentenceChunks
from .table import TableChunker
from .window import SentenceWindow

BUILTIN: tuple[type[Chunker], ...] = (
    Router, CodeChunker, FixedSize, Hierarchical, MarkdownChunker, WholeDocument, ParentChild,
    Recursive, SemanticChunker, SentenceChunks, TableChunker, SentenceWindow,
)

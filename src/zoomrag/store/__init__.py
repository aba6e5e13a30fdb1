"""Storage behind one protocol (:class:`Store`): the SQLite index file (the default) or a
PostgreSQL server with pgvector; documents, span nodes, vectors, full text and pins."""

from .base import Store, VectorSearchStore, WriteLock
from .cache import StoreVectorCache, to_blob, vector_key
from .location import is_server, open_store
from .lock import WriterLock
from .meta import Pins
from .rows import DocumentRow, Reading, UnitRow, UnitToWrite
from .schema import SCHEMA_VERSION
from .sqlite import SqliteStore
from .trees import unit_text

__all__ = [
    "SCHEMA_VERSION",
    "DocumentRow",
    "Pins",
    "Reading",
    "SqliteStore",
    "Store",
    "StoreVectorCache",
    "UnitRow",
    "UnitToWrite",
    "VectorSearchStore",
    "WriteLock",
    "WriterLock",
    "is_server",
    "open_store",
    "to_blob",
    "unit_text",
    "vector_key",
]

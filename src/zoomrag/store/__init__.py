"""Storage: the SQLite index file (documents, span nodes, vectors, FTS) and its pins."""

from .cache import StoreVectorCache, to_blob, vector_key
from .lock import WriterLock
from .meta import Pins
from .schema import SCHEMA_VERSION
from .sqlite import DocumentRow, SqliteStore, UnitRow, UnitToWrite, unit_text

__all__ = [
    "SCHEMA_VERSION",
    "DocumentRow",
    "Pins",
    "SqliteStore",
    "StoreVectorCache",
    "UnitRow",
    "UnitToWrite",
    "WriterLock",
    "to_blob",
    "unit_text",
    "vector_key",
]

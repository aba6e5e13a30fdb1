"""Which store a location names: a file path (SQLite), or a server URL (``postgresql://``, or
``milvus://`` for vectors in Milvus beside an index file)."""

from __future__ import annotations

from pathlib import Path

from ..defaults import SERVER_SCHEMES, is_server
from .base import Store

__all__ = ["SERVER_SCHEMES", "is_server", "open_store", "shown"]


def shown(location: str | Path) -> str:
    """``location`` as messages show it: a server URL without its password."""
    if isinstance(location, str) and location.startswith("milvus://"):
        from .milvus import MilvusLocation

        return MilvusLocation.parse(location).url()
    if is_server(location):
        from .postgres import public_url

        return public_url(str(location))
    return str(location)


def open_store(location: str | Path, *, create: bool = True, timeout: float = 5.0) -> Store:
    """The store at ``location``: :class:`~.postgres.PostgresStore` for a ``postgresql://`` URL
    (the ``postgres`` extra), :class:`~.milvus.MilvusStore` for a ``milvus://`` URL (the ``milvus``
    extra), else the index file."""
    if isinstance(location, str) and location.startswith("milvus://"):
        from .milvus import MilvusStore

        return MilvusStore(location, create=create, timeout=timeout)
    if is_server(location):
        from .postgres import PostgresStore

        return PostgresStore(str(location), create=create, timeout=timeout)
    from .sqlite import SqliteStore

    return SqliteStore(Path(location), create=create, timeout=timeout)

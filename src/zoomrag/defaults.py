"""Names and defaults that the library, the CLI and the server share, importable without them
(``zoomrag query`` asking a running server needs these and no index code)."""

from __future__ import annotations

from pathlib import Path

#: Where the CLI keeps its index, relative to the working directory.
DEFAULT_PATH = Path(".zoomrag") / "index.db"
#: Units from which dense search uses an ANN index (search/ann.py; the PostgreSQL store's HNSW).
ANN_THRESHOLD = 100_000
#: How units are ranked: dense vectors, BM25, or both fused.
MODES = ("dense", "bm25", "hybrid")

#: URL schemes of the server stores (anything else names an index file).
SERVER_SCHEMES = ("postgresql://", "postgres://", "milvus://")


def is_server(location: object) -> bool:
    """Whether ``location`` is a server store's URL rather than a file path."""
    return isinstance(location, str) and location.startswith(SERVER_SCHEMES)

"""Pages read by OCR (Tesseract's TSV of each), kept so that indexing a folder again does not read them again.

``zoomrag index`` reads every file of a folder on every run and compares its text with the
stored one; a scanned page costs Tesseract seconds, a text layer milliseconds. So each page's
text is kept in one SQLite file, ``ocr.sqlite`` in ``ZOOMRAG_CACHE_DIR`` (default
``$XDG_CACHE_HOME/zoomrag``, else ``~/.cache/zoomrag``), under the file's SHA-256 and the
engine's version and languages: a changed file, Tesseract or language is read again. Each page
is written when it is read, so an interrupted run keeps what it did. A cache that cannot be
opened or written only costs time: the pages are read again.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

_SCHEMA = "CREATE TABLE IF NOT EXISTS pages (file TEXT, page INTEGER, text TEXT, PRIMARY KEY (file, page))"


def cache_dir() -> Path:
    """Where zoomrag keeps what it can compute again."""
    given = os.environ.get("ZOOMRAG_CACHE_DIR")
    if given:
        return Path(given)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "zoomrag"


def file_key(path: Path, settings: str) -> str:
    """The file's content hash with the settings its pages were read with."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return f"{digest.hexdigest()}|{settings}"


class OcrCache:
    """What OCR read of pages before, by file key and page number (from 1)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or cache_dir() / "ocr.sqlite"
        self._db: sqlite3.Connection | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
            db.execute(_SCHEMA)
            db.commit()
            self._db = db
        except (OSError, sqlite3.Error):
            self._db = None  # no cache: the pages are read again next time

    def pages(self, key: str) -> dict[int, str]:
        if self._db is None:
            return {}
        try:
            rows = self._db.execute("SELECT page, text FROM pages WHERE file = ?", (key,)).fetchall()
        except sqlite3.Error:
            return {}
        return {int(page): str(text) for page, text in rows}

    def put(self, key: str, page: int, text: str) -> None:
        if self._db is None:
            return
        try:
            with self._db:
                self._db.execute("INSERT OR REPLACE INTO pages VALUES (?, ?, ?)", (key, page, text))
        except sqlite3.Error:
            pass  # a full disk or a read-only cache costs a second reading, not this one

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

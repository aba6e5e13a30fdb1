"""Shared by the server, MCP and adapter tests: a tiny hash-embedded index and a real server.

The server is ``zoomrag serve`` in a child process on 127.0.0.1 with an ephemeral port, found
through the ``<index>.serve.json`` file it writes, as ``zoomrag query`` finds it.
"""

from __future__ import annotations

import os
import re
import selectors
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from zoomrag.index import Index
from zoomrag.model import Document
from zoomrag.serve.client import stop_server, wait_for_server

DOCS = {
    "guide.md": "# Install\n\nRun the installer twice.\n\n## Options\n\nThe fast option skips the checks.\n"
                "The safe option verifies every file.\n\n# Storage\n\nSQLite keeps the whole index in one "
                "file.\nBackups copy that single file.\n",
    "fruit.txt": "Apples are red.\n\nBananas are yellow and curved.\n\nCherries are small and dark red.\n",
    "evil.md": "# Evil\n\nThis note has <script>window.pwned = 1</script> and <b>bold</b> tags.\n\n"
               "<img src=x onerror=\"window.pwned = 2\"> Tomatoes are red fruit too.\n",
}
STARTUP_SECONDS = 60.0
#: Small levels, so that each tiny document still has sections, chunks and sentence-sized units.
SPLIT = {"sizes": (200, 50), "unit": "chars"}


def build_index(root: Path, docs: Mapping[str, str] = DOCS) -> Path:
    """Write ``docs`` under ``root/docs`` and index them with the hash embedder."""
    folder = root / "docs"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in docs.items():
        (folder / name).write_text(text, encoding="utf-8")
    path = root / "index.db"
    with Index.open(path, embedder="hash", strategy="hierarchical", params=SPLIT) as ix:
        ix.add([folder])
    return path


def add_text(path: Path, doc_id: str, text: str) -> None:
    with Index.open(path, create=False) as ix:
        ix.add([Document.from_text(text, id=doc_id, source=doc_id)])


@contextmanager
def running_server(index: Path, *args: str, env: Mapping[str, str] | None = None) -> Iterator[str]:
    """``zoomrag serve --index INDEX --port 0 ARGS`` until the block ends; yields its URL."""
    proc = subprocess.Popen([sys.executable, "-m", "zoomrag", "serve", "--index", str(index), "--port", "0",
                             *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})
    try:
        yield wait_for_server(index, proc, STARTUP_SECONDS)
    finally:
        stop_server(proc)
        proc.stdout.close()
        proc.stderr.close()


@contextmanager
def running_store_server(store: str, *args: str) -> Iterator[str]:
    """``zoomrag serve --store STORE --port 0 ARGS`` until the block ends; yields its URL, read
    from the line it announces itself with (a server store has no file beside it to find it by)."""
    proc = subprocess.Popen([sys.executable, "-m", "zoomrag", "serve", "--store", store, "--port", "0", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    try:
        selector = selectors.DefaultSelector()
        selector.register(proc.stderr, selectors.EVENT_READ)
        deadline = time.monotonic() + STARTUP_SECONDS
        seen = []
        while True:
            if time.monotonic() > deadline or not selector.select(deadline - time.monotonic()):
                raise RuntimeError(f"zoomrag serve --store did not start: {seen}")
            line = proc.stderr.readline()
            if not line and proc.poll() is not None:
                raise RuntimeError(f"zoomrag serve exited {proc.returncode}: {''.join(seen)}")
            seen.append(line)
            found = re.search(r" at (http://\S+) \(inspector", line)
            if found:
                break
        yield found.group(1)
    finally:
        stop_server(proc)
        proc.stderr.close()

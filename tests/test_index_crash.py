"""Killed at any moment (kill -9), the index still opens, checks consistent, and resumes."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from test_index_support import CountingEmbedder, ParagraphLines, write

from zoomrag.index import Index

N_DOCS = 60

WRITER = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {tests!r})
    from test_index_support import CountingEmbedder, ParagraphLines
    from zoomrag.index import Index

    class Slow(CountingEmbedder):
        def embed_documents(self, texts):
            time.sleep(0.03)
            return super().embed_documents(texts)

    with Index.open({db!r}, embedder=Slow(), strategy=ParagraphLines()) as ix:
        ix.add([{docs!r}])
""")


def _documents(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def test_kill_9_while_indexing_then_check_and_resume(tmp_path):
    docs = tmp_path / "docs"
    for i in range(N_DOCS):
        write(docs / f"d{i:02}.txt", f"Document {i} first line.\nSecond line of {i}.\n\nOther part {i}.")
    db = tmp_path / "index.db"
    script = WRITER.format(tests=str(Path(__file__).parent), db=str(db), docs=str(docs))
    proc = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while _documents(db) < 5:
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "the writer never got going"
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    done = _documents(db)
    assert 5 <= done < N_DOCS, "killed too late to test anything"

    emb = CountingEmbedder()
    with Index.open(db, embedder=emb, strategy=ParagraphLines()) as ix:
        assert ix.check().ok, ix.check().problems
        report = ix.add([docs])
        assert report.unchanged == done
        assert report.added == N_DOCS - done
        # the committed documents' texts are not embedded again (each document has 3 distinct units)
        assert len(emb.embedded) == 3 * (N_DOCS - done)
        assert ix.check().ok
        assert ix.stats().documents == N_DOCS
        top = ix.search("Second line of 59", mode="bm25", k=1)[0]
        assert (top.doc_id, top.start, top.end) == ("d59.txt", 24, 42)

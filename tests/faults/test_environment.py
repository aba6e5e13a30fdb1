"""A full disk and a read-only file system, on a small tmpfs (needs root to mount; skipped otherwise)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from trials import write_corpus


def zoomrag(*args: str) -> subprocess.CompletedProcess:
    r = subprocess.run([sys.executable, "-m", "zoomrag", *args], capture_output=True, text=True, timeout=120)
    assert "Traceback" not in r.stderr, r.stderr
    return r


@pytest.fixture
def tmpfs(tmp_path):
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({r.stderr.decode().strip() or 'not root'})")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_a_full_disk_reports_cleanly_every_run_and_keeps_the_index_consistent(tmpfs, tmp_path):
    docs = write_corpus(tmp_path / "docs", 300)
    db = tmpfs / "x.db"
    first = zoomrag("index", str(docs), "--index", str(db), "--embedder", "hash", "-q")
    assert first.returncode == 1 and "disk is full" in first.stderr, first.stderr
    for args in (["index", str(docs)], ["index", "--reindex", str(docs)], ["index", str(docs)]):
        r = zoomrag(*args, "--index", str(db), "-q")
        assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    check = zoomrag("check", "--index", str(db))
    assert check.returncode == 0, check.stderr
    q = zoomrag("query", "solar panel price", "--index", str(db), "--mode", "bm25")
    assert q.returncode == 0


def test_a_read_only_mount_serves_reads_and_refuses_writes_by_name(tmpfs, tmp_path):
    docs = write_corpus(tmp_path / "docs", 10)
    db = tmpfs / "x.db"
    assert zoomrag("index", str(docs), "--index", str(db), "--embedder", "hash", "-q").returncode == 0
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    assert not os.access(tmpfs, os.W_OK)
    check = zoomrag("check", "--index", str(db))
    assert check.returncode == 0 and check.stdout.startswith("ok:"), check.stderr
    assert zoomrag("stats", "--index", str(db)).returncode == 0
    q = zoomrag("query", "solar panel price", "--index", str(db), "--mode", "bm25", "--json")
    assert q.returncode == 0 and '"contexts": [' in q.stdout
    w = zoomrag("index", str(docs), "--index", str(db))
    assert w.returncode == 1 and "read-only" in w.stderr
    assert not [p.name for p in Path(tmpfs).iterdir() if p.name.endswith(("-wal", "-shm"))]


def test_an_index_from_before_parser_versions_serves_reads_on_a_read_only_mount(tmpfs, tmp_path):
    docs = write_corpus(tmp_path / "docs", 10)
    db = tmpfs / "x.db"
    assert zoomrag("index", str(docs), "--index", str(db), "--embedder", "hash", "-q").returncode == 0
    with closing(sqlite3.connect(db)) as conn:  # as a zoomrag from before parser versions wrote it
        conn.execute("ALTER TABLE documents DROP COLUMN parser")
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    check = zoomrag("check", "--index", str(db))
    assert check.returncode == 0 and check.stdout.startswith("ok:"), check.stderr
    q = zoomrag("query", "solar panel price", "--index", str(db), "--mode", "bm25", "--json")
    assert q.returncode == 0 and '"contexts": [' in q.stdout

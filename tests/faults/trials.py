"""Seeded fault trials shared by the fault tests (a few) and bench/faults.py (many).

Each trial returns a plain dict of what happened; ``wrong``, ``traceback`` and ``lost`` must
stay 0. The hash embedder keeps every trial fast and deterministic.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from zoomrag.errors import ZoomragError
from zoomrag.index import Index
from zoomrag.model import Document, content_hash

QUERIES = ["solar panel price", "wind turbine blades", "river delta floods", "glacier ice melt",
           "copper wire prices"]
_TOPICS = ["solar panels and their price", "wind turbines and blades", "river deltas and floods",
           "glaciers and ice melt", "copper wire and prices", "old maps of harbours"]


def corpus_text(i: int, version: int = 0) -> str:
    """A small document; every paragraph names its document and version (``d<i>v<version>``)."""
    rnd = random.Random(i * 7919 + version)
    paras = []
    for p in range(3 + i % 3):
        topic = _TOPICS[(i + p) % len(_TOPICS)]
        words = " ".join(rnd.choice(["the", "a", "of", "new", "big", "small", "report"]) for _ in range(8))
        paras.append(f"Tag d{i}v{version} part {p}. This part is about {topic}. {words}.")
    return "\n\n".join(paras) + "\n"


def write_corpus(folder: Path, n: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"doc{i:03}.txt").write_text(corpus_text(i))
    return folder


def results(ix: Index) -> list:
    """What the queries return: enough to compare two indexes."""
    out = []
    for q in QUERIES:
        for mode in ("bm25", "dense"):
            out.append([(c.doc_id, c.start, c.end, c.text, round(c.score, 6))
                        for c in ix.query(q, budget=200, top=3, mode=mode, expand="parent")])
    return out


# -- kill -9 -----------------------------------------------------------------------------
_WRITER = textwrap.dedent("""
    import sys
    from zoomrag.index import Index
    ix = Index.open(sys.argv[1], embedder="hash", strategy="sentences")
    print("ready", flush=True)
    ix.add([sys.argv[2]])
    ix.close()
""")


def kill_trial(work: Path, seed: int, n_docs: int = 150) -> dict:
    """Index a corpus, kill -9 the writer at a random moment, then check, resume, and compare."""
    rnd = random.Random(seed)
    docs = work / "docs"
    if not docs.exists():
        write_corpus(docs, n_docs)
    db = work / f"kill{seed}.db"
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(db), str(docs)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    out = {"trials": 1, "wrong": 0, "traceback": 0, "lost": 0, "finished_first": 0}
    try:
        proc.stdout.readline()  # type: ignore[union-attr]
        time.sleep(rnd.uniform(0.0, 0.35))
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        else:
            out["finished_first"] = 1
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read()  # type: ignore[union-attr]
    if "Traceback" in err:
        out["traceback"] += 1
    try:
        with Index.open(db, embedder="hash", strategy="sentences") as ix:
            if not ix.check().ok:
                out["wrong"] += 1
            files = {f: content_hash((docs / f).read_text()) for f in os.listdir(docs)}
            stored = ix.store.document_hashes()
            out["wrong"] += sum(1 for d, h in stored.items() if files.get(d) != h)
            report = ix.add([docs])
            if report.unchanged != len(stored) or report.added != len(files) - len(stored):
                out["wrong"] += 1
            out["lost"] += len(files) - ix.stats().documents
            if not ix.check().ok:
                out["wrong"] += 1
    except ZoomragError:
        out["wrong"] += 1  # a killed run must leave an index that opens
    except Exception:  # noqa: BLE001  (what the trial counts)
        out["traceback"] += 1
    for p in work.glob(f"kill{seed}.db*"):
        p.unlink()
    return out


# -- page damage -------------------------------------------------------------------------
def build_base(work: Path, n_docs: int = 30) -> tuple[Path, list]:
    """A checkpointed index (no -wal) and the queries' results on it."""
    docs = write_corpus(work / "docs", n_docs)
    db = work / "base.db"
    with Index.open(db, embedder="hash", strategy="sentences") as ix:
        ix.add([docs])
        ix.store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        base = results(ix)
    return db, base


def damage_trial(base_db: Path, base: list, work: Path, seed: int) -> dict:
    """64 random bytes over one random page; then ``check`` must find it or every query answer
    as before, and nothing may raise anything but a zoomrag error."""
    rnd = random.Random(seed)
    db = work / f"dmg{seed % 4}.db"
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    shutil.copyfile(base_db, db)
    size = db.stat().st_size
    page = int.from_bytes(base_db.read_bytes()[16:18], "big") or 65536
    pages = size // page
    target = rnd.randrange(pages)
    offset = target * page + rnd.randrange(page - 64)
    with open(db, "r+b") as f:
        f.seek(offset)
        f.write(rnd.randbytes(64))
    out = {"trials": 1, "detected": 0, "harmless": 0, "wrong": 0, "traceback": 0}
    try:
        with Index.open(db, create=False) as ix:
            report = ix.check()
            try:
                found = results(ix)
            except ZoomragError:
                found = None
        if not report.ok:
            out["detected"] += 1
        elif found == base:
            out["harmless"] += 1
        else:
            out["wrong"] += 1
    except ZoomragError:
        out["detected"] += 1  # refused at open, with a message
    except Exception:  # noqa: BLE001  (what the trial counts)
        out["traceback"] += 1
    return out


# -- readers during writes ---------------------------------------------------------------
_READER = textwrap.dedent("""
    import json, re, sys, time
    from zoomrag.index import Index
    from zoomrag.errors import ZoomragError
    QUERIES = {queries!r}
    seconds, limit = float(sys.argv[2]), int(sys.argv[3])
    tag = re.compile(r"Tag d(\\d+)v(\\d+)")
    done = wrong = errors = 0
    ix = Index.open(sys.argv[1], create=False)
    end = time.monotonic() + seconds
    while time.monotonic() < end and done < limit:
        q = QUERIES[done % len(QUERIES)]
        mode = ("bm25", "dense", "hybrid")[done % 3]
        try:
            for c in ix.query(q, budget=300, top=4, mode=mode, expand="parent"):
                versions = {{v for d, v in tag.findall(c.text)}}
                if len(c.text) != c.end - c.start or len(versions) > 1:
                    wrong += 1
        except ZoomragError as e:
            errors += 1
        done += 1
    print(json.dumps({{"queries": done, "wrong": wrong, "errors": errors}}))
""")


def concurrent_trial(work: Path, seconds: float, readers: int = 2, n_docs: int = 12,
                     max_queries: int = 10**9) -> dict:
    """A writer replaces every document again and again while ``readers`` processes query.

    Each document's text names its version in every paragraph; a context that mixes two
    versions, or whose text is not its span's length, is wrong."""
    db = work / "live.db"
    with Index.open(db, embedder="hash", strategy="sentences") as ix:
        ix.add([Document.from_text(corpus_text(i), id=f"d{i}", source=f"d{i}") for i in range(n_docs)])
    script = _READER.format(queries=QUERIES)
    procs = [subprocess.Popen([sys.executable, "-c", script, str(db), str(seconds), str(max_queries)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(readers)]
    writes = 0
    version = 1
    end = time.monotonic() + seconds
    with Index.open(db, embedder="hash", strategy="sentences") as ix:
        while time.monotonic() < end and any(p.poll() is None for p in procs):
            ix.add([Document.from_text(corpus_text(i, version), id=f"d{i}", source=f"d{i}")
                    for i in range(n_docs)])
            writes += 1
            version += 1
        lost = n_docs - ix.stats().documents
    out = {"queries": 0, "wrong": 0, "errors": 0, "traceback": 0, "writes": writes, "lost": lost}
    import json

    for p in procs:
        stdout, stderr = p.communicate(timeout=seconds + 60)
        if "Traceback" in stderr or not stdout.strip():
            out["traceback"] += 1
            continue
        r = json.loads(stdout.strip().splitlines()[-1])
        for k in ("queries", "wrong", "errors"):
            out[k] += r[k]
    return out


def sqlite_documents(db: Path) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return conn.execute("SELECT count(*) FROM documents").fetchone()[0]

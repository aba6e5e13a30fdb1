"""Fixtures shared by several test files: private PostgreSQL and Milvus servers (:mod:`pg_server`,
:mod:`milvus_server`)."""

import os

import pytest
from milvus_server import milvus_address, milvus_url
from pg_server import pg_base, pg_index_url, pg_url

__all__ = ["milvus_address", "milvus_url", "pg_base", "pg_index_url", "pg_url"]


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    """Pages read by OCR are cached for a session of its own, never in the user's cache."""
    os.environ["ZOOMRAG_CACHE_DIR"] = str(tmp_path_factory.mktemp("zoomrag-cache"))

"""Fixtures shared by several test files: private PostgreSQL and Milvus servers (:mod:`pg_server`,
:mod:`milvus_server`)."""

from milvus_server import milvus_address, milvus_url
from pg_server import pg_base, pg_index_url, pg_url

__all__ = ["milvus_address", "milvus_url", "pg_base", "pg_index_url", "pg_url"]

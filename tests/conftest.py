"""Fixtures shared by several test files: a private PostgreSQL server (:mod:`pg_server`)."""

from pg_server import pg_base, pg_url

__all__ = ["pg_base", "pg_url"]

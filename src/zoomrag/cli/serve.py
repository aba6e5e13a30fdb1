"""``zoomrag serve`` and ``zoomrag mcp``: thin commands over :mod:`zoomrag.serve`.

The server's packages (the ``serve`` and ``mcp`` extras) are imported only when a command runs.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import click

from ..defaults import is_server
from ..errors import ConfigError
from ..load.web import is_url
from . import index_option, main


def _need(module: str, extra: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise ConfigError(f"this command needs the {extra!r} extra; install it with: "
                          f"pip install 'zoomrag[{extra}]'")


def _need_index(location: Path | str) -> None:
    """A missing index file is named with the command that builds it (a server store says so
    itself when it is opened)."""
    if not is_server(location) and not Path(location).exists():
        raise ConfigError(f"{location}: no such index; build one first with: "
                          f"zoomrag index --index {location} PATH...")


@main.command("serve")
@index_option
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; anything but loopback needs --api-key.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--api-key", envvar="ZOOMRAG_API_KEY", metavar="KEY",
              help="Require 'Authorization: Bearer KEY' on every API call (also $ZOOMRAG_API_KEY).")
@click.option("--cors", "cors", multiple=True, metavar="ORIGIN",
              help="Allow browser calls from this origin (repeatable); CORS is off without it.")
@click.option("--max-body-mb", type=click.FloatRange(min=0.001), default=10.0, show_default=True,
              help="Largest request body accepted (413 above it).")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=30.0, show_default=True,
              help="Seconds a read request may take (504 after it).")
@click.option("--write-timeout", type=click.FloatRange(min=0.1), default=600.0, show_default=True,
              help="Seconds an add or delete may take before the answer is 504 (the write still finishes).")
@click.option("--readers", type=click.IntRange(min=1), default=4, show_default=True,
              help="Reader threads, each with its own connection to the index.")
@click.option("--lock-timeout", type=click.FloatRange(min=0), default=5.0, show_default=True,
              help="Seconds a write waits while another process (zoomrag index) writes, before 423.")
@click.option("--crawl", "crawl", multiple=True, metavar="ADDRESS",
              help="Let clients index web sites under ADDRESS with POST /sites (repeatable), e.g. "
                   "--crawl https://docs.example.com/; none by default: the server fetches no address.")
def serve_command(index_path: Path | str, host: str, port: int, api_key: str | None, cors: tuple[str, ...],
                  max_body_mb: float, timeout: float, write_timeout: float, readers: int,
                  lock_timeout: float, crawl: tuple[str, ...]) -> None:
    """Serve the index over HTTP: a JSON API and a web inspector at /.

    The model and the ANN graph are loaded once. While it runs, `zoomrag query` on the same
    index file asks it instead of loading the model; over a server store (--store), give
    `zoomrag query` its URL with --server (see docs/serve.md).
    """
    _need("fastapi", "serve")
    _need("uvicorn", "serve")
    from ..serve.app import ServeConfig
    from ..serve.run import serve
    from ..serve.security import check_bind
    from ..store.location import shown

    check_bind(host, api_key)
    _need_index(index_path)
    for address in crawl:
        if not is_url(address):
            raise click.UsageError(f"--crawl {address!r}: give a web address, e.g. https://docs.example.com/")
    if crawl:
        _need("httpx", "web")
    config = ServeConfig(index=index_path, api_key=api_key or None, cors=cors,
                         max_body_bytes=int(max_body_mb * 2**20), timeout=timeout,
                         write_timeout=write_timeout, readers=readers, lock_timeout=lock_timeout, crawl=crawl)
    serve(config, host, port, announce=lambda url: click.echo(
        f"zoomrag serving {shown(index_path)} at {url} (inspector at {url}/, API schema at {url}/openapi.json); "
        "Ctrl-C stops", err=True))


@main.command("mcp")
@index_option
def mcp_command(index_path: Path | str) -> None:
    """Serve the index to an AI agent over the Model Context Protocol (stdio).

    Tools: search (query, budget, where -> contexts with sources and spans) and read
    (document, start, end -> the exact text). Configure your MCP client to run this command.
    """
    _need("mcp", "mcp")
    _need_index(index_path)
    from ..serve.mcp import run_stdio

    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    run_stdio(index_path)

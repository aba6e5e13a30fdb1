"""The ``zoomrag`` command: a thin layer over the library.

Each command lives in its own module and registers itself on :data:`main`; a module is imported
only when one of its commands runs (or help lists them all), so that ``zoomrag query`` answered
by a running server imports neither numpy nor the index code. Library errors
(:class:`~zoomrag.errors.ZoomragError`) become a one-line message and exit code 1, and so do the
failures the library does not name (an SQLite error, an OS error such as a full disk, memory):
no traceback reaches the user. Usage errors (unknown option, missing path) are click's, exit
code 2.
"""

from __future__ import annotations

import functools
import importlib
import sqlite3
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import click
from click.core import ParameterSource

from .. import __version__
from ..defaults import DEFAULT_PATH, is_server
from ..errors import ZoomragError

#: The module of each command (imported when the command is used).
COMMAND_MODULES = {
    "chunk": "chunk",
    "check": "index", "copy": "index", "export": "index", "index": "index", "inspect": "index",
    "stats": "index", "vacuum": "index",
    "compare": "evaluate", "eval": "evaluate", "recommend": "evaluate", "sweep": "evaluate",
    "mcp": "serve", "serve": "serve",
    "query": "query",
}


#: ``--index``, the option of every command that opens an index.
_file_option = click.option(
    "--index", "index_path", type=click.Path(dir_okay=False, path_type=Path), default=DEFAULT_PATH,
    show_default=True, help="The index file.",
)
_store_option = click.option(
    "--store", "store_url", metavar="URL", envvar="ZOOMRAG_STORE",
    help="A server store instead of the file (also $ZOOMRAG_STORE): postgresql://USER@HOST/DB "
         "(the postgres extra), or milvus://HOST:PORT/COLLECTION for the vectors, the trees and text "
         "staying in the --index file, by default .zoomrag/milvus-HOST-PORT-COLLECTION.db (the milvus "
         "extra; docs/scale.md).",
)


def index_option(command: Callable[..., None]) -> Callable[..., None]:
    """``--index FILE`` and ``--store URL``: the command gets ``index_path``, the URL when one
    is given."""

    @functools.wraps(command)
    def run(*args: object, store_url: str | None = None, **kwargs: object) -> None:
        if store_url is not None:
            if not is_server(store_url):
                raise click.BadParameter(f"{store_url!r} is not a server URL; give postgresql://USER@HOST/DB, "
                                         "milvus://HOST:PORT/COLLECTION, or an index file with --index",
                                         param_hint="--store")
            given = click.get_current_context().get_parameter_source("index_path")
            if store_url.startswith("milvus://") and given is not ParameterSource.DEFAULT \
                    and "index=" not in store_url:
                from ..store.milvus import with_index_file

                store_url = with_index_file(store_url, Path(str(kwargs["index_path"])))
            kwargs["index_path"] = store_url
        command(*args, **kwargs)

    return _file_option(_store_option(run))


def file_rule_options(command: Callable[..., None]) -> Callable[..., None]:
    """``--include``, ``--exclude``, ``--no-gitignore``, ``--hidden`` and ``--pictures``: which files of a folder
    are read; the command gets them as ``rules`` (a :class:`~zoomrag.load.FileRules`), checked
    before it does anything."""

    @functools.wraps(command)
    def run(*args: object, include: tuple[str, ...], exclude: tuple[str, ...], no_gitignore: bool, hidden: bool,
            pictures: bool, **kwargs: object) -> None:
        from ..load.ignore import FileRules  # only commands that read folders need it

        command(*args, rules=FileRules.of(include, exclude, not no_gitignore, hidden, pictures), **kwargs)

    options = (
        click.option("--include", "include", multiple=True, metavar="PATTERN",
                     help="Read only the files of a folder that match (repeatable; gitignore syntax, relative to "
                          "the folder), e.g. --include '*.md' --include 'docs/**'."),
        click.option("--exclude", "exclude", multiple=True, metavar="PATTERN",
                     help="Leave out the files and folders of a folder that match (repeatable; gitignore "
                          "syntax), e.g. --exclude '*.csv' --exclude 'drafts/'."),
        click.option("--no-gitignore", is_flag=True,
                     help="Also read what the folder's .gitignore files leave out (by default they are not read)."),
        click.option("--hidden", is_flag=True,
                     help="Also read hidden files and folders (.github/, .env): left out by default; .git never read."),
        click.option("--pictures", is_flag=True,
                     help="Also read the text in a folder's pictures (PNG, JPEG, WebP, GIF, BMP: photos of pages, "
                          "screenshots) by OCR, seconds each: left out by default; a picture named alone is read."),
    )
    for option in reversed(options):
        run = option(run)
    return run


def one_line(message: str) -> str:
    """A message as one line of visible characters (a file name may hold a newline or an escape)."""
    from .render import terminal_safe

    return terminal_safe(" ".join(message.split()))


def failure_message(e: BaseException) -> str:
    """The one-line message for any failure of a command."""
    if isinstance(e, ZoomragError):
        return str(e)
    if isinstance(e, sqlite3.Error):
        return (f"the index could not be read or written ({type(e).__name__}: {e}); "
                "run zoomrag check on it, and rebuild it with zoomrag index --reindex if it is damaged")
    if isinstance(e, OSError):
        where = f"{e.filename}: " if e.filename else ""
        full = " (the disk is full; free some space and run again)" if e.errno == 28 else ""
        return f"{where}{e.strerror or e}{full}"
    if isinstance(e, MemoryError):
        return "out of memory; index fewer or smaller files at a time (see --max-file-size)"
    return f"{type(e).__name__}: {e}"


class _Group(click.Group):
    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMAND_MODULES.get(cmd_name)
        if cmd_name not in self.commands and module is not None:
            importlib.import_module(f".{module}", __name__)
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        load_commands()
        return super().list_commands(ctx)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (ZoomragError, sqlite3.Error, OSError, MemoryError) as e:
            click.echo(f"error: {one_line(failure_message(e))}", err=True)
            sys.exit(1)
        except KeyboardInterrupt:
            click.echo("interrupted; the index keeps every document written before", err=True)
            sys.exit(130)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="zoomrag")
def main() -> None:
    """zoomrag: match small, return large.

    Build a tree of exact spans over each document, embed the small units, and grow every
    hit into the best context that fits a token budget.
    """
    # Library warnings (a shortened prefix, a cut derived text) are for the person at the
    # terminal: one plain line each, not Python's file-and-line format.
    warnings.showwarning = _show_warning


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    click.echo(f"warning: {one_line(str(message))}", err=True)


def load_commands() -> None:
    """Import every command module (each registers its commands on ``main``)."""
    for module in dict.fromkeys(COMMAND_MODULES.values()):
        importlib.import_module(f".{module}", __name__)

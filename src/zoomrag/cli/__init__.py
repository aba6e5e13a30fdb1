"""The ``zoomrag`` command: a thin layer over the library.

Each command lives in its own module and registers itself on :data:`main`. Library errors
(:class:`~zoomrag.errors.ZoomragError`) become a one-line message and exit code 1; usage
errors (unknown option, missing path) are click's, exit code 2.
"""

from __future__ import annotations

import sys
import warnings

import click

from .. import __version__
from ..errors import ZoomragError


class _Group(click.Group):
    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except ZoomragError as e:
            click.echo(f"error: {e}", err=True)
            sys.exit(1)


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
    click.echo(f"warning: {message}", err=True)


def _register() -> None:
    # Command modules import this package for `main`; importing them here attaches them.
    from . import commands  # noqa: F401


_register()

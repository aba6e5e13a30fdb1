"""``zoomrag chunk``: read one file, build its span tree, and show it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from ..load import load_path
from ..parse import Chunker, make_chunker, parse_settings, strategy_names
from ..parse.router import chunker_for_profile, profile_names
from ..text.tokens import default_counter
from . import main
from .render import rich_tree, stats_table, tree_payload

FORMATS = ("tree", "json", "stats")


class _NamesOption(click.Option):
    """An option whose help lists registered names, looked up only when help is shown."""

    def __init__(self, *args: Any, names: Callable[[], Iterable[str]], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._names = names

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        record = super().get_help_record(ctx)
        if record is None:
            return None
        return record[0], f"{record[1]} One of: {', '.join(self._names())}."


def pick_chunker(strategy: str | None, profile: str | None, overrides: Mapping[str, str]) -> Chunker:
    """The chunker for the options: a strategy, a profile, or the ``default`` profile."""
    if strategy is not None:
        return make_chunker(strategy, overrides)
    return chunker_for_profile(profile or "default", overrides)


@main.command("chunk")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-s", "--strategy", metavar="NAME", cls=_NamesOption, names=strategy_names,
              help="Chunking strategy.")
@click.option("-p", "--profile", metavar="NAME", cls=_NamesOption, names=profile_names,
              help="Routing profile (content type -> strategy); the default is 'default'.")
@click.option("--set", "settings", metavar="KEY=VALUE", multiple=True,
              help="A strategy parameter, e.g. --set size=256 --set unit=chars. With a profile, "
                   "a plain KEY sets the text strategy's parameter and table.KEY or code.KEY that "
                   "route's. Repeatable.")
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="tree", show_default=True,
              help="tree: indented nodes with kind, level, span and preview; json: document and "
                   "nodes with their text; stats: node counts and sizes per level.")
@click.option("--max-file-size", "max_size", metavar="SIZE", default="64MB", show_default=True,
              help="Refuse files larger than this (e.g. 200MB; 0 for no limit).")
def chunk(path: Path, strategy: str | None, profile: str | None, settings: tuple[str, ...],
          fmt: str, max_size: str) -> None:
    """Split the file at PATH into a tree of exact spans and show it.

    Every node is a span [start, end) of the file's normalised text. Without --strategy or
    --profile the 'default' profile picks a strategy per content type.
    """
    if strategy is not None and profile is not None:
        raise click.UsageError("give --strategy or --profile, not both")
    chunker = pick_chunker(strategy, profile, parse_settings(settings))
    from .index import parse_size

    tree = chunker.chunk(load_path(path, max_bytes=parse_size(max_size)))
    if fmt == "json":
        click.echo(json.dumps(tree_payload(tree), ensure_ascii=False, indent=2))
        return
    console = Console(highlight=False)
    if fmt == "tree":
        console.print(rich_tree(tree, console.width))
    else:
        console.print(stats_table(tree, default_counter()))

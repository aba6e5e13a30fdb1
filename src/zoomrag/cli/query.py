"""``zoomrag query``: contexts for a question, from a running server when there is one.

This module imports little at the top: a query answered by a server needs no numpy, no index
code and no model, only the request, the answer and their rendering. The library is imported
when the query is answered here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..defaults import MODES, is_server
from ..model import Context
from ..serve.client import ServerUnreachable, post_json, running_server
from ..serve.query import QueryRequest, context_from_payload, request_body
from . import index_option, main

if TYPE_CHECKING:
    from rich.text import Text


class PolicyChoice(click.Choice):
    """The expansion policies as a ``click.Choice``, looked up only when needed: the registry
    imports every policy (and numpy with them), which a query answered by a server never runs.
    The option's default is taken without the look-up."""

    def __init__(self) -> None:
        super().__init__(())

    @property  # type: ignore[override]
    def choices(self) -> Sequence[str]:
        from ..expand import expander_names

        return tuple(expander_names())

    @choices.setter
    def choices(self, value: Sequence[str]) -> None:
        pass  # click.Choice's constructor sets it; the names come from the registry

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if param is not None and value == param.default:
            return value
        return super().convert(value, param, ctx)


def _parse_settings(settings: tuple[str, ...]) -> dict[str, Any]:
    from ..parse import parse_settings

    return parse_settings(settings)


def _where(where: tuple[str, ...], where_json: str | None) -> dict | None:
    from ..search import filters

    conditions = [filters.parse_condition(w) for w in where]
    if where_json is not None:
        try:
            given = json.loads(where_json)
        except ValueError as e:
            raise click.BadParameter(f"not JSON ({e})", param_hint="--where-json") from None
        if not isinstance(given, dict):
            raise click.BadParameter("expected a JSON object such as '{\"year\": {\"$gte\": 2020}}'",
                                     param_hint="--where-json")
        conditions.append(given)
    return filters.combine(conditions)


class _QueryCommand(click.Command):
    """``query``, whose text may itself be an option's name: an unknown option says how to ask
    for one (``zoomrag query -- --no-show-forced-updates``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as e:
            if e.option_name and e.option_name.startswith("-") and not e.possibilities:
                raise click.NoSuchOption(
                    e.option_name, ctx=e.ctx,
                    message=(f"No such option: {e.option_name}. To search for {e.option_name} itself, put -- "
                             f"before it, and any options before that: zoomrag query --top 3 -- {e.option_name}"),
                ) from None
            raise


@main.command("query", cls=_QueryCommand)
@click.argument("text")
@index_option
@click.option("--budget", type=click.IntRange(min=1), default=2048, show_default=True,
              help="Tokens of context to return at most.")
@click.option("--top", type=click.IntRange(min=1), default=10, show_default=True,
              help="Contexts to return at most.")
@click.option("--mode", type=click.Choice(MODES), default="hybrid", show_default=True,
              help="Dense vectors, BM25, or both: a weighted sum of their scaled scores.")
@click.option("--bm25-weight", type=click.FloatRange(0, 1), default=None, metavar="W",
              help="In hybrid mode, BM25's share of the fused score, 0 to 1 (dense gets the rest)  [default: 0.3]; "
                   "raise it for questions made of names, codes and identifiers.")
@click.option("--expand", "expand", type=PolicyChoice(), default="auto", show_default=True,
              help="Expansion policy: how matched units grow into contexts; auto uses the policy pinned by `zoomrag recommend --pin`, else the measured best (see docs/expansion.md).")
@click.option("--set", "settings", multiple=True, metavar="KEY=VALUE",
              help="A parameter of the expansion policy, e.g. --set n=1 for window.")
@click.option("--order", type=click.Choice(["score", "document"]), default="score", show_default=True,
              help="Contexts by score, or in text order inside each document.")
@click.option("--rerank", is_flag=True,
              help="Re-score the matched units with the rerank endpoint in $ZOOMRAG_RERANK_URL first.")
@click.option("--where", "where", multiple=True, metavar="CONDITION",
              help="Only documents whose metadata matches (repeatable, all must hold): KEY=VALUE, KEY!=VALUE, "
                   "KEY>=VALUE (also >, <, <=), 'KEY in A,B', 'KEY not in A,B', 'KEY exists', 'KEY missing'.")
@click.option("--where-json", metavar="JSON",
              help='A filter in the dict form, e.g. \'{"$or": [{"lang": "en"}, {"year": {"$gte": 2020}}]}\'.')
@click.option("--doc", "docs", multiple=True, metavar="ID|PATH|GLOB",
              help="Only these documents (repeatable): an id, a source path, or a glob such as 'docs/*.md'.")
@click.option("--explain", is_flag=True, help="Show, for each context, the hits that produced it and the rule.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of the terminal view.")
@click.option("--server", "server_url", metavar="URL", envvar="ZOOMRAG_SERVER",
              help="Ask the zoomrag serve at URL (also $ZOOMRAG_SERVER); by default a server running on "
                   "the same index is asked when there is one ($ZOOMRAG_API_KEY is sent as its key).")
@click.option("--no-server", is_flag=True, help="Answer here even when a server runs on this index.")
def query_command(text: str, index_path: Path, budget: int, top: int, mode: str, bm25_weight: float | None,
                  expand: str,
                  settings: tuple[str, ...], order: str, rerank: bool, where: tuple[str, ...],
                  where_json: str | None, docs: tuple[str, ...], explain: bool, as_json: bool,
                  server_url: str | None, no_server: bool) -> None:
    """Find the best contexts for TEXT within a token budget."""
    # A server checks the policy and its parameters as this process would (same messages), so
    # the library is imported only to answer here.
    params = _parse_settings(settings) if settings else {}
    condition = _where(where, where_json) if where or where_json is not None else None
    request = QueryRequest(text=text, budget=budget, top=top, mode=mode, expand=expand, params=params,
                           order=order, explain=explain, rerank=rerank, where=condition,
                           doc=list(docs) or None, bm25_weight=bm25_weight)
    # A server store's server is asked only when named (--server): no file beside it says where it runs.
    local = no_server or (is_server(index_path) and server_url is None)
    contexts = None if local else _ask_server(server_url, index_path, request)
    notes: list[str] = []
    if contexts is None:
        from ..index import Index
        from ..serve.query import run_query

        with Index.open(index_path, create=False) as ix:
            contexts = run_query(ix, request)
            notes = ix.filter_notes(condition, list(docs) or None) if explain or not contexts else []
    if as_json:
        # --explain: each context says why it was chosen, as the terminal view does
        payload = {"query": text, "budget": budget,
                   "contexts": [c.to_dict() | ({"rule": c.rule} if explain else {}) for c in contexts]}
        if condition is not None or docs:
            payload["where"] = condition
            payload["doc"] = list(docs)
        click.echo(json.dumps(payload, ensure_ascii=False, indent=2))
        return
    from rich.console import Console
    from rich.text import Text

    console = Console(highlight=False)
    err = Console(stderr=True, highlight=False)
    for note in notes:
        err.print(Text(f"filter: {note}"))
    if not contexts:
        console.print("no results")
        return
    for rank, ctx in enumerate(contexts, start=1):
        console.print(_context_header(rank, ctx))
        if explain:
            console.print(_explanation(ctx))
        console.print(_highlighted(ctx))
        if ctx.copies:
            console.print(_copies(ctx))
        console.print()


#: Copies named under a context; the rest are counted.
SHOWN_COPIES = 5


def _copies(ctx: Context) -> Text:
    """The other documents holding the context's text, left out for it (their ids)."""
    from rich.text import Text

    from .render import terminal_safe

    names = [terminal_safe(c) for c in ctx.copies[:SHOWN_COPIES]]
    more = len(ctx.copies) - len(names)
    return Text(f"   (the same text, left out: {', '.join(names)}{f' and {more} more' if more else ''})",
                style="dim")


def _ask_server(url: str | None, index_path: Path, request: QueryRequest) -> list[Context] | None:
    """The contexts from a server: the one at ``url``, else one running on this index (None when
    there is none, or it does not answer: then the query runs here)."""
    found = url or running_server(index_path)
    if found is None:
        return None
    try:
        answer = post_json(found, "/query", request_body(request), api_key=os.environ.get("ZOOMRAG_API_KEY"))
    except ServerUnreachable:
        if url:
            raise
        return None
    return [context_from_payload(c) for c in answer["contexts"]]


def _explanation(ctx: Context) -> Text:
    """The rule that made the context and every hit inside it, with the start of its text."""
    from rich.text import Text

    from .render import terminal_safe, text_offset

    out = Text()
    out.append("   rule: ", style="bold")
    out.append(ctx.rule or "unit")
    for s, e, score in sorted(ctx.hits, key=lambda h: -h[2]):
        words = " ".join(ctx.text[text_offset(ctx, s):text_offset(ctx, e)].split())
        out.append("\n   hit ", style="bold")
        out.append(f"[{s}, {e}) score {score:.4f}: ", style="green")
        out.append(terminal_safe(words if len(words) <= 70 else words[:69] + "…"))
    return out


def _context_header(rank: int, ctx: Context) -> Text:
    from rich.text import Text

    from .render import spans_label, terminal_safe

    head = Text()
    head.append(f"{rank}. ", style="bold")
    file_part, _, record = ctx.doc_id.rpartition("#")
    # a record of a file (a web page's address may end in "/", with no name to end with)
    record = record if file_part and file_part.endswith(os.path.basename(ctx.source)) else ""
    where = shown_path(ctx.source)
    if ctx.anchor:  # the section of its best match, as a browser opens it
        where = where + ctx.link[len(ctx.source):]
    head.append(terminal_safe(where + (f"#{record}" if record else "")), style="bold cyan")
    head.append(f" {spans_label(ctx)}", style="green")
    head.append(f"  score {ctx.score:.4f}", style="magenta")
    title = ctx.metadata.get("title") if record and not ctx.section_path else None
    if ctx.section_path or isinstance(title, str):
        head.append(terminal_safe("  " + " › ".join(ctx.section_path or (str(title),))), style="yellow")
    if ctx.rule:
        head.append(f"  ({ctx.rule})", style="dim")
    return head


def shown_path(source: str) -> str:
    """A stored source (an absolute path for files) as the shortest path that opens it from here."""
    if not os.path.isabs(source):
        return source
    try:
        rel = os.path.relpath(source)
    except ValueError:  # another drive (Windows)
        return source
    return source if rel.startswith("..") else rel


def _highlighted(ctx: Context) -> Text:
    """The context's text with every matched unit inside it underlined in bold (control
    characters escaped: a document must not drive the terminal)."""
    from .render import context_body

    return context_body(ctx)


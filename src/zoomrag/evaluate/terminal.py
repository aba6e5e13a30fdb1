"""The terminal view of a run: metrics per budget (best in bold), costs, and the verdict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich import box
from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .metrics import LABELS, METRICS
from .results import EvalRun, cost_cells, measured, shared_build
from .shape import SHAPE_LABELS, SHAPE_METRICS, ShapeStats
from .stats import Estimate

#: Narrower terminals get the means only (intervals are in the HTML and JSON reports).
WIDTH_FOR_INTERVALS = 96


def _table(title: str, columns: Sequence[str]) -> Table:
    """A report table: the ``config`` column left-aligned, the others right-aligned."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False)
    for name in columns:
        table.add_column(name, justify="left" if name == "config" else "right", no_wrap=True)
    return table


def _estimate(e: Estimate | None, best: float | None, intervals: bool = True) -> Text:
    """A mean, bold green when it is the best, and "±.041": half its interval (the leading zero
    costs width and says nothing)."""
    if e is None:
        return Text("–")
    t = Text(f"{e.mean:.3f}", style="bold green" if e.mean == best else "")
    if intervals:
        t.append(f"±{e.half_width:.3f}".replace("0.", ".", 1), style="dim")
    return t


def results_table(run: EvalRun, *, intervals: bool = True) -> Table:
    d = run.dataset
    note = " (± = half the 95 % interval)" if intervals else ""
    table = _table(f"{d.get('name', 'dataset')}: {d.get('queries', '?')} queries, budgets in "
                   f"{d.get('token_counter', 'tokens')} tokens{note}",
                   ["budget", "config", *(LABELS[m] for m in METRICS)])
    for k, b in enumerate(run.budgets):
        rows = [r for r in run.results if r.budget == b]
        best = {m: max(r.mean(m) for r in rows) for m in METRICS} if rows else {}
        for i, r in enumerate(rows):
            table.add_row(str(b) if i == 0 else "", r.config,
                          *(_estimate(r[m], best[m], intervals) for m in METRICS),
                          end_section=i == len(rows) - 1 and k < len(run.budgets) - 1)
    return table


def shape_table(shape: Mapping[tuple[str, int], ShapeStats]) -> Table | None:
    """Context shape per budget and configuration, or None when nothing was measured."""
    if not shape:
        return None
    table = _table("context shape (fragments: under 15 words; mid-start/-end: inside a sentence; "
                   "leaning: opening on a sentence left out)",
                   ["budget", "config", *(SHAPE_LABELS[m] for m in SHAPE_METRICS)])
    last = None
    for (c, b), s in sorted(shape.items(), key=lambda kv: kv[0][1]):
        table.add_row(str(b) if b != last else "", c, *s.cells())
        last = b
    return table


def cost_table(run: EvalRun) -> Table | None:
    if not run.build and not run.latency:
        return None
    table = _table("cost", ["config", "build s", "units", "storage MB", "p50 ms", "p95 ms"])
    for c in run.configs:
        build, latency = cost_cells(run, c)
        owner = shared_build(run, c)
        if owner is not None:  # one index, several policies: its build is counted once
            build_cells = [Text(f"= {owner}", style="dim"), Text("", style="dim"), Text("")]
        else:
            build_cells = [Text(x) for x in build]
        table.add_row(c, *build_cells, *map(Text, latency))
    if any(shared_build(run, c) for c in run.configs):
        table.caption = "= X: shares the index of X (built once, counted there)"
        table.caption_justify = "left"
    return table


def judge_table(run: EvalRun) -> Table | None:
    """Judged answers per configuration (``--judge``), with the query latency beside them."""
    if not run.judged:
        return None
    table = _table(f"answers judged at {run.judged[0].budget} tokens (± = half the 95 % interval)",
                   ["config", "faithfulness", "answer relevancy", "abstained", "failed", "p95 ms"])
    best_f = max((j.faithfulness.mean for j in run.judged if j.faithfulness), default=None)
    best_r = max((j.relevancy.mean for j in run.judged if j.relevancy), default=None)
    for j in run.judged:
        lat = run.latency.get(j.config)
        table.add_row(j.config, _estimate(j.faithfulness, best_f), _estimate(j.relevancy, best_r),
                      f"{j.abstained}/{j.judged}", str(j.failed),
                      measured(None if lat is None else lat.p95_ms, ".2f"))
    return table


def render(run: EvalRun, *, intervals: bool = True) -> Group:
    parts: list = [results_table(run, intervals=intervals)]
    for extra in (shape_table(run.shape), cost_table(run), judge_table(run)):
        if extra is not None:
            parts.append(extra)
    if run.verdict is not None:
        notes = getattr(run.verdict, "notes", ())
        body = "\n\n".join([run.verdict.sentence, *notes])
        parts.append(Panel(body, title="verdict", title_align="left", border_style="cyan"))
    return Group(*parts)


def print_run(run: EvalRun, console: Console | None = None) -> None:
    console = console or Console()
    # Piped output has no width to fit: the intervals are kept (they are the point of the numbers).
    wide = not console.is_terminal or console.width >= WIDTH_FOR_INTERVALS
    console.print(render(run, intervals=wide))

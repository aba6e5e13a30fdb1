"""The terminal view of a run: metrics per budget (best in bold), costs, and the verdict."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .metrics import LABELS, METRICS
from .results import EvalRun, shared_build
from .shape import shape_table


def _half(x: float) -> str:
    return f"±{x:.3f}".replace("0.", ".", 1)  # "±.041": the leading zero costs width, says nothing


#: Narrower terminals get the means only (intervals are in the HTML and JSON reports).
WIDTH_FOR_INTERVALS = 96


def results_table(run: EvalRun, *, intervals: bool = True) -> Table:
    d = run.dataset
    note = " (± = half the 95 % interval)" if intervals else ""
    table = Table(title=f"{d.get('name', 'dataset')}: {d.get('queries', '?')} queries, budgets in "
                        f"{d.get('token_counter', 'tokens')} tokens{note}",
                  title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False)
    table.add_column("budget", justify="right", no_wrap=True)
    table.add_column("config", no_wrap=True)
    for m in METRICS:
        table.add_column(LABELS[m], justify="right", no_wrap=True)
    for k, b in enumerate(run.budgets):
        rows = [r for r in run.results if r.budget == b]
        best = {m: max(r.mean(m) for r in rows) for m in METRICS} if rows else {}
        for i, r in enumerate(rows):
            cells = []
            for m in METRICS:
                e = r[m]
                t = Text(f"{e.mean:.3f}", style="bold green" if e.mean == best[m] else "")
                if intervals:
                    t.append(_half(e.half_width), style="dim")
                cells.append(t)
            table.add_row(str(b) if i == 0 else "", r.config, *cells,
                          end_section=i == len(rows) - 1 and k < len(run.budgets) - 1)
    return table


def cost_table(run: EvalRun) -> Table | None:
    if not run.build and not run.latency:
        return None

    def fmt(x: float | None, spec: str) -> Text:
        return Text("–" if x is None or x != x else format(x, spec))

    table = Table(title="cost", title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False)
    for name in ("config", "build s", "units", "storage MB", "p50 ms", "p95 ms"):
        table.add_column(name, justify="left" if name == "config" else "right", no_wrap=True)
    for c in run.configs:
        s, lat = run.build.get(c), run.latency.get(c)
        mb = None if s is None or s.storage_bytes is None else s.storage_bytes / 1e6
        owner = shared_build(run, c)
        if owner is not None:  # one index, several policies: its build is counted once
            build = [Text(f"= {owner}", style="dim"), Text("", style="dim"), Text("")]
        else:
            build = [fmt(None if s is None else s.seconds, ".1f"),
                     fmt(None if s is None else s.units_embedded, ",d"), fmt(mb, ".1f")]
        table.add_row(c, *build, fmt(None if lat is None else lat.p50_ms, ".2f"),
                      fmt(None if lat is None else lat.p95_ms, ".2f"))
    if any(shared_build(run, c) for c in run.configs):
        table.caption = "= X: shares the index of X (built once, counted there)"
        table.caption_justify = "left"
    return table


def judge_table(run: EvalRun) -> Table | None:
    """Judged answers per configuration (``--judge``), with the query latency beside them."""
    if not run.judged:
        return None
    table = Table(title=f"answers judged at {run.judged[0].budget} tokens (± = half the 95 % interval)",
                  title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False)
    for name in ("config", "faithfulness", "answer relevancy", "abstained", "failed", "p95 ms"):
        table.add_column(name, justify="left" if name == "config" else "right", no_wrap=True)
    best_f = max((j.faithfulness.mean for j in run.judged if j.faithfulness), default=None)
    best_r = max((j.relevancy.mean for j in run.judged if j.relevancy), default=None)

    def est(e: Any, best: float | None) -> Text:
        if e is None:
            return Text("–")
        t = Text(f"{e.mean:.3f}", style="bold green" if e.mean == best else "")
        t.append(_half(e.half_width), style="dim")
        return t

    for j in run.judged:
        lat = run.latency.get(j.config)
        table.add_row(j.config, est(j.faithfulness, best_f), est(j.relevancy, best_r),
                      f"{j.abstained}/{j.judged}", str(j.failed),
                      "–" if lat is None or lat.p95_ms != lat.p95_ms else f"{lat.p95_ms:.2f}")
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

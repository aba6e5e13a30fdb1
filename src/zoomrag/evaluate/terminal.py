"""The terminal view of a run: one rich table per budget, best value per column in bold."""

from __future__ import annotations

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .metrics import LABELS, METRICS
from .results import EvalRun


def results_table(run: EvalRun) -> Table:
    table = Table(title=f"{run.dataset.get('name', 'dataset')} — {run.dataset.get('queries', '?')} queries, "
                        f"budgets in {run.dataset.get('token_counter', 'tokens')} tokens",
                  title_justify="left", show_lines=False)
    table.add_column("budget", justify="right")
    table.add_column("config")
    for m in METRICS:
        table.add_column(LABELS[m], justify="right")
    table.add_column("p50 ms", justify="right", style="dim")
    for k, b in enumerate(run.budgets):
        rows = [r for r in run.results if r.budget == b]
        best = {m: max(r.mean(m) for r in rows) for m in METRICS} if rows else {}
        for i, r in enumerate(rows):
            cells = []
            for m in METRICS:
                e = r[m]
                t = Text(f"{e.mean:.3f}", style="bold green" if e.mean == best[m] else "")
                t.append(f" ±{e.half_width:.3f}", style="dim")
                cells.append(t)
            lat = run.latency.get(r.config)
            p50 = "" if lat is None or lat.p50_ms != lat.p50_ms else f"{lat.p50_ms:.1f}"
            table.add_row(str(b) if i == 0 else "", r.config, *cells, p50,
                          end_section=i == len(rows) - 1 and k < len(run.budgets) - 1)
    return table


def render(run: EvalRun) -> Group:
    parts: list = [results_table(run)]
    if run.verdict is not None:
        parts.append(Panel(run.verdict.sentence, title="verdict", title_align="left", border_style="cyan"))
    return Group(*parts)


def print_run(run: EvalRun, console: Console | None = None) -> None:
    (console or Console()).print(render(run))

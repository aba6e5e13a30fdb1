"""A self-contained HTML report: the verdict first, then the pictures, then the numbers.

One file, inline CSS and SVG (see :mod:`.svg`), no script and no network, so it can be mailed,
attached to a ticket or opened from disk years later.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from pathlib import Path

from .dataset import atomic_write_text
from .metrics import LABELS, METRICS
from .results import EvalRun, cost_cells, measured, shared_build
from .shape import SHAPE_LABELS, SHAPE_METRICS, ShapeStats
from .stats import Estimate
from .svg import Bar, Interval, Point, Series, bar_chart, forest_chart, line_chart, scatter_chart
from .verdict import Comparison, Gate0Verdict, Recommendation, StructureHint, fixed_configs, fixed_size

# Light teal (small chunks) to dark navy (large): one family, still told apart (ColorBrewer YlGnBu).
_FIXED_RAMP = ["#a1dab4", "#7fcdbb", "#41b6c4", "#1d91c0", "#225ea8", "#0c2c84"]
_POLICY = ["#e4572e", "#2a9d8f", "#f2a541", "#8e44ad", "#d6336c", "#6a994e", "#b5651d", "#17becf"]
_BUDGET = ["#7c3aed", "#0891b2", "#ea580c", "#16a34a", "#be123c", "#4b5563"]

_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#111827;margin:0;
background:#f9fafb}
main{max-width:1000px;margin:0 auto;padding:28px 24px 60px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:34px 0 10px;color:#374151}
.sub{color:#6b7280;font-size:13px;margin:0 0 20px}
.verdict{border-radius:10px;padding:16px 20px;margin:8px 0 18px;border:1px solid;font-size:15px;
line-height:1.5}
.verdict b{font-size:17px;display:block;margin-bottom:4px}
.verdict .gates{margin-top:8px;font-size:13px;color:#374151}.verdict .gates div{margin-top:3px}
.good{background:#ecfdf5;border-color:#6ee7b7}.keep{background:#fffbeb;border-color:#fcd34d}
.info{background:#eff6ff;border-color:#93c5fd}
.tiles{display:flex;gap:12px;flex-wrap:wrap}
.tile{background:white;border:1px solid #e5e7eb;border-radius:8px;padding:10px 14px;min-width:170px;flex:1}
.tile .k{color:#6b7280;font-size:12px}.tile .v{font-size:20px;font-weight:600}.tile .c{font-size:13px}
.charts{display:flex;flex-wrap:wrap;gap:16px}
.card{background:white;border:1px solid #e5e7eb;border-radius:8px;padding:10px 12px;flex:1;min-width:300px}
.card h3{font-size:13px;margin:2px 0 6px;color:#374151;font-weight:600}
.legend{display:flex;flex-wrap:wrap;gap:6px 14px;font-size:12px;margin:6px 0 2px}
.legend span{display:inline-flex;align-items:center;gap:5px}
.legend i{display:inline-block;width:14px;height:4px;border-radius:2px}
table{border-collapse:collapse;width:100%;background:white;font-size:13px}
th,td{padding:5px 8px;border-bottom:1px solid #f0f0f0;text-align:right;white-space:nowrap}
th{background:#f3f4f6;color:#374151;font-weight:600}td.l,th.l{text-align:left}
td .ci{color:#9ca3af;font-size:11px}td.best{font-weight:700;color:#065f46}
tr.sep td{border-top:2px solid #e5e7eb}
.note{color:#6b7280;font-size:12px;line-height:1.5}
.minis{display:flex;flex-wrap:wrap;gap:8px}.mini{flex:1;min-width:240px}
.mini h4{font-size:12px;margin:4px 0 0 8px;color:#6b7280;font-weight:600}
"""


def config_colors(configs: list[str]) -> dict[str, str]:
    """Fixed sizes share a blue ramp (light = small); each policy gets its own hue."""
    fixed = sorted((c for c in configs if fixed_size(c) is not None), key=lambda c: fixed_size(c) or 0)
    colors = {}
    for i, c in enumerate(fixed):
        k = 1 + round(i * (len(_FIXED_RAMP) - 2) / max(1, len(fixed) - 1)) if len(fixed) > 1 else 3
        colors[c] = _FIXED_RAMP[k]
    policies = [c for c in configs if fixed_size(c) is None]
    for i, c in enumerate(policies):
        colors[c] = _POLICY[i % len(_POLICY)]
    return colors


def _legend(colors: dict[str, str]) -> str:
    return '<div class="legend">' + "".join(
        f'<span><i style="background:{col}"></i>{escape(c)}</span>' for c, col in colors.items()) + "</div>"


def _verdict_block(run: EvalRun) -> str:
    v = run.verdict
    if v is None:
        return ""
    if isinstance(v, Recommendation):
        head, tone = f"Recommended: {v.config}", "good" if v.choice == "policy" else "keep"
    elif isinstance(v, Gate0Verdict):
        head = ((f"Pin {v.pinned} and stop" if v.conclusive else f"Too few queries to tell the sizes apart; "
                 f"{v.pinned} for now") if v.flat else "The frontier is not flat: try multi-scale")
        tone = "keep" if v.flat else "info"
    elif isinstance(v, Comparison):
        w = v.winners()
        head, tone = (f"{', '.join(w)} beat{'s' if len(w) == 1 else ''} the best fixed size", "good") if w \
            else ("No policy beats the best fixed size beyond the noise", "keep")
    else:
        head, tone = "Verdict", "info"
    # What led to the verdict: the earlier gates it rests on, and why not the best score.
    g0: Gate0Verdict | None = getattr(v, "gate0", None)
    comp = _comparison(run)
    hint: StructureHint | None = None if comp is None else comp.structure
    gates = [("Gate 0.", None if g0 is None else g0.sentence),
             ("Gate 1.", None if hint is None else hint.sentence[0].upper() + hint.sentence[1:]),
             ("Gate 2.", None if comp is None or comp is v else comp.sentence),
             *(("Why not the best score.", note) for note in getattr(v, "notes", ()))]
    shown = "".join(f"<div><b style='display:inline;font-size:13px'>{label}</b> {escape(text)}</div>"
                    for label, text in gates if text is not None)
    extra = f'<div class="gates">{shown}</div>' if shown else ""
    return f'<div class="verdict {tone}"><b>{escape(head)}</b>{escape(v.sentence)}{extra}</div>'


def _comparison(run: EvalRun) -> Comparison | None:
    v = run.verdict
    return v if isinstance(v, Comparison) else getattr(v, "comparison", None)


def _forest(run: EvalRun) -> str:
    comp = _comparison(run)
    if comp is None:
        return ""
    rows = []
    for d in comp.differences:
        if d.metric != comp.metric:
            continue
        color = "#059669" if d.wins else "#dc2626" if d.loses else "#9ca3af"
        verdict = "wins" if d.wins else "loses" if d.loses else "inside the noise"
        rows.append(Interval(f"{d.config} at {d.budget} vs {d.baseline}", d.delta.mean, d.delta.low,
                             d.delta.high, color, tip=f"{d.describe()} ({verdict}, {d.queries} queries)"))
    return forest_chart(rows, x_label=f"gain in {LABELS[comp.metric]} over the best fixed size "
                                      "(mean and 95 % interval of the paired difference)",
                        title="policies against the best fixed size")


def _tiles(run: EvalRun) -> str:
    out = []
    for b in run.budgets:
        rows = [r for r in run.results if r.budget == b]
        if not rows:
            continue
        best = max(rows, key=lambda r: r.mean("evidence_recall"))
        e = best["evidence_recall"]
        out.append(f'<div class="tile"><div class="k">best recall at {b} tokens</div>'
                   f'<div class="v">{e.mean:.3f}</div><div class="c">{escape(best.config)} '
                   f'<span style="color:#9ca3af">[{e.low:.3f}, {e.high:.3f}]</span></div></div>')
    return '<div class="tiles">' + "".join(out) + "</div>"


def _metric_chart(run: EvalRun, metric: str, colors: dict[str, str]) -> str:
    series = []
    for c in run.configs:
        pts = []
        for r in run.results:
            if r.config == c:
                e = r[metric]
                pts.append(Point(r.budget, e.mean, e.low, e.high,
                                 tip=f"{c} at {r.budget}: {LABELS[metric]} {e.mean:.3f} "
                                     f"[{e.low:.3f}, {e.high:.3f}]"))
        series.append(Series(c, colors[c], tuple(pts), dashed=fixed_size(c) is None))
    return line_chart(series, x_label="token budget", y_label=LABELS[metric],
                      title=f"{LABELS[metric]} against budget")


def _frontier_charts(run: EvalRun) -> str:
    """Gate 0: precision against recall per fixed size, one small chart per budget (own scales)."""
    fixed = fixed_configs(run.results)
    if len(fixed) < 2:
        return ""
    charts = []
    for i, b in enumerate(run.budgets):
        col = _BUDGET[i % len(_BUDGET)]
        pts = []
        for c in fixed:
            r = next((x for x in run.results if x.config == c and x.budget == b), None)
            if r is not None:
                rec, pre = r.mean("evidence_recall"), r.mean("precision")
                pts.append(Point(rec, pre, label=str(fixed_size(c)),
                                 tip=f"{c} at {b}: recall {rec:.3f}, precision {pre:.3f}"))
        if pts:
            svg = scatter_chart([Series(f"{b} tokens", col, tuple(pts))], x_label="evidence recall",
                                y_label="precision", title=f"Gate 0 frontier at {b} tokens",
                                width=300, height=240)
            charts.append(f'<div class="mini"><h4>{b} tokens</h4>{svg}</div>')
    return '<div class="minis">' + "".join(charts) + "</div>"


def _latency_chart(run: EvalRun, colors: dict[str, str]) -> str:
    bars = [Bar(c, s.p50_ms, s.p95_ms, colors.get(c, "#4b5563"),
                tip=f"{c}: p50 {s.p50_ms:.2f} ms, p95 {s.p95_ms:.2f} ms over {s.calls} calls")
            for c, s in run.latency.items()]
    return bar_chart(bars, unit="query latency, ms", title="query latency per configuration")


def _table(columns: Sequence[str], rows: Iterable[str]) -> str:
    """A table of ``rows`` (``<tr>`` elements) under ``columns``; the ``config`` column is left-aligned."""
    head = "".join('<th class="l">config</th>' if c == "config" else f"<th>{c}</th>" for c in columns)
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def _cells(values: Iterable[str]) -> str:
    return "".join(f"<td>{v}</td>" for v in values)


def _estimate(e: Estimate | None, attrs: str = "") -> str:
    """A mean and its 95 % interval, in a cell."""
    if e is None:
        return "<td>–</td>"
    return f'<td{attrs}>{e.mean:.3f} <span class="ci">[{e.low:.3f}, {e.high:.3f}]</span></td>'


def _results_table(run: EvalRun) -> str:
    rows: list[str] = []
    for b in run.budgets:
        group = [r for r in run.results if r.budget == b]
        best = {m: max(r.mean(m) for r in group) for m in METRICS} if group else {}
        for i, r in enumerate(group):
            cells = "".join(_estimate(r[m], f' class="{"best" if r.mean(m) == best[m] else ""}"')
                            for m in METRICS)
            sep = ' class="sep"' if i == 0 and rows else ""
            rows.append(f'<tr{sep}><td>{b if i == 0 else ""}</td><td class="l">{escape(r.config)}</td>'
                        f"{cells}</tr>")
    return _table(["budget", "config", *(LABELS[m] for m in METRICS)], rows)


def _shape_table(shape: Mapping[tuple[str, int], ShapeStats]) -> str:
    rows = (f'<tr><td>{b}</td><td class="l">{escape(c)}</td>{_cells(s.cells())}</tr>'
            for (c, b), s in sorted(shape.items(), key=lambda kv: kv[0][1]))
    return (_table(["budget", "config", *(SHAPE_LABELS[m] for m in SHAPE_METRICS)], rows) +
            '<p class="note">Fragments: contexts under 15 words (unless the whole document is that '
            "short). Mid-start / mid-end: contexts that start or end inside a sentence (inside a line in "
            "tables, lists and code). Leaning: contexts that open with a sentence leaning on one they "
            "leave out (&ldquo;But&hellip;&rdquo;, &ldquo;This&hellip;&rdquo;).</p>")


def _build_table(run: EvalRun) -> str:
    if not run.build and not run.latency:
        return ""
    rows = []
    for c in run.configs:
        build, latency = cost_cells(run, c)
        owner = shared_build(run, c)
        shown = (f'<td colspan="3" class="ci">the index of {escape(owner)} (built once)</td>' if owner
                 else _cells(build))
        rows.append(f'<tr><td class="l">{escape(c)}</td>{shown}{_cells(latency)}</tr>')
    return _table(["config", "build s", "units embedded", "storage MB", "p50 ms", "p95 ms"], rows)


def _judge_table(run: EvalRun) -> str:
    rows = []
    for j in run.judged:
        lat = run.latency.get(j.config)
        counts = _cells([f"{j.abstained}/{j.judged}", str(j.failed),
                         measured(None if lat is None else lat.p95_ms, ".2f")])
        rows.append(f'<tr><td class="l">{escape(j.config)}</td>{_estimate(j.faithfulness)}'
                    f"{_estimate(j.relevancy)}{counts}</tr>")
    return _table(["config", "faithfulness", "answer relevancy", "abstained", "failed", "p95 ms"], rows)


def render_html(run: EvalRun, *, title: str | None = None) -> str:
    d = run.dataset
    name = str(d.get("name", "dataset"))
    colors = config_colors(list(run.configs))
    frontier = _frontier_charts(run)
    latency = _latency_chart(run, colors)
    forest = _forest(run)
    parts = [
        f"<h1>{escape(title or f'Which chunking for {name}?')}</h1>",
        f'<p class="sub">{d.get("queries", "?")} queries over {d.get("documents", "?")} documents · '
        f'budgets {", ".join(map(str, run.budgets))} ({escape(str(d.get("token_counter", "tokens")))} '
        f'tokens) · corpus {escape(str(d.get("corpus_hash", ""))[:12])}</p>',
        _verdict_block(run),
        _tiles(run),
    ]
    if forest:
        parts += ["<h2>Does multi-scale pay? Each policy against the best fixed size</h2>",
                  f'<div class="card">{forest}</div>',
                  '<p class="note">A policy is recommended only when its whole interval sits right of zero '
                  "(green) at every budget; grey straddles zero (inside the noise), red is a loss.</p>"]
    parts += [
        "<h2>Evidence returned at each budget</h2>",
        _legend(colors),
        '<div class="charts">',
        f'<div class="card"><h3>Evidence recall (share of evidence characters returned)</h3>'
        f'{_metric_chart(run, "evidence_recall", colors)}</div>',
        f'<div class="card"><h3>IoU (evidence vs returned text, repeats counted)</h3>'
        f'{_metric_chart(run, "iou", colors)}</div>',
        "</div>",
        '<p class="note">Shaded bands are bootstrap 95 % intervals over queries; dashed lines are '
        "multi-scale policies, solid lines the fixed sizes (lighter = smaller chunks).</p>",
    ]
    if frontier:
        parts += ["<h2>Gate 0 frontier: precision against recall per fixed size</h2>",
                  f'<div class="card">{frontier}</div>',
                  '<p class="note">Labels are chunk sizes in tokens. One size up and to the right of the '
                  "others at every budget is a flat frontier: pin it. Different leaders per budget mean "
                  "no single size serves every budget.</p>"]
    if latency:
        parts += ["<h2>Query latency</h2>", f'<div class="card" style="max-width:560px">{latency}</div>']
    parts += ["<h2>All numbers</h2>", _results_table(run)]
    if run.shape:
        parts += ["<h2>Context shape</h2>", _shape_table(run.shape)]
    build = _build_table(run)
    if build:
        parts += ["<h2>Cost</h2>", build]
    if run.judged:
        parts += [f"<h2>Answers judged at {run.judged[0].budget} tokens</h2>", _judge_table(run),
                  '<p class="note">Faithfulness = share of the answer\'s claims the returned contexts '
                  "support (answers without claims are counted as abstained). Relevancy: the answer "
                  "addresses the question (1), partly (0.5), not (0). Prompts: docs/evaluation.md.</p>"]
    parts.append(
        '<p class="note">Recall = share of evidence characters returned. Precision = evidence characters '
        "returned / characters returned (text returned twice is paid twice). IoU as in Chroma's chunking "
        "report. Full = share of queries whose evidence is returned entirely. MRR = mean reciprocal rank "
        "of the first context that touches evidence. Every configuration gets the same token budget.</p>")
    body = "\n".join(p for p in parts if p)
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width,initial-scale=1">'
            f"<title>{escape(title or f'zoomrag evaluation: {name}')}</title><style>{_CSS}</style></head>"
            f"<body><main>{body}</main></body></html>\n")


def write_html(run: EvalRun, path: str | os.PathLike[str], *, title: str | None = None) -> Path:
    return atomic_write_text(path, render_html(run, title=title))

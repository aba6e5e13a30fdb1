"""Small inline-SVG charts for the HTML report: no JavaScript, no network, hover titles only.

Three shapes are enough: lines with confidence bands over budgets, a labelled scatter of
precision against recall (the Gate-0 frontier), and horizontal latency bars.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

FONT = "font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif"
AXIS = "#6b7280"
GRID = "#e5e7eb"
INK = "#111827"


@dataclass(frozen=True, slots=True)
class Point:
    x: float
    y: float
    low: float | None = None
    high: float | None = None
    label: str = ""
    tip: str = ""


@dataclass(frozen=True, slots=True)
class Series:
    name: str
    color: str
    points: tuple[Point, ...]
    dashed: bool = False


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """Round tick values covering [lo, hi] (about ``n`` of them)."""
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / max(1, n)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step + 1e-9) * step
    ticks = []
    t = start
    while t <= hi + step * 1e-6:
        ticks.append(round(t, 10))
        t += step
    if ticks[-1] < hi - 1e-12:
        ticks.append(round(t, 10))
    return ticks


def _num(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".") if abs(x) >= 10 else f"{x:.3g}"


def _tick_label(t: float, span: float) -> str:
    if span <= 0.2:
        return f"{t:.2f}"
    if span <= 2:
        return f"{t:.1f}" if round(t * 10) == t * 10 else f"{t:.2f}"
    return _num(t)


class _Frame:
    """Maps data to pixels inside margins and draws axes with grid lines."""

    def __init__(self, width: int, height: int, x_ticks: Sequence[float], y_ticks: Sequence[float], *,
                 left: int = 56, right: int = 16, top: int = 14, bottom: int = 44, log2_x: bool = False):
        self.w, self.h = width, height
        self.l, self.r, self.t, self.b = left, width - right, top, height - bottom
        self.log2_x = log2_x
        self.x_ticks, self.y_ticks = list(x_ticks), list(y_ticks)
        fx = [self._fx(v) for v in self.x_ticks]
        self.x0, self.x1 = min(fx), max(fx)
        self.y0, self.y1 = min(self.y_ticks), max(self.y_ticks)

    def _fx(self, v: float) -> float:
        return math.log2(v) if self.log2_x else v

    def x(self, v: float) -> float:
        if self.x1 == self.x0:
            return (self.l + self.r) / 2
        pad = 18 if self.log2_x else 0  # keep the first and last budget off the axis lines
        return self.l + pad + (self._fx(v) - self.x0) / (self.x1 - self.x0) * (self.r - self.l - 2 * pad)

    def y(self, v: float) -> float:
        return self.b - (v - self.y0) / (self.y1 - self.y0) * (self.b - self.t)

    def axes(self, x_label: str, y_label: str, x_fmt=_num) -> list[str]:
        out = []
        span = self.y1 - self.y0
        for t in self.y_ticks:
            y = self.y(t)
            out.append(f'<line x1="{self.l}" x2="{self.r}" y1="{y:.1f}" y2="{y:.1f}" stroke="{GRID}"/>')
            out.append(f'<text x="{self.l - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11" '
                       f'fill="{AXIS}">{_tick_label(t, span)}</text>')
        for t in self.x_ticks:
            x = self.x(t)
            out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{self.b}" y2="{self.b + 4}" stroke="{AXIS}"/>')
            out.append(f'<text x="{x:.1f}" y="{self.b + 17}" text-anchor="middle" font-size="11" '
                       f'fill="{AXIS}">{escape(x_fmt(t))}</text>')
        out.append(f'<line x1="{self.l}" x2="{self.r}" y1="{self.b}" y2="{self.b}" stroke="{AXIS}"/>')
        out.append(f'<text x="{(self.l + self.r) / 2:.1f}" y="{self.h - 6}" text-anchor="middle" '
                   f'font-size="12" fill="{INK}">{escape(x_label)}</text>')
        cy = (self.t + self.b) / 2
        out.append(f'<text x="14" y="{cy:.1f}" text-anchor="middle" font-size="12" fill="{INK}" '
                   f'transform="rotate(-90 14 {cy:.1f})">{escape(y_label)}</text>')
        return out

    def wrap(self, body: list[str], title: str) -> str:
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.w} {self.h}" '
                f'width="100%" role="img" style="{FONT};max-width:{self.w}px">'
                f'<title>{escape(title)}</title>' + "".join(body) + "</svg>")


def _y_range(values: Sequence[float], *, floor: float = 0.0, ceil: float = 1.0) -> tuple[float, float]:
    lo, hi = min(values), max(values)
    pad = max((hi - lo) * 0.08, 0.01)
    return max(floor, lo - pad), min(ceil, hi + pad)


def line_chart(series: Sequence[Series], *, x_label: str, y_label: str, title: str,
               width: int = 460, height: int = 280, log2_x: bool = True) -> str:
    """Lines over budgets with a translucent confidence band per series."""
    pts = [p for s in series for p in s.points]
    if not pts:
        return ""
    ys = [v for p in pts for v in (p.y, p.low, p.high) if v is not None]
    lo, hi = _y_range(ys)
    xs = sorted({p.x for p in pts})
    f = _Frame(width, height, xs, nice_ticks(lo, hi), log2_x=log2_x)
    body = f.axes(x_label, y_label, x_fmt=lambda v: f"{v:g}")
    for s in series:
        ps = sorted(s.points, key=lambda p: p.x)
        band = [p for p in ps if p.low is not None and p.high is not None]
        if len(band) >= 2:
            upper = " ".join(f"{f.x(p.x):.1f},{f.y(p.high):.1f}" for p in band)
            lower = " ".join(f"{f.x(p.x):.1f},{f.y(p.low):.1f}" for p in reversed(band))
            body.append(f'<polygon points="{upper} {lower}" fill="{s.color}" fill-opacity="0.12"/>')
    for s in series:
        ps = sorted(s.points, key=lambda p: p.x)
        path = " ".join(f"{f.x(p.x):.1f},{f.y(p.y):.1f}" for p in ps)
        dash = ' stroke-dasharray="5 3"' if s.dashed else ""
        body.append(f'<polyline points="{path}" fill="none" stroke="{s.color}" stroke-width="2"{dash}/>')
        for p in ps:
            tip = p.tip or f"{s.name}: {p.y:.3f}"
            body.append(f'<circle cx="{f.x(p.x):.1f}" cy="{f.y(p.y):.1f}" r="3.5" fill="{s.color}" '
                        f'stroke="white" stroke-width="1"><title>{escape(tip)}</title></circle>')
    return f.wrap(body, title)


def scatter_chart(series: Sequence[Series], *, x_label: str, y_label: str, title: str,
                  width: int = 460, height: int = 300) -> str:
    """Labelled points joined in order within each series (the precision/recall frontier)."""
    pts = [p for s in series for p in s.points]
    if not pts:
        return ""
    xlo, xhi = _y_range([p.x for p in pts])
    ylo, yhi = _y_range([p.y for p in pts])
    f = _Frame(width, height, nice_ticks(xlo, xhi), nice_ticks(ylo, yhi), left=60, right=24)
    span = f.x1 - f.x0
    body = f.axes(x_label, y_label, x_fmt=lambda v: _tick_label(v, span))
    for s in series:
        path = " ".join(f"{f.x(p.x):.1f},{f.y(p.y):.1f}" for p in s.points)
        body.append(f'<polyline points="{path}" fill="none" stroke="{s.color}" stroke-width="1.5" '
                    f'stroke-opacity="0.7"/>')
        for p in s.points:
            cx, cy = f.x(p.x), f.y(p.y)
            body.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" fill="{s.color}" stroke="white">'
                        f'<title>{escape(p.tip or p.label)}</title></circle>')
            if p.label:
                body.append(f'<text x="{cx + 6:.1f}" y="{cy - 6:.1f}" font-size="10" fill="{s.color}">'
                            f'{escape(p.label)}</text>')
    return f.wrap(body, title)


@dataclass(frozen=True, slots=True)
class Bar:
    label: str
    value: float
    whisker: float | None = None
    color: str = "#4b5563"
    tip: str = ""


def bar_chart(bars: Sequence[Bar], *, unit: str, title: str, value_label: str = "p50",
              whisker_label: str = "p95", width: int = 460) -> str:
    """Horizontal bars (e.g. p50 latency) with a whisker to a second value (p95)."""
    finite = [b for b in bars if b.value == b.value]
    if not finite:
        return ""
    row, top, left = 26, 10, 120
    height = top + row * len(finite) + 40
    vmax = max(max(b.value, b.whisker or 0) for b in finite) or 1.0
    ticks = nice_ticks(0, vmax, 4)
    f = _Frame(width, height, ticks, [0, 1], left=left, right=60, top=top, bottom=36)
    body = []
    for t in ticks:
        x = f.x(t)
        body.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{f.b}" stroke="{GRID}"/>')
        body.append(f'<text x="{x:.1f}" y="{f.b + 15}" text-anchor="middle" font-size="11" '
                    f'fill="{AXIS}">{_num(t)}</text>')
    body.append(f'<text x="{(f.l + f.r) / 2:.1f}" y="{height - 6}" text-anchor="middle" font-size="12" '
                f'fill="{INK}">{escape(unit)} ({value_label} bar, {whisker_label} whisker)</text>')
    for i, b in enumerate(finite):
        y = top + i * row + 5
        w = f.x(b.value) - f.l
        tip = b.tip or f"{b.label}: {b.value:.2f}"
        body.append(f'<text x="{left - 8}" y="{y + 12}" text-anchor="end" font-size="12" fill="{INK}">'
                    f'{escape(b.label)}</text>')
        body.append(f'<rect x="{f.l}" y="{y}" width="{max(w, 1):.1f}" height="16" rx="2" fill="{b.color}">'
                    f'<title>{escape(tip)}</title></rect>')
        end = f.x(b.value)
        if b.whisker is not None and b.whisker == b.whisker:
            xw = f.x(b.whisker)
            body.append(f'<line x1="{end:.1f}" x2="{xw:.1f}" y1="{y + 8}" y2="{y + 8}" stroke="{b.color}" '
                        f'stroke-width="1.5"/><line x1="{xw:.1f}" x2="{xw:.1f}" y1="{y + 3}" y2="{y + 13}" '
                        f'stroke="{b.color}" stroke-width="1.5"/>')
            end = max(end, xw)
        body.append(f'<text x="{end + 5:.1f}" y="{y + 12}" font-size="11" fill="{AXIS}">{_num(b.value)}'
                    + ("" if b.whisker is None else f" / {_num(b.whisker)}") + "</text>")
    return f.wrap(body, title)

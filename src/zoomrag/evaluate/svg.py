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


def tick_format(ticks: Sequence[float]):
    """A formatter with just enough decimals for the tick step (0.025 steps show 0.025, 0.050)."""
    if len(ticks) < 2:
        return _num
    step = abs(ticks[1] - ticks[0]) or 1.0
    mantissa = step / 10 ** math.floor(math.log10(step))
    decimals = max(0, math.ceil(-math.log10(step) - 1e-9) + (1 if abs(mantissa - 2.5) < 1e-6 else 0))
    d = min(decimals, 4)
    # A tick that is zero up to float noise must not print as "-0.00".
    return lambda t: f"{0.0 if abs(t) < step * 1e-6 else t:.{d}f}"


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

    def axes(self, x_label: str, y_label: str, x_fmt=None) -> list[str]:
        out = []
        y_fmt = tick_format(self.y_ticks)
        x_fmt = x_fmt or tick_format(self.x_ticks)
        for t in self.y_ticks:
            y = self.y(t)
            out.append(f'<line x1="{self.l}" x2="{self.r}" y1="{y:.1f}" y2="{y:.1f}" stroke="{GRID}"/>')
            out.append(f'<text x="{self.l - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11" '
                       f'fill="{AXIS}">{y_fmt(t)}</text>')
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

    def value_grid(self, fmt, label: str) -> list[str]:
        """Vertical grid lines at the x ticks, their values under the plot, and the x label (for
        charts whose rows are labelled on the left)."""
        out = []
        for t in self.x_ticks:
            x = self.x(t)
            out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{self.t}" y2="{self.b}" stroke="{GRID}"/>')
            out.append(f'<text x="{x:.1f}" y="{self.b + 15}" text-anchor="middle" font-size="11" '
                       f'fill="{AXIS}">{fmt(t)}</text>')
        out.append(f'<text x="{(self.l + self.r) / 2:.1f}" y="{self.h - 6}" text-anchor="middle" '
                   f'font-size="12" fill="{INK}">{escape(label)}</text>')
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
        band = [(p.x, p.low, p.high) for p in ps if p.low is not None and p.high is not None]
        if len(band) >= 2:
            upper = " ".join(f"{f.x(x):.1f},{f.y(high):.1f}" for x, _, high in band)
            lower = " ".join(f"{f.x(x):.1f},{f.y(low):.1f}" for x, low, _ in reversed(band))
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


def _place_labels(points: Sequence[tuple[float, float, str]], *, char_w: float = 6.0,
                  h: float = 11.0) -> list[tuple[float, float, str]]:
    """Put each label beside its point where it overlaps no earlier label (else the first spot)."""
    placed: list[tuple[float, float, float, float]] = []
    out = []
    for x, y, text in points:
        w = char_w * len(text)
        spots = [(x + 6, y - 6), (x + 6, y + 12), (x - 6 - w, y - 6), (x - 6 - w, y + 12),
                 (x - w / 2, y - 9), (x - w / 2, y + 17)]
        for lx, ly in spots:
            box = (lx, ly - h + 2, lx + w, ly + 2)
            if not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in placed):
                break
        else:
            lx, ly = spots[0]
            box = (lx, ly - h + 2, lx + w, ly + 2)
        placed.append(box)
        out.append((lx, ly, text))
    return out


def scatter_chart(series: Sequence[Series], *, x_label: str, y_label: str, title: str,
                  width: int = 460, height: int = 300) -> str:
    """Labelled points joined in order within each series (the precision/recall frontier)."""
    pts = [p for s in series for p in s.points]
    if not pts:
        return ""
    xlo, xhi = _y_range([p.x for p in pts])
    ylo, yhi = _y_range([p.y for p in pts], ceil=float("inf"))
    f = _Frame(width, height, nice_ticks(xlo, xhi, 4), nice_ticks(ylo, yhi, 4), left=62, right=22)
    body = f.axes(x_label, y_label)
    labels = []
    for s in series:
        path = " ".join(f"{f.x(p.x):.1f},{f.y(p.y):.1f}" for p in s.points)
        body.append(f'<polyline points="{path}" fill="none" stroke="{s.color}" stroke-width="1.5" '
                    f'stroke-opacity="0.6"/>')
        for p in s.points:
            cx, cy = f.x(p.x), f.y(p.y)
            body.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4.5" fill="{s.color}" stroke="white">'
                        f'<title>{escape(p.tip or p.label)}</title></circle>')
            if p.label:
                labels.append((cx, cy, p.label, s.color))
    spots = _place_labels([(x, y, t) for x, y, t, _ in labels])
    for (lx, ly, text), (*_, color) in zip(spots, labels):
        body.append(f'<text x="{lx:.1f}" y="{ly:.1f}" font-size="10" fill="{color}">{escape(text)}</text>')
    return f.wrap(body, title)


@dataclass(frozen=True, slots=True)
class Interval:
    """One row of a forest plot: an estimate with its interval."""

    label: str
    mean: float
    low: float
    high: float
    color: str
    tip: str = ""


def forest_chart(rows: Sequence[Interval], *, x_label: str, title: str, width: int = 940) -> str:
    """Differences with their 95 % intervals against a zero line: right of zero and clear of it wins."""
    if not rows:
        return ""
    row_h, top, left = 24, 8, 200
    height = top + row_h * len(rows) + 44
    lo = min(0.0, *(r.low for r in rows))
    hi = max(0.0, *(r.high for r in rows))
    pad = (hi - lo) * 0.06 or 0.01
    ticks = nice_ticks(lo - pad, hi + pad, 6)
    f = _Frame(width, height, ticks, [0, 1], left=left, right=24, top=top, bottom=36)
    body = f.value_grid(tick_format(ticks), x_label)
    x0 = f.x(0)
    body.append(f'<line x1="{x0:.1f}" x2="{x0:.1f}" y1="{top}" y2="{f.b}" stroke="{INK}" '
                f'stroke-width="1.2"/>')
    for i, r in enumerate(rows):
        y = top + i * row_h + row_h / 2
        body.append(f'<text x="{left - 10}" y="{y + 4:.1f}" text-anchor="end" font-size="12" fill="{INK}">'
                    f'{escape(r.label)}</text>')
        body.append(f'<g><title>{escape(r.tip or r.label)}</title>'
                    f'<line x1="{f.x(r.low):.1f}" x2="{f.x(r.high):.1f}" y1="{y:.1f}" y2="{y:.1f}" '
                    f'stroke="{r.color}" stroke-width="3" stroke-linecap="round"/>'
                    f'<circle cx="{f.x(r.mean):.1f}" cy="{y:.1f}" r="5" fill="{r.color}" '
                    f'stroke="white"/></g>')
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
    body = f.value_grid(_num, f"{unit} ({value_label} bar, {whisker_label} whisker)")
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

"""How ``zoomrag chunk`` shows a tree: an indented rich tree, exact JSON, or size statistics.

Rendering only; the tree comes from the library. Text from the document is always wrapped in
:class:`rich.text.Text`, never parsed as markup, so ``[bold]`` in a file prints as itself.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.cells import cell_len, get_character_cell_size
from rich.table import Table
from rich.text import Text
from rich.tree import Tree as RichTree

from ..load.base import detect_format, page_name
from ..model import Node, Tree
from ..text.tokens import Measure, TokenCounter

#: Keys of the ``json`` format, in order; anything else a node carries (embed_text) stays out.
DOCUMENT_KEYS = ("id", "source", "format", "length")
NODE_KEYS = ("id", "parent_id", "level", "kind", "start", "end", "section_path", "text")

PREVIEW_CHARS = 60
MIN_PREVIEW = 12
_SPACE = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")
#: What a terminal would act on rather than show: C0 controls but tab and newline, DEL, C1
#: controls (a lone ``\x9b`` is CSI to some terminals) and the bidirectional overrides.
_TERMINAL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(ch: str) -> str:
    return ch.encode("unicode_escape").decode("ascii")


def _shown(ch: str) -> str:
    # A form feed is a page break (the PDF reader writes one between pages, as old plain texts
    # have): the line break beside it shows the break, "\x0c" in mid-text would not read.
    return "" if ch == "\f" else _escape(ch)


def terminal_safe(text: str) -> str:
    """``text`` with every character a terminal would act on written as an escape (``\\x1b``),
    so a document cannot retitle, clear or recolour the user's terminal; a form feed is left
    out."""
    return _TERMINAL.sub(lambda m: _shown(m.group()), text)


def terminal_text(text: str, styles: Iterable[tuple[int, int, str]] = (), style: str = "") -> Text:
    """A rich Text of :func:`terminal_safe` ``text``, with ``(start, end, style)`` ranges given in
    offsets of the raw text."""
    found = [(m.start(), len(_shown(m.group())) - 1) for m in _TERMINAL.finditer(text)]
    out = Text(terminal_safe(text), style=style)
    starts = [p for p, _ in found]
    extra = [0]
    for _, grow in found:
        extra.append(extra[-1] + grow)

    def moved(i: int) -> int:  # an escape lies inside the range of the character it replaces
        return i + extra[bisect_left(starts, i)]

    for s, e, st in styles:
        out.stylize(st, moved(s), moved(e))
    return out


# -- json ----------------------------------------------------------------------------------
def tree_payload(tree: Tree) -> dict[str, Any]:
    """The ``json`` format: exactly DOCUMENT_KEYS and NODE_KEYS, nodes in pre-order."""
    full = tree.to_dict()
    return {
        "document": {k: full["document"][k] for k in DOCUMENT_KEYS},
        "nodes": [{k: n[k] for k in NODE_KEYS} for n in full["nodes"]],
    }


# -- tree ----------------------------------------------------------------------------------
def preview(text: str, width: int = PREVIEW_CHARS) -> str:
    """One line of at most ``width`` terminal cells (a CJK character takes two).

    Whitespace runs become one space and control characters an escape such as ``\\x01``.
    """
    line = _SPACE.sub(" ", text).strip()
    line = _CONTROL.sub(lambda m: _escape(m.group()), line)
    if cell_len(line) <= width:
        return line
    used = 0
    for i, ch in enumerate(line):
        used += get_character_cell_size(ch)
        if used > width - 1:  # one cell is kept for the ellipsis
            return line[:i] + "…"
    return line


def node_label(node: Node, width: int | None = None) -> Text:
    """``kind Lk [start, end) “preview”``; with ``width``, the preview is cut so the line fits."""
    label = Text()
    label.append(node.kind, style="bold cyan")
    label.append(f" L{node.level}", style="magenta")
    label.append(f" [{node.start}, {node.end})", style="green")
    if node.level > 0:
        room = PREVIEW_CHARS
        if width is not None:  # rich indents each level by 4 columns; 3 for the quotes and space
            room = min(room, max(MIN_PREVIEW, width - 4 * node.level - len(label) - 3))
        label.append(" ")
        label.append(f"“{preview(node.text, room)}”", style="dim")
    return label


def rich_tree(tree: Tree, width: int | None = None) -> RichTree:
    """An indented tree: the document line, then every node with kind, level, span, preview.

    ``width`` is the console's: previews are shortened so each node stays on one line.
    """
    doc = tree.document
    head = node_label(tree.root)
    head.append(f" {terminal_safe(doc.source)}", style="bold")
    leaves = len(tree.leaves())
    head.append(f" format={doc.format} nodes={len(tree)} leaves={leaves}", style="dim")
    if tree.strategy:
        head.append(f"\n{tree.strategy}", style="dim")
    root_view = RichTree(head, guide_style="dim")
    views: dict[str, RichTree] = {tree.root.id: root_view}
    for node in tree.nodes[1:]:  # pre-order: a parent's view exists before its children
        views[node.id] = views[node.parent_id].add(node_label(node, width))  # type: ignore[index]
    return root_view


# -- stats ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Sizes:
    """Nearest-rank summary of a list of sizes (all 0 for an empty list)."""

    min: int
    median: int
    p90: int
    max: int

    @classmethod
    def of(cls, values: list[int]) -> Sizes:
        if not values:
            return cls(0, 0, 0, 0)
        v = sorted(values)
        return cls(v[0], _rank(v, 0.5), _rank(v, 0.9), v[-1])


def _rank(sorted_values: list[int], q: float) -> int:
    # Nearest-rank percentile: always a size that occurs, never an interpolated one.
    return sorted_values[max(0, math.ceil(q * len(sorted_values)) - 1)]


@dataclass(frozen=True)
class LevelStats:
    level: int
    kinds: tuple[tuple[str, int], ...]
    count: int
    chars: Sizes
    tokens: Sizes


def level_stats(tree: Tree, counter: TokenCounter) -> list[LevelStats]:
    """Node count and size distribution per level; tokens counted once for the document."""
    measure = Measure(tree.document.text, counter)
    by_level: dict[int, list[Node]] = {}
    for node in tree:
        by_level.setdefault(node.level, []).append(node)
    out = []
    for level in sorted(by_level):
        nodes = by_level[level]
        kinds = Counter(n.kind for n in nodes)
        out.append(LevelStats(
            level=level,
            kinds=tuple(sorted(kinds.items())),
            count=len(nodes),
            chars=Sizes.of([n.length for n in nodes]),
            tokens=Sizes.of([measure.size(n.start, n.end) for n in nodes]),
        ))
    return out


def stats_table(tree: Tree, counter: TokenCounter) -> Table:
    """Two rows per level: sizes in characters, then in tokens of ``counter``."""
    doc = tree.document
    table = Table(
        title=f"{doc.source}: {len(doc.text)} chars, {len(tree)} nodes, {len(tree.leaves())} leaves",
        caption=f"median and p90 by nearest rank; tokens counted by {counter.name!r}",
    )
    for name in ("level", "nodes", "kinds", "size in", "min", "median", "p90", "max"):
        table.add_column(name, justify="left" if name in ("kinds", "size in") else "right")
    for r in level_stats(tree, counter):
        kinds = ", ".join(f"{k}×{n}" for k, n in r.kinds)
        table.add_row(str(r.level), str(r.count), kinds, "chars", *_sizes(r.chars))
        table.add_row("", "", "", "tokens", *_sizes(r.tokens), end_section=True)
    return table


def _sizes(s: Sizes) -> list[str]:
    return [str(s.min), str(s.median), str(s.p90), str(s.max)]


# -- query contexts ------------------------------------------------------------------------
def text_offset(ctx: Any, pos: int) -> int:
    """Where document offset ``pos`` falls in ``ctx.text`` (a context of several spans joins
    them with a line break: :attr:`zoomrag.model.Context.spans`)."""
    at = 0
    for s, e in ctx.parts():
        if pos < e or (s, e) == ctx.parts()[-1]:
            return at + min(max(pos - s, 0), e - s)
        at += e - s + 1
    return at


def spans_label(ctx: Any) -> str:
    """``[120, 480)``, or ``[0, 31) + [120, 480)`` for a context of several spans; then its page
    or pages in a PDF (``p. 4``, ``pp. 4–5``) or its slides in a deck (``slide 4``, ``slides 4–5``)."""
    label = " + ".join(f"[{s}, {e})" for s, e in ctx.parts())
    if ctx.pages:
        first, last = ctx.pages
        deck = page_name(detect_format(Path(ctx.source))) == "slide"
        one, many = ("slide", "slides") if deck else ("p.", "pp.")
        label += f" {one} {first}" if first == last else f" {many} {first}–{last}"
    return label


def context_body(ctx: Any) -> Text:
    """A context's text: every matched unit in bold underline; a span carried with it that
    holds no match (a table's header row, a signature, a footnote, the sentence citing one) dimmed."""
    styles = []
    parts = ctx.parts()
    if len(parts) > 1:
        styles += [(text_offset(ctx, s), text_offset(ctx, e), "dim") for s, e in parts
                   if not any(hs < e and he > s for hs, he, _ in ctx.hits)]
    styles += [(text_offset(ctx, s), text_offset(ctx, e), "bold underline") for s, e, _ in ctx.hits]
    return terminal_text(ctx.text, styles)

"""PowerPoint decks (``.pptx``) through python-pptx (the optional ``pptx`` extra, imported only
when one is read). Each slide is written as the HTML it means — its title as a heading, text
boxes as paragraphs or nested lists, tables with their first row as the header, the speaker
notes under a ``Notes`` heading — and read as any page is (:mod:`.html`). Slides are parted by
form feeds, as a PDF's pages are, so a context says which slides it spans (``Context.pages``).
Shapes are read top to bottom, left to right, as a viewer reads a slide; a picture is its
alternative text, a chart its title over the table of its data. The title is the deck's own (its core properties), else the first slide's.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ...model import Document
from ..base import reader_module
from .html import render_pages
from .pdf import PAGE_BREAK
from .xlsx import cell_text
from .zipped import office_file

#: python-pptx's shape types and placeholder kinds that matter here, by value (the extra is
#: imported only when a deck is read): ``MSO_SHAPE_TYPE`` GROUP and PICTURE; ``PP_PLACEHOLDER``
#: TITLE, CENTER_TITLE and VERTICAL_TITLE.
_GROUP = 6
_PICTURE = 13
_TITLES = frozenset({1, 3, 5})
#: ``PP_PLACEHOLDER`` BODY and OBJECT: text the layout shows as bullets.
_BODIES = frozenset({2, 7})


def _is_title(shape: Any) -> bool:
    return bool(shape.is_placeholder) and int(shape.placeholder_format.type or 0) in _TITLES


def _reading_order(shapes: Any) -> list[Any]:
    """Shapes top to bottom, then left to right (a shape without a position last)."""
    return sorted(shapes, key=lambda s: (s.top if s.top is not None else 1 << 40,
                                         s.left if s.left is not None else 0))


def _lines(text: str) -> str:
    """A paragraph's text as HTML, its line breaks (``\\v`` in python-pptx) kept."""
    lines = (" ".join(escape(line).split()) for line in text.split("\v"))
    return "<br>".join(line for line in lines if line)


def _paragraphs_html(frame: Any, bulleted: bool) -> str:
    """A text frame: a list nested by the paragraphs' levels where the slide shows bullets (a
    body placeholder, or an indented paragraph), else paragraphs."""
    items = [(p.level, _lines(p.text)) for p in frame.paragraphs]
    items = [(level, text) for level, text in items if text]
    if not items:
        return ""
    if len(items) == 1 or not (bulleted or any(level for level, _ in items)):
        return "".join(f"<p>{text}</p>" for _, text in items)
    out, depth = [], -1
    for level, text in items:
        level = min(level, depth + 1)  # a level is never skipped
        if level > depth:
            out.append("<ul>")
            depth = level
        else:
            out.append("</li>")
            while depth > level:
                out.append("</ul></li>")
                depth -= 1
        out.append(f"<li>{text}")
    out.append("</li>" + "</ul></li>" * depth + "</ul>")
    return "".join(out)


def _alt_text(shape: Any) -> str:
    """A picture's alternative text (its ``descr``), as an HTML page's ``alt`` is read."""
    for el in shape.element.iter():
        if str(el.tag).endswith("}cNvPr"):
            return " ".join((el.get("descr") or "").split())
    return ""


def _chart_html(chart: Any) -> str:
    """A chart as its title over the table of its data: a row per series, a column per
    category (what a reader of the slide reads off the bars)."""
    title = " ".join(chart.chart_title.text_frame.text.split()) if chart.has_title else ""
    parts = [f"<p>{escape(title)}</p>"] if title else []
    for plot in chart.plots:
        head = "".join(f"<th>{escape(cell_text(c))}</th>" for c in plot.categories)
        rows = [f"<tr><th>Series</th>{head}</tr>"]
        for series in plot.series:
            values = "".join(f"<td>{escape(cell_text(v))}</td>" for v in series.values)
            rows.append(f"<tr><td>{escape(series.name or '')}</td>{values}</tr>")
        parts.append(f"<table>{''.join(rows)}</table>")
    return "".join(parts)


def _table_html(table: Any) -> str:
    rows = []
    for r, row in enumerate(table.rows):
        tag = "th" if r == 0 else "td"
        cells = "".join(f"<{tag}>{escape(' '.join(c.text.split()))}</{tag}>" for c in row.cells)
        rows.append(f"<tr>{cells}</tr>")
    return f"<table>{''.join(rows)}</table>"


def _shapes_html(shapes: Any, title: Any = None) -> list[str]:
    """The shapes but the slide's title (the XML element of its shape) as HTML, in reading order."""
    parts: list[str] = []
    for shape in _reading_order(shapes):
        if title is not None and shape.element is title:  # lxml keeps one proxy per element
            continue
        if shape.shape_type == _GROUP:
            parts += _shapes_html(shape.shapes)
        elif shape.has_table:
            parts.append(_table_html(shape.table))
        elif shape.has_chart:
            parts.append(_chart_html(shape.chart))
        elif shape.shape_type == _PICTURE and (alt := _alt_text(shape)):
            parts.append(f"<p>{escape(alt)}</p>")  # a picture says what its author wrote of it
        elif shape.has_text_frame:
            body = shape.is_placeholder and int(shape.placeholder_format.type or 0) in _BODIES
            parts.append(_paragraphs_html(shape.text_frame, body))
    return [p for p in parts if p]


def _slide_html(slide: Any) -> str:
    """The slide as HTML, its title (if it has one) as its first heading: its first title shape
    in reading order; another is text, as a layout of several titles shows them."""
    first = next((s for s in _reading_order(slide.shapes)
                  if s.has_text_frame and _is_title(s) and s.text_frame.text.strip()), None)
    title = " ".join(first.text_frame.text.split()) if first is not None else ""
    parts = [f"<h1>{escape(title)}</h1>"] if title else []
    parts += _shapes_html(slide.shapes, first.element if first is not None else None)
    if slide.has_notes_slide:
        notes = slide.notes_slide.notes_text_frame
        text = notes.text.strip() if notes is not None else ""
        if text:
            parts.append("<h2>Notes</h2>" + "".join(f"<p>{escape(line)}</p>" for line in text.split("\n")
                                                     if line.strip()))
    return f"<html><body>{''.join(parts)}</body></html>"


def read_pptx(path: Path, doc_id: str) -> Document:
    source = str(path)
    pptx = reader_module("pptx", source, "PowerPoint decks", "pptx")
    with office_file(path, "PowerPoint deck", "pptx"):
        deck = pptx.Presentation(str(path))
        slides = [_slide_html(slide) for slide in deck.slides]
        title = " ".join((deck.core_properties.title or "").split())
    text, blocks, first = render_pages(slides, PAGE_BREAK, keep_empty=True)
    return Document(id=doc_id, source=source, text=text, format="pptx",
                    metadata=MappingProxyType({"title": title or first}), blocks=tuple(blocks))

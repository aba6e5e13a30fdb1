"""OpenDocument files, as LibreOffice and OpenOffice save them (and Word, Google Docs and Excel
export them): text (``.odt``), spreadsheets (``.ods``) and presentations (``.odp``). An
OpenDocument file is a zip whose ``content.xml`` holds the whole body, so the standard library
reads it; each file is written as the HTML it means and read as any page is (:mod:`.html`), so
spans point into the rendering, as for a Word document.

- text: headings by their outline level, paragraphs, lists (numbered where the list's style
  numbers them), tables with their first row as the header, text boxes, pictures as their
  alternative text, footnotes and endnotes as notes, text a style sets in bold as bold (a
  document titled in bold has its titles: :mod:`.html_look`). The generated table of contents and
  indexes, comments and tracked deletions are not the document's text and are left out;
- spreadsheets: each sheet as an Excel sheet is read (:func:`.xlsx.sheet_html`): its name over
  its tables, cells as the sheet shows them;
- presentations: a slide a page (parted as a PDF's pages, so a context says its slides), its
  title as a heading, then its text, tables, charts and pictures top to bottom, left to right,
  the speaker notes under ``Notes``.

The title is the document's own (``dc:title`` in ``meta.xml``), else its first heading.
Password-protected files are refused with what to do.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from collections.abc import Callable, Iterator
from html import escape
from pathlib import Path
from types import MappingProxyType
from xml.etree import ElementTree

from ...errors import InputError
from ...model import Document
from .html import code_html, nested_list_html, render_pages
from .html_notes import endnotes_html, noteref_html
from .pdf import PAGE_BREAK
from .xlsx import CellBudget, sheet_html
from .zipped import check_unpacked

_NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
    "presentation": "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0",
    "style": "urn:oasis:names:tc:opendocument:xmlns:style:1.0",
    "svg": "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0",
    "dc": "http://purl.org/dc/elements/1.1/",
    "manifest": "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0",
    "chart": "urn:oasis:names:tc:opendocument:xmlns:chart:1.0",
    "xlink": "http://www.w3.org/1999/xlink",
    "fo": "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0",
}


def _q(name: str) -> str:
    """``"text:p"`` as ElementTree names it."""
    prefix, local = name.split(":")
    return f"{{{_NS[prefix]}}}{local}"


#: Parts of the body that are not the document's own text: generated contents and indexes,
#: comments, tracked changes (their deleted text), sequence and variable declarations.
_SKIPPED = frozenset(_q(n) for n in (
    "text:table-of-content", "text:alphabetical-index", "text:illustration-index", "text:table-index",
    "text:object-index", "text:user-index", "text:bibliography", "office:annotation", "office:annotation-end",
    "text:tracked-changes", "text:sequence-decls", "text:variable-decls", "text:user-field-decls",
    "office:forms", "presentation:notes", "svg:title", "svg:desc", "text:note"))
#: Cells and rows a sheet repeats; an empty one repeated to the sheet's edge (LibreOffice writes
#: 1,048,576 rows and 16,384 columns so) is kept only as far as a filled one follows.
_MAX_REPEAT = 1000
_MAX_COLUMNS = 1024


class _Body:
    """The HTML of a document body, with its notes collected to go after it."""

    def __init__(self, numbered: frozenset[tuple[str, int]], kinds: dict[str, int], budget: CellBudget,
                 objects: dict[str, ElementTree.Element], bold: frozenset[str] = frozenset()) -> None:
        self.objects = objects  # embedded objects (charts, sheets) by their folder in the zip
        self.budget = budget  # cells of tables, repeats unrolled
        self.numbered = numbered  # (list style, level) where the style numbers its items
        self.kinds = kinds  # paragraph styles that make a heading (its level), code or the title
        self.bold = bold  # paragraph and text styles that set their text in bold
        self.title: str | None = None
        self.notes: list[tuple[str, str]] = []

    def inline(self, el: ElementTree.Element) -> str:
        """An element's text as inline HTML: spaces, tabs and line breaks as ODF marks them."""
        out = [escape(el.text or "")]
        for child in el:
            tag = child.tag
            if tag == _q("text:s"):
                out.append(" " * min(_int(child.get(_q("text:c")), 1), 100))
            elif tag == _q("text:tab"):
                out.append(" ")
            elif tag == _q("text:line-break"):
                out.append("<br>")
            elif tag == _q("text:note"):
                out.append(self._note(child))
            elif tag == _q("draw:frame"):
                out.append(self._frame_text(child))
            elif tag == _q("text:span") and child.get(_q("text:style-name"), "") in self.bold:
                out.append(f"<b>{self.inline(child)}</b>")
            elif tag not in _SKIPPED:
                out.append(self.inline(child))
            out.append(escape(child.tail or ""))
        return "".join(out)

    def _note(self, note: ElementTree.Element) -> str:
        citation = note.find(_q("text:note-citation"))
        label = "".join(citation.itertext()).strip() if citation is not None else ""
        label = label or str(len(self.notes) + 1)
        body = note.find(_q("text:note-body"))
        self.notes.append((label, self.blocks(body) if body is not None else ""))
        return noteref_html(label)

    def _frame_text(self, frame: ElementTree.Element) -> str:
        """A frame anchored in a paragraph, as inline text: a picture's alternative text."""
        return " ".join(self._alt(frame).split())

    @staticmethod
    def _alt(frame: ElementTree.Element) -> str:
        parts = []
        for name in ("svg:title", "svg:desc"):
            el = frame.find(_q(name))
            if el is not None and "".join(el.itertext()).strip():
                parts.append(" ".join("".join(el.itertext()).split()))
        return escape(" — ".join(parts))

    def _kind(self, el: ElementTree.Element) -> int | None:
        return self.kinds.get(el.get(_q("text:style-name"), "")) if el.tag == _q("text:p") else None

    def blocks(self, el: ElementTree.Element) -> str:
        """The block-level children of ``el`` as HTML; paragraphs of a preformatted style one
        after another are one code block, a line each, their spaces kept; a list continued by
        the lists after it (as a file converted from Word writes one) is one list."""
        out: list[str] = []
        code: list[str] = []
        items: list[tuple[int, bool, str]] = []
        for child in el:
            if child.tag == _q("text:list") and items and _continues(child):
                items += self._items(child, child.get(_q("text:style-name"), ""), 1)
                continue
            if items:
                out.append(nested_list_html(items))
                items = []
            if child.tag == _q("text:list"):
                items = self._items(child, child.get(_q("text:style-name"), ""), 1)
                continue
            if self._kind(child) == _CODE:
                code.append(_plain(child, keep_spaces=True))
                continue
            if code:
                out.append(code_html(code))
                code = []
            out.append(self.block(child))
        if items:
            out.append(nested_list_html(items))
        if code:
            out.append(code_html(code))
        return "".join(out)

    def block(self, el: ElementTree.Element) -> str:
        tag = el.tag
        if tag in _SKIPPED:
            return ""
        level = max(self._kind(el) or 0, 0)
        if self._kind(el) == _TITLE and self.title is None:
            self.title = " ".join(_plain(el).split()) or None
        if tag == _q("text:h"):
            level = _int(el.get(_q("text:outline-level")), 1)
        if level:
            level = min(max(level, 1), 6)
            return f"<h{level}>{self.inline(el)}</h{level}>"
        if tag == _q("text:p"):
            # a text box or a chart anchored in a paragraph holds blocks of its own: they follow it
            frames = [self._frame(f) for f in _frames(el)
                      if f.find(_q("draw:text-box")) is not None or f.find(_q("draw:object")) is not None]
            text = self.inline(el)
            if el.get(_q("text:style-name"), "") in self.bold:
                text = f"<b>{text}</b>"  # a title drawn in bold (html_look)
            return (f"<p>{text}</p>" if text.strip() else "") + "".join(frames)
        if tag == _q("text:list"):
            return nested_list_html(self._items(el, el.get(_q("text:style-name"), ""), 1))
        if tag == _q("table:table"):
            return self._table(el)
        if tag == _q("draw:frame"):
            return self._frame(el)
        return self.blocks(el)  # sections, soft page breaks, groups: what they hold

    def _frame(self, frame: ElementTree.Element) -> str:
        box = frame.find(_q("draw:text-box"))
        if box is not None:
            return self.blocks(box)
        table = frame.find(_q("table:table"))
        if table is not None:
            return self._table(table)
        embedded = frame.find(_q("draw:object"))
        name = (embedded.get(_q("xlink:href")) or "").removeprefix("./").strip("/") if embedded is not None else ""
        if name in self.objects:
            return self._object(self.objects[name])
        alt = self._alt(frame)
        return f"<p>{alt}</p>" if alt else ""

    def _object(self, root: ElementTree.Element) -> str:
        """An embedded object: a chart as its title over its data's table, a sheet as its
        tables, a text as its blocks (a formula or a drawing has none)."""
        body = root.find(_q("office:body"))
        chart = body.find(f"{_q('office:chart')}/{_q('chart:chart')}") if body is not None else None
        if chart is not None:
            title = chart.find(_q("chart:title"))
            words = " ".join(_plain(title).split()) if title is not None else ""
            table = chart.find(_q("table:table"))
            return (f"<p>{escape(words)}</p>" if words else "") + (self._table(table) if table is not None else "")
        for kind in ("office:spreadsheet", "office:text"):
            part = body.find(_q(kind)) if body is not None else None
            if part is not None:
                return "".join(self._table(t) for t in part.findall(_q("table:table"))) if kind == "office:spreadsheet" \
                    else self.blocks(part)
        return ""

    def _items(self, el: ElementTree.Element, style: str, level: int) -> list[tuple[int, bool, str]]:
        """A list's items as ``(level from 0, numbered, HTML)``, its nested lists' after the item
        holding them; a nested list keeps its parent's style (unless it names its own)."""
        out: list[tuple[int, bool, str]] = []
        for item in el:
            if item.tag not in (_q("text:list-item"), _q("text:list-header")):
                continue
            own = "".join(self.block(c) for c in item if c.tag != _q("text:list"))
            if own:
                out.append((level - 1, (style, level) in self.numbered, own))
            for c in item:
                if c.tag == _q("text:list"):
                    out += self._items(c, c.get(_q("text:style-name"), style), level + 1)
        return out

    def _table(self, table: ElementTree.Element) -> str:
        rows = list(_rows(table, self.budget, lambda cell: "<br>".join(
            t for t in (self.inline(c) if c.tag in (_q("text:p"), _q("text:h")) else escape(_plain(c))
                        for c in cell) if t.strip())))
        if not rows:
            return ""
        html = [f"<tr>{''.join(f'<th>{c}</th>' for c in rows[0])}</tr>"]
        html += [f"<tr>{''.join(f'<td>{c}</td>' for c in row)}</tr>" for row in rows[1:]]
        return f"<table>{''.join(html)}</table>"

    def notes_html(self) -> str:
        return endnotes_html(self.notes)


#: Lengths in ODF's units, in centimetres.
_UNITS = {"cm": 1.0, "mm": 0.1, "in": 2.54, "pt": 2.54 / 72, "pc": 2.54 / 6, "px": 2.54 / 96}
_LENGTH = re.compile(r"(-?[\d.]+)\s*(cm|mm|in|pt|pc|px)")


def _length(value: str | None) -> float | None:
    m = _LENGTH.fullmatch(value.strip()) if value else None
    try:
        return float(m[1]) * _UNITS[m[2]] if m else None
    except ValueError:
        return None


def _position(shape: ElementTree.Element) -> tuple[float, float]:
    """Where a slide's shape is, top to bottom then left to right, as a viewer reads a slide (a
    deck lists its shapes in drawing order); a shape without a position comes last."""
    y, x = _length(shape.get(_q("svg:y"))), _length(shape.get(_q("svg:x")))
    return (y if y is not None else float("inf"), x if x is not None else 0.0)


def _continues(lst: ElementTree.Element) -> bool:
    """Whether a list goes on with the one before it: it says so (``text:continue-list``,
    ``text:continue-numbering``), or its first item holds nothing but a deeper list, which is
    how a file converted from Word or PowerPoint writes the nested levels of one list."""
    if lst.get(_q("text:continue-list")) or lst.get(_q("text:continue-numbering")) == "true":
        return True
    first = next((i for i in lst if i.tag in (_q("text:list-item"), _q("text:list-header"))), None)
    return first is not None and len(first) > 0 and all(c.tag == _q("text:list") for c in first)


def _plain(el: ElementTree.Element, *, keep_spaces: bool = False) -> str:
    """An element's text, its marked spaces kept and tabs and line breaks as spaces (as they
    are, with ``keep_spaces``: code), notes left out."""
    out = [el.text or ""]
    for child in el:
        if child.tag == _q("text:s"):
            out.append(" " * min(_int(child.get(_q("text:c")), 1), 100))
        elif child.tag in (_q("text:tab"), _q("text:line-break")):
            out.append(("\t" if child.tag == _q("text:tab") else "\n") if keep_spaces else " ")
        elif child.tag not in _SKIPPED:
            out.append(_plain(child, keep_spaces=keep_spaces))
        out.append(child.tail or "")
    return "".join(out)


def _frames(el: ElementTree.Element) -> Iterator[ElementTree.Element]:
    """The frames inside ``el``, not those inside another frame."""
    for child in el:
        if child.tag == _q("draw:frame"):
            yield child
        else:
            yield from _frames(child)


def _table_rows(el: ElementTree.Element) -> Iterator[ElementTree.Element]:
    """A table's own rows, in order, through header rows and row groups (not a nested table's)."""
    for child in el:
        if child.tag == _q("table:table-row"):
            yield child
        elif child.tag in (_q("table:table-header-rows"), _q("table:table-rows"), _q("table:table-row-group")):
            yield from _table_rows(child)


def _rows(table: ElementTree.Element, budget: CellBudget,
          text_of: Callable[[ElementTree.Element], str]) -> Iterator[list[str]]:
    """A table's rows of cell texts, repeats unrolled, empty cells and rows at its edges left out."""
    blank_rows = 0
    for row in _table_rows(table):
        cells: list[str] = []
        blank = 0
        for cell in row:
            if cell.tag not in (_q("table:table-cell"), _q("table:covered-table-cell")):
                continue
            repeat = _int(cell.get(_q("table:number-columns-repeated")), 1)
            text = text_of(cell)
            if not text.strip():
                blank += repeat
                continue
            cells += [""] * min(blank, _MAX_COLUMNS)
            cells += [text] * min(repeat, _MAX_REPEAT)
            blank = 0
            if len(cells) >= _MAX_COLUMNS:
                break
        cells = cells[:_MAX_COLUMNS]
        repeat = _int(row.get(_q("table:number-rows-repeated")), 1)
        if not cells:
            blank_rows += repeat
            continue
        for _ in range(min(blank_rows, 1)):  # one blank row still parts two tables of a sheet
            yield []
        blank_rows = 0
        for _ in range(min(repeat, _MAX_REPEAT)):
            budget.spend(len(cells))
            yield cells


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


#: A heading style's name as LibreOffice writes it (``Heading_20_2``, "Heading 2").
_HEADING_NAME = re.compile(r"heading(?:_20_| )?([1-9])", re.IGNORECASE)
#: Styles of code: LibreOffice's and pandoc's "Preformatted Text", Word's "HTML Preformatted",
#: "Source Code" and the like.
_CODE_NAME = re.compile(r"(?:html(?:_20_| )?)?preformatted(?:(?:_20_| )text)?|source(?:_20_| )?code|code",
                        re.IGNORECASE)
#: The kinds of paragraph style that make code and the document's title, beside heading levels
#: 1 to 6. A title stays a paragraph (a heading above the level-1 headings would hold nothing
#: of its own) and names the document when its properties do not.
_CODE = 0
_TITLE = -1


def _paragraph_styles(*roots: ElementTree.Element | None) -> dict[str, int]:
    """Paragraph styles that make a paragraph a heading (its level) or a line of code
    (:data:`_CODE`), by name or outline level, or derived from one that does. A document
    converted from Word writes its headings as paragraphs of style ``Heading_20_1`` when Word's
    style had no outline level, and pandoc writes code as paragraphs of ``Preformatted_20_Text``."""
    own: dict[str, int] = {"Title": _TITLE}  # pandoc writes "Title" without defining it
    parents: dict[str, str] = {}
    for root in roots:
        for style in root.iter(_q("style:style")) if root is not None else ():
            name = style.get(_q("style:name"), "")
            if style.get(_q("style:family")) != "paragraph" or not name:
                continue
            shown = style.get(_q("style:display-name")) or name
            m = _HEADING_NAME.fullmatch(shown)
            level = _int(style.get(_q("style:default-outline-level")), 0) or (int(m.group(1)) if m else 0)
            if level:
                own[name] = level
            elif _CODE_NAME.fullmatch(shown):
                own[name] = _CODE
            if style.get(_q("style:parent-style-name")):
                parents[name] = style.get(_q("style:parent-style-name"), "")
    levels = {}
    for name in set(own) | set(parents):
        at, hops = name, 0
        while at not in own and at in parents and hops < 8:  # automatic styles derive from named ones
            at, hops = parents[at], hops + 1
        if at in own:
            levels[name] = own[at]
    return levels


def _bold_styles(*roots: ElementTree.Element | None) -> frozenset[str]:
    """Paragraph and text styles that set their text in bold (``fo:font-weight``), by their own
    properties or the style they derive from."""
    own: dict[str, bool] = {}
    parents: dict[str, str] = {}
    for root in roots:
        for style in root.iter(_q("style:style")) if root is not None else ():
            name = style.get(_q("style:name"), "")
            props = style.find(_q("style:text-properties"))
            weight = props.get(_q("fo:font-weight")) if props is not None else None
            if weight is not None:
                own[name] = weight == "bold" or weight.isdigit() and int(weight) >= 600
            if style.get(_q("style:parent-style-name")):
                parents[name] = style.get(_q("style:parent-style-name"), "")
    bold = set()
    for name in set(own) | set(parents):
        at, hops = name, 0
        while at not in own and at in parents and hops < 8:
            at, hops = parents[at], hops + 1
        if own.get(at):
            bold.add(name)
    return frozenset(bold)


def _numbered_styles(*roots: ElementTree.Element | None) -> frozenset[tuple[str, int]]:
    """``(list style, level)`` for each level a list style numbers."""
    numbered: set[tuple[str, int]] = set()
    for root in roots:
        for style in root.iter(_q("text:list-style")) if root is not None else ():
            for level in style.iter(_q("text:list-level-style-number")):
                if level.get(_q("style:num-format")):
                    numbered.add((style.get(_q("style:name"), ""), _int(level.get(_q("text:level")), 1)))
    return frozenset(numbered)


def _open(path: Path, what: str) -> tuple[ElementTree.Element, ElementTree.Element | None, str | None,
                                         dict[str, ElementTree.Element]]:
    """The file's ``content.xml`` and ``styles.xml`` roots, its title and its embedded objects'
    contents (a chart's ``Object 1/content.xml``) by folder."""
    with zipfile.ZipFile(path) as z:
        check_unpacked(z, path, what)
        names = set(z.namelist())
        if "META-INF/manifest.xml" in names and b"encryption-data" in z.read("META-INF/manifest.xml"):
            raise InputError(f"{path}: this {what} is protected by a password; save a copy without the "
                             "password (File > Properties > Security, or Save As without it) and index that")
        if "content.xml" not in names:
            raise InputError(f"{path}: this {what} holds no content.xml, so it has no text (a file of styles "
                             "only, or a damaged one); open and save it again in LibreOffice, or leave it out")
        content = ElementTree.fromstring(z.read("content.xml"))
        styles = ElementTree.fromstring(z.read("styles.xml")) if "styles.xml" in names else None
        title = None
        if "meta.xml" in names:
            el = ElementTree.fromstring(z.read("meta.xml")).find(f".//{_q('dc:title')}")
            title = " ".join("".join(el.itertext()).split()) if el is not None else None
        objects = {name.removesuffix("/content.xml"): ElementTree.fromstring(z.read(name))
                   for name in names if name.endswith("/content.xml")}
    return content, styles, title or None, objects


def _read(path: Path, what: str, extension: str) -> tuple[ElementTree.Element, _Body, str | None]:
    try:
        content, styles, title, objects = _open(path, what)
    except InputError:
        raise
    except (zipfile.BadZipFile, KeyError, ValueError, ElementTree.ParseError, OSError, RuntimeError,
            EOFError, NotImplementedError, zlib.error) as e:
        raise InputError(f"{path}: cannot read this {what} ({type(e).__name__}: {e}); check that it is a "
                         f"complete .{extension} file (an older format must be saved as .{extension} first)") from e
    body = content.find(f"{_q('office:body')}")
    if body is None:
        raise InputError(f"{path}: this {what} has no body (content.xml without office:body); check that "
                         f"it is a complete .{extension} file")
    body_html = _Body(_numbered_styles(content, styles), _paragraph_styles(styles, content), CellBudget(str(path)),
                      objects, _bold_styles(styles, content))
    return body, body_html, title


def _document(path: Path, doc_id: str, fmt: str, pages: list[str], separator: str, title: str | None, *,
              keep_empty: bool = False) -> Document:
    text, blocks, first = render_pages(pages, separator, keep_empty=keep_empty)
    return Document(id=doc_id, source=str(path), text=text, format=fmt,
                    metadata=MappingProxyType({"title": title or first}), blocks=tuple(blocks))


def read_odt(path: Path, doc_id: str) -> Document:
    body, html, title = _read(path, "text document", "odt")
    text = body.find(_q("office:text"))
    main = html.blocks(text) if text is not None else ""
    return _document(path, doc_id, "odt", [f"<html><body>{main}{html.notes_html()}</body></html>"], "\n\n",
                     title or html.title)


def read_ods(path: Path, doc_id: str) -> Document:
    body, html, title = _read(path, "spreadsheet", "ods")
    sheet = body.find(_q("office:spreadsheet"))
    pages = []
    for table in sheet.findall(_q("table:table")) if sheet is not None else ():
        # a cell as the sheet shows it: its paragraphs' text, formatted as the sheet formats it
        rows = list(_rows(table, html.budget, lambda cell: " ".join(_plain(cell).split())))
        if any(rows):
            pages.append(sheet_html(table.get(_q("table:name"), ""), rows))
    return _document(path, doc_id, "ods", pages, "\n\n", title)


def read_odp(path: Path, doc_id: str) -> Document:
    body, html, title = _read(path, "presentation", "odp")
    deck = body.find(_q("office:presentation"))
    slides = []
    for page in deck.findall(_q("draw:page")) if deck is not None else ():
        title_html, parts = "", []
        for frame in sorted(page, key=_position):
            words = " ".join(_plain(frame).split())
            if not title_html and words and frame.get(_q("presentation:class")) == "title":
                title_html = f"<h1>{escape(words)}</h1>"  # the first title; others are text
            else:
                parts.append(html.block(frame))
        notes = page.find(_q("presentation:notes"))
        said = "".join(html.block(f) for f in notes if f.get(_q("presentation:class")) == "notes") \
            if notes is not None else ""
        if said.strip():
            parts.append(f"<h2>Notes</h2>{said}")
        slides.append(f"<html><body>{title_html}{''.join(parts)}{html.notes_html()}</body></html>")
        html.notes.clear()
    return _document(path, doc_id, "odp", slides, PAGE_BREAK, title, keep_empty=True)

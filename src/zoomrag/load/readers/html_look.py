"""What an HTML page's look says where its markup does not: titles drawn in bold, page furniture.

Filings (EDGAR's 10-K and 10-Q as the filing agents write them), Word documents saved as HTML or
converted by mammoth, and pages written by hand often have no ``h1``–``h6``: a title is a
paragraph in bold, in a larger size or underlined (by its tags, its inline style, or a class its
style sheet styles so: Google Docs' export). In a page with no heading element, a block
whose every letter is drawn so, short and not a lead-in (no closing colon), is a heading. Its
level follows the document's numbering where it has one (``PART I`` over ``Item 1A.`` over
``1.`` over ``1.1``, as :data:`~zoomrag.text.markers.MARKER_RANK` ranks them) and its look where
it does not: an unnumbered title sits under the numbered one it follows; a style first seen
under another is a level under it, and a more prominent style (larger, then capitals, then
upright) closes the less prominent ones open. A page where most of the text is bold has no titles
to tell by look.

A table of contents (rows linking to places in the page, each ending with a page number) is
left out with its title, as a generated one in a Word document is: the sections are there.

A paged document (``page-break-before``/``-after``, ``break-before: page``) carries a running
head or foot at each page break: a page number (``7``, ``- 7 -``, ``Page 7 of 90``, ``F-3``) or
a line repeated at three or more breaks with only its numbers changed (``Acme Inc. | 2023
Form 10-K | 7``). Those lines are left out of the text, as the page numbers of a PDF are.

The renderer (:mod:`.html`) reads the marks this module sets on the parsed tree.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from selectolax.lexbor import LexborNode

from ...text.markers import marker_rank
from .pdf_pages import PAGE_NUMBER, numbers_run

__all__ = ["DROP_MARK", "HEADING_MARK", "mark_look"]

#: Attribute set on a block that is page furniture (the renderer drops it).
DROP_MARK = "data-zoomrag-furniture"
#: Attribute set on a block drawn as a title, holding its level.
HEADING_MARK = "data-zoomrag-heading"

_STYLE_PROP = re.compile(r"([a-z-]+)\s*:\s*([^;]+)")
_STYLE_SHEET = re.compile(r"<style\b[^>]*>(.*?)</style>", re.I | re.S)
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_CLASS_SELECTOR = re.compile(r"(?:[a-z][a-z0-9]*)?\.([\w-]+)", re.I)
#: The properties of a look.
_LOOK_PROPS = frozenset({"font-weight", "font-style", "text-decoration", "text-decoration-line",
                         "font-size", "font", "text-align"})
_BREAK = re.compile(r"(?:page-)?break-(?:before|after)\s*:\s*(?:always|page|left|right)", re.I)
#: The same as CSS is mostly written, searched first: a pattern led by a literal is found fast.
_BREAK_LOWER = re.compile(r"break-(?:before|after)\s*:\s*(?:always|page|left|right)")
_BREAK_AFTER = re.compile(r"(?:page-)?break-after\s*:\s*(?:always|page|left|right)", re.I)
_WS = re.compile(r"[ \t\n\r\f\xa0]+")
_LETTER = re.compile(r"[^\W\d_]")
_NUMBER = re.compile(r"\d+")
#: Tags in whose text a title is not a section's: table cells, list items, terms, quotations.
_NOT_TITLES = frozenset({"td", "th", "li", "dt", "dd", "pre", "blockquote", "figcaption", "caption",
                         "summary", "legend", "address"})
_HEADING_TAGS = "h1, h2, h3, h4, h5, h6"
#: ``<font size=N>`` in points.
_FONT_SIZES = {1: 7.5, 2: 10.0, 3: 12.0, 4: 13.5, 5: 18.0, 6: 24.0, 7: 36.0}
_DEFAULT_SIZE = 12.0
_LARGER = 1.15
_MAX_TITLE_WORDS = 40
_MAX_TITLE_CHARS = 300
#: A page with more than this share of its text drawn as titles has no titles by look.
_MAX_TITLE_SHARE = 0.5
#: Words of a line at a page break that may be a running head or foot.
_MAX_FURNITURE_WORDS = 12
#: Page breaks a running line must be found at (besides a bare page number).
_RUNNING = 3
#: Share of a table's rows that link to a place in the page and end with a page number: a
#: table of contents.
_CONTENTS_SHARE = 0.6
#: Titles of a table of contents, left out with it ("INDEX TO FINANCIAL STATEMENTS" too).
_CONTENTS_TITLE = re.compile(r"(?:table of )?contents|index(?: to\b.*)?|toc", re.I)
#: Cells of a one-row table read as one block.
_TITLE_CELLS = 4
#: Blocks with text read on each side of a page break (a page number and a running head).
_EDGE = 2


@dataclass(frozen=True, slots=True)
class _Look:
    """How a run of text is drawn."""

    bold: bool = False
    italic: bool = False
    underline: bool = False
    size: float = _DEFAULT_SIZE
    centered: bool = False
    #: Inside a link: a line of links is navigation, not a title.
    linked: bool = False


@dataclass(slots=True)
class _Block:
    """A block element and the text directly in it (not in blocks inside it)."""

    node: LexborNode
    pieces: list[tuple[str, _Look]]
    leaf: bool = True
    in_title_free: bool = False

    def text(self) -> str:
        return _WS.sub(" ", "".join(p for p, _ in self.pieces)).strip()


def _size(value: str, inherited: float) -> float:
    v = value.strip().lower()
    for unit, scale in (("pt", 1.0), ("px", 0.75), ("rem", 12.0), ("em", inherited), ("%", inherited / 100)):
        if v.endswith(unit):
            try:
                return float(v[:-len(unit)]) * scale
            except ValueError:
                return inherited
    return {"larger": inherited * 1.2, "smaller": inherited / 1.2, "large": 13.5, "x-large": 18.0,
            "xx-large": 24.0, "small": 10.0, "x-small": 7.5}.get(v, inherited)


def class_styles(html: str) -> dict[str, list[tuple[str, str]]]:
    """The declarations a page's style sheets give each class by a plain class selector
    (``.c4{font-weight:700}``, ``p.title{…}``): how Google Docs, Word and e-book makers set
    their titles."""
    styles: dict[str, list[tuple[str, str]]] = {}
    for sheet in _STYLE_SHEET.findall(html):
        for selectors, body in _RULE.findall(_CSS_COMMENT.sub("", sheet)):
            declared = [(p, v.strip()) for p, v in _STYLE_PROP.findall(body.lower()) if p in _LOOK_PROPS]
            if not declared:
                continue
            for selector in selectors.split(","):
                m = _CLASS_SELECTOR.fullmatch(selector.strip())
                if m is not None:
                    styles.setdefault(m.group(1), []).extend(declared)
    return styles


def _look(node: LexborNode, outer: _Look, sheet: dict[str, list[tuple[str, str]]]) -> _Look:
    """The look of ``node``'s text, given the look it inherits and the page's class styles."""
    tag = node.tag
    bold = outer.bold or tag in ("b", "strong") or tag in ("h1", "h2", "h3", "h4", "h5", "h6", "th")
    italic = outer.italic or tag in ("i", "em", "cite")
    underline = outer.underline or tag == "u"
    size, centered = outer.size, outer.centered or tag == "center"
    attrs = node.attributes
    if tag == "font" and (raw := attrs.get("size")):
        try:
            n = int(raw)
            n = 3 + n if raw.strip()[0] in "+-" else n
            size = _FONT_SIZES[min(max(n, 1), 7)]
        except (ValueError, IndexError):
            pass
    if (attrs.get("align") or "").lower() == "center":
        centered = True
    declared: list[tuple[str, str]] = []
    if sheet and (names := attrs.get("class")):
        for name in names.split():
            declared += sheet.get(name, ())
    style = attrs.get("style")
    if style:
        declared += _STYLE_PROP.findall(style.lower())
    if declared:
        for prop, value in declared:
            value = value.strip()
            if prop == "font-weight":
                bold = value in ("bold", "bolder") or value.isdigit() and int(value) >= 600
            elif prop == "font-style":
                italic = value in ("italic", "oblique")
            elif prop == "text-decoration" or prop == "text-decoration-line":
                underline = "underline" in value
            elif prop == "font-size":
                size = _size(value, outer.size)
            elif prop == "font":  # the shorthand: "bold 10pt Times", "italic 700 12px/1.2 Arial"
                words = value.replace("/", " ").split()
                bold = any(w in ("bold", "bolder") or w.isdigit() and int(w) >= 600 for w in words)
                italic = "italic" in words or "oblique" in words
                size = next((_size(w, outer.size) for w in words if w[:1].isdigit() and not w.isdigit()), size)
            elif prop == "text-align":
                centered = value == "center"
    linked = outer.linked or tag == "a" and attrs.get("href") is not None
    return _Look(bold, italic, underline, size, centered, linked)


def _one_row(table: LexborNode) -> bool:
    """A table of one row of a few cells holding no lists, tables or code: filing agents set a
    title so (``Item 1.`` in one cell, ``Business`` in the next)."""
    rows = table.css("tr")
    return (len(rows) == 1 and len(rows[0].css("td, th")) <= _TITLE_CELLS
            and table.css_first("table table, ul, ol, dl, pre") is None)


def _walk(root: LexborNode, blocks: frozenset[str], dropped: Callable[[LexborNode], bool],
          sheet: dict[str, list[tuple[str, str]]]) -> list[_Block | None]:
    """The page's blocks in reading order, ``None`` where a page breaks."""
    out: list[_Block | None] = []
    top = _Block(root, [], leaf=False)
    # (node, inherited look, the block its text belongs to, whether a title-free tag is around,
    # whether the block is read flat); a None entry marks a page break after an element's content
    stack: list[tuple[LexborNode, _Look, _Block, bool, bool] | None] = [
        (child, _Look(), top, False, False) for child in reversed(list(root.iter(include_text=True)))]
    while stack:
        item = stack.pop()
        if item is None:
            out.append(None)
            continue
        node, look, owner, title_free, flat = item
        if node.is_text_node:
            owner.pieces.append((node.text_content or "", look))
            continue
        if not node.is_element_node or dropped(node):
            continue
        own = _look(node, look, sheet)
        style = node.attributes.get("style") or ""
        breaks = ("break" in style or "BREAK" in style) and _BREAK.search(style) is not None
        if breaks and _BREAK_AFTER.search(style):
            stack.append(None)
        elif breaks:
            out.append(None)
        title_free = title_free or node.tag in _NOT_TITLES
        if flat and node.tag in blocks:
            owner.pieces.append((" ", own))  # a cell of a title set as a one-row table
        elif node.tag in blocks:
            owner.leaf = False
            flat = node.tag == "table" and _one_row(node)
            owner = _Block(node, [], in_title_free=title_free)
            out.append(owner)
        stack.extend((child, own, owner, title_free, flat)
                     for child in reversed(list(node.iter(include_text=True))))
    return out


def _mask(text: str) -> str:
    # case kept: a running head repeats its words exactly, a contents page's "TABLE OF CONTENTS"
    # is not its pages' "Table of Contents" link
    return _NUMBER.sub("#", text)


def _furniture(seq: list[_Block | None]) -> list[_Block]:
    """The running heads and feet: at either side of each page break, a page number among the
    two nearest text blocks, or the nearest one when it is a short line found so at three or more
    breaks with only its numbers changed. A line of links (a contents link) is passed over."""
    texts = [(b, b.text()) if b is not None else None for b in seq if b is None or b.leaf]
    numbers: list[_Block] = []
    nearest: dict[int, tuple[_Block, str]] = {}
    for i, entry in enumerate(texts):
        if entry is not None:
            continue
        for step in (-1, 1):
            j, found = i + step, 0
            while found < _EDGE and 0 <= j < len(texts) and (near := texts[j]) is not None:
                if near[1] and not _linked(near[0]):  # a spacer paragraph is not the page's edge
                    found += 1
                    if PAGE_NUMBER.fullmatch(near[1]):
                        numbers.append(near[0])
                    elif found == 1 and len(near[1].split()) <= _MAX_FURNITURE_WORDS:
                        nearest[id(near[0])] = near
                j += step
    groups: dict[str, list[tuple[_Block, str]]] = {}
    for block, text in nearest.values():
        groups.setdefault(_mask(text), []).append((block, text))
    return numbers + [b for group in groups.values() if _running(group) for b, _ in group]


def _running(group: list[tuple[_Block, str]]) -> bool:
    """Whether lines alike but for their numbers, in page order, are a running head: found at
    enough breaks, numbered as pages are (:func:`.pdf_pages.numbers_run`)."""
    return len(group) >= _RUNNING and numbers_run([text for _, text in group])


def _linked(block: _Block) -> bool:
    looks = [look for piece, look in block.pieces if _LETTER.search(piece)]
    return bool(looks) and all(k.linked for k in looks)


def _drawn(block: _Block, body: float) -> _Look | None:
    """The look of a block drawn as a title, or None."""
    text = block.text()
    if (not block.leaf or block.in_title_free or not _LETTER.search(text) or text.endswith(":")
            or len(text) > _MAX_TITLE_CHARS or len(text.split()) > _MAX_TITLE_WORDS):
        return None
    looks = [look for piece, look in block.pieces if _LETTER.search(piece)]
    if not all(k.bold or k.underline or k.size >= body * _LARGER for k in looks) or _linked(block):
        return None
    if sum(text.count(p) for p in (". ", "? ", "! ")) > 1:
        return None  # a paragraph in bold, not a title
    return looks[0]


def _prominence(look: _Look, caps: bool) -> tuple[float, bool, bool, bool, bool]:
    return (round(look.size, 1), caps, look.bold, look.underline, not look.italic)


def _levels(titles: list[tuple[str, _Look]]) -> list[int]:
    """Levels of the titles in order: numbered ones by their numbering's rank, the others under
    the numbered title they follow, by look."""
    ranks = [marker_rank(text) for text, _ in titles]
    order = {r: i + 1 for i, r in enumerate(sorted({r for r in ranks if r is not None}))}
    levels: list[int] = []
    numbered = 0
    open_keys: list[tuple[float, bool, bool, bool, bool]] = []
    for (text, look), rank in zip(titles, ranks):
        if rank is not None:
            numbered, open_keys = order[rank], []
            levels.append(min(numbered, 6))
            continue
        key = _prominence(look, text.upper() == text)
        if key in open_keys:
            del open_keys[open_keys.index(key) + 1:]
        else:
            at = next((i for i, k in enumerate(open_keys) if key > k), len(open_keys))
            del open_keys[at:]
            open_keys.append(key)
        levels.append(min(numbered + len(open_keys), 6))
    return levels


def _contents_table(table: LexborNode) -> bool:
    """A table of contents: most of its rows link to a place in the page and end with the page
    number it is on (a filing's, a Word document's); the reader has the sections themselves."""
    rows = [tr for tr in table.css("tr") if tr.text(deep=True).strip()]
    if len(rows) < 2:
        return False
    listed = 0
    for tr in rows:
        cells = [c.text(deep=True).strip() for c in tr.css("td, th")]
        cells = [c for c in cells if c]
        link = tr.css_first("a[href]")
        if (link is not None and (link.attributes.get("href") or "").startswith("#") and cells
                and PAGE_NUMBER.fullmatch(cells[-1])):
            listed += 1
    return listed >= _CONTENTS_SHARE * len(rows)


def _paged(html: str) -> bool:
    """Whether the page sets page breaks (a scan of a filing's megabytes: the common spelling
    first, the case-blind pattern only where the page writes its styles in capitals)."""
    if _BREAK_LOWER.search(html) is not None:
        return True
    return ("BREAK-" in html or "Break-" in html) and _BREAK.search(html) is not None


def mark_look(root: LexborNode, html: str, blocks: frozenset[str],
              dropped: Callable[[LexborNode], bool]) -> None:
    """Mark page furniture (:data:`DROP_MARK`) and titles drawn by look (:data:`HEADING_MARK`)
    in the tree under ``root``. ``blocks`` are the tags that break the flow of text and
    ``dropped`` tells the elements the renderer leaves out."""
    paged = _paged(html)
    titled = root.css_first(_HEADING_TAGS) is not None
    contents = [t for t in root.css("table") if _contents_table(t)] if "<a" in html else []
    if not paged and titled and not contents:
        return
    sheet = class_styles(html) if "<style" in html else {}
    seq = _walk(root, blocks, dropped, sheet)
    if contents:
        ids = {t.mem_id for t in contents}
        for i, b in enumerate(seq):  # a contents table goes, and the title over it
            if b is not None and b.node.tag == "table" and b.node.mem_id in ids:
                b.node.attrs[DROP_MARK] = ""
                above = next((a for a in reversed(seq[:i]) if a is not None and a.leaf and a.text()), None)
                if above is not None and _CONTENTS_TITLE.fullmatch(above.text().rstrip(":")):
                    above.node.attrs[DROP_MARK] = ""
        seq = _walk(root, blocks, dropped, sheet)  # without what was just dropped
    gone: set[int] = set()
    if paged:
        for block in _furniture(seq):
            block.node.attrs[DROP_MARK] = ""
            gone.add(id(block))
    if titled:
        return
    kept = [b for b in seq if b is not None and b.leaf and id(b) not in gone and b.text()]
    sizes: Counter[float] = Counter()
    for b in kept:
        for piece, look in b.pieces:
            sizes[round(look.size, 1)] += len(piece.strip())
    if not sizes:
        return
    body = sizes.most_common(1)[0][0]
    drawn = [(b, drawn_look) for b in kept if (drawn_look := _drawn(b, body)) is not None]
    if not drawn or sum(len(b.text()) for b, _ in drawn) > _MAX_TITLE_SHARE * sum(sizes.values()):
        return
    for (b, _), level in zip(drawn, _levels([(b.text(), k) for b, k in drawn])):
        b.node.attrs[HEADING_MARK] = str(level)

"""HTML: a normalised, markdown-like text rendering, with blocks pointing into it.

Offsets cannot point into raw HTML usefully (tags, entities), so the Document's text is a
rendering parsed with selectolax (lexbor): headings as ``#`` lines, paragraphs separated by
blank lines, lists as ``- `` / ``1. `` lines (nested ones indented), tables as GFM pipe tables
(so the table strategy can point spans at cells), ``pre`` as fenced code. Scripts, styles,
navigation (``nav``, its role, and the classes generators use for it: DocBook's ``navheader``,
``navfooter`` and ``toc``, breadcrumbs), forms' controls and hidden elements are dropped, and so
is page furniture: ``header``,
``footer`` and ``aside`` outside ``main``/``article`` (and their ARIA roles) and paragraphs made of
links and navigation words only ("Previous: … Up: … [Index]"): text that is not in the rendering
is neither embedded, nor matched by BM25, nor returned next to a hit. A page with one ``main``
element (or ``role="main"``) is read from it alone. Entities are decoded; runs of
whitespace collapse as a browser would. Every rendered construct is one block.

Generated API references (Sphinx, and the many sites built with it) describe each function,
class, option or glossary term as a definition list entry whose term is a link target
(``<dt id="json.dumps">``). Such a term is rendered as a heading one level under the page's
current heading (an entry inside another's description one level further), titled by the name
it documents, so what is said of ``json.dumps`` is a section a hit can grow to and its units
carry the name. Text after a run of entries ("The module also provides the following
functions:") belongs to the section again, as the page's indentation shows: its heading is
written again before it, so the text is not filed under the last entry. An admonition's title ("Note", "Warning", "See also"; DocBook's is an ``h3``)
leads its first paragraph ("Note: …") rather than standing alone as a one-word paragraph or
opening a section that would swallow the text after the admonition, and a definition list's
term leads its definition ("FULL: Selects full vacuum…"). javadoc's pages (8 to 17) read as
their members' sections (a list item holding a heading is read as blocks), their summaries
drawn with ``div`` elements as tables, "Deprecated." leading its reason, without the package
line over the title or the lists of inherited members; a source page of javadoc's
``-linksource`` is the Java file it shows, without its line numbers, read as code (the gutter
of line numbers beside any listing is dropped). Doxygen's pages read as their members'
sections titled by their declarations, without the summaries that repeat them, their tables of
parameters as lists and their fragments as code; a header's source page is the header
(:mod:`.doxygen`). A first heading that repeats the
page's ``<title>`` beside sibling headings is their parent (one level up). Footnotes are
rendered in Markdown's syntax, ``[^1]`` and ``[^1]: text`` (:mod:`.html_notes`). A page with no
heading element is titled by what it draws in bold or larger, and a paged one loses its page
numbers, running heads and contents table (:mod:`.html_look`); a table's cells are laid on the
columns that hold its data (:mod:`.grid`); an inline XBRL filing's cover facts are its metadata
(:mod:`.filing`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from html import escape
from types import MappingProxyType

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ...model import ANCHORS_KEY, Block, Document
from ...text.sentences import CJK_CHARS
from . import doxygen as dox
from .code import language_name, read_code
from .confluence import confluence_page
from .filing import cover_facts, filing_title
from .grid import table_rows
from .html_anchors import ANCHOR, anchor
from .html_look import DROP_MARK, HEADING_MARK, mark_look
from .html_meta import page_facts
from .html_nodes import classes, own_rows
from .html_notes import back_link, note_label, notes_aside, notes_list, ref_label
from .notion import html_page, is_notion_page, page_parents

#: Elements whose content is not document text.
_DROP = frozenset({
    "script", "style", "noscript", "template", "nav", "svg", "math", "iframe", "object", "embed",
    "canvas", "button", "select", "input", "textarea", "head", "title", "meta", "link", "audio",
    "video", "map", "dialog",
    "ix:header",  # inline XBRL's hidden facts and contexts (a filing's machine-readable part)
})
#: Elements that break the flow of text (a paragraph ends before them).
_BLOCK = frozenset({
    "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "dir",
    "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "header", "hgroup",
    "hr", "html", "legend", "li", "main", "menu", "ol", "p", "pre", "section", "summary", "table",
    "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "h1", "h2", "h3", "h4", "h5", "h6",
})
_HEADINGS = {f"h{i}": i for i in range(1, 7)}
_LISTS = frozenset({"ul", "ol", "menu", "dir"})
#: Elements that may be a footnote or a list of them (:mod:`.html_notes`).
_NOTE_TAGS = frozenset({"aside", "div", *_LISTS})
# HTML collapses ASCII whitespace only; a no-break space is rendered as a space too.
_WS = re.compile(r"[ \t\n\r\f\xa0]+")
#: An inline style that hides the element: a browser shows none of its text.
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_ESCAPED_PIPE = re.compile(r"(\\*)\|")
_LANG_CLASS = re.compile(r"(?:^|\s)(?:language|lang|highlight)-([\w+#.-]+)")
_BRUSH = re.compile(r"(?:^|[\s;])brush:\s*([\w+#.-]+)")
#: Highlighters' names for "no language given": Sphinx's ``highlight-default`` is its
#: configured one, ``none``/``text``/``plain`` are none.
_NO_LANGUAGE = frozenset({"default", "none", "text", "plain", "plaintext", "nohighlight"})
_MAX_LIST_DEPTH = 32
_MAX_ADMONITIONS = 8

_EMPTY: MappingProxyType[str, object] = MappingProxyType({})
_ORDERED = {True: MappingProxyType({"ordered": True}), False: MappingProxyType({"ordered": False})}


#: Page furniture: dropped unless inside the page's content (``main`` or ``article``), where a
#: ``header`` holds the article's title.
_FURNITURE = frozenset({"header", "footer", "aside"})
_FURNITURE_ROLES = frozenset({"banner", "contentinfo", "complementary"})
_CONTENT = frozenset({"main", "article"})
#: Words of navigation lines besides their links ("Previous: … Up: … [Index]").
_NAV_WORDS = frozenset({"previous", "prev", "next", "up", "index", "home", "top", "back", "contents",
                        "table of contents", "toc", "skip", "to", "content", "navigation", "go", "page",
                        "menu", "search", "modules", "more"})
_NAV_LEFTOVER = re.compile(r"[\W_]+")
#: Classes (in lower case, as compared) of a code listing's line numbers (javadoc's source
#: pages, old and new; Doxygen's; Pygments' spans and table column; highlight.js' plugin): the
#: gutter beside the code, which would glue ``017`` to ``package org.apache…`` in the text.
_GUTTERS = ("source-line-no", "sourcelineno", "lineno", "linenos", "linenodiv", "hljs-ln-numbers")
#: javadoc 8–15's tabs over a summary table ("All Methods Static Methods …"), and javadoc 16's
#: lists of the members a class inherits (documented on their own class's page).
_JAVADOC_CHROME = ("tabletab", "activetabletab", "inherited-list")
#: Classes generators give their navigation and page chrome when they do not use ``nav`` or its
#: role: DocBook's header and footer tables (a chapter's title beside Prev / Next arrows) and its
#: table of contents, Doxygen's path bar, Texinfo's panel, breadcrumbs, Wikipedia's TOC and nav
#: boxes, rustdoc's version stamps and source links beside each item ("1.0.0 · Source", which
#: would end every method's section) and its "Expand description" toggle, Confluence's table of
#: contents macro.
_CHROME_CLASSES = frozenset({"navheader", "navfooter", "navbar", "navpath", "nav-panel", "breadcrumb",
                             "breadcrumbs", "toc", "navbox", "rightside", "since", "hideme", "toc-macro",
                             *_GUTTERS, *_JAVADOC_CHROME})


#: Classes of an entry's parts that name what it documents (Sphinx: module prefix, then name).
_ENTRY_NAME = ("sig-prename", "sig-name")
#: A term longer than this is titled by its name parts or its id, not by its whole text.
_TITLE_CHARS = 80


#: A label ending so is joined to the paragraph after it without a colon (a full-width one
#: without a space either, as Chinese and Japanese text runs).
_ENDS_SENTENCE = frozenset(".?!:;。？！：；")
_FULL_WIDTH_ENDS = frozenset("。？！：；")


#: A label ending in one of these scripts is joined by a full-width colon.
_CJK = re.compile(f"[{CJK_CHARS}]")


def _joint(label: str) -> str:
    end = label[-1]
    if end in _FULL_WIDTH_ENDS:
        return ""
    if end in _ENDS_SENTENCE:
        return " "
    return "：" if _CJK.match(end) else ": "


#: Containers of an admonition: Sphinx's and MkDocs' ``admonition``, GitHub's alerts, DocBook's
#: ``note``/``tip``/``warning``/``caution``/``important`` and its abstract.
_ADMONITIONS = frozenset({"admonition", "markdown-alert", "note", "tip", "hint", "warning", "caution",
                          "important", "abstract"})
_ADMONITION_TITLES = frozenset({"admonition-title", "markdown-alert-title"})
#: Classes of the line over a javadoc page's title (javadoc 16 and later; before).
_SUBTITLES = frozenset({"sub-title", "subtitle"})
#: javadoc's note that a member is deprecated (16 and later; before), and its label.
_DEPRECATION = frozenset({"deprecation-block", "deprecationblock"})
_DEPRECATED_LABEL = frozenset({"deprecated-label", "deprecatedlabel"})


def _admonition(node: LexborNode) -> bool:
    # MyST and docutils' HTML5 writer put admonitions in an ``aside``: content, not furniture.
    return node.tag in ("div", "aside") and not _ADMONITIONS.isdisjoint(classes(node))


def _admonition_title(node: LexborNode) -> bool:
    """An admonition's title: a paragraph marked as one, or (DocBook) an ``h3``/``p`` of class
    ``title`` right inside the admonition, which is a label and not a section of the page."""
    names = classes(node)
    if not _ADMONITION_TITLES.isdisjoint(names):
        return True
    return "title" in names and node.parent is not None and _admonition(node.parent)


def _entry(node: LexborNode) -> bool:
    """A definition term that is a link target or a rendered signature: an API entry."""
    return bool(node.attributes.get("id")) or "sig-object" in classes(node)


def _after_term(node: LexborNode) -> bool:
    """Whether the element before ``node`` is a term (no definition between them)."""
    prev = node.prev
    while prev is not None and not prev.is_element_node:
        prev = prev.prev
    return prev is not None and prev.tag == "dt"


def _entry_title(node: LexborNode, text: str) -> str:
    """What an entry documents: its name parts when marked, else its text when short."""
    parts = []
    for cls in _ENTRY_NAME:
        for el in node.css(f".{cls}"):
            parts.append(_WS.sub("", el.text(deep=True)))
    name = "".join(parts)
    if name:
        return name
    if len(text) <= _TITLE_CHARS:
        return text
    return node.attributes.get("id") or text[:_TITLE_CHARS].rsplit(" ", 1)[0] + "…"


#: How far up an entry's depth is looked for: a heading level stops at 6 anyway, and a page
#: nested thousands deep must not cost a walk to its root per entry.
_ENTRY_REACH = 32


def _entry_depth(node: LexborNode) -> int:
    """How many entries' descriptions hold this one (a method inside its class's description),
    among its nearest _ENTRY_REACH ancestors."""
    depth = 0
    p = node.parent
    for _ in range(_ENTRY_REACH):
        if p is None or depth >= 6:
            break
        if p.tag == "dd":
            prev = p.prev
            for _ in range(_ENTRY_REACH):  # the dt before it, past any text between
                if prev is None or prev.tag == "dt":
                    break
                prev = prev.prev
            if prev is not None and prev.tag == "dt" and _entry(prev):
                depth += 1
        p = p.parent
    return depth


#: The text of a heading's permalink (rustdoc's ``§``, Sphinx's ``¶``; Docusaurus's a zero-width
#: space, nothing once stripped): a mark to click, not a word.
_PERMALINK_MARKS = frozenset({"§", "¶", "#", "🔗", "⚓",
                              # Sphinx's links between an entry and its source (viewcode)
                              "[source]", "[docs]"})
#: What a permalink's text is stripped of: white space and the zero-width characters.
_INVISIBLE = " \t\n\r\f\xa0\u200b\u200c\u200d\u2060\ufeff"


def _dropped(node: LexborNode) -> bool:
    if node.tag in _DROP:
        return True
    attrs = node.attributes
    if node.tag == "a":
        text = node.text(deep=True)
        mark = text.strip(_INVISIBLE)
        if mark in _PERMALINK_MARKS or (not mark and text.strip()):  # text.strip() keeps a zero-width space
            return True
    role = attrs.get("role") if attrs else None
    names = classes(node) if attrs else []
    if not _CHROME_CLASSES.isdisjoint(names):
        return True
    if node.tag in ("a", "span") and back_link(node):
        return True
    if node.tag == "li" and _inherited(node):
        return True
    if node.tag == "div" and not _SUBTITLES.isdisjoint(names) and _package_line(node):
        return True
    if node.tag in _FURNITURE or role in _FURNITURE_ROLES:
        return not _in_content(node) and not _admonition(node) and not notes_aside(node)
    return bool(attrs) and ("hidden" in attrs or attrs.get("aria-hidden") == "true"
                            or role == "navigation" or role == "search" or DROP_MARK in attrs
                            or _hidden_style(attrs.get("style")))


def _inherited(item: LexborNode) -> bool:
    """javadoc 8–15's list of the members a class inherits, an item opening with an anchor such as
    ``methods.inherited.from.class.java.lang.Object`` (documented on their own class's page)."""
    first = item.child
    while first is not None and not first.is_element_node:
        first = first.next
    if first is None or first.tag != "a":
        return False
    anchor = first.attributes.get("id") or first.attributes.get("name") or ""  # javadoc 8 names it
    return ".inherited.from." in anchor


def _package_line(node: LexborNode) -> bool:
    """The package line over a javadoc class page's title (``org.apache.commons.io``; from
    javadoc 9, "Package org.apache.commons.io"): a breadcrumb, not the class's text."""
    parent = node.parent
    if parent is None or "header" not in classes(parent) or not _PACKAGE_LINE.fullmatch(node.text(deep=True).strip()):
        return False
    return any(k.tag in ("h1", "h2") and "title" in classes(k) for k in parent.iter())


#: What javadoc's line over a title says: a package (or module), by its dotted name.
_PACKAGE_LINE = re.compile(r"(?:(?:Package|Module)\W+)?[\w.$]+")


#: How javadoc signs its pages: a comment before javadoc 9, a generator from javadoc 16.
_JAVADOC_SIGNS = ("<!-- Generated by javadoc", '<meta name="generator" content="javadoc/')
#: How far up a doc comment's ``div`` is looked for from a heading in it.
_COMMENT_REACH = 16


def javadoc_page(html: str) -> bool:
    head = html[:4096]
    return any(sign in head for sign in _JAVADOC_SIGNS)


#: javadoc's sections that list a class's members, each by the first sentence of its
#: description (from javadoc 16; before, all in one ``div.summary``).
_MEMBER_SUMMARIES = frozenset({"field-summary", "constructor-summary", "method-summary", "nested-class-summary",
                               "enum-constant-summary", "property-summary",
                               "annotation-type-required-member-summary", "annotation-type-optional-member-summary"})


def _member_summary(node: LexborNode) -> bool:
    names = classes(node)
    return ("summary" in names and node.tag == "div") or not _MEMBER_SUMMARIES.isdisjoint(names)


#: The ``div`` classes of an author's text on a javadoc page (a doc comment) and on a Doxygen
#: page (a page's or a group's description; a member's), and whether it is a member's.
_JAVADOC_BLOCKS = MappingProxyType({"block": 0})
_DOXYGEN_BLOCKS = MappingProxyType({"textblock": 0, "memdoc": 1})


def _doc_comment(node: LexborNode, blocks: Mapping[str, int]) -> tuple[int, int] | None:
    """The author's text (a ``div`` of one of ``blocks``' classes) ``node`` is in, by its
    identity, and whether it documents a member; None outside one."""
    p = node.parent
    for _ in range(_COMMENT_REACH):
        if p is None:
            return None
        if p.tag == "div":
            for name in classes(p):
                if name in blocks:
                    return int(p.mem_id), blocks[name]
        p = p.parent
    return None


def _hidden_style(style: str | None) -> bool:
    if not style:
        return False
    # the words looked for first: most elements' styles say neither
    return ("none" in style or "idden" in style or "NONE" in style or "IDDEN" in style) \
        and _HIDDEN_STYLE.search(style) is not None


def _in_content(node: LexborNode) -> bool:
    p = node.parent
    while p is not None:
        if p.tag in _CONTENT or (p.attributes and p.attributes.get("role") == "main"):
            return True
        p = p.parent
    return False


def _link_only(text: str, links: list[str]) -> bool:
    """A line of links and navigation words only ("Previous: Intro | Up: Contents [Index]"), or
    a contents line's link and page number."""
    if not links:
        return False
    rest = text
    for link in links:
        rest = rest.replace(link, " ", 1)
    words = [w for w in _NAV_LEFTOVER.split(rest.lower()) if w]
    return all(w in _NAV_WORDS or w.isdigit() for w in words)  # digits: a contents line's page


def _children(node: LexborNode) -> list[LexborNode]:
    return list(node.iter(include_text=True))


class _Inline:
    """Text of a run of inline content: lines (split by ``<br>``) of raw text pieces."""

    __slots__ = ("lines", "links")

    def __init__(self) -> None:
        self.lines: list[list[str]] = [[]]
        #: The text of every link inside (to recognise lines of navigation links).
        self.links: list[str] = []

    def add_text(self, s: str | None) -> None:
        if s:
            self.lines[-1].append(s)

    def add_node(self, node: LexborNode) -> None:
        """Flatten an element's text; block elements inside it become spaces (iterative walk)."""
        stack: list[LexborNode | str] = [node]
        while stack:
            n = stack.pop()
            if isinstance(n, str):
                self.lines[-1].append(n)
            elif n.is_text_node:
                self.add_text(n.text_content)
            elif n.is_element_node and not _dropped(n):
                if n.tag == "br":
                    self.lines.append([])
                    continue
                if n.tag == "a" and (label := ref_label(n)) is not None:
                    self.lines[-1].append(f"[^{label}]")
                    continue
                if n.tag in ("div", "aside") and (label := note_label(n)) is not None:
                    self.lines[-1].append(f"[^{label}]: ")  # a note inside a table's cell
                if n.tag == "a" and n.attributes.get("href") is not None:  # not a bare anchor
                    link = _WS.sub(" ", n.text(deep=True)).strip()
                    if link:
                        self.links.append(link)
                if n.tag in _BLOCK:
                    self.lines[-1].append(" ")
                    stack.append(" ")
                stack.extend(reversed(_children(n)))

    def render(self, one_line: bool = False) -> str:
        lines = [_line("".join(parts), indent=not one_line) for parts in self.lines]
        kept = [line for line in lines if line]
        if kept:
            kept[0] = kept[0].lstrip()  # a block starts at its text; later lines keep their indent
        return (" " if one_line else "\n").join(kept)


def _line(raw: str, indent: bool) -> str:
    """A line's text with whitespace collapsed, keeping the no-break spaces that lead it as its
    indentation (code laid out with &nbsp; and <br>, as pydoc writes it)."""
    text = _WS.sub(" ", raw).strip()
    if not text or not indent:
        return text
    lead = raw[:len(raw) - len(raw.lstrip())].count("\xa0")
    return " " * lead + text


def _inline(node: LexborNode) -> _Inline:
    """The inline content of an element."""
    inline = _Inline()
    for child in _children(node):
        inline.add_node(child)
    return inline


class _Renderer:
    """Writes blocks separated by blank lines and records where each one landed."""

    def __init__(self, site: str = "") -> None:
        self.parts: list[str] = []
        self.length = 0
        self.blocks: list[Block] = []
        #: The level of the last ``h1``–``h6``: API entries go one under it.
        self.outline = 0
        #: Whether the page is javadoc's or Doxygen's, the level of its last heading outside a doc
        #: comment, and the doc comment whose headings were seen last with how many levels they
        #: move down.
        self.javadoc = site == "javadoc"
        self.doxygen = site == "doxygen"
        #: Where the list of a Doxygen page's members declared and not described ends (-1: none).
        self.bare = -1
        self.page_level = 0
        self.comment: tuple[int, int] = (0, 0)
        #: An admonition's title or a definition's term, waiting for the block it introduces.
        self.label = ""
        #: Whether ``label`` is a term (a term after a title joins it; one after a term does not).
        self.term = False
        #: Whether the pending term is a link and nothing else.
        self.nav = False
        #: Admonitions and code-holding list items being walked (each one by its own walk; deeper
        #: ones are plain containers, and deeper lists one block).
        self.nested = 0
        #: The headings in effect: level, line and meta of each, outermost first.
        self.trail: list[tuple[int, str, MappingProxyType]] = []
        #: The heading to write again before the next text: the section a run of API entries
        #: ended in goes on after them.
        self.resume: tuple[int, str, MappingProxyType] | None = None

    def add(self, body: str, kind: str, level: int = 0, meta: MappingProxyType = _EMPTY) -> None:
        if not body:
            return
        if kind == "heading":
            self.resume = None
            self.trail = [h for h in self.trail if h[0] < level] + [(level, body, meta)]
        elif self.resume is not None:
            # Text after a run of entries is the section's again, not the last entry's: its
            # heading is written again, as a page shows it by indentation.
            (at, line, heading_meta), self.resume = self.resume, None
            self._write(line, "heading", at, heading_meta)
            self.trail = [h for h in self.trail if h[0] < at] + [(at, line, heading_meta)]
        if self.label:
            label, self.label = self.label, ""
            if kind == "text":  # "Note: …", "FULL: Selects …", "What is X? It is …", "自由：如同…"
                body = label + _joint(label) + body
            else:  # a lead-in to a list, code or table; a heading starts something else
                self.add(label if kind == "heading" or label[-1] in _ENDS_SENTENCE else label + ":", "text")
        self._write(body, kind, level, meta)

    def _write(self, body: str, kind: str, level: int, meta: MappingProxyType) -> None:
        if self.parts:
            self.parts.append("\n\n")
            self.length += 2
        self.blocks.append(Block(self.length, self.length + len(body), kind, level, meta))
        self.parts.append(body)
        self.length += len(body)

    def text(self) -> str:
        return "".join(self.parts) + "\n" if self.parts else ""

    # -- the walk ----------------------------------------------------------------------------
    def render(self, root: LexborNode) -> None:
        self._walk(_children(root))

    def _walk(self, nodes: list[LexborNode]) -> None:
        # Iterative, so deeply nested markup cannot hit the recursion limit. The sentinel
        # None marks the end of a block container: the paragraph running inside it ends there.
        inline = _Inline()
        stack: list[LexborNode | None] = list(reversed(nodes))
        while stack:
            node = stack.pop()
            if node is None:
                self._paragraph(inline)
                inline = _Inline()
                continue
            if node.is_text_node:
                inline.add_text(node.text_content)
                continue
            if not node.is_element_node or _dropped(node):
                continue
            tag = node.tag
            if tag in _BLOCK:
                self._paragraph(inline)
                inline = _Inline()
                if not self._special(node, tag):
                    stack.append(None)
                    stack.extend(reversed(_children(node)))
            else:
                inline.add_node(node)
        self._paragraph(inline)
        self._flush_label()

    def _flush_label(self) -> None:
        """An admonition title or a term with nothing under it stays as a line of its own (a
        term that is only a link goes, as a paragraph of links would)."""
        if self.label:
            label, self.label = self.label, ""
            if not (self.term and self.nav):
                self.add(label, "text")

    def _paragraph(self, inline: _Inline) -> None:
        body = inline.render()
        # navigation lines are not content; a note that is a link (a URL it cites) is, and so
        # are the links a term introduces (javadoc's "See Also: byteCountToDisplaySize(long)")
        if self.label.startswith("[^") or (self.label and self.term and not self.nav) \
                or not _link_only(body, inline.links):
            self.add(body, "text")

    def _special(self, node: LexborNode, tag: str) -> bool:
        """Render the constructs with their own syntax; False for plain containers."""
        if self.javadoc and tag in ("div", "section") and _member_summary(node):
            pass  # each row is the first sentence of a member's description further down the page
        elif self.doxygen and (tag in ("table", "div") and self._doxygen(node, tag)):
            pass
        elif (tag == "p" or tag in _HEADINGS) and self.nested and _admonition_title(node):
            self._flush_label()
            self.label, self.term = _inline(node).render(one_line=True).rstrip(":"), False
        elif tag in _HEADINGS:
            body = _inline(node).render(one_line=True)
            if body:
                level = _HEADINGS[tag]
                if self.javadoc or self.doxygen:
                    # the headings an author wrote in a doc comment are under what the comment
                    # documents, however their levels are written ("<h2>FileEntry</h2>" beside the
                    # class's own <h2> title would hold the page's member details): moved down
                    # together, so their own nesting stays
                    found = _doc_comment(node, _DOXYGEN_BLOCKS if self.doxygen else _JAVADOC_BLOCKS)
                    if found is None:
                        self.page_level = level
                    else:
                        comment, in_member = found
                        if comment != self.comment[0]:
                            base = self.page_level + in_member  # a member's section is one further down
                            self.comment = (comment, max(0, base + 1 - level))
                        level = min(level + self.comment[1], 6)
                self.add("#" * level + " " + body, "heading", level, _anchored(_EMPTY, node))
                self.outline = level
        elif (drawn := node.attributes.get(HEADING_MARK)) is not None:
            body = _inline(node).render(one_line=True)
            if body:
                level = int(drawn)
                self.add("#" * level + " " + body, "heading", level, _anchored(_EMPTY, node))
                self.outline = level
                self.page_level = level
        elif tag == "dt" and _entry(node):
            body = _inline(node).render(one_line=True)
            if body:
                level = min(self.outline + 1 + _entry_depth(node), 6)
                self.add("#" * level + " " + body, "heading", level,
                         _anchored(MappingProxyType({"title": _entry_title(node, body)}), node))
        elif tag == "dt":
            # A term leads its definition's first paragraph, as an admonition's title does: a
            # context cannot end on a term whose definition it left out.
            inline = _inline(node)
            term = inline.render(one_line=True).rstrip(":")
            if self.label and not self.term:  # "See also: PEP 343: The specification …"
                if term:
                    self.label += _joint(self.label) + term
                self.term, self.nav = True, False
            elif self.label and self.term and term and _after_term(node):
                # Terms sharing one definition ("--autosquash", "--no-autosquash") lead it
                # together: a term alone on its line reads as a fragment of the list.
                self.label += ("、" if _CJK.match(self.label[-1]) else ", ") + term
                self.nav = self.nav and _link_only(term, inline.links)
            else:
                self._flush_label()
                self.label, self.term = term, True
                # A link alone with nothing to define is a table of contents' entry: dropped
                # like a paragraph of links if no definition follows it.
                self.nav = _link_only(term, inline.links)
        elif tag in _NOTE_TAGS and self.nested < _MAX_ADMONITIONS and (
                (label := note_label(node)) is not None or (tag in _LISTS and notes_list(node))):
            # a note's first paragraph is led by its label, "[^1]: …", as an admonition's by its title
            if label is not None:
                self._note(node, label)
            else:
                number = _list_start(node)
                for item in node.iter():
                    if item.tag == "li" and not _dropped(item):
                        self._note(item, str(number))
                        number += 1
        elif (tag == "dl" or _admonition(node)) and self.nested < _MAX_ADMONITIONS:
            # Walked on its own, so its title (a last term) cannot run on into the text after it.
            self.nested += 1
            start = len(self.blocks)
            self.render(node)
            self.nested -= 1
            entries = [b.level for b in self.blocks[start:] if b.type == "heading" and "title" in b.meta]
            if entries and tag == "dl":
                under = [h for h in self.trail if h[0] < min(entries)]
                self.resume = under[-1] if under else None
        elif tag == "div" and self.nested < _MAX_ADMONITIONS and not _DEPRECATION.isdisjoint(classes(node)) \
                and (reason := [k for k in _children(node) if _DEPRECATED_LABEL.isdisjoint(classes(k))
                                and (k.is_element_node or (k.text_content or "").strip())]):
            # javadoc's "Deprecated." leads the reason after it, as an admonition's title does
            # (after the index's term it documents: "above(int) - Static method in …: Deprecated. …")
            if self.label and self.term:
                self.label += _joint(self.label) + "Deprecated."
            else:
                self._flush_label()
                self.label = "Deprecated."
            self.term = False
            self.nested += 1
            self._walk(reason)
            self.nested -= 1
            self._flush_label()
        elif tag == "p":
            self._paragraph(_inline(node))
        elif tag in _LISTS:
            self._list(node)
        elif tag == "table":
            rows = own_rows(node)
            if _layout(node, rows):
                return False  # read as the blocks inside its cells, row by row
            self._table(node, rows)
        elif tag == "pre":
            self._code(node)
        elif _grid(node) and (grid := _grid_rows(node)):
            self._pipe_table(table_rows(grid))
        elif tag != "hr":
            return False
        return True

    def _doxygen(self, node: LexborNode, tag: str) -> bool:
        """Render a construct of a Doxygen page (:mod:`.doxygen`); False for any other."""
        if tag == "table" and dox.declarations(node):
            # only the members documented by their row alone: each a section, in its group
            for group, members in dox.declared_here(node):
                if group:
                    self.add("## " + group, "heading", 2)
                    self.page_level = self.outline = 2
                bare = []  # declared and not described (a friend class): a line each
                for decl, name, sentence in members:
                    if sentence:
                        self.add("### " + decl, "heading", 3, MappingProxyType({"title": name}))
                        self.add(sentence, "text")
                    else:
                        bare.append("- " + decl)
                self.add("\n".join(bare), "list", meta=_ORDERED[False])
            return True
        if tag == "div" and "memproto" in classes(node):
            decl, name = dox.signature(node)
            doc = node.next
            while doc is not None and not doc.is_element_node:
                doc = doc.next
            if not decl:
                pass
            elif doc is None or "memdoc" not in classes(doc) or _kept_text(doc).strip():
                level = min(self.page_level + 1, 6)
                self.add("#" * level + " " + decl, "heading", level, MappingProxyType({"title": name}))
                self.outline = level
            elif self.blocks and self.blocks[-1].end == self.bare:
                # a member declared and not described (a macro a header defines): a line of the
                # list of such members before it, not a heading over nothing
                last = self.blocks[-1]
                self.parts[-1] += "\n- " + decl
                self.length += len(decl) + 3
                self.blocks[-1] = Block(last.start, self.length, last.type, last.level, last.meta)
                self.bare = self.length
            else:
                self.add("- " + decl, "list", meta=_ORDERED[False])
                self.bare = self.length
            return True
        if tag == "table" and dox.name_table(node):
            head, lines = dox.name_lines(node)
            if head and not self.label:
                self.label, self.term = head, False
            if lines:
                self.add("\n".join(lines), "list", meta=_ORDERED[False])
            return True
        if tag == "div" and dox.fragment(node):
            self._fenced(dox.fragment_code(node, _kept_text), "")
            return True
        return False

    def _list(self, node: LexborNode) -> None:
        """A list as one block, or, when items hold code, tables or headings (a manual's
        examples; javadoc's pages, a list of sections), as the run of its items' lines with each
        such item's blocks after its first line: the example stays a code block under the line
        that leads to it, not a line of run-on words, and a heading stays a heading."""
        meta = _ORDERED[node.tag == "ol"]
        if self.nested >= _MAX_ADMONITIONS or node.css_first(_ITEM_BLOCKS) is None:
            self.add("\n".join(_list_lines(node, 0)), "list", meta=meta)
            return
        number, pending = _list_start(node), []
        for item in node.iter():
            if _dropped(item):
                continue
            kids = _children(item)
            cut = next((i for i, k in enumerate(kids) if k.is_element_node
                        and (k.tag in _ITEM_BLOCK_TAGS or _grid(k) or k.css_first(_ITEM_BLOCKS) is not None)), None)
            if cut is None:
                pending += _list_lines(node, 0, items=[item], start=number)
                number += bool(_item_parts(item, 0)[0])  # an item of only a list takes no number
                continue
            lead = _Inline()
            for k in kids[:cut]:
                lead.add_node(k)
            first = lead.render(one_line=True)
            if first:
                pending.append((f"{number}. " if node.tag == "ol" else "- ") + first)
                number += 1
            if pending:
                self.add("\n".join(pending), "list", meta=meta)
                pending = []
            self.nested += 1  # bounds the walk: a list in a list in a list is read flat
            self._walk(kids[cut:])
            self.nested -= 1
            self._flush_label()
        if pending:
            self.add("\n".join(pending), "list", meta=meta)

    def _note(self, node: LexborNode, label: str) -> None:
        """A footnote: its first paragraph led by ``[^label]:``, as an admonition's by its title."""
        self._flush_label()
        if self.nested >= _MAX_ADMONITIONS:  # too deep to walk on its own: its text as one paragraph
            self.label = f"[^{label}]"
            self._paragraph(_inline(node))
            self._flush_label()
            return
        self.label, self.term = f"[^{label}]", False
        self.nested += 1
        self.render(node)
        self.nested -= 1

    def _table(self, node: LexborNode, trs: list[LexborNode]) -> None:
        caption = ""
        for child in node.iter():
            if child.tag == "caption":
                caption = _inline(child).render(one_line=True)
        # DocBook puts a table's notes in a last ``tbody class="footnotes"``: they follow it as notes
        is_note = [tr.parent is not None and "footnotes" in classes(tr.parent) for tr in trs]
        noted = [tr for tr, n in zip(trs, is_note) if n]
        body = [tr for tr, n in zip(trs, is_note) if not n]
        fields = _fields(body)
        rows = table_rows([_cells(tr) for tr in body]) if fields is None else []
        self.add(caption, "text")
        if fields:  # a name and its value a line, as a reader reads them (no row is a header)
            self.add("\n".join(f"{name}{_joint(name)}{value}" for name, value in fields), "text")
        self._pipe_table(rows)
        for tr in noted:
            for note in tr.css("div.footnote"):
                label = note_label(note)
                if label is not None:
                    self._note(note, label)

    def _pipe_table(self, rows: list[list[str]]) -> None:
        """Rows as a pipe table, the first its header."""
        if rows and rows[0]:
            width = len(rows[0])
            lines = [_pipe_row(rows[0], width), "| " + " | ".join(["---"] * width) + " |"]
            lines.extend(_pipe_row(r, width) for r in rows[1:])
            self.add("\n".join(lines), "table")

    def _code(self, node: LexborNode) -> None:
        self._fenced(_pre_text(node), _code_language(node))

    def _fenced(self, text: str, lang: str) -> None:
        code = text.replace("\xa0", " ").strip("\n").rstrip()
        if not code.strip():
            return
        fence = "```"
        while fence in code:
            fence += "`"
        self.add(f"{fence}{lang}\n{code}\n{fence}", "code",
                 meta=MappingProxyType({"language": language_name(lang)}))


def _code_language(pre: LexborNode) -> str:
    """The language a ``pre`` is highlighted as: a ``language-x`` class on it or its ``code``
    (Prism, highlight.js), ``highlight-x`` on the block around it (Sphinx, Pygments), or a
    ``brush: x`` among its classes or parameters (SyntaxHighlighter, Confluence's code macro)."""
    near = [pre, pre.css_first("code"), pre.parent, pre.parent.parent if pre.parent is not None else None]
    for el in near:
        if el is None:
            continue
        attrs = el.attributes
        m = _LANG_CLASS.search(attrs.get("class") or "") or _BRUSH.search(
            (attrs.get("class") or "") + ";" + (attrs.get("data-syntaxhighlighter-params") or ""))
        if m and m.group(1) not in _NO_LANGUAGE:
            return m.group(1)
    return ""


def _kept_text(node: LexborNode) -> str:
    """The text inside ``node`` without the elements that are not content (a copy button), a
    ``br`` a line break (Docusaurus ends each line of code with one)."""
    parts: list[str] = []
    stack = list(reversed(_children(node)))
    while stack:
        n = stack.pop()
        if n.is_text_node:
            parts.append(n.text_content or "")
        elif n.is_element_node and n.tag == "br":
            parts.append("\n")
        elif n.is_element_node and not _dropped(n):
            stack.extend(reversed(_children(n)))
    return "".join(parts)


def _pre_text(node: LexborNode) -> str:
    """A ``pre``'s text; each ``code`` inside it on lines of its own. Documentation sites put
    one example in two flavours there (Node.js: CommonJS and ES modules) beside a copy button."""
    pieces: list[str] = []  # each code element's text, and the text between them
    loose: list[str] = []  # (a highlighted pre holds thousands of spans: joined once)
    for child in _children(node):
        if child.is_element_node and child.tag == "code" and not _dropped(child):
            between = "".join(loose)
            if between.strip():
                pieces.append(between)
            loose = []
            pieces.append(_kept_text(child))
        elif child.is_text_node:
            loose.append(child.text_content or "")
        elif child.is_element_node and child.tag == "br":
            loose.append("\n")  # a line break written as a tag (mammoth's, for a Word code style)
        elif child.is_element_node and not _dropped(child):
            loose.append(_kept_text(child))
    rest = "".join(loose)
    if rest.strip() or not pieces:
        pieces.append(rest)
    return "\n\n".join(p.strip("\n") for p in pieces) if len(pieces) > 1 else pieces[0]


def _layout(table: LexborNode, rows: list[LexborNode]) -> bool:
    """A table used to lay out a page, not to hold data: its cells are read as ordinary blocks.

    Generated documentation (pydoc, javadoc, old sites) puts whole sections in table cells; as a
    pipe table, a class's documentation would become one cell on one line. Signs of layout: a
    presentation role, a table nested inside, a single row or column, or cells holding blocks
    (lists, definition lists, code, headings) in a table without header cells.
    """
    if (table.attributes.get("role") or "") in ("presentation", "none"):
        return True
    if len(table.css("table")) > 1:  # lexbor's matches include the table itself
        return True
    cells = [[c for c in tr.iter() if c.tag in ("td", "th")] for tr in rows]
    if sum(1 for r in cells if r) < 2 or max((len(r) for r in cells), default=0) < 2:
        return True
    headed = any(c.tag == "th" for r in cells for c in r) or table.css_first("thead") is not None
    return not headed and any(c.css_first(_CELL_BLOCKS) is not None for r in cells for c in r)


#: Blocks a list item is not read as one line of: code, tables (and javadoc's tables drawn with
#: ``div`` elements), headings.
_ITEM_BLOCK_TAGS = frozenset({"pre", "table", *_HEADINGS})
_ITEM_BLOCKS = ", ".join(sorted(_ITEM_BLOCK_TAGS)) + ", div.summary-table"


def _grid(node: LexborNode) -> bool:
    """A table javadoc (16 and later) draws with ``div`` elements on a CSS grid: its header
    cells (``table-header``), then each row's cells, as the elements inside it."""
    return node.tag == "div" and "summary-table" in classes(node)


def _grid_rows(node: LexborNode) -> list[list[tuple[str, int]]]:
    """A grid's rows of cells (text, columns spanned), its header cells first."""
    cells = [c for c in _children(node) if c.is_element_node and c.tag == "div" and not _dropped(c)]
    width = sum(1 for c in cells if "table-header" in classes(c))
    if width < 1:
        return []
    texts = [(_inline(c).render(one_line=True), 1) for c in cells]
    return [texts[i:i + width] for i in range(0, len(texts), width)]


#: Blocks whose presence in a cell marks a table without header cells as layout.
_CELL_BLOCKS = "dl, ul, ol, pre, h1, h2, h3, h4, h5, h6, blockquote"


def _cells(tr: LexborNode) -> list[tuple[str, int]]:
    """A row's cells: each one's text and the columns it spans."""
    out: list[tuple[str, int]] = []
    for cell in tr.iter():
        if cell.tag in ("td", "th"):
            try:
                span = int(cell.attributes.get("colspan") or 1)
            except ValueError:
                span = 1
            out.append((_inline(cell).render(one_line=True), min(max(span, 1), 64)))
    return out


#: The longest value a table of fields holds in a cell (a longer one is a table's text).
_FIELD_CHARS = 200


def _fields(trs: list[LexborNode]) -> list[tuple[str, str]] | None:
    """A table of fields — each row a header cell naming a value and a data cell holding it
    (a wiki's page properties, a space's details) — as ``(name, value)`` pairs; None for any
    other table. Read as a table, its first field would be every other one's header."""
    out: list[tuple[str, str]] = []
    for tr in trs:
        cells = [c for c in tr.iter() if c.tag in ("td", "th")]
        if len(cells) != 2 or cells[0].tag != "th" or cells[1].tag != "td":
            return None
        name, value = (_inline(c).render(one_line=True).strip() for c in cells)
        if not name or len(value) > _FIELD_CHARS:
            return None
        if value:
            out.append((name, value))
    return out or None


def _pipe_row(cells: list[str], width: int) -> str:
    # A pipe inside a cell is escaped; backslashes before it are doubled so they stay content.
    esc = [_ESCAPED_PIPE.sub(lambda m: "\\" * (2 * len(m[1]) + 1) + "|", c) for c in cells]
    esc += [""] * (width - len(esc))
    return "| " + " | ".join(esc) + " |"


def _list_start(node: LexborNode) -> int:
    """The number of an ordered list's first item (1 for any other element)."""
    if node.tag != "ol":
        return 1
    try:
        return int(node.attributes.get("start") or 1)
    except ValueError:
        return 1


def _item_parts(item: LexborNode, nesting: int) -> tuple[str, list[LexborNode]]:
    """A list item's own text on one line, and the lists inside it read as lists (not past
    _MAX_LIST_DEPTH)."""
    inline = _Inline()
    nested: list[LexborNode] = []
    for child in _children(item):
        if child.is_element_node and child.tag in _LISTS and nesting < _MAX_LIST_DEPTH:
            nested.append(child)
        else:
            inline.add_node(child)
    return inline.render(one_line=True), nested


def _list_lines(node: LexborNode, depth: int, nesting: int = 0, *, items: list[LexborNode] | None = None,
                start: int | None = None) -> list[str]:
    """Lines of one list (or of ``items`` of it, numbered from ``start``); ``depth`` sets the
    indent, ``nesting`` counts lists inside lists (past _MAX_LIST_DEPTH a nested list is
    flattened into its item's text, so recursion is bounded)."""
    ordered = node.tag == "ol"
    number = _list_start(node) if start is None else start
    indent = "  " * depth
    lines: list[str] = []
    for item in (node.iter() if items is None else items):
        if _dropped(item):
            continue
        text, nested = _item_parts(item, nesting)
        if text:
            marker = f"{number}. " if ordered else "- "
            lines.append(indent + marker + text)
            number += 1
        # Lists inside an item with no text of its own take the item's place, not its indent.
        for child in nested:
            lines.extend(_list_lines(child, depth + 1 if text else depth, nesting + 1))
    return lines


def code_html(lines: list[str]) -> str:
    """Lines of code as a ``pre`` block, written for :func:`render_html` by readers that write
    HTML (OpenDocument, Rich Text): their spaces kept."""
    return f"<pre><code>{escape(chr(10).join(lines))}</code></pre>"


def nested_list_html(items: Iterable[tuple[int, bool, str]]) -> str:
    """List items (level from 0, numbered or not, the item's HTML) as nested lists, written for
    :func:`render_html` by readers that write HTML; an item never lies more than one level
    below the one before it."""
    html: list[str] = []
    open_tags: list[str] = []
    for level, numbered, inner in items:
        level = min(level, len(open_tags))
        while len(open_tags) > level + 1:
            html.append(f"</li></{open_tags.pop()}>")
        if len(open_tags) == level + 1:
            html.append("</li>")
        else:
            open_tags.append("ol" if numbered else "ul")
            html.append(f"<{open_tags[-1]}>")
        html.append(f"<li>{inner}")
    while open_tags:
        html.append(f"</li></{open_tags.pop()}>")
    return "".join(html)


def render_html(html: str) -> tuple[str, list[Block], str | None]:
    """The normalised text of an HTML page, its blocks, and its title (or None)."""
    parser = LexborHTMLParser(html)
    doxygen = dox.doxygen_page(html)
    r = _Renderer(site="javadoc" if javadoc_page(html) else "doxygen" if doxygen else "")
    root = parser.body if parser.body is not None else parser.root
    # A page that marks its one main content is read from there: menu bars, pop-ups and
    # sidebars built from plain divs are not content either, and only the page knows.
    main = parser.css("main, [role=main]")
    if len(main) == 1 and not main[0].attributes.get("hidden"):
        root = main[0]
    if root is not None:
        if doxygen:
            dox.mark_page(root)
        mark_look(root, html, _BLOCK, _dropped)
        r.render(root)
    title_node = parser.css_first("title")
    title = _WS.sub(" ", title_node.text()).strip() if title_node is not None else ""
    if doxygen and root is not None and (shown := dox.page_title(root, _kept_text)) and shown not in title:
        title = shown  # every page of a site may be titled by the project alone
    text, blocks = _title_above_siblings(r.text(), r.blocks, title)
    if not title:
        title = next((text[b.start + 2:b.end] for b in blocks if b.type == "heading"
                      and b.level == 1), "")
    return text, blocks, title or None


#: javadoc's description of a class's source page (``-linksource``), all titled "Source code".
_SOURCE_PAGE = re.compile(r"source: package: ([\w.]+), (?:class|interface|enum|record|annotation type): (\w+)")
#: How a javadoc source page's listing sits in it (javadoc 16 and later; before).
_SOURCE_LISTING = "div.source-container > pre, div.sourceContainer > pre"


def _javadoc_source(html: str) -> tuple[str, str] | None:
    """A javadoc source page's Java code, without its line numbers, and title: the file it
    shows ("Range.java (org.apache.commons.lang3)"; a nested class's page shows its outer
    class's file). None for any other page."""
    if "source-container" not in html and "sourceContainer" not in html:
        return None  # no page but javadoc's source pages has its listing's container (parsed once)
    parser = LexborHTMLParser(html)
    listing = parser.css(_SOURCE_LISTING)
    if len(listing) != 1:
        return None
    meta = parser.css_first('meta[name="description"]')
    m = _SOURCE_PAGE.match(meta.attributes.get("content") or "") if meta is not None else None
    title_node = parser.css_first("title")
    title = f"{m[2]}.java ({m[1]})" if m else _WS.sub(" ", title_node.text()).strip() if title_node else ""
    return _pre_text(listing[0]).replace("\xa0", " ").strip("\n").rstrip() + "\n", title


def html_document(body: str, fmt: str, metadata: Mapping[str, object], *, doc_id: str,
                  source: str) -> Document:
    """The Document the HTML ``body`` a reader wrote (a manual page's, a help file's) renders to,
    as format ``fmt``, its metadata without empty values; its text is empty when the body says
    nothing (the reader then reads the file another way)."""
    rendered, blocks, _ = render_pages([f"<html><body>{body}</body></html>"], "")
    return Document(id=doc_id, source=source, text=rendered, format=fmt,
                    metadata=MappingProxyType({k: v for k, v in metadata.items() if v}), blocks=tuple(blocks))


def render_pages(pages: Iterable[str], separator: str, *,
                 keep_empty: bool = False) -> tuple[str, list[Block], str | None]:
    """HTML pages (an e-book's chapters, a deck's slides) rendered one after another with
    ``separator`` between them, their blocks moved to match, and the first page's title. A page
    with no text is left out, unless ``keep_empty`` (a slide keeps its number)."""
    parts: list[str] = []
    blocks: list[Block] = []
    first_title = None
    at = 0
    for html in pages:
        rendered, page_blocks, title = render_html(html)
        lead = len(rendered) - len(rendered.lstrip())
        rendered = rendered.strip()  # blocks end at text, never in the whitespace around it
        if not rendered and not keep_empty:
            continue  # a cover image, a blank page
        first_title = first_title or title
        if parts:
            parts.append(separator)
            at += len(separator)
        parts.append(rendered)
        blocks += [Block(b.start + at - lead, b.end + at - lead, b.type, b.level, b.meta) for b in page_blocks]
        at += len(rendered)
    return "".join(parts), blocks, first_title


#: How a page's ``<title>`` joins its own title to the site's ("VACUUM | PostgreSQL 15").
_TITLE_JOINS = (" | ", " — ", " – ", " - ", ": ", " · ")


def _names_page(heading: str, title: str) -> bool:
    return heading == title or any(title.startswith(heading + j) or title.endswith(j + heading)
                                   for j in _TITLE_JOINS)


def _title_above_siblings(text: str, blocks: list[Block], title: str) -> tuple[str, list[Block]]:
    """A page's first heading, when it repeats the page's ``<title>`` at the level of the
    headings after it (DocBook's reference pages: ``<h2>VACUUM</h2>`` beside ``<h2>Parameters
    </h2>``), is rendered one level up: the page's title is what its sections belong to, so a
    section path reads ``VACUUM › Parameters`` and not ``Parameters``."""
    headings = [b for b in blocks if b.type == "heading"]
    if not title or len(headings) < 2:
        return text, blocks
    first = headings[0]
    level = first.level
    if (level < 2 or min(b.level for b in headings) < level or headings[1].level != level
            or not _names_page(text[first.start + level + 1:first.end], title)):
        return text, blocks
    at = first.start  # one '#' fewer: every later offset moves back by one
    moved = [b if b.start < at else
             Block(at, b.end - 1, b.type, level - 1, b.meta) if b is first else
             Block(b.start - 1, b.end - 1, b.type, b.level, b.meta) for b in blocks]
    return text[:at] + text[at + 1:], moved


def _anchored(meta: MappingProxyType, node: LexborNode) -> MappingProxyType:
    """A heading's ``meta`` with the fragment that names it (:mod:`.html_anchors`), when it has one."""
    found = anchor(node)
    return MappingProxyType({**meta, ANCHOR: found}) if found else meta


def _anchors(blocks: list[Block]) -> dict[str, object]:
    """The document metadata that says where each named heading starts (:data:`ANCHORS_KEY`)."""
    found = [[b.start, b.meta[ANCHOR]] for b in blocks if b.type == "heading" and ANCHOR in b.meta]
    return {ANCHORS_KEY: found} if found else {}


def read_html(text: str, *, doc_id: str, source: str) -> Document:
    java = _javadoc_source(text)
    listing = (*java, "java") if java is not None else dox.source_listing(text, _kept_text)
    if listing is not None:  # a class's source file or a header, read as the code it is
        code, file_title, language = listing
        doc = read_code(code, doc_id=doc_id, source=source, language=language)
        return doc if not file_title else dataclasses.replace(
            doc, metadata=MappingProxyType({**doc.metadata, "title": file_title}))
    page = confluence_page(text)  # a Confluence page: its content, its byline as metadata
    if page is not None:
        body, facts = page
        rendered, blocks, title = render_html(f"<html><body>{body}</body></html>")
        return Document(id=doc_id, source=source, text=rendered, format="html",
                        metadata=MappingProxyType({"title": title, **facts}), blocks=tuple(blocks))
    props: dict[str, object] = {}
    if is_notion_page(source):  # a page of a Notion export: its properties as lines, and metadata
        text, props = html_page(text)
        crumbs = page_parents(source)
        if crumbs:
            props = {"breadcrumbs": crumbs, **props}
    rendered, blocks, title = render_html(text)
    # who wrote the page and when, as its head says; an inline XBRL filing's filer, form and period
    facts = {**page_facts(text), **props, **cover_facts(text)}
    return Document(id=doc_id, source=source, text=rendered, format="html",
                    metadata=MappingProxyType({"title": filing_title(facts) or title, **facts, **_anchors(blocks)}),
                    blocks=tuple(blocks))



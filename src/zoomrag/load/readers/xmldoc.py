"""XML (``.xml``, DocBook ``.dbk``, JATS ``.nxml``, TEI, DITA): prose written as the page it means
and read as any page is (:mod:`.html`); XML of data kept as written and read as code.

Manuals are written in DocBook and DITA, papers come from PubMed Central as JATS and texts from
archives as TEI. Read as plain text, their markup was in every context (``<para>``, ``xml:id``),
their titles were lines like any other, and a table was a column of ``<entry>`` lines. Here the
vocabularies' meaning is kept, not their names: an element whose first child is a title
(``section``, ``sec``, ``div``, ``chapter``, ``topic``…) is a section headed by it, one level per
nesting; paragraphs, lists, definition lists, code, block quotes and tables (CALS ``row`` and
``entry`` or XHTML ``tr`` and ``td``) are what HTML calls them; admonitions are led by their kind
(``Note:``); front matter keeps its title, abstract and keywords, and leaves out journal ids,
affiliations and licences; index terms and remarks are left out; any other element is a
paragraph when it holds text, a container when it holds blocks.

XML whose text is mostly short values and attributes (a ``pom.xml``, an Android layout) is data,
not prose: it is kept as written, its elements as an outline (:mod:`.xmldata`). A file that is
not well-formed XML is read as code: nothing is lost.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import replace
from html import escape
from html.entities import html5
from types import MappingProxyType

from ...model import Document
from .code import read_code
from .html import html_document, read_html
from .xmldata import read_xml_data

#: Root elements of prose vocabularies (DocBook, JATS, TEI, DITA, the W3C's specifications).
PROSE_ROOTS = frozenset({"book", "article", "chapter", "section", "sect1", "part", "set", "refentry",
                         "reference", "appendix", "preface", "tei", "teicorpus", "topic", "concept",
                         "task", "glossentry", "spec", "sub-article"})
#: Elements that title the element they open.
_TITLES = frozenset({"title", "head", "article-title", "refname"})
#: Elements a title may sit in, before the content (DocBook 5's ``info``).
_INFO = frozenset({"info", "bookinfo", "articleinfo", "chapterinfo", "sectioninfo", "prefaceinfo",
                   "appendixinfo", "partinfo", "refentryinfo", "refmeta", "title-group"})
#: Left out with everything in them: index terms, editors' remarks, metadata that is not text.
_DROP = frozenset({"indexterm", "remark", "comment", "journal-meta", "contrib-group", "aff", "author-notes",
                   "pub-date", "permissions", "history", "article-id", "article-categories", "volume",
                   "issue", "fpage", "lpage", "elocation-id", "counts", "self-uri", "funding-group",
                   "custom-meta-group", "authorgroup", "author", "copyright", "legalnotice", "revhistory",
                   "pubdate", "releaseinfo", "date", "publicationstate", "teiheader", "imagedata",
                   "graphic", "inline-graphic", "imageobject", "videoobject", "audioobject", "object",
                   "alt-text", "prolog", "titleabbrev", "subjectset", "related-article",
                   "processing-meta", "colspec", "spanspec", "anchor", "pb", "lb", "cb", "milestone",
                   "revisiondesc", "authlist", "pubstmt", "sourcedesc", "encodingdesc", "profiledesc",
                   "alt-title", "object-id"})
_PARAGRAPHS = frozenset({"para", "simpara", "p", "ab", "shortdesc", "subtitle", "attribution",
                         "kwd-group", "mixed-citation", "element-citation", "citation", "ref",
                         "bibliomixed", "biblioentry", "bibl", "line", "l", "term", "glossterm"})
_CODE = frozenset({"programlisting", "screen", "literallayout", "synopsis", "codeblock", "pre",
                   "preformat", "cmdsynopsis", "funcsynopsis", "msgblock", "verbatim", "code"})
_LISTS = {"itemizedlist": "ul", "orderedlist": "ol", "simplelist": "ul", "procedure": "ol",
          "substeps": "ol", "stepalternatives": "ul", "ul": "ul", "ol": "ol", "list": "ul",
          "steps": "ol", "steps-unordered": "ul", "segmentedlist": "ul", "fn-group": "ul",
          "ref-list": "ul", "bibliography": "ul", "listbibl": "ul", "bibliodiv": "ul"}
_ITEMS = frozenset({"listitem", "list-item", "li", "item", "step", "member", "seglistitem", "fn", "ref",
                    "bibliomixed", "biblioentry", "bibl"})
_DEFINITIONS = {"variablelist": "varlistentry", "glosslist": "glossentry", "glossary": "glossentry",
                "def-list": "def-item", "dl": "dlentry", "parml": "plentry"}
_TERMS = frozenset({"term", "glossterm", "dt", "pt"})
_ADMONITIONS = frozenset({"note", "tip", "warning", "caution", "important", "danger", "notice",
                          "attention", "hazardstatement"})
_QUOTES = frozenset({"blockquote", "epigraph", "disp-quote", "quote-block", "lq"})
_TABLES = frozenset({"table", "informaltable", "simpletable", "choicetable", "properties"})
_ROWS = frozenset({"row", "tr", "strow", "sthead", "chrow", "chhead", "property", "prophead"})
_CELLS = frozenset({"entry", "td", "th", "stentry", "choption", "chdesc", "proptype", "propvalue",
                    "propdesc"})
#: Where a cell is a header cell.
_HEAD_ROWS = frozenset({"thead", "sthead", "chhead", "prophead"})
_FRONT = frozenset({"front", "teiheader", "article-meta", "filedesc", "titlestmt", "header", "frontmatter"})
_FOOTNOTES = frozenset({"footnote", "fn"})
#: Attributes not said when an element is written by its name.
_UNSAID = frozenset({"name", "id", "lang", "space", "base", "class", "style"})
_BREAKS = frozenset({"lb", "br", "sbr", "break", "cb", "pb"})
#: Elements made of fields written without spaces between them.
_FIELDED = frozenset({"name", "string-name", "person-group", "element-citation", "mixed-citation", "citation",
                      "bibl", "biblioentry", "bibliomixed", "personname", "address", "contrib"})
#: Headings of front and back matter that has no title of its own.
_UNTITLED = {"abstract": "Abstract", "trans-abstract": "Abstract", "ack": "Acknowledgements",
             "acknowledgements": "Acknowledgements", "ref-list": "References", "bibliography": "References",
             "glossary": "Glossary", "notes": "Notes", "fn-group": "Notes"}
#: Titled elements whose title is a caption, not a section's heading.
_CAPTIONED = frozenset({*_TABLES, "figure", "informalfigure", "example", "informalexample", "fig",
                        "table-wrap", "equation", "fig-group", "mediaobject"})
_CAPTIONS = frozenset({"caption", "label"})
#: Titled blocks that are not sections: their title is a paragraph (an admonition's leads it).
_TITLED_BLOCKS = frozenset({"sidebar", "formalpara", "admonition", "boxed-text", "statement",
                            "verse-group", "disp-quote", "blockquote", "epigraph"})
_BLOCKISH = frozenset({*_PARAGRAPHS, *_CODE, *_LISTS, *_DEFINITIONS, *_ADMONITIONS, *_QUOTES, *_CAPTIONED,
                       *_TITLES, *_CAPTIONS, "section", "sec", "div", "abstract", "body", "back"})
#: Block elements a paragraph may hold (DocBook's ``para`` holds lists and listings).
_IN_PARAGRAPH = frozenset(_BLOCKISH - {*_PARAGRAPHS, *_TITLES, *_CAPTIONS, "code"})
_ENTRIES = frozenset({"varlistentry", "glossentry", "def-item", "dlentry", "plentry"})
#: Of a file's text and attribute values, the share in runs of prose, for it to be prose.
_PROSE_SHARE = 0.5
#: Of a file's text, the share in elements that hold text and markup both, for prose.
_MIXED_SHARE = 0.2
#: A run of text is prose when it holds this many words.
_PROSE_WORDS = 6
_WORDS = re.compile(r"\w+")
_ENTITY = re.compile(r"&([A-Za-z][\w.-]*);")
#: A file larger than this whose root is no prose vocabulary's is read as code unparsed.
MAX_UNKNOWN = 4_000_000
#: The root element's name: the first tag that is no declaration, comment or instruction.
_FIRST_TAG = re.compile(r"<([A-Za-z_][\w.:-]*)")
#: Heading levels past this are written as level 6.
_MAX_LEVEL = 6


def read_xml(text: str, *, doc_id: str, source: str) -> Document:
    if len(text) > MAX_UNKNOWN and _root_name(text) not in PROSE_ROOTS:
        return _as_code(text, doc_id, source)  # a data dump: not worth a tree to find out
    root = parse_xml(text)
    if root is not None and local_name(root.tag) == "html":  # XHTML
        return replace(read_html(text, doc_id=doc_id, source=source), format="html")
    if root is None:
        return _as_code(text, doc_id, source)
    if not _is_prose(root):
        return read_xml_data(text, doc_id=doc_id, source=source)
    page = _Page()
    try:
        _name_cross_references(root)
        page.block(root, 0)
    except RecursionError:  # thousands of elements deep: kept as written
        return _as_code(text, doc_id, source)
    doc = html_document("".join(page.out), "xml", {"title": page.title}, doc_id=doc_id, source=source)
    return doc if doc.text.strip() else _as_code(text, doc_id, source)


#: Cross-references a processor writes the text of (DocBook's ``<xref linkend>``, the W3C
#: specification DTD's ``<specref ref>``), and the attribute naming their target.
_XREFS = {"xref": "linkend", "specref": "ref"}
_XML_ID = "{http://www.w3.org/XML/1998/namespace}id"


def _name_cross_references(root: ET.Element) -> None:
    """An empty cross-reference given its target's ``xreflabel`` or title (``see <xref
    linkend="install"/>`` reads "see Installing"), as a processor would print; else it stays
    empty."""
    refs = [el for el in root.iter() if local_name(el.tag) in _XREFS and not (el.text or "").strip() and not len(el)]
    if not refs:
        return
    ids: dict[str, ET.Element] = {}
    for el in root.iter():
        key = el.get("id") or el.get(_XML_ID)
        if key:
            ids.setdefault(key, el)
    for el in refs:
        target = ids.get(el.get(_XREFS[local_name(el.tag)]) or "")
        if target is None or target is el:
            continue
        title = _title_of(target)
        label = target.get("xreflabel") or (_plain(title) if title is not None else "")
        if label:
            el.text = label


def _plain(el: ET.Element) -> str:
    return " ".join("".join(el.itertext()).split())


def _root_name(text: str) -> str:
    m = _FIRST_TAG.search(text)
    return m.group(1).rpartition(":")[2].lower() if m else ""


def _as_code(text: str, doc_id: str, source: str) -> Document:
    doc = read_code(text, doc_id=doc_id, source=source)
    meta = MappingProxyType({"language": "xml"})
    return replace(doc, metadata=meta, blocks=tuple(replace(b, meta=meta) for b in doc.blocks))


def parse_xml(text: str) -> ET.Element | None:
    """The tree, or None when the text is not well-formed XML. Entities a DTD would define
    (``&mdash;``, ``&nbsp;``) are HTML's; others are kept as written; no DTD is read."""
    parser = ET.XMLParser()
    for name in set(_ENTITY.findall(text)):
        if name not in ("amp", "lt", "gt", "quot", "apos"):
            parser.entity[name] = html5.get(name + ";", f"&{name};")
    try:
        parser.feed(text)
        return parser.close()
    except (ET.ParseError, ValueError, RecursionError):
        return None


def local_name(tag: object) -> str:
    """The element's name without its namespace, lower case; "" for comments and instructions."""
    if not isinstance(tag, str):
        return ""
    return tag.rpartition("}")[2].lower()


def _is_prose(root: ET.Element) -> bool:
    """A known prose vocabulary, or text mostly in runs of words (not short values and
    attributes) with markup inside it (``<p>see <b>this</b></p>``), which data never has."""
    if local_name(root.tag) in PROSE_ROOTS:
        return True
    total = prose = mixed = attributes = 0
    for el in root.iter():
        attributes += sum(len(v) for v in el.attrib.values())
        own = [run.strip() for run in (el.text, *(c.tail for c in el)) if run and run.strip()]
        size = sum(map(len, own))
        total += size
        prose += sum(len(run) for run in own if len(_WORDS.findall(run)) >= _PROSE_WORDS)
        if len(el) and own:
            mixed += size
    return prose >= _PROSE_SHARE * (total + attributes) and mixed >= _MIXED_SHARE * total > 0


def _children(el: ET.Element) -> Iterator[ET.Element]:
    return (c for c in el if local_name(c.tag) and local_name(c.tag) not in _DROP)


def _title_of(el: ET.Element) -> ET.Element | None:
    """The title element that opens ``el``: a first child, or inside the front matter before
    its content (DocBook's ``info``, JATS's ``front``, TEI's ``teiHeader``); None without one."""
    for c in el:
        name = local_name(c.tag)
        if name in _TITLES:
            return c
        if name in _INFO or name in _FRONT:
            found = next((t for t in c.iter() if local_name(t.tag) in _TITLES), None)
            if found is not None:
                return found
        elif name and name not in _DROP and name != "label":
            return None
    return None


def _inline(el: ET.Element) -> str:
    """The escaped text of ``el`` and all within it."""
    parts = [escape(el.text or "")]
    fielded = local_name(el.tag) in _FIELDED
    for c in el:
        parts.append(_inline_child(c, fielded))
        parts.append(escape(c.tail or ""))
    return "".join(parts)


def _inline_child(c: ET.Element, fielded: bool) -> str:
    """A child's text inside a paragraph: a footnote in brackets, a line break a space, blocks
    and the fields of a name or reference (``<surname>``, ``<given-names>``) apart by a space."""
    name = local_name(c.tag)
    if name in _BREAKS:
        return " "
    if not name or name in _DROP:
        return ""
    inner = _inline(c)
    if name in _FOOTNOTES:
        return f" [{inner.strip()}] "
    if fielded:
        return f" {inner.strip()}"
    return f" {inner} " if name in _BLOCKISH else inner


def _text(el: ET.Element) -> str:
    return " ".join(_inline(el).split())


def _has_blocks(el: ET.Element) -> bool:
    """Whether ``el`` holds blocks (it is a container), not only text and inline markup."""
    if (el.text or "").strip():
        return False
    kids = list(_children(el))
    return bool(kids) and all(not (c.tail or "").strip() for c in kids) and any(
        local_name(c.tag) in _BLOCKISH or _has_blocks(c) for c in kids)


class _Page:
    """The HTML a tree of prose means, written into ``out``."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.title: str | None = None
        self.used: set[int] = set()

    def h(self, level: int, text: str) -> None:
        n = min(level, _MAX_LEVEL)
        self.out.append(f"<h{n}>{text}</h{n}>")

    def block(self, el: ET.Element, level: int) -> None:
        name = local_name(el.tag)
        title = _title_of(el)
        if title is not None and id(title) in self.used:
            title = None
        if name in ("kwd-group", "keywordset"):
            if title is not None:
                self.used.add(id(title))
            words = ", ".join(_text(k) for k in _children(el) if id(k) != id(title))
            if words:
                self.out.append(f"<p>{_text(title) if title is not None else 'Keywords'}: {words}</p>")
            return
        if name not in _UNTITLED and (name in _CAPTIONED or name in _LISTS or name in _DEFINITIONS
                                      or name in _TITLED_BLOCKS or name in _ADMONITIONS):
            self._caption(el, title)  # a title of a block, not of a section: what follows is not under it
            title = None
        elif title is not None:
            self.used.add(id(title))
            text = _text(title)
            if text:
                label = next((c for c in el if local_name(c.tag) == "label"), None)
                if label is not None:  # a section's number (JATS)
                    self.used.add(id(label))
                    text = f"{_text(label)} {text}".strip()
                level += 1
                if self.title is None:
                    self.title = " ".join(ET.tostring(title, method="text", encoding="unicode").split()) or None
                self.h(level, text)
        elif name in _UNTITLED:
            level += 1
            self.h(level, _UNTITLED[name])
        elif el.get("name") and name not in _BLOCKISH:
            # data with documentation (a D-Bus interface's methods and properties): the names
            # and attributes are what it is about
            said = escape(", ".join(f"{local_name(k)} {v}" for k, v in el.attrib.items() if local_name(k) not in _UNSAID))
            if len(el) or (el.text or "").strip():
                level += 1
                self.h(level, escape(f"{name} {el.get('name')}"))
                if said:
                    self.out.append(f"<p>{said}</p>")
            else:
                self.out.append(f"<p>{escape(name)} {escape(el.get('name', ''))}{f' ({said})' if said else ''}</p>")
                return
        if name in _CODE:
            self.out.append(f"<pre>{escape(''.join(el.itertext()).strip(chr(10)))}</pre>")
        elif name in _TABLES and self._table(el):
            pass
        elif name in _LISTS and any(local_name(c.tag) in _ITEMS for c in _children(el)):
            self._list(el, _LISTS[name], level, skip=title)
        elif name in _DEFINITIONS:
            self._definitions(el, _DEFINITIONS[name], level, skip=title)
        elif name in _ADMONITIONS:
            at = len(self.out)
            self._contents(el, level, skip=title)
            lead = f"{name.capitalize()}:" if at == len(self.out) or not self.out[at].startswith("<p>") \
                else f"<p>{name.capitalize()}: {self.out[at].removeprefix('<p>')}"
            if lead.startswith("<p>"):
                self.out[at] = lead
            else:
                self.out.insert(at, f"<p>{lead}</p>")
        elif name in _QUOTES:
            self.out.append("<blockquote>")
            self._contents(el, level, skip=title)
            self.out.append("</blockquote>")
        elif name in _CAPTIONS:
            text = _text(el)
            if text:
                self.out.append(f"<p>{text}</p>")
        elif _has_blocks(el) or (title is not None and not (el.text or "").strip()):
            self._contents(el, level, skip=title)
        else:  # a paragraph, or a title not at the top of what it titles
            self._paragraph(el, level)

    def _caption(self, el: ET.Element, title: ET.Element | None) -> None:
        """A table's or figure's label, title and caption, as one paragraph above it."""
        parts = [c for c in el if local_name(c.tag) in _CAPTIONS and id(c) not in self.used]
        if title is not None and id(title) not in self.used:
            parts.insert(0, title)
        self.used.update(id(c) for c in parts)
        text = " ".join(t for t in (_text(c) for c in parts) if t)
        if text:
            self.out.append(f"<p>{text}</p>")

    def _contents(self, el: ET.Element, level: int, skip: ET.Element | None) -> None:
        """``el``'s children as blocks, any text between them as paragraphs."""
        self._flush([escape(el.text or "")])
        for c in el:
            if _kept(c) and c is not skip and id(c) not in self.used:
                self.block(c, level)
            self._flush([escape(c.tail or "")])

    def _paragraph(self, el: ET.Element, level: int) -> None:
        """``el``'s text as paragraphs, with the lists and listings it holds between them."""
        run = [escape(el.text or "")]
        fielded = local_name(el.tag) in _FIELDED
        for c in el:
            if local_name(c.tag) in _IN_PARAGRAPH:
                self._flush(run)
                self.block(c, level)
                run = []
            else:
                run.append(_inline_child(c, fielded))
            run.append(escape(c.tail or ""))
        self._flush(run)

    def _flush(self, run: list[str]) -> None:
        text = "".join(run).strip()
        if text:
            self.out.append(f"<p>{text}</p>")

    def _item(self, el: ET.Element, level: int) -> None:
        if _has_blocks(el):
            self._contents(el, level, skip=None)
        else:
            self._paragraph(el, level)

    def _list(self, el: ET.Element, tag: str, level: int, skip: ET.Element | None) -> None:
        self.out.append(f"<{tag}>")
        self._stray_item(el.text)
        for c in el:
            if _kept(c) and c is not skip and id(c) not in self.used:
                self.out.append("<li>")
                self._item(c, level)
                self.out.append("</li>")
            self._stray_item(c.tail)
        self.out.append(f"</{tag}>")

    def _stray_item(self, run: str | None) -> None:
        if run and run.strip():
            self.out.append(f"<li>{escape(run.strip())}</li>")

    def _definitions(self, el: ET.Element, entry: str, level: int, skip: ET.Element | None) -> None:
        self.out.append("<dl>")
        self._stray_definition(el.text)
        for c in el:
            if not _kept(c) or c is skip or id(c) in self.used:
                pass
            elif local_name(c.tag) != entry and local_name(c.tag) not in _ENTRIES:
                self.out.append("</dl>")
                self.block(c, level)
                self.out.append("<dl>")
            else:
                self._stray_definition(c.text)
                for part in c:
                    if not _kept(part):
                        pass
                    elif local_name(part.tag) in _TERMS:
                        self.out.append(f"<dt>{_text(part)}</dt>")
                    else:
                        self.out.append("<dd>")
                        self._item(part, level)
                        self.out.append("</dd>")
                    self._stray_definition(part.tail)
            self._stray_definition(c.tail)
        self.out.append("</dl>")

    def _stray_definition(self, run: str | None) -> None:
        if run and run.strip():
            self.out.append(f"<dd>{escape(run.strip())}</dd>")

    def _table(self, el: ET.Element) -> bool:
        """Write ``el``'s rows as a table, and any text outside its cells after it; False when
        it has no rows."""
        rows = [r for r in el.iter() if local_name(r.tag) in _ROWS]
        if not rows:
            return False
        heads = {id(r) for h in el.iter() if local_name(h.tag) in _HEAD_ROWS for r in h.iter() if local_name(r.tag) in _ROWS}
        self.out.append("<table>")
        for r in rows:
            cell = "th" if id(r) in heads or local_name(r.tag) in _HEAD_ROWS else "td"
            cells = [_text(c) for c in r if local_name(c.tag) in _CELLS]
            self.out.append("<tr>" + "".join(f"<{cell}>{c}</{cell}>" for c in cells) + "</tr>")
        self.out.append("</table>")
        self._flush(self._outside_cells(el))
        return True

    def _outside_cells(self, el: ET.Element, in_row: bool = False) -> list[str]:
        if (in_row and local_name(el.tag) in _CELLS) or id(el) in self.used:
            return []
        run = [escape(el.text or "")]
        for c in el:
            if _kept(c):
                run.extend(self._outside_cells(c, local_name(el.tag) in _ROWS))
            run.append(escape(c.tail or ""))
        return run


def _kept(el: ET.Element) -> bool:
    name = local_name(el.tag)
    return bool(name) and name not in _DROP

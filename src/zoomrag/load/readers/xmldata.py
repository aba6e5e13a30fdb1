"""XML of data (a ``pom.xml``, a ``.csproj``, an Android manifest, a Spring context): the text kept
as written and read as ``xml`` code cut at lines, with an outline of its elements.

An element whose start tag opens its line and whose content runs :data:`MIN_LINES` lines or more
below it (``<dependencies>``, ``<dependency>``) is a heading on that line, one level per nesting
below the root, down to :data:`MAX_LEVEL`; after the first such element among its siblings every
later one that opens its line is a heading too (a one-line ``<packaging>`` after ``<build>`` is not
part of the build). A heading is titled by the element's name and what names it: a ``name``,
``id`` or ``key`` attribute, else the text of a first ``artifactId``, ``name`` or ``id`` child
(``dependency junit``). So a context names where it sits: ``project › dependencies › dependency
junit``. expat finds the elements (no DTD read, no entity fetched); a file it cannot read, or one
over :data:`MAX_OUTLINE`, is code by its layout.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from xml.parsers import expat

from ...model import Block, Document
from ..spans import line_spans, trim
from .configfile import section_blocks

#: An element is a heading when its content runs at least this many lines below its start tag.
MIN_LINES = 3
#: The deepest heading level (the root's children are level 1).
MAX_LEVEL = 4
#: A larger text is read as code by its layout: its outline is not worth parsing it again for
#: every query that lands in it.
MAX_OUTLINE = 1_000_000
#: Attributes that name an element, in order of preference.
_NAME_ATTRIBUTES = ("name", "id", "key", "android:name", "Include", "title")
#: Child elements whose text names their parent, in order of preference.
_NAME_CHILDREN = ("artifactId", "name", "id", "key", "title")
#: A naming child's text longer than this is content, not a name.
_NAME_CHARS = 80


@dataclass
class _Element:
    name: str
    line: int
    depth: int
    attrs: dict[str, str]
    end_line: int = -1
    #: The texts of the first children that may name it (``artifactId``).
    named_by: dict[str, str] = field(default_factory=dict)
    text: list[str] = field(default_factory=list)
    children: list[_Element] = field(default_factory=list)


def xml_data_blocks(text: str) -> list[Block]:
    """Heading blocks for the outline and ``xml`` code blocks for the lines between them."""
    return section_blocks(text, _headings(text) if len(text) <= MAX_OUTLINE else [], "xml", ("<!--",))


def _headings(text: str) -> list[tuple[int, int, int, str]]:
    root = _tree(text)
    if root is None:
        return []
    line_starts = [s for s, _ in line_spans(text)] or [0]
    found: list[tuple[int, int, int, str]] = []

    def visit(parent: _Element) -> None:
        headed = False
        for el in parent.children:
            if _opens_line(text, line_starts, el) and (headed or el.end_line - el.line >= MIN_LINES):
                headed = True
                found.append(_heading(text, line_starts, el))
                if el.depth < MAX_LEVEL:
                    visit(el)

    visit(root)
    return found


def _tree(text: str) -> _Element | None:
    """The elements down to :data:`MAX_LEVEL` below the root, with their lines and names;
    None when expat cannot read the text."""
    parser = expat.ParserCreate()
    parser.UseForeignDTD(True)  # an entity a DTD elsewhere defines is skipped, not an error
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[_Element] = []
    roots: list[_Element] = []

    def start(name: str, attrs: dict[str, str]) -> None:
        el = _Element(name, parser.CurrentLineNumber - 1, len(stack), attrs)
        if not stack:
            roots.append(el)
        elif el.depth <= MAX_LEVEL:
            stack[-1].children.append(el)
        stack.append(el)

    def end(name: str) -> None:
        el = stack.pop()
        el.end_line = parser.CurrentLineNumber - 1
        own = "".join(el.text).strip()
        if stack and el.name in _NAME_CHILDREN and own and len(own) <= _NAME_CHARS:
            stack[-1].named_by.setdefault(el.name, own)

    def chars(data: str) -> None:
        if stack and stack[-1].name in _NAME_CHILDREN:
            stack[-1].text.append(data)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    try:
        parser.Parse(text, True)
    except (expat.ExpatError, RecursionError, ValueError):
        return None
    return roots[0] if roots else None


def _opens_line(text: str, line_starts: list[int], el: _Element) -> bool:
    start = line_starts[min(el.line, len(line_starts) - 1)]
    return text[start:start + len(el.name) + 200].lstrip(" \t").startswith("<" + el.name)


def _heading(text: str, line_starts: list[int], el: _Element) -> tuple[int, int, int, str]:
    """The start tag's line, with a comment that ends right above it (it says what the element
    is for), titled by the element's name and what names it."""
    start = line_starts[min(el.line, len(line_starts) - 1)]
    nl = text.find("\n", start)
    s, e = trim(text, start, len(text) if nl < 0 else nl)
    above = start  # past the blank lines above, without copying what comes before
    while above and text[above - 1].isspace():
        above -= 1
    if text.endswith("-->", 0, above):
        opened = text.rfind("<!--", 0, above)
        if opened >= 0 and text.find("-->", opened, above - 3) < 0 \
                and not text[text.rfind("\n", 0, opened) + 1:opened].strip():
            s = opened
    ident = next((el.attrs[a] for a in _NAME_ATTRIBUTES if el.attrs.get(a)), "") or next(
        (el.named_by[c] for c in _NAME_CHILDREN if c in el.named_by), "")
    return s, e, el.depth, " ".join(f"{el.name} {ident}".split())


def read_xml_data(text: str, *, doc_id: str, source: str) -> Document:
    return Document(id=doc_id, source=source, text=text, format="xmldata",
                    metadata=MappingProxyType({"language": "xml"}), blocks=tuple(xml_data_blocks(text)))


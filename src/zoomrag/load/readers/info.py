"""GNU Info manuals (``coreutils.info``, ``find.info-1``: makeinfo's output of a Texinfo
manual) read as the manual, not as its navigation.

An Info file is nodes parted by a ``^_`` line, each opened by a line naming its neighbours
(``File: …,  Node: ls invocation,  Next: …,  Up: …``) and usually closed by a menu of the nodes
under it. The node lines, menus (the index's too, which is a menu), the tag table and the
file's directory entries are left out. Titles underlined with ``*``, ``=``, ``-`` or ``.`` are
headings of levels 1 to 4; a table's items (``‘-a’`` over text indented five spaces) are tags
with their descriptions, as a manual page's are (:mod:`.roffpage`); text indented past the
paragraph it is in is an example; ``*note Node::`` cross-references read ``see Node``. A file
with no node in it (a ``.info`` file of some other tool) is plain text.
"""

from __future__ import annotations

import re

from ...model import Document
from .plain import read_plain
from .roffpage import RoffPage, page_document

EXTENSIONS = (".info",)
#: The parts a large manual is split into (``find.info-1``).
EXTENSION_PATTERN = r"\.info-\d+"

_SEPARATOR = "\x1f"
_NODE_LINE = re.compile(r"File: [^,\n]*,\s+Node: ([^,\n]*)")
#: The entries a manual adds to the Info directory (``INFO-DIR-SECTION`` … ``END-INFO-DIR-ENTRY``).
_DIRECTORY = re.compile(r"^INFO-DIR-SECTION.*\n|^START-INFO-DIR-ENTRY\n(?:.*\n)*?END-INFO-DIR-ENTRY\n?", re.M)
_UNDERLINE = {"*": 1, "=": 2, "-": 3, ".": 4}
_NOTE = re.compile(r"\*([Nn])ote\s+((?:[^:*]|\n)+?)(?:::|:\s*(?:\([^)\n]*\))?(?:[^.,:*]|\n)*?(?=[.,]))")
#: How far a table's descriptions and makeinfo's examples are indented past their text.
_STEP = 5
#: A tag is at most this long.
_TAG_CHARS = 90
#: Prose: sentences of words (a quotation is indented as an example is).
_WORD = re.compile(r"[^\W\d_][\w’'-]*[,.;:!?)”\"]*")
_PROSE_WORDS = 12
_PROSE_SHARE = 0.85


def read_info(text: str, *, doc_id: str, source: str) -> Document:
    parts = text.split(_SEPARATOR)
    nodes = [p for p in parts[1:] if _NODE_LINE.match(p.lstrip("\n"))]
    if not nodes and not any(p.lstrip("\n").startswith("Indirect:") for p in parts[1:]):
        return read_plain(text, doc_id=doc_id, source=source)
    page = RoffPage()
    title = None
    if not nodes:  # a split manual's first file: what it says of the manual, then where its parts are
        _write_blocks(_blocks(_DIRECTORY.sub("", parts[0]).split("\n")), page)
    for node in nodes:
        body = node.lstrip("\n").split("\n", 1)
        heading = _write_node(body[1] if len(body) > 1 else "", page)
        title = title or heading
    return page_document(page, text, "info", {"title": title or ""}, doc_id=doc_id, source=source)


def _see(m: re.Match[str]) -> str:
    return ("See " if m.group(1) == "N" else "see ") + " ".join(m.group(2).split())


def _write_node(body: str, page: RoffPage) -> str | None:
    """One node's text onto ``page``; its first heading."""
    menu = re.search(r"^\* Menu:", body, re.M)
    if menu is not None:
        body = body[:menu.start()]
    body = _NOTE.sub(_see, body)
    first = None
    lines = body.split("\n")
    start = i = 0
    while i < len(lines):
        line = lines[i]
        under = lines[i + 1] if i + 1 < len(lines) else ""
        if (line.strip() and under and len(set(under)) == 1 and under[0] in _UNDERLINE
                and abs(len(under) - len(line.rstrip())) <= 2):
            _write_blocks(_blocks(lines[start:i]), page)
            page.heading(_UNDERLINE[under[0]], line.strip())
            first = first or line.strip()
            i += 2
            start = i
            continue
        i += 1
    _write_blocks(_blocks(lines[start:]), page)
    return first


def _blocks(lines: list[str]) -> list[list[str]]:
    """Lines parted at blank lines."""
    blocks: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            blocks[-1].append(line.rstrip())
        elif blocks[-1]:
            blocks.append([])
    return [b for b in blocks if b]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _write_blocks(blocks: list[list[str]], page: RoffPage) -> None:
    """A node's blank-line parted blocks: tags with their descriptions nest by indentation."""
    terms: list[int] = []  # the indentation of each open table's tags, outermost first
    for block in blocks:
        at = _indent(block[0])
        if _tags(block):
            while terms and terms[-1] > at:
                terms.pop()
                page.outdent()
            if not terms or terms[-1] < at:
                terms.append(at)
                page.nest()
            j = 0
            while j < len(block):  # items one under another with no blank line between them
                k = j
                while k < len(block) and _indent(block[k]) <= at:
                    page.term(block[k].strip())
                    k += 1
                m = k
                while m < len(block) and _indent(block[m]) > at:
                    m += 1
                if m > k:
                    _paragraph(block[k:m], page)
                j = max(m, j + 1)
            continue
        # a paragraph's first line is indented 3 past the text it is in (a one-line one too)
        least = min(_indent(line) for line in block[1:]) if len(block) > 1 else at - 3 if at % _STEP == 3 else at
        while terms and least <= terms[-1]:
            terms.pop()
            page.outdent()
        body = terms[-1] + _STEP if terms else 0
        if least >= body + _STEP and not block[0].lstrip().startswith("• ") and not _prose(block):
            page.start_pre()
            shift = min(_indent(line) for line in block)
            for line in block:
                page.text(line[shift:])
            page.end_pre()
        else:
            _paragraph(block, page)
    while terms:
        terms.pop()
        page.outdent()


def _prose(block: list[str]) -> bool:
    words = " ".join(block).split()
    return (len(words) >= _PROSE_WORDS and block[-1].rstrip()[-1:] in ".!?”\")"
            and sum(1 for w in words if _WORD.fullmatch(w)) >= _PROSE_SHARE * len(words))


def _tags(block: list[str]) -> int:
    """How many lines a table item's tags take at the top of ``block`` (0: it is no item)."""
    at = _indent(block[0])
    n = 0
    while n < len(block) and _indent(block[n]) == at and len(block[n].strip()) <= _TAG_CHARS:
        n += 1
    if n == 0 or n >= len(block) or _indent(block[n]) < at + _STEP - 1:
        return 0
    if block[n - 1].rstrip().endswith((".", ":", ",", ";")) and not block[0].lstrip().startswith("‘"):
        return 0  # a paragraph whose lines go on indented (a quotation after it), not tags
    return n


def _paragraph(lines: list[str], page: RoffPage) -> None:
    if not lines[0].strip().startswith("• "):
        page.end_bullets()
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("• "):
            page.bullet()
            stripped = stripped[2:]
        page.text(stripped)
    page.paragraph()

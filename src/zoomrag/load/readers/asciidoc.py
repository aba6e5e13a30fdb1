"""AsciiDoc: section titles as heading blocks, listing and literal blocks as code blocks, the
rest as plain paragraphs (the text itself is kept as it is); the header's attribute entries
(``:author: …`` under the ``= Title`` line) are its metadata.

A section title is a line of ``=`` marks (or Markdown's ``#``) and a space, one mark per level;
or, in the older two-line form, a line underlined by ``=``, ``-``, ``~``, ``^`` or ``+`` to
within two characters of its width. A delimited block runs from a line of four or more of one
character to the same line again: ``----`` (listing), ``....`` (literal) and ``++++``
(passthrough) hold code, kept whole under the ``[source,lang]`` line that names its language;
``////`` holds a comment; the others (example ``====``, sidebar ``****``, quote ``____``, open
``--``) hold ordinary blocks. Read as plain text, a command over a ``----`` line was a heading,
and ``== Title`` was not.

Anchor and attribute lines (``[[id]]``, ``[source,sh]``, ``[NOTE]``) are markup: they belong to
no block, and assembly cuts them from a context's edges.
"""

from __future__ import annotations

import re
from types import MappingProxyType

from ...model import Block, Document
from ..spans import line_spans
from .plain import with_paragraphs

#: ``= Title`` to ``====== Title`` (and Markdown's ``#``): the marks, then the title.
_TITLE = re.compile(r"(={1,6}|#{1,6})[ \t]+(\S.*?)(?:[ \t]+\1)?[ \t]*")
#: The characters of a two-line title's underline, by level.
_UNDERLINES = {"=": 1, "-": 2, "~": 3, "^": 4, "+": 5}
_UNDERLINE = re.compile(r"([=\-~^+])\1+[ \t]*")
#: A delimited block's fence: four or more of one character, or the open block's ``--``.
_FENCE = re.compile(r"(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|/{4,}|--|\|={3,})[ \t]*")
#: Fences whose content is kept verbatim: code, and (``/``) a comment.
_VERBATIM = frozenset("-.+/")
#: A block attribute or anchor line: ``[source,python]``, ``[[install]]``, ``[#id.role]``.
_ATTRIBUTES = re.compile(r"\[\[?[^\s\[\]][^\[\]\n]*\]\]?[ \t]*")
_LANGUAGE = re.compile(r"\[(?:source)?,[ \t]*([\w+#.-]+)")
#: A link macro (``https://lore.kernel.org/git[the list]``, ``link:x.html[X]``) and an inline
#: anchor (``[[GHCI]]``): a title says the link's text and not the anchor.
_LINK = re.compile(r"(?:https?://|link:|xref:|mailto:)[^\s\[]*\[([^\]]*)\]")
_INLINE_ANCHOR = re.compile(r"\[\[[^\]]*\]\]")
#: A header attribute entry: ``:name: value``.
_ENTRY = re.compile(r":(!?[\w][\w-]*!?):(?:[ \t]+(.*))?")


def _clean(title: str) -> str:
    title = _INLINE_ANCHOR.sub("", title)
    return _LINK.sub(lambda m: m.group(1) or m.group(0)[:m.group(0).index("[")], title).strip()


def _title_line(lines: list[str], i: int) -> tuple[int, int, str] | None:
    """``(last line, level, title)`` of a section title starting at line ``i``."""
    line = lines[i]
    m = _TITLE.fullmatch(line)
    if m is not None:
        return i, len(m.group(1)), _clean(m.group(2))
    if i + 1 >= len(lines) or not line.strip() or line[0].isspace() or _FENCE.fullmatch(line):
        return None
    under = _UNDERLINE.fullmatch(lines[i + 1])
    if under is None or _ATTRIBUTES.fullmatch(line):
        return None
    width = len(line.rstrip())
    if abs(len(lines[i + 1].rstrip()) - width) > 2 or width < 2:
        return None
    above = lines[i - 1] if i else ""
    if above.strip() and not _ATTRIBUTES.fullmatch(above):
        return None  # the last line of a paragraph over a listing block's fence
    return i + 1, _UNDERLINES[under.group(1)], _clean(line)


def _closing(lines: list[str], i: int, fence: str) -> int | None:
    """The line that closes the block fenced at line ``i``, or None when none does."""
    for j in range(i + 1, len(lines)):
        if lines[j].rstrip() == fence:
            return j
    return None


def asciidoc_blocks(text: str) -> tuple[list[Block], str | None, dict[str, str]]:
    """The blocks of an AsciiDoc text, its title (the document title, else the first section's)
    and its header's attribute entries."""
    spans = line_spans(text)
    lines = [text[s:e] for s, e in spans]
    marked: list[Block] = []
    skipped: list[tuple[int, int]] = []  # markup lines, fences and comments: in no block
    title: str | None = None
    header: dict[str, str] = {}
    language = ""  # named by the attribute line over the next block
    in_header = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if in_header:
            entry = _ENTRY.fullmatch(line.rstrip())
            if entry is not None:
                header.setdefault(entry.group(1).strip("!"), (entry.group(2) or "").strip())
                skipped.append(spans[i])
                i += 1
                continue
            in_header = False
        found = _title_line(lines, i)
        if found is not None:
            last, level, name = found
            stop = spans[last][0] + len(lines[last].rstrip())
            marked.append(Block(spans[i][0], stop, "heading", min(level, 6), MappingProxyType({"title": name})))
            if title is None:
                title = name
                in_header = level == 1 and len(marked) == 1
            language = ""
            i = last + 1
            continue
        fence = _FENCE.fullmatch(line)
        end = _closing(lines, i, line.rstrip()) if fence is not None else None
        if end is not None:
            mark = line.rstrip()
            if mark == "--" or mark[0] not in _VERBATIM:  # its content is read as blocks
                skipped += [spans[i], spans[end]]
                i += 1
            elif mark[0] == "/":  # a comment is not content
                skipped.append((spans[i][0], spans[end][1]))
                i = end + 1
            else:
                meta = {"language": language} if language else {}
                close = spans[end][0] + len(lines[end].rstrip())
                marked.append(Block(spans[i][0], close, "code", meta=MappingProxyType(meta)))
                i = end + 1
            language = ""
            continue
        if _ATTRIBUTES.fullmatch(line):
            named = _LANGUAGE.match(line)
            language = named.group(1) if named else language
            skipped.append(spans[i])
        elif line.strip():
            language = ""
        i += 1
    pieces = sorted([(b.start, b.end, b) for b in marked] + [(s, e, None) for s, e in skipped],
                    key=lambda p: (p[0], p[1]))
    return with_paragraphs(text, pieces), title, header


def read_asciidoc(text: str, *, doc_id: str, source: str) -> Document:
    """The blocks, with the header's attribute entries as metadata (they stay in the text); the
    title is the document title (``= Title``), else the first section title."""
    blocks, title, header = asciidoc_blocks(text)
    fields: dict[str, object] = {k: v for k, v in header.items() if v}
    if title:
        fields.setdefault("title", title)
    return Document(id=doc_id, source=source, text=text, format="asciidoc",
                    metadata=MappingProxyType(fields), blocks=tuple(blocks))

"""reStructuredText: section titles as heading blocks, literal blocks, code directives and other
directives whose body reads as code (``.. click:example::``) as code blocks, simple and grid
tables as table blocks (cut between their lines, never inside one), the rest as plain
paragraphs (the text itself is kept as it is); a field list
that opens the document (``:title: ...``) is its metadata.

Sphinx's object directives (``.. function:: dumps(obj, ...)``, ``.. class::``, ``.. method::``,
``.. option::``…) are heading blocks too, as the HTML reader makes the entries Sphinx renders
from them: one level under the current section, a directive inside another's body one level
further, titled by the name it documents (``json.dumps`` after ``.. module:: json``; a method
by its own name).

A title is one line under an adornment line of one repeated punctuation character, optionally
with the same line above it; each style (character, and whether it has an overline) takes the
next level the first time it appears, as docutils numbers them. Read by hand: docutils gives
line numbers, not offsets, and a title is one of two line patterns. Read
as Markdown or plain text, an RST underline of ``~~~`` opens a code fence that swallows the rest
of the document, and its other titles are lost.
"""

from __future__ import annotations

import re
from types import MappingProxyType

from ...model import Block, Document
from ...text.directives import NOT_CODE
from ..rst_tables import GRID_BORDER, SIMPLE_BORDER
from ..spans import indent_width, line_spans
from .plain import with_paragraphs

#: Characters RST accepts in adornment lines.
_ADORNMENT = re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_ADORN_LINE = re.compile(rf"([{_ADORNMENT}])\1{{2,}}[ \t]*")
#: A directive whose body is source code: ``.. code-block:: python``, its aliases, and the
#: doctest and IPython ones.
_CODE_DIRECTIVE = re.compile(r"[ \t]*\.\.[ \t]+(?:code-block|code|sourcecode|doctest|testcode|testsetup|"
                             r"testcleanup|testoutput|ipython|jupyter-execute)::[ \t]*(\S*)[ \t]*")
#: Any other directive (``.. click:example::``): its body is code when its lines read as code.
_DIRECTIVE = re.compile(r"[ \t]*\.\.[ \t]+(?:[\w.-]+:)?([\w.-]+)::.*")
#: A line of code: a decorator, a definition or import, a prompt, a comment, a call or an
#: assignment, a closing bracket, or a compound statement's header.
_CODE_LINE = re.compile(r"[ \t]*(?:@\w|(?:async )?def |class |import |from [\w.]+ import |>>>|\$ |#|"
                        r"[\w.\[\]'\"]+[ \t]*(?:\(|\+?=(?!=))|[)\]}]|return\b|"
                        r"(?:with|if|elif|else|for|while|try|except|finally)\b.*:[ \t]*$)")
#: A directive option at the top of a body (``:caption: test_sync.py``).
_OPTION = re.compile(r"[ \t]+:[\w-]+:")


#: Sphinx's object directives (any domain prefix): what they describe is an entry of its own.
_OBJECT = re.compile(
    r"([ \t]*)\.\.[ \t]+(?:[a-z]+:)?(function|class|method|classmethod|staticmethod|attribute|property|"
    r"data|exception|decorator|decoratormethod|coroutinefunction|coroutinemethod|abstractmethod|"
    r"option|cmdoption|envvar|describe|object|type|member|macro|var|enum|enumerator|struct)::"
    r"[ \t]+(\S.*)")
_MODULE = re.compile(r"\.\.[ \t]+(?:py:)?(?:module|currentmodule)::[ \t]+(\S+)[ \t]*")
#: Directives whose name takes the current module before it (methods and options do not).
_MODULE_LEVEL = frozenset({"function", "class", "exception", "data", "decorator", "coroutinefunction"})


#: How far a table is looked for its end (a border with no end is no table).
_TABLE_LINES = 5000
_GRID_LINE = re.compile(r"[ \t]*[|+].*[|+][ \t]*")
_RST_TABLE = MappingProxyType({"syntax": "rst"})


def _table_end(lines: _Lines, i: int) -> int | None:
    """The last line of the simple or grid table whose top border is line ``i``."""
    if GRID_BORDER.fullmatch(lines[i]):
        j = i
        while j + 1 < len(lines) and _GRID_LINE.fullmatch(lines[j + 1]):
            j += 1
        return j if j > i and GRID_BORDER.fullmatch(lines[j]) else None
    if not SIMPLE_BORDER.fullmatch(lines[i]):
        return None
    # it ends at a border followed by a blank line (the header's border is followed by rows)
    for j in range(i + 1, min(len(lines), i + _TABLE_LINES)):
        if SIMPLE_BORDER.fullmatch(lines[j]) and lines.blank(j + 1):
            return j
    return None


def _object_name(kind: str, signature: str, module: str) -> str:
    """The name a directive documents: its signature up to the arguments (``dumps``), the whole
    signature for options and descriptions (``-h, --help``)."""
    if kind in ("option", "cmdoption", "envvar", "describe", "object"):
        return signature.rstrip("\\ ").strip()
    name = re.split(r"[(\s\\]", signature, maxsplit=1)[0]
    if module and kind in _MODULE_LEVEL and not name.startswith(module + "."):
        name = f"{module}.{name}"
    return name or signature


class _Lines:
    def __init__(self, text: str):
        self.text = text
        self.spans = line_spans(text)

    def __len__(self) -> int:
        return len(self.spans)

    def __getitem__(self, i: int) -> str:
        s, e = self.spans[i]
        return self.text[s:e]

    def blank(self, i: int) -> bool:
        return i < 0 or i >= len(self.spans) or not self[i].strip()

    def adornment(self, i: int) -> str:
        """The adornment character when line ``i`` is an adornment line, else ''."""
        if i < 0 or i >= len(self.spans):
            return ""
        m = _ADORN_LINE.fullmatch(self[i])
        return m.group(1) if m else ""


def _title_at(lines: _Lines, i: int) -> tuple[int, int, tuple[str, bool]] | None:
    """``(first line, last line, style)`` of a section title whose text is line ``i``."""
    title = lines[i]
    if lines.blank(i) or lines.adornment(i):
        return None
    width = len(title.strip())
    under = lines.adornment(i + 1)
    if not under or not lines.blank(i + 2):
        return None
    over = lines.adornment(i - 1)
    if over == under and len(lines[i - 1].rstrip()) == len(lines[i + 1].rstrip()) and lines.blank(i - 2):
        if len(lines[i - 1].rstrip()) >= width:
            return i - 1, i + 1, (under, True)
        return None
    # an underlined title starts at the margin, after a blank line, and is underlined to its end
    if indent_width(title) or not lines.blank(i - 1) or len(lines[i + 1].rstrip()) < width:
        return None
    return i, i + 1, (under, False)


def _literal_end(lines: _Lines, i: int, base: int) -> int:
    """The last line of the block indented deeper than ``base`` that starts after line ``i``
    (blank lines between), or ``i`` when there is none."""
    j, last = i + 1, i
    while j < len(lines):
        if not lines.blank(j):
            if indent_width(lines[j]) <= base:
                break
            last = j
        j += 1
    return last


def rst_blocks(text: str) -> tuple[list[Block], str | None]:
    """The blocks of an RST text, and its title: the first section title when no other title
    is of its style (a lone top-level section)."""
    lines = _Lines(text)
    styles: dict[tuple[str, bool], int] = {}
    marked: list[tuple[int, int, Block]] = []  # (first line, last line, block)
    title: str | None = None
    tops = 0  # titles of the first style: the first is the document's when it is alone
    section = 0  # the level of the last title: object entries go under it
    entries: list[int] = []  # the indents of the object directives whose bodies are open
    module = ""
    i = 0
    while i < len(lines):
        found = _title_at(lines, i)
        if found is not None:
            first, last, style = found
            level = styles.setdefault(style, min(len(styles) + 1, 6))
            section, entries = level, []
            name = lines[i].strip()  # the block spans its adornment too: the title is said here
            marked.append((first, last, Block(lines.spans[first][0], lines.spans[last][1], "heading", level,
                                              MappingProxyType({"title": name}))))
            if level == 1:
                tops += 1
                title = title or name
            i = last + 1
            continue
        line = lines[i]
        end = _table_end(lines, i) if line.lstrip()[:1] in ("=", "+") else None
        if end is not None:
            marked.append((i, end, Block(lines.spans[i][0] + indent_width(line), lines.spans[end][1], "table",
                                                meta=_RST_TABLE)))
            i = end + 1
            continue
        named = _MODULE.fullmatch(line)
        if named is not None:
            module = named.group(1)
        obj = _OBJECT.fullmatch(line)
        if obj is not None:
            indent = len(obj.group(1))
            while entries and entries[-1] >= indent:
                entries.pop()
            level = min(section + 1 + len(entries), 6)
            entries.append(indent)
            last = i
            while lines[last].rstrip().endswith("\\") and last + 1 < len(lines):
                last += 1  # a signature continued on the next line
            name = _object_name(obj.group(2), obj.group(3).rstrip(), module)
            marked.append((i, last, Block(lines.spans[i][0] + indent, lines.spans[last][1], "heading",
                                          level, MappingProxyType({"title": name}))))
            i = last + 1
            continue
        directive = _CODE_DIRECTIVE.fullmatch(line)
        if directive is not None:
            end = _literal_end(lines, i, indent_width(line))
            if end > i:
                language = directive.group(1)
                block = Block(lines.spans[i][0] + indent_width(line), lines.spans[end][1], "code",
                              meta=MappingProxyType({"language": language} if language else {}))
                marked.append((i, end, block))
                i = end + 1
                continue
        other = _DIRECTIVE.fullmatch(line)
        if other is not None and other.group(1) not in NOT_CODE:
            end = _literal_end(lines, i, indent_width(line))
            if end > i and _reads_as_code([lines[k] for k in range(i + 1, end + 1) if not lines.blank(k)]):
                marked.append((i, end, Block(lines.spans[i][0] + indent_width(line), lines.spans[end][1], "code")))
                i = end + 1
                continue
        if line.rstrip().endswith("::") and not line.lstrip().startswith(".."):
            end = _literal_end(lines, i, _paragraph_indent(lines, i))
            if end > i:
                start = next(k for k in range(i + 1, end + 1) if not lines.blank(k))
                marked.append((start, end, Block(lines.spans[start][0], lines.spans[end][1], "code")))
                i = end + 1
                continue
        i += 1
    # the text before a block ends where its first line begins (an indented title's indent aside)
    # as docutils lifts it: a changelog's many "Version 3.1.3" sections are not its title
    return with_paragraphs(text, ((lines.spans[first][0], b.end, b) for first, _, b in marked)), \
        title if tops == 1 else None


def _reads_as_code(body: list[str]) -> bool:
    """Whether most of the least indented lines of a directive's body (its options aside) are
    lines of code: a function's docstring is prose deeper in."""
    body = [line for line in body if not _OPTION.match(line)]
    if not body:
        return False
    base = min(map(indent_width, body))
    top = [line for line in body if indent_width(line) == base]
    return 2 * sum(1 for line in top if _CODE_LINE.match(line)) >= len(top)


def _paragraph_indent(lines: _Lines, i: int) -> int:
    """The indent of the paragraph that line ``i`` ends (its first line's)."""
    k = i
    while k > 0 and not lines.blank(k - 1):
        k -= 1
    return indent_width(lines[k])


#: A field of a bibliographic field list (``:title: Return codes``).
_FIELD = re.compile(r":([^:\s][^:\n]*):[ \t]*(.*)")


def docinfo(text: str) -> dict[str, str]:
    """The fields of a field list that opens the document (docutils' bibliographic fields)."""
    fields: dict[str, str] = {}
    for line in text.lstrip("\n").split("\n"):
        m = _FIELD.fullmatch(line.rstrip())
        if m is None:
            break
        fields.setdefault(m.group(1).strip(), m.group(2).strip())
    return fields


def read_rst(text: str, *, doc_id: str, source: str) -> Document:
    """The blocks, with the opening field list as metadata (it stays in the text, which docutils
    renders too); the title is its ``title`` field, else the first section title."""
    blocks, first_title = rst_blocks(text)
    fields: dict[str, object] = {k: v for k, v in docinfo(text).items() if v}
    title = fields.get("title") or first_title
    if title:
        fields["title"] = title
    metadata = MappingProxyType(fields)
    return Document(id=doc_id, source=source, text=text, format="rst", metadata=metadata, blocks=tuple(blocks))

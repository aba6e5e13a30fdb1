"""TOML and INI files: the text kept as written, each ``[table]`` line a heading and the lines
under it ``toml`` or ``ini`` code.

Read as prose, ``pyproject.toml`` was cut mid-line and a context never said which table it came
from. A TOML table nests under the table before it whose name it extends (``[tool.ruff.lint]``
under ``[tool.ruff]``, titled ``lint``); ``[[array]]`` tables are headings as ``[table]`` ones
are. A ``[`` line inside a multi-line array or string is no table. INI sections (``[pytest]``,
``[metadata]`` in ``setup.cfg``) nest by their dotted names as TOML tables do.
"""

from __future__ import annotations

import re
from types import MappingProxyType

from ...model import Block, Document
from ..spans import line_spans, skip_space, trim

#: ``[name]`` or ``[[name]]``, a comment after it allowed.
_TOML_TABLE = re.compile(r"[ \t]*(\[\[?)[ \t]*([^\[\]\n#]+?)[ \t]*(\]\]?)[ \t]*(?:#.*)?")
_INI_SECTION = re.compile(r"\[([^\[\]\n]+)\][ \t]*(?:[#;].*)?")
#: What a line's brackets are counted without: strings and a comment.
_STRINGS = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#.*')
_NAME_PART = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'|[^.\s]+')


def _parts(name: str) -> tuple[str, ...]:
    return tuple(p.strip("\"'") for p in _NAME_PART.findall(name))


class _Nesting:
    """Levels and titles of dotted names: a name nests under the last one whose parts begin it
    (``tool.ruff.lint`` under ``tool.ruff``, titled ``lint``)."""

    def __init__(self) -> None:
        self.open: list[tuple[tuple[str, ...], int]] = []  # the names a later one may nest under

    def place(self, parts: tuple[str, ...]) -> tuple[int, str]:
        while self.open and parts[:len(self.open[-1][0])] != self.open[-1][0]:
            self.open.pop()
        if self.open and len(parts) > len(self.open[-1][0]):
            prefix, parent = self.open[-1]
            level, title = parent + 1, ".".join(parts[len(prefix):])
        else:
            self.open.clear()
            level, title = 1, ".".join(parts)
        self.open.append((parts, level))
        return min(level, 6), title


def toml_headings(text: str) -> list[tuple[int, int, int, str]]:
    """``(start, end, level, title)`` of each table header line of a TOML text."""
    out: list[tuple[int, int, int, str]] = []
    nesting = _Nesting()
    depth = 0  # open brackets of a multi-line array or inline table
    quote = ""  # the delimiter of an open multi-line string
    for s, e in line_spans(text):
        line = text[s:e]
        if quote:
            if line.count(quote) % 2:
                quote = ""
            continue
        for delim in ('"""', "'''"):
            if line.count(delim) % 2:
                quote = delim
        if quote:
            continue
        m = _TOML_TABLE.fullmatch(line) if depth == 0 else None
        if m is not None and len(m.group(1)) == len(m.group(3)):
            start, end = trim(text, s, e)
            out.append((start, end, *nesting.place(_parts(m.group(2)))))
            continue
        bare = _STRINGS.sub("", line)
        depth = max(0, depth + bare.count("[") + bare.count("{") - bare.count("]") - bare.count("}"))
    return out


def ini_headings(text: str) -> list[tuple[int, int, int, str]]:
    """``(start, end, level, title)`` of each ``[section]`` line of an INI text (at the line's
    start: an indented line continues the value above it). Dotted names nest as TOML's do
    (``setup.cfg``'s ``[options.extras_require]`` under ``[options]``)."""
    out = []
    nesting = _Nesting()
    for s, e in line_spans(text):
        m = _INI_SECTION.fullmatch(text, s, e)
        if m is not None and m.group(1).strip():
            parts = tuple(p.strip() for p in m.group(1).strip().split("."))
            out.append((s, s + len(text[s:e].rstrip()), *nesting.place(parts)))
    return out


def section_blocks(text: str, headings: list[tuple[int, int, int, str]], language: str,
                   comments: tuple[str, ...] = ("#",)) -> list[Block]:
    """The headings with the text between them as ``language`` code blocks. Comment lines
    (starting with one of ``comments``) and document markers (``---``) directly above a heading
    open its section: they say what the table or key below them is for."""
    meta = MappingProxyType({"language": language})
    blocks: list[Block] = []
    pos = 0

    def code(start: int, end: int) -> None:
        s, e = trim(text, start, end)
        if s < e:  # from the line's start: the first line keeps its indentation
            blocks.append(Block(max(start, text.rfind("\n", 0, s) + 1), e, "code", meta=meta))

    for start, end, level, title in headings:
        if start < pos:
            continue
        line = text.rfind("\n", 0, start) + 1
        while line > pos:
            above = text.rfind("\n", 0, line - 1) + 1
            mark = text[above:line - 1].strip()
            if above < pos or not (mark.startswith(comments) or mark == "---"):
                break
            line = above
        start = skip_space(text, min(line, start), start)
        code(pos, start)
        blocks.append(Block(start, end, "heading", level, MappingProxyType({"title": title})))
        pos = end
    code(pos, len(text))
    return blocks


def toml_blocks(text: str) -> list[Block]:
    return section_blocks(text, toml_headings(text), "toml")


def ini_blocks(text: str) -> list[Block]:
    return section_blocks(text, ini_headings(text), "ini", ("#", ";"))


def read_toml(text: str, *, doc_id: str, source: str) -> Document:
    return Document(id=doc_id, source=source, text=text, format="toml",
                    metadata=MappingProxyType({"language": "toml"}), blocks=tuple(toml_blocks(text)))


def read_ini(text: str, *, doc_id: str, source: str) -> Document:
    return Document(id=doc_id, source=source, text=text, format="ini",
                    metadata=MappingProxyType({"language": "ini"}), blocks=tuple(ini_blocks(text)))

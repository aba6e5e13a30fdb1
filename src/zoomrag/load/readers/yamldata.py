"""YAML: the text kept as written, its keys' outline as headings and the rest as ``yaml`` code.

A workflow, a manifest or a schema is a tree of keys; read as prose it was cut mid-line and a
context never said which key it sat under. Here a key whose value is a block of at least
:data:`MIN_LINES` lines (``jobs:``, ``steps:``, ``properties:``) is a heading on its own line, one
level per nesting, down to :data:`MAX_LEVEL`. So is the first line of a list item of two lines or
more that has a ``name`` (``- name: Run the suite``: a workflow's step, an Ansible task, a
container), titled by it, and of an unnamed item of MIN_LINES lines under its first (a play's
``- hosts: web``), titled by that line. After a heading, every later key of its mapping (item of
its list) is one too, however small: what follows a deeper section is not part of it. What lies
between headings is a ``yaml`` code block, which the code strategy parts at lines by their
indentation. A file of several documents (``---``) gives each a heading of its own, titled by
its ``kind`` and ``metadata.name`` (Kubernetes) or its ``name``/``title``, else ``Document N``.

PyYAML (a base dependency, for front matter) finds the keys and where they stand: no hand-written
YAML parsing. A file it cannot parse (a Helm template's ``{{ }}``) is one ``yaml`` code block, as
the code reader would give, with nothing lost.
"""

from __future__ import annotations

from bisect import bisect_right
from types import MappingProxyType
from typing import Any

from ...model import Block, Document
from ..spans import line_spans, trim, trim_end
from .configfile import section_blocks
from .openapi import METHODS, looks_openapi, operation_title

#: A key is a heading when its value spans at least this many lines below it.
MIN_LINES = 3
#: The deepest heading level a key is given (a document heading counts as one).
MAX_LEVEL = 4
#: A larger text (a lock file of thousands of packages) is read as code by its layout: its
#: outline is not worth parsing it again for every query that lands in it (the edge rules scan stored files).
MAX_OUTLINE = 1_000_000
#: An API's description is outlined up to this size: its operations are what it is read for.
MAX_API_OUTLINE = 32_000_000
#: A list item without a ``name`` is named by its first key when that key is one of these.
_NAME_KEYS = ("title", "id")


#: A heading found: ``(start, end, level, title)``.
_Heading = tuple[int, int, int, str]


class _Outline:
    """The headings of one YAML text, found from PyYAML's node tree."""

    def __init__(self, text: str, api: bool = False) -> None:
        self.text = text
        self.api = api  # an OpenAPI description: its operations are headed (:mod:`.openapi`)
        self.line_starts = [s for s, _ in line_spans(text)] or [0]
        self.headings: list[_Heading] = []
        self.seen: set[int] = set()  # an alias repeats a node: walked once

    def offset(self, mark: Any) -> int:
        if mark.line >= len(self.line_starts):  # the end of the stream, past the last line break
            return len(self.text)
        return min(self.line_starts[mark.line] + mark.column, len(self.text))

    def line_of(self, pos: int) -> int:
        return bisect_right(self.line_starts, pos) - 1

    def lines_below(self, key: Any, value: Any) -> int:
        """Lines of ``value`` after its key's line (trailing blank lines not counted)."""
        end = trim_end(self.text, 0, self.offset(value.end_mark))
        return self.line_of(max(end - 1, 0)) - key.start_mark.line

    def heading(self, node: Any, level: int, title: str) -> None:
        """A heading on ``node``'s line: from its first character (a list item's ``-``)."""
        line = self.line_starts[min(node.start_mark.line, len(self.line_starts) - 1)]
        nl = self.text.find("\n", line)
        start, end = trim(self.text, line, len(self.text) if nl < 0 else nl)
        if title.strip() and start < end:
            self.headings.append((start, end, level, " ".join(title.split())))

    def walk(self, node: Any, level: int) -> None:
        if level > MAX_LEVEL or id(node) in self.seen or getattr(node, "flow_style", True):
            return
        self.seen.add(id(node))
        if node.id == "mapping":
            self.keys(node.value, level, node.start_mark.line - 1)
        elif node.id == "sequence":
            headed = False
            for item in node.value:
                if item.start_mark.line < node.start_mark.line:
                    continue  # an alias (``- *defaults``): its keys are where its anchor is
                name = _item_name(item)
                below = self.lines_below(item, item)
                big = _is_block(item) and item.id == "mapping" and below >= MIN_LINES
                if headed or (name and below >= 1) or big:
                    self.heading(item, level, name or self.first_line(item))
                    headed = True
                    if _is_block(item) and item.id == "mapping" and level < MAX_LEVEL:
                        self.keys(item.value, level + 1, item.start_mark.line)

    def keys(self, pairs: list[tuple[Any, Any]], level: int, after_line: int) -> None:
        """Headings for the keys below ``after_line``: a key with a block of MIN_LINES lines under
        it, and every key after the first such (a key after a deeper section is not in it)."""
        headed = False
        for key, value in pairs:
            if key.id != "scalar" or key.start_mark.line <= after_line:
                continue
            own = value.start_mark.line >= key.start_mark.line  # not an alias (``<<: *defaults``)
            if headed or (own and _is_block(value) and self.lines_below(key, value) >= MIN_LINES):
                self.heading(key, level, str(key.value))
                headed = True
                if own and self.api and level == 1 and key.value == "paths" and value.id == "mapping":
                    self.operations(value, level + 1)
                elif own and _is_block(value):
                    self.walk(value, level + 1)

    def operations(self, paths: Any, level: int) -> None:
        """Each operation of an API a heading titled by its method, path and summary: on its
        path's line for the path's first operation (the path is the operation's), else on its
        method's line; then its parameters, request body and responses below it."""
        for path, item in paths.value:
            if path.id != "scalar" or item.id != "mapping" or item.flow_style:
                continue
            first = True
            for method, op in item.value:
                if method.id != "scalar" or str(method.value).lower() not in METHODS or op.id != "mapping":
                    continue
                summary = _scalar(op, "summary") or _scalar(op, "operationId")
                self.heading(path if first else method, level, operation_title(str(method.value),
                                                                                str(path.value), summary))
                first = False
                if _is_block(op) and level < MAX_LEVEL:
                    self.keys(op.value, level + 1, method.start_mark.line)

    def first_line(self, node: Any) -> str:
        """The text of ``node``'s first line from where it begins (an item without a name)."""
        start = self.offset(node.start_mark)
        nl = self.text.find("\n", start)
        return self.text[start:len(self.text) if nl < 0 else nl].strip()


def _is_block(node: Any) -> bool:
    return node.id in ("mapping", "sequence") and not node.flow_style


def _item_name(item: Any) -> str:
    """A list item's name: its ``name`` (a workflow's step names itself so after an ``if:`` or
    ``uses:``), else a first key ``title`` or ``id``."""
    if item.id != "mapping" or item.flow_style or not item.value:
        return ""
    named = _scalar(item, "name")
    if named:
        return named
    key, value = item.value[0]
    if key.id == "scalar" and key.value in _NAME_KEYS and value.id == "scalar":
        return str(value.value)
    return ""


def _scalar(node: Any, *path: str) -> str:
    for name in path:
        if node is None or node.id != "mapping":
            return ""
        node = next((v for k, v in node.value if k.id == "scalar" and k.value == name), None)
    return str(node.value).strip() if node is not None and node.id == "scalar" else ""


def _document_title(root: Any) -> str:
    """A document's ``kind`` and ``metadata.name`` (Kubernetes), else its ``name`` or ``title``."""
    kind, name = _scalar(root, "kind"), _scalar(root, "metadata", "name")
    if kind or name:
        return " ".join(x for x in (kind, name) if x)
    return _scalar(root, "name") or _scalar(root, "title") or _scalar(root, "info", "title")


def yaml_blocks(text: str) -> tuple[list[Block], str | None]:
    """The blocks of a YAML text and its title (a single document's ``title`` or ``name``)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, when built with it: 2.5x
    api = looks_openapi(text)
    try:
        roots = [] if len(text) > (MAX_API_OUTLINE if api else MAX_OUTLINE) else [
            r for r in yaml.compose_all(text, Loader=loader) if r is not None]
    except (yaml.YAMLError, RecursionError, ValueError):
        roots = []  # not YAML PyYAML reads: one code block, as the code reader gives
    outline = _Outline(text, api=api and len(roots) == 1)
    several = len(roots) > 1
    for n, root in enumerate(roots, 1):
        if several:
            outline.heading(root, 1, _document_title(root) or f"Document {n}")
        outline.walk(root, 2 if several else 1)
    title = _document_title(roots[0]) if len(roots) == 1 else ""
    return _with_code(text, outline.headings), title or None


def _with_code(text: str, headings: list[_Heading]) -> list[Block]:
    """The headings, in order (a document's first key is its document's heading line), with the
    lines between them as ``yaml`` code blocks."""
    kept: list[_Heading] = []
    for h in sorted(headings):
        if not kept or h[0] >= kept[-1][1]:
            kept.append(h)
    return section_blocks(text, kept, "yaml")


def read_yaml(text: str, *, doc_id: str, source: str) -> Document:
    """The blocks; a single document's ``title`` (or ``name``) names it."""
    blocks, title = yaml_blocks(text)
    meta: dict[str, object] = {"language": "yaml"}
    if title:
        meta["title"] = title
    return Document(id=doc_id, source=source, text=text, format="yaml",
                    metadata=MappingProxyType(meta), blocks=tuple(blocks))

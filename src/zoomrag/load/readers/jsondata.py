"""JSON (``.json``) and JSON Lines (``.jsonl``, ``.ndjson``): the data written as the page it
means and read as any page is (:mod:`.html`), so spans point into the rendering.

Read as plain text, a JSON file's strings kept their escapes (``Caf\\u00e9``, ``\\n`` between
paragraphs), so neither search nor the sentence splitter saw the words, and every context was
quotes and braces. Here:

- an object's short values are ``key: value`` lines (a small list or object on one line too:
  ``tags: a, b``, ``size: {width: 3, unit: cm}``); a long text is its paragraphs, the first led
  by its key, and a text in Markdown (a corpus exported as records of ``id``, ``title``,
  ``text``) is what it means, its headings under the section the text is in;
- a nested object is a section headed by its key, a list of objects one section an item;
- records (the lines of a JSON Lines file, or a list of objects at the top) are sections, each
  headed by its title (its ``title``, ``name``, ``question``, ``subject`` … field) or its line
  number; records of short values only, alike in their keys, are one table, a row a record, so
  each row reaches the table strategy with its column names.

A chat export (Slack's, Discord's, Telegram's) is read as the conversation it is
(:mod:`.chat`), a speech recogniser's (Whisper's, AssemblyAI's, Deepgram's) as a transcript
(:mod:`.transcript`).

A value nested deeper than :data:`MAX_DEPTH` is written as compact JSON. Comments and trailing
commas (``tsconfig.json``, editors' settings) are read past; a file that is not JSON even so (or
a line that is not, in JSON Lines) is refused with where it breaks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html import escape
from types import MappingProxyType
from typing import Any

from markdown_it import MarkdownIt

from ...errors import InputError
from ...model import Block, Document
from .chat import chats_of, write_chats
from .html import render_pages
from .openapi import is_openapi, reshape
from .transcript import segment_cues, transcript_page

#: Fields that name a record, in order of preference.
TITLE_KEYS = ("title", "name", "question", "subject", "heading", "headline", "label", "summary")
#: A value longer than this, or holding a line break, is text: paragraphs, not a line.
SHORT = 200
#: Record tables are made of values no longer than this.
CELL = 100
#: Depth of nesting written as sections and lines; deeper values are written as JSON.
MAX_DEPTH = 24


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _shown(value: Any) -> str:
    """A scalar as a reader would write it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _short(value: Any, limit: int = SHORT) -> bool:
    return _scalar(value) and "\n" not in _shown(value) and len(_shown(value)) <= limit


def _inline(value: Any, depth: int = 0) -> str | None:
    """A small value on one line (``[a, b]``, ``{type: integer, title: Added}``), or None when
    it is not small: a line a reader takes in at once, where a section for each would be a
    title over two words."""
    if _scalar(value):
        return _shown(value) if _short(value) else None
    if depth >= 3 or (isinstance(value, dict) and len(value) > 6):
        return None
    parts = [_inline(v, depth + 1) for v in (value if isinstance(value, list) else value.values())]
    if any(p is None for p in parts):
        return None
    if isinstance(value, dict):
        parts = [f"{k}: {p}" for k, p in zip(value, parts)]
    line = ", ".join(str(p) for p in parts)
    line = f"[{line}]" if isinstance(value, list) else f"{{{line}}}"
    return line if len(line) <= SHORT else None


#: A text written in Markdown: a heading line, a fence, or a pipe table's delimiter row.
_MARKDOWN = re.compile(r"^(?:#{1,6}[ \t]+\S|```|~~~|\|?[ \t]*:?-{3,}:?[ \t]*\|)", re.MULTILINE)
_MD = MarkdownIt("commonmark", {"html": False}).enable("table")
_HEADING_TAG = re.compile(r"<(/?)h([1-6])>")


def _markdown_html(text: str, depth: int) -> str:
    """A text in Markdown as the HTML it means, its headings under the section it is in."""
    return _HEADING_TAG.sub(lambda m: f"<{m[1]}h{min(int(m[2]) + depth, 6)}>", _MD.render(text))


def _paragraphs(text: str) -> list[str]:
    return [" ".join(p.split("\n")).strip() for p in text.replace("\r\n", "\n").split("\n\n") if p.strip()]


def title_of(record: dict[str, Any]) -> tuple[str, str] | None:
    """``(key, title)`` of a record's naming field, if it has one that is a short text."""
    lowered = {str(k).lower(): k for k in record}
    for name in TITLE_KEYS:
        key = lowered.get(name)
        if key is not None and _short(record[key], CELL) and _shown(record[key]).strip():
            return key, " ".join(_shown(record[key]).split())
    return None


class _Writer:
    def __init__(self) -> None:
        self.out: list[str] = []

    def value(self, value: Any, depth: int) -> None:
        """A value under a heading at ``depth`` (0: the top)."""
        if depth >= MAX_DEPTH:
            self.out.append(f"<pre><code>{escape(json.dumps(value, ensure_ascii=False))}</code></pre>")
        elif isinstance(value, dict):
            self.object(value, depth)
        elif isinstance(value, list):
            self.items(value, depth, "Item")
        elif _short(value):
            self.out.append(f"<p>{escape(_shown(value))}</p>")
        else:
            self.out.extend(f"<p>{escape(p)}</p>" for p in _paragraphs(_shown(value)))

    def object(self, obj: dict[str, Any], depth: int, skip: Any = None) -> None:
        """An object's own values, then its nested objects and lists as sections: in Markdown a
        section runs to the next heading, so a value written after a nested section would read
        as that section's."""
        lines: list[str] = []
        nested: list[tuple[str, Any]] = []

        def flush() -> None:
            if lines:
                self.out.append(f"<p>{'<br>'.join(lines)}</p>")
                lines.clear()

        for key, value in obj.items():
            if key == skip and skip is not None:
                continue
            name = escape(str(key))
            small = _inline(value)
            if small is not None:
                if isinstance(value, list) and all(_scalar(v) for v in value):
                    small = small[1:-1] or "[]"  # a list of words reads as one: a, b, c
                lines.append(f"{name}: {escape(small)}")
            elif isinstance(value, str) and _MARKDOWN.search(value):  # a text in Markdown: its own sections
                flush()
                self.out.append(_markdown_html(value, depth))
            elif _scalar(value):  # a long text: its paragraphs, the first led by its key
                flush()
                paras = _paragraphs(_shown(value)) or [""]
                self.out.append(f"<p>{name}: {escape(paras[0])}</p>")
                self.out.extend(f"<p>{escape(p)}</p>" for p in paras[1:])
            elif isinstance(value, list) and all(_scalar(v) for v in value):
                flush()
                items = "".join(f"<li>{escape(' '.join(_shown(v).split()))}</li>" for v in value)
                self.out.append(f"<p>{name}:</p><ul>{items}</ul>")
            else:
                nested.append((str(key), value))
        flush()
        for key, value in nested:
            self.heading(key, depth + 1)
            if isinstance(value, list):
                self.items(value, depth + 1, key)
            else:
                self.value(value, depth + 1)

    def heading(self, title: str, depth: int) -> None:
        level = min(max(depth, 1), 6)
        self.out.append(f"<h{level}>{escape(title)}</h{level}>")

    def items(self, values: list[Any], depth: int, name: str, numbers: list[int] | None = None) -> None:
        """A list: records of short values alike as one table; short values as a list; objects
        as sections headed by their titles (else by ``name`` and their number), other values
        as sections of their own."""
        if _table_like(values):
            self.table(values)
            return
        listed: list[str] = []  # short values one after another: one list
        for i, v in enumerate(values, 1):
            if _short(v):
                listed.append(f"<li>{escape(_shown(v))}</li>")
                continue
            if listed:
                self.out.append(f"<ul>{''.join(listed)}</ul>")
                listed = []
            named = title_of(v) if isinstance(v, dict) else None
            self.heading(named[1] if named else f"{name} {numbers[i - 1] if numbers else i}", depth + 1)
            if isinstance(v, dict):
                self.object(v, depth + 1, skip=named[0] if named else None)
            else:
                self.value(v, depth + 1)
        if listed:
            self.out.append(f"<ul>{''.join(listed)}</ul>")

    def table(self, records: list[dict[str, Any]]) -> None:
        columns: list[str] = []
        for r in records:
            columns += [k for k in r if k not in columns]
        head = "".join(f"<th>{escape(str(c))}</th>" for c in columns)
        rows = "".join("<tr>" + "".join(f"<td>{escape(_shown(r[c])) if c in r else ''}</td>" for c in columns)
                       + "</tr>" for r in records)
        self.out.append(f"<table><tr>{head}</tr>{rows}</table>")


def _table_like(values: list[Any]) -> bool:
    """Records of short values alike: at least two objects of scalar fields of at most CELL
    characters, at most 12 columns in all, each record with at least half its keys the first's."""
    if len(values) < 2 or not all(isinstance(v, dict) and v for v in values):
        return False
    if len({k for v in values for k in v}) > 12 or not all(_short(x, CELL) for v in values for x in v.values()):
        return False
    first = set(values[0])
    return all(len(first & set(v)) * 2 >= len(v) for v in values)


def _html(write: Any) -> str:
    w = _Writer()
    write(w)
    return f"<html><body>{''.join(w.out)}</body></html>"


def _document(text_html: str, doc_id: str, source: str, fmt: str, title: str | None) -> Document:
    text, blocks, _ = render_pages([text_html], "")
    return Document(id=doc_id, source=source, text=text, format=fmt,
                    metadata=MappingProxyType({"title": title}), blocks=tuple(blocks))


def _without_comments(text: str) -> str:
    """JSON with comments (``//``, ``/* */``) and trailing commas, as editors' and compilers'
    settings are written (``tsconfig.json``, VS Code's), made plain JSON; strings untouched."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':  # a string, escapes and all
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif c == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j < n and text[j] in "}]":
                i += 1  # a trailing comma
                continue
            out.append(c)
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _parsed(text: str, source: str, where: str = "") -> Any:
    try:
        try:
            return json.loads(text)
        except json.JSONDecodeError as first:
            try:
                return json.loads(_without_comments(text))
            except json.JSONDecodeError:
                raise first from None  # where the file itself breaks
    except json.JSONDecodeError as e:
        line = f"line {e.lineno}" if not where else where
        raise InputError(f"{source}: not valid JSON at {line}, column {e.colno} ({e.msg}); fix it, or rename "
                         "the file if it is not JSON") from None
    except RecursionError:
        raise InputError(f"{source}: JSON nested too deeply to read{' at ' + where if where else ''}; "
                         "flatten it or leave the file out") from None


def _conversation(data: Any, source: str) -> tuple[str, tuple[Block, ...], dict[str, Any]] | None:
    """The page of a chat export or a speech recogniser's transcript, if ``data`` is one."""
    chats = chats_of(data, source)
    if chats:
        return write_chats(chats)
    recognised = segment_cues(data)
    if not recognised:
        return None
    kind, cues = recognised
    language = data.get("language") or data.get("language_code") if isinstance(data, dict) else None
    return transcript_page(cues, "", {"transcript": kind, **({"language": language} if isinstance(language, str) else {})})


def _api_page(w: _Writer, api: dict[str, Any]) -> None:
    """An API's page: its keys as any object's, but each operation a section, however small
    (a one-line operation of short values read as a line of braces, untitled)."""
    for key, value in api.items():
        if key != "paths" or not isinstance(value, dict):
            w.object({key: value}, 0)
            continue
        w.heading(str(key), 1)
        for title, operation in value.items():
            w.heading(title, 2)
            w.value(operation, 2)


def read_json(text: str, *, doc_id: str, source: str) -> Document:
    data = _parsed(text, source)
    conversation = _conversation(data, source)
    if conversation is not None:
        page, blocks, fields = conversation
        return Document(id=doc_id, source=source, text=page, format="json", metadata=MappingProxyType(fields),
                        blocks=blocks)
    title = None
    if is_openapi(data):  # an API: its operations under their titles (:mod:`.openapi`)
        info = data.get("info")
        title = info.get("title") if isinstance(info, dict) and _short(info.get("title"), CELL) else None
        page = _html(lambda w: _api_page(w, reshape(data)))
    elif isinstance(data, dict):
        named = title_of(data)
        title = named[1] if named else None
        page = _html(lambda w: w.object(data, 0))
    elif isinstance(data, list):
        page = _html(lambda w: w.items(data, 0, "Item"))
    else:
        page = _html(lambda w: w.value(data, 0))
    return _document(page, doc_id, source, "json", title)


def _lines(text: str, source: str) -> Iterator[tuple[int, Any]]:
    for n, line in enumerate(text.split("\n"), 1):
        if line.strip():
            yield n, _parsed(line, source, f"line {n}")


def read_jsonl(text: str, *, doc_id: str, source: str) -> Document:
    numbered = list(_lines(text, source))
    records = [r for _, r in numbered]
    page = _html(lambda w: w.items(records, 0, "Line", [n for n, _ in numbered]))
    return _document(page, doc_id, source, "jsonl", None)

"""Reading files into Documents: decoding, format detection and the reader role.

A reader turns raw text (already decoded and newline-normalised) into a Document whose
``text`` is what every offset points into and whose ``blocks`` are typed regions (heading,
table, code, list, text) for the router.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol

from ..errors import BinaryFileError, ConfigError, DecodeError, InputError
from ..model import Document
from . import frontmatter
from .normalize import normalize_newlines


class Reader(Protocol):
    """Turns a file's decoded text into a Document."""

    def __call__(self, text: str, *, doc_id: str, source: str) -> Document: ...


_READERS: dict[str, Reader] = {}
_EXTENSIONS: dict[str, str] = {}
#: Formats whose bytes are not text (PDF); their reader takes the path instead.
_BINARY_READERS: dict[str, Callable[[Path, str], Document]] = {}


def register_reader(fmt: str, extensions: tuple[str, ...], reader: Reader) -> None:
    _READERS[fmt] = reader
    for ext in extensions:
        _EXTENSIONS[ext.lower()] = fmt


def register_binary_reader(fmt: str, extensions: tuple[str, ...],
                           reader: Callable[[Path, str], Document]) -> None:
    _BINARY_READERS[fmt] = reader
    for ext in extensions:
        _EXTENSIONS[ext.lower()] = fmt


def formats() -> list[str]:
    _load_builtin()
    return sorted(set(_READERS) | set(_BINARY_READERS))


def detect_format(path: Path) -> str:
    """Format from the file extension; unknown extensions are read as plain text."""
    _load_builtin()
    return _EXTENSIONS.get(path.suffix.lower(), "text")


#: Bytes that never occur in text, other than NUL: most C0 controls (not tab, newlines, form
#: feed, backspace or escape, which real text files do contain).
_CONTROL = bytes(b for b in range(32) if b not in b"\t\n\r\f\b\x1b")
_SNIFF = 8192


def decode(data: bytes, source: str) -> str:
    """UTF-8 (with or without BOM) or UTF-16/32 with BOM; binary data is refused by name."""
    for bom, codec in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                       (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        # UTF-32 LE's BOM starts with UTF-16 LE's, so UTF-32 is tried first.
        if data.startswith(bom):
            try:
                return normalize_newlines(data.decode(codec))
            except UnicodeDecodeError as e:
                raise DecodeError(
                    f"{source}: {codec.upper()} byte order mark but invalid {codec.upper()} at byte "
                    f"{e.start}; re-save the file as UTF-8") from None
    data = data.removeprefix(codecs.BOM_UTF8)
    head = data[:_SNIFF]
    if b"\x00" in head:
        raise BinaryFileError(f"{source}: binary file (NUL bytes found), not text; "
                              "skip it or convert it to text first")
    if head and len(head.translate(None, _CONTROL)) < 0.9 * len(head):
        raise BinaryFileError(f"{source}: binary file (mostly control bytes), not text; "
                              "skip it or convert it to text first")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise DecodeError(
            f"{source}: not valid UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start}, line {line}); "
            "convert it to UTF-8, e.g. with: iconv -f LATIN1 -t UTF-8"
        ) from None
    return normalize_newlines(text)


def read_text(text: str, *, format: str = "text", id: str = "doc", source: str = "<text>",
              metadata: Mapping[str, Any] | None = None, front_matter: str = "metadata",
              fmt: str | None = None, doc_id: str | None = None) -> Document:
    """A Document from text already in memory, parsed by the reader for ``format``.

    The argument names are :meth:`Document.from_text`'s (``fmt`` and ``doc_id`` are the old names,
    still accepted). ``metadata`` is added to what the reader finds (it wins on equal keys).
    Markdown front matter becomes metadata and is left out of the text (:mod:`.frontmatter`);
    ``front_matter="text"`` keeps it in the text instead.
    """
    _load_builtin()
    format = fmt if fmt is not None else format
    id = doc_id if doc_id is not None else id
    frontmatter.check_mode(front_matter)
    try:
        reader = _READERS[format]
    except KeyError:
        if format in _BINARY_READERS:
            raise ConfigError(f"format {format!r} is read from a file, not from text; "
                              "use load_path") from None
        raise ConfigError(f"unknown format {format!r}; choose one of: {', '.join(formats())}") from None
    text = normalize_newlines(text)
    found: dict[str, Any] = {}
    if format == "markdown" and front_matter == "metadata":
        found, start = frontmatter.split(text, source)
        if start:
            text = text[start:]
            found[frontmatter.OFFSET_KEY] = start
    doc = reader(text, doc_id=id, source=source)
    return with_metadata(doc, {**found, **(metadata or {})})


def with_metadata(doc: Document, extra: Mapping[str, Any]) -> Document:
    """``doc`` with ``extra`` added to its metadata (``extra`` wins on equal keys; a ``None``
    title from the reader gives way to any value)."""
    if not extra:
        return doc
    merged = {k: v for k, v in doc.metadata.items() if not (v is None and k in extra)}
    merged.update(extra)
    return replace(doc, metadata=MappingProxyType(merged))


def load_path(path: str | Path, *, id: str | None = None, format: str | None = None,
              metadata: Mapping[str, Any] | None = None, source: str | None = None,
              front_matter: str = "metadata", doc_id: str | None = None, fmt: str | None = None) -> Document:
    """Read one file into a Document. Errors name the file and say what to do.

    ``source`` (default: the path as given) is what the document says it came from."""
    _load_builtin()
    p = Path(path)
    where = str(p)
    if not p.exists():
        raise InputError(f"{where}: no such file")
    if p.is_dir():
        raise InputError(f"{where}: is a directory; give a file, or index the folder")
    format = fmt or format or detect_format(p)
    id = doc_id or id or where
    source = source or where
    if format in _BINARY_READERS:
        doc = _BINARY_READERS[format](p, id)
        if source != doc.source:
            doc = replace(doc, source=source)
        return with_metadata(doc, dict(metadata or {}))
    try:
        data = p.read_bytes()
    except OSError as e:
        raise InputError(f"{where}: cannot read ({e.strerror}); check its permissions") from None
    return read_text(decode(data, where), format=format, id=id, source=source, metadata=metadata,
                     front_matter=front_matter)


#: Folders never worth indexing besides hidden ones (.git, .venv, .zoomrag, ...).
SKIPPED_DIRS = frozenset({"__pycache__", "node_modules"})


def iter_paths(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Files named by ``paths``: files as given, folders walked (sorted, each file once).

    Inside folders, hidden files and folders (``.git``, ``.venv``, ``.zoomrag``) and
    :data:`SKIPPED_DIRS` are skipped; symlinked folders are not followed (no cycles). A file
    named explicitly is always yielded, hidden or not. A missing path is an error.
    """
    seen: set[Path] = set()
    for path in paths:
        p = Path(path)
        if not p.exists():
            raise InputError(f"{p}: no such file or directory")
        found = [p] if not p.is_dir() else _walk(p)
        for f in found:
            key = f.resolve()
            if key not in seen:
                seen.add(key)
                yield f


def _walk(root: Path) -> list[Path]:
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in SKIPPED_DIRS]
        files.extend(Path(dirpath, f) for f in filenames if not f.startswith("."))
    # Sorting by parts (not by string) keeps a folder's files together: "a/b" before "a-b".
    return sorted(files, key=lambda f: f.relative_to(root).parts)


def _load_builtin() -> None:
    from . import readers  # noqa: F401  (registers the built-in readers)

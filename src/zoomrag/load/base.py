"""Reading files into Documents: decoding, format detection and the reader role.

A reader turns raw text (already decoded and newline-normalised) into a Document whose
``text`` is what every offset points into and whose ``blocks`` are typed regions (heading,
table, code, list, text) for the router.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Protocol

from ..errors import BinaryFileError, ConfigError, DecodeError, InputError
from ..model import Document
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


def read_text(text: str, *, fmt: str = "text", doc_id: str = "doc", source: str = "<text>") -> Document:
    """A Document from text already in memory, parsed by the reader for ``fmt``."""
    _load_builtin()
    try:
        reader = _READERS[fmt]
    except KeyError:
        if fmt in _BINARY_READERS:
            raise ConfigError(f"format {fmt!r} is read from a file, not from text; "
                              "use load_path") from None
        raise ConfigError(f"unknown format {fmt!r}; choose one of: {', '.join(formats())}") from None
    return reader(normalize_newlines(text), doc_id=doc_id, source=source)


def load_path(path: str | Path, *, doc_id: str | None = None, fmt: str | None = None) -> Document:
    """Read one file into a Document. Errors name the file and say what to do."""
    _load_builtin()
    p = Path(path)
    source = str(p)
    if not p.exists():
        raise InputError(f"{source}: no such file")
    if p.is_dir():
        raise InputError(f"{source}: is a directory; give a file, or index the folder")
    fmt = fmt or detect_format(p)
    doc_id = doc_id or source
    if fmt in _BINARY_READERS:
        return _BINARY_READERS[fmt](p, doc_id)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise InputError(f"{source}: cannot read ({e.strerror}); check its permissions") from None
    return read_text(decode(data, source), fmt=fmt, doc_id=doc_id, source=source)


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

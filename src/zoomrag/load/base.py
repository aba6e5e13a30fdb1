"""Reading files into Documents: decoding, format detection and the reader role.

A reader turns raw text (already decoded and newline-normalised) into a Document whose
``text`` is what every offset points into and whose ``blocks`` are typed regions (heading,
table, code, list, text) for the router.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
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


def decode(data: bytes, source: str) -> str:
    """UTF-8 (with or without BOM) or UTF-16 with BOM; binary data is refused by name."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return normalize_newlines(data.decode("utf-16"))
        except UnicodeDecodeError as e:
            raise DecodeError(f"{source}: UTF-16 byte order mark but invalid UTF-16 at byte {e.start}; "
                              "re-save the file as UTF-8") from None
    if b"\x00" in data[:8192]:
        raise BinaryFileError(f"{source}: binary file (NUL bytes found), not text; "
                              "skip it or convert it to text first")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DecodeError(
            f"{source}: not valid UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start}); "
            "convert it to UTF-8, e.g. with: iconv -f LATIN1 -t UTF-8"
        ) from None
    return normalize_newlines(text)


def read_text(text: str, *, fmt: str = "text", doc_id: str = "doc", source: str = "<text>") -> Document:
    """A Document from text already in memory, parsed by the reader for ``fmt``."""
    _load_builtin()
    try:
        reader = _READERS[fmt]
    except KeyError:
        raise ConfigError(f"unknown format {fmt!r}; choose one of: {', '.join(formats())}") from None
    return reader(normalize_newlines(text), doc_id=doc_id, source=source)


def load_path(path: str | Path, *, doc_id: str | None = None, fmt: str | None = None) -> Document:
    """Read one file into a Document. Errors name the file and say what to do."""
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


def _load_builtin() -> None:
    from . import readers  # noqa: F401  (registers the built-in readers)

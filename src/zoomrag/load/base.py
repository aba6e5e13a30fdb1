"""Reading files into Documents: decoding, format detection and the reader role.

A reader turns raw text (already decoded and newline-normalised) into a Document whose
``text`` is what every offset points into and whose ``blocks`` are typed regions (heading,
table, code, list, text) for the router.
"""

from __future__ import annotations

import codecs
import errno
import importlib
import os
import re
import stat
import tempfile
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path, PurePath
from types import MappingProxyType
from typing import Any, Protocol

from ..errors import BinaryFileError, ConfigError, DecodeError, InputError
from ..model import Document, normalize_newlines
from ..registry import Registry
from . import compressed, frontmatter
from .binary import TEXT_HEADED, binary_kind


class Reader(Protocol):
    """Turns a file's decoded text into a Document."""

    def __call__(self, text: str, *, doc_id: str, source: str) -> Document: ...


@dataclass(frozen=True)
class FormatReader:
    """A document format: the file extensions it is detected by, and its reader."""

    extensions: tuple[str, ...]
    #: Reads the decoded text (every format whose bytes are text).
    read: Reader | None = None
    #: Reads the file itself, given its path and the document id (PDF: its bytes are not text).
    read_file: Callable[[Path, str], Document] | None = None
    #: What the text is when the reader writes it rather than keeping the file's (an HTML page
    #: rendered with Markdown's ``#`` headings and pipe tables: ``markdown``; a PDF's: ``text``);
    #: "" for a reader that keeps the file's text.
    renders: str = ""
    #: What its text parts with form feeds, when it does (a PDF's pages: ``page``; a deck's
    #: slides: ``slide``): a context says them.
    pages: str = ""
    #: Whole file names it is detected by, whatever their extension (``Dockerfile``).
    names: tuple[str, ...] = ()
    #: Extensions it is detected by as a regular expression, when no format lists them
    #: (a manual page's ``.3pm``, ``.1ssl``).
    extension_pattern: str = ""
    #: Its text is lines, each whole (code, a sheet's rows, a configuration's keys): a context
    #: starts and ends at a line's boundary, not a sentence's.
    lined: bool = False


def _builtin_formats() -> list[tuple[str, FormatReader]]:
    # Read on first use: the readers import this module.
    from .readers import BUILTIN

    return list(BUILTIN)


#: Every format by name: the built-ins and those added with :func:`register_reader`.
FORMATS: Registry[FormatReader] = Registry("format", _builtin_formats)


def register_reader(fmt: str, extensions: tuple[str, ...], reader: Reader) -> None:
    FORMATS.add(fmt, FormatReader(tuple(e.lower() for e in extensions), read=reader))


def formats() -> list[str]:
    return FORMATS.names()


def rendered_as(fmt: str) -> str:
    """The format a reader of ``fmt`` writes its text in (:attr:`FormatReader.renders`), "" when
    it keeps the file's text or ``fmt`` is no format."""
    return FORMATS.get(fmt).renders if fmt in FORMATS else ""


def is_paged(fmt: str) -> bool:
    """Whether a ``fmt`` document's form feeds part its pages (:attr:`FormatReader.pages`)."""
    return fmt in FORMATS and bool(FORMATS.get(fmt).pages)


def is_lined(fmt: str) -> bool:
    """Whether a ``fmt`` document is cut at lines (:attr:`FormatReader.lined`)."""
    return fmt in FORMATS and FORMATS.get(fmt).lined


def page_name(fmt: str) -> str:
    """What a ``fmt`` document's pages are (``page``, ``slide``); ``page`` when it has none."""
    return (FORMATS.get(fmt).pages if fmt in FORMATS else "") or "page"


def detect_format(path: PurePath) -> str:
    """Format from the file's name (``Makefile``), else its extension; unknown extensions are
    read as plain text. A compressed file's (``ls.1.gz``) is the format of the file inside."""
    inner = compressed.inner_name(path)
    if inner is not None:
        return detect_format(inner)
    ext = path.suffix.lower()
    if ext == ".txt" and PurePath(path.stem).suffix:
        # a source saved as text (Sphinx's ``_sources/json.rst.txt``, ``intro.md.txt``) is its
        # source, when that is read as written (``ls.1.txt`` is more often a page as ``man`` shows it)
        inner_format = detect_format(PurePath(path.stem))
        reader = FORMATS.get(inner_format)
        if inner_format != "text" and reader.read is not None and not reader.renders:
            return inner_format
    found = "text"
    for name, fmt in FORMATS.items():  # a later entry wins an extension
        if path.name in fmt.names:
            return name
        if ext in fmt.extensions:
            found = name
    if found == "text" and ext:
        found = next((name for name, fmt in FORMATS.items()
                      if fmt.extension_pattern and re.fullmatch(fmt.extension_pattern, ext)), found)
    return found


#: Bytes that never occur in text, other than NUL: most C0 controls (not tab, newlines, form
#: feed, backspace or escape, which real text files do contain).
_CONTROL = bytes(b for b in range(32) if b not in b"\t\n\r\f\b\x1b")
_SNIFF = 8192
#: Binary formats a user may expect to be read, and what to save them as instead.
_UNREAD_FORMATS = {
    ".doc": ("a Word 97–2003 document", "docx"),
    ".xls": ("an Excel 97–2003 workbook", "xlsx"),
    ".ppt": ("a PowerPoint 97–2003 deck", "pptx"),
    ".pages": ("an Apple Pages document", "docx"),
    ".numbers": ("an Apple Numbers spreadsheet", "xlsx"),
    ".key": ("an Apple Keynote deck", "pptx"),
    ".wpd": ("a WordPerfect document", "docx"),
}


#: Archives of many files, by extension (a compressed tar's inner name ends in ``.tar``).
_ARCHIVES = frozenset({".tar", ".tgz", ".tbz", ".tbz2", ".txz", ".zip", ".7z", ".rar", ".jar", ".whl", ".cpio"})


def _is_archive(source: str) -> bool:
    path = PurePath(source)
    return (compressed.inner_name(path) or path).suffix.lower() in _ARCHIVES


#: An XML declaration that names its encoding (``<?xml version="1.0" encoding="ISO-8859-1"?>``).
_XML_DECLARATION = re.compile(rb"""\A\s*<\?xml\s[^>]*?encoding\s*=\s*["']([A-Za-z][\w.:-]*)["']""")


#: An HTML page's ``<meta charset>`` or ``http-equiv`` Content-Type, in its first 1,024 bytes
#: (where a browser's prescan looks for it).
_META_CHARSET = re.compile(rb"""<meta\s[^>]*?charset\s*=\s*["']?\s*([A-Za-z][\w.:-]*)""", re.I)
#: Code pages a browser reads a page declared in as their wider superset (the WHATWG Encoding
#: Standard): a page "in ISO-8859-1" with „quotes“ or € is windows-1252, as its author saw it.
_AS_BROWSERS_READ = {"iso8859-1": "cp1252", "ascii": "cp1252", "iso8859-9": "cp1254", "gb2312": "gbk",
                     "euc_kr": "cp949", "tis-620": "cp874"}


def _declared_encoding(head: bytes) -> str | None:
    """The encoding an XML declaration or an HTML page's meta charset names, when Python knows
    it and it is not UTF-8."""
    m = _XML_DECLARATION.match(head)
    html = m is None
    m = m or _META_CHARSET.search(head, 0, 1024)
    if m is None:
        return None
    try:
        name = codecs.lookup(m.group(1).decode("ascii")).name
    except LookupError:
        return None
    if name in ("utf-8", "utf-16", "utf-32", "utf-16-le", "utf-16-be"):
        return None
    return _AS_BROWSERS_READ.get(name, name) if html else name


#: How makeinfo opens the mark of an index node, the only NUL bytes a text file holds.
_INFO_MARK = re.compile(rb"\x00\x08\[[^\x00]{0,64}\x00\x08\]")
#: At most one NUL byte in this many of a text file's first bytes (:func:`_stray_nuls`).
_NUL_RARITY = 2048


def _stray_nuls(head: bytes) -> bool:
    """Whether the NUL bytes in a file's first bytes are a few single characters in text, as a
    generator writes a NUL it documents (javadoc's page of ``'\\0'``), not a binary file's
    runs of zeros or UTF-16's every other byte."""
    return b"\x00\x00" not in head and head.count(b"\x00") <= max(1, len(head) // _NUL_RARITY)


#: Bytes outside ASCII a file must hold for its encoding to be guessed.
_GUESS_BYTES = 20


def _likely_encoding(data: bytes) -> str | None:
    """The encoding a file not in UTF-8 most likely is in, for the message that refuses it (a
    guess is named, never used: a wrong one would change the text without a word), when
    charset-normalizer is installed (``requests`` brings it)."""
    try:
        import charset_normalizer
    except ImportError:
        return None
    sample = data[:65536]
    if len(sample) - len(sample.translate(None, bytes(range(128, 256)))) < _GUESS_BYTES:
        return None  # too few bytes outside ASCII to tell one code page from another
    best = charset_normalizer.from_bytes(sample).best()
    return None if best is None or best.encoding in ("utf_8", "ascii") else str(best.encoding)


def decode(data: bytes, source: str) -> str:
    """UTF-8 (with or without BOM), UTF-16/32 with BOM, or the encoding an XML declaration or an
    HTML page's meta charset names; binary data is refused by name. A few single NUL bytes in
    text are not binary: each is read as U+FFFD."""
    for bom, codec in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                       (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        # UTF-32 LE's BOM starts with UTF-16 LE's, so UTF-32 is tried first.
        if data.startswith(bom):
            try:
                return _text(data.decode(codec))
            except UnicodeDecodeError as e:
                raise DecodeError(
                    f"{source}: {codec.upper()} byte order mark but invalid {codec.upper()} at byte "
                    f"{e.start}; re-save the file as UTF-8") from None
    data = data.removeprefix(codecs.BOM_UTF8)
    if b"\x00\x08[" in data:  # an Info manual's index marks ("\0\b[index\0\b]"): not binary
        data = _INFO_MARK.sub(b"", data)
    head = data[:_SNIFF]
    binary = (b"\x00" in head and not _stray_nuls(head)) or len(head.translate(None, _CONTROL)) < 0.9 * len(head) \
        or head.startswith(TEXT_HEADED)
    older = _UNREAD_FORMATS.get(PurePath(source).suffix.lower())
    if older is not None and binary:
        kind, into = older
        raise BinaryFileError(f"{source}: {kind}, a format zoomrag does not read; save it as .{into} "
                              f"(LibreOffice converts it: soffice --headless --convert-to {into} FILE) and index that")
    if binary and _is_archive(source):
        raise BinaryFileError(f"{source}: an archive, which zoomrag does not unpack; unpack it "
                              "(tar -xf FILE, unzip FILE) and index the folder")
    what = binary_kind(head) if binary else None
    if what is not None:  # a picture, a font, a program: named, so nothing seems lost
        suffix = PurePath(source).suffix.lower()
        # files named so are all of that kind, unless zoomrag reads that extension (a .txt)
        read = any(suffix in fmt.extensions for _, fmt in FORMATS.items())
        leave = f" (--exclude '*{suffix}')" if suffix and not read else ""
        raise BinaryFileError(f"{source}: {what}, not text, which is what zoomrag reads; leave it out{leave}")
    if binary and b"\x00" in head:
        raise BinaryFileError(f"{source}: binary file (NUL bytes found), not text; "
                              "skip it or convert it to text first")
    if head and len(head.translate(None, _CONTROL)) < 0.9 * len(head):
        raise BinaryFileError(f"{source}: binary file (mostly control bytes), not text; "
                              "skip it or convert it to text first")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        # UTF-8 first: a file that declares Latin-1 but is UTF-8 (often) would otherwise be read
        # wrong without a word, as Latin-1 decodes any bytes
        declared = _declared_encoding(head)
        if declared is not None:
            try:
                return _text(data.decode(declared))
            except UnicodeDecodeError as d:
                raise DecodeError(f"{source}: neither UTF-8 nor the {declared} it declares (byte "
                                  f"0x{data[d.start]:02x} at offset {d.start}); fix the declaration or "
                                  "re-save the file as UTF-8") from None
        line = data.count(b"\n", 0, e.start) + 1
        guess = _likely_encoding(data)
        how = (f"it looks like {guess.upper()}: convert it with iconv -f {guess.upper()} -t UTF-8" if guess
               else "convert it to UTF-8 from the encoding it was saved in, e.g. iconv -f CP1252 -t UTF-8")
        raise DecodeError(
            f"{source}: not valid UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start}, line {line}); {how}"
        ) from None
    return _text(text)


def _text(decoded: str) -> str:
    # A stray NUL becomes U+FFFD, the character that says one was there: browsers show none, and
    # PostgreSQL stores none.
    return normalize_newlines(decoded.replace("\x00", "\ufffd") if "\x00" in decoded else decoded)


def read_text(text: str, *, format: str = "text", id: str = "doc", source: str = "<text>",
              metadata: Mapping[str, Any] | None = None, front_matter: str = "metadata") -> Document:
    """A Document from text already in memory, parsed by the reader for ``format``.

    The argument names are :meth:`Document.from_text`'s. ``metadata`` is added to what the reader
    finds (it wins on equal keys).
    Markdown front matter becomes metadata and is left out of the text (:mod:`.frontmatter`);
    ``front_matter="text"`` keeps it in the text instead.
    """
    frontmatter.check_mode(front_matter)
    reader = FORMATS.get(format).read
    if reader is None:
        raise ConfigError(f"format {format!r} is read from a file, not from text; use load_path")
    text = normalize_newlines(text)
    found: dict[str, Any] = {}
    if format == "markdown" and front_matter == "metadata":
        found, start = frontmatter.split(text, source)
        if start:
            text = text[start:]
            found[frontmatter.OFFSET_KEY] = start
    doc = reader(text, doc_id=id, source=source)
    return with_metadata(doc, {**found, **(metadata or {})})


#: Files larger than this are refused (``max_bytes``; ``--max-file-size`` on the command line):
#: a file that size is rarely one document, and reading it whole takes several times its size
#: in memory.
MAX_FILE_BYTES = 64 * 1024 * 1024


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
              front_matter: str = "metadata", max_bytes: int | None = MAX_FILE_BYTES) -> Document:
    """Read one file into a Document. Errors name the file and say what to do.

    ``source`` (default: the path as given) is what the document says it came from. Only
    regular files are read (a FIFO would block forever, a device never end); one larger than
    ``max_bytes`` (None: no limit) is refused with the limit to raise.
    """
    p = Path(path)
    where = str(p)
    st = _regular_file(p, where)
    _check_size(where, st.st_size, max_bytes)
    format = format or detect_format(p)
    id = id or where
    source = source or where
    read_file = FORMATS.get(format).read_file if format in FORMATS else None
    inner = compressed.inner_name(p)
    try:
        if read_file is not None and inner is not None:
            data = _unpacked(p, where, max_bytes)
            with tempfile.TemporaryDirectory(prefix="zoomrag-") as tmp:
                unpacked = Path(tmp, inner.name)
                unpacked.write_bytes(data)
                with _quiet_parsers():
                    doc = read_file(unpacked, id)
            return with_metadata(replace(doc, source=source), dict(metadata or {}))
        if read_file is not None:
            with _quiet_parsers():
                doc = read_file(p, id)
            if source != doc.source:
                doc = replace(doc, source=source)
            return with_metadata(doc, dict(metadata or {}))
        return read_text(file_text(p, max_bytes=max_bytes), format=format, id=id, source=source,
                         metadata=metadata, front_matter=front_matter)
    except RecursionError:  # a reader walks elements inside elements; a hostile file nests thousands deep
        raise InputError(f"{where}: nested too deeply to read (elements inside elements thousands deep); "
                         "save it again from the program that made it, or leave it out") from None


def file_text(path: str | Path, *, max_bytes: int | None = MAX_FILE_BYTES) -> str:
    """The text of the file at ``path`` (of the file inside, when it is compressed), decoded as
    :func:`decode` does; errors name the file and say what to do."""
    p = Path(path)
    where = str(p)
    _check_size(where, _regular_file(p, where).st_size, max_bytes)
    data = _read_bytes(p, where, max_bytes) if compressed.inner_name(p) is None else _unpacked(p, where, max_bytes)
    return decode(data, where)


def file_size_text(n: int) -> str:
    """``n`` bytes for a message: ``64 MB``, ``1.5 GB``."""
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f}".removesuffix(".0") + f" {unit}"
    return f"{n} bytes"


def _check_size(source: str, size: int, max_bytes: int | None) -> None:
    if max_bytes is not None and size > max_bytes:
        raise InputError(
            f"{source}: {file_size_text(size)}, over the limit of {file_size_text(max_bytes)} per file; "
            f"raise it with --max-file-size {file_size_text(2 * size).replace(' ', '')} "
            "(max_bytes= in the library), or split the file")


_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _not_regular(source: str, mode: int) -> InputError:
    if stat.S_ISDIR(mode):
        return InputError(f"{source}: is a directory; give a file, or index the folder")
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return InputError(f"{source}: {kind}, not a regular file; only regular files are read")


def _regular_file(p: Path, source: str) -> os.stat_result:
    try:
        st = os.stat(p)
    except FileNotFoundError:
        if os.path.islink(p):
            raise InputError(f"{source}: a symlink to nothing ({os.readlink(p)}); "
                             "remove it or fix its target") from None
        raise InputError(f"{source}: no such file") from None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise InputError(f"{source}: a symlink loop; remove the link or point it at a file") from None
        raise InputError(f"{source}: cannot read ({e.strerror}); check its permissions") from None
    if not stat.S_ISREG(st.st_mode):
        raise _not_regular(source, st.st_mode)
    return st


def _read_bytes(p: Path, source: str, max_bytes: int | None) -> bytes:
    """The file's bytes, never more than ``max_bytes``: opened without blocking (a FIFO put in
    its place since the check) and checked again once open."""
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as e:
        raise InputError(f"{source}: cannot read ({e.strerror}); check its permissions") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(source, st.st_mode)
        _check_size(source, st.st_size, max_bytes)
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read() if max_bytes is None else f.read(max_bytes + 1)
    except OSError as e:
        raise InputError(f"{source}: cannot read ({e.strerror}); check its permissions") from None
    finally:
        os.close(fd)
    _check_size(source, len(data), max_bytes)  # it grew while being read
    return data


def _unpacked(p: Path, source: str, max_bytes: int | None) -> bytes:
    limit = "no limit" if max_bytes is None else file_size_text(max_bytes)
    return compressed.unpack(_read_bytes(p, source, max_bytes), source, max_bytes, limit)


def reader_module(name: str, source: str, what: str, extra: str) -> Any:
    """The module ``name`` a reader of ``what`` (e.g. "PDF files") needs from the optional
    ``extra``, imported when the first such file is read, or an error that names the extra."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise InputError(f"{source}: reading {what} needs the optional '{extra}' extra; "
                         f"install it with: pip install 'zoomrag[{extra}]'") from None


@contextmanager
def _quiet_parsers() -> Iterator[None]:
    """Parsers of binary formats (pypdfium2) warn about oddities of a file; what matters reaches
    the user as the reader's one error, so their chatter is kept off the terminal."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield

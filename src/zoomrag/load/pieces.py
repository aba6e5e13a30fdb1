"""A framework's documents as zoomrag Documents: what its loaders give, put back into whole files.

Loaders hand a file over in pieces: a PDF a page each (LangChain's ``PyPDFLoader`` with
``page``, Unstructured with ``page_number``, LlamaIndex's ``PDFReader`` with ``page_label``), or
cut by a splitter kept in the pipeline (LangChain's ``start_index``, Haystack's
``split_idx_start``, LlamaIndex's ``start_char_idx``). zoomrag's tree and its contexts need the
whole file: a page's second half belongs under the heading of the page before, and a context
grown from a hit should not stop at a page's edge. So the pieces of one source (``source``,
``file_path``, ``file_name``, ``url``, ``source_id``, else the framework's id) become one
document:

- cut by offsets in the file (Haystack's): each piece placed at its offset (a splitter's overlap
  read once, a gap left by stripped whitespace given back: a space, or line breaks where it is
  longer), so spans are the original file's offsets, unless its form feeds part pages (below);
- pages: in page order, parted by form feeds as a PDF's pages are (contexts say their pages), a
  page missing from the numbers left empty so the numbers stay true (pages known by their
  labels alone, ``iv`` or ``T-1``, in the order they come); pieces of one page placed
  at their offsets in it (a splitter run on a loader's pages), else apart by a blank line (a
  loader's elements); pages of text read as zoomrag's PDF reader reads a PDF's (running heads
  and folios gone, a sentence read on over a page break), as is a text whose form feeds part
  its pages (Haystack's converter gives a PDF so);
- cut by offsets in the file, as LangChain's and LlamaIndex's splitters write them: as above;
- several pieces with neither (a CSV loader's rows, a JSON loader's records): a document each,
  ``source#row``.

A document's id is its source (the id the application gives, where it gives one; the framework's
id where there is no source, a hash of the text where there is neither), so adding the same
files again replaces rather than duplicates them. Its
metadata is what all its pieces agree on, without the keys that place a piece (a page's number,
a split's offset); its format is what :func:`zoomrag.load.given.given_format` reads from its
source's name and its text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from ..errors import InputError
from ..model import Document
from .base import FORMATS, is_paged, with_metadata
from .given import given_format, name_format, read_given
from .readers.page_lines import guessed, line_paragraphs
from .readers.pdf import PAGE_BREAK, paged_document

#: Keys a loader names a piece's source by, in the order they are trusted.
SOURCE_KEYS = ("source", "file_path", "file_name", "url", "source_id")
#: ``(key, first page's number)``: LangChain's PDF loaders count pages from 0, the rest from 1.
PAGE_KEYS = (("page", 0), ("page_number", 1))
#: A page's label (LlamaIndex's ``PDFReader``): what the page prints (``iv``, ``T-1``, ``12``),
#: not where it lies, so the pages keep the order they come in.
LABEL_KEY = "page_label"
#: Haystack's splitter's offset of a piece in its whole file (page breaks inside the pieces).
FILE_OFFSET = "split_idx_start"
#: LangChain's and LlamaIndex's splitters' offset of a piece in what they were given: the file,
#: or a page of it when a loader gave pages.
OFFSET_KEYS = ("start_index", "start_char_idx")
#: Keys numbering a loader's records of one file (a CSV's rows, a JSON file's records).
RECORD_KEYS = ("row", "seq_num")
#: Keys only a piece has: left out of its document's metadata.
PIECE_KEYS = frozenset({k for k, _ in PAGE_KEYS} | set(OFFSET_KEYS) | {LABEL_KEY, FILE_OFFSET,
    "split_id", "_split_overlap", "source_id", "end_index", "end_char_idx", "chunk_index"})
#: Pages a document may be padded to: numbers past it are not page numbers.
MOST_PAGES = 20_000


@dataclass(frozen=True)
class Piece:
    """A framework document's text, its metadata and its framework's id ("" for none); ``doc_id``
    the id the application names its document by, when it does (pieces with one are one
    document, whatever their source)."""

    text: str
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    id: str = ""
    doc_id: str = ""

    @property
    def source(self) -> str:
        for key in SOURCE_KEYS:
            value = self.metadata.get(key)
            if isinstance(value, str) and value.strip():
                return value
        return ""


def documents(pieces: Iterable[Piece]) -> list[Document]:
    """The zoomrag Documents of a framework's documents, in the order their sources first come
    (see the module)."""
    groups: dict[str, list[Piece]] = {}
    for p in pieces:
        if not isinstance(p.text, str):
            raise InputError(f"a document of {p.source or p.id or 'no source'} has no text "
                             f"({type(p.text).__name__}): give zoomrag documents of text")
        key = p.doc_id or p.source or p.id or _hash_id(p.text)
        groups.setdefault(key, []).append(p)
    out: list[Document] = []
    for key, group in groups.items():
        out.extend(_group_documents(key, group))
    return out


def paged(pages: Sequence[str], *, id: str, source: str = "", metadata: Mapping[str, Any] | None = None
          ) -> Document:
    """One document of a file's page texts, in order, read as the pages a loader gives (what
    the HTTP API and an evaluation corpus take as ``pages``)."""
    [doc] = documents(Piece(p, {"source": source or id, "page_number": n}) for n, p in enumerate(pages, 1))
    return with_metadata(replace(doc, id=id), metadata or {})


def _group_documents(key: str, group: Sequence[Piece]) -> list[Document]:
    whole = _numbers(group, (FILE_OFFSET,)) if len(group) > 1 else None
    if whole is not None:
        return [_document(key, _placed(group, whole), group)]
    pages = _pages(group)
    if pages is not None:
        return [_paged_document(key, group, _page_texts(group, pages))]
    if len(group) == 1:
        return [_document(key, group[0].text, group)]
    offsets = _numbers(group, OFFSET_KEYS)
    if offsets is not None:
        return [_document(key, _placed(group, offsets), group)]
    rows = _numbers(group, RECORD_KEYS)
    return [_document(f"{key}#{rows[i] if rows is not None else i + 1}", p.text, [p], source=key)
            for i, p in enumerate(group)]


def _document(doc_id: str, text: str, group: Sequence[Piece], *, source: str = "") -> Document:
    """A document of ``text``; one whose form feeds part pages (a Haystack converter's PDF) is
    read as pages."""
    if "\f" in text:
        return _paged_document(doc_id, group, [t.strip("\n") for t in text.split("\f")], source=source)
    source = source or group[0].source or doc_id
    return read_given(text, id=doc_id, source=source, metadata=_shared(group))


def _shared(group: Sequence[Piece]) -> dict[str, Any]:
    """The metadata every piece holds alike, without the keys that place a piece."""
    first = group[0].metadata
    return {k: v for k, v in first.items()
            if k not in PIECE_KEYS and all(k in p.metadata and p.metadata[k] == v for p in group[1:])}


def _number(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _numbers(group: Sequence[Piece], keys: Sequence[str]) -> list[int] | None:
    """Each piece's number under the first of ``keys`` all of them hold as an integer."""
    for key in keys:
        found = [_number(p.metadata.get(key)) for p in group]
        if all(n is not None and n >= 0 for n in found):
            return [n for n in found if n is not None]
    return None


def _pages(group: Sequence[Piece]) -> list[int] | None:
    """Each piece's page, from 1, or None when the pieces are not pages."""
    for key, first in PAGE_KEYS:
        found = _numbers(group, (key,))
        if found is not None:
            pages = [n - first + 1 for n in found]
            if min(pages) >= 1 and max(pages) <= MOST_PAGES:
                return pages
    if all(LABEL_KEY in p.metadata for p in group):
        return list(range(1, len(group) + 1))
    return None


def _placed(group: Sequence[Piece], offsets: Sequence[int]) -> str:
    """The pieces set at their offsets: an overlap read once, a gap given back as whitespace (a
    space for one character, most often what parts sentences, else line breaks)."""
    parts: list[str] = []
    end = 0
    for start, piece in sorted(zip(offsets, group, strict=True), key=lambda x: x[0]):
        if start >= end:
            parts.append(" " if start - end == 1 else "\n" * (start - end))
            parts.append(piece.text)
            end = start + len(piece.text)
        elif start + len(piece.text) > end:
            parts.append(piece.text[end - start:])
            end = start + len(piece.text)
    return "".join(parts)


def _page_texts(group: Sequence[Piece], pages: Sequence[int]) -> list[str]:
    """The pages' texts in page order (a missing page empty); a page's pieces set at their
    offsets in it, or apart by a blank line without."""
    by_page: dict[int, list[Piece]] = {}
    for page, piece in sorted(zip(pages, group, strict=True), key=lambda x: x[0]):
        by_page.setdefault(page, []).append(piece)
    return [_page_text(by_page.get(n, [])) for n in range(1, max(by_page) + 1)]


def _paged_document(key: str, group: Sequence[Piece], texts: list[str], *, source: str = "") -> Document:
    """A document of pages: of Markdown (a converter's) read as Markdown, parted by form feeds;
    of text as the PDF reader reads a PDF's pages: without running heads and feet, words
    hyphenated at a line's end joined, a sentence going on over a page break."""
    source = source or group[0].source or key
    joined = PAGE_BREAK.join(texts)
    fmt = given_format(joined, source)
    if fmt not in ("text", "pdf") and FORMATS.get(fmt).read is not None:
        return read_given(joined, id=key, source=source, format=fmt, metadata=_shared(group))
    named = name_format(source)
    paged = named if named and is_paged(named) else "text"
    texts, headings = line_paragraphs(texts)
    doc = paged_document(key, source, paged, texts, {"pages": len(texts)}, headings)
    return with_metadata(guessed(doc), _shared(group))


def _page_text(pieces: Sequence[Piece]) -> str:
    offsets = _numbers(pieces, OFFSET_KEYS) if len(pieces) > 1 else None
    if offsets is not None:
        return _placed(pieces, offsets).strip("\n")
    return "\n\n".join(p.text.strip("\n") for p in pieces)


def _hash_id(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]

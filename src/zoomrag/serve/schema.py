"""Request and response bodies of the HTTP API (pydantic: validation and the OpenAPI schema).

A context is what ``zoomrag query --json`` prints for it, plus ``level``, ``kind`` and ``rule``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .query import DEFAULT_BUDGET, DEFAULT_EXPAND, DEFAULT_MODE, DEFAULT_TOP, QueryRequest

#: Queries one batch request may hold.
MAX_BATCH = 64


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class QueryBody(_Strict):
    text: str = Field(description="The question or search words.", min_length=1)
    budget: int = Field(DEFAULT_BUDGET, ge=1, description="Tokens of context to return at most.")
    top: int | None = Field(DEFAULT_TOP, ge=1, description="Contexts to return at most.")
    mode: Literal["dense", "bm25", "hybrid"] = DEFAULT_MODE
    expand: str = Field(DEFAULT_EXPAND, description="Expansion policy (see zoomrag query --help).")
    params: dict[str, Any] = Field(default_factory=dict, description="Parameters of the expansion policy.")
    order: Literal["score", "document"] = "score"
    explain: bool = False
    rerank: bool = Field(False, description="Re-score hits with the endpoint in $ZOOMRAG_RERANK_URL.")
    where: dict[str, Any] | None = Field(
        None, description='Metadata filter, chromadb/Qdrant style, e.g. {"year": {"$gte": 2020}}.')
    doc: str | list[str] | None = Field(
        None, description="Search only these documents: an id, a source path or a glob, or a list of them.")
    bm25_weight: float | None = Field(
        None, ge=0, le=1, description="In hybrid mode, BM25's share of the fused score (dense search gets the "
                                      "rest); default 0.3. Raise it for questions made of names, codes and "
                                      "identifiers.")

    def request(self) -> QueryRequest:
        return QueryRequest(text=self.text, budget=self.budget, top=self.top, mode=self.mode,
                            expand=self.expand, params=self.params, order=self.order, explain=self.explain,
                            rerank=self.rerank, where=self.where, doc=self.doc, bm25_weight=self.bm25_weight)


class HitOut(BaseModel):
    start: int
    end: int
    score: float


class SpanOut(BaseModel):
    start: int
    end: int


class ContextOut(BaseModel):
    doc_id: str
    source: str
    #: Where a browser opens the context: the source at the section of its best match, when the
    #: page names its sections (``https://x.org/install.html#with-pip``); else the source.
    link: str = ""
    #: The fragment naming that section ("" when none does).
    anchor: str = ""
    start: int
    end: int
    text: str
    section_path: list[str]
    score: float
    hits: list[HitOut]
    #: The exact spans the context is made of, in text order (a table's header row, then its rows;
    #: a signature, then code from inside its definition; a footnote and the sentence citing it).
    spans: list[SpanOut]
    #: The metadata of the context's document.
    metadata: dict[str, Any] = Field(default_factory=dict)
    #: Ids of other documents holding this text (or most of what matched in it), left out for it.
    copies: list[str] = Field(default_factory=list)
    #: First and last page the context lies on, in a document with pages (a PDF, a slide deck);
    #: else empty.
    pages: list[int] = Field(default_factory=list)
    level: int
    kind: str
    rule: str


class QueryResponse(BaseModel):
    query: str
    budget: int
    contexts: list[ContextOut]


class BatchBody(_Strict):
    queries: list[QueryBody] = Field(min_length=1, max_length=MAX_BATCH)


class BatchResponse(BaseModel):
    results: list[QueryResponse]


class DocumentIn(_Strict):
    source: str = Field(min_length=1, description="Where the text comes from (shown with every context).")
    text: str | None = Field(None, description="The document's text; or give its pages.")
    pages: list[str] | None = Field(None, description=(
        "The text of each page, in order, as a PDF library extracts them: read as one document, "
        "running heads and page numbers left out, paragraphs found by the lines' lengths; "
        "contexts say their pages."))
    id: str | None = Field(None, description="Stable id; the source when left out.")
    format: str | None = Field(None, description=(
        "The reader to read the text with (markdown, html, code, csv...); by default the one the "
        "source's name says, else what the text shows (an HTML page, Markdown), else plain text."))
    metadata: dict[str, Any] = Field(default_factory=dict)


class SiteBody(_Strict):
    url: str = Field(min_length=1, description="The site's address: its pages under this folder are read.")
    max_pages: int = Field(5000, ge=1, description="Pages read at most.")
    include: list[str] = Field(default_factory=list, description="Read only paths under the folder matching "
                                                                  "these (gitignore syntax).")
    exclude: list[str] = Field(default_factory=list, description="Leave out paths matching these.")
    prune: bool = Field(False, description="Remove stored pages of the folder the site no longer has.")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Added to every page's metadata.")


class AddBody(_Strict):
    documents: list[DocumentIn] = Field(min_length=1)


class AddResponse(BaseModel):
    added: int
    updated: int
    unchanged: int
    removed: int
    skipped: list[tuple[str, str]]
    units: int
    embedded: int
    characters: int
    seconds: float
    #: Of ``updated``: unchanged texts read again by a newer zoomrag's readers.
    reread: int = 0
    #: Files written with no text to search although not empty (a PDF of scanned pages).
    empty: list[str] = []
    #: (source, pages without text, pages) of PDFs with many scanned pages among their text.
    scanned: list[tuple[str, int, int]] = []
    #: The embedder ``auto`` chose for a new index, and why ("" when the index existed).
    embedder: str = ""
    #: (source, pages read by OCR, pages) of PDFs read with pages scanned as images.
    ocr: list[tuple[str, int, int]] = []
    #: (address, pages read, why the crawl stopped early or "") of each web site crawled.
    crawled: list[tuple[str, int, str]] = []


class DocumentOut(BaseModel):
    id: str
    source: str
    format: str
    length: int


class DocumentsResponse(BaseModel):
    documents: list[DocumentOut]


class DeleteResponse(BaseModel):
    deleted: str


class NodeOut(BaseModel):
    id: str
    parent_id: str | None
    level: int
    kind: str
    start: int
    end: int
    section_path: list[str]
    text: str | None = None
    embed_text: str | None = None


class TreeResponse(BaseModel):
    document: DocumentOut
    nodes: list[NodeOut]


class TextResponse(BaseModel):
    doc_id: str
    source: str
    start: int
    end: int
    length: int
    text: str


class StatsResponse(BaseModel):
    path: str
    documents: int
    characters: int
    nodes: int
    units: int
    vectors: int
    file_bytes: int
    bytes_without_vectors: int
    embedder: str
    chunking: str
    generation: int
    ann: str
    older_readings: int
    #: ``[key, documents holding it]`` of the metadata, the most held first: what ``where`` can ask.
    metadata_keys: list[tuple[str, int]] = []


class CheckResponse(BaseModel):
    path: str
    ok: bool
    problems: list[str]
    counts: dict[str, int]


class HealthResponse(BaseModel):
    status: Literal["ok"]
    index: str
    version: str
    modes: list[str]
    policies: list[str] = Field(description="Expansion policies the query's `expand` accepts.")
    defaults: dict[str, Any] = Field(description="What a query gets for the options it leaves out.")
    served: dict[str, int] = Field(description="Requests answered since start, by kind (query, batch).")


class ErrorResponse(BaseModel):
    error: str = Field(description="One line: what is wrong and what to do.")
    type: str = Field(description="The zoomrag exception class, e.g. ConfigError.")
    status: int

"""Evaluation data in the normalised format: ``corpus.jsonl`` + ``queries.jsonl``.

``corpus.jsonl``: one document per line, ``{"id", "title", "text", "format"}``, or with a
``path`` (relative to the file) instead of a text: a file read as ``zoomrag index`` reads it, or
with ``pages`` (a list of texts): a file's pages as a framework's loader gives them, read as the
adapters read them (:mod:`zoomrag.load.pieces`).
``queries.jsonl``: one query per line, ``{"id", "query", "answer", "evidence": [{"doc_id",
"start", "end"}], "doc_scope"?}``; ``text[start:end]`` of that document is the evidence.
Other fields are ignored. Loading validates everything a metric relies on and names the file
and line of the first problem.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import secrets
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..errors import EvalError, ZoomragError
from ..model import Block, Document

CORPUS_FILE = "corpus.jsonl"
QUERIES_FILE = "queries.jsonl"


@dataclass(frozen=True, slots=True)
class Evidence:
    """A ground-truth passage: ``document.text[start:end]``."""

    doc_id: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class EvalDocument:
    id: str
    text: str
    title: str = ""
    format: str = "text"
    #: The reader's blocks and metadata once read (see :mod:`.reading`).
    blocks: tuple[Block, ...] = field(default=(), compare=False)
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}), compare=False)
    #: ``text`` is what the format's reader made of the file (as ``zoomrag index`` stores it).
    read: bool = False

    def to_document(self) -> Document:
        """The library's :class:`~zoomrag.model.Document`, offsets unchanged (no renormalising);
        a title other than the id is its metadata ``title``, as a reader's would be."""
        metadata = self.metadata
        if self.title and self.title != self.id and not metadata.get("title"):  # as a reader would find
            metadata = MappingProxyType({**metadata, "title": self.title})
        return Document(id=self.id, source=self.title or self.id, text=self.text, format=self.format,
                        blocks=self.blocks, metadata=metadata)


@dataclass(frozen=True, slots=True)
class EvalQuery:
    id: str
    query: str
    evidence: tuple[Evidence, ...]
    answer: str | None = None
    #: Retrieve only inside this document (``None``: the whole corpus).
    doc_scope: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": self.id,
            "query": self.query,
            "answer": self.answer,
            "evidence": [{"doc_id": e.doc_id, "start": e.start, "end": e.end} for e in self.evidence],
        }
        if self.doc_scope is not None:
            d["doc_scope"] = self.doc_scope
        return d


@dataclass(frozen=True, slots=True)
class Skipped:
    """A query left out on loading, and why (reported, never silently dropped)."""

    line: int
    query_id: str
    reason: str


class Dataset:
    """A corpus and its queries, validated: every evidence span lies inside its document."""

    __slots__ = ("_by_id", "documents", "name", "queries", "skipped")

    def __init__(self, name: str, documents: Sequence[EvalDocument], queries: Sequence[EvalQuery],
                 skipped: Sequence[Skipped] = ()) -> None:
        self.name = name
        self.documents = tuple(documents)
        self.queries = tuple(queries)
        #: Queries in the file that cannot be asked (empty text), listed for the report.
        self.skipped = tuple(skipped)
        by_id: dict[str, EvalDocument] = {}
        for d in self.documents:
            if d.id in by_id:
                raise EvalError(f"dataset {name!r}: two documents have the id {d.id!r}; "
                                "ids must be unique")
            by_id[d.id] = d
        self._by_id: Mapping[str, EvalDocument] = MappingProxyType(by_id)
        seen: set[str] = set()
        for q in self.queries:
            if q.id in seen:
                raise EvalError(f"dataset {name!r}: two queries have the id {q.id!r}; "
                                "ids must be unique")
            seen.add(q.id)
            problem = _query_problem(q, by_id)
            if problem:
                raise EvalError(f"dataset {name!r}, query {q.id!r}: {problem}")

    def __repr__(self) -> str:
        return (f"Dataset(name={self.name!r}, documents={len(self.documents)}, queries={len(self.queries)}, "
                f"skipped={len(self.skipped)})")

    def document(self, doc_id: str) -> EvalDocument:
        try:
            return self._by_id[doc_id]
        except KeyError:
            raise EvalError(f"dataset {self.name!r} has no document {doc_id!r}") from None

    @property
    def texts(self) -> Mapping[str, str]:
        return {d.id: d.text for d in self.documents}

    def evidence_text(self, ev: Evidence) -> str:
        return self.document(ev.doc_id).text[ev.start:ev.end]

    def to_documents(self) -> list[Document]:
        """Documents for indexing, in corpus order."""
        return [d.to_document() for d in self.documents]

    @property
    def corpus_hash(self) -> str:
        """Hash of every document's id, title, format and text: the cache key of a corpus."""
        h = hashlib.sha256()
        for d in self.documents:
            parts = [d.id, d.title, d.format, d.text]
            if d.read:  # what the reader made of it: a reader change is a different corpus
                parts.append(json.dumps([[b.start, b.end, b.type, b.level] for b in d.blocks]))
            for part in parts:
                b = part.encode("utf-8")
                h.update(len(b).to_bytes(8, "little"))
                h.update(b)
        return h.hexdigest()

    def with_queries(self, queries: tuple[EvalQuery, ...] | list[EvalQuery]) -> Dataset:
        return Dataset(self.name, self.documents, queries, self.skipped)

    def sample(self, n: int, *, seed: int = 0) -> Dataset:
        """``n`` queries drawn without replacement (all of them when there are fewer), in file order."""
        if n >= len(self.queries):
            return self
        keep = sorted(random.Random(seed).sample(range(len(self.queries)), n))
        return self.with_queries([self.queries[i] for i in keep])

    def summary(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "corpus_hash": self.corpus_hash,
            "documents": len(self.documents),
            "queries": len(self.queries),
            "skipped_queries": [{"line": s.line, "id": s.query_id, "reason": s.reason} for s in self.skipped],
            "characters": sum(len(d.text) for d in self.documents),
        }


@dataclass(frozen=True)
class NewQueries:
    """Queries made for a corpus (imported or generated); subclasses add their report."""

    queries: tuple[EvalQuery, ...]

    def into(self, dataset: Dataset) -> Dataset:
        """The dataset's corpus with these queries."""
        return dataset.with_queries(self.queries)


def _query_problem(q: EvalQuery, docs: Mapping[str, EvalDocument]) -> str | None:
    """What is wrong with a query, or None. Messages end with what to do."""
    if not q.query.strip():
        return "the query text is empty; write the question or remove the line"
    if not q.evidence:
        return "no evidence; every query needs at least one evidence span to be scored"
    if q.doc_scope is not None and q.doc_scope not in docs:
        return f"doc_scope {q.doc_scope!r} is not a document of the corpus; fix the id or drop doc_scope"
    for ev in q.evidence:
        doc = docs.get(ev.doc_id)
        if doc is None:
            return f"evidence names document {ev.doc_id!r}, which is not in the corpus; fix the doc_id"
        if not 0 <= ev.start < ev.end:
            return (f"evidence [{ev.start}, {ev.end}) in {ev.doc_id!r} is empty or reversed; "
                    "start must be >= 0 and less than end")
        if ev.end > len(doc.text):
            return (f"evidence [{ev.start}, {ev.end}) ends past the end of {ev.doc_id!r} "
                    f"(length {len(doc.text)}); fix the offsets or re-import the evidence as text")
        if q.doc_scope is not None and ev.doc_id != q.doc_scope:
            return (f"evidence lies in {ev.doc_id!r} but doc_scope restricts retrieval to "
                    f"{q.doc_scope!r}; the evidence could never be returned")
    return None


# -- reading ----------------------------------------------------------------------------

def iter_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for every non-blank line; an EvalError names a broken line."""
    try:
        f = path.open(encoding="utf-8")
    except FileNotFoundError:
        raise EvalError(f"{path}: file not found") from None
    with f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise EvalError(f"{path}, line {lineno}: not valid JSON ({e.msg}); "
                                "each line must hold one JSON object") from None
            if not isinstance(obj, dict):
                raise EvalError(f"{path}, line {lineno}: expected a JSON object, got {type(obj).__name__}")
            yield lineno, obj


def _field(obj: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str,
           *, required: bool = True) -> Any:
    if key not in obj or obj[key] is None:
        if required:
            raise EvalError(f"{where}: missing field {key!r}")
        return None
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise EvalError(f"{where}: field {key!r} must be {names}, got {value!r:.60}")
    return value


def read_corpus(path: Path) -> tuple[EvalDocument, ...]:
    docs: list[EvalDocument] = []
    seen: dict[str, int] = {}
    for lineno, obj in iter_jsonl(path):
        where = f"{path}, line {lineno}"
        doc_id = str(_field(obj, "id", (str, int), where))
        if doc_id in seen:
            raise EvalError(f"{where}: document id {doc_id!r} already used on line {seen[doc_id]}; "
                            "ids must be unique")
        seen[doc_id] = lineno
        title = _field(obj, "title", str, where, required=False) or ""
        if "path" in obj and "text" not in obj:
            docs.append(_read_file(path.parent, _field(obj, "path", str, where), doc_id, title, where,
                                   _field(obj, "sha256", str, where, required=False)))
            continue
        if "pages" in obj and "text" not in obj:
            docs.append(_read_pages(_field(obj, "pages", list, where), doc_id, title, where,
                                    _field(obj, "sha256", str, where, required=False)))
            continue
        docs.append(EvalDocument(
            id=doc_id,
            text=_field(obj, "text", str, where),
            title=title,
            format=_field(obj, "format", str, where, required=False) or "text",
        ))
    if not docs:
        raise EvalError(f"{path}: no documents; the corpus needs at least one line")
    return tuple(docs)


def _read_file(folder: Path, name: str, doc_id: str, title: str, where: str, sha256: str | None) -> EvalDocument:
    """A corpus line's ``path`` (a PDF, a Word file: what JSON cannot hold), read as ``zoomrag
    index`` reads it; its evidence offsets point into the text read, whose ``sha256``, when the
    line gives it, must be the same: offsets into another reading would score the wrong text."""
    from ..load import load_path  # the readers, only for a corpus that names files

    try:
        doc = load_path(folder / name, id=doc_id)
    except ZoomragError as e:
        raise EvalError(f"{where}: {e}") from None
    return _checked(doc, title, where, sha256, name)


def _checked(doc: Document, title: str, where: str, sha256: str | None, name: str) -> EvalDocument:
    if sha256 is not None and hashlib.sha256(doc.text.encode("utf-8")).hexdigest() != sha256:
        raise EvalError(f"{where}: {name} reads differently from when its evidence was placed (another "
                        "zoomrag or OCR engine); place the evidence again in the text it reads now")
    return EvalDocument(id=doc.id, text=doc.text, title=title or doc.id, format=doc.format, blocks=doc.blocks,
                        metadata=doc.metadata, read=True)


def _read_pages(pages: list[Any], doc_id: str, title: str, where: str, sha256: str | None) -> EvalDocument:
    """A corpus line's ``pages``, put back into one document as the framework adapters put a
    loader's pages (:func:`zoomrag.load.pieces.paged`); its evidence offsets point into that."""
    from ..load.pieces import paged  # the readers, only for a corpus that gives pages

    if not pages or not all(isinstance(p, str) for p in pages):
        raise EvalError(f"{where}: field 'pages' must be a list of texts, a page each")
    try:
        doc = paged(pages, id=doc_id)
    except ZoomragError as e:
        raise EvalError(f"{where}: {e}") from None
    return _checked(doc, title, where, sha256, "the file its pages make")


def read_queries(path: Path, docs: Mapping[str, EvalDocument]) -> tuple[tuple[EvalQuery, ...],
                                                                       tuple[Skipped, ...]]:
    """Valid queries, and those skipped because their text is empty (an error stops at a bad one)."""
    queries: list[EvalQuery] = []
    skipped: list[Skipped] = []
    seen: dict[str, int] = {}
    for lineno, obj in iter_jsonl(path):
        where = f"{path}, line {lineno}"
        qid = str(_field(obj, "id", (str, int), where))
        if qid in seen:
            raise EvalError(f"{where}: query id {qid!r} already used on line {seen[qid]}; ids must be unique")
        seen[qid] = lineno
        raw = _field(obj, "evidence", list, where)
        evidence = []
        for k, ev in enumerate(raw):
            ew = f"{where}, evidence {k}"
            if not isinstance(ev, dict):
                raise EvalError(f"{ew}: expected an object {{doc_id, start, end}}, got {ev!r:.60}")
            evidence.append(Evidence(str(_field(ev, "doc_id", (str, int), ew)),
                                     _field(ev, "start", int, ew), _field(ev, "end", int, ew)))
        answer = obj.get("answer")
        scope = obj.get("doc_scope")
        q = EvalQuery(id=qid, query=_field(obj, "query", str, where), evidence=tuple(evidence),
                      answer=None if answer is None else str(answer),
                      doc_scope=None if scope is None else str(scope))
        if not q.query.strip():
            # Real sets have these (cmrc2018_trial has two); nothing can be asked, so skip and report.
            skipped.append(Skipped(lineno, qid, "empty query text"))
            continue
        problem = _query_problem(q, docs)
        if problem:
            raise EvalError(f"{where}: {problem}")
        queries.append(q)
    if not queries:
        raise EvalError(f"{path}: no queries; add at least one line or generate some with "
                        "`zoomrag eval generate`")
    return tuple(queries), tuple(skipped)


def load_dataset(path: str | os.PathLike[str], *, name: str | None = None) -> Dataset:
    """Read and validate ``DIR/corpus.jsonl`` and ``DIR/queries.jsonl``."""
    root = Path(path)
    if not root.is_dir():
        raise EvalError(f"{root}: not a directory; --data expects a folder holding "
                        f"{CORPUS_FILE} and {QUERIES_FILE}")
    docs = read_corpus(root / CORPUS_FILE)
    queries, skipped = read_queries(root / QUERIES_FILE, {d.id: d for d in docs})
    return Dataset(name=name or root.resolve().name, documents=docs, queries=queries, skipped=skipped)


def load_corpus(path: str | os.PathLike[str]) -> Dataset:
    """A corpus without queries, from a dataset folder or its ``corpus.jsonl`` file itself."""
    path = Path(path)
    file = path / CORPUS_FILE if path.is_dir() else path
    if not file.is_file():
        raise EvalError(f"{path}: no corpus here; give a folder holding {CORPUS_FILE} or the file itself")
    name = path.name if path.is_dir() else path.parent.name or path.stem
    return Dataset(name, read_corpus(file), ())


# -- writing ----------------------------------------------------------------------------

def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write a sibling temporary file, then rename it over ``path``: readers never see half a file.

    The temporary file is opened normally (not with mkstemp) so the result gets the usual
    permissions from the umask.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        with tmp.open("x", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def _jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def write_dataset(dataset: Dataset, path: str | os.PathLike[str]) -> Path:
    """Write the normalised format into folder ``path`` (created if needed)."""
    root = Path(path)
    atomic_write_text(root / CORPUS_FILE, _jsonl([
        {"id": d.id, "title": d.title, "text": d.text, "format": d.format} for d in dataset.documents]))
    atomic_write_text(root / QUERIES_FILE, _jsonl([q.to_dict() for q in dataset.queries]))
    return root

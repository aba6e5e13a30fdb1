"""Import questions whose evidence is given as text, and locate that text in the corpus.

Accepted inputs:

- CSV with a header: a question column (``question`` or ``query``), an evidence column
  (``evidence``, ``evidence_text``, ``reference``, ``context`` or ``reference_context``), and
  optionally ``id``, ``doc_id`` and ``answer``. Rows sharing an ``id`` are one question with
  several evidence passages; an evidence cell holding a JSON list of strings is several too.
- JSONL with the same field names; ``evidence`` may be a string, a list of strings, or a list
  of ``{"text", "doc_id"}`` objects.
- LlamaIndex ``LabelledRagDataset`` JSON (``LabelledRagDataset.save_json``):
  ``{"examples": [{"query", "reference_contexts": [...], "reference_answer", ...}]}``.

Each passage is looked up exactly, then whitespace-normalised (see :mod:`.locate`). A question
is kept only when all its evidence is found, because scoring against part of the evidence
would overstate recall; every passage not found is listed in the :class:`ImportReport`.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import EvalError
from .dataset import Dataset, EvalQuery, Evidence, NewQueries, iter_jsonl
from .locate import Locator

QUESTION_KEYS = ("question", "query")
EVIDENCE_KEYS = ("evidence", "evidence_text", "reference", "context", "reference_context",
                 "reference_contexts")
DOC_KEYS = ("doc_id", "document", "doc")
ID_KEYS = ("id", "query_id", "question_id")
ANSWER_KEYS = ("answer", "reference_answer")


@dataclass(frozen=True, slots=True)
class Unlocated:
    """One evidence passage that was not found, with where it came from."""

    line: int
    query_id: str
    passage: str
    reason: str

    def describe(self, width: int = 70) -> str:
        p = " ".join(self.passage.split())
        p = p if len(p) <= width else p[: width - 1] + "…"
        return f"line {self.line}, {self.query_id}: {self.reason}: {p!r}"


@dataclass(frozen=True)
class ImportReport:
    source: str
    questions: int
    imported: int
    evidence: int
    exact: int
    whitespace: int
    #: Passages found in more than one place (the first occurrence was used).
    ambiguous: int
    unlocated: tuple[Unlocated, ...]
    #: Ids of questions left out, each because at least one passage is in ``unlocated``.
    dropped: tuple[str, ...]

    @property
    def not_found(self) -> int:
        return len(self.unlocated)

    def summary(self) -> str:
        s = (f"{self.source}: imported {self.imported} of {self.questions} questions; evidence "
             f"passages: {self.exact} found exactly, {self.whitespace} after normalising whitespace, "
             f"{self.not_found} not found")
        if self.ambiguous:
            s += f", {self.ambiguous} found in several places (first used)"
        if self.dropped:
            s += f". Left out {len(self.dropped)} question(s) whose evidence is not all in the corpus"
        return s + "."


@dataclass(frozen=True)
class ImportResult(NewQueries):
    report: ImportReport


@dataclass
class _Raw:
    """A question as read, before locating: passages are (text, doc_id or None)."""

    line: int
    id: str
    question: str
    answer: str | None
    passages: list[tuple[str, str | None]] = field(default_factory=list)


# -- readers ----------------------------------------------------------------------------

def _pick(row: dict[str, Any], keys: Iterable[str]) -> Any:
    for k in keys:
        v = row.get(k)
        if v is not None and v != "":
            return v
    return None


def _column(header: list[str], keys: tuple[str, ...]) -> str | None:
    return next((k for k in keys if k in header), None)


def _split_cell(cell: str) -> list[str]:
    """A cell holding a JSON list of strings is several passages; anything else is one."""
    s = cell.strip()
    if s.startswith("["):
        try:
            v = json.loads(s)
        except json.JSONDecodeError:
            return [cell]
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            return v
    return [cell]


def _read_csv(path: Path) -> list[_Raw]:
    with path.open(encoding="utf-8-sig", newline="") as f:
        reader = csv.DictReader(f)
        header = [h.strip().lower() for h in reader.fieldnames or []]
        reader.fieldnames = header
        qcol, ecol = _column(header, QUESTION_KEYS), _column(header, EVIDENCE_KEYS)
        if qcol is None or ecol is None:
            raise EvalError(
                f"{path}: the header has columns {header}; a question column ({' or '.join(QUESTION_KEYS)}) "
                f"and an evidence column ({' or '.join(EVIDENCE_KEYS)}) are needed")
        idcol, dcol, acol = (_column(header, k) for k in (ID_KEYS, DOC_KEYS, ANSWER_KEYS))
        rows: dict[str, _Raw] = {}
        line = 1
        for row in reader:
            start_line, line = line + 1, reader.line_num
            qid = ((row.get(idcol) or "").strip() if idcol else "") or f"q{start_line}"
            doc = (row.get(dcol) or "").strip() or None if dcol else None
            raw = _question(rows, start_line, qid, (row.get(qcol) or "").strip(),
                            (row.get(acol) or None) if acol else None, f"{path}, line {start_line}")
            raw.passages.extend((p, doc) for p in _split_cell(row.get(ecol) or "") if p.strip())
    return list(rows.values())


def _question(rows: dict[str, _Raw], line: int, qid: str, question: str, answer: str | None,
              where: str) -> _Raw:
    """The question ``qid``: new, or the one an earlier line began (lines sharing an id are one
    question with several passages)."""
    raw = rows.get(qid)
    if raw is None:
        raw = rows[qid] = _Raw(line, qid, question, answer)
    elif question and raw.question and question != raw.question:
        raise EvalError(f"{where}: id {qid!r} was used on line {raw.line} for another question; "
                        "rows sharing an id must ask the same question")
    return raw


def _passages(value: Any, doc: str | None, where: str) -> list[tuple[str, str | None]]:
    if value is None:
        return []
    if isinstance(value, str):
        return [(value, doc)]
    if isinstance(value, list):
        out: list[tuple[str, str | None]] = []
        for item in value:
            if isinstance(item, str):
                out.append((item, doc))
            elif isinstance(item, dict) and isinstance(item.get("text"), str):
                d = item.get("doc_id")
                out.append((item["text"], doc if d is None else str(d)))
            else:
                raise EvalError(f"{where}: an evidence item must be a string or {{\"text\", \"doc_id\"}}, "
                                f"got {item!r:.60}")
        return out
    raise EvalError(f"{where}: evidence must be a string or a list, got {type(value).__name__}")


def _read_jsonl(path: Path) -> list[_Raw]:
    rows: dict[str, _Raw] = {}
    for lineno, obj in iter_jsonl(path):
        where = f"{path}, line {lineno}"
        question = _pick(obj, QUESTION_KEYS)
        if question is not None and not isinstance(question, str):
            raise EvalError(f"{where}: the question must be a string, got {question!r:.60}")
        doc, answer = _pick(obj, DOC_KEYS), _pick(obj, ANSWER_KEYS)
        raw = _question(rows, lineno, str(_pick(obj, ID_KEYS) or f"q{lineno}"), (question or "").strip(),
                        None if answer is None else str(answer), where)
        raw.passages.extend(_passages(_pick(obj, EVIDENCE_KEYS), None if doc is None else str(doc), where))
    return list(rows.values())


def _read_llamaindex(path: Path) -> list[_Raw]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise EvalError(f"{path}: not valid JSON ({e.msg}, line {e.lineno})") from None
    examples = data.get("examples") if isinstance(data, dict) else None
    if not isinstance(examples, list):
        raise EvalError(f"{path}: not a LabelledRagDataset JSON (no \"examples\" list); save it with "
                        "LabelledRagDataset.save_json, or give a CSV or JSONL of questions")
    rows: list[_Raw] = []
    for i, ex in enumerate(examples):
        where = f"{path}, example {i}"
        if not isinstance(ex, dict) or not isinstance(ex.get("query"), str):
            raise EvalError(f"{where}: expected an object with a \"query\" string")
        contexts = ex.get("reference_contexts") or []
        answer = ex.get("reference_answer")
        # LlamaIndex examples have no line of their own; the example number stands in for it.
        raw = _Raw(i, f"llama-{i}", ex["query"].strip(),
                   answer if isinstance(answer, str) and answer else None)
        raw.passages.extend(_passages(contexts, None, where))
        rows.append(raw)
    return rows


#: The readers by format name.
READERS = {"csv": _read_csv, "jsonl": _read_jsonl, "llamaindex": _read_llamaindex}


def read_questions(path: str | os.PathLike[str], format: str | None = None) -> list[_Raw]:
    """The questions of a file, read as ``format`` (by the file's extension unless given)."""
    p = Path(path)
    if not p.is_file():
        raise EvalError(f"{p}: file not found")
    fmt = format or {".csv": "csv", ".jsonl": "jsonl", ".json": "llamaindex"}.get(p.suffix.lower())
    if fmt not in READERS:
        raise EvalError(f"{p}: cannot tell the format from the extension {p.suffix!r}; "
                        f"name it .csv, .jsonl or .json, or pass a format: {', '.join(READERS)}")
    return READERS[fmt](p)


# -- locating ---------------------------------------------------------------------------

def locate_questions(raws: list[_Raw], dataset: Dataset, source: str) -> ImportResult:
    locator = Locator(dataset.documents)
    queries: list[EvalQuery] = []
    unlocated: list[Unlocated] = []
    dropped: list[str] = []
    exact = whitespace = ambiguous = total = 0
    for raw in raws:
        missing: list[Unlocated] = []
        if not raw.question:
            missing.append(Unlocated(raw.line, raw.id, "", "the question is empty"))
        if not raw.passages:
            missing.append(Unlocated(raw.line, raw.id, "", "no evidence text given"))
        evidence: list[Evidence] = []
        for text, doc in raw.passages:
            total += 1
            if doc is not None and not locator.has(doc):
                missing.append(Unlocated(raw.line, raw.id, text, f"document {doc!r} is not in the corpus"))
                continue
            hit = locator.locate(text, doc)
            if hit is None:
                where = f"document {doc!r}" if doc is not None else "the corpus"
                missing.append(Unlocated(raw.line, raw.id, text, f"not found in {where}"))
                continue
            if hit.method == "exact":
                exact += 1
            else:
                whitespace += 1
            ambiguous += hit.also_found > 0
            ev = Evidence(hit.doc_id, hit.start, hit.end)
            if ev not in evidence:
                evidence.append(ev)
        if missing:
            unlocated.extend(missing)
            dropped.append(raw.id)
            continue
        queries.append(EvalQuery(id=raw.id, query=raw.question, evidence=tuple(evidence), answer=raw.answer))
    report = ImportReport(source=source, questions=len(raws), imported=len(queries), evidence=total,
                          exact=exact, whitespace=whitespace, ambiguous=ambiguous,
                          unlocated=tuple(unlocated), dropped=tuple(dropped))
    return ImportResult(tuple(queries), report)


def import_questions(path: str | os.PathLike[str], dataset: Dataset, *,
                     format: str | None = None) -> ImportResult:
    """Read questions with evidence text from ``path`` and locate the evidence in ``dataset``'s corpus."""
    return locate_questions(read_questions(path, format), dataset, str(path))

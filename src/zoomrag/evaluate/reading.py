"""Evaluation documents read as ``zoomrag index`` reads them: through the reader of their format.

``corpus.jsonl`` holds each document's own text (raw HTML for ``format: html``) and the evidence
offsets of ``queries.jsonl`` point into that text. An index, though, holds what the reader made
of it: HTML becomes a markdown-like rendering with blocks for the router, Markdown keeps its
text and gains blocks. :func:`read_dataset` reads every document with the same reader
(:func:`zoomrag.load.read_text`) and moves the evidence into the read text:

- the reader kept the text (plain text, Markdown, code, CSV): offsets are unchanged;
- the reader only normalised newlines (CRLF, a BOM): offsets shift by the characters removed;
- the reader rewrote the text (HTML): each evidence passage is rendered by the same reader and
  located in the document's rendering (exactly, then with whitespace forgiven), preferring the
  occurrence at the same relative position; failing that, its text with the tags stripped is.

Evidence that cannot be placed is never dropped silently: its query is left out and listed in
:attr:`Dataset.skipped` with the reason.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_left
from dataclasses import dataclass, replace

from ..errors import EvalError, ZoomragError
from ..load import read_text
from ..model import normalize_newlines
from .dataset import Dataset, EvalDocument, EvalQuery, Evidence, Skipped
from .locate import Locator

_TAG = re.compile(r"<[^>]*>")
_WORD = re.compile(r"\w+")
#: Passages longer than this many words are not matched word by word (the regex would be huge).
_MAX_WORDS = 400


@dataclass(frozen=True, slots=True)
class _Mapping:
    """How offsets of one raw document move into its read text."""

    kind: str  # "same", "newlines" or "located"
    #: For ``newlines``: raw offsets of the characters the reader removed, ascending.
    removed: tuple[int, ...] = ()

    def offset(self, raw: int) -> int:
        return raw - bisect_left(self.removed, raw)


def _removed_newline_chars(raw: str) -> tuple[int, ...]:
    out = [0] if raw.startswith("\ufeff") else []
    k = raw.find("\r\n")
    while k >= 0:
        out.append(k)  # the CR of a CRLF goes; a lone CR becomes LF in place
        k = raw.find("\r\n", k + 2)
    return tuple(out)


def read_document(doc: EvalDocument) -> tuple[EvalDocument, _Mapping]:
    """The document as its reader makes it (text, format and blocks), and how offsets move."""
    if doc.read:
        return doc, _Mapping("same")
    try:
        read = read_text(doc.text, format=doc.format, id=doc.id, source=doc.title or doc.id)
    except ZoomragError as e:
        raise EvalError(f"document {doc.id!r} (format {doc.format!r}): {e}") from None
    # the reader's format, as the index keeps it: a javadoc source page is read as code
    out = replace(doc, text=read.text, format=read.format, blocks=read.blocks, metadata=read.metadata, read=True)
    if read.text == doc.text:
        return out, _Mapping("same")
    if read.text == normalize_newlines(doc.text):
        return out, _Mapping("newlines", _removed_newline_chars(doc.text))
    return out, _Mapping("located")


def _fragments(raw: str, fmt: str) -> list[str]:
    """What an evidence passage of raw text looks like once read: candidates, best first."""
    out = []
    try:
        out.append(read_text(raw, format=fmt, id="evidence", source="evidence").text.strip())
    except ZoomragError:
        pass
    # A passage may start or end inside a tag: drop the broken pieces, then every tag.
    cut = raw
    first_lt, first_gt = cut.find("<"), cut.find(">")
    if first_gt >= 0 and (first_lt < 0 or first_gt < first_lt):
        cut = cut[first_gt + 1:]
    last_lt, last_gt = cut.rfind("<"), cut.rfind(">")
    if last_lt > last_gt:
        cut = cut[:last_lt]
    out.append(" ".join(html.unescape(_TAG.sub(" ", cut)).split()))
    return [f for f in dict.fromkeys(out) if f]


def _by_words(fragments: list[str], text: str, near: int) -> tuple[int, int] | None:
    """The passage's words in order with only punctuation and space between them (a table row
    rendered as ``| Tom | 3 |``), the occurrence nearest ``near``."""
    if not fragments:
        return None
    words = _WORD.findall(fragments[0])
    if not words or len(words) > _MAX_WORDS:
        return None
    pattern = re.compile(r"[\W_]+".join(map(re.escape, words)))
    best = None
    for m in pattern.finditer(text):
        if best is None or abs(m.start() - near) < abs(best[0] - near):
            best = (m.start(), m.end())
    return best


def read_dataset(dataset: Dataset) -> Dataset:
    """``dataset`` with every document read by its format's reader and the evidence moved into
    the read text. Queries whose evidence cannot be placed are left out and listed in ``skipped``.
    """
    if all(d.read for d in dataset.documents):
        return dataset
    raw = {d.id: d for d in dataset.documents}
    docs: list[EvalDocument] = []
    maps: dict[str, _Mapping] = {}
    for d in dataset.documents:
        read, mapping = read_document(d)
        docs.append(read)
        maps[d.id] = mapping
    locator = Locator(docs)
    read_by_id = {d.id: d for d in docs}
    kept: list[EvalQuery] = []
    skipped = list(dataset.skipped)
    for q in dataset.queries:
        moved: list[Evidence] = []
        problem = None
        for ev in q.evidence:
            m = maps[ev.doc_id]
            if m.kind == "same":
                moved.append(ev)
                continue
            if m.kind == "newlines":
                s, e = m.offset(ev.start), m.offset(ev.end)
                if s < e:
                    moved.append(Evidence(ev.doc_id, s, e))
                    continue
                problem = f"evidence [{ev.start}, {ev.end}) in {ev.doc_id!r} holds only removed characters"
                break
            src, dst = raw[ev.doc_id], read_by_id[ev.doc_id]
            near = round(ev.start * len(dst.text) / max(1, len(src.text)))
            fragments = _fragments(src.text[ev.start:ev.end], src.format)
            hit = next(filter(None, (locator.locate(f, ev.doc_id, near=near) for f in fragments)), None)
            span = (hit.start, hit.end) if hit is not None else _by_words(fragments[-1:], dst.text, near)
            if span is None:
                problem = (f"evidence [{ev.start}, {ev.end}) of {ev.doc_id!r} is not in the text its "
                           f"{src.format} reader makes of the document (it may lie in markup that is "
                           "not rendered); give evidence in the rendered text")
                break
            moved.append(Evidence(ev.doc_id, *span))
        if problem is None:
            kept.append(replace(q, evidence=tuple(moved)))
        else:
            skipped.append(Skipped(0, q.id, problem))
    if not kept:
        first = skipped[-1].reason if skipped else "no queries"
        raise EvalError(f"dataset {dataset.name!r}: no query's evidence could be placed in the read "
                        f"documents (first: {first})")
    return Dataset(dataset.name, tuple(docs), tuple(kept), tuple(skipped))

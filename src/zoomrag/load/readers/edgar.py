"""EDGAR submissions: a filing as the SEC disseminates it, one ``.txt`` holding all its documents.

A filing downloaded whole (EDGAR's ``0000320193-23-000106.txt``, sec-edgar-downloader's
``full-submission.txt``, a feed's ``.nc``) is an SGML envelope: a header of the filer, form and
dates, then each document between ``<DOCUMENT>`` and ``</DOCUMENT>``, its ``<TYPE>``,
``<FILENAME>`` and ``<DESCRIPTION>`` over its ``<TEXT>`` — the form's HTML, each exhibit's, but
also pictures, PDFs and workbooks uuencoded as lines of text, and XBRL's schemas and linkbases.
Read as plain text, the encoded files fill an index with lines of noise and the form's HTML is
tags.

Here the filing is titled by its filer and form (``Apple Inc. — 10-K, period 2023-09-30``), and
each document of text is a section titled by its type and description (``EX-21.1 — Subsidiaries
of the Registrant``) over the document read as the HTML reader reads a page (so a 10-K's parts
and items are its titles) or as the plain text it is (its ``PART I`` and ``ITEM 1.`` lines as
titles: filings before 2001 are text). Encoded files and XBRL's machinery are
not text: they are left out and named in the metadata (``not_text``). The header's facts are
metadata: ``company``, ``cik``, ``form``, ``period``, ``filed``, ``accession``.
"""

from __future__ import annotations

import re
from types import MappingProxyType

from ...model import Block, Document
from ...text.markers import NAMED, PLAIN, marker_rank
from ..spans import line_end, paragraph_spans
from .filing import filing_title
from .html import render_html
from .properties import iso_date

__all__ = ["is_submission", "read_submission"]

_ENVELOPE = re.compile(r"^<(?:SEC-DOCUMENT|IMS-DOCUMENT|SEC-HEADER)>|^<DOCUMENT>\s*\n<TYPE>", re.M)
_DOCUMENT = re.compile(r"<DOCUMENT>(.*?)(?:</DOCUMENT>|\Z)", re.S)
_FIELD = re.compile(r"^<(TYPE|SEQUENCE|FILENAME|DESCRIPTION)>[ \t]*([^\n<]*)", re.M)
_TEXT = re.compile(r"<TEXT>\n?(.*?)(?:</TEXT>|\Z)", re.S)
_WRAPPER = re.compile(r"^\s*<(XBRL|XML|PDF)>\s*\n?(.*?)\s*(?:</\1>\s*)?$", re.S | re.I)
_UUENCODED = re.compile(r"^begin [0-7]{3,4} \S", re.M)
_HEADER = re.compile(r"^[ \t]*([A-Z][A-Z .'-]+?):[ \t]+(\S[^\n]*)$", re.M)
_HTML = re.compile(r"<(?:html|body|div|p|table)\b", re.I)
#: Types whose text is XBRL's, a picture's or an archive's, not a reader's.
_NOT_TEXT_TYPES = re.compile(r"^(?:EX-101\.|GRAPHIC|ZIP|EXCEL|PDF|XML|JSON)", re.I)
#: How long a plain-text filing's part or item line may be.
_MAX_TITLE = 100
_HEAD_FACTS = {
    "COMPANY CONFORMED NAME": "company", "CENTRAL INDEX KEY": "cik",
    "CONFORMED SUBMISSION TYPE": "form", "CONFORMED PERIOD OF REPORT": "period",
    "FILED AS OF DATE": "filed", "ACCESSION NUMBER": "accession",
}


def is_submission(text: str) -> bool:
    """Whether ``text`` is an EDGAR submission's envelope (looked for in its first lines only)."""
    return _ENVELOPE.search(text, 0, 4096) is not None


def _facts(header: str) -> dict[str, str]:
    facts: dict[str, str] = {}
    for m in _HEADER.finditer(header):
        key = _HEAD_FACTS.get(m.group(1).strip())
        if key and key not in facts:  # the first filer's, not a subject company's
            value = m.group(2).strip()
            facts[key] = iso_date(value) if key in ("period", "filed") else value
    return facts


def _deeper(text: str, blocks: list[Block], by: int) -> tuple[str, list[Block]]:
    """A document's rendering with every heading ``by`` levels down (``#`` added, to six at
    most), under its title."""
    parts: list[str] = []
    moved: list[Block] = []
    pos = shift = 0
    for b in blocks:
        if b.type == "heading" and (add := min(b.level + by, 6) - b.level) > 0:
            parts.append(text[pos:b.start] + "#" * add)
            pos = b.start
            moved.append(Block(b.start + shift, b.end + shift + add, b.type, b.level + add, b.meta))
            shift += add
        else:
            moved.append(Block(b.start + shift, b.end + shift, b.type, b.level, b.meta))
    parts.append(text[pos:])
    return "".join(parts), moved


def _text_document(text: str) -> tuple[str, list[Block]]:
    """A document of plain text (a filing from before HTML, an exhibit), its paragraphs, and its
    parts and items as headings: a line of its own, between blank lines, opened by ``PART II``,
    ``ITEM 7.``, ``ARTICLE IV`` or ``Section 2.1`` and not running on as a sentence; levels by
    their rank, ``#`` written before them as the HTML documents' headings are."""
    found: list[tuple[int, int, tuple[int, int]]] = []
    for ls, m in PLAIN.finditer(text):
        le = line_end(text, ls)
        rest = text[m.end():le].strip()
        family = m.lastgroup or ""
        if (family in NAMED and le - ls <= _MAX_TITLE and not rest[:1].islower()
                and (ls == 0 or text[max(0, ls - 2):ls] == "\n\n") and (le + 1 >= len(text) or text[le + 1] == "\n")
                and (rank := marker_rank(text[ls:le].strip())) is not None):
            found.append((ls, le, rank))
    levels = {r: i + 1 for i, r in enumerate(sorted({r for _, _, r in found}))}
    parts: list[str] = []
    pos = 0
    heads: list[tuple[int, int, int]] = []  # start, end, level in the new text
    at = 0
    for ls, le, rank in found:
        parts.append(text[pos:ls])
        at += ls - pos
        line = "#" * min(levels[rank], 6) + " " + " ".join(text[ls:le].split())
        heads.append((at, at + len(line), min(levels[rank], 6)))
        parts.append(line)
        at += len(line)
        pos = le
    parts.append(text[pos:])
    out = "".join(parts)
    starts = {s: (e, lv) for s, e, lv in heads}
    blocks = [Block(a, starts[a][0], "heading", starts[a][1]) if a in starts else Block(a, b, "text")
              for a, b in paragraph_spans(out, 0, len(out))]
    return out, blocks


def read_submission(text: str, *, doc_id: str, source: str) -> Document:
    """The filing in ``text``: its documents of text as sections under its title."""
    first = text.find("<DOCUMENT>")
    facts = _facts(text[:first] if first >= 0 else text[:20000])
    parts: list[str] = []
    blocks: list[Block] = []
    at = 0
    not_text: list[str] = []

    def put(body: str, body_blocks: list[Block]) -> None:
        nonlocal at
        if parts:
            parts.append("\n\n")
            at += 2
        parts.append(body)
        blocks.extend(Block(b.start + at, b.end + at, b.type, b.level, b.meta) for b in body_blocks)
        at += len(body)

    title = filing_title(facts)
    if title:
        put(f"# {title}", [Block(0, len(title) + 2, "heading", 1)])
    base = 2 if title else 1
    for m in _DOCUMENT.finditer(text, max(first, 0)):
        fields = {k: v.strip() for k, v in _FIELD.findall(m.group(1)[:2000])}
        kind = fields.get("TYPE", "")
        name = fields.get("FILENAME") or kind or "document"
        body_m = _TEXT.search(m.group(1))
        body = body_m.group(1) if body_m else ""
        wrapped = _WRAPPER.match(body)
        if wrapped is not None:
            body = wrapped.group(2) if wrapped.group(1).upper() == "XBRL" and _HTML.search(wrapped.group(2)) else ""
        if not body.strip() or _NOT_TEXT_TYPES.match(kind) or _UUENCODED.search(body, 0, 2000):
            not_text.append(f"{name} ({kind})" if kind and kind != name else name)
            continue
        if _HTML.search(body, 0, 5000):
            rendered, inner, _ = render_html(body)
            rendered = rendered.rstrip("\n")
        else:
            rendered, inner = _text_document(body.strip("\n"))
        if not rendered.strip():
            continue
        description = fields.get("DESCRIPTION", "")
        heading = " — ".join(p for p in (kind, description if description.upper() != kind.upper() else "") if p)
        line = "#" * base + " " + (heading or name)
        rendered, inner = _deeper(rendered, inner, base)
        put(line + "\n\n" + rendered, [Block(0, len(line), "heading", base)]
            + [Block(b.start + len(line) + 2, b.end + len(line) + 2, b.type, b.level, b.meta) for b in inner])
    meta: dict[str, object] = {"title": title or None, **facts}
    if not_text:
        meta["not_text"] = not_text
    return Document(id=doc_id, source=source, text="".join(parts) + "\n" if parts else "", format="edgar",
                    metadata=MappingProxyType(meta), blocks=tuple(blocks))

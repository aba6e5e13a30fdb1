"""The checks of ``zoomrag check`` that the SQLite and PostgreSQL stores share: the shape of the
nodes' tree (in SQL), each document's text against its length and content hash, and every
vector. Each store adds the checks of its own columns (kinds, FTS rows, terms)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from ..model import content_hash
from .vectors import blob_matrix, valid_rows

#: A content hash that is a sha256 digest (other hashes, given by a caller, are not checked).
_SHA256 = re.compile(r"[0-9a-f]{64}")


def tree_checks(row: str) -> list[tuple[str, str]]:
    """``(what is wrong, SQL that counts where)`` for the nodes' tree; ``row``: the column of a
    node's row number."""
    return [
        ("nodes belong to no document", "SELECT count(*) FROM nodes WHERE doc NOT IN (SELECT key FROM documents)"),
        ("documents have no root node at their first row",
         f"SELECT count(*) FROM documents d WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.{row} = d.first_row "
         "AND n.doc = d.key AND n.parent IS NULL AND n.level = 0 AND n.span_start = 0 AND n.span_end = d.chars)"),
        ("nodes lie outside their document's rows",
         "SELECT count(*) FROM nodes n JOIN documents d ON d.key = n.doc "
         f"WHERE n.{row} < d.first_row OR n.{row} >= d.first_row + d.node_count"),
        ("documents have a node count that differs from their nodes",
         "SELECT count(*) FROM documents d LEFT JOIN (SELECT doc, count(*) AS n FROM nodes GROUP BY doc) g "
         "ON g.doc = d.key WHERE coalesce(g.n, 0) != d.node_count"),
        ("nodes have a span outside their document's text",
         "SELECT count(*) FROM nodes n JOIN documents d ON d.key = n.doc "
         "WHERE n.span_start < 0 OR n.span_end < n.span_start OR n.span_end > d.chars"),
        ("nodes point to a missing parent",
         "SELECT count(*) FROM nodes c WHERE c.parent IS NOT NULL AND NOT EXISTS "
         f"(SELECT 1 FROM nodes p WHERE p.{row} = c.parent)"),
        ("nodes lie outside their parent (span, level or document)",
         f"SELECT count(*) FROM nodes c JOIN nodes p ON p.{row} = c.parent WHERE c.doc != p.doc "
         f"OR c.level != p.level + 1 OR c.span_start < p.span_start OR c.span_end > p.span_end OR p.{row} >= c.{row}"),
    ]


#: Metadata rows are checked the same way in both stores.
META_ROWS_CHECK = ("metadata rows belong to no document",
                   "SELECT count(*) FROM doc_meta WHERE doc NOT IN (SELECT key FROM documents)")


def counted(checks: Iterable[tuple[str, str]], count: Callable[[str], int]) -> list[str]:
    """``"N what"`` for each check whose SQL counts N > 0 (``count`` runs one statement)."""
    out = []
    for what, sql in checks:
        n = count(sql)
        if n:
            out.append(f"{n} {what}")
    return out


def unit_chars_problems(stored: int, actual: int) -> list[str]:
    return [] if stored == actual else [f"index_meta unit_chars is {stored}, the units hold {actual} characters"]


def text_damaged(text: str, chars: int, stored: str) -> bool:
    """Whether a document's text is not its stored length, or not its content hash."""
    return len(text) != chars or (_SHA256.fullmatch(stored) is not None and content_hash(text) != stored)


def damaged_texts(bad: Sequence[str]) -> list[str]:
    """The problem of the documents whose text is damaged (their ids)."""
    return [f"{len(bad)} documents have damaged text (first: {bad[0]!r})"] if bad else []


def vector_problems(batches: Iterable[Sequence[object]], dimension: int | None) -> list[str]:
    """Each stored vector (read in batches): ``dimension`` float32 values, finite, of unit length
    (or all zero); nothing is checked without a dimension."""
    if dimension is None:
        return []
    size = int(dimension) * 4
    wrong = bad = 0
    for blobs in batches:
        good = [v for v in blobs if isinstance(v, bytes) and len(v) == size]
        wrong += len(blobs) - len(good)
        if good:
            bad += int((~valid_rows(blob_matrix(good, dimension))).sum())
    out = []
    if wrong:
        out.append(f"{wrong} vectors are not {dimension} float32 values")
    if bad:
        out.append(f"{bad} vectors are damaged (values not finite, or not of unit length)")
    return out

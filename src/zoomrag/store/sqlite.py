"""The default store: one SQLite file (WAL) holding documents, nodes, vectors and FTS.

One handle owns the connection. Every write happens inside :meth:`SqliteStore.transaction`
(``BEGIN IMMEDIATE``), one document per transaction, so a process killed at any moment leaves
either the old or the new version of a document, never half of one. Each write also bumps a
``generation`` counter in ``index_meta``; readers compare it to know when their cached vector
matrix or ANN index is stale.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import numpy as np

from ..errors import IndexLockedError, StoreError
from ..model import Document, Node, Tree, node_id
from . import fts
from .schema import DDL

#: SQLite caps the number of ``?`` in one statement; look-ups go in chunks of this size.
_CHUNK = 500


@dataclass(frozen=True, slots=True)
class DocumentRow:
    """A stored document without its text."""

    id: str
    source: str
    content_hash: str
    format: str
    origin: str
    length: int


@dataclass(frozen=True, slots=True)
class UnitRow:
    """Where an embedded unit lies: enough to turn a search result into a Hit."""

    node_id: str
    doc_id: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class UnitToWrite:
    """An embedded unit of a tree being written, with its vector key (None: no vector)."""

    node: Node
    vec_key: int | None


class SqliteStore:
    """The index file. Not thread-safe: one store object per thread."""

    def __init__(self, path: str | Path, *, timeout: float = 5.0, create: bool = True):
        self.path = Path(path)
        if not create and not self.path.exists():
            raise StoreError(
                f"{self.path}: no index here; build one with: zoomrag index PATH... --index {self.path}"
            )
        if create:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.conn = sqlite3.connect(
                self.path, timeout=timeout, isolation_level=None, check_same_thread=False
            )
            self.conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            self.conn.execute("PRAGMA journal_mode = WAL")
            # NORMAL in WAL mode: a power cut may lose the last commits, never consistency.
            self.conn.execute("PRAGMA synchronous = NORMAL")
            tables = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if tables and "index_meta" not in tables:
                raise StoreError(
                    f"{self.path}: an SQLite file but not a zoomrag index; choose another file with --index"
                )
            if create:
                with self._translate_errors("create the tables"):
                    self.conn.executescript(DDL)
                    self.conn.execute(
                        "INSERT OR IGNORE INTO index_meta(key, value) VALUES ('generation', '0')"
                    )
        except sqlite3.DatabaseError as e:
            self.conn.close()
            raise StoreError(
                f"{self.path}: not a zoomrag index or damaged ({e}); move it away and rebuild with "
                f"zoomrag index --reindex PATH... --index {self.path}"
            ) from None

    def close(self) -> None:
        self.conn.close()

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the file and truncate it (best effort: readers may hold it)."""
        try:
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.OperationalError:
            pass

    # -- transactions -------------------------------------------------------------------
    @contextmanager
    def _translate_errors(self, what: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.OperationalError as e:
            if "locked" in str(e) or "busy" in str(e):
                raise IndexLockedError(
                    f"{self.path}: could not {what}, another process holds the write lock ({e}); "
                    "wait for it to finish and run again"
                ) from None
            raise StoreError(f"{self.path}: could not {what}: {e}") from None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``; rolled back on any exception."""
        with self._translate_errors("start a write"):
            self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
            self.conn.execute(
                "UPDATE index_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'"
            )
            with self._translate_errors("commit"):
                self.conn.execute("COMMIT")
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise

    # -- meta ---------------------------------------------------------------------------
    def meta(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT key, value FROM index_meta"))

    def set_meta(self, values: Mapping[str, str]) -> None:
        """Write pins (inside the caller's transaction when there is one)."""
        self.conn.executemany(
            "INSERT INTO index_meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            list(values.items()),
        )

    def generation(self) -> int:
        row = self.conn.execute("SELECT value FROM index_meta WHERE key = 'generation'").fetchone()
        return int(row[0]) if row else 0

    # -- documents ----------------------------------------------------------------------
    def document_hashes(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT id, content_hash FROM documents"))

    def documents(self) -> list[DocumentRow]:
        rows = self.conn.execute(
            "SELECT id, source, content_hash, format, origin, chars FROM documents ORDER BY id"
        )
        return [DocumentRow(*r) for r in rows]

    def find_document(self, ref: str) -> str | None:
        """The id of the document whose id or source is ``ref``."""
        row = self.conn.execute(
            "SELECT id FROM documents WHERE id = ? UNION ALL "
            "SELECT id FROM documents WHERE source = ? LIMIT 1", (ref, ref)
        ).fetchone()
        return row[0] if row else None

    def load_document(self, doc_id: str) -> Document:
        docs = self._documents_by_id([doc_id])
        if doc_id not in docs:
            raise StoreError(f"{self.path}: no document {doc_id!r}; list them with: zoomrag stats")
        return docs[doc_id][1]

    def _documents_by_id(self, doc_ids: Sequence[str]) -> dict[str, tuple[int, Document]]:
        out: dict[str, tuple[int, Document]] = {}
        for i in range(0, len(doc_ids), _CHUNK):
            part = list(doc_ids[i:i + _CHUNK])
            rows = self.conn.execute(
                "SELECT key, id, source, content_hash, format, metadata, text FROM documents "
                f"WHERE id IN ({','.join('?' * len(part))})", part,
            )
            for key, doc_id, source, chash, fmt, meta, text in rows:
                out[doc_id] = (key, Document(id=doc_id, source=source, text=text, format=fmt, content_hash=chash,
                                             metadata=MappingProxyType(json.loads(meta))))
        return out

    def content_hashes(self, doc_ids: Sequence[str]) -> dict[str, str]:
        """The current content hash of each of these documents (absent ones are left out)."""
        out: dict[str, str] = {}
        for i in range(0, len(doc_ids), _CHUNK):
            part = list(doc_ids[i:i + _CHUNK])
            out.update(self.conn.execute(
                f"SELECT id, content_hash FROM documents WHERE id IN ({','.join('?' * len(part))})", part))
        return out

    def load_tree(self, doc_id: str) -> Tree:
        """The stored tree of one document, rebuilt exactly as it was written."""
        trees = self.load_trees([doc_id])
        if doc_id not in trees:
            raise StoreError(f"{self.path}: no document {doc_id!r}; list them with: zoomrag stats")
        return trees[doc_id]

    def load_trees(self, doc_ids: Sequence[str]) -> dict[str, Tree]:
        """Trees of several documents with two queries (documents absent from the store are left out)."""
        docs = self._documents_by_id(list(dict.fromkeys(doc_ids)))
        by_key = {key: doc for key, doc in docs.values()}
        rows_of: dict[int, list[tuple]] = {k: [] for k in by_key}
        keys = list(by_key)
        for i in range(0, len(keys), _CHUNK):
            part = keys[i:i + _CHUNK]
            for r in self.conn.execute(
                "SELECT doc, row, parent, level, kind, span_start, span_end, section_path, embed_text "
                f"FROM nodes WHERE doc IN ({','.join('?' * len(part))}) ORDER BY doc, ord", part,
            ):
                rows_of[r[0]].append(r[1:])
        return {doc.id: _tree(doc, rows_of[key]) for key, doc in by_key.items()}

    def write_document(self, tree: Tree, units: Sequence[UnitToWrite], vectors: Mapping[int, bytes],
                       origin: str, node_vectors: Mapping[str, int] | None = None) -> None:
        """Replace (or add) one document, its nodes, FTS rows and new vectors: one transaction.

        ``node_vectors`` gives vector keys to nodes that are not units (upper levels searched by
        dense search only, see :mod:`zoomrag.expand.multilevel`).
        """
        doc = tree.document
        with self.transaction() as c:
            row = c.execute("SELECT key FROM documents WHERE id = ?", (doc.id,)).fetchone()
            meta = json.dumps(dict(doc.metadata), ensure_ascii=False, default=str)
            if row is not None:
                key = row[0]
                self._delete_rows(key)
                c.execute(
                    "UPDATE documents SET source = ?, content_hash = ?, format = ?, origin = ?, "
                    "metadata = ?, text = ?, chars = ? WHERE key = ?",
                    (doc.source, doc.content_hash, doc.format, origin, meta, doc.text, len(doc.text), key),
                )
            else:
                cur = c.execute(
                    "INSERT INTO documents(id, source, content_hash, format, origin, metadata, text, chars) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (doc.id, doc.source, doc.content_hash, doc.format, origin, meta, doc.text, len(doc.text)),
                )
                key = cur.lastrowid
            c.executemany("INSERT OR IGNORE INTO vectors(key, vec) VALUES (?, ?)", list(vectors.items()))
            # Rows are numbered here, inside the write lock, so parents can point at them directly.
            base = c.execute("SELECT coalesce(max(row), 0) + 1 FROM nodes").fetchone()[0]
            row_of = {n.id: base + i for i, n in enumerate(tree.nodes)}
            by_id = {n.id: n for n in tree.nodes}
            vec_of = {u.node.id: u.vec_key for u in units}
            upper = dict(node_vectors or {})
            rows = []
            for i, n in enumerate(tree.nodes):
                parent = by_id[n.parent_id] if n.parent_id is not None else None
                inherited = parent.section_path if parent is not None else ()
                sp = None if n.section_path == inherited else json.dumps(list(n.section_path),
                                                                         ensure_ascii=False)
                rows.append((
                    base + i, key, None if parent is None else row_of[parent.id], i, n.level, n.kind,
                    n.start, n.end, sp, n.embed_text, 1 if n.id in vec_of else 0, vec_of.get(n.id, upper.get(n.id)),
                ))
            c.executemany(
                "INSERT INTO nodes(row, doc, parent, ord, level, kind, span_start, span_end, "
                "section_path, embed_text, unit, vec) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            c.executemany(
                "INSERT INTO fts(rowid, body) VALUES (?, ?)",
                [(row_of[u.node.id], fts.body(_unit_text(u.node, doc.text))) for u in units],
            )

    def delete_document(self, doc_id: str) -> bool:
        with self.transaction() as c:
            row = c.execute("SELECT key FROM documents WHERE id = ?", (doc_id,)).fetchone()
            if row is None:
                return False
            self._delete_rows(row[0])
            c.execute("DELETE FROM documents WHERE key = ?", (row[0],))
            return True

    def _delete_rows(self, key: int) -> None:
        """Nodes and FTS rows of one document (inside a transaction)."""
        c = self.conn
        (text,) = c.execute("SELECT text FROM documents WHERE key = ?", (key,)).fetchone()
        units = c.execute(
            "SELECT row, span_start, span_end, embed_text FROM nodes WHERE doc = ? AND unit = 1", (key,)
        ).fetchall()
        # A contentless FTS row is deleted by replaying the exact body that was inserted.
        c.executemany(
            "INSERT INTO fts(fts, rowid, body) VALUES ('delete', ?, ?)",
            [(nid, fts.body(et if et is not None else text[s:e])) for nid, s, e, et in units],
        )
        c.execute("DELETE FROM nodes WHERE doc = ?", (key,))

    def clear(self, *, keep_vectors: bool) -> None:
        """Remove every document (for a rebuild); vectors stay as a cache when still valid."""
        with self.transaction() as c:
            c.execute("INSERT INTO fts(fts) VALUES ('delete-all')")
            c.execute("DELETE FROM nodes")
            c.execute("DELETE FROM documents")
            if not keep_vectors:
                c.execute("DELETE FROM vectors")

    # -- vectors ------------------------------------------------------------------------
    def vector_keys_present(self, keys: Iterable[int]) -> set[int]:
        found: set[int] = set()
        keys = list(dict.fromkeys(keys))
        for i in range(0, len(keys), _CHUNK):
            part = keys[i:i + _CHUNK]
            q = f"SELECT key FROM vectors WHERE key IN ({','.join('?' * len(part))})"
            found.update(k for (k,) in self.conn.execute(q, part))
        return found

    def vectors_by_key(self, keys: Iterable[int]) -> dict[int, bytes]:
        out: dict[int, bytes] = {}
        keys = list(dict.fromkeys(keys))
        for i in range(0, len(keys), _CHUNK):
            part = keys[i:i + _CHUNK]
            q = f"SELECT key, vec FROM vectors WHERE key IN ({','.join('?' * len(part))})"
            out.update(self.conn.execute(q, part))
        return out

    def put_vectors(self, items: Mapping[int, bytes]) -> None:
        with self.transaction() as c:
            c.executemany("INSERT OR IGNORE INTO vectors(key, vec) VALUES (?, ?)", list(items.items()))

    def unit_matrix(self, dimension: int) -> tuple[np.ndarray, np.ndarray]:
        """``(node rows int64, float32 matrix)`` of every unit that has a vector, by row."""
        rows = self.conn.execute(
            "SELECT n.row, v.vec FROM nodes n JOIN vectors v ON v.key = n.vec ORDER BY n.row"
        ).fetchall()
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        if not rows:
            return ids, np.zeros((0, dimension), dtype=np.float32)
        mat = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4")
        if mat.size != len(rows) * dimension:
            raise StoreError(
                f"{self.path}: stored vectors do not have dimension {dimension}; run zoomrag check, "
                "then rebuild with zoomrag index --reindex PATH..."
            )
        return ids, mat.reshape(len(rows), dimension).astype(np.float32, copy=False)

    def drop_unused_vectors(self) -> int:
        """Delete cached vectors no unit refers to; returns how many."""
        with self.transaction() as c:
            cur = c.execute("DELETE FROM vectors WHERE key NOT IN (SELECT vec FROM nodes WHERE vec IS NOT NULL)")
            return cur.rowcount

    # -- units and search ---------------------------------------------------------------
    def units(self, rows: Iterable[int]) -> dict[int, UnitRow]:
        """Where the units with these node rows lie (rows not found are left out)."""
        out: dict[int, UnitRow] = {}
        rows = list(dict.fromkeys(rows))
        for i in range(0, len(rows), _CHUNK):
            part = rows[i:i + _CHUNK]
            q = (
                "SELECT n.row, d.id, n.kind, n.level, n.span_start, n.span_end FROM nodes n JOIN documents d "
                f"ON d.key = n.doc WHERE n.row IN ({','.join('?' * len(part))})"
            )
            for row, doc_id, kind, level, s, e in self.conn.execute(q, part):
                out[row] = UnitRow(node_id(doc_id, kind, level, s, e), doc_id, s, e)
        return out

    def unit_count(self) -> int:
        return self.conn.execute("SELECT count(*) FROM nodes WHERE unit = 1").fetchone()[0]

    def fts_search(self, match: str, limit: int) -> list[tuple[int, float]]:
        """``(node row, bm25)`` best first; FTS5's bm25 is negative, lower is better."""
        return self.conn.execute(
            "SELECT rowid, bm25(fts) FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT ?",
            (match, limit),
        ).fetchall()

    def term_frequencies(self, terms: Iterable[str]) -> dict[str, int]:
        """How many units contain each term (as the FTS tokenizer sees it)."""
        out: dict[str, int] = {}
        for t in dict.fromkeys(terms):
            row = self.conn.execute("SELECT doc FROM fts_vocab WHERE term = ?", (t,)).fetchone()
            out[t] = row[0] if row else 0
        return out

    # -- sizes and consistency ----------------------------------------------------------
    def table_bytes(self) -> dict[str, int]:
        """Bytes on disk per table and index (through the dbstat virtual table)."""
        try:
            rows = self.conn.execute(
                "SELECT name, sum(pgsize) FROM dbstat GROUP BY name"
            ).fetchall()
        except sqlite3.OperationalError:
            return {}
        return {name: int(size) for name, size in rows}

    def counts(self) -> dict[str, int]:
        c = self.conn
        return {
            "documents": c.execute("SELECT count(*) FROM documents").fetchone()[0],
            "characters": c.execute("SELECT coalesce(sum(chars), 0) FROM documents").fetchone()[0],
            "nodes": c.execute("SELECT count(*) FROM nodes").fetchone()[0],
            "units": c.execute("SELECT count(*) FROM nodes WHERE unit = 1").fetchone()[0],
            "embedded": c.execute("SELECT count(*) FROM nodes WHERE vec IS NOT NULL").fetchone()[0],
            "vectors": c.execute("SELECT count(*) FROM vectors").fetchone()[0],
        }

    def problems(self, dimension: int | None) -> list[str]:
        """Everything that breaks the store's invariants, as readable sentences."""
        c = self.conn
        out: list[str] = []
        quick = [r[0] for r in c.execute("PRAGMA quick_check")]
        if quick != ["ok"]:
            out.append("SQLite quick_check: " + "; ".join(quick[:5]))
            return out
        try:
            c.execute("INSERT INTO fts(fts, rank) VALUES ('integrity-check', 0)")
        except sqlite3.DatabaseError as e:
            if "locked" not in str(e) and "busy" not in str(e):
                out.append(f"full-text index damaged: {e}")
        checks = [
            ("nodes belong to no document",
             "SELECT count(*) FROM nodes WHERE doc NOT IN (SELECT key FROM documents)"),
            ("documents have no root node",
             "SELECT count(*) FROM documents WHERE key NOT IN (SELECT doc FROM nodes WHERE parent IS NULL)"),
            ("nodes have a span outside their document's text",
             ("SELECT count(*) FROM nodes n JOIN documents d ON d.key = n.doc "
              "WHERE n.span_start < 0 OR n.span_end < n.span_start OR n.span_end > d.chars")),
            ("nodes point to a missing parent",
             ("SELECT count(*) FROM nodes c WHERE c.parent IS NOT NULL "
              "AND NOT EXISTS (SELECT 1 FROM nodes p WHERE p.row = c.parent)")),
            ("units point to a missing vector",
             "SELECT count(*) FROM nodes WHERE vec IS NOT NULL AND vec NOT IN (SELECT key FROM vectors)"),
        ]
        if dimension is not None:
            checks.append((f"vectors are not {dimension} float32 values",
                           f"SELECT count(*) FROM vectors WHERE length(vec) != {int(dimension) * 4}"))
        for what, sql in checks:
            n = c.execute(sql).fetchone()[0]
            if n:
                out.append(f"{n} {what}")
        units = c.execute("SELECT count(*) FROM nodes WHERE unit = 1").fetchone()[0]
        rows = c.execute("SELECT count(*) FROM fts").fetchone()[0]
        if units != rows:
            out.append(f"full-text index has {rows} rows for {units} units")
        return out


def _tree(doc: Document, rows: list[tuple]) -> Tree:
    """A Tree from a document's node rows in pre-order (row, parent, level, kind, start, end, path, embed)."""
    doc_id, text = doc.id, doc.text
    ids = {r[0]: node_id(doc_id, r[3], r[2], r[4], r[5]) for r in rows}
    children: dict[int, list[str]] = {}
    for row, parent, *_ in rows:
        if parent is not None:
            children.setdefault(parent, []).append(ids[row])
    paths: dict[int, tuple[str, ...]] = {}
    nodes = []
    for row, parent, level, kind, start, end, sp, embed_text in rows:
        path = tuple(json.loads(sp)) if sp is not None else paths.get(parent, ())
        paths[row] = path
        nodes.append(Node(
            id=ids[row], doc_id=doc_id, kind=kind, level=level, start=start, end=end,
            parent_id=None if parent is None else ids[parent], children=tuple(children.get(row, ())),
            section_path=path, embed_text=embed_text, doc_text=text,
        ))
    return Tree(document=doc, nodes=tuple(nodes), strategy="")


def _unit_text(node: Node, text: str) -> str:
    return node.embed_text if node.embed_text is not None else text[node.start:node.end]


def unit_text(node: Node) -> str:
    """What is embedded and full-text indexed for a unit."""
    return node.embed_text if node.embed_text is not None else node.text

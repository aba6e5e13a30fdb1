"""The default store: one SQLite file (WAL) holding documents, nodes, vectors and FTS.

One handle owns the connection. Every write happens inside :meth:`SqliteStore.transaction`
(``BEGIN IMMEDIATE``), one document per transaction, so a process killed at any moment leaves
either the old or the new version of a document, never half of one. Each write also bumps a
``generation`` counter in ``index_meta``; readers compare it to know when their cached vector
matrix or ANN index is stale.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import MappingProxyType

import numpy as np

from ..errors import IndexLockedError, StoreError
from ..model import DeferredText, Document, Node, Tree, new_node, node_id
from . import docmeta, fts, textblocks
from .schema import DDL

#: SQLite caps the number of ``?`` in one statement; look-ups go in chunks of this size.
_CHUNK = 500
#: Bytes of the file memory-mapped for reading (SQLite lowers it to its own cap).
_MMAP_BYTES = 1 << 32
#: A content hash stored as bytes: lower-case hex digits in pairs (what ``.hex()`` gives back).
_HEX = re.compile(r"(?:[0-9a-f]{2})+")


@dataclass(frozen=True, slots=True)
class DocumentRow:
    """A stored document without its text."""

    id: str
    source: str
    content_hash: str
    format: str
    origin: str
    length: int
    metadata: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True, slots=True)
class Selection:
    """The documents a filter keeps, in row order: their keys, ids and node row ranges
    (a document's nodes are the rows ``first .. first + count - 1``)."""

    keys: np.ndarray
    first: np.ndarray
    count: np.ndarray
    ids: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True, slots=True)
class UnitRow:
    """Where an embedded unit lies: enough to turn a search result into a Hit."""

    node_id: str
    doc_id: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class TermCount:
    """How many units hold a term, counted up to a cap, and how far into the index they reach."""

    #: Units holding the term, up to ``cap + 1`` ("more than ``cap``").
    units: int
    #: The share of the index's rows that those units span: 1.0 when the count is complete,
    #: less when counting stopped at the cap, so that ``units / reach`` estimates the full count.
    reach: float


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
        self._kind_list: list[str] | None = None
        try:
            self.conn = sqlite3.connect(
                self.path, timeout=timeout, isolation_level=None, check_same_thread=False
            )
            self.conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            tables = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if create and not tables:
                # Settable only in a new file, before WAL mode: lets checkpoint() hand the pages
                # that deletions and replacements free back to the file system.
                self.conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
            self.conn.execute("PRAGMA journal_mode = WAL")
            # NORMAL in WAL mode: a power cut may lose the last commits, never consistency.
            self.conn.execute("PRAGMA synchronous = NORMAL")
            # Reads map the file (up to SQLite's cap, 2 GB in its default build) instead of copying
            # each page through a system call: a query's scattered row look-ups cost less.
            self.conn.execute(f"PRAGMA mmap_size = {_MMAP_BYTES}")
            if tables and "index_meta" not in tables:
                raise StoreError(
                    f"{self.path}: an SQLite file but not a zoomrag index; choose another file with --index"
                )
            if create:
                with self._translate_errors("create the tables"):
                    self.conn.executescript(DDL)
                    self.conn.execute(
                        "INSERT OR IGNORE INTO index_meta(key, value) "
                        "VALUES ('generation', '0'), ('unit_chars', '0')"
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
        """After a run of writes: return free pages to the file system, fold the write-ahead log
        into the file and truncate it (best effort: readers may hold it)."""
        try:
            # executescript steps the pragma to the end; execute() would free a single page.
            self.conn.executescript("PRAGMA incremental_vacuum;")
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
            "SELECT id, source, content_hash, format, origin, chars, metadata FROM documents ORDER BY id"
        )
        return [DocumentRow(*r[:6], _metadata(r[6])) for r in rows]

    def document_metadata(self) -> dict[str, Mapping[str, object]]:
        """Every document's metadata, by id."""
        return {i: _metadata(m) for i, m in self.conn.execute("SELECT id, metadata FROM documents")}

    def metadata_by_id(self, doc_ids: Iterable[str]) -> dict[str, Mapping[str, object]]:
        """The metadata of these documents (ids not stored are left out)."""
        ids = list(dict.fromkeys(doc_ids))
        if not ids:
            return {}
        return {i: _metadata(m) for i, m in self.conn.execute(
            "SELECT id, metadata FROM documents WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(ids),))}

    def document_metadata_of(self, doc_id: str) -> Mapping[str, object]:
        row = self.conn.execute("SELECT metadata FROM documents WHERE id = ?", (doc_id,)).fetchone()
        if row is None:
            raise StoreError(f"{self.path}: no document {doc_id!r}; list them with: zoomrag stats --documents")
        return _metadata(row[0])

    def set_metadata(self, doc_id: str, metadata: Mapping[str, object]) -> bool:
        """Replace one document's metadata (nothing else changes); False when it is not there."""
        meta = _metadata_json(metadata)
        with self.transaction() as c:
            row = c.execute("SELECT key FROM documents WHERE id = ?", (doc_id,)).fetchone()
            if row is None:
                return False
            c.execute("UPDATE documents SET meta = ? WHERE key = ?", (meta, row[0]))
            self._write_meta_rows(row[0], metadata)
            return True

    def _write_meta_rows(self, key: int, metadata: Mapping[str, object]) -> None:
        self.conn.execute("DELETE FROM doc_meta WHERE doc = ?", (key,))
        self.conn.executemany("INSERT INTO doc_meta(doc, key, type, num, txt) VALUES (?, ?, ?, ?, ?)",
                              [(key, *r) for r in docmeta.rows(metadata)])

    def select_documents(self, condition: str, args: Sequence[object]) -> Selection:
        """The documents for which ``condition`` (SQL over ``documents d`` and ``doc_meta``, as
        :func:`zoomrag.search.filters.to_sql` writes it) holds."""
        with self._translate_errors("filter the documents"):
            rows = self.conn.execute(
                f"SELECT d.key, d.first_row, d.node_count, d.id FROM documents d WHERE {condition} "
                "ORDER BY d.first_row", list(args)).fetchall()
        return Selection(np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)),
                         np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows)),
                         np.fromiter((r[2] for r in rows), dtype=np.int64, count=len(rows)),
                         tuple(r[3] for r in rows))

    def metadata_keys_present(self, keys: Iterable[str]) -> set[str]:
        """Which of these metadata keys some document has."""
        keys = list(dict.fromkeys(keys))
        return {k for k in keys if self.conn.execute(
            "SELECT 1 FROM doc_meta WHERE key = ? LIMIT 1", (k,)).fetchone()}

    def selected_units(self, selection: Selection) -> list[int]:
        """The rows of the embedded units of these documents, in order."""
        out: list[int] = []
        for first, count in zip(selection.first.tolist(), selection.count.tolist()):
            out.extend(r for (r,) in self.conn.execute(
                "SELECT row FROM nodes WHERE row >= ? AND row < ? AND unit = 1", (first, first + count)))
        return out

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

    def document_text(self, doc_id: str, start: int = 0, end: int | None = None) -> str:
        """``text[start:end]`` of a stored document, decompressing only the blocks the span touches."""
        row = self.conn.execute("SELECT chars, text FROM documents WHERE id = ?", (doc_id,)).fetchone()
        if row is None:
            raise StoreError(f"{self.path}: no document {doc_id!r}; list them with: zoomrag stats")
        chars, blob = row
        end = chars if end is None else end
        if not 0 <= start <= end <= chars:
            raise StoreError(f"{self.path}: span [{start}, {end}) is outside document {doc_id!r} "
                             f"of {chars} characters")
        return textblocks.decode_span(blob, start, end)

    def _documents_by_id(self, doc_ids: Sequence[str], deferred: bool = False, *,
                         column: str = "id") -> dict[str, tuple[_Placed, Document]]:
        """The stored documents among ``doc_ids`` (or, with ``column="key"``, among these keys) and
        where their rows are, by id. ``deferred``: their text is decompressed when first read
        (:meth:`Document.deferred`), not here."""
        if column not in ("id", "key"):
            raise ValueError(f"column={column!r}: documents are looked up by 'id' or 'key'")
        out: dict[str, tuple[_Placed, Document]] = {}
        for i in range(0, len(doc_ids), _CHUNK):
            part = list(doc_ids[i:i + _CHUNK])
            rows = self.conn.execute(
                "SELECT key, first_row, node_count, id, source, content_hash, format, metadata, text "
                f"FROM documents WHERE {column} IN ({','.join('?' * len(part))})", part,
            )
            for key, first, count, doc_id, source, chash, fmt, meta, blob in rows:
                metadata = _NO_METADATA if meta == "{}" else MappingProxyType(json.loads(meta))
                if deferred:
                    doc = Document.deferred(id=doc_id, source=source, read=partial(textblocks.decode, blob),
                                            format=fmt, content_hash=chash, metadata=metadata)
                else:
                    doc = Document(id=doc_id, source=source, text=textblocks.decode(blob), format=fmt,
                                   content_hash=chash, metadata=metadata)
                out[doc_id] = (_Placed(key, first, count), doc)
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
        """Trees of several documents: one query for the documents, then one row range each (documents
        absent from the store are left out)."""
        docs = self._documents_by_id(list(dict.fromkeys(doc_ids)))
        kinds = self._kinds()
        out: dict[str, Tree] = {}
        for placed, doc in docs.values():
            # A document's nodes are consecutive rows in pre-order: a range of the primary key.
            rows = self.conn.execute(
                "SELECT row, parent, level, kind, span_start, span_end, section_path, embed_text "
                "FROM nodes WHERE row >= ? AND row < ? ORDER BY row", (placed.first, placed.first + placed.count),
            ).fetchall()
            if any(r[3] >= len(kinds) for r in rows):
                kinds = self._kinds(reload=True)  # another process added a kind since
            out[doc.id] = _tree(doc, rows, kinds, doc.text)
        return out

    def ancestor_trees(self, rows: Iterable[int]) -> tuple[dict[str, Tree], dict[int, Node]]:
        """Partial trees of the documents that hold these node rows, by document id, and the node
        of each row (rows not found are left out).

        Of each document's nodes only the chains from the given rows up to the root are loaded,
        with ``children`` limited to the nodes loaded: enough for an expansion policy that reads
        a hit's node and its ancestors, at a fraction of a whole tree's cost. The documents are
        deferred: a policy reads the text of a few of them (those whose spans it sizes or
        returns), and only those are decompressed.
        """
        wanted = list(dict.fromkeys(rows))
        cols = "row, parent, level, kind, span_start, span_end, section_path, embed_text, doc"
        by_doc: dict[int, dict[int, tuple]] = {}
        for i in range(0, len(wanted), _CHUNK):
            part = wanted[i:i + _CHUNK]
            # The chains carry their columns up, so each node is looked up once.
            for r in self.conn.execute(
                f"WITH RECURSIVE up({cols}) AS (SELECT {cols} FROM nodes "
                f"WHERE row IN ({','.join('?' * len(part))}) "
                f"UNION SELECT {', '.join('n.' + c for c in cols.split(', '))} FROM nodes n "
                "JOIN up ON n.row = up.parent) SELECT * FROM up", part,
            ):
                by_doc.setdefault(r[8], {})[r[0]] = r
        kinds = self._kinds()
        if any(r[3] >= len(kinds) for found in by_doc.values() for r in found.values()):
            kinds = self._kinds(reload=True)
        trees: dict[str, Tree] = {}
        nodes: dict[int, Node] = {}
        for placed, doc in self._documents_by_id(list(by_doc), deferred=True, column="key").values():
            found = by_doc[placed.key]
            order = sorted(found)  # pre-order (parents before children, as _tree needs) is row order
            tree = _tree(doc, [found[r] for r in order], kinds, DeferredText(doc))
            trees[doc.id] = tree
            nodes.update(zip(order, tree.nodes))
        return trees, {r: nodes[r] for r in wanted if r in nodes}

    def write_document(self, tree: Tree, units: Sequence[UnitToWrite], vectors: Mapping[int, bytes],
                       origin: str, node_vectors: Mapping[str, int] | None = None) -> None:
        """Replace (or add) one document, its nodes, FTS rows and new vectors: one transaction.

        ``node_vectors`` gives vector keys to nodes that are not units (upper levels searched by
        dense search only, see :mod:`zoomrag.expand.multilevel`).
        """
        doc = tree.document
        blob = textblocks.encode(doc.text)  # outside the write lock: compression takes a while
        with self.transaction() as c:
            row = c.execute("SELECT key FROM documents WHERE id = ?", (doc.id,)).fetchone()
            if row is not None:
                self._delete_rows(row[0])
            # Rows are numbered here, inside the write lock, so parents can point at them directly.
            base = c.execute("SELECT coalesce(max(row), 0) + 1 FROM nodes").fetchone()[0]
            meta = _metadata_json(doc.metadata)
            values = (doc.source, _hash_value(doc.content_hash), doc.format, origin, meta, len(doc.text), base,
                      len(tree.nodes), blob)
            if row is not None:
                key = row[0]
                c.execute(
                    "UPDATE documents SET source = ?, hash = ?, format = ?, origin = ?, "
                    "meta = ?, chars = ?, first_row = ?, node_count = ?, text = ? WHERE key = ?",
                    (*values, key),
                )
            else:
                cur = c.execute(
                    "INSERT INTO documents(source, hash, format, origin, meta, chars, first_row, "
                    "node_count, text, id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (*values, doc.id),
                )
                key = cur.lastrowid
            self._write_meta_rows(key, doc.metadata)
            c.executemany("INSERT OR IGNORE INTO vectors(key, vec) VALUES (?, ?)", list(vectors.items()))
            kind_of = self._kind_numbers({n.kind for n in tree.nodes})
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
                    base + i, key, None if parent is None else row_of[parent.id], n.level, kind_of[n.kind],
                    n.start, n.end, sp, n.embed_text, 1 if n.id in vec_of else 0, vec_of.get(n.id, upper.get(n.id)),
                ))
            c.executemany(
                "INSERT INTO nodes(row, doc, parent, level, kind, span_start, span_end, "
                "section_path, embed_text, unit, vec) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            texts = [(row_of[u.node.id], _unit_text(u.node, doc.text)) for u in units]
            c.executemany("INSERT INTO fts(rowid, body) VALUES (?, ?)", [(r, fts.body(t)) for r, t in texts])
            self._add_unit_chars(sum(len(t) for _, t in texts))

    def delete_document(self, doc_id: str) -> bool:
        with self.transaction() as c:
            row = c.execute("SELECT key FROM documents WHERE id = ?", (doc_id,)).fetchone()
            if row is None:
                return False
            self._delete_rows(row[0])
            c.execute("DELETE FROM doc_meta WHERE doc = ?", (row[0],))
            c.execute("DELETE FROM documents WHERE key = ?", (row[0],))
            return True

    def _delete_rows(self, key: int) -> None:
        """Nodes and FTS rows of one document (inside a transaction)."""
        c = self.conn
        first, count, blob = c.execute(
            "SELECT first_row, node_count, text FROM documents WHERE key = ?", (key,)).fetchone()
        text = textblocks.decode(blob)
        units = c.execute(
            "SELECT row, span_start, span_end, embed_text FROM nodes WHERE row >= ? AND row < ? AND unit = 1",
            (first, first + count),
        ).fetchall()
        # A contentless FTS row is deleted by replaying the exact body that was inserted.
        texts = [(nid, et if et is not None else text[s:e]) for nid, s, e, et in units]
        c.executemany("INSERT INTO fts(fts, rowid, body) VALUES ('delete', ?, ?)",
                      [(nid, fts.body(t)) for nid, t in texts])
        self._add_unit_chars(-sum(len(t) for _, t in texts))
        c.execute("DELETE FROM nodes WHERE row >= ? AND row < ?", (first, first + count))

    def _add_unit_chars(self, n: int) -> None:
        """Keep ``index_meta['unit_chars']``, the characters of all units (BM25's average unit length)."""
        self.conn.execute(
            "UPDATE index_meta SET value = CAST(value AS INTEGER) + ? WHERE key = 'unit_chars'", (n,))

    def unit_chars(self) -> int:
        """Characters of all units together (what :func:`unit_text` gives, added up)."""
        row = self.conn.execute("SELECT value FROM index_meta WHERE key = 'unit_chars'").fetchone()
        return int(row[0]) if row else 0

    # -- node kinds ---------------------------------------------------------------------
    def _kinds(self, reload: bool = False) -> list[str]:
        """Node kinds by number (``index_meta['kinds']``, append-only)."""
        if reload or self._kind_list is None:
            row = self.conn.execute("SELECT value FROM index_meta WHERE key = 'kinds'").fetchone()
            self._kind_list = json.loads(row[0]) if row else []
        return self._kind_list

    def _kind_numbers(self, kinds: Iterable[str]) -> dict[str, int]:
        """Numbers of these kinds, adding new ones (inside the caller's write transaction)."""
        known = list(self._kinds(reload=True))
        new = sorted(set(kinds) - set(known))
        if new:
            known.extend(new)
            # Not cached until read back: if this write rolls back, another writer may give
            # these numbers to other kinds.
            self.set_meta({"kinds": json.dumps(known, ensure_ascii=False)})
        return {k: i for i, k in enumerate(known)}

    def clear(self, *, keep_vectors: bool) -> None:
        """Remove every document (for a rebuild); vectors stay as a cache when still valid."""
        with self.transaction() as c:
            c.execute("INSERT INTO fts(fts) VALUES ('delete-all')")
            c.execute("DELETE FROM nodes")
            c.execute("DELETE FROM documents")
            c.execute("DELETE FROM doc_meta")
            c.execute("UPDATE index_meta SET value = '0' WHERE key = 'unit_chars'")
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

    def unit_vectors(self, rows: Iterable[int]) -> dict[int, bytes]:
        """The stored vector of each of these node rows (rows without one are left out)."""
        out: dict[int, bytes] = {}
        rows = list(dict.fromkeys(rows))
        for i in range(0, len(rows), _CHUNK):
            part = rows[i:i + _CHUNK]
            q = ("SELECT n.row, v.vec FROM nodes n JOIN vectors v ON v.key = n.vec "
                 f"WHERE n.row IN ({','.join('?' * len(part))})")
            out.update(self.conn.execute(q, part))
        return out

    def selection_vectors(self, selection: Selection, dimension: int) -> tuple[np.ndarray, np.ndarray]:
        """``(node rows, float32 matrix)`` of the units with vectors in these documents, by row:
        a range scan per document (its nodes are consecutive rows), not a look-up per row."""
        rows: list[tuple[int, bytes]] = []
        for first, count in zip(selection.first.tolist(), selection.count.tolist()):
            rows.extend(self.conn.execute(
                "SELECT n.row, v.vec FROM nodes n JOIN vectors v ON v.key = n.vec "
                "WHERE n.row >= ? AND n.row < ? AND n.unit = 1", (first, first + count)))
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        if not rows:
            return ids, np.zeros((0, dimension), dtype=np.float32)
        mat = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), dimension)
        return ids, mat.astype(np.float32, copy=False)

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
            found = self.conn.execute(q, part).fetchall()
            kinds = self._kinds()
            if any(kind >= len(kinds) for _, _, kind, *_ in found):
                kinds = self._kinds(reload=True)
            for row, doc_id, kind, level, s, e in found:
                out[row] = UnitRow(node_id(doc_id, kinds[kind], level, s, e), doc_id, s, e)
        return out

    def unit_count(self) -> int:
        return self.conn.execute("SELECT count(*) FROM nodes WHERE unit = 1").fetchone()[0]

    def fts_search(self, weights: Mapping[str, float], limit: int, avg_chars: float,
                   within: Iterable[int] | None = None, k1: float = 1.2, b: float = 0.75,
                   docs: Iterable[int] | None = None) -> list[tuple[int, float]]:
        """``(node row, BM25)`` best first (higher is better; ties by row), of the units matching any
        of the FTS5 expressions in ``weights``.

        The index keeps no term frequencies (``detail=none``), so a matching term counts once:
        a unit's score is the sum of its matching terms' weights (their IDF) times
        ``(k1 + 1) / (1 + k1 * (1 - b + b * chars / avg_chars))``, its length in characters
        against the average. ``within``: score only these rows. Each expression is its own scan
        of the index, so no row is scored twice for a term; the rowid test is kept out of FTS5's
        plan (``+``), as FTS5 would run the match once per row given ``rowid IN (...)``.
        ``docs``: only units of these documents (keys), tested before the top ``limit`` is taken.
        """
        if not weights or limit < 1:
            return []
        avg = max(float(avg_chars), 1.0)
        args: list[object] = [k1 + 1, k1, 1 - b, b / avg]  # in the order of the ? in the text
        keep = ""
        if within is not None:
            # Inside each scan, so that only these rows are summed and looked up in nodes.
            keep = " AND +rowid IN (SELECT value FROM json_each(?))"
            rows = json.dumps(list(dict.fromkeys(int(r) for r in within)))
        if len(weights) == 1:  # one term: no row twice, nothing to add up
            ((expr, w),) = weights.items()
            hits = f"(SELECT rowid AS r, ? AS w FROM fts WHERE fts MATCH ?{keep})"
            args += [float(w), expr] + ([rows] if keep else [])
        else:
            scans = " UNION ALL ".join([f"SELECT rowid AS r, ? AS w FROM fts WHERE fts MATCH ?{keep}"] * len(weights))
            hits = f"(SELECT r, sum(w) AS w FROM ({scans}) GROUP BY r)"
            for expr, w in weights.items():
                args += [float(w), expr] + ([rows] if keep else [])
        only = ""
        if docs is not None:
            only = " WHERE n.doc IN (SELECT value FROM json_each(?))"
            args.append(json.dumps(list(dict.fromkeys(int(d) for d in docs))))
        args.append(limit)
        # CROSS JOIN: the matches drive, each looked up in nodes by its primary key.
        return self.conn.execute(
            f"SELECT h.r, h.w * ? / (1 + ? * (? + ? * coalesce(length(n.embed_text), n.span_end - n.span_start))) "
            f"AS s FROM {hits} h CROSS JOIN nodes n ON n.row = h.r{only} ORDER BY s DESC, h.r LIMIT ?", args,
        ).fetchall()

    def unit_texts(self, rows: Iterable[int]) -> dict[int, str]:
        """What was indexed for each of these unit rows (:func:`unit_text`); rows not found are left out.

        Only the compressed blocks the rows touch are read (incremental BLOB I/O) and each is
        decompressed once: BM25's re-scoring reads dozens of units from large documents."""
        rows = list(dict.fromkeys(int(r) for r in rows))
        found = self.conn.execute(
            "SELECT row, doc, span_start, span_end, embed_text FROM nodes "
            "WHERE row IN (SELECT value FROM json_each(?))", (json.dumps(rows),)).fetchall()
        out: dict[int, str] = {}
        spans: dict[int, list[tuple[int, int, int]]] = {}
        for r, doc, start, end, et in found:
            if et is not None:
                out[r] = et
            elif start == end:
                out[r] = ""
            else:
                spans.setdefault(doc, []).append((r, start, end))
        for doc, parts in spans.items():
            with self.conn.blobopen("documents", "text", doc, readonly=True) as blob:
                def read(offset: int, size: int, blob=blob) -> bytes:
                    blob.seek(offset)
                    return blob.read(size)

                layout = textblocks.Layout.read_from(read, len(blob))
                size = layout.block_chars
                blocks: dict[int, str] = {}
                for r, start, end in parts:
                    first, last = start // size, min((end - 1) // size, layout.count - 1)
                    for i in range(first, last + 1):
                        if i not in blocks:
                            blocks[i] = layout.decode(read(layout.starts[i], layout.ends[i] - layout.starts[i]), i)
                    text = "".join(blocks[i] for i in range(first, last + 1))
                    out[r] = text[start - first * size:end - first * size]
        return out

    def term_counts(self, terms: Iterable[str], cap: int | None = None) -> dict[str, TermCount]:
        """How many units contain each term of :func:`fts.query_terms` (a CJK bigram: both of its
        characters), and how far into the index each count reached.

        With ``cap``, counting a term stops at ``cap + 1`` rows, so a common term costs no more
        than a rare one: a count of ``cap + 1`` means "more than ``cap``". FTS5's own row counts
        (``fts5vocab``) walk the whole posting list, ~50 ms for a term in most of 1M units.
        FTS5 yields a term's rows in rowid order, so the row of the last unit counted tells, for a
        term over the cap, what share of the index its first ``cap + 1`` units span, at no extra
        cost: if the term is spread evenly, ``units / reach`` is its full count.
        """
        last = self.conn.execute("SELECT max(row) FROM nodes").fetchone()[0] or 1
        limit = -1 if cap is None else cap + 1  # SQLite: a negative LIMIT is no limit
        out: dict[str, TermCount] = {}
        for t in dict.fromkeys(terms):
            n, row = self.conn.execute(
                "SELECT count(*), max(rowid) FROM (SELECT rowid FROM fts WHERE fts MATCH ? LIMIT ?)",
                (fts.expression(t), limit)).fetchone()
            out[t] = TermCount(n, 1.0 if cap is None or n <= cap else min(1.0, row / last))
        return out

    def term_frequencies(self, terms: Iterable[str], cap: int | None = None) -> dict[str, int]:
        """The unit counts of :meth:`term_counts` alone."""
        return {t: c.units for t, c in self.term_counts(terms, cap).items()}

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
            ("documents have no root node at their first row",
             ("SELECT count(*) FROM documents d WHERE NOT EXISTS "
              "(SELECT 1 FROM nodes n WHERE n.row = d.first_row AND n.doc = d.key AND n.parent IS NULL)")),
            ("nodes lie outside their document's rows",
             ("SELECT count(*) FROM nodes n JOIN documents d ON d.key = n.doc "
              "WHERE n.row < d.first_row OR n.row >= d.first_row + d.node_count")),
            ("documents have a node count that differs from their nodes",
             ("SELECT count(*) FROM documents d LEFT JOIN (SELECT doc, count(*) AS n FROM nodes GROUP BY doc) g "
              "ON g.doc = d.key WHERE coalesce(g.n, 0) != d.node_count")),
            ("nodes have a span outside their document's text",
             ("SELECT count(*) FROM nodes n JOIN documents d ON d.key = n.doc "
              "WHERE n.span_start < 0 OR n.span_end < n.span_start OR n.span_end > d.chars")),
            ("nodes point to a missing parent",
             ("SELECT count(*) FROM nodes c WHERE c.parent IS NOT NULL "
              "AND NOT EXISTS (SELECT 1 FROM nodes p WHERE p.row = c.parent)")),
            ("metadata rows belong to no document",
             "SELECT count(*) FROM doc_meta WHERE doc NOT IN (SELECT key FROM documents)"),
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
        rows = c.execute("SELECT count(*) FROM fts WHERE fts MATCH ?",
                         (fts.expression(fts.ROW_TERM),)).fetchone()[0]
        if units != rows:
            out.append(f"full-text index has {rows} rows for {units} units")
        stored = self.unit_chars()
        actual = c.execute(
            "SELECT coalesce(sum(coalesce(length(embed_text), span_end - span_start)), 0) FROM nodes WHERE unit = 1"
        ).fetchone()[0]
        if stored != actual:
            out.append(f"index_meta unit_chars is {stored}, the units hold {actual} characters")
        return out


#: The metadata of most documents (stored as ``{}``), shared rather than parsed each time.
_NO_METADATA: Mapping[str, object] = MappingProxyType({})


def _metadata(text: str) -> Mapping[str, object]:
    return _NO_METADATA if text == "{}" else MappingProxyType(json.loads(text))


def _metadata_json(metadata: Mapping[str, object]) -> str | None:
    """What ``documents.meta`` holds: the JSON object, or NULL when it is empty."""
    return json.dumps(dict(metadata), ensure_ascii=False, default=str) if metadata else None


@dataclass(frozen=True, slots=True)
class _Placed:
    """Where a document's rows are: its key and its nodes' row range."""

    key: int
    first: int
    count: int


def _tree(doc: Document, rows: Sequence[Sequence], kinds: Sequence[str], doc_text: str | DeferredText) -> Tree:
    """A Tree from a document's node rows in pre-order (row, parent, level, kind, start, end, path,
    embed, ...), its nodes sharing ``doc_text`` (the document's text, or a DeferredText of it)."""
    doc_id = doc.id
    ids: dict[int, str] = {}
    children: dict[int, list[str]] = {}
    for r in rows:
        ids[r[0]] = nid = node_id(doc_id, kinds[r[3]], r[2], r[4], r[5])
        if r[1] is not None:
            children.setdefault(r[1], []).append(nid)
    paths: dict[int, tuple[str, ...]] = {}
    nodes = []
    for row, parent, level, kind, start, end, sp, embed_text, *_ in rows:
        path = tuple(json.loads(sp)) if sp is not None else paths.get(parent, ())
        paths[row] = path
        nodes.append(new_node(ids[row], doc_id, kinds[kind], level, start, end,
                              None if parent is None else ids[parent], tuple(children.get(row, ())),
                              path, embed_text, doc_text))
    return Tree(document=doc, nodes=tuple(nodes), strategy="")


def _hash_value(content_hash: str) -> bytes | str:
    """A hex content hash as its bytes (half the size); any other text as it is."""
    if _HEX.fullmatch(content_hash):
        return bytes.fromhex(content_hash)
    return content_hash


def _unit_text(node: Node, text: str) -> str:
    return node.embed_text if node.embed_text is not None else text[node.start:node.end]


def unit_text(node: Node) -> str:
    """What is embedded and full-text indexed for a unit."""
    return node.embed_text if node.embed_text is not None else node.text

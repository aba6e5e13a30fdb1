"""The default store: one SQLite file (WAL) holding documents, nodes, vectors and FTS.

One handle owns the connection. Every write happens inside :meth:`SqliteStore.transaction`
(``BEGIN IMMEDIATE``), one document per transaction, so a process killed at any moment leaves
either the old or the new version of a document, never half of one. Each write also bumps a
``generation`` counter in ``index_meta``; readers compare it to know when their cached vector
matrix or ANN index is stale.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from urllib.parse import quote

import numpy as np

from ..errors import IndexLockedError, StoreError
from ..model import Document, Node, Tree
from . import docmeta, fts, integrity, textblocks, trees
from .lock import WriterLock
from .rows import DocumentRow, Placed, Reading, Selection, TermCount, UnitRow, UnitToWrite
from .schema import DDL
from .vectors import row_matrix, valid_keys

#: SQLite caps the number of ``?`` in one statement; look-ups go in chunks of this size.
_CHUNK = 500
#: Bytes of the file memory-mapped for reading (SQLite lowers it to its own cap).
_MMAP_BYTES = 1 << 32
#: A content hash stored as bytes: lower-case hex digits in pairs (what ``.hex()`` gives back).
_HEX = re.compile(r"(?:[0-9a-f]{2})+")


class SqliteStore:
    """The index file. Not thread-safe: one store object per thread."""

    #: The files SQLite keeps beside the index (its write-ahead log, shared memory, rollback journal).
    SIDE_SUFFIXES = ("-wal", "-shm", "-journal")

    def __init__(self, path: str | Path, *, timeout: float = 5.0, create: bool = True):
        self.path = Path(path)
        self._kind_list: list[str] | None = None
        #: Whether ``documents`` has its ``parser`` column (:meth:`_has_parser_column`).
        self._parser_column = False
        self._timeout_ms = timeout * 1000
        exists = _exists(self.path)
        if self.path.is_dir():
            raise StoreError(f"{self.path}: a folder, not an index file; give a file path with --index")
        if not create and not exists:
            raise StoreError(
                f"{self.path}: no index here; build one with: zoomrag index PATH... --index {self.path}"
            )
        if create and not exists:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise StoreError(f"{self.path}: cannot create its folder ({e.strerror}); "
                                 "choose another place with --index") from None
        #: The file or its folder cannot be written: reads work, every write is refused by name.
        self.read_only = _read_only(self.path, exists)
        if self.read_only and not exists:
            raise StoreError(f"{self.path}: cannot create an index in a read-only folder; "
                             "choose another place with --index")
        try:
            self.conn = _connect(self.path, timeout, self.read_only)
        except sqlite3.DatabaseError as e:
            raise self._error(e, "open the index") from None
        try:
            self._prepare(create)
        except BaseException:
            self.conn.close()
            raise

    def _prepare(self, create: bool) -> None:
        """Check what the file is before anything is written to it, then set it up."""
        c = self.conn
        try:
            c.execute(f"PRAGMA busy_timeout = {int(self._timeout_ms)}")
            tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as e:
            raise StoreError(
                f"{self.path}: not a zoomrag index, or damaged ({e}); choose another file with --index, "
                f"or move it away and rebuild with zoomrag index --reindex PATH... --index {self.path}"
            ) from None
        if tables and "index_meta" not in tables:
            # Refused before any pragma that writes (journal mode): a foreign file stays as it was.
            raise StoreError(
                f"{self.path}: an SQLite file but not a zoomrag index; choose another file with --index"
            )
        if not tables and not create:
            raise StoreError(
                f"{self.path}: an empty file, not a zoomrag index yet (an index whose creation was "
                f"interrupted looks like this); build it with: zoomrag index PATH... --index {self.path}"
            )
        try:
            if not self.read_only:
                if not tables:
                    # Settable only in a new file, before WAL mode: lets checkpoint() hand the pages
                    # that deletions and replacements free back to the file system.
                    c.execute("PRAGMA auto_vacuum = INCREMENTAL")
                if c.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                    c.execute("PRAGMA journal_mode = WAL")
                # NORMAL in WAL mode: a power cut may lose the last commits, never consistency.
                c.execute("PRAGMA synchronous = NORMAL")
            # Reads map the file (up to SQLite's cap, 2 GB in its default build) instead of copying
            # each page through a system call: a query's scattered row look-ups cost less.
            c.execute(f"PRAGMA mmap_size = {_MMAP_BYTES}")
            if create and not self.read_only:
                meta = ("INSERT OR IGNORE INTO index_meta(key, value) "
                        "VALUES ('generation', '0'), ('unit_chars', '0');")
                if tables:
                    c.executescript(DDL + meta)  # tables added by a newer schema, if any
                    if not self._has_parser_column():
                        with self.transaction():
                            self._add_parser_column()
                else:
                    # A new file's schema in one transaction: a reader opening it meanwhile saw
                    # index_meta without documents ("no such table"), not an index being created.
                    try:
                        c.executescript("BEGIN IMMEDIATE;\n" + DDL + meta + "\nCOMMIT;")
                    except BaseException:
                        if c.in_transaction:
                            c.execute("ROLLBACK")
                        raise
        except sqlite3.DatabaseError as e:
            raise self._error(e, "set up the index") from None

    def close(self) -> None:
        self.conn.close()

    def writer_lock(self, timeout: float) -> WriterLock:
        """One indexing run at a time: an advisory lock on ``<index>.lock`` (:mod:`.lock`)."""
        return WriterLock(self.path, timeout=timeout)

    def disk_bytes(self) -> int:
        """The file and its write-ahead log."""
        return sum(p.stat().st_size for p in (self.path, Path(str(self.path) + "-wal")) if p.exists())

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
    def _error(self, e: sqlite3.DatabaseError, what: str) -> StoreError:
        """A StoreError for an SQLite failure that says what happened and what to do."""
        msg = str(e)
        low = msg.lower()
        where = self.path
        if "locked" in low or "busy" in low:
            return IndexLockedError(f"{where}: could not {what}, another process holds the write lock "
                                    f"({msg}); wait for it to finish and run again")
        if "readonly" in low or "read-only" in low:
            return StoreError(f"{where}: could not {what}: the index is read-only (the file or its folder "
                              "cannot be written); reading works; to change it make both writable, or "
                              "copy the file and use the copy with --index")
        if "full" in low:
            return StoreError(f"{where}: could not {what}: the disk is full; the index keeps its last "
                              "committed state; free some space and run again")
        if "disk i/o" in low:
            return StoreError(f"{where}: could not {what}: disk I/O error; if its -wal or -shm file was "
                              "deleted or moved while zoomrag used it, stop every zoomrag process on it, "
                              f"then run zoomrag check --index {where}; otherwise check the disk")
        if "unable to open" in low:
            return StoreError(f"{where}: could not {what}: SQLite cannot open the file ({msg}); "
                              "check that the file and its folder exist and can be read")
        if isinstance(e, sqlite3.OperationalError) and not _DAMAGE.search(low):
            return StoreError(f"{where}: could not {what}: {msg}")
        return StoreError(f"{where}: damaged, could not {what} ({msg}); run zoomrag check --index {where}, "
                          f"then rebuild with zoomrag index --reindex PATH... --index {where}")

    @contextmanager
    def _translate_errors(self, what: str) -> Iterator[None]:
        try:
            yield
        except (sqlite3.ProgrammingError, sqlite3.InterfaceError):
            raise  # a bug in the caller, not the file
        except sqlite3.DatabaseError as e:
            raise self._error(e, what) from None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``; rolled back on any exception. SQLite failures inside
        (full disk, damage) become a :class:`StoreError` that says what to do."""
        if self.read_only:
            raise StoreError(f"{self.path}: the index is read-only (the file or its folder cannot be "
                             "written); reading works; to change it make both writable, or copy the "
                             "file and use the copy with --index")
        with self._translate_errors("start a write"):
            self.conn.execute("BEGIN IMMEDIATE")
        try:
            with self._translate_errors("write"):
                yield self.conn
                self.conn.execute(
                    "UPDATE index_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'"
                )
            with self._translate_errors("commit"):
                self.conn.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Every read inside sees one committed version of the index: a deferred read transaction
        (WAL readers never block the writer, nor it them). Nested snapshots share the outer one.
        SQLite failures inside become a :class:`StoreError` (damage, a removed ``-wal`` file)."""
        if self.conn.in_transaction:
            with self._translate_errors("read"):
                yield
            return
        with self._translate_errors("read"):
            self.conn.execute("BEGIN DEFERRED")
        try:
            with self._translate_errors("read"):
                yield
        finally:
            self._rollback()  # nothing was written: ending the read is enough

    def _rollback(self) -> None:
        if self.conn.in_transaction:
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # SQLite rolls back itself when it cannot (a full disk, an I/O error)

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
        return [DocumentRow(i, s, h, f, o, n, docmeta.from_json(m)) for i, s, h, f, o, n, m in rows]

    def document_metadata(self) -> dict[str, Mapping[str, object]]:
        """Every document's metadata, by id."""
        return {i: docmeta.from_json(m) for i, m in self.conn.execute("SELECT id, metadata FROM documents")}

    def metadata_by_id(self, doc_ids: Iterable[str]) -> dict[str, Mapping[str, object]]:
        """The metadata of these documents (ids not stored are left out)."""
        ids = list(dict.fromkeys(doc_ids))
        if not ids:
            return {}
        return {i: docmeta.from_json(m) for i, m in self.conn.execute(
            "SELECT id, metadata FROM documents WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(ids),))}

    def document_metadata_of(self, doc_id: str) -> Mapping[str, object]:
        row = self.conn.execute("SELECT metadata FROM documents WHERE id = ?", (doc_id,)).fetchone()
        if row is None:
            raise StoreError(f"{self.path}: no document {doc_id!r}; list them with: zoomrag stats --documents")
        return docmeta.from_json(row[0])

    def set_metadata(self, doc_id: str, metadata: Mapping[str, object]) -> bool:
        """Replace one document's metadata (nothing else changes); False when it is not there."""
        meta = docmeta.to_json(metadata)
        with self.transaction() as c:
            row = c.execute("SELECT key FROM documents WHERE id = ?", (doc_id,)).fetchone()
            if row is None:
                return False
            c.execute("UPDATE documents SET meta = ? WHERE key = ?", (meta, row[0]))
            docmeta.write_rows(c, row[0], metadata)
            return True

    def select_documents(self, condition: str, args: Sequence[object]) -> Selection:
        """The documents for which ``condition`` (SQL over ``documents d`` and ``doc_meta``, as
        :func:`zoomrag.search.filters.to_sql` writes it) holds."""
        with self._translate_errors("filter the documents"):
            return Selection.from_rows(self.conn.execute(Selection.query(condition), list(args)).fetchall())

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

    def _documents_by_id(self, doc_ids: Sequence[str] | Sequence[int], deferred: bool = False, *,
                         column: str = "id") -> dict[str, tuple[Placed, Document]]:
        """The stored documents among ``doc_ids`` (or, with ``column="key"``, among these keys) and
        where their rows are, by id. ``deferred``: their text is decompressed when first read
        (:meth:`Document.deferred`), not here."""
        if column not in ("id", "key"):
            raise ValueError(f"column={column!r}: documents are looked up by 'id' or 'key'")
        out: dict[str, tuple[Placed, Document]] = {}
        rows = self._in_chunks("SELECT key, first_row, node_count, id, source, content_hash, format, metadata, "
                               f"text FROM documents WHERE {column} IN ({{}})", doc_ids)
        for key, first, count, doc_id, source, chash, fmt, meta, blob in rows:
            doc: Document
            if deferred:
                doc = Document.deferred(id=doc_id, source=source, read=partial(textblocks.decode, blob),
                                        format=fmt, content_hash=chash, metadata=docmeta.from_json(meta))
            else:
                doc = Document(id=doc_id, source=source, text=textblocks.decode(blob), format=fmt,
                               content_hash=chash, metadata=docmeta.from_json(meta))
            out[doc_id] = (Placed(key, first, count), doc)
        return out

    def _in_chunks(self, sql: str, values: Iterable[object]) -> list[tuple]:
        """The rows of ``sql`` for the distinct ``values``, its ``{}`` standing for their ``?``:
        in chunks of :data:`_CHUNK`, as SQLite caps the ``?`` of one statement."""
        values = list(dict.fromkeys(values))
        out: list[tuple] = []
        for i in range(0, len(values), _CHUNK):
            part = values[i:i + _CHUNK]
            out.extend(self.conn.execute(sql.format(",".join("?" * len(part))), part))
        return out

    def content_hashes(self, doc_ids: Sequence[str]) -> dict[str, str]:
        """The current content hash of each of these documents (absent ones are left out)."""
        return dict(self._in_chunks("SELECT id, content_hash FROM documents WHERE id IN ({})", doc_ids))

    def document_readings(self, doc_ids: Sequence[str] | None = None) -> dict[str, Reading]:
        """How each of these documents was read: its format and parser version (0 in a file
        made before parser versions, which lacks the column until it is written)."""
        sql = f"SELECT id, format, {'parser' if self._has_parser_column() else '0'} FROM documents"
        rows = self.conn.execute(sql) if doc_ids is None else self._in_chunks(sql + " WHERE id IN ({})", doc_ids)
        return {i: Reading(f, p) for i, f, p in rows}

    def _has_parser_column(self) -> bool:
        """Whether ``documents`` has the ``parser`` column; while it has not, asked again each
        time (another process may add it)."""
        if not self._parser_column:
            self._parser_column = any(r[1] == "parser" for r in self.conn.execute("PRAGMA table_info(documents)"))
        return self._parser_column

    def _add_parser_column(self) -> None:
        """Add the ``parser`` column to a file made before parser versions (inside a write
        transaction). In place, as the schema version stays: every document reads as parser 0,
        so the next indexing run reads its file again, and no vector is lost."""
        if not self._has_parser_column():
            self.conn.execute("ALTER TABLE documents ADD COLUMN parser INTEGER NOT NULL DEFAULT 0")

    def load_tree(self, doc_id: str) -> Tree:
        """The stored tree of one document, rebuilt exactly as it was written."""
        found = self.load_trees([doc_id])
        if doc_id not in found:
            raise StoreError(f"{self.path}: no document {doc_id!r}; list them with: zoomrag stats")
        return found[doc_id]

    def load_trees(self, doc_ids: Sequence[str]) -> dict[str, Tree]:
        """Trees of several documents: one query for the documents, then one row range each (documents
        absent from the store are left out)."""
        docs = self._documents_by_id(list(dict.fromkeys(doc_ids)))
        out: dict[str, Tree] = {}
        for placed, doc in docs.values():
            # A document's nodes are consecutive rows in pre-order: a range of the primary key.
            rows = self.conn.execute(
                "SELECT row, parent, level, kind, span_start, span_end, section_path, embed_text "
                "FROM nodes WHERE row >= ? AND row < ? ORDER BY row", (placed.first, placed.first + placed.count),
            ).fetchall()
            out[doc.id] = trees.tree_of_kinds(doc, rows, self._kinds, doc.text)
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
        # The chains carry their columns up, so each node is looked up once.
        for r in self._in_chunks(
            f"WITH RECURSIVE up({cols}) AS (SELECT {cols} FROM nodes WHERE row IN ({{}}) "
            f"UNION SELECT {', '.join('n.' + c for c in cols.split(', '))} FROM nodes n "
            "JOIN up ON n.row = up.parent) SELECT * FROM up", wanted,
        ):
            by_doc.setdefault(r[8], {})[r[0]] = r
        documents = self._documents_by_id(list(by_doc), deferred=True, column="key").values()
        return trees.partial_trees(by_doc, documents, self._kinds, wanted)

    def write_document(self, tree: Tree, units: Sequence[UnitToWrite], vectors: Mapping[int, bytes],
                       origin: str, node_vectors: Mapping[str, int] | None = None, *, parser: int) -> None:
        """Replace (or add) one document, its nodes, FTS rows and new vectors: one transaction.

        ``node_vectors`` gives vector keys to nodes that are not units (upper levels searched by
        dense search only, see :mod:`zoomrag.expand.multilevel`); ``parser``: the parser version
        the tree was made with.
        """
        doc = tree.document
        blob = textblocks.encode(doc.text)  # outside the write lock: compression takes a while
        with self.transaction() as c:
            self._add_parser_column()  # a file opened without set-up (create=False) may lack it
            row = c.execute("SELECT key FROM documents WHERE id = ?", (doc.id,)).fetchone()
            if row is not None:
                self._delete_rows(row[0])
            # Rows are numbered here, inside the write lock, so parents can point at them directly.
            base = self._next_row()
            self.set_meta({"row_hwm": str(base + len(tree.nodes) - 1)})
            meta = docmeta.to_json(doc.metadata)
            values = (doc.source, _hash_value(doc.content_hash), doc.format, origin, meta, len(doc.text), base,
                      len(tree.nodes), int(parser), blob)
            if row is not None:
                key = row[0]
                c.execute(
                    "UPDATE documents SET source = ?, hash = ?, format = ?, origin = ?, "
                    "meta = ?, chars = ?, first_row = ?, node_count = ?, parser = ?, text = ? WHERE key = ?",
                    (*values, key),
                )
            else:
                cur = c.execute(
                    "INSERT INTO documents(source, hash, format, origin, meta, chars, first_row, "
                    "node_count, parser, text, id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (*values, doc.id),
                )
                key = cur.lastrowid
            docmeta.write_rows(c, key, doc.metadata)
            # REPLACE: a vector passed here was embedded because the stored one was missing or damaged.
            c.executemany("INSERT OR REPLACE INTO vectors(key, vec) VALUES (?, ?)", list(vectors.items()))
            kind_of = self._kind_numbers({n.kind for n in tree.nodes})
            rows = trees.node_rows(tree, base, key, kind_of, {u.node.id: u.vec_key for u in units}, node_vectors)
            c.executemany(
                "INSERT INTO nodes(row, doc, parent, level, kind, span_start, span_end, "
                "section_path, embed_text, unit, vec) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            texts = trees.written_units(tree, base, units)
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

    def _next_row(self) -> int:
        """The first row number of a new document: above every row ever given out (``row_hwm``),
        so a row is never reused and a saved ANN graph can be updated by adding the new rows."""
        c = self.conn
        top = c.execute("SELECT coalesce(max(row), 0) FROM nodes").fetchone()[0]
        hwm = c.execute("SELECT value FROM index_meta WHERE key = 'row_hwm'").fetchone()
        return max(int(top), int(hwm[0]) if hwm and hwm[0].isdigit() else 0) + 1

    def _delete_rows(self, key: int) -> None:
        """Nodes and FTS rows of one document (inside a transaction)."""
        c = self.conn
        # the high-water mark first: an index written before it existed may lose its top rows here
        self.set_meta({"row_hwm": str(self._next_row() - 1)})
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
        return {k for (k,) in self._in_chunks("SELECT key FROM vectors WHERE key IN ({})", keys)}

    def vector_keys_valid(self, keys: Iterable[int], dimension: int) -> set[int]:
        """The keys among these whose stored vector is sound: ``dimension`` float32 values, finite,
        of unit length (or all zero). A damaged one is left out, to be embedded again."""
        return valid_keys(self._in_chunks("SELECT key, vec FROM vectors WHERE key IN ({})", keys), dimension)

    def vectors_by_key(self, keys: Iterable[int]) -> dict[int, bytes]:
        return dict(self._in_chunks("SELECT key, vec FROM vectors WHERE key IN ({})", keys))

    def unit_vectors(self, rows: Iterable[int]) -> dict[int, bytes]:
        """The stored vector of each of these node rows (rows without one are left out)."""
        return dict(self._in_chunks(
            "SELECT n.row, v.vec FROM nodes n JOIN vectors v ON v.key = n.vec WHERE n.row IN ({})", rows))

    def document_vectors(self, doc_id: str) -> list[bytes | None]:
        """The stored vector of each node of one document, in the tree's order (None: no vector)."""
        q = ("SELECT v.vec FROM nodes n JOIN documents d ON n.doc = d.key LEFT JOIN vectors v ON v.key = n.vec "
             "WHERE d.id = ? ORDER BY n.row")
        return [vec for (vec,) in self.conn.execute(q, (doc_id,))]

    def node_vector_keys(self, doc_id: str) -> list[tuple[bool, int | None]]:
        """For each node of one document in the tree's order: is it a unit, and its vector key."""
        q = "SELECT n.unit, n.vec FROM nodes n JOIN documents d ON n.doc = d.key WHERE d.id = ? ORDER BY n.row"
        return [(bool(u), v) for u, v in self.conn.execute(q, (doc_id,))]

    def selection_vectors(self, selection: Selection, dimension: int) -> tuple[np.ndarray, np.ndarray]:
        """``(node rows, float32 matrix)`` of the units with vectors in these documents, by row:
        a range scan per document (its nodes are consecutive rows), not a look-up per row."""
        rows: list[tuple[int, bytes]] = []
        for first, count in zip(selection.first.tolist(), selection.count.tolist()):
            rows.extend(self.conn.execute(
                "SELECT n.row, v.vec FROM nodes n JOIN vectors v ON v.key = n.vec "
                "WHERE n.row >= ? AND n.row < ? AND n.unit = 1", (first, first + count)))
        return row_matrix(rows, dimension)

    def put_vectors(self, items: Mapping[int, bytes]) -> None:
        with self.transaction() as c:
            c.executemany("INSERT OR IGNORE INTO vectors(key, vec) VALUES (?, ?)", list(items.items()))

    def unit_matrix(self, dimension: int) -> tuple[np.ndarray, np.ndarray]:
        """``(node rows int64, float32 matrix)`` of every unit that has a vector, by row."""
        rows = self.conn.execute(
            "SELECT n.row, v.vec FROM nodes n JOIN vectors v ON v.key = n.vec ORDER BY n.row"
        ).fetchall()
        try:
            return row_matrix(rows, dimension)
        except ValueError:
            raise StoreError(
                f"{self.path}: stored vectors do not have dimension {dimension}; run zoomrag check, "
                "then rebuild with zoomrag index --reindex PATH..."
            ) from None

    def drop_unused_vectors(self) -> int:
        """Delete cached vectors no unit refers to; returns how many."""
        with self.transaction() as c:
            cur = c.execute("DELETE FROM vectors WHERE key NOT IN (SELECT vec FROM nodes WHERE vec IS NOT NULL)")
            return cur.rowcount

    # -- units and search ---------------------------------------------------------------
    def units(self, rows: Iterable[int]) -> dict[int, UnitRow]:
        """Where the units with these node rows lie (rows not found are left out)."""
        return trees.units_of(self._in_chunks(
            "SELECT n.row, d.id, n.kind, n.level, n.span_start, n.span_end FROM nodes n JOIN documents d "
            "ON d.key = n.doc WHERE n.row IN ({})", rows), self._kinds)

    def text_keys(self, rows: Iterable[int]) -> dict[int, int | None]:
        """The vector key (the hash of the embedded text) of each unit row, None without one."""
        return dict(self._in_chunks("SELECT row, vec FROM nodes WHERE row IN ({})", rows))

    def unit_rows(self) -> np.ndarray:
        """The node rows of every unit that has a vector, ascending (the rows of :meth:`unit_matrix`)."""
        rows = self.conn.execute("SELECT n.row FROM nodes n JOIN vectors v ON v.key = n.vec ORDER BY n.row")
        return np.fromiter((r[0] for r in rows), dtype=np.int64)

    def unit_matrix_after(self, row: int, dimension: int, limit: int) -> tuple[np.ndarray, np.ndarray] | None:
        """``(node rows, float32 matrix)`` of the units with vectors above ``row``, by row (a range
        scan); None when there are more than ``limit``."""
        found = self.conn.execute(
            "SELECT n.row, v.vec FROM nodes n JOIN vectors v ON v.key = n.vec WHERE n.row > ? ORDER BY n.row "
            "LIMIT ?", (row, limit + 1)).fetchall()
        if len(found) > limit:
            return None
        return row_matrix(found, dimension)

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

    def metadata_keys(self, limit: int) -> list[tuple[str, int]]:
        return [(k, int(n)) for k, n in self.conn.execute(
            "SELECT key, count(DISTINCT doc) AS n FROM doc_meta GROUP BY key ORDER BY n DESC, key LIMIT ?", (limit,))]

    def problems(self, dimension: int | None) -> list[str]:
        """Everything that breaks the store's invariants, as readable sentences; never raises.

        SQLite's ``integrity_check`` first (a damaged file is reported and nothing else is read);
        then FTS5's own check (when the file can be written), the nodes' tree shape, every
        document's text against its content hash, every vector (its size, finite values, unit
        length) and the full-text index against the units' text, all read in one snapshot.
        """
        out: list[str] = []
        try:
            found = [r[0] for r in self.conn.execute("PRAGMA integrity_check(20)")]
        except sqlite3.DatabaseError as e:
            return [f"SQLite integrity_check failed: {e}"]
        if found != ["ok"]:
            return ["SQLite integrity_check: " + "; ".join(found[:5])]
        if not self.read_only:
            try:
                self.conn.execute("INSERT INTO fts(fts, rank) VALUES ('integrity-check', 0)")
            except sqlite3.DatabaseError as e:
                if "locked" not in str(e) and "busy" not in str(e):
                    out.append(f"full-text index damaged: {e}")
        steps = (self._tree_problems, self._meta_problems, self._text_problems,
                 partial(self._vector_problems, dimension), self._fts_problems)
        try:
            with self.snapshot():
                for step in steps:
                    try:
                        out.extend(step())
                    except (StoreError, sqlite3.DatabaseError, ValueError, TypeError, zlib.error,
                            UnicodeError, IndexError, KeyError) as e:
                        out.append(f"could not read the index to check it: {e}")
        except StoreError as e:
            out.append(f"could not read the index to check it: {e}")
        return out

    def _tree_problems(self) -> list[str]:
        c = self.conn
        kinds = len(self._kinds(reload=True))
        checks = [
            *integrity.tree_checks("row"),
            ("nodes have an unknown kind",
             f"SELECT count(*) FROM nodes WHERE kind < 0 OR kind >= {kinds}"),
            ("nodes have a damaged heading trail",
             "SELECT count(*) FROM nodes WHERE section_path IS NOT NULL AND NOT json_valid(section_path)"),
            ("nodes have a damaged unit flag", "SELECT count(*) FROM nodes WHERE unit NOT IN (0, 1)"),
            integrity.META_ROWS_CHECK,
            ("units point to a missing vector",
             "SELECT count(*) FROM nodes WHERE vec IS NOT NULL AND vec NOT IN (SELECT key FROM vectors)"),
            ("documents have damaged metadata",
             "SELECT count(*) FROM documents WHERE meta IS NOT NULL AND NOT json_valid(meta)"),
        ]
        return integrity.counted(checks, lambda sql: c.execute(sql).fetchone()[0])

    def _meta_problems(self) -> list[str]:
        meta = self.meta()
        out = []
        for key in ("generation", "unit_chars", "dimension", "schema_version", "row_hwm"):
            if key in meta and not re.fullmatch(r"-?\d+", meta[key]):
                out.append(f"index_meta {key} is not a number: {meta[key]!r}")
        for key in ("kinds", "roots", "chunking_params"):
            if key in meta:
                try:
                    json.loads(meta[key])
                except ValueError:
                    out.append(f"index_meta {key} is not valid JSON")
        if out:
            return out
        actual = self.conn.execute(
            "SELECT coalesce(sum(coalesce(length(embed_text), span_end - span_start)), 0) FROM nodes WHERE unit = 1"
        ).fetchone()[0]
        return integrity.unit_chars_problems(self.unit_chars(), actual)

    def _text_problems(self) -> list[str]:
        """Every document's text decodes, to its length and its content hash."""
        bad: list[str] = []
        # Every text column is read (and so decoded): a damaged name fails here, not in a query.
        for _ in self.conn.execute("SELECT section_path, embed_text FROM nodes "
                                   "WHERE section_path IS NOT NULL OR embed_text IS NOT NULL"):
            pass
        for row in self.conn.execute("SELECT id, source, format, origin, meta FROM documents"):
            if row[3] not in ("file", "api"):
                bad.append(row[0])
        for doc_id, chars, stored, blob in self.conn.execute(
                "SELECT id, chars, content_hash, text FROM documents"):
            try:
                text = textblocks.decode(blob)
            except (StoreError, ValueError, zlib.error, UnicodeError, IndexError):
                bad.append(doc_id)
                continue
            if integrity.text_damaged(text, chars, stored):
                bad.append(doc_id)
        return integrity.damaged_texts(bad)

    def _vector_problems(self, dimension: int | None) -> list[str]:
        """Each vector: ``dimension`` float32 values, finite, of unit length (or all zero)."""
        if dimension is None:
            return []
        cur = self.conn.execute("SELECT vec FROM vectors")
        batches = ([r[0] for r in rows] for rows in iter(partial(cur.fetchmany, 4096), []))
        return integrity.vector_problems(batches, dimension)

    def _fts_problems(self) -> list[str]:
        """The full-text index holds exactly the units, each with the terms of its text.

        The units' bodies are indexed again into a temporary FTS5 table (the temp database is
        writable even when the file is not) and both tables' term counts are compared."""
        c = self.conn
        out = []
        units = c.execute("SELECT count(*) FROM nodes WHERE unit = 1").fetchone()[0]
        rows = c.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (fts.expression(fts.ROW_TERM),)).fetchone()[0]
        if units != rows:
            return [f"full-text index has {rows} rows for {units} units"]
        missing = c.execute(
            "SELECT count(*) FROM nodes WHERE unit = 1 AND row NOT IN "
            "(SELECT rowid FROM fts WHERE fts MATCH ?)", (fts.expression(fts.ROW_TERM),)).fetchone()[0]
        if missing:
            out.append(f"{missing} units are missing from the full-text index")
        if out:
            return out
        c.execute("DROP TABLE IF EXISTS temp.zoomrag_check")
        c.execute("CREATE VIRTUAL TABLE temp.zoomrag_check USING fts5(body, content='', detail=none, "
                  "columnsize=0, tokenize='unicode61 remove_diacritics 2')")
        c.execute("DROP TABLE IF EXISTS temp.zoomrag_check_vocab")
        c.execute("CREATE VIRTUAL TABLE temp.zoomrag_check_vocab USING fts5vocab('temp', 'zoomrag_check', 'row')")
        try:
            for key, blob in c.execute("SELECT key, text FROM documents").fetchall():
                text = textblocks.decode(blob)
                units_of = c.execute("SELECT row, span_start, span_end, embed_text FROM nodes "
                                     "WHERE doc = ? AND unit = 1", (key,)).fetchall()
                c.executemany("INSERT INTO temp.zoomrag_check(rowid, body) VALUES (?, ?)",
                              [(r, fts.body(et if et is not None else text[s:e])) for r, s, e, et in units_of])
            differ = c.execute(
                "SELECT count(*) FROM (SELECT term, doc FROM fts_vocab EXCEPT "
                "SELECT term, doc FROM temp.zoomrag_check_vocab) UNION ALL "
                "SELECT count(*) FROM (SELECT term, doc FROM temp.zoomrag_check_vocab EXCEPT "
                "SELECT term, doc FROM fts_vocab)").fetchall()
            n = sum(r[0] for r in differ)
            if n:
                out.append(f"full-text index disagrees with the units' text ({n} terms counted differently)")
        finally:
            c.execute("DROP TABLE IF EXISTS temp.zoomrag_check_vocab")
            c.execute("DROP TABLE IF EXISTS temp.zoomrag_check")
        return out


def _hash_value(content_hash: str) -> bytes | str:
    """A hex content hash as its bytes (half the size); any other text as it is."""
    if _HEX.fullmatch(content_hash):
        return bytes.fromhex(content_hash)
    return content_hash


#: Words of SQLite's messages about a damaged file (as opposed to a refused operation).
_DAMAGE = re.compile(r"malformed|not a database|corrupt|decode|no such table|no such column")


def _exists(path: Path) -> bool:
    try:
        path.stat()
    except FileNotFoundError:
        return False
    except OSError as e:  # a symlink loop, a path through a file
        raise StoreError(f"{path}: cannot be used as an index ({e.strerror}); "
                         "give another path with --index") from None
    return True


def _read_only(path: Path, exists: bool) -> bool:
    """Whether SQLite could not write here: the file, or its folder (where ``-wal`` and ``-shm`` live)."""
    folder = path.resolve().parent
    if not os.access(folder, os.W_OK):
        return True
    return exists and not os.access(path, os.W_OK)


def _connect(path: Path, timeout: float, read_only: bool) -> sqlite3.Connection:
    """A connection that never writes when ``read_only``.

    A read-only WAL file needs its ``-shm`` file; in a folder that cannot be written and without a
    ``-wal`` file (the state after a clean close), nobody can be writing, so the file is opened
    as immutable.
    """
    if not read_only:
        return sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
    uri = "file:" + quote(str(path.resolve())) + "?mode=ro"
    wal, shm = Path(str(path) + "-wal"), Path(str(path) + "-shm")
    if not os.access(path.resolve().parent, os.W_OK) and not (wal.exists() and shm.exists()):
        uri += "&immutable=1"
    return sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None, check_same_thread=False)

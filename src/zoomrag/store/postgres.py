"""A server store: PostgreSQL with pgvector, for many writers and readers on several machines.

The same tables as the file store (:mod:`.schema`), in the schema the connection's
``search_path`` names, so one database can hold several indexes:

- ``documents`` (text once, as PostgreSQL ``text``, compressed by TOAST), ``doc_meta`` (the
  typed metadata rows filters search, :mod:`.docmeta`), ``nodes`` (spans under a row number,
  a document's nodes consecutive rows in pre-order), ``vectors`` (pgvector ``vector``, keyed by
  the embedding cache key) with an HNSW index (inner product) built once the dimension is known.
- **Full text**: each unit keeps its distinct terms as a ``text[]`` under a GIN index, made by
  the same tokenizer as the file store's FTS5 table (:func:`.fts.terms`: words, and CJK text as
  single characters, searched as pairs). A unit matches a term when it holds it (a pair: both
  characters), and is scored in SQL with the same Okapi BM25 the file store computes (each term
  once, length in characters against the average); :mod:`zoomrag.search.bm25` then re-scores
  the first units from their text. So the ranking is the file store's, not ``ts_rank``'s (which
  has no IDF and would rank differently): docs/scale.md measures the overlap.
- **Writers**: any number at once. An indexing run holds a shared advisory lock on the index
  (a rebuild takes it exclusively); each document is written in one transaction that first
  takes a transaction advisory lock on the document's id, so two writers of one document take
  turns; row numbers come from a sequence in contiguous blocks, never reused. The counters every
  write changes (``generation``, ``unit_chars``) are updated last, so writers wait on each
  other only for their commits.
- **Snapshots**: a ``REPEATABLE READ READ ONLY`` transaction per query.
- **Crashes**: a killed writer's open transaction is rolled back by the server; its document is
  as it was, and a re-run finds it changed and writes it again.
"""

from __future__ import annotations

import re
import struct
import time
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial
from operator import itemgetter
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from ..defaults import ANN_THRESHOLD
from ..errors import IndexLockedError, StoreError
from ..model import Document, Node, Tree
from . import docmeta, fts, integrity, trees
from .rows import DocumentRow, Placed, Reading, Selection, TermCount, UnitRow, UnitToWrite
from .vectors import row_matrix, valid_keys

#: URL schemes this store answers.
SCHEMES = ("postgresql://", "postgres://")
#: The advisory lock of the whole index (shared by indexing runs, exclusive for a rebuild).
_INDEX_LOCK = 0x7A6F6F6D72616701
#: The advisory lock held while a block of row numbers is taken from the sequence.
_ROWS_LOCK = 0x7A6F6F6D72616702
#: The advisory lock held while the HNSW index is built (one builder at a time).
_VECTOR_INDEX_LOCK = 0x7A6F6F6D72616703
#: Candidates the HNSW index returns per result wanted (units sharing a vector, cached vectors
#: of no unit), and its beam width: pgvector's default (40) gives recall@10 below 0.9.
_CANDIDATES = 2
EF_SEARCH = 256

DDL = """
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE IF NOT EXISTS index_meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    key          bigserial PRIMARY KEY,
    id           text NOT NULL UNIQUE,
    source       text NOT NULL,
    content_hash text NOT NULL,
    format       text NOT NULL,
    origin       text NOT NULL,
    metadata     text NOT NULL DEFAULT '{}',
    chars        bigint NOT NULL,
    first_row    bigint NOT NULL,
    node_count   bigint NOT NULL,
    parser       integer NOT NULL DEFAULT 0,
    text         text NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_source ON documents(source);
CREATE TABLE IF NOT EXISTS kinds (number serial PRIMARY KEY, name text NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS nodes (
    rowno        bigint PRIMARY KEY,
    doc          bigint NOT NULL,
    parent       bigint,
    level        integer NOT NULL,
    kind         integer NOT NULL,
    span_start   bigint NOT NULL,
    span_end     bigint NOT NULL,
    section_path text,
    embed_text   text,
    unit         boolean NOT NULL,
    vec          bigint,
    chars        bigint,
    terms        text[]
);
CREATE INDEX IF NOT EXISTS nodes_doc ON nodes(doc);
CREATE INDEX IF NOT EXISTS nodes_vec ON nodes(vec);
CREATE INDEX IF NOT EXISTS nodes_terms ON nodes USING gin(terms);
CREATE TABLE IF NOT EXISTS vectors (key bigint PRIMARY KEY, vec vector NOT NULL);
CREATE TABLE IF NOT EXISTS doc_meta (
    doc  bigint NOT NULL,
    key  text NOT NULL,
    type text NOT NULL,
    num  double precision,
    txt  text
);
CREATE INDEX IF NOT EXISTS doc_meta_num ON doc_meta(key, type, num);
CREATE INDEX IF NOT EXISTS doc_meta_txt ON doc_meta(key, txt);
CREATE INDEX IF NOT EXISTS doc_meta_doc ON doc_meta(doc);
CREATE SEQUENCE IF NOT EXISTS node_rows;
-- SQLite's glob(pattern, text), which filters use for "$doc": * ? and [...] as in a shell.
CREATE OR REPLACE FUNCTION glob(pattern text, s text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT s ~ ('^' || replace(replace(regexp_replace(pattern, '([.+^$(){}|\\\\])', '\\\\\\1', 'g'),
                                     '*', '.*'), '?', '.') || '$')
$$;
-- the first of n consecutive row numbers, taken under a lock so that no one else's interleave
CREATE OR REPLACE FUNCTION take_rows(n bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE first bigint;
BEGIN
  PERFORM pg_advisory_lock(%(rows_lock)s);
  first := nextval('node_rows');
  IF n > 1 THEN PERFORM setval('node_rows', first + n - 1); END IF;
  PERFORM pg_advisory_unlock(%(rows_lock)s);
  RETURN first;
END $$;
INSERT INTO index_meta(key, value) VALUES ('generation', '0'), ('unit_chars', '0'), ('units', '0')
  ON CONFLICT (key) DO NOTHING;
"""

#: A term the planner's statistics put in this many times the cap of a count is not counted
#: (the share of a term in 0.2 % of the units, from ANALYZE's 30,000 rows, is within 11 %).
_COMMON_MARGIN = 1.5
#: Seconds the planner's statistics of the terms are kept (they change with ANALYZE only).
_STATISTICS_SECONDS = 30.0
#: The columns :meth:`PostgresStore._placed_documents` reads.
_DOCUMENT_COLUMNS = "key, first_row, node_count, id, source, content_hash, format, metadata, text"


#: The first item of a row (its row number).
_FIRST = itemgetter(0)


class _Seen:
    """What one read snapshot has read already (:meth:`PostgresStore.snapshot`)."""

    def __init__(self, meta: dict[str, str]):
        self.meta = meta
        #: unit row -> its vector key (the key of the text it embeds)
        self.text_keys: dict[int, int | None] = {}
        #: document id -> its metadata
        self.metadata: dict[str, Mapping[str, object]] = {}
        #: the snapshot's name, once exported to a second connection (:meth:`PostgresStore.nearest_started`)
        self.exported: str | None = None


#: Tables of an index (sizes in ``zoomrag stats``).
TABLES = ("documents", "doc_meta", "nodes", "vectors", "kinds", "index_meta")


def is_url(location: object) -> bool:
    return isinstance(location, str) and location.startswith(SCHEMES)


def public_url(url: str) -> str:
    """The URL without its password, as messages show it."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = (parts.username or "") + "@" + host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise StoreError("a postgresql:// store needs the postgres extra: pip install 'zoomrag[postgres]'") from None
    return psycopg


def fold(term: str) -> str:
    """A term without diacritics (FTS5's ``remove_diacritics 2``): ``Café`` and ``cafe`` match."""
    if term.isascii():
        return term
    decomposed = unicodedata.normalize("NFD", term)
    return unicodedata.normalize("NFC", "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn"))


def unit_terms(text: str) -> list[str]:
    """The distinct index terms of a unit's text (its ``terms`` column)."""
    return list(dict.fromkeys(fold(t) for t in fts.terms(text)))


#: SQLite's ``X GLOB ?`` in a filter's condition (its operand is always a placeholder).
_GLOB_OP = re.compile(r"([\w.]+) GLOB \?")
_QUOTED = re.compile(r'"((?:[^"]|"")*)"')


def expression_terms(expression: str) -> list[str]:
    """The index terms of one :func:`.fts.expression` (a CJK pair: its two characters)."""
    return [fold(m.group(1).replace('""', '"')) for m in _QUOTED.finditer(expression)]


def _vector_text(blob: bytes) -> str:
    """pgvector's text form of a float32 little-endian blob (exact: each float32 is a double)."""
    return "[" + ",".join(map(repr, np.frombuffer(blob, dtype="<f4").tolist())) + "]"


def _vector_blob(data: Any) -> bytes:
    """A pgvector value as read in binary (int16 dimension, int16 unused, big-endian float32)
    as the float32 little-endian blob the file store keeps."""
    dim = struct.unpack_from(">H", data, 0)[0]
    return np.frombuffer(bytes(data), dtype=">f4", count=dim, offset=4).astype("<f4").tobytes()


class _SharedLock:
    """The lock an indexing run holds on a server store: shared, so runs go on side by side;
    a rebuild (:meth:`PostgresStore.clear`) waits for the others to finish."""

    def __init__(self, store: PostgresStore, timeout: float):
        self.store = store
        self.timeout = timeout
        self._depth = 0

    def acquire(self) -> None:
        if self._depth == 0:
            self.store._count_units_once()
            self.store._wait_lock("pg_try_advisory_lock_shared", self.timeout,
                                  "another zoomrag process is rebuilding this index")
        self._depth += 1

    def release(self) -> None:
        if self._depth == 0:
            return
        self._depth -= 1
        if self._depth == 0 and not self.store.conn.closed:
            try:
                self.store.conn.execute("SELECT pg_advisory_unlock_shared(%s)", (_INDEX_LOCK,))
            except self.store._errors.Error:
                pass  # the connection is gone, and the server dropped its locks with it

    def __enter__(self) -> _SharedLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class PostgresStore:
    """An index in a PostgreSQL database (with pgvector). Not thread-safe: one object per thread."""

    def __init__(self, url: str, *, timeout: float = 5.0, create: bool = True):
        self.url = url
        self.path = public_url(url)
        self.timeout = timeout
        #: Whether the vector index is built at the ANN threshold (:meth:`search_exactly`).
        self._builds_index = True
        self._kind_list: list[str] | None = None
        #: Whether ``documents`` has its ``parser`` column (:meth:`_has_parser_column`).
        self._parser_column = False
        self._seen: _Seen | None = None
        self._statistics: tuple[float, dict[str, float], float] | None = None
        self._errors = _psycopg()
        self.conn = self._connect()
        #: A second connection for :meth:`nearest_started`, and the thread that uses it.
        self._side: Any = None
        self._side_thread: ThreadPoolExecutor | None = None
        self._register_vector()
        try:
            # As the file store's synchronous=NORMAL: a server crash may lose the last commits (a
            # re-run writes those documents again), never consistency; each commit skips a flush.
            with self._translate_errors("open the index"):
                self.conn.execute("SET synchronous_commit = off")
                self.conn.execute(f"SET hnsw.ef_search = {EF_SEARCH}")
            self._prepare(create)
        except BaseException:
            self.conn.close()
            raise

    def _connect(self) -> Any:
        try:
            return self._errors.connect(self.url, autocommit=True, connect_timeout=max(1, int(self.timeout)))
        except self._errors.Error as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise StoreError(f"{self.path}: cannot reach the PostgreSQL server ({first}); start it, or "
                             "fix the URL (postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE)") from None

    def _register_vector(self) -> None:
        """Read pgvector values in binary, straight into float32 blobs."""
        from psycopg.adapt import Loader
        from psycopg.pq import Format

        class VectorLoader(Loader):
            format = Format.BINARY

            def load(self, data: Any) -> bytes:
                return _vector_blob(data)

        self._vector_loader = VectorLoader

    def _prepare(self, create: bool) -> None:
        with self._translate_errors("open the index"):
            tables = {r[0] for r in self.conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")}
        if tables & {"documents", "nodes"} and "index_meta" not in tables:
            raise StoreError(f"{self.path}: this schema holds tables that are not a zoomrag index; use another "
                             "database, or another schema (?options=-csearch_path%3DNAME)")
        if "index_meta" not in tables and not create:
            raise StoreError(f"{self.path}: no index here; build one with: zoomrag index --store {self.path} PATH...")
        if "index_meta" not in tables or "kinds" not in tables or not self._has_function("take_rows"):
            with self._translate_errors("create the index tables"):
                self.conn.execute("SELECT pg_advisory_lock(%s)", (_ROWS_LOCK,))
                try:
                    self.conn.execute(DDL.replace("%(rows_lock)s", str(_ROWS_LOCK)))
                finally:
                    self.conn.execute("SELECT pg_advisory_unlock(%s)", (_ROWS_LOCK,))
        if create:
            self._add_parser_column()
        with self._translate_errors("open the index"):
            row = self.conn.execute("SELECT oid FROM pg_type WHERE typname = 'vector'").fetchone()
        if row is None:
            raise StoreError(f"{self.path}: the pgvector extension is not installed on this server; "
                             "install it (https://github.com/pgvector/pgvector) and run again")
        # binary results for vectors only: a cursor with binary=True reads every column in binary
        self.conn.adapters.register_loader(row[0], self._vector_loader)

    def _has_function(self, name: str) -> bool:
        with self._translate_errors("open the index"):
            return self.conn.execute("SELECT 1 FROM pg_proc WHERE proname = %s AND pronamespace = "
                                     "current_schema()::regnamespace", (name,)).fetchone() is not None

    def close(self) -> None:
        if self._side_thread is not None:
            self._side_thread.shutdown(wait=True)
            self._side.close()
        self.conn.close()

    def writer_lock(self, timeout: float) -> _SharedLock:
        return _SharedLock(self, timeout)

    def _wait_lock(self, function: str, timeout: float, holder: str) -> None:
        deadline = time.monotonic() + timeout
        while not self._rows(f"SELECT {function}(%s)", (_INDEX_LOCK,))[0][0]:
            if time.monotonic() >= deadline:
                raise IndexLockedError(f"{self.path}: {holder}; wait for it to finish and run again")
            time.sleep(0.05)

    def checkpoint(self) -> None:
        """After a run of writes: the vector index once the index reaches the ANN threshold
        (:meth:`build_vector_index`), and the planner's statistics (best effort)."""
        if self._builds_index and self._vector_index_state() != "valid" and self.unit_count() >= ANN_THRESHOLD:
            self.build_vector_index()
        try:
            self.conn.execute("ANALYZE documents, nodes, vectors, doc_meta")
        except self._errors.Error:
            pass

    def disk_bytes(self) -> int:
        return sum(self.table_bytes().values())

    # -- transactions -------------------------------------------------------------------
    def _error(self, e: Exception, what: str) -> StoreError:
        msg = (str(e).strip().splitlines() or [type(e).__name__])[0]
        if isinstance(e, self._errors.OperationalError) and self.conn.closed:
            return StoreError(f"{self.path}: could not {what}: the connection to the server was lost ({msg}); "
                              "check the server and run again (committed documents are kept)")
        if isinstance(e, self._errors.errors.LockNotAvailable):
            return IndexLockedError(f"{self.path}: could not {what}: another writer holds a lock ({msg}); "
                                    "wait for it to finish and run again")
        if isinstance(e, self._errors.errors.InsufficientPrivilege):
            return StoreError(f"{self.path}: could not {what}: permission denied ({msg}); "
                              "grant this user the right, or use another database")
        if isinstance(e, self._errors.errors.DiskFull):
            return StoreError(f"{self.path}: could not {what}: the server's disk is full; the index keeps "
                              "its last committed state; free some space and run again")
        return StoreError(f"{self.path}: could not {what}: {msg}")

    @contextmanager
    def _translate_errors(self, what: str) -> Iterator[None]:
        try:
            yield
        except self._errors.ProgrammingError as e:
            if isinstance(e, (self._errors.errors.InsufficientPrivilege, self._errors.errors.UndefinedTable,
                              self._errors.errors.UndefinedColumn)):
                raise self._error(e, what) from None
            raise  # a bug in the caller, not the server
        except self._errors.Error as e:
            raise self._error(e, what) from None

    def _in_transaction(self) -> bool:
        return self.conn.info.transaction_status != self._errors.pq.TransactionStatus.IDLE

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """``BEGIN`` ... ``COMMIT``, rolled back on any exception; bumps ``generation`` last."""
        with self._translate_errors("start a write"):
            self.conn.execute("BEGIN")
        self._chars_delta = self._units_delta = 0
        try:
            with self._translate_errors("write"):
                yield self.conn
                if self._chars_delta or self._units_delta:
                    self.conn.execute("UPDATE index_meta SET value = (value::bigint + CASE key WHEN 'unit_chars' "
                                      "THEN %s ELSE %s END)::text WHERE key IN ('unit_chars', 'units')",
                                      (self._chars_delta, self._units_delta))
                self.conn.execute("UPDATE index_meta SET value = (value::bigint + 1)::text WHERE key = 'generation'")
            with self._translate_errors("commit"):
                self.conn.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """One committed version for every read inside (``REPEATABLE READ``); nested: the outer one.

        A version does not change while the snapshot lasts, so what a query reads several times
        is read once (:attr:`_seen`): ``index_meta`` (read with the ``BEGIN``, in the same round
        trip), the vector key of each unit row a search returned, the metadata of each document
        a tree was loaded for. A query then costs a few round trips, not one per look-up."""
        if self._in_transaction():
            with self._translate_errors("read"):
                yield
            return
        with self._translate_errors("read"):
            cur = self.conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT key, value FROM index_meta")
            cur.nextset()
            self._seen = _Seen(dict(cur.fetchall()))
        try:
            with self._translate_errors("read"):
                yield
        finally:
            self._seen = None
            self._rollback()

    def _rollback(self) -> None:
        if not self.conn.closed and self._in_transaction():
            try:
                self.conn.execute("ROLLBACK")
            except self._errors.Error:
                pass

    def _rows(self, sql: str, args: Sequence[object] | Mapping[str, object] = ()) -> list[tuple]:
        with self._translate_errors("read"):
            return self.conn.execute(sql, args).fetchall()

    def _pipelined(self, *statements: tuple[str, Sequence[object]]) -> list[list[tuple]]:
        """The rows of several statements sent together: one round trip to the server."""
        with self._translate_errors("read"):
            with self.conn.pipeline():
                cursors = [self.conn.execute(sql, args) for sql, args in statements]
            return [c.fetchall() for c in cursors]

    def _vector_rows(self, sql: str, args: Sequence[object] = ()) -> list[tuple]:
        """Rows whose vector columns are read in binary (the other columns must be bigint)."""
        with self._translate_errors("read vectors"):
            cur = self.conn.cursor(binary=True)
            return cur.execute(sql, args).fetchall()

    # -- meta ---------------------------------------------------------------------------
    def meta(self) -> dict[str, str]:
        if self._seen is not None:
            return dict(self._seen.meta)
        return dict(self._rows("SELECT key, value FROM index_meta"))

    def set_meta(self, values: Mapping[str, str]) -> None:
        with self._translate_errors("write the settings"):
            with self.conn.cursor() as cur:
                cur.executemany("INSERT INTO index_meta(key, value) VALUES (%s, %s) "
                                "ON CONFLICT (key) DO UPDATE SET value = excluded.value", list(values.items()))

    def generation(self) -> int:
        return self._counter("generation")

    def _counter(self, key: str) -> int:
        """A number kept in ``index_meta``, read once per snapshot."""
        if self._seen is not None:
            return int(self._seen.meta.get(key, 0))
        row = self._rows("SELECT value FROM index_meta WHERE key = %s", (key,))
        return int(row[0][0]) if row else 0

    # -- documents ----------------------------------------------------------------------
    def document_hashes(self) -> dict[str, str]:
        return dict(self._rows("SELECT id, content_hash FROM documents"))

    def documents(self) -> list[DocumentRow]:
        rows = self._rows("SELECT id, source, content_hash, format, origin, chars, metadata FROM documents "
                          "ORDER BY id COLLATE \"C\"")
        return [DocumentRow(i, s, h, f, o, n, docmeta.from_json(m)) for i, s, h, f, o, n, m in rows]

    def document_metadata(self) -> dict[str, Mapping[str, object]]:
        return {i: docmeta.from_json(m) for i, m in self._rows("SELECT id, metadata FROM documents")}

    def metadata_by_id(self, doc_ids: Iterable[str]) -> dict[str, Mapping[str, object]]:
        ids = list(dict.fromkeys(doc_ids))
        if not ids:
            return {}
        if self._seen is not None and all(i in self._seen.metadata for i in ids):
            return {i: self._seen.metadata[i] for i in ids if self._seen.metadata[i] is not None}
        found = self._rows("SELECT id, metadata FROM documents WHERE id = ANY(%s)", (ids,))
        return {i: docmeta.from_json(m) for i, m in found}

    def document_metadata_of(self, doc_id: str) -> Mapping[str, object]:
        rows = self._rows("SELECT metadata FROM documents WHERE id = %s", (doc_id,))
        if not rows:
            raise StoreError(f"{self.path}: no document {doc_id!r}; list them with: zoomrag stats --documents")
        return docmeta.from_json(rows[0][0])

    def set_metadata(self, doc_id: str, metadata: Mapping[str, object]) -> bool:
        meta = docmeta.to_json(metadata) or "{}"
        with self.transaction() as c:
            c.execute("SELECT pg_advisory_xact_lock(1, hashtext(%s))", (doc_id,))
            row = c.execute("SELECT key FROM documents WHERE id = %s", (doc_id,)).fetchone()
            if row is None:
                return False
            c.execute("UPDATE documents SET metadata = %s WHERE key = %s", (meta, row[0]))
            with c.cursor() as cur:
                docmeta.write_rows(cur, row[0], metadata, "%s")
            return True

    def select_documents(self, condition: str, args: Sequence[object]) -> Selection:
        """The documents for which ``condition`` holds: SQL over ``documents d`` and ``doc_meta``
        as :func:`zoomrag.search.filters.to_sql` writes it (its ``?`` become ``%s``, and
        ``X GLOB ?`` this schema's ``glob(?, X)``; the text holds no values, only placeholders)."""
        sql = _GLOB_OP.sub(r"glob(?, \1)", condition).replace("%", "%%").replace("?", "%s")
        with self._translate_errors("filter the documents"):
            return Selection.from_rows(self.conn.execute(Selection.query(sql), list(args)).fetchall())

    def metadata_keys_present(self, keys: Iterable[str]) -> set[str]:
        keys = list(dict.fromkeys(keys))
        if not keys:
            return set()
        return {k for (k,) in self._rows("SELECT DISTINCT key FROM doc_meta WHERE key = ANY(%s)", (keys,))}

    def selected_units(self, selection: Selection) -> list[int]:
        keys = selection.keys.tolist()
        return [r for (r,) in self._rows("SELECT rowno FROM nodes WHERE doc = ANY(%s) AND unit ORDER BY rowno",
                                         (keys,))]

    def find_document(self, ref: str) -> str | None:
        rows = self._rows("SELECT id FROM documents WHERE id = %s UNION ALL "
                          "(SELECT id FROM documents WHERE source = %s LIMIT 1) LIMIT 1", (ref, ref))
        return rows[0][0] if rows else None

    def load_document(self, doc_id: str) -> Document:
        docs = self._documents_by("id", [doc_id])
        if doc_id not in docs:
            raise StoreError(f"{self.path}: no document {doc_id!r}; list them with: zoomrag stats")
        return docs[doc_id][1]

    def document_text(self, doc_id: str, start: int = 0, end: int | None = None) -> str:
        rows = self._rows("SELECT chars FROM documents WHERE id = %s", (doc_id,))
        if not rows:
            raise StoreError(f"{self.path}: no document {doc_id!r}; list them with: zoomrag stats")
        chars = rows[0][0]
        end = chars if end is None else end
        if not 0 <= start <= end <= chars:
            raise StoreError(f"{self.path}: span [{start}, {end}) is outside document {doc_id!r} "
                             f"of {chars} characters")
        return self._rows("SELECT substr(text, %s, %s) FROM documents WHERE id = %s",
                          (start + 1, end - start, doc_id))[0][0]

    def _documents_by(self, column: str, values: Sequence[object]) -> dict[str, tuple[Placed, Document]]:
        if column not in ("id", "key"):
            raise ValueError(f"column={column!r}: documents are looked up by 'id' or 'key'")
        if not values:
            return {}
        return self._placed_documents(self._rows(f"SELECT {_DOCUMENT_COLUMNS} FROM documents WHERE {column} = ANY(%s)",
                                                 (list(values),)))

    def _placed_documents(self, rows: Iterable[tuple]) -> dict[str, tuple[Placed, Document]]:
        """Rows of :data:`_DOCUMENT_COLUMNS` as ``{id: (where its rows are, Document)}``;
        inside a snapshot, their metadata is kept for :meth:`metadata_by_id`."""
        out: dict[str, tuple[Placed, Document]] = {}
        for key, first, count, doc_id, source, chash, fmt, meta, text in rows:
            doc = Document(id=doc_id, source=source, text=text, format=fmt, content_hash=chash,
                           metadata=docmeta.from_json(meta))
            out[doc_id] = (Placed(key, first, count), doc)
        if self._seen is not None:
            self._seen.metadata.update((i, d.metadata) for i, (_, d) in out.items())
        return out

    def content_hashes(self, doc_ids: Sequence[str]) -> dict[str, str]:
        if not doc_ids:
            return {}
        return dict(self._rows("SELECT id, content_hash FROM documents WHERE id = ANY(%s)",
                               (list(doc_ids),)))

    def document_readings(self, doc_ids: Sequence[str] | None = None) -> dict[str, Reading]:
        """How each of these documents was read: its format and parser version (0 in an index
        made before parser versions, which lacks the column until it is opened for writing)."""
        sql = f"SELECT id, format, {'parser' if self._has_parser_column() else '0'} FROM documents"
        if doc_ids is None:
            rows = self._rows(sql)
        elif not doc_ids:
            return {}
        else:
            rows = self._rows(sql + " WHERE id = ANY(%s)", (list(doc_ids),))
        return {i: Reading(f, p) for i, f, p in rows}

    def _has_parser_column(self) -> bool:
        """Whether ``documents`` has the ``parser`` column; while it has not, asked again each
        time (another process may add it)."""
        if not self._parser_column:
            self._parser_column = bool(self._rows(
                "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() "
                "AND table_name = 'documents' AND column_name = 'parser'"))
        return self._parser_column

    def _add_parser_column(self) -> None:
        """Add the ``parser`` column to an index made before parser versions, committed on its own
        (in a document's transaction, two writers adding it would deadlock). Looked up first: the
        ALTER locks the table against every reader, even when the column is there."""
        if not self._has_parser_column():
            with self._translate_errors("add the parser column"):
                self.conn.execute("ALTER TABLE documents ADD COLUMN IF NOT EXISTS parser integer NOT NULL DEFAULT 0")
            self._parser_column = True

    def load_tree(self, doc_id: str) -> Tree:
        found = self.load_trees([doc_id])
        if doc_id not in found:
            raise StoreError(f"{self.path}: no document {doc_id!r}; list them with: zoomrag stats")
        return found[doc_id]

    def load_trees(self, doc_ids: Sequence[str]) -> dict[str, Tree]:
        docs = self._documents_by("id", list(dict.fromkeys(doc_ids)))
        if not docs:
            return {}
        keys = [placed.key for placed, _ in docs.values()]
        # One row a document, its nodes' columns as arrays: a fraction of the client's time of a
        # row a node (~120 a document), which psycopg makes one by one. Sorted here, by row:
        # an aggregate's order is the server's to choose.
        by_doc: dict[int, list[tuple]] = {}
        for doc_key, *columns in self._rows(
                "SELECT doc, array_agg(rowno), array_agg(parent), array_agg(level), array_agg(kind), "
                "array_agg(span_start), array_agg(span_end), array_agg(section_path), array_agg(embed_text) "
                "FROM nodes WHERE doc = ANY(%s) GROUP BY doc", (keys,)):
            by_doc[doc_key] = sorted(zip(*columns), key=_FIRST)
        return {doc.id: trees.tree_of_kinds(doc, by_doc.get(placed.key, []), self._kinds, doc.text)
                for placed, doc in docs.values()}

    def ancestor_trees(self, rows: Iterable[int]) -> tuple[dict[str, Tree], dict[int, Node]]:
        """Partial trees (the chains from these rows up to the root) of the documents holding
        them, and each row's node (see :meth:`SqliteStore.ancestor_trees`)."""
        wanted = list(dict.fromkeys(int(r) for r in rows))
        cols = "rowno, parent, level, kind, span_start, span_end, section_path, embed_text, doc"
        by_doc: dict[int, dict[int, tuple]] = {}
        if not wanted:
            return {}, {}
        # the chains, and the documents holding them (the same chains again, in the same round trip)
        up = (f"WITH RECURSIVE up({cols}) AS (SELECT {cols} FROM nodes WHERE rowno = ANY(%s) "
              f"UNION SELECT {', '.join('n.' + c for c in cols.split(', '))} FROM nodes n "
              "JOIN up ON n.rowno = up.parent) ")
        chains, documents = self._pipelined(
            (up + "SELECT * FROM up", (wanted,)),
            (up + f"SELECT {_DOCUMENT_COLUMNS} FROM documents WHERE key IN (SELECT doc FROM up)", (wanted,)))
        for r in chains:
            by_doc.setdefault(r[8], {})[r[0]] = r
        return trees.partial_trees(by_doc, self._placed_documents(documents).values(), self._kinds, wanted)

    def write_document(self, tree: Tree, units: Sequence[UnitToWrite], vectors: Mapping[int, bytes],
                       origin: str, node_vectors: Mapping[str, int] | None = None, *, parser: int) -> None:
        """Replace (or add) one document with its nodes, terms and new vectors: one transaction;
        ``parser``: the parser version the tree was made with."""
        doc = tree.document
        if "\x00" in doc.text:
            raise StoreError(f"{doc.source}: the text holds a NUL character, which PostgreSQL cannot store; "
                             "remove it from the file, or index into a file store with --index")
        self._add_parser_column()  # a store opened without set-up (create=False) may lack it
        kind_of = self._kind_numbers({n.kind for n in tree.nodes})  # committed on its own: append-only
        base = self._take_rows(len(tree.nodes))
        rows = trees.node_rows(tree, base, 0, kind_of, {u.node.id: u.vec_key for u in units}, node_vectors)
        unit_info = {r: (len(text), unit_terms(text)) for r, text in trees.written_units(tree, base, units)}
        meta = docmeta.to_json(doc.metadata) or "{}"
        with self.transaction() as c:
            c.execute("SELECT pg_advisory_xact_lock(1, hashtext(%s))", (doc.id,))
            found = c.execute("SELECT key FROM documents WHERE id = %s", (doc.id,)).fetchone()
            values = (doc.source, doc.content_hash, doc.format, origin, meta, len(doc.text), base,
                      len(tree.nodes), int(parser), doc.text)
            if found is not None:
                key = found[0]
                self._delete_nodes(key)
                c.execute("UPDATE documents SET source = %s, content_hash = %s, format = %s, origin = %s, "
                          "metadata = %s, chars = %s, first_row = %s, node_count = %s, parser = %s, text = %s "
                          "WHERE key = %s", (*values, key))
            else:
                key = c.execute("INSERT INTO documents(source, content_hash, format, origin, metadata, chars, "
                                "first_row, node_count, parser, text, id) "
                                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                                "RETURNING key", (*values, doc.id)).fetchone()[0]
            with c.cursor() as cur:
                docmeta.write_rows(cur, key, doc.metadata, "%s")
                if vectors:
                    # a vector passed here was embedded because the stored one was missing or damaged
                    cur.executemany("INSERT INTO vectors(key, vec) VALUES (%s, %s::vector) "
                                    "ON CONFLICT (key) DO UPDATE SET vec = excluded.vec",
                                    [(k, _vector_text(v)) for k, v in vectors.items()])
                with cur.copy("COPY nodes(rowno, doc, parent, level, kind, span_start, span_end, section_path, "
                              "embed_text, unit, vec, chars, terms) FROM STDIN") as copy:
                    copy.set_types(["int8", "int8", "int8", "int4", "int4", "int8", "int8", "text", "text", "bool",
                                    "int8", "int8", "text[]"])
                    for r in rows:
                        info = unit_info.get(r[0])
                        copy.write_row((r[0], key, *r[2:9], bool(r[9]), r[10],
                                        None if info is None else info[0], None if info is None else info[1]))
            self._chars_delta += sum(n for n, _ in unit_info.values())
            self._units_delta += len(unit_info)

    def _take_rows(self, n: int) -> int:
        """The first of ``n`` consecutive row numbers no one else was or will be given."""
        with self._translate_errors("number the nodes"):
            return int(self.conn.execute("SELECT take_rows(%s)", (n,)).fetchone()[0])

    def _delete_nodes(self, key: int) -> None:
        """A document's nodes and their share of ``unit_chars`` and ``units`` (inside a transaction)."""
        chars, units = self.conn.execute("SELECT coalesce(sum(chars), 0), count(*) FROM nodes WHERE doc = %s AND unit",
                                         (key,)).fetchone()
        self._chars_delta -= int(chars)
        self._units_delta -= int(units)
        self.conn.execute("DELETE FROM nodes WHERE doc = %s", (key,))

    def delete_document(self, doc_id: str) -> bool:
        with self.transaction() as c:
            c.execute("SELECT pg_advisory_xact_lock(1, hashtext(%s))", (doc_id,))
            row = c.execute("SELECT key FROM documents WHERE id = %s", (doc_id,)).fetchone()
            if row is None:
                return False
            self._delete_nodes(row[0])
            c.execute("DELETE FROM doc_meta WHERE doc = %s", (row[0],))
            c.execute("DELETE FROM documents WHERE key = %s", (row[0],))
            return True

    def unit_chars(self) -> int:
        return self._counter("unit_chars")

    def clear(self, *, keep_vectors: bool) -> None:
        """Remove every document (for a rebuild), once no other indexing run is going on."""
        with self.transaction() as c:
            deadline = time.monotonic() + self.timeout
            while not c.execute("SELECT pg_try_advisory_xact_lock(%s)", (_INDEX_LOCK,)).fetchone()[0]:
                if time.monotonic() >= deadline:
                    raise IndexLockedError(f"{self.path}: another zoomrag process is indexing into it; wait for "
                                           "it to finish and rebuild again")
                time.sleep(0.05)
            c.execute("TRUNCATE nodes, documents, doc_meta")
            c.execute("UPDATE index_meta SET value = '0' WHERE key IN ('unit_chars', 'units')")
            if not keep_vectors:
                c.execute("TRUNCATE vectors")
                c.execute("DROP INDEX IF EXISTS vectors_hnsw")

    # -- node kinds ---------------------------------------------------------------------
    def _kinds(self, reload: bool = False) -> list[str]:
        if reload or self._kind_list is None:
            names = dict(self._rows("SELECT number, name FROM kinds"))
            self._kind_list = [names.get(i, "") for i in range(max(names, default=-1) + 1)]
        return self._kind_list

    def _kind_numbers(self, kinds: Iterable[str]) -> dict[str, int]:
        wanted = sorted(set(kinds))
        known = {k: i for i, k in enumerate(self._kinds()) if k}
        if any(k not in known for k in wanted):
            with self._translate_errors("record node kinds"):
                self.conn.execute("INSERT INTO kinds(number, name) SELECT "
                                  "(SELECT coalesce(max(number), -1) FROM kinds) + ord, name FROM "
                                  "unnest(%s::text[]) WITH ORDINALITY AS t(name, ord) "
                                  "WHERE name NOT IN (SELECT name FROM kinds) ON CONFLICT DO NOTHING",
                                  ([k for k in wanted if k not in known],))
            known = {k: i for i, k in enumerate(self._kinds(reload=True)) if k}
            missing = [k for k in wanted if k not in known]
            if missing:  # a concurrent writer took the same numbers: ask again, now they are there
                return self._kind_numbers(wanted)
        return {k: known[k] for k in wanted}

    # -- vectors ------------------------------------------------------------------------
    def _vector_index_state(self) -> str:
        """``valid``, ``invalid`` (a build that was interrupted) or ``missing``."""
        row = self._rows("SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                         "WHERE c.relname = 'vectors_hnsw' AND c.relnamespace = current_schema()::regnamespace")
        return "missing" if not row else "valid" if row[0][0] else "invalid"

    @contextmanager
    def _lost_building(self) -> Iterator[None]:
        """A server process that dies building the index (a pgvector built for instructions this
        CPU lacks) is named with the way around it."""
        try:
            yield
        except self._errors.OperationalError as e:
            if not self.conn.closed:
                raise
            said = (str(e).splitlines() or ["connection lost"])[0]
            raise StoreError(f"{self.path}: the server's process died building pgvector's index ({said}); if its "
                             "log says 'illegal instruction', its pgvector was built for another CPU: use one "
                             "built for this machine, or open the index with ann=\"off\" to search without "
                             "one (committed documents are kept)") from None

    def search_exactly(self) -> None:
        """Never build the vector index from this connection (``ann="off"``): for a server whose
        pgvector cannot build one, or exact results at any size."""
        self._builds_index = False

    def build_vector_index(self) -> bool:
        """Build pgvector's HNSW index over the vectors unless it is there; whether it is there now.

        Below the ANN threshold a query scores every unit exactly and needs no index, so it is
        built when the index reaches the threshold, in one pass over the stored vectors, then
        kept up to date by every write. One pass is several times faster than growing the graph
        with each insert (docs/benchmarks.md, "Stores"). ``CONCURRENTLY``: writers go on
        meanwhile, and queries search exactly until it is ready. One process builds it (an
        advisory lock); a build that was interrupted is dropped and started again."""
        state = self._vector_index_state()
        if state == "valid":
            return True
        if self._in_transaction() or not self._rows("SELECT pg_try_advisory_lock(%s)", (_VECTOR_INDEX_LOCK,))[0][0]:
            return False  # inside a write, or another process is building it
        try:
            with self._translate_errors("build the vector index"), self._lost_building():
                state = self._vector_index_state()
                if state == "valid":
                    return True
                if state == "invalid":
                    self.conn.execute("DROP INDEX CONCURRENTLY IF EXISTS vectors_hnsw")
                row = self.conn.execute("SELECT vector_dims(vec) FROM vectors LIMIT 1").fetchone()
                if row is None:
                    return False
                self.conn.execute(f"CREATE INDEX CONCURRENTLY IF NOT EXISTS vectors_hnsw ON vectors USING hnsw "
                                  f"((vec::vector({int(row[0])})) vector_ip_ops) WITH (m = 16, ef_construction = 128)")
            return True
        finally:
            if not self.conn.closed:
                self.conn.execute("SELECT pg_advisory_unlock(%s)", (_VECTOR_INDEX_LOCK,))

    def vector_keys_present(self, keys: Iterable[int]) -> set[int]:
        keys = list(dict.fromkeys(keys))
        if not keys:
            return set()
        return {k for (k,) in self._rows("SELECT key FROM vectors WHERE key = ANY(%s)", (keys,))}

    def vector_keys_valid(self, keys: Iterable[int], dimension: int) -> set[int]:
        return valid_keys(self.vectors_by_key(keys).items(), dimension)

    def vectors_by_key(self, keys: Iterable[int]) -> dict[int, bytes]:
        keys = list(dict.fromkeys(keys))
        if not keys:
            return {}
        return dict(self._vector_rows("SELECT key, vec FROM vectors WHERE key = ANY(%s)", (keys,)))

    def put_vectors(self, items: Mapping[int, bytes]) -> None:
        with self.transaction() as c:
            with c.cursor() as cur:
                cur.executemany("INSERT INTO vectors(key, vec) VALUES (%s, %s::vector) ON CONFLICT DO NOTHING",
                                [(k, _vector_text(v)) for k, v in items.items()])

    def unit_vectors(self, rows: Iterable[int]) -> dict[int, bytes]:
        rows = list(dict.fromkeys(int(r) for r in rows))
        if not rows:
            return {}
        return dict(self._vector_rows("SELECT n.rowno, v.vec FROM nodes n JOIN vectors v ON v.key = n.vec "
                                      "WHERE n.rowno = ANY(%s)", (rows,)))

    def document_vectors(self, doc_id: str) -> list[bytes | None]:
        return [v for (v,) in self._vector_rows(
            "SELECT v.vec FROM nodes n JOIN documents d ON n.doc = d.key LEFT JOIN vectors v ON v.key = n.vec "
            "WHERE d.id = %s::text ORDER BY n.rowno", (doc_id,))]

    def node_vector_keys(self, doc_id: str) -> list[tuple[bool, int | None]]:
        return [(bool(u), v) for u, v in self._rows(
            "SELECT n.unit, n.vec FROM nodes n JOIN documents d ON n.doc = d.key WHERE d.id = %s ORDER BY n.rowno",
            (doc_id,))]

    def _matrix(self, sql: str, args: Sequence[object], dimension: int) -> tuple[np.ndarray, np.ndarray]:
        try:
            return row_matrix(self._vector_rows(sql, args), dimension)
        except ValueError:
            raise StoreError(f"{self.path}: stored vectors do not have dimension {dimension}; run zoomrag check, "
                             f"then rebuild with zoomrag index --reindex --store {self.path} PATH...") from None

    def selection_vectors(self, selection: Selection, dimension: int) -> tuple[np.ndarray, np.ndarray]:
        return self._matrix("SELECT n.rowno, v.vec FROM nodes n JOIN vectors v ON v.key = n.vec "
                            "WHERE n.doc = ANY(%s) AND n.unit ORDER BY n.rowno", (selection.keys.tolist(),), dimension)

    def unit_matrix(self, dimension: int) -> tuple[np.ndarray, np.ndarray]:
        return self._matrix("SELECT n.rowno, v.vec FROM nodes n JOIN vectors v ON v.key = n.vec ORDER BY n.rowno",
                            (), dimension)

    def unit_rows(self) -> np.ndarray:
        rows = self._rows("SELECT n.rowno FROM nodes n JOIN vectors v ON v.key = n.vec ORDER BY n.rowno")
        return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))

    def drop_unused_vectors(self) -> int:
        with self.transaction() as c:
            cur = c.execute("DELETE FROM vectors v WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.vec = v.key)")
            return cur.rowcount

    def nearest(self, query: np.ndarray, k: int, selection: Selection | None = None) -> list[tuple[int, float]]:
        """``(node row, cosine)`` of the ``k`` nearest units, best first (ties by row).

        Without a selection, through the HNSW index (``ef_search`` :data:`EF_SEARCH`, at least
        ``2k`` candidates, as units may share a vector); with one, exactly among its units."""
        with self.snapshot():
            with self._translate_errors("search the vectors"):
                return self._found(self._nearest_rows(self.conn, query, k, selection))

    def nearest_started(self, query: np.ndarray, k: int,
                        selection: Selection | None = None) -> Callable[[], list[tuple[int, float]]]:
        """:meth:`nearest` started on a second connection that reads this snapshot (exported to
        it); call the result for the rows. Hybrid search goes on with BM25's look-ups meanwhile,
        and the server walks the HNSW graph on another core. Outside a snapshot it searches now."""
        seen = self._seen
        if seen is None:
            found = self.nearest(query, k, selection)
            return lambda: found
        if seen.exported is None:
            seen.exported = str(self._rows("SELECT pg_export_snapshot()")[0][0])
        if self._side_thread is None:
            self._side = self._connect()
            with self._translate_errors("search the vectors"):
                self._side.execute(f"SET hnsw.ef_search = {EF_SEARCH}")
            self._side_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="zoomrag-postgres")
        future = self._side_thread.submit(self._nearest_beside, seen.exported, query, k, selection)
        return lambda: self._found(future.result())

    def _nearest_beside(self, snapshot: str, query: np.ndarray, k: int,
                        selection: Selection | None) -> list[tuple[int, float, int | None]]:
        if not re.fullmatch(r"[0-9A-F-]+", snapshot):
            raise StoreError(f"{self.path}: the server exported a snapshot named {snapshot!r}, which "
                             "is not a snapshot name; report this with the server's version")
        conn = self._side
        with self._translate_errors("search the vectors"):
            try:
                # fails when the snapshot's own transaction ended first (the query that started
                # this one failed): the transaction is ended below either way
                conn.execute(f"BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET TRANSACTION SNAPSHOT '{snapshot}'")
                return self._nearest_rows(conn, query, k, selection)
            finally:
                if conn.info.transaction_status != self._errors.pq.TransactionStatus.IDLE:
                    conn.execute("ROLLBACK")

    def _nearest_rows(self, conn: Any, query: np.ndarray, k: int,
                      selection: Selection | None) -> list[tuple[int, float, int | None]]:
        """``(node row, cosine, vector key)`` rows of :meth:`nearest`, read on ``conn`` (in a
        transaction)."""
        q = np.asarray(query, dtype=np.float32)
        dim = int(q.shape[0])
        text = _vector_text(q.astype("<f4").tobytes())
        if selection is not None:
            return conn.execute(
                "SELECT n.rowno, -(v.vec <#> %s::vector) AS s, n.vec FROM nodes n JOIN vectors v ON v.key = n.vec "
                "WHERE n.doc = ANY(%s) AND n.unit ORDER BY s DESC, n.rowno LIMIT %s",
                (text, selection.keys.tolist(), k)).fetchall()
        want = _CANDIDATES * k
        if want > EF_SEARCH:  # the session's own setting (set on connecting) is EF_SEARCH
            conn.execute(f"SET LOCAL hnsw.ef_search = {want}")
        return conn.execute(
            f"WITH c AS (SELECT key, vec::vector({dim}) <#> %s::vector({dim}) AS d FROM vectors "
            f"ORDER BY vec::vector({dim}) <#> %s::vector({dim}) LIMIT %s) "
            "SELECT n.rowno, -c.d, c.key FROM c JOIN nodes n ON n.vec = c.key ORDER BY c.d, n.rowno LIMIT %s",
            (text, text, want, k)).fetchall()

    def _found(self, rows: list[tuple[int, float, int | None]]) -> list[tuple[int, float]]:
        """``(row, cosine)`` of :meth:`_nearest_rows`; the rows' vector keys are kept for this snapshot."""
        if self._seen is not None:
            self._seen.text_keys.update((int(r), key) for r, _, key in rows)
        return [(int(r), float(s)) for r, s, _ in rows]

    def describe_vectors(self) -> str:
        return {"valid": "pgvector hnsw", "invalid": "pgvector hnsw being built (exact search until it is ready)",
                "missing": "none yet (built when the index reaches the ANN threshold)"}[self._vector_index_state()]

    # -- units and full text ------------------------------------------------------------
    def units(self, rows: Iterable[int]) -> dict[int, UnitRow]:
        rows = list(dict.fromkeys(int(r) for r in rows))
        if not rows:
            return {}
        found = self._rows("SELECT n.rowno, d.id, n.kind, n.level, n.span_start, n.span_end FROM nodes n "
                           "JOIN documents d ON d.key = n.doc WHERE n.rowno = ANY(%s)", (rows,))
        return trees.units_of(found, self._kinds)

    def text_keys(self, rows: Iterable[int]) -> dict[int, int | None]:
        rows = list(dict.fromkeys(int(r) for r in rows))
        if not rows:
            return {}
        if self._seen is not None and all(r in self._seen.text_keys for r in rows):
            return {r: self._seen.text_keys[r] for r in rows}
        found = dict(self._rows("SELECT rowno, vec FROM nodes WHERE rowno = ANY(%s)", (rows,)))
        if self._seen is not None:
            self._seen.text_keys.update(found)
        return found

    def unit_count(self) -> int:
        """Units in the index: ``index_meta['units']``, kept by every write as ``unit_chars`` is
        (counting a million rows takes 50 ms, and a query needs the count after every write)."""
        meta = self._seen.meta if self._seen is not None else None
        if meta is None:
            meta = dict(self._rows("SELECT key, value FROM index_meta WHERE key = 'units'"))
        if "units" in meta:
            return int(meta["units"])
        return int(self._rows("SELECT count(*) FROM nodes WHERE unit")[0][0])

    def _count_units_once(self) -> None:
        """An index made before ``units`` was kept gets it, counted while no writer runs (a
        writer changes it only once it is there); with writers at work, the next run does it."""
        if self._rows("SELECT 1 FROM index_meta WHERE key = 'units'"):
            return
        if not self._rows("SELECT pg_try_advisory_lock(%s)", (_INDEX_LOCK,))[0][0]:
            return
        try:
            with self._translate_errors("count the units"):
                self.conn.execute("INSERT INTO index_meta(key, value) SELECT 'units', count(*)::text FROM nodes "
                                  "WHERE unit ON CONFLICT (key) DO NOTHING")
        finally:
            self.conn.execute("SELECT pg_advisory_unlock(%s)", (_INDEX_LOCK,))

    def unit_texts(self, rows: Iterable[int]) -> dict[int, str]:
        """What was indexed for each of these unit rows; rows not found are left out. Each
        document's text is read once (a ``substr`` per row would decompress it once per row)."""
        rows = list(dict.fromkeys(int(r) for r in rows))
        if not rows:
            return {}
        found, documents = self._pipelined(
            ("SELECT rowno, doc, span_start, span_end, embed_text, vec FROM nodes WHERE rowno = ANY(%s)", (rows,)),
            ("SELECT key, text FROM documents WHERE key IN "
             "(SELECT doc FROM nodes WHERE rowno = ANY(%s) AND embed_text IS NULL)", (rows,)))
        texts = dict(documents)
        if self._seen is not None:
            self._seen.text_keys.update((r, vec) for r, *_, vec in found)
        return {r: et if et is not None else texts[doc][s:e] for r, doc, s, e, et, _ in found
                if et is not None or doc in texts}

    def fts_search(self, weights: Mapping[str, float], limit: int, avg_chars: float,
                   within: Iterable[int] | None = None, k1: float = 1.2, b: float = 0.75,
                   docs: Iterable[int] | None = None) -> list[tuple[int, float]]:
        """``(node row, BM25)`` best first (ties by row), as :meth:`SqliteStore.fts_search`
        computes it: a unit holding a term (a pair: both characters) counts it once, with the
        term's weight, times ``(k1 + 1) / (1 + k1 * (1 - b + b * chars / avg_chars))``."""
        if not weights or limit < 1:
            return []
        avg = max(float(avg_chars), 1.0)
        keep = ""
        rows_arg: list[int] = []
        if within is not None:
            keep = " AND rowno = ANY(%s)"
            rows_arg = list(dict.fromkeys(int(r) for r in within))
        # each scan reads what the score needs from the rows it finds (no second look-up by row)
        only = ""
        docs_arg: list[object] = []
        if docs is not None:
            only = " AND doc = ANY(%s)"
            docs_arg = [list(dict.fromkeys(int(d) for d in docs))]
        scans = []
        args: list[object] = []
        for expr, w in weights.items():
            scans.append(f"SELECT rowno AS r, chars, vec, %s::float8 AS w FROM nodes WHERE terms @> %s::text[]{keep}{only}")
            args += [float(w), expression_terms(expr)] + ([rows_arg] if keep else []) + docs_arg
        final: list[object] = [k1 + 1, k1, 1 - b, b / avg]
        sql = (f"SELECT r, sum(w) * %s / (1 + %s * (%s + %s * chars)) AS s, vec FROM "
               f"({' UNION ALL '.join(scans)}) x GROUP BY r, chars, vec ORDER BY s DESC, r LIMIT %s")
        tail: list[object] = [limit]
        found = self._rows(sql, final + args + tail)
        if self._seen is not None:
            self._seen.text_keys.update((int(r), vec) for r, _, vec in found)
        return [(int(r), float(s)) for r, s, _ in found]

    def term_counts(self, terms: Iterable[str], cap: int | None = None) -> dict[str, TermCount]:
        """Units holding each query term (a CJK pair: both characters), counted up to ``cap + 1``,
        and how far into the index the counted ones reach (see :meth:`SqliteStore.term_counts`)."""
        wanted = list(dict.fromkeys(terms))
        if not wanted:
            return {}
        out: dict[str, TermCount] = {}
        if cap is not None:
            out.update(self._common_counts(wanted, cap))
            wanted = [t for t in wanted if t not in out]
            if not wanted:
                return out
        limit = None if cap is None else cap + 1
        # one statement for every term: a round trip each would cost more than the counting
        scans = " UNION ALL ".join(
            f"SELECT {i} AS i, count(*) AS n, max(rowno) AS m FROM "
            "(SELECT rowno FROM nodes WHERE terms @> %s::text[] LIMIT %s) x" for i in range(len(wanted)))
        args: list[object] = []
        for t in wanted:
            args += [expression_terms(fts.expression(t)), limit]
        rows = self._rows(f"SELECT (SELECT max(rowno) FROM nodes), i, n, m FROM ({scans}) c", args)
        last = (rows[0][0] if rows else None) or 1
        found = {i: (int(n), m) for _, i, n, m in rows}
        for i, t in enumerate(wanted):
            n, row = found[i]
            out[t] = TermCount(n, 1.0 if cap is None or n <= cap else min(1.0, (row or last) / last))
        return out

    def _common_counts(self, terms: Sequence[str], cap: int) -> dict[str, TermCount]:
        """The capped counts of the terms the planner's statistics (``ANALYZE``, run after every
        indexing run) put in :data:`_COMMON_MARGIN` times ``cap + 1`` units or more, without
        counting them: GIN indexes are read whole into a bitmap, so counting even the first
        ``cap + 1`` units of a term held by most of the index reads all of its entries (tens of
        milliseconds at 1M units). Their reach is estimated from the same statistics, as an
        even spread over the index; a CJK pair (two characters) is always counted."""
        shares, units = self._term_statistics()
        out = {}
        for t in terms:
            parts = expression_terms(fts.expression(t))
            held = shares.get(parts[0], 0.0) * units if len(parts) == 1 else 0.0
            if held >= _COMMON_MARGIN * (cap + 1):
                out[t] = TermCount(cap + 1, min(1.0, (cap + 1) / held))
        return out

    def _term_statistics(self) -> tuple[dict[str, float], float]:
        """The share of units holding each of the most common terms, and the units the shares
        are of (``pg_stats`` of ``nodes.terms``; kept :data:`_STATISTICS_SECONDS`)."""
        now = time.monotonic()
        if self._statistics is None or now - self._statistics[0] > _STATISTICS_SECONDS:
            rows = self._rows(
                "SELECT s.most_common_elems::text::text[], s.most_common_elem_freqs, s.null_frac, c.reltuples "
                "FROM pg_stats s JOIN pg_class c ON c.relname = s.tablename "
                "AND c.relnamespace = current_schema()::regnamespace "
                "WHERE s.schemaname = current_schema() AND s.tablename = 'nodes' AND s.attname = 'terms'")
            shares: dict[str, float] = {}
            units = 0.0
            if rows and rows[0][0] is not None and rows[0][1] is not None:
                elements, freqs, null_frac, tuples = rows[0]
                shares = dict(zip(elements, map(float, freqs)))  # the min, max... after the shares: dropped
                units = max(float(tuples), 0.0) * (1.0 - float(null_frac or 0.0))
            self._statistics = (now, shares, units)
        return self._statistics[1], self._statistics[2]

    def term_frequencies(self, terms: Iterable[str], cap: int | None = None) -> dict[str, int]:
        return {t: c.units for t, c in self.term_counts(terms, cap).items()}

    # -- sizes and consistency ----------------------------------------------------------
    def table_bytes(self) -> dict[str, int]:
        return {name: int(size) for name, size in self._rows(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
            "WHERE c.relname = ANY(%s) AND c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace",
            (list(TABLES),))}

    def counts(self) -> dict[str, int]:
        (d, ch, n, u, e, v), = self._rows(
            "SELECT (SELECT count(*) FROM documents), (SELECT coalesce(sum(chars), 0) FROM documents), "
            "(SELECT count(*) FROM nodes), (SELECT count(*) FROM nodes WHERE unit), "
            "(SELECT count(*) FROM nodes WHERE vec IS NOT NULL), (SELECT count(*) FROM vectors)")
        return {"documents": int(d), "characters": int(ch), "nodes": int(n), "units": int(u),
                "embedded": int(e), "vectors": int(v)}

    def metadata_keys(self, limit: int) -> list[tuple[str, int]]:
        return [(k, int(n)) for k, n in self._rows(
            "SELECT key, count(DISTINCT doc) AS n FROM doc_meta GROUP BY key ORDER BY n DESC, key LIMIT %s", (limit,))]

    def problems(self, dimension: int | None) -> list[str]:
        """Everything that breaks the store's invariants, as sentences, read in one snapshot;
        never raises."""
        out: list[str] = []
        try:
            with self.snapshot():
                for step in (self._tree_problems, self._meta_problems, self._text_problems,
                             partial(self._vector_problems, dimension)):
                    out.extend(step())
        except (StoreError, ValueError, TypeError) as e:
            out.append(f"could not read the index to check it: {e}")
        return out

    def _tree_problems(self) -> list[str]:
        checks = [
            *integrity.tree_checks("rowno"),
            ("units point to a missing vector",
             "SELECT count(*) FROM nodes n WHERE vec IS NOT NULL AND NOT EXISTS "
             "(SELECT 1 FROM vectors v WHERE v.key = n.vec)"),
            ("units have no terms", "SELECT count(*) FROM nodes WHERE unit AND terms IS NULL"),
            integrity.META_ROWS_CHECK,
        ]
        return integrity.counted(checks, lambda sql: self._rows(sql)[0][0])

    def _meta_problems(self) -> list[str]:
        stored = self.unit_chars()
        actual, units = self._rows("SELECT coalesce(sum(chars), 0), count(*) FROM nodes WHERE unit")[0]
        out = integrity.unit_chars_problems(stored, actual)
        kept = self.meta().get("units")
        if kept is not None and int(kept) != units:
            out.append(f"index_meta units is {kept}, the index holds {units} units")
        return out

    def _text_problems(self) -> list[str]:
        """Every document's text against its length and content hash, every unit's terms
        against its text."""
        bad: list[str] = []
        wrong_terms = 0
        keys = [k for (k,) in self._rows("SELECT key FROM documents ORDER BY key")]
        for i in range(0, len(keys), 64):  # a few documents' text in memory at a time
            for doc in self._rows("SELECT key, id, chars, content_hash, text FROM documents WHERE key = ANY(%s)",
                                  (keys[i:i + 64],)):
                wrong_terms += self._document_problems(doc, bad)
        out = integrity.damaged_texts(bad)
        if wrong_terms:
            out.append(f"full-text terms disagree with the units' text ({wrong_terms} units)")
        return out

    def _document_problems(self, doc: tuple, bad: list[str]) -> int:
        """Checks one document's text (its id goes to ``bad`` when damaged); returns how many of
        its units' terms or lengths disagree with their text."""
        key, doc_id, chars, stored, text = doc
        if integrity.text_damaged(text, chars, stored):
            bad.append(doc_id)
            return 0
        wrong = 0
        for s, e, et, n, terms in self._rows(
                "SELECT span_start, span_end, embed_text, chars, terms FROM nodes WHERE doc = %s AND unit", (key,)):
            body = et if et is not None else text[s:e]
            if n != len(body) or list(terms or []) != unit_terms(body):
                wrong += 1
        return wrong

    def _vector_problems(self, dimension: int | None) -> list[str]:
        if dimension is None:
            return []
        vectors = [v for _, v in self._vector_rows("SELECT key, vec FROM vectors")]
        return integrity.vector_problems([vectors], dimension)


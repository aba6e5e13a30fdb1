"""Vectors in a Milvus collection, the span trees, text and full text in the index file beside it.

``milvus://HOST:PORT[/COLLECTION][?index=FILE]`` (the ``milvus`` extra: pymilvus). Milvus 2.3 has
no full-text search and no place for a document's text or its tree, so the index file
(:class:`~.sqlite.SqliteStore`) keeps all of it, its vectors included: it is the embedding cache
and the copy every repair reads. The collection holds one entity per embedded node, keyed by the
node's row (rows are never given out twice), with the fields a Milvus user filters and joins on:
``doc_id``, ``node_id``, ``parent_id``, ``kind``, ``level``, ``span_start``/``span_end`` and the
document's ``metadata`` (JSON), and the vector (inner product: the vectors have unit length).

Order of a write, and the repair: the file first (one transaction per document), then the
collection (upsert the document's entities, then delete its previous version's rows by key). A process killed between
the two leaves the collection behind the file, never ahead of what the file once held; every
search keeps only rows the file still has, and opening the store (anything but read-only) finds
the difference and repairs it from the file (:meth:`MilvusStore.reconcile`). A collection made
for another index file is refused, never emptied.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import numpy as np

from ..errors import ConfigError, IndexLockedError, IndexMismatchError, StoreError
from ..model import Node, Tree
from .lock import WriterLock
from .rows import DocumentRow, Reading, Selection, TermCount, UnitRow, UnitToWrite
from .sqlite import SqliteStore

SCHEME = "milvus://"
DEFAULT_PORT = 19530
DEFAULT_COLLECTION = "zoomrag"
#: The folder of the index files whose path the URL does not give.
DEFAULT_FOLDER = Path(".zoomrag")
#: Milvus' cap on ``limit`` (topk) and on one query's result window.
MAX_WINDOW = 16384
#: Document ids per ``doc_id in [...]`` expression; a larger selection is searched in parts.
IDS_PER_EXPRESSION = 1000
#: Entities per upsert call.
UPSERT_BATCH = 1000
#: What a zoomrag collection's description starts with (then the index file's token).
DESCRIPTION = "zoomrag index "
FIELDS = ("row", "doc_id", "node_id", "parent_id", "kind", "level", "span_start", "span_end", "metadata", "vector")
TOKEN_KEY = "milvus_token"


@dataclass(frozen=True, slots=True)
class MilvusLocation:
    """A parsed ``milvus://`` URL."""

    host: str
    port: int
    collection: str
    index: Path

    @classmethod
    def parse(cls, url: str) -> MilvusLocation:
        parts = urlsplit(url)
        if parts.scheme != "milvus" or not parts.hostname:
            raise ConfigError(f"{url!r}: give milvus://HOST:PORT[/COLLECTION][?index=FILE]")
        try:
            port = parts.port or DEFAULT_PORT
        except ValueError:
            raise ConfigError(f"{url!r}: the port must be a number; give milvus://HOST:PORT[/COLLECTION]") from None
        collection = parts.path.strip("/") or DEFAULT_COLLECTION
        if not collection.replace("_", "a").isalnum() or collection[0].isdigit() or len(collection) > 255:
            raise ConfigError(f"{url!r}: {collection!r} is not a Milvus collection name (letters, digits and _, "
                              "not starting with a digit)")
        given = parse_qs(parts.query).get("index")
        index = Path(given[-1]) if given else DEFAULT_FOLDER / f"milvus-{parts.hostname}-{port}-{collection}.db"
        return cls(parts.hostname, port, collection, index)

    def url(self) -> str:
        """The URL naming the server, the collection and the index file (what messages show)."""
        return f"{SCHEME}{self.host}:{self.port}/{self.collection}?index={quote(str(self.index), safe='/')}"


def with_index_file(url: str, index: Path) -> str:
    """``url`` with its index file set to ``index`` (``--index`` beside ``--store milvus://``)."""
    loc = MilvusLocation.parse(url)
    return MilvusLocation(loc.host, loc.port, loc.collection, index).url()


def _pymilvus() -> Any:
    try:
        import pymilvus
    except ImportError:
        raise StoreError("a milvus:// store needs the milvus extra: pip install 'zoomrag[milvus]'") from None
    return pymilvus


def _literal(text: str) -> str:
    """A string literal of Milvus' expression language."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _first_line(e: BaseException) -> str:
    text = str(getattr(e, "message", "") or e).strip()
    return text.splitlines()[0] if text else type(e).__name__


class MilvusStore:
    """The index file for everything but vector search, a Milvus collection for that."""

    #: Milvus answers every dense query, however small the index (its filters are pushed there).
    searches_all_sizes = True

    def __init__(self, url: str, *, create: bool = True, timeout: float = 5.0):
        self.location = MilvusLocation.parse(url)
        #: The URL without secrets, naming the index file too.
        self.path = self.location.url()
        pymilvus = _pymilvus()
        self._errors: type[Exception] = pymilvus.MilvusException
        self._types = pymilvus.DataType
        try:
            self.client = pymilvus.MilvusClient(uri=f"http://{self.location.host}:{self.location.port}",
                                                timeout=max(timeout, 1.0))
        except Exception as e:  # pymilvus raises several kinds on a failed connection
            raise StoreError(f"{self.path}: cannot reach the Milvus server ({_first_line(e)}); start it, "
                             "or fix the URL (milvus://HOST:PORT/COLLECTION)") from None
        if not create and not self.location.index.exists():
            self.client.close()
            raise StoreError(f"{self.path}: no index file {self.location.index} beside the collection; build "
                             f"one with: zoomrag index PATH... --store {self.path}")
        try:
            self.file = SqliteStore(self.location.index, create=create, timeout=timeout)
        except BaseException:
            self.client.close()
            raise
        #: The file generation of the last Strong search (:meth:`nearest`).
        self._strong_generation: int | None = None
        try:
            self._dimension: int | None = None
            # Only the process holding the writer lock creates, claims or repairs the collection.
            lock = None if self.file.read_only else WriterLock(self.location.index, timeout=0)
            try:
                if lock is not None:
                    lock.acquire()
            except IndexLockedError:
                lock = None  # a writer is at work: it keeps the collection in step itself
            try:
                with self._translate("open the collection"):
                    self._open_collection(may_write=lock is not None)
                    if lock is not None:
                        generation = self.file.generation()
                        self.reconcile()  # its count is a Strong read: searches until the next write need none
                        self._strong_generation = generation
            finally:
                if lock is not None:
                    lock.release()
        except BaseException:
            self.close()
            raise

    # -- the collection ------------------------------------------------------------------
    @property
    def collection(self) -> str:
        return self.location.collection

    def close(self) -> None:
        try:
            self.client.close()
        except Exception:
            pass  # closing a connection that failed
        self.file.close()

    @contextmanager
    def _translate(self, what: str) -> Iterator[None]:
        try:
            yield
        except self._errors as e:
            raise StoreError(f"{self.path}: could not {what} in Milvus: {_first_line(e)}") from None

    def _described(self) -> dict[str, Any] | None:
        if not self.client.has_collection(self.collection):
            return None
        return dict(self.client.describe_collection(self.collection))

    def _open_collection(self, may_write: bool) -> None:
        """Check the collection against the index file; ``may_write`` (under the writer lock):
        create it when the file has pins, replace an empty one made for another file."""
        described = self._described()
        token = self.file.meta().get(TOKEN_KEY)
        dimension = self._pinned_dimension()
        if described is not None:
            names = tuple(f["name"] for f in described.get("fields", []))
            desc = str(described.get("description", ""))
            if names != FIELDS or not desc.startswith(DESCRIPTION):
                raise StoreError(f"{self.path}: collection {self.collection!r} was not made by zoomrag; "
                                 "give another collection name in the URL")
            if desc[len(DESCRIPTION):] != token:
                held = self._count()
                if held:
                    raise StoreError(
                        f"{self.path}: collection {self.collection!r} holds {held:,} vectors of another "
                        "index file; give that file (?index=FILE or --index), or another collection name")
                if not may_write:
                    return
                self.client.drop_collection(self.collection)  # empty: nothing of anyone's is lost
                described = None
            else:
                self._dimension = self._collection_dimension(described)
        if described is None and dimension is not None and may_write:
            self._create(dimension)
        if dimension is not None and self._dimension is not None and dimension != self._dimension:
            raise IndexMismatchError(
                f"{self.path}: collection {self.collection!r} holds {self._dimension}-dimensional vectors, "
                f"the index file's embedder gives {dimension}; give another collection name in the URL")

    def _collection_dimension(self, described: Mapping[str, Any]) -> int:
        for f in described.get("fields", []):
            if f["name"] == "vector":
                return int(f["params"]["dim"])
        raise StoreError(f"{self.path}: collection {self.collection!r} has no vector field")

    def _pinned_dimension(self) -> int | None:
        value = self.file.meta().get("dimension")
        return int(value) if value is not None and value.isdigit() else None

    def _create(self, dimension: int) -> None:
        """A new collection for this index file (claimed by a token in both)."""
        from pymilvus import MilvusClient

        token = self.file.meta().get(TOKEN_KEY)
        if token is None:
            seed = f"{self.location.index.resolve()}|{time.time_ns()}|{os.getpid()}"
            token = hashlib.sha256(seed.encode()).hexdigest()[:16]
            with self.file.transaction():
                self.file.set_meta({TOKEN_KEY: token})
        t = self._types
        schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False,
                                            description=DESCRIPTION + token)
        schema.add_field("row", t.INT64, is_primary=True)
        schema.add_field("doc_id", t.VARCHAR, max_length=65535)
        schema.add_field("node_id", t.VARCHAR, max_length=256)
        schema.add_field("parent_id", t.VARCHAR, max_length=256)
        schema.add_field("kind", t.VARCHAR, max_length=256)
        schema.add_field("level", t.INT64)
        schema.add_field("span_start", t.INT64)
        schema.add_field("span_end", t.INT64)
        schema.add_field("metadata", t.JSON)
        schema.add_field("vector", t.FLOAT_VECTOR, dim=dimension)
        params = self.client.prepare_index_params()
        params.add_index(field_name="vector", index_type="HNSW", metric_type="IP",
                         params={"M": 16, "efConstruction": 200})
        self.client.create_collection(self.collection, schema=schema, index_params=params,
                                      consistency_level="Strong")
        self._dimension = dimension

    def _count(self) -> int:
        found = self.client.query(self.collection, filter="", output_fields=["count(*)"],
                                  consistency_level="Strong")
        return int(found[0]["count(*)"]) if found else 0

    # -- keeping the collection in step with the file -----------------------------------
    def _entities(self, doc_ids: Sequence[str], trees: Mapping[str, Tree] | None = None) -> tuple[
            list[dict[str, Any]], dict[str, int]]:
        """The entities of these documents as the file holds them, and each one's first row
        (documents not in the file are left out)."""
        c = self.file.conn
        firsts: dict[str, int] = {}
        for i in range(0, len(doc_ids), 500):
            part = list(doc_ids[i:i + 500])
            firsts.update(c.execute(f"SELECT id, first_row FROM documents WHERE id IN ({','.join('?' * len(part))})",
                                    part))
        missing = [d for d in firsts if trees is None or d not in trees]
        loaded = {**(trees or {}), **(self.file.load_trees(missing) if missing else {})}
        out: list[dict[str, Any]] = []
        for doc_id, first in firsts.items():
            tree = loaded[doc_id]
            rows = {first + i: n for i, n in enumerate(tree.nodes)}
            vectors = self.file.unit_vectors(rows)
            meta = dict(tree.document.metadata)
            for row, vec in sorted(vectors.items()):
                node: Node = rows[row]
                out.append({"row": row, "doc_id": doc_id, "node_id": node.id, "parent_id": node.parent_id or "",
                            "kind": node.kind, "level": node.level, "span_start": node.start,
                            "span_end": node.end, "metadata": meta,
                            "vector": np.frombuffer(vec, "<f4").tolist()})
        return out, firsts

    def _sync(self, doc_ids: Sequence[str], trees: Mapping[str, Tree] | None = None,
              old: Mapping[str, Sequence[int]] | None = None) -> None:
        """Make the collection hold what the file holds for these documents: upsert their
        entities, then delete their older rows: ``old`` (the rows they had, by primary key, as
        a writer knows them), else every row of theirs below their first (a query first: slow)."""
        dimension = self._pinned_dimension()
        if dimension is None:
            return
        with self._translate("write vectors"):
            if self._dimension is None:
                self._open_collection(may_write=True)
            entities, firsts = self._entities(doc_ids, trees)
            for i in range(0, len(entities), UPSERT_BATCH):
                self.client.upsert(self.collection, entities[i:i + UPSERT_BATCH])
            if old is not None:
                kept = {e["row"] for e in entities}
                gone = sorted({r for rows in old.values() for r in rows} - kept)
                for i in range(0, len(gone), MAX_WINDOW):
                    self.client.delete(self.collection, ids=gone[i:i + MAX_WINDOW])
                return
            for doc_id in doc_ids:
                first = firsts.get(doc_id)
                cond = f"doc_id == {_literal(doc_id)}" + ("" if first is None else f" and row < {first}")
                self.client.delete(self.collection, filter=cond)

    def _embedded_rows(self, doc_id: str) -> list[int]:
        """The rows of one document that have a vector (what the collection holds of it)."""
        return [r for (r,) in self.file.conn.execute(
            "SELECT n.row FROM nodes n JOIN documents d ON n.doc = d.key WHERE d.id = ? AND n.vec IS NOT NULL",
            (doc_id,))]

    def _file_rows(self) -> tuple[int, int]:
        """``(count, highest row)`` of the file's nodes that have a vector."""
        n, top = self.file.conn.execute(
            "SELECT count(*), coalesce(max(n.row), -1) FROM nodes n JOIN vectors v ON v.key = n.vec").fetchone()
        return int(n), int(top)

    def in_step(self) -> bool:
        """Whether the collection holds exactly the file's embedded rows. Rows only grow and the
        collection only ever holds rows the file held, so equal counts and the same highest row
        (present, nothing above it) mean the same rows."""
        if self._dimension is None:
            return self._pinned_dimension() is None or self._file_rows()[0] == 0
        count, top = self._file_rows()
        if self._count() != count:
            return False
        if count == 0:
            return True
        found = self.client.query(self.collection, filter=f"row >= {top}", output_fields=["row"], limit=2,
                                  consistency_level="Bounded")  # the Strong count just before covers it
        return [int(f["row"]) for f in found] == [top]

    def _collection_rows(self) -> set[int]:
        """Every row of the collection (called after :meth:`in_step`'s Strong count: Bounded reads
        see what it saw, without waiting for a time tick each)."""
        rows: set[int] = set()
        _, top = self._file_rows()
        hwm = self.file.meta().get("row_hwm", "0")
        top = max(top, int(hwm) if hwm.isdigit() else 0)
        # everything above the file's rows at once, then windows no larger than Milvus' cap
        above = self.client.query(self.collection, filter=f"row > {top}", output_fields=["row"],
                                  limit=MAX_WINDOW, consistency_level="Bounded")
        rows.update(int(f["row"]) for f in above)
        for start in range(0, top + 1, MAX_WINDOW):
            found = self.client.query(self.collection, filter=f"row >= {start} and row < {start + MAX_WINDOW}",
                                      output_fields=["row"], limit=MAX_WINDOW, consistency_level="Bounded")
            rows.update(int(f["row"]) for f in found)
        return rows

    def differences(self) -> tuple[set[int], set[int]]:
        """``(rows the collection lacks, rows only the collection has)``."""
        held = self._collection_rows()  # read before the file: a row gone from the file is gone for good
        want = set(self.file.unit_rows().tolist())
        return want - held, held - want

    def reconcile(self) -> int:
        """Repair the collection from the file after an interrupted write (or a collection
        emptied or dropped): returns how many rows were added or deleted. The caller holds the
        writer lock."""
        if self._dimension is None and self._pinned_dimension() is not None:
            self._open_collection(may_write=True)
        if self._dimension is None or self.in_step():
            return 0
        with self._translate("repair the collection"):
            lacking, extra = self.differences()
            if extra:
                ordered = sorted(extra)
                for i in range(0, len(ordered), MAX_WINDOW):
                    self.client.delete(self.collection, filter=f"row in {ordered[i:i + MAX_WINDOW]}")
            if lacking:
                docs = sorted({u.doc_id for u in self.file.units(lacking).values()})
                for i in range(0, len(docs), 100):
                    self._sync(docs[i:i + 100])
        return len(lacking) + len(extra)

    # -- what the index calls: vector search ----------------------------------------------
    def nearest_started(self, query: np.ndarray, k: int,
                        selection: Selection | None = None) -> Callable[[], list[tuple[int, float]]]:
        """:meth:`nearest`, done now."""
        found = self.nearest(query, k, selection)
        return lambda: found

    def nearest(self, query: np.ndarray, k: int, selection: Selection | None = None) -> list[tuple[int, float]]:
        """``(node row, inner product)`` of the ``k`` nearest units, best first, searched by
        Milvus; ``selection`` becomes a ``doc_id in [...]`` expression (in parts of
        :data:`IDS_PER_EXPRESSION` ids, their results merged). Rows the file does not hold (left
        by an interrupted write) are dropped."""
        if self._dimension is None or k < 1:
            return []
        limit = min(int(k), MAX_WINDOW)
        vec = np.asarray(query, dtype=np.float32).ravel().tolist()
        if selection is None:
            filters = [""]
        elif not len(selection):
            return []
        else:
            ids = list(selection.ids)
            filters = [f"doc_id in [{', '.join(_literal(d) for d in ids[i:i + IDS_PER_EXPRESSION])}]"
                       for i in range(0, len(ids), IDS_PER_EXPRESSION)]
        # Strong waits for Milvus' next time tick (about 200 ms): paid once per file generation,
        # which every write that reaches the collection bumps first; until the next one the
        # collection holds nothing newer, and a Bounded read sees what Strong saw.
        generation = self.file.generation()
        level = "Bounded" if generation == self._strong_generation else "Strong"
        found: list[tuple[int, float]] = []
        with self._translate("search vectors"):
            for cond in filters:
                result = self.client.search(self.collection, data=[vec], limit=limit, filter=cond, output_fields=[],
                                            search_params={"metric_type": "IP", "params": {"ef": max(64, limit)}},
                                            consistency_level=level)
                found.extend((int(h["id"]), float(h["distance"])) for h in result[0])
        self._strong_generation = generation
        found.sort(key=lambda x: (-x[1], x[0]))
        known = self.file.text_keys(r for r, _ in found)
        return [(r, s) for r, s in found if r in known][:limit]

    def search_exactly(self) -> None:
        """Milvus searches with its own index at every size; there is nothing to leave out."""

    def build_vector_index(self) -> bool:
        """The collection's HNSW index is made with the collection: nothing to do."""
        return True

    def describe_vectors(self) -> str:
        if self._dimension is None:
            return f"Milvus collection {self.collection!r} (not created yet)"
        with self._translate("count vectors"):
            n = self._count()
        return f"Milvus HNSW (inner product), collection {self.collection!r} at " \
               f"{self.location.host}:{self.location.port}: {n:,} vectors"

    # -- writes: the file first, then the collection ---------------------------------------
    def writer_lock(self, timeout: float) -> WriterLock:
        return self.file.writer_lock(timeout)

    def set_meta(self, values: Mapping[str, str]) -> None:
        """Pins into the file; a dimension the collection cannot hold is refused first."""
        dim = values.get("dimension")
        if dim is not None and self._dimension is not None and int(dim) != self._dimension:
            with self._translate("check the collection"):
                if self._count():
                    raise IndexMismatchError(
                        f"{self.path}: collection {self.collection!r} holds {self._dimension}-dimensional "
                        f"vectors, the embedder gives {dim}; give another collection name in the URL")
                self.client.drop_collection(self.collection)
            self._dimension = None
        self.file.set_meta(values)

    def write_document(self, tree: Tree, units: Sequence[UnitToWrite], vectors: Mapping[int, bytes],
                       origin: str, node_vectors: Mapping[str, int] | None = None, *, parser: int) -> None:
        doc_id = tree.document.id
        old = self._embedded_rows(doc_id)  # under the writer lock: the rows this write replaces
        self.file.write_document(tree, units, vectors, origin, node_vectors, parser=parser)
        self._sync([doc_id], {doc_id: tree}, {doc_id: old})

    def delete_document(self, doc_id: str) -> bool:
        old = self._embedded_rows(doc_id)
        found = self.file.delete_document(doc_id)
        if found:
            self._sync([doc_id], old={doc_id: old})
        return found

    def set_metadata(self, doc_id: str, metadata: Mapping[str, object]) -> bool:
        found = self.file.set_metadata(doc_id, metadata)
        if found:
            self._sync([doc_id], old={})  # the same rows, new metadata
        return found

    def clear(self, *, keep_vectors: bool) -> None:
        self.file.clear(keep_vectors=keep_vectors)
        if self._dimension is not None:
            with self._translate("empty the collection"):
                self.client.delete(self.collection, filter="row >= 0")

    def put_vectors(self, items: Mapping[int, bytes]) -> None:
        self.file.put_vectors(items)  # the cache only: no node uses them yet

    def drop_unused_vectors(self) -> int:
        return self.file.drop_unused_vectors()

    # -- checks -----------------------------------------------------------------------------
    def problems(self, dimension: int | None) -> list[str]:
        out = self.file.problems(dimension)
        try:
            if self._dimension is None:
                if self._pinned_dimension() is not None:
                    out.append(f"{self.path}: collection {self.collection!r} is missing; "
                               "opening the index for writing rebuilds it from the file")
            elif not self.in_step():
                lacking, extra = self.differences()
                out.append(f"{self.path}: collection {self.collection!r} lacks {len(lacking):,} vectors of the "
                           f"file and holds {len(extra):,} it no longer has (an interrupted write); "
                           "opening the index for writing repairs it")
        except self._errors as e:
            out.append(f"{self.path}: could not read collection {self.collection!r}: {_first_line(e)}")
        return out

    # -- everything else is the file's ------------------------------------------------------
    def checkpoint(self) -> None:
        self.file.checkpoint()

    def disk_bytes(self) -> int:
        return self.file.disk_bytes()

    def transaction(self) -> AbstractContextManager[object]:
        return self.file.transaction()

    def snapshot(self) -> AbstractContextManager[None]:
        return self.file.snapshot()

    def meta(self) -> dict[str, str]:
        return self.file.meta()

    def generation(self) -> int:
        return self.file.generation()

    def document_hashes(self) -> dict[str, str]:
        return self.file.document_hashes()

    def documents(self) -> list[DocumentRow]:
        return self.file.documents()

    def document_metadata(self) -> dict[str, Mapping[str, object]]:
        return self.file.document_metadata()

    def metadata_by_id(self, doc_ids: Iterable[str]) -> dict[str, Mapping[str, object]]:
        return self.file.metadata_by_id(doc_ids)

    def document_metadata_of(self, doc_id: str) -> Mapping[str, object]:
        return self.file.document_metadata_of(doc_id)

    def find_document(self, ref: str) -> str | None:
        return self.file.find_document(ref)

    def document_text(self, doc_id: str, start: int = 0, end: int | None = None) -> str:
        return self.file.document_text(doc_id, start, end)

    def content_hashes(self, doc_ids: Sequence[str]) -> dict[str, str]:
        return self.file.content_hashes(doc_ids)

    def document_readings(self, doc_ids: Sequence[str] | None = None) -> dict[str, Reading]:
        return self.file.document_readings(doc_ids)

    def load_tree(self, doc_id: str) -> Tree:
        return self.file.load_tree(doc_id)

    def load_trees(self, doc_ids: Sequence[str]) -> dict[str, Tree]:
        return self.file.load_trees(doc_ids)

    def ancestor_trees(self, rows: Iterable[int]) -> tuple[dict[str, Tree], dict[int, Node]]:
        return self.file.ancestor_trees(rows)

    def select_documents(self, condition: str, args: Sequence[object]) -> Selection:
        return self.file.select_documents(condition, args)

    def metadata_keys_present(self, keys: Iterable[str]) -> set[str]:
        return self.file.metadata_keys_present(keys)

    def selected_units(self, selection: Selection) -> list[int]:
        return self.file.selected_units(selection)

    def vector_keys_present(self, keys: Iterable[int]) -> set[int]:
        return self.file.vector_keys_present(keys)

    def vector_keys_valid(self, keys: Iterable[int], dimension: int) -> set[int]:
        return self.file.vector_keys_valid(keys, dimension)

    def vectors_by_key(self, keys: Iterable[int]) -> dict[int, bytes]:
        return self.file.vectors_by_key(keys)

    def unit_vectors(self, rows: Iterable[int]) -> dict[int, bytes]:
        return self.file.unit_vectors(rows)

    def document_vectors(self, doc_id: str) -> list[bytes | None]:
        return self.file.document_vectors(doc_id)

    def node_vector_keys(self, doc_id: str) -> list[tuple[bool, int | None]]:
        return self.file.node_vector_keys(doc_id)

    def selection_vectors(self, selection: Selection, dimension: int) -> tuple[np.ndarray, np.ndarray]:
        return self.file.selection_vectors(selection, dimension)

    def unit_matrix(self, dimension: int) -> tuple[np.ndarray, np.ndarray]:
        return self.file.unit_matrix(dimension)

    def unit_rows(self) -> np.ndarray:
        return self.file.unit_rows()

    def units(self, rows: Iterable[int]) -> dict[int, UnitRow]:
        return self.file.units(rows)

    def text_keys(self, rows: Iterable[int]) -> dict[int, int | None]:
        return self.file.text_keys(rows)

    def unit_count(self) -> int:
        return self.file.unit_count()

    def unit_chars(self) -> int:
        return self.file.unit_chars()

    def unit_texts(self, rows: Iterable[int]) -> dict[int, str]:
        return self.file.unit_texts(rows)

    def fts_search(self, weights: Mapping[str, float], limit: int, avg_chars: float,
                   within: Iterable[int] | None = None, k1: float = 1.2, b: float = 0.75,
                   docs: Iterable[int] | None = None) -> list[tuple[int, float]]:
        return self.file.fts_search(weights, limit, avg_chars, within, k1, b, docs)

    def term_counts(self, terms: Iterable[str], cap: int | None = None) -> dict[str, TermCount]:
        return self.file.term_counts(terms, cap)

    def term_frequencies(self, terms: Iterable[str], cap: int | None = None) -> dict[str, int]:
        return self.file.term_frequencies(terms, cap)

    def table_bytes(self) -> dict[str, int]:
        return self.file.table_bytes()

    def counts(self) -> dict[str, int]:
        return self.file.counts()

    def metadata_keys(self, limit: int) -> list[tuple[str, int]]:
        return self.file.metadata_keys(limit)

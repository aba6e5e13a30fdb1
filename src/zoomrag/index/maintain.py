"""Writes that change an index without indexing: removing documents, metadata, pinned entries,
dropping unused vectors. Each runs under the write lock and brings the dense search up to date."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..errors import StoreError
from ..expand.auto import Choice, probe_value
from ..store import Store, WriteLock
from .dense import DenseSearch
from .server_dense import ServerDense
from .walk import prune_gone, resolved


class Maintenance:
    def __init__(self, store: Store, dense: DenseSearch | ServerDense, lock: WriteLock):
        self.store = store
        self.dense = dense
        self.lock = lock

    def find(self, ref: str) -> str | None:
        """The id of the document ``ref`` names (id, source or file path), or None."""
        found = self.store.find_document(ref)
        if found is None and ref:
            found = self.store.find_document(str(Path(ref).resolve()))
        return found

    def found(self, ref: str) -> str:
        found = self.find(ref)
        if found is None:
            raise StoreError(f"{self.store.path}: no document {ref!r}; list them with: zoomrag stats --documents")
        return found

    def set_meta(self, value: Mapping[str, str]) -> None:
        with self.lock:
            with self.store.transaction():
                self.store.set_meta(value)
            self.dense.refresh()

    def record_probe(self, choices: Mapping[str, Choice], note: str) -> None:
        """The probe's choice, with the documents it saw and the write generation its own record
        brings the index to (the writes after it are what ``probe_due`` counts)."""
        with self.lock:
            with self.store.transaction():
                self.store.set_meta(probe_value(choices, note, documents=self.store.counts()["documents"],
                                                generation=self.store.generation() + 1))
            self.dense.refresh()

    def prune(self, roots: Iterable[str | Path] | None) -> int:
        with self.lock:
            rs = [str(resolved(Path(r))) for r in roots] if roots is not None else None
            removed = prune_gone(self.store, rs)
            self.dense.refresh()
            return removed

    def vacuum(self) -> int:
        with self.lock:
            dropped = self.store.drop_unused_vectors()
            self.dense.refresh()
            self.store.checkpoint()
            return dropped

    def delete(self, ref: str) -> bool:
        with self.lock:
            found = self.find(ref)
            if found is None:
                return False
            ok = self.store.delete_document(found)
            self.dense.refresh()
            return ok

    def update_metadata(self, ref: str, metadata: Mapping[str, Any], replace: bool) -> None:
        with self.lock:
            found = self.found(ref)
            old = {} if replace else dict(self.store.document_metadata_of(found))
            # stored as JSON: values JSON cannot hold become their text now, not at the next read
            new = json.loads(json.dumps({**old, **dict(metadata)}, ensure_ascii=False, default=str))
            self.store.set_metadata(found, new)
            self.dense.refresh()

"""An index as JSON Lines, so that its content is never in a file only zoomrag can read.

One line per record, read from one committed version of the index:

- ``{"type": "index", ...}`` first: the path, the pinned embedder, chunking and dimension;
- ``{"type": "document", "id", "source", "format", "metadata", "text"}`` for each document,
  followed by its nodes;
- ``{"type": "node", "doc_id", "id", "parent_id", "level", "kind", "start", "end",
  "section_path", "text", "unit"}`` in the tree's order (parents before children), where
  ``text == document.text[start:end]``, ``unit`` says whether the node is an embedded unit,
  ``embed_text`` is what was embedded when it differs from the span, and ``vector`` (with
  ``vectors=True``) is the node's stored float32 vector as a list of numbers.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..store import Pins, Store


def export_records(store: Store, pins: Pins | None, *, vectors: bool = False) -> Iterator[dict[str, Any]]:
    with store.snapshot():
        yield {"type": "index", "path": str(store.path), "embedder": pins.embedder if pins else None,
               "embedder_version": pins.embedder_version if pins else None,
               "dimension": pins.dimension if pins else None,
               "chunking": pins.describe_chunking() if pins else None}
        for row in store.documents():
            tree = store.load_tree(row.id)
            doc = tree.document
            yield {"type": "document", "id": doc.id, "source": doc.source, "format": doc.format,
                   "metadata": dict(row.metadata), "text": doc.text}
            units = {u.id for u in tree.leaves()}
            stored = store.document_vectors(doc.id) if vectors else []
            for i, node in enumerate(tree.nodes):
                rec = {"type": "node", "doc_id": doc.id, **node.to_dict(), "unit": node.id in units}
                if vectors and i < len(stored) and stored[i] is not None:
                    rec["vector"] = np.frombuffer(stored[i], dtype="<f4").tolist()  # type: ignore[arg-type]
                yield rec


def export_jsonl(store: Store, pins: Pins | None, out: Any, *, vectors: bool = False) -> int:
    """Write the records to the text stream ``out``; returns how many documents were written."""
    n = 0
    for rec in export_records(store, pins, vectors=vectors):
        n += rec["type"] == "document"
        out.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return n

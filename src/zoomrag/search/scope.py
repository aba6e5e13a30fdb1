"""A query's filter resolved against one store: the documents it keeps, and why it keeps none.

The selection (document keys and node row ranges, :class:`~zoomrag.store.sqlite.Selection`) is
what the rankers are given: BM25 tests it in SQL, dense search scores only the rows inside it
(:func:`~zoomrag.search.filters.positions`). Selections are kept per store generation, so a
question asked again with the same filter (a chat about one document) costs no look-up.
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from ..store.base import Store
from ..store.sqlite import Selection
from . import filters

#: Selections kept per store handle.
KEEP = 32


def parse(where: Mapping[str, Any] | filters.Filter | None,
          doc: str | Sequence[str] | None) -> filters.Filter | None:
    """The filter of ``where`` and ``doc``. A relative path in ``doc`` also names the absolute
    path it stands for here, since sources are stored as absolute paths."""
    if doc is not None:
        refs = [doc] if isinstance(doc, str) else list(doc)
        doc = list(dict.fromkeys(r2 for r in refs for r2 in _forms(r)))
    return filters.parse(where, doc)


def _forms(ref: Any) -> list[Any]:
    if not isinstance(ref, str) or not ref or os.path.isabs(ref):
        return [ref]
    absolute = os.path.abspath(ref)
    return [ref] if absolute == ref else [ref, absolute]


class Scopes:
    """Resolves filters against one store, keeping the last :data:`KEEP` selections."""

    def __init__(self, store: Store):
        self.store = store
        self._kept: OrderedDict[tuple[int, str], Selection] = OrderedDict()

    def select(self, f: filters.Filter | None, generation: int) -> Selection | None:
        """The documents ``f`` keeps (None: no filter, every document)."""
        if f is None:
            return None
        sql, args = filters.to_sql(f)
        key = (generation, sql + "\x1f" + json.dumps(args, default=str))
        found = self._kept.get(key)
        if found is None:
            found = self.store.select_documents(sql, args)
            self._kept[key] = found
            while len(self._kept) > KEEP:
                self._kept.popitem(last=False)
        else:
            self._kept.move_to_end(key)
        return found

    def notes(self, f: filters.Filter | None) -> list[str]:
        """Why a filter may keep nothing: keys no document has, or no document kept at all."""
        if f is None:
            return []
        wanted = filters.keys(f)
        present = self.store.metadata_keys_present(wanted)
        out = [f"no document has metadata key {k!r}"
               for k in sorted(wanted - present)]
        if len(self.select(f, self.store.generation()) or ()) == 0:
            out.append(f"no document matches {filters.describe(f)}")
        return out

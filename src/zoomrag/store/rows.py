"""The values the :class:`~.base.Store` protocol hands out and takes in, made from the rows both
SQL stores read the same way (their SQL differs, what a row means does not)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from ..model import Node


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
class Reading:
    """How a stored document's tree was made: the format its text was read as, and the
    :data:`~zoomrag.parse.PARSER_VERSION` of the readers and chunkers that made it (0: stored
    before versions were recorded). Either differing from now's makes another tree of the same text."""

    format: str
    parser: int


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

    @staticmethod
    def query(condition: str) -> str:
        """The statement of :meth:`Store.select_documents`, its ``condition`` over ``documents d``."""
        return f"SELECT d.key, d.first_row, d.node_count, d.id FROM documents d WHERE {condition} ORDER BY d.first_row"

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence]) -> Selection:
        """The selection of the rows of :meth:`query`."""
        return cls(np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)),
                   np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows)),
                   np.fromiter((r[2] for r in rows), dtype=np.int64, count=len(rows)),
                   tuple(r[3] for r in rows))


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


@dataclass(frozen=True, slots=True)
class Placed:
    """Where a document's rows are: its key and its nodes' row range."""

    key: int
    first: int
    count: int

"""Values: documents, the span tree over them, and what a query returns.

Everything is a span: a node's text is ``document.text[start:end]``, never a copy. A node
keeps a reference to its document's text (strings are shared, not duplicated) so that
``node.text`` works without a tree at hand.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import and_, attrgetter, gt, not_
from types import MappingProxyType
from typing import Any

from .errors import SpanError

#: Content types a reader gives to blocks; the router maps them to strategies.
CONTENT_TYPES = ("text", "heading", "table", "code", "list")


def content_hash(text: str) -> str:
    """Stable hash of a document's normalised text (hex sha256)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def node_id(doc_id: str, kind: str, level: int, start: int, end: int) -> str:
    """Deterministic node id.

    Level is part of the key because a parent and its only child may share kind and span
    (a short section in a hierarchical tree); they must still be two distinct nodes.
    """
    key = f"{doc_id}\x1f{kind}\x1f{level}\x1f{start}\x1f{end}".encode()
    return hashlib.blake2b(key, digest_size=8).hexdigest()


@dataclass(frozen=True, slots=True)
class Block:
    """A typed region of a document found by its reader (heading, table, code, ...)."""

    start: int
    end: int
    type: str
    #: Heading level (1-6) for headings, 0 otherwise.
    level: int = 0
    #: Reader-specific facts, e.g. ``{"language": "python"}`` for code.
    meta: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end:
            raise SpanError(f"block span [{self.start}, {self.end}) is not ordered")
        if self.type not in CONTENT_TYPES:
            raise SpanError(f"block type {self.type!r} is not one of {', '.join(CONTENT_TYPES)}")


@dataclass(frozen=True, slots=True)
class Document:
    """A source document: the exact normalised text that every offset points into."""

    id: str
    source: str
    text: str
    format: str = "text"
    content_hash: str = ""
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    #: Typed regions from the reader, in document order; empty when the reader found none.
    blocks: tuple[Block, ...] = ()
    #: Reads the text of a document made by :meth:`deferred`, once (None after that, and for others).
    _read: Callable[[], str] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.content_hash:
            object.__setattr__(self, "content_hash", content_hash(self.text))
        n = len(self.text)
        for b in self.blocks:
            if b.end > n:
                raise SpanError(f"block [{b.start}, {b.end}) of {self.source!r} ends past the text ({n})")

    @classmethod
    def deferred(cls, *, id: str, source: str, read: Callable[[], str], format: str = "text",
                 content_hash: str, metadata: Mapping[str, Any] | None = None) -> Document:
        """A stored document whose text is read (``read()``) the first time ``text`` is asked for.

        A query's partial trees reach dozens of documents and read the text of a few; stored
        text is compressed, so the others are never decompressed. Otherwise an ordinary
        Document: ``text`` is a plain ``str`` once read, equal to what ``read()`` returned.
        """
        doc = object.__new__(cls)
        put = object.__setattr__
        put(doc, "id", id)
        put(doc, "source", source)
        put(doc, "format", format)
        put(doc, "content_hash", content_hash)
        if not isinstance(metadata, MappingProxyType):
            metadata = MappingProxyType(dict(metadata or {}))
        put(doc, "metadata", metadata)
        put(doc, "blocks", ())
        put(doc, "_read", read)
        return doc

    def __getattr__(self, name: str) -> Any:
        # Reached only for a name with no value: here, the text of a deferred document not read yet.
        if name == "text":
            read = object.__getattribute__(self, "_read")
            if read is not None:
                text = read()
                object.__setattr__(self, "text", text)
                object.__setattr__(self, "_read", None)
                return text
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @classmethod
    def from_text(cls, text: str, *, id: str = "doc", source: str = "<text>", format: str = "text",
                  metadata: Mapping[str, Any] | None = None) -> Document:
        """A document from a string (newlines are normalised, as a reader would)."""
        from .load.normalize import normalize_newlines

        return cls(id=id, source=source, text=normalize_newlines(text), format=format,
                   metadata=MappingProxyType(dict(metadata or {})))


@dataclass(frozen=True, slots=True)
class Node:
    """One span of the tree. ``text`` is ``document.text[start:end]``."""

    id: str
    doc_id: str
    kind: str
    level: int
    start: int
    end: int
    parent_id: str | None
    children: tuple[str, ...] = ()
    section_path: tuple[str, ...] = ()
    #: What is embedded when it must differ from the span (header-propagated row, heading prefix).
    embed_text: str | None = None
    #: The document's text (a :class:`DeferredText` for a deferred document's nodes).
    doc_text: str | DeferredText = field(default="", repr=False, compare=False)

    @property
    def text(self) -> str:
        return self.doc_text[self.start:self.end]

    @property
    def length(self) -> int:
        return self.end - self.start

    @property
    def is_leaf(self) -> bool:
        return not self.children

    def to_dict(self, *, with_text: bool = True) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": self.id,
            "parent_id": self.parent_id,
            "level": self.level,
            "kind": self.kind,
            "start": self.start,
            "end": self.end,
            "section_path": list(self.section_path),
        }
        if with_text:
            d["text"] = self.text
        if self.embed_text is not None:
            d["embed_text"] = self.embed_text
        return d


class DeferredText:
    """What the nodes of a :meth:`Document.deferred` hold as ``doc_text``: sliced, it reads the
    document's text (once, for all its nodes), so ``node.text == document.text[start:end]``."""

    __slots__ = ("document",)

    def __init__(self, document: Document):
        self.document = document

    def __getitem__(self, key: slice) -> str:
        return self.document.text[key]

    def __len__(self) -> int:
        return len(self.document.text)

    def __str__(self) -> str:
        return self.document.text


# A frozen dataclass's __init__ goes through object.__setattr__ once per field. Building the
# nodes of a tree is hot, so tree builders use new_node: plain slot stores on an instance of a
# mutable class with the very same slots, whose class is then switched to Node. Python allows
# that switch only between classes of identical layout, so the result is an ordinary Node.
class NodeDraft:
    """A mutable stand-in with Node's slots, for tree builders (see :func:`new_node`)."""

    __slots__ = Node.__slots__

    def __init__(self, id: str, doc_id: str, kind: str, level: int, start: int, end: int,
                 parent_id: str | None, children: tuple[str, ...], section_path: tuple[str, ...],
                 embed_text: str | None, doc_text: str | DeferredText) -> None:
        self.id = id
        self.doc_id = doc_id
        self.kind = kind
        self.level = level
        self.start = start
        self.end = end
        self.parent_id = parent_id
        self.children = children
        self.section_path = section_path
        self.embed_text = embed_text
        self.doc_text = doc_text


def new_node(id: str, doc_id: str, kind: str, level: int, start: int, end: int,
             parent_id: str | None, children: tuple[str, ...], section_path: tuple[str, ...],
             embed_text: str | None, doc_text: str | DeferredText) -> Node:
    """``Node(...)`` with every field given, in order, without the frozen ``__init__``.

    The result is an ordinary frozen Node (Node has no ``__post_init__`` to skip).
    """
    node = NodeDraft(id, doc_id, kind, level, start, end, parent_id, children, section_path,
                      embed_text, doc_text)
    node.__class__ = Node  # type: ignore[assignment]
    return node  # type: ignore[return-value]


_ID, _CHILDREN, _LEVEL = attrgetter("id"), attrgetter("children"), attrgetter("level")


@dataclass(frozen=True, init=False)
class Tree:
    """A document and its nodes in pre-order (document order, parents before children)."""

    document: Document
    nodes: tuple[Node, ...]
    #: The strategy (and its parameters) that built the tree, for provenance.
    strategy: str = ""
    _by_id: Mapping[str, Node] = field(init=False, repr=False, compare=False)
    # Made on first use (see __getattr__): most trees are written or embedded without ever
    # asking for a neighbouring leaf, and chunking alone asks for neither.
    _leaf_ids: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _leaf_pos: Mapping[str, int] = field(init=False, repr=False, compare=False)

    def __init__(self, document: Document, nodes: tuple[Node, ...], strategy: str = "") -> None:
        by_id = {n.id: n for n in nodes}
        if len(by_id) != len(nodes):
            raise SpanError("two nodes share an id (same kind, level and span)")
        # Frozen: the fields go into the instance dict at once, which costs half of what the
        # generated __init__ (one object.__setattr__ per field) does for a short document's tree.
        self.__dict__.update(document=document, nodes=nodes, strategy=strategy,
                             _by_id=MappingProxyType(by_id))

    def __getattr__(self, name: str) -> Any:
        # Reached only for an attribute with no value: here, a leaf map not made yet. Each is a
        # function of the nodes alone, so two threads making one at once store equal values.
        if name == "_leaf_ids":
            nodes = self.nodes
            # n.is_leaf and n.level > 0
            value: Any = tuple(compress(map(_ID, nodes), map(and_, map(not_, map(_CHILDREN, nodes)),
                                                             map(gt, map(_LEVEL, nodes), repeat(0)))))
        elif name == "_leaf_pos":
            leaves = self._leaf_ids
            value = MappingProxyType(dict(zip(leaves, range(len(leaves)))))
        else:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        object.__setattr__(self, name, value)
        return value

    # -- lookups -----------------------------------------------------------------------
    @property
    def root(self) -> Node:
        return self.nodes[0]

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes)

    def __getitem__(self, node_id: str) -> Node:
        return self._by_id[node_id]

    def get(self, node_id: str) -> Node | None:
        return self._by_id.get(node_id)

    def parent(self, node: Node) -> Node | None:
        return None if node.parent_id is None else self._by_id[node.parent_id]

    def children(self, node: Node) -> list[Node]:
        return [self._by_id[c] for c in node.children]

    def ancestors(self, node: Node) -> list[Node]:
        """Parent first, root last."""
        out = []
        p = self.parent(node)
        while p is not None:
            out.append(p)
            p = self.parent(p)
        return out

    def siblings(self, node: Node) -> list[Node]:
        """The other children of the node's parent, in order."""
        p = self.parent(node)
        return [] if p is None else [c for c in self.children(p) if c.id != node.id]

    def leaves(self) -> list[Node]:
        """Leaves in document order. A tree with no leaves (empty document) returns []."""
        return [self._by_id[i] for i in self._leaf_ids]

    def previous_leaf(self, node: Node) -> Node | None:
        """The leaf before this one, across parent boundaries."""
        k = self._leaf_pos.get(node.id)
        return None if k is None or k == 0 else self._by_id[self._leaf_ids[k - 1]]

    def next_leaf(self, node: Node) -> Node | None:
        """The leaf after this one, across parent boundaries."""
        k = self._leaf_pos.get(node.id)
        if k is None or k + 1 >= len(self._leaf_ids):
            return None
        return self._by_id[self._leaf_ids[k + 1]]

    def depth(self) -> int:
        """Deepest level in the tree (0 for a root with no children)."""
        return max((n.level for n in self.nodes), default=0)

    def at_level(self, level: int) -> list[Node]:
        return [n for n in self.nodes if n.level == level]

    # -- serialisation -----------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        d = self.document
        return {
            "document": {"id": d.id, "source": d.source, "format": d.format, "length": len(d.text)},
            "nodes": [n.to_dict() for n in self.nodes],
        }

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, **kwargs)


@dataclass(frozen=True, slots=True)
class Hit:
    """One matched unit from a ranker (or fused): the node and each ranker's score and rank."""

    node_id: str
    doc_id: str
    start: int
    end: int
    score: float
    #: Per ranker: ``{"dense": (score, rank), "bm25": (score, rank)}`` (rank from 1).
    ranks: Mapping[str, tuple[float, int]] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True, slots=True)
class Context:
    """A returned span: what the reader model sees, with the hits that produced it."""

    doc_id: str
    source: str
    start: int
    end: int
    text: str
    score: float
    section_path: tuple[str, ...] = ()
    level: int = 0
    kind: str = ""
    #: ``(start, end, score)`` of each matched unit inside this context.
    hits: tuple[tuple[int, int, float], ...] = ()
    #: Why this context was returned, e.g. ``"merged 3/4 children"``; shown by ``--explain``.
    rule: str = ""
    #: The metadata of the context's document (as given at add time, front matter included).
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def to_dict(self) -> dict[str, Any]:
        return {
            "doc_id": self.doc_id,
            "source": self.source,
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "section_path": list(self.section_path),
            "score": self.score,
            "hits": [{"start": s, "end": e, "score": sc} for s, e, sc in self.hits],
            "metadata": dict(self.metadata),
        }

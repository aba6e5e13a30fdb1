"""Values: documents, the span tree over them, and what a query returns.

Everything is a span: a node's text is ``document.text[start:end]``, never a copy. A node
keeps a reference to its document's text (strings are shared, not duplicated) so that
``node.text`` works without a tree at hand.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import and_, attrgetter, gt, not_
from types import MappingProxyType
from typing import Any, NamedTuple, Protocol
from urllib.parse import quote

from .errors import SpanError

#: Content types a reader gives to blocks; the router maps them to strategies.
CONTENT_TYPES = ("text", "heading", "table", "code", "list")
#: Kinds of the nodes that hold code: a code block, or a definition inside one.
CODE_KINDS = frozenset({"code", "function", "method", "class"})


_EMPTY: Mapping[str, Any] = MappingProxyType({})


def normalize_newlines(text: str) -> str:
    """CRLF and lone CR become LF; a leading BOM is dropped (every reader's text is so
    normalised, and offsets point into the normalised text)."""
    text = text.removeprefix("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def content_hash(text: str) -> str:
    """Stable hash of a document's normalised text (hex sha256)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def node_id(doc_id: str, kind: str, level: int, start: int, end: int) -> str:
    """Deterministic node id.

    Level is part of the key because a parent and its only child may share kind and span
    (a short section in a hierarchical tree); they must still be two distinct nodes.
    """
    return node_ids(doc_id, ((kind, level, start, end),))[0]


def node_ids(doc_id: str, spans: Iterable[tuple[str, int, int, int]]) -> list[str]:
    """:func:`node_id` of each ``(kind, level, start, end)`` of one document: the key's part
    before the span is hashed once per kind and level and the hasher copied (as the chunkers'
    tree builder does): a stored tree's ids are hashed in about half the time."""
    heads: dict[tuple[str, int], Any] = {}
    out = []
    for kind, level, start, end in spans:
        head = heads.get((kind, level))
        if head is None:
            head = heads[kind, level] = hashlib.blake2b(f"{doc_id}\x1f{kind}\x1f{level}\x1f".encode(), digest_size=8)
        h = head.copy()
        h.update(b"%d\x1f%d" % (start, end))
        out.append(h.hexdigest())
    return out


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


class TextSource:
    """Where a stored document's text comes from: ``read()`` is called once, the first time the
    text is asked for, and the text kept.

    A query's partial trees reach dozens of documents and read the text of a few; stored text
    is compressed, so the others are never decompressed. Slicing it reads the text, so a node
    holding one as ``doc_text`` still has ``node.text == document.text[start:end]``.
    """

    __slots__ = ("_lock", "_read", "_text")

    def __init__(self, read: Callable[[], str]) -> None:
        self._read: Callable[[], str] | None = read
        self._text: str | None = None
        self._lock = threading.Lock()  # one tree may be read by several threads

    def text(self) -> str:
        text = self._text
        if text is None:
            with self._lock:
                if self._text is None:
                    self._text = self._read()  # type: ignore[misc]
                    self._read = None
                text = self._text
        return text

    @property
    def is_read(self) -> bool:
        return self._text is not None

    def __getitem__(self, key: slice) -> str:
        return self.text()[key]

    def __len__(self) -> int:
        return len(self.text())

    def __str__(self) -> str:
        return self.text()


@dataclass(slots=True, eq=False)
class Document:
    """A source document: the exact normalised text that every offset points into.

    Not frozen: ``content_hash`` is filled from the text when not given. Treat it as a value.
    """

    id: str
    source: str
    text: str
    format: str = "text"
    content_hash: str = ""
    metadata: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    #: Typed regions from the reader, in document order; empty when the reader found none.
    blocks: tuple[Block, ...] = ()

    def __post_init__(self) -> None:
        if not self.content_hash:
            self.content_hash = content_hash(self.text)
        n = len(self.text)
        for b in self.blocks:
            if b.end > n:
                raise SpanError(f"block [{b.start}, {b.end}) of {self.source!r} ends past the text ({n})")

    def __eq__(self, other: object) -> bool:
        # By value, whether the text is held or comes from a TextSource (a StoredDocument).
        if not isinstance(other, Document):
            return NotImplemented
        return (self.id, self.source, self.format, self.content_hash, self.metadata, self.blocks,
                self.text) == (other.id, other.source, other.format, other.content_hash, other.metadata,
                               other.blocks, other.text)

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def deferred(cls, *, id: str, source: str, read: Callable[[], str], format: str = "text",
                 content_hash: str, metadata: Mapping[str, Any] | None = None) -> StoredDocument:
        """A stored document whose text is read (``read()``) the first time ``text`` is asked for
        (see :class:`StoredDocument`)."""
        if not isinstance(metadata, MappingProxyType):
            metadata = MappingProxyType(dict(metadata or {}))
        return StoredDocument(id=id, source=source, text_source=TextSource(read), format=format,
                              content_hash=content_hash, metadata=metadata)

    @classmethod
    def from_text(cls, text: str, *, id: str = "doc", source: str = "<text>", format: str = "text",
                  metadata: Mapping[str, Any] | None = None) -> Document:
        """A document from a string as it is (newlines are normalised, as a reader would): no
        reader runs, so ``format`` only names it. Markdown, HTML, CSV... are read by their
        reader with :func:`zoomrag.read_text` (code blocks, tables, a page's text and not its
        tags)."""
        return cls(id=id, source=source, text=normalize_newlines(text), format=format,
                   metadata=MappingProxyType(dict(metadata or {})))


class StoredDocument(Document):
    """A Document whose text comes from an explicit :class:`TextSource`, read when first asked
    for; otherwise an ordinary Document (``text`` is a plain ``str`` once read)."""

    __slots__ = ("text_source",)

    def __init__(self, *, id: str, source: str, text_source: TextSource, format: str = "text",
                 content_hash: str, metadata: Mapping[str, Any] = _EMPTY) -> None:
        self.id = id
        self.source = source
        self.format = format
        self.content_hash = content_hash
        self.metadata = metadata
        self.blocks = ()
        self.text_source = text_source

    @property
    def text(self) -> str:  # type: ignore[override]  # read-only here: the text is stored
        return self.text_source.text()


class Node(NamedTuple):
    """One span of the tree. ``text`` is ``document.text[start:end]``.

    An immutable named tuple rather than a frozen dataclass: a tree builder makes one per node,
    and a frozen dataclass's ``__init__`` costs five times as much (a guarded attribute set
    per field), a tenth of the chunking time of the strategies with many small leaves.
    """

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
    #: The document's text (its :class:`TextSource` for a stored document's nodes).
    doc_text: str | TextSource = ""

    @property
    def text(self) -> str:
        return self.doc_text[self.start:self.end]

    @property
    def length(self) -> int:
        return self.end - self.start

    def __repr__(self) -> str:  # without doc_text, the whole document
        return (f"Node(id={self.id!r}, doc_id={self.doc_id!r}, kind={self.kind!r}, level={self.level}, "
                f"start={self.start}, end={self.end}, parent_id={self.parent_id!r}, "
                f"children={self.children!r}, section_path={self.section_path!r}, "
                f"embed_text={self.embed_text!r})")

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


_ID, _CHILDREN, _LEVEL = attrgetter("id"), attrgetter("children"), attrgetter("level")


@dataclass(slots=True)
class Tree:
    """A document and its nodes in pre-order (document order, parents before children).

    Not frozen: the lookups by id and the leaf order are made here, once. Treat it as a value.
    """

    document: Document
    nodes: tuple[Node, ...]
    #: The strategy (and its parameters) that built the tree, for provenance.
    strategy: str = ""
    _by_id: dict[str, Node] = field(init=False, repr=False, compare=False)
    _leaf_ids: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _leaf_pos: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        nodes = self.nodes
        by_id = {n.id: n for n in nodes}
        if len(by_id) != len(nodes):
            raise SpanError("two nodes share an id (same kind, level and span)")
        self._by_id = by_id
        # n.id for the nodes with no children and level > 0, without a Python step per node
        leaves = tuple(compress(map(_ID, nodes), map(and_, map(not_, map(_CHILDREN, nodes)),
                                                     map(gt, map(_LEVEL, nodes), repeat(0)))))
        self._leaf_ids = leaves
        self._leaf_pos = dict(zip(leaves, range(len(leaves))))

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


class TreeSource(Protocol):
    """Gives the stored tree of a document (an index caches them; the expansion policies and
    the reranker read through it)."""

    def tree(self, doc_id: str) -> Tree: ...


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
    #: Other documents with a unit of the same text, which search ranked once: this one.
    copies: tuple[str, ...] = ()


#: The document metadata key of an HTML page's named headings: ``[[offset, fragment], ...]``,
#: where each heading starts in the text; a context's :attr:`Context.anchor` is read from it.
ANCHORS_KEY = "anchors"
#: What a URL's fragment holds unescaped (RFC 3986: pchar, "/" and "?").
_FRAGMENT_SAFE = "!$&'()*+,;=:@/?-._~"


def anchor_at(metadata: Mapping[str, Any], offset: int) -> str:
    """The fragment of the last named heading starting at or before ``offset`` ("" if none)."""
    found = ""
    for start, name in metadata.get(ANCHORS_KEY) or ():
        if start > offset:
            break
        found = name
    return found


def best_anchor(metadata: Mapping[str, Any], hits: Iterable[tuple[int, int, float]], start: int) -> str:
    """The fragment a context links to: the section of its best-scored hit (a context grown
    around it may start far above), else of its start."""
    best = max(hits, key=lambda h: h[2], default=None)
    return anchor_at(metadata, best[0] if best is not None else start)


def shown_metadata(metadata: Mapping[str, Any]) -> Mapping[str, Any]:
    """A document's metadata as a result shows it: without what only places its parts
    (:data:`ANCHORS_KEY`: a context says its own ``anchor``)."""
    if ANCHORS_KEY not in metadata:
        return metadata
    return MappingProxyType({k: v for k, v in metadata.items() if k != ANCHORS_KEY})


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
    #: The exact spans the context is made of, in text order, when there is more than one (a
    #: table's header row, then its rows; a signature, then code from inside its definition; a
    #: footnote and the sentence citing it); empty when it is the one span ``[start, end)``. With
    #: spans, ``start``/``end`` are the first span's start and the last one's end, and ``text``
    #: is the spans' texts joined by a line break (a header and rows read as one table).
    spans: tuple[tuple[int, int], ...] = ()

    def parts(self) -> tuple[tuple[int, int], ...]:
        """Every exact span of the context: ``spans``, or ``((start, end),)``."""
        return self.spans or ((self.start, self.end),)
    #: The metadata of the context's document (as given at add time, front matter included).
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    #: Ids of other documents holding this text, left out for it: the same text as the context
    #: (whitespace aside), or as most of what matched in it.
    copies: tuple[str, ...] = ()
    #: ``(first, last)`` page the context lies on, from 1, in a document with pages: a PDF or a
    #: slide deck (a slide a page), whose readers part pages with form feeds, as paged plain texts
    #: (an RFC) have them; empty for a document without.
    pages: tuple[int, ...] = ()
    #: The fragment naming the section of the context's best match, when its page names its
    #: sections (an HTML page's heading ids: ``with-pip``); "" otherwise.
    anchor: str = ""

    @property
    def link(self) -> str:
        """Where a browser opens the context: the source, at the section of its best match when
        the page names it (``https://x.org/install.html#with-pip``)."""
        return f"{self.source}#{quote(self.anchor, safe=_FRAGMENT_SAFE)}" if self.anchor else self.source

    def to_dict(self) -> dict[str, Any]:
        return {
            "doc_id": self.doc_id,
            "source": self.source,
            "link": self.link,
            "anchor": self.anchor,
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "section_path": list(self.section_path),
            "score": self.score,
            "hits": [{"start": s, "end": e, "score": sc} for s, e, sc in self.hits],
            "spans": [{"start": s, "end": e} for s, e in self.parts()],
            "metadata": dict(self.metadata),
            "copies": list(self.copies),
            "pages": list(self.pages),
        }

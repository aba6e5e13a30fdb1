"""The chunker role: a strategy turns a Document into a tree of spans.

A strategy writes one method, :meth:`Chunker.split`, that returns the root's children as
:class:`Span` drafts (mutable, nested). :meth:`Chunker.chunk` turns the drafts into a frozen
:class:`~zoomrag.model.Tree`: ids, levels and parent links are derived here, once, and the
invariants are checked here, once, so no strategy can hand out a broken tree.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from hashlib import blake2b
from typing import Any, ClassVar

from ..errors import SpanError
from ..model import Document, Node, Tree, new_node, node_id
from ..text.tokens import Measure, get_counter


@dataclass(slots=True)
class Span:
    """A draft node: kind and [start, end) in the document, with nested children."""

    kind: str
    start: int
    end: int
    children: list[Span] = field(default_factory=list)
    section_path: tuple[str, ...] = ()
    embed_text: str | None = None


def build_tree(document: Document, spans: Iterable[Span], strategy: str = "") -> Tree:
    """Freeze drafts into a Tree under a ``document`` root, checking every invariant."""
    text = document.text
    n = len(text)
    doc_id = document.id
    root = Span("document", 0, n, list(spans))
    nodes: list[Node] = []
    emit = nodes.append
    make = new_node
    # Iterative pre-order walk: a deep tree must not hit the recursion limit. Children that are
    # all leaves (most of them) are emitted right after their parent, without the stack.
    root_id = node_id(doc_id, root.kind, 0, 0, n)
    stack: list[tuple[Span, str, int, str | None, tuple[str, ...]]] = [(root, root_id, 0, None, ())]
    pop, push = stack.pop, stack.append
    while stack:
        span, nid, level, parent_id, inherited_path = pop()
        start, end, kids = span.start, span.end, span.children
        if not 0 <= start <= end <= n:
            raise _outside(span, document)
        path = span.section_path or inherited_path
        if not kids:
            emit(make(nid, doc_id, span.kind, level, start, end, parent_id, (), path,
                      span.embed_text, text))
            continue
        below = level + 1
        child_ids, nested = _child_ids(document, span, below)
        emit(make(nid, doc_id, span.kind, level, start, end, parent_id, child_ids, path,
                  span.embed_text, text))
        if nested:
            for c, cid in zip(reversed(kids), reversed(child_ids)):
                push((c, cid, below, nid, path))
            continue
        for c, cid in zip(kids, child_ids):
            if c.start > c.end:  # inside the parent, so only its order can be wrong
                raise _outside(c, document)
            emit(make(cid, doc_id, c.kind, below, c.start, c.end, nid, (), c.section_path or path,
                      c.embed_text, text))
    return Tree(document=document, nodes=tuple(nodes), strategy=strategy)


def _child_ids(document: Document, span: Span, level: int) -> tuple[tuple[str, ...], bool]:
    """The ids of ``span``'s children at ``level``, after checking their place, and whether
    any child has children of its own."""
    start, end = span.start, span.end
    ids = []
    add = ids.append
    # model.node_id's key is doc_id, kind, level, start, end: the hash state after the first
    # three is computed once per kind and copied (siblings mostly share their kind).
    kind = head = None
    prev_start = prev_end = -1
    prev: Span | None = None
    nested = False
    for c in span.children:
        cs, ce = c.start, c.end
        if cs < start or ce > end:
            raise SpanError(
                f"{c.kind} [{cs}, {ce}) is not inside its parent {span.kind} "
                f"[{start}, {end}) in {document.source!r}"
            )
        if cs < prev_start or ce < prev_end:
            raise SpanError(
                f"siblings out of order in {document.source!r}: {prev.kind} "  # type: ignore[union-attr]
                f"[{prev_start}, {prev_end}) then {c.kind} [{cs}, {ce})"
            )
        prev, prev_start, prev_end = c, cs, ce
        if c.children:
            nested = True
        if c.kind != kind:
            kind = c.kind
            head = blake2b(f"{document.id}\x1f{kind}\x1f{level}\x1f".encode(), digest_size=8)
        h = head.copy()  # type: ignore[union-attr]
        h.update(f"{cs}\x1f{ce}".encode())
        add(h.hexdigest())
    return tuple(ids), nested


def _outside(span: Span, document: Document) -> SpanError:
    return SpanError(
        f"{span.kind} span [{span.start}, {span.end}) lies outside the text of "
        f"{document.source!r} (length {len(document.text)})"
    )


class Chunker(ABC):
    """Base of every strategy. Subclasses are frozen dataclasses of their parameters.

    Parameters are checked in ``__post_init__`` (see :mod:`zoomrag.parse.params`) so a bad
    value fails at construction, naming the value and the allowed range.
    """

    #: Registry name, e.g. ``"fixed"``.
    name: ClassVar[str] = ""

    @abstractmethod
    def split(self, document: Document) -> list[Span]:
        """The root's children for this document (an empty list for an empty document)."""

    def chunk(self, document: Document) -> Tree:
        return build_tree(document, self.split(document), strategy=self.describe())

    def split_range(self, document: Document, start: int, end: int) -> list[Span]:
        """Spans for ``document.text[start:end]`` only, in the document's offsets.

        The router uses this to hand a table or code block inside a section to the table or
        code strategy. The default runs :meth:`split` on a sub-document and shifts the result;
        a strategy may override it with something cheaper.
        """
        sub = Document(
            id=document.id, source=document.source, text=document.text[start:end],
            format=document.format, content_hash="-", metadata=document.metadata,
            blocks=tuple(
                dataclasses.replace(b, start=max(b.start, start) - start, end=min(b.end, end) - start)
                for b in document.blocks if b.start < end and b.end > start
            ),
        )
        spans = self.split(sub)
        if start:
            _shift(spans, start)
        return spans

    def params(self) -> dict[str, Any]:
        if dataclasses.is_dataclass(self):
            return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return {}

    def describe(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{self.name}({args})"


def _shift(spans: list[Span], delta: int) -> None:
    stack = list(spans)
    while stack:
        sp = stack.pop()
        sp.start += delta
        sp.end += delta
        stack.extend(sp.children)


def measure_for(document: Document, unit: str) -> Measure:
    """Token positions of a document in ``unit`` (``tokens``, ``chars``, ``approx``, ...)."""
    return Measure(document.text, get_counter(unit))

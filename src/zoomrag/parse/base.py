"""The chunker role: a strategy turns a Document into a tree of spans.

A strategy writes one method, :meth:`Chunker.split`, that returns the root's children as
:class:`Span` drafts (mutable, nested). :meth:`Chunker.chunk` turns the drafts into a frozen
:class:`~zoomrag.model.Tree`: ids, levels and parent links are derived here, once, and the
invariants are checked here, once, so no strategy can hand out a broken tree.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from hashlib import blake2b
from typing import Any, ClassVar

from ..errors import SpanError
from ..model import Document, Node, Tree, node_id
from ..registry import user_fields
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
    """Freeze drafts into a Tree under a ``document`` root, checking every invariant.

    The checks run in a fixed order, which decides the error a draft with several faults gets:
    a parent's children are checked (inside the parent, in order) before any of them is
    visited; then, in pre-order, each child's own span (``start <= end``) and its children.
    """
    text = document.text
    n = len(text)
    doc_id = document.id
    node = Node
    nodes: list[Node] = []
    emit, emit_all = nodes.append, nodes.extend
    # model.node_id's key is doc_id, kind, level, start, end: the hash state after the first
    # three is computed once per kind and level and copied for each node.
    heads: dict[tuple[str, int], Any] = {}
    # Iterative pre-order walk (a deep tree must not hit the recursion limit). The stack holds
    # what comes next in pre-order: a span still to visit, as (span, id, level, parent id,
    # inherited section path), or a list of leaf nodes already made, in order. Leaves are made
    # in their parent's loop below, which is where the time goes (once per node).
    root = Span("document", 0, n, list(spans))
    stack: list[Any] = [(root, node_id(doc_id, root.kind, 0, 0, n), 0, None, ())]
    pop, push_all = stack.pop, stack.extend
    while stack:
        item = pop()
        if item.__class__ is list:
            emit_all(item)
            continue
        span, pid, level, parent_id, path = item
        start, end, kids = span.start, span.end, span.children
        if not 0 <= start <= end <= n:
            raise _outside(span, document)
        path = span.section_path or path
        # The node's place is taken now (pre-order); it is made once its children's ids are known.
        at = len(nodes)
        emit(None)  # type: ignore[arg-type]
        level += 1
        ids: list[str] = []
        add = ids.append
        run: list[Node] = []  # leaf nodes since the last child to visit
        keep = run.append
        later: list[Any] | None = None  # the stack items, in order, once some child is to visit
        kind = head = None
        prev_start = prev_end = -1
        prev: Span | None = None
        for c in kids:
            cs, ce = c.start, c.end
            if cs < start or ce > end:
                raise SpanError(
                    f"{c.kind} [{cs}, {ce}) is not inside its parent {span.kind} "
                    f"[{start}, {end}) in {document.source!r}"
                )
            if (cs < prev_start or ce < prev_end) and prev is not None:
                raise SpanError(
                    f"siblings out of order in {document.source!r}: {prev.kind} "
                    f"[{prev_start}, {prev_end}) then {c.kind} [{cs}, {ce})"
                )
            prev, prev_start, prev_end = c, cs, ce
            if c.kind != kind:
                kind = c.kind
                head = heads.get((kind, level))
                if head is None:
                    head = heads[kind, level] = blake2b(f"{doc_id}\x1f{kind}\x1f{level}\x1f".encode(),
                                                        digest_size=8)
            h = head.copy()  # type: ignore[union-attr]
            h.update(b"%d\x1f%d" % (cs, ce))
            cid = h.hexdigest()
            add(cid)
            # To visit: children of its own, or a span ending before it starts (its error in its turn)
            if c.children or cs > ce:
                if later is None:
                    later = []
                if run:
                    later.append(run)
                    run = []
                    keep = run.append
                later.append((c, cid, level, pid, path))
                continue
            keep(node(cid, doc_id, c.kind, level, cs, ce, pid, (), c.section_path or path, c.embed_text, text))
        nodes[at] = node(pid, doc_id, span.kind, level - 1, start, end, parent_id, tuple(ids), path,
                         span.embed_text, text)
        if later is None:  # every child a leaf (or none): the common case
            emit_all(run)
        else:
            if run:
                later.append(run)
            push_all(reversed(later))
    return Tree(document=document, nodes=tuple(nodes), strategy=strategy)


def unwrap(parent: Span, children: list[Span]) -> list[Span]:
    """Children without a level that repeats the parent: one child over the same span is
    replaced by its own children (a one-paragraph section goes straight to sentences)."""
    while len(children) == 1 and (children[0].start, children[0].end) == (parent.start, parent.end):
        children = children[0].children
    return children


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

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> Chunker:
        """The strategy with these parameters (typed already); a strategy whose defaults depend
        on other parameters fills them in here, before its frozen fields are set."""
        return cls(**params)

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
            return {f.name: getattr(self, f.name) for f in user_fields(self)}
        return {}

    def describe(self) -> str:
        # Made once per chunker (its parameters are frozen): chunk() asks once per document.
        text = self.__dict__.get("_description")
        if text is None:
            args = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
            text = self.__dict__["_description"] = f"{self.name}({args})"
        return text


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

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
from typing import Any, ClassVar

from ..errors import SpanError
from ..model import Document, Node, Tree, node_id
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
    root = Span("document", 0, n, list(spans))
    nodes: list[Node] = []

    # Iterative pre-order walk: a deep tree must not hit the recursion limit.
    root_id = node_id(document.id, root.kind, 0, 0, n)
    stack: list[tuple[Span, str, int, str | None, tuple[str, ...]]] = [(root, root_id, 0, None, ())]
    while stack:
        span, nid, level, parent_id, inherited_path = stack.pop()
        if not 0 <= span.start <= span.end <= n:
            raise SpanError(
                f"{span.kind} span [{span.start}, {span.end}) lies outside the text of "
                f"{document.source!r} (length {n})"
            )
        path = span.section_path or inherited_path
        child_ids = []
        prev: Span | None = None
        for c in span.children:
            if c.start < span.start or c.end > span.end:
                raise SpanError(
                    f"{c.kind} [{c.start}, {c.end}) is not inside its parent {span.kind} "
                    f"[{span.start}, {span.end}) in {document.source!r}"
                )
            if prev is not None and (c.start < prev.start or c.end < prev.end):
                raise SpanError(
                    f"siblings out of order in {document.source!r}: {prev.kind} "
                    f"[{prev.start}, {prev.end}) then {c.kind} [{c.start}, {c.end})"
                )
            prev = c
            child_ids.append(node_id(document.id, c.kind, level + 1, c.start, c.end))
        nodes.append(Node(
            id=nid, doc_id=document.id, kind=span.kind, level=level, start=span.start,
            end=span.end, parent_id=parent_id, children=tuple(child_ids), section_path=path,
            embed_text=span.embed_text, doc_text=text,
        ))
        for c, cid in zip(reversed(span.children), reversed(child_ids)):
            stack.append((c, cid, level + 1, nid, path))
    return Tree(document=document, nodes=tuple(nodes), strategy=strategy)


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

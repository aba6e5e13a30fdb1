"""References: the type a schema's field names, the ``$ref`` of an API description, and the
definition each points to.

A GraphQL field reads ``enforcement: RuleEnforcement!`` and a mutation ``createLinkedBranch(input:
CreateLinkedBranchInput!)``: what the values are, what to pass, is written where that type is
defined, often far from the field. A protocol buffer's field names its message the same way
(``repeated Violation violations = 1;``), and an OpenAPI operation its body's schema
(``$ref: '#/components/schemas/CreateRepoOption'``). A reader follows the name, as GraphiQL's
and Redoc's pages link it; assembly (:mod:`zoomrag.expand.assemble`) gives a context the
definitions it refers to in its document as extra exact spans, when the budget has room.

Targets are a GraphQL schema's or a ``.proto`` file's types with a body of at least
:data:`~.bounds.MIN_WORDS` words (``type``, ``input``, ``enum``, ``message``: a ``scalar`` or a
bare ``interface Node`` says little), named outside a type's first line (``implements Node``
is what every type is) and an API description's sections under
``components`` (``definitions``, ``parameters``, ``responses`` in Swagger 2), each by the name
the text uses for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import Tree
from ..parse.strategies.code import SCHEMA_LANGUAGES, language_of
from .bounds import has_words

#: A name as a schema writes it.
_NAME = re.compile(r"[A-Za-z_]\w*")
#: A JSON pointer into the same description: ``#/components/schemas/Server``.
_POINTER = re.compile(r"#/((?:components/[\w.-]+|definitions|parameters|responses)/[\w.%-]+)")
#: A type's own first line, whose names are what it implements, not what it refers to.
_DECLARATION = re.compile(r"[ \t]*(?:extend[ \t]+)?(?:type|input|interface|enum|union|message|service)[ \t]")
#: How many pointers in a row a reference follows to what they lead to.
_HOPS = 3
#: The sections a pointer may lead to, by the first key of their path.
_API_ROOTS = frozenset({"components", "definitions", "parameters", "responses"})


@dataclass(frozen=True)
class References:
    """One document's targets: a name (a type's, or a pointer's path) → its definition's span."""

    targets: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: Whether names are pointers (an API description) rather than a schema's type names.
    pointers: bool = False

    def cited_in(self, text: str, start: int, end: int, near: tuple[int, int] | None = None) -> list[tuple[int, int]]:
        """The definitions ``text[start:end]`` refers to, each once, none that overlaps
        ``[start, end)`` (the type a field belongs to is not its reference): those named nearest
        ``near`` (the span's best hit) first, else in the order it names them."""
        if not self.targets:
            return []
        found: dict[tuple[int, int], int] = {}  # target -> distance of its nearest mention
        matches = _POINTER.finditer(text, start, end) if self.pointers else _NAME.finditer(text, start, end)
        for m in matches:
            span = self.targets.get(m.group(1) if self.pointers else m.group())
            if span is not None and self.pointers:
                span = self._resolved(text, span)
            if span is None or (span[0] < end and span[1] > start):
                continue
            if not self.pointers and _DECLARATION.match(text, text.rfind("\n", 0, m.start()) + 1):
                continue  # ``type Label implements Node``: every type is a Node
            far = 0 if near is None else max(near[0] - m.end(), m.start() - near[1], 0)
            found[span] = min(far, found.get(span, far))
        return sorted(found, key=found.__getitem__)  # stable: named first comes first on a tie


    def path_of(self, span: tuple[int, int]) -> tuple[str, ...]:
        """The section path of a target: the type's name, or the pointer's keys."""
        name = next((k for k, v in self.targets.items() if v == span), "")
        return tuple(name.split("/")) if self.pointers else ((name,) if name else ())

    def _resolved(self, text: str, span: tuple[int, int]) -> tuple[int, int] | None:
        """A pointer's target, past targets that are only a pointer themselves (a request body
        that is ``$ref: '#/components/schemas/CreateRepoOption'``); None when what it leads to
        says too little to be worth its tokens (``defs_ok_true: enum: [true]``)."""
        for _ in range(_HOPS):
            if has_words(text, *span):
                return span
            m = _POINTER.search(text, *span)
            nxt = self.targets.get(m.group(1)) if m else None
            if nxt is None or nxt == span:
                return None
            span = nxt
        return span if has_words(text, *span) else None


def find_references(tree: Tree) -> References:
    """The targets of a schema (GraphQL, protocol buffers) or an API description; none in any
    other document."""
    document = tree.document
    if document.format == "code":
        if language_of(document) not in SCHEMA_LANGUAGES:
            return References()
        text = document.text
        targets: dict[str, tuple[int, int]] = {}
        for n in tree.nodes:  # a type with a body that says something (not ``id: ID!`` alone)
            if n.kind == "class" and n.section_path and "{" in text[n.start:n.end] and \
                    has_words(text, n.start, n.end):
                targets.setdefault(n.section_path[-1], (n.start, n.end))
        return References(targets)
    if "#/" not in document.text:
        return References()
    sections: dict[str, tuple[int, int]] = {}
    for n in tree.nodes:  # the outermost section of each path: a heading's own node
        if n.kind == "section" and len(n.section_path) >= 2 and n.section_path[0] in _API_ROOTS:
            sections.setdefault("/".join(n.section_path), (n.start, n.end))
    return References(sections, pointers=True)

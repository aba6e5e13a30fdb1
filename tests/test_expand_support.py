"""Hand-made trees for the expansion tests: nested lists of leaf strings, sized in characters."""

from __future__ import annotations

from hypothesis import strategies as st

from zoomrag.expand import Candidate, assemble
from zoomrag.expand.bounds import LEAD_CHARS
from zoomrag.model import Document, Hit, Node, Tree
from zoomrag.parse.base import Span, build_tree
from zoomrag.text.tokens import CharCounter, Measure

#: Separator between siblings, by depth of the list (leaves of one parent are space-separated).
_SEPS = ("\n\n\n", "\n\n", "\n", " ")
_KINDS = ("section", "paragraph", "line", "sentence")


def build(spec: list, doc_id: str = "d", kinds: tuple[str, ...] | None = None) -> Tree:
    """A tree from nested lists: ``[["aa", "bb"], ["cc"]]`` is two parents of leaves "aa bb" / "cc"."""
    depth = _depth(spec)
    kinds = kinds or _KINDS[-depth:]
    seps = _SEPS[-depth:]
    parts: list[str] = []
    pos = 0

    def walk(items: list, level: int) -> list[Span]:
        nonlocal pos
        out = []
        for i, item in enumerate(items):
            if i:
                parts.append(seps[level])
                pos += len(seps[level])
            start = pos
            if isinstance(item, str):
                parts.append(item)
                pos += len(item)
                out.append(Span(kinds[-1], start, pos))
            else:
                kids = walk(item, level + 1)
                out.append(Span(kinds[level], start, pos, kids))
        return out

    spans = walk(spec, 0)
    return build_tree(Document(id=doc_id, source=f"{doc_id}.txt", text="".join(parts)), spans)


def _depth(spec: list | str) -> int:
    if isinstance(spec, str):
        return 0
    return 1 + max((_depth(s) for s in spec), default=0)


class Trees:
    """A TreeSource over fixed trees, measuring in characters."""

    def __init__(self, *trees: Tree):
        self._trees = {t.document.id: t for t in trees}

    def tree(self, doc_id: str) -> Tree:
        return self._trees[doc_id]

    def measure(self, doc_id: str) -> Measure:
        return Measure(self._trees[doc_id].document.text, CharCounter())


def leaf(tree: Tree, text: str) -> Node:
    [n] = [n for n in tree.leaves() if n.text == text]
    return n


def node(tree: Tree, text: str) -> Node:
    """The deepest node whose text is exactly ``text``."""
    return max((n for n in tree.nodes if n.text == text), key=lambda n: n.level)


def hit(tree: Tree, text: str, score: float) -> Hit:
    n = node(tree, text)
    return Hit(node_id=n.id, doc_id=tree.document.id, start=n.start, end=n.end, score=score)


def chars(text: str) -> int:
    return len(text)


def spans(candidates) -> list[tuple[int, int]]:
    return sorted((c.start, c.end) for c in candidates)


def texts(tree: Tree, items) -> list[str]:
    return [tree.document.text[c.start:c.end] for c in sorted(items, key=lambda c: c.start)]


#: Candidates at random places of a text: ``(where 0-1, size, score)`` each (for properties).
RAW_CANDIDATES = st.lists(st.tuples(st.floats(0, 1), st.integers(0, 300), st.floats(0, 1)), min_size=1, max_size=8)


def assemble_anywhere(tree: Tree, raw, budget: int, kind: str = "") -> list:
    """Contexts of candidates placed by ``raw`` in ``tree``'s document, measured in characters,
    checked: exact texts, no character twice, within the budget."""
    text, doc = tree.document.text, tree.document.id
    cands = []
    for k, (where, size, score) in enumerate(raw):
        s = int(where * (len(text) - 1))
        e = min(len(text), s + size + 1)
        cands.append(Candidate(doc, s, e, score, (Hit(f"h{k}", doc, s, min(e, s + 8), score),), kind=kind))
    out = assemble(cands, Trees(tree), budget, chars)
    seen: set[int] = set()
    for c in out:
        assert c.text == "\n".join(text[s:e] for s, e in c.parts())
        for s, e in c.parts():
            assert not seen & set(range(s, e))
            seen |= set(range(s, e))
    assert len(seen) <= budget
    return out


def moved_back(move, lines: list[str], data) -> tuple[str, int, int]:
    """``move(text, start)`` on the lines joined as a text, at a drawn ``start``: ``(text, start,
    result)``, the result checked to lie at most LEAD_CHARS before ``start``."""
    text = "\n".join(lines)
    start = data.draw(st.integers(0, len(text)))
    got = move(text, start)
    assert start - LEAD_CHARS <= got <= start
    return text, start, got

"""A document's tree as the node rows both SQL stores keep, and back: a document's nodes are
consecutive rows in pre-order, each naming its parent's row, its kind by number (a store's kind
list) and its heading trail only where it differs from the parent's (:mod:`.schema`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence

from ..model import Document, Node, StoredDocument, TextSource, Tree, node_id, node_ids
from .rows import Placed, UnitRow, UnitToWrite


def make_tree(doc: Document, rows: Sequence[Sequence], kinds: Sequence[str], doc_text: str | TextSource) -> Tree:
    """A Tree from a document's node rows in pre-order (row, parent, level, kind, start, end, path,
    embed, ...), its nodes sharing ``doc_text`` (the document's text, or its TextSource).

    It runs for every document a query expands that no cache holds (~50 a query), so each row
    costs one step: the nodes are made as plain tuples (``Node`` is a named tuple, and its
    keyword-checking constructor took a third of the time).
    """
    doc_id = doc.id
    ids = node_ids(doc_id, [(kinds[r[3]], r[2], r[4], r[5]) for r in rows])
    id_of = dict(zip([r[0] for r in rows], ids))
    children: dict[int, list[str]] = {}
    for r, i in zip(rows, ids):
        if (p := r[1]) is not None:
            if (got := children.get(p)) is None:
                children[p] = [i]
            else:
                got.append(i)
    paths: dict[int, tuple[str, ...]] = {}
    make, none = tuple.__new__, ()
    nodes = []
    for r, i in zip(rows, ids):
        row, parent, sp = r[0], r[1], r[6]
        path = paths[row] = tuple(json.loads(sp)) if sp is not None else paths.get(parent, none)
        kids = children.get(row)
        nodes.append(make(Node, (i, doc_id, kinds[r[3]], r[2], r[4], r[5], None if parent is None else id_of[parent],
                                 none if kids is None else tuple(kids), path, r[7], doc_text)))
    return Tree(document=doc, nodes=tuple(nodes), strategy="")


def tree_of_kinds(doc: Document, rows: Sequence[Sequence], kinds: Callable[..., list[str]],
                  doc_text: str | TextSource) -> Tree:
    """:func:`make_tree` with a store's kind list (``kinds(reload=...)``), read again once when a
    row names a kind past it: another process added that kind since (found by the lookup that
    misses, not by a pass over every row)."""
    try:
        return make_tree(doc, rows, kinds(), doc_text)
    except IndexError:
        return make_tree(doc, rows, kinds(reload=True), doc_text)


def current_kinds(kinds: Callable[..., list[str]], numbers: Iterable[int]) -> list[str]:
    """A store's kind list (``kinds(reload=...)``), read again when one of these kind numbers is
    past it (another process added that kind since)."""
    known = kinds()
    if any(k >= len(known) for k in numbers):
        known = kinds(reload=True)
    return known


def partial_trees(by_doc: Mapping[int, Mapping[int, Sequence]], documents: Iterable[tuple[Placed, Document]],
                  kinds: Callable[..., list[str]], wanted: Sequence[int]) -> tuple[dict[str, Tree], dict[int, Node]]:
    """What :meth:`Store.ancestor_trees` returns, from the node rows of the chains (rows as
    :func:`make_tree` reads them, by row, by document key) and the documents holding them."""
    names = current_kinds(kinds, (r[3] for found in by_doc.values() for r in found.values()))
    trees: dict[str, Tree] = {}
    nodes: dict[int, Node] = {}
    for placed, doc in documents:
        found = by_doc[placed.key]
        order = sorted(found)  # pre-order (parents before children, as make_tree needs) is row order
        tree = make_tree(doc, [found[r] for r in order], names, _text_source(doc))
        trees[doc.id] = tree
        nodes.update(zip(order, tree.nodes))
    return trees, {r: nodes[r] for r in wanted if r in nodes}


def _text_source(doc: Document) -> str | TextSource:
    return doc.text_source if isinstance(doc, StoredDocument) else doc.text


def node_rows(tree: Tree, base: int, key: int, kind_of: Mapping[str, int], vec_of: Mapping[str, int | None],
              upper: Mapping[str, int] | None) -> list[tuple]:
    """The rows of a tree's nodes numbered from ``base``: ``(row, doc key, parent row, level, kind
    number, start, end, heading trail or None when the parent's, embed_text, unit, vector key)``."""
    row_of = {n.id: base + i for i, n in enumerate(tree.nodes)}
    by_id = {n.id: n for n in tree.nodes}
    upper = upper or {}
    rows = []
    for i, n in enumerate(tree.nodes):
        parent = by_id[n.parent_id] if n.parent_id is not None else None
        inherited = parent.section_path if parent is not None else ()
        sp = None if n.section_path == inherited else json.dumps(list(n.section_path), ensure_ascii=False)
        rows.append((base + i, key, None if parent is None else row_of[parent.id], n.level, kind_of[n.kind],
                     n.start, n.end, sp, n.embed_text, 1 if n.id in vec_of else 0, vec_of.get(n.id, upper.get(n.id))))
    return rows


def unit_text(node: Node) -> str:
    """What is embedded and full-text indexed for a unit."""
    return node.embed_text if node.embed_text is not None else node.text


def written_units(tree: Tree, base: int, units: Iterable[UnitToWrite]) -> list[tuple[int, str]]:
    """``(row, what is indexed)`` of the units of a tree being written, its nodes numbered from ``base``."""
    row_of = {n.id: base + i for i, n in enumerate(tree.nodes)}
    text = tree.document.text
    out = []
    for u in units:
        n = u.node
        out.append((row_of[n.id], n.embed_text if n.embed_text is not None else text[n.start:n.end]))
    return out


def units_of(found: Iterable[Sequence], kinds: Callable[..., list[str]]) -> dict[int, UnitRow]:
    """The :class:`UnitRow` of each ``(row, doc id, kind number, level, start, end)`` row."""
    found = list(found)
    names = current_kinds(kinds, (r[2] for r in found))
    return {row: UnitRow(node_id(doc_id, names[kind], level, s, e), doc_id, s, e)
            for row, doc_id, kind, level, s, e in found}

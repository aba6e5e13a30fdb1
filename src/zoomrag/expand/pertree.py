"""What assembly derives from one tree, kept for the trees seen last.

A probe or an evaluation assembles contexts from the same few documents hundreds of times (every
policy, every budget, every question), and a server from the documents its users ask about: a
tree's tables, and the shapes of its spans, are worked out once per tree instead of once per call.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from threading import Lock
from typing import TypeVar

from ..model import Tree

#: Trees whose derived facts are kept (as for sentence boundaries, :mod:`zoomrag.expand.bounds`).
KEEP = 64
#: Entries a per-tree memo holds before it starts again (a server asks about new spans forever).
MEMO_SPANS = 65_536

T = TypeVar("T")
_SEEN: OrderedDict[tuple[int, str], tuple[Tree, object]] = OrderedDict()
_lock = Lock()


def per_tree(tree: Tree, name: str, build: Callable[[Tree], T]) -> T:
    """``build(tree)``, computed once for this tree object (by identity: a tree loaded again is
    a new object, and its facts are derived again)."""
    key = (id(tree), name)
    with _lock:
        got = _SEEN.get(key)
        if got is not None and got[0] is tree:
            _SEEN.move_to_end(key)
            return got[1]  # type: ignore[return-value]
    value = build(tree)
    with _lock:
        _SEEN[key] = (tree, value)  # the tree is kept with it, so its id is not reused meanwhile
        while len(_SEEN) > KEEP * 2:
            _SEEN.popitem(last=False)
    return value


def bounded(memo: dict) -> dict:
    """``memo``, emptied first when it holds :data:`MEMO_SPANS` entries."""
    if len(memo) >= MEMO_SPANS:
        memo.clear()
    return memo

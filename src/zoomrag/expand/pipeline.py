"""From ranked hits to contexts: rerank (optional), expand by a policy, assemble into the budget.

The one function :meth:`zoomrag.Index.query` calls after search, so that every step after
retrieval lives in this layer and can be used without an index (any :class:`TreeSource`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..model import Context, Hit
from ..store import fts
from ..text.tokens import TokenCounter
from .assemble import TokenCount, assemble
from .base import Expander, TreeSource, get_expander
from .contents import without_contents
from .measure import SpanSizer
from .named import whole_definitions

if TYPE_CHECKING:
    from ..rerank.base import Reranker


def expand_hits(hits: Sequence[Hit], trees: TreeSource, budget: int, count: TokenCount, *,
                expand: str | Expander = "none", params: Mapping[str, Any] | None = None,
                top: int | None = None, query: str | None = None, reranker: Reranker | None = None,
                rerank_depth: int | None = None, fill: bool = True, order: str = "score",
                explain: bool = False, counter: TokenCounter | None = None, name: str = "") -> list[Context]:
    """Contexts for ranked ``hits`` within ``budget`` tokens (see :func:`assemble` for the options).

    Spans are sized with one token measure per document (``counter``: the default counter when
    None, which must be the counter behind ``count``). ``name``: the name the query asks for
    alone, without its qualifiers (:func:`zoomrag.search.names.asked_unqualified`); hits that
    define it then come back as their whole definitions (:mod:`zoomrag.expand.named`).
    """
    expander = get_expander(expand, params)
    if reranker is not None:
        from ..rerank.base import rerank_hits

        if query is None:
            raise ValueError("reranking needs the query text")
        hits = rerank_hits(reranker, query, hits, trees, rerank_depth)
    if not hits:
        return []
    candidates = without_contents(expander.expand(hits, trees, budget), trees)
    sizes = SpanSizer(trees, counter).size
    if name and any("name" in h.ranks for h in hits):
        candidates = whole_definitions(candidates, trees, budget, sizes, name)
    return assemble(candidates, trees, budget, count, top, fill=fill, order=order, explain=explain, sizes=sizes,
                    words=tuple(dict.fromkeys(fts.query_terms(query))) if query else ())

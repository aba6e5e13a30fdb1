"""The one query path of the server, the MCP server and the framework adapters.

Every caller builds a :class:`QueryRequest` and runs it with :func:`run_query`, which calls
:meth:`zoomrag.Index.query` and nothing else; :func:`query_payload` gives the JSON of
``zoomrag query --json``. ``where`` (metadata filters) and ``doc`` (one document) are passed on
only when given, and only to an ``Index.query`` that takes them: an index without filter support
answers with a one-line :class:`ConfigError` instead of ignoring the filter.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from ..errors import ConfigError
from ..model import Context

if TYPE_CHECKING:
    from ..index import Index

#: The CLI's defaults, so that a request with only ``text`` answers as ``zoomrag query TEXT``.
DEFAULT_BUDGET = 2048
DEFAULT_TOP = 10
DEFAULT_MODE: Literal["dense", "bm25", "hybrid"] = "hybrid"
DEFAULT_EXPAND = "auto"


@dataclass(frozen=True)
class QueryRequest:
    text: str
    budget: int = DEFAULT_BUDGET
    top: int | None = DEFAULT_TOP
    mode: str = DEFAULT_MODE
    expand: str = DEFAULT_EXPAND
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    order: str = "score"
    explain: bool = False
    rerank: bool = False
    #: A chromadb/Qdrant-style metadata filter, e.g. ``{"year": {"$gte": 2020}}``.
    where: Mapping[str, Any] | None = None
    #: Only these documents (an id, source path or glob, or a list of them).
    doc: str | list[str] | None = None
    #: In hybrid mode, BM25's share of the fused score, 0 to 1 (None: the default, 0.3).
    bm25_weight: float | None = None


def _accepts(index: Index, name: str) -> bool:
    return name in inspect.signature(index.query).parameters


def run_query(index: Index, req: QueryRequest) -> list[Context]:
    """``index.query`` with the request's options; the reranker comes from ``$ZOOMRAG_RERANK_URL``."""
    if not req.text.strip():
        raise ConfigError("the query text is empty; give a question or some words to search for")
    extra: dict[str, Any] = {}
    for name in ("where", "doc"):
        value = getattr(req, name)
        if value is None:
            continue
        if not _accepts(index, name):
            raise ConfigError(f"this zoomrag's Index.query has no {name!r} filter yet; "
                              f"leave {name!r} out of the request")
        extra[name] = value
    if req.bm25_weight is not None:
        if req.mode != "hybrid":
            raise ConfigError(f"bm25_weight applies to hybrid mode, not {req.mode!r}; leave it out or "
                              "ask with mode 'hybrid'")
        from ..search.fusion import bm25_weights

        extra["weights"] = bm25_weights(req.bm25_weight)
    reranker = None
    if req.rerank:
        from ..rerank import HTTPReranker

        reranker = HTTPReranker()
    return index.query(req.text, budget=req.budget, top=req.top, mode=req.mode, expand=req.expand,
                       params=dict(req.params) or None, rerank=reranker, order=req.order,
                       explain=req.explain, **extra)


def request_body(req: QueryRequest) -> dict[str, Any]:
    """The JSON body of ``POST /query`` for this request (options left at None are left out)."""
    body = {"text": req.text, "budget": req.budget, "top": req.top, "mode": req.mode, "expand": req.expand,
            "params": dict(req.params), "order": req.order, "explain": req.explain, "rerank": req.rerank,
            "where": req.where, "doc": req.doc, "bm25_weight": req.bm25_weight}
    return {k: v for k, v in body.items() if v is not None}


def context_payload(ctx: Context) -> dict[str, Any]:
    """``Context.to_dict()`` plus the fields a client needs to rebuild the Context (rule, level, kind)."""
    d = ctx.to_dict()
    d.setdefault("level", ctx.level)
    d.setdefault("kind", ctx.kind)
    d.setdefault("rule", ctx.rule)
    return d


def context_from_payload(d: Mapping[str, Any]) -> Context:
    """The Context that :func:`context_payload` described (the CLI renders server answers with it)."""
    return Context(
        doc_id=d["doc_id"], source=d["source"], start=int(d["start"]), end=int(d["end"]), text=d["text"],
        score=float(d["score"]), section_path=tuple(d.get("section_path", ())), level=int(d.get("level", 0)),
        kind=d.get("kind", ""), hits=tuple((int(h["start"]), int(h["end"]), float(h["score"]))
                                           for h in d.get("hits", ())),
        rule=d.get("rule", ""), metadata=dict(d.get("metadata") or {}), copies=tuple(d.get("copies", ())),
        spans=tuple((int(s["start"]), int(s["end"])) for s in d.get("spans", ()))
        if len(d.get("spans", ())) > 1 else (),
        pages=tuple(int(p) for p in d.get("pages", ())), anchor=d.get("anchor", ""),
    )


def query_payload(req: QueryRequest, contexts: list[Context]) -> dict[str, Any]:
    """What ``zoomrag query --json`` prints, with each context as :func:`context_payload` gives it."""
    return {"query": req.text, "budget": req.budget, "contexts": [context_payload(c) for c in contexts]}

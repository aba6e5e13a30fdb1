"""The HTTP API and the inspector page: FastAPI routes over an :class:`IndexPool`.

Every route is a thin call into :class:`zoomrag.Index`; queries go through
:func:`zoomrag.serve.query.run_query`, the path the MCP server and the adapters share.
"""

from __future__ import annotations

import dataclasses
import gc
import tempfile
from collections import Counter
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, File, Query, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from ..errors import ConfigError, StoreError, ZoomragError
from ..expand import expander_names
from ..index import MODES, Index
from ..load import formats, load_path
from ..load.given import read_given
from ..load.pieces import paged
from ..load.web import CrawlOptions, is_url, under
from ..model import Document
from . import schema as s
from .errors import Forbidden, NotFound, error_body, status_of
from .pool import IndexPool
from .query import DEFAULT_BUDGET, DEFAULT_EXPAND, DEFAULT_MODE, DEFAULT_TOP, query_payload, run_query
from .security import BearerAuth, BodyLimit

INSPECTOR = resources.files("zoomrag.serve") / "inspector"
_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": s.ErrorResponse} for code in (400, 401, 404, 409, 413, 423, 503, 504)}


@dataclass(frozen=True)
class ServeConfig:
    #: The index file, or a server store's URL (``postgresql://``, ``milvus://``).
    index: Path | str
    api_key: str | None = None
    #: Origins allowed by CORS; none means no CORS headers at all.
    cors: tuple[str, ...] = ()
    max_body_bytes: int = 10 * 2**20
    #: Seconds a read (query, tree, stats...) may take; writes get ``write_timeout``.
    timeout: float = 30.0
    write_timeout: float = 600.0
    readers: int = 4
    #: Seconds a write waits for another process's writer lock before answering 423.
    lock_timeout: float = 5.0
    #: Addresses under which clients may have web sites read (``POST /sites``); none: no fetching.
    crawl: tuple[str, ...] = ()


@dataclass(frozen=True)
class ServerApp:
    """The ASGI application: the FastAPI app wrapped in the body limit and, with a key, the auth
    check; ``api`` gives the OpenAPI schema, ``pool`` the index handles."""

    asgi: Any
    api: FastAPI
    pool: IndexPool

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.asgi(scope, receive, send)


def create_app(config: ServeConfig, pool: IndexPool | None = None) -> ServerApp:
    """The server over ``config.index``; the model is loaded before this returns."""
    one_blas_thread()
    pool = pool or IndexPool(config.index, readers=config.readers, lock_timeout=config.lock_timeout)
    pool.load_model()

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        fewer_collections()
        yield
        pool.close()

    app = FastAPI(title="zoomrag", version=__version__, lifespan=lifespan, docs_url="/api/docs",
                  redoc_url=None, openapi_url="/openapi.json",
                  description="Multi-scale retrieval over one index file: contexts within a token "
                              "budget, with the exact source span of every character.")
    if config.cors:
        app.add_middleware(CORSMiddleware, allow_origins=list(config.cors), allow_methods=["*"],
                           allow_headers=["*"])
    _handlers(app)
    _routes(app, pool, config)
    app.mount("/static", StaticFiles(directory=str(INSPECTOR)), name="static")
    wrapped: Any = BodyLimit(app, config.max_body_bytes)
    if config.api_key:
        wrapped = BearerAuth(wrapped, config.api_key)
    return ServerApp(wrapped, app, pool)


def one_blas_thread() -> None:
    """One BLAS thread per request thread. The server runs several requests at once, each on a
    thread of its own; a BLAS that also splits every matrix product over all cores makes its
    threads wait for each other: an exact search over 3,155 vectors took 16 ms instead of 0.2
    under load (threadpoolctl, in the ``serve`` extra; without it the BLAS keeps its threads)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    threadpool_limits(1, user_api="blas")


def fewer_collections() -> None:
    """Once the model and the index are loaded: keep what was loaded out of the garbage
    collector's passes, and collect young objects 14 times less often. A query makes thousands
    of short-lived objects (trees, spans); with Python's defaults a full pass over everything
    the server holds came every few queries and set its p95 (hybrid ``auto`` at 1M units: 50 ms
    of CPU at p95 with the defaults, 41 with this, 40 with no collector at all)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


def _handlers(app: FastAPI) -> None:
    @app.exception_handler(ZoomragError)
    async def zoomrag_error(_request: Request, e: ZoomragError) -> JSONResponse:
        status = status_of(e)
        return JSONResponse(error_body(str(e), type(e).__name__, status), status_code=status)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, e: RequestValidationError) -> JSONResponse:
        return JSONResponse(error_body(_validation_message(e), "ConfigError", 400), status_code=400)

    @app.exception_handler(Exception)
    async def crashed(_request: Request, e: Exception) -> JSONResponse:
        # A bug, not bad input: still one JSON line, never a traceback to the client.
        message = f"internal error ({type(e).__name__}); the server log has the details"
        return JSONResponse(error_body(message, "InternalError", 500), status_code=500)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, e: StarletteHTTPException) -> JSONResponse:
        message = (f"no route {request.method} {request.url.path}; see /openapi.json"
                   if e.status_code in (404, 405) else str(e.detail))
        return JSONResponse(error_body(message, "NotFound" if e.status_code == 404 else "HTTPError",
                                       e.status_code), status_code=e.status_code)


def _validation_message(e: RequestValidationError) -> str:
    """pydantic's first complaint as one line: where, what, and the value given."""
    errors = e.errors()
    first = errors[0]
    if first.get("type") == "json_invalid":
        return f"the request body is not valid JSON ({first.get('ctx', {}).get('error', 'invalid')})"
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
    given = first.get("input")
    shown = "" if isinstance(given, (dict, list)) or given is None else f" (got {given!r})"
    more = f"; and {len(errors) - 1} more problem(s)" if len(errors) > 1 else ""
    return f"{where}: {first.get('msg', 'invalid')}{shown}{more}; see /openapi.json"


def _document_row(d: Any) -> dict[str, Any]:
    return {"id": d.id, "source": d.source, "format": d.format, "length": d.length}


def _given(d: s.DocumentIn) -> Document:
    if (d.text is None) == (d.pages is None):
        raise ConfigError(f"{d.source}: give the document's text or its pages, one of them")
    if d.pages is not None:
        if not d.pages:
            raise ConfigError(f"{d.source}: pages is empty; give the text of each page")
        return paged(d.pages, id=d.id or d.source, source=d.source, metadata=d.metadata)
    try:
        return read_given(d.text or "", id=d.id or d.source, source=d.source, format=d.format,
                          metadata=d.metadata)
    except ConfigError as e:
        if d.format and d.format in formats():  # a format read from files (pdf, docx)
            raise ConfigError(f"{d.source}: {d.format} is read from the file, not from text: send the file "
                              "to POST /documents/upload") from None
        raise ConfigError(f"{d.source}: {e}") from None


def _tree(ix: Index, ref: str):
    try:
        return ix.tree(ref)
    except StoreError as e:
        if not any(ref in (d.id, d.source) for d in ix.documents()):
            raise NotFound(str(e)) from None
        raise


def _routes(app: FastAPI, pool: IndexPool, config: ServeConfig) -> None:
    read_timeout, write_timeout = config.timeout, config.write_timeout
    served: Counter[str] = Counter()  # answered queries, by route (one event loop: no lock needed)

    @app.get("/", include_in_schema=False)
    async def inspector() -> FileResponse:
        return FileResponse(str(INSPECTOR / "index.html"), media_type="text/html")

    @app.get("/health", response_model=s.HealthResponse, tags=["index"])
    async def health() -> dict[str, Any]:
        """The server is up and has its index open."""
        return {"status": "ok", "index": str(pool.path), "version": __version__, "modes": list(MODES),
                "policies": expander_names(), "defaults": {"budget": DEFAULT_BUDGET, "top": DEFAULT_TOP,
                                                           "mode": DEFAULT_MODE, "expand": DEFAULT_EXPAND},
                "served": dict(served)}

    @app.post("/query", response_model=s.QueryResponse, responses=_ERRORS, tags=["query"])
    async def query(body: s.QueryBody) -> dict[str, Any]:
        """Contexts for one query: what `zoomrag query --json` prints."""
        req = body.request()
        contexts = await pool.read(lambda ix: run_query(ix, req), read_timeout)
        served["query"] += 1
        return query_payload(req, contexts)

    @app.post("/query/batch", response_model=s.BatchResponse, responses=_ERRORS, tags=["query"])
    async def query_batch(body: s.BatchBody) -> dict[str, Any]:
        """Many queries at once, answered in order (one timeout for the whole batch)."""
        reqs = [q.request() for q in body.queries]

        def job(ix: Index) -> list[dict[str, Any]]:
            return [query_payload(r, run_query(ix, r)) for r in reqs]

        results = await pool.read(job, read_timeout)
        served["batch"] += 1
        return {"results": results}

    @app.get("/documents", response_model=s.DocumentsResponse, responses=_ERRORS, tags=["documents"])
    async def documents() -> dict[str, Any]:
        """Every stored document (no text)."""
        rows = await pool.read(lambda ix: ix.documents(), read_timeout)
        return {"documents": [_document_row(d) for d in rows]}

    @app.post("/documents", response_model=s.AddResponse, responses=_ERRORS, tags=["documents"])
    async def add(body: s.AddBody) -> dict[str, Any]:
        """Add (or replace) documents given as text and metadata, each read by its format's reader
        as a file is; unchanged ones are skipped."""
        docs = [_given(d) for d in body.documents]
        report = await pool.write(lambda ix: ix.add(docs), write_timeout)
        return dataclasses.asdict(report)

    @app.post("/documents/upload", response_model=s.AddResponse, responses=_ERRORS, tags=["documents"])
    async def upload(files: list[UploadFile] = File(...)) -> dict[str, Any]:
        """Add files read by the same readers as `zoomrag index` (Markdown, HTML, PDF, CSV, code...).

        Each document's id and source is the uploaded file name.
        """
        with tempfile.TemporaryDirectory(prefix="zoomrag-upload-") as tmp:
            saved = []
            for n, f in enumerate(files):
                name = Path(f.filename or f"upload-{n}").name or f"upload-{n}"
                path = Path(tmp) / f"{n}" / name
                path.parent.mkdir()
                path.write_bytes(await f.read())
                saved.append((name, path))

            def job(ix: Index):
                docs, skipped = [], []
                for name, path in saved:
                    try:
                        doc = load_path(path, id=name)
                    except ZoomragError as e:
                        skipped.append((name, str(e).replace(str(path), name)))
                        continue
                    docs.append(dataclasses.replace(doc, id=name, source=name))
                report = ix.add(docs) if docs else None
                return report, skipped

            report, skipped = await pool.write(job, write_timeout)
        out: dict[str, Any] = dataclasses.asdict(report) if report is not None else {
            k: 0 for k in ("added", "updated", "unchanged", "removed", "units", "embedded", "characters")}
        out.setdefault("seconds", 0.0)
        out["skipped"] = [*out.get("skipped", []), *skipped]
        return out

    @app.post("/sites", response_model=s.AddResponse, responses=_ERRORS, tags=["documents"])
    async def site(body: s.SiteBody) -> dict[str, Any]:
        """Index the pages of a web site under an address the server was started to read
        (``zoomrag serve --crawl ADDRESS``), as ``zoomrag index URL`` does (docs/web.md)."""
        if not config.crawl:
            raise Forbidden("this server reads no web site: its operator may allow addresses with "
                            "zoomrag serve --crawl https://docs.example.com/")
        if not is_url(body.url) or not under(body.url, config.crawl):
            raise Forbidden(f"{body.url}: not under the addresses this server may read "
                            f"({', '.join(config.crawl)}); ask its operator to add it with zoomrag serve --crawl")

        def job(ix: Index):
            return ix.add(body.url, prune=body.prune, metadata=body.metadata or None, include=body.include,
                          exclude=body.exclude, web=CrawlOptions(max_pages=body.max_pages, within=config.crawl))

        return dataclasses.asdict(await pool.write(job, write_timeout))

    @app.delete("/documents", response_model=s.DeleteResponse, responses=_ERRORS, tags=["documents"])
    async def delete(doc: str = Query(..., description="Document id, source or path.")) -> dict[str, Any]:
        """Remove one document."""
        if not await pool.write(lambda ix: ix.delete(doc), write_timeout):
            raise NotFound(f"{pool.path}: no document {doc!r}; list them with GET /documents")
        return {"deleted": doc}

    @app.get("/documents/tree", response_model=s.TreeResponse, responses=_ERRORS, tags=["documents"])
    async def tree(doc: str = Query(..., description="Document id, source or path."),
                   text: bool = Query(False, description="Include every node's text.")) -> dict[str, Any]:
        """The document's span tree, nodes in pre-order (parents before children)."""
        t = await pool.read(lambda ix: _tree(ix, doc), read_timeout)
        d = t.document
        return {"document": {"id": d.id, "source": d.source, "format": d.format, "length": len(d.text)},
                "nodes": [n.to_dict(with_text=text) for n in t.nodes]}

    @app.get("/documents/text", response_model=s.TextResponse, responses=_ERRORS, tags=["documents"])
    async def text_slice(doc: str = Query(..., description="Document id, source or path."),
                         start: int = Query(0, ge=0), end: int | None = Query(None, ge=0)) -> dict[str, Any]:
        """The exact text of ``[start, end)`` of a document (the whole text by default)."""
        t = await pool.read(lambda ix: _tree(ix, doc), read_timeout)
        full = t.document.text
        stop = len(full) if end is None else end
        if start > stop or stop > len(full):
            raise ConfigError(f"span [{start}, {stop}) is not inside {t.document.source!r}, which has "
                              f"{len(full)} characters; give 0 <= start <= end <= {len(full)}")
        return {"doc_id": t.document.id, "source": t.document.source, "start": start, "end": stop,
                "length": len(full), "text": full[start:stop]}

    @app.get("/stats", response_model=s.StatsResponse, responses=_ERRORS, tags=["index"])
    async def stats() -> dict[str, Any]:
        """What `zoomrag stats --json` prints."""
        return (await pool.read(lambda ix: ix.stats(), read_timeout)).to_dict()

    @app.get("/check", response_model=s.CheckResponse, responses=_ERRORS, tags=["index"])
    async def check() -> dict[str, Any]:
        """Is the index file consistent?"""
        r = await pool.read(lambda ix: ix.check(), read_timeout)
        return {"path": r.path, "ok": r.ok, "problems": list(r.problems), "counts": dict(r.counts)}


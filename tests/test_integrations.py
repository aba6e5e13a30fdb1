"""The framework adapters, each driven by its framework's own retrieval call on a small index."""

from __future__ import annotations

import asyncio
import importlib.util
import os

import pytest
from serve_support import build_index

from zoomrag.index import Index

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # no network from the tests
QUESTION = "Backups copy"


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return build_index(tmp_path_factory.mktemp("adapters"))


@pytest.fixture(scope="module")
def expected(index):
    """What the library returns for the question with the adapters' defaults (budget 1024)."""
    with Index.open(index, create=False) as ix:
        return ix.query(QUESTION, budget=1024, top=10, mode="bm25", expand="auto")


def test_langchain_retriever_returns_documents_with_exact_spans(index, expected):
    pytest.importorskip("langchain_core", reason="needs the 'langchain' extra")
    from zoomrag.integrations.langchain import ZoomragRetriever

    retriever = ZoomragRetriever.from_index(index, mode="bm25")
    docs = retriever.invoke(QUESTION)
    assert [d.page_content for d in docs] == [c.text for c in expected]
    top, ctx = docs[0], expected[0]
    assert top.metadata["source"] == ctx.source and top.metadata["source"].endswith("guide.md")
    assert (top.metadata["start"], top.metadata["end"]) == (ctx.start, ctx.end)
    assert top.metadata["spans"] == [{"start": s, "end": e} for s, e in ctx.parts()]
    assert top.metadata["section_path"] == ["Storage"] and top.metadata["score"] == ctx.score
    assert top.metadata["hits"] == [{"start": s, "end": e, "score": sc} for s, e, sc in ctx.hits]
    text = (index.parent / "docs" / "guide.md").read_text()
    assert text[top.metadata["start"]:top.metadata["end"]] == top.page_content
    # the async entry point runs the same search
    assert [d.page_content for d in asyncio.run(retriever.ainvoke(QUESTION))] == [c.text for c in expected]
    retriever.searcher.close()


def test_llamaindex_retriever_in_a_query_engine_with_a_mock_llm(index, expected):
    pytest.importorskip("llama_index.core", reason="needs the 'llamaindex' extra")
    from llama_index.core.llms import MockLLM
    from llama_index.core.query_engine import RetrieverQueryEngine
    from llama_index.core.schema import NodeRelationship

    from zoomrag.integrations.llamaindex import ZoomragRetriever

    retriever = ZoomragRetriever(index, mode="bm25")
    nodes = retriever.retrieve(QUESTION)
    assert [n.node.get_content() for n in nodes] == [c.text for c in expected]
    top, ctx = nodes[0], expected[0]
    assert top.score == ctx.score
    assert (top.node.start_char_idx, top.node.end_char_idx) == (ctx.start, ctx.end)
    assert top.node.metadata["source"] == ctx.source and top.node.metadata["section_path"] == ["Storage"]
    source = top.node.relationships[NodeRelationship.SOURCE]
    assert source.node_id == ctx.doc_id and (source.metadata["start"], source.metadata["end"]) == (ctx.start, ctx.end)
    engine = RetrieverQueryEngine.from_args(retriever, llm=MockLLM(max_tokens=8))
    response = engine.query(QUESTION)
    assert [n.node.get_content() for n in response.source_nodes] == [c.text for c in expected]
    assert str(response)  # the mock LLM answered from the retrieved contexts
    retriever.searcher.close()


def test_haystack_component_in_a_pipeline(index, expected):
    haystack = pytest.importorskip("haystack", reason="needs the 'haystack' extra")
    from haystack.components.builders import PromptBuilder

    from zoomrag.integrations.haystack import ZoomragRetriever

    pipe = haystack.Pipeline()
    pipe.add_component("retriever", ZoomragRetriever(str(index), mode="bm25"))
    pipe.add_component("prompt", PromptBuilder(
        template="{% for d in documents %}[{{ d.meta.source }} {{ d.meta.start }}-{{ d.meta.end }}] "
                 "{{ d.content }}\n{% endfor %}Q: {{ question }}", required_variables=["documents", "question"]))
    pipe.connect("retriever.documents", "prompt.documents")
    out = pipe.run({"retriever": {"query": QUESTION, "top_k": 1}, "prompt": {"question": QUESTION}},
                   include_outputs_from={"retriever"})
    docs = out["retriever"]["documents"]
    ctx = expected[0]
    assert [d.content for d in docs] == [ctx.text]
    assert docs[0].score == ctx.score and (docs[0].meta["start"], docs[0].meta["end"]) == (ctx.start, ctx.end)
    assert f"[{ctx.source} {ctx.start}-{ctx.end}] {ctx.text}" in out["prompt"]["prompt"]
    # the component round-trips through Haystack's serialisation
    again = haystack.Pipeline.loads(pipe.dumps(), allowed_modules=["zoomrag.integrations.haystack"])
    assert again.get_component("retriever").index == str(index)


def test_each_adapter_passes_its_bm25_weight_on(index):
    with Index.open(index, create=False) as ix:
        want = [c.text for c in ix.query(QUESTION, budget=1024, top=10, mode="hybrid",
                                         weights={"dense": 0.0, "bm25": 1.0})]
        default = [c.text for c in ix.query(QUESTION, budget=1024, top=10, mode="hybrid")]
    assert want != default  # the weight changes the answer here, so each check below can fail
    ran = 0
    if importlib.util.find_spec("langchain_core"):
        from zoomrag.integrations.langchain import ZoomragRetriever as LangChain

        retriever = LangChain.from_index(index, bm25_weight=1.0)
        assert [d.page_content for d in retriever.invoke(QUESTION)] == want
        retriever.searcher.close()
        ran += 1
    if importlib.util.find_spec("llama_index"):
        from zoomrag.integrations.llamaindex import ZoomragRetriever as Llama

        llama = Llama(index, bm25_weight=1.0)
        assert [n.node.get_content() for n in llama.retrieve(QUESTION)] == want
        llama.searcher.close()
        ran += 1
    if importlib.util.find_spec("haystack"):
        from zoomrag.integrations.haystack import ZoomragRetriever as Haystack

        component = Haystack.from_dict(Haystack(str(index), bm25_weight=1.0).to_dict())
        assert [d.content for d in component.run(QUESTION)["documents"]] == want
        ran += 1
    if not ran:
        pytest.skip("needs one of the 'langchain', 'llamaindex' or 'haystack' extras")

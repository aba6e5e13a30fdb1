"""bench/peers.py: the peer libraries' retrievers return exact, located spans that run_eval can budget."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import texts

from zoomrag.embed import get_embedder
from zoomrag.errors import EvalError
from zoomrag.evaluate import Dataset, EvalDocument, EvalQuery, Evidence, TokenBudget, run_eval

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import peers

needs_llama = pytest.mark.skipif(importlib.util.find_spec("llama_index") is None,
                                 reason="llama-index-core is not installed (bench extra)")
needs_langchain = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("langchain_classic", "langchain_core", "langchain_text_splitters")),
    reason="langchain-classic is not installed (bench extra)")

SENTENCES = [f"Sentence {w} is about the {w} topic." for w in
             ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")]
TEXT = " ".join(SENTENCES)
OTHER = "A second document. It has two sentences."


def dataset(*docs: tuple[str, str]) -> Dataset:
    documents = tuple(EvalDocument(i, t) for i, t in docs)
    first = documents[0]
    return Dataset("tiny", documents, (EvalQuery("q1", "the five topic", (Evidence(first.id, 0, 10),)),))


def starts(text: str, parts: list[str]) -> list[int]:
    out, pos = [], 0
    for p in parts:
        pos = text.index(p, pos)
        out.append(pos)
    return out


def retrieve(name: str, ds: Dataset, budget: int) -> tuple[peers.PeerRetriever, list[tuple[str, int, int]]]:
    peer = peers.make_peer(name, get_embedder("hash"))
    peer.build(ds)
    return peer, peer.retrieve(ds.queries[0], budget)


def check_budget(ds: Dataset, spans: list[tuple[str, int, int]], budget: int) -> None:
    filler = TokenBudget(ds.texts)
    taken = filler.take(spans, budget)
    assert taken and sum(filler.tokens(s) for s in taken) <= budget


@needs_llama
def test_window_returns_every_sentence_window_exactly() -> None:
    ds = dataset(("a", TEXT))
    peer, spans = retrieve("llamaindex-window", ds, 512)
    begin = starts(TEXT, SENTENCES)
    end = [b + len(s) for b, s in zip(begin, SENTENCES)]
    # 50 candidates hold all 10 sentences; each comes back as itself and 3 sentences each side.
    expected = {("a", begin[max(0, i - 3)], end[min(9, i + 3)]) for i in range(10)}
    assert len(spans) == 10 and set(spans) == expected
    assert peer.counts.unlocated == 0 and peer.counts.passages == 10
    check_budget(ds, spans, 40)


@needs_llama
def test_automerge_merges_all_leaves_up_to_the_whole_document() -> None:
    text = " ".join(SENTENCES * 6)  # ~480 word pieces: four 128-token leaves under one 512-token node
    ds = dataset(("a", text))
    peer, spans = retrieve("llamaindex-automerge", ds, 512)
    # Every leaf is a candidate, so every parent has all its children hit: merged to the root.
    assert spans == [("a", 0, len(text))]
    assert peer.counts.unlocated == 0
    check_budget(ds, spans, 100)


@needs_langchain
def test_pdr_returns_whole_short_documents_with_their_ids() -> None:
    ds = dataset(("a", TEXT), ("b", OTHER))
    peer, spans = retrieve("langchain-pdr", ds, 512)
    # Both documents are shorter than one 2000-character parent: each parent is a whole document.
    assert sorted(spans) == [("a", 0, len(TEXT)), ("b", 0, len(OTHER))]
    assert peer.counts.unlocated == 0
    check_budget(ds, spans, 30)


@needs_llama
@needs_langchain
def test_every_peer_is_scored_by_run_eval_within_the_budget() -> None:
    ds = dataset(("a", TEXT), ("b", OTHER))
    emb = get_embedder("hash")
    run = run_eval(ds, [peers.make_peer(n, emb) for n in peers.PEERS], [16, 64], resamples=10)
    assert {(m.config, m.budget) for m in run.results} == {(n, b) for n in peers.PEERS for b in (16, 64)}


def test_unknown_peer_names_the_choices() -> None:
    with pytest.raises(EvalError, match="unknown peer 'haystack'; choose one of: llamaindex-automerge, "
                                        "llamaindex-automerge-fit, llamaindex-window, langchain-pdr"):
        peers.make_peer("haystack", get_embedder("hash"))


def test_spaceless_locator_finds_text_joined_with_extra_spaces() -> None:
    doc = EvalDocument("d", "It is 4 @.@ 5 metres wide.\nNext line. It is 4 @.@ 5 metres wide.")
    loc = peers.SpacelessLocator([doc])
    assert loc.locate("4 @. @ 5 metres", "d") == (6, 20)
    assert loc.locate("4 @. @ 5 metres", "d", near=40) == (44, 58)
    assert loc.locate("wide. Next", "d") == (21, 31)
    assert loc.locate("not there", "d") is None
    assert loc.locate("   ", "d") is None
    assert loc.locate("wide", "missing") is None


@settings(max_examples=60, deadline=None)
@given(texts, st.data())
def test_spaceless_locator_span_holds_the_passage(text: str, data: st.DataObject) -> None:
    s = data.draw(st.integers(0, len(text)))
    e = data.draw(st.integers(s, len(text)))
    passage = " ".join(text[s:e].split())  # re-joined as a peer might
    span = peers.SpacelessLocator([EvalDocument("d", text)]).locate(passage, "d", near=s)
    if not passage:
        assert span is None
        return
    assert span is not None
    a, b = span
    assert "".join(text[a:b].split()) == "".join(passage.split())
    assert not text[a].isspace() and not text[b - 1].isspace()


def test_automerge_fit_asks_for_just_enough_leaves() -> None:
    fit = peers.CLASSES["llamaindex-automerge-fit"](get_embedder("hash"))
    shared = peers.CLASSES["llamaindex-automerge"](get_embedder("hash"))
    assert [fit.top_k(b) for b in (100, 512, 1024, 4096)] == [1, 4, 8, 32]
    assert [shared.top_k(b) for b in (512, 1024, 2048, 4096)] == [50, 64, 128, 256]

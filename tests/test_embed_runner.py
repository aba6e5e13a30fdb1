"""Batching, deduplication, the cache and the background pipeline."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zoomrag.embed import EmbedPipeline, EmbedRunner, MemoryCache, cache_key
from zoomrag.embed.batching import length_batches
from zoomrag.embed.hashing import HashEmbedder
from zoomrag.errors import ConfigError, EmbedError


class Counting:
    """Wraps an embedder and records every batch it is asked to embed."""

    def __init__(self, inner, fail_on: str | None = None):
        self.inner = inner
        self.name, self.version = inner.name, inner.version
        self.dimension, self.max_tokens = inner.dimension, inner.max_tokens
        self.batches: list[list[str]] = []
        self.fail_on = fail_on
        self.threads: set[str] = set()

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.threads.add(threading.current_thread().name)
        if self.fail_on in texts:
            raise EmbedError(f"cannot embed {self.fail_on!r}")
        self.batches.append(list(texts))
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    @property
    def calls(self) -> list[str]:
        return [t for b in self.batches for t in b]


@pytest.fixture
def model():
    return Counting(HashEmbedder(dimension=32))


def test_runner_matches_direct_embedding_in_input_order(model):
    texts = ["ccc ccc ccc", "a", "bb bb", "dddd dddd dddd dddd"]
    out = EmbedRunner(model, batch_size=2).embed(texts)
    np.testing.assert_allclose(out, HashEmbedder(dimension=32).embed_documents(texts), atol=1e-6)


def test_runner_sorts_by_length_before_batching(model):
    EmbedRunner(model, batch_size=2).embed(["ccc", "a", "dddd", "bb", "eeeee"])
    assert model.batches == [["a", "bb"], ["ccc", "dddd"], ["eeeee"]]


def test_runner_orders_by_the_embedders_token_count_not_characters(model):
    # HashEmbedder counts words: the 10-character word is 1 token, "a b c" is 3.
    EmbedRunner(model, batch_size=1).embed(["a b c", "aaaaaaaaaa", "a b"])
    assert model.batches == [["aaaaaaaaaa"], ["a b"], ["a b c"]]


def test_runner_token_budget_puts_many_short_texts_in_one_batch(model):
    texts = ["a", "b", "c", "d", "e f g h", "i j k l"]
    runner = EmbedRunner(model, batch_size=100, batch_tokens=8)
    out = runner.embed(texts)
    assert model.batches == [["a", "b", "c", "d"], ["e f g h", "i j k l"]]
    np.testing.assert_allclose(out, HashEmbedder(dimension=32).embed_documents(texts), atol=1e-6)


def test_length_batches_exact_plan():
    assert length_batches([5, 1, 3, 1, 9], max_count=2) == [[1, 3], [2, 0], [4]]
    assert length_batches([5, 1, 3, 1, 9], max_count=10, max_tokens=10) == [[1, 3, 2], [0], [4]]
    assert length_batches([], max_count=3) == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 300), max_size=60), st.integers(1, 40), st.none() | st.integers(1, 2000))
def test_length_batches_cover_every_text_once_within_the_caps(lengths, max_count, max_tokens):
    plan = length_batches(lengths, max_count, max_tokens)
    flat = [i for b in plan for i in b]
    assert sorted(flat) == list(range(len(lengths)))
    assert [lengths[i] for i in flat] == sorted(lengths)  # shortest first, batches contiguous
    for b in plan:
        assert 1 <= len(b) <= max_count
        if max_tokens is not None and len(b) > 1:
            assert len(b) * max(lengths[i] for i in b) <= max_tokens


@pytest.mark.parametrize("kwargs, message", [
    ({"max_count": 0}, r"length batches: max_count=0 is out of range; use at least 1"),
    ({"max_count": 2, "max_tokens": 0},
     r"length batches: max_tokens=0 is out of range; use at least 1 or None"),
])
def test_length_batches_reject_bad_caps(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        length_batches([1, 2], **kwargs)


def test_runner_never_embeds_the_same_text_twice_in_a_call(model):
    runner = EmbedRunner(model, batch_size=8)
    out = runner.embed(["x y", "z", "x y", "z", "x y"])
    assert sorted(model.calls) == ["x y", "z"]
    assert np.array_equal(out[0], out[2]) and np.array_equal(out[1], out[3])
    s = runner.stats
    assert (s.texts, s.unique, s.cache_hits, s.embedded, s.batches) == (5, 2, 0, 2, 1)


def test_cache_hits_skip_the_model_across_calls_and_runners(model):
    cache = MemoryCache()
    first = EmbedRunner(model, cache=cache).embed(["alpha", "beta"])
    runner = EmbedRunner(model, cache=cache)
    second = runner.embed(["beta", "gamma", "alpha"])
    assert model.calls == ["beta", "alpha", "gamma"]  # shortest first
    np.testing.assert_array_equal(second[0], first[1])
    np.testing.assert_array_equal(second[2], first[0])
    assert (runner.stats.cache_hits, runner.stats.embedded) == (2, 1)
    assert (cache.hits, cache.misses, len(cache)) == (2, 3, 3)


def test_cache_key_depends_on_embedder_version_and_text():
    a, b = HashEmbedder(dimension=16), HashEmbedder(dimension=32)
    assert cache_key(a, "t") == cache_key(HashEmbedder(dimension=16), "t")
    assert len({cache_key(a, "t"), cache_key(b, "t"), cache_key(a, "u")}) == 3
    assert cache_key(a, "t") == hashlib.sha256(b"hash\x1fhash-v1-d16\x1ft").hexdigest()


def test_memory_cache_evicts_least_recently_used():
    cache = MemoryCache(max_items=2)
    cache.put_many({"a": np.ones(2), "b": np.ones(2)})
    cache.get_many(["a"])
    cache.put_many({"c": np.ones(2)})
    assert sorted(cache.get_many(["a", "b", "c"])) == ["a", "c"]


def test_progress_counts_texts_including_cached_and_duplicates(model):
    cache = MemoryCache()
    EmbedRunner(model, cache=cache).embed(["a"])
    seen: list[tuple[int, int]] = []
    runner = EmbedRunner(model, cache=cache, batch_size=1)
    runner.embed(["a", "b", "b", "c"], on_progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 4), (3, 4), (4, 4)]


def test_runner_rejects_a_bad_batch_size(model):
    with pytest.raises(ConfigError, match=r"embed runner: batch_size=0 is out of range; use at least 1"):
        EmbedRunner(model, batch_size=0)
    with pytest.raises(ConfigError,
                       match=r"embed runner: batch_tokens=0 is out of range; use at least 1 or None"):
        EmbedRunner(model, batch_tokens=0)


def test_empty_input(model):
    assert EmbedRunner(model).embed([]).shape == (0, 32)
    assert model.batches == []


def test_pipeline_returns_every_job_in_order_from_a_background_thread(model):
    jobs = {f"doc{i}": [f"text {i} {j}" for j in range(i % 3 + 1)] for i in range(10)}
    got = []
    with EmbedPipeline(EmbedRunner(model, batch_size=4), max_pending=2) as pipe:
        for key, texts in jobs.items():
            pipe.submit(key, texts)
            got.extend(pipe.ready())
        got.extend(pipe.finish())
    assert [k for k, _ in got] == list(jobs)
    ref = HashEmbedder(dimension=32)
    for key, vectors in got:
        np.testing.assert_allclose(vectors, ref.embed_documents(jobs[key]), atol=1e-6)
    assert model.threads == {"zoomrag-embed"}


def test_pipeline_gathers_waiting_jobs_into_shared_batches(model):
    pipe = EmbedPipeline(EmbedRunner(model, batch_size=100), max_pending=8)
    for i in range(5):  # queued before the worker starts: one gathered run
        pipe._in.put((i, [f"t{i}"]))
    pipe.start()
    out = pipe.finish()
    assert [k for k, _ in out] == [0, 1, 2, 3, 4]
    assert model.batches == [["t0", "t1", "t2", "t3", "t4"]]


def test_pipeline_reraises_the_worker_error_in_the_caller(model):
    failing = Counting(HashEmbedder(dimension=8), fail_on="bad")
    pipe = EmbedPipeline(EmbedRunner(failing), max_pending=1)
    pipe.submit("a", ["bad"])
    with pytest.raises(EmbedError, match="cannot embed 'bad'"):
        pipe.finish()


def test_pipeline_refuses_submit_after_finish(model):
    pipe = EmbedPipeline(EmbedRunner(model))
    pipe.finish()
    with pytest.raises(ConfigError,
                       match=r"embed pipeline: submit\(\) after finish\(\); make a new pipeline"):
        pipe.submit("x", ["y"])


def test_pipeline_exit_after_caller_error_does_not_hang(model):
    with pytest.raises(RuntimeError, match="parse failed"), EmbedPipeline(EmbedRunner(model)) as pipe:
        pipe.submit("a", ["one"])
        raise RuntimeError("parse failed")

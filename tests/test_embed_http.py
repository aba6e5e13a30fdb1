"""The OpenAI-compatible HTTP embedder against a local fake server."""

from __future__ import annotations

import socket

import numpy as np
import pytest
from fakes.openai_server import FakeEmbeddingServer, fake_vector

from zoomrag.embed import Embedder, get_embedder, l2_normalize
from zoomrag.embed.openai_api import HTTPEmbedder
from zoomrag.errors import ConfigError, EmbedError


@pytest.fixture
def server():
    with FakeEmbeddingServer(dimension=8) as s:
        yield s


@pytest.fixture
def sleeps():
    return []


def make(server, sleeps, **kw) -> HTTPEmbedder:
    kw.setdefault("backoff", 0.5)
    return HTTPEmbedder(server.base_url, "fake-model", "sk-secret", sleep=sleeps.append, **kw)


def test_success_batching_order_and_request_shape(server, sleeps):
    e = make(server, sleeps, batch_size=2)
    texts = ["one", "two", "three", "four", "five"]
    out = e.embed_documents(texts)
    assert out.shape == (5, 8) and out.dtype == np.float32
    np.testing.assert_allclose(out, l2_normalize(np.array([fake_vector(t, 8) for t in texts])), atol=1e-6)
    assert [r.json["input"] for r in server.requests] == [["one", "two"], ["three", "four"], ["five"]]
    first = server.requests[0]
    assert first.path == "/v1/embeddings"
    assert first.json == {"model": "fake-model", "input": ["one", "two"], "encoding_format": "float"}
    assert first.headers["Authorization"] == "Bearer sk-secret"
    assert (e.name, e.version, e.dimension, e.requests, sleeps) == ("http", "fake-model", 8, 3, [])
    assert isinstance(e, Embedder)  # after the first answer: the check reads .dimension


def test_query_and_dimension_probe(server, sleeps):
    e = make(server, sleeps)
    assert e.dimension == 8  # probed with one request
    assert server.requests[0].json["input"] == ["dimension probe"]
    q = e.embed_query("hello")
    np.testing.assert_allclose(np.linalg.norm(q), 1.0, rtol=1e-6)


def test_dimensions_option_is_sent_and_versioned(server, sleeps):
    e = make(server, sleeps, dimensions=8)
    e.embed_documents(["x"])
    assert server.requests[0].json["dimensions"] == 8
    assert (e.version, e.dimension) == ("fake-model/d8", 8)


def test_settings_from_the_environment(server, monkeypatch):
    monkeypatch.setenv("ZOOMRAG_EMBED_BASE_URL", server.base_url + "/")
    monkeypatch.setenv("ZOOMRAG_EMBED_MODEL", "env-model")
    monkeypatch.delenv("ZOOMRAG_EMBED_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    e = get_embedder("http", dimension=8)
    e.embed_documents(["x"])
    assert e.url == server.base_url + "/embeddings"
    assert server.requests[0].json["model"] == "env-model"
    assert server.requests[0].headers["Authorization"] == "Bearer sk-env"


def test_no_key_sends_no_authorization(server, sleeps, monkeypatch):
    monkeypatch.delenv("ZOOMRAG_EMBED_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    HTTPEmbedder(server.base_url, "m", sleep=sleeps.append).embed_documents(["x"])
    assert "Authorization" not in server.requests[0].headers


def test_missing_settings_are_config_errors(monkeypatch):
    monkeypatch.delenv("ZOOMRAG_EMBED_BASE_URL", raising=False)
    monkeypatch.delenv("ZOOMRAG_EMBED_MODEL", raising=False)
    with pytest.raises(ConfigError, match=r"^http embedder: no server URL; set ZOOMRAG_EMBED_BASE_URL \(e.g. "
                                          r"http://localhost:11434/v1\) or pass base_url=$"):
        HTTPEmbedder()
    with pytest.raises(ConfigError,
                       match="^http embedder: no model name; set ZOOMRAG_EMBED_MODEL or pass model=$"):
        HTTPEmbedder("http://127.0.0.1:1/v1")


def test_401_names_status_message_and_what_to_check(server, sleeps):
    server.reply(401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}})
    e = make(server, sleeps)
    with pytest.raises(EmbedError) as info:
        e.embed_documents(["x"])
    assert str(info.value) == (
        f"http embedder: POST {server.base_url}/embeddings returned 401 Unauthorized: Incorrect API key "
        "provided; check the API key in ZOOMRAG_EMBED_API_KEY or OPENAI_API_KEY"
    )
    assert "sk-secret" not in str(info.value)
    assert (len(server.requests), sleeps) == (1, [])  # 4xx is not retried


def test_400_with_a_plain_error_string(server, sleeps):
    server.reply(400, {"error": "input is too long"})  # Ollama/TEI shape
    with pytest.raises(EmbedError) as info:
        make(server, sleeps).embed_documents(["x"])
    assert str(info.value) == (
        f"http embedder: POST {server.base_url}/embeddings returned 400 Bad Request: input is too long; "
        "check the model name and that every text fits the model's window"
    )


def test_500_then_success_is_retried_with_backoff(server, sleeps):
    server.reply(500, {"error": {"message": "overloaded"}})
    server.reply(503, "busy")
    out = make(server, sleeps).embed_documents(["x"])
    assert out.shape == (1, 8)
    assert len(server.requests) == 3
    assert sleeps == [0.5, 1.0]


def test_429_honours_retry_after(server, sleeps):
    server.reply(429, {"error": {"message": "rate limited"}}, headers={"Retry-After": "3"})
    make(server, sleeps).embed_documents(["x"])
    assert sleeps == [3.0]


def test_persistent_5xx_gives_up_with_the_last_error(server, sleeps):
    for _ in range(3):
        server.reply(502, {"error": {"message": "bad gateway"}})
    with pytest.raises(EmbedError) as info:
        make(server, sleeps, max_retries=2).embed_documents(["x"])
    assert str(info.value) == (
        f"http embedder: POST {server.base_url}/embeddings returned 502 Bad Gateway: bad gateway "
        "(gave up after 3 attempts)"
    )
    assert sleeps == [0.5, 1.0]


def test_backoff_is_capped(server, sleeps):
    for _ in range(4):
        server.reply(500, "x")
    make(server, sleeps, max_retries=4, backoff=1.0, max_backoff=3.0).embed_documents(["x"])
    assert sleeps == [1.0, 2.0, 3.0, 3.0]


def test_connection_refused_is_retried_then_reported(sleeps):
    with socket.socket() as s:  # a port with nobody listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    e = HTTPEmbedder(f"http://127.0.0.1:{port}/v1", "m", sleep=sleeps.append, max_retries=1)
    url = f"http://127.0.0.1:{port}/v1/embeddings"
    with pytest.raises(EmbedError,
                       match=rf"^http embedder: cannot reach {url}: .*\(gave up after 2 attempts\)$"):
        e.embed_documents(["x"])
    assert sleeps == [0.5]


def test_malformed_json(server, sleeps):
    server.reply(200, "<html>not json</html>")
    with pytest.raises(EmbedError) as info:
        make(server, sleeps).embed_documents(["x"])
    assert str(info.value) == (
        f"http embedder: {server.base_url}/embeddings did not return JSON: '<html>not json</html>'; "
        "is ZOOMRAG_EMBED_BASE_URL an OpenAI-compatible /v1 endpoint?"
    )


def test_json_without_data(server, sleeps):
    server.reply(200, {"embeddings": [[1, 2]]})
    with pytest.raises(EmbedError, match=r"returned JSON without a 'data' list; is ZOOMRAG_EMBED_BASE_URL"):
        make(server, sleeps).embed_documents(["x"])


def test_items_without_embedding(server, sleeps):
    server.reply(200, {"data": [{"index": 0, "vector": [1.0]}]})
    with pytest.raises(EmbedError, match=r"returned items without a numeric 'embedding' list$"):
        make(server, sleeps).embed_documents(["x"])


def test_wrong_number_of_vectors(server, sleeps):
    server.reply(200, {"data": [{"index": 0, "embedding": [1.0] * 8}]})
    with pytest.raises(EmbedError, match=r"/v1/embeddings returned 1 vectors for 2 texts$"):
        make(server, sleeps).embed_documents(["x", "y"])


def test_wrong_dimension(server, sleeps):
    server.reply(200, dimension=4)
    with pytest.raises(EmbedError) as info:
        make(server, sleeps, dimension=8).embed_documents(["x"])
    assert str(info.value) == (
        f"http embedder: {server.base_url}/embeddings returned a vector of dimension 4 for text #0, "
        "expected 8; check ZOOMRAG_EMBED_MODEL (the index was built with 'fake-model')"
    )


def test_bad_options():
    with pytest.raises(ConfigError, match="http embedder: batch_size=0 is out of range; use at least 1"):
        HTTPEmbedder("http://x/v1", "m", batch_size=0)
    with pytest.raises(ConfigError, match="http embedder: max_retries=-1 is out of range; use at least 0"):
        HTTPEmbedder("http://x/v1", "m", max_retries=-1)

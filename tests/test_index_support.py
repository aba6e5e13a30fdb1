"""Helpers for the store/search/index tests (no tests here): a counting embedder and a tiny
chunker whose trees are obvious (paragraphs of lines), so expected outputs can be exact."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from click.testing import CliRunner, Result

from zoomrag.cli import main
from zoomrag.embed.hashing import HashEmbedder
from zoomrag.model import Document
from zoomrag.parse import Chunker, Span

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


class CountingEmbedder(HashEmbedder):
    """The deterministic ``hash`` embedder, recording every text sent to the model."""

    def __init__(self, dimension: int = 32):
        super().__init__(dimension=dimension)
        self.embedded: list[str] = []
        self.calls = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.embedded.extend(texts)
        return super().embed_documents(texts)


@dataclass(frozen=True)
class ParagraphLines(Chunker):
    """Paragraphs (blank-line separated) whose children are their non-empty lines."""

    name = "test-paragraph-lines"

    def split(self, document: Document) -> list[Span]:
        out = []
        for p in re.finditer(r"[^\n]+(?:\n[^\n]+)*", document.text):
            lines = [Span("line", p.start() + m.start(), p.start() + m.end())
                     for m in re.finditer(r"[^\n]+", p.group())]
            out.append(Span("paragraph", p.start(), p.end(), children=lines))
        return out


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@dataclass(frozen=True)
class CharWindows(Chunker):
    """Consecutive windows of ``size`` characters (a flat tree)."""

    name = "test-char-windows"
    size: int = 120

    def split(self, document: Document) -> list[Span]:
        n = len(document.text)
        return [Span("chunk", s, min(n, s + self.size)) for s in range(0, n, self.size)]


def run_cli(*args: str, ok: int = 0) -> Result:
    """``zoomrag ARGS`` in process; its exit code must be ``ok``."""
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == ok, (result.stdout, result.stderr, result.exception)
    return result


def cli_contexts(result: Result) -> list[tuple]:
    """(doc_id, start, end, text) of each context a ``query --json`` printed."""
    return [(c["doc_id"], c["start"], c["end"], c["text"]) for c in json.loads(result.stdout)["contexts"]]

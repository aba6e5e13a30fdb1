"""A folder indexed and asked through the CLI, as the readers' end-to-end tests do it."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from zoomrag.cli import main


def index_folder(folder: Path, tmp_path: Path) -> str:
    """``folder`` indexed with the hash embedder into a new index; its path."""
    index = str(tmp_path / "i.db")
    got = CliRunner().invoke(main, ["index", str(folder), "--index", index, "--embedder", "hash"])
    assert got.exit_code == 0, got.output
    return index


def top_context(index: str, *query: str) -> dict:
    """The best context (as ``--json`` gives it) for ``query`` and its options, by BM25."""
    got = CliRunner().invoke(main, ["query", *query, "--index", index, "--json", "--mode", "bm25"])
    assert got.exit_code == 0, got.output
    return json.loads(got.output)["contexts"][0]

"""bench/chunk_phases.py runs end to end and reports every phase for the corpora it was given."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import chunk_phases
from chunk_speed import DATA

pytestmark = pytest.mark.skipif(not (DATA / "chroma_general").is_dir(), reason="../shared/data is not there")


def test_one_round_gives_a_row_of_every_phase(capsys: pytest.CaptureFixture[str]) -> None:
    assert chunk_phases.main(["--mb", "0.3", "--rounds", "1", "--corpora", "chroma_general"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("| corpus"))
    assert header.split(" | ")[3:] == [*chunk_phases._PHASES[:-1], chunk_phases._PHASES[-1] + " |"]
    row = next(line for line in out.splitlines() if line.startswith("| chroma_general"))
    cells = row.strip("| ").split(" | ")
    assert len(cells) == 3 + len(chunk_phases._PHASES)
    assert all(re.fullmatch(r"\d+\.\d \(\d+\.\d\)", c) for c in cells[3:]), cells

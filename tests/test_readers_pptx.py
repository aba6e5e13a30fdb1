"""PowerPoint decks (optional extra): each slide read as the HTML it means, slides parted as
pages."""

from __future__ import annotations

import importlib.util
import json

import pytest
from click.testing import CliRunner

from zoomrag.cli import main
from zoomrag.errors import InputError
from zoomrag.load import load_path

pytestmark = pytest.mark.skipif(importlib.util.find_spec("pptx") is None,
                                reason="the optional 'pptx' extra is not installed")

DECK = [
    {"title": "Quarterly review"},
    {"title": "Revenue", "bullets": [(0, "Up 12 % on last year"), (1, "Mostly from Europe"), (0, "Costs flat")],
     "notes": "Say that Europe grew fastest.\nThen pause."},
    {"title": "By region", "table": [["Region", "Revenue"], ["Europe", "4.1"], ["Asia", "2.0"]],
     "box": ["Figures in millions.", "Unaudited."]},
    {},  # an empty slide keeps its page
]


def make(tmp_path, slides=DECK, title="Q3 review"):
    from pptx_support import make_pptx

    path = tmp_path / "review.pptx"
    path.write_bytes(make_pptx(slides, title=title))
    return path


def test_slides_are_read_as_pages_of_headings_lists_tables_and_notes(tmp_path):
    doc = load_path(make(tmp_path))
    assert doc.format == "pptx" and doc.metadata == {"title": "Q3 review"}
    assert doc.text == ("# Quarterly review\n\f\n# Revenue\n\n- Up 12 % on last year\n  - Mostly from Europe\n"
                        "- Costs flat\n\n## Notes\n\nSay that Europe grew fastest.\n\nThen pause.\n\f\n# By region\n\n"
                        "Figures in millions.\n\nUnaudited.\n\n| Region | Revenue |\n| --- | --- |\n| Europe | 4.1 |\n"
                        "| Asia | 2.0 |\n\f\n")
    assert [(b.type, b.level) for b in doc.blocks] == [
        ("heading", 1), ("heading", 1), ("list", 0), ("heading", 2), ("text", 0), ("text", 0), ("heading", 1),
        ("text", 0), ("text", 0), ("table", 0)]
    # without a title of its own, the first slide's names it
    assert load_path(make(tmp_path, title=None)).metadata == {"title": "Quarterly review"}


def test_a_broken_deck_is_a_clear_error(tmp_path):
    path = make(tmp_path)
    path.write_bytes(path.read_bytes()[:400])
    with pytest.raises(InputError, match=rf"^{path}: cannot read this PowerPoint deck \(.+\); check that it is a "
                                         r"complete \.pptx \(an older \.ppt must be saved as \.pptx first\)$"):
        load_path(path)


def test_a_context_from_a_deck_says_its_slide(tmp_path):
    decks = tmp_path / "decks"
    decks.mkdir()
    plans = [{"title": f"Hiring in {season}", "bullets": [(0, "Four teams grow")],
              "notes": " ".join(f"Point {i} of the talk covers the hiring plan for team {i} in {season}."
                                for i in range(12))} for season in ("spring", "autumn")]
    make(tmp_path, [plans[0], DECK[2], plans[1]]).rename(decks / "review.pptx")
    index = str(tmp_path / "i.db")
    runner = CliRunner()
    got = runner.invoke(main, ["index", str(decks), "--index", index, "--embedder", "hash"])
    assert got.exit_code == 0, got.output
    got = runner.invoke(main, ["query", "Europe Asia", "--index", index, "--json", "--mode", "bm25",
                               "--expand", "none"])
    assert got.exit_code == 0, got.output
    top = json.loads(got.output)["contexts"][0]
    assert "| Europe | 4.1 |" in top["text"] and top["section_path"] == ["By region"]
    assert top["pages"] == [2, 2]

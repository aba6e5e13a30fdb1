"""``hierarchical``: heading sections first, then nested size levels that never cross a parent."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_tree, texts

from zoomrag.errors import ConfigError
from zoomrag.model import Block, Document
from zoomrag.parse import Chunker, Span, make_chunker
from zoomrag.parse.base import build_tree, measure_for
from zoomrag.parse.boundaries import can_cut
from zoomrag.parse.headings import find_headings

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

GUIDE = ("Preface line.\n\n# Guide\n\nIntro words here.\n\n## Install\n\n"
         "Run the installer. Then restart the machine now.\n\n## Use\n\nOpen it.\n")


def md(text: str) -> Document:
    return Document(id="d", source="g.md", text=text, format="markdown")


def outline(tree) -> list[tuple]:
    return [(n.level, n.kind, n.text, n.section_path) for n in tree]


def test_exact_tree_with_headings():
    tree = make_chunker("hierarchical", {"sizes": "40,20", "unit": "chars", "lookback": 0.3}).chunk(md(GUIDE))
    g, i = ("Guide",), ("Guide", "Install")
    assert outline(tree)[1:] == [
        (1, "chunk", "Preface line.", ()),
        (1, "section", GUIDE[15:-1], g),
        (2, "chunk", "# Guide\n\nIntro words", g),
        (2, "chunk", "here.", g),
        (2, "section", "## Install\n\nRun the installer. Then restart the machine now.", i),
        (3, "chunk", "## Install\n\nRun the installer.", i),
        (4, "chunk", "## Install\n\nRun the", i),
        (4, "chunk", "installer.", i),
        (3, "chunk", "Then restart the machine now.", i),
        (4, "chunk", "Then restart the", i),
        (4, "chunk", "machine now.", i),
        (2, "section", "## Use\n\nOpen it.", ("Guide", "Use")),  # small: a leaf itself
    ]


def test_a_level_that_would_not_split_is_skipped():
    text = "aaaa bbbb cccc dddd eeee ffff"  # 29 chars: fits 40, not 10
    tree = make_chunker("hierarchical", {"sizes": "40,10", "unit": "chars"}).chunk(md(text))
    assert [(n.level, n.text) for n in tree][1:] == [
        (1, "aaaa bbbb"), (1, "cccc dddd"), (1, "eeee ffff"),
    ]


def test_three_levels_without_structure():
    text = " ".join(f"w{i:02d}" for i in range(40))  # 40 words of 3 chars: 159 chars
    tree = make_chunker("hierarchical", {"sizes": "80,40,20", "unit": "chars",
                                         "structure": "false"}).chunk(md("# T\n\n" + text))
    assert tree.depth() == 3
    assert all(n.kind == "chunk" for n in tree.nodes[1:])
    for n in tree:
        for c in tree.children(n):
            assert n.start <= c.start and c.end <= n.end
    assert max(n.length for n in tree.at_level(3)) <= 20


def test_defaults_are_2048_512_64_tokens_looking_back_60_percent():
    h = make_chunker("hierarchical")
    assert (h.sizes, h.unit, h.lookback) == ((2048, 512, 64), "tokens", 0.6)


# Sentences of 45 to 62 characters: a 100-character piece always has a sentence end in its last
# 60 %, but not always in its last 30 %.
PROSE = " ".join(f"Sentence {i} says {'more ' * (i % 4)}about the topic at hand here." for i in range(24))


def test_small_leaves_end_at_sentence_ends_by_default():
    tree = make_chunker("hierarchical", {"sizes": "400,100", "unit": "chars"}).chunk(md(PROSE))
    assert all(leaf.text.endswith(".") for leaf in tree.leaves())
    narrow = make_chunker("hierarchical", {"sizes": "400,100", "unit": "chars", "lookback": 0.3})
    assert not all(leaf.text.endswith(".") for leaf in narrow.chunk(md(PROSE)).leaves())


@pytest.mark.parametrize("params, msg", [
    ({"sizes": "128,512"}, r"hierarchical: sizes=128,512 must be strictly decreasing, largest first"),
    ({"sizes": "512,0"}, r"hierarchical: sizes=0 is out of range; use at least 1"),
    ({"sizes": ""}, r"hierarchical: sizes=\(\) must be a list of sizes"),
    ({"sizes": "a,b"}, r"hierarchical: sizes='a,b' is not a valid tuple"),
    ({"min_size": 200}, r"hierarchical: min_size=200 is out of range; use at least 0 and at most 64"),
])
def test_bad_parameters(params, msg):
    with pytest.raises(ConfigError, match=msg):
        make_chunker("hierarchical", params)


def test_sizes_accept_a_list():
    assert make_chunker("hierarchical", {"sizes": [300, 100]}).sizes == (300, 100)


@dataclass(frozen=True)
class WholeTable(Chunker):
    """Stand-in for the table strategy: one ``table`` span with one ``row`` per line."""

    name = "stub-table"

    def split(self, document: Document) -> list[Span]:
        text = document.text.strip()
        start = document.text.index(text[0]) if text else 0
        rows, pos = [], start
        for line in text.split("\n"):
            rows.append(Span("row", pos, pos + len(line)))
            pos += len(line) + 1
        return [Span("table", start, start + len(text), children=rows)] if text else []


def test_a_delegated_table_stays_inside_its_section():
    text = "# Data\n\nSome words before.\n\n| a | b |\n| 1 | 2 |\n\nWords after.\n"
    t0 = text.index("| a")
    t1 = text.index("2 |") + 3
    d = Document(id="d", source="t.md", text=text, format="markdown",
                 blocks=(Block(0, 6, "heading", level=1), Block(t0, t1, "table")))
    h = make_chunker("hierarchical", {"sizes": "60,30", "unit": "chars"})
    assert {n.kind for n in h.chunk(d)} == {"document", "section", "chunk"}  # alone: all text
    routed = build_tree(d, h.split_routed(d, {"table": WholeTable()}))
    check_tree(routed)
    assert [(n.level, n.kind, n.text, n.section_path) for n in routed][1:] == [
        (1, "section", text.rstrip(), ("Data",)),
        (2, "chunk", "# Data\n\nSome words before.", ("Data",)),
        (2, "table", "| a | b |\n| 1 | 2 |", ("Data",)),
        (3, "row", "| a | b |", ("Data",)),
        (3, "row", "| 1 | 2 |", ("Data",)),
        (2, "chunk", "Words after.", ("Data",)),
    ]


@settings(max_examples=120, deadline=None)
@given(texts, st.sampled_from(["markdown", "text"]), st.sampled_from(["chars", "approx", "tokens"]),
       st.lists(st.integers(1, 60), min_size=1, max_size=3, unique=True))
def test_invariants_on_random_text(text, fmt, unit, sizes):
    sizes = tuple(sorted(sizes, reverse=True))
    chunker = make_chunker("hierarchical", {"sizes": sizes, "unit": unit})
    d = Document(id="d", source="x", text=text, format=fmt)
    tree = chunker.chunk(d)
    check_tree(tree, partition=True)
    m = measure_for(d, unit)
    for n in tree.nodes[1:]:
        limit = sizes[-1] if n.is_leaf else sizes[0] if n.kind == "chunk" else None
        if limit is not None and m.size(n.start, n.end) > limit:
            assert not any(can_cut(text, p) for p in range(n.start + 1, n.end)), n
        parent = tree.parent(n)
        if n.kind == "chunk" and parent.kind == "chunk":  # a chunk inside a chunk is smaller
            assert m.size(n.start, n.end) <= m.size(parent.start, parent.end)
    assert [n.id for n in chunker.chunk(d)] == [n.id for n in tree]


def test_wikitext_markdown_sections_and_paths():
    path = DATA / "wikitext_md" / "corpus.jsonl"
    if not path.exists():
        pytest.skip("shared data not present")
    row = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    d = Document(id=row["id"], source=row["id"], text=row["text"], format=row["format"])
    tree = make_chunker("hierarchical").chunk(d)
    check_tree(tree)
    sections = [n for n in tree if n.kind == "section"]
    assert len(sections) == len(find_headings(d)) == 77
    m = measure_for(d, "tokens")
    for n in tree.nodes[1:]:
        assert n.section_path, n  # the corpus starts with a heading: every node has a path
        if n.is_leaf:
            assert m.size(n.start, n.end) <= 128 or " " not in n.text.strip()
        heading = n.section_path[-1]
        if n.kind == "section":
            assert heading in d.text[n.start:d.text.index("\n", n.start)]
    first = tree.children(tree.root)[0]
    assert first.kind == "section" and first.section_path == ("Valkyria Chronicles III",)

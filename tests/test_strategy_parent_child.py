"""``parent-child``: top sections (or 1024-token pieces) as parents, small overlapping children."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_tree, texts

from zoomrag.errors import ConfigError
from zoomrag.model import Document
from zoomrag.parse import make_chunker
from zoomrag.parse.base import measure_for
from zoomrag.parse.boundaries import can_cut

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

MANUAL = ("Before any heading.\n\n# Manual\n\nWelcome text.\n\n## Setup\n\n"
          "Install it. Configure it. Run the tests.\n\n### Linux\n\nUse apt.\n\n## Usage\n\nCall the tool.\n")


def md(text: str) -> Document:
    return Document(id="d", source="m.md", text=text, format="markdown")


def outline(tree) -> list[tuple]:
    return [(n.level, n.kind, n.text, n.section_path) for n in tree][1:]


def test_parents_are_the_two_outer_heading_levels():
    chunker = make_chunker("parent-child", {"parent_size": 80, "child_size": 20, "unit": "chars"})
    tree = chunker.chunk(md(MANUAL))
    m, s, u = ("Manual",), ("Manual", "Setup"), ("Manual", "Usage")
    assert outline(tree) == [
        (1, "chunk", "Before any heading.", ()),
        (2, "chunk", "Before any heading.", ()),  # a small parent still has its child
        (1, "section", "# Manual\n\nWelcome text.", m),
        (2, "chunk", "# Manual\n\nWelcome", m),
        (2, "chunk", "text.", m),
        # H3 "Linux" stays inside its H2 parent: the H2 fits in parent_size
        (1, "section", "## Setup\n\nInstall it. Configure it. Run the tests.\n\n### Linux\n\nUse apt.", s),
        (2, "chunk", "## Setup\n\nInstall", s),
        (2, "chunk", "it. Configure it.", s),
        (2, "chunk", "it. Run the tests.", s),  # 3 chars (15 % of 20) shared with the previous
        (2, "chunk", "### Linux\n\nUse apt.", s),
        (1, "section", "## Usage\n\nCall the tool.", u),
        (2, "chunk", "## Usage\n\nCall the", u),
        (2, "chunk", "the tool.", u),
    ]
    assert tree.depth() == 2


def test_a_section_bigger_than_parent_size_splits_by_subsection_then_by_size():
    chunker = make_chunker("parent-child", {"parent_size": 40, "child_size": 20, "unit": "chars"})
    tree = chunker.chunk(md(MANUAL))
    parents = [(n.kind, n.text, n.section_path) for n in tree.at_level(1)]
    assert parents == [
        ("chunk", "Before any heading.", ()),
        ("section", "# Manual\n\nWelcome text.", ("Manual",)),
        ("chunk", "## Setup\n\nInstall it. Configure it.", ("Manual", "Setup")),
        ("chunk", "Run the tests.", ("Manual", "Setup")),
        ("section", "### Linux\n\nUse apt.", ("Manual", "Setup", "Linux")),
        ("section", "## Usage\n\nCall the tool.", ("Manual", "Usage")),
    ]


def test_without_headings_parents_are_size_pieces():
    text = "aaaa bbbb. cccc dddd. eeee ffff. gggg hhhh."
    tree = make_chunker("parent-child", {"parent_size": 22, "child_size": 10, "child_overlap": 0,
                                         "unit": "chars"}).chunk(md(text))
    assert outline(tree) == [
        (1, "chunk", "aaaa bbbb. cccc dddd.", ()),
        (2, "chunk", "aaaa bbbb.", ()),
        (2, "chunk", "cccc dddd.", ()),
        (1, "chunk", "eeee ffff. gggg hhhh.", ()),
        (2, "chunk", "eeee ffff.", ()),
        (2, "chunk", "gggg hhhh.", ()),
    ]


def test_defaults():
    t = make_chunker("parent-child")
    assert (t.parent_size, t.child_size, t.child_overlap, t.unit) == (1024, 128, 19, "tokens")
    c = make_chunker("parent-child", {"unit": "chars"})
    assert (c.child_size, c.child_overlap) == (600, 90)
    assert make_chunker("parent-child", {"parent_size": 64}).child_size == 64


@pytest.mark.parametrize("params, msg", [
    ({"parent_size": 0}, r"parent-child: parent_size=0 is out of range; use at least 1"),
    ({"child_size": 2000}, r"parent-child: child_size=2000 is out of range; use at least 1 and at most 1024"),
    ({"child_size": 10, "child_overlap": 10},
     r"child_overlap=10 is out of range; use at least 0 and at most 9"),
    ({"unit": "lines"}, r"parent-child: unknown length unit 'lines'"),
])
def test_bad_parameters(params, msg):
    with pytest.raises(ConfigError, match=msg):
        make_chunker("parent-child", params)


@settings(max_examples=120, deadline=None)
@given(texts, st.sampled_from(["markdown", "text"]), st.sampled_from(["chars", "approx", "tokens"]),
       st.integers(2, 80), st.data())
def test_invariants_on_random_text(text, fmt, unit, parent_size, data):
    child_size = data.draw(st.integers(1, parent_size))
    chunker = make_chunker("parent-child", {"parent_size": parent_size, "child_size": child_size,
                                            "unit": unit})
    d = Document(id="d", source="x", text=text, format=fmt)
    tree = chunker.chunk(d)
    check_tree(tree, partition=True, max_overlap=len(text))
    m = measure_for(d, unit)
    assert tree.depth() <= 2
    for parent in tree.at_level(1):
        kids = tree.children(parent)
        assert kids, parent  # every parent has children, so every leaf is at level 2
        for a, b in zip(kids, kids[1:]):
            if b.start < a.end:
                assert m.size(b.start, a.end) <= chunker.child_overlap
        for n, limit in [(parent, parent_size), *((k, child_size) for k in kids)]:
            if m.size(n.start, n.end) > limit:
                assert not any(can_cut(text, p) for p in range(n.start + 1, n.end)), n
    for a, b in zip(tree.at_level(1), tree.at_level(1)[1:]):
        assert a.end <= b.start  # parents never overlap
    assert [n.id for n in chunker.chunk(d)] == [n.id for n in tree]


def test_wikitext_markdown_parents_follow_headings():
    path = DATA / "wikitext_md" / "corpus.jsonl"
    if not path.exists():
        pytest.skip("shared data not present")
    row = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    d = Document(id=row["id"], source=row["id"], text=row["text"], format=row["format"])
    tree = make_chunker("parent-child").chunk(d)
    check_tree(tree, max_overlap=10_000)
    m = measure_for(d, "tokens")
    parents = tree.at_level(1)
    assert all(m.size(p.start, p.end) <= 1024 for p in parents)
    assert all(p.section_path for p in parents)
    assert all(m.size(c.start, c.end) <= 128 for c in tree.leaves())
    # Ten articles, each an H1: every article title heads some parent.
    assert len({p.section_path[0] for p in parents}) == 10

"""The ``markdown`` strategy: section tree, split down to ``max_size`` when a section is too big."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_tree, texts

from zoomrag.errors import ConfigError
from zoomrag.model import Document, Tree
from zoomrag.parse.base import measure_for
from zoomrag.parse.boundaries import last_grapheme
from zoomrag.parse.headings import find_headings
from zoomrag.parse.registry import make_chunker
from zoomrag.parse.strategies.markdown import MarkdownChunker

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

GUIDE = "# Guide\n\nIntro para one.\n\n## Install\n\nRun the installer. Then restart.\n\n## Use\n\nShort.\n"


def md(text: str, fmt: str = "markdown") -> Document:
    return Document(id="d", source="t.md", text=text, format=fmt)


def shape(tree: Tree) -> list[tuple[int, str, str, tuple[str, ...]]]:
    return [(n.level, n.kind, n.text, n.section_path) for n in tree.nodes[1:]]


def test_small_document_is_one_section_leaf():
    tree = MarkdownChunker(max_size=1000, unit="chars").chunk(md(GUIDE))
    assert shape(tree) == [(1, "section", GUIDE.strip(), ("Guide",))]


def test_big_sections_split_into_subsections_then_sentences():
    tree = MarkdownChunker(max_size=40, unit="chars").chunk(md(GUIDE))
    assert shape(tree) == [
        (1, "section", GUIDE.strip(), ("Guide",)),
        (2, "paragraph", "# Guide\n\nIntro para one.", ("Guide",)),
        (2, "section", "## Install\n\nRun the installer. Then restart.", ("Guide", "Install")),
        # The heading travels with the first sentence; it is never a leaf of its own here.
        (3, "sentence", "## Install\n\nRun the installer.", ("Guide", "Install")),
        (3, "sentence", "Then restart.", ("Guide", "Install")),
        (2, "section", "## Use\n\nShort.", ("Guide", "Use")),
    ]
    check_tree(tree)


def test_paragraphs_are_packed_and_long_sentences_cut_into_chunks():
    text = "# T\n\nOne.\n\nTwo.\n\nThree is here.\n\n" + "abcdefghij" * 3
    tree = MarkdownChunker(max_size=12, unit="chars").chunk(md(text))
    assert shape(tree) == [
        (1, "section", text, ("T",)),
        (2, "paragraph", "# T\n\nOne.", ("T",)),
        (2, "paragraph", "Two.", ("T",)),
        (2, "paragraph", "Three is here.", ("T",)),
        (3, "chunk", "Three is", ("T",)),  # one sentence over the limit: cut at a word gap
        (3, "chunk", "here.", ("T",)),
        (2, "paragraph", "abcdefghij" * 3, ("T",)),
        (3, "chunk", "abcdefghijab", ("T",)),
        (3, "chunk", "cdefghijabcd", ("T",)),
        (3, "chunk", "efghij", ("T",)),
    ]


def test_front_matter_and_preamble_are_kept():
    text = "---\ntitle: x\n---\n\nBefore any heading.\n\n# A\n\ntext\n"
    tree = MarkdownChunker(max_size=100, unit="chars").chunk(md(text))
    assert shape(tree) == [
        (1, "front_matter", "---\ntitle: x\n---", ()),
        (1, "preamble", "Before any heading.", ()),
        (1, "section", "# A\n\ntext", ("A",)),
    ]


def test_code_fence_with_blank_lines_stays_one_paragraph():
    fence = "```\n# not a heading\n\nprint(1)\n```"
    text = f"# A\n\nIntro.\n\n{fence}\n\nAfter.\n"
    tree = MarkdownChunker(max_size=40, unit="chars").chunk(md(text))
    assert [(n.kind, n.text) for n in tree.leaves()] == [
        ("paragraph", "# A\n\nIntro."), ("paragraph", fence), ("paragraph", "After."),
    ]


def test_big_code_fence_splits_by_lines():
    fence = "```\nline one\nline two\nline three\n```"
    tree = MarkdownChunker(max_size=20, unit="chars").chunk(md(f"{fence}\n"))
    assert [(n.kind, n.text) for n in tree.leaves()] == [
        ("sentence", "```\nline one"), ("sentence", "line two\nline three"), ("sentence", "```"),
    ]


def test_list_items_are_units_inside_a_long_paragraph():
    text = "Items:\n- alpha beta\n- gamma delta\n- epsilon"
    tree = MarkdownChunker(max_size=25, unit="chars").chunk(md(text))
    assert [n.text for n in tree.leaves()] == ["Items:\n- alpha beta", "- gamma delta\n- epsilon"]


def test_plain_text_headings_give_sections():
    text = "第一章 总则\n\n第一条内容。\n\n第二章 附则\n\n第二条内容。"
    tree = MarkdownChunker(max_size=100, unit="chars").chunk(md(text, "text"))
    assert shape(tree) == [
        (1, "section", "第一章 总则\n\n第一条内容。", ("第一章 总则",)),
        (1, "section", "第二章 附则\n\n第二条内容。", ("第二章 附则",)),
    ]


def test_max_level_keeps_deeper_headings_inside():
    text = "# A\n\nx\n\n## B\n\ny\n"
    tree = MarkdownChunker(max_size=5, unit="chars", max_level=1).chunk(md(text))
    assert [n.section_path for n in tree.nodes[1:]] == [("A",)] * len(tree.nodes[1:])


def test_empty_and_blank_documents_have_no_leaves():
    for text in ("", "  \n\t\n"):
        tree = MarkdownChunker().chunk(md(text))
        assert tree.leaves() == [] and len(tree) == 1


def test_parameters_are_checked():
    with pytest.raises(ConfigError, match=r"markdown: max_size=0 is out of range; use at least 1"):
        MarkdownChunker(max_size=0)
    with pytest.raises(ConfigError, match=r"markdown: max_level=7 is out of range; use at least 1 and at most 6"):
        MarkdownChunker(max_level=7)
    with pytest.raises(ConfigError, match=r"markdown: unknown length unit 'lines'"):
        MarkdownChunker(unit="lines")
    chunker = make_chunker("markdown", {"max_size": "64", "unit": "chars", "max_level": "2"})
    assert chunker == MarkdownChunker(max_size=64, unit="chars", max_level=2)


def _is_unbreakable(text: str) -> bool:
    """One character with its marks (no cut inside keeps them together): the only thing
    allowed past the size limit."""
    return last_grapheme(text, 1, len(text) - 1) < 0


@settings(max_examples=150, deadline=None)
@given(texts, st.sampled_from(["markdown", "text"]), st.sampled_from([1, 7, 40, 300]),
       st.sampled_from(["chars", "approx"]))
def test_invariants(text, fmt, max_size, unit):
    doc = Document.from_text(text, format=fmt)
    chunker = MarkdownChunker(max_size=max_size, unit=unit)
    tree = chunker.chunk(doc)
    check_tree(tree, partition=True)
    measure = measure_for(doc, unit)
    for leaf in tree.leaves():
        assert measure.size(leaf.start, leaf.end) <= max_size or _is_unbreakable(leaf.text), leaf
    assert [n.id for n in chunker.chunk(doc)] == [n.id for n in tree]
    for node in tree.nodes[1:]:
        parent = tree.parent(node)
        if parent.kind == "section":
            assert node.section_path[:len(parent.section_path)] == parent.section_path


def test_wikitext_md_fixture():
    path = DATA / "wikitext_md" / "corpus.jsonl"
    if not path.exists():
        pytest.skip("shared/data/wikitext_md is not present")
    raw = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    doc = md(raw["text"])
    tree = MarkdownChunker(max_size=256, unit="approx").chunk(doc)
    check_tree(tree, partition=True)
    measure = measure_for(doc, "approx")
    assert all(measure.size(n.start, n.end) <= 256 for n in tree.leaves())
    trails = set()
    stack: list[str] = []
    for h in find_headings(doc):
        stack[h.level - 1:] = [h.title]
        trails.add(tuple(stack))
    paths = {n.section_path for n in tree.nodes[1:]}
    # Every path is a real heading trail; only subsections of sections that fit whole are missing.
    assert paths <= trails and len(paths) > 60
    whole = {n.section_path for n in tree.leaves() if n.kind == "section"}
    assert all(any(p[:len(w)] == w for w in whole) for p in trails - paths)
    assert {n.kind for n in tree.nodes[1:]} == {"section", "paragraph", "sentence"}
    # A leaf's path is its innermost enclosing section's.
    for leaf in tree.leaves():
        section = next(a for a in [leaf, *tree.ancestors(leaf)] if a.kind == "section")
        assert leaf.section_path == section.section_path
    release = [n for n in tree.leaves() if n.section_path[-1] == "Release"]
    assert release and release[0].section_path == ("Valkyria Chronicles III", "Development", "Release")
    assert release[0].text.startswith("### Release\n\n")


def test_cmrc_chinese_fixture():
    path = DATA / "cmrc2018_trial" / "corpus.jsonl"
    if not path.exists():
        pytest.skip("shared/data/cmrc2018_trial is not present")
    for line in path.read_text(encoding="utf-8").splitlines()[:20]:
        rec = json.loads(line)
        doc = Document(id=rec["id"], source="cmrc", text=rec["text"], format=rec["format"])
        tree = MarkdownChunker(max_size=64, unit="approx").chunk(doc)
        check_tree(tree, partition=True)
        measure = measure_for(doc, "approx")
        assert all(measure.size(n.start, n.end) <= 64 for n in tree.leaves())

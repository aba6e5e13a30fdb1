"""The fragment naming each section of an HTML page, and the link of a context to the section it
starts in."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from test_index_support import CountingEmbedder

from zoomrag import Index
from zoomrag.load import read_text
from zoomrag.model import ANCHORS_KEY, Context, anchor_at, shown_metadata


def anchors(html: str) -> list[tuple[str, str]]:
    doc = read_text(html, format="html", id="p", source="p.html")
    return [(doc.text[start:].split("\n", 1)[0], name) for start, name in doc.metadata.get(ANCHORS_KEY, [])]


def test_each_generators_way_of_naming_a_section_is_read():
    html = """<html><body><main>
    <h1 id="widget">Widget</h1><p>Intro.</p>
    <section id="with-pip"><h2>With pip<a class="headerlink" href="#with-pip">¶</a></h2><p>Pip.</p></section>
    <div class="section" id="conda"><h2>With conda</h2><p>Conda.</p></div>
    <h2>Permalink only<a class="anchor" href="#permalink-only">#</a></h2><p>Text.</p>
    <a name="old-style"></a><h3>Old style</h3><p>Javadoc 8 names its members so.</p>
    <span id="label"></span><h3>Labelled</h3><p>A reference label.</p>
    <h2>Links elsewhere <a href="#widget">Widget</a></h2><p>Not its own name.</p>
    <h2>See <a href="#with-pip">the pip section</a></h2><p>Words in a link are no permalink.</p>
    <dl><dt id="widget.turn">widget.turn(speed)</dt><dd><p>Turns it.</p></dd></dl>
    </main></body></html>"""
    assert anchors(html) == [("# Widget", "widget"), ("## With pip", "with-pip"), ("## With conda", "conda"),
                             ("## Permalink only", "permalink-only"), ("### Old style", "old-style"),
                             ("### Labelled", "label"), ("### widget.turn(speed)", "widget.turn")]


def test_a_page_without_named_sections_has_no_anchors():
    doc = read_text("<html><body><h1>Plain</h1><p>Text.</p></body></html>", format="html", id="p", source="p")
    assert ANCHORS_KEY not in doc.metadata


def test_a_context_links_to_the_section_of_its_best_match():
    meta = {ANCHORS_KEY: [[0, "intro"], [40, "with pip"]], "title": "T"}
    assert (anchor_at(meta, 0), anchor_at(meta, 39), anchor_at(meta, 40), anchor_at(meta, 900)) == \
        ("intro", "intro", "with pip", "with pip")
    assert anchor_at({ANCHORS_KEY: [[10, "x"]]}, 5) == "" and anchor_at({}, 5) == ""
    ctx = Context(doc_id="d", source="https://x.org/a.html", start=0, end=1, text="a", score=1.0, anchor="with pip")
    assert ctx.link == "https://x.org/a.html#with%20pip" and ctx.to_dict()["link"] == ctx.link
    assert Context(doc_id="d", source="s.md", start=0, end=1, text="a", score=1.0).link == "s.md"
    assert dict(shown_metadata(meta)) == {"title": "T"}


@given(st.lists(st.integers(0, 1000), unique=True).map(sorted), st.integers(0, 1100))
def test_the_anchor_is_the_last_heading_at_or_before_the_offset(starts, offset):
    meta = {ANCHORS_KEY: [[s, f"a{s}"] for s in starts]}
    before = [s for s in starts if s <= offset]
    assert anchor_at(meta, offset) == (f"a{before[-1]}" if before else "")


def test_query_results_link_to_their_section_and_hide_the_anchors(tmp_path):
    page = tmp_path / "install.html"
    page.write_text("<html><head><title>Installing</title></head><body><main><h1 id='top'>Installing</h1>"
                    "<p>Widget installs on any machine with Python.</p>"
                    "<section id='conda'><h2>With conda</h2><p>Conda users install it from conda-forge.</p>"
                    "</section></main></body></html>")
    with Index.open(tmp_path / "ix.db", embedder=CountingEmbedder()) as ix:
        ix.add([page])
        top = ix.query("conda-forge", mode="bm25", top=1, budget=40, expand="none")[0]
        assert top.start == 0 and top.anchor == "conda" and top.link == f"{page}#conda"  # the page whole
        assert ANCHORS_KEY not in top.metadata and top.metadata["title"] == "Installing"
        assert ix.stats().metadata_keys and all(k != ANCHORS_KEY for k, _ in ix.stats().metadata_keys)


def test_anchors_stored_later_reach_a_running_index(tmp_path):
    from dataclasses import replace

    from zoomrag.load import load_path

    page = tmp_path / "p.html"
    page.write_text("<html><body><h1 id='a'>Alpha</h1><p>First part about apples.</p>"
                    "<h2 id='b'>Beta</h2><p>Second part about bananas.</p></body></html>")
    read = load_path(page, id="p.html", source=str(page))
    bare = replace(read, metadata=shown_metadata(read.metadata))  # as an older zoomrag stored it
    with Index.open(tmp_path / "ix.db", embedder=CountingEmbedder()) as ix:
        ix.add([bare])
        for _ in range(3):  # a tree is kept from its document's second query on
            assert ix.query("bananas", mode="bm25", top=1, budget=40)[0].anchor == ""
        assert ix.add([read]).updated == 1  # the same text: only the metadata is written
        assert ix.query("bananas", mode="bm25", top=1, budget=40)[0].anchor == "b"

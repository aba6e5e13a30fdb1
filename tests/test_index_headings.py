"""Units embed the headings above them: what is embedded and searched, and how the setting is pinned."""

from __future__ import annotations

import pytest
from test_index_support import CountingEmbedder, write

from zoomrag.errors import IndexMismatchError
from zoomrag.index import Index
from zoomrag.model import Document
from zoomrag.text.tokens import CharCounter

GUIDE = """# Guide

Intro text.

## Install on Linux

Run the setup script as root.

## Upgrades

Copy the new binary over the old one.
"""


def _open(tmp_path, emb=None, **kw):
    return Index.open(tmp_path / "index.db", embedder=emb or CountingEmbedder(), strategy="hierarchical",
                      params={"sizes": [2048, 512, 128]}, counter=CharCounter(), **kw)


def test_a_unit_embeds_the_headings_above_it_not_those_its_first_line_shows(tmp_path):
    write(tmp_path / "docs" / "guide.md", GUIDE)
    emb = CountingEmbedder()
    with _open(tmp_path, emb) as ix:
        ix.add([tmp_path / "docs"])
    assert sorted(emb.embedded) == sorted([
        "# Guide\n\nIntro text.",
        "Guide\n## Install on Linux\n\nRun the setup script as root.",
        "Guide\n## Upgrades\n\nCopy the new binary over the old one.",
    ])


def test_bm25_finds_a_paragraph_by_its_headings_and_returns_the_source_text(tmp_path):
    text = "# Guide\n\n## Install on Linux\n\nIntro.\n\n### Steps\n\nRun the setup script as root.\n"
    write(tmp_path / "docs" / "guide.md", text)
    with _open(tmp_path) as ix:
        ix.add([tmp_path / "docs"])
        hits = ix.search("linux", mode="bm25", k=5)
        contexts = ix.query("linux steps", mode="bm25", budget=1000, top=1, expand="none")
    assert sorted(text[h.start:h.end] for h in hits) == ["## Install on Linux\n\nIntro.",
                                                        "### Steps\n\nRun the setup script as root."]
    assert contexts[0].text == "### Steps\n\nRun the setup script as root."


def test_without_headings_units_embed_their_text_alone_and_the_choice_is_pinned(tmp_path):
    write(tmp_path / "docs" / "guide.md", GUIDE)
    emb = CountingEmbedder()
    with _open(tmp_path, emb, headings=False) as ix:
        ix.add([tmp_path / "docs"])
    assert "Run" in " ".join(emb.embedded) and not any(t.startswith("Guide\n") for t in emb.embedded)
    with _open(tmp_path) as ix:  # left out: as built
        assert ix.settings.headings is False and "heading" not in ix.stats().chunking
    with pytest.raises(IndexMismatchError, match=r"built without heading trails.*: zoomrag index --reindex --index \S+ --headings \S+docs$"):
        _open(tmp_path, headings=True)
    with _open(tmp_path, headings=True, reindex=True) as ix:
        ix.add([tmp_path / "docs"])
        assert ix.search("guide install", mode="bm25", k=1)[0].start == GUIDE.index("## Install")
        assert ix.stats().chunking.endswith("; units embed their heading trails")


def test_an_index_built_before_the_setting_keeps_units_without_headings(tmp_path):
    write(tmp_path / "docs" / "guide.md", GUIDE)
    with _open(tmp_path, headings=False) as ix:
        ix.add([tmp_path / "docs"])
        ix.store.conn.execute("DELETE FROM index_meta WHERE key = 'heading_trails'")
    with _open(tmp_path) as ix:
        assert ix.settings.headings is False


def test_a_long_trail_takes_at_most_half_of_the_unit(tmp_path):
    text = "# " + "Very long heading words " * 20 + "\n\n## Part\n\nShort text here.\n"
    write(tmp_path / "docs" / "long.md", text)
    emb = CountingEmbedder()
    with _open(tmp_path, emb) as ix:
        ix.add([tmp_path / "docs"])
    unit = next(t for t in emb.embedded if t.endswith("Short text here."))
    trail, _, body = unit.partition("\n")
    assert body == "## Part\n\nShort text here." and trail.startswith("…")
    assert emb.count_tokens(trail) <= emb.count_tokens(body)


def test_a_document_title_leads_the_trail_unless_the_first_heading_says_it(tmp_path):
    emb = CountingEmbedder()
    with _open(tmp_path, emb) as ix:
        ix.add([Document.from_text("Bubble fighters shoot water.\n\nThe game has four modes.\n", id="a.txt",
                                   metadata={"title": "Bubble  Fighter"}),
                Document.from_text("# Bubble Fighter\n\n## Modes\n\nFour modes.\n", id="b.md", format="markdown",
                                   metadata={"title": "bubble fighter"}),
                Document.from_text("Usage of the tool is simple and takes no flags at all.\n", id="c.txt",
                                   metadata={"title": "Usage"})])
    assert sorted(emb.embedded) == sorted([
        "Bubble Fighter\nBubble fighters shoot water.\n\nThe game has four modes.",
        "Bubble Fighter\n## Modes\n\nFour modes.", "# Bubble Fighter",
        "Usage\nUsage of the tool is simple and takes no flags at all."])


def test_an_evaluation_corpus_title_is_the_documents_title(tmp_path):
    from zoomrag.evaluate.dataset import EvalDocument

    assert EvalDocument("TRIAL_1", "text", title="泡泡战士").to_document().metadata == {"title": "泡泡战士"}
    assert EvalDocument("wiki", "text", title="wiki").to_document().metadata == {}


def test_a_new_title_alone_reembeds_the_units_and_other_metadata_does_not(tmp_path):
    text = "Bubble fighters shoot water.\n\nThe game has four modes.\n"
    emb = CountingEmbedder()
    with _open(tmp_path, emb) as ix:
        ix.add([Document.from_text(text, id="a.txt", metadata={"title": "Bubble Fighter"})])
        emb.embedded.clear()
        same_title = ix.add([Document.from_text(text, id="a.txt", metadata={"title": "Bubble Fighter", "y": 1})])
        assert (same_title.updated, emb.embedded) == (1, [])
        renamed = ix.add([Document.from_text(text, id="a.txt", metadata={"title": "Water Wars"})])
        assert renamed.updated == 1
        assert emb.embedded == ["Water Wars\nBubble fighters shoot water.\n\nThe game has four modes."]
        assert ix.store.document_metadata_of("a.txt") == {"title": "Water Wars"}
    with _open(tmp_path, emb, headings=False, reindex=True) as ix:
        ix.add([Document.from_text(text, id="a.txt", metadata={"title": "Bubble Fighter"})])
        emb.embedded.clear()
        assert ix.add([Document.from_text(text, id="a.txt", metadata={"title": "Other"})]).updated == 1
        assert emb.embedded == []  # without trails the title is not embedded


def test_a_markdown_link_is_embedded_and_searched_as_its_text_while_the_span_keeps_it(tmp_path):
    text = ("# Wiki\n\nSee [the deploy process](Wiki%209f1c2b3a/Deploy%20process%201d2e3f4a.md) before a "
            "release, and [![CI](https://ci.example.org/badge.svg)](https://ci.example.org/wiki).\n\n"
            "```python\nurl = '[x](y)'\n```\n")
    write(tmp_path / "docs" / "wiki.md", text)
    emb = CountingEmbedder()
    with _open(tmp_path, emb) as ix:
        ix.add([tmp_path / "docs"])
        assert not ix.search("9f1c2b3a", mode="bm25", k=5)  # a target's words are not searched
        [hit] = ix.search("deploy process", mode="bm25", k=5)
    assert emb.embedded == ["# Wiki\n\nSee the deploy process before a release, and CI.\n\n```python\nurl = '[x](y)'\n```"]
    assert text[hit.start:hit.end].startswith("# Wiki\n\nSee [the deploy process](Wiki%209f1c2b3a/")


def test_link_targets_go_and_their_text_stays():
    from zoomrag.text.markup import as_read as bare

    assert bare("a [b](c.md) d ![e](f.png 'title') [g](<h i.md>)") == "a b d e g"
    assert bare("[Python](https://en.wikipedia.org/wiki/Python_(language)) is") == "Python is"
    assert bare("the [issue\ntracker](https://x.org/issues) and [a\n\nb](c)") == "the issue\ntracker and [a\n\nb](c)"
    assert bare("guidelines](Wiki%20a/Code%20review%20b.md) and [x][ref]") == "guidelines and [x][ref]"
    assert bare("a [b] (c) and f(x)](y) stays") == "a [b] (c) and f(x)](y) stays"
    assert bare("`[a](b)` and\n```\n[c](d)\n```\n[e](f)") == "`[a](b)` and\n```\n[c](d)\n```\ne"
    html = '<p align="center"><img src="logo.svg" alt="Acme logo" width="200"></p>\n<aside>\n💡 Read <b>this</b> first.\n</aside>'
    assert bare(html) == 'Acme logo\n\n💡 Read this first.\n'
    assert bare("Use `<b>` and <https://x.org>, not <!-- a note -->this.") == "Use `<b>` and <https://x.org>, not this."
    assert bare('<p><img src="x.png"></p>') == '<p><img src="x.png"></p>'  # nothing left to read: as it was


def test_a_document_without_a_title_embeds_what_its_files_name_says(tmp_path):
    write(tmp_path / "docs" / "contracts" / "acme-nda.txt", "The term is three years.")
    write(tmp_path / "docs" / "contracts" / "scan0001.txt", "Signed in Berlin.")
    write(tmp_path / "docs" / "notes.txt", "Buy milk.")
    write(tmp_path / "docs" / "guide.md", GUIDE)  # titled by its heading: its name is not used
    write(tmp_path / "docs" / "Dockerfile", "FROM python:3.12-slim")
    emb = CountingEmbedder()
    with _open(tmp_path, emb) as ix:
        ix.add([tmp_path / "docs"])
        hit = ix.search("acme", mode="bm25", k=1)[0]
    assert {"acme nda\nThe term is three years.", "contracts\nSigned in Berlin.", "Buy milk.",
            "Dockerfile\nFROM python:3.12-slim"} <= set(emb.embedded)
    assert "Guide\n## Upgrades\n\nCopy the new binary over the old one." in emb.embedded
    assert hit.doc_id == "contracts/acme-nda.txt"


def test_code_whose_definitions_name_its_units_does_without_its_files_name(tmp_path):
    write(tmp_path / "src" / "tokens.py", "def count(text):\n    return len(text.split())\n")
    write(tmp_path / "src" / "deploy.sh", "rsync -a build/ host:/srv/app\n")
    emb = CountingEmbedder()
    with Index.open(tmp_path / "index.db", embedder=emb) as ix:  # the default profile: code by definitions
        ix.add([tmp_path / "src"])
    assert "deploy\nrsync -a build/ host:/srv/app" in emb.embedded
    assert not any(t.startswith("tokens") for t in emb.embedded)


def test_a_long_document_does_without_its_files_name(tmp_path):
    from zoomrag.load.names import LONGEST_NAMED

    long = ("Filed. " * (LONGEST_NAMED // 7 + 2)).strip()  # one sentence past the longest named
    write(tmp_path / "docs" / "filings.txt", long)
    write(tmp_path / "docs" / "memo.txt", "Filed.")
    emb = CountingEmbedder()
    with _open(tmp_path, emb) as ix:
        ix.add([tmp_path / "docs"])
    assert "memo\nFiled." in emb.embedded and not any(t.startswith("filings") for t in emb.embedded)

"""A framework's documents put back into whole files (zoomrag.load.pieces), and text
handed over read by its format (zoomrag.load.given); no framework is imported."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zoomrag.errors import InputError
from zoomrag.expand.assemble import page_span
from zoomrag.load.base import is_paged
from zoomrag.load.given import given_format, name_format, read_given
from zoomrag.load.pieces import Piece, documents


def test_a_name_says_a_format_unless_the_text_does_not_show_it():
    assert [name_format(s) for s in ("guide.md", "https://example.com/docs/page.html?x=1", "report.pdf",
                                     "https://example.com/", "Makefile", "notes.unknownext")] == \
        ["markdown", "html", "pdf", "", "code", ""]
    assert given_format("# Setup\n\nRun it.\n", "guide.md") == "markdown"
    # a web loader's extracted text under its URL is not HTML; the page itself is
    assert given_format("Plums are purple.", "https://example.com/plums.html") == "text"
    assert given_format("<p>Plums are <em>purple</em>.</p>", "https://example.com/plums.html") == "html"
    # a CSV loader's row as "key: value" lines is not CSV
    assert given_format("name: Ana\nteam: search", "people.csv") == "text"
    assert given_format("name,team\nAna,search\n", "people.csv") == "csv"
    # a PDF's text is read by what it shows: a converter's Markdown, else text
    assert given_format("# Manual\n\n## Setup\n\nRun it.\n\n## Use\n\nAsk it.\n", "manual.pdf") == "markdown"
    assert given_format("Install it:\n\n# install the tools\n\nThen run it.\n", "manual.pdf") == "text"
    assert given_format("2.4 The glob files\nFor example:\n# generated, do not edit\n55:text/x-diff\n",
                        "spec.pdf") == "text"
    assert given_format("<!DOCTYPE html><html><body><p>x</p></body></html>") == "html"
    assert given_format("Intro\n\n```sh\nmake test\n```\n") == "markdown"
    assert given_format("just words") == "text"


def test_given_html_is_read_as_a_page_not_as_tags():
    doc = read_given("<html><body><h1>Plums</h1><p>Plums are <em>purple</em>.</p><script>x()</script></body></html>",
                     id="plums", source="https://example.com/plums.html")
    assert doc.text == "# Plums\n\nPlums are purple.\n"
    assert doc.format == "html"


_TAGS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]


def test_pages_of_one_source_become_one_document_with_true_page_numbers():
    pages = [Piece("The installer asks for a folder.", {"source": "manual.pdf", "page": 0, "author": "Ana"}),
             # page 2 (index 1) is missing; page 4 comes before page 3
             Piece("Backups copy the index file.", {"source": "manual.pdf", "page": 3, "author": "Ana"}),
             Piece("The fast option skips the checks.", {"source": "manual.pdf", "page": 2, "author": "Ana"}),
             Piece("A note on its own.", {"source": "notes.txt", "author": "Rui"})]
    docs = documents(pages)
    assert [d.id for d in docs] == ["manual.pdf", "notes.txt"]
    manual = docs[0]
    for phrase, page in [("installer", 1), ("fast option", 3), ("Backups", 4)]:
        at = manual.text.index(phrase)
        assert page_span(manual.text, at, at + 5) == (page, page)
    assert manual.metadata["author"] == "Ana" and "page" not in manual.metadata
    assert manual.format == "pdf" and docs[1].text == "A note on its own."


def test_running_heads_and_folios_of_a_loaders_pages_are_not_text():
    body = ["The installer asks for a folder and writes the index there.",
            "Backups copy that single file, at any time.",
            "Restoring is copying it back while no writer runs.",
            "The fast option skips the checks the safe one makes."]
    pages = [Piece(f"Admin Guide\n{line}\n{n + 1}", {"source": "guide.pdf", "page": n}) for n, line in enumerate(body)]
    [doc] = documents(pages)
    assert doc.text.count("Admin Guide") == 1  # the first page keeps its head: the title
    assert all(line in doc.text for line in body)
    assert "\n2\n" not in doc.text and not doc.text.rstrip().endswith("4")


def test_a_pages_elements_and_a_splitters_pieces_are_put_back_in_order():
    # LangChain's splitter run on a loader's pages: start_index counts within each page
    page1, page2 = "Solar panels turn light into power. Output peaks at noon.", "Wind turbines turn air into power."
    pieces = [Piece(page1[26:], {"source": "energy.pdf", "page": 0, "start_index": 26}),
              Piece(page2, {"source": "energy.pdf", "page": 1, "start_index": 0}),
              Piece(page1[:36], {"source": "energy.pdf", "page": 0, "start_index": 0})]
    [doc] = documents(pieces)
    assert doc.text.split("\f")[0].strip() == page1 and doc.text.split("\f")[1].strip() == page2
    # Haystack's splitter: offsets in the whole file, its form feeds inside the pieces
    whole = "First page text.\fSecond page text.\fThird."
    cut = [Piece(whole[a:b], {"file_path": "f.pdf", "split_idx_start": a, "page_number": p, "source_id": "x"})
           for a, b, p in [(0, 20, 1), (14, 36, 2), (30, len(whole), 2)]]
    [doc] = documents(cut)  # the file again, read as pages
    assert [t.strip() for t in doc.text.split("\f")] == whole.split("\f") and "source_id" not in doc.metadata


def test_pages_known_by_their_labels_keep_the_order_they_come_in():
    labels = ["i", "ii", "1", "2", "T-1"]  # what LlamaIndex's PDFReader gives: what each page prints
    [doc] = documents([Piece(f"The {_TAGS[n]} page.", {"file_path": "book.pdf", "page_label": label})
                       for n, label in enumerate(labels)])
    for n in range(len(labels)):
        at = doc.text.index(f"The {_TAGS[n]} page.")
        assert page_span(doc.text, at, at + 1, paged=True) == (n + 1, n + 1)
    assert "page_label" not in doc.metadata


def test_records_of_one_file_are_documents_of_their_own():
    rows = [Piece(f"name: {n}\nteam: search", {"source": "people.csv", "row": i}) for i, n in enumerate(["Ana", "Rui"])]
    docs = documents(rows)
    assert [(d.id, d.source, d.text) for d in docs] == [
        ("people.csv#0", "people.csv", "name: Ana\nteam: search"), ("people.csv#1", "people.csv", "name: Rui\nteam: search")]


def test_ids_are_the_source_else_the_frameworks_else_the_texts():
    docs = documents([Piece("a", {"url": "https://example.com/a"}), Piece("b", {}, id="doc-7"), Piece("c", {})])
    assert [d.id for d in docs][:2] == ["https://example.com/a", "doc-7"]
    assert len(docs[2].id) == 16 and documents([Piece("c", {})])[0].id == docs[2].id  # the same text, the same id
    with pytest.raises(InputError, match="has no text"):
        documents([Piece(None, {"source": "scan.png"})])  # type: ignore[arg-type]


def test_metadata_the_pages_disagree_on_is_left_out():
    [doc] = documents([Piece("one", {"source": "a.pdf", "page": 0, "title": "Guide", "words": 1}),
                       Piece("two", {"source": "a.pdf", "page": 1, "title": "Guide", "words": 5})])
    assert doc.metadata["title"] == "Guide" and "words" not in doc.metadata


@st.composite
def _cut(draw):
    """A text and pieces of it as a splitter cuts one: overlapping, whitespace stripped at the cuts."""
    words = draw(st.lists(st.text(alphabet="abc .", min_size=1, max_size=8), min_size=1, max_size=30))
    text = "\n".join(words)
    cuts = sorted(set(draw(st.lists(st.integers(0, len(text)), max_size=6))) | {0, len(text)})
    pieces = []
    for a, b in zip(cuts, cuts[1:]):
        a = max(0, a - draw(st.integers(0, 5)))  # an overlap with the piece before
        while a < b and text[a] == "\n":
            a += 1
        if a < b:
            pieces.append((a, text[a:b]))
    return text, pieces


@settings(max_examples=200, deadline=None)
@given(_cut(), st.sampled_from(["start_index", "split_idx_start"]), st.randoms())
def test_pieces_at_their_offsets_give_the_file_back(cut, key, rnd):
    text, pieces = cut
    rnd.shuffle(pieces)
    [doc] = documents([Piece(t, {"source": "f.txt", key: a}) for a, t in pieces] or [Piece("", {"source": "f.txt"})])
    # every character a piece holds is where the file has it; what no piece holds is whitespace
    assert len(doc.text) == max((a + len(t) for a, t in pieces), default=0)
    for a, t in pieces:
        assert doc.text[a:a + len(t)] == t
    covered = {i for a, t in pieces for i in range(a, a + len(t))}
    assert all(doc.text[i] in " \n" for i in range(len(doc.text)) if i not in covered)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="abcdefgh ij.\n", max_size=40), min_size=1, max_size=8), st.randoms(),
       st.sampled_from([("page", 0), ("page_number", 1)]))
def test_each_pages_text_lies_on_its_page(texts, rnd, numbered):
    key, first = numbered
    order = list(range(len(texts)))
    rnd.shuffle(order)
    # a word only page i holds, in a line of its own between the page's other lines
    pages = [Piece(f"{t}\nThe {_TAGS[i]} paragraph.\n{t}", {"source": "book.pdf", key: i + first}) for i, t in
             enumerate(texts)]
    [doc] = documents([pages[i] for i in order])
    assert doc.text.count("\f") == len(texts) - 1
    for i in range(len(texts)):
        at = doc.text.index(f"The {_TAGS[i]} paragraph.")
        assert page_span(doc.text, at, at + 1, paged=is_paged(doc.format)) == (i + 1, i + 1)

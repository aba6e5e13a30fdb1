"""Who wrote a web page and when, as its head states it, in the metadata (and the filters)."""

from __future__ import annotations

from test_index_support import CountingEmbedder

from zoomrag import Index
from zoomrag.load import read_text
from zoomrag.load.readers.html_meta import page_facts


def head(*tags: str) -> str:
    return f"<html><head><title>T</title>{''.join(tags)}</head><body><p>Text.</p></body></html>"


def test_open_graph_and_a_plain_author():
    html = head('<meta property="article:published_time" content="2024-03-04T10:00:00+00:00">',
                '<meta property="article:modified_time" content="2024-05-01T08:30:00Z">',
                '<meta name="author" content="Ana  Silva">')
    assert page_facts(html) == {"created": "2024-03-04", "modified": "2024-05-01", "author": "Ana Silva"}


def test_a_scholarly_pages_authors_and_date():
    html = head('<meta name="citation_author" content="Lovelace, Ada">',
                '<meta name="citation_author" content="Babbage, Charles">',
                '<meta name="citation_publication_date" content="1843/09/01">')
    assert page_facts(html) == {"created": "1843-09-01", "author": ["Lovelace, Ada", "Babbage, Charles"]}


def test_schema_org_json_ld_in_a_graph():
    html = head('<script type="application/ld+json">{"@context": "https://schema.org", "@graph": ['
                '{"@type": "WebSite", "name": "Blog"}, {"@type": "BlogPosting", "datePublished": "2023-11-02",'
                ' "dateModified": "2023-12-24T09:00", "author": [{"@type": "Person", "name": "Kim Lee"}]}]}</script>')
    assert page_facts(html) == {"created": "2023-11-02", "modified": "2023-12-24", "author": "Kim Lee"}


def test_what_states_nothing_gives_nothing():
    assert page_facts("<p>No head at all</p>") == {}
    assert page_facts(head('<meta name="date" content="soon">', '<meta property="article:author" '
                           'content="https://example.com/ana">', '<script type="application/ld+json">{oops'
                           '</script>')) == {}


def test_the_facts_are_metadata_a_filter_selects(tmp_path):
    (tmp_path / "old.html").write_text(head('<meta name="dcterms.modified" content="2019-06-30">')
                                       .replace("Text.", "Sprockets turn slowly."))
    (tmp_path / "new.html").write_text(head('<meta name="dcterms.modified" content="2024-06-30">')
                                       .replace("Text.", "Sprockets turn quickly."))
    assert dict(read_text((tmp_path / "new.html").read_text(), format="html").metadata) == \
        {"title": "T", "modified": "2024-06-30"}
    with Index.open(tmp_path / "ix.db", embedder=CountingEmbedder()) as ix:
        ix.add([tmp_path])
        got = ix.query("sprockets turn", mode="bm25", where={"modified": {"$gte": "2024-01-01"}})
        assert [c.doc_id for c in got] == ["new.html"]

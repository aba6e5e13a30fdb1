"""Documents in through each framework, as its loaders and pipelines give them, and its own
filters on the way out: driven by the framework's own calls."""

from __future__ import annotations

import asyncio
import os

import pytest

from zoomrag.errors import ConfigError, StoreError
from zoomrag.index import Index

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # no network from the tests

#: A manual as a PDF loader gives it: a page each, a running head and a folio on each, a
#: sentence running on over the break between pages 2 and 3.
FILLER = " ".join(f"Step {n} of the installer checks that the disk has room for the index." for n in range(12))
PAGES = [
    f"Backup Manual\nInstalling\nThe installer asks for a folder and writes the index there. {FILLER}\n1",
    f"Backup Manual\nCopying\n{FILLER}\nBackups copy that single file while no writer runs; a copy taken during a\n2",
    "Backup Manual\nwrite is still whole, because the writer renames the file into place.\nRestoring\n"
    f"Restoring is copying the file back. {FILLER}\n3",
]
SOURCE = "/srv/docs/backup-manual.pdf"


def test_langchain_pages_are_one_document_that_says_its_pages(tmp_path):
    pytest.importorskip("langchain_core", reason="needs the 'langchain' extra")
    from langchain_core.documents import Document

    from zoomrag.integrations.langchain import ZoomragRetriever

    pages = [Document(page_content=t, metadata={"source": SOURCE, "page": i, "author": "Ana", "total_pages": 3})
             for i, t in enumerate(PAGES)]
    path = tmp_path / "ix.db"
    retriever = ZoomragRetriever.from_documents(pages, path, embedder="hash", mode="bm25", budget=60, top=1)
    try:
        [doc] = retriever.invoke("a copy taken during a write is still whole")
        meta = doc.metadata
        assert meta["doc_id"] == SOURCE and meta["source"] == SOURCE and meta["author"] == "Ana"
        # the sentence is read whole over the page break, its running head and folio left out
        assert "during a\n\fwrite is still whole" in doc.page_content and "Backup Manual" not in doc.page_content
        assert meta["pages"] == [2, 3]
        with Index.open(path, create=False) as ix:
            assert ix.tree(SOURCE).document.text[meta["start"]:meta["end"]] == doc.page_content
        # the same pages again change nothing (from an event loop too); a page edited replaces the document
        assert retriever.add_documents(pages).unchanged == 1
        assert asyncio.run(retriever.aadd_documents(pages)).unchanged == 1
        pages[2] = Document(page_content=PAGES[2].replace("back", "back into place"), metadata=pages[2].metadata)
        report = retriever.add_documents(pages)
        assert (report.added, report.updated) == (0, 1)
        assert "back into place" in retriever.invoke("Restoring is copying the file")[0].page_content
        assert retriever.delete([SOURCE]) == 1 and retriever.invoke("Restoring is copying the file") == []
    finally:
        retriever.searcher.close()
    # ParentDocumentRetriever's ids name the documents: pages given one id are one document
    named = ZoomragRetriever.from_documents([], tmp_path / "named.db", embedder="hash", mode="bm25")
    try:
        report = named.add_documents(pages, ids=["manual"] * len(pages))
        assert report.added == 1 and [d.id for d in named.searcher.index.documents()] == ["manual"]
        with pytest.raises(ConfigError, match="ids: 1 given for 3 documents"):
            named.add_documents(pages, ids=["manual"])
        assert named.delete(["manual"]) == 1
    finally:
        named.searcher.close()
    with pytest.raises(StoreError, match=r"no index here; make one from your documents with the retriever's "
                                         r"from_documents"):
        ZoomragRetriever.from_index(tmp_path / "none.db")


def test_llamaindex_documents_and_a_splitters_nodes_with_metadata_filters(tmp_path):
    pytest.importorskip("llama_index.core", reason="needs the 'llamaindex' extra")
    from llama_index.core import Document
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.core.vector_stores.types import (
        FilterCondition,
        FilterOperator,
        MetadataFilter,
        MetadataFilters,
    )

    from zoomrag.integrations.llamaindex import ZoomragRetriever, where_of

    old = Document(text="Backups were copied by hand to tape every Friday.",
                   metadata={"file_path": "/srv/docs/2019.txt", "year": 2019, "team": "ops"})
    topics = ["disks", "tokens", "budgets", "readers", "filters", "servers", "models", "queries", "pages", "tables"]
    new_text = " ".join(f"Chapter {n} of the new guide explains {t} in depth." for n, t in enumerate(topics * 3)) + \
        " The nightly job copies backups of the index file to object storage."
    new = Document(text=new_text, metadata={"file_path": "/srv/docs/2024.txt", "year": 2024, "team": "ops"})
    # a pipeline that kept LlamaIndex's splitter: its nodes are put back into the file
    nodes = SentenceSplitter(chunk_size=64, chunk_overlap=16).get_nodes_from_documents([new])
    assert len(nodes) > 3
    recent = MetadataFilters(filters=[MetadataFilter(key="year", value=2020, operator=FilterOperator.GTE)])
    path = tmp_path / "ix.db"
    retriever = ZoomragRetriever.from_documents([old, *nodes], path, embedder="hash", mode="bm25", budget=80,
                                                filters=recent)
    try:
        with Index.open(path, create=False) as ix:
            assert ix.tree("/srv/docs/2024.txt").document.text == new_text
        found = retriever.retrieve("where are backups copied to")
        assert found and {n.node.metadata["doc_id"] for n in found} == {"/srv/docs/2024.txt"}
        assert found[0].node.metadata["year"] == 2024  # the document's metadata, for the application
    finally:
        retriever.searcher.close()
    either = MetadataFilters(filters=[MetadataFilter(key="year", value=[2019], operator=FilterOperator.IN),
                                      MetadataFilter(key="team", value="dev")], condition=FilterCondition.OR)
    assert where_of(either) == {"$or": [{"year": {"$in": [2019]}}, {"team": {"$eq": "dev"}}]}
    only_old = ZoomragRetriever(path, mode="bm25", filters=either)
    assert {n.node.metadata["doc_id"] for n in only_old.retrieve("where are backups copied to")} == {"/srv/docs/2019.txt"}
    only_old.searcher.close()
    with pytest.raises(ConfigError, match="NOT condition"):
        where_of(MetadataFilters(filters=[MetadataFilter(key="year", value=2019)], condition=FilterCondition.NOT))
    with pytest.raises(ConfigError, match="text_match"):
        where_of(MetadataFilters(filters=[MetadataFilter(key="team", value="op",
                                                         operator=FilterOperator.TEXT_MATCH)]))


def test_haystack_indexing_pipeline_writes_and_the_retriever_takes_haystack_filters(tmp_path):
    haystack = pytest.importorskip("haystack", reason="needs the 'haystack' extra")
    from haystack import Document
    from haystack.components.preprocessors import DocumentSplitter

    from zoomrag.integrations.haystack import ZoomragDocumentWriter, ZoomragRetriever, where_of

    path = tmp_path / "ix.db"
    content = "\f".join(PAGES)  # a converter's document: its pages parted by form feeds
    indexing = haystack.Pipeline()
    indexing.add_component("splitter", DocumentSplitter(split_by="word", split_length=12, split_overlap=4))
    indexing.add_component("writer", ZoomragDocumentWriter(str(path), embedder="hash"))
    indexing.connect("splitter", "writer")
    docs = [Document(content=content, meta={"file_path": "backup-manual.pdf", "year": 2024}),
            Document(content="Tapes were rotated weekly.", meta={"file_path": "old.txt", "year": 2010})]
    assert indexing.run({"splitter": {"documents": docs}})["writer"]["documents_written"] == 2
    assert indexing.run({"splitter": {"documents": docs}})["writer"]["documents_written"] == 0  # unchanged
    with Index.open(path, create=False) as ix:  # the splitter's pieces put back, read as the file's pages
        text = ix.tree("backup-manual.pdf").document.text
    assert text.count("\f") == 2 and text.count("Backup Manual") == 1 and "during a\n\fwrite is" in text
    retriever = ZoomragRetriever(str(path), mode="bm25", budget=80)
    recent = {"operator": "AND", "conditions": [{"field": "meta.year", "operator": ">=", "value": 2020},
                                                {"field": "meta.file_path", "operator": "!=", "value": "x.pdf"}]}
    got = retriever.run("copies and tapes", filters=recent)["documents"]
    assert got and {d.meta["doc_id"] for d in got} == {"backup-manual.pdf"} and got[0].meta["year"] == 2024
    assert {d.meta["doc_id"] for d in retriever.run("tapes rotated")["documents"]} >= {"old.txt"}
    assert where_of({"field": "meta.lang", "operator": "==", "value": None}) == {"lang": {"$exists": False}}
    assert where_of({"field": "id", "operator": "in", "value": ["a.md"]}) == {"$doc": ["a.md"]}
    with pytest.raises(ConfigError, match="field 'content'"):
        ZoomragRetriever(str(path), filters={"field": "content", "operator": "==", "value": "x"})
    with pytest.raises(ConfigError, match="'NOT' operator"):
        where_of({"operator": "NOT", "conditions": [{"field": "meta.year", "operator": "==", "value": 1}]})
    writer = ZoomragDocumentWriter.from_dict(ZoomragDocumentWriter(str(path), embedder="hash").to_dict())
    assert (writer.index, writer.embedder) == (str(path), "hash")

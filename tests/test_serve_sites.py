"""POST /sites: a running server indexes a web site, only under the addresses it was started to read."""

from __future__ import annotations

import pytest
from fakes.web_site import FakeSite, page
from serve_support import build_index, running_server

pytest.importorskip("fastapi", reason="needs the 'serve' extra")
httpx = pytest.importorskip("httpx")
pytestmark = pytest.mark.xdist_group("serve")


@pytest.fixture(scope="module")
def site():
    with FakeSite() as s:
        s.html("/docs/", page("Widget", "Widget turns sprockets.", "install.html", "/private/keys.html"))
        s.html("/docs/install.html", page("Installing", "Install it with pip.")
               .replace("</main>", "<h2 id='compiler'>Compiler</h2><p>It needs a C compiler.</p></main>"))
        s.redirect("/docs/away.html", "/private/keys.html")
        s.html("/private/keys.html", page("Keys", "The secret key is hunter2."))
        yield s


def test_a_server_reads_the_sites_it_was_told_it_may_and_no_other(tmp_path, site):
    u = site.url
    with running_server(build_index(tmp_path), "--crawl", f"{u}/docs/") as url, \
            httpx.Client(base_url=url, timeout=60) as http:
        r = http.post("/sites", json={"url": f"{u}/docs/", "metadata": {"product": "widget"}})
        assert r.status_code == 200, r.text
        body = r.json()
        assert (body["added"], body["crawled"]) == (2, [[f"{u}/docs/", 2, ""]])
        assert not body["skipped"]  # a link outside the folder is not followed, nor listed
        hit = http.post("/query", json={"text": "C compiler", "mode": "bm25", "top": 1}).json()["contexts"][0]
        assert hit["link"] == f"{u}/docs/install.html#compiler" and hit["metadata"]["product"] == "widget"
        for outside in (f"{u}/private/keys.html", "http://127.0.0.1:1/", f"{u}/"):
            r = http.post("/sites", json={"url": outside})
            assert r.status_code == 403, r.text
            assert "not under the addresses this server may read" in r.json()["error"]
        assert "/private/keys.html" not in site.fetched()
        r = http.post("/sites", json={"url": f"{u}/docs/away.html"})  # a redirect out of the folder
        assert r.status_code == 400 and "outside the addresses this server may read" in r.json()["error"]
        assert "hunter2" not in http.post("/query", json={"text": "secret key"}).text
        assert http.post("/sites", json={"url": f"{u}/docs/", "bogus": 1}).status_code == 400


def test_a_server_started_without_crawl_fetches_nothing(tmp_path, site):
    with running_server(build_index(tmp_path)) as url, httpx.Client(base_url=url, timeout=60) as http:
        r = http.post("/sites", json={"url": f"{site.url}/docs/"})
        assert r.status_code == 403 and "zoomrag serve --crawl" in r.json()["error"]

"""zoomrag serve's guards: the API key, loopback-only without one, CORS only when asked."""

from __future__ import annotations

import subprocess
import sys

import pytest
from serve_support import build_index, running_server

pytest.importorskip("fastapi", reason="needs the 'serve' extra")
httpx = pytest.importorskip("httpx")

pytestmark = pytest.mark.xdist_group("serve")
KEY = "s3cret-key-for-tests"


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return build_index(tmp_path_factory.mktemp("secure"))


def test_with_a_key_every_api_call_needs_it_and_the_page_stays_public(index):
    with running_server(index, "--api-key", KEY) as url, httpx.Client(base_url=url, timeout=30) as c:
        for headers in ({}, {"authorization": "Bearer wrong"}, {"authorization": KEY}):
            r = c.post("/query", json={"text": "red"}, headers=headers)
            assert r.status_code == 401
            assert r.json()["error"].startswith("missing or wrong API key")
            assert c.get("/documents", headers=headers).status_code == 401
        ok = c.post("/query", json={"text": "red"}, headers={"authorization": f"Bearer {KEY}"})
        assert ok.status_code == 200 and ok.json()["contexts"]
        page = c.get("/")
        assert page.status_code == 200 and "zoomrag inspector" in page.text
        assert c.get("/static/inspector.js").status_code == 200


def test_the_key_can_come_from_the_environment_and_the_cli_sends_it(index):
    with running_server(index, env={"ZOOMRAG_API_KEY": KEY}) as url, httpx.Client(base_url=url) as c:
        assert c.get("/stats").status_code == 401
        args = [sys.executable, "-m", "zoomrag", "query", "red", "--index", str(index), "--server", url]
        refused = subprocess.run(args, capture_output=True, text=True, timeout=60,
                                 env={"PATH": "/usr/bin:/bin"})
        assert refused.returncode == 1 and "missing or wrong API key" in refused.stderr
        sent = subprocess.run(args, capture_output=True, text=True, timeout=60,
                              env={"PATH": "/usr/bin:/bin", "ZOOMRAG_API_KEY": KEY})
        assert sent.returncode == 0, sent.stderr


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20"])
def test_a_non_loopback_address_needs_a_key(index, host):
    r = subprocess.run([sys.executable, "-m", "zoomrag", "serve", "--index", str(index), "--host", host],
                       capture_output=True, text=True, timeout=60, env={"PATH": "/usr/bin:/bin"})
    assert r.returncode == 1
    assert r.stderr == (f"error: --host {host} is reachable from other machines; give --api-key KEY "
                        "(or set $ZOOMRAG_API_KEY), or bind to 127.0.0.1\n")


def test_cors_is_off_unless_an_origin_is_given(index):
    preflight = {"origin": "http://app.example", "access-control-request-method": "POST"}
    with running_server(index) as url, httpx.Client(base_url=url) as c:
        r = c.post("/query", json={"text": "red"}, headers={"origin": "http://app.example"})
        assert "access-control-allow-origin" not in r.headers
        assert "access-control-allow-origin" not in c.options("/query", headers=preflight).headers
    with running_server(index, "--cors", "http://app.example") as url, httpx.Client(base_url=url) as c:
        r = c.options("/query", headers=preflight)
        assert r.headers["access-control-allow-origin"] == "http://app.example"
        other = c.post("/query", json={"text": "red"}, headers={"origin": "http://evil.example"})
        assert "access-control-allow-origin" not in other.headers


def test_a_missing_index_is_a_clear_error(tmp_path):
    r = subprocess.run([sys.executable, "-m", "zoomrag", "serve", "--index", str(tmp_path / "none.db")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert r.stderr.startswith(f"error: {tmp_path / 'none.db'}: no such index; build one first with")

"""The web inspector in a real browser: Debian's chromium, headless, driven by Playwright."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from serve_support import DOCS, build_index, running_server

from zoomrag.index import Index

pytest.importorskip("fastapi", reason="needs the 'serve' extra")
sync_api = pytest.importorskip("playwright.sync_api", reason="needs the 'browser' extra (playwright)")

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
#: The screenshot in the docs is retaken when ZOOMRAG_SCREENSHOT=1 (else it goes to a temporary folder).
SCREENSHOT = Path(__file__).resolve().parents[1] / "docs" / "inspector.png"

pytestmark = [
    pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK) and shutil.which("chromium") is None,
                       reason="chromium is not installed: apt-get install -y chromium (make test does)"),
    pytest.mark.xdist_group("browser"),
]


NOTES = ("# Pool\n\nThe pool holds forty connections at most.[^n]\n\n"
         + "Filler about the weather in the valley. " * 20 + "\n\n[^n]: Forty since version two of the "
         "scheduler, which replaced the per-worker pools that kept idle connections open all night.\n")


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return build_index(tmp_path_factory.mktemp("inspector"), {**DOCS, "pool.md": NOTES})


@pytest.fixture(scope="module")
def url(index):
    with running_server(index) as u:
        yield u


@pytest.fixture(scope="module")
def page():
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            pg = browser.new_page(viewport={"width": 1280, "height": 860})
            pg.set_default_timeout(20_000)
            yield pg
        finally:
            browser.close()


def search(page, url: str, text: str, **controls: str) -> None:
    page.goto(url + "/")
    page.wait_for_selector("body[data-ready='1']")
    for name, value in controls.items():
        if name in ("mode", "expand"):
            page.select_option(f"#{name}", value)
        else:
            page.fill(f"#{name}", value)
    page.fill("#q", text)
    page.press("#q", "Enter")
    page.wait_for_selector(".card .doc mark")


def test_a_query_highlights_the_matched_unit_inside_its_document(page, url, index, tmp_path):
    with Index.open(index, create=False) as ix:
        [expected] = ix.query("Backups copy", mode="bm25", expand="parent", budget=200, top=1)
    (s, e, _), = expected.hits
    assert "Backups copy that single file." in expected.text[s - expected.start:e - expected.start]
    search(page, url, "Backups copy", mode="bm25", expand="parent", budget="200", top="1")
    first = page.locator(".card").first
    assert first.locator(".source").inner_text().endswith("guide.md")
    hit = "".join(first.locator("mark[data-hit='0']").all_inner_texts())
    assert hit == expected.text[s - expected.start:e - expected.start]
    assert first.locator(".span").inner_text() == f"[{expected.start}, {expected.end})"
    # the context is shown inside its document: the text before it is there too, dimmed
    assert "Run the installer twice." in first.locator(".doc .around").first.inner_text()
    assert first.locator(".path").inner_text() == "Storage"
    assert first.locator(".rule").inner_text().startswith("rule: parent of 1 hit")
    first.locator("button", has_text="span tree").click()
    page.wait_for_selector("#tree-nodes li")
    page.locator("#tree-nodes li").nth(1).click()
    page.wait_for_selector(".card .doc .picked")
    shot = SCREENSHOT if os.environ.get("ZOOMRAG_SCREENSHOT") == "1" else tmp_path / "inspector.png"
    page.screenshot(path=str(shot), full_page=False)
    assert shot.stat().st_size > 10_000


def test_the_span_tree_is_browsable_by_level(page, url):
    search(page, url, "Backups copy", mode="bm25", expand="none")
    page.locator(".card").first.locator("button", has_text="span tree").click()
    page.wait_for_selector("#tree-nodes li")
    levels = page.locator("#tree-level option").all_inner_texts()
    assert len(levels) >= 3 and levels[0].startswith("L0")
    page.select_option("#tree-level", "0")
    assert page.locator("#tree-nodes li").count() == 1  # the document itself
    page.select_option("#tree-level", "1")
    items = page.locator("#tree-nodes li").all_inner_texts()
    assert any("Storage" in t or "SQLite" in t for t in items)


def test_document_text_is_shown_as_text_and_never_runs(page, url):
    search(page, url, "tomatoes red fruit script bold", mode="bm25", expand="none", budget="500")
    page.wait_for_timeout(300)  # give any injected handler (img onerror) the chance to fire
    assert page.evaluate("window.pwned") is None
    shown = page.locator(".card .doc").all_inner_texts()
    assert any("<script>window.pwned = 1</script>" in t or "<img src=x" in t for t in shown)
    assert page.locator(".card .doc script, .card .doc img, .card .doc b").count() == 0


def test_a_bad_request_shows_the_servers_one_line_error(page, url):
    page.goto(url + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.evaluate("document.getElementById('budget').removeAttribute('min')")
    page.fill("#budget", "0")
    page.fill("#q", "anything")
    page.press("#q", "Enter")
    page.wait_for_selector("#status.error")
    assert page.locator("#status").inner_text().startswith("budget:")


def test_a_context_of_two_spans_shows_both_and_not_the_text_between(page, url, index):
    with Index.open(index, create=False) as ix:
        [expected] = ix.query("version two of the scheduler", mode="bm25", expand="none", budget=200, top=1)
    assert len(expected.parts()) == 2  # the note, with the sentence citing it
    search(page, url, "version two of the scheduler", mode="bm25", expand="none", budget="200", top="1")
    first = page.locator(".card").first
    assert first.locator(".span").inner_text() == " + ".join(f"[{s}, {e})" for s, e in expected.parts())
    inside = "".join(first.locator(".doc .context").all_inner_texts())
    assert "forty connections" in inside and "Forty since version two" in inside and "weather" not in inside

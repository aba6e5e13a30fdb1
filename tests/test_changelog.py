"""Changelogs: found by their release headings when indexed, and ranked below the pages that
explain for a question that does not ask what changed."""

from __future__ import annotations

import json

import pytest
from cli_support import index_folder, top_context
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from zoomrag.cli import main
from zoomrag.load import read_text
from zoomrag.parse.changelog import is_changelog, is_release
from zoomrag.search.fusion import Fused
from zoomrag.search.secondary import SHARE, asks_about_change, secondary_after
from zoomrag.store.rows import Selection

CHANGES = """\
## Version 8.5.0

Released 2026-08-24

- Add `hide_input` to prompts: a password prompt hides the password input while typing, and the
  password input prompt asks for the password twice with `confirmation_prompt`.

## Version 8.4.2

- Fix shell completion for fish.

## Version 8.4.1

- Fix `get_parameter_source` inside an eager callback.
"""
GUIDE = """\
# Options

## Passwords

To ask for a password, prompt with `hide_input=True`: what the user types is not shown while
typing.

## Required options

Pass `required=True` to make the user give a value.
"""


@pytest.mark.parametrize(("title", "release"), [
    ("Version 8.5.1", True), ("26.1.0 - 2026-03-10", True), ("v2.3.0 (2024-01-05)", True),
    ("[1.2.0] - 2024-01-01", True), ("Release 1.2", True), ("1.0.0 — 12 May 2024", True),
    ("Version 2.0.0 Released 2021-05-11", True), ("Unreleased", True), ("2.0.0rc1", True),
    ("3.1 Installation", False), ("Changes", False), ("Python 3.11 support", False), ("Options", False),
])
def test_release_headings(title, release):
    assert is_release(title) is release


def test_a_document_of_releases_is_a_changelog_and_a_numbered_manual_is_not():
    assert is_changelog(read_text(CHANGES, format="markdown"))
    attrs_style = "# Changelog\n\n" + "".join(
        f"## [{v}](https://github.com/x/y/tree/{v}) - 2026-0{i}-01\n\n### Changes\n\n- A change.\n\n"
        for i, v in enumerate(("26.1.0", "25.4.0", "25.3.0"), start=1))
    assert is_changelog(read_text(attrs_style, format="markdown"))
    rst = "".join(f"Version {v}\n-------------\n\nReleased 2025-01-0{i}\n\n-   A fix.\n\n"
                  for i, v in enumerate(("3.1.3", "3.1.2", "3.1.1"), start=1))
    assert is_changelog(read_text(rst, format="rst"))
    manual = "".join(f"## {n} {t}\n\nText.\n\n" for n, t in (("3.1", "Install"), ("3.2", "Setup"), ("3.3", "Use")))
    assert not is_changelog(read_text(manual, format="markdown"))
    two = "## Version 2.0\n\n- A.\n\n## Version 1.0\n\n- B.\n\n## Usage\n\nText.\n\n## Help\n\nText.\n"
    assert not is_changelog(read_text(two, format="markdown"))  # releases are not most of its sections


@pytest.mark.parametrize(("query", "asks"), [
    ("How do I add a --version option?", False), ("How do I make an option required?", False),
    ("How do I change the prompt text?", False), ("fix RuntimeError: Click will abort", False),
    ("When was custom_version_option added?", True), ("Which Python versions did Click 8.2 drop?", True),
    ("What changed about flag options?", True), ("Is it deprecated?", True),
    ("Fish completion broke after upgrading - which release fixed it?", True),
])
def test_questions_that_ask_what_changed(query, asks):
    assert asks_about_change(query) is asks


def _selection(docs: list[tuple[int, int]]) -> Selection:
    return Selection.from_rows([(i, first, count, f"d{i}") for i, (first, count) in enumerate(docs)])


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30),
       st.lists(st.tuples(st.integers(0, 10), st.integers(1, 10)), max_size=4))
def test_changelog_units_lose_share_and_the_rest_keep_their_scores(scores, gaps):
    docs, at = [], 0
    for gap, count in gaps:  # documents' rows never overlap
        docs.append((at + gap, count))
        at += gap + count
    fused = [Fused(row, s, {}) for row, s in enumerate(sorted(scores, reverse=True))]
    got = secondary_after(fused, _selection(docs))
    assert sorted(f.key for f in got) == [f.key for f in fused]
    assert all(a.score >= b.score for a, b in zip(got, got[1:]))
    inside = {r for first, count in docs for r in range(first, first + count)}
    before = {f.key: f.score for f in fused}
    every = all(f.key in inside for f in fused)  # all from changelogs: nothing to rank them under
    for f in got:
        assert f.score == (before[f.key] * SHARE if f.key in inside and not every else before[f.key])


def test_a_how_to_question_finds_the_guide_and_a_change_the_changelog(tmp_path):
    folder = tmp_path / "project"
    (folder / "docs").mkdir(parents=True)
    (folder / "CHANGES.md").write_text(CHANGES, encoding="utf-8")
    (folder / "docs" / "options.md").write_text(GUIDE, encoding="utf-8")
    index = index_folder(folder, tmp_path)
    assert top_context(index, "hide the password input while typing")["doc_id"] == "docs/options.md"
    assert top_context(index, "which release added hiding the password input")["doc_id"] == "CHANGES.md"
    assert top_context(index, "password input", "--where", "changelog=true")["doc_id"] == "CHANGES.md"
    again = CliRunner().invoke(main, ["index", str(folder), "--index", index])
    assert "0 added, 0 updated, 2 unchanged" in again.output, again.output  # still one, not re-read
    assert top_context(index, "password input", "--where", "changelog=true")["doc_id"] == "CHANGES.md"
    got = CliRunner().invoke(main, ["stats", "--index", index, "--json"])
    assert got.exit_code == 0 and ["changelog", 1] in json.loads(got.output)["metadata_keys"], got.output

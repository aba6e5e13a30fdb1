"""docs/ stays in step with the code: CLI help, strategy parameters, profiles, examples, links."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from zoomrag.cli import main
from zoomrag.cli._docgen import HELP_WIDTH, TODO, command_paths, run
from zoomrag.parse import strategy_names
from zoomrag.parse.profiles import BUILTIN
from zoomrag.parse.registry import strategy_class
from zoomrag.registry import user_fields

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = ["guide.md", "strategies.md", "cli.md", "cli-evaluation.md", "benchmarks.md", "serve.md", "integrations.md"]
REGEN = "run: python -m zoomrag.cli._docgen"


def read(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def section(page: str, heading: str) -> str:
    """The text under ``## heading`` up to the next ``## `` heading."""
    m = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", page, re.MULTILINE | re.DOTALL)
    assert m, f"no section '## {heading}'"
    return m.group(1)


# -- cli.md ----------------------------------------------------------------------------------
@pytest.mark.parametrize("path", command_paths(), ids=lambda p: " ".join(("zoomrag", *p)))
def test_cli_reference_holds_each_commands_help_verbatim(path: tuple[str, ...]):
    r = CliRunner().invoke(main, [*path, "--help"], prog_name="zoomrag", terminal_width=HELP_WIDTH)
    assert r.exit_code == 0
    pages = read("cli.md") + read("cli-evaluation.md")
    assert pages.count(f"```text\n{r.output}```") == 1, f"docs/cli*.md are out of date; {REGEN}"


def test_generated_regions_are_current():
    assert run(ROOT, check=True) == [], REGEN


# -- strategies.md ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", strategy_names())
def test_every_strategy_has_a_section_with_its_parameters(name: str):
    body = section(read("strategies.md"), f"`{name}`")
    prose = body.split("<!-- generated:")[0]
    assert len(prose.split()) >= 25 and TODO not in prose, f"describe `{name}` in docs/strategies.md"
    cls = strategy_class(name)
    fields = [f.name for f in user_fields(cls)]
    rows = re.findall(r"^\| `([^`]+)` \| (.*) \|$", body, re.MULTILINE)
    assert [r[0] for r in rows] == fields, f"{name}: parameter table out of date; {REGEN}"
    for param, rest in rows:
        meaning = rest.split(" | ")[-1]
        assert TODO not in meaning and len(meaning.split()) >= 3, f"{name}.{param} is not described"
    if not fields:
        assert "No parameters." in body


def test_every_builtin_profile_is_documented():
    profiles = section(read("strategies.md"), "Profiles and the router")
    for name in BUILTIN:
        assert f"| `{name}` |" in profiles


def test_strategies_page_documents_no_unknown_strategy():
    documented = re.findall(r"^## `([\w-]+)`$", read("strategies.md"), re.MULTILINE)
    assert sorted(documented) == strategy_names()


# -- every page ------------------------------------------------------------------------------
def _python_blocks() -> list[tuple[str, int, str]]:
    out = []
    for path in [*(DOCS / p for p in PAGES), ROOT / "README.md"]:
        for i, block in enumerate(re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.DOTALL)):
            out.append((path.name, i, block))
    return out


@pytest.mark.parametrize("page, index, code", _python_blocks(), ids=lambda v: str(v)[:20])
def test_python_examples_run(page: str, index: int, code: str, monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]):
    monkeypatch.chdir(ROOT)  # examples name files of this repository, such as docs/guide.md
    exec(compile(code, f"{page} example {index + 1}", "exec"), {"__name__": "__doc_example__"})


ALL_PAGES = [*sorted(p.name for p in DOCS.glob("*.md")), "../README.md", "../bench/README.md"]


def _anchors(text: str) -> set[str]:
    """The anchors of a page's headings, as GitHub makes them (code blocks aside)."""
    headings = re.findall(r"^#{1,6} (.+)$", re.sub(r"```.*?```", "", text, flags=re.DOTALL), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize("page", ALL_PAGES)
def test_pages_have_headings_and_working_links(page: str):
    path = (DOCS / page).resolve()
    text = path.read_text(encoding="utf-8")
    assert re.search(r"^# \S", text, re.MULTILINE), f"{page} has no title"
    assert re.search(r"^## \S", text, re.MULTILINE), f"{page} has no sections"
    for target, anchor in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)", text):
        if "://" in target:
            continue
        dest = path.parent / target if target else path
        assert dest.exists(), f"{page} links to missing {target}"
        if anchor and dest.suffix == ".md":
            assert anchor in _anchors(dest.read_text(encoding="utf-8")), f"{page} links to missing {target}#{anchor}"


@pytest.mark.parametrize("page", ALL_PAGES)
def test_pages_are_references_not_a_journal(page: str):
    # History stays in git: no work sessions, numbered runs or passes in the docs.
    text = (DOCS / page).read_text(encoding="utf-8")
    journal = re.findall(r"\b(?:[Ss]ession \d+|[Rr]un [A-Z]\b|[Pp]ass \d+)", text)
    assert not journal, f"{page} reads like a journal: {journal}"


def test_readme_opens_with_title_line_and_the_two_commands():
    lines = [line for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines() if line.strip()]
    assert lines[0] == "# zoomrag"
    assert not lines[1].startswith(("#", "`"))  # one line of what zoomrag is
    assert lines[2].startswith("`make demo`") and lines[3].startswith("`make test`")


def test_benchmarks_page_has_the_chunking_speed_section():
    body = section(read("benchmarks.md"), "Chunking speed")
    assert "<!-- chunk_speed:begin -->" in body and "<!-- chunk_speed:end -->" in body

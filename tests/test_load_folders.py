"""Which files of a folder are read: .gitignore files as git reads them, include and exclude
patterns, and what is said of everything left out."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zoomrag import Index
from zoomrag.cli import main
from zoomrag.errors import ConfigError
from zoomrag.load import FileRules, iter_paths
from zoomrag.load.folders import walk_folder


def _touch(root: Path, *names: str) -> None:
    for name in names:
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"# {p.stem}\n\nThe text of {name}.\n")


def _walk(root: Path, rules: FileRules = FileRules()) -> tuple[list[str], dict[str, str]]:
    left: dict[str, str] = {}
    got = walk_folder(root, left_out=lambda p, why: left.__setitem__(p.relative_to(root).as_posix(), why),
                      rules=rules)
    return [p.relative_to(root).as_posix() for p in got], left


def test_gitignore_files_leave_out_as_git_does(tmp_path):
    _touch(tmp_path, "README.md", "build/lib/m.py", "dist/x.txt", "run.log", "keep.log", "docs/guide.md",
           "docs/_build/guide.html", "data/t.csv", "data/secret.md", "data/deep/secret.md", "notes/todo.md")
    (tmp_path / ".gitignore").write_text("# outputs\nbuild/\ndist\n*.log\n!keep.log\n/docs/_build/\n\n")
    (tmp_path / "data" / ".gitignore").write_text("secret.md\n")
    (tmp_path / "notes" / ".gitignore").write_text("!*.log\ntodo.md\n")
    got, left = _walk(tmp_path)
    assert got == ["README.md", "data/t.csv", "docs/guide.md", "keep.log"]
    assert left == {
        "build": "ignored by .gitignore (read with --no-gitignore)",
        "data/deep/secret.md": "ignored by data/.gitignore (read with --no-gitignore)",
        "data/secret.md": "ignored by data/.gitignore (read with --no-gitignore)",
        "dist": "ignored by .gitignore (read with --no-gitignore)",
        "docs/_build": "ignored by .gitignore (read with --no-gitignore)",
        "notes/todo.md": "ignored by notes/.gitignore (read with --no-gitignore)",
        "run.log": "ignored by .gitignore (read with --no-gitignore)",
    }
    got, left = _walk(tmp_path, FileRules(gitignore=False))
    assert len(got) == 11 and not left


def test_a_deeper_gitignore_takes_a_file_back(tmp_path):
    _touch(tmp_path, "a/x.md", "a/y.md", "b/x.md")
    (tmp_path / ".gitignore").write_text("x.md\n")
    (tmp_path / "a" / ".gitignore").write_text("!x.md\n")
    assert _walk(tmp_path)[0] == ["a/x.md", "a/y.md"]


def test_the_repository_above_the_folder_applies_its_rules(tmp_path):
    _touch(tmp_path, "docs/guide.md", "docs/gen/api.md", "docs/draft.md", "other/o.md")
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("draft.md\n")
    (tmp_path / ".gitignore").write_text("/docs/gen/\n/guide.md\n")  # /guide.md: the top's only
    got, left = _walk(tmp_path / "docs")
    assert got == ["guide.md"]
    assert left == {"draft.md": f"ignored by ..{os.sep}.git{os.sep}info{os.sep}exclude (read with --no-gitignore)",
                    "gen": f"ignored by ..{os.sep}.gitignore (read with --no-gitignore)"}


def test_outside_a_repository_the_folders_above_are_not_read(tmp_path):
    _touch(tmp_path, "docs/guide.md")
    (tmp_path / ".gitignore").write_text("guide.md\n")
    assert _walk(tmp_path / "docs")[0] == ["guide.md"]


def test_a_gitignore_that_is_no_regular_file_or_too_large_leaves_nothing_out(tmp_path):
    _touch(tmp_path, "a/x.md", "b/y.md")
    (tmp_path / "a" / ".gitignore").symlink_to("/dev/zero")  # read whole, it would never end
    (tmp_path / "b" / ".gitignore").write_text("y.md\n" + "#" * 100_001)
    assert _walk(tmp_path)[0] == ["a/x.md", "b/y.md"]


def test_include_and_exclude_patterns(tmp_path):
    _touch(tmp_path, "a.md", "b.csv", "keep.csv", "drafts/c.md", "sub/drafts/d.md", "src/m.py", "src/t.txt")
    got, left = _walk(tmp_path, FileRules.of(exclude=["*.csv", "!keep.csv", "/drafts/"]))
    assert got == ["a.md", "keep.csv", "src/m.py", "src/t.txt", "sub/drafts/d.md"]
    assert left == {"b.csv": "matches an exclude pattern (*.csv, !keep.csv, /drafts/)",
                    "drafts": "matches an exclude pattern (*.csv, !keep.csv, /drafts/)"}
    got, left = _walk(tmp_path, FileRules.of(include=["*.md", "src/**"], exclude="drafts/"))
    assert got == ["a.md", "src/m.py", "src/t.txt"]
    assert left["b.csv"] == "matches no include pattern (*.md, src/**)"
    assert left["drafts"] == left["sub/drafts"] == "matches an exclude pattern (drafts/)"


def test_hidden_files_and_folders_are_read_when_asked_but_never_git(tmp_path):
    _touch(tmp_path, "README.md", ".github/workflows/ci.yml", ".git/config", ".zoomrag/x.md", ".venv/lib/x.py",
           ".pre-commit-config.yaml", "node_modules/p/i.md")
    (tmp_path / ".gitignore").write_text(".venv/\n")
    assert _walk(tmp_path)[0] == ["README.md"]
    got, left = _walk(tmp_path, FileRules(hidden=True))
    assert got == [".github/workflows/ci.yml", ".gitignore", ".pre-commit-config.yaml", "README.md"]
    assert left == {".venv": "ignored by .gitignore (read with --no-gitignore)"}


def test_a_file_named_on_its_own_is_read_whatever_the_rules(tmp_path):
    _touch(tmp_path, "a.md", "b.csv")
    (tmp_path / ".gitignore").write_text("*.md\n")
    rules = FileRules.of(exclude="*.csv")
    assert [p.name for p in iter_paths([tmp_path], rules)] == []
    assert [p.name for p in iter_paths([tmp_path / "a.md", tmp_path / "b.csv"], rules)] == ["a.md", "b.csv"]


@pytest.mark.parametrize("kwargs, message", [
    ({"exclude": ["a\\"]}, r"exclude pattern: Invalid git pattern: 'a\\\\'; write it as in a \.gitignore file"),
    ({"include": [""]}, r"include pattern '' matches nothing; give a pattern such as"),
    ({"include": ["# note"]}, r"include pattern '# note' matches nothing"),
])
def test_a_bad_pattern_is_a_clear_error(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        FileRules.of(**kwargs)


def test_patterns_are_a_tuple_or_go_through_of():
    for value in ("*.csv", ["*.csv"], (1,)):
        with pytest.raises(ConfigError, match=r"exclude=.*: give a tuple of patterns, e.g. exclude=\('\*\.md',\)"):
            FileRules(exclude=value)  # type: ignore[arg-type]
    assert FileRules.of(exclude="*.csv").exclude == FileRules.of(exclude=["*.csv"]).exclude == ("*.csv",)


def test_index_add_reports_what_it_left_out(tmp_path):
    folder = tmp_path / "repo"
    _touch(folder, "a.md", "b.csv", "build/c.md")
    (folder / ".gitignore").write_text("build/\n")
    with Index.open(tmp_path / "i.db", embedder="hash") as ix:
        report = ix.add(folder, exclude=["*.csv"])
        assert sorted(d.id for d in ix.documents()) == ["a.md"]
        assert dict(report.skipped) == {
            f"{folder / 'b.csv'}": f"{folder / 'b.csv'}: matches an exclude pattern (*.csv)",
            f"{folder / 'build'}{os.sep}": f"{folder / 'build'}{os.sep}: ignored by .gitignore (read with --no-gitignore)",
        }
        ix.add(folder, gitignore=False)
        assert sorted(d.id for d in ix.documents()) == ["a.md", "b.csv", "build/c.md"]
        # left out now, but on disk: prune keeps them and says so
        report = ix.add(folder, include="*.md", exclude="build/", prune=True)
        assert sorted(d.id for d in ix.documents()) == ["a.md", "b.csv", "build/c.md"]
        assert sorted(report.kept) == [str(folder / "b.csv"), str(folder / "build" / "c.md")]


def test_cli_index_with_patterns(tmp_path):
    folder = tmp_path / "repo"
    _touch(folder, "guide.md", "notes.md", "table.csv", "one.log", "two.log", "three.log", "site/index.html")
    (folder / ".gitignore").write_text("*.log\nsite/\n")
    index = str(tmp_path / "i.db")
    got = CliRunner().invoke(main, ["index", str(folder), "--index", index, "--embedder", "hash", "--no-probe",
                                    "--exclude", "notes.md"], env={"COLUMNS": "1000"})
    assert got.exit_code == 0, got.output
    said = " ".join(got.output.split())
    assert "skipped 4 file(s) and 1 folder(s):" in said
    assert "4 files and folders: ignored by .gitignore (read with --no-gitignore)" in said
    assert "notes.md: matches an exclude pattern (notes.md)" in said
    listed = CliRunner().invoke(main, ["stats", "--index", index, "--documents", "--json"])
    assert sorted(d["id"] for d in json.loads(listed.output)["documents_list"]) == ["guide.md", "table.csv"]


def test_cli_bad_pattern_opens_no_index(tmp_path):
    _touch(tmp_path, "a.md")
    index = tmp_path / "i.db"
    got = CliRunner().invoke(main, ["index", str(tmp_path), "--index", str(index), "--include", "x\\"],
                             env={"COLUMNS": "1000"})
    said = " ".join(got.output.split())
    assert got.exit_code != 0 and "Traceback" not in said
    assert "include pattern: Invalid git pattern: 'x\\\\'; write it as in a .gitignore file" in said
    assert not index.exists()


# -- against git itself ----------------------------------------------------------------------

_NAMES = st.sampled_from(["a", "b", "c.md", "d.log", "e.txt"])
_PATTERNS = st.sampled_from(["a", "a/", "/a", "b/", "*.md", "!c.md", "*.log", "!d.log", "a/*.md", "**/b",
                             "b/**", "c*", "!b", "e.txt", "a/**/e.txt", "[ab]/", "?.md", "!*", "a/**", "**/a/",
                             "*/", "**", "a/**/b", "/b/", "!a/", "!/a", "b/*", "!**/e.txt", "a/b/"])


@st.composite
def _trees(draw):
    files = draw(st.lists(st.lists(_NAMES, min_size=1, max_size=3).map("/".join), min_size=1, max_size=8))
    ignores = draw(st.dictionaries(st.sampled_from(["", "a", "b", "a/b", "b/a", "a/a"]),
                                   st.lists(_PATTERNS, min_size=1, max_size=4), max_size=3))
    return files, ignores


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tree=_trees())
def test_the_files_read_are_those_git_would_track(tmp_path_factory, tree):
    files, ignores = tree
    root = tmp_path_factory.mktemp("repo")
    written = []
    for name in files:
        p = root / name
        if any(q.exists() and not q.is_dir() for q in [*p.parents, p]) or any(
                w.startswith(name + "/") for w in written):
            continue  # a name used as both file and folder
        _touch(root, name)
        written.append(name)
    for folder, patterns in ignores.items():
        if (root / folder).is_dir():
            (root / folder / ".gitignore").write_text("\n".join(patterns) + "\n")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull, "HOME": str(root)}
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    listed = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "-z"], cwd=root, env=env,
                            capture_output=True, check=True).stdout.decode().split("\0")
    tracked = sorted(p for p in listed if p and not p.rsplit("/", 1)[-1].startswith("."))
    assert sorted(_walk(root)[0]) == tracked

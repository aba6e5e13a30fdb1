"""``zoomrag chunk``: every format, every error path, and the rendering helpers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from invariants import texts

from zoomrag.cli import main
from zoomrag.cli.chunk import pick_chunker
from zoomrag.cli.render import NODE_KEYS, Sizes, level_stats, preview, tree_payload
from zoomrag.model import Document, node_id
from zoomrag.parse import Span, build_tree, make_chunker
from zoomrag.text.tokens import CharCounter


def run(*args: str):
    return CliRunner().invoke(main, ["chunk", *args])


@pytest.fixture
def hello(tmp_path: Path) -> Path:
    p = tmp_path / "hello.txt"
    p.write_text("Hello world.\n", encoding="utf-8")
    return p


# -- formats ---------------------------------------------------------------------------------
def test_json_has_exactly_the_documented_shape(hello: Path):
    r = run(str(hello), "--strategy", "none", "--format", "json")
    assert r.exit_code == 0, r.output
    src = str(hello)
    root = node_id(src, "document", 0, 0, 13)
    leaf = node_id(src, "chunk", 1, 0, 12)
    assert json.loads(r.stdout) == {
        "document": {"id": src, "source": src, "format": "text", "length": 13},
        "nodes": [
            {"id": root, "parent_id": None, "level": 0, "kind": "document", "start": 0, "end": 13,
             "section_path": [], "text": "Hello world.\n"},
            {"id": leaf, "parent_id": root, "level": 1, "kind": "chunk", "start": 0, "end": 12,
             "section_path": [], "text": "Hello world."},
        ],
    }


def test_tree_shows_kind_level_span_and_preview(hello: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(hello.parent)  # a short source name keeps the header on one line
    r = run("hello.txt", "-s", "none")
    assert r.exit_code == 0, r.output
    assert r.stdout == (
        "document L0 [0, 13) hello.txt format=text nodes=2 leaves=1\nnone()\n"
        "└── chunk L1 [0, 12) “Hello world.”\n"
    )


def test_tree_prints_markup_and_control_characters_literally(tmp_path: Path):
    p = tmp_path / "m.txt"
    p.write_text("[bold]x[/bold]\tand\x01", encoding="utf-8")
    r = run(str(p), "-s", "none")
    assert r.exit_code == 0, r.output
    assert "“[bold]x[/bold] and\\x01”" in r.stdout


def test_stats_table_counts_nodes_per_level(hello: Path):
    r = run(str(hello), "-s", "none", "-f", "stats")
    assert r.exit_code == 0, r.output
    assert "│     0 │     1 │ document×1 │ chars   │  13 │     13 │  13 │  13 │" in r.stdout
    assert "│     1 │     1 │ chunk×1    │ chars   │  12 │     12 │  12 │  12 │" in r.stdout
    assert "│       │       │            │ tokens  │ " in r.stdout
    assert "13 chars, 2 nodes, 1 leaves" in r.stdout


def test_default_needs_no_strategy_or_profile(hello: Path):
    r = run(str(hello), "-f", "json")
    assert r.exit_code == 0, r.output
    nodes = json.loads(r.stdout)["nodes"]
    assert nodes[0]["kind"] == "document"
    assert any("Hello world." in n["text"] for n in nodes[1:])


@pytest.mark.parametrize("fmt", ["tree", "json", "stats"])
def test_empty_file_gives_a_tree_without_leaves(tmp_path: Path, fmt: str,
                                                monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    Path("empty.txt").write_bytes(b"")
    r = run("empty.txt", "-s", "none", "-f", fmt)
    assert r.exit_code == 0, r.output
    if fmt == "json":
        assert [n["kind"] for n in json.loads(r.stdout)["nodes"]] == ["document"]
    elif fmt == "tree":
        assert r.stdout == "document L0 [0, 0) empty.txt format=text nodes=1 leaves=0\nnone()\n"
    else:
        assert "0 leaves" in r.stdout


def test_empty_file_with_the_default_profile(tmp_path: Path):
    p = tmp_path / "empty.md"
    p.write_bytes(b"")
    r = run(str(p), "-f", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["document"]["length"] == 0


def test_set_passes_settings_to_the_strategy(hello: Path, monkeypatch: pytest.MonkeyPatch):
    seen = {}

    def fake(name, params):
        seen.update(name=name, params=dict(params))
        return make_chunker("none")

    monkeypatch.setattr("zoomrag.cli.chunk.make_chunker", fake)
    r = run(str(hello), "-s", "fixed", "--set", "size=256", "--set", " unit = chars ")
    assert r.exit_code == 0, r.output
    assert seen == {"name": "fixed", "params": {"size": "256", "unit": "chars"}}


# -- errors ----------------------------------------------------------------------------------
@pytest.mark.parametrize("args, message", [
    (["-s", "nope"], "error: unknown strategy 'nope'; choose one of: "),
    (["-s", "none", "--set", "size=3"], "error: strategy 'none' has no parameter 'size'"),
    (["-s", "none", "--set", "size"], "error: setting 'size' is not key=value"),
    (["-p", "nope"], "error: unknown profile 'nope'; choose one of: "),
    (["-p", "default", "--set", "nope=1"], "error: profile 'default', route 'text': strategy "),
])
def test_configuration_errors_exit_1_with_one_line(hello: Path, args: list[str], message: str):
    r = run(str(hello), *args)
    assert r.exit_code == 1
    assert r.stderr.startswith(message)
    assert r.stderr.count("\n") == 1 and r.stdout == ""


@pytest.mark.parametrize("data, message", [
    (b"\x7fELF\x02\x01\x00\x00binary", "a program (ELF), not text"),
    (b"\x01\x02\x00\x00binary", "binary file (NUL bytes found)"),
    (b"caf\xe9\n", "not valid UTF-8 (byte 0xe9 at offset 3"),
])
def test_unreadable_files_exit_1_naming_the_file(tmp_path: Path, data: bytes, message: str):
    p = tmp_path / "bad.txt"
    p.write_bytes(data)
    r = run(str(p), "-s", "none")
    assert r.exit_code == 1
    assert r.stderr.startswith(f"error: {p}: {message}")
    assert r.stderr.count("\n") == 1


def test_missing_path_is_a_usage_error(tmp_path: Path):
    r = run(str(tmp_path / "absent.txt"))
    assert r.exit_code == 2
    assert "does not exist" in r.stderr


def test_directory_is_a_usage_error(tmp_path: Path):
    r = run(str(tmp_path))
    assert r.exit_code == 2
    assert "is a directory" in r.stderr


def test_strategy_and_profile_together_is_a_usage_error(hello: Path):
    r = run(str(hello), "--strategy", "none", "--profile", "default")
    assert r.exit_code == 2
    assert "give --strategy or --profile, not both" in r.stderr


def test_unknown_format_is_a_usage_error(hello: Path):
    r = run(str(hello), "--format", "xml")
    assert r.exit_code == 2


def test_help_lists_the_registered_strategies():
    r = CliRunner().invoke(main, ["chunk", "--help"], terminal_width=200)
    assert r.exit_code == 0
    assert "One of: " in r.stdout and "none" in r.stdout


def test_pick_chunker_with_a_strategy():
    assert pick_chunker("none", None, {}).describe() == "none()"


# -- rendering helpers -----------------------------------------------------------------------
def test_json_payload_drops_keys_outside_the_spec():
    doc = Document.from_text("a | b\n1 | 2")
    tree = build_tree(doc, [Span("row", 6, 11, embed_text="a: 1, b: 2")])
    assert "embed_text" in tree.to_dict()["nodes"][1]
    payload = tree_payload(tree)
    assert [tuple(n) for n in payload["nodes"]] == [NODE_KEYS, NODE_KEYS]
    assert list(payload["document"]) == ["id", "source", "format", "length"]


@settings(max_examples=100, deadline=None)
@given(texts)
def test_json_payload_spans_are_exact_and_parents_come_first(text: str):
    doc = Document.from_text(text)
    payload = tree_payload(make_chunker("none").chunk(doc))
    seen: set[str] = set()
    for n in payload["nodes"]:
        assert n["text"] == doc.text[n["start"]:n["end"]]
        assert n["parent_id"] is None or n["parent_id"] in seen
        seen.add(n["id"])
    json.loads(json.dumps(payload, ensure_ascii=False))


@pytest.mark.parametrize("text, expected", [
    ("  a\n\n b\t c  ", "a b c"),
    ("x\x00y\u200bz", "x\\x00y\\u200bz"),
    ("é" * 61, "é" * 59 + "…"),
    ("é" * 60, "é" * 60),
    ("中文" * 40, "中文" * 14 + "中…"),
    ("", ""),
])
def test_preview_is_one_escaped_truncated_line(text: str, expected: str):
    assert preview(text) == expected


@pytest.mark.parametrize("values, expected", [
    ([], Sizes(0, 0, 0, 0)),
    ([5], Sizes(5, 5, 5, 5)),
    ([4, 1, 3, 2], Sizes(1, 2, 4, 4)),
    (list(range(1, 11)), Sizes(1, 5, 9, 10)),
])
def test_sizes_use_nearest_rank(values: list[int], expected: Sizes):
    assert Sizes.of(values) == expected


def test_level_stats_counts_kinds_and_sizes():
    doc = Document.from_text("aaaa bb c")
    tree = build_tree(doc, [Span("chunk", 0, 4), Span("chunk", 5, 7), Span("chunk", 8, 9)])
    root, leaves = level_stats(tree, CharCounter())
    assert (root.level, root.kinds, root.count, root.chars) == (0, (("document", 1),), 1, Sizes(9, 9, 9, 9))
    assert (leaves.level, leaves.kinds, leaves.count) == (1, (("chunk", 3),), 3)
    assert leaves.chars == leaves.tokens == Sizes(1, 2, 4, 4)


def test_tree_keeps_every_node_on_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    Path("long.txt").write_text("A fairly long sentence about nothing much at all. " * 12, encoding="utf-8")
    r = CliRunner().invoke(main, ["chunk", "long.txt", "-s", "fixed", "--set", "size=120",
                                  "--set", "unit=chars"], env={"COLUMNS": "60"})
    assert r.exit_code == 0, r.output
    node_lines = [line for line in r.stdout.splitlines() if "L1 [" in line]
    assert len(node_lines) == len(json.loads(run("long.txt", "-s", "fixed", "--set", "size=120",
                                                 "--set", "unit=chars", "-f", "json").stdout)["nodes"]) - 1
    assert all(len(line) <= 60 and line.rstrip().endswith("…”") for line in node_lines)

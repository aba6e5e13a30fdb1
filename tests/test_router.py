"""The router (strategy ``auto``) and the routing profiles kept as data."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_tree, texts

from zoomrag.errors import ConfigError
from zoomrag.model import Block, Document
from zoomrag.parse import Chunker, Span, make_chunker, profiles, registry, strategy_names
from zoomrag.parse.profiles import BUILTIN, ENV_VAR, load_profiles, register_profile
from zoomrag.parse.router import Router, chunker_for_profile, profile_names
from zoomrag.registry import Registry


@dataclass(frozen=True)
class StubTable(Chunker):
    """Stands in for the table strategy: one ``table`` span over the trimmed block."""

    name = "stub-table"
    tag: str = ""

    def split(self, document: Document) -> list[Span]:
        t = document.text
        s, e = len(t) - len(t.lstrip()), len(t.rstrip())
        return [Span("table", s, e)] if s < e else []


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch):
    registry.register(StubTable)
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setattr(profiles, "REGISTERED", Registry("profile"))
    yield StubTable
    registry.STRATEGIES.remove(StubTable.name)


def routes(router: Router) -> dict[str, str]:
    return {t: c.name for t, c in router.routes}


# -- profiles ------------------------------------------------------------------------------
def test_builtin_profiles(stub):
    assert profile_names() == ["default", "parent_child", "precision", "source_first"]
    assert routes(chunker_for_profile("default")) == {
        "text": "hierarchical", "heading": "hierarchical", "table": "table", "code": "code",
        "list": "hierarchical",
    }
    assert set(routes(chunker_for_profile("source_first")).values()) == {"none"}
    precise = chunker_for_profile("precision")
    assert {c.describe() for _, c in precise.routes} == {
        "fixed(size=256, unit='tokens', overlap=0, min_size=0, lookback=0.3)"}
    assert routes(chunker_for_profile("parent_child"))["text"] == "parent-child"


def test_unknown_profile_lists_the_real_ones(stub):
    with pytest.raises(ConfigError, match=r"unknown profile 'fast'; choose one of: default, "
                                          r"parent_child, precision, source_first"):
        chunker_for_profile("fast")


def test_router_is_the_strategy_auto(stub):
    assert "auto" in strategy_names()
    r = make_chunker("auto", {"profile": "precision"})
    assert isinstance(r, Router) and r == chunker_for_profile("precision")
    assert make_chunker("auto").profile == "default"
    assert r.describe() == ("auto(profile='precision'; "
                            "text=fixed(size=256, unit='tokens', overlap=0, min_size=0, lookback=0.3))")
    assert chunker_for_profile("precision", {"size": 9}).describe().startswith(
        "auto(profile='precision', settings=(('size', 9),); text=fixed(size=9,")


def test_auto_parameters_are_checked(stub):
    with pytest.raises(ConfigError, match=r"strategy 'auto' has no parameter 'routes'; its "
                                          r"parameters are: profile, profiles_file, settings"):
        make_chunker("auto", {"routes": "x"})
    with pytest.raises(ConfigError, match=r"auto: settings=.* must be \(key, value\) pairs"):
        make_chunker("auto", {"settings": "size=3"})


def test_overrides_reach_the_text_route_and_the_star_route(stub):
    r = chunker_for_profile("precision", {"size": "512", "unit": "chars"})
    assert {(c.size, c.unit) for _, c in r.routes} == {(512, "chars")}
    d = chunker_for_profile("default", {"sizes": "300,100"})
    assert dict(d.routes)["text"].sizes == (300, 100)
    assert dict(d.routes)["heading"].sizes == (300, 100)  # headings follow text


def test_scoped_overrides_reach_one_route(stub):
    register_profile("mine", {"text": "fixed", "table": "stub-table"})
    r = chunker_for_profile("mine", {"size": "64", "table.tag": "x"})
    assert dict(r.routes)["table"] == StubTable(tag="x")
    assert dict(r.routes)["text"].size == 64


@pytest.mark.parametrize("overrides, msg", [
    ({"sise": "3"}, r"profile 'precision', route 'text': strategy 'fixed' has no parameter 'sise'"),
    ({"size": "0"}, r"profile 'precision', route 'text': fixed: size=0 is out of range"),
    ({"tables.size": "3"}, r"setting 'tables.size': 'tables' is not a content type; use one of: text"),
])
def test_bad_overrides(stub, overrides, msg):
    with pytest.raises(ConfigError, match=msg):
        chunker_for_profile("precision", overrides)


def test_profiles_from_a_toml_file(stub, tmp_path: Path):
    f = tmp_path / "profiles.toml"
    f.write_text('[profiles.wide]\ndescription = "big"\n'
                 'text = { strategy = "hierarchical", sizes = [4096, 1024, 256] }\n'
                 'table = "stub-table"\n'
                 '[profiles.precision]\n"*" = { strategy = "fixed", size = 128 }\n', encoding="utf-8")
    assert sorted(load_profiles(f)) == ["precision", "wide"]
    r = chunker_for_profile("wide", profiles_file=f)
    assert dict(r.routes)["text"].sizes == (4096, 1024, 256)
    assert dict(r.routes)["table"] == StubTable()
    # A user profile of the same name replaces the built-in one.
    assert dict(chunker_for_profile("precision", profiles_file=f).routes)["text"].size == 128
    assert "wide" in profile_names(f)


def test_profiles_from_the_environment(stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    f = tmp_path / "p.json"
    f.write_text(json.dumps({"profiles": {"flat": {"*": {"strategy": "recursive", "size": 99}}}}))
    monkeypatch.setenv(ENV_VAR, str(f))
    assert "flat" in profile_names()
    assert dict(chunker_for_profile("flat").routes)["code"].size == 99


@pytest.mark.parametrize("body, msg", [
    ('[profiles.x]\ntables = "table"\ntext = "fixed"\n', r"profile 'x' routes unknown content type 'tables'"),
    ('[profiles.x]\ntable = "table"\n', r"profile 'x' needs a route for 'text' \(or '\*'\)"),
    ('[profiles.x]\ntext = 3\n', r"profile 'x' route 'text' must be a strategy name or a table"),
    ('[profiles.x\n', r"not a valid TOML profiles file"),
    ('x = 1\n', r"no profiles found; write them as \[profiles.NAME\] tables"),
])
def test_bad_profile_files_name_the_file(stub, tmp_path: Path, body: str, msg: str):
    f = tmp_path / "bad.toml"
    f.write_text(body, encoding="utf-8")
    with pytest.raises(ConfigError, match=msg) as e:
        load_profiles(f)
    assert str(f) in str(e.value)


def test_a_profile_naming_an_unknown_strategy_fails_when_used(stub):
    register_profile("broken", {"text": "nope"})
    with pytest.raises(ConfigError, match=r"profile 'broken', route 'text': unknown strategy 'nope'"):
        chunker_for_profile("broken")


def test_builtins_are_plain_data():
    json.dumps(BUILTIN)  # nothing but strings, numbers and mappings


# -- routing -------------------------------------------------------------------------------
TEXT = "# Data\n\nSome words before the table.\n\n| a | b |\n| 1 | 2 |\n\nWords after it.\n"
T0, T1 = TEXT.index("| a"), TEXT.index("2 |") + 3


def doc_with_table() -> Document:
    return Document(id="d", source="t.md", text=TEXT, format="markdown",
                    blocks=(Block(0, 6, "heading", level=1), Block(T0, T1, "table")))


def test_a_table_inside_a_section_is_routed_and_keeps_the_section_path(stub):
    register_profile("t", {"text": {"strategy": "hierarchical", "unit": "chars", "sizes": [30]},
                           "table": "stub-table"})
    tree = chunker_for_profile("t").chunk(doc_with_table())
    check_tree(tree)
    assert [(n.level, n.kind, n.text, n.section_path) for n in tree][1:] == [
        (1, "section", TEXT.rstrip(), ("Data",)),
        (2, "chunk", "# Data\n\nSome words before the", ("Data",)),
        (2, "chunk", "table.", ("Data",)),
        (2, "table", "| a | b |\n| 1 | 2 |", ("Data",)),
        (2, "chunk", "Words after it.", ("Data",)),
    ]
    assert tree.strategy.startswith("auto(profile='t'")


def test_parent_child_keeps_a_table_inside_its_parent(stub):
    register_profile("pc", {"text": {"strategy": "parent-child", "unit": "chars"}, "table": "stub-table"})
    tree = chunker_for_profile("pc").chunk(doc_with_table())
    check_tree(tree)
    (parent,) = tree.at_level(1)
    assert [c.kind for c in tree.children(parent)] == ["chunk", "table", "chunk"]


def test_a_flat_text_strategy_gets_the_table_between_its_chunks(stub):
    register_profile("flat", {"text": {"strategy": "fixed", "unit": "chars", "size": 40},
                              "table": "stub-table"})
    tree = chunker_for_profile("flat").chunk(doc_with_table())
    check_tree(tree)
    assert [(n.kind, n.text) for n in tree.leaves()] == [
        ("chunk", "# Data\n\nSome words before the table."),
        ("table", "| a | b |\n| 1 | 2 |"),
        ("chunk", "Words after it."),
    ]


def test_source_first_keeps_the_whole_document(stub):
    tree = chunker_for_profile("source_first").chunk(doc_with_table())
    assert [(n.kind, n.text) for n in tree.leaves()] == [("chunk", TEXT.rstrip())]


def test_precision_ignores_block_types(stub):
    tree = chunker_for_profile("precision", {"unit": "chars", "size": "40"}).chunk(doc_with_table())
    assert {n.kind for n in tree.leaves()} == {"chunk"}


def test_a_document_without_blocks_is_all_text(stub):
    register_profile("t", {"text": {"strategy": "fixed", "unit": "chars"}, "table": "stub-table"})
    d = Document(id="d", source="x", text="| a | b |\n| 1 | 2 |")
    assert [n.kind for n in chunker_for_profile("t").chunk(d).leaves()] == ["chunk"]


@st.composite
def docs_with_blocks(draw):
    text = draw(texts)
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=6)))
    blocks = []
    for a, b in zip(cuts[::2], cuts[1::2]):
        if a < b:
            blocks.append(Block(a, b, draw(st.sampled_from(["table", "code", "list", "text"]))))
    return Document(id="d", source="x", text=text, format=draw(st.sampled_from(["markdown", "text"])),
                    blocks=tuple(blocks))


@settings(max_examples=100, deadline=None)
@given(docs_with_blocks(), st.sampled_from(["hierarchical", "parent-child", "fixed", "recursive"]))
def test_routed_trees_keep_every_invariant(d, text_strategy):
    # Hypothesis runs many examples per test call, so the registries are patched by hand.
    registry.register(StubTable)
    try:
        spec = {"strategy": text_strategy, "unit": "chars"}
        if text_strategy == "hierarchical":
            spec["sizes"] = (40, 12)
        elif text_strategy == "parent-child":
            spec.update(parent_size=40, child_size=12, child_overlap=0)
        else:
            spec["size"] = 12
        register_profile("prop", {"text": spec, "table": "stub-table", "code": "stub-table"})
        r = chunker_for_profile("prop")
        tree = r.chunk(d)
        check_tree(tree, partition=True)
        delegated = [(b.start, b.end) for b in d.blocks if b.type in ("table", "code")]
        for n in tree:
            if n.kind == "table":
                assert any(s <= n.start and n.end <= e for s, e in delegated)
        assert [n.id for n in r.chunk(d)] == [n.id for n in tree]
    finally:
        registry.STRATEGIES.remove(StubTable.name)
        profiles.REGISTERED.remove("prop")

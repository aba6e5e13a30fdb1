"""Names of strategies, policies, embedders, length units, formats and profiles: one Registry type."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from zoomrag import get_counter, get_embedder, get_expander, make_chunker, read_text
from zoomrag.errors import ConfigError
from zoomrag.expand import expander_names, register
from zoomrag.expand.base import EXPANDERS, NoExpansion
from zoomrag.load import detect_format, formats
from zoomrag.load.base import FORMATS, register_reader
from zoomrag.model import Document
from zoomrag.parse.profiles import REGISTERED, get_profile, register_profile
from zoomrag.registry import Registry
from zoomrag.text.tokens import COUNTERS, CharCounter, counter_names, register_counter


@pytest.mark.parametrize(("lookup", "message"), [
    (lambda: make_chunker("nope"), r"^unknown strategy 'nope'; choose one of: auto, code, fixed, "),
    (lambda: get_expander("nope"), r"^unknown expansion 'nope'; choose one of: auto, budget-merge, "),
    (lambda: get_embedder("nope"), r"^unknown embedder 'nope'; choose one of: auto, hash, http, "),
    (lambda: get_counter("nope"), r"^unknown length unit 'nope'; choose one of: tokens, approx, chars"),
    (lambda: read_text("x", format="nope"), r"^unknown format 'nope'; choose one of: asciidoc, ass, code, csv, docx, edgar, eml, epub, html, info, ini, json, jsonl, latex, man, "),
    (lambda: get_profile("nope"), r"^unknown profile 'nope'; choose one of: "),
])
def test_an_unknown_name_is_named_with_the_choices(lookup, message):
    with pytest.raises(ConfigError, match=message):
        lookup()


def test_builtins_are_read_on_first_use_and_an_added_entry_wins_whenever_added():
    calls = []

    def builtins():
        calls.append(1)
        return [("a", 1), ("b", 2)]

    reg: Registry[int] = Registry("thing", builtins, also=("any",))
    reg.add("b", 20)  # before the built-ins are read
    assert calls == []
    assert (reg.get("a"), reg.get("b"), reg.names(), "a" in reg, "z" in reg) == (1, 20, ["a", "b"], True, False)
    reg.add("c", 3)
    assert reg.items() == [("a", 1), ("b", 20), ("c", 3)]
    reg.remove("b")
    assert reg.get("b") == 2  # the built-in is back
    assert calls == [1]
    with pytest.raises(ConfigError, match=r"^unknown thing 'z'; choose one of: any, a, b, c$"):
        reg.get("z")
    with pytest.raises(ValueError, match="a thing needs a name"):
        reg.add("", 0)


def test_builtins_read_by_many_threads_at_once_are_read_once():
    calls = []
    started = threading.Event()

    def builtins():
        calls.append(1)
        started.wait(1)
        return [("a", 1)]

    reg: Registry[int] = Registry("thing", builtins)
    got: list[int] = []
    threads = [threading.Thread(target=lambda: got.append(reg.get("a"))) for _ in range(4)]
    for t in threads:
        t.start()
    started.set()
    for t in threads:
        t.join()
    assert (got, calls) == ([1, 1, 1, 1], [1])


def test_a_registered_policy_is_listed_and_built_then_taken_back():
    @dataclass(frozen=True)
    class Mine(NoExpansion):
        width: int = 1

    register("mine", Mine)
    try:
        assert "mine" in expander_names()
        assert get_expander("mine", {"width": "3"}) == Mine(width=3)
    finally:
        EXPANDERS.remove("mine")
    assert "mine" not in expander_names()


def test_a_registered_counter_and_reader_are_chosen_by_name_and_extension():
    register_counter("chars2", CharCounter)
    register_reader("shout", (".SHOUT",), lambda text, *, doc_id, source: Document(
        id=doc_id, source=source, text=text.upper(), format="shout"))
    try:
        assert "chars2" in counter_names() and isinstance(get_counter("chars2"), CharCounter)
        assert "shout" in formats() and detect_format(Path("a.shout")) == "shout"
        assert read_text("hey", format="shout").text == "HEY"
    finally:
        COUNTERS.remove("chars2")
        FORMATS.remove("shout")
    assert detect_format(Path("a.shout")) == "text"


def test_a_registered_profile_is_found_then_taken_back():
    register_profile("mine", {"text": "fixed"})
    try:
        assert get_profile("mine").route("table").strategy == "fixed"
    finally:
        REGISTERED.remove("mine")
    with pytest.raises(ConfigError, match="unknown profile 'mine'"):
        get_profile("mine")

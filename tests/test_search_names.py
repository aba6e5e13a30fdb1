"""A question that is a name: where the name is defined comes first."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zoomrag.search.fusion import Fused
from zoomrag.search.names import asked_name, defines, definitions, definitions_first


@pytest.mark.parametrize(("query", "parts"), [
    ("format_str", ("format_str",)),
    ("  csv.reader() ", ("csv", "reader")),
    ("`BracketTracker.mark`", ("BracketTracker", "mark")),
    ("std::vector", ("std", "vector")),
    ("--bm25-weight", ("--bm25-weight",)),
    ("apt-mark", ("apt-mark",)),
    ("How do I pin a package?", None),
    ("apt-mark hold", None),
    ("机器学习", None),
    ("", None),
    ("a." * 8 + "b", None),  # more parts than any name has
    ("x" * 300, None),
    ("a.b.c.d.e.f.g.h", tuple("abcdefgh")),
])
def test_a_name_is_one_identifier_with_its_qualifiers(query, parts):
    assert asked_name(query) == parts


CODE = '''def main():
    format_str(src)
    result = format_str(src, mode=mode)

def format_str(src: str) -> str:
    return src
'''


@pytest.mark.parametrize(("text", "name", "found"), [
    # code: a definition, not a call or a local variable
    ("def format_str(src: str) -> str:\n    return src", "format_str", True),
    ("    format_str(src)\n    result = format_str(src)", "format_str", False),
    ("async def fetch(url):", "fetch", True),
    ("class FileData(NamedTuple):", "FileData", True),
    ("@dont_increase_indentation\ndef delimiter_split(line):", "dont_increase_indentation", False),
    ("CACHE_DIR = get_cache_dir()", "CACHE_DIR", True),
    ("COMMA_PRIORITY: Final = 18", "COMMA_PRIORITY", True),
    ("    cache_dir = user_cache_dir()", "cache_dir", False),
    ("if CACHE_DIR == other:", "CACHE_DIR", False),
    ("drop_whitespace=True, break_on_hyphens=True)", "drop_whitespace", False),
    ("# STANDALONE_COMMENT happens when a comment stands alone", "STANDALONE_COMMENT", False),
    # the case asked for: PREVIEW is not the class Preview
    ("class Preview(Enum):", "PREVIEW", False),
    # a method under its class, the class given by the trail
    ("Cache > write\n    def write(self, sources):", "Cache.write", True),
    ("Cache\n    @staticmethod\n    def hash_digest(path):", "Cache.hash_digest", True),
    ("Report\n    def done(self):", "Cache.done", False),
    # references: headings, help()'s bars, directives, the trail's last heading
    ("pathlib > Methods\n#### Path.mkdir(mode=0o777, parents=False)", "pathlib.Path.mkdir", True),
    ("pathlib > Methods\n#### Path.mkdir(mode=0o777, parents=False)", "Path.mkdir", True),
    ("csv — CSV File Reading > Module Contents > csv.reader\nChanged in version 3.10.", "csv.reader", True),
    ("csv — CSV File Reading > Module Contents > csv.reader\nChanged in version 3.10.", "reader", True),
    ("### class csv.Dialect", "Dialect", True),
    ("### @contextlib.contextmanager", "contextmanager", True),
    (" |  iterdump(self, /)\n |      Returns iterator to the dump of the database.", "iterdump", True),
    (".. function:: dumps(obj, *, skipkeys=False)", "json.dumps", False),
    (".. function:: dumps(obj, *, skipkeys=False)", "dumps", True),
    ("## Reader Objects\nReader objects have the following methods:", "reader", False),
    ("| os.chmod() | Path.chmod() |", "chmod", False),
    ("csv > Examples\nreader = csv.reader(f)", "csv.reader", False),
    # options at the start of a line
    ("  --where KEY=VALUE   Keep documents whose metadata matches.", "--where", True),
    ("Use --where to keep some documents.", "--where", False),
    ("       -v, --verbose\n              Say more.", "--verbose", True),
    ("  -q, --quiet  Say less. See --verbose.", "--verbose", False),
    ("-x = 3", "x", False),
    # JavaScript: a method's signature opening its body, accessors; not locals, imports or calls
    ("  addCommand(cmd, opts) {", "addCommand", True),
    ("Command\n  addCommand(cmd, opts) {", "Command.addCommand", True),
    ("  get isPaused() {\n    return this._paused;\n  }", "isPaused", True),
    ("  static parse(text): Tree {", "parse", True),
    ("const DEPTH = 100", "DEPTH", True),
    ("res.cookie = function (name, value, options) {", "res.cookie", True),
    ("  const opts = { ...options };", "opts", False),
    ("res.cookie\n  var opts = { ...options };", "res.cookie.opts", False),
    ("var parse = require('parseurl');", "parse", False),
    ("  if (signed && !secret) {", "if", False),
    ("app.get('/', function (req, res) {", "app.get", False),
    ("  this.run(args) {", "run", True),
    # C: a preprocessor definition at any depth, not its use
    ("#define CURL_WRITEFUNC_PAUSE 0x10000001", "CURL_WRITEFUNC_PAUSE", True),
    ("  #  define MAX_OF(a, b) ((a) > (b) ? (a) : (b))", "MAX_OF", True),
    ("  return CURL_WRITEFUNC_PAUSE;", "CURL_WRITEFUNC_PAUSE", False),
    ("#ifdef CURL_WRITEFUNC_PAUSE", "CURL_WRITEFUNC_PAUSE", False),
    # Java: a condition continued over lines calls a method, it is not help()'s bar naming it
    ("        return otherRange.contains(minimum)\n            || contains(otherRange.minimum);", "contains", False),
    ("Range > contains\n    public boolean contains(final T element) {", "Range.contains", True),
])
def test_a_definition_starts_its_line(text, name, found):
    assert defines(text, asked_name(name)) is found


def test_definitions_prefer_the_case_asked_and_fall_back_to_any():
    texts = {1: "class Preview(Enum):", 2: 'PREVIEW = "X-Preview"', 3: "x = Preview.FEATURE"}
    assert definitions(texts, ("PREVIEW",)) == {2}
    assert definitions(texts, ("preview",)) == {1, 2}
    assert definitions({1: CODE}, ("format_str",)) == {1}
    assert definitions({1: CODE}, ("mode",)) == set()
    # a qualifier nothing here names is dropped; one the trail names is kept
    assert definitions({1: CODE}, ("text", "format_str")) == {1}
    texts = {1: "class Reader\n    def read(self):", 2: "class Writer\n    def read(self):"}
    assert definitions(texts, ("Writer", "read")) == {2}
    assert definitions(texts, ("pkg", "Writer", "read")) == {2}
    assert definitions(texts, ("Other", "read")) == {1, 2}
    help_text = "CLASSES > class ArgumentParser(_ActionsContainer) > Methods defined here\n |  parse_known_args(self)"
    assert definitions({1: help_text}, ("ArgumentParser", "parse_known_args")) == {1}


def _fused(*scores):
    return [Fused(key, s, {"dense": (s, i)}) for i, (key, s) in enumerate(scores, start=1)]


def test_definitions_come_first_scores_still_falling():
    fused = _fused(("call", 0.9), ("doc", 0.8), ("def", 0.5), ("other", 0.4), ("def2", 0.1))
    out = definitions_first(fused, {"def", "def2"})
    assert [f.key for f in out] == ["def", "def2", "call", "doc", "other"]
    # scaled between the last (0.1) and the best (0.9), halved; 0.5 more for a definition
    assert [round(f.score, 4) for f in out] == [0.75, 0.5, 0.5, 0.4375, 0.1875]
    assert out[0].ranks == {"dense": (0.5, 3), "name": (1.0, 1)}
    assert out[1].ranks["name"] == (1.0, 2)
    assert definitions_first(fused, set()) == fused


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30).map(lambda xs: sorted(xs, reverse=True)),
       st.sets(st.integers(0, 29)))
def test_definitions_first_reorders_and_keeps_scores_non_increasing(scores, chosen):
    fused = _fused(*((i, s) for i, s in enumerate(scores)))
    out = definitions_first(fused, chosen)
    assert sorted(f.key for f in out) == [f.key for f in fused]
    first = [f.key for f in out[:len(chosen & set(range(len(scores))))]]
    assert set(first) == chosen & set(range(len(scores)))
    assert first == sorted(first)  # in their fused order
    assert all(a.score >= b.score - 1e-12 for a, b in zip(out, out[1:]))
    assert all(0 <= f.score <= 1 for f in out)
    assert all(f.score >= 0.5 for f in out[:len(first)])


def _folder(tmp_path):
    """A codebase where a function is called far more often than it is defined, and its docs."""
    src = tmp_path / "proj"
    src.mkdir()
    calls = "\n\n".join(f'def step_{i}(text):\n    """Step {i} of the run."""\n    text = normalize_text(text)\n'
                        f'    return normalize_text(text.strip())' for i in range(12))
    (src / "pipeline.py").write_text(f'"""The run."""\n\n{calls}\n', encoding="utf-8")
    (src / "text.py").write_text(
        '"""Text helpers."""\n\nMAX_LINE = 120\n\n\ndef normalize_text(text: str) -> str:\n'
        '    """Fold runs of white space into one space."""\n    return " ".join(text.split())\n',
        encoding="utf-8")
    (src / "guide.md").write_text(
        "# Guide\n\n## Steps\n\nEvery step calls normalize_text first, then its own work. "
        "Lines longer than MAX_LINE are folded.\n", encoding="utf-8")
    return src


@pytest.mark.parametrize("mode", ["hybrid", "bm25", "dense"])
def test_a_name_asked_alone_finds_its_definition_first(tmp_path, mode):
    import json

    from click.testing import CliRunner

    from zoomrag.cli import main

    index = str(tmp_path / "i.db")
    got = CliRunner().invoke(main, ["index", str(_folder(tmp_path)), "--index", index, "--embedder", "hash"])
    assert got.exit_code == 0, got.output
    for name, where in (("normalize_text", "def normalize_text"), ("normalize_text()", "def normalize_text"),
                        ("MAX_LINE", "MAX_LINE = 120")):
        got = CliRunner().invoke(main, ["query", name, "--index", index, "--mode", mode, "--budget", "60",
                                        "--json", "--explain"])
        assert got.exit_code == 0, got.output
        first = json.loads(got.output)["contexts"][0]
        assert first["source"].endswith("text.py") and where in first["text"], (name, first)
        assert "defines the name asked" in first["rule"]
    # a question in words is ranked as before: no definition is singled out
    got = CliRunner().invoke(main, ["query", "how is text normalized", "--index", index, "--mode", mode,
                                    "--json", "--explain"])
    assert got.exit_code == 0, got.output
    assert all("defines the name" not in c["rule"] for c in json.loads(got.output)["contexts"])


def test_a_name_asked_alone_returns_its_whole_definition_when_it_fits(tmp_path):
    import json

    from click.testing import CliRunner

    from zoomrag.cli import main

    body = "".join(f"  total += weight{i} * value{i}\n" for i in range(30))
    src = tmp_path / "src"
    src.mkdir()
    (src / "res.js").write_text(
        "'use strict'\n\n/**\n * Set cookie `name` to `value`.\n *\n * @param {String} name\n */\n\n"
        "res.cookie = function (name, value) {\n" + body + "  return this\n}\n\n"
        "/**\n * Clear cookie `name`.\n */\n\nres.clearCookie = function (name) {\n" + body + "}\n",
        encoding="utf-8")
    index = str(tmp_path / "i.db")
    got = CliRunner().invoke(main, ["index", str(src), "--index", index, "--embedder", "hash"])
    assert got.exit_code == 0, got.output
    text = (src / "res.js").read_text(encoding="utf-8")
    whole = text[text.index("/**\n * Set cookie"):text.index("  return this\n}") + len("  return this\n}")]

    def first(budget: int) -> dict:
        got = CliRunner().invoke(main, ["query", "res.cookie", "--index", index, "--budget", str(budget),
                                        "--mode", "bm25", "--json", "--explain"])
        assert got.exit_code == 0, got.output
        return json.loads(got.output)["contexts"][0]

    # the doc comment, the signature and the body: not the leaf that defines it alone
    found = first(400)
    assert found["text"].startswith(whole) and found["rule"].startswith("the whole definition of the name asked")
    # too big for the budget: the policy's own context, which still holds the definition's line (the
    # leaf holding it is its comment and signature, 160 tokens of its words without the " * " markers)
    small = first(200)
    assert "res.cookie = function" in small["text"] and small["text"] != whole
    assert "whole definition" not in small["rule"]


@given(st.text(max_size=300), st.text(max_size=40))
def test_any_text_and_query_are_read_without_error(text, query):
    name = asked_name(query)
    if name is not None:
        assert all(name) and " " not in "".join(name)
        assert isinstance(defines(text, name), bool)
        assert definitions({1: text}, name) <= {1}


def test_an_option_asked_alone_is_searched_after_dashes_and_the_error_says_so(tmp_path):
    from click.testing import CliRunner

    from zoomrag.cli import main

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "fetch.txt").write_text(
        "FETCH\n\nOptions:\n\n  --no-show-forced-updates\n      Skip the check for forced updates.\n\n"
        "  --depth N\n      Fetch only the last N commits.\n", encoding="utf-8")
    index = str(tmp_path / "i.db")
    assert CliRunner().invoke(main, ["index", str(tmp_path / "docs"), "--index", index, "--embedder", "hash"]).exit_code == 0
    got = CliRunner().invoke(main, ["query", "--no-show-forced-updates", "--index", index])
    assert got.exit_code == 2
    assert "put -- before it" in got.output and "zoomrag query --top 3 -- --no-show-forced-updates" in got.output
    # a misspelt option still gets click's suggestion, not the hint
    got = CliRunner().invoke(main, ["query", "x", "--index", index, "--buget", "3"])
    assert got.exit_code == 2 and "--budget" in got.output and "put --" not in got.output
    got = CliRunner().invoke(main, ["query", "--index", index, "--top", "1", "--", "--no-show-forced-updates"])
    assert got.exit_code == 0 and "Skip the check for forced updates" in got.output


def test_a_name_asked_of_help_text_returns_its_entry_and_not_the_next(tmp_path):
    from zoomrag import Index

    entries = "".join(f" |  {name}(self, /)\n |      {what}\n |  \n" for name, what in (
        ("set_authorizer", "Sets authorizer callback."),
        ("set_trace_callback", "Sets a trace callback called for each SQL statement."),
        ("setlimit", "Set connection run-time limits for this connection and every cursor of it.")))
    text = ("Help on class Connection in module sqlite3:\n\nclass Connection(builtins.object)\n"
            " |  SQLite database connection object.\n |  \n |  Methods defined here:\n |  \n" + entries)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "conn.txt").write_text(text, encoding="utf-8")
    index = Index.open(tmp_path / "i.db", embedder="hash")
    index.add(tmp_path / "docs")
    first = index.query("set_trace_callback", budget=300, mode="bm25")[0]
    # the entry alone, however short: not grown into setlimit's lines to make 15 words
    assert first.text.startswith("|  set_trace_callback(self, /)") and "setlimit" not in first.text
    assert "each SQL statement" in first.text


@pytest.mark.parametrize(("query", "part"), [
    ("res.cookie()", "cookie"), ("`csv.reader`", "reader"), ("std::vector", "vector"), ("--where", "--where"),
    ("set_trace_callback", "set_trace_callback"), ("How do I pin a package?", "")])
def test_the_name_a_section_title_must_hold_is_the_last_part_asked(query, part):
    from zoomrag.search.names import asked_unqualified

    assert asked_unqualified(query) == part


def test_a_signature_heading_with_no_body_of_its_own_is_not_taken_alone(tmp_path):
    from zoomrag import Index

    page = ("# bisect — Array bisection algorithm\n\n### bisect.bisect_left(a, x)\n\nLocate the insertion point "
            "for x in a to maintain sorted order, before any existing entries of x.\n\n"
            "### bisect.bisect_right(a, x)\n\n### bisect.bisect(a, x)\n\nSimilar to bisect_left(), but returns an "
            "insertion point which comes after any existing entries of x in a.\n\n### bisect.insort_left(a, x)\n\n"
            "Insert x in a in sorted order, keeping it sorted as it grows.\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "bisect.md").write_text(page, encoding="utf-8")
    index = Index.open(tmp_path / "i.db", embedder="hash")
    index.add(tmp_path / "docs")
    first = index.query("bisect.bisect_right", budget=300, mode="bm25")[0]
    # two signatures written one above the other share the description under the second
    assert "bisect.bisect_right(a, x)" in first.text and "comes after any existing entries" in first.text


def test_a_getter_and_its_setter_both_come_back_whole(tmp_path):
    from zoomrag import Index

    def doc(what: str) -> str:
        return f"  /**\n   * {what}\n   *\n   * @api public\n   */\n\n"

    def big(name: str, n: int) -> str:
        return (doc(f"Do {name}.") + f"  {name} () {{\n"
                + "".join(f"    this.value{i} = compute(this, '{name}', {i})\n" for i in range(n)) + "  },\n\n")

    # as in Koa's response.js: small accessors merge into one unit with no definition node of
    # their own; the body's setter is a definition of its own, and the object is too big to return
    src = ("'use strict'\n\nconst assert = require('assert')\n\nmodule.exports = {\n" + big("socket", 12)
           + doc("Get response status message") + "  get message () {\n    return this._message\n  },\n\n"
           + doc("Set response status message") + "  set message (msg) {\n    this._message = msg\n  },\n\n"
           + doc("Get response body.") + "  get body () {\n    return this._body\n  },\n\n"
           + doc("Set response body.") + "  set body (val) {\n    const original = this._body\n"
           + "".join(f"    if (val === {i}) this.kind = 'k{i}'\n" for i in range(30)) + "    this._body = val\n  },\n\n"
           + "".join(big(f"m{k}", 20) for k in range(6)) + "}\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "response.js").write_text(src, encoding="utf-8")
    index = Index.open(tmp_path / "i.db", embedder="hash")
    index.add(tmp_path / "src")
    first = index.query("body", budget=1024, mode="bm25")[0]
    assert "get body () {\n    return this._body\n  }" in first.text
    assert "set body (val) {" in first.text and "    this._body = val\n  }" in first.text
    # both do not fit: the policy's context, which still holds the getter
    assert "get body () {" in index.query("body", budget=600, mode="bm25")[0].text

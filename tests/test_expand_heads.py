"""Definition heads: a context from inside a function, method or class carries its signature."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_expand_support import RAW_CANDIDATES, Trees, assemble_anywhere, chars

from zoomrag.expand import Candidate, assemble
from zoomrag.expand.heads import enclosing_head, head_cut, head_of
from zoomrag.model import Document, Hit
from zoomrag.parse import make_chunker

SRC = (
    "import os\n\n\n"
    "class Session:\n"
    "    \"\"\"Keeps settings across requests.\"\"\"\n\n"
    "    # sends one request\n"
    "    @traced\n"
    "    def send(self, request,\n"
    "             timeout=None,\n"
    "             retries=(3, 5)) -> Response:\n"
    "        \"\"\"Send a prepared request.\"\"\"\n"
    + "".join(f"        step_{i} = prepare(request, {i})  # step {i} of the pipeline\n" for i in range(12))
    + "        adapter = self.get_adapter(request.url)\n"
    "        return adapter.send(request, timeout=timeout)\n\n"
    "    def close(self):\n"
    "        pass\n"
)


def _tree():
    doc = Document.from_text(SRC, id="s.py", source="s.py", format="code")
    return make_chunker("code", {"max_size": 60, "min_size": 20}).chunk(doc)


def test_head_of_skips_decorators_and_comments_and_follows_the_brackets():
    send = SRC.index("    # sends one request")
    s, e = head_of(SRC, send, len(SRC))
    assert SRC[s:e] == "def send(self, request,\n             timeout=None,\n             retries=(3, 5)) -> Response:"
    js = "/** Adds. */\nfunction add (a, b) {\n  return a + b\n}\n"
    s, e = head_of(js, 0, len(js))
    assert js[s:e] == "function add (a, b) {"


def test_a_decorators_arguments_are_no_head_however_many_lines_they_take():
    options = "".join(f'@click.option(\n    "--opt-{i}",\n    help="a value (or none)",\n)\n' for i in range(30))
    src = "@click.command(\n    context_settings={'x': 1},\n)\n" + options + "def main(ctx, opt_0):\n    run()\n"
    s, e = head_of(src, 0, len(src))
    assert src[s:e] == "def main(ctx, opt_0):"
    # an unbalanced bracket in a string or a comment does not hide the signature
    odd = '@route(\n    "/a(",  # see (\n)\ndef a():\n    pass\n'
    s, e = head_of(odd, 0, len(odd))
    assert odd[s:e] == "def a():"
    # comments alone are looked past for a dozen lines only, a doc comment whole
    long = "# c\n" * 20 + "def f():\n    pass\n"
    assert head_of(long, 0, len(long)) == (0, 0)
    jsdoc = "  /**\n" + "   * says more\n" * 20 + "   */\n\n  parse(argv) {\n    run()\n  }\n"
    s, e = head_of(jsdoc, 0, len(jsdoc))
    assert jsdoc[s:e] == "parse(argv) {"
    # and Rust's and Go's doc comments, line comments with their attributes
    rust = "    /// Wraps.\n" + "    /// says more\n" * 20 + "    #[must_use]\n    pub fn context<C>(self, c: C) -> Self\n" \
        "    where\n        C: Display,\n    {\n        wrap(c)\n    }\n"
    s, e = head_of(rust, 0, len(rust))
    assert rust[s:e] == "pub fn context<C>(self, c: C) -> Self"


def test_the_innermost_definition_past_its_head():
    tree = _tree()
    inside = SRC.index("adapter = self")
    s, e = enclosing_head(tree, inside)
    assert SRC[s:e].startswith("def send(") and SRC[s:e].endswith("-> Response:")
    between = SRC.index("    def close") - 1  # in the class, between its methods
    assert SRC[slice(*enclosing_head(tree, between))] == "class Session:"
    assert enclosing_head(tree, SRC.index("timeout=None")) is None  # inside the head itself
    assert enclosing_head(tree, SRC.index("import os")) is None  # in no definition


def test_a_context_inside_a_method_carries_its_signature():
    tree = _tree()
    s = SRC.index("step_9 =")
    e = SRC.index("\n", SRC.index("return adapter"))
    h = Hit("h", "s.py", s, e, 0.9)
    [c] = assemble([Candidate("s.py", s, e, 0.9, (h,), kind="code")], Trees(tree), 1000, chars, explain=True)
    head = SRC.index("def send(")
    assert c.parts()[0] == (head, SRC.index("-> Response:") + len("-> Response:"))
    assert c.parts()[1] == (s, e) and "its definition's signature" in c.rule
    assert c.text.startswith("def send(self, request,") and c.text.endswith("timeout=timeout)")
    # no room for it: the context alone
    [alone] = assemble([Candidate("s.py", s, e, 0.9, (h,), kind="code")], Trees(tree), e - s + 10, chars)
    assert len(alone.parts()) == 1


def test_head_cut_finds_a_span_ending_inside_a_signature_it_opens():
    tree = _tree()
    head = SRC.index("def send(")
    assert head_cut(tree, head, SRC.index("timeout=None")) == head
    assert head_cut(tree, SRC.index("import os"), SRC.index("timeout=None")) == head
    assert head_cut(tree, head, SRC.index("-> Response:") + len("-> Response:")) is None  # all of it
    # all of it after other code, with none of its body
    assert head_cut(tree, SRC.index("import os"), SRC.index("-> Response:") + len("-> Response:")) == head
    assert head_cut(tree, SRC.index("timeout=None"), SRC.index("retries")) is None  # from inside it
    assert head_cut(tree, SRC.index("step_3"), SRC.index("step_5")) is None  # in a body


def test_code_that_ends_with_the_next_signature_takes_that_definition_or_stops_before_it():
    tree = _tree()
    close = SRC.index("    def close(self):")
    ret = SRC.index("        adapter = self.get_adapter")
    end = close + len("    def close(self):")
    h = Hit("h", "s.py", ret, close - 1, 0.9)
    [c] = assemble([Candidate("s.py", ret, end, 0.9, (h,), kind="code")], Trees(tree), 1000, chars)
    assert c.text.endswith("def close(self):\n        pass")  # a fragment before it: the next one whole
    step = SRC.index("step_0 =")
    h = Hit("h", "s.py", step, close - 1, 0.9)
    [c] = assemble([Candidate("s.py", step, end, 0.9, (h,), kind="code")], Trees(tree), 1000, chars)
    assert c.text.endswith("return adapter.send(request, timeout=timeout)")  # enough words: it stops


def test_a_piece_cut_to_fit_does_not_end_inside_a_signature():
    """The room left after the best context held one line: ``def send(self, request,`` is a
    definition's first line and nothing it says."""
    tree = _tree()
    doc_start = SRC.index("class Session")
    doc_end = SRC.index("@traced") + len("@traced")  # the piece would touch it: one context
    head = SRC.index("def send(")
    first = Candidate("s.py", doc_start, doc_end, 0.9, (Hit("a", "s.py", doc_start, doc_end, 0.9),), kind="code")
    whole = Candidate("s.py", head, len(SRC), 0.8, (Hit("b", "s.py", head, SRC.index("-> Response:"), 0.8),),
                      kind="code")
    room = doc_end - doc_start + len("def send(self, request,") + 30
    out = assemble([first, whole], Trees(tree), room, chars, fill=True)
    assert all("def send(" not in c.text for c in out) and out[0].text.startswith(SRC[doc_start:doc_end])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["def f(", "a,", ")", "(", "]", "[", ":", "\n", "    ", "@d\n", "# c\n", "x", "{"]),
                max_size=40), st.integers(0, 40))
def test_a_head_is_an_exact_trimmed_span_inside_its_definition(pieces, at):
    text = "".join(pieces)
    start = min(at, len(text))
    s, e = head_of(text, start, len(text))
    assert start <= s <= e <= len(text)
    if s < e:
        assert not text[s].isspace() and not text[e - 1].isspace()
        assert not text[s:e].lstrip().startswith(("@", "#"))


def test_a_short_piece_of_code_grows_inside_its_function_not_into_the_next():
    tree = _tree()
    s = SRC.index("adapter = self")
    e = SRC.index("\n", SRC.index("return adapter"))  # under 15 words: it must grow
    h = Hit("h", "s.py", s, e, 0.9)
    [c] = assemble([Candidate("s.py", s, e, 0.9, (h,), kind="code")], Trees(tree), 1000, chars)
    body = c.parts()[-1]
    assert body[1] == e and body[0] < s  # grown backward, inside send
    assert "def close" not in c.text


@settings(max_examples=150, deadline=None)
@given(RAW_CANDIDATES, st.integers(20, 900))
def test_signatures_carried_never_repeat_a_character_nor_pass_the_budget(raw, budget):
    assemble_anywhere(_tree(), raw, budget, kind="code")


def test_the_head_of_a_graphql_type_is_past_its_description():
    text = '"""\nThe root query for implementing GraphQL mutations.\n"""\ntype Mutation {\n  addStar: Int\n}\n'
    s, e = head_of(text, 0, len(text))
    assert text[s:e] == "type Mutation {"
    one_line = '  """Adds a star."""\n  addStar(input: AddStarInput!): AddStarPayload\n'
    s, e = head_of(one_line, 0, len(one_line))
    assert one_line[s:e] == "addStar(input: AddStarInput!): AddStarPayload"


@pytest.mark.parametrize(("src", "head"), [
    # a block comment of any length, its lines with or without a leading "*"
    ("/*\n" + "** the busy handler sleeps.\n" * 40 + "*/\nSQLITE_API int sqlite3_busy_timeout(sqlite3*, int ms);\n",
     "SQLITE_API int sqlite3_busy_timeout(sqlite3*, int ms);"),
    # from the middle of one (a context's span)
    ("** the busy handler sleeps.\n" * 40 + "*/\nSQLITE_API int sqlite3_busy_timeout(sqlite3*, int ms);\n",
     "SQLITE_API int sqlite3_busy_timeout(sqlite3*, int ms);"),
    ("/*!\n@brief macro\nDefines to_json and from_json.\n*/\n#define NLOHMANN_X(Type, ...) \\\n  friend void f();\n",
     "#define NLOHMANN_X(Type, ...) \\"),
    # a template's head of many lines is no signature
    ("/** Formats. */\ntemplate <typename OutputIt, typename... T,\n          FMT_ENABLE_IF(is_it<OutputIt>::value)>\n"
     "auto format_to_n(OutputIt out, size_t n) -> R {\n  return r;\n}\n",
     "auto format_to_n(OutputIt out, size_t n) -> R {"),
])
def test_the_head_of_a_c_declaration_is_past_its_comment_and_template(src, head):
    s, e = head_of(src, 0, len(src))
    assert src[s:e] == head


def test_code_that_opens_with_the_tail_of_a_definition_starts_after_it():
    src = ("template <typename OutputIt>\nauto vformat_to_n(OutputIt out, size_t n, string_view fmt) {\n"
           + "".join(f"  auto step_{i} = detail::prepare(out, n, {i});\n" for i in range(12))
           + "  return {buf.out(), buf.count()};\n}\n\n"
           "/**\n  Formats ``args``, writes up to ``n`` characters of the result to the output iterator\n"
           "  ``out`` and returns the total (not truncated) output size.\n */\n"
           "template <typename OutputIt, typename... T>\n"
           "auto format_to_n(OutputIt out, size_t n, T&&... args) -> format_to_n_result<OutputIt> {\n"
           "  return vformat_to_n(out, n, fmt);\n}\n")
    doc = Document.from_text(src, id="core.h", source="core.h", format="code")
    tree = make_chunker("code", {"max_size": 40, "min_size": 10}).chunk(doc)
    tail, doc_start = src.index("  return {buf.out()"), src.index("/**\n  Formats")
    h = Hit("h", "core.h", doc_start + 5, doc_start + 60, 0.9)
    [c] = assemble([Candidate("core.h", tail, len(src) - 1, 0.9, (h,), kind="code")], Trees(tree), 1000, chars)
    assert c.text.startswith("/**\n  Formats") and "vformat_to_n(OutputIt out" not in c.text
    # a hit in the tail keeps it
    h = Hit("h", "core.h", tail, doc_start - 3, 0.9)
    [c] = assemble([Candidate("core.h", tail, len(src) - 1, 0.9, (h,), kind="code")], Trees(tree), 1000, chars)
    assert "return {buf.out(), buf.count()};" in c.text


def test_code_whose_hit_runs_into_a_signature_takes_the_rest_of_it():
    src = ("/*\n" + "".join(f"** sqlite3_prepare_v2() compiles statement {i} of the batch it is given.\n"
                            for i in range(8))
           + "*/\nSQLITE_API int sqlite3_prepare(\n  sqlite3 *db,            /* Database handle */\n"
           "  const char *zSql,       /* SQL statement, UTF-8 encoded */\n  int nByte\n);\n"
           "SQLITE_API int sqlite3_prepare_v2(\n  sqlite3 *db,\n  const char *zSql\n);\n")
    doc = Document.from_text(src, id="s.h", source="s.h", format="code")
    tree = make_chunker("code", {"max_size": 40, "min_size": 10}).chunk(doc)
    first_line = src.index("SQLITE_API int sqlite3_prepare(") + len("SQLITE_API int sqlite3_prepare(")
    start = src.index("** sqlite3_prepare_v2() compiles statement 5")
    h = Hit("h", "s.h", start, first_line, 0.9)
    [c] = assemble([Candidate("s.h", start, first_line, 0.9, (h,), kind="code")], Trees(tree), 1000, chars)
    assert c.text.endswith("int nByte\n);")

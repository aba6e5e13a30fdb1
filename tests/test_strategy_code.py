"""The ``code`` strategy: definitions first, then sizes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_tree, texts

from zoomrag.errors import ConfigError
from zoomrag.model import Block, Document, Tree
from zoomrag.parse.base import measure_for
from zoomrag.parse.boundaries import last_grapheme
from zoomrag.parse.registry import make_chunker
from zoomrag.parse.strategies.code import CodeChunker, language_of

PYTHON = '''"""Module doc."""

import os
import sys

# A helper for x.
def helper(x):
    return x + 1


@decorator
class Shape:
    """A shape."""

    sides = 0

    def area(self):
        return 0

    @property
    def name(self):
        return "shape"


def main():
    print(helper(1))
'''

JS = '''import { x } from "./x.js";

/**
 * Adds two numbers.
 */
export function add(a, b) {
  return a + b;
}

class Greeter {
  constructor(name) {
    this.name = name;
  }

  greet() {
    return `Hello, ${this.name}`;
  }
}

app.get("/", (req, res) => {
  res.send("ok");
});
'''


def code(text: str, language: str = "python", source: str = "m.py") -> Document:
    return Document(id="d", source=source, text=text, format="code", metadata={"language": language})


def shape(tree: Tree) -> list[tuple[int, str, str]]:
    return [(n.level, n.kind, n.text) for n in tree.nodes[1:]]


def test_python_definitions_are_units():
    tree = CodeChunker(max_size=1000, min_size=0, unit="chars").chunk(code(PYTHON))
    assert [(k, t.split("\n")[0]) for _, k, t in shape(tree)] == [
        ("code", '"""Module doc."""'),
        ("code", "import os"),
        ("code", "import sys"),
        ("function", "# A helper for x."),  # the comment right above belongs to the function
        ("class", "@decorator"),  # so does the decorator
        ("function", "def main():"),
    ]
    check_tree(tree)


def test_python_small_units_merge_and_big_classes_open():
    tree = CodeChunker(max_size=80, min_size=30, unit="chars").chunk(code(PYTHON))
    assert shape(tree) == [
        (1, "code", '"""Module doc."""\n\nimport os\nimport sys'),
        (1, "function", "# A helper for x.\ndef helper(x):\n    return x + 1"),
        (1, "class", PYTHON[PYTHON.index("@decorator"):PYTHON.index("\n\n\ndef main")]),
        (2, "code", '@decorator\nclass Shape:\n    """A shape."""\n\n    sides = 0'),
        (2, "method", "    def area(self):\n        return 0"),
        (2, "method", '    @property\n    def name(self):\n        return "shape"'),
        (1, "function", "def main():\n    print(helper(1))"),
    ]


BIG = '''def big(a):
    """Doc."""
    x = a + 1
    y = x * 2

    if y > 3:
        return y
    else:
        return x
'''


def test_big_function_splits_at_statements_and_keeps_its_docstring():
    tree = CodeChunker(max_size=30, min_size=20, unit="chars").chunk(code(BIG))
    assert shape(tree) == [
        (1, "function", BIG.strip()),
        (2, "code", 'def big(a):\n    """Doc."""'),
        (2, "code", "    x = a + 1\n    y = x * 2"),
        (2, "code", "    if y > 3:\n        return y\n    else:\n        return x"),
        (3, "code", "    if y > 3:\n        return y"),
        (3, "code", "    else:\n        return x"),
    ]


def test_python_syntax_error_falls_back_to_layout():
    text = "def f(:\n    pass\n\n@deco\ndef g():\n    return 1\n"
    tree = CodeChunker(max_size=100, min_size=0, unit="chars").chunk(code(text))
    assert shape(tree) == [
        (1, "function", "def f(:\n    pass"),
        (1, "function", "@deco\ndef g():\n    return 1"),
    ]


def test_javascript_by_braces():
    tree = CodeChunker(max_size=200, min_size=0, unit="chars").chunk(code(JS, "javascript", "x.js"))
    assert [(k, t.split("\n")[0]) for _, k, t in shape(tree)] == [
        ("code", 'import { x } from "./x.js";'),
        ("function", "/**"),  # the doc comment leads into the function
        ("class", "class Greeter {"),
        ("code", 'app.get("/", (req, res) => {'),
    ]
    tree = CodeChunker(max_size=60, min_size=0, unit="chars").chunk(code(JS, "javascript", "x.js"))
    greeter = next(n for n in tree if n.kind == "class")
    assert [(c.kind, c.text) for c in tree.children(greeter)] == [
        ("code", "class Greeter {"),
        ("method", "  constructor(name) {\n    this.name = name;\n  }"),
        ("method", "  greet() {\n    return `Hello, ${this.name}`;\n  }\n}"),  # the class's "}" too
    ]


def test_other_languages():
    go = "package main\n\nfunc main() {\n\tfmt.Println(1)\n}\n\ntype S struct {\n\tA int\n}\n"
    tree = CodeChunker(max_size=100, min_size=0, unit="chars").chunk(code(go, "go", "m.go"))
    assert [k for _, k, _ in shape(tree)] == ["code", "function", "class"]
    c = "int\nmain(void)\n{\n    return 0;\n}\n"
    tree = CodeChunker(max_size=100, min_size=0, unit="chars").chunk(code(c, "c", "m.c"))
    assert [(k, t) for _, k, t in shape(tree)] == [("code", "int"), ("function", "main(void)\n{\n    return 0;\n}")]


def test_fenced_python_from_markdown_is_read_with_ast():
    text = "```python\nimport os\n\n\nclass A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n```"
    doc = Document(id="d", source="x.md", text=text, format="markdown",
                   blocks=(Block(0, len(text), "code", meta={"language": "py"}),))
    tree = CodeChunker(max_size=40, min_size=0, unit="chars").chunk(doc)
    assert [(n.level, n.kind, n.text.split("\n")[-1]) for n in tree.nodes[1:]] == [
        (1, "code", "import os"), (1, "class", "```"), (2, "code", "class A:"),
        (2, "method", "        return 1"), (2, "method", "```"),
    ]
    # the fences stay with the code they open and close: no leaf is a lone fence
    assert tree.nodes[1].text == "```python\nimport os"
    assert tree.nodes[-1].text == "    def g(self):\n        return 2\n```"


def test_a_closing_fence_joins_code_too_big_to_take_it_in():
    body = "".join(f"    total += value_{i}\n" for i in range(12))
    text = f"```python\ndef add():\n{body}```"
    doc = Document(id="d", source="x.md", text=text, format="markdown",
                   blocks=(Block(0, len(text), "code", meta={"language": "py"}),))
    tree = CodeChunker(max_size=40, min_size=20, unit="tokens").chunk(doc)
    check_tree(tree, partition=True)
    assert [n.text for n in tree.leaves() if n.text.strip() == "```"] == []
    assert tree.leaves()[-1].text.endswith("value_11\n```")
    assert tree.children(tree.root)[-1].text.startswith("```python\ndef add():")


def test_long_line_is_cut_by_size():
    text = "x = [" + ", ".join(str(i) for i in range(40)) + "]\n"
    tree = CodeChunker(max_size=50, min_size=0, unit="chars").chunk(code(text))
    leaves = tree.leaves()
    assert len(leaves) > 1 and all(n.length <= 50 for n in leaves)
    check_tree(tree)


def test_language_detection():
    assert language_of(code("x", "py")) == "python"
    assert language_of(Document(id="d", source="a/b.rs", text="fn main() {}", format="code")) == "rust"
    assert language_of(Document(id="d", source="<text>", text="import os\n", format="text")) == "python"
    assert language_of(Document(id="d", source="<text>", text="SELECT 1;", format="text")) == ""
    # a format names the language only when it is one: a code block in a rendered file has none
    assert language_of(Document(id="d", source="<text>", text="fn main() {}", format="rs")) == "rust"
    assert language_of(Document(id="d", source="a/b.odt", text="SELECT 1;", format="odt")) == ""
    # a forced language wins over everything the document says
    assert language_of(Document(id="d", source="a/b.rs", text="fn main() {}", format="code"), "Py") == "python"


def test_empty_and_blank_documents_have_no_leaves():
    for text in ("", "\n  \n"):
        assert CodeChunker().chunk(code(text)).leaves() == []


def test_parameters_are_checked():
    with pytest.raises(ConfigError, match=r"code: max_size=0 is out of range; use at least 1"):
        CodeChunker(max_size=0)
    with pytest.raises(ConfigError, match=r"code: min_size=200 is out of range; use at least 0 and at most 160"):
        CodeChunker(min_size=200)
    assert make_chunker("code", {"max_size": "120", "min_size": "60", "language": "go"}) == \
        CodeChunker(max_size=120, min_size=60, language="go")


def test_real_module_round_trip():
    src = Path(__file__).resolve().parents[1] / "src" / "zoomrag" / "parse" / "strategies" / "code.py"
    doc = code(src.read_text(encoding="utf-8"))
    tree = CodeChunker(unit="approx").chunk(doc)
    check_tree(tree)
    measure = measure_for(doc, "approx")
    assert all(measure.size(n.start, n.end) <= 160 for n in tree.leaves())
    chunker = next(n for n in tree.children(tree.root) if "class CodeChunker(Chunker):" in n.text)
    assert chunker.kind == "class" and chunker.text.startswith("@dataclass(frozen=True)\nclass")
    methods = [c for c in tree.children(chunker) if c.kind == "method"]
    assert any("    def split(self, document: Document)" in m.text for m in methods)

def _without_fences(text: str, start: int, end: int) -> tuple[int, int]:
    """A leaf's span without the fence lines of a fenced block, which join the code beside them
    past the size limit."""
    lines = text[start:end].split("\n")
    if text.lstrip("\n").lstrip(" \t").startswith(("```", "~~~")) and len(lines) > 1:  # indented too
        if start == len(text) - len(text.lstrip("\n")) and lines[0].lstrip().startswith(("```", "~~~")):
            start += len(lines[0]) + 1
            while start < end and text[start] == "\n":  # blank lines under the fence join it too
                start += 1
        if end == len(text.rstrip()) and lines[-1].strip() in ("```", "~~~"):
            end -= len(lines[-1]) + 1
    return start, max(start, end)


def _is_unbreakable(text: str) -> bool:
    """One character with its marks (no cut inside keeps them together): the only thing
    allowed past the size limit."""
    return last_grapheme(text, 1, len(text) - 1) < 0


_CODE_PIECES = [
    "def f(x):", "    return x", "class A:", "    def m(self):", "        pass", "@deco", "# comment",
    "", "", "x = 1; y = 2", "if x:", "    y = 2", "else:", '"""doc"""', "    '''inner'''", "}", "};",
    "function g() {", "  return 1;", "async def h():", "    await z", "try:", "except E:", "\tx",
    "        deep = 1", "/* c */", " * more", "```", "~~~", "x" * 120, "a\u0301" * 3, "中文 = 1",
    # JavaScript: doc comments a blank line above, member functions, strings over lines
    "/**", " */", "res.cookie = function (a) {", "res.type =", "  get body () {", "  throw new Error(`no",
    "- inside the template`);", "const re = /[`]/;", "`", 'x = """',
    # C and C++ headers: declarations, comments under them, directives, labels, templates
    "SQLITE_API int f(sqlite3*);", "GIT_EXTERN(int) git_clone(", "\tconst char *url);", "/*", "*/",
    "#ifndef X_H", "#define MAX(a, b) \\", "#endif", "  public:", "template <typename T,", "  typename U>",
    "typedef enum {", "} name_t;", "  CURLOPT(CURLOPT_X, LONG, 1),", "x /* open", "int (*cb)(void *);",
    "#define ONE 1", "    #undef ONE", "template <> struct S<int> {", "// glob src/*.c", "JSON_PRIVATE:",
]


def _read_size(text: str, measure, start: int, end: int) -> int:
    """A leaf's size as it embeds: its lines' comment markers (``//``, ``///``, `` *``) not counted."""
    marks = 0
    for m in re.finditer(r"(?m)^[ \t]*((?://[/!]?|/\*\*?|\*/|\*(?=[ \t]|$))[ \t]?)", text):
        if start <= m.start(1) and m.end(1) <= end:
            marks += measure.size(m.start(1), m.end(1))
    return measure.size(start, end) - marks


@settings(max_examples=150, deadline=None)
@given(st.one_of(texts, st.lists(st.sampled_from(_CODE_PIECES), max_size=40).map("\n".join)),
       st.sampled_from(["python", "javascript", "c", "cpp", ""]), st.sampled_from([(1, 0), (8, 4), (40, 20), (160, 80)]),
       st.sampled_from(["chars", "approx"]))
def test_invariants(text, language, sizes, unit):
    max_size, min_size = sizes
    doc = Document.from_text(text, format="code", metadata={"language": language})
    chunker = CodeChunker(max_size=max_size, min_size=min_size, unit=unit)
    tree = chunker.chunk(doc)
    check_tree(tree, partition=True)
    measure = measure_for(doc, unit)
    for leaf in tree.leaves():
        start, end = _without_fences(doc.text, leaf.start, leaf.end)
        assert _read_size(doc.text, measure, start, end) <= max_size or _is_unbreakable(leaf.text), leaf
    assert [n.id for n in chunker.chunk(doc)] == [n.id for n in tree]


def test_a_source_files_definitions_are_its_section_path():
    src = ("import os\n\n\nclass Wrapper:\n    \"\"\"Wraps text.\"\"\"\n\n"
           "    @staticmethod\n    def handle(word):\n        return word\n\n\n"
           "async def main():\n    pass\n")
    doc = Document.from_text(src, id="w.py", source="w.py", format="code")
    tree = make_chunker("code", {"max_size": 12, "min_size": 0, "unit": "chars"}).chunk(doc)
    paths = {(n.kind, tree.document.text[n.start:n.end].split("\n")[0], n.section_path)
             for n in tree.nodes if n.kind in ("class", "method", "function")}
    assert paths == {("class", "class Wrapper:", ("Wrapper",)),
                     ("method", "    @staticmethod", ("Wrapper", "handle")),
                     ("function", "async def main():", ("main",))}
    inside = [n for n in tree.nodes if n.start >= src.index("return") and n.end <= src.index("return") + 11]
    assert inside and all(n.section_path == ("Wrapper", "handle") for n in inside)
    # a code block inside prose keeps the prose's heading trail
    md = Document.from_text(src, id="w.md", source="w.md", format="markdown")
    assert all(n.section_path == () for n in make_chunker("code").chunk(md).nodes)


def test_a_decorated_method_split_into_pieces_is_not_nested_in_itself():
    # as Flask's: a docstring too long for one unit under the decorator and the def line
    doc_lines = "".join(f"        Line {i} of the docstring says what the hook does before request {i}.\n"
                        for i in range(20))
    src = (f"class Scaffold:\n    @setupmethod\n    def before_request(self, f):\n        \"\"\"Register a hook.\n\n"
           f"{doc_lines}        \"\"\"\n        self.funcs.append(f)\n        return f\n")
    doc = Document.from_text(src, id="s.py", source="s.py", format="code")
    tree = make_chunker("code", {"max_size": 80, "min_size": 40, "unit": "tokens"}).chunk(doc)
    inside = [n for n in tree.nodes if n.start >= src.index("    @setupmethod")]
    assert len(inside) > 2  # the method is cut into pieces, its def line found again in one
    assert {n.section_path for n in inside} == {("Scaffold", "before_request")}


def test_a_functions_first_lines_merged_with_a_helper_inside_it_are_its_code():
    src = ("def outer(url):\n    \"\"\"Checks a URL.\"\"\"\n\n    def get(key):\n        return key\n\n"
           + "".join(f"    if url.startswith('s{i}://'):\n        return get('v{i}')\n" for i in range(6)))
    doc = Document.from_text(src, id="o.py", source="o.py", format="code")
    tree = make_chunker("code", {"max_size": 40, "min_size": 30, "unit": "tokens"}).chunk(doc)
    first = next(n for n in tree.nodes if n.level == 2)
    # the head of outer and its helper: outer's code, not a second "outer" inside outer
    assert tree.document.text[first.start:first.end].startswith("def outer(url):") and "def get" in first.text
    assert (first.kind, first.section_path) == ("code", ("outer",))


def test_javascript_without_semicolons_keeps_calls_and_exports_out_of_definitions():
    src = ("const fs = require('fs')\n\nclass CI extends Base {\n  static name = 'ci'\n\n"
           "  async exec () {\n    const arb = new Arborist(opts)\n    await arb.buildIdealTree()\n"
           "    await reifyFinish(this.npm, arb)\n  }\n}\n\nconst helper = (x) => {\n  return x + 1\n}\n\n"
           "module.exports = CI\n")
    doc = Document.from_text(src, id="ci.js", source="ci.js", format="code")
    tree = make_chunker("code", {"max_size": 12, "min_size": 0, "unit": "chars"}).chunk(doc)
    named = {(n.kind, n.text.split("\n")[0].strip(), n.section_path) for n in tree.nodes
             if n.kind in ("class", "method", "function")}
    assert named == {("class", "class CI extends Base {", ("CI",)), ("method", "async exec () {", ("CI", "exec")),
                     ("function", "const helper = (x) => {", ("helper",))}  # no "module.exports", no "await"


def test_a_doc_comment_a_blank_line_above_a_definition_leads_into_it():
    body = "".join(f"  total += weight{i}\n" for i in range(8))
    src = ("/**\n * Module dependencies.\n */\n\nvar send = require('send')\n\n"
           "/**\n * Send a response.\n *\n * @param {string} body\n */\n\n"
           "res.send = function send(body) {\n" + body + "}\n\n"
           "/**\n * Set the type.\n */\n\nres.contentType =\nres.type = function contentType(type) {\n" + body + "}\n\n"
           "View.prototype.lookup = async (name) => {\n" + body + "}\n\n"
           "exports.etag = function (body) {\n" + body + "}\n\n"
           "/* not a doc comment */\n\nfunction helper (x) {\n" + body + "}\n")
    doc = Document.from_text(src, id="r.js", source="r.js", format="code")
    tree = make_chunker("code", {"max_size": 40, "min_size": 0, "unit": "tokens"}).chunk(doc)
    top = [(n.kind, src[n.start:n.end].split("\n")[0], n.section_path) for n in tree.nodes if n.level == 1]
    assert top == [
        ("code", "/**", ()),  # a doc comment above an import documents no definition
        ("code", "var send = require('send')", ()),
        ("function", "/**", ("res.send",)),
        ("function", "/**", ("res.contentType",)),  # an assignment that runs on to the next line
        ("function", "View.prototype.lookup = async (name) => {", ("View.lookup",)),
        ("function", "exports.etag = function (body) {", ("etag",)),
        ("code", "/* not a doc comment */", ()),
        ("function", "function helper (x) {", ("helper",)),
    ]


def test_a_string_running_over_lines_does_not_end_its_definition():
    body = "".join(f"    total += weight{i}\n" for i in range(8))
    src = ("class Command {\n  restore() {\n    if (this.stored)\n      throw new Error(`Can not parse again.\n"
           "- either make a new Command, or stop storing options`);\n" + body + "  }\n\n"
           "  usage(str) {\n    const re = /^[a-z`]+$/;\n    return `usage: ${str}`;\n  }\n}\n\n"
           "function help() {\n  return `\nUsage:\n  tool [options]\n`;\n}\n")
    doc = Document.from_text(src, id="c.js", source="c.js", format="code")
    tree = make_chunker("code", {"max_size": 40, "min_size": 0, "unit": "tokens"}).chunk(doc)
    top = [(n.kind, n.section_path) for n in tree.nodes if n.level == 1]
    # the template literal's line at column 0 is inside restore(), not a unit of the file; a
    # backquote in a regular expression opens no string
    assert top == [("class", ("Command",)), ("function", ("help",))]
    methods = [n.section_path for n in tree.nodes if n.kind == "method"]
    assert methods == [("Command", "restore"), ("Command", "usage")]


@pytest.mark.parametrize(("line", "name"), [
    ("pub fn run(&self) -> u8 {", "run"), ("func (s *Server) Start() error {", "Start"),
    ("int main(void) {", "main"), ("static void *worker(void *arg)", "worker"),
    ("export default class Foo extends Bar {", "Foo"), ("public static String name(int x) {", "name"),
    ("function foo(a, b) {", "foo"), ("const baz = async function () {", "baz"),
    # Go's and Rust's declarations as their docs name them
    ("type Flag struct {", "Flag"), ("impl<'a> Deserializer<'a> {", "Deserializer"),
    ("impl Display for Error {", "Display for Error"),
    ("impl<T, E> Context<T, E> for Result<T, E> {", "Context for Result"),
    ("macro_rules! json {", "json"), ("mod tests {", "tests"),
])
def test_definitions_of_other_languages_are_named_in_the_section_path(line, name):
    src = f"{line}\n    body(1)\n}}\n"
    doc = Document.from_text(src, id="m.x", source="m.x", format="code")
    tree = make_chunker("code", {"max_size": 200, "min_size": 0, "unit": "chars", "language": "c"}).chunk(doc)
    defs = [n for n in tree.nodes if n.kind in ("class", "function", "method")]
    assert defs and defs[0].section_path == (name,)


GO = '''package cobra

import "fmt"

// Command is just that, a command for your application.
// E.g.  'go run ...' - 'run' is the command.
type Command struct {
	// Use is the one-line usage message.
	// Recommended syntax is as follows:
	Use string
}

// RangeArgs returns an error if the number of args is not within the expected range.
func RangeArgs(min int, max int) PositionalArgs {
	return func(cmd *Command, args []string) error {
		return fmt.Errorf("accepts between %d and %d arg(s)", min, max)
	}
}
'''


def test_a_comment_of_many_line_comments_leads_into_what_it_documents():
    doc = Document.from_text(GO, id="c.go", source="c.go", format="code")
    tree = make_chunker("code", {"max_size": 200, "min_size": 0, "unit": "chars"}).chunk(doc)
    top = [(n.kind, n.text.split("\n")[0], n.section_path) for n in tree.nodes if n.level == 1]
    assert top == [
        ("code", "package cobra", ()), ("code", 'import "fmt"', ()),
        ("class", "// Command is just that, a command for your application.", ("Command",)),
        ("function", "// RangeArgs returns an error if the number of args is not within the expected range.",
         ("RangeArgs",)),
    ]
    field = next(n for n in tree.nodes if n.kind == "code" and n.text.lstrip().startswith("// Use is"))
    assert field.text.endswith("Use string\n}")  # a field's comment leads into it (the "}" closes the last part)


RUST = '''impl Command {
    /// Adds an [argument] to the list of valid possibilities.
    ///
    /// It is checked when the command is built:
    /// a name given twice panics.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use clap::{Command, Arg};
    /// Command::new("myprog")
    ///
    ///     .arg(Arg::new("debug"))
    /// # ;
    /// ```
    #[must_use]
    pub fn mut_arg<F>(mut self, arg_id: impl AsRef<str>, f: F) -> Self
    where
        F: FnOnce(Arg) -> Arg,
    {
        let id = arg_id.as_ref();
        self.args.push(f(id));
        self
    }
}
'''


def test_a_long_doc_comment_is_cut_at_its_paragraphs_and_a_signature_runs_to_its_brace():
    doc = Document.from_text(RUST, id="c.rs", source="c.rs", format="code")
    tree = make_chunker("code", {"max_size": 60, "min_size": 0, "unit": "tokens"}).chunk(doc)
    leaves = [n.text.strip() for n in tree.leaves()]
    lines = RUST.split("\n")
    # paragraphs between blank comment lines; a heading with what it heads; the example whole
    # (its own blank line inside the fence too) as far as the size allows, cut at lines
    assert leaves[1:3] == ["/// Adds an [argument] to the list of valid possibilities.",
                           "/// It is checked when the command is built:\n    /// a name given twice panics."]
    # the example whole: its comment markers are not counted against the size
    example = [t for t in leaves if t.startswith("/// # Examples")]
    assert example == ["\n".join(lines[6:15]).strip()]
    # the signature with its where clause and the brace that opens the body is one piece
    signature = next(t for t in leaves if "pub fn mut_arg" in t)
    assert signature == "\n".join(lines[15:20]).strip()
    assert all(n.section_path == ("Command", "mut_arg") for n in tree.nodes
               if n.level >= 2 and n.start >= RUST.index("    /// Adds"))


def test_a_match_in_a_rust_function_is_its_code_not_a_definition():
    body = "".join(f"        Some(x) if x > {i} => x,\n" for i in range(12))
    src = ("pub(crate) fn did_you_mean_flag(arg: &str) -> Option<String> {\n"
           "    match did_you_mean(arg, longs).pop() {\n" + body + "        _ => None,\n    }\n}\n")
    doc = Document.from_text(src, id="s.rs", source="s.rs", format="code")
    tree = make_chunker("code", {"max_size": 60, "min_size": 0, "unit": "tokens"}).chunk(doc)
    assert [(n.kind, n.section_path) for n in tree.nodes if n.kind in ("class", "function", "method")] == [
        ("function", ("did_you_mean_flag",))]


def test_a_licence_header_is_a_unit_of_its_own():
    licence = "// Copyright 2013 The Authors\n//\n// Licensed under the Apache License, Version 2.0.\n\n"
    src = licence + "package cobra\n\nimport \"fmt\"\n\ntype PositionalArgs func(args []string) error\n"
    doc = Document.from_text(src, id="a.go", source="a.go", format="code")
    tree = make_chunker("code", {"max_size": 160, "min_size": 80, "unit": "tokens"}).chunk(doc)
    assert [n.text for n in tree.leaves()] == [licence.strip(), src[len(licence):].strip()]
    # a comment that is no licence merges as any small unit does
    other = src.replace("Copyright 2013 The Authors", "Helpers").replace("Licensed under the Apache License", "Shared")
    assert len(make_chunker("code", {"max_size": 160, "min_size": 80, "unit": "tokens"}).chunk(
        Document.from_text(other, id="a.go", source="a.go", format="code")).leaves()) == 1
    # nor with a C header's guard right under it: alone, the licence is the same in every file
    header = "/*\n * Copyright (C) the libgit2 contributors.\n * Licensed under GPL v2.\n */\n"
    src = header + "#ifndef INCLUDE_git_clone_h__\n#define INCLUDE_git_clone_h__\n\n#include \"common.h\"\n"
    doc = Document.from_text(src, id="clone.h", source="clone.h", format="code")
    tree = make_chunker("code", {"max_size": 160, "min_size": 80, "unit": "tokens"}).chunk(doc)
    assert [n.text for n in tree.leaves()] == [header.strip(), src[len(header):].strip()]
    # or with Java's package line; a class's own doc comment naming a licence stays its own
    java = "/*\n * Copyright (C) 2011 The Guava Authors\n */\npackage com.google.common.cache;\n"
    doc = Document.from_text(java, id="C.java", source="C.java", format="code")
    tree = make_chunker("code", {"max_size": 160, "min_size": 80, "unit": "tokens"}).chunk(doc)
    assert [n.text for n in tree.leaves()] == [java[:java.index("package") - 1], "package com.google.common.cache;"]
    parser = "/** Reads licence files. */\npublic class LicenceParser {\n  int x;\n}\n"
    doc = Document.from_text(parser, id="L.java", source="L.java", format="code")
    tree = make_chunker("code", {"max_size": 160, "min_size": 80, "unit": "tokens"}).chunk(doc)
    assert [n.text for n in tree.leaves()] == [parser.strip()]


GRAPHQL = '''"""
Autogenerated input type of AddStar
"""
input AddStarInput {
  """
  The Starrable ID to star.
  """
  starrableId: ID!
}

"""
The root query for implementing GraphQL mutations.
"""
type Mutation {
  """
  Adds a star to a Starrable.
  """
  addStar(
    """
    Parameters for AddStar
    """
    input: AddStarInput!
  ): AddStarPayload

  """
  Removes a star from a Starrable.
  """
  removeStar(input: RemoveStarInput!): RemoveStarPayload
}

"""
The possible states of a pull request.
"""
enum PullRequestState {
  """
  A pull request that has been closed without being merged.
  """
  CLOSED

  """
  A pull request that is still open.
  """
  OPEN
}
'''


def test_a_graphql_schemas_types_and_fields_are_named_with_their_descriptions():
    doc = Document.from_text(GRAPHQL, id="s.graphql", source="s.graphql", format="code")
    tree = make_chunker("code", {"max_size": 30, "min_size": 20}).chunk(doc)
    named: dict[tuple[str, ...], str] = {}
    for n in tree.nodes:  # the first node of each name: the definition, before its parts
        named.setdefault(n.section_path, n.text)
    # a description in triple quotes leads into the type or field it describes
    assert named[("AddStarInput",)].startswith('"""\nAutogenerated input type of AddStar')
    assert tree.nodes[1].kind == "class" and tree.nodes[1].section_path == ("AddStarInput",)
    assert named[("Mutation", "addStar")].startswith('  """\n  Adds a star to a Starrable.')
    assert named[("Mutation", "addStar")].rstrip().endswith("): AddStarPayload")
    assert named[("Mutation", "removeStar")].lstrip().startswith('"""\n  Removes a star')
    assert ("PullRequestState", "CLOSED") in named and ("PullRequestState", "OPEN") in named
    # two documented fields, each small, are not merged into one unit neither is named by
    assert not any("addStar(" in n.text and "removeStar(" in n.text for n in tree.leaves())


PROTO = '''syntax = "proto3";

package google.rpc;

// Describes when the clients can retry a failed request.
message RetryInfo {
  // Clients should wait at least this long between retrying the same request.
  google.protobuf.Duration retry_delay = 1;
}

// The canonical error codes for gRPC APIs.
enum Code {
  // Not an error; returned on success.
  OK = 0;

  // The operation was cancelled, typically by the caller.
  CANCELLED = 1;
}

service Operations {
  // Gets the latest state of a long-running operation.
  rpc GetOperation(GetOperationRequest) returns (Operation) {
    option (google.api.http) = { get: "/v1/{name=operations/**}" };
  }
}
'''


def test_protobuf_messages_fields_values_and_rpcs_are_named():
    doc = Document.from_text(PROTO, id="e.proto", source="e.proto", format="code")
    tree = make_chunker("code", {"max_size": 20, "min_size": 10}).chunk(doc)
    paths = {n.section_path for n in tree.nodes}
    assert {("RetryInfo",), ("RetryInfo", "retry_delay"), ("Code",), ("Code", "OK"), ("Code", "CANCELLED"),
            ("Operations",), ("Operations", "GetOperation")} <= paths
    delay = next(n for n in tree.nodes if n.section_path == ("RetryInfo", "retry_delay"))
    assert delay.text.lstrip().startswith("// Clients should wait")  # its comment leads into it


@pytest.mark.parametrize("line, name", [
    ("  name: String!", "name"), ("  addStar(input: AddStarInput!): AddStarPayload", "addStar"),
    ("  repeated string names = 3;", "names"), ("  map<string, string> labels = 4;", "labels"),
    ("  UNAVAILABLE = 14;", "UNAVAILABLE"), ("  COLLABORATOR", "COLLABORATOR"),
    ("  RED,", "RED"), ("  private label: string;", ""), ("  public:", ""), ("  if (x) {", ""),
    ("  attr_accessor :name", ""), ("  std::string name;", ""),
])
def test_a_member_of_a_type_is_named_by_its_first_word(line, name):
    src = f"class Box {{\n  // what it holds\n{line}\n  // filler comment so the class opens up here\n  other: Int\n}}\n"
    doc = Document.from_text(src, id="b.ts", source="b.ts", format="code")
    tree = make_chunker("code", {"max_size": 12, "min_size": 0, "unit": "chars"}).chunk(doc)
    found = {n.section_path for n in tree.nodes if n.text.lstrip().startswith("// what it holds")}
    assert found == ({("Box", name)} if name else {("Box",)})


def test_a_yaml_key_over_a_big_block_leads_into_its_first_part():
    src = "responses:\n  '200':\n    content:\n" + "".join(
        f"      field_{i}:\n        description: The field number {i} of the reply.\n" for i in range(12))
    doc = Document.from_text(src, id="a.yaml", source="a.yaml", format="code")
    tree = make_chunker("code", {"max_size": 40, "min_size": 0}).chunk(doc)
    leaves = [n.text for n in tree.leaves()]
    assert leaves[0].startswith("responses:\n  '200':\n    content:\n      field_0:")  # no leaf of one key
    assert all(len(t.split()) > 2 for t in leaves)


def test_a_description_opening_and_closing_on_its_text_lines_still_leads_into_its_field():
    src = ('type Mutation {\n  """Adds a star\n  to a Starrable."""\n  addStar(input: AddStarInput!): Int\n\n'
           '  """Removes a star\n  from a Starrable."""\n  removeStar(input: RemoveStarInput!): Int\n}\n')
    doc = Document.from_text(src, id="m.graphql", source="m.graphql", format="code")
    tree = make_chunker("code", {"max_size": 12, "min_size": 0, "unit": "chars"}).chunk(doc)
    first = {}
    for n in tree.nodes:
        first.setdefault(n.section_path, n.text)
    assert first[("Mutation",)].startswith("type Mutation {")
    assert first[("Mutation", "addStar")].lstrip().startswith('"""Adds a star')
    assert first[("Mutation", "removeStar")].lstrip().startswith('"""Removes a star')


HEADER = '''/*
** CAPI3REF: Set A Busy Timeout
**
** This routine sets a busy handler that sleeps for a specified amount of time
** when a table is locked.
*/
SQLITE_API int sqlite3_busy_timeout(sqlite3*, int ms);

/*
** CAPI3REF: Open A New Database Connection
*/
SQLITE_API int sqlite3_open(const char *filename, sqlite3 **ppDb);
SQLITE_API int sqlite3_open16(const void *filename, sqlite3 **ppDb);

ZEXTERN uLong ZEXPORT crc32 OF((uLong crc, const Bytef *buf, uInt len));
/*
     Update a running CRC-32 with the bytes buf[0..len-1] and return the
   updated CRC-32.
*/

/*
ZEXTERN int ZEXPORT deflateInit2 OF((z_streamp strm, int level));

     This is another version of deflateInit with more compression options.
*/

/**
 * Clone a remote repository.
 */
GIT_EXTERN(int) git_clone(
	git_repository **out,
	const char *url);

/** The signature of a function that creates a remote. */
typedef int GIT_CALLBACK(git_remote_create_cb)(
	git_remote **out,
	void *payload);

typedef int (*git_transfer_progress_cb)(const git_indexer_progress *stats, void *payload);

/** Clone options structure */
typedef struct git_clone_options {
	unsigned int version;
	/**
	 * Set to zero (false) to create a standard repo, or non-zero
	 * for a bare repo
	 */
	int bare;
	/** The name of the branch to checkout. */
	const char *checkout_branch;
} git_clone_options;

/** Options for bypassing the git-aware transport on clone. */
typedef enum {
	/** Auto-detect (default) */
	GIT_CLONE_LOCAL_AUTO,
	/** Bypass the git-aware transport even for a `file://` url. */
	GIT_CLONE_LOCAL
} git_clone_local_t;

typedef enum {
  /* Time-out connect operations after this amount of seconds */
  CURLOPT(CURLOPT_CONNECTTIMEOUT, CURLOPTTYPE_LONG, 78),
#define CURLOPT_PROGRESSDATA CURLOPT_XFERINFODATA
  /* Function that will be called to store headers */
  CURLOPT(CURLOPT_HEADERFUNCTION, CURLOPTTYPE_FUNCTIONPOINT, 79),
} CURLoption;

/* The larger of two numbers. */
#define MAX_OF(a, b) ((a) > (b) ? (a) : (b))
'''


def _first_nodes(tree: Tree) -> dict[tuple[str, ...], str]:
    first: dict[tuple[str, ...], str] = {}
    for n in tree.nodes:
        first.setdefault(n.section_path, n.text)
    return first


def test_a_headers_declarations_are_definitions_named_with_their_comments():
    doc = Document.from_text(HEADER, id="h.h", source="h.h", format="code")
    tree = make_chunker("code", {"max_size": 24, "min_size": 0}).chunk(doc)
    first = _first_nodes(tree)
    # a comment above a declaration, or right under it with a blank line after (zlib's), is its own
    assert first[("sqlite3_busy_timeout",)].startswith("/*\n** CAPI3REF: Set A Busy Timeout")
    assert first[("sqlite3_busy_timeout",)].endswith("SQLITE_API int sqlite3_busy_timeout(sqlite3*, int ms);")
    assert first[("crc32",)].startswith("ZEXTERN uLong ZEXPORT crc32 OF((")
    assert first[("crc32",)].endswith("updated CRC-32.\n*/")
    # declarations under one comment are one definition, named by the first
    assert first[("sqlite3_open",)].endswith("SQLITE_API int sqlite3_open16(const void *filename, sqlite3 **ppDb);")
    assert ("sqlite3_open16",) not in first
    # a declaration shown in a comment (a macro), macros around types and callback types
    assert first[("deflateInit2",)].startswith("/*\nZEXTERN int ZEXPORT deflateInit2")
    assert first[("git_clone",)].startswith("/**\n * Clone a remote repository.")
    assert first[("git_remote_create_cb",)].startswith("/** The signature")
    assert first[("git_transfer_progress_cb",)].startswith("typedef int (*git_transfer_progress_cb)")
    assert first[("MAX_OF",)] == "/* The larger of two numbers. */\n#define MAX_OF(a, b) ((a) > (b) ? (a) : (b))"
    # a typedef's name on its closing line; fields and values with their comments, a member a
    # macro declares by its first argument
    assert first[("git_clone_options",)].startswith("/** Clone options structure */")
    assert first[("git_clone_options", "bare")].lstrip().startswith("/**\n\t * Set to zero")
    assert first[("git_clone_options", "checkout_branch")].lstrip().startswith("/** The name of the branch")
    assert first[("git_clone_local_t", "GIT_CLONE_LOCAL")].lstrip().startswith("/** Bypass")
    # a #define at column 0 inside a type leads into its next member as #if does
    assert first[("CURLoption", "CURLOPT_HEADERFUNCTION")].startswith(
        "#define CURLOPT_PROGRESSDATA CURLOPT_XFERINFODATA\n  /* Function that")


CPP = '''namespace nlohmann {

class basic_json
{
  public:
    /// @brief access specified array element
    /// @sa https://json.nlohmann.me/api/basic_json/operator%5B%5D/
    reference operator[](size_type idx)
    {
        // implicitly convert null value to an empty array
        if (is_null())
        {
            m_type = value_t::array;
        }
#if JSON_DIAGNOSTICS
        set_parents();
#endif
        return m_value.array->operator[](idx);
    }

    /// @brief access specified object element with bounds checking
    template<class KeyType, detail::enable_if_t<
                 detail::is_usable_as_basic_json_key_type<basic_json_t, KeyType>::value, int> = 0>
    reference at(KeyType && key)
    {
        std::lock_guard<std::mutex> guard(m_mutex);
        return set_parent(m_value.object->at(key));
    }

    /// @brief the type of a value
    enum class value_t : std::uint8_t
    {
        null,
        object
    };
};

}  // namespace nlohmann
'''


def test_cpp_members_are_named_past_templates_and_preprocessor_lines():
    doc = Document.from_text(CPP, id="json.hpp", source="json.hpp", format="code")
    tree = make_chunker("code", {"max_size": 40, "min_size": 0}).chunk(doc)
    first = _first_nodes(tree)
    # an access label leads into the member after it; the preprocessor's lines at column 0 do
    # not cut the method they sit in
    assert first[("basic_json", "operator[]")].lstrip().startswith("public:\n    /// @brief access specified array")
    assert "return m_value.array->operator[](idx);\n    }" in "".join(
        n.text for n in tree.nodes if n.section_path[-1:] == ("operator[]",))
    # a template's head leads into what it declares; a statement is no definition
    assert first[("basic_json", "at")].lstrip().startswith("/// @brief access specified object")
    assert not any(n.section_path[-1:] == ("guard",) for n in tree.nodes)
    assert ("basic_json", "value_t") in first


@pytest.mark.parametrize(("line", "name"), [
    ("SQLITE_API int sqlite3_close(sqlite3*);", "sqlite3_close"),
    ("GIT_EXTERN(int) git_repository_open(git_repository **out, const char *path);", "git_repository_open"),
    ("ZEXTERN int ZEXPORT deflate OF((z_streamp strm, int flush));", "deflate"),
    ("CURL_EXTERN CURLcode curl_easy_perform(CURL *curl);", "curl_easy_perform"),
    ("typedef void (*free_fn)(void *);", "free_fn"),
    ("bool operator==(const json& a, const json& b) noexcept;", "operator=="),
    ("static inline uint32_t hash_u32(uint32_t x);", "hash_u32"),
])
def test_a_declaration_is_named_by_its_function(line, name):
    src = f"/* what it does */\n{line}\n\nint other(void);\n"
    doc = Document.from_text(src, id="m.h", source="m.h", format="code")
    tree = make_chunker("code", {"max_size": 12, "min_size": 0, "unit": "chars"}).chunk(doc)
    assert any(n.section_path == (name,) and n.text.startswith("/* what it does */") for n in tree.nodes)


def test_declarations_are_definitions_only_where_functions_are_declared():
    src = "int f(int x);\n\nINSERT INTO users (id, name) VALUES (1, 'a');\n"
    for source, kinds in (("m.c", {"function"}), ("m.sql", set())):
        doc = Document.from_text(src, id=source, source=source, format="code")
        tree = make_chunker("code", {"max_size": 8, "min_size": 0, "unit": "chars"}).chunk(doc)
        assert {n.kind for n in tree.nodes[1:]} & {"function"} == kinds


def test_a_macro_over_lines_is_one_definition_and_the_next_starts_its_own():
    src = ("/*!\n@brief macro\n@def NLOHMANN_DEFINE_TYPE_INTRUSIVE\n*/\n"
           "#define NLOHMANN_DEFINE_TYPE_INTRUSIVE(Type, ...)  \\\n"
           "    friend void to_json(nlohmann::json& j, const Type& t) { NLOHMANN_JSON_TO(__VA_ARGS__) } \\\n"
           "    friend void from_json(const nlohmann::json& j, Type& t) { NLOHMANN_JSON_FROM(__VA_ARGS__) }\n\n"
           "#define NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Type, ...)  \\\n"
           "    inline void to_json(nlohmann::json& j, const Type& t) { NLOHMANN_JSON_TO(__VA_ARGS__) }\n")
    doc = Document.from_text(src, id="macro_scope.hpp", source="macro_scope.hpp", format="code")
    tree = make_chunker("code", {"max_size": 30, "min_size": 0}).chunk(doc)
    named = {n.section_path for n in tree.nodes if n.kind in ("function", "method", "class")}
    assert named == {("NLOHMANN_DEFINE_TYPE_INTRUSIVE",), ("NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE",)}
    first = _first_nodes(tree)
    assert first[("NLOHMANN_DEFINE_TYPE_INTRUSIVE",)].startswith("/*!\n@brief macro")


def test_a_block_comment_opened_after_code_runs_to_its_end_but_not_one_in_a_line_comment():
    src = ("#ifndef CURL_NO_OLDIES /* define this to test if your app builds with all\n"
           "                          the obsolete stuff removed! */\n\n"
           "int first(void);\n\n"
           "// sources: src/*.c\n"
           "int second(void);\n\n"
           "/* a comment */\nint third(void);\n")
    doc = Document.from_text(src, id="c.h", source="c.h", format="code")
    tree = make_chunker("code", {"max_size": 8, "min_size": 0, "unit": "chars"}).chunk(doc)
    assert {n.section_path for n in tree.nodes if n.kind == "function"} == {("first",), ("second",), ("third",)}

"""Test code: found by the names test runners collect when indexed, and ranked below the code
and docs it exercises for a question that does not ask about tests."""

from __future__ import annotations

import json

import pytest
from cli_support import index_folder, top_context
from click.testing import CliRunner

from zoomrag.cli import main
from zoomrag.parse.testfiles import is_test_file
from zoomrag.search.secondary import asks_about_tests


@pytest.mark.parametrize(("doc_id", "test"), [
    ("pflag/count_test.go", True), ("tests/test_cli.py", True), ("pkg/x_test.py", True),
    ("src/conftest.py", True), ("web/app.spec.ts", True), ("ui/Button.test.jsx", True),
    ("src/test/java/FooTest.java", True), ("serde_json/tests/map.rs", True), ("spec/user_spec.rb", True),
    ("src/__tests__/a.js", True), ("clap/src/builder/tests.rs", True),
    ("click/testing.py", False), ("pflag/count.go", False), ("contest/rules.py", False),
    ("src/attest.py", False), ("latest/notes.go", False), ("tests.md", False),
])
def test_files_a_test_runner_collects_are_tests(doc_id, test):
    assert is_test_file(doc_id) is test


@pytest.mark.parametrize(("query", "asks"), [
    ("How do I count how many times a flag was given?", False),
    ("How do I unit test a command that prompts?", True), ("mock the HTTP client", True),
    ("which pytest fixture gives a runner", True), ("What does the attest flag do?", False),
])
def test_questions_that_ask_about_tests(query, asks):
    assert asks_about_tests(query) is asks


SOURCE = '''package pflag

// Count defines a count flag: each time the flag is given on the command line its value
// goes up by one, so -vvv gives 3.
func (f *FlagSet) Count(name string, usage string) *int {
\treturn f.CountP(name, "", usage)
}
'''
TEST = '''package pflag

func TestCount(t *testing.T) {
\t// a count flag given three times on the command line: -vvv gives 3
\tf := NewFlagSet("test", ContinueOnError)
\tcount := f.Count("verbose", "count flag given on the command line")
\tf.Parse([]string{"-vvv"})
}
'''


def test_a_how_to_question_finds_the_code_and_a_question_about_tests_the_test(tmp_path):
    folder = tmp_path / "pflag"
    folder.mkdir()
    (folder / "count.go").write_text(SOURCE, encoding="utf-8")
    (folder / "count_test.go").write_text(TEST, encoding="utf-8")
    for kind in ("bool", "string", "duration", "float", "ip"):  # other files, so the words are rare
        (folder / f"{kind}.go").write_text(
            f"package pflag\n\n// {kind.title()}Var defines a {kind} option with a default value.\n"
            f"func (f *FlagSet) {kind.title()}Var(p *{kind}, name string) {{\n\tf.VarP(p, name)\n}}\n",
            encoding="utf-8")
    index = index_folder(folder, tmp_path)
    question = "count flag given on the command line three times -vvv"
    assert top_context(index, question)["doc_id"] == "count.go"
    assert top_context(index, question + " in a test")["doc_id"] == "count_test.go"
    assert top_context(index, question, "--where", "test=true")["doc_id"] == "count_test.go"
    again = CliRunner().invoke(main, ["index", str(folder), "--index", index])
    assert "0 added, 0 updated, 7 unchanged" in again.output, again.output  # marked, not re-read
    got = CliRunner().invoke(main, ["stats", "--index", index, "--json"])
    assert got.exit_code == 0 and ["test", 1] in json.loads(got.output)["metadata_keys"], got.output

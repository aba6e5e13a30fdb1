"""Source code reader: one code block tagged with the language of the file's extension."""

from __future__ import annotations

from pathlib import Path

import pytest

from zoomrag.load import load_path, read_text
from zoomrag.load.readers.code import language_name

FIXTURES = Path(__file__).parent / "fixtures"


def test_fixture_is_one_code_block_from_the_first_line():
    doc = load_path(FIXTURES / "example.py")
    assert (doc.format, doc.metadata) == ("code", {"language": "python"})
    assert doc.text == '\ndef greet(name):\n    return f"hello {name}"\n'
    [b] = doc.blocks
    assert (b.type, b.meta, b.start, b.end) == ("code", {"language": "python"}, 1, 44)
    assert doc.text[b.start:b.end] == 'def greet(name):\n    return f"hello {name}"'


def test_indentation_of_the_first_line_is_kept():
    doc = read_text("\n\n    x = 1\n  \n", format="code", source="snippet.go")
    [b] = doc.blocks
    assert doc.text[b.start:b.end] == "    x = 1"
    assert doc.metadata == {"language": "go"}


@pytest.mark.parametrize("name, language", [
    ("a.py", "python"), ("a.js", "javascript"), ("a.ts", "typescript"), ("a.tsx", "typescript"),
    ("a.jsx", "javascript"), ("a.java", "java"), ("a.go", "go"), ("a.rs", "rust"), ("a.c", "c"),
    ("a.h", "c"), ("a.cpp", "cpp"), ("a.hpp", "cpp"), ("a.cs", "csharp"), ("a.rb", "ruby"),
    ("a.php", "php"), ("a.sh", "shell"), ("a.kt", "kotlin"), ("a.swift", "swift"),
    ("a.scala", "scala"), ("a.SQL", "sql"),
])
def test_language_by_extension(tmp_path, name, language):
    p = tmp_path / name
    p.write_text("x\n")
    doc = load_path(p)
    assert (doc.format, doc.metadata["language"]) == ("code", language)
    assert doc.blocks[0].meta["language"] == language


def test_blank_source_has_no_block_and_unknown_source_no_language():
    assert read_text(" \n\t\n", format="code", source="e.py").blocks == ()
    assert read_text("x", format="code").metadata == {"language": ""}


@pytest.mark.parametrize("alias, name", [
    ("py", "python"), ("Python3", "python"), ("js", "javascript"), ("sh", "shell"), ("bash", "shell"),
    ("c++", "cpp"), ("Haskell", "haskell"), ("", ""),
])
def test_language_aliases(alias, name):
    assert language_name(alias) == name

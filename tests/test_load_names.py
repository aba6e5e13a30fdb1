"""A file's name as its document's title: which names say something, and what they say."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zoomrag.load.names import name_title


@pytest.mark.parametrize(("name", "title"), [
    ("GPL-3", "GPL-3"),
    ("LGPL-2.1", "LGPL-2.1"),  # a version, not an extension
    ("Apache-2.0", "Apache-2.0"),
    ("contracts/master-services-agreement.pdf", "master services agreement"),
    ("quarterly_report_Q3 (2).xlsx", "quarterly report Q3"),
    ("Annual Report 2023.pdf", "Annual Report 2023"),
    ("report - Copy.pdf", "report"),
    ("invoices/files.csv", "invoices"),  # "files" says what, the folder which
    ("api.rst.txt", "api"),
    ("state_of_the_union", "state of the union"),
    ("泡泡战士.md", "泡泡战士"),
    ("utf-8.md", "utf-8"),
    # a generic name stands for its folder
    ("docs/install/index.md", "install"),
    ("contracts/scan0001.pdf", "contracts"),
    ("acme/notes/README.md", "acme"),
    # a record: its file's title and its id, not its number
    ("support/tickets.jsonl#SUP-102", "tickets SUP-102"),
    ("tickets.jsonl#17", "tickets"),
    ("data.jsonl#ACME-7", "ACME-7"),
])
def test_a_name_that_says_what_the_document_is_is_its_title(name, title):
    assert name_title(name) == title


@pytest.mark.parametrize("name", [
    "notes.txt", "scan0001.pdf", "IMG_0042.tiff", "Scanned Document", "document (1).docx", "Untitled-3.md",
    "draft - Copy.pdf", "2024-03-01.md", "a3f9c0d1e2b4.txt", "Downloads/x1.pdf", "notes.md.gz", "doc",
    "<text>", "https://example.com/page", "", "docs/index.md",
])
def test_a_name_that_says_nothing_gives_no_title(name):
    assert name_title(name) == ""


def test_without_folders_a_generic_name_stands_for_nothing():
    assert name_title("black/__init__.py", folders=False) == ""
    assert name_title("black/linegen.py", folders=False) == "linegen"


def test_a_long_name_is_cut():
    assert name_title("a_" + "very_" * 30 + "long_name.txt") == ("a " + "very " * 30)[:80].rstrip()


@given(st.text(max_size=120))
def test_a_title_holds_only_the_names_words_and_never_a_separator(name):
    title = name_title(name)
    assert len(title) <= 80 and "/" not in title and "\n" not in title and title == title.strip()
    flat = name.casefold()
    assert all(word.casefold() in flat for word in title.split())


def test_a_hidden_files_dot_is_not_part_of_its_title():
    assert name_title(".pre-commit-hooks.yaml") == "pre commit hooks"

"""Word documents (optional extra): read as the HTML their styles mean, then as any HTML page."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from docx_support import make_docx

from zoomrag.errors import InputError
from zoomrag.load import load_path

pytestmark = pytest.mark.skipif(importlib.util.find_spec("mammoth") is None,
                                reason="the optional 'docx' extra is not installed")

LEASE = [("h1", "Farm lease"), ("p", "This lease is made between the parties."), ("h2", "Rent"),
         ("p", "The tenant pays rent monthly."), ("table", [["Month", "Amount"], ["May", "900"]])]


def test_headings_paragraphs_and_tables_are_read_as_their_styles_mean(tmp_path):
    path = tmp_path / "lease.docx"
    path.write_bytes(make_docx(LEASE, title="Lease of the north farm"))
    doc = load_path(path)
    assert doc.format == "docx" and doc.metadata == {"title": "Lease of the north farm"}
    assert doc.text == ("# Farm lease\n\nThis lease is made between the parties.\n\n## Rent\n\n"
                        "The tenant pays rent monthly.\n\n| Month | Amount |\n| --- | --- |\n| May | 900 |\n")
    assert [(b.type, b.level) for b in doc.blocks] == [("heading", 1), ("text", 0), ("heading", 2), ("text", 0),
                                                      ("table", 0)]
    # without a title of its own, the first heading names it, as for a page
    path.write_bytes(make_docx(LEASE))
    assert load_path(path).metadata == {"title": "Farm lease"}


def test_code_styles_are_code_and_a_table_of_contents_is_left_out(tmp_path):
    path = tmp_path / "howto.docx"
    # a generated table of contents is navigation, left out
    path.write_bytes(make_docx([("toc", "Install 1"), ("toc", "Usage 2"), ("p", "Run it:"), ("code", "make all \\\n    --quiet\nmake install"), ("p", "Done.")]))
    assert load_path(path).text == "Run it:\n\n```\nmake all \\\n    --quiet\nmake install\n```\n\nDone.\n"


def test_a_broken_word_document_is_a_clear_error(tmp_path):
    path = tmp_path / "broken.docx"
    path.write_bytes(make_docx(LEASE)[:300])
    with pytest.raises(InputError, match=rf"^{path}: cannot read this Word document \(.+\); check that it is a "
                                         r"complete \.docx \(an older \.doc must be saved as \.docx first\)$"):
        load_path(path)


def test_missing_extra_names_it(tmp_path, monkeypatch):
    path = tmp_path / "lease.docx"
    path.write_bytes(make_docx(LEASE))
    monkeypatch.setitem(sys.modules, "mammoth", None)  # makes `import mammoth` raise ImportError
    with pytest.raises(InputError, match=rf"^{path}: reading Word documents needs the optional 'docx' extra; "
                                         r"install it with: pip install 'zoomrag\[docx\]'$"):
        load_path(path)


def test_a_word_document_is_indexed_and_answers_with_its_section(tmp_path):
    from zoomrag import Index

    path = tmp_path / "docs" / "lease.docx"
    path.parent.mkdir()
    path.write_bytes(make_docx(LEASE))
    with Index.open(tmp_path / "x.db", embedder="hash") as ix:
        report = ix.add([path.parent])
        assert (report.added, report.skipped, report.empty) == (1, (), ())
        [ctx] = ix.query("when does the tenant pay rent", budget=200, top=1, mode="bm25")
    assert ctx.doc_id == "lease.docx" and ctx.section_path == ("Farm lease", "Rent")
    assert "The tenant pays rent monthly." in ctx.text


def test_a_contract_titled_in_bold_rather_than_by_heading_styles_has_its_clauses_as_sections(tmp_path):
    path = tmp_path / "msa.docx"
    path.write_bytes(make_docx([
        ("b", "MASTER SERVICES AGREEMENT"), ("p", "This Agreement is made between Northwind and Contoso."),
        ("b", "1. Fees and Payment"), ("p", "Customer pays each invoice within thirty days."),
        ("b", "1.1 Taxes"), ("p", "Fees exclude taxes; Customer pays sales and use taxes."),
        ("b", "2. Term and Termination"), ("p", "Either party may end this Agreement for an uncured breach."),
    ]))
    doc = load_path(path)
    assert [(b.level, doc.text[b.start:b.end]) for b in doc.blocks if b.type == "heading"] == [
        (1, "# MASTER SERVICES AGREEMENT"), (1, "# 1. Fees and Payment"), (2, "## 1.1 Taxes"),
        (1, "# 2. Term and Termination")]


def test_titles_word_numbers_keep_their_numbers_and_numbered_steps_stay_a_list(tmp_path):
    path = tmp_path / "msa.docx"
    path.write_bytes(make_docx([
        ("num", (1, 0, "Definitions", True)), ("p", "Services means the hosted services."),
        ("num", (1, 0, "Fees and Payment", True)), ("p", "Customer pays each invoice within thirty days."),
        ("num", (1, 1, "Taxes", True)), ("p", "Fees exclude taxes."),
        ("num", (1, 2, "Sales taxes", True)), ("p", "Customer pays them."),
        ("num", (1, 1, "Late payment", True)), ("p", "To pay late:"),
        ("num", (2, 0, "write to the Provider", False)), ("num", (2, 0, "pay the interest", False)),
        ("num", (1, 0, "Term and Termination", True)), ("p", "Either party may end it for breach."),
    ]))
    doc = load_path(path)
    assert [doc.text[b.start:b.end] for b in doc.blocks if b.type == "heading"] == [
        "# 1. Definitions", "# 2. Fees and Payment", "## 2.1 Taxes", "### (a) Sales taxes", "## 2.2 Late payment",
        "# 3. Term and Termination"]
    assert "To pay late:\n\n1. write to the Provider\n2. pay the interest\n\n# 3." in doc.text


def test_headings_numbered_by_their_style_keep_their_numbers(tmp_path):
    path = tmp_path / "policy.docx"
    path.write_bytes(make_docx([("h1", "Scope"), ("p", "All staff."), ("h2", "Contractors"), ("p", "Them too."),
                                ("h1", "Rules"), ("p", "Be kind.")], numbered_headings=True))
    doc = load_path(path)
    assert [doc.text[b.start:b.end] for b in doc.blocks if b.type == "heading"] == [
        "# 1. Scope", "## 1.1 Contractors", "# 2. Rules"]


def test_numbered_clauses_keep_word_s_labels_where_a_list_would_number_them_otherwise(tmp_path):
    path = tmp_path / "terms.docx"
    path.write_bytes(make_docx([
        ("num", (1, 0, "Payment", True)), ("p", "The Customer shall:"),
        ("num", (1, 1, "pay each invoice in thirty days;", False)),
        ("num", (1, 2, "by bank transfer;", False)), ("num", (1, 2, "in euros; and", False)),
        ("num", (1, 1, "pay interest on late sums.", False)),
        ("p", "Steps to dispute an invoice:"), ("num", (2, 0, "write to us", False)), ("num", (2, 0, "wait", False)),
        ("p", "If that fails:"), ("num", (2, 0, "go to court", False)),
    ]))
    text = load_path(path).text
    assert text == ("# 1. Payment\n\nThe Customer shall:\n\n- 1.1 pay each invoice in thirty days;\n"
                    "  - (a) by bank transfer;\n  - (b) in euros; and\n- 1.2 pay interest on late sums.\n\n"
                    "Steps to dispute an invoice:\n\n1. write to us\n2. wait\n\nIf that fails:\n\n- 3. go to court\n")

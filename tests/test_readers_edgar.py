"""EDGAR submissions: a filing's envelope read as the filing, its documents of text as sections."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from zoomrag.load import load_path, read_text


def envelope(*documents: tuple[str, str, str, str]) -> str:
    """A submission of ``(type, filename, description, text)`` documents."""
    docs = "".join(f"<DOCUMENT>\n<TYPE>{t}\n<SEQUENCE>{i}\n<FILENAME>{f}\n<DESCRIPTION>{d}\n<TEXT>\n{body}\n</TEXT>\n</DOCUMENT>\n"
                   for i, (t, f, d, body) in enumerate(documents, 1))
    return ("<SEC-DOCUMENT>0000012345-24-000010.txt : 20240215\n<SEC-HEADER>0000012345-24-000010.hdr.sgml : 20240215\n"
            "ACCESSION NUMBER:\t\t0000012345-24-000010\nCONFORMED SUBMISSION TYPE:\t10-K\n"
            "CONFORMED PERIOD OF REPORT:\t20231231\nFILED AS OF DATE:\t\t20240215\n\nFILER:\n\n\tCOMPANY DATA:\t\n"
            "\t\tCOMPANY CONFORMED NAME:\t\t\tACME WIDGETS, INC.\n\t\tCENTRAL INDEX KEY:\t\t\t0000012345\n"
            f"</SEC-HEADER>\n{docs}</SEC-DOCUMENT>\n")


_FORM = ("<XBRL>\n<?xml version='1.0'?><html><body><div style='display:none'><ix:header>c-1 2023</ix:header></div>"
         "<p><b>PART I</b></p><p><b>Item 1. Business</b></p><p>Acme makes widgets for aircraft and for cars.</p>"
         "</body></html>\n</XBRL>")
_LOGO = "begin 644 logo.jpg\n" + "M_]C_X``02D9)1@`!`@``9`!D``#_[``11'5C:WD``0`$````/```_^X`#D%D\n" * 20 + "`\nend"


def test_a_submission_is_its_filing_titled_by_filer_and_form_with_each_document_a_section(tmp_path):
    path = tmp_path / "full-submission.txt"
    path.write_text(envelope(
        ("10-K", "acme-20231231.htm", "10-K", _FORM),
        ("EX-21.1", "ex21.htm", "SUBSIDIARIES OF THE REGISTRANT", "<html><body><p>Acme Europe GmbH (Germany)</p></body></html>"),
        ("GRAPHIC", "logo.jpg", "GRAPHIC", _LOGO),
        ("EX-101.SCH", "acme.xsd", "XBRL TAXONOMY EXTENSION SCHEMA DOCUMENT", "<XBRL>\n<?xml version='1.0'?><xs:schema/>\n</XBRL>"),
        ("EX-31.1", "ex31.txt", "CERTIFICATION", "I, Jane Roe, certify that:\n\n1. I have reviewed this report."),
    ))
    doc = load_path(path)
    assert doc.format == "edgar"
    assert doc.text == (
        "# ACME WIDGETS, INC. — 10-K, period 2023-12-31\n\n## 10-K\n\n### PART I\n\n#### Item 1. Business\n\n"
        "Acme makes widgets for aircraft and for cars.\n\n## EX-21.1 — SUBSIDIARIES OF THE REGISTRANT\n\n"
        "Acme Europe GmbH (Germany)\n\n## EX-31.1 — CERTIFICATION\n\nI, Jane Roe, certify that:\n\n"
        "1. I have reviewed this report.\n"
    )
    assert [(b.type, b.level) for b in doc.blocks] == [
        ("heading", 1), ("heading", 2), ("heading", 3), ("heading", 4), ("text", 0),
        ("heading", 2), ("text", 0), ("heading", 2), ("text", 0), ("text", 0)]
    assert dict(doc.metadata) == {
        "title": "ACME WIDGETS, INC. — 10-K, period 2023-12-31", "company": "ACME WIDGETS, INC.",
        "cik": "0000012345", "form": "10-K", "period": "2023-12-31", "filed": "2024-02-15",
        "accession": "0000012345-24-000010", "not_text": ["logo.jpg (GRAPHIC)", "acme.xsd (EX-101.SCH)"]}


def test_a_filing_in_plain_text_has_its_parts_and_items_as_titles():
    body = ("ACME WIDGETS, INC.\n\nPART I\n\nITEM 1.  BUSINESS\n\nAcme makes widgets for aircraft. Item 3 below\n"
            "says more.\n\nITEM 2.  PROPERTIES\n\nA plant in Ohio.\n\nPART II\n\nITEM 7.  MANAGEMENT'S DISCUSSION\n\n"
            "Sales grew.")
    doc = read_text(envelope(("10-K", "a.txt", "ANNUAL REPORT", body)), format="text")
    assert [(b.level, doc.text[b.start:b.end]) for b in doc.blocks if b.type == "heading"] == [
        (1, "# ACME WIDGETS, INC. — 10-K, period 2023-12-31"), (2, "## 10-K — ANNUAL REPORT"), (3, "### PART I"),
        (4, "#### ITEM 1. BUSINESS"), (4, "#### ITEM 2. PROPERTIES"), (3, "### PART II"),
        (4, "#### ITEM 7. MANAGEMENT'S DISCUSSION")]
    assert "Acme makes widgets for aircraft. Item 3 below\nsays more." in doc.text  # not a title


def test_a_text_file_that_only_mentions_the_envelope_is_plain_text():
    text = "Notes on EDGAR.\n\nA submission starts with <SEC-DOCUMENT> on its first line.\n"
    doc = read_text(text, format="text")
    assert doc.format == "text" and doc.text == text


def test_a_submission_is_found_and_answered_from_by_its_item(tmp_path):
    from zoomrag import Index

    (tmp_path / "filings").mkdir()
    risks = "".join(f"<p>Risk {i}: supply of titanium, demand in the air market, and rates may change.</p>" for i in range(30))
    form = _FORM.replace("</body>", f"<p><b>Item 1A. Risk Factors</b></p>{risks}</body>")
    (tmp_path / "filings" / "full-submission.txt").write_text(envelope(("10-K", "a.htm", "10-K", form)))
    quarter = form.replace("widgets for aircraft", "widgets for aircraft and cars, aircraft and cars")
    (tmp_path / "filings" / "q3.txt").write_text(envelope(("10-Q", "q.htm", "10-Q", quarter)).replace("10-K", "10-Q"))
    question = "what does Acme make for aircraft and cars"
    with Index.open(tmp_path / "x.db", embedder="hash") as ix:
        assert ix.add([tmp_path / "filings"]).added == 2
        assert ix.query(question, budget=60, top=1, mode="bm25")[0].doc_id == "q3.txt"
        [ctx] = ix.query(question, budget=60, top=1, mode="bm25",
                         where={"form": "10-K", "period": {"$gte": "2023-01-01"}})
    assert ctx.section_path == ("ACME WIDGETS, INC. — 10-K, period 2023-12-31", "10-K", "PART I", "Item 1. Business")
    assert "widgets for aircraft" in ctx.text


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["10-K", "EX-99", "GRAPHIC", "EX-101.INS"]),
                          st.lists(st.sampled_from(list("ab <>/p\n#|$)") + ["<p>", "<b>", "</b>", "<TEXT>", "begin 644 x",
                                                    "\n\nPART I\n\n", "\n\nITEM 1. X\n\n", "Item 2."]),
                                   max_size=40).map("".join)), max_size=4))
def test_any_submission_gives_ordered_blocks_within_its_text(documents):
    doc = read_text(envelope(*[(t, f"d{i}", t, body) for i, (t, body) in enumerate(documents)]), format="text")
    assert doc.format == "edgar"
    prev = 0
    for b in doc.blocks:
        piece = doc.text[b.start:b.end]
        assert prev <= b.start < b.end <= len(doc.text) and piece == piece.strip()
        assert b.type != "heading" or piece.startswith("#" * b.level + " ")
        prev = b.end

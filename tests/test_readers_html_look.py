"""HTML whose markup does not say what its look does: titles drawn in bold (filings, Word
documents), running heads and page numbers at page breaks, hidden facts, figures split over cells."""

from __future__ import annotations

from zoomrag.load import read_text

_BOLD = "font-weight:700"


def headings(html: str) -> list[tuple[int, str]]:
    doc = read_text(html, format="html")
    return [(b.level, doc.text[b.start:b.end].lstrip("# ")) for b in doc.blocks if b.type == "heading"]


def page(body: str) -> str:
    return f"<html><body>{body}</body></html>"


def div(text: str, style: str = "") -> str:
    return f"<div><span style='{style}'>{text}</span></div>"


_FILING = page(
    "<div style='display:none'><ix:header><ix:hidden>false 2023 0000012345</ix:hidden></ix:header></div>"
    + div("FORM 10-K", _BOLD) + div("ACME WIDGETS, INC.", _BOLD)
    + div("(Exact name of registrant as specified in its charter)")
    + "<hr style='page-break-after:always'>"
    + div("TABLE OF CONTENTS", _BOLD)
    + "<table><tr><td><a href='#i1'>Item 1.</a></td><td>Business</td><td>3</td></tr>"
      "<tr><td><a href='#i1a'>Item 1A.</a></td><td>Risk Factors</td><td>7</td></tr></table>"
    + "<hr style='page-break-after:always'>"
    + div("PART I", _BOLD) + div("Item 1. Business", _BOLD) + div("Overview", _BOLD + ";font-style:italic")
    + div("Acme designs and makes industrial widgets. Our fiscal year ends on December 31.")
    + div("Employees", _BOLD + ";font-style:italic")
    + div("We had about <ix:nonFraction name='dei:EntityNumberOfEmployees'>4,200</ix:nonFraction> employees.")
    + "<div style='text-align:center'>3</div><div><a href='#toc'>Table of Contents</a></div>"
    + "<hr style='page-break-after:always'>"
    + div("Item 1A. Risk Factors", _BOLD)
    + div("Our business is subject to many risks.")
    + div("We depend on two suppliers for titanium.", _BOLD + ";font-style:italic")
    + div("If either cannot deliver, our revenue could decline.")
    + "<div style='text-align:center'>7</div>"
    + "<hr style='page-break-after:always'>"
    + div("PART II", _BOLD) + div("Item 7. Results of Operations", _BOLD)
    + div("Liquidity", _BOLD)
    + div("Net sales grew 12% in 2023.")
)


def test_a_filing_without_heading_elements_is_outlined_by_its_bold_titles_and_numbering():
    assert headings(_FILING) == [
        (1, "FORM 10-K"), (1, "ACME WIDGETS, INC."),  # the contents page is left out
        (1, "PART I"), (2, "Item 1. Business"), (3, "Overview"), (3, "Employees"),
        (2, "Item 1A. Risk Factors"), (3, "We depend on two suppliers for titanium."),
        (1, "PART II"), (2, "Item 7. Results of Operations"), (3, "Liquidity"),
    ]


def test_hidden_facts_page_numbers_and_contents_are_not_text():
    text = read_text(_FILING, format="html").text
    assert "0000012345" not in text and "false" not in text  # inline XBRL's hidden header
    assert "\n\n3\n\n" not in text and "\n\n7\n\n" not in text
    assert "Table of Contents" not in text and "TABLE OF CONTENTS" not in text
    assert "about 4,200 employees" in text  # a tagged fact in the text stays


def test_a_line_repeated_at_page_breaks_is_a_running_foot_but_a_line_said_once_is_kept():
    foot = "<div>Acme Widgets, Inc. | 2023 Form 10-K | {n}</div><hr style='page-break-after:always'>"
    words = ["Sales grew.", "Costs fell.", "Margins rose.", "Cash held.", "Debt was repaid."]
    body = "".join(f"<p>{w}</p>" + foot.format(n=n) for n, w in enumerate(words[:4]))
    last = "<p>Acme Widgets, Inc. | 2023 Form 10-K | 9</p><p>The end.</p>"
    text = read_text(page(body + "<p>Debt was repaid.</p>" + last), format="html").text
    assert text.count("2023 Form 10-K") == 1  # the last one is at no page break
    assert all(w in text for w in words)
    twice = "".join(f"<p>Text {n}.</p><div>Short note</div><hr style='page-break-after:always'>" for n in range(2))
    assert read_text(page(twice), format="html").text.count("Short note") == 2


def test_a_page_with_heading_elements_keeps_its_bold_paragraphs_as_text():
    html = page("<h1>Guide</h1><p><b>Important</b></p><p>Read this first.</p>")
    assert headings(html) == [(1, "Guide")]


def test_bold_that_is_not_a_title_stays_text():
    html = page(
        "<p><b>Overview</b></p><p>Plain text of the page, long enough to be the body.</p>"
        "<p><b>The following are required:</b></p><ul><li><b>a bold item</b></li></ul>"  # a lead-in, an item
        "<p><b>Run-in.</b> A title that leads its paragraph stays in it.</p>"
        "<p><a href='#top'><b>Back to top</b></a></p>"  # a link
        "<p><b>One sentence. Two sentences. Three sentences in bold are a paragraph.</b></p>"
        "<table><tr><th>Name</th><th>Role</th></tr><tr><td><b>Ann</b></td><td>lead</td></tr></table>"
    )
    assert headings(html) == [(1, "Overview")]


def test_a_page_mostly_in_bold_has_no_titles_by_look():
    html = page("".join(f"<p><b>Line {n} in bold</b></p>" for n in range(6)) + "<p>One plain line.</p>")
    assert headings(html) == []


def test_titles_by_size_and_a_title_set_as_a_one_row_table():
    html = page(
        "<p style='font-size:10pt'>Body text in ten point, the size most of the page is set in.</p>" * 3
        + "<p style='font-size:16pt'>Annual Report</p>"
        "<p style='font-size:10pt'>More body text in ten point under the report's title.</p>"
        "<table><tr><td><p><b>Item 2.</b></p></td><td><p><b>Properties</b></p></td></tr></table>"
        + "<p style='font-size:10pt'>We lease our headquarters in Ohio.</p>" * 2
        + "<p style='font-size:10pt'><b>Leases</b></p><p style='font-size:10pt'>Ten leases in all.</p>"
        "<p style='font-size:14pt'><b>Notes</b></p><p style='font-size:10pt'>Notes to the statements.</p>"
    )
    # unnumbered titles sit under the numbered one they follow; a larger one closes a smaller one
    assert headings(html) == [(1, "Annual Report"), (1, "Item 2. Properties"), (2, "Leases"), (2, "Notes")]


def test_a_financial_table_joins_signs_to_figures_drops_spacer_columns_and_reads_one_header():
    html = page(
        "<table><tr><td></td><td colspan='5'><b>Year Ended December 31,</b></td></tr>"
        "<tr><td>(in millions)</td><td colspan='2'><b>2023</b></td><td></td><td colspan='2'><b>2022</b></td></tr>"
        "<tr><td></td><td></td><td></td><td></td><td></td><td></td></tr>"
        "<tr><td>Net sales</td><td>$</td><td>1,234</td><td></td><td>$</td><td>1,102</td></tr>"
        "<tr><td>Restructuring</td><td></td><td>(42</td><td>)</td><td></td><td>(18</td><td>)</td></tr>"
        "<tr><td>Margin</td><td></td><td>33.2</td><td>%</td><td></td><td>32.2</td><td>%</td></tr></table>"
    )
    assert read_text(html, format="html").text == (
        "| (in millions) | Year Ended December 31, 2023 | Year Ended December 31, 2022 |\n"
        "| --- | --- | --- |\n"
        "| Net sales | $1,234 | $1,102 |\n"
        "| Restructuring | (42) | (18) |\n"
        "| Margin | 33.2% | 32.2% |\n"
    )


def test_a_table_of_words_keeps_its_cells_and_a_header_spanning_columns():
    html = page(
        "<table><tr><th colspan='2'>Name</th><th>Note</th></tr>"
        "<tr><td>Ann</td><td>Lee</td><td>%</td></tr><tr><td>A literal '%' sign.</td><td>$</td><td>)</td></tr></table>"
    )
    assert read_text(html, format="html").text == (
        "| Name |  | Note |\n| --- | --- | --- |\n| Ann | Lee | % |\n| A literal '%' sign. | $ | ) |\n"
    )


def test_titles_at_the_tops_of_pages_are_kept_though_alike_but_for_their_numbers():
    pages = [f"<p><b>Note {n}</b></p><p>What note {n} says about the accounts, at some length.</p>"
             "<hr style='page-break-after:always'>" for n in (1, 2, 3, 1, 2, 3)]
    html = page("".join(pages))
    assert [t for _, t in headings(html)] == ["Note 1", "Note 2", "Note 3", "Note 1", "Note 2", "Note 3"]


def test_a_table_with_an_empty_corner_keeps_its_first_row_as_its_header():
    html = page("<table><tr><td></td><td>A</td><td>B</td></tr><tr><td>x</td><td>1</td><td>2</td></tr></table>")
    assert read_text(html, format="html").text == "|  | A | B |\n| --- | --- | --- |\n| x | 1 | 2 |\n"


def test_a_table_of_contents_with_page_numbers_goes_with_its_title_but_a_table_of_links_stays():
    contents = ("<p><b>TABLE OF CONTENTS</b></p><table>"
                "<tr><td><a href='#i1'>Item 1.</a></td><td><a href='#i1'>Business</a></td><td>3</td></tr>"
                "<tr><td><a href='#i1a'>Item 1A.</a></td><td><a href='#i1a'>Risk Factors</a></td><td>7</td></tr>"
                "</table><p><a href='#i7'>Item 7. Results of Operations</a> 21</p>")
    summary = ("<table><tr><td><a href='#dumps'>dumps</a></td><td>Serialize obj to a JSON string.</td></tr>"
               "<tr><td><a href='#loads'>loads</a></td><td>Deserialize a JSON document.</td></tr></table>")
    limits = ("<table><tr><td><a href='#max'>MAX_PREC</a></td><td>425000000</td></tr>"  # figures, not pages
              "<tr><td><a href='#min'>MIN_EMIN</a></td><td>-425000000</td></tr></table>")
    statements = ("<p><b>INDEX TO CONSOLIDATED FINANCIAL STATEMENTS</b></p><table>"
                  "<tr><td><a href='#bs'>Balance Sheets</a></td><td>F-2</td></tr>"
                  "<tr><td><a href='#ops'>Statements of Operations</a></td><td>F-3</td></tr></table>")
    text = read_text(page(contents + "<p><b>Item 1. Business</b></p><p>Acme makes widgets.</p>" + summary
                          + statements + limits), format="html").text
    assert text == ("# Item 1. Business\n\nAcme makes widgets.\n\n| dumps | Serialize obj to a JSON string. |\n"
                    "| --- | --- |\n| loads | Deserialize a JSON document. |\n\n"
                    "| MAX_PREC | 425000000 |\n| --- | --- |\n| MIN_EMIN | -425000000 |\n")


def test_an_older_filings_bold_set_by_font_shorthand_and_font_tags():
    html = ("<p style='font: bold 10pt Times New Roman'>ITEM 1.&nbsp;&nbsp;BUSINESS</p>"
            "<p style='font: 10pt Times New Roman'>We make widgets for many customers around the world.</p>"
            "<P><FONT SIZE=2><B>ITEM 2.&nbsp;&nbsp;PROPERTIES</B></FONT></P>"
            "<P><FONT SIZE=2>We lease a plant in Ohio and an office in Texas, both on long terms.</FONT></P>")
    assert headings(page(html)) == [(1, "ITEM 1. BUSINESS"), (1, "ITEM 2. PROPERTIES")]


def test_an_inline_xbrl_filing_is_titled_and_filtered_by_its_cover_facts():
    html = ("<html><head><title>acme-20231231</title></head><body>"
            "<div style='display:none'><ix:header><ix:hidden>"
            "<ix:nonNumeric name='dei:DocumentFiscalYearFocus' contextRef='c-1'>2023</ix:nonNumeric>"
            "<ix:nonNumeric name='dei:EntityCentralIndexKey' contextRef='c-1'>0000012345</ix:nonNumeric>"
            "</ix:hidden></ix:header></div>"
            "<p>FORM <ix:nonNumeric name='dei:DocumentType' contextRef='c-1'>10-K</ix:nonNumeric></p>"
            "<p>For the fiscal year ended <ix:nonNumeric name='dei:DocumentPeriodEndDate' contextRef='c-1'"
            " format='ixt:date-monthname-day-year-en'>December&#160;31, 2023</ix:nonNumeric></p>"
            "<p><ix:nonNumeric name='dei:EntityRegistrantName' contextRef='c-1'><span>Acme Widgets, Inc.</span>"
            "</ix:nonNumeric></p></body></html>")
    doc = read_text(html, format="html")
    assert dict(doc.metadata) == {
        "title": "Acme Widgets, Inc. — 10-K, period 2023-12-31", "fiscal_year": "2023", "cik": "0000012345",
        "form": "10-K", "period": "2023-12-31", "company": "Acme Widgets, Inc."}
    assert "For the fiscal year ended December 31, 2023" in doc.text  # the tagged facts stay text
    # a page with no filer keeps its own title
    assert read_text(html.replace("dei:EntityRegistrantName", "x"), format="html").metadata["title"] == "acme-20231231"


def test_titles_bold_by_a_style_sheet_class_as_google_docs_exports_them():
    html = ("<html><head><style type='text/css'>/* export */.c1{padding-top:0pt;text-align:left}"
            ".c2{color:#000000;font-weight:700;text-decoration:none;font-size:11pt}"
            ".c0{color:#000000;font-weight:400;text-decoration:none;font-size:11pt}"
            "@media print{.c9{font-weight:700}}</style></head><body>"
            "<p class='c1'><span class='c2'>Onboarding checklist</span></p>"
            "<p class='c1'><span class='c0'>Welcome to the team. Your laptop arrives on the first day.</span></p>"
            "<p class='c1'><span class='c2'>Accounts</span></p>"
            "<p class='c1'><span class='c0'>Ask your manager for access to the wiki and the tracker.</span></p>"
            "</body></html>")
    assert headings(html) == [(1, "Onboarding checklist"), (1, "Accounts")]


def test_page_numbers_in_their_forms_go_and_a_word_of_roman_letters_stays():
    numbers = ["7", "- 8 -", "Page 9 of 40", "F-10", "xiv"]
    body = "".join(f"<p>Text of page {n}, long enough to be read.</p><div>{n}</div>"
                   "<hr style='page-break-after:always'>" for n in numbers)
    text = read_text(page(body + "<p>Civil</p><hr style='page-break-after:always'><p>The end.</p>"),
                     format="html").text
    assert all(f"\n\n{n}\n\n" not in text for n in numbers) and "\n\nCivil\n\n" in text


def test_page_breaks_written_in_capitals_are_page_breaks():
    body = "".join(f"<P>Text of page {n}, long enough to be read.</P><P ALIGN=CENTER>{n}</P>"
                   "<HR STYLE='PAGE-BREAK-AFTER: ALWAYS'>" for n in (1, 2))
    text = read_text(page(body + "<P>The end.</P>"), format="html").text
    assert text == "Text of page 1, long enough to be read.\n\nText of page 2, long enough to be read.\n\nThe end.\n"

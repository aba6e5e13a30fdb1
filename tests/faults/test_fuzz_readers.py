"""Every reader fed arbitrary bytes: a Document or one of zoomrag's own errors, nothing else."""

from __future__ import annotations

import importlib.util

import pytest
from docx_support import make_docx
from epub_support import make_epub, page
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from odf_support import make_odf

from zoomrag.errors import ZoomragError
from zoomrag.load import load_path

EXTENSIONS = [".txt", ".md", ".csv", ".tsv", ".html", ".py", ".js", ".json", ".jsonl", ".rst", ".adoc", ".tex", ".org", ".ipynb", ".epub", ".odt", ".ods", ".odp", ".rtf"]
if importlib.util.find_spec("pypdfium2") is not None:
    EXTENSIONS.append(".pdf")
if importlib.util.find_spec("mammoth") is not None:
    EXTENSIONS.append(".docx")
if importlib.util.find_spec("pptx") is not None:
    EXTENSIONS.append(".pptx")
if importlib.util.find_spec("openpyxl") is not None:
    EXTENSIONS.append(".xlsx")

_DOCX = make_docx([("h1", "Title"), ("p", "Some text."), ("table", [["a", "b"], ["1", "2"]])])
_EPUB = make_epub([("one.xhtml", page("One", "<h1>One</h1><p>Text.</p>"))])
_ODT = make_odf("text", '<text:h text:outline-level="1">One</text:h><text:list><text:list-item><text:p>a'
                        "<text:s/>b</text:p></text:list-item></text:list><table:table><table:table-row>"
                        '<table:table-cell table:number-columns-repeated="3"><text:p>x</text:p></table:table-cell>'
                        "</table:table-row></table:table>")
_PDF = b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
_HTML = b"<html><head><title>t</title></head><body><table><tr><td>a</td></tr></table></body></html>"
_PPTX = b""
if ".pptx" in EXTENSIONS:
    from pptx_support import make_pptx

    _PPTX = make_pptx([{"title": "T", "bullets": [(0, "a"), (1, "b")], "table": [["x", "y"], ["1", "2"]]}])
_XLSX = b""
if ".xlsx" in EXTENSIONS:
    from xlsx_support import make_xlsx

    _XLSX = make_xlsx({"S": [["a", "b"], [1, 2.5]]})
data = st.one_of(
    st.binary(max_size=2000),
    st.text(max_size=500).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.tuples(st.sampled_from([_PDF, _HTML, b"a,b\n1,2\n", b"# T\n\n| a |\n|---|\n", b"{\\rtf1\\ansi{\\*\\footnote "]),
              st.binary(max_size=300))
      .map(lambda p: p[0] + p[1]),
    # a Word document cut short or with bytes of it changed
    st.tuples(st.integers(0, len(_DOCX)), st.binary(max_size=20)).map(lambda p: _DOCX[:p[0]] + p[1] + _DOCX[p[0] + len(p[1]):]),
    # a deck likewise (empty without the extra)
    st.tuples(st.integers(0, len(_PPTX)), st.binary(max_size=20)).map(lambda p: _PPTX[:p[0]] + p[1] + _PPTX[p[0] + len(p[1]):]),
    st.tuples(st.integers(0, len(_XLSX)), st.binary(max_size=20)).map(lambda p: _XLSX[:p[0]] + p[1] + _XLSX[p[0] + len(p[1]):]),
    # an e-book likewise
    st.tuples(st.integers(0, len(_EPUB)), st.binary(max_size=20)).map(lambda p: _EPUB[:p[0]] + p[1] + _EPUB[p[0] + len(p[1]):]),
    # an OpenDocument text likewise (read as a sheet or a deck too, by extension)
    st.tuples(st.integers(0, len(_ODT)), st.binary(max_size=20)).map(lambda p: _ODT[:p[0]] + p[1] + _ODT[p[0] + len(p[1]):]),
)


@pytest.mark.parametrize("ext", EXTENSIONS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=data)
def test_a_reader_given_any_bytes_returns_a_document_or_a_zoomrag_error(tmp_path, ext, raw):
    path = tmp_path / f"f{ext}"
    path.write_bytes(raw)
    try:
        doc = load_path(path)
    except ZoomragError as e:
        assert "\n" not in str(e).strip()
        return
    for b in doc.blocks:
        assert 0 <= b.start <= b.end <= len(doc.text)

"""Formats that are zips of XML: a zip bomb is refused before any library unpacks it."""

from __future__ import annotations

import importlib.util
import io
import re
import zipfile

import pytest
from docx_support import make_docx
from epub_support import make_epub, page
from odf_support import make_odf

from zoomrag.errors import InputError
from zoomrag.load import load_path
from zoomrag.load.readers.zipped import FLOOR


def _installed(module: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(importlib.util.find_spec(module) is None, reason=f"{module} is not installed")


def _bloated(data: bytes, member: str) -> bytes:
    """``data``, a zip, with ``member`` followed by more than FLOOR bytes of spaces (which any XML
    parser would read as whitespace after the root, so only its size tells it from a real part)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as z, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as w:
        for info in z.infolist():
            body = z.read(info)
            w.writestr(info.filename, body + b" " * (FLOOR + 1) if info.filename == member else body,
                       compresslevel=9)
    return out.getvalue()


def _deck() -> bytes:
    from pptx_support import make_pptx

    return make_pptx([{"title": "Revenue"}], title=None)


def _book() -> bytes:
    from xlsx_support import make_xlsx

    return make_xlsx({"Sheet": [["Region"], ["Europe"]]}, title=None)


@pytest.mark.parametrize(("name", "make", "member", "what"), [
    pytest.param("a.docx", lambda: make_docx([("p", "Tides")]), "word/document.xml", "Word document",
                 marks=_installed("mammoth")),
    pytest.param("a.pptx", _deck, "[Content_Types].xml", "PowerPoint deck", marks=_installed("pptx")),
    pytest.param("a.xlsx", _book, "[Content_Types].xml", "Excel workbook", marks=_installed("openpyxl")),
    ("a.odt", lambda: make_odf("text", "<text:p>Tides</text:p>"), "content.xml", "text document"),
    ("a.epub", lambda: make_epub([("one.xhtml", page("Tides", "<p>The sea.</p>"))]), "OEBPS/text/one.xhtml",
     "e-book"),
])
def test_a_zip_bomb_is_refused_and_a_real_file_is_read(tmp_path, name, make, member, what):
    path = tmp_path / name
    path.write_bytes(make())
    assert load_path(path).text
    path.write_bytes(_bloated(path.read_bytes(), member))
    size = path.stat().st_size
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}: this {what} unpacks to 64 MB, "
                                         rf"[\d,]+ times its {size:,} bytes; that is a zip bomb, not a {what}, "
                                         r"so it was not read \(if it is real, save it again from the program "
                                         r"that made it\)$"):
        load_path(path)


def test_a_large_part_an_e_book_never_reads_is_no_bomb(tmp_path):
    path = tmp_path / "a.epub"
    path.write_bytes(make_epub([("one.xhtml", page("Tides", "<p>The sea.</p>")),
                                ("two.xhtml", page("Notes", "<p>Later.</p>"))], spine=["one.xhtml"]))
    path.write_bytes(_bloated(path.read_bytes(), "OEBPS/text/two.xhtml"))
    assert load_path(path).text == "The sea."

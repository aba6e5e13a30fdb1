"""PDF through pypdf (the optional ``pdf`` extra, imported only when a PDF is read).

Pages are joined by a line holding a form feed (``\\n\\f\\n``), so a page break is also a
paragraph break; every block carries its page number in ``meta["page"]`` (from 1).
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

from ...errors import InputError
from ...model import Document, normalize_newlines
from .plain import paragraph_blocks

PAGE_BREAK = "\n\f\n"


def _pypdf(source: str):
    try:
        import pypdf
    except ImportError:
        raise InputError(f"{source}: reading PDF files needs the optional 'pdf' extra; "
                         "install it with: pip install 'zoomrag[pdf]'") from None
    return pypdf


def read_pdf(path: Path, doc_id: str) -> Document:
    source = str(path)
    pypdf = _pypdf(source)
    try:
        reader = pypdf.PdfReader(path)
        if reader.is_encrypted and not reader.decrypt(""):
            raise InputError(f"{source}: the PDF is encrypted with a password; decrypt it first")
        pages = [normalize_newlines(page.extract_text() or "").rstrip() for page in reader.pages]
        title = (reader.metadata or {}).get("/Title")
    except InputError:
        raise
    except Exception as e:  # pypdf parses untrusted bytes and raises many kinds of error
        raise InputError(f"{source}: cannot read this PDF ({type(e).__name__}: {e}); "
                         "check that the file is a complete, valid PDF") from e
    text = PAGE_BREAK.join(pages)
    blocks = []
    pos = 0
    for number, page in enumerate(pages, 1):
        blocks.extend(paragraph_blocks(text, pos, pos + len(page), {"page": number}))
        pos += len(page) + len(PAGE_BREAK)
    return Document(id=doc_id, source=source, text=text, format="pdf",
                    metadata=MappingProxyType({"title": str(title) if title else None, "pages": len(pages)}),
                    blocks=tuple(blocks))



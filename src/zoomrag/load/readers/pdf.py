"""PDF through pypdf (the optional ``pdf`` extra, imported only when a PDF is read).

Pages are joined by a line holding a form feed (``\\n\\f\\n``), so a page break is also a
paragraph break; every block carries its page number in ``meta["page"]`` (from 1).
"""

from __future__ import annotations

import re
from pathlib import Path
from types import MappingProxyType

from ...errors import InputError
from ...model import Document, normalize_newlines
from .plain import paragraph_blocks

PAGE_BREAK = "\n\f\n"

#: Titles that name no document: what an application writes when its user set none (a file
#: name, "Microsoft Word - x.docx", "Untitled"). Units embed the title before their text, so a
#: junk one would lead every unit of the PDF.
_JUNK_TITLE = re.compile(
    r"(?:untitled(?:[ _-]?\d+)?|document ?\d*|presentation ?\d*|powerpoint presentation|slide ?\d+"
    r"|microsoft (?:word|powerpoint|excel) - .*|.*\.(?:docx?|pptx?|xlsx?|pdf|tex|dvi|ps|odt|rtf|indd|txt)"
    r"|[a-z]:[\\/].*|/.*)", re.IGNORECASE)


def document_title(raw: object) -> str | None:
    """The PDF's title metadata when it names the document, else None."""
    title = " ".join(str(raw).split()) if raw else ""
    return title if title and _JUNK_TITLE.fullmatch(title) is None else None


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
                    metadata=MappingProxyType({"title": document_title(title), "pages": len(pages)}),
                    blocks=tuple(blocks))



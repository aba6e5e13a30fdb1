"""E-books made by hand for the tests: the parts of an .epub a reader needs."""

from __future__ import annotations

import io
import zipfile

CONTAINER = ('<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
             '<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
             "</rootfiles></container>")


def page(title: str, body: str) -> str:
    return (f'<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>{title}'
            f"</title></head><body>{body}</body></html>")


def make_epub(pages: list[tuple[str, str | bytes]], *, title: str | None = "A Book", spine: list[str] | None = None,
              nonlinear: tuple[str, ...] = (), encrypted: tuple[str, ...] = (),
              container: str = CONTAINER, files: dict[str, str] | None = None) -> bytes:
    """An .epub of ``pages`` (``(name, xhtml)``, stored under ``OEBPS/text/``), read in the order
    of ``spine`` (names; default: as given); a page named ``nav…`` is the navigation document; ``nonlinear`` pages are outside the reading order,
    ``encrypted`` ones listed in ``META-INF/encryption.xml``; ``files`` more files by their path
    under ``OEBPS/`` (a style sheet)."""
    order = spine or [name for name, _ in pages]
    nav = ' properties="nav"'
    items = "".join(f'<item id="{n}" href="text/{n}" media-type="application/xhtml+xml"{nav if n.startswith("nav") else ""}/>'
                    for n, _ in pages)
    off = ' linear="no"'
    refs = "".join(f'<itemref idref="{n}"{off if n in nonlinear else ""}/>' for n in order)
    meta = f"<dc:title>{title}</dc:title>" if title else ""
    opf = ('<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
           f'<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">{meta}</metadata>'
           f"<manifest>{items}</manifest><spine>{refs}</spine></package>")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/container.xml", container)
        if encrypted:
            refs_ = "".join(f'<EncryptedData><CipherData><CipherReference URI="OEBPS/text/{n}"/></CipherData>'
                            "</EncryptedData>" for n in encrypted)
            z.writestr("META-INF/encryption.xml",
                       f'<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container">{refs_}</encryption>')
        z.writestr("OEBPS/content.opf", opf, compress_type=zipfile.ZIP_DEFLATED)
        for name, xhtml in pages:
            z.writestr(f"OEBPS/text/{name}", xhtml, compress_type=zipfile.ZIP_DEFLATED)
        for name, data in (files or {}).items():
            z.writestr(f"OEBPS/{name}", data, compress_type=zipfile.ZIP_DEFLATED)
    return buf.getvalue()

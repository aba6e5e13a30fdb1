"""OpenDocument files made by hand for the tests: the parts of an .odt, .ods or .odp a reader
needs, around a body written in ODF's own XML."""

from __future__ import annotations

import io
import zipfile

NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
      'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
      'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
      'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
      'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
      'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
      'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
      'xmlns:dc="http://purl.org/dc/elements/1.1/" '
      'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" '
      'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" '
      'xmlns:chart="urn:oasis:names:tc:opendocument:xmlns:chart:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" '
      'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"')
MIMETYPES = {"text": "application/vnd.oasis.opendocument.text",
             "spreadsheet": "application/vnd.oasis.opendocument.spreadsheet",
             "presentation": "application/vnd.oasis.opendocument.presentation"}


def make_odf(kind: str, body: str, *, styles: str = "", automatic: str = "", title: str | None = None,
             encrypted: bool = False, objects: dict[str, str] | None = None) -> bytes:
    """A file of ``kind`` (``text``, ``spreadsheet``, ``presentation``) whose ``office:<kind>``
    holds ``body``; ``styles`` go in styles.xml, ``automatic`` in content.xml's automatic styles;
    ``encrypted`` marks content.xml as encrypted in the manifest, as a password does; ``objects``
    are embedded objects (folder → the body of their ``office:chart``)."""
    content = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {NS}>'
               f"<office:automatic-styles>{automatic}</office:automatic-styles>"
               f"<office:body><office:{kind}>{body}</office:{kind}></office:body></office:document-content>")
    style_xml = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-styles {NS}>'
                 f"<office:styles>{styles}</office:styles></office:document-styles>")
    meta = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-meta {NS}><office:meta>'
            + (f"<dc:title>{title}</dc:title>" if title else "") + "</office:meta></office:document-meta>")
    crypt = ("<manifest:encryption-data manifest:checksum-type=\"SHA1/1K\"/>" if encrypted else "")
    manifest = (f'<?xml version="1.0" encoding="UTF-8"?><manifest:manifest {NS}>'
                f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{MIMETYPES[kind]}"/>'
                f'<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">{crypt}'
                "</manifest:file-entry></manifest:manifest>")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mimetype", MIMETYPES[kind], compress_type=zipfile.ZIP_STORED)
        for name, data in (("content.xml", content), ("styles.xml", style_xml), ("meta.xml", meta),
                           ("META-INF/manifest.xml", manifest)):
            z.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
        for folder, chart in (objects or {}).items():
            z.writestr(f"{folder}/content.xml", f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {NS}>'
                       f"<office:body><office:chart>{chart}</office:chart></office:body></office:document-content>")
    return out.getvalue()

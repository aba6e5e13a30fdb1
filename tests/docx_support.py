"""Word documents made by hand for the tests: the few parts of a .docx a reader needs."""

from __future__ import annotations

import io
import zipfile
from xml.sax.saxutils import escape

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def _para(text: str, style: str | None = None, bold: bool = False, numbered: tuple[int, int] | None = None) -> str:
    num = f'<w:numPr><w:ilvl w:val="{numbered[1]}"/><w:numId w:val="{numbered[0]}"/></w:numPr>' if numbered else ""
    props = (f'<w:pStyle w:val="{style}"/>' if style else "") + num
    props = f"<w:pPr>{props}</w:pPr>" if props else ""
    run = "<w:rPr><w:b/></w:rPr>" if bold else ""
    return f"<w:p>{props}<w:r>{run}<w:t xml:space=\"preserve\">{escape(text)}</w:t></w:r></w:p>"


def make_docx(body: list, title: str | None = None, numbered_headings: bool = False) -> bytes:
    """A .docx of ``body``: ``("h1", text)`` … ``("h6", text)`` a heading in Word's style,
    ``("p", text)`` a paragraph, ``("b", text)`` one in bold, ``("num", (list, level, text, bold))``
    one Word numbers (list 1: ``1.``, ``1.1``, ``(a)``; list 2: ``1.``, counted apart), ``("code", lines)`` code in the Source Code style, ``("table", rows)``
    a table of cell texts; ``title`` its core
    properties' title; ``numbered_headings``: the heading styles numbered by list 1."""
    parts = []
    for kind, value in body:
        if kind == "table":
            rows = "".join("<w:tr>" + "".join(f"<w:tc>{_para(c)}</w:tc>" for c in row) + "</w:tr>" for row in value)
            parts.append(f"<w:tbl>{rows}</w:tbl>")
        elif kind == "toc":  # an entry of a table of contents Word generated
            parts.append(_para(value, "TOC1"))
        elif kind == "code":  # a line a paragraph, in the code style pandoc writes
            parts.extend(_para(line, "SourceCode") for line in value.split("\n"))
        elif kind == "b":
            parts.append(_para(value, bold=True))
        elif kind == "num":
            num_id, level, text, bold = value
            parts.append(_para(text, "ListParagraph", bold=bold, numbered=(num_id, level)))
        elif kind.startswith("h"):
            parts.append(_para(value, f"Heading{kind[1:]}"))
        else:
            parts.append(_para(value))
    doc = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {W}><w:body>{"".join(parts)}</w:body></w:document>'
    styles = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles {W}>'
              + "".join(f'<w:style w:type="paragraph" w:styleId="Heading{i}"><w:name w:val="heading {i}"/>'
                        + (f'<w:pPr><w:numPr><w:ilvl w:val="{i - 1}"/><w:numId w:val="1"/></w:numPr></w:pPr>'
                           if numbered_headings else "") + "</w:style>" for i in range(1, 7))
              + '<w:style w:type="paragraph" w:styleId="SourceCode"><w:name w:val="Source Code"/></w:style>'
              + '<w:style w:type="paragraph" w:styleId="TOC1"><w:name w:val="toc 1"/></w:style>'
              + "</w:styles>")
    types = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
             '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
             '<Default Extension="xml" ContentType="application/xml"/>'
             '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
             '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>'
             '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>')
    rels = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{R}/officeDocument" Target="word/document.xml"/>'
            '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>')
    doc_rels = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                f'<Relationship Id="rId1" Type="{R}/styles" Target="styles.xml"/></Relationships>')
    core = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/">'
            + (f"<dc:title>{escape(title)}</dc:title>" if title else "") + "</cp:coreProperties>")
    levels = (("decimal", "%1."), ("decimal", "%1.%2"), ("lowerLetter", "(%3)"))
    numbering = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:numbering {W}>'
                 + "".join(f'<w:abstractNum w:abstractNumId="{a}">' + "".join(
                     f'<w:lvl w:ilvl="{i}"><w:start w:val="1"/><w:numFmt w:val="{f}"/><w:lvlText w:val="{t}"/></w:lvl>'
                     for i, (f, t) in enumerate(levels)) + "</w:abstractNum>" for a in (0, 1))
                 + '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>'
                 '<w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num></w:numbering>')
    types = types.replace("</Types>", '<Override PartName="/word/numbering.xml" ContentType="application/'
                          'vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/></Types>')
    doc_rels = doc_rels.replace("</Relationships>", f'<Relationship Id="rId2" Type="{R}/numbering" '
                                'Target="numbering.xml"/></Relationships>')
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in (("[Content_Types].xml", types), ("_rels/.rels", rels), ("word/document.xml", doc),
                           ("word/_rels/document.xml.rels", doc_rels), ("word/styles.xml", styles),
                           ("docProps/core.xml", core), ("word/numbering.xml", numbering)):
            z.writestr(name, data)
    return out.getvalue()

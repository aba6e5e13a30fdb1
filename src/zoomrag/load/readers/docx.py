"""Word documents (``.docx``) through mammoth (the optional ``docx`` extra, imported only when
one is read), which writes a document as the HTML its styles mean: ``Heading 1`` as ``h1``,
lists, tables, footnotes, and here code styles as code blocks. That HTML is then read as any
page is (:mod:`.html`), so a Word document is a rendering like an HTML page: the same headings,
pipe tables and notes, and spans point into the rendering. Images are left out (their alt text
stays), and so is a generated table of contents; the title is the document's own (its core
properties), when it has one. A title Word numbers (``3.1 Effect of Termination``) keeps its
number, and a numbered clause the label Word draws, ``(b)`` (:mod:`.docx_numbers`).
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ...model import Document
from ..base import reader_module
from .docx_numbers import numbering_labels
from .html import render_html
from .zipped import office_file

#: Paragraph styles of code (pandoc's, Word's, LibreOffice's), read as one code block a run, a
#: line a paragraph, as the HTML reader reads ``pre``; mammoth's default map knows none of them.
_CODE_STYLES = "\n".join(f"p[style-name='{name}'] => pre:separator('\\n')" for name in (
    "Source Code", "HTML Preformatted", "Preformatted Text", "Code", "Plain Text", "Macro Text"))
#: A table of contents Word generated (its entries' styles ``toc 1`` … ``toc 9`` and its title's)
#: is the document's navigation, not its text: left out, as a web page's is.
_CONTENTS_STYLES = "\n".join(f"p[style-name='{name}'] => !" for name in (
    *(f"{toc} {i}" for toc in ("toc", "TOC") for i in range(1, 10)), "TOC Heading"))

#: ``dc:title`` in the document's core properties.
_TITLE = re.compile(r"<dc:title>([^<]*)</dc:title>")


def _title(z: zipfile.ZipFile) -> str | None:
    """The document's title in its core properties, if it has one."""
    if "docProps/core.xml" not in z.namelist():
        return None
    m = _TITLE.search(z.read("docProps/core.xml").decode("utf-8", "replace"))
    title = " ".join(m.group(1).split()) if m else ""
    return title or None


#: Numbered paragraphs looked at for a heading numbered by its style.
_STYLED_REACH = 3


def _word_numbers(mammoth: Any, labels: list[tuple[str, str]]) -> Callable[[Any], Any]:
    """A mammoth transform giving numbered paragraphs the labels Word draws. A numbered title (a
    heading, or a paragraph all in bold) gets its label written before it and is a title, not a
    list of one item numbered 1: ``3.1 Effect of Termination``. Numbered body text stays a list;
    from an item whose label is not the number the list would be read with (``(b)``, or ``4.``
    after a paragraph broke the list), the items of that run carry their labels instead."""
    documents = mammoth.documents
    texts = mammoth.transforms.get_descendants_of_type
    at = 0
    counts: dict[int, int] = {}  # the list run: its items per level, as a reader would number them
    relabel = False

    def title(paragraph: Any) -> bool:
        runs = [r for r in texts(paragraph, documents.Run)
                if "".join(t.value for t in texts(r, documents.Text)).strip()]
        style = (paragraph.style_name or "").lower()
        return style.startswith(("heading", "title")) or bool(runs) and all(r.is_bold for r in runs)

    def found(paragraph: Any, listed: bool) -> str:
        """The paragraph's label, found by its text (mammoth reads one of two alternative
        contents, the XML has both); a heading numbered by its style is not numbered in mammoth's
        model: only the next labels are looked at for it."""
        nonlocal at
        key = "".join("".join(t.value for t in texts(paragraph, documents.Text)).split())
        reach = len(labels) if listed else min(at + _STYLED_REACH, len(labels))
        i = next((i for i in range(at, reach) if labels[i][0] == key), None)
        if i is None:
            return ""
        at = i + 1
        return labels[i][1]

    def led(paragraph: Any, text: str, numbering: Any) -> Any:
        first = next(iter(texts(paragraph, documents.Run)), None)
        lead = documents.run([documents.text(text + " ")], is_bold=first is not None and first.is_bold)
        return paragraph.copy(children=[lead, *paragraph.children], numbering=numbering)

    def label(paragraph: Any) -> Any:
        nonlocal relabel
        numbering = paragraph.numbering
        titled = title(paragraph)
        if numbering is None or titled:
            counts.clear()  # mammoth ends a list at a paragraph outside it
            relabel = False
            text = found(paragraph, numbering is not None) if labels and titled else ""
            ordered = numbering is None or numbering.is_ordered
            return led(paragraph, text, None) if text and ordered else paragraph
        level = int(numbering.level_index) if str(numbering.level_index).isdigit() else 0
        for deeper in [k for k in counts if k > level]:
            del counts[deeper]
        text = found(paragraph, True)
        if not numbering.is_ordered:
            return paragraph
        counts[level] = counts.get(level, 0) + 1
        if not text or not relabel and text == f"{counts[level]}.":
            return paragraph
        relabel = True
        return led(paragraph, text, documents.numbering_level(level, False))

    return mammoth.transforms.paragraph(label)


def read_docx(path: Path, doc_id: str) -> Document:
    source = str(path)
    mammoth = reader_module("mammoth", source, "Word documents", "docx")
    # An image becomes its alt text: its bytes, inlined as a data URI, would be the page's text.
    no_image = mammoth.images.img_element(lambda image: {"alt": image.alt_text or ""})
    with office_file(path, "Word document", "docx") as z, path.open("rb") as f:
        title = _title(z)
        numbered = _word_numbers(mammoth, numbering_labels(z))
        html = mammoth.convert_to_html(f, convert_image=no_image, transform_document=numbered,
                                       style_map=f"{_CODE_STYLES}\n{_CONTENTS_STYLES}").value
    rendered, blocks, html_title = render_html(html)
    return Document(id=doc_id, source=source, text=rendered, format="docx",
                    metadata=MappingProxyType({"title": title or html_title}), blocks=tuple(blocks))

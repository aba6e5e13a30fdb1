"""Footnotes in HTML, as the generators write them, for the HTML reader to render in Markdown's
footnote syntax (a reference ``[^1]``, a note ``[^1]: text``): assembly then returns a note with
the sentence citing it (:mod:`zoomrag.expand.footnotes`), whatever format the page came from.

- references: links marked ``role="doc-noteref"`` (docutils, pandoc), ``data-footnote-ref``
  (GitHub), or of class ``footnote-ref`` (pandoc, Python-Markdown), ``footnote-reference``
  (docutils) or ``footnote`` and ``footnoteref`` (DocBook);
- notes: an ``aside`` or ``div`` marked ``role="doc-footnote"`` or of class ``footnote``
  (docutils, DocBook), and each item of a list inside a notes section (``role="doc-endnotes"``,
  ``data-footnotes``, class ``footnotes`` or ``footnote``: pandoc, GitHub, Python-Markdown);
- back-links from a note to its reference (``↩``) are not content and are dropped, and so is a
  note's own printed label (docutils' ``span.label``, DocBook's ``a.para``), which the rendered
  ``[^1]:`` replaces. A note inside a table's cell (DocBook) starts the cell's text.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from selectolax.lexbor import LexborNode

from .html_nodes import classes

_REF_CLASSES = frozenset({"footnote-ref", "footnote-reference", "footnote", "footnoteref"})
_BACK_CLASSES = frozenset({"footnote-back", "footnote-backref", "data-footnote-backref"})
_NOTES_CLASSES = frozenset({"footnotes", "footnote"})
#: Characters around a printed label: ``[1]``, ``1)``, a no-break space.
_LABEL_TRIM = "[]() \t\n\xa0"


def _label(text: str) -> str | None:
    """A note's label as printed (``[1]``, ``a``, ``*``), or None for text that is no label (a
    link whose words happen to carry a note's class keeps its words)."""
    label = text.strip(_LABEL_TRIM)
    return label if 0 < len(label) <= 12 and not any(c.isspace() or c in "[]" for c in label) else None


def ref_label(node: LexborNode) -> str | None:
    """The label of a footnote reference (an ``a``), or None when ``node`` is no reference."""
    attrs = node.attributes
    if not (attrs.get("role") == "doc-noteref" or "data-footnote-ref" in attrs
            or (not _REF_CLASSES.isdisjoint(classes(node)) and "#" in (attrs.get("href") or ""))):
        return None
    return _label(node.text(deep=True))


def back_link(node: LexborNode) -> bool:
    """A note's link back to its reference, or the note's printed label (both are replaced by
    the rendered ``[^1]:``)."""
    attrs = node.attributes
    if node.tag == "span":
        return "label" in classes(node) and node.parent is not None and note_label(node.parent) is not None
    if node.tag != "a":
        return False
    if attrs.get("role") == "doc-backlink" or "data-footnote-backref" in attrs:
        return True
    names = classes(node)
    if "para" in names:  # DocBook's label link: only inside a note
        p = node.parent
        for _ in range(3):
            if p is None:
                return False
            if note_label(p) is not None:
                return True
            p = p.parent
        return False
    return not _BACK_CLASSES.isdisjoint(names)


def note_label(node: LexborNode) -> str | None:
    """The label of a note element (docutils' ``aside``, DocBook's ``div``), else None."""
    if node.tag not in ("aside", "div"):
        return None
    attrs = node.attributes
    if attrs.get("role") != "doc-footnote" and "footnote" not in classes(node):
        return None
    # only the note's own first elements are looked at: nested markup costs no search below them
    children = [c for c in node.iter() if c.is_element_node]
    if any(c.tag in ("ol", "ul") for c in children):
        return None  # a list of notes (Python-Markdown's div.footnote): each item is one
    # docutils prints the label in a span.label, DocBook in the first paragraph's sup.para
    printed = next((c for c in children if c.tag == "span" and "label" in classes(c)), None)
    if printed is None and children and children[0].tag == "p":
        printed = children[0].css_first("sup.para, a.para")
    label = _label(printed.text(deep=True)) if printed is not None else None
    return label or _label((attrs.get("id") or "").rsplit("-", 1)[-1].rsplit(".", 1)[-1])


def notes_aside(node: LexborNode) -> bool:
    """An ``aside`` that is a note or holds notes (docutils): content, not page furniture."""
    return note_label(node) is not None or "footnote-list" in classes(node)


def notes_list(node: LexborNode) -> bool:
    """A list of notes: an ``ol``/``ul`` in a notes section (it or the element around it)."""
    for p in (node.parent, node.parent.parent if node.parent is not None else None):
        if p is None:
            return False
        attrs = p.attributes
        if attrs.get("role") == "doc-endnotes" or "data-footnotes" in attrs \
                or not _NOTES_CLASSES.isdisjoint(classes(p)):
            return True
    return False


# -- for readers that write HTML (OpenDocument, Rich Text) -----------------------------------

def noteref_html(label: str) -> str:
    """A reference to note ``label``, written as this module finds one."""
    return f'<a role="doc-noteref" href="#note-{escape(label)}">{escape(label)}</a>'


def endnotes_html(notes: Iterable[tuple[str, str]]) -> str:
    """Notes (label, body as HTML) as a list of endnotes, as this module finds them; "" for none."""
    items = "".join(f'<li id="note-{escape(label)}">{body}</li>' for label, body in notes)
    return f'<section role="doc-endnotes"><ol>{items}</ol></section>' if items else ""

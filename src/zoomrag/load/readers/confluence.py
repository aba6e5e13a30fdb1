"""A page of a Confluence space exported as HTML, read as the page its readers see.

Confluence's HTML export (Space tools › Export space › HTML) writes each page as a file of its
own (``Database-Failover-Runbook_98306.html``) in one template: breadcrumbs to the page's
parents, the title as ``Space : Page``, a byline (``Created by …, last modified by … on Mar 12,
2024``), the page's content in ``#main-content``, then sections for its attachments and
comments, and a footer; ``index.html`` is the space's overview: its details, then the tree of
its pages as links. Read as any page, every context opened with the breadcrumbs as a numbered
list, every title carried the space's name, and a question matched the tree of pages.

The content is read from ``#main-content`` under the page's own title, followed by the
comments, an information macro (a coloured panel) led by its kind (``Warning: …``). The rest
becomes metadata: ``space``, ``breadcrumbs`` (the parents, top first), ``author``,
``modified_by``, ``modified`` or ``created`` (an ISO date), ``attachments`` (the files' names),
and the fields of its Page Properties tables (``Owner``, ``Due date`` as ``owner``,
``due_date``: :mod:`.properties`), which stay in its text too. ``--where space=Operations
--where 'modified>=2024-01-01'`` then selects pages as Confluence's own search does. The
overview is read as its details under the space's name, without the tree (every page it links
to is read from its own file).
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

from selectolax.lexbor import LexborHTMLParser, LexborNode

from .properties import iso_date, property_key, property_value

__all__ = ["confluence_page"]

#: Every page of an export has its title in ``#title-text`` and its content in
#: ``#main-content``, and a byline (``.page-metadata``) or, the overview, the tree of the
#: space's pages.
_MARKS = ("title-text", "main-content")
_PAGE_TREE = "available pages"
_WS = re.compile(r"\s+")
#: The byline's date: the last ``on <date>`` of ``Created by A, last modified by B on <date>``.
_ON_DATE = re.compile(r"\bon\s+([A-Z][a-z]{2,8}\.? \d{1,2}, \d{4})\s*$")


def _text(node: LexborNode | None) -> str:
    return _WS.sub(" ", node.text()).strip() if node is not None else ""


def _section_title(section: LexborNode) -> str:
    return _text(section.css_first(".pageSectionTitle")).rstrip(":").strip().lower()


def confluence_page(html: str) -> tuple[str, dict[str, Any]] | None:
    """The page's content as HTML (its title as an ``h1`` over it, then its comments) and its
    facts, when ``html`` is a page of a Confluence export; None for any other page."""
    if not all(mark in html for mark in _MARKS):
        return None
    parser = LexborHTMLParser(html)
    content = parser.css_first("#main-content")
    byline = parser.css_first(".page-metadata")
    if content is None or parser.css_first("#title-text") is None:
        return None
    if byline is None:
        return _overview(parser, content)
    facts: dict[str, Any] = {}
    heading = _text(parser.css_first("#title-text")) or _text(parser.css_first("title"))
    space, sep, title = heading.partition(" : ")
    if sep:
        facts["space"] = space
    else:
        title = heading
    crumbs = [c for c in (_text(li) for li in parser.css("#breadcrumbs li")) if c]
    if crumbs:
        facts["breadcrumbs"] = crumbs
    author, editor = _text(byline.css_first(".author")), _text(byline.css_first(".editor"))
    if author:
        facts["author"] = author
    if editor:
        facts["modified_by"] = editor
    on = _ON_DATE.search(_text(byline))
    if on is not None:
        facts["modified" if "modified" in _text(byline) else "created"] = iso_date(on.group(1))
    for key, value in page_properties(content).items():
        facts.setdefault(key, value)
    _label_panels(content)
    parts = [f"<h1>{escape(title)}</h1>", content.html or ""]
    for section in parser.css(".pageSection"):
        name = _section_title(section)
        if name == "attachments":
            files = [f for f in (_text(a) for a in section.css("a")) if f]
            if files:
                facts["attachments"] = files
        elif section.css_first("#main-content") is None and name:
            old, new = section.css_first(".pageSectionTitle"), _node(f"<h2>{escape(name.capitalize())}</h2>")
            if old is not None and new is not None:  # "Comments:" is a section's title, as any other
                old.replace_with(new)
            parts.append(section.html or "")  # comments: what readers wrote under the page
    return "".join(parts), facts


#: The kinds of Confluence's information macros, and the label each is read with.
_PANELS = {"information": "Info", "note": "Note", "tip": "Tip", "warning": "Warning"}


def _label_panels(content: LexborNode) -> None:
    """Each information macro (a coloured panel with an icon) as an admonition led by its kind:
    ``Warning: Do not fail over while a migration is running.``"""
    for panel in content.css(".confluence-information-macro"):
        kinds = [c.removeprefix("confluence-information-macro-") for c in (panel.attributes.get("class") or "").split()]
        label = next((_PANELS[k] for k in kinds if k in _PANELS), None)
        body = panel.css_first(".confluence-information-macro-body")
        title = _node(f'<p class="admonition-title">{label}</p>')
        if label is None or body is None or body.child is None or title is None:
            continue
        body.attrs["class"] = "admonition"
        body.child.insert_before(title)


def page_properties(content: LexborNode) -> dict[str, Any]:
    """The fields of the page's Page Properties tables (``Owner``, ``Status``, ``Due date``), as
    a Page Properties Report collects them; a date by its ``datetime``."""
    found: dict[str, Any] = {}
    for row in content.css(".plugin-tabmeta-details tr"):
        th, td = row.css_first("th"), row.css_first("td")
        if th is None or td is None or not _text(th):
            continue
        when = td.css_first("time[datetime]")
        value = (when.attributes.get("datetime") or "") if when is not None else ""
        value = value or property_value(_text(td))
        if value not in ("", []) and property_key(_text(th)) != "title":
            found.setdefault(property_key(_text(th)), value)
    return found


def _overview(parser: LexborHTMLParser, content: LexborNode) -> tuple[str, dict[str, Any]] | None:
    """The space's overview page: its details under the space's name, without the tree of its
    pages; None for a page that is no overview."""
    if not any(_section_title(s) == _PAGE_TREE for s in parser.css(".pageSection")):
        return None
    space = _text(parser.css_first("#title-text"))
    details = content.css_first("table")
    body = details.html if details is not None else ""
    return f"<h1>{escape(space)}</h1>{body}", ({"space": space} if space else {})


def _node(html: str) -> LexborNode | None:
    """The element ``html`` writes, to put into a page."""
    body = LexborHTMLParser(html).body
    return body.child if body is not None else None

"""A page of a Notion export: its properties as metadata.

Notion exports a workspace as Markdown (with a CSV file per database) or as HTML, every file
named by its page's title and 32-hex-digit id (``Deploy process 1d2e…5f6a.md``). A database
row's page lists the row's properties under its title, one ``Name: value`` line each in
Markdown (``Status: Done``, ``Tags: payments, eu``, ``Date: March 4, 2024``), a table of
class ``properties`` in HTML. They become the page's metadata, so that ``--where status=Done
--where 'date>=2024-03-01'`` selects rows as the database's own filters do; keys and values
as :mod:`.properties` makes them (``Last reviewed`` is ``last_reviewed``, a date an ISO date, a
multi-select a list), a relation's pages by their titles without their paths.

The lines stay in the text as well: they are what the page says (``Owner: Ana Silva``
answers who owns it). The pages above a page, named by the folders it lies in, are its
``breadcrumbs`` (as a Confluence page's are), so ``--where breadcrumbs=Incidents`` asks one
database's rows.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import PurePath
from typing import Any
from urllib.parse import unquote

from selectolax.lexbor import LexborHTMLParser, LexborNode

from .properties import property_key, property_value

__all__ = ["html_page", "is_notion_page", "notion_value", "page_parents", "page_title", "properties"]

#: A Notion export's file name: the page's title, a space, the page's id.
_NAMED = re.compile(r"(.+?) [0-9a-f]{32}")
#: A property line: a name (letters first, no markup) and its value.
_PROPERTY = re.compile(r"([^\W\d_][\w .'()/&+?-]{0,39}?):[ \t]+(\S.*)")
#: A relation's value names each page with its path: ``Checkout 502 (../Incidents%20…/x.md)``.
_LINKED = re.compile(r"\s*\([^()\s]*\.(?:md|html|csv)\)")


def is_notion_page(source: str) -> bool:
    """Whether ``source`` is named as Notion names an exported page."""
    return _NAMED.fullmatch(PurePath(source).stem) is not None


def page_parents(source: str) -> list[str]:
    """The titles of the pages above this one, top first: the export puts a page's children in
    a folder named as the page is (``Engineering Wiki 9f1c…/Incidents 7e6d…/row 3c4d….md``)."""
    parents = [_NAMED.fullmatch(part) for part in PurePath(source).parent.parts]
    return [m.group(1) for m in parents if m is not None]


def page_title(source: str) -> str:
    """The page's title from its file name (without its id); "" for another name."""
    m = _NAMED.fullmatch(PurePath(source).stem)
    return m.group(1) if m else ""


def notion_value(value: str) -> Any:
    """A property's value as metadata (:func:`.properties.property_value`), a relation's pages
    by their titles without their paths."""
    return property_value(unquote(_LINKED.sub("", value)))


def properties(lines: str) -> dict[str, Any]:
    """The properties of a block of ``Name: value`` lines; empty unless every line is one."""
    found: dict[str, Any] = {}
    for line in lines.splitlines():
        m = _PROPERTY.fullmatch(line.strip())
        if m is None:
            return {}
        found.setdefault(property_key(m.group(1)), notion_value(m.group(2)))
    return found


#: Kinds of property whose value is a list of items, each an element of its own in HTML.
_LISTED = {"multi_select": ".selected-value", "person": ".user", "relation": "a", "file": "a"}


def _cell_text(node: LexborNode) -> str:
    return " ".join(node.text().split())


def html_page(html: str) -> tuple[str, dict[str, Any]]:
    """A Notion page's HTML as its Markdown export reads, and its properties: the
    ``table.properties`` in its header written as a ``Name: value`` line each (pills of a
    multi-select side by side read ``paymentseu`` in a cell, a checkbox is an empty ``div``), a
    callout's icon at the start of its text rather than a paragraph of its own."""
    if 'class="properties"' not in html and "callout" not in html:
        return html, {}
    parser = LexborHTMLParser(html)
    _icons_into_text(parser)
    table = parser.css_first("table.properties")
    found = _properties_as_lines(table) if table is not None else {}
    return parser.html or html, found


def _icons_into_text(parser: LexborHTMLParser) -> None:
    for callout in parser.css("figure.callout"):
        icon, body = callout.css_first(".icon"), callout.css_first("div:not(:first-child)")
        if icon is None or body is None:
            continue
        mark = _cell_text(icon)
        holder = icon.parent if icon.parent is not None and icon.parent is not callout else icon
        holder.decompose()
        first = body.css_first("p") or body
        if mark and first.child is not None:
            first.child.insert_before(mark + " ")


def _properties_as_lines(table: LexborNode) -> dict[str, Any]:
    """The properties ``table`` lists, the table replaced by their lines."""
    found: dict[str, Any] = {}
    lines: list[str] = []
    for row in table.css("tr"):
        th, td = row.css_first("th"), row.css_first("td")
        if th is None or td is None or not _cell_text(th):
            continue
        name = _cell_text(th)
        kind = next((c.removeprefix("property-row-") for c in (row.attributes.get("class") or "").split()
                     if c.startswith("property-row-")), "")
        box = td.css_first(".checkbox")
        if kind == "checkbox" and box is not None:
            value: Any = "checkbox-on" in (box.attributes.get("class") or "").split()
            shown = "Yes" if value else "No"
        elif kind in _LISTED and td.css_first(_LISTED[kind]) is not None:
            items = [i for i in (_cell_text(n) for n in td.css(_LISTED[kind])) if i]
            shown = ", ".join(items)
            value = items[0] if len(items) == 1 else items  # one item, as Markdown's line reads
        else:
            shown = _cell_text(td).removeprefix("@")
            value = notion_value(shown)
        if shown:
            lines.append(f"{escape(name)}: {escape(shown)}")
        if property_key(name) != "title" and value not in ("", []):
            found.setdefault(property_key(name), value)
    shown_as = LexborHTMLParser(f"<p>{'<br>'.join(lines)}</p>").css_first("p")
    if shown_as is not None:
        table.replace_with(shown_as)
    return found

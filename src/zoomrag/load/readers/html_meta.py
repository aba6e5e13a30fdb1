"""What a web page's head says of it, as metadata: who wrote it and when.

Publishers state it for search engines and link previews, in one of a few vocabularies: Open
Graph's ``article:published_time`` and ``article:modified_time`` (blogs, news, help centres),
Dublin Core's ``dcterms.created``/``DC.date``, Highwire's ``citation_publication_date`` and
``citation_author`` (scholarly pages), plain ``<meta name="author">`` and ``name="date"``, and
schema.org's JSON-LD (``datePublished``, ``dateModified``, ``author``). They become the keys
the other readers use (Confluence's byline, a Notion page's properties): ``author``, ``created``
and ``modified`` as ISO dates, so ``--where 'modified>=2024-01-01'`` selects recent pages
whichever way their site says it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from .properties import iso_date

#: The ``<meta>`` names and properties that state each fact, the most specific first.
_META = {
    "created": ("article:published_time", "citation_publication_date", "citation_date", "dcterms.created",
                "dc.date.created", "dc.created", "dc.date", "dcterms.date", "date", "publish_date", "pubdate"),
    "modified": ("article:modified_time", "og:updated_time", "dcterms.modified", "dc.date.modified",
                 "last-modified", "revised"),
    "author": ("author", "citation_author", "dc.creator", "dcterms.creator", "article:author"),
}
_JSON_LD = {"created": "datePublished", "modified": "dateModified"}
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}")
#: How far into a page its head is looked for (a head is a few kB; a page without one, none).
_HEAD_REACH = 65536


def page_facts(html: str) -> dict[str, Any]:
    """``author``, ``created`` and ``modified`` as the page's head states them (empty for none)."""
    end = html.find("</head>", 0, _HEAD_REACH)
    if end < 0:
        return {}
    head = LexborHTMLParser(html[:end + 7])
    said: dict[str, list[str]] = {}
    for meta in head.css("meta[content]"):
        key = (meta.attributes.get("name") or meta.attributes.get("property") or "").strip().lower()
        value = " ".join((meta.attributes.get("content") or "").split())
        if key and value:
            said.setdefault(key, []).append(value)
    ld = _json_ld(head)
    facts: dict[str, Any] = {}
    for fact in ("created", "modified"):
        stated = next((said[k][0] for k in _META[fact] if k in said), None) or ld.get(_JSON_LD[fact])
        if isinstance(stated, str) and (day := _day(stated)):
            facts[fact] = day
    authors = next(([a for a in said[k] if not a.startswith(("http://", "https://"))] for k in _META["author"]
                    if k in said), None) or _ld_authors(ld.get("author"))
    authors = list(dict.fromkeys(a for a in authors if a))
    if authors:
        facts["author"] = authors[0] if len(authors) == 1 else authors
    return facts


def _day(value: str) -> str:
    """The date of ``value`` as ``YYYY-MM-DD`` (a timestamp's day), "" when it is none."""
    m = _ISO.match(value.strip())
    if m:
        return m.group(0)
    day = iso_date(value)
    return day if _ISO.fullmatch(day) else ""


def _json_ld(head: LexborHTMLParser) -> dict[str, Any]:
    """The first schema.org object of the page's JSON-LD stating a date or an author."""
    for script in head.css('script[type="application/ld+json"]'):
        try:
            data = json.loads(script.text() or "")
        except ValueError:
            continue
        items = data if isinstance(data, list) else data.get("@graph", [data]) if isinstance(data, dict) else []
        for item in items:
            if isinstance(item, dict) and any(k in item for k in ("datePublished", "dateModified", "author")):
                return item
    return {}


def _ld_authors(value: Any) -> list[str]:
    people = value if isinstance(value, list) else [value]
    names = [p.get("name") if isinstance(p, dict) else p for p in people]
    return [" ".join(n.split()) for n in names if isinstance(n, str)]

"""Sitemaps (sitemaps.org): the pages a site lists, and the further sitemaps an index lists.

A sitemap is XML (``<urlset>`` of ``<url><loc>``, or ``<sitemapindex>`` of ``<sitemap><loc>``),
gzip-compressed or not, or a plain list of addresses a line. A crawl reads it beside the links,
so pages no link reaches (an orphan, a page behind a script's menu) are read too.
"""

from __future__ import annotations

import gzip
import zlib
from dataclasses import dataclass
from xml.etree import ElementTree

from .urls import is_url

#: Sitemaps are at most 50,000 addresses and 50 MB unpacked (the protocol's limits).
MAX_SITEMAP_BYTES = 50 * 1024 * 1024


@dataclass(frozen=True)
class Sitemap:
    pages: tuple[str, ...] = ()
    #: Sitemaps a sitemap index lists.
    sitemaps: tuple[str, ...] = ()


def read_sitemap(data: bytes) -> Sitemap:
    """What a sitemap lists; an empty one for what is not a sitemap (a site answering an HTML
    page for every address)."""
    if data[:2] == b"\x1f\x8b":
        try:
            data = _gunzip(data)
        except (OSError, EOFError, zlib.error):
            return Sitemap()
    head = data[:512].lstrip()
    if head.startswith((b"<?xml", b"<urlset", b"<sitemapindex")):
        return _xml(data)
    if head.startswith(b"<"):
        return Sitemap()  # a page, not a sitemap
    lines = data.decode("utf-8", "replace").split()
    return Sitemap(pages=tuple(u for u in lines if is_url(u)))


def _gunzip(data: bytes) -> bytes:
    out = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, MAX_SITEMAP_BYTES)
    if not out:
        raise gzip.BadGzipFile("empty")
    return out


def _xml(data: bytes) -> Sitemap:
    pages: list[str] = []
    maps: list[str] = []
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError:
        return Sitemap()
    kind = _local(root.tag)
    for entry in root:
        loc = next((c.text for c in entry if _local(c.tag) == "loc" and c.text), None)
        if loc is None or not is_url(loc.strip()):
            continue
        if kind == "sitemapindex" and _local(entry.tag) == "sitemap":
            maps.append(loc.strip())
        elif kind == "urlset" and _local(entry.tag) == "url":
            pages.append(loc.strip())
    return Sitemap(tuple(pages), tuple(maps))


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]

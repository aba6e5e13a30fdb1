"""Where a browser scrolls to a heading: the fragment (``page.html#with-pip``) that names it.

Generators name a section in one of a few places: the heading's own ``id`` (MkDocs, Docusaurus,
Hugo, javadoc 9 and later), the ``section`` or ``div`` it opens (Sphinx, DocBook), a
permalink inside it (``<a class="headerlink" href="#with-pip">¶</a>``), or an empty target
just before it (``<a name="…">``, javadoc 8's; Sphinx's ``<span id="label">`` of a reference
label). The anchor lets a context link to the section it starts in, not only to its page.
"""

from __future__ import annotations

from urllib.parse import unquote

from selectolax.lexbor import LexborNode

#: The key of a heading block's meta holding its fragment.
ANCHOR = "anchor"
#: Elements whose first element child a heading may be, the element naming the section.
_SECTIONS = frozenset({"section", "div", "article"})
#: Empty elements standing before a heading as its target.
_TARGETS = frozenset({"a", "span"})


def anchor(heading: LexborNode) -> str | None:
    """The fragment that names ``heading`` (a heading element, or an API entry's ``dt``), or None."""
    own = heading.attributes.get("id")
    if own:
        return own
    for a in heading.css("a"):
        target = a.attributes.get("id") or a.attributes.get("name")
        if target:
            return target
        href = a.attributes.get("href") or ""
        if href.startswith("#") and len(href) > 1 and not any(c.isalnum() for c in a.text(strip=True)):
            return unquote(href[1:])  # a permalink (¶, #, §, an icon), not a link to another section
    before = _previous_element(heading)
    if before is not None and before.tag in _TARGETS and not before.text(strip=True):
        target = before.attributes.get("id") or before.attributes.get("name")
        if target:
            return target
    parent = heading.parent
    if before is None and parent is not None and parent.tag in _SECTIONS:
        return parent.attributes.get("id") or None
    return None


def _previous_element(node: LexborNode) -> LexborNode | None:
    prev = node.prev
    while prev is not None and not prev.is_element_node:
        if prev.is_text_node and (prev.text_content or "").strip():
            return prev  # text stands between: the heading opens nothing before it
        prev = prev.prev
    return prev

"""What the HTML reader's modules ask of a parsed page's elements: an element's classes, a
table's own rows."""

from __future__ import annotations

from selectolax.lexbor import LexborNode


def classes(node: LexborNode | None) -> list[str]:
    """An element's classes, in lower case: HTML 4 era pages (old DocBook) write CLASS="TOC",
    CLASS="NOTE"."""
    return (node.attributes.get("class") or "").lower().split() if node is not None else []


def own_rows(table: LexborNode) -> list[LexborNode]:
    """The table's own rows (not those of tables nested in its cells)."""
    rows: list[LexborNode] = []
    for child in table.iter():
        if child.tag in ("thead", "tbody", "tfoot"):
            rows.extend(tr for tr in child.iter() if tr.tag == "tr")
        elif child.tag == "tr":
            rows.append(child)
    return rows

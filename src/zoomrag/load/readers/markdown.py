"""Markdown: the text verbatim; blocks from markdown-it-py's block parse.

markdown-it gives every block token a line map ``[first, last)``; lines become character offsets
here, trimmed of surrounding blank space (code keeps the indentation of its first line). Blocks
are the top-level constructs only (a table inside a list is part of the list block); thematic
breaks and link reference definitions are syntax, not content, and get no block. Sphinx's MyST
directives are blocks of what they hold (:mod:`zoomrag.text.myst`): a note or a version note is
text, ```` ```{code-block} python ```` code, a table of contents or an include nothing, as a MyST
target label (``(options)=``) is. Front matter
(``---`` YAML or ``+++`` TOML at the very start) is a text block with ``{"front_matter": True}``
when it reaches the reader: by default :func:`zoomrag.load.read_text` moves it into the metadata
first (:mod:`zoomrag.load.frontmatter`), and only ``front_matter="text"`` keeps it in the text.
"""

from __future__ import annotations

import re
from types import MappingProxyType

from markdown_it import MarkdownIt

from ...model import Block, Document
from ...text import myst
from .. import frontmatter
from ..spans import trim
from .code import language_name
from .notion import is_notion_page, page_parents, page_title, properties

# Only the block structure is needed: inline parsing (emphasis, links) is switched off, which
# also makes the parse several times faster.
_MD = MarkdownIt("commonmark").enable("table").disable(["inline", "text_join"])

_NEWLINE = re.compile("\n")
_TITLE = re.compile(r"""^title[ \t]*[:=][ \t]*(["']?)(.*?)\1[ \t]*$""", re.MULTILINE)

_EMPTY: MappingProxyType[str, object] = MappingProxyType({})
_FRONT_META = MappingProxyType({"front_matter": True})
_QUOTE_META = MappingProxyType({"quote": True})
_HTML_META = MappingProxyType({"html": True})
_LIST_META = {True: MappingProxyType({"ordered": True}), False: MappingProxyType({"ordered": False})}


def read_markdown(text: str, *, doc_id: str, source: str) -> Document:
    """The text with its top-level blocks; its title is the front matter's ``title`` or the first H1."""
    blocks: list[Block] = []
    title = None
    fm = frontmatter.end(text)
    if fm:
        blocks.append(Block(0, fm, "text", meta=_FRONT_META))
        t = _TITLE.search(text, 0, fm)
        title = t.group(2).strip() or None if t else None
    # Blank lines stand in for the front matter so markdown-it's line numbers stay the text's.
    src = "\n" * text.count("\n", 0, fm) + text[fm:] if fm else text
    starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]
    n = len(text)
    tokens = _MD.parse(src)
    prev_end = fm
    for i, tok in enumerate(tokens):
        if tok.level != 0 or tok.nesting == -1 or tok.map is None:
            continue
        kind, level, meta = _classify(tok)
        if kind is None or (tok.type == "paragraph_open" and myst.LABEL.fullmatch(tokens[i + 1].content)):
            continue  # syntax, or a MyST target label, ``(options)=``
        first, last = tok.map
        s = starts[first] if first < len(starts) else n
        e = starts[last] if last < len(starts) else n
        s, e = trim(text, max(s, prev_end), e)
        if s >= e:
            continue
        if kind == "code":
            s = max(text.rfind("\n", 0, s) + 1, prev_end)
        if kind == "heading" and level == 1 and title is None:
            title = tokens[i + 1].content.strip() or None
        blocks.append(Block(s, e, kind, level, meta))
        prev_end = e
    found: dict[str, object] = {"title": title}
    if is_notion_page(source):  # a page of a Notion export: its properties under its title
        crumbs = page_parents(source)
        found = {"title": title or page_title(source), **({"breadcrumbs": crumbs} if crumbs else {}),
                 **_notion_properties(text, blocks)}
    return Document(id=doc_id, source=source, text=text, format="markdown",
                    metadata=MappingProxyType(found), blocks=tuple(blocks))


def _notion_properties(text: str, blocks: list[Block]) -> dict[str, object]:
    """The properties a Notion page lists in the paragraph right under its title."""
    first = next((i for i, b in enumerate(blocks) if not b.meta.get("front_matter")), None)
    if first is None or first + 1 >= len(blocks):
        return {}
    head, lines = blocks[first], blocks[first + 1]
    if head.type != "heading" or head.level != 1 or lines.type != "text":
        return {}
    return {k: v for k, v in properties(text[lines.start:lines.end]).items() if k != "title"}


def _classify(tok) -> tuple[str | None, int, MappingProxyType]:
    t = tok.type
    if t == "heading_open":
        return "heading", int(tok.tag[1:]), _EMPTY
    if t == "paragraph_open":
        return "text", 0, _EMPTY
    if t in ("bullet_list_open", "ordered_list_open"):
        return "list", 0, _LIST_META[t == "ordered_list_open"]
    if t == "table_open":
        return "table", 0, _EMPTY
    if t == "fence":
        info = tok.info.strip()
        held = myst.kind(info, tok.content)
        if held == "markup":  # a table of contents, autodoc: nothing to read on this page
            return None, 0, _EMPTY
        if held == "prose":  # a note, a version note (text/myst.py)
            return "text", 0, MappingProxyType({"directive": (myst.directive(info) or ("",))[0]})
        named = myst.code_language(info) if held else info.split()[0] if info else ""
        lang = language_name(named) if named else ""
        return "code", 0, MappingProxyType({"language": lang, "info": info})
    if t == "code_block":
        return "code", 0, MappingProxyType({"language": ""})
    if t == "blockquote_open":
        return "text", 0, _QUOTE_META
    if t == "html_block":
        return "text", 0, _HTML_META
    if t == "hr":
        return None, 0, _EMPTY
    return "text", 0, _EMPTY

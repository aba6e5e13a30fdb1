"""Unix manual pages (``ls.1``, ``printf.3``, ``ssh_config.5``) read as the page ``man`` shows:
the troff source's macros interpreted, not kept as text.

Both macro packages are read: man(7), which most Linux pages are written in (and pod2man's and
help2man's output), and mdoc(7), the BSDs' and macOS's (:mod:`.mdoc`). The page is titled by its
NAME line, ``ls(1) — list directory contents``, which heads it in place of the NAME section;
its sections and subsections are headings, a tagged paragraph (an option and what it does) is
one paragraph, ``option: what it does``, as a definition list is in HTML; examples and no-fill
text are preformatted; tbl tables are tables. A file named like a page that holds no page (a
rotated log ``app.log.1``, a ``.so`` link to another page) is read as plain text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import PurePath
from types import MappingProxyType

from ...model import Block, Document
from ..compressed import inner_name
from .mdoc import is_mdoc, write_mdoc
from .plain import read_plain
from .roffpage import NAME_HEADS, RoffPage, name_title, page_document, title_line
from .troff import LAYOUT, Line, Troff, arguments, lines, tbl_rows

#: A page starts with one of these within its first lines (comments and string definitions
#: before it).
_PAGE_START = re.compile(r"^[.'][ \t]*(TH|Dd|Dt|SH|Sh)\b", re.M)
_HEAD = 4096

#: Extensions of manual pages: a section's number, with a suffix some packages add
#: (``.3pm``, ``.1ssl``); ``.man`` and ``.mdoc`` for sources.
EXTENSIONS = (".1", ".2", ".3", ".4", ".5", ".6", ".7", ".8", ".9", ".man", ".mdoc")
#: Other extensions of pages: a section's number with a package's suffix (``.3pm``, ``.1ssl``).
EXTENSION_PATTERN = r"\.[1-9][a-z]{1,5}"


#: A page that only sources another (``.so man1/gzip.1``: ``gunzip.1`` is ``gzip.1``'s).
_LINK = re.compile(r"(?:[.'][ \t]*\\\".*\n|\s*\n)*[.'][ \t]*so[ \t]+(\S+)\s*")


def read_man(text: str, *, doc_id: str, source: str) -> Document:
    text = text.replace("\x00", "")
    link = _LINK.fullmatch(text)
    if link is not None:
        return _link_page(link.group(1), doc_id, source)
    if not _PAGE_START.search(text[:_HEAD]):
        return read_plain(text, doc_id=doc_id, source=source)
    troff = Troff()
    page = RoffPage()
    if is_mdoc(text[:_HEAD]):
        meta = write_mdoc(lines(text, troff), troff, page)
    else:
        meta = _write_man(lines(text, troff), troff, page)
    return page_document(page, text, "man", meta, doc_id=doc_id, source=source)


def _page_name(path: str) -> str:
    """``gzip(1)`` for ``man1/gzip.1`` or ``gzip.1.gz``."""
    name = (inner_name(PurePath(path)) or PurePath(path)).name
    stem, _, section = name.rpartition(".")
    return f"{stem}({section})" if stem and section[:1].isdigit() else name


def _link_page(target: str, doc_id: str, source: str) -> Document:
    """The page of a name that is another page's (``gunzip(1): see gzip(1).``), so a search for
    the name finds where it is described."""
    title = _page_name(source)
    text = f"# {title}\n\n{title}: see {_page_name(target)}."
    return Document(id=doc_id, source=source, text=text, format="man",
                    metadata=MappingProxyType({"title": title, "see": _page_name(target)}),
                    blocks=(Block(0, len(title) + 2, "heading", 1), Block(len(title) + 4, len(text), "text")))


#: Tags that mark an item of a bulleted list (``.IP \(bu``).
_BULLETS = frozenset({"•", "*", "-", "o", "·", "—", "–", "+"})
#: Macros whose arguments are one run of text in one or two alternating fonts.
_FONTS_SPACED = frozenset({"B", "I", "SM", "SB", "CW", "CR", "CB", "CI", "R", "BX", "Pn"})
_FONTS_JOINED = frozenset({"BR", "BI", "IB", "IR", "RB", "RI", "SBR"})


def _write_man(it: Iterator[Line], troff: Troff, page: RoffPage) -> dict[str, str]:
    meta: dict[str, str] = {}
    name_lines: list[str] | None = None
    in_name = False
    section_seen = False
    fill = True
    url: list[str] | None = None
    for line in it:
        name, rest = line.name, line.args
        if in_name and name in ("sp", "PP", "LP", "P", "br") and name_lines:
            in_name = False  # NAME's line is written; what follows it (a synopsis) is the page's
            continue
        if in_name and name is None:
            assert name_lines is not None
            name_lines.append(troff.text(rest))
            continue
        if in_name and name in _FONTS_SPACED | _FONTS_JOINED:
            assert name_lines is not None
            name_lines.append(_font_text(name, rest, troff))
            continue
        if name is None:
            text = troff.text(rest)
            if not fill:
                page.text(text.rstrip())
            else:
                if rest[:1] in " \t":
                    page.line_break()
                page.text(text, glue=_glued(rest))
            if url is not None:
                url.append(text)
            continue
        if name == "TH":
            a = [troff.text(x) for x in arguments(rest)]
            meta["page_title"] = a[0] if a else ""
            meta["man_section"] = a[1] if len(a) > 1 else ""
            meta["date"] = a[2] if len(a) > 2 else ""
            meta["package"] = a[3] if len(a) > 3 else ""
            meta["manual"] = a[4] if len(a) > 4 else ""
        elif name in ("SH", "SS"):
            head = troff.text(" ".join(arguments(rest))) if rest.strip() else _next_text(it, troff)
            in_name = False
            if name == "SH" and not section_seen and head.strip().upper() in NAME_HEADS:
                in_name, name_lines = True, []
                page.end_list()
                continue
            section_seen = True
            page.heading(2 if name == "SH" else 3, head)
        elif name in ("PP", "LP", "P", "HP"):
            page.end_list()
        elif name in ("sp", "Sp"):
            if fill:
                page.paragraph()
            else:
                page.text("")
        elif name == "br":
            page.line_break()
        elif name in ("TP", "TQ"):
            page.term()
        elif name in ("IP", "Ip"):  # pod2man's old pages define Ip as IP
            a = arguments(rest)
            tag = troff.text(a[0]).strip() if a else ""
            if not tag:
                page.paragraph()
            elif tag in _BULLETS:
                page.bullet()
            elif re.fullmatch(r"\(?\w{1,3}[.)]", tag):
                page.paragraph()
                page.text(tag)
            else:
                page.term(tag)
        elif name == "RS":
            page.indent()
        elif name == "RE":
            page.outdent()
        elif name in ("nf", "EX", "Vb", "Ds"):
            page.start_pre()
            fill = False
        elif name in ("fi", "EE", "Ve", "De"):
            page.end_pre()
            fill = True
        elif name in _FONTS_SPACED or name in _FONTS_JOINED:
            if rest.strip():
                page.text(_font_text(name, rest, troff), glue=_glued(rest))
        elif name == "SY":
            page.paragraph()
            page.text(troff.text(" ".join(arguments(rest))))
        elif name == "OP":
            a = [troff.text(x) for x in arguments(rest)]
            if a:
                page.text("[" + " ".join(a) + "]")
        elif name == "YS":
            page.paragraph()
        elif name in ("UR", "MT"):
            url = [troff.text(" ".join(arguments(rest)))]
        elif name in ("UE", "ME"):
            if url is not None and len(url) == 1:
                page.text(url[0])  # a link with no text of its own: its address
            elif url is not None and url[0] and url[0] not in " ".join(url[1:]):
                page.text(f"<{url[0]}>", glue=False)
            trail = troff.text(" ".join(arguments(rest)))
            if trail:
                page.text(trail)
            url = None
        elif name in ("URL", "MTO"):  # Asciidoctor's and DocBook's links: address, text, what follows
            a = [troff.text(x) for x in arguments(rest)] + ["", "", ""]
            page.text(f"{a[1]} <{a[0]}>{a[2]}" if a[1] else f"{a[0]}{a[2]}")
        elif name == "TS":
            body = _until(it, "TE")
            page.table(*tbl_rows(body, troff))
        elif name in LAYOUT or name.startswith("\\"):
            pass
        else:  # a macro the page defines itself, or one read nowhere here: its words are kept
            words = troff.text(" ".join(arguments(rest)))
            if words.strip():
                page.text(words)
    if name_lines is not None:
        meta["title"] = name_title(" ".join(name_lines), meta.get("man_section", ""))
    if not meta.get("title") and meta.get("page_title"):
        t = meta["page_title"]
        meta["title"] = title_line(t.lower() if t.isupper() else t, meta.get("man_section", ""), "")
    if meta.get("title"):
        page.title(meta["title"])
    meta.pop("page_title", None)
    return meta


def _glued(rest: str) -> bool:
    """Whether a line's text ends in ``\\c`` right after a word: the next line's text goes on
    from it with no space."""
    rest = rest.rstrip()
    return rest.endswith("\\c") and rest[-3:-2] not in (" ", "\t", "")


def _font_text(name: str, rest: str, troff: Troff) -> str:
    a = [troff.text(x) for x in arguments(rest)]
    return ("" if name in _FONTS_JOINED else " ").join(a)


def _next_text(it: Iterator[Line], troff: Troff) -> str:
    """The text of the line after a macro that takes it as its argument (``.SH`` alone)."""
    for line in it:
        if line.name is None:
            return troff.text(line.args)
        if line.name in _FONTS_SPACED or line.name in _FONTS_JOINED:
            return _font_text(line.name, line.args, troff)
        return ""
    return ""


def _until(it: Iterator[Line], end: str) -> list[str]:
    """Raw lines up to a ``.end`` line (a table's body)."""
    out: list[str] = []
    for line in it:
        if line.name == end:
            break
        out.append(line.args if line.name is None else f".{line.name} {line.args}".rstrip())
    return out

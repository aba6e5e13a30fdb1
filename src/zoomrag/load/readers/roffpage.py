"""The HTML a manual's markup means, for the manuals written in lines rather than elements
(manual pages in man or mdoc macros, Info manuals): sections, paragraphs, tagged paragraphs as
definition lists, bullets as lists, examples as preformatted text, tables.

Lists nest as the page indents them (``.RS`` in man, ``.Bl`` inside an item in mdoc). A tag
whose description runs to more than one block (``set`` and the options listed under it, an
option described in several paragraphs) is an entry, as a documented option or function is in
HTML: a heading over its description, so a context from inside it is titled by it
(``SHELL BUILTIN COMMANDS › set › -e``). A tag with one paragraph stays a line of the list,
``-a, --all: do not ignore …``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from html import escape, unescape

from ...model import Document
from .html import html_document
from .plain import read_plain

#: Marks a line break among a paragraph's words (no text holds it: readers drop NUL).
_BREAK = "\x00"
#: The longest line taken for a tag before an indented block, and what a tag never ends in.
_TAG_LENGTH = 120
_ENDS = frozenset(".:;!?,")
#: A list's tags are entries when one in this many has more than one block under it.
_LONG_SHARE = 3
#: The longest name an entry's anchor takes from its tag.
_NAME_CHARS = 40


#: The NAME section's title in the languages pages are translated into (``BEZEICHNUNG``, ``名前``).
NAME_HEADS = frozenset({"NAME", "NOM", "NOMBRE", "NAMEN", "BEZEICHNUNG", "NOME", "NAZWA", "НАЗВАНИЕ", "НАЗВА",
                        "ИМЯ", "NAAM", "NAMN", "NAVN", "NIMI", "名前", "名称", "JMÉNO", "NÉV", "AD", "NUME",
                        "이름", "ΟΝΟΜΑ"})


#: A NAME line: the names, a dash, what they are (``gzip, gunzip, zcat \- compress …``).
_NAME_LINE = re.compile(r"(.+?)\s+[-–—]+\s+(.+)", re.S)


def title_line(names: str, section: str, what: str) -> str:
    """``ls(1) — list directory contents``: the heading a page's NAME line makes."""
    head = f"{names}({section})" if section else names
    return f"{head} — {what}" if what else head


def name_title(said: str, section: str = "") -> str:
    """The title a NAME section's line makes (``Test::Tutorial - A tutorial …`` gives
    ``Test::Tutorial — A tutorial …``); the line itself when no dash parts it; "" for none."""
    said = " ".join(said.split())
    found = _NAME_LINE.fullmatch(said)
    if found:
        return title_line(found.group(1).strip(), section, found.group(2).strip())
    return title_line(said, section, "") if said else ""


def page_document(page: RoffPage, text: str, fmt: str, metadata: Mapping[str, str], *, doc_id: str,
                  source: str) -> Document:
    """The Document ``page`` renders to (metadata without empty values); the source ``text``
    as plain text when the page says nothing."""
    doc = html_document(page.html(), fmt, metadata, doc_id=doc_id, source=source)
    return doc if doc.text.strip() else read_plain(text, doc_id=doc_id, source=source)


@dataclass
class _Level:
    """One level of indentation: the list open at it and its item."""

    kind: str | None = None  # "dl" or "ul" while a list is open
    item: bool = False  # a <dd> or <li> is open
    term_at: int = -1  # where the open <dd>'s term is in the output
    blocks: int = 0  # blocks written inside the open item
    describes: bool = False  # the indented block is the description of the tag before it
    terms: list[int] = field(default_factory=list)  # where the open list's terms are in the output
    long: int = 0  # of the open list's items, those with more than one block
    nested: bool = False  # an item of the open list holds a list
    inner: list[int] = field(default_factory=list)  # terms of entries in its items' lists


class RoffPage:
    def __init__(self) -> None:
        self.out: list[str] = []
        self._words: list[str] = []
        self._block: str | None = None  # "p", "dt" or "pre", while it has text pending
        self._levels = [_Level()]
        self._glue = False  # the last text ended in \c: the next goes on with no space
        self._merge = False  # the tag being read joins the one before it
        self._title = ""
        self._anchor: str | None = None  # the name the tag being read has as an entry
        self._anchors: dict[int, str] = {}  # entries' names where the tag's first word is not it
        #: Lists that end as entries if no text follows them before their item or section ends:
        #: the depth each was at, and where its terms are in the output.
        self._pending: list[tuple[int, list[int]]] = []

    # text

    def text(self, s: str, glue: bool = False) -> None:
        """A line of text; in a paragraph, lines are joined with spaces."""
        if self._block == "pre":
            self._words.append(s)
            return
        s = s.strip()
        if not s:
            return
        if self._block is None:
            self._block = "p"
        if self._glue and self._words:
            self._words[-1] += s
        else:
            self._words.append(s)
        self._glue = glue
        if self._block == "dt" and not glue:
            self._end_term()

    def line_break(self) -> None:
        if self._block == "p" and self._words:
            self._words.append(_BREAK)

    def paragraph(self) -> None:
        """Ends the paragraph being written (inside the list item, if one is open)."""
        if self._block == "pre":
            return
        if self._block == "dt":
            self._end_term()
        self._flush()

    # structure

    def title(self, text: str) -> None:
        """The page's heading, above everything written (the NAME line comes first in a page's
        source but is known only once read)."""
        self._title = text

    def heading(self, level: int, text: str) -> None:
        self._close_all()
        text = " ".join(text.split())
        if text:
            self.out.append(f"<h{level}>{escape(text)}</h{level}>")

    def term(self, text: str | None = None, anchor: str | None = None) -> None:
        """A tagged paragraph's tag: ``text``, else the next line of text. Tags one after another
        share the description that follows them (``declare …, typeset …``). ``anchor``: the name
        it has as an entry (else its first word)."""
        self._anchor = anchor
        self._flush()
        top = self._levels[-1]
        self._merge = top.item and top.kind == "dl" and top.blocks == 0 and top.term_at == len(self.out) - 1
        if not self._merge:
            self._close_item()
            self._open("dl")
        self._block = "dt"
        self._glue = False
        if text is not None:
            self._words.append(text.strip())
            self._end_term()

    def bullet(self) -> None:
        self._flush()
        self._close_item()
        self._open("ul")
        self.out.append("<li>")
        self._levels[-1].item = True

    def end_item(self) -> None:
        """Ends the open item; its list goes on if the next block is an item of it."""
        if self._block == "dt":
            self._end_term()
        self._flush()
        self._close_item()

    def end_bullets(self) -> None:
        """Ends a bulleted list open at this level (text after it is not its last item's)."""
        if self._levels[-1].kind == "ul":
            self.end_list()

    def end_list(self) -> None:
        """Ends the list open at this level of indentation."""
        if self._block == "dt":
            self._end_term()
        self._flush()
        self._close_item()
        top = self._levels[-1]
        if top.kind is not None:
            self._end_of_list(top)

    def indent(self) -> None:
        """An indented block begins (``.RS``): a paragraph of one short line before it that ends
        in no punctuation is the tag of what the block says (Asciidoctor's and DocBook's
        definition lists: ``-p, --pid pid`` then the indented text)."""
        if (self._block == "p" and len(self._words) == 1 and len(self._words[0]) <= _TAG_LENGTH
                and self._words[0][-1:] not in _ENDS):
            tag = self._words[0]
            self._words = []
            self._block = None
            self.term(tag)
            self.nest()
            self._levels[-1].describes = True
            return
        self.nest()

    def nest(self) -> None:
        """What follows is one level in: a list opened now is inside the open item."""
        self.paragraph()
        self._levels.append(_Level())

    def outdent(self) -> None:
        """Back one level (``.RE``, mdoc's ``.El``), the lists opened inside ended."""
        self.end_list()
        if len(self._levels) > 1:
            if self._levels.pop().describes:
                self._close_item()  # the block was the description of the tag before it: it is over

    def start_pre(self) -> None:
        self.paragraph()
        self._block = "pre"

    def end_pre(self) -> None:
        if self._block != "pre":
            return
        body = "\n".join(self._words).strip("\n")
        self._words = []
        self._block = None
        if body.strip():
            self._settle()
            self._count(1)
            self.out.append(f"<pre>{escape(body)}</pre>")

    def table(self, rows: list[list[str]], header: bool) -> None:
        self.paragraph()
        if not rows:
            return
        width = max(len(r) for r in rows)
        html = ["<table>"]
        for n, row in enumerate(rows):
            cell = "th" if header and n == 0 else "td"
            html.append("<tr>" + "".join(f"<{cell}>{escape(c)}</{cell}>" for c in row + [""] * (width - len(row)))
                        + "</tr>")
        html.append("</table>")
        self._settle()
        self._count(1)
        self.out.append("".join(html))

    def html(self) -> str:
        self.end_pre()
        self._close_all()
        return (f"<h1>{escape(self._title)}</h1>" if self._title else "") + "".join(self.out)

    # inside

    def _settle(self) -> None:
        """Before a block at this level: a list whose item is over ends (text after a run of
        tags with indented descriptions is no longer part of it)."""
        top = self._levels[-1]
        if top.kind is not None and not top.item:
            self._end_of_list(top)
        self._written()

    def _count(self, blocks: int, nested: bool = False) -> None:
        """``blocks`` more written inside the innermost open item, at any level."""
        for level in reversed(self._levels):
            if level.item:
                level.blocks += blocks
                level.nested = level.nested or (nested and level.kind == "dl")
                return

    def _open(self, kind: str) -> None:
        top = self._levels[-1]
        if top.kind != kind:
            self._written()  # a new list after one that ended: that one stays a list
            if top.kind is not None:
                self._end_of_list(top)
            elif len(self._levels) > 1:
                self._count(1, nested=True)  # a list inside an item: its list's terms are entries
            self.out.append(f"<{kind}>")
            top.kind = kind

    def _close_item(self) -> None:
        top = self._levels[-1]
        if not top.item:
            return
        # entries ended inside this item with no text after them stand or fall with this list
        depth = len(self._levels)
        top.inner += [at for d, terms in self._pending if d > depth for at in terms]
        self._pending = [(d, terms) for d, terms in self._pending if d <= depth]
        if top.kind == "dl":
            top.long += top.blocks > 1
            self.out.append("</dd>")
        else:
            self.out.append("</li>")
        top.item, top.blocks, top.term_at = False, 0, -1

    def _end_of_list(self, level: _Level) -> None:
        """A list whose item holds a list, or a third of whose items run to more than one block,
        may be made of entries (all its terms: a term written as a line after an entry's heading
        would read as part of that entry); whether it is, is known when the text after it is."""
        if level.nested or (level.long and level.long * _LONG_SHARE >= len(level.terms)):
            self._pending.append((len(self._levels), level.terms + level.inner))
        level.terms, level.inner, level.long, level.nested = [], [], 0, False
        self.out.append(f"</{level.kind}>")
        level.kind = None

    def _written(self) -> None:
        """A block is written at this depth: the lists ended at it or deeper stay lists, as this
        block would read as part of their last entry's description."""
        depth = len(self._levels)
        self._pending = [(d, terms) for d, terms in self._pending if d < depth]

    def _commit(self) -> None:
        """The lists ended with no text after them made entries: the section or page is over."""
        for _, terms in self._pending:
            for at in terms:
                tag = self.out[at]
                text = unescape(tag[tag.find("<dt>") + 4:tag.find("</dt>")])
                word = (self._anchors.get(at) or (text.split() or ["entry"])[0].strip(","))[:_NAME_CHARS]
                self.out[at] = tag.replace("<dt>", f'<dt id="{escape(word, quote=True)}">', 1)
        self._pending = []

    def _close_all(self) -> None:
        while True:
            self.end_list()
            if len(self._levels) == 1:
                break
            self._levels.pop()
        self._commit()

    def _end_term(self) -> None:
        words = " ".join(self._words).strip()
        self._words = []
        self._block = None
        if not words:
            return
        top = self._levels[-1]
        if self._merge:
            self.out[top.term_at] = self.out[top.term_at].removesuffix("</dt><dd>") + f", {escape(words)}</dt><dd>"
        else:
            top.term_at = len(self.out)
            top.terms.append(top.term_at)
            if self._anchor:
                self._anchors[top.term_at] = self._anchor
            self.out.append(f"<dt>{escape(words)}</dt><dd>")
            top.item = True
        self._merge = False

    def _flush(self) -> None:
        if self._block == "pre":
            self.end_pre()
            return
        words = " ".join(self._words).strip()
        self._words = []
        self._block = None
        self._glue = False
        if words.replace(_BREAK, "").strip():
            self._settle()
            self._count(1)
            self.out.append(f"<p>{escape(words).replace(_BREAK, '<br>')}</p>")

"""The HTML a manual page's macros write, whichever package (man or mdoc) they come from:
sections, paragraphs, tagged paragraphs as definition lists, bullets as lists, examples as
preformatted text, tables."""

from __future__ import annotations

from html import escape

#: Marks a line break among a paragraph's words (no text holds it: readers drop NUL).
_BREAK = "\x00"
#: The longest line taken for a tag before an indented block, and what a tag never ends in.
_TAG_LENGTH = 120
_ENDS = frozenset(".:;!?,")


def title_line(names: str, section: str, what: str) -> str:
    """``ls(1) — list directory contents``: the heading a page's NAME line makes."""
    head = f"{names}({section})" if section else names
    return f"{head} — {what}" if what else head


class RoffPage:
    def __init__(self) -> None:
        self.out: list[str] = []
        self._words: list[str] = []
        self._block: str | None = None  # "p", "dt" or "pre", while it has text pending
        self._list: str | None = None  # "dl" or "ul"
        self._item = False  # a <dd> or <li> is open
        self._glue = False  # the last text ended in \c: the next goes on with no space

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

    def heading(self, level: int, text: str) -> None:
        self.end_list()
        text = " ".join(text.split())
        if text:
            self.out.append(f"<h{level}>{escape(text)}</h{level}>")

    def title(self, text: str) -> None:
        """The page's heading, above everything written so far."""
        self.out.insert(0, f"<h1>{escape(text)}</h1>")

    def term(self, text: str | None = None) -> None:
        """A tagged paragraph's tag: ``text``, else the next line of text."""
        self._flush()
        self._close_item()
        self._open("dl")
        self._block = "dt"
        self._glue = False
        if text is not None:
            self._words.append(text.strip())
            self._end_term()

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

    def bullet(self) -> None:
        self._flush()
        self._close_item()
        self._open("ul")
        self.out.append("<li>")
        self._item = True

    def end_list(self) -> None:
        if self._block == "dt":
            self._end_term()
        self._flush()
        self._close_item()
        if self._list is not None:
            self.out.append(f"</{self._list}>")
            self._list = None

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
        self.out.append("".join(html))

    def html(self) -> str:
        self.end_pre()
        self.end_list()
        return "".join(self.out)

    # inside

    def _open(self, kind: str) -> None:
        if self._list != kind:
            if self._list is not None:
                self.out.append(f"</{self._list}>")
            self.out.append(f"<{kind}>")
            self._list = kind

    def _close_item(self) -> None:
        if self._item:
            self.out.append("</dd>" if self._list == "dl" else "</li>")
            self._item = False

    def _end_term(self) -> None:
        words = " ".join(self._words).strip()
        self._words = []
        self._block = None
        if words:
            self.out.append(f"<dt>{escape(words)}</dt><dd>")
            self._item = True

    def _flush(self) -> None:
        if self._block == "pre":
            self.end_pre()
            return
        words = " ".join(self._words).strip()
        self._words = []
        self._block = None
        self._glue = False
        if words.replace(_BREAK, "").strip():
            self.out.append(f"<p>{escape(words).replace(_BREAK, '<br>')}</p>")

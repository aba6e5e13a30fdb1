"""Rich Text Format (``.rtf``), as Word, WordPad, TextEdit and LibreOffice save it: read with the
standard library and written as the HTML it means, then read as any page is (:mod:`.html`), so
spans point into the rendering, as for a Word document.

Read as plain text, an RTF file is its control words (``{\\rtf1\\ansi\\deff0 …``); the libraries
that strip them keep only lines, losing the headings, lists, tables and footnotes a reader and
the strategies need. This reader keeps them:

- headings by outline level (``\\outlinelevelN``, on the paragraph or its style) or by a style
  named ``heading N``; a paragraph of the ``Title`` style names the document when its
  properties (``{\\info{\\title …}}``) do not;
- lists from Word's list paragraphs (``\\ls``, ``\\ilvl``) or a marker and a tab (``1.\\tab``,
  ``•\\tab``), numbered where the marker is a number or a letter;
- tables (``\\cell``, ``\\row``) with their first row as the header; footnotes as notes;
- a paragraph all in bold (``\\b``) as bold, so a contract titled in bold has its titles
  (:mod:`.html_look`);
- characters by ``\\uN`` or by the document's code page (``\\ansicpgN``).

Fonts, colours, styles' formatting, pictures, headers and footers, field instructions, hidden
text, comments and a generated table of contents are not the document's text and are left out.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field, replace
from html import escape
from pathlib import Path
from types import MappingProxyType

from ...errors import InputError
from ...model import Document
from .html import code_html, nested_list_html, render_pages
from .html_notes import endnotes_html, noteref_html

_TOKEN = re.compile(r"\\([a-zA-Z]{1,32})(-?\d{1,10})? ?|\\'([0-9a-fA-F]{2})|\\([^a-zA-Z])|([{}])|([^\\{}\r\n]+)|[\r\n]+")
#: Groups that hold no text of the document (read or not, their words never reach it).
_SKIPPED = frozenset("""colortbl listtable listoverridetable rsidtbl generator xmlnstbl
    themedata colorschememapping datastore latentstyles pgdsctbl pict object nonshppict shp shpinst
    header headerl headerr headerf footer footerl footerr footerf ftnsep ftnsepc aftnsep aftnsepc
    bkmkstart bkmkend xe tc revtbl annotation atnid atnauthor atrfstart atrfend atnref docvar
    userprops mmathPr passwordhash protusertbl wgrffmtfilter filetbl pnseclvl pntxtb pntxta
    template operator author keywords subject comment doccomm company category manager hlinkbase
    listpicture panose falt""".split())
#: Control words that are characters.
_SYMBOLS = {"emdash": "—", "endash": "–", "lquote": "‘", "rquote": "’", "ldblquote": "“", "rdblquote": "”",
            "bullet": "•", "emspace": " ", "enspace": " ", "qmspace": " ", "tab": "\t", "line": "\n"}
_CONTROL_SYMBOLS = {"~": " ", "_": "‑", "-": "", "\\": "\\", "{": "{", "}": "}"}
_HEADING_NAME = re.compile(r"heading\s*([1-9])", re.IGNORECASE)
#: Styles of code: "Preformatted Text", Word's "HTML Preformatted", "Source Code" and the like.
_CODE_NAME = re.compile(r"(?:html\s*)?preformatted(?:\s*text)?|source\s*code|code|plain\s*text", re.IGNORECASE)
#: Fonts of fixed width, by name: a paragraph set in one alone is code (pandoc, and many a Word
#: user, mark code by its font only).
_MONO_NAME = re.compile(r"courier|consolas|menlo|monaco|mono|lucida console|source code|inconsolata|fira code",
                        re.IGNORECASE)
#: A list marker a writer put in the text before a tab (pandoc, older writers): ``1.``, ``a)``, ``•``.
_MARKER = re.compile(r"[ \t]*((\d{1,3}|[a-zA-Z]|[ivxIVX]{1,5})[.)]|[•◦▪‣–—\-*·o§])\t")


@dataclass(frozen=True)
class _Group:
    """What a group sets, restored when it closes: RTF keeps formatting in the group stack."""

    skip: bool = False
    hidden: bool = False
    uc: int = 1
    style: int = 0
    outline: int | None = None
    in_table: bool = False
    listed: bool = False
    list_level: int = 0
    indent: int = 0
    font: int = -1
    bold: bool = False
    dest: str = ""  # the destination this group is in (stylesheet, info, title, footnote, ...)
    opened: str = ""  # the destination this very group opened, closed with it
    starred: bool = False  # this very group began with \*: a destination to skip unless known


@dataclass
class _Para:
    text: str
    level: int  # a heading's level, else 0
    listed: bool
    list_level: int
    indent: int
    title: bool
    marker: str = ""
    code: bool = False
    bold: bool = False  # every letter in bold: a title by its look (html_look)


@dataclass
class _Styles:
    outline: dict[int, int] = field(default_factory=dict)  # style number -> heading level
    titles: set[int] = field(default_factory=set)
    code: set[int] = field(default_factory=set)


class _Reader:
    """One pass over the tokens, paragraphs gathered with what their group state says."""

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.codec = "cp1252"
        self.styles = _Styles()
        self.title: str | None = None
        self.title_para: str | None = None
        self.out: list[str] = []  # HTML of finished blocks
        self.paras: list[_Para] = []  # paragraphs waiting to be written (a list run)
        self.buf: list[str] = []
        self.bytes = bytearray()
        self.marker = ""
        self.cell: list[str] = []
        self.row: list[str] = []
        self.rows: list[list[str]] = []
        self.notes: list[str] = []
        self.note_stack: list[tuple[list[str], list[_Para], list[str]]] = []
        self.style_def: dict[str, object] = {}
        self.field_inst: list[str] = []
        self.field_result = False  # whether the field being read has a result group
        self.fields: list[tuple[list[str], bool]] = []  # the fields around it
        self.mono: set[int] = set()  # fixed-width fonts
        self.font_entry: dict[str, object] = {}
        self.default_font = -1
        self.chars = [0, 0]  # characters of the paragraph in a fixed-width font, and in others
        self.bold = [0, 0]  # letters of the paragraph not in bold, and in bold

    # -- text ---------------------------------------------------------------------------------
    def _flush(self, g: _Group) -> None:
        """Bytes given as ``\\'hh`` decoded together: a character of a Chinese or Japanese code
        page takes two."""
        if self.bytes:
            s = codecs.decode(bytes(self.bytes), self.codec, "replace")
            self.bytes.clear()
            self._route(g, s)

    def _text(self, g: _Group, s: str) -> None:
        if not (g.skip or g.hidden):
            self._route(g, s.replace("\x00", ""))  # NUL marks a note's reference

    def _route(self, g: _Group, s: str) -> None:
        """Text to where its group's destination keeps it."""
        if g.dest == "stylesheet-entry":
            self.style_def["name"] = str(self.style_def.get("name", "")) + s
        elif g.dest == "title":
            self.title = (self.title or "") + s
        elif g.dest in ("fldinst",):
            self.field_inst.append(s)
        elif g.dest == "listtext":
            self.marker += s
        elif g.dest == "fonttbl":
            self._font_name(s)
        else:
            self.buf.append(s)
            font = g.font if g.font >= 0 else self.default_font
            self.chars[font not in self.mono] += len(s) - s.count(" ")
            self.bold[g.bold] += sum(c.isalpha() for c in s)

    def _font_name(self, s: str) -> None:
        """A font table's text: names, each ended by ``;``, of the font last numbered."""
        for piece in re.split("(;)", s):
            if piece == ";":
                number, name = self.font_entry.get("number"), str(self.font_entry.get("name", ""))
                if isinstance(number, int) and (self.font_entry.get("fixed") or _MONO_NAME.search(name)):
                    self.mono.add(number)
                self.font_entry = {}
            else:
                self.font_entry["name"] = str(self.font_entry.get("name", "")) + piece

    # -- paragraphs ---------------------------------------------------------------------------
    def _take(self) -> str:
        text = "".join(self.buf)
        self.buf = []
        self.chars = [0, 0]
        self.bold = [0, 0]
        return text

    def _paragraph(self, g: _Group) -> None:
        fixed = self.chars[0] > 0 and not self.chars[1]
        bold = self.bold[1] > 0 and not self.bold[0]
        text = self._take()
        if g.in_table:
            self.cell.append(text)
            return
        self._close_table()
        level = g.outline if g.outline is not None else self.styles.outline.get(g.style, 0)
        marker, self.marker = self.marker, ""
        code = g.style in self.styles.code or fixed
        m = _MARKER.match(text) if not g.listed and not level and not code else None
        if m:
            marker, text = m.group(1), text[m.end():]
        if not text.strip() and not code:
            return
        if g.style in self.styles.titles and self.title_para is None:
            self.title_para = " ".join(text.split())
        # a heading numbered by an outline list is a heading, not an item
        self.paras.append(_Para(text, min(level, 6), (g.listed or bool(m)) and not level, g.list_level, g.indent,
                                g.style in self.styles.titles, marker.strip(), code, bold))
        if not self.paras[-1].listed and not code:
            self._write_paras()

    def _write_paras(self) -> None:
        """Paragraphs gathered: a run of list items becomes one list, a run of code lines one code
        block, the rest their own blocks."""
        run: list[_Para] = []
        lines: list[str] = []
        for p in self.paras:
            if p.code:
                lines.append(p.text)
                continue
            if lines:
                self.out.append(_code_html(lines))
                lines = []
            if p.listed:
                run.append(p)
                continue
            if run:
                self.out.append(_list_html(run))
                run = []
            if p.level:
                self.out.append(f"<h{p.level}>{_inline(p.text)}</h{p.level}>")
            elif p.bold:
                self.out.append(f"<p><b>{_inline(p.text)}</b></p>")
            else:
                self.out.append(f"<p>{_inline(p.text)}</p>")
        if lines:
            self.out.append(_code_html(lines))
        self.paras = run

    def _cell(self) -> None:
        self.cell.append(self._take())
        self.row.append("<br>".join(_inline(t) for t in self.cell if t.strip()))
        self.cell = []

    def _row(self) -> None:
        if self.cell or "".join(self.buf).strip():
            self._cell()
        if any(c.strip() for c in self.row):
            self.rows.append(self.row)
        self.row = []

    def _close_table(self) -> None:
        if not self.rows:
            return
        self._write_paras_all()
        width = max(len(r) for r in self.rows)
        rows = [r + [""] * (width - len(r)) for r in self.rows]
        html = [f"<tr>{''.join(f'<th>{c}</th>' for c in rows[0])}</tr>"]
        html += [f"<tr>{''.join(f'<td>{c}</td>' for c in r)}</tr>" for r in rows[1:]]
        self.out.append(f"<table>{''.join(html)}</table>")
        self.rows = []

    def _write_paras_all(self) -> None:
        self._write_paras()
        if self.paras:
            self.out.append(_list_html(self.paras))
            self.paras = []

    # -- notes --------------------------------------------------------------------------------
    def _open_note(self) -> None:
        label = str(len(self.notes) + len(self.note_stack) + 1)
        self.buf.append(f"\x00{label}\x00")  # the reference, made a link when written
        self.note_stack.append((self.out, self.paras, self.buf))
        self.out, self.paras, self.buf = [], [], []

    def _close_note(self) -> None:
        if self.buf and "".join(self.buf).strip():
            self._paragraph(_Group())
        self._write_paras_all()
        body = "".join(self.out)
        self.out, self.paras, self.buf = self.note_stack.pop()
        self.notes.append(body)

    # -- the pass -----------------------------------------------------------------------------
    def read(self) -> str:
        stack: list[_Group] = []
        g = _Group()
        skip_chars = 0
        first_in_group = False
        pos = 0
        raw = self.raw
        while pos < len(raw):
            m = _TOKEN.match(raw, pos)
            if m is None:  # a lone backslash at the end
                break
            pos = m.end()
            word, num, hexa, sym, brace, text = m.groups()
            if hexa is None and self.bytes:
                self._flush(g)
            if brace == "{":
                stack.append(g)
                g = replace(g, opened="", starred=False)
                first_in_group = True
                skip_chars = 0
                continue
            if brace == "}":
                self._end_group(g)
                g = stack.pop() if stack else _Group()
                first_in_group = False
                skip_chars = 0
                continue
            starts = first_in_group
            first_in_group = False
            if skip_chars and (text is None or text):
                if text:
                    drop = min(skip_chars, len(text))
                    skip_chars -= drop
                    text = text[drop:]
                    if not text:
                        continue
                else:
                    skip_chars -= 1
                    continue
            if text is not None:
                self._text(g, text)
            elif hexa is not None:
                if not (g.skip or g.hidden):
                    self.bytes.append(int(hexa, 16))
            elif sym is not None:
                if sym == "*":
                    g = replace(g, starred=True)
                    first_in_group = True  # the destination's word follows
                elif sym in _CONTROL_SYMBOLS:
                    self._text(g, _CONTROL_SYMBOLS[sym])
                elif sym in "\n\r":
                    self._paragraph(g) if not g.skip and g.dest in ("", "footnote") else None
            elif word is not None:
                g, skip_chars, pos = self._word(g, word, num, starts, skip_chars, pos)
        self._flush(g)
        if "".join(self.buf).strip():
            self._paragraph(g)
        self._close_table()
        self._write_paras_all()
        body = "".join(self.out)
        body = re.sub("\x00([0-9]+)\x00", lambda m: noteref_html(m[1]), body)
        body += endnotes_html((str(i), b) for i, b in enumerate(self.notes, 1))
        return f"<html><body>{body}</body></html>"

    def _word(self, g: _Group, word: str, num: str | None, starts: bool, skip_chars: int,
              pos: int) -> tuple[_Group, int, int]:
        """The group state after a control word, the characters of fallback text to skip and
        where to read on (past ``\\bin`` data)."""
        n = int(num) if num is not None else None
        if starts:  # a destination: the group's first word says what it holds
            if g.starred and word not in ("footnote", "listtext", "pntext", "fldinst"):
                return replace(g, skip=True), skip_chars, pos
            if word in _SKIPPED:
                return replace(g, skip=True, dest=word), skip_chars, pos
            if word == "fonttbl":
                return replace(g, dest="fonttbl"), skip_chars, pos
            if word == "field":  # its instruction and its result follow, each a group
                self.fields.append((self.field_inst, self.field_result))
                self.field_inst, self.field_result = [], False
                return replace(g, opened="field"), skip_chars, pos
            if word == "shptxt":  # the text of a shape (a text box): text again, though the shape is not
                return replace(g, skip=False, dest=""), skip_chars, pos
            if word in ("stylesheet", "info", "title", "listtext", "pntext", "fldrslt", "fldinst"):
                dest = "listtext" if word == "pntext" else word
                if dest == "fldrslt":
                    self.field_result = True
                if dest == "fldrslt" and "".join(self.field_inst).strip().upper().startswith("TOC"):
                    return replace(g, skip=True), skip_chars, pos  # a generated table of contents
                if dest == "fldinst":
                    self.field_inst = []
                if dest == "title" and g.dest != "info":
                    dest = ""  # \title outside \info is no destination
                g = replace(g, dest=dest, skip=g.skip or (dest == "info"))
                if dest == "title":
                    g = replace(g, skip=False)
                    self.title = ""
                return g, skip_chars, pos
            if word == "footnote":
                self._open_note()
                return replace(g, dest="footnote", opened="footnote", in_table=False, listed=False), skip_chars, pos
            if g.dest == "stylesheet":  # a style: its number, outline level and name
                self.style_def = {"number": n if word == "s" else None}
                g = replace(g, dest="stylesheet-entry", opened="stylesheet-entry")
        if g.dest == "info" and word == "title":
            return replace(g, dest="title", skip=False), skip_chars, pos
        if g.dest == "fonttbl":
            if word == "f" and n is not None:
                self.font_entry = {"number": n, "name": ""}
            elif word == "fmodern" or (word == "fprq" and n == 1):
                self.font_entry["fixed"] = True  # the family or pitch of a fixed-width font
            return g, skip_chars, pos
        if g.dest == "stylesheet-entry":
            if word == "outlinelevel" and n is not None:
                self.style_def["outline"] = n + 1
            elif word == "s" and n is not None:
                self.style_def["number"] = n
            return g, skip_chars, pos
        if word == "bin" and n:
            return g, skip_chars, pos + max(n, 0)  # binary data: skipped whole
        if word == "u" and n is not None:
            self._text(g, chr(n + 65536 if n < 0 else n) if 0 <= (n + 65536 if n < 0 else n) < 0x110000 else "")
            return g, g.uc, pos
        if word == "uc" and n is not None:
            return replace(g, uc=max(n, 0)), skip_chars, pos
        if word == "ansicpg" and n:
            self._set_codec(n)
        elif word in _SYMBOLS:
            self._text(g, _SYMBOLS[word])
        elif word in ("par", "sect") and not g.skip and g.dest in ("", "footnote"):
            self._paragraph(g)
        elif word == "pard":
            g = replace(g, style=0, outline=None, in_table=False, listed=False, list_level=0, indent=0)
        elif word == "s" and n is not None:
            g = replace(g, style=n)
        elif word == "outlinelevel" and n is not None:
            g = replace(g, outline=n + 1 if 0 <= n < 9 else None)
        elif word == "intbl":
            g = replace(g, in_table=True)
        elif word == "ls" and n:
            g = replace(g, listed=True)
        elif word == "ilvl" and n is not None:
            g = replace(g, list_level=max(n, 0))
        elif word == "li" and n is not None:
            g = replace(g, indent=n)
        elif word in ("cell", "nestcell") and not g.skip:
            self._cell()
        elif word in ("row", "nestrow") and not g.skip:
            self._row()
        elif word == "v":
            g = replace(g, hidden=n != 0)
        elif word == "plain":
            g = replace(g, hidden=False, font=-1, bold=False)
        elif word == "b":
            g = replace(g, bold=n != 0)
        elif word == "f" and n is not None:
            g = replace(g, font=n)
        elif word == "deff" and n is not None:
            self.default_font = n
        return g, skip_chars, pos

    def _set_codec(self, page: int) -> None:
        try:
            self.codec = codecs.lookup(f"cp{page}").name
        except LookupError:
            pass  # an unknown code page: keep cp1252, the default RTF writers assume

    def _end_group(self, g: _Group) -> None:
        if g.opened == "stylesheet-entry":
            name = str(self.style_def.get("name", "")).strip().rstrip(";").strip()
            number = self.style_def.get("number")
            if isinstance(number, int):
                outline = self.style_def.get("outline")
                m = _HEADING_NAME.fullmatch(name)
                level = outline if isinstance(outline, int) else (int(m.group(1)) if m else 0)
                if level:
                    self.styles.outline[number] = level
                if name.lower() == "title":
                    self.styles.titles.add(number)
                if _CODE_NAME.fullmatch(name):
                    self.styles.code.add(number)
            self.style_def = {}
        elif g.opened == "footnote":
            self._close_note()
        elif g.opened == "field":
            words = "".join(self.field_inst).split(None, 2)
            if not self.field_result and len(words) == 3 and words[0].upper() == "MACROBUTTON":
                self._text(g, words[2])  # Word's placeholder shows its text after the macro's name
            self.field_inst, self.field_result = self.fields.pop() if self.fields else ([], False)


def _inline(text: str) -> str:
    """A paragraph's text as HTML: line breaks kept, tabs as spaces."""
    return "<br>".join(escape(line.replace("\t", " ")) for line in text.split("\n"))


def _code_html(lines: list[str]) -> str:
    """Code lines, a paragraph each, as one block: their spaces and tabs as written."""
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return code_html(lines) if lines else ""


def _list_html(items: list[_Para]) -> str:
    """List paragraphs as nested lists: by Word's list level, else by their left indents."""
    indents = sorted({p.indent for p in items})
    by_level = any(q.list_level for q in items)
    return nested_list_html((p.list_level if by_level else indents.index(p.indent), p.marker[:1].isalnum(),
                             _inline(p.text)) for p in items)


def read_rtf(path: Path, doc_id: str) -> Document:
    source = str(path)
    try:
        raw = path.read_bytes().decode("latin-1")  # RTF is 7-bit; \bin data passes through unchanged
    except OSError as e:
        raise InputError(f"{source}: cannot read this file ({e})") from e
    if not raw.lstrip().startswith("{\\rtf"):
        raise InputError(f"{source}: not a Rich Text file (it does not start with {{\\rtf); check the file, "
                         "or rename it if it is plain text")
    reader = _Reader(raw)
    html = reader.read()
    text, blocks, first = render_pages([html], "")
    title = " ".join((reader.title or "").split()) or reader.title_para or first
    return Document(id=doc_id, source=source, text=text, format="rtf",
                    metadata=MappingProxyType({"title": title}), blocks=tuple(blocks))

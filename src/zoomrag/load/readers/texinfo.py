"""Texinfo sources (``.texi``, ``.texinfo``, ``.txi``: the GNU manuals' source) read as the
manual makeinfo would print, through the same page as Info manuals (:mod:`.roffpage`).

``@chapter`` … ``@subsubsection`` (and their unnumbered, appendix and heading forms) are
headings; ``@table``/``@item``/``@itemx`` tags with their descriptions, ``@itemize`` and
``@enumerate`` bullets, ``@multitable`` tables; ``@deffn``, ``@deftypefun`` and the other
definition commands are entries named by what they define (``rl_set_prompt``); ``@example``,
``@lisp`` and ``@verbatim`` listings; inline commands print their text (``@code{x}`` as ``x``,
``@var{file}`` as ``FILE``, ``@samp{x}`` as ``‘x’``, ``@xref{Node}`` as ``See Node``).
Comments, menus, index entries, ``@ignore`` and ``@tex``/``@html`` blocks, ``@ifset`` blocks
whose flag is clear and the title page's layout are left out. ``@include`` is not followed (a
reader reads one file). A file with no Texinfo command is plain text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...model import Document
from .plain import read_plain
from .roffpage import RoffPage, page_document

_HEADINGS = {
    **dict.fromkeys(("top", "chapter", "unnumbered", "appendix", "majorheading", "chapheading", "centerchap"), 1),
    **dict.fromkeys(("section", "unnumberedsec", "appendixsec", "appendixsection", "heading"), 2),
    **dict.fromkeys(("subsection", "unnumberedsubsec", "appendixsubsec", "subheading"), 3),
    **dict.fromkeys(("subsubsection", "unnumberedsubsubsec", "appendixsubsubsec", "subsubheading"), 4),
}
#: Blocks left out with everything in them.
_DROPPED = frozenset({"ignore", "macro", "rmacro", "tex", "html", "iftex", "ifhtml", "ifdocbook", "ifxml",
                      "iflatex", "docbook", "xml", "latex", "titlepage", "menu", "detailmenu", "direntry",
                      "copying", "documentdescription", "ifnotinfo", "ifnotplaintext"})
#: Conditionals whose text makeinfo's Info output keeps: only their markers go.
_KEPT = frozenset({"ifinfo", "ifnottex", "ifplaintext", "ifnothtml", "ifnotdocbook", "ifnotxml", "ifnotlatex",
                   "group", "raggedright", "flushleft", "flushright", "cartouche", "smallformat", "format",
                   "display", "smalldisplay", "quotation", "smallquotation", "indentedblock",
                   "smallindentedblock", "float", "titlepage"})
_LISTINGS = frozenset({"example", "smallexample", "lisp", "smalllisp", "verbatim"})
_TABLES = frozenset({"table", "ftable", "vtable"})
_BULLETS = frozenset({"itemize", "enumerate"})
#: Definition commands: how many words before the name (the category, the type).
_DEFS = {"deffn": 1, "defun": 0, "defmac": 0, "defspec": 0, "defvr": 1, "defvar": 0, "defopt": 0,
         "deftypefn": 2, "deftypefun": 1, "deftypevr": 2, "deftypevar": 1, "deftp": 1, "defop": 2,
         "deftypeop": 3, "defmethod": 1, "deftypemethod": 2, "defcv": 2, "deftypecv": 3, "defivar": 1,
         "deftypeivar": 2}
#: Symbols and brace commands that print a fixed text.
_SYMBOLS = {"@": "@", "{": "{", "}": "}", "*": " ", ".": ".", ":": "", "!": "!", "?": "?", "-": "", "/": "",
            " ": " ", "\t": " ", "\n": " ", ",": ",", "&": "&", "'": "'", '"': '"', "`": "`", "^": "^",
            "~": "~", "=": "="}
_FIXED = {"dots": "…", "enddots": "….", "copyright": "©", "registeredsymbol": "®", "TeX": "TeX",
          "LaTeX": "LaTeX", "minus": "-", "result": "⇒", "expansion": "↦", "print": "⊣", "error": "error→",
          "equiv": "≡", "bullet": "•", "today": "", "tie": " ", "comma": ",", "atchar": "@",
          "lbracechar": "{", "rbracechar": "}", "backslashchar": "\\", "hashchar": "#", "arrow": "→",
          "point": "∗", "exclamdown": "¡", "questiondown": "¿", "euro": "€", "pounds": "£",
          "geq": "≥", "leq": "≤", "textdegree": "°", "ordf": "ª", "ordm": "º", "ss": "ß", "ae": "æ",
          "AE": "Æ", "oe": "œ", "OE": "Œ", "o": "ø", "O": "Ø", "l": "ł", "L": "Ł", "aa": "å", "AA": "Å",
          "quotedblleft": "“", "quotedblright": "”", "quoteleft": "‘", "quoteright": "’", "guillemetleft": "«",
          "guillemetright": "»", "click": "→", "headitemfont": ""}
#: Brace commands whose text is left out (index entries and anchors have their own lines too).
_SILENT = frozenset({"anchor", "image", "indexterm", "footnotestyle", "hyphenation", "errormsg", "caption",
                     "shortcaption", "sortas", "seeentry", "seealso", "inlinefmt", "inlineraw"})
_QUOTED = frozenset({"samp", "file", "option", "env", "command", "indicateurl"})
#: Lines that start with one of these commands are left out whole.
_LINE_COMMANDS = frozenset({
    "c", "comment", "node", "cindex", "findex", "vindex", "kindex", "pindex", "tindex", "btindex", "setfilename",
    "include", "printindex", "contents", "shortcontents", "summarycontents", "insertcopying", "dircategory",
    "page", "need", "sp", "vskip", "noindent", "indent", "smallbook", "afourpaper", "finalout", "paragraphindent",
    "firstparagraphindent", "exampleindent", "documentencoding", "documentlanguage", "syncodeindex",
    "synindex", "defindex", "defcodeindex", "headings", "setchapternewpage", "raisesections",
    "lowersections", "frenchspacing", "allowcodebreaks", "kbdinputstyle", "codequoteundirected",
    "codequotebacktick", "deftypefnnewline", "xrefautomaticsectiontitle", "clickstyle", "title", "subtitle",
    "author", "evenheading", "oddheading", "evenfooting", "oddfooting", "everyheading", "everyfooting",
    "setcontentsaftertitlepage", "setshortcontentsaftertitlepage", "footnotestyle", "refill", "bye",
    "end", "hyphenation", "microtype", "columnfractions", "listoffloats", "sectionfont", "fonttextsize",
    "urefbreakstyle", "validatemenus", "novalidate", "documentdescription", "printindex",
})
#: Commands a Texinfo file's lines start with; a file with fewer than two is plain text.
_KNOWN = frozenset({*_HEADINGS, *_DROPPED, *_KEPT, *_LISTINGS, *_TABLES, *_BULLETS, *_DEFS, *_LINE_COMMANDS,
                    *(f"{d}x" for d in _DEFS), "item", "itemx", "headitem", "tab", "multitable", "set", "clear",
                    "settitle", "ifset", "ifclear", "center", "exdent"})
_LEAST_COMMANDS = 2
_COMMAND_LINE = re.compile(r"@([a-zA-Z]+)(?:[ \t]+(.*)|\s*)$")


def read_texinfo(text: str, *, doc_id: str, source: str) -> Document:
    known = sum(1 for name in re.findall(r"^@([a-zA-Z]+)", text, re.M) if name in _KNOWN)
    if known < _LEAST_COMMANDS:
        return read_plain(text, doc_id=doc_id, source=source)
    page = RoffPage()
    title = _Writer(page).write(text.split("\n"))
    return page_document(page, text, "texinfo", {"title": title}, doc_id=doc_id, source=source)


class _Writer:
    def __init__(self, page: RoffPage) -> None:
        self.page = page
        self.flags: dict[str, str] = {}
        self.blocks: list[str] = []  # the environments open, innermost last
        self.rows: list[list[str]] = []
        self.header = False

    def write(self, lines: list[str]) -> str:
        title = ""
        i = 0
        while i < len(lines):
            line = lines[i]
            i += 1
            if line.startswith("\\input"):  # TeX's first line: \input texinfo
                continue
            m = _COMMAND_LINE.match(line)
            name, arg = (m.group(1), (m.group(2) or "").strip()) if m else ("", "")
            listing = bool(self.blocks) and self.blocks[-1] in _LISTINGS
            if listing and name != "end":  # a listing keeps its lines' indentation
                self.page.text((line if self.blocks[-1] == "verbatim" else _inline(line, self.flags)).rstrip())
                continue
            if name not in _KNOWN:
                if not line.strip():
                    self.page.paragraph()
                else:
                    self.text(line)
                continue
            if name == "bye":
                break
            if name in _DROPPED:
                i = _skip(lines, i, name)
            elif name in ("ifset", "ifclear"):
                if (arg in self.flags) != (name == "ifset"):
                    i = _skip(lines, i, name)
            elif name == "set":
                flag, _, value = arg.partition(" ")
                self.flags[flag] = value
            elif name == "clear":
                self.flags.pop(arg, None)
            elif name == "settitle":
                title = title or self.inline(arg)
            elif name in _HEADINGS:
                self.rows = []
                self.blocks = [b for b in self.blocks if b in _KEPT]
                self.page.heading(_HEADINGS[name], self.inline(arg))
                title = title or (self.inline(arg) if name == "top" else "")
            elif name in _LISTINGS:
                self.blocks.append(name)
                self.page.start_pre()
            elif name in _TABLES or name in _BULLETS:
                self.blocks.append(name)
                self.page.nest()
            elif name == "multitable":
                self.blocks.append(name)
                self.rows = []
            elif name in ("item", "itemx", "headitem"):
                self.item(name, arg)
            elif name == "tab":
                if self.rows:
                    self.rows[-1].append(self.inline(arg))
            elif name in _DEFS or (name.endswith("x") and name[:-1] in _DEFS):
                self.definition(name, arg)
            elif name in ("center", "exdent"):
                self.text(arg)
            elif name in _KEPT:
                self.blocks.append(name)
            elif name == "end":
                self.end(arg.split()[0] if arg else "")
        while self.blocks:
            self.end(self.blocks[-1])
        return title

    def text(self, line: str) -> None:
        if self.blocks and self.blocks[-1] == "multitable" and self.rows:
            self.rows[-1][-1] = f"{self.rows[-1][-1]} {self.inline(line)}".strip()
            return
        self.page.text(self.inline(line))

    def item(self, name: str, arg: str) -> None:
        inner = self.blocks[-1] if self.blocks else ""
        if inner == "multitable":
            if name == "headitem":
                self.header = not self.rows
            self.rows.append([self.inline(cell) for cell in re.split(r"@tab\b", arg)])
        elif inner in _BULLETS:
            self.page.bullet()
            if arg:
                self.page.text(self.inline(arg))
        elif inner in _TABLES:
            self.page.term(self.inline(arg))
        elif arg:
            self.page.text(self.inline(arg))

    def definition(self, name: str, arg: str) -> None:
        """A definition command's line: its name and arguments as an entry's tag."""
        words = _def_words(arg)
        skip = _DEFS[name.removesuffix("x") if name not in _DEFS else name]
        defined = words[skip] if len(words) > skip else " ".join(words)
        signature = " ".join(self.inline(w) for w in words[skip - 1 if "type" in name and skip else skip:])
        if name in _DEFS:
            self.blocks.append(name)
        self.page.term(signature or self.inline(defined), anchor=self.inline(defined))

    def end(self, name: str) -> None:
        if name not in self.blocks:
            return
        while self.blocks:
            top = self.blocks.pop()
            if top in _LISTINGS:
                self.page.end_pre()
            elif top in _TABLES or top in _BULLETS:
                self.page.outdent()
            elif top == "multitable":
                self.page.table(self.rows, self.header)
                self.rows, self.header = [], False
            elif top in _DEFS:
                self.page.end_item()  # the list stays open for the next definition; text ends it
            if top == name:
                return

    def inline(self, s: str) -> str:
        """Text's commands replaced, its whitespace collapsed (outside listings)."""
        return " ".join(_inline(s, self.flags).split())


def _skip(lines: list[str], i: int, name: str) -> int:
    """The index after the ``@end name`` that closes a block opened before ``i``."""
    depth = 1
    opener = re.compile(rf"@{name}\b")
    closer = re.compile(rf"@end\s+{name}\b")
    while i < len(lines):
        if closer.match(lines[i].lstrip()):
            depth -= 1
            if depth == 0:
                return i + 1
        elif opener.match(lines[i].lstrip()):
            depth += 1
        i += 1
    return i


def _def_words(arg: str) -> list[str]:
    """A definition line's words: a braced group is one word (``{Interactive Command}``)."""
    out: list[str] = []
    i = 0
    while i < len(arg):
        if arg[i].isspace():
            i += 1
            continue
        if arg[i] == "{":
            end = _closing(arg, i)
            out.append(arg[i + 1:end])
            i = end + 1
            continue
        j = i
        while j < len(arg) and not arg[j].isspace():
            if arg[j] == "{" and j > 0 and arg[j - 1] != "@":
                j = _closing(arg, j)
            elif arg[j] == "@" and j + 1 < len(arg) and not arg[j + 1].isalpha():
                j += 1
            j += 1
        out.append(arg[i:j])
        i = j
    return out


def _depths(s: str, i: int = 0) -> Iterator[tuple[int, str, int]]:
    """Each character of ``s`` from ``i`` outside ``@`` escapes, with the brace depth after it."""
    depth = 0
    while i < len(s):
        c = s[i]
        if c == "@":
            i += 2
            continue
        depth += (c == "{") - (c == "}")
        yield i, c, depth
        i += 1


def _closing(s: str, i: int) -> int:
    """The index of the brace that closes the one at ``i`` (its end when none does)."""
    return next((j for j, c, depth in _depths(s, i) if c == "}" and depth == 0), len(s))


_NAME = re.compile(r"[a-zA-Z]+")


def _inline(s: str, flags: dict[str, str]) -> str:
    """``s`` with its ``@`` commands replaced by what they print."""
    out: list[str] = []
    i = 0
    while i < len(s):
        c = s[i]
        if c != "@":
            out.append(c)
            i += 1
            continue
        m = _NAME.match(s, i + 1)
        if m is None:
            out.append(_SYMBOLS.get(s[i + 1:i + 2], s[i + 1:i + 2]))
            i += 2
            continue
        name, i = m.group(), m.end()
        if i < len(s) and s[i] == "{":
            end = _closing(s, i)
            body, i = s[i + 1:end], end + 1
            out.append(_brace(name, body, flags))
        elif name in _FIXED:
            out.append(_FIXED[name])
        # any other command without braces prints nothing (an accent's letter after it stays)
    return "".join(out)


def _brace(name: str, body: str, flags: dict[str, str]) -> str:
    if name in _FIXED:
        return _FIXED[name]
    if name in _SILENT:
        return ""
    if name == "value":
        return flags.get(body.strip(), "")
    if name == "verb":
        return body[1:-1] if len(body) >= 2 else body
    parts = [_inline(p, flags).strip() for p in _split_args(body)]
    first = parts[0] if parts else ""
    if name == "var":
        return first.upper()
    if name in _QUOTED:
        return f"‘{first}’"
    if name in ("xref", "pxref", "ref", "inforef"):
        label = next((p for p in parts[1:3] if p), "") or first
        return {"xref": "See ", "pxref": "see "}.get(name, "") + label
    if name in ("url", "uref"):
        return f"{parts[1]} <{first}>" if len(parts) > 1 and parts[1] else (parts[2] if len(parts) > 2 and parts[2]
                                                                            else first)
    if name == "email":
        return f"{parts[1]} <{first}>" if len(parts) > 1 and parts[1] else first
    if name in ("acronym", "abbr"):
        return f"{first} ({parts[1]})" if len(parts) > 1 and parts[1] else first
    if name == "footnote":
        return f" ({_inline(body, flags).strip()})"
    if name == "key":
        return f"<{first}>"
    return _inline(body, flags)  # emphasis, code, an accent on its letter …: the text inside


def _split_args(body: str) -> list[str]:
    """A brace command's arguments, split at commas outside nested braces."""
    cuts = [j for j, c, depth in _depths(body) if c == "," and depth == 0]
    return [body[a + 1:b] for a, b in zip([-1, *cuts], [*cuts, len(body)])]

"""troff's input language as manual pages use it: control lines and their arguments, escapes,
strings and conditionals, and tbl's tables.

Only what decides the words a page prints is interpreted: fonts, sizes, motions and colours are
left out, glyphs become the characters they name, strings their values. Macros a page defines
itself (``.de``) are not run: a call of one keeps its arguments as text, so no word is lost.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

#: Named glyphs (``\(em``, ``\[bu]``) as the characters they print.
GLYPHS = {
    "em": "—", "en": "–", "hy": "-", "mi": "-", "bu": "•", "co": "©", "rg": "®", "tm": "™",
    "aq": "'", "dq": '"', "lq": "“", "rq": "”", "oq": "‘", "cq": "’", "ga": "`", "ha": "^",
    "ti": "~", "rs": "\\", "sl": "/", "ba": "|", "br": "|", "bv": "|", "ul": "_", "ru": "_",
    "pl": "+", "eq": "=", "mu": "×", "di": "÷", "+-": "±", "de": "°", "ct": "¢", "Po": "£",
    "Eu": "€", "eu": "€", "Ye": "¥", "sc": "§", "ps": "¶", "dg": "†", "dd": "‡", "Fo": "«",
    "Fc": "»", "fo": "‹", "fc": "›", ">=": "≥", "<=": "≤", "!=": "≠", "==": "≡", "~=": "≅",
    "ap": "~", "->": "→", "<-": "←", "<>": "↔", "ua": "↑", "da": "↓", "rA": "⇒", "lA": "⇐",
    "hA": "⇔", "if": "∞", "sq": "□", "ci": "○", "OK": "✓", "lh": "☜", "rh": "☞", "at": "@",
    "sh": "#", "Do": "$", "pc": "·", "fm": "′", "sd": "″", "ss": "ß", "ae": "æ", "AE": "Æ",
    "o/": "ø", "O/": "Ø", "aa": "´", "a-": "¯", "oa": "å", "Oa": "Å", "'e": "é", "'a": "á",
    "`e": "è", "`a": "à", ":u": "ü", ":o": "ö", ":a": "ä", ":U": "Ü", ":O": "Ö", ":A": "Ä",
    "~n": "ñ", ",c": "ç", "lB": "[", "rB": "]", "lC": "{", "rC": "}", "la": "⟨", "ra": "⟩",
    "tno": "¬", "no": "¬", "pd": "∂", "*a": "α", "*b": "β", "*g": "γ", "*d": "δ", "*e": "ε",
    "*l": "λ", "*m": "μ", "*p": "π", "*s": "σ", "*S": "Σ", "*W": "Ω", "*w": "ω", "bq": "„",
    "Bq": "„", "SP": " ", "nbsp": " ",
}
#: Strings a page may use without defining them (man's and groff's own).
STRINGS = {"lq": "“", "rq": "”", "R": "®", "Tm": "™", "S": "", "Aq": "'", "HF": "", "ga": "`",
           "aq": "'", "dq": '"', "an-trap": ""}
#: One-character escapes and what they print (``\&`` nothing, ``\e`` a backslash).
_SINGLE = {"e": "\\", "E": "\\", "\\": "\\", "-": "-", ".": ".", "&": "", "|": "", "^": "", ")": "",
           "/": "", ",": "", ":": "", "%": "", " ": " ", "~": " ", "0": " ", "'": "'", "`": "`",
           "t": "\t", "p": "", "{": "", "}": "", "a": "", "d": "", "u": "", "r": "", "c": "",
           "!": "", "?": "", "#": ""}

#: Requests that only set how text looks or where it goes on the sheet: nothing to read.
LAYOUT = frozenset({
    "PD", "ad", "na", "hy", "nh", "ne", "ti", "in", "ll", "ft", "ps", "vs", "nr", "rr", "ta", "tr",
    "cs", "ss", "lf", "pc", "ch", "wh", "bp", "UC", "AT", "DT", "PU", "LINKSTYLE", "ev", "it", "hw",
    "cc", "c2", "ec", "eo", "do", "so", "mso", "IX", "rm", "als", "chop", "blm", "lsm", "em", "fam",
    "fp", "ftr", "fl", "mk", "rt", "sv", "os", "ns", "rs", "hc", "lt", "pl", "po", "tm", "ab", "nx",
    "pso", "fchar", "char", "schar", "shc", "ul", "cu", "uf", "kern", "warn", "pev", "pm", "ce",
    "color", "defcolor", "gcolor", "fcolor", "TA", "mc", "cp", "vpt", "hcode", "ecs", "ecr", "ptr",
    "pnr", "papersize", "device", "devicem", "tkf", "cflags", "return", "shift", "while", "break",
    "continue", "trf", "tag", "taga", "opena", "open", "close", "write", "writec", "writem", "PT", "BT",
})

_ESCAPE = re.compile(r"""\\(?:
    (?P<comment>["#].*)
  | f(?:\[[^\]]*\]|\(..|.)
  | (?:\((?P<g2>..)|\[(?P<gn>[^\]]*)\])
  | \*(?:\[(?P<sn>[^\]\s]*)[^\]]*\]|\((?P<s2>..)|(?P<s1>.))
  | s(?:[+-]?\d|\([+-]?\d\d|\[[^\]]*\]|[+-]\(\d\d|[+-]\[[^\]]*\])
  | [hvwlLoDXZbxNSRABC]'[^']*'
  | n[+-]?(?:\[[^\]]*\]|\(..|.)
  | [mMFYgVk$](?:\[[^\]]*\]|\(..|.)
  | z
  | (?P<char>.)
)""", re.X | re.S)


@dataclass
class Troff:
    """The state a page builds up as it is read: its strings, and the last ``.ie``'s verdict."""

    strings: dict[str, str] = field(default_factory=lambda: dict(STRINGS))
    last_if: bool = True

    def text(self, s: str) -> str:
        """``s`` with its escapes replaced by what they print."""
        if "\\" not in s:
            return s
        return _ESCAPE.sub(self._escape, s)

    def _escape(self, m: re.Match[str]) -> str:
        if m.group("comment") is not None:
            return ""
        name = m.group("g2") or m.group("gn")
        if name is not None:
            return glyph(name)
        name = m.group("sn") or m.group("s2") or m.group("s1")
        if name is not None:
            return self.strings.get(name, "")
        char = m.group("char")
        if char is not None:
            return _SINGLE.get(char, char)
        return ""

    def define(self, name: str, value: str) -> None:
        # ``.ds x "value``: a leading quote only marks where the value starts
        self.strings[name] = self.text(value.removeprefix('"'))

    def condition(self, rest: str) -> tuple[bool, str]:
        """``.if``'s condition at the start of ``rest``: whether it holds, and the body after it.

        The page is read as nroff would (``n`` holds, ``t`` does not) by groff (``\\n(.g`` is 1).
        """
        rest = rest.lstrip()
        negate = rest.startswith("!")
        rest = rest.removeprefix("!")
        if rest[:1] == "'" or rest[:1] == '"':
            q = rest[0]
            parts = rest[1:].split(q, 2)
            held = len(parts) == 3 and self.text(parts[0]) == self.text(parts[1])
            body = parts[2] if len(parts) == 3 else ""
        else:
            m = re.match(r"([ntoev])(?=\s|\\|$)|(d|r|m|c)\s*(\S+)|(\S+)", rest)
            if m is None:
                return False, ""
            body = rest[m.end():]
            if m.group(1):
                held = m.group(1) in "no"
            elif m.group(2):
                held = m.group(2) == "d" and m.group(3) in self.strings
            else:
                held = _number(m.group(4)) > 0
        return held != negate, body.lstrip()


def glyph(name: str) -> str:
    """The character a glyph name prints: ``em`` an em dash, ``u00E9`` é, ``char92`` a backslash."""
    if name in GLYPHS:
        return GLYPHS[name]
    m = re.fullmatch(r"u([0-9A-Fa-f]{4,6})((?:_[0-9A-Fa-f]{4,6})*)", name)
    if m:
        return "".join(chr(int(h, 16)) for h in (m.group(1), *m.group(2).split("_")[1:]))
    m = re.fullmatch(r"char(\d{1,3})", name)
    return chr(int(m.group(1))) if m else ""


_REGISTER = re.compile(r"\\n[+-]?(?:\[([^\]]*)\]|\((..)|(.))")


def _number(expr: str) -> int:
    """A numeric condition's value: registers read as groff's (``.g`` 1, others 0), comparisons
    of two integers worked out; anything else 0."""
    expr = _REGISTER.sub(lambda m: "1" if (m.group(1) or m.group(2) or m.group(3)) == ".g" else "0", expr)
    expr = re.sub(r"(?<=\d)[muivpPcn]", "", expr)
    m = re.fullmatch(r"\(?(-?\d+)\)?(?:(>=|<=|==|=|>|<)\(?(-?\d+)\)?)?", expr)
    if m is None:
        return 0
    a = int(m.group(1))
    if m.group(2) is None:
        return a
    b = int(m.group(3))
    return int({">=": a >= b, "<=": a <= b, "==": a == b, "=": a == b, ">": a > b, "<": a < b}[m.group(2)])


#: One argument: quoted (``""`` in it a quote, closed by a quote or the line's end), or a run
#: of characters that are not blanks, escapes kept whole (``\\ `` does not split).
_ARGUMENT = re.compile(r'"((?:""|\\.|[^"\\])*)(?:"|$)|((?:\\.|\\$|[^ \t\\])+)', re.S)


def arguments(rest: str) -> list[str]:
    """A control line's arguments: split at spaces, a quoted one kept whole (``""`` in it a
    quote), an escaped space part of its argument."""
    return [m.group(1).replace('""', '"') if m.group(1) is not None else m.group(2)
            for m in _ARGUMENT.finditer(rest)]


@dataclass(frozen=True)
class Line:
    """One input line: a request or macro call (``name`` and raw ``args``), or text."""

    name: str | None
    args: str


_CONTROL = re.compile(r"[.'][ \t]*(\S*)[ \t]*(.*)")


def lines(text: str, troff: Troff) -> Iterator[Line]:
    """The page's lines with comments, ``.de``/``.ig`` bodies and false conditionals left out,
    escaped newlines joined, strings defined as they come."""
    raw = _joined(text.split("\n"))
    i = 0
    pending: list[str] = []  # bodies of conditionals that held, read before the next raw line
    while pending or i < len(raw):
        if pending:
            line = pending.pop(0)
        else:
            line = raw[i]
            i += 1
        m = _CONTROL.fullmatch(line) if line[:1] in ".'" else None
        if m is None:
            if line.strip():
                yield Line(None, line)
            else:
                yield Line("sp", "")
            continue
        name, rest = m.group(1), _uncommented(m.group(2))
        if name.startswith("\\\"") or name.startswith("\\#") or name in ("", "\\}"):
            continue  # a comment, an empty request, a block's close
        if name in ("de", "de1", "am", "ig", "dei", "ami"):
            a = arguments(rest)
            given = a[1] if name != "ig" and len(a) > 1 else a[0] if name == "ig" and a else "."
            end = re.compile(rf"[.'][ \t]*{re.escape(given)}(?:[ \t].*)?")
            while i < len(raw) and not end.fullmatch(raw[i]):
                i += 1
            i += 1
            continue
        if name in ("if", "ie", "el"):
            if name == "el":
                held, body = not troff.last_if, rest
            else:
                held, body = troff.condition(rest)
                if name == "ie":
                    troff.last_if = held
            opens = body.startswith("\\{")
            body = body.removeprefix("\\{").removeprefix("\\").strip() if opens else body
            if held:
                if body and not body.startswith("\\}"):
                    pending.insert(0, body if body[:1] in ".'" else body)
            elif opens and "\\}" not in body:
                i = _skip_block(raw, i)
            continue
        if name == "ds" or name == "ds1":
            parts = rest.split(None, 1)
            if parts:
                troff.define(parts[0], parts[1] if len(parts) > 1 else "")
            continue
        yield Line(name, rest)


def _uncommented(rest: str) -> str:
    """A control line's arguments without the comment that may end it (``.ig \\" note``)."""
    i = rest.find("\\")
    while i != -1 and i + 1 < len(rest):
        if rest[i + 1] in "\"#":
            return rest[:i].rstrip()
        i = rest.find("\\", i + 2)
    return rest


def _joined(raw: list[str]) -> list[str]:
    """Lines with escaped newlines joined (a trailing ``\\`` not itself escaped)."""
    out: list[str] = []
    buf = ""
    for line in raw:
        stripped = line.rstrip("\\")
        if (len(line) - len(stripped)) % 2 == 1:
            buf += line[:-1]
            continue
        out.append(buf + line)
        buf = ""
    if buf:
        out.append(buf)
    return out


def _skip_block(raw: list[str], i: int) -> int:
    """The index after a false conditional's ``\\{ … \\}`` block, blocks inside it counted."""
    depth = 1
    while i < len(raw) and depth > 0:
        depth += raw[i].count("\\{") - raw[i].count("\\}")
        i += 1
    return i


#: A tbl option line: words and ``name(value)`` pairs ending in ``;``.
_TBL_OPTIONS = re.compile(r"[^.]*;\s*$")


def tbl_rows(body: list[str], troff: Troff) -> tuple[list[list[str]], bool]:
    """A ``.TS``/``.TE`` table's rows of cell text, and whether its first row is a header (set
    in bold, or ruled off from the rows under it)."""
    tab = "\t"
    i = 0
    if body and _TBL_OPTIONS.match(body[0]):
        m = re.search(r"tab\s*\((.)\)", body[0])
        if m:
            tab = m.group(1)
        i = 1
    formats: list[str] = []
    while i < len(body):
        formats.append(body[i])
        i += 1
        if body[i - 1].rstrip().endswith("."):
            break
    # b and B are no column keys: in a format line they only set a column bold
    bold_head = bool(formats) and re.search(r"[bB]", formats[0]) is not None
    rows: list[list[str]] = []
    ruled_after_first = False
    cells: list[str] = []
    block: list[str] | None = None  # a T{ … T} cell's lines while it is open

    def take(line: str) -> list[str] | None:
        """Cells of a row's text into ``cells``; a new block when it ends in ``T{``, else the
        row is done."""
        nonlocal cells
        parts = line.split(tab)
        opens = parts[-1].strip() == "T{"
        cells.extend(troff.text(p).strip() for p in (parts[:-1] if opens else parts))
        if opens:
            return []
        rows.append(cells)
        cells = []
        return None

    while i < len(body):
        line = body[i]
        i += 1
        if block is not None:
            if line.startswith("T}"):
                cells.append(" ".join(w for w in block if w))
                rest = line[2:]
                if rest.startswith(tab):
                    block = take(rest[1:])
                else:
                    rows.append(cells)
                    cells, block = [], None
            elif line[:1] not in ".'":
                block.append(troff.text(line).strip())
            continue
        if line.strip() in ("_", "=", "\\_"):
            ruled_after_first = ruled_after_first or len(rows) == 1
            continue
        if line.startswith(".T&"):
            while i < len(body) and not body[i].rstrip().endswith("."):
                i += 1
            i += 1
            continue
        if line[:1] in ".'":
            continue
        block = take(line)
    if cells:
        rows.append(cells)
    rows = [r for r in rows if any(c.strip("_= ") for c in r)]
    return rows, bool(rows) and (bold_head or ruled_after_first) and len(rows) > 1

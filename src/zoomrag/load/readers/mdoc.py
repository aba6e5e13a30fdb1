"""mdoc(7), the BSDs' and macOS's manual page macros: semantic markup (``.Fl a`` is the flag
``-a``, ``.Xr ls 1`` the page ``ls(1)``, ``.Op`` an option in brackets) written as the text it
prints, and its lists, displays and references as :class:`.roffpage.RoffPage` blocks."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .roffpage import NAME_HEADS, RoffPage, title_line
from .troff import LAYOUT, Line, Troff, arguments

_START = re.compile(r"^[.'][ \t]*(Dd|Dt)\b", re.M)

#: Macros that may be called from another's arguments (mdoc's "callable" macros).
_CALLABLE = frozenset(
    "Ad An Ap Ar At Bc Bo Bq Brc Bro Brq Bsx Bx Cd Cm Dc Do Dq Dv Dx Ec Em En Eo Er Es Ev Fa Fc "
    "Fl Fn Fo Fr Ft Fx Hf Ic Li Lk Ms Mt Nm No Ns Nx Oc Oo Op Ox Pa Pc Pf Po Pq Qc Ql Qo Qq Sc So "
    "Sq St Sx Sy Ta Tn Ux Va Vt Xc Xo Xr".split())
#: Macros that enclose the rest of their line: what they open and close it with.
_ENCLOSE = {"Op": ("[", "]"), "Dq": ("“", "”"), "Sq": ("‘", "’"), "Qq": ('"', '"'), "Pq": ("(", ")"),
            "Bq": ("[", "]"), "Brq": ("{", "}"), "Aq": ("⟨", "⟩"), "Ql": ("‘", "’")}
#: Macros that open or close an enclosure spread over lines.
_OPEN = {"Oo": "[", "Do": "“", "So": "‘", "Qo": '"', "Po": "(", "Bo": "[", "Bro": "{"}
_CLOSE = {"Oc": "]", "Dc": "”", "Sc": "’", "Qc": '"', "Pc": ")", "Bc": "]", "Brc": "}"}
#: Macros that print a name.
_NAMES = {"Ux": "UNIX", "Bx": "BSD", "Ox": "OpenBSD", "Nx": "NetBSD", "Fx": "FreeBSD",
          "Dx": "DragonFly", "Bsx": "BSD/OS", "At": "AT&T UNIX"}
_STANDARDS = {
    "-ansiC": "ANSI X3.159-1989 (“ANSI C89”)", "-isoC": "ISO/IEC 9899:1990 (“ISO C90”)",
    "-isoC-99": "ISO/IEC 9899:1999 (“ISO C99”)", "-isoC-2011": "ISO/IEC 9899:2011 (“ISO C11”)",
    "-p1003.1": "IEEE Std 1003.1 (“POSIX.1”)", "-p1003.1-2001": "IEEE Std 1003.1-2001 (“POSIX.1”)",
    "-p1003.1-2008": "IEEE Std 1003.1-2008 (“POSIX.1”)", "-p1003.2": "IEEE Std 1003.2 (“POSIX.2”)",
    "-xpg4": "X/Open Portability Guide Issue 4 (“XPG4”)", "-susv2": "Version 2 of the Single UNIX "
    "Specification (“SUSv2”)", "-susv3": "Version 3 of the Single UNIX Specification (“SUSv3”)",
    "-susv4": "Version 4 of the Single UNIX Specification (“SUSv4”)"}
#: Words that join the word before them (closing punctuation) or after them (opening).
_CLOSING = frozenset(".,:;)]?!")
_OPENING = frozenset("([")
#: Arguments that are punctuation, not words: a flag macro does not make them flags.
_DELIMITERS = _CLOSING | _OPENING | {"|"}
#: A reference's parts (``.%A`` author, ``.%T`` title …) in the order they are printed.
_REFERENCE = ("%A", "%T", "%B", "%R", "%J", "%I", "%C", "%V", "%N", "%P", "%Q", "%D", "%U", "%O")
_LITERAL = frozenset({"-literal", "-unfilled", "-centered", "-code"})
_TAGGED = frozenset({"-tag", "-diag", "-hang", "-ohang", "-inset"})


def is_mdoc(head: str) -> bool:
    return _START.search(head) is not None


class _Words:
    """Words as mdoc spaces them: closing punctuation joins the word before, opening the word
    after, ``Ns`` removes one space."""

    def __init__(self, spaced: bool = True) -> None:
        self.parts: list[str] = []
        self.tight = True  # no space before the next word
        self.spaced = spaced  # ``.Sm off``: words are joined with no space

    def add(self, word: str, delimiters: bool = True) -> None:
        if not word:
            return
        if self.parts and self.spaced and not self.tight and not (delimiters and word in _CLOSING):
            self.parts.append(" ")
        self.parts.append(word)
        self.tight = delimiters and word in _OPENING

    def text(self) -> str:
        return "".join(self.parts)


class _Mdoc:
    def __init__(self, troff: Troff) -> None:
        self.troff = troff
        self.name = ""
        self.spaced = True

    def inline(self, tokens: list[str]) -> str:
        """The text a line's arguments print, macros among them interpreted."""
        w = _Words(self.spaced)
        i = 0
        while i < len(tokens):
            t = tokens[i]
            i += 1
            if t not in _CALLABLE and t not in _ENCLOSE:
                w.add(self.troff.text(t))
                continue
            if t in _ENCLOSE:
                rest = tokens[i:]
                k = len(rest)
                while k and rest[k - 1] in _CLOSING - {")", "]"}:  # trailing punctuation goes after
                    k -= 1
                w.add(_ENCLOSE[t][0] + self.inline(rest[:k]) + _ENCLOSE[t][1], delimiters=False)
                for c in rest[k:]:
                    w.add(c)
                break
            args, i = self._args(tokens, i)
            if t == "Ns":
                w.tight = True
                i -= len(args)  # its words are read as words
            elif t == "Ap":
                w.tight = True
                w.add("'")
                w.tight = True
                i -= len(args)
            elif t == "An" and args[:1] in (["-split"], ["-nosplit"]):
                i -= len(args) - 1
            elif t == "Pf":
                if args:
                    w.add(self.troff.text(args[0]), delimiters=False)
                    w.tight = True
                    i -= len(args) - 1
            elif t in _OPEN:
                w.add(_OPEN[t], delimiters=False)
                w.tight = True
                i -= len(args)
            elif t in _CLOSE:
                w.tight = True
                w.add(_CLOSE[t], delimiters=False)
                i -= len(args)
            elif t == "Fl":
                words = [a for a in args if a not in _DELIMITERS]
                if not words:
                    w.add("-")
                for a in args:
                    w.add(a if a in _DELIMITERS else "-" + self.troff.text(a))
            elif t == "Xr":
                if args:
                    sec = f"({args[1]})" if len(args) > 1 and args[1] not in _CLOSING else ""
                    w.add(self.troff.text(args[0]) + sec)
                    for a in args[2 if sec else 1:]:
                        w.add(self.troff.text(a))
            elif t == "Fn":
                if args:
                    call = [self.troff.text(a) for a in args[1:] if a not in _CLOSING]
                    w.add(f"{self.troff.text(args[0])}({', '.join(call)})")
                    for a in args[1:]:
                        if a in _CLOSING:
                            w.add(a)
            elif t == "Lk":
                if args:
                    url = self.troff.text(args[0])
                    label = " ".join(self.troff.text(a) for a in args[1:] if a not in _CLOSING)
                    w.add(f"{label} <{url}>" if label else url)
                    for a in args[1:]:
                        if a in _CLOSING:
                            w.add(a)
            elif t == "Nm":
                words = [a for a in args if a not in _CLOSING]
                if not words and self.name:
                    w.add(self.name)
                for a in args:
                    w.add(self.troff.text(a))
            elif t in _NAMES:
                w.add(_NAMES[t] if t != "Bx" or not args else f"{args[0]}BSD")
                for a in args[1 if t == "Bx" and args else 0:]:
                    w.add(self.troff.text(a))
            elif t == "St":
                for a in args:
                    w.add(_STANDARDS.get(a, a.lstrip("-")))
            elif t == "Ta":
                w.add("\t", delimiters=False)
                w.tight = True
            elif t == "Ar" and not [a for a in args if a not in _CLOSING]:
                w.add("file ...")
                for a in args:
                    w.add(a)
            elif t in ("Xo", "Xc"):
                pass
            else:
                for a in args:
                    w.add(self.troff.text(a))
        return w.text()

    @staticmethod
    def _args(tokens: list[str], i: int) -> tuple[list[str], int]:
        start = i
        while i < len(tokens) and tokens[i] not in _CALLABLE and tokens[i] not in _ENCLOSE:
            i += 1
        return tokens[start:i], i


def write_mdoc(it: Iterator[Line], troff: Troff, page: RoffPage) -> dict[str, str]:
    m = _Mdoc(troff)
    meta: dict[str, str] = {}
    lists: list[str] = []
    rows: list[list[str]] = []
    section = ""
    description = ""
    reference: dict[str, list[str]] = {}
    in_dl = False
    literal = False
    for line in it:
        name, rest = line.name, line.args
        if in_dl and name != "Dl":
            page.end_pre()
            in_dl = False
        if name is None:
            text = troff.text(rest)
            if section in NAME_HEADS:
                description = f"{description} {text}".strip()
            elif lists and lists[-1] == "-column" and rows:
                rows[-1][-1] = f"{rows[-1][-1]} {text.strip()}".strip()
            else:
                page.text(text.rstrip() if literal else text)
            continue
        tokens = arguments(rest)
        if name == "Dd":
            meta["date"] = troff.text(rest).strip().strip("$").removeprefix("Mdocdate: ").strip()
        elif name == "Dt":
            meta["page_title"] = tokens[0] if tokens else ""
            meta["man_section"] = tokens[1] if len(tokens) > 1 else ""
        elif name == "Os":
            meta["package"] = troff.text(" ".join(tokens))
        elif name in ("Sh", "Ss"):
            head = m.inline(tokens)
            if name == "Sh":
                section = head.strip().upper()
            if section in NAME_HEADS and name == "Sh":
                page.end_list()
                continue
            page.heading(2 if name == "Sh" else 3, head)
        elif name in ("Pp", "Lp", "sp"):
            if literal:
                page.text("")
            else:
                page.paragraph()
        elif name == "br":
            page.line_break()
        elif name == "Nm" and section in NAME_HEADS:
            names = [troff.text(t) for t in tokens if t not in _CLOSING]
            m.name = m.name or (names[0] if names else "")
            meta["names"] = ", ".join(filter(None, (meta.get("names", ""), *names)))
        elif name == "Nd":
            description = f"{description} {m.inline(tokens)}".strip()
        elif name == "Nm" and section == "SYNOPSIS":
            page.paragraph()
            if not m.name and tokens:
                m.name = troff.text(tokens[0])
            page.text(m.inline(["Nm", *tokens]))
        elif name == "Bl":
            kind = next((t for t in tokens if t in _TAGGED or t in (
                "-bullet", "-dash", "-hyphen", "-item", "-enum", "-column")), "-item")
            lists.append(kind)
            if kind == "-column":
                rows = []
            else:
                page.nest()
        elif name == "It":
            kind = lists[-1] if lists else "-item"
            head = _item_head(tokens, it, m)
            if kind == "-column":
                rows.append([c.strip() for c in head.split("\t")])
            elif kind in _TAGGED:
                page.term(head)
            else:
                page.bullet()
                if head:
                    page.text(head)
        elif name == "El":
            kind = lists.pop() if lists else ""
            if kind == "-column":
                page.table(rows, False)
                rows = []
            else:
                page.outdent()
        elif name == "Bd":
            literal = bool(_LITERAL.intersection(tokens))
            if literal:
                page.start_pre()
            else:
                page.paragraph()
        elif name == "Ed":
            if literal:
                page.end_pre()
            else:
                page.paragraph()
            literal = False
        elif name == "Dl":
            if not in_dl:
                page.start_pre()
                in_dl = True
            page.text(m.inline(tokens))
        elif name == "D1":
            page.paragraph()
            page.text(m.inline(tokens))
            page.paragraph()
        elif name == "In":
            page.text(f"#include <{troff.text(tokens[0])}>" if tokens else "")
            page.line_break()
        elif name == "Fo":
            page.text(f"{troff.text(tokens[0])}(" if tokens else "(", glue=True)
        elif name == "Fc":
            page.text(")")
        elif name == "Ex" or name == "Rv":
            subject = " ".join(troff.text(t) for t in tokens if t != "-std") or m.name
            page.text(f"The {subject} utility exits 0 on success, and >0 if an error occurs." if name == "Ex" else
                      f"The {subject}() function returns the value 0 if successful; otherwise the value -1 is "
                      "returned and the global variable errno is set to indicate the error.")
        elif name == "Rs":
            reference = {}
        elif name.startswith("%"):
            reference.setdefault(name, []).append(troff.text(" ".join(tokens)))
        elif name == "Re":
            parts = [", ".join(reference[k]) if k == "%A" else " ".join(reference[k])
                     for k in _REFERENCE if k in reference]
            page.paragraph()
            page.text(", ".join(parts) + ("." if parts else ""))
            page.paragraph()
        elif name == "Sm":
            m.spaced = tokens[:1] != ["off"] if tokens else not m.spaced
        elif name in ("Bk", "Ek", "Ud", "Bt", "Lb", "Fd", "Ft", "Fa", "Vt", "Tn"):
            if name in ("Fd", "Ft", "Fa", "Vt", "Tn", "Lb") and tokens:
                page.text(m.inline([name, *tokens]) if name != "Lb" else f"library “{tokens[0]}”")
        elif name in _CALLABLE or name in _ENCLOSE:
            text = m.inline([name, *tokens])
            if section in NAME_HEADS:
                description = f"{description} {text}".strip()
            else:
                page.text(text)
        elif name.startswith("\\"):
            pass
        else:
            text = troff.text(" ".join(tokens))
            if text.strip() and name not in LAYOUT:
                page.text(text)
    named = meta.pop("names", "") or m.name
    if not named and meta.get("page_title"):
        t = meta["page_title"]
        named = t.lower() if t.isupper() else t
    if named:
        meta["title"] = title_line(named, meta.get("man_section", ""), description)
        page.title(meta["title"])
    meta.pop("page_title", None)
    return meta


def _item_head(tokens: list[str], it: Iterator[Line], m: _Mdoc) -> str:
    """An ``.It`` line's head; with ``Xo``, the lines up to ``Xc`` go on with it."""
    head = m.inline(tokens)
    if "Xo" not in tokens:
        return head
    lead = head  # the It line's own words are spaced from what goes on from them
    for line in it:
        toks = arguments(line.args)
        if line.name == "Sm":
            m.spaced = toks[:1] != ["off"] if toks else not m.spaced
            continue
        part = m.troff.text(line.args) if line.name is None else m.inline(
            toks if line.name == "Xc" else [line.name, *toks])
        if part:
            head = f"{head} {part}" if head and (m.spaced or head == lead) else head + part
        if line.name == "Xc" or "Xc" in toks:
            break
    return head

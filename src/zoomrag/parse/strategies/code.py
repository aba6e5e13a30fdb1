"""``code``: source split at definitions, in units of about ``min_size``–``max_size`` tokens.

Python is read with :mod:`ast` (definitions with their decorators, the comments above them and
their docstrings); other languages, and Python that does not parse, by layout (a line at the
block's indentation, the more-indented lines after it, closing lines such as ``}``). Then sizes:
small neighbours are merged up to ``max_size``; a bigger unit becomes a parent of its own parts,
down to blank-line groups, lines and size cuts. docs/strategies.md (``code``) has the rules.
"""

from __future__ import annotations

import ast
import math
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import PurePath

from ...load.spans import trim_end
from ...model import Document
from ...text import comments
from ...text.tokens import Measure
from ..base import Chunker, Span, measure_for, unwrap
from ..params import check_int, check_unit
from ..sizing import split_recursive

#: Node kinds of definitions: what a section is to prose (assembly carries their signatures).
DEFINITIONS = frozenset({"class", "function", "method"})
#: Languages of schemas, whose types are read for their members: each member a unit of its own
#: (a GraphQL field, a protocol buffer's field or enum value, with its description).
SCHEMA_LANGUAGES = frozenset({"graphql", "protobuf"})
#: Languages whose functions may be declared without a body (``int f(void);``: a header's API)
#: and whose struct fields are ``Type name;``; in C, C++ and Objective-C a line starting with
#: ``#`` is the preprocessor's, and ``#define NAME(args)`` defines a macro.
DECLARING = frozenset({"c", "cpp", "objectivec", "java", "csharp"})


@dataclass(frozen=True)
class CodeChunker(Chunker):
    """Definition-first chunking of source code.

    Parameters:
        max_size: largest leaf, in ``unit``, its comment markers (``///``, ``//``) not counted (a
            single unbreakable token may exceed it).
        min_size: units smaller than this are merged with their neighbours (0 = never merge).
        unit: ``tokens`` (the default embedder's tokenizer), ``chars`` or ``approx``.
        language: force a language (``python`` uses :mod:`ast`); empty = from the document's
            metadata, format or file extension, else guessed.
    """

    name = "code"
    max_size: int = 160
    min_size: int = 80
    unit: str = "tokens"
    language: str = ""

    def __post_init__(self) -> None:
        check_int(self.name, "max_size", self.max_size, 1)
        check_int(self.name, "min_size", self.min_size, 0, self.max_size)
        check_unit(self.name, self.unit)

    def split(self, document: Document) -> list[Span]:
        text = document.text
        if not text.strip():
            return []
        language = language_of(document, self.language)
        lines = _Lines(text, declares=language in DECLARING)
        units = None
        if language == "python":
            units = python_units(text, lines)
        if units is None:
            units = layout_units(lines, 0, lines.count - 1)
        first = units[0] if units and not units[0].nodes else None
        if first is not None and LEAD_LINE.match(lines.rows[first.first]):
            # a licence header alone: merged with the package line and imports after it, it made
            # every file's first unit say the same, and that unit won questions about them; nor
            # with the line it leads into (Java's ``package``, a C header's ``#ifndef`` guard)
            comment_end = _first_comment_end(lines, first.first, first.last)
            attached = comment_end < first.last  # a doc comment may name a licence; it says no copyright
            if (_COPYRIGHT if attached else _LICENCE).search(text, 0, lines.end(comment_end)):
                if attached:
                    rest = _Unit(first.kind, comment_end + 1, first.last, head=max(first.head, comment_end + 1))
                    units[:1] = [_Unit("code", first.first, comment_end, head=first.first), rest]
                units[0].alone = True
        sizer = _Sizer(text, lines, measure_for(document, self.unit), self.max_size, self.min_size,
                       members=language in SCHEMA_LANGUAGES)
        spans = _join_fences(text, sizer.fit(units))
        if document.format == "code":  # a source file: its definitions are its sections
            _name_definitions(text, spans, (), declares=lines.declares)
        return spans


def _join_fences(text: str, spans: list[Span]) -> list[Span]:
    """A fenced block's fence lines join the code they open and close (a leaf may pass the size
    limit by that line), so no leaf is a lone fence and no context opens or ends on one."""
    if len(spans) < 2 or not _FENCE.match(text.lstrip("\n")):
        return spans
    last = spans[-1]
    if not last.children and _FENCE.fullmatch(text[last.start:last.end]):
        span: Span | None = spans[-2]
        while span is not None:
            span.end = last.end
            span = span.children[-1] if span.children else None
        spans = spans[:-1]
    first = spans[0]
    if len(spans) > 1 and not first.children and _FENCE_OPEN.fullmatch(text[first.start:first.end]):
        span = spans[1]
        while span is not None:
            span.start = first.start
            span = span.children[0] if span.children else None
        spans = spans[1:]
    return spans


# A definition's name: after its keyword (``def``, ``class``, ``function``, ``fn``, ``struct``…), else
# the word before its first "(" (``async exec () {``, ``int main(void)``, ``const f = (x) =>``).
_DEFINED = re.compile(
    r"^[ \t]*(?:template[ \t]*<[^\n]*?>[ \t]*)?(?:[\w()]+[ \t]+)*?(?:def|class|function|func|fn|sub|struct|interface|trait|enum|impl|type|mod|"
    r"module|namespace|record|object|protocol|macro_rules!|input|scalar|union|message|service|rpc|oneof)"
    r"(?:<(?:[^<>\n]|<[^<>\n]*>)*>)?"  # Rust's generics: "impl<'a> Deserializer<'a>"
    r"[ \t]+(?:\([^)]*\)[ \t]*)?(?:(?:class|struct)[ \t]+(?=\w))?(\w+)", re.MULTILINE)  # C++'s "enum class"
# Rust's implementation of a trait for a type, named as rustdoc shows it: "Display for Error".
_IMPL_FOR = re.compile(r"[ \t]*(?:<(?:[^<>\n]|<[^<>\n]*>)*>)?[ \t]+for[ \t]+(\w+)")
# A function assigned to a member or a variable: named by what it is assigned to, as callers
# write it (``res.cookie``, ``Router.handle`` of ``Router.prototype.handle``, ``etag`` of
# ``exports.etag``).
_ASSIGNED = re.compile(r"[ \t]*(?:(?:export|const|let|var)[ \t]+)*([\w$]+(?:\.[\w$]+)*)[ \t]*=[ \t]*"
                       r"(?:[\w$]+(?:\.[\w$]+)*[ \t]*=[ \t]*)*(?:async[ \t]*)?(?:function\b|\(|[\w$]+[ \t]*=>)")
_NOT_OWNERS = frozenset({"module", "exports", "prototype", "this"})
_LINE = re.compile(r"[^\n]+")
_CALLED = re.compile(r"(?:^|[ \t*&])(\w+)[ \t]*(?:=[ \t]*(?:async[ \t]*)?(?:function\b|\()|\()")
#: A word in capitals called before the name: a macro around a return type (``GIT_EXTERN(int)``)
#: or the parameters (zlib's ``OF((…))``), or one that declares a member (``CURLOPT(NAME, …)``).
_MACRO_WORD = re.compile(r"[A-Z][A-Z0-9_]+")
#: A C++ operator's name (``operator[]``, ``operator==``, ``operator()``).
_OPERATOR = re.compile(r"(?:^|[ \t*&:])operator[ \t]*(\(\)|[^\w\s(]+)[ \t]*\(")
#: The name a callback type declares: ``(*name)(`` or ``GIT_CALLBACK(name)(``.
_POINTER_NAME = re.compile(r"[ \t]*\*?[ \t]*(\w+)[ \t]*\)[ \t]*\(")
#: A C macro's definition (``#define MAX(a, b)``): a definition, where other lines starting with
#: ``#`` (``#include``, ``#ifndef``, a constant's ``#define``) lead into what follows as comments do.
MACRO_DEFINITION = re.compile(r"[ \t]*#[ \t]*define[ \t]+(\w+)\(")
#: A C++ template's head (``template <typename T>``), which may run over lines: it leads into
#: the declaration after it as a decorator does.
TEMPLATE = re.compile(r"[ \t]*template[ \t]*<")


def template_head(line: str, angles: int) -> int:
    """The depth of a C++ template head's angle brackets after ``line``, given their depth
    before it; -1 when the line is not (a part of) a template head alone (``template <class T>``,
    not ``template <class T> void f(T x) {``)."""
    if not angles and not TEMPLATE.match(line):
        return -1
    depth = angles + line.count("<") - line.count(">")
    return max(0, depth) if angles or depth > 0 or line.rstrip().endswith(">") else -1

#: A typedef's name on the line that closes its body: ``} git_clone_local_t;``.
_CLOSING_NAME = re.compile(r"\}[ \t]*(\w+)[ \t]*;[ \t]*$")


def _first_comment_end(lines: _Lines, first: int, last: int) -> int:
    """The last line of the comment lines ``first`` starts (a ``/* … */`` block, a run of ``//``
    or, outside C and its kin, ``#`` lines), at most ``last``."""
    commented = False
    for i in range(first, last + 1):
        stripped = lines.rows[i].strip()
        in_comment, commented = in_block_comment(stripped, commented)
        if in_comment:
            if not commented:
                return i
            continue
        if not stripped.startswith("//") and (lines.declares or not stripped.startswith("#")):
            return max(first, i - 1)  # in C, a line starting with "#" is the preprocessor's
    return last


def _called_name(line: str) -> str:
    """The name of what a line calls or declares: the first word before a "(" (or assigned a
    function), past a macro in capitals around its type (``GIT_EXTERN(int) git_clone(``), the
    word before one around its parameters (``deflate OF((…))``), the name in a callback type's
    parentheses (``int (*git_cb)(``)."""
    operator = _OPERATOR.search(line)
    if operator:
        return "operator" + operator[1]
    called = list(_CALLED.finditer(line))
    for k, m in enumerate(called):
        word = m[1]
        if line[m.end() - 1] != "(":
            return word  # a function assigned to a name
        pointer = _POINTER_NAME.match(line, m.end())
        if pointer and (_MACRO_WORD.fullmatch(word) or line[m.end():].lstrip().startswith("*")):
            return pointer[1]
        if _MACRO_WORD.fullmatch(word):
            if line.startswith("(", m.end()):
                before = re.findall(r"\w+", line[:m.start(1)])
                return before[-1] if before else word
            if k + 1 < len(called):
                continue
        return word
    return ""


def _name_definitions(text: str, spans: list[Span], path: tuple[str, ...], head: int = -1,
                      in_type: bool = False, declares: bool = False) -> None:
    """``section_path`` of each class, function and method: its qualified name (``TextWrapper``,
    ``_handle_long_word``), which its parts inherit, so a context from inside a method says where
    it is as a heading trail does in prose. A definition found again inside a piece of itself (a
    decorated method too long for one unit: its ``def`` line under the decorator) is not nested
    in itself: ``Scaffold › before_request``, not ``… › before_request › before_request``. A
    piece of a type's body that declares one member is named by it (``Mutation › addStar``,
    ``RetryInfo › retry_delay``)."""
    for span in spans:
        inner, inner_head, inner_type = path, head, False
        if span.kind in DEFINITIONS:
            name, own = _definition_name(text, span.start, span.end, declares)
            if not name and span.kind == "class":  # typedef struct { … } name;
                closing = _CLOSING_NAME.search(text, max(span.start, text.rfind("\n", span.start, span.end)), span.end)
                name = closing[1] if closing else ""
            if name and own != head:
                inner, inner_head = (*path, name), own
            if name:
                span.section_path = inner
            inner_type = span.kind == "class"
        elif in_type and path:
            member = _member_name(text, span.start, span.end, declares)
            if member:
                inner = span.section_path = (*path, member)
        _name_definitions(text, span.children, inner, inner_head, inner_type, declares)


def _definition_name(text: str, start: int, end: int, declares: bool = False) -> tuple[str, int]:
    """The name a definition's first line that is no comment, decorator or template head
    gives, or '', and where that line starts (-1 when there is none)."""
    pending, head = "", -1  # an unfinished assignment's first line(s) (``res.type =``)
    quoted = commented = False  # inside a description in triple quotes (GraphQL's), a comment
    angles = 0  # inside a template's head (``template <typename T,`` / ``  typename U>``)
    shown: tuple[str, int] = ("", -1)  # a declaration shown in a comment: a macro (zlib's deflateInit2)
    for m in _LINE.finditer(text, start, end):  # on the text: a big class is not copied per level
        line = m.group()[:_KIND_PREFIX]
        stripped = line.strip()
        in_comment, commented = in_block_comment(stripped, commented)
        if in_comment:
            if declares and text[start:m.start()].strip() == "/*" and _DECLARATION.match(line):
                shown = (_called_name(line), m.start())
            continue
        if declares:
            inside = template_head(line, angles)
            if inside >= 0:
                angles = inside
                continue
            define = MACRO_DEFINITION.match(line)
            if define:
                return define[1], m.start()
            if _LABEL.match(line):  # ``public:`` above a member
                continue
        described, quoted = in_description(stripped, quoted)
        if described or LEAD_LINE.match(line) or not stripped:
            continue
        head = m.start() if head < 0 else head
        if _UNFINISHED.search(line) and len(pending) < _KIND_PREFIX:
            pending += line + " "
            continue
        line, pending = pending + line.lstrip() if pending else line, ""
        assigned = _ASSIGNED.match(line)
        if assigned:
            return ".".join(p for p in assigned[1].split(".") if p not in _NOT_OWNERS), head
        defined = _DEFINED.match(line)
        if defined:
            trait = _IMPL_FOR.match(line, defined.end()) if line.lstrip().startswith("impl") else None
            return (f"{defined[1]} for {trait[1]}" if trait else defined[1]), head
        return _called_name(line), head
    return shown if shown[0] else ("", head)


def in_block_comment(stripped: str, commented: bool) -> tuple[bool, bool]:
    """Whether a line (``stripped`` of its blanks) is a line of a ``/* … */`` comment that
    starts a line, given whether one was open before it; and whether one is open after it."""
    if commented:
        return True, "*/" not in stripped
    if stripped.startswith("/*"):
        return True, "*/" not in stripped[2:]
    return False, False


def in_description(stripped: str, quoted: bool) -> tuple[bool, bool]:
    """Whether a line (``stripped`` of its blanks) is part of a description in triple quotes
    that leads into what follows it (GraphQL's), given whether one was open before it; and
    whether one is open after it. One opens on a line starting with the quotes and closes on a
    line ending with them (a one-line description does both)."""
    if quoted:
        return True, not stripped.endswith(_TRIPLES)
    if stripped.startswith(_TRIPLES):
        return True, not (len(stripped) > 3 and stripped.endswith(stripped[:3]))
    return False, False


# A member of a type, named by its first word: a GraphQL field (``addStar(input: …): …``,
# ``name: String!``), a TypeScript property, a protobuf field (``repeated string names = 1;``) or
# an enum's value (``UNAVAILABLE = 14;``, ``COLLABORATOR``).
_MEMBER = re.compile(
    r"[ \t]*(?:(\w+)(?:\(|:(?!:)[ \t]*\S)"
    r"|(?:(?:repeated|optional|required)[ \t]+)?[\w.]+(?:<[^>\n]*>)?[ \t]+(\w+)[ \t]*=[ \t]*\d+"
    r"|([A-Z][A-Z0-9_]*)[ \t]*(?:=[ \t]*-?\d+[ \t]*)?[;,]?[ \t]*(?:[@\[].*)?$)")


#: A field of a C-like type: ``unsigned int version;``, ``const char *branch;``, ``int x[4] = {0};``.
_FIELD = re.compile(r"[ \t]*(?:[\w:<>,*&]+[ \t]+)+[*&]*(\w+)(?:\[[^\]\n]*\])*[ \t]*(?:=[^;\n]*)?;")
#: A member a macro declares, named by its first argument in capitals (``CURLOPT(CURLOPT_NOSIGNAL, …),``).
_MACRO_MEMBER = re.compile(r"[ \t]*[A-Z][A-Z0-9_]+\([ \t]*([A-Z_][A-Z0-9_]*)[ \t]*,")


def _member_of(line: str, declares: bool) -> str:
    """The name of the member a line of a type's body declares, or ''."""
    if _CONTROL.match(line):
        return ""
    if declares:
        called = _MACRO_MEMBER.match(line)
        if called:
            return called[1]
    member = _MEMBER.match(line)
    if member:
        return next(g for g in member.groups() if g)
    field = _FIELD.match(line) if declares else None
    return field[1] if field else ""


def _member_name(text: str, start: int, end: int, declares: bool = False) -> str:
    """The name of the one member that a piece of a type's body declares, or '' (none, or more
    than one: merged neighbours are not named by one of them)."""
    name, quoted, commented, base = "", False, False, -1
    for m in _LINE.finditer(text, start, end):
        line = m.group()
        stripped = line.strip()
        inside, commented = in_block_comment(stripped, commented)
        if inside:
            continue
        described, quoted = in_description(stripped, quoted)
        if described or not stripped or LEAD_LINE.match(line) or _CONTINUES.match(line):
            continue
        indent = len(line) - len(line.lstrip())
        base = indent if base < 0 else base
        if indent > base:
            continue
        member = _member_of(line[:_KIND_PREFIX], declares)
        if name or indent < base or not member:
            return ""
        name = member
    return name


# -- language ------------------------------------------------------------------------------

_LICENCE = re.compile(r"copyright|licen[cs]e|spdx-", re.IGNORECASE)
_COPYRIGHT = re.compile(r"copyright|spdx-", re.IGNORECASE)
_PYTHON_HINT = re.compile(r"^(?:def|class|import|from|async def|if __name__)\b", re.MULTILINE)


def language_of(document: Document, forced: str = "") -> str:
    """The document's language: ``forced`` when given, else metadata, a code block's language
    (a fence's info string), the format, the file extension, else a guess."""
    from ...load.readers.code import LANGUAGES, language_name

    named = forced or document.metadata.get("language") or next(
        (b.meta.get("language") for b in document.blocks if b.type == "code" and b.meta.get("language")), ""
    )
    if not named and language_name(document.format) in LANGUAGES.values():
        named = document.format  # a document made in code as format="python"
    if named:
        return language_name(str(named))
    by_suffix = LANGUAGES.get(PurePath(document.source).suffix.lower())
    if by_suffix:
        return by_suffix
    return "python" if _PYTHON_HINT.search(document.text) else ""


# -- lines -----------------------------------------------------------------------------------

class _Lines:
    """Line offsets of one text (lines end at ``\\n`` only, as Python's tokenizer counts them).

    Lines, their blankness and offsets are computed once, in bulk; indentation on demand.
    """

    def __init__(self, text: str, declares: bool = False):
        self.text = text
        #: Whether the language is one of :data:`DECLARING`.
        self.declares = declares
        self.rows = text.split("\n")
        self.count = len(self.rows)
        self.starts = list(accumulate((len(row) + 1 for row in self.rows[:-1]), initial=0))
        self.blanks = [not row.strip() for row in self.rows]
        self._indents: dict[int, int] = {}
        self._in_string: frozenset[int] | None = None

    def in_string(self, i: int) -> bool:
        """Whether line ``i`` starts inside a string or a block comment opened on a line before
        it (a template literal's or a text block's lines, which may start at any column; a
        ``/* … */`` comment's text, which zlib indents and closes at column 0)."""
        if self._in_string is None:
            self._in_string = _string_lines(self.rows) | _comment_lines(self.rows, self.declares)
        return i in self._in_string

    def end(self, i: int) -> int:
        """Offset of the end of line ``i`` (its newline excluded)."""
        return self.starts[i] + len(self.rows[i])

    def indent(self, i: int) -> int:
        """Indentation in columns (a tab advances to the next multiple of 4). A C preprocessor
        line, written at column 0 however deep it sits, has the indentation of the code it
        opens (``#if``, a ``#define`` of one line) or of the code it follows (``#else``,
        ``#endif``), not a macro's ``#define`` whose own lines come next; a C++
        access label (``  public:``), of the members it opens."""
        col = self._indents.get(i)
        if col is None and self.declares and (neutral := _neutral(self.rows[i])) is not None:
            step = -1 if neutral in ("else", "elif", "endif") else 1
            j, seen = i + step, 0
            while 0 <= j < self.count and seen < _NEUTRAL_REACH and (
                    self.blanks[j] or _neutral(self.rows[j]) is not None or self.in_string(j)):
                seen += not (self.blanks[j] or self.in_string(j))
                j += step
            if 0 <= j < self.count and seen < _NEUTRAL_REACH:
                col = self._indents[i] = self.indent(j)
        if col is None:
            col = 0
            for ch in self.rows[i]:
                if ch == " ":
                    col += 1
                elif ch == "\t":
                    col += 4 - col % 4
                else:
                    break
            self._indents[i] = col
        return col


# What a line is read by for strings: an escaped character, the quotes that may run over lines
# (JavaScript's and Go's backquote, triple quotes), one-line strings and regular expressions,
# whose quotes are text, and a line comment, which ends what is code.
_TRIPLES = ('"""', "'''")
_TOKENS = re.compile(r"""\\.|`|"{3}|'{3}|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|//"""
                     r"""|(?:^|(?<=[=(,:;!&|?{}\[]))[ \t]*/(?![/*])(?:[^/\\\n\[]|\\.|\[(?:[^\]\\\n]|\\.)*\])+/""")


def _closing(row: str, pos: int, quote: str) -> int:
    """Where the string that ``quote`` opened ends on ``row`` from ``pos`` (past its closing
    quote), or -1 when it runs on."""
    while (i := row.find(quote, pos)) >= 0:
        slashes = i - len(row[:i].rstrip("\\"))
        if slashes % 2 == 0:
            return i + len(quote)
        pos = i + 1
    return -1


def _string_lines(rows: list[str]) -> frozenset[int]:
    """The lines that start inside a string an earlier line opened; none when the quotes do not
    pair up by the end (then they were not strings: a stray quote in a comment)."""
    inside: list[int] = []
    quote = ""
    for i, row in enumerate(rows):
        if quote:
            inside.append(i)
        elif ("`" not in row and not any(t in row for t in _TRIPLES)) or (
                LEAD_LINE.match(row) and not row.lstrip().startswith(_TRIPLES)):
            continue  # most lines: nothing in them opens a string that runs on
        pos = 0
        while pos < len(row):
            if quote:
                pos = _closing(row, pos, quote)
                if pos < 0:
                    break
                quote = ""
                continue
            m = _TOKENS.search(row, pos)
            if m is None or m.group() == "//":
                break
            pos = m.end()
            if m.group() == "`" or m.group() in _TRIPLES:
                quote = m.group()
    return frozenset() if quote else frozenset(inside)


# Lines whose indentation says nothing of where they sit, and which lead into the code after
# them: a C preprocessor line (a ``#define`` of one line too: ``CURLOPT_PROGRESSDATA`` inside an
# enum; a macro's ``#define`` has its own lines next) and a label (C++'s ``public:``, a macro's
# ``JSON_PRIVATE_UNLESS_TESTED:``, C's ``out:``).
_DIRECTIVE = re.compile(r"[ \t]*#[ \t]*(?:(if|ifdef|ifndef|else|elif|endif|undef|include|pragma|error|warning|line)\b"
                        r"|(define)\b.*(?<!\\)$)")
_LABEL = re.compile(r"[ \t]*\w+(?:[ \t]+(?:slots|Q_SLOTS))?[ \t]*:[ \t]*$")
#: Lines looked past for the code a preprocessor line stands by; a file of directives alone
#: (hedley.hpp) keeps them where they are written.
_NEUTRAL_REACH = 8


def _neutral(row: str) -> str | None:
    """The directive of a preprocessor line whose indentation says nothing (``endif``), '' for
    a label, None for any other line."""
    directive = _DIRECTIVE.match(row)
    if directive:
        return directive[1] or directive[2]
    return "" if _LABEL.match(row) else None


def _comment_lines(rows: list[str], after_code: bool = False) -> frozenset[int]:
    """The lines inside a block comment that a line starting with ``/*`` opened (its closing
    line included); none for a comment not closed by the end. With ``after_code`` (C and its
    kin), a comment opened after code (``#ifndef X /* why``) too, outside quotes and line
    comments (``// src/*.c``)."""
    inside: list[int] = []
    opened = -1
    for i, row in enumerate(rows):
        if opened >= 0:
            if "*/" in row:
                inside.extend(range(opened + 1, i + 1))
                opened = -1
            continue
        at = row.find("/*")
        if at < 0 or "*/" in row[at + 2:]:
            continue
        before = row[:at]
        if not before.strip() or (after_code and "//" not in before and before.count('"') % 2 == 0
                                  and before.count("'") % 2 == 0):
            opened = i
    return frozenset(inside)


#: A statement (or an ``except`` / ``case`` clause): what carries line numbers.
_Stmt = ast.stmt | ast.excepthandler | ast.match_case


@dataclass(slots=True)
class _Unit:
    """Lines ``first..last`` (inclusive) of one unit, and how to look inside it."""

    kind: str
    first: int
    last: int
    #: The Python statements this unit holds (empty when read by layout).
    nodes: list[_Stmt] = field(default_factory=list)
    #: First line after the unit's leading comments and decorators (its signature).
    head: int = -1
    #: A doc comment's paragraph: opened by its lines, not read for definitions.
    prose: bool = False
    #: Never merged with its neighbours (a file's licence header).
    alone: bool = False
    #: A member of a type read by layout (a field, an enum's value: :data:`_MEMBER`).
    member: bool = False
    #: A definition or a member with a doc comment of its own: not merged with another such.
    documented: bool = False


# -- Python through ast ----------------------------------------------------------------------

def python_units(text: str, lines: _Lines) -> list[_Unit] | None:
    """Units of a Python module, or None when it does not parse (the caller reads it by layout)."""
    if "\r" in text:
        return None  # ast would count lone CRs as line breaks; our offsets would drift
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes etc. are not our business
            tree = ast.parse(_mask_fences(text, lines))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return _statement_units(lines, list(tree.body), 0, lines.count - 1, in_class=False)


_FENCE = re.compile(r"[ \t]*(?:`{3,}|~{3,})")
_FENCE_OPEN = re.compile(r"[ \t]*(?:`{3,}|~{3,})[^`\n]*")


def _mask_fences(text: str, lines: _Lines) -> str:
    """A fenced block (a Markdown code block handed over whole) with its fence lines turned
    into comments of the same length, so that ``ast`` reads the code and line numbers hold."""
    if not _FENCE.match(text.lstrip("\n")):
        return text
    blanks = lines.blanks
    first = blanks.index(False)
    last = lines.count - 1 - blanks[::-1].index(False)
    if first == last or not _FENCE.match(lines.rows[last]):
        return text
    out = text
    for i in (last, first):
        s, e = lines.starts[i], lines.end(i)
        out = out[:s] + "#" * (e - s) + out[e:]
    return out


def _kind(node: ast.AST, in_class: bool) -> str:
    if isinstance(node, ast.ClassDef):
        return "class"
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return "method" if in_class else "function"
    return "code"


def _first_line(node: _Stmt) -> int:
    """0-based first line of a statement, decorators included."""
    if isinstance(node, ast.match_case):
        return node.pattern.lineno - 1
    decorators = getattr(node, "decorator_list", None) or []
    return min([node.lineno] + [d.lineno for d in decorators]) - 1


def _last_line(node: _Stmt) -> int:
    if isinstance(node, ast.match_case):
        node = node.body[-1]
    return (node.end_lineno or node.lineno) - 1


def _statement_units(lines: _Lines, nodes: Sequence[_Stmt], first: int, last: int,
                     in_class: bool) -> list[_Unit]:
    """Units for statements inside lines first..last, with the lines between them covered."""
    units: list[_Unit] = []
    for node in nodes:
        s, e = max(_first_line(node), first), min(_last_line(node), last)
        if e < s:
            continue  # shares its only line with the header (``"""doc"""; x = 1``)
        if units and s <= units[-1].last:  # two statements share a line: one unit
            prev = units[-1]
            prev.last = max(prev.last, e)
            prev.nodes.append(node)
            if prev.kind == "code":
                prev.kind = _kind(node, in_class)
            continue
        units.append(_Unit(_kind(node, in_class), s, e, [node], head=s))
    _attach_comments(lines, units, first)
    return _fill_gaps(lines, units, first, last)


def _attach_comments(lines: _Lines, units: list[_Unit], floor: int) -> None:
    """Comment lines right above a definition (no blank line between) belong to it."""
    for k, u in enumerate(units):
        if u.kind not in DEFINITIONS:
            continue
        limit = units[k - 1].last + 1 if k else floor
        i = u.first - 1
        while i >= limit and lines.rows[i].lstrip().startswith("#"):
            i -= 1
        u.first = i + 1


def _fill_gaps(lines: _Lines, units: list[_Unit], first: int, last: int) -> list[_Unit]:
    """Add ``code`` units for non-blank lines no unit covers (comments, ``else:`` lines)."""
    out: list[_Unit] = []
    pos = first
    for u in units + [None]:
        stop = last + 1 if u is None else u.first
        out += _blank_separated(lines, pos, stop - 1)
        if u is not None:
            out.append(u)
            pos = u.last + 1
    return out


# A doc comment line's marker (``//``, ``///``, ``//!``, `` *``). A comment line with nothing after
# its marker (or after ``#`` or ``--``) is a doc comment's blank line, which ends its paragraph; a
# comment line that opens or closes a fenced example holds lines that are the example's own. A
# line of ``#`` is never a doc line: in Rust it is an attribute (``#[derive]``), code.
_LINE_MARK = r"(?://[/!]?|\*)"
_EMPTY_COMMENT = re.compile(rf"[ \t]*(?:{_LINE_MARK}|#|--)[ \t]*$")
_COMMENT_LINE = re.compile(rf"[ \t]*(?:{_LINE_MARK}|/\*)")
_COMMENT_HEADING = re.compile(rf"[ \t]*{_LINE_MARK}[ \t]?#{{1,6}}[ \t]+\S")
_COMMENT_FENCE = re.compile(rf"[ \t]*(?:{_LINE_MARK}|#|--)?[ \t]*(?:`{{3,}}|~{{3,}})")


def _blank_separated(lines: _Lines, first: int, last: int) -> list[_Unit]:
    """``code`` units for the runs of non-blank lines in first..last."""
    return _separated(lines, first, last, lines.blanks)


def _comment_paragraphs(lines: _Lines, first: int, last: int) -> list[_Unit]:
    """``code`` units for a doc comment's paragraphs in first..last: the runs between its blank
    comment lines, a fenced example whole (Rust's ``///`` and ``//!``, Go's ``//`` and Javadoc's
    `` *`` comments are Markdown or close to it)."""
    breaks = [False] * (last + 1)
    fenced = heading = False
    for i in range(first, last + 1):
        row = lines.rows[i]
        if _COMMENT_FENCE.match(row):
            fenced = not fenced
        empty = not fenced and bool(_EMPTY_COMMENT.match(row))
        # a heading (``/// # Examples``) stays with what it heads
        breaks[i] = lines.blanks[i] or (empty and not heading)
        heading = (heading and empty) or (not fenced and bool(_COMMENT_HEADING.match(row)))
    parts = []
    for part in _separated(lines, first, last, breaks):
        # the declaration after the comment is a part of its own, which merges with the
        # comment's last paragraph only when both fit: a long example is not cut to take it
        code = next((i for i in range(part.first, part.last + 1) if not _COMMENT_LINE.match(lines.rows[i])),
                    part.first)
        if code > part.first:
            parts += [_Unit("code", part.first, code - 1, head=part.first, prose=True),
                      _Unit("code", code, part.last, head=code, prose=True)]
        else:
            part.prose = True
            parts.append(part)
    return parts


def _separated(lines: _Lines, first: int, last: int, breaks: Sequence[bool]) -> list[_Unit]:
    """``code`` units for the runs of lines in first..last that are not ``breaks``."""
    out: list[_Unit] = []
    start = None
    for i in range(first, last + 1):
        if breaks[i]:
            if start is not None:
                out.append(_Unit("code", start, i - 1, head=start))
                start = None
        elif start is None:
            start = i
    if start is not None:
        out.append(_Unit("code", start, last, head=start))
    return out


def _python_children(lines: _Lines, unit: _Unit) -> list[_Unit] | None:
    """The parts of a Python unit too big to be a leaf: signature (+ docstring), then body."""
    if len(unit.nodes) > 1:  # statements that share lines
        parts = _statement_units(lines, unit.nodes, unit.first, unit.last, in_class=False)
        return parts if len(parts) > 1 else None
    node = unit.nodes[0]
    inner = [c for c in ast.iter_child_nodes(node)
             if isinstance(c, (ast.stmt, ast.ExceptHandler, ast.match_case))]
    body = getattr(node, "body", None)
    if (isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
            and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)):
        inner = inner[1:]  # the docstring stays in the header, with the signature
        header_last = _last_line(body[0])
    else:
        header_last = min(_first_line(c) for c in inner) - 1 if inner else unit.last
    if not inner:
        return None
    inner.sort(key=_first_line)
    body_first = max(header_last + 1, unit.first)
    children = _statement_units(lines, inner, body_first, unit.last, isinstance(node, ast.ClassDef))
    if header_last >= unit.first:
        children.insert(0, _Unit("code", unit.first, header_last, head=unit.first))
    elif children:
        children[0].first = unit.first  # a body statement on the signature's line
    return children if len(children) > 1 else None


# -- any language, by layout -----------------------------------------------------------------

# Lines at the block's indentation that continue the unit above rather than start one.
_CONTINUES = re.compile(
    r"[ \t]*(?:[})\]]|\{|(?:else|elif|elsif|except|finally|catch|end|fi|done|esac|until|rescue|"
    r"ensure|when|then|do|where)\b(?![ \t]*(?:=(?!=)|[.(\[])))"
)
# Lines that lead into the unit below: comments, decorators and annotations.
#: A line of a comment or decorator, which leads to the code after it.
LEAD_LINE = re.compile(r"[ \t]*(?:#|//|/\*|\*|--|@|;|%|\"\"\"|''')")
_CLASS_LIKE = re.compile(
    r"[ \t]*(?:template[ \t]*<[^\n]*?>[ \t]*)?"  # C++: "template <> struct cache_accessor<double> {"
    r"(?:(?:export|public|private|protected|internal|abstract|final|sealed|static|pub(?:\([^)]*\))?|"
    r"default|declare|open|data|typedef)\s+)*(?:class|struct|interface|trait|impl|enum|module|mod|namespace|"
    r"object|record|protocol|extension|type\s+\w+\s+(?:struct|interface)"
    # GraphQL's types (``type Query implements Node {``, ``extend type``), protobuf's messages
    r"|(?:extend\s+)?(?:type\s+\w+(?=\s+implements\b|\s*(?:@\w+(?:\([^)\n]*\))?\s*)*\{)|input|scalar|union)"
    r"|message|service|oneof)\b"
    r"(?![ \t]*[.=(\[:])"  # "module.exports = CI" and "object = x" use the word, they define nothing
)
_FUNCTION_LIKE = re.compile(
    r"[ \t]*(?:(?:export|public|private|protected|internal|static|async|pub(?:\([^)]*\))?|"
    r"unsafe|extern|inline|virtual|override|final|default|const|local)[ \t]+)*"
    r"(?:function\b|func\b|fn\b|def\b|sub\b|proc\b|fun\b|macro_rules!"
    # C, Java, C#: "type name(args) {" -- words separated by blanks, so no backtracking blow-up
    r"|(?:[\w:<>,*&\[\]]+[ \t]+)+[*&]*(?:\w+|operator[ \t]*(?:\(\)|[^\w\s(]+))[ \t]*\([^;]*$"
    # JS/TS method shorthand: "name(args) {" or "name(args): Type {"
    r"|\w+[ \t]*\([^;]*\)[ \t]*(?::[^{;]*)?\{[ \t]*$"
    # a function assigned to a variable or a member: "const f = (x) =>", "res.send = function send("
    r"|(?:(?:const|let|var)[ \t]+)?(?:[\w$]+(?:\.[\w$]+)*[ \t]*=[ \t]*)+(?:async[ \t]*)?"
    r"(?:function\b|\([^)]*\)[ \t]*=>|\w+[ \t]*=>))"
)
# A function declared without a body in C, C++, Java or C# (``SQLITE_API int f(sqlite3*);``,
# ``GIT_EXTERN(int) git_clone(``, a callback type ``typedef int (*git_cb)(``), in DECLARING only:
# elsewhere "word word(…);" is a statement.
_DECLARATION = re.compile(
    r"[ \t]*(?=[\w~])(?:(?:[\w:<>,*&\[\]~]+|\w+\([^()\n]*\))[ \t]+)+[*&]*"
    r"(?:\w+|operator[ \t]*(?:\(\)|[^\w\s(]+)|\([ \t]*\*[ \t]*\w+[ \t]*\))[ \t]*\(")
_KIND_PREFIX = 300  # characters of a head line that the kind patterns look at
# A line ending in an assignment's "=": the statement goes on at the next line's indentation.
_UNFINISHED = re.compile(r"[^=!<>]=[ \t]*$")
# Statements whose first word is a keyword: "await f(x)" in JavaScript without semicolons is a
# call, not "type name(args)".
_CONTROL = re.compile(r"[ \t]*(?:if|for|while|switch|return|else|do|try|catch|await|yield|throw|new|delete|"
                      r"void|typeof|raise|assert|del|go|defer|echo|print|match|loop)\b")


def layout_units(lines: _Lines, first: int, last: int) -> list[_Unit]:
    """Units of lines first..last by indentation: see the module docstring."""
    # The block's indentation is that of its shallowest line that opens something; closing
    # lines such as "}" may sit further left (the enclosing block's closer).
    rows = [i for i in range(first, last + 1) if not lines.blanks[i] and not lines.in_string(i)]
    openers = [lines.indent(i) for i in rows if not _CONTINUES.match(lines.rows[i])]
    if not rows:
        return []
    base = min(openers) if openers else min(lines.indent(i) for i in rows)
    units: list[_Unit] = []
    for i in range(first, last + 1):
        if lines.blanks[i]:
            continue
        line = lines.rows[i]
        top = lines.indent(i) <= base and not lines.in_string(i)
        if units and (not top or _CONTINUES.match(line) or _UNFINISHED.search(lines.rows[units[-1].last])):
            units[-1].last = i
            continue
        units.append(_Unit("code", i, i, head=i))
    # Comments and decorators right above a unit lead into it; so does a doc comment one blank
    # line above a definition (``/** … */`` documents what follows it, and many projects leave a
    # line between them).
    merged: list[_Unit] = []
    leading = False  # whether the last merged unit is a lead, known without reading it again
    for u in units:
        lead = _is_lead(lines, u)
        if lead and merged and not leading and merged[-1].last + 1 == u.first \
                and (u.last == last or lines.blanks[u.last + 1]) and _declaration(lines, merged[-1]):
            # a comment right under a declaration, a blank line below it, documents it (zlib's)
            merged[-1].last = u.last
            merged[-1].documented = True
            continue
        if not lead and merged and not leading and merged[-1].documented and merged[-1].last + 1 == u.first \
                and _declaration(lines, merged[-1]) and _declaration(lines, u):
            # declarations under one comment (sqlite3_open, sqlite3_open16, sqlite3_open_v2)
            merged[-1].last = u.last
            continue
        if leading and (merged[-1].last + 1 == u.first
                        or (merged[-1].last + 2 == u.first and _documents(lines, merged[-1], u))):
            # A comment of many "//" lines (Go, Rust, C) is one lead: its head stays its first line.
            prev = merged[-1]
            prev.last, prev.head, leading = u.last, (prev.head if lead else u.head), lead
            prev.documented = not lead
        else:
            merged.append(u)
            leading = lead
    for u in merged:
        head = _head_text(lines, u)
        if lines.declares and u.first < u.last and lines.rows[u.first].strip() == "/*" \
                and not LEAD_LINE.match(lines.rows[u.first + 1]):
            head = lines.rows[u.first + 1]  # a declaration shown in a comment: a macro (zlib's deflateInit2)
        u.kind = _layout_kind(head, lines.declares)
    return merged


def _head_text(lines: _Lines, unit: _Unit) -> str:
    """The line a unit's kind is read from: its head, with the lines an unfinished assignment
    runs on to (``res.type =`` / ``res.contentType = function (type) {``) and an opening brace
    on the next line (Allman style)."""
    i = unit.head
    head = lines.rows[i]
    while i < unit.last and _UNFINISHED.search(head) and len(head) < _KIND_PREFIX:
        i += 1
        head = f"{head} {lines.rows[i].strip()}"
    if i < unit.last and lines.rows[i + 1].lstrip().startswith("{"):
        head += " {"
    return head


def _is_lead(lines: _Lines, unit: _Unit) -> bool:
    """A unit of comment or decorator lines only (a decorator's arguments may run on), or a C++
    template's head; not a C macro's definition (``#define MAX(a, b)``)."""
    row = lines.rows[unit.first]
    if lines.declares:
        if MACRO_DEFINITION.match(row):
            return False
        if (unit.first == unit.last and _LABEL.match(row)) or (
                TEMPLATE.match(row) and lines.rows[unit.last].rstrip().endswith(">")):
            return True
    if unit.head != unit.first or not LEAD_LINE.match(row):
        return False
    base = lines.indent(unit.first)
    # a description in triple quotes (GraphQL's, Julia's docstrings) leads too, its lines included
    return all(lines.blanks[i] or LEAD_LINE.match(lines.rows[i]) or lines.indent(i) > base
               or lines.in_string(i) for i in range(unit.first + 1, unit.last + 1))


def _documents(lines: _Lines, lead: _Unit, unit: _Unit) -> bool:
    """Whether ``lead`` is a doc comment (``/** … */`` and nothing else) and ``unit`` a
    definition it documents."""
    first, last = lines.rows[lead.first].lstrip(), lines.rows[lead.last].rstrip()
    return (first.startswith("/**") and last.endswith("*/") and "*/" not in first[2:-2]
            and _layout_kind(_head_text(lines, unit), lines.declares) != "code")


def _layout_kind(line: str, declares: bool = False) -> str:
    line = line[:_KIND_PREFIX]
    if _CLASS_LIKE.match(line):
        return "class"
    if not _CONTROL.match(line) and (_FUNCTION_LIKE.match(line) or (declares and (
            _DECLARATION.match(line) or MACRO_DEFINITION.match(line)))):
        return "function"
    return "code"


def _declaration(lines: _Lines, unit: _Unit) -> bool:
    """Whether a unit declares a function without a body (``int f(void);``), in a language of
    :data:`DECLARING`."""
    return (lines.declares and lines.rows[unit.last].rstrip().endswith(";")
            and _layout_kind(_head_text(lines, unit), True) == "function")


def _layout_children(lines: _Lines, unit: _Unit) -> list[_Unit] | None:
    """The parts of a unit read by layout: its head lines, then its indented body's units
    (closing lines at the unit's own indentation, such as ``}``, stay with the last part)."""
    head = _signature_end(lines, max(unit.head, unit.first), unit.last)
    own = lines.indent(max(unit.head, unit.first))
    body_last = unit.last
    while body_last > head and (lines.blanks[body_last] or lines.indent(body_last) <= own):
        body_last -= 1
    if body_last <= head:
        return None
    body = layout_units(lines, head + 1, body_last)
    if not body:
        return None
    body[-1].last = unit.last
    if unit.kind in ("function", "method") and lines.declares:
        macro = bool(MACRO_DEFINITION.match(lines.rows[max(unit.head, unit.first)]))
        for u in body:  # in a function's body, "Type x(…);" is a statement, not a declaration;
            if macro or (u.kind == "function" and _declaration(lines, u)):  # in a macro's, all is its text
                u.kind = "code"
    if all(lines.blanks[i] or _KEY_LINE.match(lines.rows[i]) for i in range(unit.first, head + 1)):
        # a YAML key over a block too big for one unit leads into its first part: alone, each
        # level's key line (``content:``, ``application/json:``) was a unit of one word
        body[0].first = unit.first
        return body
    if unit.kind == "class":
        for u in body:
            u.kind = "method" if u.kind == "function" else u.kind
            u.member = u.kind == "code" and bool(_member_of(lines.rows[u.head][:_KIND_PREFIX], lines.declares))
    # the head part's head is its signature: opened, it is not read as a definition with a body
    return [_Unit("code", unit.first, head, head=max(unit.head, unit.first))] + body


#: A line that is a key opening a block: ``  responses:``, ``- name:``, ``'200':``.
_KEY_LINE = re.compile(r"[ \t]*(?:-[ \t]+)?(?:[\w./{}$@-]+|'[^'\n]*'|\"[^\"\n]*\"):[ \t]*$")
_SIGNATURE_LINES = 30  # a signature longer than this is read as its first line


def _signature_end(lines: _Lines, head: int, last: int) -> int:
    """The line a signature that runs on ends on: the one that opens the body with ``{`` after
    parameters one per line, a ``) -> T {``, Rust's ``where`` clause or a brace on its own line;
    else the head line."""
    if lines.rows[head].rstrip().endswith(("{", ":")):
        return head
    own = lines.indent(head)
    for j in range(head + 1, min(last, head + _SIGNATURE_LINES) + 1):
        row = lines.rows[j]
        if lines.blanks[j] or (lines.indent(j) <= own and not _CONTINUES.match(row)):
            return head
        if row.rstrip().endswith("{"):
            return j
    return head


# -- sizes -------------------------------------------------------------------------------------

class _Sizer:
    """Turns units into spans: merge small neighbours, open up big units."""

    def __init__(self, text: str, lines: _Lines, measure: Measure, max_size: int, min_size: int,
                 members: bool = False):
        self.text = text
        self.lines = lines
        self.measure = measure
        self.max_size = max_size
        self.min_size = min_size
        # a schema's type opens into its documented members even when it fits one unit: a
        # question about one field matches that field's description, not the type's average
        self.members = members
        self._marks: list[int] | None = None

    def span_of(self, first: int, last: int) -> tuple[int, int]:
        s = self.lines.starts[first]
        return s, trim_end(self.text, s, self.lines.end(last))

    def size(self, first: int, last: int) -> int:
        """Size of lines first..last as a unit embeds them: without their comment markers
        (:mod:`...text.comments`), so a doc comment's ``///`` column costs nothing."""
        if self._marks is None:
            self._marks = self._marker_sizes()
        return self.measure.size(*self.span_of(first, last)) - (self._marks[last + 1] - self._marks[first])

    def _marker_sizes(self) -> list[int]:
        """Running total, by line, of the size of the comment marker each line starts with."""
        running, total = [0], 0
        known: dict[str, int] = {}  # a marker costs the same on every line: measured once
        for i, row in enumerate(self.lines.rows):
            m = comments.MARKER.match(row) if ("/" in row or "*" in row) else None
            if m and m.end() > m.end(1):
                marker = m.group()[m.end(1):]
                if marker not in known:
                    start = self.lines.starts[i]
                    known[marker] = self.measure.size(start + m.end(1), start + m.end())
                total += known[marker]
            running.append(total)
        return running

    def fit(self, units: list[_Unit]) -> list[Span]:
        out = []
        for group in self.merge(units, self.min_size):
            s, e = self.span_of(group[0].first, group[-1].last)
            if len(group) > 1:
                out.append(Span(_group_kind(group, self.lines), s, e))
                continue
            unit = group[0]
            span = Span(unit.kind, s, e)
            if self.size(unit.first, unit.last) > self.max_size:
                span.children = unwrap(span, self.open(unit))
            elif self.members and unit.kind == "class":
                parts = _layout_children(self.lines, unit)
                if parts and sum(p.member and p.documented for p in parts) >= 2:
                    span.children = unwrap(span, self.fit(parts))
            out.append(span)
        return out

    def merge(self, units: list[_Unit], min_size: float) -> list[list[_Unit]]:
        """Consecutive units merged while one of them is smaller than ``min_size`` and the whole
        still fits (with ``math.inf``, greedy packing: lines carry no structure of their own)."""
        groups: list[list[_Unit]] = []
        group_first = group_size = 0
        group_documented = False
        for u in units:
            own = self.size(u.first, u.last)
            # a documented definition or member is named by its comment and its line: merged
            # with another, the unit was neither's (``Mutation › addStar``, a Go function)
            documented = u.documented and (u.kind in DEFINITIONS or u.member)
            if groups and (group_size < min_size or own < min_size) and not (u.alone or groups[-1][-1].alone) \
                    and not (documented and group_documented):
                joined = self.size(group_first, u.last)
                if joined <= self.max_size:
                    groups[-1].append(u)
                    group_size = joined
                    group_documented = group_documented or documented
                    continue
            groups.append([u])
            group_first, group_size, group_documented = u.first, own, documented
        return groups

    def open(self, unit: _Unit) -> list[Span]:
        """Children of a unit over the limit: its structure, else blank-line groups and lines."""
        if unit.prose:
            return self.by_lines(unit.first, unit.last)
        parts = _python_children(self.lines, unit) if unit.nodes else _layout_children(self.lines, unit)
        if parts:
            return self.fit(parts)
        groups = _blank_separated(self.lines, unit.first, unit.last)
        if len(groups) > 1:
            return self.fit(groups)
        groups = _comment_paragraphs(self.lines, unit.first, unit.last)
        if len(groups) > 1:
            return self.fit(groups)
        return self.by_lines(unit.first, unit.last)

    def by_lines(self, first: int, last: int) -> list[Span]:
        """Lines packed up to the limit; a line over the limit is cut by size."""
        out: list[Span] = []
        single = [_Unit("code", i, i) for i in range(first, last + 1) if not self.lines.blanks[i]]
        for group in self.merge(single, math.inf):
            s, e = self.span_of(group[0].first, group[-1].last)
            span = Span("code", s, e)
            if len(group) == 1 and self.size(group[0].first, group[0].last) > self.max_size:
                span.children = unwrap(span, [
                    Span("code", a, b)
                    for a, b in split_recursive(self.text, self.measure, s, e, size=self.max_size)
                ])
            out.append(span)
        return out


def _group_kind(group: list[_Unit], lines: _Lines) -> str:
    """A merged group keeps its definition's kind when it holds exactly one definition and
    nothing but comments, decorators or a fence line comes before it: a function's own first
    lines merged with a helper defined inside it are that function's code, not a definition
    named by its first line."""
    at = [i for i, u in enumerate(group) if u.kind in DEFINITIONS]
    if len(at) != 1 or not all(_is_lead(lines, u) or _FENCE.match(lines.rows[u.first])
                               for u in group[:at[0]]):
        return "code"
    return group[at[0]].kind


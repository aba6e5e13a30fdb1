"""A question that is a name finds where the name is defined.

Pasted alone, ``format_file_contents``, ``csv.reader``, ``BracketTracker.mark``, ``--where``
or ``CACHE_DIR`` asks what that name is. Both rankings see it badly: BM25 splits an identifier
into its words and ranks every call of a function as high as its definition (more so when it is
called often), and a dense model reads a name as a few common words. So among the candidates
either ranking returned, a unit that defines the name comes first (:func:`definitions`).

A unit defines a name when one of its lines (as indexed: the trail of headings, then the text)
starts with it as a definition starts, the name written in full or with its qualifiers:

- after a keyword that defines: ``def``, ``class``, ``fn``, ``function``, ``struct``,
  ``interface``, ``const``, ``coroutine``, ``exception``, ``@`` … (code, API references);
- after markup that opens an entry: a heading's ``#``, ``help()``'s ``|``, a directive's
  ``.. function::``, and as the last heading of the unit's trail (a section titled by it);
- as a method's signature opening its body (``  addCommand(cmd, opts) {``, ``get isPaused() {``);
- as a top-level assignment or declaration (``CACHE_DIR = …``, ``COMMA_PRIORITY: Final = 18``,
  ``const DEPTH = 100``; not ``var parse = require(…)``, an import), or a C preprocessor
  definition at any depth (``#define CURL_WRITEFUNC_PAUSE 0x10000001``, ``# define MAX(a, b)``);
- an option at the start of a line (``  --where KEY=VALUE …``).

A call (``format_str(src)``), an indented assignment or declaration (``  let opts = …``, a
local) and a mention in prose are not definitions. Measured on names asked of the Python
library's reference and of codebases in Python and JavaScript (``bench/names_set.py``,
``bench/names_js.py``; docs/benchmarks.md, "Names asked alone").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from .fusion import Fused

#: A name as typed: dotted or ``::`` parts (a trailing ``()`` and backticks allowed), or an option.
_NAME = re.compile(r"`?(-{1,2}[A-Za-z0-9][\w-]*|[A-Za-z_$][\w$-]*(?:(?:\.|::|#)[A-Za-z_$][\w$-]*)*)(?:\(\))?`?")
_PART = re.compile(r"\.|::|#")
_KEYWORDS = frozenset(
    "def async class fn func function sub struct enum interface trait type const let var module macro "
    "coroutine classmethod staticmethod abstractmethod exception property method attribute data "
    "final static public private protected export pub abstract".split())
# Markup that opens an entry: a heading (a decorator shown in it), help()'s bars (not an ``||``
# that continues a condition over lines), a reST directive.
_MARKUP = re.compile(r"(?:#{1,6}\s+@?|\|(?!\|)\s*|\.\.\s+[\w:-]+::\s*)+")
_PATH = re.compile(r"`?([A-Za-z_$][\w$-]*(?:(?:\.|::|#)[A-Za-z_$][\w$-]*)*)`?")
# ``NAME = …`` or ``NAME: type = …`` (not ``name=value``, a keyword argument's continuation line)
_ASSIGN = re.compile(r"(?:\s+|\s*:[^=\n]*)=(?!=)")
# After a name in a heading or an entry: its signature, its type, or nothing (not prose).
_ENTRY_END = re.compile(r"\s*(?:$|[(\[<:=])")
_OPTION = re.compile(r"-{1,2}[A-Za-z0-9][\w-]*")
# A C preprocessor definition: ``#define NAME …``, ``#  define NAME(args) …``.
_DEFINE = re.compile(r"#[ \t]*define[ \t]+([A-Za-z_]\w*)")
# Declarations that make locals when indented (``  const opts = {…}`` inside a function).
_LOCAL = frozenset({"let", "var", "const"})
# A getter or setter: ``get isPaused() {``.
_ACCESSOR = re.compile(r"(?:get|set)\s+[A-Za-z_$][\w$]*\s*\(")
# A method's signature opening its body: ``  addCommand(cmd, opts) {``, ``parse(argv): this {``
# (no parentheses inside: ``app.get('/', function (req, res) {`` is a call).
_OPENS_BODY = re.compile(r"\s*\([^()]*\)\s*(?::[^{;=()]*)?\{\s*$")
_CONTROL = frozenset({"if", "for", "while", "switch", "catch", "with", "function", "return"})
# An import bound to a name is not its definition (``var parse = require('parseurl')``).
_IMPORT = re.compile(r"\s*=\s*(?:await\s+)?(?:require|import)\s*\(")
_WORD = re.compile(r"([A-Za-z]+)\s+")
#: The share of a score that defining the name asked gives (:func:`definitions_first`).
NAME_SHARE = 0.5
#: The trail before a unit's text (index/units.py): headings joined by this.
_TRAIL = " > "


#: A name longer than this (characters) or of more parts is not taken for one: the look-up tries
#: each shorter qualification in turn over every candidate's lines.
MAX_NAME = 200
MAX_PARTS = 8


def asked_name(query: str) -> tuple[str, ...] | None:
    """The parts of the name the query is, or None when it is not one name."""
    query = query.strip()
    if len(query) > MAX_NAME:
        return None
    m = _NAME.fullmatch(query)
    if m is None:
        return None
    name = m.group(1)
    parts = (name,) if name.startswith("-") else tuple(_PART.split(name))
    return parts if len(parts) <= MAX_PARTS else None


def asked_unqualified(query: str) -> str:
    """The last part of the name the query is (``cookie`` of ``res.cookie()``), '' when it is no
    name: what a section's title must hold to be the name's definition (:mod:`zoomrag.expand.named`)."""
    parts = asked_name(query)
    return parts[-1] if parts else ""


@dataclass(frozen=True, slots=True)
class _Definition:
    """A name a unit's line defines, as written, with the trail's names it may be qualified by."""

    own: tuple[str, ...]
    qualifiers: tuple[str, ...] = ()
    #: A top-level assignment: no qualifiers from the trail (a page's example variable is not
    #: its section's).
    assigned: bool = False


def _defined_at(line: str, *, titled: bool) -> _Definition | tuple[str, ...] | None:
    """What ``line`` starts by defining (``titled``: the line is a heading): a name, the options
    of an option line (a tuple), or nothing."""
    stripped = line.lstrip()
    if not titled and (define := _DEFINE.match(stripped)) is not None:
        return _Definition((define.group(1),), assigned=True)
    if stripped.startswith("-"):  # an option, or several spelled as one (``-v, --verbose``)
        if titled or not _OPTION.match(stripped):
            return None
        return tuple(_OPTION.findall(re.split(r"\s{2,}|\t", stripped, maxsplit=1)[0]))
    m = _MARKUP.match(stripped)
    marked = titled or m is not None
    rest = stripped[m.end():] if m else stripped
    keywords: list[str] = []
    while (word := _WORD.match(rest)) is not None and (
            word.group(1).lower() in _KEYWORDS or _ACCESSOR.match(rest) is not None):
        keywords.append(word.group(1).lower())
        rest = rest[word.end():]
    path = _PATH.match(rest)
    if path is None:
        return None
    after = rest[path.end():]
    own = tuple(_PART.split(path.group(1)))
    if keywords and set(keywords) <= _LOCAL and not marked:  # ``const X = …``: as an assignment
        ok = len(stripped) == len(line) and _IMPORT.match(after) is None
        return _Definition(own, assigned=True) if ok else None
    if keywords:
        ok = not after or not (after[0].isalnum() or after[0] in "_$-")
    elif marked:  # a table's row (``| os.chmod() | Path.chmod() |``) is not an entry
        ok = _ENTRY_END.match(after) is not None and not (stripped[0] == "|" and stripped.rstrip().endswith("|"))
    elif _OPENS_BODY.match(after) and own[-1] not in _CONTROL:  # a method: ``  parse(argv) {``
        ok = True
    else:  # a top-level assignment
        ok = len(stripped) == len(line) and _ASSIGN.match(after) is not None and _IMPORT.match(after) is None
        return _Definition(own, assigned=True) if ok else None
    return _Definition(own) if ok else None


def _trail_parts(first: str) -> list[tuple[str, ...]]:
    """The name each heading of a trail line (maybe) gives, outermost first."""
    out = []
    for heading in first.split(_TRAIL):
        rest = heading.strip()
        while (word := _WORD.match(rest)) is not None and word.group(1).lower() in _KEYWORDS:
            rest = rest[word.end():]  # ``class ArgumentParser(…)``: the class's name
        m = _PATH.match(rest)
        out.append(tuple(_PART.split(m.group(1))) if m else ())
    return out


def _found(text: str) -> tuple[list[_Definition], set[str]]:
    """The names a unit's indexed text (the trail of its headings first) defines, and the
    options it describes."""
    lines = text.split("\n")
    trail = _trail_parts(lines[0])
    names: list[_Definition] = []
    options: set[str] = set()
    if _TRAIL in lines[0]:
        last = _defined_at(lines[0].rsplit(_TRAIL, 1)[-1], titled=True)
        if isinstance(last, _Definition):
            names.append(_Definition(last.own, tuple(p for parts in trail[:-1] for p in parts)))
    qualifiers = tuple(p for parts in trail for p in parts)
    for line in lines:
        got = _defined_at(line, titled=False) if line.strip() else None
        if isinstance(got, _Definition):
            names.append(got if got.assigned else _Definition(got.own, qualifiers))
        elif got:
            options.update(got)
    return names, options


def defines(text: str, name: tuple[str, ...], *, fold: bool = False) -> bool:
    """Whether a unit's indexed text (the trail of its headings first) defines ``name``, in its
    own case (``fold``: in any case). A definition may name fewer qualifiers than were asked for
    when the trail's headings hold the rest (``pathlib.Path.mkdir``: ``Path.mkdir(…)`` under
    ``pathlib — …``; ``Cache.write``: ``def write`` under ``Cache``)."""
    return _defines(_found(text), name, fold)


def _defines(found: tuple[list[_Definition], set[str]], name: tuple[str, ...], fold: bool) -> bool:
    names, options = found
    key = str.lower if fold else str
    want = tuple(key(p) for p in name)
    if want[0].startswith("-"):
        return want[0] in {key(o) for o in options}
    return any(_matches(tuple(key(p) for p in d.own), want, [key(q) for q in d.qualifiers], d.assigned)
               for d in names)


def _matches(own: tuple[str, ...], want: tuple[str, ...], qualifiers: list[str], assigned: bool) -> bool:
    """A definition of ``own`` is one of ``want``: ``own`` ends with ``want``, or ``want`` ends
    with ``own`` and its other parts are among ``qualifiers``, in order (not for an
    assignment)."""
    if len(own) >= len(want):
        return own[-len(want):] == want
    if assigned or want[-len(own):] != own:
        return False
    rest = iter(qualifiers)
    return all(any(q == p for q in rest) for p in want[:-len(own)])


def definitions(texts: Mapping[int, str], name: tuple[str, ...]) -> set[int]:
    """The rows among ``texts`` (row → indexed text) whose unit defines ``name``: in the case it
    was asked in, else in any case; when nothing defines it, with fewer of its qualifiers
    (``click.echo``: ``def echo`` in a file the trail does not call ``click``). Each text's
    lines are read once."""
    found = {row: _found(text) for row, text in texts.items()}
    for n in range(len(name), 0, -1):
        for fold in (False, True):
            rows = {row for row, f in found.items() if _defines(f, name[-n:], fold)}
            if rows:
                return rows
    return set()


def definitions_first(fused: Sequence[Fused], defining: set[object], mark: str = "name") -> list[Fused]:
    """``fused`` (best first) led by the units in ``defining``, each marked as the ``mark``
    ranker's (score 1, rank among them).

    Every score is then the list's own, scaled between its last (0) and its best (1), halved,
    and 0.5 more for a unit that defines the name: definitions score 0.5 to 1 in their order,
    the rest below them in theirs. Scores still fall as the list goes on, and expansion reads
    them as the chance that a unit holds evidence.
    """
    if not defining.intersection(f.key for f in fused):
        return list(fused)
    top, low = fused[0].score, min(f.score for f in fused)
    span = top - low

    def scaled(f: Fused) -> float:
        return 1.0 if span <= 0 else (f.score - low) / span

    first = [replace(f, score=NAME_SHARE + (1 - NAME_SHARE) * scaled(f), ranks={**f.ranks, mark: (1.0, i)})
             for i, f in enumerate((f for f in fused if f.key in defining), start=1)]
    rest = [replace(f, score=(1 - NAME_SHARE) * scaled(f)) for f in fused if f.key not in defining]
    return first + rest

"""MyST, the Markdown that Sphinx reads (Click's, attrs' and many projects' docs): its directives
and roles as a reader of the built page sees them.

MyST writes Sphinx's directives as fences named in braces — ```` ```{note} ````, ```` ```{code-block}
python ````, ```` ```{toctree} ```` — and roles as ``{func}`prompt```. Read as plain Markdown,
every directive was a code block: a note, a warning or a version note was code (no sentences, no
lead-in to what follows), and a table of contents' options (``:depth: 2``) were content (a
role's braces: :mod:`.roles`). Here each directive is of one :func:`kind`: ``code`` (its body is source),
``prose`` (a note, a version note, a titled box: text with a lead, ``Note:``, ``New in version
4.0.``), or ``markup`` (a table of contents, an include, autodoc: nothing on this page to read). A
target label line, ``(options)=``, is nothing to read either.
"""

from __future__ import annotations

import re
from typing import Literal

from .directives import ADMONITIONS, MARKUP, PROSE, TITLED, VERSIONS

__all__ = ["LABEL", "Kind", "as_read_block", "code_language", "directive", "kind"]

Kind = Literal["code", "prose", "markup"]

_FENCE_INFO = re.compile(r"\{([A-Za-z][\w.:+-]*)\}[ \t]*(.*)")
#: A target label on a line of its own: ``(options)=``.
LABEL = re.compile(r"^[ \t]*\([^()\s]+\)=[ \t]*$", re.M)
#: A directive's options at the top of its body (``:depth: 2``).
_OPTION = re.compile(r"[ \t]*:[\w-]+:.*")
#: A reStructuredText directive's line: ``.. currentmodule:: click``, ``.. py:module:: json``.
_RST_DIRECTIVE = re.compile(r"[ \t]*\.\.[ \t]+(?:[\w-]+:)?([\w-]+)::")
_FENCE_LINE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})(.*)")


def directive(info: str) -> tuple[str, str] | None:
    """A fence's directive name (domain and case aside: ``py:currentmodule`` is ``currentmodule``)
    and argument, from its info string; None when the fence is code of a language."""
    m = _FENCE_INFO.fullmatch(info.strip())
    if m is None:
        return None
    return m.group(1).rpartition(":")[2].lower(), m.group(2).strip()


def kind(info: str, body: str = "") -> Kind | None:
    """What the fence with ``info`` (and ``body``) holds, when it is a directive: a directive not
    known here is ``code``, as a fence is; ``{eval-rst}`` of markup directives only (``..
    currentmodule:: click``) is markup."""
    found = directive(info)
    if found is None:
        return None
    name = found[0]
    if name == "eval-rst" and body.strip() and all(
            not line.strip() or _OPTION.fullmatch(line) or ((m := _RST_DIRECTIVE.match(line)) and m.group(1).lower() in MARKUP)
            for line in body.split("\n")):
        return "markup"
    return "prose" if name in PROSE else "markup" if name in MARKUP else "code"


def code_language(info: str) -> str:
    """The language a code directive names (``{code-block} python``), else ``python`` for the
    doctest family, else ''."""
    found = directive(info)
    if found is None:
        return ""
    name, argument = found
    if argument and name in ("code-block", "code", "sourcecode", "code-cell"):
        return argument.split()[0]
    return "python" if name in ("doctest", "testcode", "testsetup", "testcleanup", "ipython") else ""


def as_read_block(fenced: str) -> str | None:
    """A whole fence (from its opening line to its closing one) as a reader reads it: a prose
    directive's body after its lead, a markup directive as nothing; None for code."""
    ending = "\n" if fenced.endswith("\n") else ""
    lines = fenced.removesuffix("\n").split("\n")
    opening = _FENCE_LINE.fullmatch(lines[0])
    if opening is None:
        return None
    body = lines[1:]
    if body and body[-1].strip() == opening.group(1):
        body.pop()
    held = kind(opening.group(2), "\n".join(body))
    if held in (None, "code"):
        return None
    if held == "markup":
        return ""
    name, argument = directive(opening.group(2)) or ("", "")
    while body and _OPTION.fullmatch(body[0]):
        body.pop(0)
    said = "\n".join(body).strip("\n")
    return (_lead(name, argument) + "\n" + said if said else _lead(name, argument)) + ending


def _lead(name: str, argument: str) -> str:
    if name in VERSIONS:
        return f"{VERSIONS[name]} {argument}." if argument else f"{VERSIONS[name]}."
    if name in ADMONITIONS:
        return f"{name.capitalize()}:"
    if name == "seealso":
        return "See also:"
    if name in TITLED and argument:
        return argument if argument[-1] in ".:?!" else f"{argument}:"
    return ""

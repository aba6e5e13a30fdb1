"""LaTeX sources: sectioning commands as heading blocks, verbatim environments as code blocks,
the rest as paragraphs. The text is kept as written: a context is the source an author would
quote, and its mathematics stays exact.

``\\part`` to ``\\subparagraph`` (starred or with a short title) are headings, levels counted
from the outermost one the document uses; their titles are the braced argument with its markup
reduced to text (``\\emph{Fast} \\LaTeX`` → ``Fast LaTeX``). The ``abstract``, acknowledgements
and ``thebibliography`` environments open sections of their own (``Abstract``,
``Acknowledgements``, ``References``), as a typeset paper shows them. ``verbatim``,
``lstlisting``, ``minted`` and their kin are code, in the language their options name.
``\\title{…}`` is the document's title.

Read by hand, in one pass over the lines: what matters is where each command sits, which a
LaTeX-to-text converter does not keep. Commands in comments, in ``\\iffalse … \\fi``, in
verbatim text and in the preamble (before ``\\begin{document}``, where a class defines
``\\section`` itself) are no headings.
"""

from __future__ import annotations

import re
from types import MappingProxyType

from ...model import Block, Document
from ..spans import line_end
from .plain import with_paragraphs

_RANKS = {"part": 0, "chapter": 1, "section": 2, "subsection": 3, "subsubsection": 4,
          "paragraph": 5, "subparagraph": 6}
#: A sectioning command (group 1) or an environment's beginning (group 2).
_EVENT = re.compile(r"\\(?:(part|chapter|section|subsection|subsubsection|paragraph|subparagraph)\*?(?![A-Za-z])"
                    r"|begin[ \t]*\{([A-Za-z]+\*?)\})")
#: Environments that open a section of their own, with the title a typeset paper gives them.
_SECTION_ENVIRONMENTS = {
    "abstract": "Abstract", "acks": "Acknowledgements", "acknowledgments": "Acknowledgements",
    "acknowledgements": "Acknowledgements", "thebibliography": "References",
}
#: Environments whose body LaTeX does not read: code, or text shown as typed.
_VERBATIM = frozenset({"verbatim", "verbatim*", "Verbatim", "Verbatim*", "BVerbatim", "LVerbatim",
                       "lstlisting", "minted", "alltt", "listing", "pyglist", "comment"})
#: ``\verb|…|``, any character but a letter, a space or a star as its delimiter.
_VERB = re.compile(r"\\verb\*?([^A-Za-z\s*])")
#: ``\MakeShortVerb{\|}``: the doc classes' short verbatim, ``|\section|``.
_SHORT_VERB = re.compile(r"\\(?:MakeShortVerb|DefineShortVerb)\*?[ \t]*\{?\\(\S)")


def _comment_start(line: str) -> int:
    """Where the line's comment begins (an unescaped ``%``), or its length."""
    i = line.find("%")
    while i >= 0:
        slashes = len(line[:i]) - len(line[:i].rstrip("\\"))
        if slashes % 2 == 0:
            return i
        i = line.find("%", i + 1)
    return len(line)


def _masked(line: str, short: str = "") -> str:
    """The line's code: its comment and inline verbatim (``\\verb|…|``, and ``|…|`` where
    ``\\MakeShortVerb`` made ``short`` delimiters) blanked, same length, so a command shown there
    is not read."""
    cut = _comment_start(line)
    code = line[:cut] + " " * (len(line) - cut)
    pattern = _VERB if not short else re.compile(_VERB.pattern + "|([" + re.escape(short) + "])")
    pos = 0
    while (m := pattern.search(code, pos)) is not None:
        mark = m.group(1) or m.group(2)
        close = code.find(mark, m.end())
        stop = len(code) if close < 0 else close + 1
        code = code[:m.start()] + " " * (stop - m.start()) + code[stop:]
        pos = stop
    return code


_IFFALSE = re.compile(r"\\iffalse(?![A-Za-z])")
_FI = re.compile(r"\\fi(?![A-Za-z])")


def _without_iffalse(masked: str) -> str:
    """``masked`` with each ``\\iffalse … \\fi`` blanked: text an author switched off, as a
    comment is (a draft section inside is no heading)."""
    if "\\iffalse" not in masked:
        return masked
    out, pos = [], 0
    while (m := _IFFALSE.search(masked, pos)) is not None:
        fi = _FI.search(masked, m.end())
        if fi is None:
            break  # never closed: LaTeX would read on, and so do we
        out.append(masked[pos:m.start()])
        out.append("".join("\n" if ch == "\n" else " " for ch in masked[m.start():fi.end()]))
        pos = fi.end()
    out.append(masked[pos:])
    return "".join(out)


def _group(text: str, pos: int, open_: str = "{", close: str = "}") -> int | None:
    """The end (past the closing brace) of the group opening at ``text[pos]``, or None."""
    if pos >= len(text) or text[pos] != open_:
        return None
    depth = 0
    i = pos
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == open_:
            depth += 1
        elif ch == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _argument(text: str, pos: int) -> tuple[int, int] | None:
    """The span of the mandatory argument after a command ending at ``pos`` (an optional
    ``[…]`` before it skipped): inside the braces, or None when there is none."""
    i = pos
    while i < len(text) and text[i] in " \t":
        i += 1
    if i < len(text) and text[i] == "[":
        i = _group(text, i, "[", "]") or i
        while i < len(text) and text[i] in " \t\n":
            i += 1
    end = _group(text, i)
    return None if end is None else (i + 1, end - 1)


# -- titles --------------------------------------------------------------------------------

_LOGOS = {"LaTeX": "LaTeX", "LaTeXe": "LaTeX2e", "TeX": "TeX", "BibTeX": "BibTeX", "XeTeX": "XeTeX",
          "LuaTeX": "LuaTeX", "AmS": "AMS", "AMS": "AMS", "ldots": "…", "dots": "…", "textbar": "|"}
#: Commands whose argument is not part of the title a reader sees.
_DROPPED = re.compile(r"\\(?:label|footnote|thanks|index|cite[a-z]*|ref|eqref|pageref|hspace|vspace|"
                      r"footnotemark|protect|nocite)\*?(?![A-Za-z])")
#: Commands that show their argument as a command name (``\cs{section}`` → ``\section``).
_SHOWS_COMMAND = re.compile(r"\\(?:cs|cmd|cn|csname|bslash|macro)(?![A-Za-z])")
#: TeX's ligatures of punctuation: dashes and quotes.
_LIGATURE = {"---": "—", "--": "–", "``": "“", "''": "”"}
_LIGATURES = re.compile("---|--|``|''")
_COMMAND = re.compile(r"\\([A-Za-z]+)\*?|\\(.)")
_ESCAPED = {"&": "&", "%": "%", "_": "_", "$": "$", "#": "#", "{": "{", "}": "}", "\\": " ", " ": " ",
            ",": " ", ";": " ", "!": "", "-": "", "/": "", "@": ""}


def latex_title(raw: str) -> str:
    """A heading's argument as a reader sees it: commands reduced to their arguments, logos to
    their names, references and notes left out, math kept as written."""
    out: list[str] = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "%":
            nl = raw.find("\n", i)
            i = len(raw) if nl < 0 else nl + 1
            continue
        if ch == "\\":
            m = _DROPPED.match(raw, i)
            if m is not None:
                arg = _argument(raw, m.end())
                i = arg[1] + 1 if arg is not None else m.end()
                continue
            m = _SHOWS_COMMAND.match(raw, i)
            if m is not None and (arg := _argument(raw, m.end())) is not None:
                out.append("\\" + raw[arg[0]:arg[1]].strip())
                i = arg[1] + 1
                continue
            m = _COMMAND.match(raw, i)
            if m is None:  # a lone backslash at the end
                break
            if m.group(1) is not None:
                out.append(_LOGOS.get(m.group(1), ""))
            else:
                out.append(_ESCAPED.get(m.group(2), m.group(2)))
            i = m.end()
            continue
        if ch in "{}":
            i += 1
            continue
        out.append(" " if ch == "~" else ch)
        i += 1
    title = " ".join(_LIGATURES.sub(lambda m: _LIGATURE[m.group()], "".join(out)).split())
    return title or " ".join(raw.split())


# -- blocks --------------------------------------------------------------------------------

#: Where the body begins: what comes before is the preamble, where a class defines commands.
_DOCUMENT = re.compile(r"\\begin[ \t]*\{document\}")
_TITLE = re.compile(r"\\title(?![A-Za-z])")


def latex_blocks(text: str) -> tuple[list[Block], str | None]:
    """The blocks of a LaTeX source and its title (``\\title``'s argument), see the module
    docstring."""
    lines = text.split("\n")
    short = "".join(sorted({m.group(1) for line in lines if "ShortVerb" in line
                            for m in _SHORT_VERB.finditer(line[:_comment_start(line)])}))
    masked = _without_iffalse("\n".join(_masked(line, short) for line in lines))
    body = _DOCUMENT.search(masked)
    body_start = body.end() if body is not None else 0
    title_at = _TITLE.search(masked)
    title = None
    if title_at is not None and (arg := _argument(masked, title_at.end())) is not None:
        title = latex_title(text[arg[0]:arg[1]]) or None

    marked: list[Block] = []
    found: list[tuple[int, int, int, str]] = []  # start, end, rank, title
    pos = body_start
    while (m := _EVENT.search(masked, pos)) is not None:
        pos = m.end()
        if m.group(1) is not None:  # a sectioning command
            arg = _argument(masked, m.end())
            if (arg is None or "#" in masked[arg[0]:arg[1]] or not masked[arg[0]:arg[1]].strip()
                    or masked[m.start() - 1:m.start()] == "|"):
                continue  # named, not used ("\section alone", "|\chapter{x}|"), a macro's body, a blank
            end = _heading_end(masked, arg[1] + 1)
            found.append((m.start(), end, _RANKS[m.group(1)], latex_title(text[arg[0]:arg[1]])))
            pos = end
            continue
        env = m.group(2)
        if env in _SECTION_ENVIRONMENTS:
            while (group := _group(masked, pos) or _group(masked, pos, "[", "]")) is not None:
                pos = group  # its arguments: thebibliography's widest label, {9}
            pos = _heading_end(masked, pos)
            found.append((m.start(), pos, -1, _SECTION_ENVIRONMENTS[env]))
        elif env in _VERBATIM:
            close = re.compile(r"\\end[ \t]*\{" + re.escape(env) + r"\}").search(text, m.end())
            if close is None:
                continue  # never closed: LaTeX would stop there; the text stays text
            pos = close.end()
            if env != "comment":  # the comment package's environment: text left out, no code
                meta = _code_meta(env, masked, m.end())
                marked.append(Block(_line_or(masked, m.start()), pos, "code", meta=meta))

    ranks = [rank for _, _, rank, _ in found if rank >= 0]
    top = min(ranks, default=2)
    for start, end, rank, name in found:
        level = 1 if rank < 0 else min(rank - top + 1, 6)
        marked.append(Block(start, end, "heading", level, MappingProxyType({"title": name})))
    marked.sort(key=lambda b: (b.start, b.end))
    return with_paragraphs(text, ((b.start, b.end, b) for b in marked)), title


def _line_or(masked: str, pos: int) -> int:
    """The start of ``pos``'s line when only blanks come before it there, else ``pos`` (code
    keeps its indentation)."""
    ls = masked.rfind("\n", 0, pos) + 1
    return ls if not masked[ls:pos].strip() else pos


_TRAILING = re.compile(r"(?:[ \t]*\\label[ \t]*\{[^{}\n]*\})*[ \t]*")


def _heading_end(masked: str, pos: int) -> int:
    """The end of a heading command whose argument closes at ``pos``: past a ``\\label{…}``
    beside it."""
    m = _TRAILING.match(masked, pos)
    end = m.end() if m is not None else pos
    while end > pos and masked[end - 1] in " \t":
        end -= 1
    return end


#: ``lstlisting``'s ``language=Python`` option (``language={[LaTeX]TeX}`` names a dialect).
_LANGUAGE_OPTION = re.compile(r"\blanguage[ \t]*=[ \t]*\{?(?:\[[^\]]*\])?([\w+#-]+)")


def _code_meta(env: str, masked: str, pos: int) -> MappingProxyType[str, str]:
    """The language a verbatim environment names: ``minted``'s argument, ``lstlisting``'s
    ``language=`` option."""
    from .code import language_name

    language = ""
    if env == "minted" and (arg := _argument(masked, pos)) is not None:
        language = masked[arg[0]:arg[1]].strip()
    elif masked[pos:pos + 1] == "[":
        close = _group(masked, pos, "[", "]")
        option = _LANGUAGE_OPTION.search(masked, pos, close or line_end(masked, pos))
        language = option.group(1) if option is not None else ""
    return MappingProxyType({"language": language_name(language)} if language else {})


def read_latex(text: str, *, doc_id: str, source: str) -> Document:
    """The blocks, with ``\\title``'s argument as the title."""
    blocks, title = latex_blocks(text)
    fields = {"title": title} if title else {}
    return Document(id=doc_id, source=source, text=text, format="latex",
                    metadata=MappingProxyType(fields), blocks=tuple(blocks))

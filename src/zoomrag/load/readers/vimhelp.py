"""Vim's help files (``doc/*.txt`` of Vim, Neovim and every plugin) read as the manual they are.

A help file is plain text with a few conventions (``:help help-writing``): its first line names
it (``*change.txt*  For Vim version 9.0 …``), sections follow a line of ``=`` (or ``-``), a line
ending in ``~`` is a heading, ``*tag*`` marks a place others jump to and ``|tag|`` is such a
jump, a line ending in ``>`` opens an example that ends at a line starting with ``<`` or with
any text in the first column. A command or option is documented by its tags, then its line at
the left margin, then a description indented by tabs.

Read as plain text, a section's contents list (``4.1 Filter commands  |filter|``) made titles of
its own, every title carried its tags (``4. Complex changes complex-change``), the description of
one option ran into the next with no name above it, and examples were joined into sentences.
Here the sections and headings are titles without their tags, each documented command or
option is an entry (a heading over its description, as an API entry in HTML is: a context from
inside ``'tabstop'`` says so), examples are code, column-aligned lines keep their columns, and
the contents lists, the chapter navigation (``Next chapter: …``) and the modeline are left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import escape

from ...model import Document
from ..spans import indent_width
from .html import html_document

#: The first line of a help file names it: ``*change.txt*``, ``*fugitive.txt*  A Git wrapper…``.
_FIRST = re.compile(r"\*([\w.+-]+\.txt)\*[ \t]*(.*)")
_MODELINE = re.compile(r"^\s*vim?:(?:.*[: ])?(?:ft|filetype)=help\b.*$")
_SEPARATOR = re.compile(r"^(=|-)\1{9,}\s*$")
_TAG = re.compile(r"\*([^*\s|]+)\*")
_LINK = re.compile(r"\|([^|\s]+)\|")
_TAGS_ONLY = re.compile(r"^\s*(?:\*[^*\s|]+\*\s*)+$")
#: Text, then its tags at the end of the line (a title's, an item's).
_TRAILING_TAGS = re.compile(r"(?:\s+\*[^*\s|]+\*)+\s*$")
#: The manual's byline under the first line (``VIM REFERENCE MANUAL    by Bram Moolenaar``).
_BYLINE = re.compile(r"^\s*N?VIM (?:REFERENCE|USER) MANUAL\b")
#: The line saying which version of Vim a file is for (``For Vim version 9.0.  Last change: …``).
_VERSION_LINE = re.compile(r"^\s*For N?Vim version \d.*$", re.I)
#: A line of a contents list: words, then a jump to where they are (or the jump, then its words).
_CONTENTS = re.compile(r"^\s*(?:\S.*?[\s.]\|[^|\s]+\||\|[^|\s]+\|\s+\S.*?)(?:\s+\*[^*\s|]+\*)*\s*$")
_NAVIGATION = re.compile(r"^\s*(?:Next chapter|Previous chapter|Table of contents):\s*\|")
_NUMBERED = re.compile(r"^(?:\*)?\d+(?:\.\d+)+\*?\s+\S")
#: A headline: capitals, then a tag (``CONFIGURATION    *foo-config*``).
_HEADLINE = re.compile(r"^[A-Z][-A-Z0-9 .,()_'&/:]*[A-Z0-9):]\s+\*[^*\s|]+\*")
#: The end of a line that opens an example (``>``, or ``>vim``/``>lua`` in Neovim's files).
_OPENS = re.compile(r"(?:^|\s)>(?P<language>[a-z]\w*)?$")
#: A description's columns: text, a gap of a tab (or three spaces or more), text.
_GAP = re.compile(r"\S(?:\t|   )\s*\S")
_BULLET = re.compile(r"^(?:[-*•]|\d+[.)])\s+\S")
_TAB = 8
#: Words of prose: a line at the margin with this many is a sentence, not an item.
_WORDS = re.compile(r"(?<!\S)[a-z]+[,;]?(?!\S)")
_PROSE_WORDS = 5


def is_vim_help(text: str) -> bool:
    """Whether ``text`` is a help file: named on its first line, or saying so in its modeline."""
    first = text[:text.find("\n")] if "\n" in text else text
    if _FIRST.match(first):
        return True
    return any(_MODELINE.match(line) for line in text[-400:].split("\n")[-4:])


def read_vim_help(text: str, *, doc_id: str, source: str) -> Document:
    raw = [line.rstrip() for line in text.split("\n")]
    raw = [line for line in raw if not _MODELINE.match(line)]
    # the byline and the version line go, wherever the head of the file has them
    head = next((i for i, line in enumerate(raw) if _SEPARATOR.match(line)), len(raw))
    raw = [line for i, line in enumerate(raw)
           if i == 0 or i >= head or not (_BYLINE.match(line) or _VERSION_LINE.match(line))]
    name, title, start = _header(raw)
    writer = _Writer()
    writer.read(raw[start:])
    page = (f"<h1>{escape(title)}</h1>" if title else "") + writer.html()
    return html_document(page, "vimhelp", {"title": title, "help_file": name}, doc_id=doc_id, source=source)


def _header(lines: list[str]) -> tuple[str, str, int]:
    """The file's name, its title and the line its text starts at: the first line and a title
    line under it (centred, or at the margin with its tags) are the header (the byline is gone)."""
    found = _FIRST.match(lines[0]) if lines else None
    if found is None:
        return "", "", 0
    name = found.group(1)
    said = _plain(found.group(2))
    title = "" if not said or _VERSION_LINE.match(said) else said
    i = 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i < len(lines) and (i + 1 >= len(lines) or not lines[i + 1].strip() or _TAGS_ONLY.match(lines[i + 1])):
        line = lines[i]
        own = _plain(line)
        centred = line.startswith(("\t", "    ")) and len(own) <= 60
        tagged = not line[:1].isspace() and _TRAILING_TAGS.search(line) is not None and len(own) <= 60
        # a centred line is the page's title (a second one repeats it); a tagged one at the
        # margin is its title only when the first line gave none (else it is a headline)
        if (centred or (tagged and not title)) and not _CONTENTS.match(line) and not _SEPARATOR.match(line):
            title = title or own
            i += 1
    return name, title or name, i


def _plain(line: str) -> str:
    """A line's words: tags and a heading's ``~`` dropped, jumps as the words they jump to."""
    line = _TAG.sub(" ", line)
    line = _LINK.sub(r"\1", line)
    return " ".join(line.removesuffix("~").split())


class _Writer:
    """The HTML a help file means, written as its lines are read."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self._level = 2  # the level of the section open (a ``=`` section's title is h2)
        self._numbered = False  # a numbered subsection is open in it (``4.1 Filter commands``)
        self._entry = False  # an entry's description is open
        self._anchor = ""  # tags seen on a line of their own, for what comes next

    def html(self) -> str:
        self._end_entry()
        return "".join(self.out)

    def read(self, lines: list[str]) -> None:
        expanded = [line.expandtabs(_TAB) for line in lines]
        contents = set(self._contents(lines))
        i = 0
        while i < len(lines):
            line, wide = lines[i], expanded[i]  # a line, and as its columns fall (tabs expanded)
            if i in contents or _NAVIGATION.match(line) or not line.strip():
                i += 1
                continue
            if _SEPARATOR.match(line):
                i = self._section(lines, i)
                continue
            if _TAGS_ONLY.match(line):
                self._anchor = self._anchor or _TAG.findall(line)[0]
                i += 1
                continue
            if wide[:1].isspace():  # indented text outside an entry's description
                i = max(self._blocks(lines, expanded, i, inside=False), i + 1)
            elif line.endswith("~") and _GAP.search(line.strip()):
                i = self._table(lines, i)  # a table's column heads, its rows under them
            elif self._heading(line):
                i += 1
            elif self._item_at(lines, expanded, i):
                i = self._item(lines, expanded, i)
            else:
                self._end_entry()
                i = max(self._blocks(lines, expanded, i, inside=False), i + 1)

    # structure

    def _section(self, lines: list[str], i: int) -> int:
        """A separator line and the title under it."""
        self._end_entry()
        level = 2 if lines[i].lstrip()[0] == "=" else 3
        i += 1
        while i < len(lines) and not lines[i].strip():
            i += 1
        if i < len(lines) and not _SEPARATOR.match(lines[i]) and not _TAGS_ONLY.match(lines[i]):
            self._title(level, lines[i])
            self._level, self._numbered = level, False
            return i + 1
        return i

    def _table(self, lines: list[str], i: int) -> int:
        self._end_entry()
        end = i + 1
        while end < len(lines) and lines[end].strip() and not _SEPARATOR.match(lines[end]):
            end += 1
        self._columns(lines[i:end])
        return end

    def _heading(self, line: str) -> bool:
        """A heading line at the margin: one ending in ``~``, a numbered subsection with its
        tag, or a headline in capitals with its tag."""
        if not _heading_like(line):
            return False
        self._end_entry()
        if _NUMBERED.match(line) and _TRAILING_TAGS.search(line):
            self._numbered = True
            self._title(self._level + 1, line)
        else:
            self._title(min(self._level + 1 + self._numbered, 6), line)
        return True

    def _title(self, level: int, line: str) -> None:
        tags = _TAG.findall(line) or ([self._anchor] if self._anchor else [])
        self._anchor = ""
        words = _plain(_number_tag(line))
        if words:
            anchor = f' id="{escape(tags[0], quote=True)}"' if tags else ""
            self.out.append(f"<h{level}{anchor}>{escape(words)}</h{level}>")

    def _contents(self, lines: list[str]) -> Iterator[int]:
        """The lines of contents lists: two or more lines one after another, each words and the
        jump to where they are; a heading's own tags do not make it one."""
        run: list[int] = []
        for i, line in enumerate([*lines, ""]):
            if line.strip() and _CONTENTS.match(line) and not _SEPARATOR.match(line):
                run.append(i)
                continue
            if line.strip() and run and indent_width(line.expandtabs(_TAB)) > 0 and not _GAP.search(line.strip()):
                run.append(i)  # a long entry's words wrapped onto the next line
                continue
            if len(run) >= 2:
                yield from run
            run = []

    # entries

    def _item_at(self, lines: list[str], expanded: list[str], i: int) -> bool:
        """Whether the line at the margin is a documented item: its description stands beside
        it past a tab or follows it indented (a line of prose goes on at the margin)."""
        line = lines[i]
        term, said, _ = _beside(_TRAILING_TAGS.sub("", line))
        if said and len(_WORDS.findall(term)) < _PROSE_WORDS:
            return True
        following = expanded[i + 1] if i + 1 < len(expanded) else ""
        if indent_width(following) >= _TAB and following.strip():
            # a sentence leading in to an example set in without ``>`` is no item
            said = _plain(line)
            prose = len(_WORDS.findall(said)) >= _PROSE_WORDS  # "For instructions on installing this file, type"
            return _OPENS.search(line.rstrip()) is None and not prose and not (" " in said and said[-1] in ".:;,")
        # an item with its tags and nothing under it (``:se[t] all&``, ``'key'``)
        return bool(_TRAILING_TAGS.search(line)) and len(_plain(line)) <= 60 and not following.strip()

    def _item(self, lines: list[str], expanded: list[str], i: int) -> int:
        """An item at the margin (``:[range]ret[ab][!] [new_tabstop]``, ``'tabstop' 'ts'  number
        (default 8)``) and its description: an entry."""
        anchor = self._anchor
        self._anchor = ""
        terms: list[str] = []
        beside = ""
        while i < len(lines):
            line = lines[i]
            tags = _TAG.findall(line)
            anchor = anchor or (tags[0] if tags else "")
            text = _TRAILING_TAGS.sub("", line)
            # an option's line is its name, kind and default; a command's has its words beside it
            term, said, at = (text, "", len(text)) if text.startswith("'") else _beside(text)
            i += 1
            if said == "or":  # ``["x]<Del>  or`` over ``["x]x``: two ways to say one command
                terms.append(f"{_plain(term)} or")
                continue
            terms.append(_plain(term))
            # the words beside it, set at their column: the lines under them go on with them
            beside = " " * len(text[:at].expandtabs(_TAB)) + said if said else ""
            nxt = lines[i] if i < len(lines) else ""
            if (said or not nxt.strip() or expanded[i][:1].isspace() or _SEPARATOR.match(nxt)
                    or not (_TRAILING_TAGS.search(nxt) or "\t" in nxt) or _heading_like(nxt)):
                break
        self._end_entry()
        term = " ".join(t for t in terms if t)
        if not term:  # the line was its tags and words beside nothing: text
            return self._blocks(lines, expanded, i, inside=False, lead=beside)
        anchor = anchor or term.split()[0]
        self.out.append(f"<dl><dt id=\"{escape(anchor, quote=True)}\">{escape(term)}</dt><dd>")
        self._entry = True
        return self._blocks(lines, expanded, i, inside=True, lead=beside)

    def _end_entry(self) -> None:
        if self._entry:
            self.out.append("</dd></dl>")
            self._entry = False

    # text

    def _blocks(self, lines: list[str], expanded: list[str], i: int, *, inside: bool, lead: str = "") -> int:
        """Paragraphs, examples and column-aligned lines from line ``i``, after ``lead`` (the
        words beside an item); returns the line after them. An entry's description (``inside``)
        runs over blank lines to the next line at the margin; other text is one block of lines,
        at the margin or indented."""
        block: list[str] = []
        start = i
        margin_block = not expanded[i][:1].isspace() if i < len(lines) else False
        carry: str | None = lead or None  # the text after an example's closing ``<``, or the lead
        while i < len(lines) or carry is not None:
            carried = carry is not None
            line = carry if carry is not None else lines[i]
            wide = line.expandtabs(_TAB)
            if carry is None:
                i += 1
            carry = None
            if carried and _OPENS.search(line.rstrip()) is None:
                block.append(line)  # the text after an example's ``<`` goes on from it
                continue
            if not line.strip():
                self._paragraph(block)
                block = []
                if not inside:
                    return i
                continue
            if _NAVIGATION.match(line):
                continue
            at_margin = not wide[:1].isspace()
            if at_margin and i - 1 > start and (_SEPARATOR.match(line) or _heading_like(line)):
                self._paragraph(block)
                return i - 1
            if _TAGS_ONLY.match(line):
                if not inside:
                    self._paragraph(block)
                    return i - 1
                ahead = next((expanded[k] for k in range(i, len(lines)) if lines[k].strip()), "")
                if not ahead[:1].isspace():
                    self._paragraph(block)
                    return i - 1  # the tags of the next item
                continue
            if (inside and at_margin) or (not inside and block and at_margin != margin_block):
                self._paragraph(block)
                return i - 1
            opens = _OPENS.search(line.rstrip())
            if opens is not None:
                lead = line.rstrip()[:opens.start()].rstrip()
                if lead.strip():
                    block.append(lead)
                self._paragraph(block)
                block = []
                i = self._example(expanded, i, opens.group("language") or "")
                if i < len(lines) and lines[i].startswith("<"):
                    rest = lines[i][1:]
                    i += 1
                    if rest.strip():
                        carry = ("\t" if inside or not margin_block else "") + rest.lstrip()
                continue
            block.append(line)
        self._paragraph(block)
        return i

    def _example(self, expanded: list[str], i: int, language: str = "") -> int:
        """An example's lines from ``i``, written as code (in ``language`` when its ``>`` names
        one, as Neovim's ``>lua`` does); the line that ends it."""
        code: list[str] = []
        while i < len(expanded):
            wide = expanded[i]
            if wide.startswith("<") or (wide.strip() and not wide[:1].isspace()):
                break
            code.append(wide)
            i += 1
        while code and not code[-1].strip():
            code.pop()
        shift = min((indent_width(c) for c in code if c.strip()), default=0)
        body = "\n".join(c[shift:].removesuffix("~").rstrip() for c in code)
        if body.strip():
            named = f' class="language-{escape(language, quote=True)}"' if language else ""
            self.out.append(f"<pre><code{named}>{escape(body)}</code></pre>")
        return i

    def _paragraph(self, block: list[str]) -> None:
        """A block of lines: a run of two or more lines aligned in columns kept as written, the
        rest paragraphs, a list item starting a new one. A run starts at a line with a tab or
        three spaces between words and goes on while lines have a gap ending where one of its
        first line's does, or are set in as far (a cell's words wrapped)."""
        run: list[str] = []
        starts: set[int] = set()
        text: list[str] = []
        for line in [*block, ""]:
            mine = _column_starts(line)
            if run and line and (mine & starts or indent_width(line.expandtabs(_TAB)) >= min(starts)):
                run.append(line)
                continue
            if len(run) >= 2:
                self._text(text)
                text = []
                self._columns(run)
            else:
                text += run
            run = []
            if line and _GAP.search(line.strip()) and mine:
                run, starts = [line], mine
            elif line:
                text.append(line)
        self._text(text)

    def _columns(self, run: list[str]) -> None:
        wide = [_TAG.sub("", line).expandtabs(_TAB).rstrip() for line in run]
        shift = min((indent_width(w) for w in wide if w.strip()), default=0)
        body = "\n".join(_LINK.sub(r"\1", w[shift:]).removesuffix("~").rstrip() for w in wide)
        if body.strip():
            self.out.append(f"<pre>{escape(body)}</pre>")

    def _text(self, block: list[str]) -> None:
        if not block:
            return
        parts: list[list[str]] = [[]]
        for line in block:
            at = indent_width(line.expandtabs(_TAB))
            if parts[-1]:
                before = indent_width(parts[-1][-1].expandtabs(_TAB))
                # a list item, or text set a tab stop further out (an option's scope over its description)
                if (_BULLET.match(line.strip()) and at <= indent_width(parts[-1][0].expandtabs(_TAB))) or at <= before - _TAB:
                    parts.append([])
            parts[-1].append(line)
        for part in parts:
            words = " ".join(_plain(line) for line in part).strip()
            if words:
                self.out.append(f"<p>{escape(words)}</p>")


#: Where an item's words beside it start: past a tab, or, in a file written with 'expandtab'
#: (``:Gstatus                Bring up…``), past two spaces or more after a term that ends no
#: sentence or field name, at a description's column (``Problem:    …`` in a log is a field).
_BESIDE = re.compile(r"\t\s*|(?<![.!?:;,]) {2,}")
_BESIDE_COLUMN = 16


def _beside(text: str) -> tuple[str, str, int]:
    """An item's line as its term, the words beside it ("" for none) and where they start."""
    found = _BESIDE.search(text.rstrip(), 1)
    if (found is None or not text[:found.start()].strip()
            or ("\t" not in found.group() and found.end() < _BESIDE_COLUMN)):
        return text, "", len(text)
    return text[:found.start()], text[found.end():].strip(), found.end()


def _column_starts(line: str) -> set[int]:
    """Where the words that follow a gap of two spaces or more start, tabs expanded."""
    return {m.end() for m in re.finditer(r"(?<=\S) {2,}(?=\S)", line.expandtabs(_TAB))}


def _heading_like(line: str) -> bool:
    """A heading line at the margin: one ending in ``~``, a numbered subsection with its tag, or
    a headline in capitals with its tag."""
    stripped = line.rstrip()
    return ((stripped.endswith("~") and bool(_plain(stripped)))
            or _HEADLINE.match(stripped) is not None
            or (_NUMBERED.match(stripped) is not None and _TRAILING_TAGS.search(stripped) is not None))


def _number_tag(line: str) -> str:
    """A user manual's section number written as its tag (``*05.1*  The vimrc file``) kept as
    the title's number."""
    return re.sub(r"^\*(\d+(?:\.\d+)*)\*", r"\1", line)

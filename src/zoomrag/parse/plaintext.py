"""Headings of plain text: chapter and section lines, numbered titles, wiki titles.

A plain text has no markup that says which line is a title, so each family is a line pattern
with rules that tell a title from a sentence:

- named and Chinese markers (``Chapter 3``, ``Section 2.1``, ``ARTICLE IV``, ``第三章``, ``一、``);
- numbered titles (``2.3 Limitations``), also with a closing full stop when the title is in
  title case (a contract's ``0. Definitions.``), and run-in ones that open a clause
  (``2. Grant of Copyright License. Subject to …``: the title is what comes before the stop);
  a title numbered without a stop, as LaTeX sets a section (``5 Page headers``), only where it
  numbers the document's sections: followed by its own ``5.1``, or one of three or more
  numbered in turn (``12 Monkeys`` alone is a line of text);
- wiki titles (``== Title ==``, ``= = Title = =``).

A table of contents is not the outline: its entries (a run of numbered lines with no blank
line between them, most with a twin further on, or an entry that is its twin and a page number)
are left out, or its last entry would hold the whole body; so is a running head (a title and a
page number). A line that the one before runs on into (``(see`` over ``Section 5.2.``) is no
title. Text dumped from HTML keeps no-break spaces (``7.3.\u00a0Why…``) and DocBook's Chinese
spaces its chapter markers (``第 1 章 定义和概览``): both are headings too.

A numbered line that runs on into the next one as a sentence (``0. This License applies to any
program or other work which contains`` over ``a notice placed by…``) starts a numbered paragraph:
a clause is still a section, titled by that first line and marked as cut (``…``).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right

from ..load.spans import line_end
from ..text.lists import LEADER_LINE, LIST_ITEM
from ..text.markers import MARKER_RANK, NAMED, PLAIN, PLAIN_FIRST, LinePattern

__all__ = ["DEFINITION", "LinePattern", "MAX_WIDTH", "PLAIN", "PLAIN_FIRST", "WIKI", "definitions", "line_end",
           "plain_headings", "title_like"]


# "== Title ==" (MediaWiki) and "= = Title = =" (WikiText dumps): as many "=" on both sides.
WIKI = LinePattern(
    r"^[ \t]*(?P<eq>=(?: ?=)*)[ \t]+(?P<title>\S(?:[^\n]*?\S)?)[ \t]+(?P=eq)[ \t]*$"
)

# Families whose title must read as a title, not as a sentence or a list item.
_STRICT = {"cn_item", "cn_sub", "numbered"}
# Families named by a word, which a sentence may begin with ("Section 6 states the terms…").
MAX_WIDTH = 80  # display columns of a heading line; CJK characters count twice
_SENTENCE_BREAK = re.compile(r"[.!?][ \t]+\S|[。！？]\S")
_LEADERS = re.compile(r"\.{4,}|…{2,}|·{4,}")
# A run-in title: a short phrase up to a full stop, then the clause's first sentence.
_RUN_IN = re.compile(r"([^\W\d_][^.;:!?\n]{2,58}?)\.[ \t]+(?=[\"'“(]?[A-Z])")
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
# Words a title in title case leaves in lower case.
_SMALL = frozenset(
    "a an and as at but by for from in into nor of on or per than that the this these those to "
    "under upon via vs with within without".split()
)
# A line this share of the text's width that goes on into the next one is a wrapped sentence.
_WRAPPED = 0.75
# A text whose lines are all shorter than this is not wrapped prose.
_MIN_WIDTH = 40
# The longest title on the line under a bare "ARTICLE IV".
_TITLE_BELOW = 60
# Lines read to learn the text's width.
_WIDTH_SAMPLE = 2000


def _too_wide(s: str) -> bool:
    """More than MAX_WIDTH display columns, reading each character's width only when the length
    cannot tell (a character is one or two columns wide, an ASCII one never two; most lines tried
    are long paragraphs)."""
    if len(s) > MAX_WIDTH:
        return True
    if 2 * len(s) <= MAX_WIDTH or s.isascii():
        return False
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s) > MAX_WIDTH


def title_like(title: str, family: str, question: bool = False) -> bool:
    """``question``: a title may end with a question or an exclamation mark ("1.2. What is this
    spec?", "6.1 Try it first!"), as a subsection's may."""
    if _too_wide(title) or ";" in title or "；" in title or "://" in title or _LEADERS.search(title):
        return False  # a URL: a footnote's ("1. See https://…"), not a title
    if family not in _STRICT:  # a Chinese chapter's title does not end a sentence either
        return not title or title[-1] not in (",，:：、。！？；" if family.startswith("cn_") else ",，:：、")
    if not title or title[-1] in (",，;；:：、.。" if question else ",，;；:：、.。!！?？") or _SENTENCE_BREAK.search(title):
        return False
    if not any(c.isalpha() for c in title) or " = " in title:
        return False  # "1. For k = 1 to n": a step of an algorithm
    if "，" in title and title[-1] not in "？?":
        return False  # "4. 用 GSview 打开…，Options": a step told in a sentence; a question may pause
    return family != "numbered" or not title[0].islower() or _camel(title)


def _camel(title: str) -> bool:
    """A first word a name in lower case begins (``macOS 系统``, ``iOS apps``), not a sentence's."""
    word = title.split(maxsplit=1)[0] if title.strip() else ""
    return any(c.isupper() for c in word[1:])


def _title_case(title: str) -> bool:
    """Every word capitalised but the small ones (``Use with the GNU Affero General Public
    License``), or capitals throughout; the first word capitalised."""
    words = _WORD.findall(title)
    return bool(words) and words[0][0].isupper() and all(w[0].isupper() or w in _SMALL for w in words)


def _runs_on(text: str, ls: int, le: int, title: str, width: int) -> bool:
    """True when the line ``[ls, le)`` is the first line of a paragraph, not a title: the next
    line goes on with a word, and this line ends in a word such as "the" or "or", or it is nearly
    as wide as the text (``width``) and not in title case (capitals run on as sentences do)."""
    if le >= len(text):
        return False
    first = text[le + 1:line_end(text, le + 1)].lstrip().lstrip("\"'“‘(")[:1]
    if not first.isalpha():
        return False
    words = _WORD.findall(title)
    if words and words[-1].lower() in _SMALL:
        return True
    wrapped = width >= _MIN_WIDTH and le - ls >= _WRAPPED * width
    return wrapped and (not _title_case(title) or title.isupper())


def plain_headings(text: str, hidden: list[tuple[int, int]]) -> list[tuple[int, int, int, str]]:
    """The plain-text headings of ``text`` as ``(start, end, level, title)``, outside ``hidden``."""
    found: list[tuple[int, int, tuple[int, int], str]] = []  # start, end, rank key, title
    twins: dict[int, tuple[str, str]] = {}  # start → (the marker's numbers, the bare title)
    bare: dict[int, int] = {}  # start → number of a title numbered without a stop ("5 Page headers")
    paragraphs: set[int] = set()  # starts of numbered paragraphs ("1. The margins are…")
    listed = -1  # the number the next item of a list led in by a colon would have
    width = -1  # the text's width, measured when a rule first needs it
    for ls, m in PLAIN.finditer(text):
        family = m.lastgroup or ""
        le = line_end(text, ls)
        line = text[ls:le].strip()
        rest = text[m.end():le].strip()
        depth = 0
        run_in_title = None
        is_bare = False
        if _continues_into(text, ls):
            continue  # "(see" over "Section 5.2.": a wrapped sentence
        if family == "numbered":
            marker = m.group("numbered").replace("．", ".")
            depth = marker.rstrip(".").count(".")
            # "5 Page headers" may be a typeset section's title, "12 Monkeys" is not (_bare_kept)
            is_bare = depth == 0 and not marker.endswith(".")
            if depth == 0 and not is_bare and _in_list(text, ls, le):
                continue
            if depth == 0 and not is_bare:
                number = int(_NUMBER.findall(marker)[0])
                if number == listed or number == 1 and _led_in(text, ls):
                    listed = number + 1  # "There are three ways:" over "1. Download the installer"
                    continue
            titled = None
            if rest.endswith(".") and not rest.endswith("..") and _title_case(rest[:-1]):
                titled = rest[:-1]  # "0. Definitions." in a contract
            elif (run_in := _RUN_IN.match(rest)) and _title_case(run_in.group(1)):
                titled = run_in_title = run_in.group(1)  # "2. Grant of Copyright License. Subject to…"
            if titled is not None:
                rest, line = titled, f"{m.group('numbered')} {titled}"
        elif family in NAMED:
            if rest[:1].islower() and m.group(family)[-1] not in ".:":
                continue  # "Section 6 states terms for distribution…" is a sentence
            if (run_in := _RUN_IN.match(rest)) and _title_case(run_in.group(1)):
                rest = run_in.group(1)  # "Section 2. Payment Terms. The Buyer shall…"
                line = f"{m.group(family)} {rest}"
            elif not rest and (below := _title_below(text, le)):
                le, rest = below  # "ARTICLE IV" over "TERMINATION"
                line = f"{line} {rest}"
        # "1.2. What is this spec?" is a heading; "3. Why?" may be a list of questions
        if not title_like(rest, family, question=depth > 0) or _too_wide(line):
            continue
        if family in _STRICT and not run_in_title and (wrapped := _wrapped_title(text, le, rest)):
            le, more = wrapped  # "8 CCS CONCEPTS AND USER-DEFINED" over "KEYWORDS"
            gap = "" if rest[-1] in "-‐" else " "  # "right-" over "to-left typesetting"
            rest, line = f"{rest}{gap}{more}", f"{line}{gap}{more}"
        elif family in _STRICT and not run_in_title:
            if width < 0:
                width = _width(text)
            if _runs_on(text, ls, le, rest, width):
                if is_bare:
                    continue
                # A numbered paragraph, not a title: still a section (a clause is a unit of
                # meaning), titled by its first line, marked as cut.
                line = line.rstrip(" ,;:") + "…"
                paragraphs.add(ls)
        if is_bare:
            if not rest[:1].isalpha() or rest[:1].islower() and not _camel(rest):
                continue  # "216 \\def\\x{" is a numbered line of code
            if le < len(text) and LEADER_LINE.search(text, le + 1, line_end(text, le + 1)):
                continue  # "3 Displayed equations 3" over "3.1 Introduction . . . 3": contents
            bare[ls] = int(_NUMBER.findall(marker)[0])
        found.append((ls, le, (MARKER_RANK[family], depth), line.replace("\u00a0", " ")))
        listed = -1
        twins[ls] = (".".join(_NUMBER.findall(m.group(family))), " ".join(rest.split()))
    for ls, m in WIKI.finditer(text):
        title = m.group("title")
        if title_like(title, "wiki"):
            found.append((ls, m.end(), (0, m.group("eq").count("=")), title))
    found = sorted(_visible(found, hidden))
    found = _without_contents(text, found, twins) if found else found
    if bare:
        found = _bare_kept(text, found, twins, bare, paragraphs)
    found = sorted(found + _visible(definitions(text), hidden))
    if not found:
        return []
    # Levels are dense ranks of the families present: a document whose outermost headings
    # are "一、" gets level 1 for them, whatever the family's place in the full order.
    keys = sorted({f[2] for f in found})
    level_of = {k: min(i + 1, 6) for i, k in enumerate(keys)}
    return [(s, e, level_of[k], t) for s, e, k, t in found]


_NUMBER = re.compile(r"\d+")


def _visible(found: list, hidden: list[tuple[int, int]]) -> list:
    """The headings of ``found`` that start outside ``hidden`` (code, front matter)."""
    return [f for f in found if not any(s <= f[0] < e for s, e in hidden)] if hidden else found


#: The categories Texinfo sets definitions under.
_CATEGORIES = ("Function|Macro|Variable|User Option|Command|Special Form|Constant|Data Type|Type|Method|Class"
               "|Instance Variable|Library Function|Hook|Option|Special Variable|Generic Function|Prototype"
               "|Structure|Procedure|Keyword")
#: A definition as Texinfo sets one: TeX writes its category at the right margin
#: (``int asn1_der_coding (asn1_node element, …) [Function]``, as a PDF's text has it),
#: makeinfo's text before it (`` -- Function: int asn1_der_coding (…)``).
DEFINITION = LinePattern(
    rf"^(?:[ \t]*--[ \t]+(?P<lead>{_CATEGORIES}):[ \t]+(?P<said>\S[^\n]*)"
    rf"|(?P<signature>\S[^\n]*?)[ \t]+\[(?P<tail>{_CATEGORIES})\])[ \t]*$")
_CALLED = re.compile(r"([A-Za-z_][\w:.$]*)[ \t]*\(")
_NAMED_LAST = frozenset({"Variable", "User Option", "Constant", "Special Variable", "Option"})
#: A definition's rank: under every numbered or named title.
_DEFINITION_RANK = (99, 0)


#: A line led by two dashes, as makeinfo leads a definition (a fast scan; the line is read after).
_LED_BY_DASHES = LinePattern(r"^[ \t]*--[ \t]")
#: A category at a line's end, found by its bracket (a fast scan; the line is read after).
_CATEGORY_AT_END = re.compile(rf"\[(?:{_CATEGORIES})\][ \t]*(?=\n|$)")


def definitions(text: str) -> list[tuple[int, int, tuple[int, int], str]]:
    """Texinfo's definitions in a text (a PDF of a GNU manual, makeinfo's plain text) as
    headings titled by the name they define (``asn1_der_coding``), where :data:`DEFINITION`
    matches. The line over one that names it with spaces for underscores (a reference generated
    from comments: ``asn1 der coding``) is part of its heading."""
    lines = []
    if "[" in text:
        lines += [text.rfind("\n", 0, m.start()) + 1 for m in _CATEGORY_AT_END.finditer(text)]
    if "-- " in text:
        lines += [ls for ls, _ in _LED_BY_DASHES.finditer(text)]
    out = []
    for ls in sorted(set(lines)):
        m = DEFINITION.first.match(text, ls)
        if m is None:
            continue
        said = m.group("said") or m.group("signature")
        category = m.group("lead") or m.group("tail")
        called = _CALLED.search(said)
        words = said.split()
        name = called.group(1) if called else words[-1] if category in _NAMED_LAST else words[0]
        start = ls
        above = text.rfind("\n", 0, max(ls - 1, 0)) + 1 if ls else ls
        if ls and " ".join(text[above:ls - 1].split()) == name.replace("_", " "):
            start = above
        out.append((start, line_end(text, ls), _DEFINITION_RANK, name))
    return out


#: A contents entry's page number after its title.
_PAGE_AFTER = re.compile(r"[ \t]+(?:\d{1,4}|[ivxlc]{1,6})$")
#: A blank line: a section's text is set apart by one; a table of contents has none between its
#: entries (wrapped titles and entries not taken for headings run on line after line). A page
#: break (a form feed, as the PDF reader writes it) sets text apart too.
_BLANK_LINE = re.compile(r"\n[ \t\f\u3000\u00a0]*\n")
#: Entries a table of contents has at least.
_CONTENTS_RUN = 3


def _twins_by_numbers(found: list, twins: dict[int, tuple[str, str]]) -> dict[str, list[tuple[int, str]]]:
    """The numbered entries of ``found`` by their numbers, each as ``(start, bare title)``."""
    out: dict[str, list[tuple[int, str]]] = {}
    for f in found:
        twin = twins.get(f[0])
        if twin is not None and twin[0] and len(twin[1]) >= 2:
            out.setdefault(twin[0], []).append((f[0], twin[1]))
    return out


def _without_contents(text: str, found: list, twins: dict[int, tuple[str, str]]) -> list:
    """``found`` (sorted) without a table of contents: a run of at least three headings with no
    blank line between them (wrapped titles and entries not taken for headings run on line after
    line), at least half of which have a twin further on (the same numbers, one title the start
    of the other: ``1. 定义和概览`` and then ``第 1 章 定义和概览``, ``7.3. Why…`` twice). Left in,
    the contents' last entry held the whole body of the document. A line that is a title next to
    it and a page number goes first: a contents entry (``1 Introduction 2`` before ``1
    Introduction``), which goes even with no blank line anywhere near (text from a PDF has none),
    or a running head (``2.2 格式及其转换 9`` on the section's next page), which would otherwise
    make the titles around it look like a contents."""
    later = _twins_by_numbers(found, twins)
    if not any(len(v) > 1 for v in later.values()):
        return found

    def paged(f: tuple) -> bool:
        twin = twins.get(f[0])
        if twin is None or (page := _PAGE_AFTER.search(twin[1])) is None:
            return False
        same = later.get(twin[0], [])
        k = bisect_right(same, (f[0], "\U0010ffff"))
        return any(t == twin[1][:page.start()] for _, t in same[max(0, k - 3):k - 1] + same[k:k + 2])

    found = [f for f in found if not paged(f)]
    later = _twins_by_numbers(found, twins)

    def has_twin(f: tuple) -> bool:
        # The next two headings with the same numbers (a body restating its contents comes next;
        # looking no further keeps a text of thousands of "1." lines linear).
        twin = twins.get(f[0])
        if twin is None:
            return False
        after = later.get(twin[0], [])
        k = bisect_right(after, (f[0], "\U0010ffff"))
        return any(t.startswith(twin[1]) or twin[1].startswith(t) for _, t in after[k:k + 2])

    twinned = [has_twin(f) for f in found]
    runs: list[list[int]] = []
    for i, f in enumerate(found):
        if runs and _BLANK_LINE.search(text, found[runs[-1][-1]][1], f[0] + 1) is None:
            runs[-1].append(i)
        else:
            runs.append([i])
    drop = {i for run in runs if len(run) >= _CONTENTS_RUN
            and 2 * sum(twinned[i] for i in run) >= len(run) for i in run}
    # Groups of a contents set apart by blank lines ("2.2.1. Free versions" alone between two):
    # entries with twins joined to a dropped one by nothing but white space go too.
    i = 0
    while i < len(found):
        j = i
        while (j + 1 < len(found) and (j in drop or twinned[j]) and (j + 1 in drop or twinned[j + 1])
               and not text[found[j][1]:found[j + 1][0]].strip()):
            j += 1
        if any(k in drop for k in range(i, j + 1)):
            drop.update(k for k in range(i, j + 1) if twinned[k])
        i = j + 1
    return [f for i, f in enumerate(found) if i not in drop]


#: Consecutive numbers that make titles numbered without a stop a document's sections.
_BARE_RUN = 3


def _bare_kept(text: str, found: list, twins: dict[int, tuple[str, str]], bare: dict[int, int],
               paragraphs: set[int]) -> list:
    """``found`` with only the titles numbered without a stop that number the document's
    sections, as LaTeX sets them (``5 Page headers and footers``): each followed by the title of
    its first subsection (``5.1``), or one of at least three numbered in turn with text between
    them, and not in a listing of lines numbered in turn. A line such as ``12 Monkeys`` is
    neither. Where the sections are so numbered, a numbered paragraph (``1. The margins are…``)
    is a list item, not a section."""
    ends = {f[0]: f[1] for f in found if f[0] in bare}
    # Lines numbered in turn with nothing between ("1 HKEY_…", "2 HKEY_…"): a listing, no titles.
    order = sorted(ends)
    listed = {s for a, b in zip(order, order[1:]) if abs(bare[b] - bare[a]) == 1
              and not text[ends[a]:b].strip() for s in (a, b)}
    ends = {s: e for s, e in ends.items() if s not in listed}
    kept: set[int] = set()
    for f, after in zip(found, found[1:]):  # the title right after is its first subsection, N.1
        if f[0] in ends and after[0] in twins and twins[after[0]][0].startswith(f"{bare[f[0]]}.1"):
            kept.add(f[0])
    # Runs n, n+1, n+2 … in document order, each title apart from the one before.
    best: dict[int, tuple[int, int]] = {}  # number → (length, start) of the longest run ending there
    before: dict[int, int] = {}  # start → the start of the title before it in its run
    for start in sorted(ends):
        number = bare[start]
        prev = best.get(number - 1)
        length = 1
        if prev is not None and text[ends[prev[1]]:start].strip():
            length = prev[0] + 1
            before[start] = prev[1]
        if length > best.get(number, (0, 0))[0]:
            best[number] = (length, start)
    for length, start in best.values():
        if length >= _BARE_RUN:
            s: int | None = start
            while s is not None:
                kept.add(s)
                s = before.get(s)
    out = [f for f in found if f[0] not in bare or f[0] in kept]
    if kept:
        out = [f for f in out if f[0] not in paragraphs or f[2][1] > 0]
    return out


def _continues_into(text: str, ls: int) -> bool:
    """True when the line before the one at ``ls`` runs on into it: it ends with a comma, an
    open bracket or a word such as "the", "in" or "see" ("(see" over "Section 5.2.")."""
    if ls < 2 or text[ls - 2] == "\n":
        return False
    above = text[text.rfind("\n", 0, ls - 1) + 1:ls - 1].rstrip()
    if not above:
        return False
    if above[-1] in ",([":
        return True
    word = _WORD.findall(above[-12:])
    return bool(word) and above.endswith(word[-1]) and word[-1] in _RUNS_INTO


#: Last words of a line that a sentence goes on from.
_RUNS_INTO = _SMALL | {"see", "cf", "and", "or", "is", "are", "was", "were", "be"}


#: The longest end of a title wrapped onto a second line (a narrow column's).
_WRAPPED_END = 40


def _wrapped_title(text: str, le: int, title: str) -> tuple[int, str] | None:
    """``(its end, its text)`` of the line after a numbered title ending at ``le`` when the title
    goes on there, as in a narrow column: a short line that ends no sentence and is no title
    itself, in capitals under a title in capitals, or going on in lower case after a title that
    ends with a word such as "the" or a hyphen ("2.2 Not balancing the" over "columns")."""
    if le >= len(text) or not title:
        return None
    end = line_end(text, le + 1)
    below = text[le + 1:end].strip()
    if not below or len(below) > _WRAPPED_END or below[-1] in ".,;:!?" or _SENTENCE_BREAK.search(below) \
            or PLAIN.first.match(below):
        return None
    words = _WORD.findall(title)
    in_capitals = title.isupper() and below.isupper()
    goes_on = below[:1].islower() and (title[-1] in "-‐" or bool(words) and words[-1].lower() in _SMALL)
    return (end, below) if in_capitals or goes_on else None


def _title_below(text: str, le: int) -> tuple[int, str] | None:
    """The line after the marker line ending at ``le`` when it is a short title in title case or
    capitals (and so the marker's title), as ``(its end, its text)``."""
    if le >= len(text):
        return None
    end = line_end(text, le + 1)
    below = text[le + 1:end].strip()
    if not below or len(below) > _TITLE_BELOW or not _title_case(below) or below[-1] in ".,;:" \
            or _SENTENCE_BREAK.search(below) or PLAIN.first.match(below):
        return None
    return end, below


def _led_in(text: str, ls: int) -> bool:
    """True when the paragraph before the line at ``ls`` ends with a colon: it leads in to a
    list ("There are three ways to install it:")."""
    i = ls - 1
    while i >= 0 and text[i].isspace():  # back over the blank lines, not copying the text before
        i -= 1
    return i >= 0 and text[i] in ":："


def _in_list(text: str, ls: int, le: int) -> bool:
    """True when the line above or below is a list item too (numbered or bulleted)."""
    if ls > 0:
        ps = text.rfind("\n", 0, ls - 1) + 1
        if LIST_ITEM.match(text, ps, ls - 1):
            return True
    if le < len(text):
        return bool(LIST_ITEM.match(text, le + 1, line_end(text, le + 1)))
    return False


def _width(text: str) -> int:
    """The width the text is wrapped at: its 98th percentile line length (a long URL aside)."""
    lengths = sorted(len(x) for x in text.split("\n", _WIDTH_SAMPLE)[:_WIDTH_SAMPLE] if x.strip())
    return lengths[len(lengths) * 49 // 50] if lengths else 0

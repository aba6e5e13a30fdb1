"""Sentence segmentation with exact spans, for English and other alphabetic languages and CJK text.

``sentence_spans(text, start, end)`` returns ordered, non-overlapping ``(start, end)`` pairs
inside [start, end), trimmed of surrounding whitespace, that together cover every
non-whitespace character of the range. A blank line always ends a sentence;
``paragraph_sentences`` groups the same spans by paragraph.

How a boundary is found (chosen over pysbd, blingfire and sentencex by measurement, see
docs/text.md):

* ``。！？；`` (and ``｡``) always end a sentence, with any closing quotes or brackets after them
  (``」』”）``), unless a Japanese quotative particle (``と``) or a comma follows the quote.
* ``. ! ? …`` end a sentence only when whitespace, the end of the range, or a CJK character
  follows. Then:

  - ``!``, ``?``, ellipses and a stop inside quotes end it unless the next word is lower case
    (``"Stop!" she cried.``, ``"Go." he said.``, ``I was thinking... maybe not.``);
  - after a title or a Latin abbreviation that never ends a sentence (``Dr.``, ``e.g.``,
    ``cf.``, ``vs.``) it goes on;
  - after an abbreviation that may end one (``etc.``, ``Inc.``, ``U.S.``, ``a.m.``, ``Fig.``),
    or a single capital (``J. R. R. Tolkien``), it ends only before a capital word that
    usually opens a sentence (``The``, ``It``, ``However``): ``the U.S. Congress`` goes on;
  - after a list number at the start of a line (``1. Open the lid``), or a day before a German
    month (``am 3. Oktober``), it goes on;
  - the abbreviations of German, French, Spanish, Italian, Portuguese, Dutch and Russian are
    known too (``z. B.``, ``bzw.``, ``p. ex.``, ``Sr.``, ``т. е.``), and the words that open
    their sentences;
  - any other ``.`` ends it, even before a lower-case word (lower-cased corpora exist).
  Tokenised text (``the game . It``) follows the same rules, and so do French closing
  guillemets set off by a space (``« Partez ! » dit-il.``).
* The stops of scripts without capitals (``।`` ``॥`` ``؟`` ``۔`` ``։`` ``።``) end a sentence
  before a space, as ``!`` and ``?`` do.
* A single line break ends a sentence unless the next line starts in lower case (a hard-wrapped
  paragraph), also after inline markup (``*putmask*``, ```code```, ``_x_``, ``[link]``; not a
  ``* `` bullet), and the line is not a table row (``|``). A long line (``WRAP`` characters or
  more) that ends in a word or a comma is wrapped prose too, whatever the next line starts
  with ("…will be given this\nMIME type", "…value is\n50, and…"), unless the next line opens a
  list item (``-``, ``1.``, ``(a)``), a table row, a heading or a rule (``#``, ``=``), a quote
  or a fence, or the line is a title or a list of names (half its words capitalised, no
  sentence ending in it), or it ends in a capitalised word and the next line is one. A line
  that ends in an article or a conjunction (``the``, ``und``, ``et``) always goes on: German
  capitalises its nouns, so "…eine\nMenge" is one sentence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import islice, pairwise
from operator import itemgetter, le

from ..errors import SpanError

#: Closing and opening quotes and brackets (characters, not regex classes: ``_CLOSE_CLASS``).
_CLOSE = "\"'”’»›)]}」』）】〕〉》"
_OPEN = "\"'“‘«‹([{「『（【〔〈《"
_CLOSE_CLASS, _OPEN_CLASS = re.escape(_CLOSE), re.escape(_OPEN)
_CJK_STOP = "。！？；｡"
#: Kana, CJK ideographs, hangul and full-width forms, as a character class's ranges: scripts
#: written without spaces between words (tokens, sentence ends and readers treat them alike).
CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"

# Where a sentence may end. Three simple patterns, each starting with a character class, scan
# several times faster in ``re`` than one alternation of them. _LATIN_END also captures what
# follows: the whitespace, the first visible character after any opening quotes, or an adjacent
# CJK character.
_CJK_END = re.compile(rf"[{_CJK_STOP}][{_CJK_STOP}!?…]*[{_CLOSE_CLASS}]*")
# Kept apart from parse.boundaries' stop lists: these are the stops the rules below were measured
# with (docs/text.md), and here "．" is a Latin stop ("3．5" is not an end), while the chunker's
# cut tier ends a sentence after it anywhere but between two digits (its DECIMAL_POINT), and also
# at ‼. One list would move either sentences or chunks. The stops of scripts without case
# (Devanagari's dandas, Arabic's question mark, Urdu's full stop, Armenian and Ethiopic ones)
# follow the rules of "!" and "?": before a space they end a sentence.
_LATIN_STOPS = ".!?‽…．।॥؟۔։።"
# French sets its closing guillemets off by a space: « Partez ! » dit-il.
_LATIN_TAIL = rf"[{_CLOSE_CLASS}]*(?:[ \u00a0\u202f][»›])?(?=(\s+)[{_OPEN_CLASS}]*(\S)|\s*\Z|([{CJK_CHARS}]))"
_LATIN_END = re.compile(rf"[{_LATIN_STOPS}]+{_LATIN_TAIL}")
# The same pattern split by its first character. ``re`` tests a leading character class at
# every offset of the text but finds a leading literal at C speed, so scanning once per stop
# character that occurs is several times faster; _latin_ends merges the scans.
_LATIN_BY_STOP = tuple(
    (c, re.compile(rf"{re.escape(c)}[{_LATIN_STOPS}]*{_LATIN_TAIL}")) for c in _LATIN_STOPS)
_NEWLINE = re.compile("[\r\n\u2028\u2029]")
# A line feed (a literal scans much faster than a class), and, without consuming it, what
# _NEXT_LINE finds after it: in a text with no other line break, the same groups.
# The next line's first character is taken after inline markup that opens it (a line of wrapped
# prose may start with ``*emphasis*`` or ```code```); a marker followed by a space (a bullet) is
# not skipped, the backtracking gives it back.
_MARKUP = r"[*_`\[]*"
_LINE_FEED_NEXT = re.compile(rf"\n(?:(?=[^\S\r\n]*([\r\n\u2029]))|(?=[^\S\r\n]*{_MARKUP}(\S)))?")
# The same, skipping in the scan the breaks an ASCII lowercase letter continues (never a cut
# where no table row can be: most line breaks of wrapped prose).
_LINE_FEED_CUT = re.compile(
    rf"\n(?![^\S\r\n]*{_MARKUP}[a-z])(?:(?=[^\S\r\n]*([\r\n\u2029]))|(?=[^\S\r\n]*{_MARKUP}(\S)))?")
# After a line break: another break (a blank line), or the next line's first character.
_NEXT_LINE = re.compile(rf"[^\S\r\n]*(?:([\r\n\u2029])|{_MARKUP}(\S))")
_SPACES = frozenset(chr(o) for o in range(0x3001) if chr(o).isspace())
# Japanese quotation followed by its quotative particle, or a comma after a closing quote.
_CJK_GOES_ON = "と、，,"

# Titles and Latin abbreviations that (almost) never end a sentence.
_NEVER = frozenset("""
    mr mrs ms mx dr prof sen rep gov gen col lt capt cmdr sgt maj adm hon fr st mt messrs mme
    mlle pres supt e.g i.e cf vs v viz approx ca al esp
    bzw vgl ggf evtl sog bspw insb z.b d.h u.a s.o s.u o.ä u.u hrsg
    cfr dott sig sigg avv sra srta dra p.ej p.ex bijv d.w.z o.a т.е т.д т.п т.к
""".split())
# Abbreviations that may end a sentence: they end one before a capital letter.
_MAYBE = frozenset("""
    etc inc ltd co corp llc plc jr sr bros dept univ assn est fig figs eq eqs no nos vol vols
    pp ch chap sec sect art ref refs tab ed eds ser suppl ave blvd rd min max hr hrs incl excl
    misc govt natl intl jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat
    sun op cit ibid resp et seq ph.d
    usw kap abschn jh env éd coll ex ej aprox pág págs núm ecc pag enz
    рис табл им тыс руб ул
""".split())
# Words that open sentences far more often than they follow an abbreviation inside one.
_STARTERS = frozenset("""
    the a an it its he she they we i you this that these those there then in on at but and or
    so if when while after before his her their our my your as for however also some many most
    all not no one what why how who which where each both such to from with by during although
    though since because yet thus hence therefore meanwhile instead still even only here now
    der die das den dem ein eine es er sie wir ich man dies diese dieser dieses dann danach daher
    deshalb denn doch wenn weil aber und oder auch im am zum zur bei mit für nach vor wie was
    warum wo wer hier dort jetzt nun zudem außerdem allerdings jedoch trotzdem sonst falls
    le la les un une des il elle ils elles nous vous je on ce cette ces cela ceci mais et ou donc
    alors ensuite puis si quand lorsque pour dans en sur avec par après avant comme pourquoi
    comment où qui que ici voici cependant toutefois enfin
    el los las una unos unas este esta estos estas eso esto pero y cuando para con por después
    antes porque aquí entonces lo gli questo questa è ma se dopo prima perché qui quindi poi
    os um uma isso isto mas em depois então het een deze er hij zij wij ik maar als daarna dan
    это этот эта эти он она они мы я вы но и или если когда для в на с после до как почему здесь
    тогда затем однако также поэтому так
""".split())
#: German months, which an ordinal day precedes with a stop ("3. Oktober").
_MONTHS = frozenset("januar jänner februar märz april mai juni juli august september oktober november "
                    "dezember".split())
#: Vowels of the Latin, Greek and Cyrillic alphabets, where a short word without one is an
#: abbreviation (Mr, Ltd, pp, гл, стр); other scripts have no such rule.
_VOWELS = frozenset("aeiouyáàâäãåæéèêëíìîïóòôöõøœúùûüýÿ" "αεηιουωάέήίόύώ" "аеёиоуыэюя")
_ALPHABETIC = re.compile(r"[A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]+")
_WORD = re.compile(r"[^\W\d_]+")
_AFTER_CJK = re.compile(rf"[^{CJK_CHARS}]*\Z")
_DOTTED = re.compile(r"[^\W\d_]{1,2}(?:\.[^\W\d_]{1,2})+")


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentences of ``text[start:end]`` as exact, trimmed ``(start, end)`` offsets into ``text``."""
    end = len(text) if end is None else end
    cuts, _ = _cuts(text, start, end)
    return _trimmed(text, cuts)


def sentence_bounds(text: str, start: int = 0, end: int | None = None) -> tuple[list[int], list[int]]:
    """The starts and the ends of :func:`sentence_spans`, as two lists."""
    end = len(text) if end is None else end
    spans = _trimmed(text, _cuts(text, start, end)[0])
    return list(map(itemgetter(0), spans)), list(map(itemgetter(1), spans))


def paragraph_sentences(text: str, start: int = 0, end: int | None = None) -> list[list[tuple[int, int]]]:
    """The sentences of :func:`sentence_spans`, grouped by paragraph (blank-line separated)."""
    end = len(text) if end is None else end
    cuts, breaks = _cuts(text, start, end)
    groups: list[list[tuple[int, int]]] = []
    add = None
    breaks.append(end + 1)  # past every sentence: the scan below needs no bounds check
    k = 0
    after = -1  # a sentence that starts past this offset opens a paragraph
    space = _SPACES
    # _trimmed and the grouping in one pass: this runs once per sentence.
    for s, e in pairwise(cuts):
        while s < e and text[s] in space:
            s += 1
        while e > s and text[e - 1] in space:
            e -= 1
        if s < e:
            # A paragraph break between the previous sentence and this one opens a new group
            # (no sentence holds one: every blank line is a cut).
            if s > after:
                group: list[tuple[int, int]] = []
                groups.append(group)
                add = group.append
                while breaks[k] < s:
                    k += 1
                after = breaks[k]
            add((s, e))  # type: ignore[misc]
    return groups


def _cuts(text: str, start: int, end: int) -> tuple[list[int], list[int]]:
    """Sorted cut offsets (the range ends included), and the offsets of paragraph breaks."""
    _check_range(text, start, end)
    cuts = [start, end]
    _latin_cuts(text, start, end, _latin_ends(text, start, end), cuts)
    _cjk_cuts(text, start, end, cuts)
    breaks = _newline_cuts(text, start, end, cuts)
    cuts.sort()
    return cuts, breaks


def _check_range(text: str, start: int, end: int) -> None:
    if not 0 <= start <= end <= len(text):
        raise SpanError(f"sentence range [{start}, {end}) is outside a text of length {len(text)}")


def _latin_cuts(text: str, start: int, end: int, matches: Iterable[re.Match[str]],
                cuts: list[int]) -> None:
    """Adds to ``cuts`` where each of the terminators ``matches`` ends a sentence."""
    add = cuts.append
    for m in matches:
        cut = _latin_cut(text, m, start, end)
        if cut >= 0:
            add(cut)


def _cjk_cuts(text: str, start: int, end: int, cuts: list[int]) -> None:
    # A scan for a character that is absent costs more than looking for it first.
    if _has_any(text, _CJK_STOP, start, end):
        add = cuts.append
        for m in _CJK_END.finditer(text, start, end):
            e = m.end()
            if e >= end or text[e] not in _CJK_GOES_ON or text[e - 1] not in _CLOSE:
                add(e)


def _newline_cuts(text: str, start: int, end: int, cuts: list[int]) -> list[int]:
    """Adds to ``cuts`` the line breaks that end a sentence; returns the paragraph breaks."""
    breaks: list[int] = []
    add = cuts.append
    if _has_any(text, "\r\u2028\u2029", start, end):
        for m in _NEWLINE.finditer(text, start, end):
            i = m.start()
            kind = _newline_kind(text, i, start, end)
            if kind:
                add(i)
                if kind == _PARAGRAPH:
                    breaks.append(i)
    else:
        # Only "\n": _newline_kind inlined (a call per line break cost a third of the scan), with
        # what follows each break found by the scan.
        pipes = text.find("|", start, end) >= 0
        for m in (_LINE_FEED_NEXT if pipes else _LINE_FEED_CUT).finditer(text, start, end):
            i = m.start()
            blank, nxt = m.groups()
            if blank is not None:
                add(i)
                breaks.append(i)
            elif nxt is None or not nxt.islower():
                if nxt is None or not _wrapped(text, start, i, end):
                    add(i)
            elif pipes and "|" in text[max(start, text.rfind("\n", start, i) + 1):i]:  # table rows: one per line
                add(i)
    return breaks


def _latin_ends(text: str, start: int, end: int) -> Iterable[re.Match[str]]:
    """The matches of ``_LATIN_END.finditer(text, start, end)``, found faster.

    A match of the split patterns is the match of _LATIN_END at the same offset (the same
    greedy run of stops, then the same tail), and a match that starts inside an earlier one ends
    where that one ends; so the leftmost-first merge of their matches is exactly finditer's.
    """
    scans: list[Iterable[re.Match[str]]] = []
    for c, p in _LATIN_BY_STOP:
        if text.find(c, start, end) >= 0:
            scans.append(p.finditer(text, start, end))
    if len(scans) < 2:
        return scans[0] if scans else ()
    found = [m for scan in scans for m in scan]
    found.sort(key=re.Match.start)
    # Matches overlap only where different stops touch ("?!", ". ."); most texts have none.
    if all(map(le, map(re.Match.end, found), map(re.Match.start, islice(found, 1, None)))):
        return found
    out = []
    last = start
    for m in found:
        if m.start() >= last:
            out.append(m)
            last = m.end()
    return out


def _has_any(text: str, chars: str, start: int, end: int) -> bool:
    return any(text.find(c, start, end) >= 0 for c in chars)


def _trimmed(text: str, cuts: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    space = _SPACES
    for s, e in pairwise(cuts):
        while s < e and text[s] in space:
            s += 1
        while e > s and text[e - 1] in space:
            e -= 1
        if s < e:
            out.append((s, e))
    return out


def _latin_cut(text: str, m: re.Match[str], lo: int, hi: int) -> int:
    """Where the terminator ``m`` (stops, then closing quotes) ends a sentence, or -1."""
    gap, nxt, cjk = m.groups()
    end = m.end()
    if nxt is None:
        if cjk is None:
            return end  # nothing but whitespace follows in the range
        nxt = cjk
    elif nxt in ".!?…":
        return -1  # a spaced ellipsis ". . ." or a stray stop: the last one decides
    lower = nxt.islower()
    mark = m.group()
    if mark != ".":
        stops = mark.rstrip(_CLOSE)
        if not stops.strip(".…") and _starts_line(text, m.start(), lo):
            return -1  # a line's opening ".. note::" (reStructuredText markup) or "... and so on"
        if len(stops) > 1 and "." in stops or "…" in stops:
            # An ellipsis runs on into CJK text ("他犹豫了一下……然后"); before a space it
            # ends the sentence unless a lower-case word follows.
            return end if gap is not None and not lower else -1
        # ! and ?, or a stop inside quotes: '"Stop!" she cried.', '"Go." he said.'
        return -1 if lower else end
    s = m.start()
    spaced = s > lo and text[s - 1] == " "  # tokenised text, as in wikitext: "the game ."
    word = _word_before(text, s - 1 if spaced else s, lo)
    if spaced:
        if not word.strip(".…"):
            return -1 if lower else end
        if nxt in "\"'" and _only_spaces_to_line_end(text, m.start(2) + 1, hi):
            return m.start(2) + 1  # ". \" <line end>": the detached quote closes the sentence
    if not word:
        return -1 if lower else end
    low = word.lower()
    if low in _NEVER:
        return -1
    if len(word) == 1 and word.isalpha():
        if lower or nxt.isdigit() or _letter_and_stop(text, m.start(2), hi):
            return -1  # p. 42, P. falciparum, z. B., т. е.
        if word.isupper():  # an initial (J. R. R. Tolkien) unless a sentence clearly starts
            return end if _starts_sentence(text, m.start(2), hi) else -1
        return end  # a variable: "from -π to π. Profiles were ..."
    if (low in _MAYBE or ("." in word and _DOTTED.fullmatch(word)) or _consonants_only(word)
            or low.endswith("str")):  # a German street: Hauptstr. 5
        # etc., Inc., U.S., a.m.: "the U.S. Congress" goes on, "the U.S. It was" ends.
        if lower or nxt.isdigit():
            return -1
        return end if not nxt.isalpha() or _starts_sentence(text, m.start(2), hi) else -1
    if word.isdigit() and len(word) <= 3 and _starts_line(text, s - len(word), lo):
        return -1  # "1. Open the lid": a list number, not the end of a sentence
    if word.isdigit() and len(word) <= 2 and _month(text, m.start(2), hi):
        return -1  # a German date: "am 3. Oktober"
    return end


def _letter_and_stop(text: str, pos: int, hi: int) -> bool:
    """A single letter and a stop at ``pos``: the second half of "z. B.", "d. h.", "т. е."."""
    return pos + 1 < hi and text[pos + 1] == "." and text[pos].isalpha() and (
        pos + 2 >= hi or not text[pos + 2].isalpha())


def _month(text: str, pos: int, hi: int) -> bool:
    wm = _WORD.match(text, pos, hi)
    return wm is not None and wm.group().lower() in _MONTHS


def _starts_sentence(text: str, pos: int, hi: int) -> bool:
    """Is the word at ``pos`` one that typically opens a sentence (The, It, We, However, ...)?"""
    wm = _WORD.match(text, pos, hi)
    return wm is not None and wm.group().lower() in _STARTERS


def _only_spaces_to_line_end(text: str, pos: int, hi: int) -> bool:
    while pos < hi and text[pos] in " \t":
        pos += 1
    return pos >= hi or text[pos] in "\r\n\u2028\u2029"


def _word_before(text: str, s: int, lo: int) -> str:
    """The non-space run that ends at ``s`` (at most 24 characters), without opening quotes."""
    if s <= lo or text[s - 1] in _SPACES:
        return ""
    k = s - 24 if s - 24 > lo else lo
    b = text.rfind(" ", k, s) + 1  # 0 when there is none, which is below k
    word = text[b if b > k else k:s]
    if not word.isprintable():  # another kind of space (newline, tab) inside
        word = word.split()[-1]
    if not word.isascii():
        tail = _AFTER_CJK.search(word)  # matches at the end at least: never None
        word = tail.group() if tail else word  # "总统Mr" -> "Mr"
    return word.lstrip(_OPEN)


def _consonants_only(word: str) -> bool:
    # Short all-consonant words are abbreviations: Mr, Ltd, Jr, pp. Capitals only are acronyms
    # (BBC, DNA), which end sentences as often as any word.
    if len(word) > 4 or word.isupper():
        return False
    if word.isascii():
        return word.isalpha() and not _VOWELS.intersection(word.lower())
    return _ALPHABETIC.fullmatch(word) is not None and not _VOWELS.intersection(word.lower())


def _starts_line(text: str, k: int, lo: int) -> bool:
    """Only spaces between the start of the line (or of the range) and ``k``."""
    i = k
    while i > lo and text[i - 1] in " \t":
        i -= 1
    return i == lo or text[i - 1] in "\n\r"


_GOES_ON, _SENTENCE, _PARAGRAPH = 0, 1, 2
#: Articles and conjunctions (and prepositions that are never a verb's particle): no sentence
#: ends in one, so a line that does goes on in the next, whatever that starts with.
_DANGLING = frozenset("""
    a an the and or but nor
    der die das den dem des ein eine einer einem einen eines und oder aber sondern dass ob weil für von
    le la les un une des du et ou mais que qui avec pour par dans sur
    el los las unos unas y o con para por del al
    il lo gli della delle degli
    het een en
    и а но или что для из от по на в с к о
""".split())
#: A line this long that ends without a stop was wrapped where the width ran out.
WRAP = 60
#: What opens a line that is a block of its own, not the rest of a wrapped one.
_BLOCK_START = re.compile(r"[ \t]*(?:[-*+\u2022][ \t]|\d{1,9}[.)][ \t]|\(\w{1,3}\)[ \t]|[#|>=]|```|~~~)")


def _wrapped(text: str, lo: int, i: int, hi: int) -> bool:
    """True when the line break at ``i`` ends a long line of prose that goes on in the next one."""
    line = text[max(lo, text.rfind("\n", lo, i) + 1):i].rstrip().rpartition("\r")[2].rpartition("\u2028")[2]
    # a wrap falls after a word or a comma; a line ending in a number is a row or a reference
    if len(line) < WRAP or not (line[-1].isalpha() or line[-1] in ",-") or "|" in line:
        return False
    if _BLOCK_START.match(text, i + 1, hi) is not None:
        return False
    last = line.rpartition(" ")[2]
    if last in _DANGLING:
        return True  # "… the" / "file": an article or a conjunction ends no sentence
    titled = _titled(line) and not _ends_sentence(line)
    shouted = titled and _shouted(line)  # a line in capitals is titled too: looked at only then
    if titled and not shouted:
        return False
    nl = text.find("\n", i + 1, hi)
    nxt = text[i + 1:hi if nl < 0 else nl][:80]
    if not titled and last[:1].islower():
        return True  # prose ends in a lower-case word: the next line goes on, capital or not
    # a disclaimer in capitals goes on in capitals: "…EXPRESS OR" / "IMPLIED, INCLUDING…"
    return not _titled(nxt) or _ends_sentence(nxt) or (shouted and nxt.upper() == nxt)


_STOP_AFTER_WORD = re.compile(r"[^\W\d_]{2}[.!?](?=\s|\Z)")


def _ends_sentence(line: str) -> bool:
    """A lower-case word and a stop in ``line`` ("…GNU/Linux. Die", "Dienstleistungen."): the
    rest of a sentence, not a title or a list of names (whose stops follow initials)."""
    return any(m.group()[:2].islower() for m in _STOP_AFTER_WORD.finditer(line))


def _titled(line: str) -> bool:
    """Half the words capitalised: a title ("… IDC Transcriptome Analysis") or a list of names
    ("Yap WH  Zhang Z"), not a line of running prose."""
    words = [w for w in line.split() if w[0].isalpha()]
    return 2 * sum(w[0].isupper() for w in words) >= len(words)


#: Words of a line in capitals from which it is prose (a licence's disclaimer), not a title.
SHOUTED_WORDS = 8


def _shouted(line: str) -> bool:
    """A long line all in capitals, as legal text writes its disclaimers."""
    return line.upper() == line and line.lower() != line and len(line.split()) >= SHOUTED_WORDS


def _newline_kind(text: str, i: int, lo: int, hi: int) -> int:
    """What the line break at ``i`` ends: nothing, a sentence, or a paragraph (a blank line)."""
    c = text[i]
    if c == "\u2029":
        return _PARAGRAPH  # the paragraph separator
    if c == "\r" and i + 1 < hi and text[i + 1] == "\n":
        return _GOES_ON  # the "\n" of this CRLF decides
    nm = _NEXT_LINE.match(text, i + 1, hi)
    if nm is None:
        return _SENTENCE  # only spaces follow in the range
    blank, nxt = nm.groups()
    if blank is not None and c != "\u2028":
        return _PARAGRAPH
    if not nxt or not nxt.islower():
        return _GOES_ON if nxt and _wrapped(text, lo, i, hi) else _SENTENCE
    line = text[max(lo, text.rfind("\n", lo, i) + 1):i]
    return _SENTENCE if "|" in line.rpartition("\r")[2] else _GOES_ON  # table rows: one per line

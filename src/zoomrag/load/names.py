"""A file's name as its document's title, when the document has none and the name says something.

Plain text, CSV, code, a Markdown file without a ``#`` heading and a PDF whose title metadata
is junk have no title, so their units embed no trail above their first heading. Their file's
name often says what they are (``GPL-3``, ``master-services-agreement.pdf``,
``standup-2024-03-05.vtt``): a question naming it ("the GPL version 3") then meets it in the
unit, as a titled document's does (for a document of up to :data:`LONGEST_NAMED` characters).
Names that say nothing are left out, for they would lead every unit with noise: what a program
or a scanner writes (``Untitled``, ``scan0001``, ``IMG_0042``, ``document (1)``), a generic word
alone (``notes``, ``index``, ``main``), dates and numbers, hashes. A generic name stands for its
folder (``install/index.md`` → ``install``, ``contracts/scan0001.pdf`` → ``contracts``), but not
in code (a package's ``__init__.py``); a record's id follows its file's
(``tickets.jsonl#SUP-102`` → ``tickets SUP-102``).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from . import compressed
from .base import FORMATS

#: Names that say what a file is, not which: generic words, with only digits, dates or a copy's
#: mark beside them (``Scanned Document``, ``notes_2024-03-01``, ``draft v2``).
_GENERIC = re.compile(
    r"(?:(?:untitled|unnamed|noname|new|copy|document|doc|file|text|txt|note|draft|final|temp|tmp"
    r"|test|data|output|out|export|download|desktop|attachment|item|sample|example|page|misc|scan"
    r"|scanned|img|image|photo|pic|dsc[fn]?|screenshot|screen|shot|clip|recording|audio|video"
    r"|meeting|transcript|index|readme|main|default|home|init|mod|lib|src|source|version|v)s?"
    r"(?![^\W\d_])|[\s\d._()-])+", re.IGNORECASE)
#: A run of hexadecimal digits as a hash or an id writes it (with letters and digits both).
_HASH = re.compile(r"(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}", re.IGNORECASE)
#: A copy's mark at the end: ``report (1)``, ``report - Copy``, ``report copy 2``.
_COPY_MARK = re.compile(r"(?:\s*\(\d+\)|\s*-?\s*copy(?:\s*\d+)?)+$", re.IGNORECASE)
_LETTERS = re.compile(r"[^\W\d_]{3,}|[^\x00-\u2e7f]")  # a word of three letters, or one CJK character
#: Separators between words in a file's name; a hyphen only between letters (``GPL-3``,
#: ``2024-03-05`` and ``utf-8`` keep theirs).
_SEPARATORS = re.compile(r"[_+/\s]+|%20|(?<=[^\W\d_])-(?=[^\W\d_])")
_LONGEST = 80
#: Documents longer than this (about 25 pages) do without their name: a long file is a book or
#: a collection (a year of filings, a dump of abstracts) whose hundreds of units the one name
#: does not tell apart, and a word shared by all of them blurs their differences (measured:
#: ``pubmed``, 500,000 characters of abstracts, lost recall with its name; the licences, 6,000
#: to 35,000 characters, gained).
LONGEST_NAMED = 64_000


def name_title(name: str, *, folders: bool = True) -> str:
    """The title a document's file name gives it, or '' when the name says nothing. ``name`` is
    the document's id: its path inside the folder indexed (``contracts/acme-nda.pdf``), so a
    generic name stands for a folder the user chose, never for one above it; without
    ``folders`` it stands for nothing (a package's ``__init__.py``: its folder is the project's
    name, which questions about any of its modules say)."""
    if not name or name.startswith("<") or "://" in name:  # text given in memory, a URL
        return ""
    if "#" in name:  # a record of a file (``tickets.jsonl#SUP-102``): the file's title and its id
        base, record = name.split("#", 1)
        said = _words(record)
        if _GENERIC.fullmatch(said) is not None or _LETTERS.search(said) is None or _HASH.search(said):
            said = ""  # a record's number says nothing
        return " ".join(t for t in (name_title(base, folders=folders), said) if t)[:_LONGEST].rstrip()
    path = PurePosixPath(name.replace("\\", "/"))
    parts = [p for p in path.parts if p not in ("/", ".", "..")]
    for i, part in enumerate(reversed(parts)):
        title = _words(_stem(PurePosixPath(part)) if i == 0 else part)
        if _GENERIC.fullmatch(title) is not None:
            if not folders:
                return ""
            continue  # ``index.md``, ``scan0001.pdf``: its folder says which
        if _LETTERS.search(title) is None or _HASH.search(title) is not None:
            return ""  # a number or a hash names this file alone
        return title[:_LONGEST].rstrip()
    return ""


def _stem(path: PurePosixPath) -> str:
    """The name without the extensions a reader knows it by (``notes.md.gz`` → ``notes``,
    ``api.rst.txt`` → ``api``, ``ls.1`` → ``ls``), keeping a version's (``Apache-2.0``)."""
    path = compressed.inner_name(path) or path  # type: ignore[assignment]
    known = {e for _, fmt in FORMATS.items() for e in fmt.extensions} | {".txt"}
    for _ in range(2):
        suffix = path.suffix.lower()
        if not suffix or suffix not in known or not path.stem or suffix[1:].isdigit() and not path.stem.isalpha():
            break
        path = path.with_suffix("")
    return path.name


def _words(name: str) -> str:
    return " ".join(_COPY_MARK.sub("", _SEPARATORS.sub(" ", name.lstrip("."))).split())

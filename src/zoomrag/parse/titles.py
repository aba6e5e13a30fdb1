"""Heading titles as a reader would say them: markup reduced to its text.

A heading's line keeps its markup in the document (spans are exact), but ``section_path`` is
shown above every context and given to models, so ``# zoomrag [![CI](https://…/badge.svg)](…)``
becomes ``zoomrag CI``: images become their alt text, links their text, inline HTML tags, code
ticks, emphasis marks and ``{#anchor}`` attributes go, a Sphinx role becomes
its text (``:mod:`json``` and ``{mod}`json``` → ``json``), and a wiki link (Obsidian, Foam, MediaWiki) its alias or
its target (``[[Kafka migration|the move]]`` → ``the move``, ``[[Payments#Refunds]]`` →
``Payments > Refunds``, an embed ``![[diagram.png]]`` → nothing). Character references and
backslash escapes read as the characters they stand for (``Tom&amp;Jerry`` → ``Tom&Jerry``,
``snake\\_case`` → ``snake_case``).
"""

from __future__ import annotations

import html
import re

from ..text import roles

#: An image, inline (``![alt](src)``), by reference (``![alt][ref]``) or shortcut (``![alt]``,
#: a README's badge: ``[![Build Status]][travis]``).
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)|!\[([^\]]*)\](?:\[[^\]]*\]|(?![(\[]))")
#: A reference link after a space, an opening bracket or quote, or emphasis: ``:ret[ab][!]`` and
#: ``:~[&][flags]`` (Vim's optional parts) are names.
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)|(?<![^\s(*_\"'“])\[([^\]]*)\]\[[^\]]*\]")
_HTML_IMG_ALT = re.compile(r"<img\b[^>]*?\balt\s*=\s*[\"']([^\"']*)[\"'][^>]*>", re.IGNORECASE)
#: Inline HTML a heading may hold; other ``<…>`` is text (``Vec<T, A>``, ``<K, V>``).
_TAG = re.compile(r"</?(?:a|abbr|b|br|code|del|em|font|i|img|ins|kbd|mark|picture|s|small|source|span|"
                  r"strong|sub|sup|u)\b[^<>]*>", re.IGNORECASE)
_ANCHOR = re.compile(r"\s*\{#[^}]*\}\s*$")
#: ``[[target]]``, ``[[target|alias]]``, ``[[target#heading]]``; ``!`` before it embeds the target.
#: Not after a word: ``arr[[0, 1]]`` is an index.
_WIKILINK = re.compile(r"(?<![\w\[\]])(!?)\[\[([^\[\]|]+)(?:\|([^\[\]]*))?\]\]")
_EMPHASIS = re.compile(r"(\*\*|\*|~~|`+)(?=\S)(.+?)(?<=\S)\1")
#: Underscores mark emphasis only at word edges (``snake_case`` is a name, as in CommonMark),
#: and not around a Python dunder name (``__init__(self)``, ``__dict__``), which a heading of an
#: API reference or of ``help()`` text names far more often than it means bold.
_UNDERSCORES = re.compile(r"(?<![^\W_])(__|_)(?=\S)(.+?)(?<=\S)\1(?![^\W_])")
_DUNDER = re.compile(r"(?<![\w])__[a-z][a-z0-9_]*?[a-z0-9]__(?![A-Za-z0-9])")
#: A Markdown backslash escape: the punctuation after it is itself, never markup.
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
#: Escaped characters stand in the Private Use Area while markup is read.
_STAND_IN = 0xF0000
_STOOD_IN = re.compile(r"[\U000F0021-\U000F007E]")


def clean_title(title: str) -> str:
    """``title`` without markup; the title itself when nothing readable would be left."""
    t = _ESCAPE.sub(lambda m: chr(_STAND_IN + ord(m.group(1))), _ANCHOR.sub("", title))
    t = roles.as_text(t)
    t = _WIKILINK.sub(_wikilink_text, t)
    t = _HTML_IMG_ALT.sub(r" \1 ", t)
    t = _TAG.sub(" ", t)
    for _ in range(3):  # an image inside a link: [![CI](badge.svg)](ci-url)
        t2 = _LINK.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2),
                       _IMAGE.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), t))
        if t2 == t:
            break
        t = t2
    t = _EMPHASIS.sub(r"\2", t)
    names = [m.span() for m in _DUNDER.finditer(t)]
    t = _UNDERSCORES.sub(lambda m: m.group(0) if any(s < m.end() and m.start() < e for s, e in names)
                         else m.group(2), t)
    t = html.unescape(_STOOD_IN.sub(lambda m: chr(ord(m.group()) - _STAND_IN), t))
    t = " ".join(t.split())
    return t or " ".join(title.split())


def _wikilink_text(m: re.Match[str]) -> str:
    if m.group(1):  # an embedded note or image shows the target, not its name
        return " "
    if m.group(3) is not None and m.group(3).strip():
        return m.group(3)
    return " > ".join(p.strip() for p in m.group(2).split("#") if p.strip())

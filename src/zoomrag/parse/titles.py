"""Heading titles as a reader would say them: markup reduced to its text.

A heading's line keeps its markup in the document (spans are exact), but ``section_path`` is
shown above every context and given to models, so ``# zoomrag [![CI](https://…/badge.svg)](…)``
becomes ``zoomrag CI``: images become their alt text, links their text, inline HTML tags, code
ticks, emphasis marks and ``{#anchor}`` attributes go.
"""

from __future__ import annotations

import re

_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)|!\[([^\]]*)\]\[[^\]]*\]")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)|\[([^\]]*)\]\[[^\]]*\]")
_HTML_IMG_ALT = re.compile(r"<img\b[^>]*?\balt\s*=\s*[\"']([^\"']*)[\"'][^>]*>", re.IGNORECASE)
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_ANCHOR = re.compile(r"\s*\{#[^}]*\}\s*$")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_|~~|`+)(?=\S)(.+?)(?<=\S)\1")


def clean_title(title: str) -> str:
    """``title`` without markup; the title itself when nothing readable would be left."""
    t = _ANCHOR.sub("", title)
    t = _HTML_IMG_ALT.sub(r" \1 ", t)
    t = _TAG.sub(" ", t)
    for _ in range(3):  # an image inside a link: [![CI](badge.svg)](ci-url)
        t2 = _LINK.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2),
                       _IMAGE.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), t))
        if t2 == t:
            break
        t = t2
    t = _EMPHASIS.sub(r"\2", t)
    t = " ".join(t.split())
    return t or " ".join(title.split())

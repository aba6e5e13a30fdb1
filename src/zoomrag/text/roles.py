"""Sphinx's roles as the built page shows them: ``:func:`json.dumps``` and MyST's
``{func}`json.dumps``` are ``json.dumps``, a cross-reference ``:ref:`the guide <guide>``` is
``the guide``, ``~Context.invoke`` is ``Context.invoke``.

Documentation written for Sphinx marks most names it mentions with a role. Spans keep them (they
are exact), but a title shown above a context, and the text a unit embeds and BM25 counts, read
as the page does: the role's name and braces are markup that no question asks about.
"""

from __future__ import annotations

import re

__all__ = ["as_text"]

#: reStructuredText's ``:mod:`json``` (a domain too: ``:py:meth:``) or MyST's ``{mod}`json```.
_ROLE = re.compile(r"(?::[A-Za-z][\w.+-]*(?::[\w.+-]+)*:|\{[A-Za-z][\w.:+-]*\})`([^`\n]+)`")
_TARGET = re.compile(r"\s*<[^<>]*>$")


def as_text(text: str) -> str:
    """Every role in ``text`` as its text (a target's ``~`` and ``!`` marks dropped)."""
    if "`" not in text:
        return text
    return _ROLE.sub(lambda m: _TARGET.sub("", m.group(1)).lstrip("~!") or m.group(1), text)

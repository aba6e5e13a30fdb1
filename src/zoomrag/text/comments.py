"""Source code as a reader of its comments reads it: each line comment's marker (``///``,
``//!``, ``//``) and a block comment's ``/**``, ``*`` and ``*/`` left out, so that a unit of Rust
or Go embeds its documentation's words and its code, not a column of slashes. Python's ``#`` is
kept: in Rust it opens an attribute (``#[derive(Debug)]``), and a shell comment reads as it is.
"""

from __future__ import annotations

import re

#: A line's comment marker after its indentation (group 1), with the blank after it.
MARKER = re.compile(r"^([ \t]*)(?://[/!]?|/\*\*?|\*/|\*(?=[ \t]|$))[ \t]?", re.MULTILINE)


def as_read(text: str) -> str:
    """``text`` with its comment markers left out (indentation kept)."""
    if "//" not in text and "*" not in text:
        return text
    return MARKER.sub(r"\1", text)

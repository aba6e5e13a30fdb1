"""Markdown front matter (YAML between ``---`` lines, or TOML between ``+++`` lines, at the very
top of a file) as document metadata.

The document's text then starts after the front matter's closing line (and the blank lines that
follow it), so the front matter is neither embedded nor searched and every offset points into the
text after it; :data:`OFFSET_KEY` in the metadata says how many characters of the file came before.
Asked for (``front_matter="text"``), the file's text is kept whole and nothing is parsed; a block
that does not parse as key: value pairs is not front matter, and stays in the text.
"""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

from ..errors import ConfigError

#: Characters of the file before the document's text (the front matter), when there was any.
OFFSET_KEY = "front_matter_chars"
#: What :func:`read_text` may do with front matter.
MODES = ("metadata", "text")

_OPEN = re.compile(r"(---|\+\+\+)[ \t]*\n")
_CLOSE = {
    "---": re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE),
    "+++": re.compile(r"^\+\+\+[ \t]*$", re.MULTILINE),
}
_BLANK = re.compile(r"(?:[ \t]*\n)*")


def check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ConfigError(f"front_matter={mode!r}; choose 'metadata' (parse it, keep it out of the text) or 'text'")


def find(text: str) -> tuple[re.Match[str], re.Match[str]] | None:
    """The opening and the closing line (without its newline) of the front matter at the very
    start of ``text``; None when there is none (no closing line: a thematic break)."""
    m = _OPEN.match(text)
    if m is None:
        return None
    close = _CLOSE[m.group(1)].search(text, m.end())
    return None if close is None else (m, close)


def end(text: str) -> int:
    """End of the front matter's closing line (0 when the text has no front matter)."""
    found = find(text)
    return 0 if found is None else found[1].end()


def split(text: str, source: str) -> tuple[dict[str, Any], int]:
    """The front matter's values and where the document's text starts (0: no front matter)."""
    found = find(text)
    if found is None:
        return {}, 0
    m, close = found
    body = text[m.end():close.start()]
    try:
        if m.group(1) == "+++":
            values = tomllib.loads(body)
        else:
            import yaml

            values = yaml.safe_load(body)
    except Exception:  # both parsers raise their own error types
        # Not front matter after all (two thematic breaks around text, say): the file is read
        # whole as Markdown rather than refused, so none of its text is lost.
        return {}, 0
    if values is None:
        values = {}
    if not isinstance(values, dict):
        return {}, 0  # a YAML scalar or list: text between two rules, not key: value pairs
    blank = _BLANK.match(text, close.end())  # its newline and the blank lines after it
    start = blank.end() if blank else close.end()
    # Dates and other YAML types become what JSON stores (and what comes back from the index).
    return json.loads(json.dumps({str(k): v for k, v in values.items()}, ensure_ascii=False, default=str)), start

"""Jupyter notebooks: the cells rendered as Markdown, then read as Markdown.

The JSON of a notebook is not text a reader wants back, so, as for HTML, the document's text is a
rendering and spans point into it: markdown cells as they are, code cells as fenced code in the
kernel's language, their text outputs (streams and ``text/plain`` results, terminal colour codes
removed) as fenced ``text`` after them, raw cells as they are; cells apart by a blank line.
Images, HTML outputs and tracebacks are left out: they are pictures, a second copy of a table
already given as text, or noise. Both the current format (``cells``) and version 3
(``worksheets``) are read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from ...errors import InputError
from ...model import Document, normalize_newlines
from .markdown import read_markdown

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_BACKTICKS = re.compile(r"^[ \t]*(`{3,})", re.MULTILINE)


# A notebook is JSON anyone may have written: every field is checked for the shape it should have.
def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str:
    """A notebook string field: one string, or a list of lines."""
    if isinstance(value, list):
        return "".join(str(v) for v in value)
    return value if isinstance(value, str) else ""


def _fenced(body: str, info: str) -> str:
    """``body`` in a fence longer than any backtick fence inside it."""
    longest = max((len(m.group(1)) for m in _BACKTICKS.finditer(body)), default=2)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body}\n{fence}"


def _outputs(cell: Mapping[str, Any]) -> str:
    parts = []
    for out in map(_dict, _list(cell.get("outputs"))):
        kind = out.get("output_type")
        if kind == "stream":
            parts.append(_text(out.get("text")))
        elif kind in ("execute_result", "display_data", "pyout"):
            parts.append(_text(_dict(out.get("data")).get("text/plain")) or _text(out.get("text")))
    return _ANSI.sub("", "".join(p if p.endswith("\n") else p + "\n" for p in parts if p)).rstrip()


def _cells(nb: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    cells = nb.get("cells")
    if cells is None:  # version 3
        cells = [c for ws in _list(nb.get("worksheets")) for c in _list(_dict(ws).get("cells"))]
    return (c for c in _list(cells) if isinstance(c, dict))


def _language(nb: Mapping[str, Any]) -> str:
    meta = _dict(nb.get("metadata"))
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        value = _dict(meta.get(key)).get(field)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return "python"


def render_notebook(raw: str, source: str = "<notebook>") -> str:
    """The Markdown rendering of a notebook's JSON (see the module docstring)."""
    try:
        nb = json.loads(raw)
    except ValueError as e:
        raise InputError(f"{source}: not a Jupyter notebook, its JSON does not parse ({e}); "
                         "fix the file, or give it another extension if it is not a notebook") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells", nb.get("worksheets")), list):
        raise InputError(f"{source}: not a Jupyter notebook (no list of cells); "
                         "give it another extension if it is not a notebook")
    language = _language(nb)
    pieces = []
    for cell in _cells(nb):
        kind = cell.get("cell_type")
        body = _text(cell.get("source", cell.get("input"))).strip("\n").rstrip()
        if kind == "code":
            if body.strip():
                pieces.append(_fenced(body, language))
            output = _outputs(cell)
            if output.strip():
                pieces.append(_fenced(output, "text"))
        elif body.strip():  # markdown, raw, and version 3's heading cells
            level = cell.get("level")
            if kind == "heading" and isinstance(level, int):
                body = f"{'#' * min(max(level, 1), 6)} {body}"
            pieces.append(body)
    # a cell's JSON string may hold "\r\n": the rendering is text like any other, one newline
    return normalize_newlines("\n\n".join(pieces) + "\n") if pieces else ""


def read_notebook(text: str, *, doc_id: str, source: str) -> Document:
    return replace(read_markdown(render_notebook(text, source), doc_id=doc_id, source=source), format="notebook")

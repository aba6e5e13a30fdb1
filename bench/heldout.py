"""What the held-out set builders share: evidence found by its first and last words, and the
set written in zoomrag's evaluation format (``corpus.jsonl`` + ``queries.jsonl``)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

#: Evidence longer than this (characters) means a marker matched the wrong place.
LONGEST = 1500


def _words(s: str) -> re.Pattern[str]:
    """``s`` with any white space between its words."""
    return re.compile(r"\s+".join(re.escape(w) for w in s.split()))


def find(text: str, first: str, last: str) -> tuple[int, int]:
    """The span of ``text`` from the first match of ``first`` to the end of the next ``last``."""
    start = _words(first).search(text)
    if start is None:
        raise ValueError(f"evidence start not found: {first!r}")
    end = _words(last).search(text, start.start())
    if end is None or end.end() - start.start() > LONGEST:
        raise ValueError(f"evidence end not found within {LONGEST} characters: {last!r}")
    return start.start(), end.end()


def write_set(out: Path, documents: Mapping[str, str], fmt: str,
              questions: Sequence[tuple[str, str, int, int]]) -> None:
    """``documents`` (id → text, all of format ``fmt``) and ``questions`` (question, document
    id, evidence start, end) into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    with (out / "corpus.jsonl").open("w", encoding="utf-8") as f:
        for name, text in documents.items():
            f.write(json.dumps({"id": name, "title": name, "text": text, "format": fmt},
                               ensure_ascii=False) + "\n")
    with (out / "queries.jsonl").open("w", encoding="utf-8") as f:
        for i, (question, name, s, e) in enumerate(questions):
            f.write(json.dumps({"id": f"q{i:02d}", "query": question,
                                "evidence": [{"doc_id": name, "start": s, "end": e}]}) + "\n")

"""What the held-out set builders share: evidence found by its first and last words, the set
written in zoomrag's evaluation format (``corpus.jsonl`` + ``queries.jsonl``), the command line."""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
from collections.abc import Callable, Mapping, Sequence
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


_PIECE = re.compile(r"<!--.*?-->|<[^>]*>|&#?\w+;|[^<&]+|[<&]", re.S)
#: Tags inside a run of text; any other tag separates words.
_INLINE = re.compile(r"</?(?:a|code|span|em|strong|cite|abbr|b|i|tt|kbd|var|samp|sub|sup)\b", re.I)


def _text_with_offsets(raw: str) -> tuple[str, list[tuple[int, int]]]:
    """The page's text with tags stripped and entities decoded, and for each of its characters
    the range in ``raw`` it came from (an entity's whole range)."""
    chars: list[str] = []
    where: list[tuple[int, int]] = []
    for m in _PIECE.finditer(raw):
        piece = m.group()
        if piece.startswith("<") and len(piece) > 1:
            if not _INLINE.match(piece):
                chars.append(" ")
                where.append((m.start(), m.end()))
            continue
        if piece.startswith("&"):
            decoded = html.unescape(piece)
            chars.append(decoded)
            where.extend([(m.start(), m.end())] * len(decoded))
            continue
        chars.append(piece)
        where.extend((m.start() + i, m.start() + i + 1) for i in range(len(piece)))
    return "".join(chars), where


def html_evidence(raw: str, first: str, last: str) -> tuple[int, int]:
    """Offsets into ``raw`` from the first match of ``first`` to the end of the next ``last``."""
    text, where = _text_with_offsets(raw)
    s, e = find(text, first, last)
    return where[s][0], where[e - 1][1]


def write_set(out: Path, documents: Mapping[str, str], fmt: str | Mapping[str, str],
              questions: Sequence[tuple[str, str, int, int]]) -> None:
    """``documents`` (id → text, all of format ``fmt``, or each of its own: id → format) and
    ``questions`` (question, document id, evidence start, end) into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    with (out / "corpus.jsonl").open("w", encoding="utf-8") as f:
        for name, text in documents.items():
            kind = fmt if isinstance(fmt, str) else fmt[name]
            f.write(json.dumps({"id": name, "title": name, "text": text, "format": kind},
                               ensure_ascii=False) + "\n")
    with (out / "queries.jsonl").open("w", encoding="utf-8") as f:
        for i, (question, name, s, e) in enumerate(questions):
            f.write(json.dumps({"id": f"q{i:02d}", "query": question,
                                "evidence": [{"doc_id": name, "start": s, "end": e}]}) + "\n")


def cli(argv: list[str] | None, doc: str, source: Path, out: Path, files: Mapping[str, str], hint: str,
        build: Callable[[Path, Path], int]) -> int:
    """A builder's command line: ``--source`` (where ``files``, name → path under it, are),
    ``--out``; ``hint`` says where the files come from."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--source", type=Path, default=source, help="the folder of the documents (default: %(default)s)")
    ap.add_argument("--out", type=Path, default=out)
    args = ap.parse_args(argv)
    missing = [name for name, path in files.items() if not (args.source / path).is_file()]
    if missing:
        print(f"{args.source}: {', '.join(missing)} missing; {hint} (or pass --source with a folder "
              "that has them)", file=sys.stderr)
        return 1
    n = build(args.source, args.out)
    with (args.out / "corpus.jsonl").open(encoding="utf-8") as f:
        documents = sum(1 for _ in f)
    print(f"wrote {documents} documents and {n} questions to {args.out}")
    return 0


def site_set_cli(doc: str, source: Path, out: Path, files: Mapping[str, str], hint: str,
                 build: Callable[[Path, Path, bool], int]) -> int:
    """The command line of a set of a documentation site's pages: the pages ``zoomrag index``
    reads of it, or with ``--every-page`` all of them (the pages the generator derives from the
    others too), as ``out`` + ``_every``; ``build(source, dest, every)`` writes it."""
    every = "--every-page" in sys.argv
    argv = [a for a in sys.argv[1:] if a != "--every-page"]
    dest = out.with_name(out.name + "_every") if every else out
    return cli(argv, doc, source, dest, files, hint, lambda src, to: build(src, to, every))


def html_set_cli(argv: list[str] | None, doc: str, source: Path, out: Path, files: Mapping[str, str],
                 questions: Sequence[tuple[str, str, str, str]], hint: str) -> int:
    """The command line of a set of HTML pages (``files``: name → file under ``--source``) with
    ``questions`` (question, page name, first words of the evidence, last words)."""
    def build(src: Path, dest: Path) -> int:
        pages = {name: (src / path).read_text(encoding="utf-8") for name, path in files.items()}
        write_set(dest, pages, "html", [(q, name, *html_evidence(pages[name], first, last))
                                        for q, name, first, last in questions])
        return len(questions)

    return cli(argv, doc, source, out, files, hint, build)

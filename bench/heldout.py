"""What the held-out set builders share: evidence found by its first and last words, the set
written in zoomrag's evaluation format (``corpus.jsonl`` + ``queries.jsonl``), the command line."""

from __future__ import annotations

import argparse
import difflib
import html
import json
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

#: Evidence longer than this (characters) means a marker matched the wrong place.
LONGEST = 1500
#: Passages with fewer of their words found in another reading than this are left out (:func:`move`).
MIN_FOUND = 0.6


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


def _word_spans(text: str) -> list[tuple[str, int, int]]:
    return [(m.group().lower(), m.start(), m.end()) for m in re.finditer(r"\w+", text)]


#: Words either side of where a passage should be that its alignment looks through.
WINDOW = 1500


def move(source: str, read: str, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int] | None]:
    """Each span of ``source`` in ``read``: its words aligned with the words of ``read`` around
    where it should be (the same place in proportion), runs of three or more words that agree
    marking its first and last; None where too few of its words are found."""
    a, b = _word_spans(source), _word_spans(read)
    out: list[tuple[int, int] | None] = []
    for start, end in spans:
        inside = [w for w, s, e in a if s >= start and e <= end]
        first = next((i for i, (_, s, _) in enumerate(a) if s >= start), len(a))
        at = first * len(b) // max(1, len(a))
        low = max(0, at - WINDOW)
        window = [w for w, _, _ in b[low:at + len(inside) + WINDOW]]
        matcher = difflib.SequenceMatcher(None, inside, window, autojunk=False)
        runs = [m for m in matcher.get_matching_blocks() if m.size >= 3]
        found = sum(m.size for m in runs)
        if not inside or found < MIN_FOUND * len(inside):
            out.append(None)
            continue
        lo, hi = low + runs[0].b, low + runs[-1].b + runs[-1].size - 1
        s, e = b[lo][1], b[hi][2]
        while s > 0 and not read[s - 1].isspace():  # its opening quote or bracket
            s -= 1
        while e < len(read) and not read[e].isspace():  # its closing stop
            e += 1
        out.append((s, e))
    return out

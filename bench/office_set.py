"""Build the same documents saved as Word, OpenDocument, Rich Text, EPUB, DocBook and JATS files, each read back
by zoomrag's reader, so that ``quality.py`` measures what a format costs: with readers that lose
nothing, every saved file answers the questions as its source does.

pandoc saves each file as a word processor would (headings as heading styles, lists, tables,
code as preformatted paragraphs), from two sources with labelled evidence:

- ``wikitext_md`` (shared data): ten Wikipedia articles with Markdown headings, 144 questions,
  249 evidence passages; its paragraphs, one line each, are written apart by a blank line (as
  Markdown parts paragraphs), and that Markdown is the baseline ``office_wiki_md``;
- ``pg_manual`` (``bench/pg_set.py``): ten pages of the PostgreSQL manual (admonitions, option
  lists, SQL examples, tables), 30 questions; the baseline is the set itself, read as HTML.

Each evidence passage is found again in each rendering (by its words for the articles, by its
first and last words for the manual, as the manual's set finds it; all are found), and each set
is written as ``office_<source>_<format>`` in zoomrag's evaluation format, its text the
rendering (Markdown, as these readers write it).

    apt-get install pandoc
    python bench/pg_set.py && python bench/office_set.py
    python bench/quality.py --data bench/out/derived --datasets office_wiki_md,office_wiki_docx,...
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from heldout import find
from pg_set import QUESTIONS as PG_QUESTIONS

from zoomrag.load import load_path

ROOT = Path(__file__).resolve().parent
WIKI = ROOT.parent.parent / "shared" / "data" / "wikitext_md"
OUT = ROOT / "out" / "derived"
FORMATS = ("docx", "odt", "rtf", "epub", "docbook", "jats")
#: pandoc's writer and the file's extension, where they are not the format's name.
WRITERS = {"docbook": ("docbook5", "dbk"), "jats": ("jats", "xml")}


def _locate(text: str, passage: str) -> tuple[int, int]:
    """The span of ``passage`` in ``text``, whatever white space stands between its words."""
    m = re.compile(r"\s+".join(re.escape(w) for w in passage.split())).search(text)
    if m is None:
        raise ValueError(f"evidence not found in the rendering: {passage[:80]!r}")
    return m.start(), m.end()


def _between(text: str, first: str, last: str) -> tuple[int, int]:
    """:func:`heldout.find` in a rendering, reading past the backticks around inline code."""
    keep = [i for i, c in enumerate(text) if c != "`"]
    s, e = find("".join(text[i] for i in keep), first, last)
    return keep[s], keep[e - 1] + 1


def _write(out: Path, docs: list[dict], queries: list[dict]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with (out / "corpus.jsonl").open("w", encoding="utf-8") as f:
        for doc in docs:
            f.write(json.dumps(doc, ensure_ascii=False) + "\n")
    with (out / "queries.jsonl").open("w", encoding="utf-8") as f:
        for q in queries:
            f.write(json.dumps(q, ensure_ascii=False) + "\n")


def _save_and_read(source: Path, fmt: str, title: str) -> str:
    """The text zoomrag's reader gives for ``source`` saved as ``fmt`` by pandoc."""
    writer, extension = WRITERS.get(fmt, (fmt, fmt))
    saved = source.with_name(f"{source.stem}.{extension}")
    subprocess.run(["pandoc", "-f", "markdown-smart" if source.suffix == ".md" else "html", "-t", writer, "-s",
                    str(source), "-o", str(saved), "--metadata", f"title={title}"], check=True, capture_output=True)
    return load_path(saved).text


def build_wiki(source: Path, out: Path, tmp: Path) -> int:
    [doc] = [json.loads(line) for line in (source / "corpus.jsonl").open(encoding="utf-8")]
    given = doc["text"]
    text = "\n\n".join(line.strip() for line in given.split("\n") if line.strip())
    queries = [json.loads(line) for line in (source / "queries.jsonl").open(encoding="utf-8")]

    def moved(into: str) -> list[dict]:
        return [{**q, "evidence": [{**e, "start": s, "end": t} for e in q["evidence"]
                                   for s, t in [_locate(into, given[e["start"]:e["end"]])]]} for q in queries]

    _write(out / "office_wiki_md", [{**doc, "text": text}], moved(text))
    md = tmp / "wiki.md"
    md.write_text(text.replace("<", "\\<"), encoding="utf-8")  # "<unk>" is a word, not a tag
    for fmt in FORMATS:
        rendered = _save_and_read(md, fmt, doc["title"])
        _write(out / f"office_wiki_{fmt}", [{**doc, "text": rendered, "format": "markdown"}], moved(rendered))
    return len(queries)


def build_pg(source: Path, out: Path, tmp: Path) -> int:
    pages = [json.loads(line) for line in (source / "corpus.jsonl").open(encoding="utf-8")]
    for fmt in FORMATS:
        docs, texts = [], {}
        for page in pages:
            html = tmp / f"{page['id']}.html"
            html.write_text(page["text"], encoding="utf-8")
            texts[page["id"]] = _save_and_read(html, fmt, page["title"])
            docs.append({**page, "text": texts[page["id"]], "format": "markdown"})
        queries = [{"id": f"q{i:02d}", "query": q, "evidence": [
            {"doc_id": name, **dict(zip(("start", "end"), _between(texts[name], first, last)))}]}
            for i, (q, name, first, last) in enumerate(PG_QUESTIONS)]
        _write(out / f"office_pg_{fmt}", docs, queries)
    return len(PG_QUESTIONS)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wiki", type=Path, default=WIKI, help="the wikitext_md folder (default: %(default)s)")
    ap.add_argument("--pg", type=Path, default=OUT / "pg_manual", help="the pg_manual set (bench/pg_set.py)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    if shutil.which("pandoc") is None:
        print("pandoc is not installed; apt-get install pandoc", file=sys.stderr)
        return 1
    for folder, how in ((args.wiki, "pass --wiki with the shared wikitext_md folder"),
                        (args.pg, "build it with bench/pg_set.py, or pass --pg")):
        if not (folder / "corpus.jsonl").is_file():
            print(f"{folder}: no corpus.jsonl; {how}", file=sys.stderr)
            return 1
    with tempfile.TemporaryDirectory() as tmp:
        n = build_wiki(args.wiki, args.out, Path(tmp))
        m = build_pg(args.pg, args.out, Path(tmp))
    print(f"wrote office_wiki_{{md,{','.join(FORMATS)}}} ({n} questions) and office_pg_{{{','.join(FORMATS)}}} "
          f"({m} questions) to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

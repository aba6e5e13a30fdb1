"""Build sets of documents as a framework's PDF loader hands them over: a page each.

LangChain's ``PyPDFLoader``, LlamaIndex's ``PDFReader`` and the like give a file as a list of
pages, each its own document, with a running head and a page number in its text and no blank
line between paragraphs (a typeset page's text as pypdf extracts it). A retriever given those
pages cuts its chunks inside each, and a passage that runs over a page break, or a page read
without the heading above it, is cut from what it belongs to. zoomrag's adapters put the pages
of a file back together (``zoomrag.load.pieces``).

Two sets of documents are typeset here as such pages: the licences (``licence_set.py``) and
wikitext_md's ten articles (one book), their lines wrapped at 95 characters, 50 lines a page,
under a running head (the document's name) and over its page number; headings are lines, as a
PDF's text has them. For each, two sets in zoomrag's evaluation format:

- ``pages_<set>``: a document per page (``GPL-3#p4``, titled by its file), what a loader's list
  gives a retriever that indexes what it is handed; each evidence passage the part of it on
  each page (a passage over a page break is two);
- ``joined_<set>``: a document per file given as its ``pages``, read as the adapters read them;
  each passage found again in the text read, by its words (a passage whose words are not found
  is listed and left out).

    python bench/licence_set.py                          # the licences first
    python bench/page_set.py                             # writes bench/out/derived/{pages,joined}_*
    python bench/quality.py --data bench/out/derived --datasets pages_licences,joined_licences --peers
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

from heldout import move

from zoomrag.load import pieces

ROOT = Path(__file__).resolve().parent
DERIVED = ROOT / "out" / "derived"
SHARED = ROOT.parent.parent / "shared" / "data"
#: set name -> its source set's folder
SETS = {"licences": DERIVED / "licences", "wikitext": SHARED / "wikitext_md"}
WIDTH = 95
LINES = 50
_HEADING = re.compile(r"#{1,6}[ \t]+")


def typeset(text: str, markdown: bool) -> list[tuple[str, list[int]]]:
    """The lines of ``text`` as a typeset page's text gives them, each with the offset in
    ``text`` of each of its characters: long lines wrapped at spaces, Markdown's heading marks
    gone, blank lines gone."""
    out: list[tuple[str, list[int]]] = []
    pos = 0
    for raw in text.split("\n"):
        start, pos = pos, pos + len(raw) + 1
        off = 0
        if markdown and (m := _HEADING.match(raw)):
            off = m.end()
        body = raw[off:].rstrip()
        i = len(body) - len(body.lstrip(" "))
        while i < len(body):
            end = len(body) if len(body) - i <= WIDTH else body.rfind(" ", i + 1, i + WIDTH + 1)
            if end <= i:
                end = i + WIDTH
            out.append((body[i:end], [start + off + k for k in range(i, end)]))
            i = end
            while i < len(body) and body[i] == " ":
                i += 1
    return out


def paginate(lines: list[tuple[str, list[int]]], head: str) -> list[tuple[str, list[int | None]]]:
    """Pages of ``lines``, each under ``head`` and over its number, with the source offset of
    each character (None for what the page adds)."""
    pages: list[tuple[str, list[int | None]]] = []
    for n, at in enumerate(range(0, len(lines), LINES), 1):
        text, where = head, [None] * len(head)
        for line, offsets in lines[at:at + LINES]:
            text += "\n" + line
            where += [None, *offsets]
        text += f"\n{n}"
        where += [None] * (len(str(n)) + 1)
        pages.append((text, where))
    return pages


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write(out: Path, corpus: list[dict], queries: list[dict]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, rows in (("corpus.jsonl", corpus), ("queries.jsonl", queries)):
        with (out / name).open("w", encoding="utf-8") as f:
            f.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def build(name: str, source: Path) -> tuple[int, int, list[str]]:
    docs = _jsonl(source / "corpus.jsonl")
    queries = _jsonl(source / "queries.jsonl")
    texts = {d["id"]: d["text"] for d in docs}
    paged = {d["id"]: paginate(typeset(d["text"], d.get("format") == "markdown"), d.get("title") or d["id"])
             for d in docs}
    # pages_<set>: a document per page, each passage cut at the page breaks
    corpus = [{"id": f"{doc_id}#p{n}", "title": doc_id, "text": text, "format": "text"}
              for doc_id, pages in paged.items() for n, (text, _) in enumerate(pages, 1)]
    per_page = []
    for q in queries:
        evidence = []
        for ev in q["evidence"]:
            for n, (_, where) in enumerate(paged[ev["doc_id"]], 1):
                inside = [i for i, src in enumerate(where) if src is not None and ev["start"] <= src < ev["end"]]
                if inside:
                    evidence.append({"doc_id": f"{ev['doc_id']}#p{n}", "start": inside[0], "end": inside[-1] + 1})
        per_page.append({**q, "evidence": evidence})
    _write(DERIVED / f"pages_{name}", corpus, per_page)
    # joined_<set>: the pages given to the adapters' reading, each passage found again in it
    read = {}
    corpus = []
    for doc_id, pages in paged.items():
        doc = pieces.paged([text for text, _ in pages], id=doc_id)
        read[doc_id] = doc.text
        corpus.append({"id": doc_id, "title": doc_id, "pages": [text for text, _ in pages],
                       "sha256": hashlib.sha256(doc.text.encode("utf-8")).hexdigest()})
    joined, lost = [], []
    for q in queries:
        evidence = []
        for ev in q["evidence"]:
            (span,) = move(texts[ev["doc_id"]], read[ev["doc_id"]], [(ev["start"], ev["end"])])
            if span is None:
                lost.append(f"{q['id']} in {ev['doc_id']}")
            else:
                evidence.append({"doc_id": ev["doc_id"], "start": span[0], "end": span[1]})
        if evidence:
            joined.append({**q, "evidence": evidence})
    _write(DERIVED / f"joined_{name}", corpus, joined)
    return len(corpus), sum(len(p) for p in paged.values()), lost


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default=",".join(SETS), help="comma-separated: " + ", ".join(SETS))
    args = parser.parse_args(argv)
    for name in args.sets.split(","):
        source = SETS[name]
        if not (source / "corpus.jsonl").exists():
            print(f"{source} is missing: build it first (bench/licence_set.py)", file=sys.stderr)
            return 1
        files, pages, lost = build(name, source)
        print(f"{name}: {files} file(s), {pages} pages; passages not found in the joined reading: "
              f"{', '.join(lost) or 'none'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

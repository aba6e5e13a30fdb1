"""Derive a set of single-paragraph documents from ``wikitext_md``, with its evidence remapped.

Multi-hop Wikipedia sets (HotpotQA and the like) give each paragraph as its own document under
the article's title, and a question's evidence often lies in two of them. None is in
../shared/data, so this builds the nearest thing from what is: every paragraph of the
``wikitext_md`` articles becomes a document titled by its article, and each evidence span is cut
at paragraph ends into spans of those documents (about half the questions then need two or more
documents). Headings are left out, as such sets have none.

    python bench/paragraph_set.py                 # writes bench/out/derived/wikitext_paragraphs
    python bench/quality.py --data bench/out/derived --datasets wikitext_paragraphs --peers
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent
SOURCE = ROOT.parent.parent / "shared" / "data" / "wikitext_md"
OUT = ROOT / "out" / "derived" / "wikitext_paragraphs"

_LINE = re.compile(r"[^\n]+")


def paragraphs(text: str) -> list[tuple[str, int, int]]:
    """``(article title, start, end)`` of every paragraph line, trimmed of white space."""
    found: list[tuple[str, int, int]] = []
    article = ""
    for m in _LINE.finditer(text):
        line = m.group()
        if line.startswith("#"):
            if line.startswith("# "):
                article = line[2:].strip()
            continue
        lead = len(line) - len(line.lstrip())
        body = line.strip()
        if body:
            start = m.start() + lead
            found.append((article, start, start + len(body)))
    return found


def derive(source: Path, out: Path) -> tuple[int, int]:
    (doc,) = [json.loads(line) for line in (source / "corpus.jsonl").open(encoding="utf-8")]
    text = doc["text"]
    paras = paragraphs(text)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "corpus.jsonl").open("w", encoding="utf-8") as f:
        for i, (title, start, end) in enumerate(paras):
            f.write(json.dumps({"id": f"p{i:04d}", "title": title, "text": text[start:end],
                                "format": "text"}, ensure_ascii=False) + "\n")
    kept = 0
    with (out / "queries.jsonl").open("w", encoding="utf-8") as f:
        for line in (source / "queries.jsonl").open(encoding="utf-8"):
            q = json.loads(line)
            evidence = []
            for ev in q["evidence"]:
                for i, (_, start, end) in enumerate(paras):
                    s, e = max(ev["start"], start), min(ev["end"], end)
                    if s < e and text[s:e].strip():
                        evidence.append({"doc_id": f"p{i:04d}", "start": s - start, "end": e - start})
            if evidence:
                kept += 1
                f.write(json.dumps({"id": q["id"], "query": q["query"], "answer": q.get("answer"),
                                    "evidence": evidence}, ensure_ascii=False) + "\n")
    (out / "README.md").write_text(
        f"Derived by bench/paragraph_set.py from wikitext_md: {len(paras)} single-paragraph documents, "
        f"{kept} queries.\n", encoding="utf-8")
    return len(paras), kept


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, default=SOURCE)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    docs, queries = derive(args.source, args.out)
    print(f"{args.out}: {docs} documents, {queries} queries")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

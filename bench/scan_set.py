"""Build held-out sets of scanned documents: a set's documents printed, scanned and read by OCR.

No scan is in ../shared/data, and none with evidence marked can be downloaded here. So the
documents of two sets are typeset as pages and "scanned": the licences (`licence_set.py`) as
typed pages, their lines as written, in a monospaced face; wikitext_md's ten articles as a
book's pages, paragraphs set in a serif face, headings in bold by level, with a running head
and a folio. Each page is then turned by up to 0.7 degrees, greyed, given noise and a slight
blur and saved as a JPEG at 200 dots per inch in an image-only PDF — an office scanner's
output. The questions are the source sets'; each evidence passage is moved into the text OCR
reads (its words aligned with the source's; a passage whose words are not found is listed and
left out). The corpus names the PDFs (``path``), which the evaluation reads as ``zoomrag
index`` does: Tesseract must be installed (``apt-get install tesseract-ocr``).

    python bench/licence_set.py              # the licences first
    python bench/scan_set.py                 # writes bench/out/derived/scan_licences, scan_wikitext
    python bench/quality.py --data bench/out/derived --datasets scan_licences,scan_wikitext --peers
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
from heldout import move
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from zoomrag.load import load_path
from zoomrag.load.readers.ocr import engine

ROOT = Path(__file__).resolve().parent
DERIVED = ROOT / "out" / "derived"
SHARED = ROOT.parent.parent / "shared" / "data"
#: set name -> (source set folder, how its pages look)
SETS = {"scan_licences": (DERIVED / "licences", "typed"), "scan_wikitext": (SHARED / "wikitext_md", "book")}

DPI = 200
WIDTH, HEIGHT = int(8.27 * DPI), int(11.69 * DPI)  # A4
MARGIN = int(0.9 * DPI)
FONTS = Path("/usr/share/fonts/truetype/dejavu")
STAMP = time.gmtime(1767225600)  # 2026-01-01


def _font(name: str, points: float) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONTS / name), int(points * DPI / 72))


def _paragraphs(text: str, style: str) -> list[tuple[int, str]]:
    """(heading level or 0, text) of a document: a typed page's paragraphs keep their lines."""
    out = []
    parts = re.split(r"\n\s*\n", text) if style == "typed" else text.split("\n")
    for part in parts:
        if not part.strip():
            continue
        heading = re.fullmatch(r"(#{1,4}) (.*)", part.strip())
        out.append((len(heading.group(1)), heading.group(2)) if heading else (0, part.rstrip()))
    return out


def typeset(text: str, title: str, style: str) -> list[Image.Image]:
    """The pages of ``text`` printed: a running head, a folio, headings in bold."""
    body = _font("DejaVuSansMono.ttf", 9.5) if style == "typed" else _font("DejaVuSerif.ttf", 11)
    heads = {1: _font("DejaVuSerif-Bold.ttf", 18), 2: _font("DejaVuSerif-Bold.ttf", 14),
             3: _font("DejaVuSerif-Bold.ttf", 12), 4: _font("DejaVuSerif-Bold.ttf", 11)}
    pages: list[Image.Image] = []
    y = HEIGHT

    def line(text: str, font: ImageFont.FreeTypeFont, spacing: float) -> None:
        nonlocal y
        height = font.getbbox("Ag")[3]
        if y + height > HEIGHT - MARGIN:
            pages.append(Image.new("L", (WIDTH, HEIGHT), 255))
            y = MARGIN
        ImageDraw.Draw(pages[-1]).text((MARGIN, y), text, font=font, fill=0)
        y += int(height * spacing)

    for level, para in _paragraphs(text, style):
        if level:
            y += int(0.25 * DPI)
            if y > HEIGHT - MARGIN - DPI:  # no heading alone at a page's foot
                y = HEIGHT
            for ln in textwrap.wrap(para, 55):
                line(ln, heads[level], 1.4)
            continue
        if style == "typed":
            lines = para.split("\n")
        else:
            lines, current = [], ""
            for word in para.split():
                longer = f"{current} {word}".strip()
                if body.getlength(longer) > WIDTH - 2 * MARGIN and current:
                    lines.append(current)
                    current = word
                else:
                    current = longer
            lines += [current] if current else []
        for ln in lines:
            line(ln, body, 1.35)
        y += int(0.12 * DPI)
    small = _font("DejaVuSerif-Italic.ttf", 9)
    for number, page in enumerate(pages, 1):
        draw = ImageDraw.Draw(page)
        draw.text((MARGIN, MARGIN // 2), title, font=small, fill=60)
        draw.text((WIDTH // 2 - 20, HEIGHT - MARGIN // 2), str(number), font=small, fill=60)
    return pages


def scan(page: Image.Image, rnd: random.Random) -> Image.Image:
    """A page as a scanner gives it: turned a little, greyed, noisy, slightly blurred."""
    page = page.rotate(rnd.uniform(-0.7, 0.7), resample=Image.Resampling.BICUBIC, fillcolor=255)
    noise = np.random.default_rng(rnd.randrange(1 << 30)).normal(0, 9, (page.height, page.width))
    pixels = np.asarray(page, dtype=np.float32) * 0.92 + 12 + noise
    return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(0.5))


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def build(name: str, source: Path, style: str, out: Path) -> tuple[int, list[str]]:
    """Scan one set into ``out``; (questions kept, what was left out)."""
    corpus, queries = _jsonl(source / "corpus.jsonl"), _jsonl(source / "queries.jsonl")
    files = out / "files"
    files.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(name)
    read: dict[str, str] = {}
    lines = []
    for doc in corpus:
        pdf = files / f"{re.sub(r'[^A-Za-z0-9._-]', '_', doc['id'])}.pdf"
        pages = [scan(p, rnd) for p in typeset(doc["text"], doc.get("title") or doc["id"], style)]
        # the source's title where it has one, else none (Pillow would write the file's name):
        # units embed a document's title, so the scan must not have one its source lacks
        title = doc["title"] if doc.get("title") and doc["title"] != doc["id"] else ""
        pages[0].save(pdf, "PDF", resolution=DPI, save_all=True, append_images=pages[1:], quality=70,
                      title=title, creationDate=STAMP, modDate=STAMP)  # the same bytes each time
        read[doc["id"]] = load_path(pdf, id=doc["id"]).text
        lines.append({"id": doc["id"], "title": doc.get("title") or doc["id"], "path": f"files/{pdf.name}",
                      "sha256": hashlib.sha256(read[doc["id"]].encode("utf-8")).hexdigest()})
        print(f"  {name}: {pdf.name}, {len(pages)} pages", file=sys.stderr)
    texts = {doc["id"]: doc["text"] for doc in corpus}
    kept, dropped = [], []
    for q in queries:
        evidence = []
        for ev in q["evidence"]:
            (span,) = move(texts[ev["doc_id"]], read[ev["doc_id"]], [(ev["start"], ev["end"])])
            if span is None:
                break
            evidence.append({"doc_id": ev["doc_id"], "start": span[0], "end": span[1]})
        else:
            kept.append({**q, "evidence": evidence})
            continue
        dropped.append(f"{q['id']}: {q['query']}")
    (out / "corpus.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    (out / "queries.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in kept),
                                       encoding="utf-8")
    return len(kept), dropped


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default=",".join(SETS), help="which (default: %(default)s)")
    ap.add_argument("--out", type=Path, default=DERIVED)
    args = ap.parse_args(argv)
    if engine() is None:
        print("Tesseract is not installed: apt-get install tesseract-ocr", file=sys.stderr)
        return 1
    for name in args.sets.split(","):
        source, style = SETS[name]
        if not (source / "corpus.jsonl").is_file():
            print(f"{source}: no set here; build it first (python bench/licence_set.py)", file=sys.stderr)
            return 1
        n, dropped = build(name, source, style, args.out / name)
        print(f"wrote {n} questions to {args.out / name}; {len(dropped)} left out (evidence not found):")
        for line in dropped:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How fast scanned PDFs are read by OCR: pages per minute, by how many pages are read at once.

Reads the scanned licences `scan_set.py` wrote (56 pages at 200 dpi) through ``load_path``, as
``zoomrag index`` does, with an empty OCR cache each run; then once more with the cache filled.

    python bench/scan_set.py --sets scan_licences
    python bench/ocr_speed.py [--workers 1,2]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from zoomrag.load import load_path
from zoomrag.load.readers import pdf_ocr
from zoomrag.load.readers.ocr import engine

FILES = Path(__file__).resolve().parent / "out" / "derived" / "scan_licences" / "files"


def read_all(files: list[Path]) -> tuple[float, int]:
    """Seconds to read ``files``, and pages read by OCR."""
    t0 = time.perf_counter()
    pages = sum(load_path(f).metadata.get("pages_ocr", 0) for f in files)
    return time.perf_counter() - t0, pages


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", default=f"1,{os.cpu_count() or 1}")
    args = ap.parse_args(argv)
    files = sorted(FILES.glob("*.pdf"))
    ocr = engine()
    if not files or ocr is None:
        print(f"needs Tesseract and {FILES} (python bench/scan_set.py --sets scan_licences)", file=sys.stderr)
        return 1
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"Tesseract {ocr.version} ({ocr.languages}), {os.cpu_count()} cores ({platform.processor() or platform.machine()}), "
          f"zoomrag at {commit}; {len(files)} PDFs")
    for workers in (int(w) for w in args.workers.split(",")):
        with tempfile.TemporaryDirectory() as cache:
            os.environ["ZOOMRAG_CACHE_DIR"] = cache
            pdf_ocr.WORKERS = workers
            seconds, pages = read_all(files)
            print(f"  {workers} at once: {pages} pages in {seconds:.1f} s, {60 * pages / seconds:.1f} pages/min")
            again, _ = read_all(files)
            print(f"    again, from the cache: {again:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

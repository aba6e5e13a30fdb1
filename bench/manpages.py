"""The manual page reader against groff: the words groff prints of a sample of this machine's
pages (``/usr/share/man``) that zoomrag's text of them lacks, and the words it adds.

Words are runs of three letters or more, compared as sets per page; groff's running header and
footer lines are left out, and the NAME heading, which zoomrag writes as the page's title
instead. What is left are words groff hyphenated at a line end and what the reader drops.

    apt-get install groff                    # groff-base alone renders man but not tbl everywhere
    python bench/manpages.py                 # 400 pages, seed 2
    python bench/manpages.py --pages 1000 --seed 7
"""

from __future__ import annotations

import argparse
import gzip
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from zoomrag.load import read_text
from zoomrag.load.base import decode

_WORD = re.compile(r"[A-Za-z]{3,}")
_SECTIONS = ("man1", "man3", "man5", "man7", "man8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=400)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--root", type=Path, default=Path("/usr/share/man"))
    ap.add_argument("--worst", type=int, default=10, help="pages to list with their differences")
    args = ap.parse_args()
    if shutil.which("groff") is None:
        print("groff is not installed: apt-get install groff", file=sys.stderr)
        return 2
    files = [p for d in _SECTIONS for p in (args.root / d).glob("*.gz")]
    if not files:
        print(f"no manual pages under {args.root}", file=sys.stderr)
        return 2
    random.Random(args.seed).shuffle(files)
    pages = words = missing = extra = 0
    seconds = 0.0
    worst = []
    for f in files:
        if pages >= args.pages:
            break
        source = decode(gzip.decompress(f.read_bytes()), str(f))
        if source.lstrip().startswith(".so "):
            continue  # a link to another page
        ref = subprocess.run(["groff", "-t", "-mandoc", "-Tutf8", "-P-cbou", "-rLL=200n", "-rHY=0"],
                             input=source.encode(), capture_output=True, timeout=60).stdout.decode("utf-8", "replace")
        shown = [line for line in ref.split("\n") if line.strip()][1:-1]
        start = time.perf_counter()
        doc = read_text(source, format="man", source=str(f))
        seconds += time.perf_counter() - start
        want = set(_WORD.findall("\n".join(shown))) - {"NAME"}
        got = set(_WORD.findall(doc.text))
        pages += 1
        words += len(want)
        missing += len(want - got)
        extra += len(got - want)
        worst.append((len(want - got) + len(got - want), f.name, sorted(want - got)[:10], sorted(got - want)[:10]))
    print(f"{pages} pages: {missing} of {words} distinct words groff prints missing ({missing / words:.2%}), "
          f"{extra} added ({extra / words:.2%}); read in {seconds:.1f} s")
    for row in sorted(worst, reverse=True)[:args.worst]:
        print(f"  {row[1]}: missing {row[2]}, added {row[3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

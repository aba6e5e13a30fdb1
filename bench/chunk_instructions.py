"""Instructions per MB of text for zoomrag strategies, counted by valgrind (callgrind ``Ir``).

    python bench/chunk_instructions.py --strategies hierarchical,sentences --mb 1.93
    python bench/chunk_instructions.py --src /tmp/old/src --strategies hierarchical   # old code

Timed runs on a shared two-core machine drift by a third from one minute to the next, so a
10 % change cannot be seen in them; the number of instructions executed does not depend on the
load. For each strategy this runs the interpreter under callgrind twice on the same text (the
corpora of ../shared/data as bench/chunk_speed.py builds it, first ``--mb`` megabytes, memo
warm), once chunking every document one time after the set-up and once two times, and reports
the difference per MB: one warm pass, without the imports and the set-up. ``PYTHONHASHSEED=0``
makes both runs take the same paths.

Instructions are not time (a numpy pass and a Python step differ in cost per instruction), so
the final figures are still timed (bench/chunk_speed.py --interleave); this is for telling a
change from noise while working.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _inner(strategy: str, mb: float, passes: int) -> None:
    """Run inside valgrind: set up, then chunk every document ``passes`` times."""
    sys.path.insert(0, str(HERE))
    from chunk_speed import DATA, load_corpora, make_corpus

    from zoomrag.load import read_text
    from zoomrag.parse import make_chunker
    from zoomrag.text.tokens import Measure, default_counter

    sources = make_corpus(load_corpora(DATA), mb)
    docs = [read_text(s.text, format=s.format, id=s.id, source=s.id) for s in sources]
    counter = default_counter()
    for d in docs:  # the word memo warm, as in chunk_speed.py
        Measure(d.text, counter)
    if strategy == "count":
        def work() -> None:
            for d in docs:
                Measure(d.text, counter)
    else:
        chunker = make_chunker(strategy)
        chunker.chunk(docs[0])

        def work() -> None:
            for d in docs:
                chunker.chunk(d)
    for _ in range(passes):
        work()
    print(sum(len(s.text.encode("utf-8")) for s in sources) / 1e6)


def _instructions(strategy: str, mb: float, passes: int, src: Path) -> tuple[int, float]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(src))
        proc = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--dump-instr=no",
             sys.executable, __file__, "--inner", strategy, "--mb", str(mb), "--passes", str(passes)],
            env=env, capture_output=True, text=True, check=True)
        total = int(re.search(r"Collected\s*:\s*(\d+)", proc.stderr).group(1))  # type: ignore[union-attr]
        return total, float(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--strategies", default="hierarchical,sentences",
                    help="comma-separated strategy names, or 'count' for token counting alone")
    ap.add_argument("--mb", type=float, default=1.93, help="megabytes of text (default 1.93: one copy)")
    ap.add_argument("--src", type=Path, default=ROOT / "src", help="the src/ folder to measure")
    ap.add_argument("--inner", help=argparse.SUPPRESS)
    ap.add_argument("--passes", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.inner:
        _inner(args.inner, args.mb, args.passes)
        return 0
    print(f"instructions per MB (callgrind Ir, one warm pass), src={args.src}")
    for name in args.strategies.split(","):
        one, mb = _instructions(name, args.mb, 1, args.src)
        two, _ = _instructions(name, args.mb, 2, args.src)
        print(f"{name:14s} {(two - one) / mb / 1e6:8.1f} M/MB   ({mb:.2f} MB)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

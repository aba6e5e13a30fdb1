"""One chunking pass over a fixed sample, for counting its instructions with callgrind.

CPU times on this machine move by tens of percent between runs; an instruction count does
not. Only the pass itself is counted (it runs inside ``functools.reduce``, which callgrind is
told to collect in); reading, the token memo and the warm-up run outside it:

    PYTHONHASHSEED=0 PYTHONPATH=<src> valgrind --tool=callgrind --collect-atstart=no \\
        --toggle-collect=functools_reduce --callgrind-out-file=/dev/null \\
        .venv/bin/python bench/chunk_instructions.py hierarchical 2>&1 | grep Collected

``<src>`` is the src/ of the version to count (``git archive <commit> src | tar -x -C /tmp/x``
for an old one). The sample: the first 4 chroma_general, 2 wikitext_md and 400 cmrc2018_trial
documents of bench/chunk_speed.py's 20 MB text (1.75 MB).
"""

from __future__ import annotations

import functools
import gc
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chunk_speed import DATA, load_corpora, make_corpus, megabytes

SAMPLE = (("chroma_general", 4), ("wikitext_md", 2), ("cmrc2018_trial", 400))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    name = args[0] if args else "hierarchical"
    from zoomrag.load import read_text
    from zoomrag.parse import make_chunker
    from zoomrag.parse.base import measure_for

    sources = make_corpus(load_corpora(DATA), 20)
    pick = [s for corpus, n in SAMPLE for s in [s for s in sources if s.id.split("/")[0] == corpus][:n]]
    docs = [read_text(s.text, fmt=s.format, doc_id=s.id, source=s.id) for s in pick]
    for d in docs:  # the token memo filled before the counted pass, as in chunk_speed.py
        measure_for(d, "tokens")
    chunker = make_chunker(name)
    for d in docs:
        chunker.chunk(d)
    print(f"{name}: {len(docs)} documents, {megabytes(pick):.2f} MB", file=sys.stderr)
    gc.collect()

    def one_pass(_acc: object, _round: int) -> None:
        for d in docs:
            chunker.chunk(d)

    functools.reduce(one_pass, range(1), None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

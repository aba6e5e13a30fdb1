"""Where `hierarchical`'s time goes: each phase of its split timed alone, per corpus.

    python bench/chunk_phases.py                  # 20 MB of benchmark text, 7 rounds
    python bench/chunk_phases.py --mb 5 --rounds 9 --corpora chroma_general

The text is bench/chunk_speed.py's (variants of ../shared/data until --mb megabytes), split
by corpus. Each phase runs over every document of a corpus with the others' results made
beforehand, with the token memo warm, as in chunk_speed.py:

- ``chunk``: the whole job (``Chunker.chunk``), and ``split`` without freezing the tree;
- ``measure``: counting the tokens (``measure_for``);
- ``headings``: finding the heading sections (``section_spans``);
- ``cut tiers``: a CutIndex's paragraph, sentence and line cuts, where the document has one;
- ``levels``: the size levels inside the sections, with measure, sections and cuts made;
- ``build_tree``: freezing the drafts into a Tree.

The phases overlap a little (``levels`` builds each document's small state again), and they
do not add up to ``split`` exactly: each is timed alone, so the caches are warmer than in
the whole job. Figures are ms per MB (10^6 bytes of UTF-8) of CPU time, best and median.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chunk_speed import CORPORA, DATA, load_corpora, make_corpus, megabytes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=20.0)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--corpora", default=",".join(CORPORA))
    args = ap.parse_args(argv)

    from zoomrag.load import read_text
    from zoomrag.parse import make_chunker
    from zoomrag.parse.base import build_tree, measure_for
    from zoomrag.parse.headings import section_spans
    from zoomrag.parse.regions import Regions
    from zoomrag.parse.strategies.hierarchical import _Builder

    chunker = make_chunker("hierarchical")
    sources = make_corpus(load_corpora(DATA), args.mb)
    print(f"{megabytes(sources):.1f} MB of benchmark text, {args.rounds} rounds; ms per MB of CPU, "
          "best (median)\n")
    print("| corpus | docs | MB | " + " | ".join(_PHASES) + " |")
    print("| --- | ---: | ---: |" + " ---: |" * len(_PHASES))
    for corpus in args.corpora.split(","):
        group = [s for s in sources if s.id.split("/")[0] == corpus]
        if not group:
            continue
        docs = [read_text(s.text, fmt=s.format, doc_id=s.id, source=s.id) for s in group]
        mb = megabytes(group)
        chunker.chunk(docs[0])
        for d in docs:  # the token memo filled before any clock starts, as in chunk_speed.py
            measure_for(d, "tokens")
        measures = [measure_for(d, "tokens") for d in docs]
        sections = [section_spans(d) for d in docs]
        drafts = [chunker.split(d) for d in docs]

        def builders() -> list[_Builder]:  # each document's state, its cut tiers found
            out = []
            for d, m in zip(docs, measures):
                b = _Builder(chunker, d, m, Regions(d, {}))
                cuts = b.cuts
                if cuts is not None:
                    for tier in ("paragraph", "sentence", "line"):
                        cuts.tier(tier)
                out.append(b)
            return out

        def levels(built: list[_Builder]) -> None:
            for b, s, d in zip(built, sections, docs):
                b.structure(s, 0, len(d.text))

        phases: dict[str, tuple[Callable[..., object], Callable[[], object] | None]] = {
            "chunk": (lambda _: [chunker.chunk(d) for d in docs], None),
            "split": (lambda _: [chunker.split(d) for d in docs], None),
            "measure": (lambda _: [measure_for(d, "tokens") for d in docs], None),
            "headings": (lambda _: [section_spans(d) for d in docs], None),
            "cut tiers": (lambda _: builders(), None),
            "levels": (levels, builders),
            "build_tree": (lambda _: [build_tree(d, s) for d, s in zip(docs, drafts)], None),
        }
        cells = []
        for name in _PHASES:
            run, prepare = phases[name]
            times = []
            for _ in range(args.rounds):
                ready = prepare() if prepare else None
                gc.collect()
                c0 = time.process_time()
                run(ready)
                times.append((time.process_time() - c0) * 1000 / mb)
            cells.append(f"{min(times):.1f} ({statistics.median(times):.1f})")
        print(f"| {corpus} | {len(docs)} | {mb:.2f} | " + " | ".join(cells) + " |")
    return 0


_PHASES = ("chunk", "split", "measure", "headings", "cut tiers", "levels", "build_tree")

if __name__ == "__main__":
    raise SystemExit(main())

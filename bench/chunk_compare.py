"""Chunking speed of two versions of zoomrag in one process, their runs interleaved.

    git archive HEAD src | tar -x -C /tmp/old        # any earlier version's src/
    python bench/chunk_compare.py --old /tmp/old/src --mb 5 --rounds 7

On a shared machine a strategy's CPU time moves by tens of percent from one minute to the
next, so two separate runs of bench/chunk_speed.py cannot show a 10 % change. Here the old
package is imported under another name (``zoomrag_old``: zoomrag's imports are relative), both
versions chunk the same documents (bench/chunk_speed.py's text) with a warm token memo, and
each round times every strategy old then new, or new then old, alternately. The report gives
the best and the median round of each, in MB per CPU second, and their ratios.

    python bench/chunk_compare.py --old /tmp/old/src --check    # same trees and ids?

``--check`` times nothing: it hashes every tree (each node's id, parent, kind, level, span,
section path, children and embed text) that both versions build for the configurations in
CHECKED, on the benchmark text (``--mb``) and on the three corpora as they are, and lists any
configuration whose hashes differ. A speed change must leave every one of them equal.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import importlib
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chunk_speed import DATA, Source, load_corpora, make_corpus, megabytes

DEFAULT = "hierarchical,sentences,window,recursive,fixed"
#: (strategy, parameters) whose trees --check compares: every default strategy, the default
#: profile, and the parameters that take other paths (overlap, units, min_size, no structure).
CHECKED: tuple[tuple[str, dict[str, Any]], ...] = (
    ("none", {}), ("fixed", {}), ("recursive", {}), ("sentences", {}), ("markdown", {}),
    ("parent-child", {}), ("hierarchical", {}), ("window", {}), ("table", {}), ("code", {}),
    ("profile:default", {}),
    ("sentences", {"overlap": 1}), ("sentences", {"sentences": 5, "overlap": 2, "max_size": 64}),
    ("sentences", {"unit": "chars"}), ("sentences", {"unit": "approx", "max_size": 40}),
    ("sentences", {"sentences": 1, "max_size": 16}),
    ("hierarchical", {"unit": "chars"}), ("hierarchical", {"unit": "approx"}),
    ("hierarchical", {"min_size": 64}), ("hierarchical", {"structure": False}),
    ("hierarchical", {"sizes": (300, 60, 12), "lookback": 0.5}),
    ("hierarchical", {"sizes": (256, 32), "lookback": 0.0}),
    ("fixed", {"overlap": 32, "min_size": 64}), ("fixed", {"unit": "chars", "size": 500}),
    ("recursive", {"overlap": 20}), ("recursive", {"unit": "approx", "size": 64}),
    ("parent-child", {"structure": False}), ("markdown", {"max_size": 64}),
    ("window", {"paragraphs": False}), ("window", {"max_size": 24}),
)


def timed(package: str, sources: list[Source], names: list[str]) -> dict[str, Callable[[], int]]:
    """One chunking function per strategy name (``count``: token counting alone)."""
    load = importlib.import_module(f"{package}.load")
    parse = importlib.import_module(f"{package}.parse")
    tokens = importlib.import_module(f"{package}.text.tokens")
    docs = [load.read_text(s.text, format=s.format, id=s.id, source=s.id) for s in sources]
    counter = tokens.get_counter("tokens")
    for d in docs:  # the word memo warm, as in bench/chunk_speed.py
        tokens.Measure(d.text, counter)
    out: dict[str, Callable[[], int]] = {}
    for name in names:
        if name == "count":
            out[name] = lambda m=tokens.Measure: sum(m(d.text, counter).total for d in docs)
        else:
            chunker: Any = parse.make_chunker(name)
            chunker.chunk(docs[0])
            out[name] = lambda c=chunker: sum(len(c.chunk(d)) for d in docs)
    return out


def tree_hashes(package: str, docs_by_set: dict[str, list[Source]]) -> dict[str, str]:
    """``{"strategy params @ text set": sha256 of every tree}`` for each CHECKED configuration."""
    load = importlib.import_module(f"{package}.load")
    parse = importlib.import_module(f"{package}.parse")
    out = {}
    for label, sources in docs_by_set.items():
        docs = [load.read_text(s.text, format=s.format, id=s.id, source=s.id) for s in sources]
        for name, params in CHECKED:
            chunker: Any = (parse.chunker_for_profile(name.split(":")[1]) if name.startswith("profile:")
                            else parse.make_chunker(name, params))
            h = hashlib.sha256()
            for d in docs:
                for n in chunker.chunk(d).nodes:
                    h.update(repr((n.id, n.parent_id, n.kind, n.level, n.start, n.end, n.section_path,
                                   n.children, n.embed_text)).encode())
            out[f"{name} {params} @ {label}"] = h.hexdigest()
    return out


def check(old: Path, mb: float) -> int:
    """Compare the trees of the two versions; 0 when every hash agrees."""
    corpora = load_corpora(DATA)
    sets = {"corpora": corpora, f"bench {mb:g} MB": make_corpus(corpora, mb)}
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(old / "zoomrag", Path(tmp) / "zoomrag_old")
        sys.path.insert(0, tmp)
        before, after = tree_hashes("zoomrag_old", sets), tree_hashes("zoomrag", sets)
    differ = [k for k in before if before[k] != after[k]]
    for k in before:
        print(f"{'DIFFERENT' if k in differ else 'same':9s} {after[k][:16]}  {k}")
    print(f"{len(before) - len(differ)} of {len(before)} configurations hash the same")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", type=Path, required=True, help="a src/ folder holding the old zoomrag/")
    ap.add_argument("--mb", type=float, default=5.0, help="megabytes of text (default 5)")
    ap.add_argument("--rounds", type=int, default=7, help="timed runs of each version (default 7)")
    ap.add_argument("--strategies", default=DEFAULT,
                    help=f"comma-separated strategies, 'count' for counting alone (default {DEFAULT})")
    ap.add_argument("--check", action="store_true",
                    help="compare the trees' hashes instead of timing (see CHECKED)")
    args = ap.parse_args(argv)
    if not (args.old / "zoomrag" / "__init__.py").exists():
        print(f"error: no zoomrag package in {args.old}; pass the old checkout's src/", file=sys.stderr)
        return 1
    if args.check:
        return check(args.old, args.mb)
    names = [n.strip() for n in args.strategies.split(",") if n.strip()]
    sources = make_corpus(load_corpora(DATA), args.mb)
    mb = megabytes(sources)
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(args.old / "zoomrag", Path(tmp) / "zoomrag_old")
        sys.path.insert(0, tmp)
        versions = {"old": timed("zoomrag_old", sources, names), "new": timed("zoomrag", sources, names)}
        cpu: dict[tuple[str, str], list[float]] = {(v, n): [] for v in versions for n in names}
        for r in range(args.rounds):
            for name in names:
                for v in ("old", "new") if r % 2 == 0 else ("new", "old"):
                    gc.collect()
                    c0 = time.process_time()
                    versions[v][name]()
                    cpu[v, name].append(time.process_time() - c0)
    print(f"{mb:.1f} MB, {args.rounds} interleaved rounds; MB per CPU second, best (median)\n")
    print("| strategy | old | new | new/old best | new/old median |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name in names:
        old, new = cpu["old", name], cpu["new", name]
        print(f"| {name} | {mb / min(old):.2f} ({mb / statistics.median(old):.2f}) | "
              f"{mb / min(new):.2f} ({mb / statistics.median(new):.2f}) | {min(old) / min(new):.2f} | "
              f"{statistics.median(old) / statistics.median(new):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

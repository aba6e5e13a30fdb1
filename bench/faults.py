"""Fault trials at scale: kill -9 during indexing, random page damage, queries during writes.

    python bench/faults.py --kills 200 --damage 500 --queries 20000

Prints one line per fault and a Markdown table for docs/reliability.md. The trials are the fault
suite's (tests/faults/trials.py), seeded: the same command gives the same damage and kill times.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "faults"))
import trials  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=200)
    ap.add_argument("--damage", type=int, default=500)
    ap.add_argument("--queries", type=int, default=20000, help="queries during writes, at least")
    ap.add_argument("--readers", type=int, default=2)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        t0 = time.monotonic()
        kill: Counter = Counter()
        (work / "kill").mkdir()
        for seed in range(args.kills):
            kill.update(trials.kill_trial(work / "kill", seed))
        rows.append(("kill -9 while indexing (150 files)", kill["trials"],
                     f"{kill['trials'] - kill['finished_first']} killed mid-run, {kill['finished_first']} after "
                     f"the end; every index checked consistent and resumed", kill, time.monotonic() - t0))
        print("kill", dict(kill), flush=True)

        t0 = time.monotonic()
        (work / "dmg").mkdir()
        db, base = trials.build_base(work / "dmg")
        dmg: Counter = Counter()
        for seed in range(args.damage):
            dmg.update(trials.damage_trial(db, base, work / "dmg", seed))
        rows.append(("64 random bytes over one random page", dmg["trials"],
                     f"{dmg['detected']} found by check (or refused at open), {dmg['harmless']} harmless "
                     "(check ok, every query as before)", dmg, time.monotonic() - t0))
        print("damage", dict(dmg), flush=True)

        t0 = time.monotonic()
        live: Counter = Counter()
        (work / "live").mkdir()
        while live["queries"] < args.queries:
            live.update(trials.concurrent_trial(work / "live", seconds=20, readers=args.readers))
            for p in (work / "live").glob("live.db*"):
                p.unlink()
        rows.append((f"queries by {args.readers} readers while a writer replaces every document",
                     live["queries"], f"{live['writes']} rewrites of 12 documents; {live['errors']} query errors",
                     live, time.monotonic() - t0))
        print("live", dict(live), flush=True)

    print("\n| fault | trials | outcome | wrong results | tracebacks | lost documents | seconds |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for name, n, outcome, c, secs in rows:
        print(f"| {name} | {n:,} | {outcome} | {c['wrong']} | {c['traceback']} | {c.get('lost', 0)} | {secs:.0f} |")


if __name__ == "__main__":
    main()

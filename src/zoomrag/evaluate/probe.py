"""The probe: choose ``auto``'s policy per kind of document from questions made of the corpus itself.

No labelled questions are needed. From the documents of an index it makes, deterministically
(a seeded sample, at most :data:`PER_KIND` per kind of document, each candidate placed by a
hash of its document and span, so an edit to one document changes only its own questions):

- **heading questions** (headed documents): the heading trail of a section as the question, the
  section's body as the evidence — a reader who asks about a topic wants its section;
- **sentence questions** (headed and flat documents): the content words of one sentence, stop
  words dropped, a third of the rest left out and the order shuffled, as the question; its
  paragraph (the sentence and two neighbours each side when the paragraph is long) as the
  evidence — a point fact and the text around it;
- **row questions** (tables): the row's first cell and the name of another column as the
  question, the row as the evidence;
- **code questions**: the words of a function's or class's name and the first line of its body
  as the question, the definition as the evidence.

A question whose source (sentence, heading trail, row or definition line) occurs twice in the
corpus is not asked: its evidence would be one copy of two.

Every candidate policy (:data:`CANDIDATES`) is run on the index as it is (its tree, its vectors;
only the probe questions are embedded) at :data:`BUDGETS`, through :func:`run_eval`, and scored
by evidence recall. Per kind, and per band of budgets (:func:`bands_of`: the lower and the upper
half of :data:`BUDGETS`), the candidate with the best mean recall wins when it beats the default
(``density``) by at least :data:`MARGIN`, beyond noise (the 95 % interval of the paired
per-question gain lies above zero, widened for having picked the best of five: :data:`Z`), and its contexts keep their shape (fragments at most 1 %,
mid-sentence starts and ends at most 2 %); otherwise the default stays. Evidence is sized in the
index's tokens (:data:`MAX_EVIDENCE`, :data:`MAX_PARAGRAPH`), so that every script gets evidence
of the same length. A kind with
fewer than :data:`MIN_QUERIES` questions gets no choice (``auto`` uses its default there).
"""

from __future__ import annotations

import hashlib
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import numpy as np

from ..expand.auto import KINDS, Choice, default_choice, document_kind
from ..expand.measure import SpanMeasure, measure_of
from ..expand.pipeline import expand_hits
from ..model import Hit, Tree
from ..search.names import asked_unqualified
from ..text.markup import reading
from ..text.sentences import paragraph_sentences
from ..text.tokens import TokenCounter
from .dataset import Dataset, EvalDocument, EvalQuery, Evidence
from .forked import run_split
from .results import BuildStats
from .runner import run_eval

if TYPE_CHECKING:
    from ..index import AddReport, Index

#: Candidates: name -> (policy, parameters). A winner must beat ``auto``'s default for the band
#: (:func:`default_for`): the first below 2,048 tokens, the second from there.
CANDIDATES: Mapping[str, tuple[str, Mapping[str, Any]]] = {
    "density": ("density", {}),
    "density-large": ("density", {"trim": 0.04}),
    "density-sharp": ("density", {"score_decay": 1.0}),
    "window": ("window", {"n": 1}),
    "parent": ("parent", {}),
    "merge": ("merge", {}),
}
DEFAULT = "density"
#: Changes when the questions, candidates or rule change (results cached under it are re-run).
VERSION = 8
#: Budgets the probe measures at (tokens of the index's counter); the lower and the upper half are
#: chosen for separately (:func:`bands_of`).
BUDGETS = (512, 1024, 2048, 4096)
#: Probe questions per kind of document, at most.
PER_KIND = 24
#: Fewer questions than this for a kind: no choice for it (too few to tell policies apart).
MIN_QUERIES = 12
#: Mean recall a candidate must gain over the default to replace it.
MARGIN = 0.02
#: The normal quantile of the gain's lower bound: 95 % for one candidate is 1.96, but the best of
#: five others leads the default by chance far more often than one would, so each is held to
#: 1 - 0.025 / 5 (Bonferroni). With 1.96, chroma_general's flat documents went to `parent` on
#: 24 probe questions (+0.050, bound +0.004) and its labelled questions lost 0.035 of recall at
#: 512 tokens for it.
Z = NormalDist().inv_cdf(1 - 0.025 / (len(CANDIDATES) - 1))
#: Shape limits a winner must keep (the issue's goals for every policy).
MAX_FRAGMENTS = 0.01
MAX_MID = 0.02
#: Evidence longer than this (tokens of the index's counter) is not a probe: a huge section
#: tells little. Tokens, not characters, so that a script of one token per character (Chinese)
#: gets evidence as long as English does (2,000 English characters are about 450 tokens).
MAX_EVIDENCE = 512
#: A paragraph longer than this (tokens) is not one point's evidence: the sentence and two
#: neighbours each side are.
MAX_PARAGRAPH = 256

_STOP = frozenset("""
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had has
have having he her here hers herself him himself his how i if in into is it its itself just let me
more most my myself no nor not now of off on once only or other our ours ourselves out over own same
she should so some such than that the their theirs them themselves then there these they this those
through to too under until up very was we were what when where which while who whom why will with
would you your yours yourself yourselves one two may might must shall upon its many much however
der das und ist ein eine einen einem einer eines nicht sie auf für von dem des sich auch wird werden
sind oder wie bei nach kann können aus zum zur wenn dann noch nur über diese dieser dieses haben
wurde sein ihr ihre wir ich sollte damit dass
les des une est pour dans que qui sur avec pas par sont ces cette aux plus peut vous nous ils elle
être avoir mais ont leur été comme vos votre
los las una del por para como más pero sus este esta esto está puede
che della delle degli dei una sono non anche più questo questa
não uma com mais dos das pelo pela
het een van zijn voor niet ook bij wordt aan worden deze
это как для что или его она они так при если чтобы может быть есть все уже только также который
которые которая этот эта эти где когда
""".split())
_WORD = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_NAME_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


@dataclass(frozen=True)
class KindResult:
    """The probe on one kind of document."""

    kind: str
    documents: int
    queries: int
    #: Mean recall over the probe budgets, per candidate (empty when not measured).
    recall: Mapping[str, float] = field(default_factory=dict)
    iou: Mapping[str, float] = field(default_factory=dict)
    #: Candidates left out for their shape, with the reason.
    shape_out: Mapping[str, str] = field(default_factory=dict)
    #: The choice for the lowest band of budgets (for every budget unless :attr:`bands` says otherwise).
    choice: Choice | None = None
    note: str = ""
    #: The choices for the higher bands, by the band's first budget.
    bands: Mapping[int, Choice] = field(default_factory=dict)


@dataclass(frozen=True)
class ProbeReport:
    """What the probe measured and chose; :attr:`choices` is what ``auto`` will use."""

    kinds: tuple[KindResult, ...]
    seconds: float
    note: str = ""

    @property
    def choices(self) -> dict[str, Choice]:
        """What ``auto`` records: ``KIND`` -> choice, and ``KIND@N`` -> the choice from N tokens on
        where it differs (:func:`zoomrag.expand.auto.probed_for`)."""
        out: dict[str, Choice] = {}
        for k in self.kinds:
            if k.choice is not None:
                out[k.kind] = k.choice
                out.update({f"{k.kind}@{b}": c for b, c in sorted(k.bands.items()) if c.label != k.choice.label})
        return out

    def summary(self) -> str:
        """One line per kind (and band), as ``zoomrag index`` and ``zoomrag recommend --probe`` print it."""
        lines = []
        for k in self.kinds:
            lines.append(f"{k.kind}: {k.choice.why}" if k.choice is not None else f"{k.kind}: {k.note}")
            lines += [f"{k.kind} from {b} tokens: {c.why}" for b, c in sorted(k.bands.items())]
        if self.note:
            lines.append(self.note)
        return "\n".join(lines)


# -- questions ---------------------------------------------------------------------------------

def _query_words(text: str, rng: random.Random) -> str:
    """A question made of one passage's content words (a third left out, shuffled)."""
    if _CJK.search(text):
        chars = [c for c in text if _CJK.match(c) or c.isalnum()]
        grams = ["".join(chars[i:i + 2]) for i in range(0, len(chars) - 1, 2)]
        keep = sorted(rng.sample(range(len(grams)), max(1, (2 * len(grams)) // 3))) if grams else []
        return " ".join(grams[i] for i in keep)
    words = [w for w in _WORD.findall(text) if w.lower() not in _STOP and len(w) > 2]
    words = list(dict.fromkeys(words))
    if len(words) > 3:
        words = rng.sample(words, max(3, (2 * len(words)) // 3))
    rng.shuffle(words)
    return " ".join(words)


def _sentence_probes(tree: Tree, rng: random.Random, skip: Sequence[tuple[int, int]],
                     size: Callable[[int, int], int]) -> list[tuple[str, int, int]]:
    text = tree.document.text
    # asked as a reader reads it: a link's text, not its target, no tags (what units embed, too)
    read = reading(tree.document.format)
    out: list[tuple[str, int, int]] = []
    for para in paragraph_sentences(text):
        long = None
        for i, (s, e) in enumerate(para):
            if any(a < e and s < b for a, b in skip):  # inside a table or a code block
                continue
            if len(_WORD.findall(text, s, e)) < 8 and len(_CJK.findall(text, s, e)) < 16:
                continue
            ps, pe = para[0][0], para[-1][1]
            long = size(ps, pe) > MAX_PARAGRAPH if long is None else long
            if long:
                ps, pe = para[max(0, i - 2)][0], para[min(len(para) - 1, i + 2)][1]
                if size(ps, pe) > MAX_EVIDENCE:
                    continue
            out.append((read(text[s:e]), ps, pe))
    return out


def _heading_probes(tree: Tree, size: Callable[[int, int], int]) -> list[tuple[str, int, int]]:
    text = tree.document.text
    out: list[tuple[str, int, int]] = []
    for n in tree.nodes:
        if n.kind != "section" or not n.section_path:
            continue
        line_end = text.find("\n", n.start, n.end)
        if line_end < 0:
            continue
        body = line_end + 1
        while body < n.end and text[body].isspace():
            body += 1
        if len(_WORD.findall(text, body, n.end)) < 15 or size(body, n.end) > MAX_EVIDENCE:
            continue
        out.append((" ".join(n.section_path), body, n.end))
    return out


def _row_probes(tree: Tree, rng: random.Random) -> list[tuple[str, int, int]]:
    text = tree.document.text
    headers: dict[str | None, list[str]] = {}
    for n in tree.nodes:
        if n.kind == "header":
            headers[n.parent_id] = [text[c.start:c.end].strip() for c in tree.children(n)]
    out: list[tuple[str, int, int]] = []
    for n in tree.nodes:
        if n.kind != "row":
            continue
        cells = [text[c.start:c.end].strip() for c in tree.children(n)]
        names = headers.get(n.parent_id, [])
        if len(cells) < 2 or not cells[0] or len(names) < 2:
            continue
        other = rng.randrange(1, min(len(cells), len(names)))
        out.append((f"{cells[0]} {names[other]}", n.start, n.end))
    return out


def _code_probes(tree: Tree, size: Callable[[int, int], int]) -> list[tuple[str, int, int]]:
    text = tree.document.text
    out: list[tuple[str, int, int]] = []
    for n in tree.nodes:
        if n.kind not in ("function", "method", "class") or size(n.start, n.end) > MAX_EVIDENCE:
            continue
        if not n.section_path:  # the code chunker names every definition it can
            continue
        lines = text[n.start:n.end].splitlines()
        name = " ".join(p.lower() for p in _NAME_PART.findall(n.section_path[-1]))
        body = next((ln.strip().strip("\"'#/ *") for ln in lines[1:] if ln.strip().strip("\"'#/ *")), "")
        out.append((f"{name} {body}".strip(), n.start, n.end))
    return out


def probe_questions(trees: Sequence[Tree], *, seed: int = 0, per_kind: int = PER_KIND,
                    counter: TokenCounter | None = None) -> dict[str, list[EvalQuery]]:
    """The probe's questions per kind of document (deterministic for a given corpus and seed);
    evidence is sized in ``counter``'s tokens (the default counter when None)."""
    pools: dict[str, list[tuple[str, str, int, int, str]]] = {k: [] for k in KINDS}
    for tree in sorted(trees, key=lambda t: t.document.id):
        size = measure_of(tree, counter).size
        kind = document_kind(tree)
        rng = random.Random(f"{seed}:{tree.document.id}")
        doc = tree.document.id
        if kind == "table":
            pools[kind] += [(doc, q, s, e, "row") for q, s, e in _row_probes(tree, rng)]
        elif kind == "code":
            pools[kind] += [(doc, q, s, e, "code") for q, s, e in _code_probes(tree, size)]
        else:
            skip = [(n.start, n.end) for n in tree.nodes if n.level > 0 and n.kind in ("table", "code")]
            pools[kind] += [(doc, q, s, e, "sentence") for q, s, e in _sentence_probes(tree, rng, skip, size)]
            if kind == "headed":
                pools[kind] += [(doc, q, s, e, "heading") for q, s, e in _heading_probes(tree, size)]
    # A passage found in two places (a licence copied into every package, a repeated warning)
    # has no single evidence: whichever copy a policy returns, the other counts as missed.
    plain = {kind: [_plain(item[1]) for item in pool] for kind, pool in pools.items()}
    seen = Counter(key for keys in plain.values() for key in keys)
    out: dict[str, list[EvalQuery]] = {}
    for kind, pool in pools.items():
        pool = [item for item, key in zip(pool, plain[kind]) if seen[key] == 1]
        # Each candidate's place in the sample is a hash of what it is (bottom-k sampling): adding,
        # changing or removing one document changes only the questions drawn from it, so the
        # probe's choice does not swing with an unrelated edit.
        ranked = sorted(pool, key=lambda item: _sample_key(seed, item))
        by_type: dict[str, list[tuple[str, str, int, int, str]]] = {}
        for item in ranked:
            by_type.setdefault(item[4], []).append(item)
        # an even share of each type (headings are few beside sentences), the rest from the others
        picked: list[tuple[str, str, int, int, str]] = []
        share = per_kind // max(1, len(by_type))
        rest: list[tuple[str, str, int, int, str]] = []
        for t in sorted(by_type):
            picked += by_type[t][:share]
            rest += by_type[t][share:]
        if len(picked) < per_kind and rest:
            picked += sorted(rest, key=lambda item: _sample_key(seed, item))[:per_kind - len(picked)]
        queries = []
        for i, (doc, source, s, e, t) in enumerate(picked):
            rng = random.Random(_sample_key(seed, (doc, source, s, e, t)))
            q = source if t in ("heading", "row", "code") else _query_words(source, rng)
            if q.strip():
                queries.append(EvalQuery(f"{kind}-{i}-{t}", q, (Evidence(doc, s, e),)))
        out[kind] = queries
    return out


def _plain(source: str) -> str:
    """A question's source as its words alone, lower case: copies that differ only in layout,
    case or punctuation read the same."""
    return " ".join(_WORD.findall(source.lower()))


def _sample_key(seed: int, item: tuple[str, str, int, int, str]) -> int:
    doc, _, start, end, kind = item
    digest = hashlib.blake2b(f"{seed}:{doc}:{start}:{end}:{kind}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


# -- running -----------------------------------------------------------------------------------

class _ProbeTrees:
    """Every document's tree, read once: the probe's tree source. Nothing is read from the store
    while candidates run, so a kind of document can be measured in a forked process
    (:func:`~zoomrag.evaluate.forked.run_split`)."""

    def __init__(self, trees: Sequence[Tree], counter: TokenCounter):
        self._trees = {t.document.id: t for t in trees}
        self._counter = counter
        self._measures: dict[str, SpanMeasure] = {}

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self._trees

    def tree(self, doc_id: str) -> Tree:
        return self._trees[doc_id]

    def measure(self, doc_id: str) -> SpanMeasure:
        m = self._measures.get(doc_id)
        if m is None:
            m = self._measures[doc_id] = SpanMeasure(self._trees[doc_id].document.text, self._counter)
        return m


class _ProbeRetriever:
    """One candidate policy over the index as it is (a :class:`~zoomrag.evaluate.Retriever`): the
    hits of each question are searched once and shared by every candidate and budget, and grown
    as :meth:`Index.grow` grows them."""

    def __init__(self, name: str, embedder: str, trees: _ProbeTrees, hits: Mapping[str, Sequence[Hit]],
                 mode: str, count: Callable[[str], int], counter: TokenCounter):
        self.name = name
        self.embedder = embedder
        policy, params = CANDIDATES[name]
        self.policy, self.params = policy, dict(params)
        self.settings = {"policy": policy, "params": self.params, "mode": mode}
        self.trees = trees
        self.hits = hits
        self.count = count
        self.counter = counter

    def build(self, dataset: Dataset) -> BuildStats:
        return BuildStats()

    def retrieve(self, query: EvalQuery, budget: int) -> list:
        hits = self.hits[query.id][:search_k(budget)]
        return expand_hits(hits, self.trees, budget, self.count, expand=self.policy, params=self.params,
                           top=None, query=query.query, counter=self.counter,
                           name=asked_unqualified(query.query))


def search_k(budget: int) -> int:
    """How many hits a query at this budget searches for (as the benchmark does)."""
    return max(50, budget // 16)


#: The probe runs again once the documents written since it ran exceed this share of the index
#: (and always on an index of fewer than 1 / STALE_SHARE documents).
STALE_SHARE = 0.05


def probe_due(index: Index) -> tuple[bool, str]:
    """Whether ``zoomrag index`` should probe again after a write, and why not when it should not:
    the questions are drawn by a hash of each document (:func:`probe_questions`), so a few changed
    documents among thousands change few of them, while the probe costs as much as on a new index
    (27 s at 20,000 documents). It runs when none was recorded, and once the documents written
    since it ran (the index's write generation, one a document) exceed :data:`STALE_SHARE` of the
    documents it saw."""
    choice = index.auto_choice()
    if not choice.recorded or not choice.generation:
        return True, ""
    written = index.store.generation() - choice.generation
    if written > STALE_SHARE * max(choice.documents, 1):
        return True, ""
    return False, (f"auto: the probe of {choice.documents:,} documents is kept ({written:,} written since; "
                   f"it runs again past {STALE_SHARE:.0%}, or with zoomrag recommend --probe)")


def probe_after_write(index: Index, report: AddReport) -> tuple[ProbeReport | None, str]:
    """What ``zoomrag index`` and the framework adapters run after a write: the probe, when the
    write changed documents (or no probe was recorded) and one is due (:func:`probe_due`); else
    None and why the last one was kept ("" when nothing needed one)."""
    changed = report.added or report.updated or report.removed
    if not (changed or not index.auto_choice().recorded) or index.pins is None:
        return None, ""
    due, kept = probe_due(index)
    return (probe_expansion(index) if due else None), kept


def probe_expansion(index: Index, *, mode: str = "hybrid", seed: int = 0, record: bool = True,
                    **options: Any) -> ProbeReport:
    """Choose ``auto``'s policy per kind of document in ``index`` (:func:`probe`) and, with
    ``record``, write the choice into the index (``Index.record_probe``; a pinned policy still
    wins over it). What ``zoomrag index`` runs after adding documents."""
    report = probe(index, mode=mode, seed=seed, **options)
    if record:
        index.record_probe(report.choices, report.note)
    return report


def probe(index: Index, *, mode: str = "hybrid", seed: int = 0, per_kind: int = PER_KIND,
          budgets: Sequence[int] = BUDGETS, candidates: Sequence[str] | None = None) -> ProbeReport:
    """Measure the candidates on probe questions from ``index``'s documents; nothing is written
    (:func:`probe_expansion` records the result)."""
    t0 = time.perf_counter()
    names = list(candidates) if candidates is not None else list(CANDIDATES)
    trees = [index.tree(d.id) for d in index.documents()]
    if not trees:
        return ProbeReport((), 0.0, "the index is empty: nothing to probe")
    documents = Counter(document_kind(t) for t in trees)
    questions = probe_questions(trees, seed=seed, per_kind=per_kind, counter=index.settings.counter)
    docs = tuple(EvalDocument(t.document.id, t.document.text, format=t.document.format, read=True) for t in trees)
    source = _ProbeTrees(trees, index.settings.counter)
    results: dict[str, KindResult] = {}
    jobs: list[Callable[[], KindResult]] = []
    for kind in KINDS:
        if kind not in documents:
            continue
        qs = questions.get(kind, [])
        n_docs = documents[kind]
        if len(qs) < MIN_QUERIES:
            results[kind] = KindResult(kind, n_docs, len(qs), note=(
                f"{len(qs)} probe question(s) from {n_docs} document(s), fewer than {MIN_QUERIES}: "
                "too few to choose, auto uses its default"))
            continue
        dataset = Dataset(f"probe-{kind}", docs, tuple(qs))
        retrievers = _retrievers(index, dataset, source, names, mode, budgets)  # searched here
        jobs.append(partial(_measure, kind, n_docs, dataset, retrievers, budgets, index.settings.counter))
    # the kinds are measured side by side: candidates read only the trees and hits in memory
    for r in run_split(jobs):
        results[r.kind] = r
    ordered = [results[k] for k in KINDS if k in results]
    note = "" if any(r.choice is not None for r in ordered) else \
        "corpus too small for a probe: auto uses its defaults (density)"
    return ProbeReport(tuple(ordered), time.perf_counter() - t0, note)


def _retrievers(index: Index, dataset: Dataset, source: _ProbeTrees, names: Sequence[str], mode: str,
                budgets: Sequence[int]) -> list[_ProbeRetriever]:
    """The candidates, with every question searched (in documents whose tree the probe read)."""
    vectors: list[np.ndarray | None] = [None] * len(dataset.queries)
    if mode in ("dense", "hybrid"):
        vectors = list(index.embed_queries([q.query for q in dataset.queries]))
    k = search_k(max(budgets))
    hits = {q.id: [h for h in index.search(q.query, mode=mode, k=k, vector=v) if h.doc_id in source]
            for q, v in zip(dataset.queries, vectors)}
    settings = index.settings
    return [_ProbeRetriever(n, index.embedder.name, source, hits, mode, settings.count, settings.counter)
            for n in names]


def _measure(kind: str, n_docs: int, dataset: Dataset, retrievers: Sequence[_ProbeRetriever],
             budgets: Sequence[int], counter: TokenCounter) -> KindResult:
    names = [r.name for r in retrievers]
    run = run_eval(dataset, retrievers, budgets, counter=counter, resamples=20)
    recall, iou = _means(run, names, budgets, "evidence_recall"), _means(run, names, budgets, "iou")
    default = DEFAULT if DEFAULT in names else names[0]
    frag = {n: max(run.shape[(n, b)].fragment_rate for b in budgets) for n in names}
    mid = {n: max(max(run.shape[(n, b)].mid_start_rate, run.shape[(n, b)].mid_end_rate) for b in budgets)
           for n in names}
    # a winner keeps the shape limits, or at least the default's shape where the corpus itself
    # breaks them (code blocks and lists end lines that are not sentences)
    shape_out = {n: f"fragments {frag[n]:.1%}, mid-sentence {mid[n]:.1%}" for n in names
                 if frag[n] > max(MAX_FRAGMENTS, frag[default] + 0.005) or mid[n] > max(MAX_MID, mid[default] + 0.01)}
    ok = [n for n in names if n not in shape_out] or list(names)
    ids = [x.id for x in dataset.queries]
    chosen = {band[0]: _choose(run, band, ok, default_for(band[0], names), len(ids), ids)
              for band in bands_of(budgets)}
    first = min(chosen)
    return KindResult(kind, n_docs, len(ids), recall, iou, shape_out, chosen[first],
                      bands={b: c for b, c in chosen.items() if b != first})


def default_for(budget: int, names: Sequence[str]) -> str:
    """The candidate that is ``auto``'s default at ``budget`` (the first candidate if none is)."""
    want = default_choice(budget)
    return next((n for n in names if CANDIDATES[n][0] == want.policy and dict(CANDIDATES[n][1]) == want.params),
                names[0])


def _means(run: Any, names: Iterable[str], budgets: Sequence[int], metric: str) -> dict[str, float]:
    """Each candidate's mean of ``metric`` over ``budgets``."""
    return {n: float(np.mean([run.get(n, b).mean(metric) for b in budgets])) for n in names}


def bands_of(budgets: Sequence[int]) -> list[tuple[int, ...]]:
    """The budgets split into the bands chosen for separately: the lower and the upper half
    (small budgets want the most likely text only, large ones can afford its surroundings)."""
    ordered = sorted(set(budgets))
    if len(ordered) < 2:
        return [tuple(ordered)]
    half = len(ordered) // 2
    return [tuple(ordered[:half]), tuple(ordered[half:])]


def _choose(run: Any, band: Sequence[int], ok: Sequence[str], default: str, q: int, ids: Sequence[str]) -> Choice:
    """The best candidate on ``band`` when it beats the default by the margin and beyond noise."""
    recall, iou = _means(run, {*ok, default}, band, "evidence_recall"), _means(run, ok, band, "iou")
    best = max(ok, key=lambda n: (recall[n], iou[n], n == default))
    where = f"{q} probe questions, {min(band)}-{max(band)} tokens" if len(band) > 1 else \
        f"{q} probe questions, {band[0]} tokens"
    low = _lower_bound(run, best, default, band, ids) if best != default else 0.0
    if best != default and recall[best] - recall[default] >= MARGIN and low > 0:
        why = (f"{_label(best)} (recall {recall[best]:.3f} against {_label(default)}'s {recall[default]:.3f} "
               f"on {where}; gain at least {low:+.3f} at 95 %)")
        chosen = best
    else:
        gain = "" if best == default else \
            (f"; best other {_label(best)} {recall[best] - recall[default]:+.3f}, "
             + (f"under the {MARGIN} margin" if recall[best] - recall[default] < MARGIN else
                f"not beyond noise (95 % bound {low:+.3f})"))
        why = f"{_label(default)} kept (recall {recall[default]:.3f} on {where}{gain})"
        chosen = default
    policy, params = CANDIDATES[chosen]
    return Choice(policy, dict(params), why)


def _lower_bound(run: Any, best: str, default: str, budgets: Sequence[int], ids: Sequence[str]) -> float:
    """The lower end of a 95 % interval of ``best``'s gain in recall over ``default``, per probe
    question averaged over the budgets (normal approximation of the paired differences, at
    :data:`Z` for the best of the candidates)."""
    diff = np.mean([run.get(best, b).aligned("evidence_recall", ids) - run.get(default, b).aligned("evidence_recall", ids)
                    for b in budgets], axis=0)
    if len(diff) < 2:
        return float("-inf")
    return float(diff.mean() - Z * diff.std(ddof=1) / np.sqrt(len(diff)))


def _label(name: str) -> str:
    policy, params = CANDIDATES[name]
    if not params:
        return policy
    return f"{policy} ({', '.join(f'{k}={v}' for k, v in sorted(params.items()))})"

"""The runner over fake retrievers: budgets enforced, results cached, interrupted runs resumed."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from zoomrag.errors import EvalError
from zoomrag.evaluate import BuildStats, ResultCache, Retriever, load_dataset, run_eval
from zoomrag.evaluate.dataset import EvalQuery
from zoomrag.text.tokens import CharCounter

FIXTURES = Path(__file__).parent / "fixtures" / "eval"


@pytest.fixture(scope="module")
def tiny():
    return load_dataset(FIXTURES / "tiny")


@dataclass
class Oracle:
    """Returns each query's evidence, optionally after a distractor; counts what it is asked."""

    name: str = "oracle"
    embedder: str = "fake-1"
    settings: dict = field(default_factory=dict)
    distractor: bool = False
    fail_after: int | None = None
    builds: int = 0
    calls: list[tuple[str, int]] = field(default_factory=list)

    def build(self, dataset):
        self.builds += 1
        return BuildStats(seconds=0.5, units_embedded=7, storage_bytes=1000)

    def retrieve(self, query: EvalQuery, budget: int):
        if self.fail_after is not None and len(self.calls) >= self.fail_after:
            raise KeyboardInterrupt
        self.calls.append((query.id, budget))
        out = [(e.doc_id, e.start, e.end) for e in query.evidence]
        return ([("a", 24, 36)] + out) if self.distractor else out


def test_oracle_scores_perfectly_and_the_distractor_costs_rank_and_precision(tiny):
    run = run_eval(tiny, [Oracle(), Oracle(name="noisy", distractor=True)], [1000], counter=CharCounter())
    perfect = run.get("oracle", 1000)
    assert all(perfect.mean(m) == 1.0
               for m in ("evidence_recall", "precision", "iou", "full_evidence_rate", "mrr"))
    noisy = run.get("noisy", 1000)
    # q1: evidence [0,23) in a; the distractor [24,36) is rank 1 -> rr 1/2, precision 23/35.
    # q2: the distractor is in document a, evidence in b -> rr 1/2, precision 43/55.
    assert noisy.mean("mrr") == pytest.approx(0.5)
    assert noisy.mean("precision") == pytest.approx((23 / 35 + 43 / 55) / 2)
    assert run.configs == ("oracle", "noisy") and run.budgets == (1000,)
    assert run.build["oracle"].units_embedded == 7
    assert run.latency["oracle"].calls == 2
    assert run.dataset["token_counter"] == "chars" and run.dataset["queries"] == 2


def test_is_a_retriever():
    assert isinstance(Oracle(), Retriever)


def test_budget_is_enforced_with_the_shared_counter(tiny):
    @dataclass
    class Greedy(Oracle):
        name: str = "greedy"

        def retrieve(self, query, budget):
            return [("a", 0, 76), ("b", 0, 56)]  # both whole documents, whatever the budget

    run = run_eval(tiny, [Greedy()], [10, 100], counter=CharCounter())
    # 10 chars: "The cat sa" of q1's 23 evidence chars -> recall 10/23; q2's evidence is in b: 0.
    assert run.get("greedy", 10).mean("evidence_recall") == pytest.approx((10 / 23) / 2)
    # 100 chars: all of a (76) + 24 of b ("# Weather\n\nRain  falls i": 13 of q2's 43 evidence chars).
    assert run.get("greedy", 100).mean("evidence_recall") == pytest.approx((1 + 13 / 43) / 2)


def test_second_run_computes_nothing(tmp_path, tiny):
    path = tmp_path / "cache.sqlite"
    first = Oracle(distractor=True)
    with ResultCache(path) as cache:
        a = run_eval(tiny, [first], [512, 1024], cache=cache)
    assert first.builds == 1 and len(first.calls) == 4
    second = Oracle(distractor=True)
    with ResultCache(path) as cache:
        b = run_eval(tiny, [second], [512, 1024], cache=cache)
    assert second.builds == 0 and second.calls == []
    assert [r.estimates for r in a.results] == [r.estimates for r in b.results]
    assert b.build["oracle"] == BuildStats(0.5, 7, 1000)  # build stats come from the cache


def test_interrupted_run_keeps_finished_work(tmp_path, tiny):
    path = tmp_path / "cache.sqlite"
    broken = Oracle(fail_after=3)
    with ResultCache(path) as cache, pytest.raises(KeyboardInterrupt):
        run_eval(tiny, [broken], [512, 1024], cache=cache)
    with ResultCache(path) as cache:
        assert cache.count() == 3
        resumed = Oracle()
        run_eval(tiny, [resumed], [512, 1024], cache=cache)
    assert len(resumed.calls) == 1 and resumed.builds == 1  # only the missing (query, budget)


def test_cache_keys_follow_query_text_embedder_and_corpus(tmp_path, tiny):
    path = tmp_path / "cache.sqlite"
    with ResultCache(path) as cache:
        run_eval(tiny, [Oracle()], [512], cache=cache)
        q1, q2 = tiny.queries
        edited = tiny.with_queries([EvalQuery(q1.id, "Where exactly?", q1.evidence), q2])
        again = Oracle()
        run_eval(edited, [again], [512], cache=cache)
        assert again.calls == [("q1", 512)]
        other = Oracle(embedder="fake-2")
        run_eval(tiny, [other], [512], cache=cache)
        assert len(other.calls) == 2


def test_progress_reports_only_computed_work(tiny):
    seen = []
    run_eval(tiny, [Oracle()], [512, 1024], progress=lambda c, d, t: seen.append((c, d, t)))
    assert seen == [("oracle", 1, 4), ("oracle", 2, 4), ("oracle", 3, 4), ("oracle", 4, 4)]


def test_runner_errors(tiny, tmp_path):
    with pytest.raises(EvalError, match="names repeat"):
        run_eval(tiny, [Oracle(), Oracle()], [512])
    with pytest.raises(EvalError, match=r"budgets \[0\] must be positive"):
        run_eval(tiny, [Oracle()], [0])
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(EvalError, match="cannot use it as an evaluation cache"):
        ResultCache(junk)


DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def test_runner_on_a_slice_of_real_data():
    if not (DATA / "wikitext_md" / "queries.jsonl").exists():
        pytest.skip("shared/data is not present")
    ds = load_dataset(DATA / "wikitext_md").sample(10, seed=2)

    @dataclass
    class Around(Oracle):
        """Each evidence span with 400 characters on either side, best first."""

        name: str = "around"

        def retrieve(self, query, budget):
            n = len(ds.document(query.evidence[0].doc_id).text)
            return [(e.doc_id, max(0, e.start - 400), min(n, e.end + 400)) for e in query.evidence]

    run = run_eval(ds, [Around()], [64, 4096], counter="approx")
    small, large = run.get("around", 64), run.get("around", 4096)
    assert large.mean("evidence_recall") == 1.0 and large.mean("mrr") == 1.0
    assert small.mean("evidence_recall") < large.mean("evidence_recall")
    assert 0 < large.mean("precision") < 1


@dataclass
class TwoSpanDistractor(Oracle):
    """A distractor of two spans (a head and a piece of its body) before the evidence."""

    name: str = "two-span"

    def retrieve(self, query: EvalQuery, budget: int):
        from zoomrag.model import Context

        self.calls.append((query.id, budget))
        head = Context(doc_id="a", source="a", start=24, end=40, text="", score=1.0, spans=((24, 28), (32, 40)))
        return [head] + [(e.doc_id, e.start, e.end) for e in query.evidence]


def test_a_context_of_several_spans_ranks_once_also_from_the_cache(tmp_path, tiny):
    path = tmp_path / "cache.sqlite"
    with ResultCache(path) as cache:
        first = run_eval(tiny, [TwoSpanDistractor()], [1000], cache=cache, counter=CharCounter())
    again = TwoSpanDistractor()
    with ResultCache(path) as cache:
        second = run_eval(tiny, [again], [1000], cache=cache, counter=CharCounter())
    assert again.calls == []
    # the evidence is the second context, not the third span
    assert first.get("two-span", 1000).mean("mrr") == second.get("two-span", 1000).mean("mrr") == pytest.approx(0.5)

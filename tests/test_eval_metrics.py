"""Every metric on tiny hand-made cases; the budget cut; means with bootstrap intervals."""

from __future__ import annotations

import numpy as np
import pytest

from zoomrag.errors import EvalError
from zoomrag.evaluate import TokenBudget, aggregate, score_query
from zoomrag.evaluate.dataset import Evidence
from zoomrag.evaluate.stats import bootstrap, paired_bootstrap
from zoomrag.model import Context
from zoomrag.text.tokens import ApproxCounter, CharCounter


def approx(x: float) -> pytest.approx:
    return pytest.approx(x, abs=1e-12)


def test_overlapping_evidence_counts_each_character_once():
    # E = [0,10) ∪ [5,20) = [0,20), |E| = 20. Returned [10,30): E∩R = [10,20) = 10 chars.
    # recall 10/20; precision 10/20 (20 returned); IoU 10/(20 returned + 10 missed) = 1/3.
    s = score_query("q", [("d", 10, 30)], [("d", 0, 10), ("d", 5, 20)])
    assert (s.evidence_recall, s.precision, s.iou) == (approx(0.5), approx(0.5), approx(1 / 3))
    assert (s.full_evidence, s.reciprocal_rank) == (0.0, 1.0)
    assert (s.evidence_chars, s.returned_chars) == (20, 20)


def test_evidence_split_across_two_contexts_is_fully_returned():
    # E = [100,140). Contexts [80,120) and [120,160) cover 20 + 20 = all 40 evidence chars.
    # recall 1; precision 40/80; IoU 40/(80 + 0) = 0.5; full; first context touches -> rr 1.
    s = score_query("q", [("d", 80, 120), ("d", 120, 160)], [("d", 100, 140)])
    assert (s.evidence_recall, s.precision, s.iou) == (1.0, approx(0.5), approx(0.5))
    assert (s.full_evidence, s.reciprocal_rank) == (1.0, 1.0)


def test_repeated_returned_text_is_paid_twice():
    # E = [0,50). The same context [0,100) twice: 200 chars paid, 50 of evidence.
    # precision 50/200 = 0.25 and IoU 50/(200 + 0) = 0.25 (once only: 0.5 and 0.5); recall stays 1.
    twice = score_query("q", [("d", 0, 100), ("d", 0, 100)], [("d", 0, 50)])
    once = score_query("q", [("d", 0, 100)], [("d", 0, 50)])
    assert (twice.evidence_recall, twice.precision, twice.iou) == (1.0, approx(0.25), approx(0.25))
    assert (once.precision, once.iou) == (approx(0.5), approx(0.5))
    assert twice.returned_chars == 200


def test_empty_result_scores_zero():
    # Nothing returned: no evidence characters, nothing paid; IoU 0/(0 + 50) = 0.
    s = score_query("q", [], [("d", 0, 50)])
    assert (s.evidence_recall, s.precision, s.iou, s.full_evidence, s.reciprocal_rank) == (0, 0, 0, 0, 0)


def test_first_touch_at_rank_three():
    # E = [50,60) in d. Rank 1 [0,50) ends where E starts (touching, no shared char); rank 2 is the
    # same offsets in another document; rank 3 [59,70) shares char 59 -> rr = 1/3.
    # E∩R = 1 char: recall 1/10; paid 50+10+11 = 71: precision 1/71; IoU 1/(71 + 9 missed) = 1/80.
    s = score_query("q", [("d", 0, 50), ("e", 50, 60), ("d", 59, 70)], [("d", 50, 60)])
    assert s.reciprocal_rank == approx(1 / 3)
    assert (s.evidence_recall, s.precision, s.iou) == (approx(0.1), approx(1 / 71), approx(1 / 80))


def test_evidence_in_two_documents():
    # E = 10 chars in a + 10 in b; only a's returned: recall 0.5, not full; precision 10/10.
    s = score_query("q", [("a", 0, 10)], [("a", 0, 10), ("b", 0, 10)])
    assert (s.evidence_recall, s.precision, s.full_evidence) == (approx(0.5), 1.0, 0.0)
    assert s.iou == approx(10 / 20)


def test_contexts_and_evidence_objects_are_accepted():
    ctx = Context(doc_id="d", source="d", start=0, end=10, text="x" * 10, score=1.0)
    s = score_query("q", [ctx], [Evidence("d", 5, 15)])
    assert s.evidence_recall == approx(0.5)


def test_the_reciprocal_rank_counts_contexts_not_their_spans():
    # the first context is a definition's head and a piece of its body (two spans), the second
    # holds the evidence: rank 2, not 3
    head = Context(doc_id="d", source="d", start=0, end=60, text="x" * 60, score=1.0, spans=((0, 10), (40, 60)))
    second = Context(doc_id="d", source="d", start=100, end=120, text="y" * 20, score=0.5)
    taken = TokenBudget({"d": "z" * 200}, CharCounter()).take_ranked([head, second], 1000)
    assert taken == [(("d", 0, 10), 1), (("d", 40, 60), 1), (("d", 100, 120), 2)]
    spans, ranks = [span for span, _ in taken], [k for _, k in taken]
    assert score_query("q", spans, [("d", 105, 110)], ranks=ranks).reciprocal_rank == approx(1 / 2)
    assert score_query("q", spans, [("d", 105, 110)]).reciprocal_rank == approx(1 / 3)  # spans alone


def test_query_without_evidence_cannot_be_scored():
    with pytest.raises(EvalError, match="no evidence characters"):
        score_query("q7", [("d", 0, 5)], [])


# -- budget ------------------------------------------------------------------------------

def test_budget_takes_contexts_in_rank_order_and_cuts_the_last():
    texts = {"d": "abcdefghij" * 10}
    tb = TokenBudget(texts, CharCounter())
    ctx = [("d", 0, 30), ("d", 20, 50), ("d", 60, 100)]
    # 30 chars fit (20 left); the second is 30 > 20 so it is cut to [20, 40); the budget is full.
    # The overlap [20,30) is charged twice: repeated text costs budget.
    assert tb.take(ctx, 50) == [("d", 0, 30), ("d", 20, 40)]
    assert tb.take(ctx, 30) == [("d", 0, 30)]
    assert tb.take(ctx, 1000) == ctx
    assert tb.take([], 10) == []


def test_budget_cuts_at_a_token_boundary_with_a_real_counter():
    # ApproxCounter: alpha|beta|gamma|delta are one token each; 2 tokens from 0 end where "gamma"
    # starts (11), and the trailing space is dropped -> "alpha beta".
    texts = {"d": "alpha beta gamma delta"}
    tb = TokenBudget(texts, ApproxCounter())
    assert tb.tokens(("d", 0, 22)) == 4
    assert tb.take([("d", 0, 22)], 2) == [("d", 0, 10)]


def test_budget_errors_name_the_problem():
    tb = TokenBudget({"d": "abc"}, CharCounter())
    with pytest.raises(EvalError, match="budget 0 is not positive"):
        tb.take([("d", 0, 1)], 0)
    with pytest.raises(EvalError, match="document 'zz'"):
        tb.take([("zz", 0, 1)], 5)
    with pytest.raises(EvalError, match=r"\[0, 9\) lies outside document 'd'"):
        tb.take([("d", 0, 9)], 5)


# -- aggregation -------------------------------------------------------------------------

def test_aggregate_means_and_intervals():
    scores = [score_query(f"q{i}", [("d", 0, 10)] if i % 2 == 0 else [], [("d", 0, 10)]) for i in range(20)]
    ms = aggregate("fixed-128", 512, scores)
    # Half the queries get all their evidence, half nothing: every mean is 0.5, MRR too.
    for m in ("evidence_recall", "precision", "iou", "full_evidence_rate", "mrr"):
        assert ms.mean(m) == approx(0.5)
        assert 0.2 < ms[m].low < 0.5 < ms[m].high < 0.8
    assert ms.query_ids == tuple(f"q{i}" for i in range(20))
    assert list(ms.values("evidence_recall")[:4]) == [1.0, 0.0, 1.0, 0.0]
    again = aggregate("fixed-128", 512, scores)
    assert again.estimates == ms.estimates  # fixed seed: the same intervals every run
    with pytest.raises(EvalError, match="unknown metric 'ndcg'"):
        ms.values("ndcg")


def test_aggregate_of_nothing_is_an_error():
    with pytest.raises(EvalError, match="no queries"):
        aggregate("x", 512, [])


def test_bootstrap_of_constant_values_has_no_width():
    e = bootstrap([0.3] * 7)
    assert (e.mean, e.low, e.high) == (approx(0.3), approx(0.3), approx(0.3))


def test_paired_bootstrap_sees_a_consistent_small_gain():
    rng = np.random.default_rng(1)
    base = rng.uniform(0, 1, 200)
    d = paired_bootstrap(base + 0.02, base)  # identical difference for every query: no noise
    assert d.mean == approx(0.02) and d.low == approx(0.02)
    with pytest.raises(EvalError, match="same queries"):
        paired_bootstrap([1, 2], [1, 2, 3])

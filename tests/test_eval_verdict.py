"""Gate 0/1/2 decisions on constructed result tables."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from zoomrag.errors import EvalError
from zoomrag.evaluate import (
    Dataset,
    EvalDocument,
    aggregate,
    compare,
    fixed_size,
    gate0,
    load_dataset,
    recommend,
    structure_hint,
)
from zoomrag.evaluate.metrics import QueryScores
from zoomrag.evaluate.verdict import difference

N = 120


def ms(config: str, budget: int, recall, precision=None):
    """A MetricSet whose per-query recall (and precision) are exactly the given values."""
    recall = np.clip(np.asarray(recall, dtype=float), 0, 1)
    precision = recall / 4 if precision is None else np.clip(np.asarray(precision, dtype=float), 0, 1)
    scores = [QueryScores(f"q{i}", r, p, r / 5, float(r == 1.0), 1.0) for i, (r, p) in
              enumerate(zip(recall, precision))]
    return aggregate(config, budget, scores)


rng = np.random.default_rng(7)
BASE = rng.uniform(0.3, 0.6, N)  # per-query difficulty shared by every configuration


def level(x: float) -> np.ndarray:
    return BASE + x


def test_fixed_size_names():
    assert fixed_size("fixed-256") == 256
    assert fixed_size("window") is None and fixed_size("fixed-") is None


def test_flat_frontier_pins_the_size_that_wins_everywhere():
    table = [ms(f"fixed-{s}", b, level(v), level(v) / 3)
             for b in (512, 1024, 2048)
             for s, v in ((128, 0.0), (256, 0.25), (512, 0.1))]
    v = gate0(table)
    assert v.flat and v.pinned == "fixed-256"
    assert all(w.recall.best == w.precision.best == "fixed-256" for w in v.budgets)
    assert v.sentence.startswith("One size wins: fixed-256") and "Pin fixed-256 and stop." in v.sentence
    assert v.to_dict()["action"] == "pin"


def test_frontier_not_flat_when_the_best_size_moves_with_the_budget():
    # Small chunks win at 512 tokens, large chunks at 2048: no size to pin.
    table = [ms("fixed-128", 512, level(0.3)), ms("fixed-1024", 512, level(0.0)),
             ms("fixed-128", 2048, level(0.1)), ms("fixed-1024", 2048, level(0.35))]
    v = gate0(table)
    assert not v.flat and v.pinned is None
    assert [w.recall.best for w in v.budgets] == ["fixed-128", "fixed-1024"]
    assert "The frontier is not flat" in v.sentence and "Gate 1" in v.sentence
    assert "at 512 tokens fixed-128 leads both" in v.sentence


def test_frontier_not_flat_when_small_wins_precision_and_large_wins_recall():
    table = [ms("fixed-128", 512, level(0.0), level(0.3)), ms("fixed-2048", 512, level(0.3), level(0.0))]
    v = gate0(table)
    assert not v.flat
    w = v.budgets[0]
    assert (w.precision.best, w.recall.best) == ("fixed-128", "fixed-2048")
    assert "fixed-128 leads precision" in v.sentence and "fixed-2048 recall" in v.sentence


def test_sizes_tied_within_the_noise_count_as_winners():
    # fixed-256 is a hair better on average but the paired interval straddles zero: both tie,
    # so the frontier is flat and the higher-recall one is pinned.
    wobble = np.where(np.arange(N) % 2 == 0, 0.05, -0.045)
    table = [ms("fixed-256", 512, level(0.1) + wobble), ms("fixed-512", 512, level(0.1)),
             ms("fixed-128", 512, level(-0.2))]
    v = gate0(table)
    assert set(v.budgets[0].recall.tied) == {"fixed-256", "fixed-512"}
    assert v.flat and v.pinned == "fixed-256"


def test_gate0_needs_two_sizes_at_every_budget():
    with pytest.raises(EvalError, match="at least two fixed-size configurations"):
        gate0([ms("fixed-128", 512, level(0)), ms("window", 512, level(0))])
    with pytest.raises(EvalError, match="fixed-256 has no result at budget 1024"):
        gate0([ms("fixed-128", 512, level(0)), ms("fixed-128", 1024, level(0)),
               ms("fixed-256", 512, level(0))])


SWEEP = [ms(f"fixed-{s}", b, level(v)) for b in (512, 1024) for s, v in ((128, 0.1), (256, 0.0))]


def test_win_inside_the_noise_is_not_recommended():
    # The policy's mean gain is +0.0025 but per-query differences swing ±0.3: the 95 % interval
    # of the paired difference contains zero, so the single size stays (measure or revert).
    swing = np.where(np.arange(N) % 2 == 0, 0.3, -0.295)
    table = SWEEP + [ms("window", b, level(0.1) + swing) for b in (512, 1024)]
    c = compare(table)
    d = c.for_config("window")
    assert [x.baseline for x in d] == ["fixed-128", "fixed-128"]
    assert all(x.delta.mean > 0 and x.delta.low < 0 < x.delta.high and not x.wins for x in d)
    assert c.winners() == []
    r = recommend(table)
    assert (r.config, r.choice) == ("fixed-128", "fixed")
    # window scores higher, inside the noise: the wording says the queries cannot tell them apart.
    assert r.sentence.startswith("Too few queries to tell fixed-128 from window: it scores higher")
    assert "with 120 queries, differences under ±0.06 in recall cannot be told from noise" in r.sentence
    assert "stop" not in r.sentence
    assert r.resolution is not None and r.resolution.queries_for() == 440


def test_clear_win_is_recommended():
    gain = 0.05 + np.where(np.arange(N) % 2 == 0, 0.01, -0.01)
    table = SWEEP + [ms("window", b, level(0.1) + gain) for b in (512, 1024)] + \
        [ms("merge", b, level(0.1)) for b in (512, 1024)]
    r = recommend(table)
    assert (r.config, r.choice) == ("window", "policy")
    assert r.sentence.startswith("Use window: it beats the best fixed size on recall by more than the 95 %")
    pin = r.to_pin()
    assert pin["config"] == "window" and [g["budget"] for g in pin["gains"]] == [512, 1024]
    assert all(g["delta"] == pytest.approx(0.05) and g["ci"][0] > 0 for g in pin["gains"])
    assert r.comparison.winners() == ["window"]


def test_a_win_at_only_one_budget_is_not_enough():
    table = SWEEP + [ms("window", 512, level(0.2)), ms("window", 1024, level(0.1))]
    assert recommend(table).choice == "fixed"


def test_difference_needs_the_same_queries():
    a = ms("fixed-128", 512, level(0))
    b = aggregate("window", 512, a.scores[:-1])
    with pytest.raises(EvalError, match=r"not scored on the same queries"):
        difference(b, a, "evidence_recall")


def test_compare_and_recommend_without_the_needed_configurations():
    with pytest.raises(EvalError, match="at least one fixed-size configuration"):
        compare([ms("window", 512, level(0))])
    with pytest.raises(EvalError, match="at least one policy"):
        compare(SWEEP)
    only_sizes = recommend(SWEEP)
    assert only_sizes.config == "fixed-128" and "no policy was evaluated" in only_sizes.sentence


def test_structure_hint_by_headings():
    tiny = load_dataset(Path(__file__).parent / "fixtures" / "eval" / "tiny")
    h = structure_hint(tiny)
    # Only doc b (markdown, "# Weather") has a heading: 56 of 76 + 56 characters, under half.
    assert h.headed_share == pytest.approx(56 / 132)
    assert h.suggests == "window"
    prose = Dataset("p", (EvalDocument("x", "Just prose. More prose.", format="text"),), ())
    assert structure_hint(prose).suggests == "window" and "flat prose" in structure_hint(prose).sentence
    md = Dataset("m", (EvalDocument("y", "intro\n\n## Part\n\ntext", format="markdown"),), ())
    assert structure_hint(md).suggests == "merge"


def test_twenty_noisy_queries_do_not_say_stop():
    """Sizes tied only because 20 queries cannot tell them apart: no unqualified "stop"."""
    noise = np.random.default_rng(3)
    base = noise.uniform(0.0, 1.0, 20)
    table = [ms(f"fixed-{s}", b, np.clip(base + v + noise.normal(0, 0.25, 20), 0, 1))
             for b in (512, 1024) for s, v in ((128, 0.0), (256, 0.04), (512, 0.02))]
    v = gate0(table)
    assert v.flat and v.rivals and not v.conclusive
    assert v.sentence.startswith(f"Too few queries to tell {v.pinned} from ")
    assert "with 20 queries, differences under ±" in v.sentence and "stop" not in v.sentence
    assert v.to_dict()["action"] == "too few queries"
    assert v.resolution is not None and v.resolution.half_width > 0.03 and v.resolution.queries_for() > 20


def test_tied_sizes_with_narrow_intervals_still_say_stop():
    table = [ms(f"fixed-{s}", b, level(v), level(v) / 3)
             for b in (512, 1024) for s, v in ((128, 0.0), (256, 0.0), (512, -0.3))]
    v = gate0(table)
    assert v.flat and v.pinned == "fixed-128" and v.rivals == ("fixed-256",) and v.conclusive and "and stop." in v.sentence


def test_recommendation_says_why_the_best_recall_is_not_recommended():
    table = [ms(f"fixed-{s}", b, level(v)) for b in (512, 1024) for s, v in ((128, 0.0), (256, 0.05))]
    noise = np.random.default_rng(5).normal(0, 0.2, N)
    noise -= noise.mean()
    table += [ms("parent", b, level(0.07) + noise) for b in (512, 1024)]
    r = recommend(table)
    assert r.config == "fixed-256"
    assert r.notes and r.notes[0].startswith("At 512 tokens parent has the best recall")
    assert "a policy is recommended only when the whole interval lies above zero" in r.notes[0]

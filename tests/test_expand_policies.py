"""Every expansion policy on small hand-made trees, with the expected spans worked out by hand.

Trees come from nested lists (see test_expand_support): leaves of one parent are joined by a
space, parents by a line break, so every offset below can be counted on the fingers. Sizes are
in characters (the tree source's measure).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_expand_support import Trees, build, hit, leaf, node, spans, texts

from zoomrag.errors import ConfigError
from zoomrag.expand import get_expander, parent_vectors
from zoomrag.expand.auto import (
    PIN_KEY,
    PROBE_KEY,
    AutoChoice,
    Choice,
    pin_value,
    pinned_policy,
    probe_value,
    probed_for,
)
from zoomrag.expand.budget_merge import BudgetMerge
from zoomrag.model import Hit

# -- parameters -------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "params", "message"), [
    ("window", {"n": -1}, r"window: n=-1 is out of range; use at least 0 and at most 1000"),
    ("window", {"within": "page"}, r"window: within='page' is not allowed; choose one of: document, parent"),
    ("merge", {"ratio": 1.5}, r"merge: ratio=1.5 is out of range; use 0.0 to 1.0"),
    ("merge", {"score": "median"}, r"merge: score='median' is not allowed; choose one of: mean, max, sum"),
    ("merge", {"k": 3}, r"expansion 'merge' has no parameter 'k'; its parameters are: pool, ratio, score"),
    ("budget-merge", {"min_children": 0}, r"budget-merge: min_children=0 is out of range; use at least 1"),
    ("density", {"tau": 0}, r"density: tau=0 is out of range"),
    ("density", {"trim": 0.6}, r"density: trim=0.6 is out of range; use 0.0 to 0.5"),
    ("density", {"score_decay": -1}, r"density: score_decay=-1 is out of range; use 0.0 to 100.0"),
    ("parent", {"depth": "up"}, r"parent: depth='up' is not a valid int"),
    ("none", {"n": 1}, r"expansion 'none' has no parameters; remove 'n'"),
    ("auto", {"trim": 0.1}, r"^expansion 'auto' has no parameter 'trim'; its parameters are: flat, structured; "
                            r"'trim' belongs to density: name that policy to set it$"),
    ("auto", {"choice": "x"}, r"^expansion 'auto' has no parameter 'choice'; its parameters are: flat, structured$"),
    ("grow", {}, r"unknown expansion 'grow'; choose one of: auto, budget-merge, density"),
])
def test_bad_parameters_name_the_value_and_the_range(name, params, message):
    with pytest.raises(ConfigError, match=message):
        get_expander(name, params)


def test_cli_strings_are_converted_to_the_declared_types():
    assert get_expander("window", {"n": "1"}).n == 1
    assert get_expander("merge", {"ratio": "0.25", "score": "max"}).ratio == 0.25
    assert get_expander("parent", {"depth": "-2"}).depth == -2


# -- parent -----------------------------------------------------------------------------------

DEEP = build([[["a1", "a2"], ["a3"]], [["b1", "b2"]]])  # paragraph > line > sentence


@pytest.mark.parametrize(("depth", "expected", "rule"), [
    (-1, ["a1 a2"], "parent of 2 hits"),
    (-2, ["a1 a2\na3"], "grandparent of 2 hits"),
    (1, ["a1 a2\na3"], "ancestor at level 1 of 2 hits"),
    (2, ["a1 a2"], "ancestor at level 2 of 2 hits"),
    (0, ["a1 a2\na3\n\nb1 b2"], "ancestor at level 0 of 2 hits"),
    (-9, ["a1 a2\na3\n\nb1 b2"], "ancestor 9 up of 2 hits"),
])
def test_parent_returns_the_ancestor_at_the_asked_depth(depth, expected, rule):
    hits = [hit(DEEP, "a1", 0.9), hit(DEEP, "a2", 0.5)]
    [c] = get_expander("parent", {"depth": depth}).expand(hits, Trees(DEEP), 100)
    assert texts(DEEP, [c]) == expected
    assert (c.rule, c.score, len(c.hits)) == (rule, 0.9, 2)
    assert texts(DEEP, c.fallback) == ["a1", "a2"]


def test_parent_of_a_hit_at_or_above_the_depth_is_the_hit_itself():
    [c] = get_expander("parent", {"depth": 3}).expand([hit(DEEP, "a1", 0.9)], Trees(DEEP), 100)
    assert texts(DEEP, [c]) == ["a1"] and c.rule == "unit"


# -- window -----------------------------------------------------------------------------------

FLAT = build([["s1.", "s2.", "s3."], ["s4.", "s5."]])  # "s1. s2. s3.\ns4. s5."


@pytest.mark.parametrize(("n", "at", "expected"), [
    (1, "s3.", "s2. s3.\ns4."),
    (2, "s3.", "s1. s2. s3.\ns4. s5."),
    (1, "s1.", "s1. s2."),  # clipped at the start of the document
    (2, "s5.", "s3.\ns4. s5."),  # ... and at its end
    (0, "s4.", "s4."),
])
def test_window_takes_n_leaves_on_each_side_across_parents(n, at, expected):
    [c] = get_expander("window", {"n": n}).expand([hit(FLAT, at, 0.7)], Trees(FLAT), 100)
    assert texts(FLAT, [c]) == [expected]
    assert c.rule == f"window of {n}" and c.score == 0.7


def test_window_within_parent_stops_at_the_parent_edge():
    [c] = get_expander("window", {"n": 1, "within": "parent"}).expand([hit(FLAT, "s3.", 0.7)], Trees(FLAT), 100)
    assert texts(FLAT, [c]) == ["s2. s3."]


def test_window_falls_back_to_narrower_windows_then_the_hit():
    [c] = get_expander("window", {"n": 2}).expand([hit(FLAT, "s3.", 0.7)], Trees(FLAT), 100)
    chain = []
    while c.fallback:
        [c] = c.fallback
        chain.append((texts(FLAT, [c])[0], c.rule))
    assert chain == [("s2. s3.\ns4.", "window of 1"), ("s3.", "window of 0")]


def test_window_lists_every_hit_inside_it_producing_hit_first():
    hits = [hit(FLAT, "s2.", 0.9), hit(FLAT, "s3.", 0.8)]
    first, second = get_expander("window", {"n": 1}).expand(hits, Trees(FLAT), 100)
    assert [h.start for h in first.hits] == [4, 8]
    assert [h.start for h in second.hits] == [8, 4]


# -- merge (auto-merging) ---------------------------------------------------------------------

TWO = build([["a1", "a2", "a3", "a4"], ["b1", "b2"]])  # "a1 a2 a3 a4\nb1 b2"


def test_two_of_four_children_do_not_merge_at_half():
    hits = [hit(TWO, "a1", 0.9), hit(TWO, "a2", 0.8)]
    out = get_expander("merge").expand(hits, Trees(TWO), 100)
    assert texts(TWO, out) == ["a1", "a2"] and {c.rule for c in out} == {"unit"}


@pytest.mark.parametrize(("rule", "score"), [("mean", 0.8), ("max", 0.9), ("sum", 2.4)])
def test_three_of_four_children_merge_with_the_chosen_score_rule(rule, score):
    hits = [hit(TWO, "a1", 0.9), hit(TWO, "a2", 0.8), hit(TWO, "a3", 0.7)]
    [c] = get_expander("merge", {"score": rule}).expand(hits, Trees(TWO), 100)
    assert texts(TWO, [c]) == ["a1 a2 a3 a4"] and c.rule == "merged 3/4 children"
    assert c.score == pytest.approx(score)
    assert texts(TWO, c.fallback) == ["a1", "a2", "a3"]


def test_ratio_edges_for_two_children():
    one = get_expander("merge").expand([hit(TWO, "b1", 0.9)], Trees(TWO), 100)
    assert texts(TWO, one) == ["b1"]  # 1/2 is not more than 0.5
    [both] = get_expander("merge").expand([hit(TWO, "b1", 0.9), hit(TWO, "b2", 0.5)], Trees(TWO), 100)
    assert texts(TWO, [both]) == ["b1 b2"]
    quarter = get_expander("merge", {"ratio": 0.25}).expand([hit(TWO, "a1", 0.9), hit(TWO, "a4", 0.1)],
                                                            Trees(TWO), 100)
    assert texts(TWO, quarter) == ["a1 a2 a3 a4"]


def test_merging_repeats_upward():
    tree = build([[["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4"]], [["c1", "c2"]]])
    names = ["a1", "a2", "a3", "b1", "b2", "b3"]
    hits = [hit(tree, t, s) for t, s in zip(names, (0.9, 0.8, 0.7, 0.6, 0.5, 0.4))]
    [c] = get_expander("merge").expand(hits, Trees(tree), 1000)
    assert texts(tree, [c]) == ["a1 a2 a3 a4\nb1 b2 b3 b4"]
    assert c.rule == "merged 3/4 children, then 2/2" and c.score == pytest.approx((0.8 + 0.5) / 2)
    assert texts(tree, c.fallback) == ["a1 a2 a3 a4", "b1 b2 b3 b4"]


def test_merge_only_considers_the_hits_that_would_fill_the_budget():
    hits = [hit(TWO, "a1", 0.9), hit(TWO, "a2", 0.8), hit(TWO, "a3", 0.7)]
    # 2 + 2 characters fill a budget of 4: a3 is not part of the merge, so 2/4 do not merge
    assert texts(TWO, get_expander("merge").expand(hits, Trees(TWO), 4)) == ["a1", "a2", "a3"]
    assert texts(TWO, get_expander("merge").expand(hits, Trees(TWO), 6)) == ["a1 a2 a3 a4"]
    assert texts(TWO, get_expander("merge", {"pool": 0}).expand(hits, Trees(TWO), 4)) == ["a1 a2 a3 a4"]


# -- budget-merge (HiChunk) -------------------------------------------------------------------

@pytest.mark.parametrize(("args", "merges"), [
    ((2, 20, 43, 20, 100), True),    # 20 >= 43/3 * 1.2 = 17.2 and 43 <= 100
    ((1, 20, 43, 20, 100), False),   # only one child taken
    ((2, 20, 43, 20, 43), False),    # 20 < 43/3 * (1 + 20/43) = 21.0; it would fit (43 <= 43)
    ((2, 40, 64, 80, 100), False),   # 40 >= 64/3 * 1.8 = 38.4, but 80 - 40 + 64 = 104 > 100
    ((2, 40, 64, 80, 104), True),    # 40 >= 64/3 * (1 + 80/104) = 37.7 and 104 <= 104
])
def test_budget_merge_conditions_each_failing_alone(args, merges):
    assert BudgetMerge().should_merge(*args) is merges


TEN = build([["a" * 9 + "1", "a" * 9 + "2", "a" * 9 + "3", "a" * 9 + "4"], ["b" * 10]])


def test_budget_merge_replaces_two_children_when_the_budget_has_room():
    hits = [hit(TEN, "a" * 9 + "1", 0.9), hit(TEN, "a" * 9 + "2", 0.8)]
    [c] = BudgetMerge().expand(hits, Trees(TEN), 100)
    assert (c.start, c.end, c.score) == (0, 43, 0.9)
    assert c.rule == "merged 2/4 children at 20/100 tokens"
    assert spans(BudgetMerge().expand(hits, Trees(TEN), 43)) == [(0, 10), (11, 21)]  # the length rule fails


def test_budget_merge_keeps_children_when_the_parent_does_not_fit():
    tree = build([["q" * 20, "x"], ["r" * 20, "y"], ["p" * 20, "P" * 20, "z" * 22]])
    hits = [hit(tree, t, s) for t, s in (("q" * 20, 0.9), ("r" * 20, 0.8), ("p" * 20, 0.7), ("P" * 20, 0.6))]
    out = BudgetMerge().expand(hits, Trees(tree), 100)
    assert texts(tree, out) == ["q" * 20, "r" * 20, "p" * 20, "P" * 20]
    out = BudgetMerge().expand(hits, Trees(tree), 104)
    assert texts(tree, out)[-1] == "p" * 20 + " " + "P" * 20 + " " + "z" * 22
    assert out[-1].rule == "merged 2/3 children at 80/104 tokens"


def test_budget_merge_stops_when_the_budget_is_full():
    tree = build([["q" * 20, "x"], ["r" * 20, "y"], ["p" * 20, "P" * 20]])
    hits = [hit(tree, t, s) for t, s in (("q" * 20, 0.9), ("r" * 20, 0.8), ("p" * 20, 0.7), ("P" * 20, 0.6))]
    out = BudgetMerge().expand(hits, Trees(tree), 40)
    assert [c.rule for c in out] == ["unit"] * 4  # the walk took q and r; p and P follow as units only


# -- multilevel -------------------------------------------------------------------------------

def test_multilevel_drops_nodes_under_a_chosen_one():
    tree = build([["a1", "a2"], ["b1", "b2"]])
    hits = [hit(tree, "a1 a2", 0.9), hit(tree, "a2", 0.8), hit(tree, "b1", 0.7)]
    first, second = get_expander("multilevel").expand(hits, Trees(tree), 100)
    assert texts(tree, [first]) == ["a1 a2"] and [h.score for h in first.hits] == [0.9, 0.8]
    assert first.rule == "level 1 line matched, absorbs 1 hit below it"
    assert texts(tree, first.fallback) == ["a2"]
    assert texts(tree, [second]) == ["b1"] and second.rule == "level 2 sentence matched"


def test_multilevel_never_returns_the_whole_document_by_default():
    tree = build([["a1", "a2"], ["b1", "b2"]])
    root = tree.root
    from zoomrag.model import Hit

    hits = [Hit(root.id, "d", root.start, root.end, 0.95), hit(tree, "b1", 0.7)]
    assert texts(tree, get_expander("multilevel").expand(hits, Trees(tree), 100)) == ["b1"]
    assert len(get_expander("multilevel", {"min_level": 0}).expand(hits, Trees(tree), 100)) == 1


def test_parent_vectors_are_normalised_means_of_the_children():
    tree = build([["a1", "a2"], ["b1", "b2"]])
    vec = {leaf(tree, "a1").id: np.array([1.0, 0.0]), leaf(tree, "a2").id: np.array([0.0, 1.0]),
           leaf(tree, "b1").id: np.array([1.0, 0.0]), leaf(tree, "b2").id: np.array([1.0, 0.0])}
    out = parent_vectors(tree, vec)
    r = math.sqrt(0.5)
    assert set(out) == {node(tree, "a1 a2").id, node(tree, "b1 b2").id}
    np.testing.assert_allclose(out[node(tree, "a1 a2").id], [r, r], rtol=1e-6)
    np.testing.assert_allclose(out[node(tree, "b1 b2").id], [1.0, 0.0])
    root = parent_vectors(tree, vec, min_level=0)[tree.root.id]
    mean = np.array([(r + 1) / 2, r / 2])
    np.testing.assert_allclose(root, mean / np.linalg.norm(mean), rtol=1e-6)


# -- density ----------------------------------------------------------------------------------

ROW = build(["L0" * 5, "L1" * 5, "L2" * 5, "L3" * 5, "L4" * 5, "L5" * 5])  # six 10-char leaves


@pytest.mark.parametrize(("budget", "expected"), [
    (10, "L2"),  # the hit alone
    (25, "L1 L2"),  # neighbours at p = e^-0.5 = 0.61 each; only one fits; the earlier wins the tie
    (30, "L1 L2 L3"),
    (50, "L0 L1 L2 L3 L4"),  # then p = e^-1.5 = 0.22 on each side
])
def test_density_grows_around_a_hit_by_probability(budget, expected):
    # trim = 0 spends the whole budget (the behaviour before trim existed)
    [c, *rest] = get_expander("density", {"reach": 10, "trim": 0}).expand([hit(ROW, "L2" * 5, 0.8)], Trees(ROW),
                                                                         budget)
    assert not rest
    want = " ".join(p * 5 for p in expected.split())
    assert texts(ROW, [c]) == [want] and c.score == 0.8 and len(c.hits) == 1


def test_density_prefers_a_strong_hits_neighbour_to_a_weak_far_hit():
    hits = [hit(ROW, "L0" * 5, 0.9)] + [hit(ROW, "L5" * 5, 0.1)]
    weak = get_expander("density", {"reach": 10, "tau": 0.5, "trim": 0}).expand(hits, Trees(ROW), 20)
    # L5 has rank 1: q = 0.5 / 1.5 = 0.33 < 0.61 for L1; it follows as a unit only
    assert texts(ROW, weak) == ["L0" * 5 + " " + "L1" * 5, "L5" * 5]
    assert weak[1].rule == "unit"


def test_density_proposes_no_neighbour_without_its_hit():
    # H is too large for the room left after S; its small neighbour M fits, but M without H
    # is the text next to a match, not the match: H follows as a unit instead
    tree = build(["S" * 10, "H" * 40, "M" * 10])
    hits = [hit(tree, "S" * 10, 0.9), hit(tree, "H" * 40, 0.5)]
    out = get_expander("density", {"reach": 10, "trim": 0}).expand(hits, Trees(tree), 25)
    assert [(c.start, c.end, c.rule) for c in out] == [(0, 10, "1 leaf at p ≥ 1.00 around 1 hit"), (11, 51, "unit")]


# At 50 the budget holds L2 (p = 1), L1 and L3 (0.6065 each), L0 and L4 (0.2231 each): expected
# evidence 10 + 2 * 6.065 + 2 * 2.231 = 26.59 leaf-tokens. Dropping L4 and L0 (the least probable,
# equal, so together) gives up 4.462 of it, 0.1678: allowed from trim = 0.17 on.
@pytest.mark.parametrize(("trim", "expected"), [
    (0.0, "L0 L1 L2 L3 L4"),
    (0.08, "L0 L1 L2 L3 L4"),  # the default: L4 alone already holds 0.0839 of it
    (0.16, "L0 L1 L2 L3 L4"),  # allowance 4.255: just below 4.462
    (0.17, "L1 L2 L3"),  # allowance 4.521: just above; their 20 tokens stay unspent
    (0.5, "L1 L2 L3"),  # L3 would go too (0.396 in all), but not with its tie L1 (0.624)
])
def test_density_trim_drops_the_least_likely_leaves_within_a_share_of_the_evidence(trim, expected):
    [c, *rest] = get_expander("density", {"reach": 10, "trim": trim}).expand([hit(ROW, "L2" * 5, 0.8)],
                                                                             Trees(ROW), 50)
    assert not rest
    assert texts(ROW, [c]) == [" ".join(p * 5 for p in expected.split())]
    assert c.rule == f"{len(expected.split())} leaves at p ≥ {0.22 if trim < 0.17 else 0.61:.2f} around 1 hit"


# Two hits at tau 0.5: L0 (q = 1) and L5 (q = 1/3, with 0.0111 more from L0's tail: 0.3407). At 20
# the budget holds L0 and L1 (0.6105): 10 + 6.105 leaf-tokens, L1 holding 0.379 of them. With any
# trim the floor is at least L1's 0.6105, so the left-out hit L5 no longer follows as a unit.
@pytest.mark.parametrize(("trim", "expected"), [
    (0.0, ["L0 L1", "L5"]),
    (0.01, ["L0 L1"]),
    (0.37, ["L0 L1"]),  # L1 just kept
    (0.38, ["L0"]),  # L1 just dropped
])
def test_density_trim_also_drops_left_out_hits_below_the_floor(trim, expected):
    hits = [hit(ROW, "L0" * 5, 0.9), hit(ROW, "L5" * 5, 0.1)]
    out = get_expander("density", {"reach": 10, "tau": 0.5, "trim": trim}).expand(hits, Trees(ROW), 20)
    assert texts(ROW, out) == [" ".join(p * 5 for p in e.split()) for e in expected]


@pytest.mark.parametrize(("scores", "expected"), [
    # gaps 0, .1, .2, .4 to the best; their median (.1 + .2) / 2 = .15 is the unit
    ([0.9, 0.8, 0.7, 0.5], [0.0, 2 / 3, 4 / 3, 8 / 3]),
    ([0.9], [0.0]),  # no gap to measure
    ([1.0, 1.0, 1.0, 0.5], [0.0, 0.0, 0.0, 0.0]),  # half the head ties with the best: no lead
    ([0.03, 0.02, 0.01], [0.0, 1.0, 2.0]),  # fused ranks: only the ratios of the gaps count
])
def test_density_score_gaps_are_in_median_gaps(scores, expected):
    hits = [Hit(f"n{i}", "d", 0, 1, s) for i, s in enumerate(scores)]
    assert get_expander("density", {"score_decay": 1}).gaps(hits) == pytest.approx(expected)
    assert get_expander("density", {}).gaps(hits) == [0.0] * len(scores)  # off by default


@pytest.mark.parametrize(("decay", "expected", "rules"), [
    # tau 1000: by rank both hits are near-certain (q = 1 and 0.999), so both leaves are taken
    (0.0, ["L0", "L5"], ["1 leaf at p ≥ 1.00 around 1 hit", "1 leaf at p ≥ 1.00 around 1 hit"]),
    # L5's gap is 2 median gaps: q = 0.999 e^-2 = 0.135, below L1's 0.61; it follows as a unit
    (1.0, ["L0 L1", "L5"], ["2 leaves at p ≥ 0.61 around 1 hit", "unit"]),
])
def test_density_score_decay_trusts_a_clear_lead(decay, expected, rules):
    hits = [hit(ROW, "L0" * 5, 0.9), hit(ROW, "L5" * 5, 0.85)]
    out = get_expander("density", {"reach": 10, "tau": 1000, "trim": 0, "score_decay": decay}).expand(
        hits, Trees(ROW), 20)
    assert texts(ROW, out) == [" ".join(p * 5 for p in e.split()) for e in expected]
    assert [c.rule for c in out] == rules


PARAGRAPHS = st.lists(st.lists(st.text("ab", min_size=1, max_size=6), min_size=1, max_size=4), min_size=1,
                      max_size=5)


@settings(max_examples=80, deadline=None)
@given(PARAGRAPHS, st.lists(st.integers(0, 30), min_size=1, max_size=6), st.integers(1, 80),
       st.floats(0, 0.5), st.floats(0, 0.5), st.sampled_from([0.0, 0.5, 3.0]))
def test_density_spans_are_exact_and_a_higher_trim_returns_less(spec, picks, budget, trim_a, trim_b, decay):
    tree = build(spec)
    text = tree.document.text
    leaves = tree.leaves()
    hits = [Hit(n.id, "d", n.start, n.end, 1.0 - i / 10) for i, n in enumerate(leaves[k % len(leaves)] for k in picks)]
    covered = []
    for trim in sorted((trim_a, trim_b)):
        out = get_expander("density", {"reach": 4, "trim": trim, "score_decay": decay}).expand(hits, Trees(tree), budget)
        for c in out:
            assert 0 <= c.start < c.end <= len(text)
            assert all(c.start <= h.start and h.end <= c.end for h in c.hits)
        runs = [c for c in out if c.rule != "unit"]
        chars = [i for c in runs for i in range(c.start, c.end)]
        assert len(chars) == len(set(chars))  # leaf runs never overlap
        in_runs = [n for n in leaves if any(c.start <= n.start and n.end <= c.end for c in runs)]
        assert sum(n.end - n.start for n in in_runs) <= budget  # the leaves are what the budget pays for
        covered.append({i for c in out for i in range(c.start, c.end)})
    assert covered[1] <= covered[0]


PARAS = build([["a" * 10, "b" * 10, "c" * 10], ["d" * 10, "e" * 10]])


@pytest.mark.parametrize(("cross", "expected"), [(2.0, ["bbb", "ccc", "ddd"]), (4.0, ["aaa", "bbb", "ccc"])])
def test_density_counts_distance_across_a_parent_edge_cross_times(cross, expected):
    # d (outside c's paragraph): e^-(5*cross/10), 0.37 at cross 2, 0.14 at 4; a (inside): e^-1.5 = 0.22
    [c, *_] = get_expander("density", {"reach": 10, "cross": cross}).expand([hit(PARAS, "c" * 10, 1.0)],
                                                                          Trees(PARAS), 30)
    first, last = expected[0][0] * 10, expected[-1][0] * 10
    text = PARAS.document.text
    assert (c.start, c.end) == (text.index(first), text.index(last) + 10)


DEFS = build([["a" * 10, "b" * 10, "c" * 10], ["d" * 10, "e" * 10]], kinds=("function", "code"))


@pytest.mark.parametrize(("tree", "expected"), [(PARAS, ["bbb", "ccc", "ddd"]), (DEFS, ["aaa", "bbb", "ccc"])])
def test_density_rarely_crosses_the_edge_of_a_code_definition(tree, expected):
    # d, past the edge of c's function: 0.37 times 0.25 = 0.09, under a (inside, 0.22); paragraphs as above
    [c, *_] = get_expander("density", {"reach": 10, "cross": 2.0}).expand([hit(tree, "c" * 10, 1.0)], Trees(tree), 30)
    text = tree.document.text
    assert (c.start, c.end) == (text.index(expected[0][0] * 10), text.index(expected[-1][0] * 10) + 10)


# -- auto -------------------------------------------------------------------------------------

SECTIONS = build([["h1", "h2", "h3"]], doc_id="s", kinds=("section", "sentence"))


def test_auto_chooses_by_structure():
    policy = get_expander("auto", {"structured": "merge", "flat": "window"})
    hits = [hit(FLAT, "s3.", 0.5)]
    [flat] = policy.expand(hits, Trees(FLAT), 100)
    assert flat.rule == "auto (flat prose: window): window of 2"
    h = [hit(SECTIONS, "h1", 0.9), hit(SECTIONS, "h2", 0.8)]
    [merged] = policy.expand(h, Trees(SECTIONS), 100)
    assert merged.rule == "auto (headings: merge): merged 2/3 children"


def test_auto_uses_the_pinned_policy():
    meta = pin_value("window", {"n": 1})
    assert json.loads(meta[PIN_KEY]) == {"policy": "window", "params": {"n": 1}}
    assert pinned_policy(meta) == ("window", {"n": 1})
    probed = {"flat": Choice("none", {}, "probed")}
    choice = AutoChoice.from_meta({**meta, **probe_value(probed)})
    [c] = get_expander("auto").with_choice(choice).expand([hit(FLAT, "s3.", 0.5)], Trees(FLAT), 100)
    assert c.rule == "auto (pinned window): window of 1" and texts(FLAT, [c]) == ["s2. s3.\ns4."]


def test_auto_uses_the_probed_policy_for_the_documents_kind_and_the_default_for_the_others():
    choice = AutoChoice.from_meta(probe_value({"flat": Choice("window", {"n": 1}, "probed")}))
    policy = get_expander("auto").with_choice(choice)
    [c] = policy.expand([hit(FLAT, "s3.", 0.5)], Trees(FLAT), 100)
    assert c.rule == "auto (probed for flat: window (n=1)): window of 1"
    [s] = policy.expand([hit(SECTIONS, "h1", 0.9)], Trees(SECTIONS), 100)
    assert s.rule.startswith("auto (headings: density): ")
    # a choice given explicitly is kept when the index offers another
    assert policy.with_choice(AutoChoice()) is policy


def test_structured_and_flat_set_by_the_caller_win_over_the_pin_and_the_probe():
    meta = {**pin_value("window", {"n": 1}), **probe_value({"flat": Choice("none"), "headed": Choice("none")})}
    policy = get_expander("auto", {"flat": "window"}).with_choice(AutoChoice.from_meta(meta))
    [c] = policy.expand([hit(FLAT, "s3.", 0.5)], Trees(FLAT), 100)
    assert c.rule == "auto (flat prose: window): window of 2"
    [s] = policy.expand([hit(SECTIONS, "h1", 0.9)], Trees(SECTIONS), 100)  # not set: the pin
    assert s.rule.startswith("auto (pinned window): ")
    policy = get_expander("auto", {"structured": "none"}).with_choice(AutoChoice.from_meta(probe_value(
        {"headed": Choice("window", {"n": 1})})))
    [s] = policy.expand([hit(SECTIONS, "h1", 0.9)], Trees(SECTIONS), 100)
    assert s.rule == "auto (headings: none): unit"


def test_the_probe_may_choose_per_band_of_budgets():
    probed = {"flat": Choice("window", {"n": 1}), "flat@2048": Choice("density")}
    choice = AutoChoice.from_meta(probe_value(probed))
    assert list(json.loads(probe_value(probed)[PROBE_KEY])["kinds"]) == ["flat", "flat@2048"]
    assert [probed_for(choice.probed, "flat", b).label for b in (None, 512, 2047, 2048, 4096)] == \
        ["window (n=1)", "window (n=1)", "window (n=1)", "density", "density"]
    assert probed_for(choice.probed, "headed", 4096) is None
    policy = get_expander("auto").with_choice(choice)
    [c] = policy.expand([hit(FLAT, "s3.", 0.5)], Trees(FLAT), 100)
    assert c.rule == "auto (probed for flat: window (n=1)): window of 1"
    assert all(c.rule.startswith("auto (probed for flat: density): ")
               for c in policy.expand([hit(FLAT, "s3.", 0.5)], Trees(FLAT), 3000))


def test_a_damaged_probe_record_falls_back_to_the_defaults_and_says_so():
    choice = AutoChoice.from_meta({PROBE_KEY: "{not json"})
    assert choice.probed == {} and "cannot be read" in choice.note
    choice = AutoChoice.from_meta({PROBE_KEY: json.dumps({"kinds": {"flat": {"policy": "nope"}}})})
    assert choice.probed == {} and "zoomrag recommend --probe" in choice.note


def test_pins_are_validated():
    with pytest.raises(ConfigError, match="cannot pin 'auto'"):
        pin_value("auto")
    with pytest.raises(ConfigError, match="window: n=-2 is out of range"):
        pin_value("window", {"n": -2})
    with pytest.raises(ConfigError, match="is not a pinned policy"):
        pinned_policy({PIN_KEY: "window"})
    with pytest.raises(ConfigError, match="auto: flat='auto' is not a policy"):
        get_expander("auto", {"flat": "auto"})


def test_auto_expands_documents_that_get_the_same_policy_together():
    # headed and flat documents both get density by default: one density call over all hits, so
    # the spans are density's own; each rule still names its document's reason
    hits = sorted([hit(FLAT, "s3.", 0.5), hit(SECTIONS, "h1", 0.9), hit(SECTIONS, "h2", 0.4)], key=lambda h: -h.score)
    got = get_expander("auto").expand(hits, Trees(FLAT, SECTIONS), 10)
    want = get_expander("density").expand(hits, Trees(FLAT, SECTIONS), 10)
    # expanded apart, each document would fill the 10 characters on its own: d 4-15, not 8-11
    assert [(c.doc_id, c.start, c.end) for c in got] == [(c.doc_id, c.start, c.end) for c in want] == \
        [("s", 0, 8), ("d", 8, 11)]
    assert {c.doc_id: c.rule.split(":")[0] for c in got} == {"s": "auto (headings", FLAT.document.id: "auto (flat prose"}

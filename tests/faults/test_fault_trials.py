"""Seeded, bounded fault trials (bench/faults.py runs many more): kill -9, page damage, readers
during writes. Each must give no wrong result, no traceback and no lost document."""

from __future__ import annotations

from collections import Counter

import pytest
import trials


@pytest.mark.xdist_group("faults")
def test_kill_9_at_random_points_leaves_a_consistent_resumable_index(tmp_path):
    total: Counter = Counter()
    for seed in range(20):
        total.update(trials.kill_trial(tmp_path, seed))
    assert total["trials"] == 20
    assert (total["wrong"], total["traceback"], total["lost"]) == (0, 0, 0), total
    assert total["finished_first"] < 10, "most kills must land while the writer runs"


def test_random_page_damage_is_found_by_check_or_harmless(tmp_path):
    db, base = trials.build_base(tmp_path)
    total: Counter = Counter()
    for seed in range(120):
        total.update(trials.damage_trial(db, base, tmp_path, seed))
    assert total["trials"] == 120
    assert (total["wrong"], total["traceback"]) == (0, 0), total
    assert total["detected"] > 0


def test_two_readers_during_a_writer_see_one_version_at_a_time(tmp_path):
    r = trials.concurrent_trial(tmp_path, seconds=6)
    assert r["writes"] >= 3 and r["queries"] >= 100, r
    assert (r["wrong"], r["errors"], r["traceback"], r["lost"]) == (0, 0, 0, 0), r

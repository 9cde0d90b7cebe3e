# SPDX-License-Identifier: BSD-3-Clause
"""The paired-comparison statistics every report's headline comes from."""

import statistics

import pytest

from twinplane.bench import paired
from twinplane.bench.paired import Pair


def test_abba_order_alternates():
    assert paired.abba_order(4) == [("A", "B"), ("B", "A"), ("A", "B"), ("B", "A")]


def test_run_pairs_runs_each_side_once_per_pair_in_abba_order():
    calls = []
    vals = {"A": iter([10, 11, 12, 13]), "B": iter([20, 21, 22, 23])}

    def side(s):
        def run():
            calls.append(s)
            return next(vals[s])

        return run

    places = iter(["near", "far", "far", "near"])
    ps = paired.run_pairs(4, side("A"), side("B"), lambda: next(places))
    assert "".join(calls) == "ABBAABBA"
    assert [(p.a, p.b, p.placement) for p in ps] == [
        (10, 20, "near"),
        (11, 21, "far"),
        (12, 22, "far"),
        (13, 23, "near"),
    ]


def test_bootstrap_interval_contains_median_and_is_reproducible():
    vals = [1.0, 1.1, 0.9, 1.05, 0.95, 1.2, 1.02, 0.98, 1.01, 1.03]
    lo, hi = paired.bootstrap_median_ci(vals)
    assert lo <= statistics.median(vals) <= hi
    assert min(vals) <= lo and hi <= max(vals)
    assert (lo, hi) == paired.bootstrap_median_ci(vals)


def test_bootstrap_one_value_and_none():
    assert paired.bootstrap_median_ci([1.5]) == (1.5, 1.5)
    with pytest.raises(ValueError):
        paired.bootstrap_median_ci([])


def test_headline_is_median_of_paired_ratios_not_ratio_of_medians():
    # B/A per pair is 2, 2, 2, 0.5, 0.5: paired median 2; the ratio of the
    # medians of the sides (2 / 2 = 1) is not what the headline says
    ps = [
        Pair(0, ("A", "B"), 1, 2, "near"),
        Pair(1, ("B", "A"), 2, 4, "near"),
        Pair(2, ("A", "B"), 4, 8, "near"),
        Pair(3, ("B", "A"), 8, 4, "far"),
        Pair(4, ("A", "B"), 4, 2, "far"),
    ]
    h = paired.headline(ps, "B / A")
    j = h.to_json()
    assert j["ratio"] == 2
    assert j["pairs"] == 5
    assert j["by_placement"]["near"]["ratio"] == 2
    assert j["by_placement"]["far"]["ratio"] == 0.5
    assert j["by_placement"]["far"]["pairs"] == 2
    assert j["at_ceiling"] is False
    assert j["definition"] == "B / A"
    assert set(j) == {
        "ratio", "ci95", "pairs", "by_placement", "at_ceiling", "ceiling", "definition"
    }  # fmt: skip


def test_invert_divides_a_by_b():
    h = paired.headline([Pair(0, ("A", "B"), 3, 1, "near")], "A / B", invert=True)
    assert h.to_json()["ratio"] == 3


def test_tie_at_the_ceiling_has_no_ratio():
    ps = [Pair(i, ("A", "B"), 14.8, 14.9, "near", at_ceiling=True) for i in range(3)]
    ps += [Pair(3 + i, ("A", "B"), 10, 12, "far") for i in range(3)]
    h = paired.headline(ps, "B / A", ceiling=14.8)
    j = h.to_json()
    assert j["by_placement"]["near"]["ratio"] is None
    assert j["by_placement"]["near"]["at_ceiling"] is True
    assert j["by_placement"]["near"]["pairs"] == 3  # a tie counts its pairs
    assert j["ceiling"] == 14.8
    assert j["by_placement"]["far"]["ratio"] == pytest.approx(1.2)
    assert j["ratio"] == pytest.approx(1.2)  # pooled over the pairs not at the ceiling
    assert j["pairs"] == 6
    assert j["at_ceiling"] is False
    assert "tie at the ceiling (>= 14.8)" in h.text()


def test_every_placement_at_ceiling_is_a_tie_overall():
    ps = [Pair(i, ("A", "B"), 5, 5, "near", at_ceiling=True) for i in range(2)]
    j = paired.headline(ps, "B / A").to_json()
    assert j["at_ceiling"] is True and j["ratio"] is None and j["ci95"] is None

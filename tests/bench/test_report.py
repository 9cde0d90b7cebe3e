# SPDX-License-Identifier: BSD-3-Clause
"""The common report: bars, headline lines, the JSON's top level and the pair floor."""

import argparse
import json

import pytest

from twinplane.bench import paired, report


def test_bar_needs_the_interval_when_asked():
    bar = report.Bar(">=", 1.05, ci_edge=1.0)
    assert bar.met(1.10, [1.01, 1.20]) is True
    assert bar.met(1.10, [0.98, 1.20]) is False  # the interval reaches below 1.0
    assert bar.met(1.04, [1.01, 1.20]) is False
    assert bar.met(1.10, None) is False  # no interval: not shown above 1.0
    assert bar.met(None) is None  # a tie at the ceiling is neither
    assert report.Bar("<=", 500).met(501) is False
    assert report.Bar("<=", 500).met(499.9) is True


def test_bar_in_every_placement():
    bar = report.Bar(">=", 1.2, every_placement=True)
    near = {"ratio": 1.40, "ci95": [1.3, 1.5], "pairs": 4}
    mid = {"ratio": 1.16, "ci95": [1.1, 1.3], "pairs": 6}
    assert bar.met(1.26, None, {"near": near, "mid": mid}) is False  # mid misses it
    assert report.Bar(">=", 1.2).met(1.26, None, {"near": near, "mid": mid}) is True
    assert bar.met(1.26, None, {"near": near, "mid": {**mid, "ratio": 1.21}}) is True
    tie = {"ratio": None, "ci95": None, "pairs": 5, "at_ceiling": True}
    assert bar.met(1.4, None, {"near": near, "mid": tie}) is None  # mid: no ratio
    assert bar.met(1.4, None, {"near": {**near, "ratio": 1.1}, "mid": tie}) is False
    assert bar.met(1.1, None, {"near": near}) is False  # the pooled figure misses it
    assert bar.met(None, None, {"mid": tie}) is None
    assert "in every placement" in bar.text()
    hb = paired.headline(
        [paired.Pair(0, ("A", "B"), 10, 14, "near"), paired.Pair(1, ("B", "A"), 10, 11, "mid")],
        "B / A",
    )
    rep = report.Report("demo", rules={})
    rep.add("x", hb, bar)
    assert rep.bar_results()["x"]["met"] is False


def test_write_keeps_every_trial_and_the_layout(tmp_path):
    pairs = [paired.Pair(i, o, 10.0, 11.0 + i / 10, "near") for i, o in
             enumerate(paired.abba_order(10))]  # fmt: skip
    rep = report.Report("demo", rules={"pairs": 10, "goal": "loss 0"})
    rep.add("b_over_a", paired.headline(pairs, "B / A"), report.Bar(">=", 1.05, ci_edge=1.0))
    rep.add("cycles", {"value": 480.0, "unit": "cycles"}, report.Bar("<=", 500))
    rep.trials = [p.to_json() for p in pairs]
    path = rep.write(tmp_path, None, ["--quick"])
    doc = json.loads(path.read_text())
    assert {"tree", "date", "argv", "rules", "headline", "bars", "trials"} <= set(doc)
    assert len(doc["trials"]) == 10
    h = doc["headline"]["b_over_a"]
    assert h["pairs"] == 10 and h["by_placement"]["near"]["pairs"] == 10
    assert doc["bars"]["b_over_a"]["met"] is True
    assert doc["bars"]["cycles"]["met"] is True
    md = (tmp_path / "demo.md").read_text()
    assert "| pairs | 10 |" in md and "`b_over_a`" in md and "480 cycles" in md


def test_pairs_floor():
    ns = argparse.Namespace(quick=False, pairs=None)
    assert report.pairs_for(ns) == paired.MIN_PAIRS
    ns = argparse.Namespace(quick=True, pairs=None)
    assert report.pairs_for(ns) == paired.MIN_PAIRS_QUICK
    with pytest.raises(SystemExit):
        report.pairs_for(argparse.Namespace(quick=False, pairs=4))

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

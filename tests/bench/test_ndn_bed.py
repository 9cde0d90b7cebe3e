# SPDX-License-Identifier: BSD-3-Clause
"""The NDN report's judgement on recorded trials: loss as the goal sees it, a sweep
point decided from all its trials, every point in one class against capacity."""

from twinplane.bench import ndn_bed as NB
from twinplane.bench import verdict

GOAL = verdict.Goal(loss_ratio=0.0, exceed_ratio=0.5, duration_sum=5.0)


def _t(rate=1e6, offered=1_000_000, satisfied=1_000_000, el=1.0, rtt=300.0):
    return {"rate_pps": rate, "duration_s": 1.0, "elapsed_s": el, "offered": offered,
            "satisfied": satisfied, "lost": offered - satisfied, "xcpu_rtt_ns": rtt}  # fmt: skip


def test_unsatisfied_interests_are_the_loss():
    v = NB.verdict_trial(_t(satisfied=999_990))
    assert (v.offered, v.lost) == (1_000_000, 10)
    assert v.bad(GOAL) and not v.bad(verdict.Goal(loss_ratio=1e-4))
    # more Data than Interests (a late Data of the trial before) is no gain
    assert NB.verdict_trial(_t(satisfied=1_000_002)).lost == 0


def test_a_short_generator_counts_the_rest_as_lost():
    # asked 1 M/s for 1.25 s of sending, offered 1 M: 250k never offered
    v = NB.verdict_trial(_t(el=1.25))
    assert (v.offered, v.lost) == (1_250_000, 250_000)
    # within the slack (1 %): as offered
    assert NB.verdict_trial(_t(el=1.005)).lost == 0


def test_ipv4_trials_count_lost_frames():
    t = {"rate_pps": 1e6, "duration_s": 1.0, "elapsed_s": 1.0, "offered": 100, "lost": 3}
    assert NB.unsatisfied(t) == 3


def test_sweep_point_runs_until_the_goal_decides():
    seq = iter([_t(satisfied=0), _t(), _t(), _t(), _t(), _t()])
    pt = NB.sweep_point(lambda: next(seq), GOAL)
    # one bad second: 1 + missing <= 2.5 needs 3.5 s measured, so 4 trials, PASS
    assert (pt["verdict"], pt["n_trials"]) == ("pass", 4)
    assert pt["unsatisfied"] == 1_000_000 and pt["placement"] == "mid"
    bad = iter([_t(satisfied=1)] * 3)
    pt = NB.sweep_point(lambda: next(bad), GOAL)
    assert (pt["verdict"], pt["n_trials"]) == ("fail", 3)  # 3 bad of 5: > 2.5 at once


def test_placement_of_trials():
    assert NB.trial_placement([_t(rtt=80)] * 4 + [_t(rtt=300)]) == "near"
    assert NB.trial_placement([_t(rtt=80), _t(rtt=300)]) == "mixed"
    assert NB.trial_placement([{"xcpu_rtt_ns": None}]) == "none"


def test_every_point_lands_in_one_class():
    searches = [
        {"comps": 3, "placement": "mid", "capacity_pps": 2.0e6},
        {"comps": 3, "placement": "mid", "capacity_pps": 3.0e6},
        {"comps": 3, "placement": "near", "capacity_pps": 4.0e6},
        {"comps": 3, "placement": None, "capacity_pps": 3.5e6},  # probes agree on none
        {"comps": 7, "placement": "near", "capacity_pps": None},  # found nothing
    ]
    caps = NB.capacities_by_placement(searches)
    assert caps == {(3, "mid"): 2.5e6, (3, "near"): 4.0e6, (3, "mixed"): 3.5e6}
    pts = [
        {"comps": 3, "placement": "mid", "rate_pps": 2.4e6, "verdict": "fail"},
        {"comps": 3, "placement": "mid", "rate_pps": 2.5e6, "verdict": "fail"},
        {"comps": 3, "placement": "near", "rate_pps": 3.0e6, "verdict": "pass"},
        # no search of its own: held to the lowest capacity (mid's 2.5)
        {"comps": 3, "placement": "far", "rate_pps": 2.0e6, "verdict": "fail"},
        {"comps": 3, "placement": "mixed", "rate_pps": 3.0e6, "verdict": "fail"},
        {"comps": 7, "placement": "near", "rate_pps": 0.2e6, "verdict": "pass"},
    ]
    j = NB.judge_sweep(pts, caps)
    assert [p["rate_pps"] for p in j["below"]] == [2.4e6, 3.0e6, 2.0e6]
    assert [p["capacity_from"] for p in j["below"]] == ["own placement", "own placement", "lowest"]
    assert [p["rate_pps"] for p in j["above"]] == [2.5e6, 3.0e6]  # at a capacity: not held
    assert j["above"][1]["capacity_pps"] == 2.5e6  # mixed: the lowest, not its own class
    assert len(j["no_capacity"]) == 1
    assert [p["rate_pps"] for p in j["failing"]] == [2.4e6, 2.0e6]
    assert sum(len(j[k]) for k in ("below", "above", "no_capacity")) == len(pts)


def test_figure_by_placement():
    f = NB.figure([("near", 500.0), ("mid", 700.0), ("mid", 720.0), (None, None)], "c", "d")
    assert f["value"] == 700.0 and f["n"] == 3 and f["missing"] == 1
    assert f["by_placement"]["mid"]["value"] == 710.0
    assert f["by_placement"]["near"] == {"value": 500.0, "ci95": [500.0, 500.0], "n": 1}
    assert NB.figure([], "c", "d")["value"] is None


def test_a_capacity_at_the_generators_ceiling():
    lb = {(3, "near"): 4.0e6}
    assert NB.at_ceiling({"placement": "near", "capacity_pps": 3.9e6}, lb)
    assert not NB.at_ceiling({"placement": "near", "capacity_pps": 3.8e6}, lb)
    assert not NB.at_ceiling({"placement": "mid", "capacity_pps": 3.9e6}, lb)  # none there
    assert NB.at_ceiling({"placement": "mid", "capacity_pps": 6e6, "at_max": True}, lb)

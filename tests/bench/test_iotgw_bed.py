# SPDX-License-Identifier: BSD-3-Clause
"""The IoT gateway bench's judging: its goal-decided search, sweep verdicts,
figures per placement and the previous report's figure (no daemon)."""

from twinplane.bench import iotgw_bed as B
from twinplane.bench.verdict import Goal

GOAL = Goal(loss_ratio=0.001, exceed_ratio=0.5, duration_sum=5.0)


def gateway(capacity: float, wire: float = 1e6, trial_s: float = 1.0):
    """A fake gateway: delivers everything up to ``capacity`` reports/s, then
    ``capacity`` (a collapse to a third of it under overload, as sockgw does);
    the wire takes up to ``wire``. Returns the trial function and its calls."""
    calls = []

    def run(rate: float) -> dict:
        calls.append(rate)
        asked = round(rate * trial_s)
        sent = min(rate, wire) * trial_s
        ok = rate <= capacity
        delivered = sent if ok else (capacity / 3 if rate > 2 * capacity else capacity) * trial_s
        return {
            "duration_s": trial_s,
            "sending_s": trial_s,
            "asked": asked,
            "sent": sent,
            "delivered": delivered,
            "lost": asked - delivered,
        }

    return run, calls


def test_search_finds_the_capacity_within_the_resolution():
    run, calls = gateway(100_000)
    s = B.search(run, GOAL, 1e6, 0.05)
    assert 100_000 / 1.05 <= s["rate_pps"] <= 100_000 < s["upper_pps"] <= 100_000 * 1.05
    assert not s["at_ceiling"] and s["ceiling_pps"] == 1e6
    assert calls[0] == 1e6  # the overload trial first
    # every decided load took enough trial seconds for the goal (>= half the duration sum)
    for ld in s["loads"]:
        if ld["verdict"] == "pass":
            assert len(ld["trials"]) * 1.0 >= GOAL.duration_sum * GOAL.exceed_ratio
    assert all(ld["rate_pps"] <= 100_000 for ld in s["loads"] if ld["verdict"] == "pass")
    assert all(ld["rate_pps"] > 100_000 for ld in s["loads"] if ld["verdict"] == "fail")


def test_search_from_the_last_result_takes_fewer_loads():
    run, _ = gateway(100_000)
    cold = B.search(run, GOAL, 1e6, 0.05)
    run, _ = gateway(100_000)
    warm = B.search(run, GOAL, 1e6, 0.05, start=cold["rate_pps"])
    assert abs(warm["rate_pps"] - cold["rate_pps"]) <= 0.05 * 100_000
    assert len(warm["loads"]) < len(cold["loads"])
    run, _ = gateway(50_000)  # the start is above the capacity: the search goes down
    s = B.search(run, GOAL, 1e6, 0.05, start=cold["rate_pps"])
    assert 50_000 / 1.05 <= s["rate_pps"] <= 50_000


def test_search_at_the_wire_ceiling():
    run, _ = gateway(1e9, wire=230_000)  # the gateway is faster than the wire
    s = B.search(run, GOAL, 1e6, 0.05)
    assert s["ceiling_pps"] == 230_000
    assert 230_000 * 0.95 <= s["rate_pps"] <= 230_000 and s["at_ceiling"]


def test_search_passes_the_top_load_when_nothing_is_lost():
    run, _ = gateway(2e6)
    s = B.search(run, GOAL, 1e6, 0.05)
    assert s["rate_pps"] == 1e6 and s["at_ceiling"]


def test_search_with_nothing_delivered_ends():
    run, _ = gateway(0)
    assert B.search(run, GOAL, 1e6, 0.05)["rate_pps"] == 0


def trial(lost: int, asked: int = 1000, secs: float = 1.0, **kw) -> dict:
    return {"duration_s": secs, "asked": asked, "lost": lost, **kw}


def test_sweep_verdicts_use_every_trial_of_a_point():
    ts = [trial(0, point=1) for _ in range(5)]
    ts += [trial(0, point=2), trial(0, point=2), trial(500, point=2), trial(0, point=2)]
    ts += [trial(2, point=2), trial(0, point=2)]  # 2 of 6 s bad (2 > 1 lost per 1000)
    ts += [trial(100, point=3) for _ in range(3)]
    ts += [trial(0, point=4), trial(100, point=4)]  # 2 s of 5: more seconds needed
    v = B.sweep_verdicts(ts, GOAL, lambda t: t["point"])
    assert v == {1: "pass", 2: "pass", 3: "fail", 4: "undecided"}


def test_value_summary_per_placement():
    vals = [700.0, 720.0, 710.0, 900.0, 950.0]
    places = ["near", "near", "near", "mid", "mid"]
    s = B.value_summary(vals, places, "cycles per report", "x")
    assert s["value"] == 720.0 and s["samples"] == 5 and s["unit"] == "cycles per report"
    assert s["ci95"][0] <= 720.0 <= s["ci95"][1]
    assert s["by_placement"]["near"]["value"] == 710.0
    assert s["by_placement"]["mid"]["value"] == 925.0
    assert s["by_placement"]["mid"]["samples"] == 2
    assert B.value_summary([], [], "u", "d")["value"] is None


def test_previous_figure_in_both_layouts():
    old = {
        "git": "17b6a56-dirty",
        "date": "2026-11-28 04:26 UTC",
        "report_cycles_memif": {"median": 854.7, "min": 761.4, "max": 1035.6, "n": 15},
    }
    p = B.previous_figure(old)
    assert p["value"] == 854.7 and p["range"] == [761.4, 1035.6] and p["samples"] == 15
    assert p["tree"] == "17b6a56-dirty" and p["range_kind"] == "min-max"
    new = {
        "tree": "abc1234",
        "date": "d",
        "headline": {
            "report_cycles_memif": {"value": 600.0, "ci95": [590.0, 610.0], "samples": 10}
        },
    }
    p = B.previous_figure(new)
    assert p["value"] == 600.0 and p["range"] == [590.0, 610.0] and p["tree"] == "abc1234"
    assert B.previous_figure({"tree": "x"}) is None

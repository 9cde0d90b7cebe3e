# SPDX-License-Identifier: BSD-3-Clause
"""The model report's judgement on recorded validation pairs: a pair's placement,
a point's error from its pairs, and the headline over the points."""

import pytest

from twinplane.bench import model_bed as MB


def _t(measured, model, q=4096, comps=3, rate=2.4e6, pl="near"):
    return {"queue": q, "comps": comps, "rate_pps": rate, "measured": measured,
            "model": model, "pair_placement": pl}  # fmt: skip


def test_a_pair_moved_between_calibration_and_trial_is_mixed():
    assert MB.pair_placement("near", "near") == "near"
    assert MB.pair_placement("mid", "near") == "mixed"
    assert MB.pair_placement(None, "near") == "none"


def test_the_achieved_rate_is_at_most_the_asked_one():
    t = {"rate_pps": 3.6e6, "offered": 3_000_000, "elapsed_s": 1.0}
    assert MB.achieved_rate(t) == 3.0e6
    assert MB.achieved_rate({**t, "offered": 4_000_000}) == 3.6e6
    assert MB.achieved_rate({**t, "offered": 0}) == 3.6e6


def test_a_point_error_is_the_median_of_its_paired_differences():
    # differences +2, -10, +4 points: the median +2, not |median model - median measured|
    ts = [_t(0.90, 0.92), _t(0.95, 0.85), _t(0.80, 0.84)]
    (p,) = MB.point_errors(ts)
    assert p["error"] == pytest.approx(2.0)
    assert p["signed_median"] == pytest.approx(2.0)
    assert (p["measured"], p["model"]) == (0.90, 0.85)


def test_points_are_split_by_queue_name_length_rate_and_key():
    ts = [_t(1.0, 1.0), _t(1.0, 0.9, q=256), _t(1.0, 0.97, pl="mid"), _t(1.0, None)]
    assert len(MB.point_errors(ts)) == 2  # the pair without a prediction is no point
    by = {
        (p["queue"], p["pair_placement"]): p["error"] for p in MB.point_errors(ts, "pair_placement")
    }
    assert by == {(4096, "near"): 0.0, (256, "near"): pytest.approx(10.0),
                  (4096, "mid"): pytest.approx(3.0)}  # fmt: skip


def test_the_absolute_interval_starts_at_zero_when_the_sign_is_unsure():
    assert MB.abs_interval([-1.0, -1.0, 3.0, 3.0]) == [0.0, 3.0]
    assert MB.abs_interval([-4.0, -6.0, -5.0]) == [4.0, 6.0]


def test_the_headline_is_the_worst_point_pooled_and_by_placement():
    ts = [_t(1.0, 1.0), _t(0.9, 0.97, rate=3.6e6), _t(0.8, 0.8, rate=3.6e6, pl="mid"),
          _t(0.7, 0.8, rate=3.6e6, pl="mixed")]  # fmt: skip
    h = MB.model_error(ts, 5.0)
    # pooled 3.6 M/s point: differences +7, 0, +10 -> median 7
    assert h["value"] == pytest.approx(7.0)
    assert (h["points"], h["within"], h["trials"]) == (2, 1, 4)
    assert h["worst"]["rate_pps"] == 3.6e6
    by = h["by_placement"]
    assert by["near"]["value"] == pytest.approx(7.0) and by["near"]["points"] == 2
    assert by["mid"]["value"] == 0.0
    assert by["mixed"]["value"] == pytest.approx(10.0)


def test_no_pairs_give_no_figure():
    h = MB.model_error([], 5.0)
    assert h["value"] is None and h["points"] == 0 and h["by_placement"] == {}


def test_the_loss_is_split_at_the_producer():
    # 1,000 offered, the producer saw 900 Interests, 850 Data came back
    t = {"offered": 1000, "satisfied": 850, "producer": {"rx_interests": 900}}
    s = MB.loss_split(t)
    assert s["interests_lost_before_producer"] == pytest.approx(0.10)
    assert s["data_lost_after_producer"] == pytest.approx(0.05)
    assert MB.loss_split({**t, "offered": 0}) == {}

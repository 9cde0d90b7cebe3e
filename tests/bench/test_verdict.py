# SPDX-License-Identifier: BSD-3-Clause
"""MLRsearch's load verdict on recorded trials."""

import argparse

import pytest

from twinplane.bench.verdict import (
    Goal,
    Trial,
    Verdict,
    add_goal_arguments,
    goal_from_args,
    load_verdict,
)

NDR = Goal(loss_ratio=0.0, exceed_ratio=0.5, duration_sum=4.0)


def t(lost, secs=1.0, offered=1_000_000):
    return Trial(secs, offered, lost)


def test_all_good_trials_pass_once_the_duration_sum_is_reached():
    assert load_verdict([t(0)] * 2, NDR) == Verdict.PASS  # 2 s good of 4: bad share <= 0.5
    assert load_verdict([t(0)], NDR) == Verdict.UNDECIDED  # 3 s missing could be bad


def test_bad_seconds_beyond_the_exceed_ratio_fail():
    assert load_verdict([t(1)] * 3, NDR) == Verdict.FAIL
    assert load_verdict([t(1), t(0), t(1), t(0)], NDR) == Verdict.PASS  # exactly half
    assert load_verdict([t(1), t(1), t(1), t(0), t(0)], NDR) == Verdict.FAIL  # 3 of 5 s


def test_loss_ratio_sets_what_a_bad_trial_is():
    pdr = Goal(loss_ratio=0.005, exceed_ratio=0.0, duration_sum=2.0)
    assert load_verdict([t(4_000), t(5_000)], pdr) == Verdict.PASS
    assert load_verdict([t(4_000), t(5_001)], pdr) == Verdict.FAIL


def test_no_exceed_ratio_means_any_bad_second_fails():
    g = Goal(0.0, 0.0, 10.0)
    assert load_verdict([t(0)] * 9 + [t(1)], g) == Verdict.FAIL
    assert load_verdict([t(0)] * 9, g) == Verdict.UNDECIDED


def test_a_trial_that_offered_nothing_is_bad():
    assert load_verdict([t(0, offered=0)] * 3, NDR) == Verdict.FAIL


def test_goal_rejects_nonsense_and_round_trips_the_command_line():
    with pytest.raises(ValueError):
        Goal(loss_ratio=1.0)
    with pytest.raises(ValueError):
        Goal(duration_sum=0)
    ap = argparse.ArgumentParser()
    add_goal_arguments(ap, NDR)
    assert goal_from_args(ap.parse_args([])) == NDR
    g = goal_from_args(ap.parse_args(["--exceed-ratio", "0.1"]))
    assert g.exceed_ratio == 0.1
    assert "exceed ratio 0.1" in g.text()

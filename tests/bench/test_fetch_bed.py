# SPDX-License-Identifier: BSD-3-Clause
"""The downloader bench's pure logic: order, /proc/stat busy time, disk plan and
the paired comparisons from recorded trials (failures and the ceiling)."""

import math

import pytest

from twinplane.bench import fetch_bed as B

GIB = B.GIB


def trial(block, side, ok=True, seconds=2.0, share=0.9, size=GIB, placement="near"):
    tsc = 2.6e9
    return {
        "block": block,
        "side": side,
        "size": size,
        "placement": placement,
        "ok": ok,
        "seconds": seconds,
        "server_busy_share": share,
        "goodput_bps": size * 8 / seconds if ok else 0.0,
        "goodput_process_bps": size * 8 / (seconds + 0.2) if ok else 0.0,
        "core_cycles_per_byte": seconds * tsc / size if ok else None,
        "proc_stat_cycles_per_byte": 0.5 * seconds * tsc / size if ok else None,
        "system_cycles_per_byte": 1.5 * seconds * tsc / size if ok else None,
    }


def test_side_order_is_abba_for_every_two_sides():
    sides = ["twinplane", "curl", "curl_offloads"]
    assert B.side_order(0, sides) == sides
    assert B.side_order(1, sides) == sides[::-1]
    assert B.side_order(2, sides) == sides


def test_busy_seconds_is_wall_less_idle_and_iowait():
    a = {"idle": 100, "iowait": 10}
    b = {"idle": 150, "iowait": 30}  # 0.7 s idle at USER_HZ 100
    assert B.busy_seconds(a, b, 2.0, 100) == pytest.approx(1.3)
    assert B.busy_seconds(a, b, 0.5, 100) == 0.0  # never negative


def test_plan_sizes_keeps_what_fits():
    # every server file plus one download (same file system) plus the margin
    assert B.plan_sizes([GIB, 3 * GIB], 10 * GIB, 10 * GIB, same_fs=True) == [GIB, 3 * GIB]
    assert B.plan_sizes([GIB, 3 * GIB], 6 * GIB, 10 * GIB, same_fs=True) == [GIB]
    assert B.plan_sizes([GIB], 10 * GIB, GIB, same_fs=False) == []


def test_whole_core_ratio_is_the_time_ratio_and_pairs_are_abba():
    trials = []
    for i in range(4):
        tp = trial(i, "twinplane", seconds=1.5)
        cu = trial(i, "curl", seconds=2.0)
        trials += [tp, cu] if i % 2 == 0 else [cu, tp]
    h = B.comparison(trials, "core_cycles_per_byte", "twinplane", "curl", GIB, 0.98)
    assert h["ratio"] == pytest.approx(0.75)
    g = B.comparison(trials, "goodput_bps", "twinplane", "curl", GIB, 0.98)
    assert g["ratio"] == pytest.approx(1 / 0.75)
    assert g["pairs"] == 4 and g["by_placement"]["near"]["pairs"] == 4
    pairs = [B.block_pair([t for t in trials if t["block"] == i], "goodput_bps",
                          "twinplane", "curl", 0.98) for i in range(4)]  # fmt: skip
    assert [p.order for p in pairs] == [("B", "A"), ("A", "B"), ("B", "A"), ("A", "B")]


def test_a_failed_download_counts_as_nothing_delivered():
    trials = [trial(0, "twinplane", ok=False), trial(0, "curl")]
    p = B.block_pair(trials, "goodput_bps", "twinplane", "curl", 0.98)
    assert p.ratio() == 0.0  # twinplane delivered nothing
    p = B.block_pair(trials, "core_cycles_per_byte", "twinplane", "curl", 0.98)
    assert math.isinf(p.ratio())
    trials = [trial(0, "twinplane"), trial(0, "curl", ok=False)]
    assert B.block_pair(trials, "core_cycles_per_byte", "twinplane", "curl", 0.98).ratio() == 0
    both = [trial(0, "twinplane", ok=False), trial(0, "curl", ok=False)]
    p = B.block_pair(both, "goodput_bps", "twinplane", "curl", 0.98)
    assert p.ratio() == 1.0 and p.extra["both_failed"]


def test_failures_are_counted_not_left_out():
    trials = [trial(0, "twinplane"), trial(0, "curl"), trial(1, "curl", ok=False),
              trial(1, "twinplane")]  # fmt: skip
    h = B.comparison(trials, "goodput_bps", "twinplane", "curl", GIB, 0.98)
    assert h["pairs"] == 2
    assert h["failed_downloads"] == {"twinplane": 0, "curl": 1}
    assert B.side_medians(trials, "curl", GIB)["failed"] == 1


def test_ceiling_needs_both_sides_and_a_time_bound_figure():
    both = [trial(0, "twinplane", share=0.99), trial(0, "curl", share=0.985)]
    one = [trial(1, "twinplane", share=0.99), trial(1, "curl", share=0.9)]
    assert B.block_pair(both, "goodput_bps", "twinplane", "curl", 0.98).at_ceiling
    assert not B.block_pair(one, "goodput_bps", "twinplane", "curl", 0.98).at_ceiling
    # the /proc/stat cycles do not follow the transfer time: never a tie
    assert not B.block_pair(both, "proc_stat_cycles_per_byte", "twinplane", "curl",
                            0.98).at_ceiling  # fmt: skip
    h = B.comparison(both, "goodput_bps", "twinplane", "curl", GIB, 0.98)
    assert h["at_ceiling"] and h["ratio"] is None and h["pairs_at_ceiling"] == 1


def test_placements_are_not_mixed():
    trials = []
    for i in range(6):
        where = "near" if i < 3 else "mid"
        slow = 1.0 if where == "near" else 2.0
        trials += [trial(i, "twinplane", seconds=1.0 * slow, placement=where),
                   trial(i, "curl", seconds=1.5 * slow, placement=where)]  # fmt: skip
    trials[-2]["seconds"] = 4.0  # one mid pair where twinplane-fetch was slower
    trials[-2]["goodput_bps"] = GIB * 8 / 4.0
    h = B.comparison(trials, "goodput_bps", "twinplane", "curl", GIB, 0.98)
    assert set(h["by_placement"]) == {"near", "mid"}
    assert h["by_placement"]["near"]["ratio"] == pytest.approx(1.5)
    assert h["by_placement"]["mid"]["pairs"] == 3

# SPDX-License-Identifier: BSD-3-Clause
"""bench/rfc2544_ip4.py's pure rules: side order, ceiling, placement, cost, pairs."""

import pytest

from twinplane.bench import paired
from twinplane.bench import rfc2544_ip4_bed as B


def test_side_order_alternates_every_two_sides():
    sides = ("twinplane", "l3fwd", "kernel")
    orders = [B.side_order(sides, i) for i in range(4)]
    assert orders[0] == ["twinplane", "l3fwd", "kernel"]
    assert orders[1] == ["kernel", "l3fwd", "twinplane"]
    for x, y in (("twinplane", "l3fwd"), ("l3fwd", "kernel"), ("twinplane", "kernel")):
        firsts = [o.index(x) < o.index(y) for o in orders]
        assert firsts == [True, False, True, False]  # ABBA for each two sides


def test_at_ceiling_against_the_generator_and_the_wire():
    # the generator offered at most 28.3 Mpps in the search; the NDR is 27.9: at it
    assert B.at_ceiling(27.9e6, 28.3e6, 40e6, 0.95)
    # the DUT lost frames at 28.3 but carried only 12.5 loss-free: the DUT's limit
    assert not B.at_ceiling(12.5e6, 28.3e6, 40e6, 0.95)
    # veth: the search's upper bound is the wire's maximum, reached
    assert B.at_ceiling(2.0e6, 2.0e6, 2.0e6, 0.95)
    assert not B.at_ceiling(0.0, 0.0, 2.0e6, 0.95)  # nothing offered is no ceiling


def test_pair_placement_needs_both_searches_in_one_class():
    assert B.pair_placement("near", "near") == "near"
    assert B.pair_placement("near", "mid") == "mixed"
    assert B.pair_placement(None, None) == "mixed"  # a search whose probes disagreed


def test_cost_figures_charge_each_definition():
    tsc, hz = 3.0e9, 100
    # 2 s window, 200 ticks: 150 idle, 40 softirq, 10 system; 1e6 packets in 2 s
    ticks = {"user": 0, "nice": 0, "system": 10, "idle": 150, "iowait": 0, "irq": 0,
             "softirq": 40, "steal": 0}  # fmt: skip
    f = B.cost_figures(tsc, hz, 2.0, ticks, 1_000_000, 2.0, 1_000_000)
    assert f["proc_busy"] == pytest.approx(50 * 3.0e7 / 1e6)  # 1500 cycles
    assert f["proc_softirq"] == pytest.approx(40 * 3.0e7 / 1e6)
    assert f["whole_core"] is None  # the kernel does not poll
    assert f["busy_loop"] is None and f["busy_share"] == pytest.approx(0.25)
    # a polling DUT: never idle; its own loop counts 200 cycles a packet
    poll = dict(ticks, idle=0, system=0, user=200, softirq=0)
    g = B.cost_figures(tsc, hz, 2.0, poll, 1_000_000, 2.0, 1_000_000, busy_cycles=2.0e8)
    assert g["whole_core"] == pytest.approx(6000.0)  # 3e9 Hz / 0.5 Mpps
    assert g["proc_busy"] == pytest.approx(g["whole_core"])
    assert g["busy_loop"] == pytest.approx(200.0)
    assert B.cost_figures(tsc, hz, 2.0, ticks, 0, 2.0, 0)["proc_busy"] is None


def run(i, order, **sides):
    return {"index": i, "order": order, **sides}


def test_pairs_keep_order_placement_and_ceiling():
    runs = [
        run(0, ["twinplane", "l3fwd"],
            twinplane={"ndr_pps": 28e6, "placement": "near", "at_ceiling": True},
            l3fwd={"ndr_pps": 27.8e6, "placement": "near", "at_ceiling": True}),
        run(1, ["l3fwd", "twinplane"],
            twinplane={"ndr_pps": 13e6, "placement": "mid", "at_ceiling": False},
            l3fwd={"ndr_pps": 10e6, "placement": "mid", "at_ceiling": False}),
        run(2, ["twinplane", "l3fwd"],
            twinplane={"ndr_pps": 13e6, "placement": "mid", "at_ceiling": True},
            l3fwd={"error": "DutError: died"}),
        run(3, ["l3fwd", "twinplane"],
            twinplane={"ndr_pps": 13e6, "placement": "mid", "at_ceiling": True},
            l3fwd={"ndr_pps": 12e6, "placement": "near", "at_ceiling": False}),
    ]  # fmt: skip
    ps = B.pairs(runs, "l3fwd", "twinplane", lambda r: r.get("ndr_pps"),
                 ceiling=lambda r: r.get("at_ceiling", False))  # fmt: skip
    assert [p.index for p in ps] == [0, 1, 3]  # the pair whose l3fwd died has no ratio
    assert [p.order for p in ps] == [("B", "A"), ("A", "B"), ("A", "B")]
    assert [p.placement for p in ps] == ["near", "mid", "mixed"]
    assert [p.at_ceiling for p in ps] == [True, False, False]
    h = paired.headline(ps, "NDR twinplane / l3fwd")
    assert h.by_placement["near"].at_ceiling  # near: a tie, no ratio
    assert h.by_placement["mid"].ratio == pytest.approx(1.3)
    assert h.pooled.ratio == pytest.approx((1.3 + 13 / 12) / 2)


def test_pairs_with_a_figure_per_side():
    runs = [run(0, ["kernel_veth", "twinplane_veth"],
                kernel_veth={"cycles_per_pkt": {"proc_busy": 3000.0}, "placement": "near"},
                twinplane_veth={"cycles_per_pkt": {"whole_core": 6000.0, "proc_busy": 6100.0},
                                "placement": "near"})]  # fmt: skip
    ps = B.pairs(
        runs,
        "twinplane_veth",
        "kernel_veth",
        lambda r: r["cycles_per_pkt"].get("whole_core"),
        lambda r: r["cycles_per_pkt"].get("proc_busy"),
    )
    assert ps[0].ratio() == pytest.approx(0.5) and ps[0].order == ("B", "A")

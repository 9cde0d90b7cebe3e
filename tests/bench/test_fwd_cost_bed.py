# SPDX-License-Identifier: BSD-3-Clause
"""fwd_cost's pure parts: a window's rates, the busy share, pairs from recorded trials."""

import json
from pathlib import Path

import pytest

from twinplane.bench import fwd_cost_bed as B
from twinplane.bench import paired


def sample(t, rx, tx):
    zero = {"imissed": 0, "ierrors": 0, "oerrors": 0, "rx_nombuf": 0}
    return (t, {0: {"ipackets": rx, "opackets": 0, **zero},
                1: {"ipackets": 0, "opackets": tx, **zero}})  # fmt: skip


def test_window_charges_the_whole_core():
    w = B.window(sample(10.0, 1_000, 900), sample(12.0, 80_001_000, 80_000_900), 2.5e9)
    assert w["mpps"] == pytest.approx(40.0)
    assert w["rx_mpps"] == pytest.approx(40.0)
    assert w["cycles_per_pkt"] == pytest.approx(62.5)  # 2.5 GHz / 40 Mpps
    assert w["delta"]["port1"]["opackets"] == 80_000_000
    assert w["delta"]["port0"]["imissed"] == 0


def test_window_with_nothing_sent_has_no_cost():
    w = B.window(sample(0.0, 0, 0), sample(1.0, 100, 0), 2.5e9)
    assert w["mpps"] == 0 and w["cycles_per_pkt"] is None


def test_busy_share():
    b = B.busy_share({"busy_cycles": 0, "total_cycles": 0, "rx": 0},
                     {"busy_cycles": 90, "total_cycles": 100, "rx": 3})  # fmt: skip
    assert b["share"] == pytest.approx(0.9)
    assert b["busy_cycles_per_rx"] == pytest.approx(30.0)
    idle = B.busy_share({"busy_cycles": 5, "total_cycles": 5, "rx": 7},
                        {"busy_cycles": 5, "total_cycles": 5, "rx": 7})  # fmt: skip
    assert idle["share"] is None and idle["busy_cycles_per_rx"] is None


def trials(rows):
    """rows: (pair, order, placement, l3fwd Mpps, twinplane Mpps, testpmd Mpps); cycles
    at a 2.4 GHz TSC."""
    out = []
    for i, order, where, l3, tp, io in rows:
        for dut, mpps in (("l3fwd", l3), ("twinplane", tp), ("testpmd", io)):
            out.append({"pair": i, "order": order, "placement": where, "dut": dut,
                        "mpps": mpps, "cycles_per_pkt": 2400.0 / mpps})  # fmt: skip
    return out


def test_pairs_keep_order_placement_and_the_floor_of_their_own_pair():
    ts = trials([(0, "AB", "near", 40.0, 44.0, 60.0), (1, "BA", "mid", 30.0, 30.0, 40.0)])
    mpps, over = B.make_pairs(ts)
    assert [p.order for p in mpps] == [("A", "B"), ("B", "A")]
    assert [p.placement for p in mpps] == ["near", "mid"]
    assert mpps[0].ratio() == pytest.approx(1.1)
    assert mpps[1].ratio() == pytest.approx(1.0)
    # cycles above the floor: l3fwd 60 - 40 = 20, twinplane 54.5 - 40 = 14.5 (pair 0)
    assert over[0].a == pytest.approx(20.0) and over[0].b == pytest.approx(2400 / 44 - 40)
    assert over[1].a == pytest.approx(80.0 - 60.0)  # pair 1's own floor, 60 cycles
    assert mpps[0].extra["testpmd_mpps"] == 60.0
    assert not any(p.at_ceiling for p in mpps + over)


def test_a_slow_floor_leaves_every_pair_in_the_headline():
    # testpmd io slower than both routers (the host took the core in its trial): no
    # ceiling, no tie, the pair counts
    ts = trials([(0, "AB", "near", 34.0, 33.7, 29.2), (1, "BA", "near", 35.0, 34.5, 46.0)])
    mpps, over = B.make_pairs(ts)
    assert not any(p.at_ceiling for p in mpps + over)
    h = paired.headline(mpps, "tp / l3fwd")
    assert h.pooled.pairs == 2 and h.by_placement["near"].pairs == 2
    assert h.pooled.ratio == pytest.approx((33.7 / 34.0 + 34.5 / 35.0) / 2)


def test_no_pair_left_out_when_l3fwd_is_below_its_floor():
    # a noisy floor above l3fwd's cost: the pair stays, its overhead ratio negative
    ts = trials([(0, "AB", "near", 40.0, 42.0, 39.0)])
    _, over = B.make_pairs(ts)
    assert len(over) == 1 and over[0].a < 0


def test_medians_by_placement():
    ts = trials([(0, "AB", "near", 40.0, 44.0, 60.0), (1, "BA", "near", 42.0, 46.0, 62.0),
                 (2, "AB", "mid", 30.0, 33.0, 50.0)])  # fmt: skip
    m = B.medians_by_placement(ts)
    assert set(m) == {"near", "mid"}
    assert m["near"]["l3fwd"]["mpps"] == pytest.approx(41.0)
    assert m["near"]["testpmd"]["trials"] == 2
    assert m["mid"]["twinplane"]["cycles_per_pkt"] == pytest.approx(2400 / 33)


def test_same_ports_and_forwarding_lcore_for_every_forwarder(tmp_path):
    p0, p1 = B.port_devargs(tmp_path / "in.pcap", tmp_path / "empty.pcap")
    assert "infinite_rx=1" in p0 and "tx_pcap" not in p1
    l3 = B.l3fwd_argv(tmp_path / "l3fwd", "x", p0, p1)
    io = B.testpmd_argv(tmp_path / "testpmd", "y", p0, p1)
    for argv in (l3, io):
        assert argv[argv.index("--vdev") + 1] == p0
        lcores = argv[argv.index("--lcores") + 1]
        assert f"{B.WORKER_LCORE}@{B.WORKER_CPU}" in lcores.split(",")
    assert f"({B.OUT_PORT},0,{B.WORKER_LCORE})" in l3[l3.index("--config") + 1]
    assert "route add 198.18.1.0/24 via 10.1.1.2" in B.twinplane_config(p0, p1)


def test_twinplane_cflags_from_compile_commands(tmp_path):
    cmd = (
        "cc -Isrc -fdiagnostics-color=always -DNDEBUG -Wall -O3 -march=x86-64-v2 -fPIC "
        "-march=x86-64-v2 -c ../src/core/worker.c -o src/libtwinplane.a.p/core_worker.c.o"
    )
    (tmp_path / "compile_commands.json").write_text(
        json.dumps([{"file": "../src/core/worker.c", "command": cmd}])
    )
    assert B.twinplane_cflags(tmp_path) == "-DNDEBUG -O3 -march=x86-64-v2 -fPIC"
    assert B.twinplane_cflags(tmp_path / "none") is None


def test_cpu_busy_share():
    a = {"user": 10, "nice": 0, "system": 5, "idle": 100, "iowait": 0, "irq": 0, "softirq": 0}
    b = {"user": 40, "nice": 0, "system": 15, "idle": 160, "iowait": 0, "irq": 0, "softirq": 0}
    assert B.cpu_busy_share(a, b) == pytest.approx(0.4)  # 40 of 100 ticks busy
    assert B.cpu_busy_share(a, a) is None


def test_ipv6_bed_routes_l3fwd_s_lpm6_prefix():
    """The IPv6 side: l3fwd in its IPv6 mode, twinplane given l3fwd's built-in LPM6
    route to port 1, and each family's trials kept apart for their pairs."""
    assert B.l3fwd_argv(Path("l3fwd"), "x", "a", "b", ipv6=True)[-1] == "--ipv6"
    assert "--ipv6" not in B.l3fwd_argv(Path("l3fwd"), "x", "a", "b")
    conf = B.twinplane_config6("a", "b")
    assert "route6 add 2001:200:0:1::/64 via 2001:db8:1::2" in conf
    assert f"neigh6 add 2001:db8:1::2 lladdr {B.NEIGH_MAC} dev p1" in conf
    ts = trials([(0, "AB", "near", 40.0, 44.0, 60.0)])
    t6 = [dict(t, family="ip6", mpps=t["mpps"] / 2) for t in ts]
    assert B.of_family(ts + t6, "ip4") == ts
    assert B.of_family(ts + t6, "ip6") == t6
    mpps6, _ = B.make_pairs(B.of_family(ts + t6, "ip6"))
    assert mpps6[0].a == pytest.approx(20.0) and mpps6[0].ratio() == pytest.approx(1.1)

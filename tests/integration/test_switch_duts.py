# SPDX-License-Identifier: BSD-3-Clause
"""The L2 switches of issue 12 (python/twinplane/bench/ovs.py) as testbed DUTs:
a private OVS-DPDK over memif and af_xdp on veth, and the Linux bridge, each
forwarding one short trial without loss, with a cost per packet; and an OVS
vhost-user port that the generator reaches as a virtio_user port."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from twinplane.bench import duts
from twinplane.bench.gen import Gen
from twinplane.bench.ovs import VSWITCHD, OvsDpdk, parse_pmd_stats

RATE = 100e3  # packets/s: far below any of the switches' limits
DURATION = 1.0

PMD_STATS = """\
pmd thread numa_id 0 core_id 0:
  packets received: 100000
  packet recirculations: 0
  avg. datapath passes per packet: 1.00
  emc hits: 99990
  idle cycles: 2500000000 (96.15%)
  processing cycles: 100000000 (3.85%)
  avg cycles per packet: 26000.00 (2600000000/100000)
  avg processing cycles per packet: 1000.00 (100000000/100000)
main thread:
  packets received: 0
"""


def test_pmd_stats_parse() -> None:
    st = parse_pmd_stats(PMD_STATS)
    pmd = st["pmd thread numa_id 0 core_id 0"]
    assert pmd["packets received"] == 100000
    assert pmd["processing cycles"] == 100000000
    assert pmd["idle cycles %"] == pytest.approx(96.15)
    assert pmd["avg processing cycles per packet"] == pytest.approx(1000.0)
    assert st["main thread"] == {"packets received": 0}


def _need_lab() -> duts.Binaries:
    if os.geteuid() != 0:
        pytest.skip("needs root (namespaces, hugepages, DPDK)")
    bins = duts.Binaries()
    for path in (bins.gen, VSWITCHD):
        if not path.exists():
            msg = f"{path} not found"
            if os.environ.get("CI") == "true":
                pytest.fail(msg)
            pytest.skip(msg)
    duts.ensure_hugepages(1024)
    return bins


@pytest.mark.parametrize(
    ("wire", "dut"),
    [
        ("memif", "twinplane-l2"),
        ("veth", "twinplane-l2"),
        ("memif", "ovsdpdk"),
        ("veth", "ovsdpdk"),
        ("veth", "linuxbridge"),
    ],
)
# load-sensitive (zero loss at a rate through a switch DUT): reruns once
@pytest.mark.flaky(reruns=1, reruns_delay=3)
def test_switch_forwards_without_loss(
    workdir: Path, on_generator_cpu: None, wire: str, dut: str
) -> None:
    bins = _need_lab()
    with duts.Testbed(wire, dut, workdir, bins=bins) as tb:
        tb.start([64])
        fn = tb.trial_fn(64, warmup=0.05, drain=0.1)
        a = tb.dut.cost_snapshot()
        r = fn(RATE, DURATION)
        b = tb.dut.cost_snapshot()
        cost = tb.dut.cost(a, b)
        assert cost is not None
        print(f"{wire}/{dut}: {r.summary()}; cost {cost}")
        assert r.offered >= 0.9 * RATE * DURATION, r.summary()
        assert r.lost == 0, r.summary()
        # the DUT saw the trial (warm-up included) and nothing much besides
        assert 0.95 * r.offered <= cost["forwarded"] <= 1.2 * (r.offered + RATE), cost
        cpp = cost["cycles_per_pkt"]
        assert cpp is not None and 10 < cpp < 1e6, cost


# load-sensitive (zero loss at a rate through a switch DUT): reruns once
@pytest.mark.flaky(reruns=1, reruns_delay=3)
def test_vhost_user_ports_carry_frames(workdir: Path, on_generator_cpu: None) -> None:
    """OVS's dpdkvhostuserclient ports against the generator's virtio_user ports (the
    vhost-user servers): frames cross virtio_user -> OVS -> virtio_user, steered by
    ``flows_chain``."""
    bins = _need_lab()
    # virtio_user shares the generator's memory with OVS in at most 8 regions:
    # one file per memseg list (--single-file-segments, which --huge-unlink, the
    # generator's default, allows only with --in-memory), not one per hugepage
    gen = Gen(
        f"tpovs{os.getpid()}g", workdir, binary=bins.gen, eal="--in-memory --single-file-segments"
    )
    ovs = OvsDpdk(workdir / "ovs", name=f"tpovs{os.getpid()}")
    try:
        ovs.start()
        ovs.add_bridge("br0")
        # OVS first: it retries its vhost-user connections every second, whereas the
        # generator's virtio_user server waits in 'port add' for a client to connect
        socks = []
        for i in (0, 1):
            port, sock = ovs.add_vhost_port("br0", f"vh{i}", "client", ofport=i + 1)
            assert port == i + 1 and sock == ovs.dir / f"vh{i}.sock"
            socks.append(sock)
        gen.start()
        for i in (0, 1):
            gen.port_add(
                f"g{i}",
                f"net_virtio_user{i},path={socks[i]},queues=1,queue_size=1024,server=1,"
                f"mac={duts.GEN_MAC[i]}",
            )
        assert ovs.flows_chain("br0", ["vh0", "vh1"]) == [
            "priority=10,in_port=1,actions=output:2",
            "priority=10,in_port=2,actions=output:1",
        ]
        gen.stream_add(
            "s64",
            "g0",
            64,
            dmac=duts.GEN_MAC[1],
            smac=duts.GEN_MAC[0],
            src=duts.GEN_IP[0],
            dst=duts.DST_RANGE,
            sport=1024,
            dport=1025,
        )
        gen.wait_forwarding("s64", timeout=30)
        a = ovs.pmd_totals()
        r = gen.trial("s64", RATE, DURATION, warmup=0.05, drain=0.1)
        b = ovs.pmd_totals()
        d = {k: b[k] - a[k] for k in a}
        cpp = d["processing cycles"] / d["packets received"]
        print(
            f"virtio_user -> OVS vhost-user -> virtio_user: {r.summary()}; pmd {d}, {cpp:.0f}/pkt"
        )
        assert r.lost == 0, r.summary()
        assert d["packets received"] >= r.offered
    finally:
        gen.stop()
        ovs.stop()

# SPDX-License-Identifier: BSD-3-Clause
"""A flood of punted traffic does not starve the control plane: 100 kpps of TTL=1 packets
on one port (each would go to the kernel for a Time Exceeded) while OSPF keeps its
adjacency on that same port and ARP still resolves on the other one. Punts are bounded
by token buckets per port and class; ARP and routing protocols have their own."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import pytest

from twinplane.bench.gen import Gen
from twinplane.lab import RouterLab
from twinplane.lab.frr import Frr, OspfInterface, frr_available, ospf_config

pytestmark = [
    pytest.mark.frr,
    pytest.mark.skipif(
        not frr_available() and os.environ.get("CI") != "true",
        reason="FRR zebra/ospfd not installed in /usr/lib/frr",
    ),
]

RATE = 100_000
SECONDS = 8.0


def ospf_full(frr: Frr) -> bool:
    return "Full" in frr.vtysh("show ip ospf neighbor")


def arp_and_ping(lab: RouterLab) -> bool:
    """h1 forgets the router's MAC and pings it: ARP through the exception path on p0."""
    lab.run("h1", ["ip", "neigh", "flush", "dev", "eth0"])
    out = lab.netns("h1").run(["ping", "-n", "-c", "1", "-W", "1", "10.0.1.1"], check=False)
    return out.returncode == 0


def test_ttl1_flood_does_not_starve_ospf_or_arp(router_lab: RouterLab) -> None:
    lab = router_lab
    r, h2 = lab.router, lab.ns["h2"]
    frr_r = Frr(lab, r, {"ospfd": ospf_config("r", "10.0.2.1", ["10.0.2.0/24"],
                                              [OspfInterface("tp-p1")])})  # fmt: skip
    frr_h2 = Frr(lab, h2, {"ospfd": ospf_config("h2", "10.0.2.2", ["10.0.2.0/24"],
                                                [OspfInterface("eth0")])})  # fmt: skip
    frr_r.start()
    frr_h2.start()
    lab.wait_until(lambda: ospf_full(frr_r) and ospf_full(frr_h2), 30.0, 0.2, "OSPF Full")

    # the flood: from h2 to h1 through the router with TTL 1, from the generator on
    # h2's own interface (the kernel and ospfd keep using it)
    gen = Gen(f"{lab.tag}-g", lab.workdir, lcores="0@0,1@0", netns=h2.name)
    lab.defer("stop generator", gen.stop)
    gen.start()
    gen.port_add("g0", "net_af_packet0,iface=eth0,qpairs=1,qdisc_bypass=1")
    gen.stream_add("ttl1", "g0", 64, dmac=lab.port("p1")["mac"], smac=h2.mac("eth0"),
                   src="10.0.2.2", dst="10.0.1.2", sport="1024-2047", ttl=1)  # fmt: skip
    c0 = lab.counters()
    result: dict[str, Any] = {}

    def flood() -> None:
        result.update(gen.trial_raw("ttl1", RATE, duration=SECONDS))

    t = threading.Thread(target=flood)
    t.start()
    time.sleep(1.0)  # the flood is on
    lost_ospf, lost_arp, checks = [], [], 0
    while t.is_alive():
        checks += 1
        if not (ospf_full(frr_r) and ospf_full(frr_h2)):
            lost_ospf.append(time.monotonic())
        if not arp_and_ping(lab):
            lost_arp.append(time.monotonic())
        time.sleep(0.3)
    t.join()
    c1 = lab.counters()

    sent = sum(s["tx"] for s in result["streams"])
    rx_p1 = c1["ports"]["p1"]["rx"] - c0["ports"]["p1"]["rx"]
    limited = c1["drops"]["core.exception_ratelimited"] - c0["drops"]["core.exception_ratelimited"]
    expired = (
        c1["exception"]["reasons"]["ip4.ttl_expired"]
        - c0["exception"]["reasons"]["ip4.ttl_expired"]
    )
    # a real flood of 100 kpps reached the router, and most of it was shed at the bucket
    assert sent >= 0.9 * RATE * SECONDS, f"the generator sent only {sent}"
    assert rx_p1 >= 0.8 * RATE * SECONDS, f"p1 received only {rx_p1} of {sent}"
    assert limited >= rx_p1 / 2, (limited, rx_p1)
    # TTL expiry is the error class (1 kpps per port), well within the old 20 kpps bound
    assert expired <= 1.5 * 20_000 * SECONDS, expired
    print(f"flood: sent {sent}, p1 rx {rx_p1}, ratelimited {limited}, ttl_expired {expired}")
    assert checks >= 5
    assert not lost_ospf, f"OSPF left Full {len(lost_ospf)} of {checks} times during the flood"
    assert not lost_arp, f"ARP/ping on p0 failed {len(lost_arp)} of {checks} times"
    # and OSPF never went down: its uptime covers the flood
    out = frr_r.vtysh("show ip ospf neighbor")
    assert "Full" in out, out

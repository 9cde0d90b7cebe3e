# SPDX-License-Identifier: BSD-3-Clause
"""FRR on the control plane: OSPF routes learned through the kernel are forwarded by the data
plane."""

from __future__ import annotations

import os

import pytest

from twinplane.lab import RouterLab
from twinplane.lab.frr import Frr, OspfInterface, frr_available, ospf_config
from twinplane.lab.traffic import UdpReceiver, udp_send

pytestmark = [
    pytest.mark.frr,
    # in CI, scripts/setup.sh installs FRR: a missing FRR there is a failure, not a skip
    pytest.mark.skipif(
        not frr_available() and os.environ.get("CI") != "true",
        reason="FRR zebra/ospfd not installed in /usr/lib/frr",
    ),
]

STUB = "10.77.0.0/24"
STUB_ADDR = "10.77.0.1"
CONVERGE_S = 30.0


def test_ospf_route_learned_and_forwarded(router_lab: RouterLab) -> None:
    lab = router_lab
    r, h2 = lab.router, lab.ns["h2"]
    # h2's stub network: a veth pair kept inside h2 (this kernel has no dummy driver).
    h2.run("ip link add s0 type veth peer name s1")
    h2.run("ip link set s1 up")
    h2.run("ip link set s0 up")
    h2.run(["ip", "addr", "add", f"{STUB_ADDR}/24", "dev", "s0"])

    frr_r = Frr(
        lab,
        r,
        {"ospfd": ospf_config("r", "10.0.2.1", ["10.0.2.0/24"], [OspfInterface("tp-p1")])},
    )
    frr_h2 = Frr(
        lab,
        h2,
        {
            "ospfd": ospf_config(
                "h2",
                "10.0.2.2",
                ["10.0.2.0/24", STUB],
                [OspfInterface("eth0"), OspfInterface("s0", passive=True)],
            )
        },
    )
    frr_r.start()
    frr_h2.start()

    try:
        lab.wait_until(
            lambda: lab.route(STUB) is not None,
            CONVERGE_S,
            0.2,
            f"{STUB} in show routes",
        )
    except TimeoutError:
        pytest.fail(
            f"{STUB} not in twinplane's show routes after {CONVERGE_S:g}s\nrouter kernel "
            f"routes:\n{lab.run('r', 'ip -4 route show')}\nshow routes: {lab.routes()}\nOSPF "
            f"neighbours (router):\n{frr_r.vtysh('show ip ospf neighbor')}\nOSPF neighbours "
            f"(h2):\n{frr_h2.vtysh('show ip ospf neighbor')}\n{frr_r.logs('ospfd')}"
        )
    route = lab.route(STUB)
    assert route is not None
    assert route.get("via") == "10.0.2.2" and route.get("port") == "p1", route

    n = 100
    c0 = lab.counters()
    with UdpReceiver(h2, 7003) as rx:
        udp_send(
            lab.ns["h1"],
            STUB_ADDR,
            7003,
            lambda i: b"ospf %04d" % i,
            count=n,
            interval=0.002,
        )
        got = len(rx.wait(n, timeout=10.0))
    c1 = lab.counters()
    assert got == n, f"{got}/{n} datagrams to {STUB_ADDR} arrived"
    tx = c1["ports"]["p1"]["tx"] - c0["ports"]["p1"]["tx"]
    to_kernel = c1["exception"]["to_kernel"] - c0["exception"]["to_kernel"]
    assert tx >= n, f"p1 tx grew by {tx} for {n} datagrams"
    # OSPF hellos (1/s each way) go to the kernel; the datagrams must not.
    assert to_kernel < n // 4, f"{to_kernel} packets went to the kernel"

# SPDX-License-Identifier: BSD-3-Clause
"""FRR over IPv6 on the control plane (issue 35): an OSPFv3 adjacency and an eBGP
session carrying IPv6 unicast between the router's kernel (behind its TAP) and h2. The
routes FRR installs in the router's kernel reach twinplane's `show routes6` through
netlink and are forwarded by the lcores: ping6 from h1 to h2's stub networks."""

from __future__ import annotations

import os

import pytest

from twinplane.lab import RouterLab
from twinplane.lab.frr import Frr, OspfInterface, bgp6_config, frr_available, ospf6_config

pytestmark = [
    pytest.mark.frr,
    # in CI, scripts/setup.sh installs FRR: a missing FRR there is a failure, not a skip
    pytest.mark.skipif(
        not frr_available(("zebra", "ospf6d", "bgpd")) and os.environ.get("CI") != "true",
        reason="FRR zebra/ospf6d/bgpd not installed in /usr/lib/frr",
    ),
]

CONVERGE_S = 30.0
PINGS = 50


def _stub(lab: RouterLab, addr: str) -> None:
    """h2's stub network: a veth pair kept inside h2 (this kernel has no dummy
    driver), IPv6 on, addr/64 on s0 without DAD."""
    h2 = lab.ns["h2"]
    h2.run("ip link add s0 type veth peer name s1")
    h2.sysctl({"net.ipv6.conf.s0.disable_ipv6": "0", "net.ipv6.conf.s0.accept_dad": "0"})
    h2.run("ip link set s1 up")
    h2.run("ip link set s0 up")
    h2.run(["ip", "-6", "addr", "add", f"{addr}/64", "dev", "s0", "nodad"])


def _forwarded(lab: RouterLab, dst: str) -> None:
    """PINGS echo requests from h1 to dst all answered, the requests sent by the
    lcores out of p1 (its tx counter), next to none of them punted."""
    c0 = lab.counters()
    res = lab.ns["h1"].run(
        ["ping", "-6", "-n", "-c", str(PINGS), "-i", "0.02", "-W", "6", dst], check=False
    )
    c1 = lab.counters()
    assert f" {PINGS} received" in res.stdout, res.stdout + res.stderr
    tx = c1["ports"]["p1"]["tx"] - c0["ports"]["p1"]["tx"]
    to_kernel = c1["exception"]["to_kernel"] - c0["exception"]["to_kernel"]
    assert tx >= PINGS, f"p1 tx grew by {tx} for {PINGS} echo requests"
    # hellos, keepalives and ND go to the kernel (a few per second); the echoes must not
    assert to_kernel < PINGS // 4, f"{to_kernel} packets went to the kernel"


def _converged(lab: RouterLab, prefix: str, frr: list[Frr], what: str) -> dict:
    try:
        lab.wait_until(
            lambda: (r := lab.route6(prefix)) is not None and r["state"] == "installed",
            CONVERGE_S,
            0.2,
            f"{prefix} in show routes6",
        )
    except TimeoutError:
        pytest.fail(
            f"{prefix} not installed in twinplane's show routes6 after {CONVERGE_S:g}s\n"
            f"router kernel routes:\n{lab.run('r', 'ip -6 route show')}\n"
            f"show routes6: {lab.routes6()}\n"
            + "\n".join(f.vtysh(what) for f in frr)
            + "\n"
            + "\n".join(f.logs() for f in frr)
        )
    route = lab.route6(prefix)
    assert route is not None
    print(f"show routes6: {route}")  # the evidence, with -s
    return route


def test_ospf6_route_learned_and_forwarded(router_lab: RouterLab) -> None:
    lab = router_lab
    lab.enable_ipv6()
    stub = "2001:db8:77::/64"
    _stub(lab, "2001:db8:77::1")
    frr_r = Frr(
        lab, lab.router, {"ospf6d": ospf6_config("r", "10.0.2.1", [OspfInterface("tp-p1")])}
    )
    frr_h2 = Frr(
        lab,
        lab.ns["h2"],
        {
            "ospf6d": ospf6_config(
                "h2", "10.0.2.2", [OspfInterface("eth0"), OspfInterface("s0", passive=True)]
            )
        },
    )
    frr_r.start()
    frr_h2.start()
    route = _converged(lab, stub, [frr_r, frr_h2], "show ipv6 ospf6 neighbor")
    # OSPFv3 routes through the neighbour's link-local address (RFC 5340 4.8.1)
    assert route["type"] == "gateway" and route["via"].startswith("fe80:"), route
    assert route["port"] == "p1", route
    assert "Full" in frr_r.vtysh("show ipv6 ospf6 neighbor")
    _forwarded(lab, "2001:db8:77::1")


def test_bgp_ipv6_unicast_route_learned_and_forwarded(router_lab: RouterLab) -> None:
    lab = router_lab
    lab.enable_ipv6()
    stub = "2001:db8:78::/64"
    _stub(lab, "2001:db8:78::1")
    frr_r = Frr(
        lab,
        lab.router,
        {"bgpd": bgp6_config("r", 65001, "10.0.2.1", "2001:db8:2::2", 65002)},
    )
    frr_h2 = Frr(
        lab,
        lab.ns["h2"],
        {"bgpd": bgp6_config("h2", 65002, "10.0.2.2", "2001:db8:2::1", 65001, [stub])},
    )
    frr_r.start()
    frr_h2.start()
    route = _converged(lab, stub, [frr_r, frr_h2], "show bgp ipv6 unicast summary")
    assert route["type"] == "gateway" and route["port"] == "p1", route
    # eBGP over one link: the global next hop or the peer's link-local one (RFC 2545 3)
    assert route["via"] == "2001:db8:2::2" or route["via"].startswith("fe80:"), route
    assert "bgp" in lab.run("r", f"ip -6 route show {stub}")
    _forwarded(lab, "2001:db8:78::1")

# SPDX-License-Identifier: BSD-3-Clause
"""The exception path with frames bigger than one mbuf: jumbo frames that a PMD chains
(net_pcap on a live interface) go to the kernel whole and its answers come back whole;
frames longer than the port's MTU allows are dropped and counted in both directions."""

from __future__ import annotations

import re

from twinplane.lab import RouterLab
from twinplane.lab.netns import veth

R2 = "10.0.3.1"
H3 = "10.0.3.2"


def add_jumbo_link(lab: RouterLab, port_mtu: int) -> None:
    """h3 (10.0.3.2) on a 9000-byte veth to port p2 (net_pcap on the live interface: it
    chains what does not fit one mbuf), the port's MTU port_mtu."""
    h3 = lab.add_ns("h3")
    veth(lab.router, "r-p2", h3, "eth0", mtu=9000)
    lab.run("h3", ["ip", "addr", "add", f"{H3}/24", "dev", "eth0"])
    lab.run("h3", ["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"])
    lab.ctl("port", "add", "p2", "net_pcap2,iface=r-p2", "mtu", str(port_mtu))
    lab.ctl("address", "add", f"{R2}/24", "dev", "p2")


def ping(lab: RouterLab, size: int, count: int = 3) -> str:
    return lab.run(
        "h3", ["ping", "-n", "-c", str(count), "-i", "0.2", "-W", "2", "-M", "do", "-s",
               str(size), R2], check=False,
    )  # fmt: skip


def received(out: str) -> int:
    m = re.search(r"(\d+) received", out)
    return int(m.group(1)) if m else 0


def test_jumbo_frames_through_the_exception_path(router_lab: RouterLab) -> None:
    lab = router_lab
    add_jumbo_link(lab, 9000)
    port = next(p for p in lab.ctl("show", "ports")["ports"] if p["name"] == "p2")
    assert port["mtu"] == 9000
    c0 = lab.counters()["exception"]
    # an 8028-byte echo request (an 8042-byte frame, five mbufs) to the router itself: the
    # kernel behind tp-p2 gets it whole and answers with as much (ping checks the bytes)
    out = ping(lab, 8000)
    assert received(out) == 3, out
    # answered once, whole: by the kernel behind tp-p2 (the one on r-p2 is kept inert)
    assert "wrong data" not in out and "truncated" not in out and "DUP" not in out, out
    c1 = lab.counters()["exception"]
    assert c1["to_kernel"] - c0["to_kernel"] >= 3
    assert c1["from_kernel"] - c0["from_kernel"] >= 3
    assert c1["oversize_to_kernel"] == c0["oversize_to_kernel"]
    assert c1["oversize_from_kernel"] == c0["oversize_from_kernel"]
    assert c1["tap_errors"] == c0["tap_errors"]


def test_frames_beyond_the_port_mtu_are_dropped_and_counted(router_lab: RouterLab) -> None:
    lab = router_lab
    add_jumbo_link(lab, 1500)  # the wire carries 9000 bytes, the port is set to 1500
    assert received(ping(lab, 1000)) == 3  # within the MTU: answered
    c0 = lab.counters()["exception"]
    # wire to kernel: a frame of 8042 bytes for a port of MTU 1500 never reaches the TAP
    assert received(ping(lab, 8000, count=2)) == 0
    c1 = lab.counters()["exception"]
    assert c1["oversize_to_kernel"] - c0["oversize_to_kernel"] == 2
    assert c1["to_kernel"] == c0["to_kernel"]
    # kernel to wire: the kernel is made to send more than the port's MTU (the TAP's MTU
    # raised behind the daemon's back); the daemon drops it, counted, and stays up
    lab.run("r", ["ip", "link", "set", "dev", "tp-p2", "mtu", "9000"])
    lab.run("r", ["ping", "-n", "-c", "2", "-i", "0.2", "-W", "1", "-M", "do", "-s", "4000", H3],
            check=False)  # fmt: skip
    c2 = lab.counters()["exception"]
    assert c2["oversize_from_kernel"] - c1["oversize_from_kernel"] >= 2
    lab.run("r", ["ip", "link", "set", "dev", "tp-p2", "mtu", "1500"])
    assert received(ping(lab, 1000)) == 3

# SPDX-License-Identifier: BSD-3-Clause
"""Self-tests of the lab plumbing, without the daemon: namespaces, veths, teardown."""

from __future__ import annotations

import os
import subprocess

import pytest

from twinplane.lab import RouterLab, reap_stale
from twinplane.lab.frr import Frr, OspfInterface, frr_available, ospf_config
from twinplane.lab.netns import Netns, list_netns
from twinplane.lab.traffic import Sniffer, UdpReceiver, l2_socket, ping, udp_send


def _kernel_router(lab: RouterLab) -> None:
    """Turn the router namespace into a plain kernel router on the veths."""
    r = lab.router
    r.sysctl({"net.ipv4.ip_forward": "1"})
    for link in lab.links:
        r.run(["ip", "addr", "add", link.router_addr, "dev", link.router_if])


def test_kernel_forwarding_between_hosts() -> None:
    with RouterLab(start_daemon=False) as lab:
        _kernel_router(lab)
        names = [ns.name for ns in lab.ns.values()]
        assert set(names) <= set(list_netns())
        assert ping(lab.ns["h1"], lab.host_ip("h2")) == 3
        with UdpReceiver(lab.ns["h2"], 5001) as rx:
            udp_send(lab.ns["h1"], lab.host_ip("h2"), 5001, count=5, interval=0.01)
            assert len(rx.wait(5)) == 5
        offloads = lab.run("r", "ethtool -k r-p0")
        assert "tx-checksumming: off" in offloads
        assert "generic-segmentation-offload: off" in offloads
        workdir = lab.workdir
    assert not set(names) & set(list_netns())
    assert not workdir.exists()


@pytest.mark.parametrize("isolate", [False, True])
def test_isolated_port_netdev_is_silent(isolate: bool) -> None:
    """Isolated router ends: the kernel neither answers ARP/ICMP nor forwards there.

    Without isolation (the control case) the router namespace's kernel answers
    ARP for an address it holds on another netdev and handles the IP packets
    itself, which would duplicate what the data plane does.
    """
    with RouterLab(start_daemon=False, isolate_ports=isolate) as lab:
        r, h1 = lab.router, lab.ns["h1"]
        r.sysctl({"net.ipv4.ip_forward": "1"})
        # Addresses on another netdev of the router namespace, as the TAPs hold them.
        r.run("ip link add tp-p0 type veth peer name tp-x0")
        r.run("ip link set tp-p0 up")
        r.run("ip link set tp-x0 up")
        r.run(["ip", "addr", "add", "10.0.1.1/24", "dev", "tp-p0"])
        r.run(["ip", "addr", "add", "10.0.2.1/24", "dev", "tp-p0"])
        ping(h1, "10.0.1.1", count=1, wait=1)
        resolved = "lladdr" in lab.run("h1", "ip neigh show 10.0.1.1")
        assert resolved is not isolate
        # Bypass ARP: does the kernel take the IP packets arriving on r-p0?
        lab.run("h1", f"ip neigh replace 10.0.1.1 lladdr {r.mac('r-p0')} dev eth0")
        stat = "cat /sys/class/net/tp-x0/statistics/rx_packets"
        before = int(lab.run("r", stat))
        ping(h1, "10.0.1.1", count=2, interval=0.1, wait=1)
        ping(h1, "10.0.2.2", count=2, interval=0.1, wait=1)
        kernel_out = int(lab.run("r", stat)) - before
        assert (kernel_out == 0) is isolate, f"kernel sent {kernel_out} packets out"


def test_teardown_after_failure() -> None:
    names: list[str] = []
    with (
        pytest.raises(RuntimeError, match="boom"),
        RouterLab(start_daemon=False, keep=False) as lab,
    ):
        names = [ns.name for ns in lab.ns.values()]
        proc = lab.ns["h1"].popen(["sleep", "600"])
        raise RuntimeError("boom")
    assert names
    assert not set(names) & set(list_netns())
    assert proc.wait(5) is not None


def test_reap_stale_namespaces() -> None:
    # A pid that cannot be running: above the kernel's pid_max.
    with open("/proc/sys/kernel/pid_max") as f:
        dead = int(f.read()) + 1
    ns = Netns(f"tpl{dead}-dead-r").create()
    try:
        assert ns.name in reap_stale()
        assert ns.name not in list_netns()
    finally:
        if ns.name in list_netns():
            subprocess.run(["ip", "netns", "del", ns.name], check=False)
    mine = Netns(f"tpl{os.getpid()}-live-r").create()
    try:
        assert mine.name not in reap_stale()
    finally:
        mine.delete()


@pytest.mark.frr
@pytest.mark.skipif(not frr_available(), reason="FRR zebra/ospfd not installed")
def test_frr_ospf_between_namespaces() -> None:
    """The FRR helper converges OSPF between two lab namespaces (kernel router, no daemon)."""
    with RouterLab(start_daemon=False) as lab:
        _kernel_router(lab)
        r, h2 = lab.router, lab.ns["h2"]
        h2.run("ip link add s0 type veth peer name s1")
        h2.run("ip link set s1 up")
        h2.run("ip link set s0 up")
        h2.run("ip addr add 10.77.0.1/24 dev s0")
        Frr(
            lab,
            r,
            {"ospfd": ospf_config("r", "10.0.2.1", ["10.0.2.0/24"], [OspfInterface("r-p1")])},
        ).start()
        Frr(
            lab,
            h2,
            {
                "ospfd": ospf_config(
                    "h2",
                    "10.0.2.2",
                    ["10.0.2.0/24", "10.77.0.0/24"],
                    [OspfInterface("eth0"), OspfInterface("s0", passive=True)],
                )
            },
        ).start()
        lab.wait_until(
            lambda: "10.77.0.0/24" in lab.run("r", "ip route show proto ospf"),
            20,
            0.2,
            "OSPF route",
        )
        assert ping(lab.ns["h1"], "10.77.0.1", count=2) == 2
        names = [ns.name for ns in lab.ns.values()]
    assert not set(names) & set(list_netns())
    assert not [line for line in os.popen("ps -eo args").read().splitlines() if lab.tag in line]


def test_scapy_send_and_sniff_in_namespaces() -> None:
    """l2_socket sends from h1 and Sniffer captures in h2, though the test runs in the root
    namespace."""
    from scapy.compat import raw
    from scapy.layers.inet import ICMP, IP, UDP
    from scapy.layers.l2 import Ether
    from scapy.packet import Packet, Raw

    with RouterLab(start_daemon=False) as lab:
        _kernel_router(lab)
        h1, h2 = lab.ns["h1"], lab.ns["h2"]
        marker = b"TP-SNIFF-CHECK"
        frame = (
            Ether(src=h1.mac("eth0"), dst=lab.router.mac("r-p0"))
            / IP(src="10.0.1.2", dst="10.0.2.2")
            / UDP(sport=4000, dport=4001)
            / Raw(marker)
        )

        def mine(p: Packet) -> bool:
            # Not h2's ICMP port unreachable, which quotes the datagram.
            return bool(marker in raw(p) and p.haslayer(UDP) and not p.haslayer(ICMP))

        assert ping(h1, "10.0.2.2", count=1) == 1  # the router resolves h2
        with Sniffer(h2, "eth0", mine) as sniffer:
            sock = l2_socket(h1, "eth0")
            try:
                sock.send(frame)
            finally:
                sock.close()
            got = sniffer.wait(1, timeout=10.0)
        assert len(got) == 1
        assert got[0][IP].ttl == 63

# SPDX-License-Identifier: BSD-3-Clause
"""The exception path with frames bigger than one mbuf: jumbo frames that a PMD chains
(net_pcap on a live interface) go to the kernel whole and its answers come back whole;
frames longer than the port's MTU allows are dropped and counted in both directions."""

from __future__ import annotations

import re
import socket
import threading
import time
from typing import Any

import pytest

from twinplane.api import ApiError
from twinplane.lab import RouterLab
from twinplane.lab.netns import veth
from twinplane.lab.router import port_devargs
from twinplane.lab.traffic import UdpReceiver, udp_send

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


def ping(lab: RouterLab, size: int, count: int = 3, wait: int = 6) -> str:
    return lab.run(
        "h3", ["ping", "-n", "-c", str(count), "-i", "0.2", "-W", str(wait), "-M", "do", "-s",
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
    # (a short wait: none may come, and a long one lets ARP's own traffic reach the TAP)
    assert received(ping(lab, 8000, count=2, wait=1)) == 0
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


def add_management_port(lab: RouterLab) -> None:
    """A non-TAP interface in the router's namespace with a route the data plane
    does not mirror: mgmt0 (192.0.2.1/24) to namespace m, 203.0.113.0/24 via it."""
    m = lab.add_ns("m")
    veth(lab.router, "mgmt0", m, "eth0")
    lab.router.run(["ip", "addr", "add", "192.0.2.1/24", "dev", "mgmt0"])
    lab.run("m", ["ip", "addr", "add", "192.0.2.2/24", "dev", "eth0"])
    lab.router.run(["ip", "route", "add", "203.0.113.0/24", "via", "192.0.2.2"])


def test_punted_frames_are_routed_only_through_the_taps(router_lab: RouterLab) -> None:
    """The kernel's decision for a frame that came from the data plane (iif tp-p0)
    ignores routes through interfaces that are not TAPs (ip route get), and
    routes through TAPs, the router's own addresses and locally sent traffic
    are unchanged."""
    lab = router_lab
    add_management_port(lab)
    rules = lab.router.run(["ip", "-4", "rule", "show"]).stdout
    for tap in ("tp-p0", "tp-p1"):
        # iproute2 names group 0 "default"
        assert f"1:\tfrom all iif {tap} lookup local suppress_ifgroup default" in rules, rules
        assert f"2:\tfrom all iif {tap} lookup main suppress_ifgroup default" in rules, rules
        assert f"3:\tfrom all iif {tap} unreachable" in rules, rules
    # the kernel's local rule comes after them (moved from 0)
    assert "4:\tfrom all lookup local" in rules and "0:\tfrom all lookup local" not in rules
    group = lab.router.run(["ip", "-d", "link", "show", "tp-p0"]).stdout
    assert "group 0x7470" in group or "group 29808" in group, group

    def route_get(dst: str, iif: str | None) -> str:
        argv = ["ip", "-4", "route", "get", dst]
        if iif:
            argv += ["from", "10.0.1.2", "iif", iif]
        res = lab.router.run(argv, check=False)
        return (res.stdout + res.stderr).strip()

    # from the data plane: the management route is not used
    out = route_get("203.0.113.7", "tp-p0")
    assert "mgmt0" not in out and "unreachable" in out.lower(), out
    # through a TAP: unchanged
    out = route_get("10.0.2.2", "tp-p0")
    assert "dev tp-p1" in out, out
    # the router itself still reaches the management network
    assert "dev mgmt0" in route_get("203.0.113.7", None)
    res = lab.router.run(["ping", "-n", "-c", "1", "-W", "2", "192.0.2.2"], check=False)
    assert res.returncode == 0, res.stdout
    # and h1's traffic through the router works as before
    res = lab.netns("h1").run(["ping", "-n", "-c", "2", "-i", "0.2", "-W", "2", "10.0.2.2"])
    assert res.returncode == 0
    assert lab.router.run(["cat", "/proc/sys/net/ipv4/conf/tp-p0/rp_filter"]).stdout.strip() == "2"

    # only the TAPs forward: the management port does not route into the data plane
    def conf(dev: str, what: str) -> str:
        return lab.router.run(["cat", f"/proc/sys/net/ipv4/conf/{dev}/{what}"]).stdout.strip()

    assert conf("tp-p0", "forwarding") == "1" and conf("tp-p1", "forwarding") == "1"
    assert conf("mgmt0", "forwarding") == "0"
    lab.run("m", ["ip", "route", "add", "10.0.2.0/24", "via", "192.0.2.1"])
    res = lab.netns("m").run(["ping", "-n", "-c", "2", "-i", "0.2", "-W", "1", "10.0.2.2"],
                             check=False)  # fmt: skip
    assert res.returncode != 0, res.stdout


def test_punts_for_non_tap_addresses_are_not_delivered(router_lab: RouterLab) -> None:
    """F5: a frame the data plane hands to the kernel (no route, or local) whose
    destination is an address of the router namespace that is not a TAP's (the
    management port's, one on lo) is not delivered: nothing listening there gets it,
    the kernel answers as a router without the address; the TAPs' addresses still
    are, and the router's own use of those addresses is unchanged."""
    lab = router_lab
    add_management_port(lab)
    lab.router.run(["ip", "addr", "add", "10.255.0.1/32", "dev", "lo"])
    # h1 reaches them through the router (its default route)
    c0 = lab.counters()
    with UdpReceiver(lab.router, 9200) as rx:
        for dst in ("192.0.2.1", "10.255.0.1"):
            assert udp_send(lab.netns("h1"), dst, 9200, b"nope", count=5, interval=0.05) == 5
        time.sleep(0.5)
        got_foreign = rx.drain()
        # a TAP's address: delivered
        udp_send(lab.netns("h1"), "10.0.1.1", 9200, b"yes", count=3, interval=0.05)
        udp_send(lab.netns("h1"), "10.0.2.1", 9200, b"yes", count=3, interval=0.05)
        time.sleep(0.5)
        got_tap = rx.drain()
    assert got_foreign == 0, got_foreign
    assert got_tap == 6, got_tap
    for dst in ("192.0.2.1", "10.255.0.1"):
        res = lab.netns("h1").run(["ping", "-n", "-c", "2", "-i", "0.2", "-W", "1", dst],
                                  check=False)  # fmt: skip
        assert res.returncode != 0 and " 0 received" in res.stdout, res.stdout
    c1 = lab.counters()
    # the data plane punted them (no route), and the kernel got them
    punted = sum(
        c1["exception"]["reasons"][r] - c0["exception"]["reasons"][r]
        for r in ("ip4.no_route", "ip4.local_destination")
    )
    assert punted >= 10 + 6 + 4, punted
    # the kernel's verdict through the TAP: unreachable, not local
    for dst in ("192.0.2.1", "10.255.0.1"):
        res = lab.router.run(["ip", "-4", "route", "get", dst, "from", "10.0.1.2", "iif",
                              "tp-p0"], check=False)  # fmt: skip
        out = (res.stdout + res.stderr).lower()
        assert "local" not in out and "unreachable" in out, out
    # the router itself still uses its own addresses
    assert lab.router.run(["ping", "-n", "-c", "1", "-W", "1", "10.255.0.1"]).returncode == 0
    assert lab.router.run(["ping", "-n", "-c", "1", "-W", "1", "192.0.2.2"]).returncode == 0


def test_policy_rules_leave_with_the_port(router_lab: RouterLab) -> None:
    lab = router_lab
    lab.ctl("port", "del", "p1")
    rules = lab.router.run(["ip", "-4", "rule", "show"]).stdout
    assert "tp-p1" not in rules, rules
    assert "iif tp-p0 unreachable" in rules, rules


# load-sensitive (bounds a count by the bucket's rate x elapsed time): reruns once
@pytest.mark.flaky(reruns=1, reruns_delay=3)
def test_kernel_to_wire_is_bounded_and_counted(router_lab: RouterLab) -> None:
    """A kernel application flooding a TAP: what leaves the wire is held to the
    port's bucket, the rest is counted, on that port only."""
    lab = router_lab
    assert lab.ctl("show", "kernel-tx")["rate_pps"] == 100000
    lab.ctl("set", "kernel-tx", "rate", "500", "burst", "50")
    before = lab.ctl("show", "exception")
    k0 = lab.ctl("show", "kernel-tx")["ports"]
    with UdpReceiver(lab.netns("h2"), 9100) as rx:
        t0 = time.monotonic()
        sent = udp_send(lab.router, "10.0.2.2", 9100, b"k" * 32, count=3000)
        elapsed = time.monotonic() - t0
        time.sleep(0.5)
        got = rx.drain()
    after = lab.ctl("show", "exception")
    limited = after["from_kernel_ratelimited"] - before["from_kernel_ratelimited"]
    bound = 500 * (elapsed + 0.5) + 50
    assert sent == 3000
    assert 0 < got <= bound, (got, bound)
    # what the kernel itself dropped (its TAP queue) never reached the bucket
    assert limited >= 1000 and got + limited <= sent, (limited, sent, got)
    k1 = lab.ctl("show", "kernel-tx")["ports"]
    assert k1["p1"]["other"]["ratelimited"] - k0["p1"]["other"]["ratelimited"] == limited
    assert k1["p0"]["other"]["ratelimited"] == k0["p0"]["other"]["ratelimited"]
    # errors in the command are specific
    with pytest.raises(ApiError, match="bad rate"):
        lab.ctl("set", "kernel-tx", "rate", "lots")
    with pytest.raises(ApiError, match="unknown class 'bgp'"):
        lab.ctl("set", "kernel-tx", "rate", "10", "class", "bgp")
    lab.ctl("set", "kernel-tx", "rate", "100000", "burst", "1024")


# load-sensitive (ARP kept alive within its budget during a flood): reruns once
@pytest.mark.flaky(reruns=1, reruns_delay=3)
def test_kernel_to_wire_flood_leaves_arp_its_budget(router_lab: RouterLab) -> None:
    """F12: a local process flooding through tp-p1 takes neither p0's budget nor the
    control class's (ARP) on its own port: the router resolves h1 and h2 and pings h1
    during the flood; the flood is counted on p1's other class only."""
    lab = router_lab
    lab.ctl("set", "kernel-tx", "rate", "2000", "burst", "64")
    k0 = lab.ctl("show", "kernel-tx")["ports"]
    stop = threading.Event()
    sent = [0]

    def flood() -> None:
        with lab.router.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            while not stop.is_set():
                for _ in range(200):
                    try:
                        s.sendto(b"f" * 32, ("10.0.2.2", 9300))
                        sent[0] += 1
                    except OSError:
                        pass
                time.sleep(0.001)

    t = threading.Thread(target=flood)
    t.start()
    try:
        time.sleep(0.5)
        for _ in range(5):
            # ARP from the router through both TAPs, while tp-p1 floods (the entries
            # deleted, not flushed: the flood re-creates 10.0.2.2's at once, and
            # "ip neigh flush" gives up after 10 rounds of that)
            for ip, dev in (("10.0.1.2", "tp-p0"), ("10.0.2.2", "tp-p1")):
                lab.router.run(["ip", "neigh", "del", ip, "dev", dev], check=False)
            res = lab.router.run(["ping", "-n", "-c", "1", "-W", "1", "10.0.1.2"], check=False)
            assert res.returncode == 0, res.stdout
            lab.router.run(["ping", "-n", "-c", "1", "-W", "1", "10.0.2.2"], check=False)
            neigh = lab.router.run(["ip", "neigh", "show", "10.0.2.2", "dev", "tp-p1"]).stdout
            assert "lladdr" in neigh, neigh  # resolved: the ARP request left, its reply came
            time.sleep(0.2)
    finally:
        stop.set()
        t.join()
    k1 = lab.ctl("show", "kernel-tx")["ports"]
    limited = k1["p1"]["other"]["ratelimited"] - k0["p1"]["other"]["ratelimited"]
    assert sent[0] >= 5000 and limited >= 1000, (sent, limited)
    for port in ("p0", "p1"):
        assert k1[port]["control"]["ratelimited"] == k0[port]["control"]["ratelimited"]
        assert k1[port]["control"]["sent"] > k0[port]["control"]["sent"]  # the ARP requests
    assert k1["p0"]["other"]["ratelimited"] == k0["p0"]["other"]["ratelimited"]
    lab.ctl("set", "kernel-tx", "rate", "100000", "burst", "1024")


def port_show(lab: RouterLab, name: str) -> dict[str, Any]:
    return next(p for p in lab.ctl("show", "ports")["ports"] if p["name"] == name)


# load-sensitive (ARP kept alive during a flood; the share is reached when the control
# thread reads faster than the lcore sends): reruns once
@pytest.mark.flaky(reruns=1, reruns_delay=3)
def test_kernel_to_wire_flood_takes_only_its_ports_mbufs(router_lab: RouterLab) -> None:  # noqa: PLR0915 one scenario, its checks in order
    """F12: the mbufs a TAP's reads may hold are its port's share (its own pool): a raw
    flood written into tp-p2's kernel side (a share of 16) is dropped over that share
    and counted as from_kernel_pool_share on p2 only, while ARP and ping through p0 and
    p1 keep working; afterwards every mbuf is home (show mempool at its baseline)."""
    lab = router_lab
    h3 = lab.add_ns("h3")
    veth(lab.router, "r-p2", h3, "eth0")
    with pytest.raises(ApiError, match=r"kernel-mbufs: bad number '3' \(16-65535\)"):
        lab.ctl("port", "add", "p2", port_devargs(lab.pmd, 2, "r-p2"), "kernel-mbufs", "3")
    lab.ctl("port", "add", "p2", port_devargs(lab.pmd, 2, "r-p2"), "kernel-mbufs", "16")
    lab.ctl("address", "add", "10.0.3.1/24", "dev", "p2")
    default = port_show(lab, "p0")["kernel_mbufs"]
    assert default == {"share": 2047, "in_use": 0, "from_kernel_pool_share": 0}, default
    assert port_show(lab, "p2")["kernel_mbufs"]["share"] == 16
    # every frame read goes on to the lcore (no bucket), so the share is what holds them
    lab.ctl("set", "kernel-tx", "rate", "0")
    baseline = lab.settle_mempool()
    c0 = lab.counters()
    # raw frames into tp-p2's kernel side, to h3 with an EtherType nobody takes
    frame = bytes.fromhex(h3.mac("eth0").replace(":", "")) + bytes(6) + b"\x88\xb5"
    frame += bytes(46)
    sock = lab.router.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    sock.bind(("tp-p2", 0))
    stop = threading.Event()
    sent = [0]
    peak = [0]

    def flood() -> None:
        # bursts of 500: the lcore, idle between them, sleeps (backoff) while the
        # control thread reads the burst
        while not stop.is_set():
            for _ in range(500):
                try:
                    sock.send(frame)
                    sent[0] += 1
                except OSError:
                    pass
            time.sleep(0.002)

    t = threading.Thread(target=flood)
    t.start()
    try:
        time.sleep(0.3)
        for _ in range(5):
            for ip, dev in (("10.0.1.2", "tp-p0"), ("10.0.2.2", "tp-p1")):
                lab.router.run(["ip", "neigh", "del", ip, "dev", dev], check=False)
                res = lab.router.run(["ping", "-n", "-c", "1", "-W", "1", ip], check=False)
                assert res.returncode == 0, (dev, res.stdout)
            # and from the wire: h1 resolves and pings the router through p0
            lab.run("h1", ["ip", "neigh", "flush", "dev", "eth0"])
            res = lab.netns("h1").run(["ping", "-n", "-c", "1", "-W", "1", "10.0.1.1"], check=False)
            assert res.returncode == 0, res.stdout
            peak[0] = max(peak[0], port_show(lab, "p2")["kernel_mbufs"]["in_use"])
            time.sleep(0.1)
    finally:
        stop.set()
        t.join()
        sock.close()
    c1 = lab.counters()
    p2 = port_show(lab, "p2")["kernel_mbufs"]
    over = c1["ports"]["p2"]["from_kernel_pool_share"]
    assert sent[0] >= 20000, sent
    assert over > 0 and p2["from_kernel_pool_share"] == over, (over, p2)
    assert peak[0] <= 16, peak
    gained = c1["exception"]["from_kernel_pool_share"] - c0["exception"]["from_kernel_pool_share"]
    assert gained == over, (gained, over)
    for port in ("p0", "p1"):
        assert c1["ports"][port]["from_kernel_pool_share"] == 0, c1["ports"][port]
    ktx = lab.ctl("show", "kernel-tx")["ports"]
    assert ktx["p2"]["from_kernel_pool_share"] == over and ktx["p2"]["mbufs"] == 16
    assert ktx["p2"]["other"]["sent"] > 0  # the share admitted frames all along
    # nothing held: the share is back, and the pools are at their baseline
    lab.wait_until(
        lambda: port_show(lab, "p2")["kernel_mbufs"]["in_use"] == 0, 3.0, 0.05, "p2's share home"
    )
    lab.flush_tx_residue()
    assert lab.settle_mempool(baseline) <= baseline, lab.mempool()
    lab.ctl("clear", "counters")
    assert lab.counters()["ports"]["p2"]["from_kernel_pool_share"] == 0
    lab.ctl("set", "kernel-tx", "rate", "100000", "burst", "1024")


def test_control_class_commands(router_lab: RouterLab) -> None:
    """The control class's settings at run time: control peers (multi-hop BGP, BFD,
    PIM Register), GTSM for the subnets, the ARP class's own bucket; malformed
    commands say what is wrong."""
    lab = router_lab
    assert lab.ctl("show", "punt") == {
        "bgp_gtsm": False,
        "source_share": 4,
        "source_slots": 1024,
        "control_peers": [],
    }
    lab.ctl("punt", "control-peer", "add", "192.0.2.7")
    lab.ctl("punt", "control-peer", "add", "198.51.100.77/24", "min-ttl", "254")
    lab.ctl("punt", "control-peer", "add", "192.0.2.7", "min-ttl", "255")  # replaced
    assert lab.ctl("show", "punt")["control_peers"] == [
        {"prefix": "192.0.2.7/32", "min_ttl": 255},
        {"prefix": "198.51.100.0/24", "min_ttl": 254},
    ]
    for argv, msg in (
        (["punt", "control-peer", "add", "300.1.1.1"], "bad peer '300.1.1.1'"),
        (["punt", "control-peer", "add", "10.0.0.1", "min-ttl", "256"], "bad min-ttl '256'"),
        (["punt", "control-peer", "add", "10.0.0.1", "ttl", "5"], "usage"),
        (["punt", "control-peer", "del", "10.0.0.1"], "no control peer 10.0.0.1"),
        (["set", "punt", "bgp-gtsm", "maybe"], "usage: set punt bgp-gtsm on|off"),
        (["set", "exception", "rate", "10", "class", "bgp"], "unknown class 'bgp'"),
    ):
        with pytest.raises(ApiError, match=msg):
            lab.ctl(*argv)
    lab.ctl("punt", "control-peer", "del", "192.0.2.7")
    lab.ctl("punt", "control-peer", "del", "198.51.100.0/24")
    assert lab.ctl("show", "punt")["control_peers"] == []
    lab.ctl("set", "punt", "bgp-gtsm", "on")
    assert lab.ctl("show", "punt")["bgp_gtsm"] is True
    lab.ctl("set", "punt", "bgp-gtsm", "off")
    # ARP has a bucket of its own, set apart from control's
    lab.ctl("set", "exception", "rate", "777", "burst", "7", "class", "arp")
    classes = lab.ctl("show", "exception")["classes"]
    assert classes["arp"] == {"rate_pps": 777, "burst": 7}
    assert classes["control"] == {"rate_pps": 20000, "burst": 256}
    lab.ctl("set", "exception", "rate", "20000", "burst", "256", "class", "arp")


def test_copying_port_devargs_checked_and_restored(router_lab: RouterLab) -> None:
    """Review N17: a port that copies from a live interface (net_pcap, net_af_packet)
    makes the kernel side of its receive interface inert. The devargs' keys are parsed
    whole: rx_iface= and iface= are receive interfaces, tx_iface= is not touched (it was
    when it came first: the first "iface=" substring won). all, default, lo, a missing
    interface and the one holding the default route (the management NIC) are refused,
    naming the key, before anything is written; port del restores the values."""
    lab = router_lab
    hq = lab.add_ns("hq")
    veth(lab.router, "vq0", hq, "eth0")
    veth(lab.router, "vq1", hq, "eth1")

    def conf(ifname: str) -> dict[str, str]:
        out = {}
        for key in ("ipv4/conf/{}/rp_filter", "ipv4/conf/{}/forwarding",
                    "ipv4/conf/{}/arp_ignore", "ipv6/conf/{}/disable_ipv6"):  # fmt: skip
            path = "/proc/sys/net/" + key.format(ifname)
            out[key.split("/")[-1]] = lab.router.run(["cat", path]).stdout.strip()
        return out

    # values of our own, not the defaults, to see them come back
    lab.router.run(["sysctl", "-qw", "net.ipv4.conf.vq1.arp_ignore=2",
                    "net.ipv4.conf.vq1.rp_filter=0", "net.ipv4.conf.vq1.forwarding=1"])  # fmt: skip
    before = {name: conf(name) for name in ("vq0", "vq1", "all", "default", "lo")}
    for devargs, why in (
        ("net_pcap5,iface=all", "iface=all: not an interface a port can copy from"),
        ("net_pcap5,rx_iface=default", "rx_iface=default: not an interface"),
        ("net_af_packet5,iface=lo", "iface=lo: not an interface"),
        ("net_pcap5,tx_iface=vq0,rx_iface=nosuch0", "rx_iface=nosuch0: no such interface"),
        ("net_pcap5,rx_iface=../all", "rx_iface=../all: not an interface"),
    ):
        with pytest.raises(ApiError, match=re.escape(why)):
            lab.ctl("port", "add", "pq", devargs)
    lab.router.run(["ip", "addr", "add", "198.51.100.1/24", "dev", "vq0"])
    lab.router.run(["ip", "link", "set", "vq0", "up"])
    lab.router.run(["ip", "route", "add", "default", "via", "198.51.100.2", "dev", "vq0"])
    try:
        with pytest.raises(ApiError, match="iface=vq0: it holds the default route"):
            lab.ctl("port", "add", "pq", "net_af_packet5,iface=vq0")
    finally:
        lab.router.run(["ip", "route", "del", "default", "via", "198.51.100.2", "dev", "vq0"])
        lab.router.run(["ip", "addr", "flush", "dev", "vq0"])
    assert {name: conf(name) for name in before} == before
    # tx_iface first, then the receive interface: only vq1 made inert
    lab.ctl("port", "add", "pq", "net_pcap5,tx_iface=vq0,rx_iface=vq1")
    assert conf("vq1") == {"rp_filter": "1", "forwarding": "0", "arp_ignore": "8",
                           "disable_ipv6": "1"}  # fmt: skip
    assert conf("vq0") == before["vq0"]
    lab.ctl("port", "del", "pq")
    assert lab.wait_until(lambda: conf("vq1") == before["vq1"], timeout=5), conf("vq1")
    assert {name: conf(name) for name in before} == before

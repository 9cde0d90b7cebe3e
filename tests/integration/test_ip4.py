# SPDX-License-Identifier: BSD-3-Clause
"""IPv4 router through the real daemon: forwarding, ARP, ICMP errors, route sync, bad packets."""

from __future__ import annotations

import struct
import time
from collections.abc import Callable
from typing import Any

import pytest
from scapy.compat import raw
from scapy.layers.inet import ICMP, IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw

from twinplane.lab import RouterLab
from twinplane.lab.traffic import (
    IcmpListener,
    Sniffer,
    UdpReceiver,
    l2_socket,
    ping,
    udp_send,
)

H1, H2 = "10.0.1.2", "10.0.2.2"
R_P0 = "10.0.1.1"
PORT = 7001
# A route added in the kernel must reach the data plane within this time.
ROUTE_SYNC_S = 1.0


def exchange(
    lab: RouterLab, dst: str, count: int, port: int = PORT, interval: float = 0.001
) -> int:
    """Send ``count`` UDP datagrams h1 -> ``dst`` (received in h2); return how many h2 got."""
    with UdpReceiver(lab.ns["h2"], port) as rx:
        udp_send(
            lab.ns["h1"],
            dst,
            port,
            lambda i: b"tp-%06d" % i,
            count=count,
            interval=interval,
        )
        return len(rx.wait(count, timeout=10.0))


def delta(after: dict[str, Any], before: dict[str, Any], *path: str) -> int:
    a: Any = after
    b: Any = before
    for key in path:
        a, b = a[key], b[key]
    return int(a) - int(b)


def wait_route(lab: RouterLab, prefix: str, present: bool, timeout: float = ROUTE_SYNC_S) -> float:
    """Wait until ``prefix`` is (or is no longer) in ``show routes``; return the time it took."""
    t0 = time.monotonic()
    try:
        lab.wait_until(
            lambda: (lab.route(prefix) is not None) is present,
            timeout,
            0.02,
            f"route {prefix}",
        )
    except TimeoutError:
        pytest.fail(
            f"{prefix} {'not in' if present else 'still in'} show routes after {timeout:g}s; "
            f"routes: {lab.routes()}; kernel: {lab.run('r', 'ip -4 route show')}"
        )
    return time.monotonic() - t0


def test_ping_both_ways(router_lab: RouterLab) -> None:
    lab = router_lab
    assert ping(lab.ns["h1"], H2, count=5) == 5
    assert ping(lab.ns["h2"], H1, count=5) == 5


def test_ping_router_address_answered_once(router_lab: RouterLab) -> None:
    """The TAP's kernel answers; the kernel behind the DPDK-owned veth must not answer too."""
    lab = router_lab
    for host, addr in (("h1", R_P0), ("h2", "10.0.2.1")):
        out = lab.run(host, ["ping", "-n", "-c", "3", "-i", "0.2", "-W", "2", addr], check=False)
        assert " 3 received" in out, out
        assert "DUP!" not in out and "duplicates" not in out, (
            f"duplicate replies from {addr}:\n{out}"
        )
        arp = lab.run(host, ["ip", "neigh", "show", addr])
        assert lab.port(lab.link(host).port)["mac"] in arp, f"{addr} resolved to another MAC: {arp}"


def test_udp_forwarded_by_data_plane(router_lab: RouterLab) -> None:
    lab = router_lab
    assert exchange(lab, H2, 1) == 1  # resolve neighbours first
    n = 300
    c0 = lab.counters()
    s0 = {p: lab.port(p)["stats"] for p in ("p0", "p1")}
    assert exchange(lab, H2, n) == n
    c1 = lab.counters()
    s1 = {p: lab.port(p)["stats"] for p in ("p0", "p1")}
    assert delta(c1, c0, "ports", "p0", "rx") >= n
    assert delta(c1, c0, "ports", "p1", "tx") >= n
    assert delta(s1, s0, "p0", "ipackets") >= n
    assert delta(s1, s0, "p1", "opackets") >= n
    workers_rx = sum(w["rx"] for w in c1["workers"]) - sum(w["rx"] for w in c0["workers"])
    assert workers_rx >= n
    # Forwarded by the data plane, not by the kernel through the exception path.
    to_kernel = delta(c1, c0, "exception", "to_kernel")
    assert to_kernel <= n // 20, f"{to_kernel} of {n} packets went to the kernel"


def test_first_packet_to_unresolved_neighbour_arrives(router_lab: RouterLab) -> None:
    lab = router_lab
    assert exchange(lab, H2, 1) == 1

    def h2_resolved() -> bool:
        return any(n.get("ip") == H2 and n.get("mac") for n in lab.neighbours())

    lab.wait_until(h2_resolved, 2.0, what=f"{H2} in show neigh")
    lab.run("r", "ip neigh flush dev tp-p1")
    try:
        lab.wait_until(lambda: not h2_resolved(), 2.0, what=f"{H2} gone from show neigh")
    except TimeoutError:
        pytest.fail(
            f"neighbour {H2} still in show neigh 2s after "
            f"'ip neigh flush dev tp-p1': {lab.neighbours()}"
        )
    assert exchange(lab, H2, 1) == 1, "the first datagram to an unresolved neighbour was lost"
    lab.wait_until(h2_resolved, 2.0, what=f"{H2} resolved again")


def test_ttl_expired_gets_time_exceeded_from_router(router_lab: RouterLab) -> None:
    lab = router_lab
    assert exchange(lab, H2, 1) == 1

    def time_exceeded(data: bytes) -> bool:
        pkt = IP(data)
        return bool(
            pkt.src == R_P0
            and pkt.haslayer(ICMP)
            and pkt[ICMP].type == 11
            and pkt[ICMP].code == 0
            and pkt[ICMP].payload is not None
            and bytes(pkt[ICMP].payload)[16:20] == bytes(map(int, H2.split(".")))
        )

    with IcmpListener(lab.ns["h1"]) as icmp, UdpReceiver(lab.ns["h2"], PORT) as rx:
        udp_send(lab.ns["h1"], H2, PORT, b"ttl1", count=3, interval=0.2, ttl=1)
        reply = icmp.wait(time_exceeded, timeout=10.0)
        assert reply is not None, "no ICMP time exceeded from 10.0.1.1 for a TTL=1 datagram"
        assert rx.wait(1, timeout=0.5) == [], "a TTL=1 datagram was forwarded"


ROUTE_WAYS = ["kernel", "api"]


@pytest.mark.parametrize("way", ROUTE_WAYS)
def test_route_add_used_then_del_stops(router_lab: RouterLab, way: str) -> None:
    """A route added (ip route / twinctl route add) is synced and used; deleted, it stops."""
    lab = router_lab
    prefix, dst = ("10.9.0.0/24", "10.9.0.5") if way == "kernel" else ("10.8.0.0/24", "10.8.0.5")
    lab.run("h2", ["ip", "addr", "add", f"{dst}/32", "dev", "lo"])
    assert exchange(lab, H2, 1) == 1  # gateway 10.0.2.2 resolved
    assert lab.route(prefix) is None

    if way == "kernel":
        lab.run("r", ["ip", "route", "add", prefix, "via", H2])
    else:
        lab.ctl("route", "add", prefix, "via", H2)
        assert "proto static" in lab.run("r", ["ip", "route", "show", prefix]), (
            "API route not in the kernel"
        )
    took = wait_route(lab, prefix, present=True)
    route = lab.route(prefix)
    assert route is not None
    assert route.get("via") == H2 and route.get("port") == "p1", route
    assert route.get("type") == "gateway", route

    n = 20
    c0 = lab.counters()
    assert exchange(lab, dst, n) == n, (
        f"route {prefix} in show routes after {took:.3f}s but not forwarding"
    )
    c1 = lab.counters()
    assert delta(c1, c0, "ports", "p1", "tx") >= n
    assert delta(c1, c0, "exception", "to_kernel") < n // 2, (
        "forwarded by the kernel, not the data plane"
    )

    if way == "kernel":
        lab.run("r", ["ip", "route", "del", prefix])
    else:
        lab.ctl("route", "del", prefix)
    wait_route(lab, prefix, present=False)
    c0 = lab.counters()
    assert exchange(lab, dst, n) == 0, f"deleted route {prefix} still forwards"
    c1 = lab.counters()
    # to the kernel, which has no route either and answers Destination Unreachable
    assert delta(c1, c0, "exception", "reasons", "ip4.no_route") >= n


def _checksum(hdr: bytes) -> int:
    s = sum(struct.unpack(f"!{len(hdr) // 2}H", hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return int(~s & 0xFFFF)


def _bad_checksum(base: Packet) -> bytes:
    good = IP(raw(base[IP]))[IP].chksum
    bad = base.copy()
    bad[IP].chksum = good ^ 0x00FF
    return raw(bad)


def _too_short(base: Packet) -> bytes:
    return raw(base[Ether])[: 14 + 12]  # 12 of the 20 bytes of an IPv4 header


def _bad_ihl(base: Packet) -> bytes:
    # IHL 4 (16 bytes). The destination's two 16-bit words sum to 0xffff, a
    # one's complement zero, so the checksum is valid whether a router sums
    # IHL*4 = 16 bytes or 20: only the IHL is wrong (RFC 1812 5.2.2).
    pkt = base.copy()
    pkt[IP].ihl = 4
    pkt[IP].dst = "10.0.245.255"
    data = bytearray(raw(pkt))
    assert _checksum(bytes(data[14:30])) == 0 and _checksum(bytes(data[14:34])) == 0
    return bytes(data)


def _len_exceeds_frame(base: Packet) -> bytes:
    pkt = base.copy()
    pkt[IP].len = 400
    return raw(pkt)


def _bad_version(base: Packet) -> bytes:
    pkt = base.copy()
    pkt[IP].version = 6
    return raw(pkt)


# what goes to the kernel for its answer (an ICMP error, fragments)
PUNT_REASONS = ("ip4.no_route", "ip4.unreachable_route", "ip4.prohibited_route",
                "ip4.exceeds_mtu", "ip4.ttl_expired")  # fmt: skip

BAD_PACKETS: dict[str, Callable[[Packet], bytes]] = {
    "ip4.bad_checksum": _bad_checksum,
    "ip4.too_short": _too_short,
    "ip4.bad_ihl": _bad_ihl,
    "ip4.len_exceeds_frame": _len_exceeds_frame,
    "ip4.bad_version": _bad_version,
}


def test_drop_reasons_listed(router_lab: RouterLab) -> None:
    drops = router_lab.drops()
    missing = [r for r in [*BAD_PACKETS, "ip4.blackhole"] if r not in drops]
    assert not missing, f"drop reasons missing from show counters: {missing}; have {sorted(drops)}"
    assert all(isinstance(v, int) for v in drops.values())
    punts = router_lab.counters()["exception"]["reasons"]
    missing = [r for r in PUNT_REASONS if r not in punts]
    assert not missing, f"punt reasons missing from show counters: {missing}; have {sorted(punts)}"


@pytest.mark.parametrize("reason", list(BAD_PACKETS))
def test_bad_packet_dropped_and_counted(router_lab: RouterLab, reason: str) -> None:
    lab = router_lab
    assert exchange(lab, H2, 1) == 1
    h1_mac = lab.ns["h1"].mac("eth0")
    r_mac = lab.port("p0")["mac"]
    marker = b"TPBAD-" + reason.encode()
    base = (
        Ether(src=h1_mac, dst=r_mac, type=0x0800)
        / IP(src=H1, dst=H2, ttl=64)
        / UDP(sport=4000, dport=PORT)
        / Raw(marker)
    )
    frame = BAD_PACKETS[reason](base)
    count = 3
    before = lab.drops()
    assert reason in before, f"{reason} not in show counters drops: {sorted(before)}"

    def forwarded_bad(p: Packet) -> bool:
        # Not an ICMP error quoting the datagram: only the datagram itself.
        return marker in raw(p) and not p.haslayer(ICMP)

    with Sniffer(lab.ns["h2"], "eth0", forwarded_bad) as sniffer:
        sock = l2_socket(lab.ns["h1"], "eth0")
        try:
            for _ in range(count):
                sock.send(Raw(frame))
        finally:
            sock.close()
        try:
            lab.wait_until(
                lambda: lab.drops()[reason] - before[reason] >= count,
                2.0,
                what=f"{reason} +{count}",
            )
        except TimeoutError:
            after = lab.drops()
            changed = {
                k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)
            }
            pytest.fail(f"{reason} did not grow by {count}; drop counters that changed: {changed}")
        leaked = sniffer.wait(1, timeout=0.3)
    after = lab.drops()
    assert after[reason] - before[reason] == count
    others = {k: after[k] - before[k] for k in BAD_PACKETS if k != reason and after[k] != before[k]}
    assert not others, f"other IP drop reasons moved too: {others}"
    assert not leaked, f"bad packet forwarded to h2: {leaked[0]!r}"
    assert exchange(lab, H2, 20) == 20, "router stopped forwarding after bad packets"

# SPDX-License-Identifier: BSD-3-Clause
"""Differential conformance of the IPv4 router: the same crafted frames sent through the
Linux kernel as a router and through twinplane, on the same topology (same addresses,
MACs, MTUs, routes and sysctls); what leaves on both egress sides (h2, h3) and what
comes back to the sender (h1) compared byte for byte, on every port type the lab uses.

::

    h1 eth0 10.0.1.2/24 (+ one address per probe) -- r-p0 10.0.1.1/24 [router]
    h2 eth0 10.0.2.2/24 -------------------------------- r-p1 10.0.2.1/24
    h3 eth0 10.0.3.2/24 (MTU 1280) --------------------- r-p2 10.0.3.1/24 (MTU 1280)
    routes: blackhole 10.66.0.0/16, unreachable 10.67.0.0/16, prohibit 10.68.0.0/16

Each probe has its own source address (the kernel limits ICMP errors per
destination) and IP ids of its own; a captured frame belongs to the probe whose
id it carries (or quotes, for an ICMP error), or whose address it goes to.
Ignored, and only these: ARP (its timing is the neighbour cache's), and in a
packet the router itself makes (an ICMP error or reply, a TCP reset: source one of
the router's addresses) the IP id and the header checksum that covers it (the
kernel picks ids at random). Differences twinplane keeps on purpose are
``KNOWN_DIFFERENCES``: each is asserted as twinplane's documented behaviour.
"""

from __future__ import annotations

import socket
import struct
from collections.abc import Callable

import pytest
from scapy.compat import raw
from scapy.layers.inet import ICMP, IP, TCP, UDP, IPerror
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw

from twinplane.lab import RouterLab, conformance
from twinplane.lab.conformance import Builder, Known, Probe, describe
from twinplane.lab.router import PMDS

LINKS = conformance.LINKS
ROUTER_ADDRS = {link.router_ip for link in LINKS}
R_MAC, H1_MAC = LINKS[0].router_mac, LINKS[0].host_mac
H1, H2, H3 = (link.host_ip for link in LINKS)
R0 = LINKS[0].router_ip
# kernel routes without a next hop (twinplane's through its API, which writes the kernel's)
SPECIAL_ROUTES = {"blackhole": "10.66.0.0/16", "unreachable": "10.67.0.0/16",
                  "prohibit": "10.68.0.0/16"}  # fmt: skip
DPORT = 7001  # h2 and h3 hold UDP sockets there: forwarded probes draw no port unreachable
SRC_BASE = 100  # probe i comes from 10.0.1.(100 + i)
ID_BASE = 0x5A00
GAP_S = 0.02  # between probes
UNRESOLVED_WAIT_S = 4.5  # the kernel gives up ARP after 3 probes 1 s apart, then answers


def eth(dst_mac: str | None = None) -> Ether:
    return Ether(src=H1_MAC, dst=dst_mac or R_MAC, type=0x0800)


def udp(
    src: str, dst: str, ident: int, payload: bytes = b"twinplane-conformance", **ip: object
) -> Packet:
    return (
        eth() / IP(src=src, dst=dst, id=ident, **ip) / UDP(sport=4000, dport=DPORT) / Raw(payload)
    )


def with_ip_bytes(
    pkt: Packet, edit: Callable[[bytearray], None], fix_checksum: bool = True
) -> bytes:
    """The frame with its IPv4 header edited (and its checksum made right again)."""
    b = bytearray(raw(pkt))
    edit(b)
    if fix_checksum:
        ihl = (b[14] & 0x0F) * 4
        b[24:26] = b"\0\0"
        b[24:26] = struct.pack("!H", checksum(bytes(b[14 : 14 + max(ihl, 20)])))
    return bytes(b)


def checksum(data: bytes) -> int:
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def fragment(src: str, dst: str, ident: int, offset8: int, mf: bool, size: int, ttl: int = 64,
             first: bool = False) -> bytes:  # fmt: skip
    # the pair's datagram: 8 + 64 + 136 bytes of UDP, no UDP checksum
    body: Packet = (
        UDP(sport=4000, dport=DPORT, len=208, chksum=0) / Raw(b"F" * size)
        if first
        else Raw(b"f" * size)
    )
    return raw(
        eth()
        / IP(src=src, dst=dst, id=ident, ttl=ttl, flags="MF" if mf else 0, frag=offset8, proto=17)
        / body
    )


def _bad_ihl(s: str, nid: Callable[[], int]) -> list[bytes]:
    # IHL 4; the checksum is right over 16 bytes and over 20 (the destination's two words
    # sum to 0xffff): only the IHL is wrong (RFC 1812 5.2.2)
    pkt = udp(s, "10.0.245.255", nid())

    def edit(b: bytearray) -> None:
        b[14] = 0x44
        b[24:26] = b"\0\0"
        b[24:26] = struct.pack("!H", checksum(bytes(b[14:30])))

    data = with_ip_bytes(pkt, edit, fix_checksum=False)
    assert checksum(data[14:34]) == 0
    return [data]


def _len_short_of_frame(s: str, nid: Callable[[], int]) -> list[bytes]:
    pkt = udp(s, H2, nid(), payload=b"x" * 40)
    # total length 10 bytes short of what the frame holds: the rest is not the packet's
    return [
        with_ip_bytes(
            pkt, lambda b: b.__setitem__(slice(16, 18), struct.pack("!H", len(b) - 14 - 10))
        )
    ]


def _echo(src: str, dst: str, ident: int, dst_mac: str | None = None, **ip: object) -> bytes:
    return raw(
        eth(dst_mac)
        / IP(src=src, dst=dst, id=ident, **ip)
        / ICMP(id=ident, seq=1)
        / Raw(b"ping" * 8)
    )


RR = b"\x07\x0b\x04" + b"\0" * 8 + b"\x00"  # Record Route, room for 2 addresses, EOL
RA = b"\x94\x04\x00\x00"  # Router Alert
BAD_OPT = b"\x07\x00\x04\x00"  # an option of length 0: Parameter Problem


def with_options(frame: bytes, opts: bytes) -> bytes:
    """The frame with IPv4 options (a multiple of 4 bytes) after its 20-byte header."""
    b = bytearray(frame[:34] + opts + frame[34:])
    b[14] = 0x45 + len(opts) // 4
    b[16:18] = struct.pack("!H", len(b) - 14)
    b[24:26] = b"\0\0"
    b[24:26] = struct.pack("!H", checksum(bytes(b[14 : 34 + len(opts)])))
    return bytes(b)


def _options(opts: bytes, dst: str = H2) -> Builder:
    return lambda s, nid: [with_options(raw(udp(s, dst, nid(), payload=b"opt")), opts)]


def _icmp_error_ttl1(s: str, nid: Callable[[], int]) -> list[bytes]:
    quoted = IP(src=H2, dst=s, id=0x1234) / UDP(sport=DPORT, dport=4000)
    return [raw(eth() / IP(src=s, dst=H2, id=nid(), ttl=1) / ICMP(type=3, code=3) / raw(quoted))]


def _martian_src(src: str) -> Builder:
    return lambda s, nid: [raw(udp(src, H2, nid()))]


def _burst(build: Callable[[str, int], bytes], n: int = 10) -> Builder:
    return lambda s, nid: [build(s, nid()) for _ in range(n)]


# name -> frames, in the order sent (the unresolved host first: its answer takes ~3 s)
PROBES: dict[str, Builder] = {
    "unresolved_host": lambda s, nid: [raw(udp(s, "10.0.2.99", nid()))],
    "forward": lambda s, nid: [raw(udp(s, H2, nid()))],
    "ttl0": lambda s, nid: [raw(udp(s, H2, nid(), ttl=0))],
    "ttl1": lambda s, nid: [raw(udp(s, H2, nid(), ttl=1))],
    "ttl2": lambda s, nid: [raw(udp(s, H2, nid(), ttl=2))],
    "ttl1_other_side": lambda s, nid: [raw(udp(s, H3, nid(), ttl=1))],
    "ttl1_to_router": lambda s, nid: [_echo(s, R0, nid(), ttl=1)],
    "ttl0_to_router_far": lambda s, nid: [_echo(s, "10.0.3.1", nid(), ttl=0)],
    "bad_checksum": lambda s, nid: [
        with_ip_bytes(
            udp(s, H2, nid()), lambda b: b.__setitem__(25, b[25] ^ 0xFF), fix_checksum=False
        )
    ],
    "ihl_below_5": _bad_ihl,
    "total_length_beyond_frame": lambda s, nid: [
        with_ip_bytes(
            udp(s, H2, nid()),
            lambda b: b.__setitem__(slice(16, 18), struct.pack("!H", len(b) - 14 + 100)),
        )
    ],
    "total_length_below_header": lambda s, nid: [
        with_ip_bytes(
            udp(s, H2, nid()), lambda b: b.__setitem__(slice(16, 18), struct.pack("!H", 12))
        )
    ],
    "total_length_short_of_frame": _len_short_of_frame,
    "ethernet_padding": lambda s, nid: [
        raw(eth() / IP(src=s, dst=H2, id=nid()) / UDP(sport=4000, dport=DPORT)) + b"\0" * 18
    ],
    "version_6": lambda s, nid: [
        with_ip_bytes(udp(s, H2, nid()), lambda b: b.__setitem__(14, 0x65))
    ],
    "options_record_route": _options(RR),
    "options_router_alert": _options(RA),
    "options_malformed": _options(BAD_OPT),
    "options_to_router": _options(RR, dst=R0),
    "fragment_first": lambda s, nid: [fragment(s, H2, nid(), 0, True, 64, first=True)],
    "fragment_middle": lambda s, nid: [fragment(s, H2, nid(), 9, True, 64)],
    "fragment_last": lambda s, nid: [fragment(s, H2, nid(), 18, False, 64)],
    "fragment_pair": lambda s, nid: (
        lambda i: [fragment(s, H2, i, 0, True, 64, first=True), fragment(s, H2, i, 9, False, 136)]
    )(nid()),
    "fragment_first_ttl1": lambda s, nid: [fragment(s, H2, nid(), 0, True, 64, ttl=1, first=True)],
    "fragment_middle_ttl1": lambda s, nid: [fragment(s, H2, nid(), 9, True, 64, ttl=1)],
    "fragment_over_mtu": lambda s, nid: [fragment(s, H3, nid(), 0, True, 1392, first=True)],
    "df_over_mtu": lambda s, nid: [raw(udp(s, H3, nid(), payload=b"d" * 1372, flags="DF"))],
    "df_at_mtu": lambda s, nid: [raw(udp(s, H3, nid(), payload=b"d" * 1252, flags="DF"))],
    "over_mtu_no_df": lambda s, nid: [raw(udp(s, H3, nid(), payload=b"n" * 1372))],
    "ping_router_near": lambda s, nid: [_echo(s, R0, nid())],
    "ping_router_far": lambda s, nid: [_echo(s, "10.0.3.1", nid())],
    "udp_router_closed_port": lambda s, nid: [
        raw(eth() / IP(src=s, dst=R0, id=nid()) / UDP(sport=4000, dport=33434))
    ],
    "tcp_syn_router": lambda s, nid: [
        raw(eth() / IP(src=s, dst=R0, id=nid()) / TCP(sport=4000, dport=1, flags="S", seq=1000))
    ],
    "directed_broadcast_udp": lambda s, nid: [raw(udp(s, "10.0.2.255", nid()))],
    "directed_broadcast_ping": lambda s, nid: [_echo(s, "10.0.2.255", nid())],
    "limited_broadcast": lambda s, nid: [
        raw(
            Ether(src=H1_MAC, dst="ff:ff:ff:ff:ff:ff")
            / IP(src=s, dst="255.255.255.255", id=nid())
            / UDP(sport=4000, dport=DPORT)
        )
    ],
    "l2_broadcast_unicast_ip": lambda s, nid: [
        raw(
            Ether(src=H1_MAC, dst="ff:ff:ff:ff:ff:ff")
            / IP(src=s, dst=H2, id=nid())
            / UDP(sport=4000, dport=DPORT)
        )
    ],
    "multicast_all_hosts_ping": lambda s, nid: [
        _echo(s, "224.0.0.1", nid(), dst_mac="01:00:5e:00:00:01")
    ],
    "multicast_routable": lambda s, nid: [
        raw(
            Ether(src=H1_MAC, dst="01:00:5e:01:02:03")
            / IP(src=s, dst="239.1.2.3", id=nid(), ttl=8)
            / UDP(sport=4000, dport=DPORT)
        )
    ],
    "martian_src_loopback": _martian_src("127.0.0.1"),
    "martian_src_zero": _martian_src("0.0.0.0"),
    "martian_src_multicast": _martian_src("224.0.0.9"),
    "martian_src_class_e": _martian_src("240.0.0.1"),
    "martian_src_limited_broadcast": _martian_src("255.255.255.255"),
    "martian_src_router_address": _martian_src(R0),
    "martian_dst_loopback": lambda s, nid: [raw(udp(s, "127.0.0.1", nid()))],
    "martian_dst_zero": lambda s, nid: [raw(udp(s, "0.0.0.0", nid()))],
    "no_route": lambda s, nid: [raw(udp(s, "192.0.2.1", nid()))],
    "blackhole_route": lambda s, nid: [raw(udp(s, "10.66.0.1", nid()))],
    "unreachable_route": lambda s, nid: [raw(udp(s, "10.67.0.1", nid()))],
    "prohibit_route": lambda s, nid: [raw(udp(s, "10.68.0.1", nid()))],
    "icmp_error_with_ttl1": _icmp_error_ttl1,
    "ttl1_burst": _burst(lambda s, i: raw(udp(s, H2, i, ttl=1))),
    "no_route_burst": _burst(lambda s, i: raw(udp(s, "192.0.2.7", i))),
}

# What twinplane does unlike the kernel (README, router section), as a check of
# twinplane's own result for that probe; on every port type, or on one.
# bursts whose ICMP errors both routers rate-limit per destination (icmp_ratelimit)
RATE_LIMITED = ("ttl1_burst", "no_route_burst")

KNOWN_DIFFERENCES: Known = {
    "martian_src_router_address": (
        "twinplane does not look sources up (no reverse-path check, as l3fwd, and VPP "
        "unless asked); Linux drops a packet from one of its own addresses",
        lambda p: len(p.captured["h2"]) == 1 and not p.captured["h1"],
    ),
    "martian_src_class_e": (
        "RFC 1812 5.3.7: a router MUST NOT forward a packet from class E (240/4); "
        "Linux forwards it",
        lambda p: not p.captured["h2"] and not p.captured["h3"] and not p.captured["h1"],
    ),
}


KNOWN_PMD_DIFFERENCES: dict[tuple[str, str], tuple[str, Callable[[Probe], bool]]] = {
    ("options_malformed", "af_packet"): (
        "the kernel behind an af_packet port sees the frame too, and checks IP options "
        "before anything can drop it: it answers Parameter Problem as well",
        lambda p: [(e[ICMP].type, e[IP].src) for e in icmp_to_h1(p)] == [(12, R0)] * 2,
    ),
}


def build_probes() -> list[Probe]:
    return conformance.build_probes(
        PROBES, lambda i: f"10.0.1.{SRC_BASE + i}", range(ID_BASE, ID_BASE + 0x1000)
    )


def setup_kernel_router(lab: RouterLab) -> None:
    """The router namespace's kernel as the router: the addresses and routes twinplane gets."""
    for link in lab.links:
        lab.run("r", ["ip", "addr", "add", link.router_addr, "dev", link.router_if])
    for kind, prefix in SPECIAL_ROUTES.items():
        lab.run("r", ["ip", "route", "add", kind, prefix])


def setup_twinplane(lab: RouterLab) -> None:
    for kind, prefix in SPECIAL_ROUTES.items():
        lab.ctl("route", "add", prefix, kind)

    def synced() -> bool:
        types = {r["prefix"]: r["type"] for r in lab.routes()}
        return all(types.get(p) == k for k, p in SPECIAL_ROUTES.items())

    lab.wait_until(synced, 2.0, 0.02, "special routes in show routes")


def setup_hosts(lab: RouterLab, probes: list[Probe]) -> list[socket.socket]:
    """h1 owns every probe's source; h2 and h3 swallow forwarded UDP. Neighbours resolved."""
    for p in probes:
        if p.src.startswith("10.0.1."):
            lab.run("h1", ["ip", "addr", "add", f"{p.src}/24", "dev", "eth0"])
    sinks = []
    for host in ("h2", "h3"):
        s = lab.ns[host].socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("0.0.0.0", DPORT))
        sinks.append(s)
    for host in (H2, H3):
        out = lab.run("h1", ["ping", "-n", "-c", "1", "-W", "2", host], check=False)
        assert " 1 received" in out, f"h1 cannot reach {host} before the probes:\n{out}"
    return sinks


def run_probes(lab: RouterLab) -> list[Probe]:
    """Send every probe from h1, and capture what h1, h2 and h3 receive meanwhile."""
    probes = build_probes()
    sinks = setup_hosts(lab, probes)
    try:
        return conformance.run_probes(lab, probes, assign, GAP_S, UNRESOLVED_WAIT_S)
    finally:
        for s in sinks:
            s.close()


def assign(probes: list[Probe], frames: dict[str, list[bytes]]) -> None:
    """Hand each captured IPv4 frame to its probe (ARP, and what is no probe's, are left)."""
    by_id = {i: p for p in probes for i in p.ids}
    by_src = {p.src: p for p in probes}
    for host, fs in frames.items():
        for f in fs:
            pkt = Ether(f)
            if IP not in pkt:
                continue
            ip = pkt[IP]
            owner = None
            if IPerror in pkt:  # an ICMP error: the packet it quotes
                owner = by_id.get(pkt[IPerror].id)
            if owner is None and ip.src in ROUTER_ADDRS:  # a reply: to the probe's source
                owner = by_src.get(ip.dst)
            if owner is None:
                owner = by_id.get(ip.id)
            if owner is not None:
                owner.captured[host].append(f)


def normalised(frame: bytes) -> bytes:
    """The frame with what may legitimately differ zeroed: in a packet the router made,
    its IP id and header checksum."""
    b = bytearray(frame)
    if (
        len(b) >= 34
        and b[12:14] == b"\x08\x00"
        and socket.inet_ntoa(bytes(b[26:30])) in ROUTER_ADDRS
    ):
        b[18:20] = b"\0\0"
        b[24:26] = b"\0\0"
    return bytes(b)


@pytest.fixture(scope="module")
def kernel_reference() -> dict[str, Probe]:
    """The probes through the Linux kernel as the router (once for every port type)."""

    def run(lab: RouterLab) -> list[Probe]:
        setup_kernel_router(lab)
        return run_probes(lab)

    lab = RouterLab(links=LINKS, start_daemon=False, kernel_forwarding=True)
    return conformance.through_kernel(lab, run)


@pytest.mark.parametrize("pmd", PMDS)
def test_twinplane_answers_as_the_kernel(
    daemon_lab: Callable[..., RouterLab], kernel_reference: dict[str, Probe], pmd: str
) -> None:
    lab = daemon_lab(links=LINKS, pmd=pmd)
    setup_twinplane(lab)
    probes = {p.name: p for p in run_probes(lab)}
    known = KNOWN_DIFFERENCES | {n: k for (n, p), k in KNOWN_PMD_DIFFERENCES.items() if p == pmd}
    diffs = conformance.compare(probes, kernel_reference, normalised, known, RATE_LIMITED)
    assert not diffs, f"{len(diffs)} of {len(probes)} probes differ ({pmd}):\n" + "\n".join(diffs)
    check_absolute(probes)


def icmp_to_h1(p: Probe) -> list[Packet]:
    return [Ether(f) for f in p.captured["h1"] if ICMP in Ether(f)]


def check_absolute(probes: dict[str, Probe]) -> None:
    """What the comparison alone would not catch if both routers were wrong alike."""

    def one_error(name: str, type_: int, code: int) -> Packet:
        errs = icmp_to_h1(probes[name])
        assert len(errs) == 1, (
            f"{name}: {len(errs)} ICMP messages back: {describe(probes[name].captured['h1'])}"
        )
        e = errs[0]
        # from the address of the interface the packet came in by (and the error leaves by)
        assert (e[IP].src, e[ICMP].type, e[ICMP].code) == (R0, type_, code), e.summary()
        assert e[IPerror].id in probes[name].ids
        return e

    one_error("no_route", 3, 0)
    one_error("unresolved_host", 3, 1)
    one_error("unreachable_route", 3, 1)
    one_error("prohibit_route", 3, 13)
    one_error("ttl1", 11, 0)
    one_error("ttl1_other_side", 11, 0)
    assert one_error("df_over_mtu", 3, 4)[ICMP].nexthopmtu == 1280
    assert not any(probes["blackhole_route"].captured.values())
    # rate-limited as the kernel limits ICMP errors per destination (icmp_ratelimit)
    for burst in ("ttl1_burst", "no_route_burst"):
        n = len(icmp_to_h1(probes[burst]))
        assert 1 <= n < 10, f"{burst}: {n} ICMP errors for 10 packets"
    # fragments forwarded untouched (TTL and checksum aside)
    for name in ("fragment_first", "fragment_middle", "fragment_last", "fragment_pair"):
        p = probes[name]
        got = p.captured["h2"]
        assert len(got) == len(p.frames), (
            f"{name}: {len(got)} of {len(p.frames)} fragments reached h2"
        )
        for sent, out in zip(p.frames, got, strict=True):
            assert (
                out[34:] == sent[34:] and out[14:22] == sent[14:22] and out[22] == sent[22] - 1
            ), name
    # too big without DF: fragmented to the MTU
    frags = [Ether(f) for f in probes["over_mtu_no_df"].captured["h3"]]
    assert len(frags) == 2 and all(len(f[IP]) <= 1280 for f in frags), describe(
        probes["over_mtu_no_df"].captured["h3"]
    )

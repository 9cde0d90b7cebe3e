# SPDX-License-Identifier: BSD-3-Clause
"""Differential conformance of the IPv6 router (issue 35): the same crafted frames sent
through the Linux kernel as a router and through twinplane, on the same topology (same
addresses, MACs, MTUs, routes and sysctls); what leaves on both egress sides (h2, h3)
and what comes back to the sender (h1) compared byte for byte, on every port type the
lab uses. The machinery is test_conformance.py's (``twinplane.lab.conformance``).

::

    h1 eth0 2001:db8:1::2/64 (+ a global and a link-local address per probe)
                             -- r-p0 2001:db8:1::1/64 [router]
    h2 eth0 2001:db8:2::2/64 -- r-p1 2001:db8:2::1/64
    h3 eth0 2001:db8:3::2/64 -- r-p2 2001:db8:3::1/64 (MTU 1280, IPv6's minimum)
    routes: blackhole 2001:db8:66::/48, unreachable 2001:db8:67::/48,
            prohibit 2001:db8:68::/48

Each probe has its own source addresses (the kernel limits ICMPv6 errors per
destination) and each frame a flow label of its own; a captured frame belongs to the
probe whose flow label it carries (or quotes, for an ICMPv6 error), or, when the router
made it (source one of the router's addresses), whose address it goes to. Ignored, and
only these: the router's Neighbor and Router Solicitations (their timing is the
neighbour cache's, as ARP's in the IPv4 test), and in a packet the router itself makes
the flow label (the kernel derives it from a per-boot random hash, RFC 6437 3).
Differences twinplane keeps on purpose are ``KNOWN_DIFFERENCES``, each asserted as
twinplane's documented behaviour (src/nf/ip6/README.md, "Against the kernel").
"""

from __future__ import annotations

import ipaddress
import socket
import struct
from collections.abc import Callable
from pathlib import Path

import pytest
from scapy.compat import raw
from scapy.layers.inet import UDP
from scapy.layers.inet6 import (
    HBHOptUnknown,
    ICMPv6DestUnreach,
    ICMPv6EchoRequest,
    ICMPv6ND_NA,
    ICMPv6ND_NS,
    ICMPv6ND_RS,
    ICMPv6NDOptSrcLLAddr,
    ICMPv6PacketTooBig,
    IPerror6,
    IPv6,
    IPv6ExtHdrDestOpt,
    IPv6ExtHdrFragment,
    IPv6ExtHdrHopByHop,
    IPv6ExtHdrRouting,
    IPv6ExtHdrSegmentRouting,
    PadN,
    RouterAlert,
    UDPerror,
)
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw

from twinplane.lab import Link, RouterLab, conformance
from twinplane.lab.conformance import Builder, Known, Probe, describe, describe_all
from twinplane.lab.router import PMDS

# the IPv4 test's links (the lab configures and checks ports by their IPv4 address)
LINKS = conformance.LINKS
NETS = {"h1": "2001:db8:1", "h2": "2001:db8:2", "h3": "2001:db8:3"}
R0, R1, R2 = (f"{n}::1" for n in NETS.values())
H2, H3 = f"{NETS['h2']}::2", f"{NETS['h3']}::2"


def link_local(mac: str) -> str:
    """The modified EUI-64 link-local address of a MAC (RFC 4291 2.5.1, appendix A)."""
    b = bytes.fromhex(mac.replace(":", ""))
    iid = bytes([b[0] ^ 2]) + b[1:3] + b"\xff\xfe" + b[3:]
    return str(ipaddress.IPv6Address(b"\xfe\x80" + b"\0" * 6 + iid))


R_LL = {link.port: link_local(str(link.router_mac)) for link in LINKS}
ROUTER_ADDRS = {R0, R1, R2, *R_LL.values()}
R_MAC, H1_MAC = LINKS[0].router_mac, LINKS[0].host_mac
R0_LL = R_LL["p0"]
SPECIAL_ROUTES = {"blackhole": "2001:db8:66::/48", "unreachable": "2001:db8:67::/48",
                  "prohibit": "2001:db8:68::/48"}  # fmt: skip
DPORT = 7001  # h2 and h3 hold UDP sockets there: forwarded probes draw no port unreachable
SRC_BASE = 0x100  # probe i comes from 2001:db8:1::(100 + i) and fe80::(100 + i)
FL_BASE = 0x5A000  # flow labels
GAP_S = 0.02
UNRESOLVED_WAIT_S = 4.5  # the kernel gives up after 3 solicitations 1 s apart, then answers
ND_TYPES = (133, 135)  # RS, NS: the router's own, ignored (ARP's part in the IPv4 test)


def ll_of(src: str) -> str:
    """The probe's link-local source: the same interface id under fe80::/64."""
    return f"fe80::{src.rsplit(':', 1)[1]}"


def solicited_node(addr: str) -> tuple[str, str]:
    """The solicited-node group of addr (RFC 4291 2.7.1) and its MAC (RFC 2464 7)."""
    low = ipaddress.IPv6Address(addr).packed[13:]
    group = ipaddress.IPv6Address(bytes.fromhex("ff02" + "0000" * 4 + "0001ff") + low)
    return str(group), "33:33:ff:" + ":".join(f"{x:02x}" for x in low)


def eth(dst_mac: str | None = None) -> Ether:
    return Ether(src=H1_MAC, dst=dst_mac or R_MAC, type=0x86DD)


def ip6(src: str, dst: str, fl: int, **kw: object) -> IPv6:
    return IPv6(src=src, dst=dst, fl=fl, **kw)


def udp(
    s: str, dst: str, fl: int, payload: bytes = b"twinplane-conformance6", **kw: object
) -> Packet:
    return eth() / ip6(s, dst, fl, **kw) / UDP(sport=4000, dport=DPORT) / Raw(payload)


def echo(
    s: str, dst: str, fl: int, dst_mac: str | None = None, size: int = 32, **kw: object
) -> bytes:
    req = ICMPv6EchoRequest(id=fl & 0xFFFF, seq=1, data=b"p" * size)
    return raw(eth(dst_mac) / ip6(s, dst, fl, **kw) / req)


def with_plen(frame: bytes, plen: int) -> bytes:
    """The frame with the IPv6 header's Payload Length set to plen."""
    return frame[:18] + struct.pack("!H", plen) + frame[20:]


def with_ext(s: str, dst: str, fl: int, *ext: Packet) -> bytes:
    """A UDP datagram to dst behind extension headers (scapy chains Next Header)."""
    pkt: Packet = ip6(s, dst, fl)
    for e in ext:
        pkt = pkt / e
    return raw(eth() / pkt / UDP(sport=4000, dport=DPORT) / Raw(b"ext"))


UNKNOWN_DISCARD_ICMP = HBHOptUnknown(otype=0x8A, optdata=b"\0\0")  # RFC 8200 4.2: 10xxxxxx


def fragment(s: str, dst: str, fl: int, ident: int, offset8: int, m: int, size: int,
             hlim: int = 64, first: bool = False) -> bytes:  # fmt: skip
    # the pair's datagram: 8 + 64 + 136 bytes of UDP
    body: Packet = (
        UDP(sport=4000, dport=DPORT, len=208, chksum=0x1234) / Raw(b"F" * size)
        if first
        else Raw(b"f" * size)
    )
    return raw(
        eth()
        / ip6(s, dst, fl, hlim=hlim)
        / IPv6ExtHdrFragment(nh=17, offset=offset8, m=m, id=ident)
        / body
    )


def icmp_error(s: str, dst: str, fl: int, error: Packet, pad: int = 0, **kw: object) -> bytes:
    """An ICMPv6 error from s about a datagram dst sent to s (of pad bytes more)."""
    quoted = IPerror6(src=dst, dst=s, fl=7) / UDPerror(sport=DPORT, dport=4000) / Raw(b"z" * pad)
    return raw(eth() / ip6(s, dst, fl, **kw) / error / raw(quoted))


def ns(s: str, target: str, fl: int, unicast: bool = False, hlim: int = 255) -> bytes:
    group, mac = solicited_node(target)
    return raw(
        eth(None if unicast else mac)
        / ip6(s, target if unicast else group, fl, hlim=hlim)
        / ICMPv6ND_NS(tgt=target)
        / ICMPv6NDOptSrcLLAddr(lladdr=H1_MAC)
    )


def _src(src: str) -> Builder:
    return lambda s, nid: [raw(udp(src, H2, nid()))]


def _burst(build: Callable[[str, int], bytes], n: int = 10) -> Builder:
    return lambda s, nid: [build(s, nid()) for _ in range(n)]


# name -> frames, in the order sent (the unresolved host first: its answer takes ~3 s)
PROBES: dict[str, Builder] = {
    "unresolved_host": lambda s, nid: [raw(udp(s, f"{NETS['h2']}::99", nid()))],
    "forward": lambda s, nid: [raw(udp(s, H2, nid()))],
    "forward_far": lambda s, nid: [raw(udp(s, H3, nid()))],
    "hlim0": lambda s, nid: [raw(udp(s, H2, nid(), hlim=0))],
    "hlim1": lambda s, nid: [raw(udp(s, H2, nid(), hlim=1))],
    "hlim2": lambda s, nid: [raw(udp(s, H2, nid(), hlim=2))],
    "hlim255": lambda s, nid: [raw(udp(s, H2, nid(), hlim=255))],
    "hlim1_other_side": lambda s, nid: [raw(udp(s, H3, nid(), hlim=1))],
    "hlim1_to_router": lambda s, nid: [echo(s, R0, nid(), hlim=1)],
    "hlim0_to_router_far": lambda s, nid: [echo(s, R2, nid(), hlim=0)],
    # RFC 8200 3: Payload Length
    "plen_short_of_frame": lambda s, nid: [
        (lambda f: with_plen(f, len(f) - 14 - 40 - 10))(raw(udp(s, H2, nid(), b"x" * 40)))
    ],
    "plen_beyond_frame": lambda s, nid: [
        (lambda f: with_plen(f, len(f) - 14 - 40 + 100))(raw(udp(s, H2, nid())))
    ],
    "plen_zero": lambda s, nid: [with_plen(raw(udp(s, H2, nid())), 0)],
    "ethernet_padding": lambda s, nid: [
        raw(eth() / ip6(s, H2, nid()) / UDP(sport=4000, dport=DPORT)) + b"\0" * 18
    ],
    "header_truncated": lambda s, nid: [raw(udp(s, H2, nid()))[: 14 + 30]],
    "version_4": lambda s, nid: [
        (lambda f: f[:14] + bytes([0x40 | (f[14] & 0x0F)]) + f[15:])(raw(udp(s, H2, nid())))
    ],
    # RFC 8200 5, RFC 4443 3.2: too big for the next link
    "too_big": lambda s, nid: [raw(udp(s, H3, nid(), b"b" * (1300 - 48)))],
    "at_mtu": lambda s, nid: [raw(udp(s, H3, nid(), b"a" * (1280 - 48)))],
    "too_big_echo": lambda s, nid: [echo(s, H3, nid(), size=1400)],
    # RFC 8200 4: extension headers
    "hbh_padn": lambda s, nid: [with_ext(s, H2, nid(), IPv6ExtHdrHopByHop(options=[PadN()]))],
    "hbh_router_alert": lambda s, nid: [
        with_ext(s, H2, nid(), IPv6ExtHdrHopByHop(options=[RouterAlert(value=2)]))
    ],
    "hbh_unknown_discard_icmp": lambda s, nid: [
        with_ext(s, H2, nid(), IPv6ExtHdrHopByHop(options=[UNKNOWN_DISCARD_ICMP]))
    ],
    "routing0_to_host": lambda s, nid: [
        with_ext(s, H2, nid(), IPv6ExtHdrRouting(type=0, segleft=1, addresses=[H3]))
    ],
    "routing0_to_router": lambda s, nid: [
        with_ext(s, R0, nid(), IPv6ExtHdrRouting(type=0, segleft=1, addresses=[H2]))
    ],
    "routing0_segleft0_to_router": lambda s, nid: [
        with_ext(s, R0, nid(), IPv6ExtHdrRouting(type=0, segleft=0, addresses=[H2]))
    ],
    "routing4_to_host": lambda s, nid: [
        with_ext(s, H2, nid(), IPv6ExtHdrSegmentRouting(addresses=[H3, H2], segleft=1))
    ],
    "routing4_to_router": lambda s, nid: [
        with_ext(s, R0, nid(), IPv6ExtHdrSegmentRouting(addresses=[H2, R0], segleft=1))
    ],
    "destopt_unknown_to_host": lambda s, nid: [
        with_ext(s, H2, nid(), IPv6ExtHdrDestOpt(options=[UNKNOWN_DISCARD_ICMP]))
    ],
    "destopt_unknown_to_router": lambda s, nid: [
        with_ext(s, R0, nid(), IPv6ExtHdrDestOpt(options=[UNKNOWN_DISCARD_ICMP]))
    ],
    "chain_hbh_dest_routing": lambda s, nid: [
        with_ext(
            s,
            H2,
            nid(),
            IPv6ExtHdrHopByHop(options=[PadN()]),
            IPv6ExtHdrDestOpt(options=[PadN()]),
            IPv6ExtHdrRouting(type=0, segleft=0, addresses=[H3]),
        )  # fmt: skip
    ],
    "chain_dest_dest": lambda s, nid: [
        with_ext(
            s, H2, nid(), IPv6ExtHdrDestOpt(options=[PadN()]), IPv6ExtHdrDestOpt(options=[PadN()])
        )  # fmt: skip
    ],
    "chain_hbh_hlim1": lambda s, nid: [
        (lambda f: f[:21] + b"\x01" + f[22:])(
            with_ext(s, H2, nid(), IPv6ExtHdrHopByHop(options=[PadN()]))
        )
    ],
    # RFC 8200 4.5: fragments are the destination's, forwarded as they are
    "fragment_first": lambda s, nid: [fragment(s, H2, nid(), 0x101, 0, 1, 64, first=True)],
    "fragment_middle": lambda s, nid: [fragment(s, H2, nid(), 0x102, 9, 1, 64)],
    "fragment_last": lambda s, nid: [fragment(s, H2, nid(), 0x103, 18, 0, 64)],
    "fragment_pair": lambda s, nid: [
        fragment(s, H2, nid(), 0x104, 0, 1, 64, first=True),
        fragment(s, H2, nid(), 0x104, 9, 0, 136),
    ],
    "fragment_atomic": lambda s, nid: [fragment(s, H2, nid(), 0x105, 0, 0, 200, first=True)],
    "fragment_hlim1": lambda s, nid: [fragment(s, H2, nid(), 0x106, 0, 1, 64, 1, first=True)],
    "fragment_too_big": lambda s, nid: [fragment(s, H3, nid(), 0x107, 0, 1, 1400, first=True)],
    # RFC 4291 2.5.6, 2.7: link-local and multicast
    "dst_link_local_other": lambda s, nid: [raw(udp(s, "fe80::99", nid()))],
    "dst_link_local_router": lambda s, nid: [echo(s, R0_LL, nid())],
    "src_link_local_to_host": lambda s, nid: [raw(udp(ll_of(s), H2, nid()))],
    "link_local_echo": lambda s, nid: [echo(ll_of(s), R0_LL, nid())],
    "link_local_echo_hlim1": lambda s, nid: [echo(ll_of(s), R0_LL, nid(), hlim=1)],
    "multicast_all_nodes_echo": lambda s, nid: [
        echo(s, "ff02::1", nid(), dst_mac="33:33:00:00:00:01")
    ],
    "multicast_all_routers_echo": lambda s, nid: [
        echo(s, "ff02::2", nid(), dst_mac="33:33:00:00:00:02")
    ],
    "multicast_global_udp": lambda s, nid: [
        raw(
            Ether(src=H1_MAC, dst="33:33:00:00:12:34")
            / ip6(s, "ff0e::1234", nid(), hlim=8)
            / UDP(sport=4000, dport=DPORT)
        )
    ],
    "l2_multicast_unicast_ip": lambda s, nid: [
        raw(Ether(src=H1_MAC, dst="33:33:00:00:00:01") / ip6(s, H2, nid()) / UDP(dport=DPORT))
    ],
    # RFC 4861: Neighbor Discovery
    "ns_router": lambda s, nid: [ns(s, R0, nid())],
    "ns_router_unicast": lambda s, nid: [ns(s, R0, nid(), unicast=True)],
    "ns_router_link_local": lambda s, nid: [ns(ll_of(s), R0_LL, nid())],
    "ns_router_hlim64": lambda s, nid: [ns(s, R0, nid(), hlim=64)],
    "ns_host_behind": lambda s, nid: [ns(s, H2, nid())],
    "rs": lambda s, nid: [
        raw(
            eth("33:33:00:00:00:02")
            / ip6(ll_of(s), "ff02::2", nid(), hlim=255)
            / ICMPv6ND_RS()
            / ICMPv6NDOptSrcLLAddr(lladdr=H1_MAC)
        )
    ],
    # RFC 4443 4.1: echo to the router's addresses
    "echo_router_near": lambda s, nid: [echo(s, R0, nid())],
    "echo_router_far": lambda s, nid: [echo(s, R2, nid())],
    "udp_router_closed_port": lambda s, nid: [
        raw(eth() / ip6(s, R0, nid()) / UDP(sport=4000, dport=33434))
    ],
    # RFC 4443 3.1: no route, special routes, unresolved neighbour (first, above)
    "no_route": lambda s, nid: [raw(udp(s, "2001:db8:99::1", nid()))],
    "blackhole_route": lambda s, nid: [raw(udp(s, "2001:db8:66::1", nid()))],
    "unreachable_route": lambda s, nid: [raw(udp(s, "2001:db8:67::1", nid()))],
    "prohibit_route": lambda s, nid: [raw(udp(s, "2001:db8:68::1", nid()))],
    # RFC 4443 2.4 (e.1): no error about an error
    "icmp_error_hlim1": lambda s, nid: [
        icmp_error(s, H2, nid(), ICMPv6DestUnreach(code=4), hlim=1)
    ],
    "icmp_error_no_route": lambda s, nid: [
        icmp_error(s, "2001:db8:99::2", nid(), ICMPv6DestUnreach(code=4))
    ],
    "icmp_error_too_big": lambda s, nid: [
        icmp_error(s, H3, nid(), ICMPv6PacketTooBig(mtu=1400), pad=1300)
    ],
    # RFC 4291 2.5.2, 2.5.3, 2.7: sources and destinations never forwarded
    "src_router_address": _src(R0),
    "src_router_far_address": _src(R2),
    "src_router_address_hlim1": lambda s, nid: [raw(udp(R0, H2, nid(), hlim=1))],
    "src_router_address_no_route": lambda s, nid: [raw(udp(R0, "2001:db8:99::3", nid()))],
    "src_unspecified": _src("::"),
    "src_loopback": _src("::1"),
    "src_multicast": _src("ff02::1"),
    "dst_loopback": lambda s, nid: [raw(udp(s, "::1", nid()))],
    "dst_unspecified": lambda s, nid: [raw(udp(s, "::", nid()))],
    "hlim1_burst": _burst(lambda s, fl: raw(udp(s, H2, fl, hlim=1))),
    "no_route_burst": _burst(lambda s, fl: raw(udp(s, "2001:db8:99::7", fl))),
}

# bursts whose ICMPv6 errors both routers rate-limit per destination (ratelimit)
RATE_LIMITED = ("hlim1_burst", "no_route_burst")

# What twinplane does unlike the kernel (src/nf/ip6/README.md, "Against the kernel").
KNOWN_DIFFERENCES: Known = {}


def build_probes() -> list[Probe]:
    return conformance.build_probes(
        PROBES, lambda i: f"{NETS['h1']}::{SRC_BASE + i:x}", range(FL_BASE, FL_BASE + 0x1000)
    )


class Lab6(RouterLab):
    """The router lab with IPv6 on the hosts (global and probe addresses, a default
    route through the router) and no duplicate address detection anywhere, so that
    every address is usable at once, on both routers alike."""

    def build_topology(self) -> None:
        super().build_topology()
        # the daemon's TAPs, made later, take the namespace's defaults
        self.router.sysctl({"net.ipv6.conf.default.accept_dad": "0"})
        for link in self.links:
            h = self.ns[link.host]
            h.sysctl(
                {
                    f"net.ipv6.conf.{link.host_if}.accept_dad": "0",
                    f"net.ipv6.conf.{link.host_if}.accept_ra": "0",
                    f"net.ipv6.conf.{link.host_if}.disable_ipv6": "0",
                }
            )
            net = NETS[link.host]
            h.run(["ip", "-6", "addr", "add", f"{net}::2/64", "dev", link.host_if, "nodad"])
            h.run(["ip", "-6", "route", "add", "default", "via", f"{net}::1"])


def router_if(lab: RouterLab, link: Link) -> str:
    """The router's interface of a link: the TAP with a daemon, else the veth's end."""
    return link.tap if lab.daemon is not None else link.router_if


def setup_router(lab: RouterLab) -> None:
    """The router's addresses and special routes, in its kernel (with a daemon, on its
    TAPs: netlink brings them to the data plane). The kernel as the router gets what
    the daemon sets: forwarding on its ports alone (force_forwarding, Linux 6.17), or
    the namespace's where the kernel has no per-device switch."""
    r = lab.router
    per_device = r.run(["test", "-e", "/proc/sys/net/ipv6/conf/all/force_forwarding"],
                       check=False).returncode == 0  # fmt: skip
    for link in lab.links:
        dev = router_if(lab, link)
        if lab.daemon is None:
            r.sysctl({f"net.ipv6.conf.{dev}.accept_dad": "0",
                      f"net.ipv6.conf.{dev}.disable_ipv6": "0"})  # fmt: skip
            if per_device:
                r.sysctl({f"net.ipv6.conf.{dev}.force_forwarding": "1"})
        r.run(["ip", "-6", "addr", "add", f"{NETS[link.host]}::1/64", "dev", dev, "nodad"])
    if lab.daemon is None and not per_device:
        r.sysctl({"net.ipv6.conf.all.forwarding": "1"})
    for kind, prefix in SPECIAL_ROUTES.items():
        r.run(["ip", "-6", "route", "add", kind, prefix])
    if lab.daemon is None:
        return

    def synced() -> bool:
        types = {x["prefix"]: x["type"] for x in lab.ctl("show", "routes6")["routes"]}
        want = {f"{n}::/64": "connected" for n in NETS.values()}
        want |= {p: k for k, p in SPECIAL_ROUTES.items()}
        return all(types.get(p) == k for p, k in want.items())

    lab.wait_until(synced, 3.0, 0.05, "IPv6 routes in show routes6")


def setup_hosts(lab: RouterLab, probes: list[Probe], workdir: Path) -> list[socket.socket]:
    """h1 owns every probe's sources; h2 and h3 swallow forwarded UDP. Neighbours
    resolved, the routers' link-local addresses usable."""
    batch = workdir / "h1-addrs"
    batch.write_text(
        "".join(
            f"addr add {a} dev eth0 nodad\n"
            for p in probes
            for a in (f"{p.src}/64", f"{ll_of(p.src)}/64")
        )
    )
    lab.run("h1", ["ip", "-batch", str(batch)])
    sinks = []
    for host in ("h2", "h3"):
        s = lab.ns[host].socket(socket.AF_INET6, socket.SOCK_DGRAM)
        s.bind(("::", DPORT))
        sinks.append(s)
    for host in (H2, H3, R0_LL + "%eth0"):
        out = lab.run("h1", ["ping", "-6", "-n", "-c", "1", "-W", "2", host], check=False)
        assert " 1 received" in out, f"h1 cannot reach {host} before the probes:\n{out}"
    return sinks


def run_probes(lab: RouterLab) -> list[Probe]:
    """Send every probe from h1, and capture what h1, h2 and h3 receive meanwhile."""
    setup_router(lab)
    probes = build_probes()
    sinks = setup_hosts(lab, probes, lab.workdir)
    try:
        return conformance.run_probes(lab, probes, assign, GAP_S, UNRESOLVED_WAIT_S)
    finally:
        for s in sinks:
            s.close()


def owner_of(
    f: bytes, sent: dict[tuple[int, bytes], Probe], by_id: dict[int, Probe],
    by_src: dict[str, Probe],
) -> Probe | None:  # fmt: skip
    """The probe a captured frame belongs to, or None. A frame forwarded keeps the flow
    label, source and destination it was sent with; an ICMPv6 error quotes them; a
    reply or an answer from the router goes to the probe's source."""
    pkt = Ether(f)
    if IPv6 not in pkt:
        return None
    ip = pkt[IPv6]
    owner = sent.get((ip.fl, f[22:54]))
    if owner is None and IPerror6 in pkt:
        owner = by_id.get(pkt[IPerror6].fl)
    if owner is None and ip.src in ROUTER_ADDRS:
        icmp6 = raw(ip.payload)[:1] if ip.nh == 58 else b""
        if not (icmp6 and icmp6[0] in ND_TYPES):
            owner = by_src.get(ip.dst)
    return owner


def assign(probes: list[Probe], frames: dict[str, list[bytes]]) -> None:
    """Hand each captured IPv6 frame to its probe (``owner_of``; the router's
    solicitations, and what is no probe's, are left)."""
    sent = {
        (int.from_bytes(f[15:18], "big") & 0xFFFFF, f[22:54]): p
        for p in probes
        for f in p.frames
        if len(f) >= 54
    }
    by_id = {i: p for p in probes for i in p.ids}
    by_src = {a: p for p in probes for a in (p.src, ll_of(p.src))}
    for host, fs in frames.items():
        for f in fs:
            if (owner := owner_of(f, sent, by_id, by_src)) is not None:
                owner.captured[host].append(f)


def normalised(frame: bytes) -> bytes:
    """The frame with what may legitimately differ zeroed: in a packet the router made,
    its flow label."""
    b = bytearray(frame)
    if (
        len(b) >= 54
        and b[12:14] == b"\x86\xdd"
        and str(ipaddress.IPv6Address(bytes(b[22:38]))) in ROUTER_ADDRS
    ):
        b[15] &= 0xF0
        b[16:18] = b"\0\0"
    return bytes(b)


@pytest.fixture(scope="module")
def kernel_reference() -> dict[str, Probe]:
    """The probes through the Linux kernel as the router (once for every port type)."""
    lab = Lab6(links=LINKS, start_daemon=False, kernel_forwarding=True)
    return conformance.through_kernel(lab, run_probes)


# the drops each run makes, by probe (the rest is forwarded, punted or ignored by the
# kernel behind the TAP); martian_source: punted from our own address (Linux forwards
# such a packet and so does the fast path: src_router_address)
DROPS = {
    "ip6.too_short": ["header_truncated"],
    "ip6.bad_version": ["version_4"],
    "ip6.len_exceeds_frame": ["plen_beyond_frame"],
    "ip6.martian_address": ["src_unspecified", "src_loopback", "src_multicast", "dst_loopback"],
    "ip6.martian_source": ["src_router_address_hlim1", "src_router_address_no_route"],
    "ip6.blackhole": ["blackhole_route"],
}


@pytest.mark.parametrize("pmd", PMDS)
def test_twinplane_answers_as_the_kernel(
    daemon_lab: Callable[..., RouterLab], kernel_reference: dict[str, Probe], pmd: str
) -> None:
    lab = daemon_lab(lab_class=Lab6, links=LINKS, pmd=pmd)
    before = lab.drops()
    probes = {p.name: p for p in run_probes(lab)}
    after = lab.drops()
    diffs = conformance.compare(probes, kernel_reference, normalised, KNOWN_DIFFERENCES,
                                RATE_LIMITED)  # fmt: skip
    assert not diffs, f"{len(diffs)} of {len(probes)} probes differ ({pmd}):\n" + "\n".join(diffs)
    check_absolute(probes)
    moved = {k: after[k] - before.get(k, 0) for k in after if k.startswith("ip6.")}
    want = {k: sum(len(probes[n].frames) for n in names) for k, names in DROPS.items()}
    assert {k: v for k, v in moved.items() if v} == want


def check_absolute(probes: dict[str, Probe]) -> None:
    """What the comparison alone would not catch if both routers were wrong alike."""

    def one(name: str, type_: int, code: int, src: str = R0) -> Packet:
        got = [Ether(f) for f in probes[name].captured["h1"]]
        assert len(got) == 1, f"{name}: {describe(probes[name].captured['h1'])}"
        e = got[0][IPv6]
        icmp = raw(e.payload)
        # from the address of the interface the packet came in by (RFC 4443 2.2)
        assert (e.nh, icmp[0], icmp[1], e.src) == (58, type_, code, src), got[0].summary()
        if type_ < 128:  # an error quotes the probe (RFC 4443 2.4 c)
            assert got[0][IPerror6].fl in probes[name].ids
        return got[0]

    one("no_route", 1, 0)  # RFC 4443 3.1
    one("unresolved_host", 1, 3)
    one("unreachable_route", 1, 0)
    one("prohibit_route", 1, 1)
    one("udp_router_closed_port", 1, 4)
    one("src_link_local_to_host", 1, 2, src=R0_LL)  # beyond the scope of the source
    one("hlim1", 3, 0)  # RFC 4443 3.3
    one("hlim1_other_side", 3, 0)
    one("fragment_hlim1", 3, 0)
    assert one("too_big", 2, 0)[ICMPv6PacketTooBig].mtu == 1280  # RFC 4443 3.2
    assert one("fragment_too_big", 2, 0)[ICMPv6PacketTooBig].mtu == 1280
    one("hbh_unknown_discard_icmp", 4, 2)  # RFC 8200 4.2: option type 10xxxxxx
    one("routing0_to_router", 4, 0)  # RFC 5095 3: type 0 deprecated
    one("echo_router_near", 129, 0)
    one("echo_router_far", 129, 0, src=R2)
    one("link_local_echo", 129, 0, src=R0_LL)
    na = one("ns_router", 136, 0)[ICMPv6ND_NA]  # RFC 4861 7.2.4
    assert (na.tgt, na.S) == (R0, 1)
    for name in ("blackhole_route", "icmp_error_hlim1", "icmp_error_no_route",
                 "icmp_error_too_big", "ns_router_hlim64", "ns_host_behind"):  # fmt: skip
        assert not any(probes[name].captured.values()), f"{name}: {describe_all(probes[name])}"
    # rate-limited as the kernel limits ICMPv6 errors per destination
    for burst in RATE_LIMITED:
        n = len(probes[burst].captured["h1"])
        assert 1 <= n < 10, f"{burst}: {n} ICMPv6 errors for 10 packets"
    # fragments forwarded untouched (hop limit aside, RFC 8200 4.5)
    for name in ("fragment_first", "fragment_middle", "fragment_last", "fragment_pair",
                 "fragment_atomic"):  # fmt: skip
        p = probes[name]
        got = p.captured["h2"]
        assert len(got) == len(p.frames), f"{name}: {len(got)} of {len(p.frames)} reached h2"
        for sent, out in zip(p.frames, got, strict=True):
            assert out[14:21] == sent[14:21] and out[21] == sent[21] - 1, name
            assert out[22:] == sent[22:], name

# SPDX-License-Identifier: BSD-3-Clause
"""Seed corpora of the fuzz targets that come from real implementations.

    python tests/fuzz/make_seeds.py ip4 > tests/fuzz/ip4_seeds.txt
    python tests/fuzz/make_seeds.py ip6 > tests/fuzz/ip6_seeds.txt

ip4: frames built by scapy (as the integration tests send them), in fuzz_ip4's
record format ([flags][split][length][frame]; tests/fuzz/fuzz_ip4.c), on the
unit test's topology (port 0 02:00:00:00:00:10, 10.0.1.1/24; 10.9/16 via
10.0.2.2, 10.8/16 via the unresolved 10.0.2.3, 10.7/16 a next-hop group).

ip6: frames built by scapy, in fuzz_ip6's record format (the same as ip4's; its
flag bits 1-2 change the tables), on its topology (port 0 2001:db8:1::1/64,
2001:db8:9::/48 via the resolved 2001:db8:2::2, 2001:db8:8::/48 via the unresolved
2001:db8:2::3, blackhole, unreachable and prohibit /48s at 66, 67 and 68).

coap: what a real IN-CSE (ACME, started on loopback) answers to the gateway's
registration requests (built by coap-tool, the C codec), with the tokens of
fuzz_coap's two registrations; needs a build (build/tests/tools/coap-tool).

api: requests as the Python client (twinplane.api.encode_request) writes them,
each after fuzz_api's first byte (the size of the writes), alone and
pipelined, with the framing errors docs/API.md names.

netlink: what the Linux kernel sends: the datagrams of an rtnetlink socket in the
multicast groups the sync manager joins, and the answers to its dumps, while `ip`
sets up and tears down a veth pair (ifindex 2 and 3 in a namespace of
their own, as fuzz_netlink's ports) with addresses, routes (via a gateway,
multipath, blackhole, a nexthop-object group losing a member) and neighbours.
Run as root, under flock /tmp/tp-lab.lock.

l2: programs for fuzz_l2 (tests/fuzz/fuzz_l2.c): frames built by scapy (tags,
double tags, floods, storms, static entries), and a Linux bridge's real traffic
captured by tests/fuzz/capture_l2_bridge.sh (pcaps in tests/fuzz/l2_linux_bridge,
converted by pcap_to_l2.py; untagged only, see the script).

ndn_fwd: programs for fuzz_ndn_fwd ([op][face][arg][length][bytes] records;
tests/fuzz/fuzz_ndn_fwd.c) whose packets python-ndn encodes: Interests (with
and without a Nonce, CanBePrefix, MustBeFresh, HopLimit, ApplicationParameters,
/localhost and /localhop names), Data (signed with DigestSha256, unsigned, with
an empty name), NDNLPv2 packets (PIT tokens, Nacks, fragments) and the
exchanges the forwarder's faces see: Interest then Data or Nack back with the
token, aggregation, multicast, expiry, management.

ndn_stream: what a python-ndn application writes on its Unix socket (a prefix
registration, Interests, a Data of NFD's largest size, a Nack in an LpPacket) as
fuzz_ndn_stream's records ([length][bytes]; 0: the peer closes), the stream split
whole, byte by byte, at every element's middle, and followed by the framing errors
(TLV-TYPE 0, a non-shortest VAR-NUMBER, an element longer than 8,800 bytes).
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Callable
from pathlib import Path

P0 = "02:00:00:00:00:10"
H1 = "02:00:00:00:01:02"


def _rec(frame: object, flags: int = 0, split: int = 0) -> bytes:
    b = bytes(frame)  # type: ignore[call-overload]
    return bytes([flags, split]) + struct.pack(">H", len(b)) + b


def ip4() -> dict[str, bytes]:
    from scapy.all import (  # type: ignore[import-untyped]
        ARP,
        ICMP,
        IP,
        TCP,
        UDP,
        Ether,
        IPOption_RR,
        IPv6,
        Padding,
        Raw,
    )

    def eth(dst: str = P0) -> object:
        return Ether(dst=dst, src=H1)

    def ip(dst: str, **kw: object) -> object:
        return IP(src="10.0.1.2", dst=dst, **kw)

    fwd = eth() / ip("10.9.3.4", ttl=64) / UDP(sport=12345, dport=53) / Raw(b"x" * 18)
    return {
        "udp_fwd": _rec(fwd),
        "udp_fwd_nic_checked": _rec(fwd, flags=0x02),
        "udp_chained": _rec(eth() / ip("10.9.3.4") / UDP() / Raw(b"y" * 3000), 0x18, 200),
        "jumbo_chained": _rec(eth() / ip("10.9.3.4") / UDP() / Raw(b"j" * 8000), 0x08, 0),
        "padded": _rec(eth() / ip("10.0.2.2") / ICMP() / Padding(b"\0" * 20)),
        "padded_chained": _rec(eth() / ip("10.0.2.2") / ICMP() / Padding(b"\0" * 200), 0x10, 60),
        "arp": _rec(
            Ether(dst="ff:ff:ff:ff:ff:ff", src=H1)
            / ARP(op=1, hwsrc=H1, psrc="10.0.1.2", pdst="10.0.1.1")
        ),
        "local_bgp": _rec(eth() / ip("10.0.1.1", ttl=1) / TCP(sport=40000, dport=179)),
        "local_bfd": _rec(eth() / ip("10.0.1.1", ttl=255) / UDP(sport=49152, dport=3784)),
        "directed_broadcast": _rec(eth() / ip("10.0.1.255") / UDP(dport=520)),
        "options": _rec(eth() / ip("10.9.0.1", options=[IPOption_RR()]) / UDP()),
        "unresolved": _rec(eth() / ip("10.8.0.1") / UDP()),
        "ttl1": _rec(eth() / ip("10.9.0.1", ttl=1) / UDP()),
        "fragment": _rec(eth() / ip("10.0.1.1", flags=1) / UDP(dport=3784) / Raw(b"z" * 40)),
        "later_fragment": _rec(eth() / ip("10.9.0.1", frag=185) / Raw(b"f" * 64)),
        "multicast_ospf": _rec(
            eth("01:00:5e:00:00:05") / ip("224.0.0.5", proto=89, ttl=1) / Raw(b"\x02\x01\x00\x2c")
        ),
        "martian": _rec(eth() / IP(src="127.0.0.1", dst="10.9.0.1") / UDP()),
        "no_route": _rec(eth() / ip("192.0.2.1") / UDP()),
        "ipv6_in_v4_frame": _rec(
            Ether(dst=P0, src=H1, type=0x0800) / IPv6(dst="2001:db8::1") / UDP()
        ),
        "ipv6": _rec(eth() / IPv6(dst="2001:db8::1") / UDP()),
        "other_host": _rec(eth("02:00:00:00:00:99") / ip("10.9.0.1") / UDP()),
        "burst": _rec(fwd) * 3 + _rec(eth() / ip("10.0.2.1") / UDP(), flags=0x40),
        "burst_port1_no_tokens": _rec(eth("02:00:00:00:00:11") / ip("10.0.2.1") / UDP(), 0x21)
        + _rec(eth() / ip("10.0.1.1") / UDP()),
        # ECMP: 10.7/16 is a group of 10.0.2.2, 10.0.2.4 (weight 2) and the unresolved
        # 10.0.2.3; flows of one burst, a fragmented datagram, TCP, GRE
        "ecmp_flows": b"".join(
            _rec(eth() / ip(f"10.7.{i}.{i * 7 % 250}") / UDP(sport=1024 + i, dport=53))
            for i in range(12)
        ),
        "ecmp_fragments": _rec(eth() / ip("10.7.1.2", flags=1) / UDP(dport=53) / Raw(b"a" * 32))
        + _rec(eth() / ip("10.7.1.2", frag=5) / Raw(b"b" * 32)),
        "ecmp_tcp_gre": _rec(eth() / ip("10.7.3.4") / TCP(sport=40000, dport=443))
        + _rec(eth() / ip("10.7.3.4", proto=47) / Raw(b"\0\0\x08\0")),
        "ecmp_chained_ports": _rec(eth() / ip("10.7.9.9") / UDP() / Raw(b"c" * 600), 0x08, 36),
    }


def ip6() -> dict[str, bytes]:
    from scapy.all import (  # type: ignore[import-untyped]
        UDP,
        Ether,
        ICMPv6EchoRequest,
        ICMPv6ND_NA,
        ICMPv6ND_NS,
        ICMPv6ND_RS,
        ICMPv6NDOptSrcLLAddr,
        IPv6,
        IPv6ExtHdrFragment,
        IPv6ExtHdrHopByHop,
        IPv6ExtHdrRouting,
        Padding,
        Raw,
    )

    def eth(dst: str = P0) -> object:
        return Ether(dst=dst, src=H1)

    def ip(dst: str, **kw: object) -> object:
        return IPv6(src=kw.pop("src", "2001:db8:1::2"), dst=dst, **kw)

    fwd = eth() / ip("2001:db8:9::4", hlim=64) / UDP(sport=12345, dport=53) / Raw(b"x" * 18)
    sn = "ff02::1:ff00:1"
    ns = ICMPv6ND_NS(tgt="2001:db8:1::1") / ICMPv6NDOptSrcLLAddr(lladdr=H1)
    return {
        "udp_fwd": _rec(fwd),
        "udp_chained": _rec(eth() / ip("2001:db8:9::4") / UDP() / Raw(b"y" * 3000), 0x18, 200),
        "jumbo_chained": _rec(eth() / ip("2001:db8:9::4") / UDP() / Raw(b"j" * 8000), 0x08, 0),
        "padded": _rec(eth() / ip("2001:db8:2::2") / Padding(b"\0" * 20)),
        "padded_chained": _rec(
            eth() / ip("2001:db8:2::2") / UDP() / Padding(b"\0" * 200), 0x10, 60
        ),
        "hop_limit_1": _rec(eth() / ip("2001:db8:9::1", hlim=1) / UDP()),
        "hop_limit_1_local": _rec(eth() / ip("2001:db8:1::1", hlim=1) / UDP()),
        "echo_router": _rec(eth() / ip("2001:db8:1::1") / ICMPv6EchoRequest()),
        "ns_multicast": _rec(eth("33:33:ff:00:00:01") / ip(sn, src="fe80::2", hlim=255) / ns),
        "ns_off_link": _rec(eth("33:33:ff:00:00:01") / ip(sn, src="fe80::2", hlim=64) / ns),
        "na_unicast": _rec(
            eth() / ip("fe80::1", src="fe80::2", hlim=255) / ICMPv6ND_NA(tgt="fe80::2")
        ),
        "rs": _rec(
            eth("33:33:00:00:00:02") / ip("ff02::2", src="fe80::2", hlim=255) / ICMPv6ND_RS()
        ),
        "ospf3_hello": _rec(
            eth("33:33:00:00:00:05")
            / ip("ff02::5", src="fe80::2", hlim=1, nh=89)
            / Raw(b"\x03\x01\x00\x24")
        ),
        "hop_by_hop": _rec(eth() / ip("2001:db8:9::1") / IPv6ExtHdrHopByHop() / UDP()),
        "routing": _rec(
            eth() / ip("2001:db8:9::1") / IPv6ExtHdrRouting(addresses=["2001:db8:9::2"]) / UDP()
        ),
        "fragment": _rec(
            eth() / ip("2001:db8:9::1") / IPv6ExtHdrFragment(m=1) / UDP() / Raw(b"f" * 64)
        ),
        "link_local_dst": _rec(eth() / ip("fe80::99") / UDP()),
        "link_local_src": _rec(eth() / ip("2001:db8:9::1", src="fe80::2") / UDP()),
        "multicast_src": _rec(eth() / ip("2001:db8:9::1", src="ff02::1") / UDP()),
        "loopback_dst": _rec(eth() / ip("::1") / UDP()),
        "unresolved": _rec(eth() / ip("2001:db8:8::1") / UDP()),
        "no_route": _rec(eth() / ip("3fff::1") / UDP()),
        "blackhole": _rec(eth() / ip("2001:db8:66::1") / UDP()),
        "unreachable": _rec(eth() / ip("2001:db8:67::1") / UDP()),
        "prohibit": _rec(eth() / ip("2001:db8:68::1") / UDP()),
        "too_big": _rec(eth() / ip("2001:db8:9::1") / UDP() / Raw(b"b" * 1500)),
        "ipv4_in_v6_frame": _rec(Ether(dst=P0, src=H1, type=0x86DD) / Raw(bytes(range(60)))),
        "other_host": _rec(eth("02:00:00:00:00:99") / ip("2001:db8:9::1") / UDP()),
        "burst_neighbour_forgotten": _rec(fwd, flags=0x02) * 3 + _rec(fwd, flags=0x42),
        "burst_route_unreachable": _rec(fwd, flags=0x04) + _rec(fwd) + _rec(fwd, flags=0x44),
        "burst_port1_no_tokens": _rec(eth("02:00:00:00:00:11") / ip("2001:db8:2::1") / UDP(), 0x21)
        + _rec(eth() / ip("2001:db8:1::1") / UDP()),
    }


def coap() -> dict[str, bytes]:
    import socket
    import subprocess
    import tempfile

    from twinplane.lab.acme import Acme
    from twinplane.lab.daemon import build_dir

    tool = str(build_dir() / "tests" / "tools" / "coap-tool")
    # index, generation and the random part, as register.c writes them; fuzz_coap.c gives
    # its two registrations that random part and message ids 1 (dev0) and 5 (dev1)
    dev0, dev1 = "000001005eed0001", "010001005eed0001"
    ae0, ae1 = "PHD-0011223344556677", "PHD-AABBCCDDEEFF0001"
    # name, token, type, path, ty, originator, body
    steps = [
        ("ae_created", dev0, "con", "/cse-in", "2", "C0011223344556677", ["--ae", ae0]),
        ("cnt_created", dev0, "con", f"/cse-in/{ae0}", "3", "C0011223344556677", ["--cnt", "spo2"]),
        (
            "cnt_conflict",
            dev0,
            "con",
            f"/cse-in/{ae0}",
            "3",
            "C0011223344556677",
            ["--cnt", "spo2"],
        ),
        ("ae_registered", dev0, "con", "/cse-in", "2", "C0011223344556677", ["--ae", ae0]),
        ("ae1_created", dev1, "con", "/cse-in", "2", "CAABBCCDDEEFF0001", ["--ae", ae1]),
        ("not_found", dev1, "con", "/cse-in/PHD-NONE", "3", "CAABBCCDDEEFF0001", ["--cnt", "x"]),
        ("no_privilege", dev1, "con", f"/cse-in/{ae0}", "3", "CAABBCCDDEEFF0001", ["--cnt", "y"]),
        ("bad_request", dev1, "con", "/cse-in", "3", "CAABBCCDDEEFF0001", ["--payload", "{"]),
        (
            "cin_non",
            dev0,
            "non",
            f"/cse-in/{ae0}/spo2",
            "4",
            "C0011223344556677",
            ["--value", "97.5"],
        ),
    ]
    out: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory() as tmp:
        acme = Acme(tmp)
        try:
            acme.start()
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sk:
                sk.settimeout(5)
                sk.connect((acme.address, acme.coap_port))
                for mid, (name, tok, typ, path, ty, orig, body) in enumerate(steps, 1):
                    argv = [tool, "create", "--path", path, "--ty", ty, "--from", orig]
                    argv += ["--rqi", f"seed-{mid}", "--type", typ, "--mid", str(mid)]
                    argv += ["--token", tok, *body]
                    req = subprocess.run(argv, capture_output=True, text=True, check=True)
                    sk.send(bytes.fromhex(req.stdout.strip()))
                    out[name] = sk.recv(4096)
        finally:
            acme.close()
    # RFC 7252 appendix A: figure 16's piggybacked answer, and a Reset
    out["rfc7252_fig16_ack"] = bytes.fromhex("60457d34ff32322e332043")
    out["reset"] = bytes.fromhex("70000001")
    return out


def api() -> dict[str, bytes]:
    from twinplane.api import HEADER, encode_request

    def req(i: int, *words: str, json: bool = False) -> bytes:
        return encode_request(i, list(words), json)

    return {
        "echo": b"\x00" + req(1, "echo", "a", "bc"),
        "echo_json": b"\x00" + req(2, "echo", "x y", json=True),
        "help": b"\x00" + req(3, "help"),
        "fail_then_echo": b"\x00" + req(4, "fail") + req(5, "echo", "z"),
        "later_pipelined": b"\x00" + req(6, "later") + req(7, "echo", "after"),
        "unknown": b"\x00" + req(8, "show", "routes"),
        "byte_at_a_time": b"\x01" + req(9, "echo", "slow"),
        "split_7": b"\x07" + req(10, "later") + req(11, "help"),
        "empty_body": b"\x00" + HEADER.pack(1, 1, 12, 0, 0),
        "bad_type": b"\x00" + HEADER.pack(1, 9, 13, 0, 5) + b"help\0",
        "bad_version": b"\x00" + HEADER.pack(2, 1, 14, 0, 5) + b"help\0",
        "too_large": b"\x00" + HEADER.pack(1, 1, 15, 0, (1 << 20) + 1),
        "cut_short": b"\x00" + HEADER.pack(1, 1, 16, 0, 50) + b"echo\0",
        "too_many_words": b"\x00" + req(17, "echo", *(["w"] * 70)),
    }


NL_STEPS = [
    "link add d0 type veth peer name d1",
    "link set d0 up",
    "link set d1 up",
    "addr add 10.0.1.1/24 dev d0",
    "addr add 10.0.2.1/24 dev d1",
    "neigh add 10.0.2.2 lladdr 02:00:00:00:02:02 dev d1 nud reachable",
    "neigh add 10.0.1.2 lladdr 02:00:00:00:01:02 dev d0 nud permanent",
    "route add 10.9.0.0/16 via 10.0.2.2",
    "route add 10.7.0.0/16 nexthop via 10.0.1.2 nexthop via 10.0.2.2",
    "route add blackhole 10.6.0.0/16",
    "nexthop add id 1 via 10.0.1.2 dev d0",
    "nexthop add id 2 via 10.0.2.2 dev d1",
    "nexthop add id 9 group 1/2,3",
    "route add 10.4.0.0/16 nhid 9",
    "nexthop del id 2",
    "route add 10.5.5.5/32 dev d0",
    "route del 10.9.0.0/16",
    "neigh del 10.0.2.2 dev d1",
    "addr del 10.0.1.1/24 dev d0",
    "link del d1",
]


def _nl_done(data: bytes) -> bool:
    """An NLMSG_DONE in the datagram (Linux 6.9 puts it after a dump's last messages)."""
    off = 0
    while off + 16 <= len(data):
        length, typ = struct.unpack_from("=IH", data, off)
        if typ == 3:
            return True
        if length < 16:
            return False
        off += (length + 3) & ~3
    return False


def _nl_capture() -> dict[str, bytes]:
    """In the namespace: the kernel's datagrams for NL_STEPS, and four dumps."""
    import socket
    import subprocess

    groups = 0x1 | 0x4 | 0x10 | 0x40  # RTMGRP_LINK, NEIGH, IPV4_IFADDR, IPV4_ROUTE
    out: dict[str, bytes] = {}
    mon = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    mon.bind((0, groups))
    # RTNLGRP_NEXTHOP (32), beyond the bind mask: NETLINK_ADD_MEMBERSHIP
    mon.setsockopt(270, 1, 32)
    mon.setblocking(False)
    for i, step in enumerate(NL_STEPS):
        subprocess.run(["ip", *step.split()], check=True)
        if i == len(NL_STEPS) - 2:  # before the last deletion: the dumps
            for name, typ, hdr in (
                ("addr", 22, 8),
                ("neigh", 30, 12),
                ("nexthop", 106, 8),
                ("route", 26, 12),
            ):
                req = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
                family = socket.AF_UNSPEC if name == "nexthop" else socket.AF_INET
                body = bytes([family]) + bytes(hdr - 1)
                msg = struct.pack("=IHHII", 16 + len(body), typ, 0x301, 1, 0) + body
                req.send(msg)
                for k in range(4):
                    data = req.recv(65536)
                    out[f"dump_{name}_{k}"] = data
                    if _nl_done(data):
                        break
                req.close()
        k = 0
        while True:
            try:
                data = mon.recv(65536)
            except BlockingIOError:
                break
            out[f"event_{i:02d}_{k}"] = data
            k += 1
    return out


def netlink() -> dict[str, bytes]:
    import pickle
    import subprocess

    ns = "tp-fuzz-seeds"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        res = subprocess.run(
            ["ip", "netns", "exec", ns, sys.executable, __file__, "netlink-in-ns"],
            capture_output=True,
            check=True,
        )
        return pickle.loads(res.stdout)
    finally:
        subprocess.run(["ip", "netns", "del", ns], check=True)


# fuzz_ndn_fwd's operations (tests/fuzz/fuzz_ndn_fwd.c) and faces: 1 Ethernet
# (non-local), 2 Ethernet (local), 3 the port 1 group, 4 UDP (non-local, the
# default route's first hop), 5 UDP (local)
RAW, TOKEN, DATA, NACK, CLOCK, MGMT, FRAG, FRAME = range(8)
ECHO, EXTRA, FRESH = 8, 16, 32
# added to a face: the packets arrive on lcore 1 (context 1's); PEER + 1 + j: from
# on-demand peer 10.0.3.(j + 1)
LCORE1, PEER = 0x80, 0x40


def _op(op: int, face: int, arg: int = 0, b: bytes = b"") -> bytes:
    return bytes([op, face - 1, arg]) + struct.pack(">H", len(b)) + b


def ndn_fwd() -> dict[str, bytes]:
    from ndn.encoding import (
        InterestParam,
        MetaInfo,
        make_data,
        make_interest,
        make_network_nack,
    )
    from ndn.encoding.ndnlp_v2 import LpPacket, LpPacketValue
    from ndn.security import DigestSha256Signer

    def interest(
        name: str, nonce: int | None = 0x01020304, app: bytes | None = None, **kw: object
    ) -> bytes:
        p = InterestParam()
        p.nonce = nonce
        p.lifetime = int(kw.pop("lifetime", 4000))  # type: ignore[call-overload]
        for k, v in kw.items():
            setattr(p, k, v)
        return bytes(make_interest(name, p, app_param=app))

    def data(name: str, content: bytes = b"x", signed: bool = True, **kw: object) -> bytes:
        meta = MetaInfo(**kw)  # type: ignore[arg-type]
        signer = DigestSha256Signer() if signed else None
        return bytes(make_data(name, meta, content, signer=signer))

    def lp(
        fragment: bytes,
        token: bytes | None = None,
        nack: int | None = None,
        index: int | None = None,
        count: int | None = None,
    ) -> bytes:
        v = LpPacketValue()
        v.fragment = fragment
        v.pit_token = token
        v.frag_index = index
        v.frag_count = count
        pkt = LpPacket()
        pkt.lp_packet = v
        b = bytes(pkt.encode())
        if nack is not None:  # python-ndn's own Nack (LpPacket with the reason)
            return bytes(make_network_nack(fragment, nack))
        return b

    i_ab = interest("/a/b")
    i_nononce = interest("/x/1", nonce=None)
    d_ab = data("/a/b", b"hello")
    out = {
        # an exchange: the Interest out to face 4 (the default route), its Data back
        # with the token, then again from the CS
        "exchange": _op(RAW, 1, 0, i_ab)
        + _op(DATA | ECHO, 4, 0, b"hello")
        + _op(RAW, 2, 0, interest("/a/b", 7)),
        # N2: a Nonce-less Interest, Nacked by the upstream with its token
        "nack_no_nonce": _op(RAW, 1, 0, i_nononce) + _op(NACK | ECHO, 4, 150),
        # N1: a Data with an empty name (python-ndn encodes Name "/" as 07 00)
        "data_empty_name": _op(RAW, 4, 0, data("/")),
        "data_empty_name_lp": _op(RAW, 4, 0, lp(data("/"), token=b"\x00" * 4)),
        # Data as a producer that does not echo tokens sends it, for a CanBePrefix
        # Interest: the prefix's entry is found by the name
        "can_be_prefix": _op(RAW, 2, 0, interest("/p", can_be_prefix=True))
        + _op(RAW, 4, 0, data("/p/1/2", b"c")),
        "must_be_fresh": _op(RAW, 1, 0, interest("/f/1", must_be_fresh=True))
        + _op(DATA | ECHO | FRESH, 4, 5, b"f")
        + _op(CLOCK, 1, 100)
        + _op(RAW, 2, 0, interest("/f/1", 9, must_be_fresh=True)),
        "aggregate": _op(RAW, 1, 0, interest("/g/1", 1))
        + _op(RAW, 2, 0, interest("/g/1", 2))
        + _op(RAW, 5, 0, interest("/g/1", 3))
        + _op(DATA, 4, 0, b"g"),
        "duplicate": _op(RAW, 1, 0, interest("/d/1", 5)) + _op(RAW, 2, 0, interest("/d/1", 5)),
        "multicast": _op(RAW, 2, 0, interest("/m/1", hop_limit=4))
        + _op(NACK | ECHO, 1, 150)
        + _op(NACK | ECHO, 3, 50)
        + _op(NACK | ECHO, 4, 100)
        + _op(DATA | ECHO, 5, 0, b"m"),
        "nack_retry": _op(RAW, 2, 0, interest("/r/1"))
        + _op(NACK | ECHO, 4, 150)
        + _op(NACK | ECHO, 1, 150),
        "nack_by_name": _op(RAW, 2, 0, interest("/n/1", 0x0A0B0C0D))
        + _op(RAW, 4, 0, make_network_nack(interest("/n/1", 0x0A0B0C0D), 150)),
        "nack_other_name": _op(RAW, 2, 0, interest("/o/1"))
        + _op(TOKEN | ECHO, 4, 150, interest("/localhost/nfd/x")),
        "nack_wrong_nonce": _op(RAW, 2, 0, interest("/w/1"))
        + _op(NACK | ECHO | EXTRA, 4, 150, b"\x09\x09\x09\x09"),
        "expiry": _op(RAW, 1, 0, interest("/e/1", lifetime=100))
        + _op(CLOCK, 1, 200)
        + _op(DATA | ECHO, 4, 0, b"late"),
        "params": _op(RAW, 1, 0, interest("/q/1", app=b"params")) + _op(DATA | ECHO, 4, 0, b"q"),
        "digest_name": _op(RAW, 1, 0, interest("/dg/1")) + _op(DATA | ECHO | EXTRA, 4, 0, b"z"),
        "unsigned_data": _op(RAW, 4, 0, data("/u/1", signed=False)),
        "unsolicited": _op(RAW, 4, 0, d_ab),
        "localhost_in": _op(RAW, 1, 0, interest("/localhost/app/1"))
        + _op(RAW, 2, 0, interest("/localhost/app/2"))
        + _op(NACK | ECHO, 2, 150),
        "localhost_data": _op(RAW, 2, 0, interest("/localhost/app/3"))
        + _op(RAW, 1, 0, data("/localhost/app/3"))
        + _op(DATA | ECHO, 2, 0, b"lh"),
        "localhop": _op(RAW, 1, 0, interest("/localhop/x/1"))
        + _op(RAW, 2, 0, interest("/localhop/x/2")),
        "management": _op(RAW, 2, 0, interest("/localhost/nfd/rib/list"))
        + _op(RAW, 1, 0, interest("/localhop/nfd/rib/register"))
        + _op(MGMT, 1),
        "local_udp": _op(RAW, 5, 0, interest("/l/1")) + _op(DATA | ECHO, 3, 0, b"l" * 900),
        "lp_token": _op(RAW, 1, 0, lp(i_ab, token=bytes(range(16)))) + _op(DATA | ECHO, 4, 0, b"t"),
        "fragments": _op(FRAG, 1, 3, interest("/fr/" + "a" * 200))
        + _op(FRAG | ECHO | 0x20, 4, 2, d_ab),
        "fragment_lost": _op(FRAG | EXTRA, 1, 4, interest("/fl/1")) + _op(CLOCK | 8, 1, 10),
        "python_fragments": _op(RAW, 1, 0, lp(i_ab[:10], index=0, count=2))
        + _op(RAW, 1, 0, lp(i_ab[10:], index=1, count=2)),
        "frame": _op(FRAME, 1, 0, bytes.fromhex("020000000010020000000101" + "8624") + i_ab),
        # two contexts: names the NDT gives either, received on either lcore (the
        # other context's through its rings), answered with the token on the other
        "two_contexts": b"".join(
            _op(RAW, 1 + (LCORE1 if i % 2 else 0), 0, interest(f"/t{i}/x", 0x100 + i))
            for i in range(6)
        )
        + b"".join(_op(DATA | ECHO, 4 + (LCORE1 if i % 2 else 0), i, b"t") for i in range(4))
        + _op(NACK | ECHO, 4 + LCORE1, 150)
        + _op(RAW, 2 + LCORE1, 0, interest("/t0/x", 0x200))
        + _op(RAW, 2, 0, interest("/t1/x", 0x201)),
        # on-demand UDP faces: a peer's first Interest makes its face (management's
        # poll) and goes on; its Data comes back to it; idle for 2.5 s it goes while
        # an Interest of its is pending; another peer's face comes; the Data of the
        # pending Interest arrives
        "on_demand": _op(RAW, PEER + 1, 0, interest("/od/1"))
        + _op(MGMT, 1)
        + _op(DATA | ECHO, 4, 0, b"od")
        + _op(RAW, PEER + 1, 0, interest("/od/2", lifetime=10000))
        + _op(CLOCK | 8, 1, 25)
        + _op(RAW, PEER + 2 + LCORE1, 0, interest("/od/3"))
        + _op(MGMT, 1)
        + _op(DATA | ECHO, 4, 1, b"late")
        + _op(DATA | ECHO, 4, 0, b"od3"),
    }
    return out


# fuzz_l2's opcodes (tests/fuzz/fuzz_l2.c)
L2_RAW, L2_STATION, L2_REPEAT, L2_BURST, L2_DRAIN, L2_CLOCK = 0, 1, 2, 3, 4, 5
L2_PORT_SET, L2_PORT_L3, L2_BRIDGE, L2_STATIC = 6, 7, 8, 9
# its stations: 02:00:00:00:00:10 + i
L2_H = [f"02:00:00:00:00:{0x10 + i:02x}" for i in range(4)]
# a topology: bridge b0: p0 access 10, p1 access 20, p2 trunk 10,20 native 10, p3
# trunk 10,20; bridge b1: p4 access 10, p5 access 10 with a MAC limit of 2 and storm
# control at 2 frames a second
# (fuzz_l2's port set: CFG % 3 the bridge, CFG >> 2 & 3 the kind; its bridge
# and static ops: OP % 3 the bridge, OP >> 2 & 3 the operation)
L2_TOPO = bytes(
    [L2_BRIDGE, 0x01, 0x01]  # bridge add b1 aging 2 mac-limit auto
    + [L2_PORT_SET, 0, 0x00, 0]  # p0: b0 vlan 10
    + [L2_PORT_SET, 1, 0x06, 0]  # p1: b0 vlan 20
    + [L2_PORT_SET, 2, 0x0C, 0]  # p2: b0 trunk 10,20 native 10
    + [L2_PORT_SET, 3, 0x09, 0]  # p3: b0 trunk 10,20
    + [L2_PORT_SET, 4, 0x01, 0]  # p4: b1 vlan 10
    + [L2_PORT_SET, 5, 0x01, 0xA2]  # p5: b1 vlan 10 mac-limit 2, storm 2/s
)


def l2() -> dict[str, bytes]:
    """Programs for fuzz_l2: a topology (bridge b0: p0 access 10, p1 access 20, p2
    trunk 10,20 native 10, p3 trunk 10,20; bridge b1: p4 access 10, p5 access 10
    with a MAC limit of 2 and storm control at 2 frames a second), then what a
    Linux host behind a bridge sends (ARP, IPv4/UDP, IPv6 neighbour discovery,
    802.1Q and priority tags, a Linux bridge's STP BPDU, LLDP) and attacks
    (double tags, a source-MAC flood, a broadcast storm), frames built by scapy."""
    from scapy.all import (  # type: ignore[import-untyped]
        ARP,
        IP,
        LLC,
        STP,
        UDP,
        Dot1AD,
        Dot1Q,
        Dot3,
        Ether,
        ICMPv6ND_NS,
        ICMPv6NDOptSrcLLAddr,
        IPv6,
        Raw,
    )
    from scapy.contrib.lldp import (  # type: ignore[import-untyped]
        LLDPDUChassisID,
        LLDPDUEndOfLLDPDU,
        LLDPDUPortID,
        LLDPDUTimeToLive,
    )

    def raw(port: int, frame: object) -> bytes:
        b = bytes(frame)  # type: ignore[call-overload]
        return bytes([L2_RAW, port]) + struct.pack(">H", len(b)) + b

    def udp(src: int, dst: str, tag: str = "") -> object:
        return (
            Ether(src=L2_H[src], dst=dst)
            / IP(src=f"10.0.0.{src + 1}", dst="10.0.0.9")
            / UDP(sport=5000, dport=5001)
            / Raw(tag.encode() or b"x" * 18)
        )

    def wrap(frame: object) -> bytes:  # core/afpacket.c's XDP wrap
        b = bytes(frame)  # type: ignore[call-overload]
        return b[:12] + b"\x88\xb5tp" + b[12:]

    bc = "ff:ff:ff:ff:ff:ff"
    arp_req = Ether(src=L2_H[0], dst=bc) / ARP(
        op=1, hwsrc=L2_H[0], psrc="10.0.0.1", pdst="10.0.0.2"
    )
    arp_rep = Ether(src=L2_H[1], dst=L2_H[0]) / ARP(
        op=2, hwsrc=L2_H[1], psrc="10.0.0.2", hwdst=L2_H[0], pdst="10.0.0.1"
    )
    ns = (
        Ether(src=L2_H[2], dst="33:33:ff:00:00:01")
        / Dot1Q(vlan=20)
        / IPv6(src="fe80::2", dst="ff02::1:ff00:1", hlim=255)
        / ICMPv6ND_NS(tgt="fe80::1")
        / ICMPv6NDOptSrcLLAddr(lladdr=L2_H[2])
    )
    # what a Linux bridge with STP on sends: an 802.3 frame, LLC 42/42, a config BPDU
    bpdu = (
        Dot3(src=L2_H[3], dst="01:80:c2:00:00:00")
        / LLC(dsap=0x42, ssap=0x42, ctrl=3)
        / STP(rootid=32768, rootmac=L2_H[3], bridgeid=32768, bridgemac=L2_H[3], portid=0x8001)
    )
    lldp = (
        Ether(src=L2_H[0], dst="01:80:c2:00:00:0e", type=0x88CC)
        / LLDPDUChassisID(subtype=4, id=L2_H[0])
        / LLDPDUPortID(subtype=5, id=b"eth0")
        / LLDPDUTimeToLive(ttl=120)
        / LLDPDUEndOfLLDPDU()
    )
    # access VLAN 10 into VLAN 20: a priority tag, or the native VLAN's tag, before
    # a second tag
    dbl_prio = Ether(src=L2_H[0], dst=bc) / Dot1Q(vlan=0) / Dot1Q(vlan=20) / IP() / UDP()
    dbl_native = Ether(src=L2_H[2], dst=bc) / Dot1Q(vlan=10) / Dot1Q(vlan=20) / IP() / UDP()
    dbl_ad = Ether(src=L2_H[0], dst=bc) / Dot1Q(vlan=0, type=0x88A8) / Dot1AD(vlan=20) / IP()
    prio = Ether(src=L2_H[0], dst=L2_H[1]) / Dot1Q(vlan=0, prio=5) / IP() / UDP()
    tagged = Ether(src=L2_H[3], dst=L2_H[0]) / Dot1Q(vlan=10) / IP() / UDP()
    drain, burst = bytes([L2_DRAIN]), bytes([L2_BURST])
    topo = L2_TOPO
    return {
        "kernel_bridge": topo
        + raw(0, arp_req)
        + raw(2, arp_rep)
        + drain
        + raw(0, udp(0, L2_H[1]))
        + raw(2, udp(1, L2_H[0]))
        + raw(1, udp(1, bc))
        + raw(3, ns)
        + raw(3, tagged)
        + raw(0, prio)
        + drain
        + raw(0, udp(0, L2_H[1], "again"))
        + bytes([L2_REPEAT, 40]),
        "double_tagged": topo
        + raw(0, dbl_prio)
        + raw(0, dbl_ad)
        + raw(2, dbl_native)
        + raw(3, Ether(src=L2_H[3], dst=bc) / Dot1Q(vlan=20) / Dot1Q(vlan=30) / IP()),
        # an af_packet member's frames as the kernel's XDP wrap hands them on (0x88b5,
        # "tp", then the frame's own EtherType): S-tagged and QinQ frames wrapped, a
        # native 0x88b5 frame without the mark, and one too short to unwrap
        "afpacket_wrap": topo
        + raw(0, wrap(Ether(src=L2_H[0], dst=bc, type=0x88A8) / Dot1Q(vlan=20) / IP()))
        + raw(3, wrap(Ether(src=L2_H[3], dst=bc) / Dot1Q(vlan=10, type=0x88A8) / IP()))
        + raw(0, Ether(src=L2_H[0], dst=bc, type=0x88B5) / Raw(b"xx" + b"\x00" * 40))
        + raw(0, Ether(src=L2_H[0], dst=bc, type=0x88B5) / Raw(b"tp"))
        + burst,
        "bpdu_lldp": topo
        + raw(0, bpdu)
        + raw(0, lldp)
        + drain
        + bytes([L2_BRIDGE, 0x0C, 0x01])  # bridge set b0 bpdu drop
        + raw(0, bpdu),
        "mac_flood": topo
        + raw(4, udp(0, bc))
        + bytes([L2_STATION, 5, 0xFF, 24, 0, 20, L2_REPEAT, 63, L2_DRAIN])
        + bytes([L2_STATION, 5, 0xF0, 28, 0, 20, L2_REPEAT, 30, L2_DRAIN])
        + raw(4, udp(0, L2_H[1]))
        + bytes([L2_CLOCK, 40, L2_DRAIN]),
        "storm": topo
        + raw(5, udp(2, bc))
        + bytes([L2_REPEAT, 60, L2_CLOCK, 8])
        + raw(5, udp(2, bc)),
        "aging_move": topo
        + raw(0, udp(0, bc))
        + drain
        + raw(2, udp(0, bc))
        + drain
        + bytes([L2_CLOCK, 30])
        + raw(1, udp(1, L2_H[0]))
        + bytes([L2_PORT_L3, 2])
        + raw(0, udp(0, L2_H[1])),
        "bridges": topo
        # bridge set b0 mac-limit 5; p4, p5 leave b1; bridge del b1
        + bytes([L2_BRIDGE, 0x09, 0x05, L2_PORT_L3, 4, L2_PORT_L3, 5, L2_BRIDGE, 0x04, 0])
        # bridge mac add b0 (p0, VLAN 10), del, flush b0
        + bytes([L2_STATIC, 0x00, 0x01, 0x00, L2_STATIC, 0x06, 0x01, 0, L2_STATIC, 0x09, 0, 0])
        + raw(0, udp(0, bc))
        + burst,
        # static entries against learning, moves, aging, limits and flushes: H0
        # static on p0 (VLAN 10), then heard on p2 (no move: static_conflict),
        # unicast to it from p2, aged past; H2 static on p5 (MAC limit 2) while a
        # flood of sources fills the port; flushes of learned entries keep both;
        # del; add again, then p0 leaves the bridge and takes it along
        "static_entries": topo
        + bytes([L2_STATIC, 0x00, 0x00, 0])  # bridge mac add b0 H0 port p0 vlan 10
        + raw(2, udp(0, bc))
        + drain
        + raw(2, udp(1, L2_H[0]))
        + raw(3, tagged)
        + bytes([L2_CLOCK, 40])
        + raw(2, udp(1, L2_H[0]))
        + bytes([L2_STATIC, 0x01, 0x02, 5])  # bridge mac add b1 H2 port p5 vlan 10
        + bytes([L2_STATION, 5, 0xF0, 2, 0, 20, L2_REPEAT, 20, L2_DRAIN])
        + raw(4, udp(3, L2_H[2]))
        + bytes([L2_STATIC, 0x09, 0, 0])  # bridge mac flush b0
        + bytes([L2_STATIC, 0x0D, 0, 5])  # bridge mac flush b1 port p5
        + bytes([L2_STATIC, 0x00, 0x00, 3])  # the static entry moved: p3
        + raw(0, udp(1, L2_H[0]))
        + bytes([L2_STATIC, 0x06, 0x00, 0])  # bridge mac del b0 H0 vlan 10
        + bytes([L2_STATIC, 0x00, 0x80, 1])  # bridge mac add b0 H0 port p1 vlan 20
        + bytes([L2_PORT_L3, 1])
        + raw(2, udp(0, bc))
        + burst,
    } | _linux_bridge()


def _linux_bridge() -> dict[str, bytes]:
    """A Linux bridge's real traffic (tests/fuzz/capture_l2_bridge.sh's captures in
    tests/fuzz/l2_linux_bridge), as fuzz_l2 programs on L2_TOPO (pcap_to_l2.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from pcap_to_l2 import programs

    return programs(L2_TOPO)


def _chunks(stream: bytes, sizes: list[int]) -> bytes:
    """fuzz_ndn_stream's records: stream cut into chunks of sizes, in turn."""
    out, i, k = b"", 0, 0
    while i < len(stream):
        n = min(sizes[k % len(sizes)], len(stream) - i, 0xFFF)
        out += bytes([n]) if n < 0xF0 else bytes([0xF0 | n >> 8, n & 0xFF])
        out += stream[i : i + n]
        i, k = i + n, k + 1
    return out


def ndn_stream() -> dict[str, bytes]:
    from ndn.app_support.nfd_mgmt import make_command
    from ndn.encoding import InterestParam, MetaInfo, make_data, make_interest
    from ndn.encoding.ndnlp_v2 import make_network_nack
    from ndn.security import DigestSha256Signer

    signer = DigestSha256Signer()
    p = InterestParam()
    p.nonce, p.lifetime = 0x01020304, 4000
    reg = make_interest(make_command("rib", "register", name="/tp/app"), p, signer=signer)
    i1 = make_interest("/tp/app/1", p)
    p2 = InterestParam()
    p2.can_be_prefix, p2.must_be_fresh, p2.nonce = True, True, 7
    i2 = make_interest("/tp/app/2", p2, app_param=b"hello")
    meta = MetaInfo(freshness_period=1000)
    d1 = make_data("/tp/app/1", meta, b"one", signer=signer)
    # NFD's largest: 8,800 bytes in all
    base = len(make_data("/tp/big", meta, b"", signer=signer))
    big = make_data("/tp/big", meta, b"x" * (8800 - base - 4), signer=signer)
    big = make_data("/tp/big", meta, b"x" * (8800 - base - 4 + 8800 - len(big)), signer=signer)
    assert len(big) == 8800, len(big)
    nack = make_network_nack(i1, 150)
    app = reg + i1 + i2 + d1 + nack
    seeds = {
        "app_whole": _chunks(app, [0xFFF]),
        "app_bytes": _chunks(app, [1]),
        "app_odd": _chunks(app, [3, 7, 250, 2]),
        "big_whole": _chunks(big + d1, [0xFFF]),
        "big_split": _chunks(big + d1, [1, 4094, 100]),
        "too_long": _chunks(b"\x06\xfd\x22\x5f" + b"x" * 16, [5]),
        "type_zero": _chunks(d1 + b"\x00\x01x", [0xFFF]),
        "not_shortest": _chunks(i1 + b"\x05\xfd\x00\x10" + b"x" * 16, [2]),
        "close_mid": _chunks(i1[:10], [0xFFF]) + b"\x00" + _chunks(i1, [0xFFF]),
    }
    return seeds


TARGETS: dict[str, Callable[[], dict[str, bytes]]] = {
    "ndn_stream": ndn_stream,
    "ip4": ip4,
    "ip6": ip6,
    "l2": l2,
    "coap": coap,
    "netlink": netlink,
    "api": api,
    "ndn_fwd": ndn_fwd,
}


def main() -> int:
    if sys.argv[1:] == ["netlink-in-ns"]:
        import pickle

        sys.stdout.buffer.write(pickle.dumps(_nl_capture()))
        return 0
    if len(sys.argv) != 2 or sys.argv[1] not in TARGETS:
        print(f"usage: make_seeds.py {'|'.join(TARGETS)}", file=sys.stderr)
        return 2
    t = sys.argv[1]
    print(f"# Seeds of tests/fuzz/fuzz_{t}.c: python tests/fuzz/make_seeds.py {t}; name and hex")
    for name, data in TARGETS[t]().items():
        print(name, data.hex())
    return 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: BSD-3-Clause
"""IPv6 through the real daemon (issue 35, first step): the module and its counters are
shown, malformed packets are dropped into their named counters and not forwarded, and
Neighbor Discovery reaches the kernel behind the TAP, which answers on the wire."""

from __future__ import annotations

import errno
import re
import time
from collections.abc import Callable

import pytest
from scapy.compat import raw
from scapy.layers.inet import UDP
from scapy.layers.inet6 import ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptSrcLLAddr, IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw

from twinplane.api import ApiError
from twinplane.lab import RouterLab
from twinplane.lab.traffic import FrameCapture, Sniffer, l2_socket

DROPS = [
    "ip6.too_short",
    "ip6.bad_version",
    "ip6.len_exceeds_frame",
    "ip6.martian_address",
    "ip6.martian_source",
    "ip6.blackhole",
]
PUNTS = [
    "ip6.neighbor_discovery",
    "ip6.local_destination",
    "ip6.multicast",
    "ip6.link_local",
    "ip6.hop_limit_expired",
    "ip6.extension_header",
    "ip6.unresolved_neighbour",
    "ip6.no_route",
    "ip6.exceeds_mtu",
]


def _bad_version(f: bytes) -> bytes:
    return f[:14] + bytes([0x40 | (f[14] & 0x0F)]) + f[15:]  # RFC 8200 3: version 4


def _len_exceeds_frame(f: bytes) -> bytes:
    return f[:18] + (len(f) - 14 - 40 + 1).to_bytes(2, "big") + f[20:]  # one byte too many


def _martian(f: bytes) -> bytes:
    return f[:22] + bytes.fromhex("ff020000000000000000000000000001") + f[38:]  # RFC 4291 2.7


def _too_short(f: bytes) -> bytes:
    return f[: 14 + 30]


BAD_PACKETS: dict[str, Callable[[bytes], bytes]] = {
    "ip6.bad_version": _bad_version,
    "ip6.len_exceeds_frame": _len_exceeds_frame,
    "ip6.martian_address": _martian,
    "ip6.too_short": _too_short,
}


def test_module_and_counters_listed(router_lab: RouterLab) -> None:
    mods = router_lab.ctl("show", "modules")
    assert {"ethertype": "0x86dd", "module": "ip6"} in mods["ethertypes"], mods["ethertypes"]
    assert {"ethertype": "0x0800", "module": "ip4"} in mods["ethertypes"]
    assert mods["ip6_routes"]["pending"] == 0, mods["ip6_routes"]
    drops = router_lab.drops()
    assert not [r for r in DROPS if r not in drops], sorted(drops)
    punts = router_lab.counters()["exception"]["reasons"]
    assert not [r for r in PUNTS if r not in punts], sorted(punts)


@pytest.mark.parametrize("reason", list(BAD_PACKETS))
def test_bad_packet_dropped_and_counted(router_lab: RouterLab, reason: str) -> None:
    lab = router_lab
    h1_mac = lab.ns["h1"].mac("eth0")
    r_mac = lab.port("p0")["mac"]
    marker = b"TPBAD6-" + reason.encode()
    base = (
        Ether(src=h1_mac, dst=r_mac)
        / IPv6(src="2001:db8:1::2", dst="2001:db8:2::2", hlim=64)
        / UDP(sport=4000, dport=7001)
        / Raw(marker)
    )
    frame = BAD_PACKETS[reason](raw(base))
    count = 3
    before = lab.drops()

    def leaked_bad(p: Packet) -> bool:
        return marker in raw(p)

    with Sniffer(lab.ns["h2"], "eth0", leaked_bad) as sniffer:
        sock = l2_socket(lab.ns["h1"], "eth0")
        try:
            for _ in range(count):
                sock.send(Raw(frame))
        finally:
            sock.close()
        lab.wait_until(
            lambda: lab.drops()[reason] - before[reason] >= count, 2.0, what=f"{reason} +{count}"
        )
        leaked = sniffer.wait(1, timeout=0.3)
    after = lab.drops()
    assert after[reason] - before[reason] == count
    others = {k: after[k] - before[k] for k in DROPS if k != reason and after[k] != before[k]}
    assert not others, f"other IPv6 drop reasons moved too: {others}"
    assert not leaked, f"bad packet forwarded to h2: {leaked[0]!r}"


def test_tap_runs_ipv6_and_forwards(router_lab: RouterLab) -> None:
    """The TAPs have IPv6 (the kernel answers for the ports) and forward it: per device
    where the kernel can (force_forwarding), leaving the namespace's switch alone."""
    r = router_lab.router

    def sysctl(path: str) -> str:
        return r.run(["cat", f"/proc/sys/net/ipv6/conf/{path}"], check=False).stdout.strip()

    for link in router_lab.links:
        assert sysctl(f"{link.tap}/disable_ipv6") == "0", link.tap
        if sysctl("all/force_forwarding") != "":
            assert sysctl(f"{link.tap}/force_forwarding") == "1", link.tap
        else:
            assert sysctl("all/forwarding") == "1"


def tap_link_local(lab: RouterLab, port: str) -> str | None:
    """The TAP's link-local address once duplicate address detection is over."""
    out = lab.router.run(
        ["ip", "-6", "-o", "addr", "show", "dev", lab.link(port).tap, "scope", "link"],
        check=False,
    ).stdout
    for line in out.splitlines():
        m = re.search(r"inet6 (fe80::[0-9a-f:]+)/64", line)
        if m and "tentative" not in line:
            return m.group(1)
    return None


def test_neighbor_solicitation_answered_by_kernel(router_lab: RouterLab) -> None:
    """An NS for the TAP's link-local address from h1, hop limit 255 (RFC 4861 7.1.1), is
    the control class; the kernel behind the TAP answers it with an NA that leaves
    through p0, from the port's MAC, to h1."""
    lab = router_lab
    ll = lab.wait_until(lambda: tap_link_local(lab, "p0"), 5.0, 0.1, "the TAP's link-local address")
    h1_mac = lab.ns["h1"].mac("eth0")
    r_mac = lab.port("p0")["mac"]
    ns = (
        Ether(src=h1_mac, dst=r_mac)
        / IPv6(src="fe80::2", dst=ll, hlim=255)
        / ICMPv6ND_NS(tgt=ll)
        / ICMPv6NDOptSrcLLAddr(lladdr=h1_mac)
    )
    before = lab.counters()["exception"]["reasons"]["ip6.neighbor_discovery"]

    def na(p: Packet) -> bool:
        return p.haslayer(ICMPv6ND_NA) and p[ICMPv6ND_NA].tgt == ll

    with Sniffer(lab.ns["h1"], "eth0", na) as sniffer:
        sock = l2_socket(lab.ns["h1"], "eth0")
        try:
            sock.send(ns)
        finally:
            sock.close()
        got = sniffer.wait(1, timeout=3.0)
    assert got, "no Neighbor Advertisement from the router's kernel"
    reply = got[0]
    assert reply[Ether].src == r_mac and reply[Ether].dst == h1_mac
    assert reply[IPv6].src == ll and reply[IPv6].dst == "fe80::2"
    assert reply[IPv6].hlim == 255
    after = lab.counters()["exception"]["reasons"]["ip6.neighbor_discovery"]
    assert after - before == 1


def test_ping6_and_hop_limit_through_the_kernel(router_lab: RouterLab) -> None:
    """The first packets, before the kernel has resolved h2, go to the kernel behind
    the TAP (unresolved_neighbour), which resolves and forwards them: ping6 h1 -> h2
    gets every reply. A hop limit of 1 is expired by the data plane (RFC 8200 3) and
    the kernel answers Time Exceeded from the router's address."""
    lab = router_lab
    lab.enable_ipv6()
    before = lab.counters()["exception"]["reasons"]
    res = lab.ns["h1"].run(
        ["ping", "-6", "-n", "-c", "3", "-i", "0.2", "-W", "6", "2001:db8:2::2"], check=False
    )
    assert " 3 received" in res.stdout, res.stdout + res.stderr
    mid = lab.counters()["exception"]["reasons"]
    assert mid["ip6.unresolved_neighbour"] - before["ip6.unresolved_neighbour"] >= 1
    res = lab.ns["h1"].run(
        ["ping", "-6", "-n", "-c", "1", "-t", "1", "-W", "3", "2001:db8:2::2"], check=False
    )
    assert "From 2001:db8:1::1" in res.stdout and "Time exceeded" in res.stdout, res.stdout
    after = lab.counters()["exception"]["reasons"]
    assert after["ip6.hop_limit_expired"] - mid["ip6.hop_limit_expired"] == 1


def test_ping6_forwarded_by_data_plane(router_lab: RouterLab) -> None:
    """The kernel's IPv6 routes (the TAPs' connected /64s, their local /128s) and its
    neighbours reach the data plane through netlink: once the first ping has had the
    kernel resolve h1 and h2, ping6 h1 -> h2 is forwarded by the lcores, no packet
    of it punted."""
    lab = router_lab
    lab.enable_ipv6()
    res = lab.ns["h1"].run(
        ["ping", "-6", "-n", "-c", "2", "-i", "0.2", "-W", "6", "2001:db8:2::2"], check=False
    )
    assert " 2 received" in res.stdout, res.stdout + res.stderr
    lab.wait_until(
        lambda: lab.ctl("show", "modules")["ip6_routes"]["neighbours"] >= 2,
        3.0,
        0.05,
        "h1 and h2 as IPv6 neighbours",
    )
    mods = lab.ctl("show", "modules")["ip6_routes"]
    assert mods["routes"] >= 4, mods  # two /64s, two local /128s (and the hosts' /128s)
    routes = {r["prefix"]: r for r in lab.ctl("show", "routes6")["routes"]}
    want = {
        "2001:db8:1::/64": ("connected", ""),
        "2001:db8:2::/64": ("connected", ""),
        "2001:db8:1::1/128": ("local", ""),
        "2001:db8:2::2/128": ("neighbour", "p1"),
    }
    for prefix, (kind, port) in want.items():
        r = routes.get(prefix)
        assert r is not None and r["type"] == kind and r["state"] == "installed", (prefix, routes)
        assert not port or r["port"] == port, r
    before = lab.counters()["exception"]["reasons"]
    res = lab.ns["h1"].run(
        ["ping", "-6", "-n", "-c", "20", "-i", "0.05", "-W", "6", "2001:db8:2::2"], check=False
    )
    assert " 20 received" in res.stdout, res.stdout + res.stderr
    after = lab.counters()["exception"]["reasons"]
    moved = {
        k: after[k] - before[k] for k in after if k.startswith("ip6.") and after[k] != before[k]
    }
    # the hosts' own ND and MLD may go to the kernel meanwhile; an echo request or
    # reply punted would be counted under one of these (the only way past the lcores)
    echo_reasons = [k for k in PUNTS if k not in ("ip6.neighbor_discovery", "ip6.multicast")]
    assert not [k for k in echo_reasons if k in moved], moved


# show routes' fields (IPv4), which show routes6 answers with too
ROUTE_FIELDS = {"prefix", "type", "via", "port", "nexthop", "metric", "state", "reason"}
KINDS = {
    "blackhole": "2001:db8:61::/64",
    "unreachable": "2001:db8:62::/64",
    "prohibit": "2001:db8:63::/64",
}


def test_route6_and_address6_commands(router_lab: RouterLab) -> None:
    """twinctl's IPv6 commands write through the kernel and the data plane follows:
    an address gives its /128 (local) and /64 (connected); a route via h2 is shown with
    show routes' fields and forwarded by the lcores; the route types without a next
    hop; deletes take each away again."""
    lab = router_lab
    lab.enable_ipv6()
    # h2 answers for an address beyond its link: the route via h2 reaches it
    lab.ns["h2"].run(["ip", "-6", "addr", "add", "2001:db8:50::1/128", "dev", "eth0", "nodad"])
    lab.ctl("address6", "add", "2001:db8:9::1/64", "dev", "p1")
    lab.ctl("route6", "add", "2001:db8:50::/48", "via", "2001:db8:2::2")
    lab.ctl("route6", "add", "2001:db8:70::/64", "dev", "p1")  # on-link, no gateway
    for kind, prefix in KINDS.items():
        lab.ctl("route6", "add", prefix, kind)
    lab.wait_until(
        lambda: lab.ctl("show", "routes6")["unpublished"] == 0, 2.0, 0.05, "routes published"
    )
    show = lab.ctl("show", "routes6")
    routes = {r["prefix"]: r for r in show["routes"]}
    assert show["total"] == len(routes) and show["offset"] == 0
    four = lab.ctl("show", "routes")["routes"]
    assert four and ROUTE_FIELDS <= set(four[0]), four[0]
    for r in routes.values():
        assert ROUTE_FIELDS <= set(r), r
    want = {
        "2001:db8:9::1/128": ("local", "", "p1"),
        "2001:db8:9::/64": ("connected", "", "p1"),
        "2001:db8:50::/48": ("gateway", "2001:db8:2::2", "p1"),
        "2001:db8:70::/64": ("connected", "", "p1"),
        **{prefix: (kind, "", "") for kind, prefix in KINDS.items()},
    }
    for prefix, (kind, via, port) in want.items():
        r = routes.get(prefix)
        assert r is not None, (prefix, sorted(routes))
        assert (r["type"], r["via"], r["port"], r["state"]) == (kind, via, port, "installed"), r
        assert r["kernel_paths"] == 1, r
    # the kernel has them as twinplane shows them
    assert "2001:db8:50::/48 via 2001:db8:2::2" in lab.run("r", "ip -6 route show 2001:db8:50::/48")
    assert "2001:db8:9::1/64" in lab.run("r", "ip -6 addr show dev tp-p1")
    # paging, as show routes
    page = lab.ctl("show", "routes6", "offset", "1", "limit", "2")
    assert page["routes"] == show["routes"][1:3] and page["total"] == show["total"]

    # forwarded by the lcores through the new route (h2 resolved by the first pings)
    res = lab.ns["h1"].run(
        ["ping", "-6", "-n", "-c", "3", "-i", "0.2", "-W", "6", "2001:db8:50::1"], check=False
    )
    assert " 3 received" in res.stdout, res.stdout + res.stderr
    c0 = lab.counters()
    res = lab.ns["h1"].run(
        ["ping", "-6", "-n", "-c", "20", "-i", "0.02", "-W", "6", "2001:db8:50::1"], check=False
    )
    c1 = lab.counters()
    assert " 20 received" in res.stdout, res.stdout + res.stderr
    assert c1["ports"]["p1"]["tx"] - c0["ports"]["p1"]["tx"] >= 20
    assert c1["exception"]["to_kernel"] - c0["exception"]["to_kernel"] < 5

    lab.ctl("route6", "del", "2001:db8:50::/48")
    lab.ctl("route6", "del", "2001:db8:61::/64")
    lab.ctl("address6", "del", "2001:db8:9::1/64", "dev", "p1")
    lab.wait_until(
        lambda: (
            not {"2001:db8:50::/48", "2001:db8:61::/64", "2001:db8:9::1/128"}
            & {r["prefix"] for r in lab.ctl("show", "routes6")["routes"]}
        ),
        2.0,
        0.05,
        "deleted routes and address gone from show routes6",
    )
    assert lab.route6("2001:db8:62::/64") is not None  # the others stay


# (words, errno, what the message must say)
BAD_COMMANDS = [
    (("route6", "add", "2001:db8::/129", "via", "2001:db8:2::2"), errno.EINVAL,
     "route6 add: bad IPv6 prefix '2001:db8::/129' (want ADDR/LEN, LEN 0-128)"),
    (("route6", "add", "2001:db8::", "via", "2001:db8:2::2"), errno.EINVAL,
     "bad IPv6 prefix '2001:db8::'"),
    (("route6", "add", "10.0.0.0/8", "via", "2001:db8:2::2"), errno.EINVAL,
     "bad IPv6 prefix '10.0.0.0/8'"),
    (("route6", "add", "2001:db8::/32", "via", "2001:db8:zz::2"), errno.EINVAL,
     "route6 add: bad gateway '2001:db8:zz::2'"),
    (("route6", "add", "2001:db8::/32", "via", "ff02::1"), errno.EINVAL,
     "bad gateway 'ff02::1'"),
    (("route6", "add", "2001:db8::/32", "via", "fe80::1"), errno.EINVAL,
     "the link-local gateway 'fe80::1' needs 'dev PORT'"),
    (("route6", "add", "2001:db8::/32", "through", "2001:db8:2::2"), errno.EINVAL,
     "unknown keyword 'through'"),
    (("route6", "add", "2001:db8::/32", "nowhere"), errno.EINVAL,
     "unknown route type 'nowhere'"),
    (("route6", "add", "2001:db8::/32", "dev", "p9"), errno.ENODEV, "no port named 'p9'"),
    (("route6", "add", "2001:db8::/32"), errno.EINVAL, "usage: route6 add"),
    (("route6", "del", "2001:db8:77::/64"), errno.ESRCH, "route6 del: the kernel refused"),
    (("address6", "add", "2001:db8:9::1/64", "dev", "p7"), errno.ENODEV,
     "address6 add: no port named 'p7'"),
    (("address6", "add", "ff02::1/64", "dev", "p1"), errno.EINVAL,
     "'ff02::1/64' is a multicast, unspecified or loopback address"),
    (("address6", "add", "2001:db8:9::1", "dev", "p1"), errno.EINVAL,
     "address6 add: bad IPv6 prefix '2001:db8:9::1'"),
    (("neigh6", "add", "2001:db8:2::9", "lladdr", "02:00:00:00:00", "dev", "p1"),
     errno.EINVAL, "neigh6 add: bad MAC '02:00:00:00:00'"),
    (("show", "routes6", "limit", "0"), errno.EINVAL, "show routes6: bad limit '0'"),
    (("route", "add", "2001:db8::/32", "via", "2001:db8:2::2"), errno.EINVAL,
     "route add: '2001:db8::/32' is an IPv6 prefix: use 'route6 add'"),
    (("address", "add", "2001:db8:9::1/64", "dev", "p1"), errno.EINVAL,
     "use 'address6 add'"),
]  # fmt: skip


def test_ip6_commands_name_what_is_wrong(router_lab: RouterLab) -> None:
    """Malformed IPv6 commands fail with an error naming the bad word (one lab for all)."""
    router_lab.enable_ipv6()
    wrong = []
    for words, status, needle in BAD_COMMANDS:
        with pytest.raises(ApiError) as exc:
            router_lab.ctl(*words)
        if exc.value.status != -status or needle not in exc.value.message:
            wrong.append((words, exc.value.status, exc.value.message))
    assert not wrong, wrong
    assert not [r for r in router_lab.routes6() if r["prefix"].startswith("2001:db8::")]


def test_show_neigh6_lists_resolved_neighbours(router_lab: RouterLab) -> None:
    """show neigh6 is IPv4's show neigh for IPv6 (the same fields): after a ping6 h1 ->
    h2 through the router, both hosts are there, resolved, each with its MAC, its
    port and its next hop."""
    lab = router_lab
    lab.enable_ipv6()
    res = lab.ns["h1"].run(
        ["ping", "-6", "-n", "-c", "2", "-i", "0.2", "-W", "6", "2001:db8:2::2"], check=False
    )
    assert " 2 received" in res.stdout, res.stdout + res.stderr
    want = {
        "2001:db8:1::2": (lab.ns["h1"].mac("eth0").lower(), "p0"),
        "2001:db8:2::2": (lab.ns["h2"].mac("eth0").lower(), "p1"),
    }

    def resolved() -> dict[str, dict[str, object]]:
        n = lab.ctl("show", "neigh6")["neighbours"]
        return {x["ip"]: x for x in n if x["ip"] in want and x["state"] == "resolved"}

    got = lab.wait_until(lambda: len(resolved()) == 2 and resolved(), 3.0, 0.05, "neighbours")
    for ip, (mac, port) in want.items():
        n = got[ip]
        assert set(n) == {"ip", "mac", "port", "state", "nexthop", "refs"}, n
        assert (n["mac"], n["port"]) == (mac, port), n
        assert isinstance(n["nexthop"], int) and n["nexthop"] >= 6, n  # not a special id
        assert isinstance(n["refs"], int) and n["refs"] >= 1, n  # its /128 at least


MAX_ROUTES6 = 16
UNFIT6, COVER6 = "2001:db8:9:1::/64", "2001:db8:9::/48"


def _routes6(lab: RouterLab) -> dict[str, dict[str, object]]:
    return {x["prefix"]: x for x in lab.ctl("show", "routes6")["routes"]}


def _state6(lab: RouterLab, prefix: str) -> object:
    return _routes6(lab).get(prefix, {}).get("state")


def _unfit_lab(daemon_lab: Callable[..., RouterLab]) -> tuple[RouterLab, list[str]]:
    """A lab whose IPv6 table (16 rules per copy) is filled by blackholes to the last
    rule, UNFIT6 (back towards h1) then unfit, its cover COVER6 (via h2) punting, and
    no other route unfit. Returns the lab and the blackholes."""
    lab = daemon_lab(daemon_args=["--max-routes6", str(MAX_ROUTES6)])
    lab.enable_ipv6()
    res = lab.ns["h1"].run(["ping", "-6", "-n", "-c", "2", "-i", "0.2", "-W", "6",
                            "2001:db8:2::2"], check=False)  # fmt: skip
    assert " 2 received" in res.stdout, res.stdout + res.stderr
    r = lab.router
    r.run(["ip", "-6", "route", "add", COVER6, "via", "2001:db8:2::2", "dev", "tp-p1"])
    lab.wait_until(lambda: _state6(lab, COVER6) == "installed", 3.0, 0.05, "the /48")
    fitting = [p for p, x in _routes6(lab).items() if x["state"] in ("installed", "punting")]
    assert len(fitting) < MAX_ROUTES6, fitting
    # exactly the rules left: the /64 is then the only route waiting for one
    blackholes = [f"2001:db8:f0{i:02x}::/48" for i in range(MAX_ROUTES6 - len(fitting))]
    for p in blackholes:
        r.run(["ip", "-6", "route", "add", "blackhole", p])
    lab.wait_until(
        lambda: all(_state6(lab, p) == "installed" for p in blackholes), 3.0, 0.05, "blackholes"
    )
    r.run(["ip", "-6", "route", "add", UNFIT6, "via", "2001:db8:1::2", "dev", "tp-p0"])
    lab.wait_until(
        lambda: _state6(lab, UNFIT6) == "unfit" and _state6(lab, COVER6) == "punting",
        3.0, 0.05, "the /64 unfit, the /48 punting",
    )  # fmt: skip
    others = [p for p, x in _routes6(lab).items() if x["state"] == "unfit" and p != UNFIT6]
    assert not others, f"routes unfit besides the /64 (a route came in late): {others}"
    return lab, blackholes


def _send_unfit(lab: RouterLab, dsts: list[tuple[str, bytes]]) -> dict[str, list[bytes]]:
    """A UDP frame from h1 to the router for each (destination, marker): the frames
    marked TPUNFIT that h1 and h2 received."""
    h1_mac, r_mac = lab.ns["h1"].mac("eth0"), lab.port("p0")["mac"]
    caps = {h: FrameCapture(lab.ns[h], "eth0") for h in ("h1", "h2")}
    try:
        for dst, marker in dsts:
            caps["h1"].send(raw(Ether(src=h1_mac, dst=r_mac)
                                / IPv6(src="2001:db8:1::2", dst=dst, hlim=64)
                                / UDP(sport=4000, dport=7001) / Raw(marker)))  # fmt: skip
        time.sleep(1.0)
        return {h: [f for f in c.frames() if b"TPUNFIT" in f] for h, c in caps.items()}
    finally:
        for c in caps.values():
            c.close()


def _route_unfit(lab: RouterLab) -> int:
    n: int = lab.counters()["exception"]["reasons"]["ip6.route_unfit"]
    return n


def test_unfit_route_punts_through_its_cover(daemon_lab: Callable[..., RouterLab]) -> None:
    """A route the data plane has no room for stays right (issue 35: IPv4's rules for
    unfit routes). With 16 rules per copy, filled with blackholes, 2001:db8:9:1::/64
    (back towards h1) does not fit: its cover 2001:db8:9::/48 (via h2) punts, so the
    kernel forwards by the unfit route, back to h1, and the rest of the /48 to h2;
    the unfit route deleted, the cover forwards on the lcores again. Without the
    cover's punt, 2001:db8:9:1::5 would go to h2."""
    lab, _ = _unfit_lab(daemon_lab)
    before = _route_unfit(lab)
    got = _send_unfit(lab, [("2001:db8:9:1::5", b"TPUNFIT-1"), ("2001:db8:9:2::5", b"TPUNFIT-2")])
    assert [b"TPUNFIT-1" in f for f in got["h1"]] == [True], got  # back by the unfit route
    assert [b"TPUNFIT-2" in f for f in got["h2"]] == [True], got  # the rest of the /48
    after = _route_unfit(lab)
    assert after - before == 2

    lab.router.run(["ip", "-6", "route", "del", UNFIT6])
    lab.wait_until(lambda: _state6(lab, COVER6) == "installed", 3.0, 0.05, "the /48")
    got = _send_unfit(lab, [("2001:db8:9:1::5", b"TPUNFIT-3")])
    assert len(got["h2"]) == 1 and not got["h1"], got
    assert _route_unfit(lab) == after


def test_unfit_route_retried_when_room_frees(daemon_lab: Callable[..., RouterLab]) -> None:
    """As IPv4's (test_tables.py): a delete elsewhere frees a rule, the unfit route is
    retried and installed within a few seconds, its cover stops punting, and its
    packets are forwarded by the data plane, back to h1, none to the kernel. Counted
    in show modules' ip6_routes: unfit_pending, refit, retries."""
    lab, blackholes = _unfit_lab(daemon_lab)
    s1 = lab.ctl("show", "modules")["ip6_routes"]
    lab.router.run(["ip", "-6", "route", "del", "blackhole", blackholes[0]])
    lab.wait_until(
        lambda: _state6(lab, UNFIT6) == "installed" and _state6(lab, COVER6) == "installed",
        3.0, 0.05, "the /64 and the /48 installed after a delete",
    )  # fmt: skip
    s2 = lab.ctl("show", "modules")["ip6_routes"]
    assert s1["unfit_pending"] == 1, s1
    assert s2["unfit_pending"] == 0 and s2["refit"] == s1["refit"] + 1, (s1, s2)
    assert s2["retries"] > s1["retries"], (s1, s2)
    before = _route_unfit(lab)
    got = _send_unfit(lab, [("2001:db8:9:1::5", b"TPUNFIT-4")])
    assert [b"TPUNFIT-4" in f for f in got["h1"]] == [True] and not got["h2"], got
    assert _route_unfit(lab) == before, "still punted once installed"

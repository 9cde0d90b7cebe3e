# SPDX-License-Identifier: BSD-3-Clause
"""ECMP through the real daemon: a kernel multipath route (``ip route add ... nexthop via A
nexthop via B``) and a nexthop-object group (``ip nexthop add id N group A/B``) in the
router's namespace become next-hop groups in the data plane; many UDP flows from h1 arrive
on both next hops within 10 %, a flow's datagrams on one of them in order, and removing a
next hop moves only its flows."""

from __future__ import annotations

import contextlib
import os
import socket
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator

import pytest

from twinplane.lab import RouterLab
from twinplane.lab.frr import Frr, frr_available
from twinplane.lab.router import Link
from twinplane.lab.traffic import UdpReceiver, ping

LINKS = (
    Link("p0", "h1", "10.0.1.1/24", "10.0.1.2/24"),
    Link("p1", "h2", "10.0.2.1/24", "10.0.2.2/24"),
    Link("p2", "h3", "10.0.3.1/24", "10.0.3.2/24"),
    Link("p3", "h4", "10.0.4.1/24", "10.0.4.2/24"),
)
HOPS = {"h2": "10.0.2.2", "h3": "10.0.3.2", "h4": "10.0.4.2"}
NET = "10.99.0.0/16"  # the multipath route's prefix
OBJ_NET = "10.98.0.0/16"  # the nexthop-object group's
FRR_NET = "10.97.0.0/16"  # the route FRR installs
PORT = 7001
FLOWS = 4096  # one datagram each: to 10.99.x.y, one address a flow
LONG_FLOWS, LONG_LEN = 16, 64  # flows whose order is checked
ROUTE_SYNC_S = 2.0


def flow_dst(net: str, i: int) -> str:
    base = net.split(".")
    return f"{base[0]}.{base[1]}.{i >> 8 & 0xFF}.{i & 0xFF}"


def send(lab: RouterLab, sends: Iterable[tuple[str, int, bytes]], pace: int = 64) -> int:
    """Send (dst, sport, payload) from h1, pausing 2 ms every ``pace`` datagrams so
    that the ports' rings (512 frames) are never overrun; return how many went."""
    socks: dict[int, socket.socket] = {}
    n = 0
    try:
        for dst, sport, data in sends:
            s = socks.get(sport)
            if s is None:
                s = socks[sport] = lab.ns["h1"].socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.bind(("0.0.0.0", sport))
            s.sendto(data, (dst, PORT))
            n += 1
            if n % pace == 0:
                time.sleep(0.002)
    finally:
        for s in socks.values():
            s.close()
    return n


def collect(rx: dict[str, UdpReceiver], want: int, timeout: float = 10.0) -> dict[str, list[bytes]]:
    """Everything the hosts got, once ``want`` datagrams arrived in all or ``timeout``."""
    deadline = time.monotonic() + timeout
    got: dict[str, list[bytes]] = {h: [] for h in rx}
    while time.monotonic() < deadline:
        for h, r in rx.items():
            r.drain()
            got[h] = [d for d, _ in r.received]
        if sum(len(v) for v in got.values()) >= want:
            break
        time.sleep(0.05)
    return got


def flows_to_hosts(lab: RouterLab, net: str, hosts: Iterable[str]) -> dict[int, str]:
    """One datagram for each of FLOWS flows (destination addresses in ``net``): the host
    each arrived on. Every flow arrives, and on one host only."""
    with receivers(lab, hosts) as rx:
        send(lab, ((flow_dst(net, i), 20000, b"F%06d" % i) for i in range(FLOWS)))
        got = collect(rx, FLOWS)
    where: dict[int, str] = {}
    for h, data in got.items():
        for d in data:
            i = int(d[1:])
            assert i not in where, f"flow {i} arrived on {where[i]} and {h}"
            where[i] = h
    lost = FLOWS - len(where)
    # the lab's veths may drop a few under load; a flow lost is not a flow moved
    assert lost <= FLOWS // 100, f"{lost} of {FLOWS} datagrams lost"
    return where


@contextlib.contextmanager
def receivers(lab: RouterLab, hosts: Iterable[str]) -> Iterator[dict[str, UdpReceiver]]:
    """UDP receivers on PORT in each host (which accept the test's prefixes: a local route
    for them on lo), closed at the end."""
    rx = {h: UdpReceiver(lab.ns[h], PORT) for h in hosts}
    try:
        yield rx
    finally:
        for r in rx.values():
            r.close()


def wait_hops(
    lab: RouterLab, prefix: str, hops: dict[str, int], timeout: float = ROUTE_SYNC_S
) -> dict[str, object]:
    """Wait until ``show routes`` has ``prefix`` as a multipath route whose live hops are
    exactly ``hops`` (gateway -> weight), each with buckets; return the route."""

    def ready() -> dict[str, object] | None:
        r = lab.route(prefix)
        if r is None or r.get("type") != "multipath" or r.get("state") != "installed":
            return None
        live = {h["via"]: h["weight"] for h in r["hops"] if h["state"] == "alive"}
        if live != hops or any(h["buckets"] == 0 for h in r["hops"] if h["via"] in hops):
            return None
        return r

    try:
        return lab.wait_until(ready, timeout, 0.02, f"{prefix} via {hops}")
    except TimeoutError:
        pytest.fail(
            f"{prefix} not a group of {hops}: {lab.route(prefix)}; "
            f"kernel: {lab.run('r', 'ip -4 route show')}"
        )


def resolve(lab: RouterLab) -> None:
    """Every next hop resolved in the data plane (the router's kernel pings them)."""
    for ip in HOPS.values():
        assert ping(lab.ns["r"], ip, count=1) == 1, ip

    def resolved() -> bool:
        ok = {n["ip"] for n in lab.neighbours() if n.get("state") == "resolved"}
        return set(HOPS.values()) <= ok

    lab.wait_until(resolved, 3.0, what="next hops resolved")


def make_ecmp_lab(daemon_lab: Callable[..., RouterLab], **kwargs: object) -> RouterLab:
    """The four-port lab, the hosts accepting the test's prefixes, the next hops
    resolved."""
    lab = daemon_lab(links=LINKS, **kwargs)
    for h in HOPS:
        # the hosts accept the test's prefixes as their own
        for net in (NET, OBJ_NET, FRR_NET):
            lab.run(h, ["ip", "route", "add", "local", net, "dev", "lo"])
    resolve(lab)
    return lab


@pytest.fixture
def ecmp_lab(daemon_lab: Callable[..., RouterLab]) -> RouterLab:
    return make_ecmp_lab(daemon_lab)


def spread(where: dict[int, str]) -> Counter[str]:
    return Counter(where.values())


def test_multipath_route_spreads_keeps_order_moves_only_removed(ecmp_lab: RouterLab) -> None:
    lab = ecmp_lab
    lab.run("r", f"ip route add {NET} nexthop via {HOPS['h2']} nexthop via {HOPS['h3']}")
    wait_hops(lab, NET, {HOPS["h2"]: 1, HOPS["h3"]: 1})
    c0 = lab.counters()
    where2 = flows_to_hosts(lab, NET, ("h2", "h3"))
    n = spread(where2)
    total = sum(n.values())
    assert set(n) == {"h2", "h3"}
    for h in ("h2", "h3"):  # both within 10 % of half
        assert abs(n[h] - total / 2) <= 0.1 * total / 2, n
    c1 = lab.counters()
    # forwarded by the data plane, not handed to the kernel (whose own multipath
    # would spread them too)
    to_kernel = c1["exception"]["to_kernel"] - c0["exception"]["to_kernel"]
    print(f"2 next hops, {total} flows: {dict(n)}; to the kernel meanwhile: {to_kernel}")
    assert to_kernel < FLOWS // 100, c1["exception"]

    # long flows, interleaved: each on one host, in the order sent
    with receivers(lab, ("h2", "h3")) as rx:
        send(
            lab,
            (
                (flow_dst(NET, 7 * f), 30000 + f, b"L%02d-%04d" % (f, s))
                for s in range(LONG_LEN)
                for f in range(LONG_FLOWS)
            ),
        )
        got = collect(rx, LONG_FLOWS * LONG_LEN)
    hosts_of: dict[int, set[str]] = {}
    for h, data in got.items():
        last: dict[int, int] = {}
        for d in data:
            f, s = int(d[1:3]), int(d[4:])
            hosts_of.setdefault(f, set()).add(h)
            assert s > last.get(f, -1), f"flow {f} reordered on {h}: {s} after {last[f]}"
            last[f] = s
    assert all(len(v) == 1 for v in hosts_of.values()), hosts_of
    assert len(hosts_of) == LONG_FLOWS
    print(
        f"{LONG_FLOWS} flows of {LONG_LEN}: {sum(len(v) for v in got.values())} arrived, "
        f"each flow on one host, in order"
    )

    # a third next hop comes, then goes: only its flows move
    lab.run(
        "r",
        f"ip route replace {NET} nexthop via {HOPS['h2']} nexthop via {HOPS['h3']} "
        f"nexthop via {HOPS['h4']}",
    )
    wait_hops(lab, NET, {HOPS["h2"]: 1, HOPS["h3"]: 1, HOPS["h4"]: 1})
    where3 = flows_to_hosts(lab, NET, ("h2", "h3", "h4"))
    moved_in = [i for i in where3 if i in where2 and where3[i] != where2[i]]
    assert all(where3[i] == "h4" for i in moved_in), "a flow moved between h2 and h3"
    lab.run("r", f"ip route replace {NET} nexthop via {HOPS['h2']} nexthop via {HOPS['h3']}")
    wait_hops(lab, NET, {HOPS["h2"]: 1, HOPS["h3"]: 1})
    where2b = flows_to_hosts(lab, NET, ("h2", "h3", "h4"))
    stayed = moved = 0
    for i, h in where2b.items():
        if i not in where3:
            continue
        if where3[i] == "h4":
            moved += 1
            assert h in ("h2", "h3")
        else:
            stayed += 1
            assert h == where3[i], f"flow {i} moved from {where3[i]} to {h}"
    print(
        f"3 next hops: {dict(spread(where3))}, {len(moved_in)} flows moved, all to h4; "
        f"h4 removed: its {moved} flows moved, {stayed} others stayed"
    )
    assert moved > FLOWS // 4 and stayed > FLOWS // 2, (moved, stayed)
    lab.run("r", f"ip route del {NET}")
    lab.wait_until(lambda: lab.route(NET) is None, ROUTE_SYNC_S, what=f"{NET} deleted")


def test_nexthop_object_group(ecmp_lab: RouterLab) -> None:
    """FRR installs nexthop objects when the kernel has them: a group of three, a member
    deleted (``ip nexthop del``): only its flows move. The kernel announces the routes of
    the group expanded (RTA_MULTIPATH, net.ipv4.nexthop_compat_mode=1, its default)."""
    lab = ecmp_lab
    assert lab.run("r", "sysctl -n net.ipv4.nexthop_compat_mode").strip() == "1"
    for k, (h, ip) in enumerate(HOPS.items()):
        lab.run("r", f"ip nexthop add id {11 + k} via {ip} dev {lab.link(h).tap}")
    lab.run("r", "ip nexthop add id 100 group 11/12,2/13")
    lab.run("r", f"ip route add {OBJ_NET} nhid 100")
    r = wait_hops(lab, OBJ_NET, {HOPS["h2"]: 1, HOPS["h3"]: 2, HOPS["h4"]: 1})
    assert [h["buckets"] for h in r["hops"]] == [64, 128, 64], r  # type: ignore[index]
    # the text form: each next hop with its weight, and its port
    line = next(x for x in lab.twinctl("show", "routes").splitlines() if OBJ_NET in x)
    print(line)
    assert "10.0.2.2(1) 10.0.3.2(2) 10.0.4.2(1)" in line and "p1 p2 p3" in line, line
    before = flows_to_hosts(lab, OBJ_NET, ("h2", "h3", "h4"))
    n = spread(before)
    total = sum(n.values())
    assert abs(n["h3"] - total / 2) <= 0.1 * total / 2, n  # weight 2 of 4
    lab.run("r", "ip nexthop del id 13")
    wait_hops(lab, OBJ_NET, {HOPS["h2"]: 1, HOPS["h3"]: 2})
    after = flows_to_hosts(lab, OBJ_NET, ("h2", "h3", "h4"))
    for i, h in after.items():
        if i in before and before[i] != "h4":
            assert h == before[i], f"flow {i} moved from {before[i]} to {h}"
    assert "h4" not in spread(after)
    print(f"nexthop group 1/2/1: {dict(n)}; member 13 (h4) deleted: {dict(spread(after))}")
    lab.run("r", f"ip route del {OBJ_NET}")
    lab.run("r", "ip nexthop flush")
    lab.wait_until(lambda: lab.route(OBJ_NET) is None, ROUTE_SYNC_S, what=f"{OBJ_NET} deleted")


@pytest.mark.frr
@pytest.mark.skipif(
    not frr_available(("zebra", "staticd")) and os.environ.get("CI") != "true",
    reason="FRR zebra/staticd not installed in /usr/lib/frr",
)
def test_frr_ecmp_route(ecmp_lab: RouterLab) -> None:
    """An ECMP route as FRR's zebra installs it (three static next hops; zebra uses
    nexthop objects when the kernel has them): a group of three in the data plane; one
    next hop withdrawn in FRR: only its flows move."""
    lab = ecmp_lab
    hops = [HOPS["h2"], HOPS["h3"], HOPS["h4"]]
    frr = Frr(lab, lab.router, {"staticd": "".join(f"ip route {FRR_NET} {ip}\n" for ip in hops)})
    frr.start()
    wait_hops(lab, FRR_NET, dict.fromkeys(hops, 1), timeout=15.0)
    kernel = lab.run("r", f"ip route show {FRR_NET}")
    print(f"zebra installed: {kernel.strip()}")
    before = flows_to_hosts(lab, FRR_NET, ("h2", "h3", "h4"))
    n = spread(before)
    assert set(n) == {"h2", "h3", "h4"}, n
    frr.vtysh("configure terminal", f"no ip route {FRR_NET} {HOPS['h4']}")
    wait_hops(lab, FRR_NET, dict.fromkeys(hops[:2], 1), timeout=15.0)
    print(f"zebra then: {lab.run('r', f'ip route show {FRR_NET}').strip()}")
    after = flows_to_hosts(lab, FRR_NET, ("h2", "h3", "h4"))
    for i, h in after.items():
        if i in before and before[i] != "h4":
            assert h == before[i], f"flow {i} moved from {before[i]} to {h}"
    print(f"FRR ECMP: {dict(n)}; h4 withdrawn: {dict(spread(after))}")
    assert "h4" not in spread(after)


def test_ecmp_groups_bounded(daemon_lab: Callable[..., RouterLab]) -> None:
    """With --ecmp-groups 1, a second multipath route does not fit: counted in show sync,
    its rule punts and the kernel forwards its traffic; once the first goes, it fits."""
    lab = make_ecmp_lab(daemon_lab, daemon_args=["--ecmp-groups", "1"])
    two = f"nexthop via {HOPS['h2']} nexthop via {HOPS['h3']}"
    lab.run("r", f"ip route add {NET} {two}")
    wait_hops(lab, NET, {HOPS["h2"]: 1, HOPS["h3"]: 1})
    lab.run("r", f"ip route add {OBJ_NET} {two}")

    def punting() -> dict[str, object] | None:
        r = lab.route(OBJ_NET)
        return r if r is not None and r.get("reason") == "nexthop_groups" else None

    r = lab.wait_until(punting, ROUTE_SYNC_S, 0.02, f"{OBJ_NET} unfit")
    sync = lab.ctl("show", "sync")
    print(
        f"second route: {r['state']} ({r['reason']}); show sync: ecmp_groups "
        f"{sync['ecmp_groups']}/{sync['max_ecmp_groups']}, unfit {sync['unfit']}"
    )
    assert r["state"] == "punting" and sync["unfit"]["nexthop_groups"] == 1, (r, sync)
    assert sync["ecmp_groups"] == 1 and sync["max_ecmp_groups"] == 1, sync
    c0 = lab.counters()
    with receivers(lab, ("h2", "h3")) as rx:
        send(lab, ((flow_dst(OBJ_NET, i), 20000, b"F%06d" % i) for i in range(64)))
        got = collect(rx, 64)
    c1 = lab.counters()
    assert sum(len(v) for v in got.values()) >= 60  # through the kernel
    assert c1["exception"]["to_kernel"] - c0["exception"]["to_kernel"] >= 60
    lab.run("r", f"ip route del {NET}")
    wait_hops(lab, OBJ_NET, {HOPS["h2"]: 1, HOPS["h3"]: 1}, timeout=5.0)

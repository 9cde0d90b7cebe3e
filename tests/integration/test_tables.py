# SPDX-License-Identifier: BSD-3-Clause
"""Tables under pressure (issue 15, item 3), through the real daemon and kernel.

The daemon runs with room for ``MAX_ROUTES`` routes; the kernel gets more. A
/24 that does not fit is listed and counted (``show sync``, ``show routes``),
its traffic reaches its own next hop through the kernel and never the covering
/16's next hop; ``twinctl route add`` of a route that does not fit fails with
what is full and leaves the kernel as it was; a delete elsewhere lets the
waiting route in, and the data plane then forwards it itself.

Both next hops (h2 for the covering /16, h3 for the /24) answer on the
destination address, so the host a datagram reaches tells which route took it.
"""

from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import Callable
from typing import Any

from twinplane.lab import RouterLab
from twinplane.lab.daemon import twinctl_binary
from twinplane.lab.router import Link
from twinplane.lab.traffic import UdpReceiver, ping, udp_send

LINKS = (
    Link("p0", "h1", "10.0.1.1/24", "10.0.1.2/24"),
    Link("p1", "h2", "10.0.2.1/24", "10.0.2.2/24"),
    Link("p2", "h3", "10.0.3.1/24", "10.0.3.2/24"),
)
NH_COVER, NH_UNFIT = "10.0.2.2", "10.0.3.2"
COVER, UNFIT, OTHER = "172.16.0.0/16", "172.16.5.0/24", "172.16.6.0/24"
DST_UNFIT, DST_COVER = "172.16.5.9", "172.16.9.9"
MAX_ROUTES = 24
PORT = 7002
N = 20


def reasons(lab: RouterLab) -> dict[str, int]:
    r: dict[str, int] = lab.counters()["exception"]["reasons"]
    return r


def where(lab: RouterLab, dst: str) -> dict[str, int]:
    """Send N datagrams h1 -> dst; how many reached h2 and h3."""
    with UdpReceiver(lab.ns["h2"], PORT) as r2, UdpReceiver(lab.ns["h3"], PORT) as r3:
        udp_send(lab.ns["h1"], dst, PORT, lambda i: b"tbl-%04d" % i, count=N, interval=0.002)
        r2.wait(N, timeout=1.5)
        r3.wait(N, timeout=0.5)
        r2.drain()
        return {"h2": len(r2.received), "h3": len(r3.received)}


def route_state(lab: RouterLab, prefix: str) -> dict[str, Any] | None:
    return lab.route(prefix)


def test_route_that_does_not_fit_goes_through_the_kernel(
    daemon_lab: Callable[..., RouterLab],
) -> None:
    lab = daemon_lab(links=LINKS, daemon_args=["--max-routes", str(MAX_ROUTES)])
    r = lab.router
    for h in ("h2", "h3"):
        for dst in (DST_UNFIT, DST_COVER):
            lab.run(h, ["ip", "addr", "add", f"{dst}/32", "dev", "lo"])
    # every neighbour resolved first: their host routes take their rules now, not later
    for nh in ("10.0.1.2", NH_COVER, NH_UNFIT):
        assert ping(r, nh, count=1) == 1
    lab.wait_until(
        lambda: (
            {n["ip"] for n in lab.neighbours() if n["state"] == "resolved"}
            >= {"10.0.1.2", NH_COVER, NH_UNFIT}
        ),
        5,
        0.1,
        "neighbours resolved",
    )
    r.run(["ip", "route", "add", COVER, "via", NH_COVER])
    lab.wait_until(lambda: lab.route(COVER), 2, 0.05, f"{COVER} in show routes")
    sync0 = lab.ctl("show", "sync")
    assert sync0["max_routes"] == MAX_ROUTES
    free = MAX_ROUTES - sync0["routes"]
    assert free > 0, sync0
    # the data plane filled by routes it can take
    fill = [f"172.20.{i}.0/24" for i in range(free)]
    for p in fill:
        r.run(["ip", "route", "add", p, "via", NH_COVER])
    lab.wait_until(
        lambda: lab.ctl("show", "sync")["routes"] == MAX_ROUTES, 3, 0.05, "route table full"
    )

    # one more in the kernel: it does not fit
    r.run(["ip", "route", "add", UNFIT, "via", NH_UNFIT])
    lab.wait_until(lambda: route_state(lab, UNFIT), 2, 0.05, f"{UNFIT} listed")
    st = route_state(lab, UNFIT)
    assert st is not None
    assert (st["state"], st["reason"], st["via"], st["port"]) == (
        "unfit",
        "lpm_rules",
        NH_UNFIT,
        "p2",
    ), st
    cover = route_state(lab, COVER)
    assert cover is not None and cover["state"] == "punting" and cover["unfit_below"] == 1, cover
    sync1 = lab.ctl("show", "sync")
    assert sync1["unfit"]["lpm_rules"] == sync0["unfit"]["lpm_rules"] + 1, sync1
    assert sync1["unfit_pending"] == 1 and sync1["unfit_covers"] == 1, sync1
    assert lab.daemon is not None
    assert f"route {UNFIT} does not fit" in lab.daemon.logs()

    # its traffic reaches its own next hop, through the kernel; the cover's, too
    c0 = reasons(lab)
    got = where(lab, DST_UNFIT)
    assert got == {"h2": 0, "h3": N}, f"{UNFIT} (unfit) traffic: {got}"
    got = where(lab, DST_COVER)
    assert got == {"h2": N, "h3": 0}, f"{COVER} traffic while it punts: {got}"
    c1 = reasons(lab)
    assert c1["ip4.route_unfit"] - c0["ip4.route_unfit"] >= 2 * N, (c0, c1)

    # through the API: an error saying what is full, and the kernel as before
    res = subprocess.run(
        [str(twinctl_binary()), "-s", lab.daemon.socket, "route", "add", OTHER, "via", NH_UNFIT],
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )
    assert res.returncode != 0, res
    assert "does not fit" in res.stderr and "LPM rules" in res.stderr, res.stderr
    assert r.run(["ip", "-4", "route", "show", OTHER]).stdout.strip() == ""
    assert route_state(lab, OTHER) is None

    # a delete elsewhere: the waiting route is retried and now forwarded by the data plane
    r.run(["ip", "route", "del", fill[0]])
    lab.wait_until(
        lambda: (route_state(lab, UNFIT) or {}).get("state") == "installed",
        3,
        0.05,
        f"{UNFIT} installed after a delete",
    )
    sync2 = lab.ctl("show", "sync")
    assert sync2["refit"] >= sync1["refit"] + 1 and sync2["unfit_pending"] == 0, sync2
    cover = route_state(lab, COVER)
    assert cover is not None and cover["state"] == "installed", cover
    c0 = reasons(lab)
    got = where(lab, DST_UNFIT)
    assert got == {"h2": 0, "h3": N}, f"{UNFIT} traffic once installed: {got}"
    c1 = reasons(lab)
    assert c1["ip4.route_unfit"] == c0["ip4.route_unfit"], "still punted once installed"


def test_netlink_backlog_applied_over_several_passes(
    daemon_lab: Callable[..., RouterLab],
) -> None:
    """2,000 route messages queued while the daemon is stopped: applied 1,024 a
    control-loop pass (``passes_capped``), without an overrun or a resync, all of them."""
    lab = daemon_lab()
    assert lab.daemon is not None
    n = 2000
    batch = lab.workdir / "backlog.batch"
    batch.write_text("".join(f"route add 10.{100 + i // 250}.{i % 250}.0/24 via 10.0.2.2\n"
                             for i in range(n)))  # fmt: skip
    before = lab.ctl("show", "sync")
    lab.daemon.proc.send_signal(signal.SIGSTOP)
    try:
        lab.router.run(["ip", "-batch", str(batch)])
    finally:
        lab.daemon.proc.send_signal(signal.SIGCONT)
    lab.wait_until(
        lambda: lab.ctl("show", "sync")["routes"] >= before["routes"] + n,
        10,
        0.1,
        f"{n} routes applied",
    )
    after = lab.ctl("show", "sync")
    assert after["passes_capped"] > before["passes_capped"], after
    assert (after["overruns"], after["resyncs"]) == (before["overruns"], before["resyncs"]), after
    assert after["unfit_pending"] == 0, after


def test_show_routes_pages_and_twinctl_file(daemon_lab: Callable[..., RouterLab]) -> None:
    """Review N15 and F15. 10,000 routes through the kernel (netlink): twinctl shows them
    all (it failed past about 7,000, "not an answer of API version 1", at its 1 MiB cap),
    and ``show routes offset N limit M`` pages through exactly the same set. Numbers are
    decimal ("010" is ten, not eight; "0x10" is refused, named). ``twinctl -f`` runs a
    line of any length as one command and refuses one of more than 64 words, naming it."""
    lab = daemon_lab()
    assert lab.daemon is not None
    n = 10_000
    batch = lab.workdir / "many.batch"
    batch.write_text("".join(f"route add 10.{100 + i // 250}.{i % 250}.0/24 via 10.0.2.2\n"
                             for i in range(n)))  # fmt: skip
    before = lab.ctl("show", "sync")["routes"]
    lab.router.run(["ip", "-batch", str(batch)])
    lab.wait_until(lambda: lab.ctl("show", "sync")["routes"] >= before + n, 20, 0.2, "routes")

    def twinctl(*words: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        argv = [str(twinctl_binary()), "-s", lab.daemon.socket, *words]
        return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=60)

    whole = twinctl("-j", "show", "routes")
    assert whole.returncode == 0, whole.stderr
    assert len(whole.stdout) > 1 << 20  # over the old cap (the text is about 0.9 MiB)
    every = json.loads(whole.stdout)
    total = every["total"]
    assert total >= n and len(every["routes"]) == total and every["offset"] == 0
    assert every == lab.ctl("show", "routes")
    text = twinctl("show", "routes")
    assert text.returncode == 0 and f"\ntotal: {total}\n" in text.stdout, text.stderr
    # pages of 4,096 through the same table, in the same order
    paged: list[str] = []
    while len(paged) < total:
        page = json.loads(twinctl("-j", "show", "routes", "offset", str(len(paged)),
                                  "limit", "4096").stdout)  # fmt: skip
        assert page["total"] == total and page["offset"] == len(paged)
        assert 0 < len(page["routes"]) <= 4096
        paged += [r["prefix"] for r in page["routes"]]
    assert paged == [r["prefix"] for r in every["routes"]]
    # decimal numbers
    ten = lab.ctl("show", "routes", "offset", "010", "limit", "1")["routes"]
    assert ten == every["routes"][10:11]
    for words, why in (
        (["limit", "0x10"], "show routes: bad limit '0x10' (1-65536)"),
        (["limit", "65537"], "show routes: bad limit '65537' (1-65536)"),
        (["offset", "+3"], "show routes: bad offset '+3'"),
        (["offset"], "show routes: offset needs a number"),
        (["from", "3"], "show routes: unknown keyword 'from' (offset N, limit M)"),
    ):
        res = twinctl("show", "routes", *words)
        assert res.returncode == 1 and f"error: {why}" in res.stderr, (words, res.stderr)

    # twinctl -f: a 3,000-byte line is one command; 65 words are refused, named
    cmds = lab.workdir / "cmds.txt"
    cmds.write_text(
        "show routes offset 5" + " " * 3000 + "limit 2 # the same command\n"
        + "show routes" + " limit 1" * 32 + "\n"
        + "# a comment\n"
        + "show routes offset 7 limit 1\n"
    )  # fmt: skip
    res = twinctl("-j", "-f", str(cmds))
    assert res.returncode == 1
    assert f"twinctl: {cmds}:2: 66 words, at most 64: not run" in res.stderr, res.stderr
    docs = [json.loads(ln) for ln in res.stdout.splitlines() if ln.startswith("{")]
    assert [d["routes"] for d in docs] == [every["routes"][5:7], every["routes"][7:8]]

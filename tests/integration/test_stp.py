# SPDX-License-Identifier: BSD-3-Clause
"""RSTP against the Linux bridge's STP (issue 39): a triangle with a real loop.

Two Linux bridges with the kernel's STP (802.1D: Debian 12 has no mstpd) and
twinplane's bridge, each pair of them on a veth::

        ka (Linux br0, priority 4096, 10.0.0.1) ---ab/ba--- kb (Linux br0, 8192, 10.0.0.2)
           eth0 |                                               | eth0
          r-p0  |            twinplane br0 (32768)              |  r-p1
                +----- p0 ------------ [ ] ------------ p1 -----+
                                        | p2
                                       h3 (10.0.0.3)

ka is the root; kb's path to it is as short as twinplane's and kb's bridge
identifier is lower, so on the kb-twinplane link kb's port is designated and
twinplane's p1 is the one port of the triangle that blocks (alternate,
discarding). Hello 1 s, max age 6 s, forward delay 4 s on every bridge.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from twinplane.lab.netns import veth
from twinplane.lab.switch import SwitchHost, SwitchLab
from twinplane.lab.traffic import Sniffer

HELLO, MAX_AGE, FWD_DELAY = 1, 6, 4
HOSTS = (
    SwitchHost("p0", "ka", "10.0.0.11/24", "stp-cost 2"),
    SwitchHost("p1", "kb", "10.0.0.12/24", "stp-cost 2"),
    SwitchHost("p2", "h3", "10.0.0.3/24"),
)
LINUX = {"ka": ("4096", "10.0.0.1/24"), "kb": ("8192", "10.0.0.2/24")}
STP_WORDS = f"stp on priority 32768 hello {HELLO} max-age {MAX_AGE} forward-delay {FWD_DELAY}"


class StpLab(SwitchLab):
    """The triangle: the switch lab's hosts ka and kb made Linux bridges with STP on,
    linked to each other (ab/ba), their addresses on br0."""

    def build_topology(self) -> None:
        super().build_topology()
        ka, kb = self.ns["ka"], self.ns["kb"]
        veth(ka, "ab", kb, "ba")
        for name, ns in (("ka", ka), ("kb", kb)):
            prio, addr = LINUX[name]
            # iproute2 takes the times in centiseconds
            ns.run(
                f"ip link add br0 type bridge stp_state 1 priority {prio} "
                f"hello_time {HELLO * 100} max_age {MAX_AGE * 100} "
                f"forward_delay {FWD_DELAY * 100}"
            )
            ns.run("ip addr flush dev eth0")
            for port in ("eth0", "ab" if name == "ka" else "ba"):
                ns.run(f"ip link set {port} master br0")
            ns.run(f"ip addr add {addr} dev br0")
            ns.run("ip link set br0 up")


@pytest.fixture
def stp_lab(daemon_lab: Callable[..., Any]) -> Callable[..., StpLab]:
    def make(**kwargs: Any) -> StpLab:
        lab: StpLab = daemon_lab(lab_class=StpLab, hosts=HOSTS, bridge_words=STP_WORDS, **kwargs)
        return lab

    return make


def linux_states(lab: StpLab, host: str) -> dict[str, str]:
    """The Linux bridge's ports in ``host`` and their STP states."""
    out = lab.ns[host].run("bridge -j link show").stdout
    return {p["ifname"]: p["state"] for p in json.loads(out)}


def linux_info(lab: StpLab, host: str) -> dict[str, Any]:
    """The Linux bridge's settings and STP state (``ip -d link``)."""
    info = json.loads(lab.ns[host].run("ip -j -d link show br0").stdout)[0]
    return dict(info["linkinfo"]["info_data"])


def linux_id(lab: StpLab, host: str, key: str = "bridge_id") -> str:
    """An identifier of the Linux bridge in ``host`` as twinplane writes them
    (``1000.aabbccddeeff``); the kernel writes ``1000.aa:bb:...`` without zeros."""
    prio, mac = linux_info(lab, host)[key].split(".")
    return f"{int(prio, 16):04x}." + "".join(f"{int(b, 16):02x}" for b in mac.split(":"))


def tp_ports(lab: StpLab) -> dict[str, dict[str, Any]]:
    return {p["port"]: p for p in lab.bridge_info()["ports"]}


def converged(lab: StpLab) -> bool:
    ports = tp_ports(lab)
    roles = {n: (p["stp"]["role"], p["stp"]["state"]) for n, p in ports.items()}
    return roles == {
        "p0": ("root", "forwarding"),
        "p1": ("alternate", "discarding"),
        "p2": ("designated", "forwarding"),
    } and all(s == "forwarding" for h in ("ka", "kb") for s in linux_states(lab, h).values())


def wait_converged(lab: StpLab, timeout: float) -> None:
    lab.wait_until(lambda: converged(lab), timeout, 0.25, "the triangle converged")


@pytest.mark.parametrize("pmd", ["af_packet", "af_xdp"])
def test_triangle_with_linux_stp(stp_lab: Callable[..., StpLab], pmd: str) -> None:
    """Exactly one port of the triangle blocks (twinplane's p1); the roots agree; a
    broadcast crosses each link once (no storm); twinplane speaks 802.1D to the
    Linux bridges (Configuration BPDUs), and show bridge has the roles and states.
    On both port types."""
    lab = stp_lab(pmd=pmd)
    # the Linux ports need 2 x forward delay (listening, learning) after the first
    # BPDUs; twinplane's edge port (p2) 3 s (EdgeDelay)
    wait_converged(lab, 6 * FWD_DELAY + 10)
    info = lab.bridge_info()
    stp = info["stp"]
    assert stp["on"] is True and stp["protocol"] == "rstp"
    # one root: ka, in twinplane's view and its own; kb reaches it over ba (cost 2;
    # through twinplane it would be 4)
    assert stp["root_id"] == linux_id(lab, "ka") == linux_id(lab, "ka", "root_id")
    assert linux_info(lab, "kb")["root_path_cost"] == 2
    assert stp["bridge_id"].startswith("8000.") and stp["is_root"] is False
    assert stp["root_port"] == "p0" and stp["root_path_cost"] == 2
    ports = tp_ports(lab)
    # toward the Linux bridges twinplane speaks their protocol; p2 is an edge
    assert ports["p0"]["stp"]["version"] == "stp" and ports["p1"]["stp"]["version"] == "stp"
    assert ports["p1"]["stp"]["designated_bridge"] == linux_id(lab, "kb")
    assert ports["p2"]["stp"]["oper_edge"] is True
    # exactly one blocked port in the triangle: twinplane's p1 (Linux: all forwarding)
    blocked = [n for n, p in ports.items() if p["stp"]["state"] != "forwarding"]
    blocked += [
        f"{h}:{i}"
        for h in ("ka", "kb")
        for i, s in linux_states(lab, h).items()
        if s != "forwarding"
    ]
    assert blocked == ["p1"]
    # the text form shows them too
    text = lab.ctl_text("show", "bridge", "br0")
    assert re.search(r"alternate", text) and re.search(r"root", text)

    # no storm: a broadcast ping from h3 (marked payload) crosses each link once
    mark = "5354504c4f4f5021"  # "STPLOOP!"
    sniffers = {
        "tp-ka": Sniffer(lab.ns["ka"], "eth0", lambda p: bytes.fromhex(mark) in bytes(p)),
        "ka-kb": Sniffer(lab.ns["kb"], "ba", lambda p: bytes.fromhex(mark) in bytes(p)),
        "kb-tp": Sniffer(lab.ns["kb"], "eth0", lambda p: bytes.fromhex(mark) in bytes(p)),
    }
    for s in sniffers.values():
        s.start()
    disc0 = int(ports["p1"]["counters"].get("stp_discarding", 0))
    lab.ns["h3"].run(
        ["ping", "-n", "-q", "-b", "-c", "3", "-i", "0.3", "-W", "1", "-p", mark, "10.0.0.255"],
        check=False,
    )
    got = {k: s.wait(1000, 3.0) for k, s in sniffers.items()}
    counts = {k: len(v) for k, v in got.items()}
    assert counts == {"tp-ka": 3, "ka-kb": 3, "kb-tp": 3}, counts
    # kb floods them back toward twinplane, whose blocked port drops them
    disc = int(tp_ports(lab)["p1"]["counters"].get("stp_discarding", 0))
    assert disc - disc0 >= 3


@pytest.mark.parametrize("pmd", ["af_packet", "af_xdp"])
def test_failover_to_the_blocked_port(stp_lab: Callable[..., StpLab], pmd: str) -> None:
    """Cutting twinplane's forwarding path to the root (ka's end of the p0 link goes
    down) moves h3's traffic to the blocked port p1 (now root) within RSTP's times:
    the root's information ages out after 3 x hello (or the link is seen down), then
    the alternate port forwards at once (802.1D-2004 17.29, no forward delay);
    when the link comes back, p1 blocks again. On both port types."""
    lab = stp_lab(pmd=pmd)
    wait_converged(lab, 6 * FWD_DELAY + 10)
    interval, count = 0.1, 150
    out: dict[str, str] = {}

    def pinger() -> None:
        res = lab.ns["h3"].run(
            ["ping", "-n", "-i", str(interval), "-c", str(count), "-W", "1", "10.0.0.1"],
            check=False,
            timeout=count * interval + 30,
        )
        out["stdout"] = res.stdout

    t = threading.Thread(target=pinger)
    t.start()
    time.sleep(3.0)
    cut_seq = int(3.0 / interval)
    lab.ns["ka"].run("ip link set eth0 down")
    # the cut is seen on the next tick: p0's link down (802.1D-2004 17.19.18
    # portEnabled), so p0 is disabled at once rather than after the root's
    # information ages out (l2_link_up reads the netdev: neither PMD reports it)
    lab.wait_until(
        lambda: (
            (tp_ports(lab)["p0"]["stp"]["link"], tp_ports(lab)["p0"]["stp"]["role"])
            == (False, "disabled")
        ),
        2 * HELLO + 0.5,
        0.1,
        "p0's link seen down",
    )
    lab.wait_until(
        lambda: (
            (tp_ports(lab)["p1"]["stp"]["role"], tp_ports(lab)["p1"]["stp"]["state"])
            == ("root", "forwarding")
        ),
        3 * HELLO + 5,
        0.1,
        "p1 the root port, forwarding",
    )
    t.join()
    seqs = sorted(int(m) for m in re.findall(r"icmp_seq=(\d+)", out.get("stdout", "")))
    assert seqs, out
    # the longest run of lost echoes after the cut: the outage
    after = [s for s in seqs if s >= cut_seq - 5]
    gaps = [b - a - 1 for a, b in zip(after, after[1:], strict=False)]
    outage_s = max(gaps, default=0) * interval
    print(f"failover: {outage_s:.1f} s without replies ({len(seqs)} of {count} answered)")
    # RSTP's times: information aged after 3 x hello, checked on the 1 s tick, then
    # the alternate forwards at once; the neighbours relearn h3 from its next echo
    assert outage_s <= 3 * HELLO + 2.5, (outage_s, seqs)
    assert seqs[-1] >= count - 5  # traffic flows through p1 at the end
    stp = lab.bridge_info()["stp"]
    assert stp["root_port"] == "p1" and stp["root_path_cost"] == 4
    assert stp["topology_changes"] >= 1
    # the link back: p0 the root port again, p1 blocked
    lab.ns["ka"].run("ip link set eth0 up")
    wait_converged(lab, 4 * FWD_DELAY + 10)

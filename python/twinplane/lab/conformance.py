# SPDX-License-Identifier: BSD-3-Clause
"""Differential conformance: the same crafted frames sent from h1 through the Linux
kernel as a router and through twinplane on the same topology, and what h1, h2 and h3
receive compared byte for byte (tests/integration/test_conformance.py for IPv4,
test_conformance6.py for IPv6).

The machinery both families share: the probes (``Probe``, ``build_probes``), sending
them and capturing the three hosts (``run_probes``), and the comparison with its ignore
rules and the differences twinplane keeps on purpose (``compare``). What is a family's
own is passed in: how a captured frame finds its probe (``assign``) and what in a
packet the router made may differ (``normalised``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from twinplane.lab.router import Link, RouterLab
from twinplane.lab.traffic import FrameCapture

HOSTS = ("h1", "h2", "h3")
# Both tests' topology: h1 sends, h2 and h3 receive; h3's link has a 1280-byte MTU
# (IPv6's minimum). Fixed MACs, so that both routers' frames compare byte for byte.
LINKS = (
    Link("p0", "h1", "10.0.1.1/24", "10.0.1.2/24",
         router_mac="02:00:00:00:01:01", host_mac="02:00:00:00:01:02"),
    Link("p1", "h2", "10.0.2.1/24", "10.0.2.2/24",
         router_mac="02:00:00:00:02:01", host_mac="02:00:00:00:02:02"),
    Link("p2", "h3", "10.0.3.1/24", "10.0.3.2/24", mtu=1280,
         router_mac="02:00:00:00:03:01", host_mac="02:00:00:00:03:02"),
)  # fmt: skip


@dataclass
class Probe:
    name: str
    src: str
    frames: list[bytes]
    ids: set[int]  # IPv4 ids, IPv6 flow labels: what a frame (or the one it quotes) carries
    captured: dict[str, list[bytes]] = field(default_factory=dict)  # host -> frames


# (the probe's source, a function giving a fresh id) -> the frames to send, in order
Builder = Callable[[str, Callable[[], int]], list[bytes]]
# frame -> the frame with what may legitimately differ zeroed
Normaliser = Callable[[bytes], bytes]
# (probes, host -> frames): each frame handed to its probe's ``captured``
Assigner = Callable[[list["Probe"], dict[str, list[bytes]]], None]
# a probe's name -> (why twinplane differs, a check of twinplane's own result)
Known = dict[str, tuple[str, Callable[[Probe], bool]]]


def build_probes(
    builders: dict[str, Builder], src_of: Callable[[int], str], ids: Iterable[int]
) -> list[Probe]:
    """The probes, probe i from address ``src_of(i)``, each frame with fresh ids."""
    it = iter(ids)
    probes = []
    for i, (name, build) in enumerate(builders.items()):
        src = src_of(i)
        used: set[int] = set()

        def nid(used: set[int] = used) -> int:
            n = next(it)
            used.add(n)
            return n

        probes.append(Probe(name, src, build(src, nid), used))
    return probes


def run_probes(
    lab: RouterLab, probes: list[Probe], assign: Assigner, gap_s: float, settle_s: float
) -> list[Probe]:
    """Send every probe from h1 (``gap_s`` apart) and capture what h1, h2 and h3 receive
    until ``settle_s`` after the first (at least 0.5 s after the last); the frames are
    handed to their probes by ``assign``."""
    caps = {h: FrameCapture(lab.ns[h], "eth0") for h in HOSTS}
    try:
        t0 = time.monotonic()
        for p in probes:
            for f in p.frames:
                caps["h1"].send(f)
                time.sleep(0.005 if len(p.frames) > 2 else 0)
            time.sleep(gap_s)
        time.sleep(max(0.5, settle_s - (time.monotonic() - t0)))
        frames = {h: c.frames() for h, c in caps.items()}
    finally:
        for c in caps.values():
            c.close()
    for p in probes:
        p.captured = {h: [] for h in frames}
    assign(probes, frames)
    return probes


def through_kernel(lab: RouterLab, run: Callable[[RouterLab], list[Probe]]) -> dict[str, Probe]:
    """The probes ``run`` sends through ``lab`` with the Linux kernel as the router (no
    daemon), by name; the lab closed after."""
    try:
        return {p.name: p for p in run(lab)}
    finally:
        lab.close()


def within_one(a: list[bytes], b: list[bytes], normalised: Normaliser) -> bool:
    """The same frames but one: the one more answers a packet the other let go (a subset,
    not equal sets)."""
    short, long = sorted(({normalised(f) for f in a}, {normalised(f) for f in b}), key=len)
    return short <= long and len(long) - len(short) <= 1 and abs(len(a) - len(b)) <= 1


def describe(frames: list[bytes]) -> str:
    from scapy.layers.l2 import Ether

    return "; ".join(Ether(f).summary() for f in frames) or "nothing"


def describe_all(p: Probe) -> str:
    return ", ".join(f"{h}: {describe(p.captured[h])}" for h in p.captured)


def compare(
    twinplane: dict[str, Probe],
    kernel: dict[str, Probe],
    normalised: Normaliser,
    known: Known,
    rate_limited: Iterable[str] = (),
) -> list[str]:
    """The probes twinplane answers unlike the kernel, each with both sides' frames.

    Equal means the same normalised frames on each host, in order; a probe in
    ``rate_limited`` (a burst whose errors both routers limit with a token bucket) may
    have one frame more or fewer. A probe in ``known`` is not compared: its check of
    twinplane's own result must hold (an AssertionError otherwise)."""
    diffs = []
    for name, tp in twinplane.items():
        k = kernel[name]

        def same_on(h: str, tp: Probe = tp, k: Probe = k) -> bool:
            return [normalised(f) for f in tp.captured[h]] == [normalised(f) for f in k.captured[h]]

        same = all(same_on(h) for h in HOSTS)
        if name in rate_limited and not same:
            # a token bucket refills with time, and a host that stalls for a second
            # between two runs gives one run a token more
            same = all(within_one(tp.captured[h], k.captured[h], normalised) for h in HOSTS)
        if name in known:
            reason, check = known[name]
            assert check(tp), f"{name} ({reason}): twinplane: {describe_all(tp)}"
            continue
        if not same:
            diffs.append(
                f"{name}:\n"
                + "\n".join(
                    f"  {h} kernel:    {describe(k.captured[h])}\n"
                    f"  {h} twinplane: {describe(tp.captured[h])}"
                    for h in HOSTS
                    if not same_on(h)
                )
            )
    return diffs

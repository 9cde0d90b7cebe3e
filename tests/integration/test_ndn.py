# SPDX-License-Identifier: BSD-3-Clause
"""The NDN forwarder with real NDN applications (python-ndn) over UDP faces.

h2 runs a producer that registers its prefix itself (NFD's /localhop/nfd/rib/register
through twinplane's management, which the operator enabled with a key: the producer
signs its command with it, HMAC-SHA256); h1 runs consumers. Faces are made on demand
for the lab's networks (``ndn face accept udp``). test_ndn_mgmt.py has what management
refuses, and the other way in: a face the operator made local."""

from __future__ import annotations

import hashlib
import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from twinplane.api import ApiError
from twinplane.lab import RouterLab
from twinplane.lab.ndnpeer import LAB_KEY
from twinplane.lab.netns import veth
from twinplane.lab.router import port_devargs

PEER = Path(__file__).resolve().parents[2] / "python" / "twinplane" / "lab" / "ndnpeer.py"
NDN_CONFIG = [
    "ndn enable pit-capacity 4096 cs-capacity 1024",
    "ndn face accept udp 10.0.0.0/8",
    f"ndn localhop enable key {LAB_KEY}",
]


class Producer:
    """A python-ndn producer in a namespace; its JSON event lines, read as they come."""

    def __init__(self, lab: RouterLab, host: str, prefix: str, *args: str) -> None:
        router = lab.link(host).router_ip
        cmd = [sys.executable, str(PEER), "producer", "--router", router, "--prefix", prefix]
        if "--local" not in args:
            cmd += ["--hmac-key", LAB_KEY]
        self.proc = lab.netns(host).popen([*cmd, *args], stdout=subprocess.PIPE)
        lab.defer(f"stop producer {prefix}", self.stop)
        self.events: list[dict[str, Any]] = []
        # read its output as it comes, so that it never blocks on a full pipe
        self.queue: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        ev = self.next_event(timeout=15)
        assert ev.get("event") == "registered", ev

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith(b"{"):
                self.queue.put(json.loads(line))

    def next_event(self, timeout: float) -> dict[str, Any]:
        try:
            ev = self.queue.get(timeout=timeout)
        except queue.Empty:
            return {}
        self.events.append(ev)
        return ev

    def drain(self, wait: float = 0.3) -> list[dict[str, Any]]:
        while self.next_event(wait):
            pass
        return self.events

    def interests(self, name: str | None = None) -> list[dict[str, Any]]:
        self.drain()
        return [
            e
            for e in self.events
            if e.get("event") == "interest" and (name is None or e["name"] == name)
        ]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def peer(lab: RouterLab, host: str, mode: str, *args: str, timeout: float = 60) -> Any:
    router = lab.link(host).router_ip
    out = lab.netns(host).run(
        [sys.executable, str(PEER), mode, "--router", router, *args], timeout=timeout
    )
    lines = [json.loads(x) for x in out.stdout.splitlines() if x.startswith("{")]
    assert lines, out.stdout + out.stderr
    return lines if len(lines) > 1 else lines[0]


@pytest.fixture
def ndn_lab(daemon_lab: Callable[..., RouterLab]) -> Iterator[RouterLab]:
    yield daemon_lab(extra_config=NDN_CONFIG)


def show(lab: RouterLab) -> dict[str, Any]:
    return lab.ctl("show", "ndn")


def counter(lab: RouterLab, name: str) -> int:
    """A module counter's total over ports and lcores (``show counters``), event or drop."""
    c = lab.counters()
    return int(c["counters"].get(name, c["drops"].get(name, 0)))


def test_udp_face_to_unresolved_neighbour_goes_through_kernel(ndn_lab: RouterLab) -> None:
    """A UDP face's packet to a neighbour not resolved yet goes the router's way
    (nf/ip4/output.h): to the kernel through the port's TAP, counted as
    ip4.output_unresolved, and the kernel resolves the neighbour and sends it on; the
    Interest reaches the producer and the consumer gets its Data."""
    lab = ndn_lab
    Producer(lab, "h2", "/tp/unres")
    h2 = lab.host_ip("h2")
    r = peer(lab, "h1", "consumer", "--name", "/tp/unres/1")
    assert r["result"] == "data", r

    def h2_resolved() -> bool:
        return any(n.get("ip") == h2 and n.get("mac") for n in lab.neighbours())

    lab.wait_until(h2_resolved, 5.0, what=f"{h2} in show neigh")
    lab.run("r", f"ip neigh flush dev {lab.link('h2').tap}")
    lab.wait_until(lambda: not h2_resolved(), 5.0, what=f"{h2} gone from show neigh")
    before = lab.counters()["exception"]["reasons"].get("ip4.output_unresolved", 0)
    r = peer(lab, "h1", "consumer", "--name", "/tp/unres/2")
    assert r == {"result": "data", "name": "/tp/unres/2", "content": "/tp/unres/2"}, r
    after = lab.counters()["exception"]["reasons"]["ip4.output_unresolved"]
    assert after - before >= 1, (before, after)
    assert counter(lab, "ip4.output_no_route") == 0
    lab.wait_until(h2_resolved, 5.0, what=f"{h2} resolved again")


def test_fetch_from_self_registered_producer_and_cs(ndn_lab: RouterLab) -> None:
    lab = ndn_lab
    prod = Producer(lab, "h2", "/tp/prod")
    # the producer's registration is a route of origin 0 (app) on its on-demand face
    routes = lab.ctl("ndn", "rib", "show")["routes"]
    app_routes = [r for r in routes if r["prefix"] == "/tp/prod"]
    assert len(app_routes) == 1 and app_routes[0]["origin"] == 0, routes
    faces = {f["id"]: f for f in lab.ctl("ndn", "face", "show")["faces"]}
    assert faces[app_routes[0]["face"]]["uri"].startswith(f"udp4://{lab.host_ip('h2')}:")

    r = peer(lab, "h1", "consumer", "--name", "/tp/prod/a/1")
    assert r == {"result": "data", "name": "/tp/prod/a/1", "content": "/tp/prod/a/1"}
    # the same Interest again: from the CS, the producer sees it once
    r = peer(lab, "h1", "consumer", "--name", "/tp/prod/a/1")
    assert r["result"] == "data" and r["name"] == "/tp/prod/a/1"
    assert len(prod.interests("/tp/prod/a/1")) == 1, prod.events
    s = show(lab)
    assert s["totals"]["cs_hits"] >= 1 and s["totals"]["pit_satisfied"] >= 1, s
    assert s["cs_entries"] >= 1
    # one data-plane lcore runs every stage to completion: its context has no Interest,
    # Data or Nack ring to poll, only the one the control plane hands packets back on
    # (each on-demand face's first packet, the registration's answer)
    rings = {r["name"]: r for r in lab.ctl("show", "rings")["rings"]}
    assert not any(n.startswith(("ndn-interest", "ndn-data", "ndn-nack")) for n in rings), rings
    assert rings["ndn-handback-0"]["dequeued"] >= 2, rings


def test_cs_eviction_keeps_each_copy_exact(daemon_lab: Callable[..., RouterLab]) -> None:
    """A CS of 4 entries, filled with Data of both its size classes (up to 512 bytes,
    and more) and evicted across them: an evicted entry's buffer holds the next copy
    (same class) or goes back to its pool (the other); every later hit is the Data
    the producer sent, byte for byte, and an evicted name goes to the producer again."""
    lab = daemon_lab(extra_config=["ndn enable pit-capacity 4096 cs-capacity 4", *NDN_CONFIG[1:]])
    pad = 1200
    Producer(lab, "h2", "/tp/s")
    big = Producer(lab, "h2", "/tp/l", "--pad", str(pad))
    small = {n: f"/tp/s/{n}" for n in range(1, 5)}
    large = {n: f"/tp/l/{n}" for n in range(1, 5)}

    def content(name: str) -> str:
        return name + ("x" * pad if name.startswith("/tp/l/") else "")

    def fetch(names: list[str]) -> None:
        got = peer(lab, "h1", "consumer", *[w for n in names for w in ("--name", n)])
        got = got if isinstance(got, list) else [got]
        assert [(r["result"], r["name"], r["content"]) for r in got] == [
            ("data", n, content(n)) for n in names
        ], got

    # full of small Data first (whatever the registrations' answers left in it)
    fetch([f"/tp/s/p{n}" for n in range(1, 5)])
    before = show(lab)["totals"]
    # then each eviction in LRU order: p1, p2 -> l1, l2 (small to large), p3 -> s1
    # (small into its buffer), p4 -> l3; l1 -> s2 (large to small), l2 -> l4 (large
    # into its buffer), s1 -> s3, l3 -> s4
    fetch([large[1], large[2], small[1], large[3], small[2], large[4], small[3], small[4]])
    s = show(lab)["totals"]
    assert s["cs_evictions"] - before["cs_evictions"] == 8 and s["cs_hits"] == 0, s
    # the four left: answered by the CS, exactly
    fetch([small[2], large[4], small[3], small[4]])
    assert show(lab)["totals"]["cs_hits"] == 4
    assert [e["name"] for e in big.interests()] == [large[n] for n in range(1, 5)]
    # an evicted one: from the producer again
    fetch([large[1]])
    assert [e["name"] for e in big.interests()].count(large[1]) == 2
    assert show(lab)["cs_entries"] == 4


def test_can_be_prefix_and_must_be_fresh(ndn_lab: RouterLab) -> None:
    lab = ndn_lab
    # a FreshnessPeriod longer than a consumer's start-up (python-ndn's imports take
    # 0.6-1.3 s on the shared 2-CPU machine, so 300 ms had run out before the second)
    prod = Producer(lab, "h2", "/tp/fresh", "--freshness", "3000")
    r = peer(lab, "h1", "consumer", "--name", "/tp/fresh/x", "--can-be-prefix")
    assert r["result"] == "data" and r["name"] == "/tp/fresh/x"
    # MustBeFresh within the FreshnessPeriod: the CS answers
    r = peer(lab, "h1", "consumer", "--name", "/tp/fresh/x", "--must-be-fresh")
    assert r["result"] == "data"
    assert len(prod.interests("/tp/fresh/x")) == 1
    time.sleep(3.2)
    # stale now: a MustBeFresh Interest goes to the producer again
    r = peer(lab, "h1", "consumer", "--name", "/tp/fresh/x", "--must-be-fresh")
    assert r["result"] == "data"
    assert len(prod.interests("/tp/fresh/x")) == 2


def test_nack_no_route(ndn_lab: RouterLab) -> None:
    r = peer(ndn_lab, "h1", "consumer", "--name", "/not/registered/x")
    assert r == {"result": "nack", "reason": 150}
    assert show(ndn_lab)["totals"]["nack_noroute"] >= 1


def test_duplicate_nonce_gets_nack_duplicate(ndn_lab: RouterLab) -> None:
    lab = ndn_lab
    prod = Producer(lab, "h2", "/tp/dup")
    name = "/tp/dup/silent/1"
    first = lab.netns("h1").popen(
        [
            sys.executable,
            str(PEER),
            "consumer",
            "--router",
            lab.link("h1").router_ip,
            "--name",
            name,
            "--nonce",
            "12345",
            "--lifetime",
            "3000",
        ],
        stdout=subprocess.PIPE,
    )
    try:
        lab.wait_until(lambda: prod.interests(name), timeout=10, what="first Interest forwarded")
        # the same name and nonce from another face (another UDP port): a loop
        r = peer(lab, "h1", "consumer", "--name", name, "--nonce", "12345", "--lifetime", "3000")
        assert r == {"result": "nack", "reason": 100}
    finally:
        out, _ = first.communicate(timeout=10)
    assert json.loads(out)["result"] == "timeout"
    assert len(prod.interests(name)) == 1


def test_pit_entry_gone_after_lifetime(ndn_lab: RouterLab) -> None:
    lab = ndn_lab
    Producer(lab, "h2", "/tp/exp")
    before = show(lab)["totals"]["pit_expired"]
    r = peer(lab, "h1", "consumer", "--name", "/tp/exp/silent/1", "--lifetime", "700")
    assert r["result"] == "timeout"
    # the consumer gave up when its lifetime ran out; so did the PIT entry
    lab.wait_until(lambda: show(lab)["pit_entries"] == 0, timeout=3, what="PIT entry expired")
    assert show(lab)["totals"]["pit_expired"] == before + 1


def test_segmented_object_arrives_complete(ndn_lab: RouterLab) -> None:
    lab = ndn_lab
    size = 2 * 1024 * 1024 + 123
    Producer(lab, "h2", "/tp/obj", "--object-size", str(size), "--segment-size", "1200")
    r = peer(lab, "h1", "fetch", "--name", "/tp/obj", timeout=180)
    expect = bytes((i * 7 + 3) % 251 for i in range(size))
    assert r == {
        "size": size,
        "sha256": hashlib.sha256(expect).hexdigest(),
        "segments": (size + 1199) // 1200,
    }


def test_malformed_dropped_and_counted_forwarding_goes_on(ndn_lab: RouterLab) -> None:
    lab = ndn_lab
    Producer(lab, "h2", "/tp/mal")
    router = lab.link("h1").router_ip
    bad = [
        b"\x05\x10\x07\x03\x08\x01a",  # Interest longer than the datagram
        b"\x64\x04\x50\x02\x05\x00",  # LpPacket with an empty Interest
        b"\xff\xff",  # a bad VAR-NUMBER
        b"\x06\x03\x07\x01\x08",  # Data with a truncated name
        b"\x05\x0d\x07\x03\x08\x01a\x0a\x04\x01\x02\x03\x04\x0d\x00",  # critical type 13
    ]
    before = lab.counters()
    with lab.netns("h1").socket() as s:
        for b in bad:
            s.sendto(b, (router, 6363))
    time.sleep(0.5)
    after = lab.counters()
    assert ndn_drops(after, "ndn.malformed") - ndn_drops(before, "ndn.malformed") == len(bad)
    r = peer(lab, "h1", "consumer", "--name", "/tp/mal/ok")
    assert r["result"] == "data"


def ndn_drops(counters: Any, name: str) -> int:
    return sum(int(p["drop_reasons"].get(name, 0)) for p in counters["ports"].values())


def test_unregister_removes_route(ndn_lab: RouterLab) -> None:
    lab = ndn_lab
    prod = Producer(lab, "h2", "/tp/unreg", "--unregister-after", "0.5")
    ev = prod.next_event(timeout=10)
    assert ev.get("event") == "unregistered", ev
    routes = [r["prefix"] for r in lab.ctl("ndn", "rib", "show")["routes"]]
    assert "/tp/unreg" not in routes
    r = peer(lab, "h1", "consumer", "--name", "/tp/unreg/x")
    assert r == {"result": "nack", "reason": 150}


def test_pipeline_two_forwarding_lcores(daemon_lab: Callable[..., RouterLab]) -> None:
    """An input lcore and two forwarding lcores (NDN-DPDK's threads) on the two CPUs:
    the NDT spreads Interests over both contexts, and each Data goes back to the
    context that holds its PIT entry (python-ndn's producer does not echo PIT tokens,
    so it is dispatched by the NDT of its name, which must give the same context)."""
    lab = daemon_lab(
        lcores="0@0,1@1,2@1,3@0",
        extra_config=[
            "lcore 1 role input",
            "lcore 2 role forwarding",
            "lcore 3 role forwarding",
            "ndn enable ndt-comps 3 pit-capacity 4096 cs-capacity 1024",
            *NDN_CONFIG[1:],
        ],
    )
    prod = Producer(lab, "h2", "/tp/pipe")
    names = [f"/tp/pipe/{k}/x" for k in range(24)]
    # one consumer, one face: its first packet makes the face (through the control
    # plane), the others come through the input lcore
    res = peer(lab, "h1", "consumer", *[w for n in names for w in ("--name", n)])
    assert [(r["result"], r["name"]) for r in res] == [("data", n) for n in names], res
    assert len(prod.interests()) == len(names)
    s = show(lab)
    fwd = s["forwarding"]
    assert len(fwd) == 2
    # both contexts got Interests, and each satisfied all of its own
    for ctx in fwd:
        assert ctx["pit_inserts"] >= 1, fwd
        assert ctx["pit_satisfied"] == ctx["pit_inserts"], fwd
        assert ctx["unsolicited"] == 0, fwd
    assert sum(c["pit_satisfied"] for c in fwd) >= len(names)
    rings = {r["name"]: r for r in lab.ctl("show", "rings")["rings"]}
    for i in (0, 1):
        # everything reached the contexts through their rings (the input lcore owns none)
        assert rings[f"ndn-interest-{i}"]["enqueued"] >= 1, rings
        assert rings[f"ndn-data-{i}"]["enqueued"] >= 1, rings


def test_pipeline_with_output_lcore(daemon_lab: Callable[..., RouterLab]) -> None:
    """NDN-DPDK's three stages on separate lcores: input, forwarding, output. The
    forwarding lcore hands every packet it sends to the output lcore's ring, and the
    output lcore writes the headers and transmits."""
    lab = daemon_lab(
        lcores="0@0,1@1,2@0,3@1",
        extra_config=[
            "lcore 1 role input",
            "lcore 2 role forwarding",
            "lcore 3 role output",
            "ndn enable pit-capacity 4096 cs-capacity 1024 output-queue 1024",
            *NDN_CONFIG[1:],
        ],
    )
    conf = show(lab)["config"]
    assert conf["output_lcores"] == 1 and conf["output_queue"] == 1024, conf
    prod = Producer(lab, "h2", "/tp/out")
    names = [f"/tp/out/{k}" for k in range(16)]
    res = peer(lab, "h1", "consumer", *[w for n in names for w in ("--name", n)])
    assert [(r["result"], r["name"]) for r in res] == [("data", n) for n in names], res
    assert len(prod.interests()) == len(names)
    # again: from the CS, through the output lcore as well
    res = peer(lab, "h1", "consumer", *[w for n in names[:4] for w in ("--name", n)])
    assert [r["result"] for r in res] == ["data"] * 4, res
    rings = {r["name"]: r for r in lab.ctl("show", "rings")["rings"]}
    out = rings["ndn-output-0"]
    # each Interest to the producer, each Data to the consumer (and the ControlResponse
    # of the producer's registration) went through the output ring
    assert out["enqueued"] >= 2 * len(names) + 4, out
    assert out["dropped_full"] == 0, out
    faces = lab.ctl("ndn", "face", "show")["faces"]
    tx_data = sum(f["counters"]["tx_data"] for f in faces if f["uri"].startswith("udp4://"))
    assert tx_data >= len(names) + 4, faces


def test_pipeline_with_one_shared_queue(daemon_lab: Callable[..., RouterLab]) -> None:
    """`queues shared`: the seed's NDN-DPDK variant, one ring per forwarding context
    for Interests, Data and Nacks together (the model's comparison runs it). Every
    packet of the exchange goes through that one ring; no per-type ring exists."""
    lab = daemon_lab(
        lcores="0@0,1@1,2@0",
        extra_config=[
            "lcore 1 role input",
            "lcore 2 role forwarding",
            "ndn enable pit-capacity 4096 cs-capacity 1024 interest-queue 256 queues shared",
            *NDN_CONFIG[1:],
        ],
    )
    conf = show(lab)["config"]
    assert conf["queues"] == "shared" and conf["interest_queue"] == 256, conf
    prod = Producer(lab, "h2", "/tp/shq")
    names = [f"/tp/shq/{k}" for k in range(16)]
    res = peer(lab, "h1", "consumer", *[w for n in names for w in ("--name", n)])
    assert [(r["result"], r["name"]) for r in res] == [("data", n) for n in names], res
    assert len(prod.interests()) == len(names)
    rings = {r["name"]: r for r in lab.ctl("show", "rings")["rings"]}
    assert "ndn-interest-0" not in rings and "ndn-data-0" not in rings, sorted(rings)
    ring = rings["ndn-packets-0"]
    # the Interests (but the face's first, which the control plane made) and the Data
    assert ring["enqueued"] >= 2 * len(names) - 1, ring
    assert ring["size"] == 256, ring
    # a bad word is named, before "running already"
    for words, msg in [
        (["ndn", "enable", "queues", "pooled"], "bad queues 'pooled'"),
        (["ndn", "enable", "queues"], "usage: ndn enable"),
        (["ndn", "enable", "queues", "shared"], "running already"),
    ]:
        with pytest.raises(ApiError, match=msg):
            lab.ctl(*words)


def test_stage_telemetry(ndn_lab: RouterLab) -> None:
    lab = ndn_lab
    Producer(lab, "h2", "/tp/tel")
    off = lab.ctl("show", "ndn", "telemetry")
    assert off["sample_every"] == 0 and off["stages"]["interest"]["samples"] == 0
    lab.ctl("ndn", "telemetry", "sample", "1")
    names = [f"/tp/tel/{k}" for k in range(10)]
    res = peer(lab, "h1", "consumer", *[w for n in names for w in ("--name", n)])
    assert all(r["result"] == "data" for r in res)
    t = lab.ctl("show", "ndn", "telemetry", "raw")
    st = t["stages"]
    # every packet timed: 10 Interests and 10 Data (and their input stages)
    assert st["interest"]["samples"] >= 10 and st["data"]["samples"] >= 10, st
    assert st["input"]["samples"] >= 20 and st["queue"]["samples"] >= 20, st
    for name in ("input", "interest", "data"):
        s = st[name]
        assert 0 < s["p50_cycles"] <= s["p99_cycles"] <= s["max_recent_cycles"], s
        assert sum(h["count"] for h in s["histogram"]) == s["samples"]
        assert len(s["raw_cycles"]) == s["samples"]
    with pytest.raises(Exception, match="sample N"):
        lab.ctl("ndn", "telemetry", "sample", "-1")


def test_fragmentation_between_two_forwarders(daemon_lab: Callable[..., RouterLab]) -> None:
    """NDNLPv2 fragmentation and reassembly on an Ethernet face: two twinplane
    forwarders joined by a veth of MTU 600, python-ndn consumer behind A, producer
    behind B. A long-named Interest leaves A in fragments and B reassembles it; the
    Data (the name as its content) leaves B in fragments and A reassembles it. Both
    daemons' mbufs come home (the fixture checks each)."""
    a = daemon_lab(extra_config=NDN_CONFIG)
    b = daemon_lab(extra_config=NDN_CONFIG)
    veth(a.router, "ndnfa", b.router, "ndnfb", mtu=600)
    macs = {}
    for lab, ifname in ((a, "ndnfa"), (b, "ndnfb")):
        lab.ctl("port", "add", "p2", port_devargs(lab.pmd, 2, ifname), "mtu", "600")
        lab.ctl("port", "set", "p2", "mode", "ndn")
        macs[ifname] = lab.port("p2")["mac"]
    fa = a.ctl("ndn", "face", "add", "ether", "p2", "remote", macs["ndnfb"])["face"]
    b.ctl("ndn", "face", "add", "ether", "p2", "remote", macs["ndnfa"])
    a.ctl("ndn", "fib", "add", "/tp/frag", "face", str(fa))
    prod = Producer(b, "h2", "/tp/frag")

    long_name = "/tp/frag/" + "n" * 600  # an Interest of ~620 bytes, its Data ~1,260
    names = ["/tp/frag/short", long_name]
    res = peer(a, "h1", "consumer", *[w for n in names for w in ("--name", n)])
    assert [(r["result"], r["name"], r["content"]) for r in res] == [
        ("data", n, n) for n in names
    ], res
    assert [e["name"] for e in prod.interests()] == names

    def ether_face(lab: RouterLab) -> dict[str, Any]:
        faces = lab.ctl("ndn", "face", "show")["faces"]
        return next(f["counters"] for f in faces if f["uri"].startswith("ether://"))

    ca, cb = ether_face(a), ether_face(b)
    # the long Interest in 2 fragments A -> B, its Data in 3 B -> A; the short ones whole
    assert ca["tx_fragments"] == 2 and cb["rx_fragments"] == 2, (ca, cb)
    assert cb["tx_fragments"] == 3 and ca["rx_fragments"] == 3, (ca, cb)
    assert ca["tx_interests"] == 2 and cb["rx_interests"] == 2, (ca, cb)
    assert cb["tx_data"] == 2 and ca["rx_data"] == 2, (ca, cb)
    for lab in (a, b):
        assert counter(lab, "ndn.lp_reassembled") == 1
        for c in ("lp_reassembly_timeout", "lp_fragment_duplicate", "lp_bad_fragment"):
            assert counter(lab, f"ndn.{c}") == 0, c

    # Straight onto the wire from A's end of the link, LpPackets built by hand from
    # the NDNLPv2 spec (LpPacket 0x64: Sequence 0x51 of 8 bytes, FragIndex 0x52,
    # FragCount 0x53, Fragment 0x50): fragment 0 of 2 whose fragment 1 never comes,
    # and a fragment whose FragIndex is not below its FragCount.
    seq = "51080000000000abcd00"
    lone = "64" + "15" + seq + "520100" + "530102" + "5003aabbcc"
    bad = "64" + "15" + seq + "520102" + "530102" + "5003aabbcc"
    eth = macs["ndnfb"].replace(":", "") + macs["ndnfa"].replace(":", "") + "8624"
    send = (
        "import socket, sys\n"
        "s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)\n"
        "s.bind(('ndnfa', 0))\n"
        "for f in sys.argv[1:]:\n"
        "    s.send(bytes.fromhex(f))\n"
    )
    a.router.run([sys.executable, "-c", send, eth + lone, eth + bad])
    deadline = time.monotonic() + 5
    while counter(b, "ndn.lp_reassembly_timeout") == 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    # the partial packet given up after the reassembly timeout (500 ms), the bad one at once
    assert counter(b, "ndn.lp_reassembly_timeout") == 1
    assert counter(b, "ndn.lp_bad_fragment") == 1
    assert counter(b, "ndn.lp_reassembled") == 1
    # one sender starting 20 packets, none finished: it holds 4 partial packets (its
    # share of the lcore's 16 slots), each new one evicting its own oldest, never a
    # slot of another sender (security review N13); the 4 time out
    lones = [
        eth + "64" + "15" + f"5108{0x1000 + 0x100 * k:016x}" + "520100" + "530102" + "5003aabbcc"
        for k in range(20)
    ]
    a.router.run([sys.executable, "-c", send, *lones])
    deadline = time.monotonic() + 5
    while counter(b, "ndn.lp_reassembly_timeout") < 5 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert counter(b, "ndn.lp_fragment_evicted") == 16
    assert counter(b, "ndn.lp_reassembly_timeout") == 1 + 4
    # and forwarding goes on
    res = peer(a, "h1", "consumer", "--name", "/tp/frag/after")
    assert (res["result"], res["content"]) == ("data", "/tp/frag/after"), res

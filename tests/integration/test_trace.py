# SPDX-License-Identifier: BSD-3-Clause
"""Packet trace and capture (issue 37, docs/TRACE.md) through the real daemon.

A trace records the next packets' path: the port and queue they came in on with their
headers, each stage that ran on them, and the verdict (forwarded where with the
rewritten header, dropped by which named counter, punted for which reason and class).
A capture writes the frames a port received or sent to a pcapng file that tcpdump and
scapy read, byte for byte.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from scapy.compat import raw
from scapy.layers.inet import ICMP, IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw
from scapy.utils import rdpcap
from test_ip4 import BAD_PACKETS, H1, H2, PORT, exchange

from twinplane.api import ApiError
from twinplane.lab import RouterLab
from twinplane.lab.switch import SwitchLab
from twinplane.lab.traffic import Sniffer, l2_socket

# the stages of a packet the router forwards (nf/ip4, the l3 port mode)
FORWARD_STAGES = ["l3.input", "ip4.input", "ip4.forward", "ip4.output"]


def traced(lab: RouterLab, want: Callable[[dict[str, Any]], bool], timeout: float = 3.0) -> Any:
    """The first packet of ``show trace`` for which ``want`` holds, once it has a verdict."""
    found: list[dict[str, Any]] = []

    def ready() -> bool:
        found[:] = [p for p in lab.ctl("show", "trace")["packets"] if want(p) and p["verdict"]]
        return bool(found)

    lab.wait_until(ready, timeout, 0.05, "the packet in show trace")
    return found[0]


def send(lab: RouterLab, host: str, frames: list[bytes]) -> None:
    sock = l2_socket(lab.ns[host], "eth0")
    try:
        for f in frames:
            sock.send(Raw(f))
    finally:
        sock.close()


def udp_frame(lab: RouterLab, payload: bytes, ttl: int = 64, sport: int = 4000) -> Packet:
    return (
        Ether(src=lab.ns["h1"].mac("eth0"), dst=lab.port("p0")["mac"], type=0x0800)
        / IP(src=H1, dst=H2, ttl=ttl)
        / UDP(sport=sport, dport=PORT)
        / Raw(payload)
    )


def test_trace_forwarded(router_lab: RouterLab) -> None:
    lab = router_lab
    assert exchange(lab, H2, 1) == 1  # neighbours resolved: the next one forwards
    assert lab.ctl("trace", "start", "count", "20", "port", "p0")["count"] == 20
    send(lab, "h1", [raw(udp_frame(lab, b"tp-trace-fwd", sport=4111))])
    p = traced(lab, lambda p: p["in"].get("sport") == 4111)
    assert p["in"]["port"] == "p0" and p["in"]["queue"] == 0
    assert p["in"]["ip4_src"] == H1 and p["in"]["ip4_dst"] == H2 and p["in"]["ttl"] == 64
    assert p["stages"] == FORWARD_STAGES, p
    (v,) = p["verdict"]
    assert v["action"] == "forward" and v["port"] == "p1", v
    # the header as it left: TTL decremented, the next hop's MAC (RFC 1812 5.3.1)
    assert v["ttl"] == 63 and v["dst"] == lab.ns["h2"].mac("eth0"), v
    assert v["src"] == lab.port("p1")["mac"], v
    text = lab.ctl_text("show", "trace")
    assert "ip4.forward" in text and "forward" in text
    lab.ctl("trace", "stop")
    assert lab.ctl("show", "trace")["state"] == "off"


def test_trace_drops_each_ip4_reason(router_lab: RouterLab) -> None:
    lab = router_lab
    assert exchange(lab, H2, 1) == 1
    base = udp_frame(lab, b"tp-trace-bad")
    frames = {reason: make(base) for reason, make in BAD_PACKETS.items()}
    martian = base.copy()
    martian[IP].src = "127.0.0.9"
    frames["ip4.martian_source"] = raw(martian)
    shorter = base.copy()
    shorter[IP].len = 19  # shorter than its own header (RFC 1812 5.2.2)
    frames["ip4.bad_total_length"] = raw(shorter)
    for reason, frame in frames.items():
        lab.ctl("trace", "start", "count", "10", "port", "p0")
        send(lab, "h1", [frame])
        p = traced(
            lab,
            lambda p: any(
                v["action"] == "drop" and v["counter"].startswith("ip4.") for v in p["verdict"]
            ),
        )
        assert p["stages"][:2] == ["l3.input", "ip4.input"], (reason, p)
        assert p["verdict"] == [{"action": "drop", "counter": reason, "lcore": p["in"]["lcore"]}], (
            reason,
            p,
        )
    # a kernel blackhole route: looked up, then dropped where what does not forward goes
    lab.ctl("route", "add", "10.66.0.0/16", "blackhole")
    lab.wait_until(
        lambda: any(r["prefix"] == "10.66.0.0/16" for r in lab.routes()), 2.0, 0.02, "the route"
    )
    hole = base.copy()
    hole[IP].dst = "10.66.0.1"
    # a frame to another host's MAC (the af_packet socket sees every frame on the veth):
    # dropped by IPv4's input, whose fast test checks the MAC too
    other = base.copy()
    other[Ether].dst = "02:00:5e:00:53:99"
    for reason, frame, stages in (
        ("ip4.blackhole", raw(hole), ["l3.input", "ip4.input", "ip4.no_forward"]),
        ("core.l2_other_host", raw(other), ["l3.input", "ip4.input"]),
    ):
        lab.ctl("trace", "start", "count", "10", "port", "p0")
        send(lab, "h1", [frame])
        p = traced(lab, lambda p, r=reason: any(v.get("counter") == r for v in p["verdict"]))
        assert p["stages"] == stages, (reason, p)
        assert p["verdict"] == [{"action": "drop", "counter": reason, "lcore": p["in"]["lcore"]}], (
            reason,
            p,
        )
    lab.ctl("trace", "stop")
    lab.ctl("route", "del", "10.66.0.0/16")


def test_trace_punted(router_lab: RouterLab) -> None:
    lab = router_lab
    assert exchange(lab, H2, 1) == 1
    lab.ctl("trace", "start", "count", "10", "port", "p0")
    send(lab, "h1", [raw(udp_frame(lab, b"tp-trace-ttl", ttl=1, sport=4222))])
    p = traced(lab, lambda p: p["in"].get("sport") == 4222)
    assert p["in"]["ttl"] == 1
    assert p["stages"] == ["l3.input", "ip4.input", "ip4.ttl_low", "ip4.punt"], p
    (v,) = p["verdict"]
    assert v["action"] == "punt" and v["reason"] == "ip4.ttl_expired", v
    assert v["class"] == "error", v  # only an ICMP error from the kernel (worker.h)


def test_trace_ndn_interest(daemon_lab: Callable[..., RouterLab]) -> None:
    from test_ndn import NDN_CONFIG, peer

    lab = daemon_lab(extra_config=NDN_CONFIG)
    lab.ctl("trace", "start", "count", "20", "port", "p0")
    r = peer(lab, "h1", "consumer", "--name", "/tp/trace/x")
    assert r["result"] == "nack", r  # no route: the forwarder answers a Nack
    p = traced(lab, lambda p: p["in"].get("name") == "/tp/trace/x")
    assert p["in"]["ndn"] == "interest" and p["in"]["dport"] == 6363, p
    assert p["stages"][:2] == ["l3.input", "ip4.input"], p
    assert "ip4.local" in p["stages"] and p["stages"][-1] == "ndn.interest", p


def test_trace_l2_flood(daemon_lab: Callable[..., Any]) -> None:
    lab: SwitchLab = daemon_lab(lab_class=SwitchLab)
    m1 = lab.host_mac("h1")
    lab.ctl("trace", "start", "count", "20", "port", "p0")
    h = lab.host("h1")
    frame = (
        Ether(src=m1, dst="02:00:00:00:99:99")
        / IP(src="10.9.9.1", dst="10.9.9.2")
        / UDP(sport=4333, dport=9)
        / Raw(b"tp-trace-flood")
    )
    sock = l2_socket(lab.ns[h.host], h.host_if)
    try:
        sock.send(frame)
    finally:
        sock.close()
    others = sorted(x.port for x in lab.hosts if x.port != "p0")

    def flooded(p: dict[str, Any]) -> bool:
        return p["in"].get("sport") == 4333 and len(p["verdict"]) == len(others)

    p = traced(lab, flooded)
    assert p["stages"] == ["l2.input", "l2.flood"], p
    assert sorted(v["port"] for v in p["verdict"]) == others, p
    assert all(v["action"] == "forward" and v["dst"] == "02:00:00:00:99:99" for v in p["verdict"])


def test_trace_off_costs_no_record(router_lab: RouterLab) -> None:
    """Stopped, nothing is recorded; a count is a count: N packets, then the trace ends."""
    lab = router_lab
    assert exchange(lab, H2, 1) == 1
    lab.ctl("trace", "start", "count", "3", "port", "p0")
    assert exchange(lab, H2, 10) == 10
    lab.wait_until(lambda: lab.ctl("show", "trace")["state"] == "off", 5.0, 0.1, "trace done")
    t = lab.ctl("show", "trace")
    assert t["traced"] == 3 and len(t["packets"]) == 3, t
    assert exchange(lab, H2, 10) == 10
    assert len(lab.ctl("show", "trace")["packets"]) == 3


def test_capture_byte_for_byte(router_lab: RouterLab, tmp_path: Path) -> None:
    lab = router_lab
    assert exchange(lab, H2, 1) == 1
    rx_file, tx_file = tmp_path / "p0-rx.pcapng", tmp_path / "p1-tx.pcapng"
    frames = [
        raw(udp_frame(lab, b"tp-cap-%03d" % i + bytes(i * 7), sport=5000 + i)) for i in range(20)
    ]
    lab.ctl("capture", "start", "p0", "rx", str(rx_file))
    with pytest.raises(ApiError, match="capture of p0 .* runs"):
        lab.ctl("capture", "start", "p1", "tx", str(tx_file))
    lab.ctl("capture", "stop")
    lab.ctl("capture", "start", "p0", "rx", str(rx_file))
    # the datagrams themselves, not h2's Port Unreachable quoting them
    with Sniffer(lab.ns["h2"], "eth0", lambda p: b"tp-cap-" in raw(p) and ICMP not in p) as sn:
        send(lab, "h1", frames)
        got = sn.wait(len(frames), timeout=5.0)
    assert len(got) == len(frames)
    stop = lab.ctl("capture", "stop")
    assert stop["written"] >= len(frames), stop
    pkts = [raw(p) for p in rdpcap(str(rx_file))]
    ours = [p for p in pkts if b"tp-cap-" in p]
    assert ours == frames  # byte for byte, in order
    # tcpdump reads the file too, and finds each of our frames
    out = subprocess.run(
        ["tcpdump", "-nn", "-r", str(rx_file), "udp", "and", "dst", "port", str(PORT)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert len([x for x in out.splitlines() if H2 in x]) == len(frames), out
    show = lab.ctl("show", "capture")
    assert show["state"] == "off" and show["ring_full"] == 0 and show["nombuf"] == 0, show

    # what p1 sent: the frames as forwarded (TTL 63), the first 64 bytes of each, 5 only
    lab.ctl("capture", "start", "p1", "tx", str(tx_file), "count", "5", "snaplen", "64")
    send(lab, "h1", frames)
    lab.wait_until(lambda: lab.ctl("show", "capture")["state"] == "off", 5.0, 0.1, "count 5")
    time.sleep(0.2)  # the file closes a grace period after
    tx = rdpcap(str(tx_file))
    assert len(tx) == 5
    for p, f in zip(tx, frames[:5], strict=True):
        b = raw(p)
        assert len(b) == min(64, len(f)) and b[14 + 8] == 63 and b[34:] == f[34 : len(b)]
        assert p.wirelen == len(f)


MALFORMED = [
    (("trace", "start", "count", "0"), "count '0' is not a number from 1 to 1000"),
    (("trace", "start", "count", "x"), "count 'x'"),
    (("trace", "start", "count"), "'count' needs a value"),
    (("trace", "start", "port", "nosuch"), "no port named 'nosuch'"),
    (("trace", "start", "bogus", "1"), "unknown word 'bogus'"),
    (("trace", "stop", "now"), "unexpected word 'now'"),
    (("capture", "start", "p0"), "usage: capture start PORT"),
    (("capture", "start", "nosuch", "rx", "/tmp/x"), "no port named 'nosuch'"),
    (("capture", "start", "p0", "up", "/tmp/x"), "direction 'up' is not rx, tx or both"),
    (("capture", "start", "p0", "rx", "/tmp/x", "snaplen", "10"), "snaplen '10'"),
    (("capture", "start", "p0", "rx", "/tmp/x", "count", "-1"), "count '-1'"),
    (("capture", "start", "p0", "rx", "/nonexistent/dir/x"), "/nonexistent/dir/x: No such file"),
    (("capture", "stop"), "no capture runs"),
]


def test_malformed_commands_named(router_lab: RouterLab) -> None:
    for words, msg in MALFORMED:
        with pytest.raises(ApiError) as e:
            router_lab.ctl(*words)
        assert msg in e.value.message, (words, e.value.message)
    assert router_lab.ctl("show", "capture")["state"] == "off"

# SPDX-License-Identifier: BSD-3-Clause
"""The L2 switch (issue 12): learning, aging, moves, flooding, VLANs, limits, bad frames.

Three hosts on one bridge (``SwitchLab``); frames are built with scapy and
checked on the wire in the receiving hosts' namespaces; the bridge's state
through ``show bridge``. The fixture checks for mbuf leaks and a clean stop.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Raw

from twinplane.lab import Link
from twinplane.lab.switch import SwitchHost, SwitchLab
from twinplane.lab.traffic import Sniffer, l2_socket, ping

UNKNOWN = "02:00:00:00:99:99"
BCAST = "ff:ff:ff:ff:ff:ff"


@pytest.fixture
def switch_lab(daemon_lab: Callable[..., Any]) -> Callable[..., SwitchLab]:
    def make(**kwargs: Any) -> SwitchLab:
        lab: SwitchLab = daemon_lab(lab_class=SwitchLab, **kwargs)
        return lab

    return make


def tagged(p: Any) -> bool:
    return Dot1Q in p


def marked(tag: bytes) -> Callable[[Any], bool]:
    """Frames whose payload carries ``tag`` (our test frames, not the hosts' own chatter)."""
    return lambda p: bytes(p).find(tag) >= 0


def frame(src: str, dst: str, tag: bytes, vlan: int | None = None) -> Any:
    payload = IP(src="10.9.9.1", dst="10.9.9.2") / UDP(sport=7, dport=9) / Raw(tag)
    if vlan is None:
        return Ether(src=src, dst=dst) / payload
    return Ether(src=src, dst=dst) / Dot1Q(vlan=vlan) / payload


def send_from(lab: SwitchLab, role: str, pkts: list[Any]) -> None:
    h = lab.host(role)
    sock = l2_socket(lab.ns[h.host], h.host_if)
    try:
        for p in pkts:
            sock.send(p)
    finally:
        sock.close()


def sniff(lab: SwitchLab, role: str, tag: bytes) -> Sniffer:
    h = lab.host(role)
    s = Sniffer(lab.ns[h.host], h.host_if, marked(tag))
    s.start()
    return s


def wait_mac(lab: SwitchLab, mac: str, port: str | None, timeout: float = 3.0) -> None:
    lab.wait_until(lambda: lab.mac_port(mac) == port, timeout, 0.05, f"{mac} on {port}")


def ctr(lab: SwitchLab, port: str, name: str) -> int:
    return int(lab.port_l2(port)["counters"].get(name, 0))


def test_learning_and_forwarding_three_hosts(switch_lab: Callable[..., SwitchLab]) -> None:
    lab = switch_lab()
    for a, b in (("h1", "10.0.0.2"), ("h1", "10.0.0.3"), ("h2", "10.0.0.3")):
        assert ping(lab.ns[a], b, count=3) == 3, f"{a} -> {b}"
    for role, port in (("h1", "p0"), ("h2", "p1"), ("h3", "p2")):
        wait_mac(lab, lab.host_mac(role), port)
    info = lab.bridge_info()
    assert info["learned"] >= 3 and info["macs"] >= 3
    # known unicast h1 -> h2: at h2, and never at h3
    m1, m2 = lab.host_mac("h1"), lab.host_mac("h2")
    s2, s3 = sniff(lab, "h2", b"uni-h1h2"), sniff(lab, "h3", b"uni-h1h2")
    uni0 = ctr(lab, "p0", "unicast")
    send_from(lab, "h1", [frame(m1, m2, b"uni-h1h2%02d" % i) for i in range(20)])
    got2, got3 = s2.wait(20, 10.0), s3.wait(1, 0.5)
    assert len(got2) == 20 and got3 == []
    assert [bytes(p[Raw])[-2:] for p in got2] == [b"%02d" % i for i in range(20)]
    assert ctr(lab, "p0", "unicast") - uni0 >= 20


def test_flood_unknown_unicast_and_broadcast(switch_lab: Callable[..., SwitchLab]) -> None:
    lab = switch_lab()
    m1 = lab.host_mac("h1")
    for dst, tag in ((UNKNOWN, b"flood-unknown"), (BCAST, b"flood-bcast")):
        s2, s3 = sniff(lab, "h2", tag), sniff(lab, "h3", tag)
        fl0 = ctr(lab, "p0", "flooded")
        send_from(lab, "h1", [frame(m1, dst, tag) for _ in range(5)])
        got2, got3 = s2.wait(5, 10.0), s3.wait(5, 10.0)
        assert len(got2) == 5 and len(got3) == 5, (dst, len(got2), len(got3))
        assert all(p[Ether].dst.lower() == dst for p in got2 + got3)
        assert ctr(lab, "p0", "flooded") - fl0 == 5
    # the sender never gets its own flood back
    assert lab.mac_port(UNKNOWN) is None


def test_aging(switch_lab: Callable[..., SwitchLab]) -> None:
    lab = switch_lab(bridge_words="aging 2")
    m1 = lab.host_mac("h1")
    send_from(lab, "h1", [frame(m1, UNKNOWN, b"age")])
    wait_mac(lab, m1, "p0")
    # silent for longer than the aging time (2 s, scanned every second)
    t0 = time.monotonic()
    lab.wait_until(lambda: lab.mac_port(m1) is None, 6.0, 0.2, "h1's entry aged out")
    assert time.monotonic() - t0 >= 0.5
    assert lab.bridge_info()["aged"] >= 1
    # a frame brings it back
    send_from(lab, "h1", [frame(m1, UNKNOWN, b"age")])
    wait_mac(lab, m1, "p0")


def test_station_move(switch_lab: Callable[..., SwitchLab]) -> None:
    lab = switch_lab()
    roam = "02:00:00:00:00:42"
    send_from(lab, "h1", [frame(roam, UNKNOWN, b"roam")])
    wait_mac(lab, roam, "p0")
    moves0 = lab.bridge_info()["moves"]
    send_from(lab, "h3", [frame(roam, UNKNOWN, b"roam")])
    wait_mac(lab, roam, "p2")
    assert lab.bridge_info()["moves"] == moves0 + 1
    # traffic to it now goes to h3 only
    s1, s3 = sniff(lab, "h1", b"to-roam"), sniff(lab, "h3", b"to-roam")
    send_from(lab, "h2", [frame(lab.host_mac("h2"), roam, b"to-roam") for _ in range(3)])
    assert len(s3.wait(3, 10.0)) == 3 and s1.wait(1, 0.5) == []


def test_removed_entries_leave_the_lookup_cache(switch_lab: Callable[..., SwitchLab]) -> None:
    """The worker keeps the MAC entries its lookups found across bursts; an entry
    removed by ``bridge mac del`` or ``flush`` must not be used from there, also once
    its slot holds another station: the removed MAC is unknown again and flooded."""
    lab = switch_lab()
    roam, m2 = "02:00:00:00:00:43", lab.host_mac("h2")
    for n, how in enumerate(("del", "flush")):
        send_from(lab, "h1", [frame(roam, UNKNOWN, b"c-learn")])
        wait_mac(lab, roam, "p0")
        # known unicast to roam: h1 only (the worker now holds roam's entry)
        tag = b"c-known-%d-" % n
        s1, s3 = sniff(lab, "h1", tag), sniff(lab, "h3", tag)
        send_from(lab, "h2", [frame(m2, roam, tag + b"%02d" % i) for i in range(5)])
        assert len(s1.wait(5, 10.0)) == 5 and s3.wait(1, 0.3) == []
        if how == "del":
            lab.ctl("bridge", "mac", "del", "br0", roam)
        else:
            assert int(lab.ctl("bridge", "mac", "flush", "br0")["flushed"]) >= 1
        assert lab.mac_port(roam) is None
        # a new station takes a freed slot (after the grace period)
        other = "02:00:00:00:00:%02x" % (0x50 + n)
        send_from(lab, "h3", [frame(other, UNKNOWN, b"c-other")])
        wait_mac(lab, other, "p2")
        # roam is unknown: flooded to h1 and h3, not sent to one port from a stale index
        tag = b"c-gone-%d-" % n
        s1, s3 = sniff(lab, "h1", tag), sniff(lab, "h3", tag)
        fl0 = ctr(lab, "p1", "flooded")
        send_from(lab, "h2", [frame(m2, roam, tag + b"%02d" % i) for i in range(5)])
        assert len(s1.wait(5, 10.0)) == 5 and len(s3.wait(5, 10.0)) == 5, how
        assert ctr(lab, "p1", "flooded") - fl0 == 5, how


VLAN_HOSTS = (
    SwitchHost("p0", "h1", "10.0.0.1/24", "vlan 10"),
    SwitchHost("p1", "h2", "10.0.0.2/24", "vlan 20"),
    SwitchHost("p2", "h3", "10.0.0.3/24", "trunk 10,20"),
    SwitchHost("p3", "h4", "10.0.0.4/24", "vlan 10"),
)


def test_vlan_isolation_and_trunk_tagging(switch_lab: Callable[..., SwitchLab]) -> None:
    lab = switch_lab(hosts=VLAN_HOSTS)
    m1, m2, m3 = (lab.host_mac(h) for h in ("h1", "h2", "h3"))
    # h1 (access 10) floods a broadcast: h4 (access 10) untagged, h3 (trunk) tagged 10, h2 not
    s2, s3, s4 = (sniff(lab, h, b"from-v10") for h in ("h2", "h3", "h4"))
    send_from(lab, "h1", [frame(m1, BCAST, b"from-v10") for _ in range(3)])
    got3, got4, got2 = s3.wait(3, 10.0), s4.wait(3, 10.0), s2.wait(1, 0.5)
    assert got2 == [], "VLAN 20 saw VLAN 10's broadcast"
    assert len(got4) == 3 and not any(tagged(p) for p in got4)
    assert len(got3) == 3 and all(tagged(p) and p[Dot1Q].vlan == 10 for p in got3)
    # h3 sends tagged 20: h2 gets it untagged, h1 and h4 nothing
    s1, s2, s4 = (sniff(lab, h, b"from-trunk-20") for h in ("h1", "h2", "h4"))
    send_from(lab, "h3", [frame(m3, BCAST, b"from-trunk-20", vlan=20) for _ in range(3)])
    got2 = s2.wait(3, 10.0)
    assert len(got2) == 3 and not any(tagged(p) for p in got2)
    assert s1.wait(1, 0.5) == [] and s4.wait(1, 0.2) == []
    # the same MAC learned separately per VLAN; unicast to h2 from VLAN 10 never crosses
    wait_mac(lab, m3, "p2")
    s2 = sniff(lab, "h2", b"cross")
    send_from(lab, "h2", [frame(m2, UNKNOWN, b"learn-h2")])
    wait_mac(lab, m2, "p1")
    send_from(lab, "h1", [frame(m1, m2, b"cross") for _ in range(3)])
    assert s2.wait(1, 0.5) == []
    # a VLAN the trunk does not carry, and a tag on an access port: dropped, counted
    d3, d1 = ctr(lab, "p2", "vlan_not_member"), ctr(lab, "p0", "vlan_not_member")
    send_from(lab, "h3", [frame(m3, BCAST, b"v30", vlan=30) for _ in range(2)])
    send_from(lab, "h1", [frame(m1, BCAST, b"tag-on-access", vlan=10) for _ in range(2)])
    lab.wait_until(
        lambda: (
            ctr(lab, "p2", "vlan_not_member") == d3 + 2
            and ctr(lab, "p0", "vlan_not_member") == d1 + 2
        ),
        3.0,
        0.05,
        "tagged frames dropped",
    )
    # untagged on a trunk without a native VLAN
    u0 = ctr(lab, "p2", "untagged_on_trunk")
    send_from(lab, "h3", [frame(m3, BCAST, b"untagged-trunk")])
    lab.wait_until(
        lambda: ctr(lab, "p2", "untagged_on_trunk") == u0 + 1, 3.0, 0.05, "untagged dropped"
    )


def test_trunk_native_vlan(switch_lab: Callable[..., SwitchLab]) -> None:
    hosts = (
        SwitchHost("p0", "h1", "10.0.0.1/24", "vlan 1"),
        SwitchHost("p1", "h2", "10.0.0.2/24", "trunk 10 native 1"),
    )
    lab = switch_lab(hosts=hosts)
    # native VLAN 1: plain IP works untagged across the trunk
    assert ping(lab.ns["h1"], "10.0.0.2", count=2) == 2
    s1 = sniff(lab, "h1", b"native-tagged")
    send_from(lab, "h2", [frame(lab.host_mac("h2"), BCAST, b"native-tagged", vlan=1)])
    got = s1.wait(1, 10.0)
    assert len(got) == 1 and not tagged(got[0])


def test_static_mac_and_limit(switch_lab: Callable[..., SwitchLab]) -> None:
    lab = switch_lab()
    static = "02:00:00:00:00:05"
    lab.ctl("bridge", "mac", "add", "br0", static, "port", "p1")
    entry = next(e for e in lab.macs() if e["mac"].lower() == static)
    assert entry["type"] == "static" and entry["port"] == "p1"
    # a frame with the static MAC as source elsewhere neither moves nor learns it
    send_from(lab, "h3", [frame(static, UNKNOWN, b"spoof")])
    lab.wait_until(lambda: ctr(lab, "p2", "static_conflict") >= 1, 3.0, 0.05, "conflict")
    assert lab.mac_port(static) == "p1"
    # to it: only p1
    s2, s3 = sniff(lab, "h2", b"to-static"), sniff(lab, "h3", b"to-static")
    send_from(lab, "h1", [frame("02:00:00:00:01:01", static, b"to-static")])
    assert len(s2.wait(1, 10.0)) == 1 and s3.wait(1, 0.3) == []
    wait_mac(lab, "02:00:00:00:01:01", "p0")
    # the limit: room for one more on p0 (whatever the host itself has had learned)
    have = lab.port_l2("p0")["macs"]
    lab.ctl("port", "set", "p0", "mode", "l2", "bridge", "br0", "mac-limit", str(have + 1))
    assert lab.port_l2("p0")["mac_limit"] == have + 1
    assert lab.mac_port("02:00:00:00:01:01") == "p0", "re-configuring the port kept its MACs"
    send_from(lab, "h1", [frame("02:00:00:00:01:02", UNKNOWN, b"lim")])
    wait_mac(lab, "02:00:00:00:01:02", "p0")
    assert lab.port_l2("p0")["macs"] == have + 1
    s2 = sniff(lab, "h2", b"over-limit")
    send_from(lab, "h1", [frame("02:00:00:00:01:03", UNKNOWN, b"over-limit") for _ in range(3)])
    lab.wait_until(lambda: ctr(lab, "p0", "mac_limit") == 3, 3.0, 0.05, "over the limit")
    assert s2.wait(1, 0.3) == [] and lab.mac_port("02:00:00:00:01:03") is None
    # known sources still pass
    s2 = sniff(lab, "h2", b"under-limit")
    send_from(lab, "h1", [frame("02:00:00:00:01:02", UNKNOWN, b"under-limit")])
    assert len(s2.wait(1, 10.0)) == 1
    with pytest.raises(Exception, match="bad unicast MAC"):
        lab.ctl("bridge", "mac", "add", "br0", "01:00:5e:00:00:01", "port", "p1")
    with pytest.raises(Exception, match="no port"):
        lab.ctl("bridge", "mac", "add", "br0", static, "port", "nosuch")
    lab.ctl("bridge", "mac", "del", "br0", static)
    assert lab.mac_port(static) is None


def test_malformed_and_runt_frames(switch_lab: Callable[..., SwitchLab]) -> None:
    # af_xdp: the kernel drops a cut-short VLAN tag before a packet socket (af_packet)
    # could see it; XDP sees the frame as it came
    lab = switch_lab(pmd="af_xdp")
    m1 = lab.host_mac("h1")
    s2 = sniff(lab, "h2", b"bad")
    # a VLAN tag cut short: 16 bytes, shorter than a tagged header
    runt = bytes.fromhex("ffffffffffff") + bytes.fromhex(m1.replace(":", "")) + b"\x81\x00\x00"
    send_from(
        lab,
        "h1",
        [
            Raw(runt[:16]),
            frame("01:00:5e:00:00:01", BCAST, b"bad-src-multicast"),
            frame("00:00:00:00:00:00", BCAST, b"bad-src-zero"),
            frame(m1, "01:80:c2:00:00:00", b"bad-stp"),
        ],
    )
    lab.wait_until(
        lambda: (
            ctr(lab, "p0", "runt") == 1
            and ctr(lab, "p0", "bad_src_mac") == 2
            and ctr(lab, "p0", "link_local") == 1
        ),
        3.0,
        0.05,
        "bad frames counted",
    )
    assert s2.wait(1, 0.3) == []
    assert lab.port_l2("p0")["drops"] >= 4
    # the global drop counters name them too
    drops = lab.drops()
    assert drops.get("l2.runt", 0) >= 1 and drops.get("l2.bad_src_mac", 0) >= 2
    # and the switch still switches
    assert ping(lab.ns["h1"], "10.0.0.2", count=2) == 2


def test_routed_and_bridged_ports_in_one_daemon(switch_lab: Callable[..., SwitchLab]) -> None:
    routed = (Link("p5", "h5", "10.0.5.1/24", "10.0.5.2/24"),)
    lab = switch_lab(routed=routed)
    assert ping(lab.ns["h1"], "10.0.0.3", count=2) == 2
    assert ping(lab.ns["h5"], "10.0.5.1", count=2) == 2
    modes = {p["name"]: p["mode"] for p in lab.ctl("show", "ports")["ports"]}
    assert modes["p5"].startswith("l3") and modes["p0"].startswith("l2")


def test_commands_rejected_with_reasons(switch_lab: Callable[..., SwitchLab]) -> None:
    lab = switch_lab()
    cases = [
        (("bridge", "add", "br0"), "exists"),
        (("bridge", "add", "b" * 20), "1 to 15 characters"),
        (("bridge", "del", "br0"), "has 3 ports"),
        (("port", "set", "p0", "mode", "l2", "bridge", "nope"), "no bridge named"),
        (("port", "set", "p0", "mode", "l2", "bridge", "br0", "vlan", "5000"), "bad VLAN"),
        (("port", "set", "p0", "mode", "l2", "bridge", "br0", "trunk", "1,x"), "bad VLAN list"),
        (("port", "set", "p0", "mode", "l2", "bridge", "br0", "vlan", "2", "trunk", "3"), "vlan"),
        (("port", "set", "p0", "mode", "chain", "c1"), "set by 'chain add'"),
        (("chain", "add", "c1", "from", "p0", "to", "p1", "via", "nosuch"), "no NF named"),
        (("show", "bridge", "nope"), "no bridge named"),
    ]
    for words, msg in cases:
        with pytest.raises(Exception, match=msg):
            lab.ctl(*words)
    # nothing changed
    assert ping(lab.ns["h1"], "10.0.0.2", count=1) == 1

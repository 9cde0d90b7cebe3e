# SPDX-License-Identifier: BSD-3-Clause
"""Hostile NDN packets against the real daemon (docs/shared review N1, N2, N11).

Crafted packets, encoded by python-ndn, come from namespaces over UDP (on-demand
faces, as any host in an accepted network gets) and over an Ethernet face. After
each: the daemon runs, the drop is in its named counter, the mbufs are back
(``show mempool``), and a python-ndn consumer still fetches from a python-ndn
producer. The second face of the Nack scenarios gets its route from the operator
(``ndn fib add``), not from NFD management."""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from ndn.encoding import InterestParam, MetaInfo, Name, make_data, make_interest, parse_interest
from ndn.encoding.ndnlp_v2 import LpPacket, LpPacketValue, NetworkNack, parse_lp_packet_v2
from ndn.security import DigestSha256Signer
from test_ndn import NDN_CONFIG, Producer, ndn_drops, peer

from twinplane.lab import RouterLab
from twinplane.lab.netns import veth
from twinplane.lab.router import port_devargs


@pytest.fixture
def ndn_lab(daemon_lab: Callable[..., RouterLab]) -> Iterator[RouterLab]:
    yield daemon_lab(extra_config=NDN_CONFIG)


def interest(name: str, nonce: int | None = None, **kw: Any) -> bytes:
    p = InterestParam()
    p.nonce = nonce
    p.lifetime = 4000
    for k, v in kw.items():
        setattr(p, k, v)
    return bytes(make_interest(name, p))


def data(name: str, content: bytes = b"x") -> bytes:
    return bytes(make_data(name, MetaInfo(), content, signer=DigestSha256Signer()))


def lp(fragment: bytes, token: bytes | None = None, nack: int | None = None) -> bytes:
    v = LpPacketValue()
    v.fragment = fragment
    v.pit_token = token
    if nack is not None:
        v.nack = NetworkNack()
        v.nack.nack_reason = nack
    pkt = LpPacket()
    pkt.lp_packet = v
    return bytes(pkt.encode())


def drops(lab: RouterLab, name: str) -> int:
    return ndn_drops(lab.counters(), f"ndn.{name}")


def event(lab: RouterLab, name: str) -> int:
    return int(lab.counters()["counters"].get(f"ndn.{name}", 0))


def recv(s: socket.socket, timeout: float = 2.0) -> bytes | None:
    s.settimeout(timeout)
    try:
        return s.recv(65536)
    except TimeoutError:
        return None


def drain(s: socket.socket) -> None:
    while recv(s, 0.3) is not None:
        pass


def still_serves(lab: RouterLab, prefix: str) -> None:
    """The daemon runs, its mbufs came home, and python-ndn fetches through it."""
    assert lab.daemon is not None and lab.daemon.running()
    assert lab.mempool_baseline is not None
    lab.flush_tx_residue()
    in_use = lab.settle_mempool(lab.mempool_baseline)
    assert in_use <= lab.mempool_baseline, lab.mempool()
    Producer(lab, "h2", prefix)
    r = peer(lab, "h1", "consumer", "--name", f"{prefix}/after")
    assert r["result"] == "data" and r["name"] == f"{prefix}/after", r


def udp_face(lab: RouterLab, host: str, s: socket.socket) -> int:
    """The on-demand face of socket s (in host), made by a first packet if need be."""
    port = s.getsockname()[1]
    uri = f"udp4://{lab.host_ip(host)}:{port}"

    def find() -> int | None:
        faces = lab.ctl("ndn", "face", "show")["faces"]
        return next((f["id"] for f in faces if f["uri"] == uri), None)

    if find() is None:
        s.sendto(interest("/hostile/hello", 1), (lab.link(host).router_ip, 6363))
        lab.wait_until(find, timeout=5, what=f"face {uri}")
        drain(s)  # its Nack (no route)
    face = find()
    assert face is not None
    return face


# N1: one Data with an empty name, in every shape a face carries it
EMPTY_NAME_SHAPES = {
    "python_ndn": data("/"),
    "review": bytes.fromhex("0609070016031b01001700"),
    "lp_no_token": lp(data("/")),
    "lp_short_token": lp(data("/"), token=b"\x00\x01\x02\x03"),
    "lp_our_token_size": lp(data("/"), token=bytes(8)),
    "lp_long_token": lp(data("/"), token=bytes(range(16))),
}


def test_empty_name_data_over_udp(ndn_lab: RouterLab) -> None:
    lab = ndn_lab
    router = lab.link("h1").router_ip
    assert Name.to_str(parse_data_name(EMPTY_NAME_SHAPES["python_ndn"])) == "/"
    before = drops(lab, "data_empty_name")
    with lab.netns("h1").socket() as s:
        for b in EMPTY_NAME_SHAPES.values():
            s.sendto(b, (router, 6363))
    lab.wait_until(
        lambda: drops(lab, "data_empty_name") - before == len(EMPTY_NAME_SHAPES),
        timeout=5,
        what="every empty-name Data counted",
    )
    still_serves(lab, "/tp/n1")


def parse_data_name(b: bytes) -> Any:
    from ndn.encoding import parse_data

    return parse_data(b, with_tl=True)[0]


def test_empty_name_data_over_ethernet(ndn_lab: RouterLab) -> None:
    """The same Data on the NDN multicast face of an Ethernet port (any host on the
    segment reaches it), sent raw from the other end of a veth."""
    lab = ndn_lab
    veth(lab.router, "ndnh0", lab.router, "ndnh1")
    lab.ctl("port", "add", "p2", port_devargs(lab.pmd, 2, "ndnh0"))
    lab.ctl("port", "set", "p2", "mode", "ndn")
    lab.ctl("ndn", "face", "add", "ether", "p2")
    eth = "01005e0017aa" + "020000abcdef" + "8624"
    frames = [eth + b.hex() for b in EMPTY_NAME_SHAPES.values()]
    frames.append(eth + data("/localhost/nfd/x").hex())  # N11: /localhost Data, not local
    send = (
        "import socket, sys\n"
        "s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)\n"
        "s.bind(('ndnh1', 0))\n"
        "for f in sys.argv[1:]:\n"
        "    s.send(bytes.fromhex(f))\n"
    )
    before = drops(lab, "data_empty_name"), drops(lab, "localhost_data_from_non_local_face")
    lab.router.run([sys.executable, "-c", send, *frames])
    lab.wait_until(
        lambda: (
            (
                drops(lab, "data_empty_name") - before[0],
                drops(lab, "localhost_data_from_non_local_face") - before[1],
            )
            == (len(EMPTY_NAME_SHAPES), 1)
        ),
        timeout=5,
        what="the Ethernet drops counted",
    )
    still_serves(lab, "/tp/n1e")


def test_nack_for_nonce_less_interest(ndn_lab: RouterLab) -> None:
    """N2: an Interest without a Nonce from face A, routed to face B (the operator's
    route), Nacked by B. The forwarder gave the Interest a Nonce; a Nack whose
    Interest has none, or another name (N11), is dropped; the right one reaches A."""
    lab = ndn_lab
    ra, rb = lab.link("h1").router_ip, lab.link("h2").router_ip
    with lab.netns("h1").socket() as a, lab.netns("h2").socket() as b:
        a.bind(("0.0.0.0", 0))
        b.bind(("0.0.0.0", 0))
        fb = udp_face(lab, "h2", b)
        lab.ctl("ndn", "fib", "add", "/x", "face", str(fb))
        added = event(lab, "interest_nonce_added")
        a.sendto(interest("/x/1", None), (ra, 6363))
        got = recv(b)
        assert got is not None, "the Interest was not forwarded"
        pkt = parse_lp_packet_v2(got, with_tl=True)
        assert pkt.pit_token is not None and len(pkt.pit_token) == 8
        fwd = bytes(pkt.fragment)
        name, param, _, _ = parse_interest(fwd, with_tl=True)
        assert Name.to_str(name) == "/x/1"
        assert param.nonce is not None  # NFD gives a Nonce-less Interest one
        assert event(lab, "interest_nonce_added") == added + 1
        tok = bytes(pkt.pit_token)

        before = {c: drops(lab, c) for c in ("nack_without_nonce", "nack_interest_mismatch")}
        # the review's crash: the Nack's Interest has no Nonce either
        b.sendto(lp(interest("/x/1", None), token=tok, nack=150), (rb, 6363))
        # N11: the Nack's Interest names something else (management), same Nonce
        other = interest("/localhost/nfd/rib/list", param.nonce)
        b.sendto(lp(other, token=tok, nack=150), (rb, 6363))
        lab.wait_until(
            lambda: (
                {c: drops(lab, c) - before[c] for c in before}
                == {"nack_without_nonce": 1, "nack_interest_mismatch": 1}
            ),
            timeout=5,
            what="the two Nacks dropped and counted",
        )
        assert recv(a, 0.5) is None  # nothing went downstream
        # the Nack of the Interest as sent: downstream, with A's Interest in it
        b.sendto(lp(fwd, token=tok, nack=150), (rb, 6363))
        back = recv(a)
        assert back is not None, "no Nack downstream"
        nk = parse_lp_packet_v2(back, with_tl=True)
        assert nk.nack is not None and nk.nack.nack_reason == 150
        name2, param2, _, _ = parse_interest(bytes(nk.fragment), with_tl=True)
        assert Name.to_str(name2) == "/x/1" and param2.nonce == param.nonce
    assert show_totals(lab)["pit_nacked"] >= 1
    still_serves(lab, "/tp/n2")


def show_totals(lab: RouterLab) -> dict[str, int]:
    t: dict[str, int] = lab.ctl("show", "ndn")["totals"]
    return t


def test_scope_control(ndn_lab: RouterLab) -> None:
    """N11, NFD's scope rules: /localhost Interests never to non-local faces (from a
    local face with a route to a non-local one), /localhop Interests from a
    non-local face never to a non-local face, /localhost Data from a non-local face
    dropped. The refused Interests get a Nack (no route)."""
    lab = ndn_lab
    ra, rb = lab.link("h1").router_ip, lab.link("h2").router_ip
    with lab.netns("h1").socket() as loc, lab.netns("h1").socket() as a:
        with lab.netns("h2").socket() as b:
            loc.bind(("0.0.0.0", 0))
            a.bind(("0.0.0.0", 0))
            b.bind(("0.0.0.0", 0))
            port = loc.getsockname()[1]
            lab.ctl("ndn", "face", "add", "udp", f"{lab.host_ip('h1')}:{port}", "local")
            fb = udp_face(lab, "h2", b)
            lab.ctl("ndn", "fib", "add", "/localhost/app", "face", str(fb))
            lab.ctl("ndn", "fib", "add", "/localhop/y", "face", str(fb))
            ev = {
                c: event(lab, c)
                for c in ("localhost_next_hop_refused", "localhop_next_hop_refused")
            }
            loc.sendto(interest("/localhost/app/1", 11), (ra, 6363))
            a.sendto(interest("/localhop/y/1", 12), (ra, 6363))
            for s, name in ((loc, "/localhost/app/1"), (a, "/localhop/y/1")):
                back = recv(s)
                assert back is not None, name
                nk = parse_lp_packet_v2(back, with_tl=True)
                assert nk.nack is not None and nk.nack.nack_reason == 150, name
                assert Name.to_str(parse_interest(bytes(nk.fragment))[0]) == name
            assert recv(b, 0.5) is None  # neither reached the non-local face
            assert {c: event(lab, c) - ev[c] for c in ev} == {
                "localhost_next_hop_refused": 1,
                "localhop_next_hop_refused": 1,
            }
            before = drops(lab, "localhost_data_from_non_local_face")
            b.sendto(data("/localhost/app/1"), (rb, 6363))
            lab.wait_until(
                lambda: drops(lab, "localhost_data_from_non_local_face") == before + 1,
                timeout=5,
                what="/localhost Data from a non-local face dropped",
            )
            # a /localhop Interest from the local face may leave
            loc.sendto(interest("/localhop/y/2", 13), (ra, 6363))
            got = recv(b)
            assert got is not None
            fwd = parse_lp_packet_v2(got, with_tl=True).fragment
            assert Name.to_str(parse_interest(bytes(fwd))[0]) == "/localhop/y/2"
    time.sleep(0.1)
    still_serves(lab, "/tp/n11")


def test_fragment_with_bytes_after_its_packet(ndn_lab: RouterLab) -> None:
    """An LpPacket's Fragment holds one packet (NDNLPv2); bytes after it would travel
    on with the packet (into the CS, to the next hop): malformed, as NFD has it."""
    lab = ndn_lab
    router = lab.link("h1").router_ip
    before = drops(lab, "malformed")
    with lab.netns("h1").socket() as s:
        s.sendto(lp(interest("/tp/trail/1", 5) + b"\x00\x00"), (router, 6363))
        s.sendto(lp(data("/tp/trail/1") + b"\x08\x00", token=bytes(8)), (router, 6363))
    lab.wait_until(lambda: drops(lab, "malformed") == before + 2, timeout=5, what="counted")
    still_serves(lab, "/tp/trail")

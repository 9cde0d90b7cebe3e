# SPDX-License-Identifier: BSD-3-Clause
"""NDN management and the tables outsiders can fill, through the real daemon with
python-ndn applications (python/twinplane/lab/ndnpeer.py).

- /localhost/nfd only from faces the operator made local; /localhop/nfd refused
  unless enabled with a key, then only HMAC-SHA256-signed commands, acting on the
  requester's own face, under the rules of a remote requester (no "/", no other
  FaceId, Origin app or client, bounded ExpirationPeriod, routes per face, rate).
- On-demand UDP faces expire when idle, with their routes; a full face table evicts
  the face idle longest, or refuses, counted.
- One face holds at most its share of a context's PIT; beyond, Nack Congestion.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from typing import Any

from ndn.app_support.nfd_mgmt import ControlResponse, make_command_v2
from ndn.encoding import InterestParam, Name, make_interest, parse_data
from ndn.encoding.ndnlp_v2 import parse_lp_packet, parse_network_nack
from ndn.encoding.tlv_var import parse_and_check_tl
from ndn.security.signer.sha256_hmac_signer import HmacSha256Signer
from test_ndn import Producer, peer, show

from twinplane.lab import RouterLab
from twinplane.lab.ndnpeer import LAB_KEY, TimedHmacSigner

BASE = ["ndn enable pit-capacity 4096 cs-capacity 1024", "ndn face accept udp 10.0.0.0/8"]
LOCALHOP = f"ndn localhop enable key {LAB_KEY}"
WRONG_KEY = "00" * 32


def mgmt(lab: RouterLab) -> dict[str, Any]:
    m: dict[str, Any] = show(lab)["management"]
    return m


def fib(lab: RouterLab) -> list[tuple[str, list[tuple[int, int]]]]:
    """``ndn fib show``: each prefix with its next hops (face, cost)."""
    return sorted(
        (e["prefix"], [(h["face"], h["cost"]) for h in e["nexthops"]])
        for e in lab.ctl("ndn", "fib", "show")["fib"]
    )


def command(lab: RouterLab, host: str, *args: str) -> list[dict[str, Any]]:
    """ndnpeer's command mode from host: the ControlResponse of each command."""
    r = peer(lab, host, "command", *args, timeout=60)
    return r if isinstance(r, list) else [r]


def h2_face(lab: RouterLab) -> int:
    faces = lab.ctl("ndn", "face", "show")["faces"]
    ids = [f["id"] for f in faces if f["uri"].startswith(f"udp4://{lab.host_ip('h2')}:")]
    assert len(ids) == 1, faces
    return int(ids[0])


def test_localhop_refused_by_default(daemon_lab: Callable[..., RouterLab]) -> None:
    """Without 'ndn localhop enable', a remote requester gets 403 for anything, and a
    /localhost command from a face that is not local never reaches management."""
    lab = daemon_lab(extra_config=BASE)
    fib0 = fib(lab)
    r = command(lab, "h1", "--prefix", "/")
    assert r[0]["status_code"] == 403 and "disabled" in r[0]["status_text"], r
    # signed with a key, all the same
    r = command(lab, "h1", "--prefix", "/tp/x", "--hmac-key", LAB_KEY)
    assert r[0]["status_code"] == 403, r
    m = mgmt(lab)
    assert m["refused_localhop_disabled"] == 2 and m["commands_refused"] == 2, m
    assert m["commands_accepted"] == 0 and m["localhop_enabled"] is False, m
    # /localhost from an on-demand (not local) face: dropped by scope control
    before = lab.counters()["drops"].get("ndn.localhost_from_non_local_face", 0)
    r = command(lab, "h1", "--prefix", "/tp/y", "--local")
    assert r == [{"status_code": None, "error": "InterestTimeout"}], r
    after = lab.counters()["drops"]["ndn.localhost_from_non_local_face"]
    assert after == before + 1
    assert fib(lab) == fib0
    assert mgmt(lab)["commands_refused"] == 2


def test_remote_requester_rules(daemon_lab: Callable[..., RouterLab]) -> None:
    """Localhop enabled, correctly signed: "/", another face's FaceId, Origin 255 (the
    operator's static routes), a /localhop prefix are each refused with 403 and
    counted by reason; the FIB does not change. A plain registration is accepted on
    the requester's own face, with the ExpirationPeriod bounded."""
    lab = daemon_lab(extra_config=[*BASE, LOCALHOP, "ndn limits expiration-max 30"])
    prod = Producer(lab, "h2", "/tp/victim")  # signed: an on-demand face of h2
    victim = h2_face(lab)
    lab.ctl("ndn", "fib", "add", "/tp/static", "face", str(victim))
    fib0 = fib(lab)
    cases = [
        (["--prefix", "/"], "refused_prefix"),
        (["--prefix", "/tp/victim", "--face-id", str(victim)], "refused_other_face"),
        (["--prefix", "/tp/static", "--origin", "255"], "refused_origin"),
        (["--verb", "unregister", "--prefix", "/tp/static", "--origin", "255"], "refused_origin"),
        (["--prefix", "/localhop/nfd"], "refused_prefix"),
    ]
    before = mgmt(lab)
    for args, _reason in cases:
        r = command(lab, "h1", "--hmac-key", LAB_KEY, *args)
        assert r[0]["status_code"] == 403, (args, r)
    m = mgmt(lab)
    assert m["refused_prefix"] - before["refused_prefix"] == 2, m
    assert m["refused_other_face"] - before["refused_other_face"] == 1, m
    assert m["refused_origin"] - before["refused_origin"] == 2, m
    assert m["commands_refused"] - before["commands_refused"] == len(cases), m
    assert fib(lab) == fib0
    # the static route and the producer's are untouched: the producer still answers
    r = peer(lab, "h1", "consumer", "--name", "/tp/victim/1")
    assert r["result"] == "data", r
    assert prod.interests("/tp/victim/1")
    # accepted: on its own face, ExpirationPeriod absent -> the bound (30 s)
    r = command(lab, "h1", "--hmac-key", LAB_KEY, "--prefix", "/tp/mine", "--face-id", "0")
    assert r[0]["status_code"] == 200, r
    assert r[0]["expiration_period"] == 30000 and r[0]["origin"] == 0, r
    routes = [x for x in lab.ctl("ndn", "rib", "show")["routes"] if x["prefix"] == "/tp/mine"]
    assert len(routes) == 1 and 0 < routes[0]["expires_in_ms"] <= 30000, routes
    assert routes[0]["face"] not in (0, victim)
    # an ExpirationPeriod beyond the bound is cut to it (one that would wrap, too)
    r = command(lab, "h1", "--hmac-key", LAB_KEY, "--prefix", "/tp/long",
                "--expiration-period", str(2**63 + 5))  # fmt: skip
    assert r[0]["status_code"] == 200 and r[0]["expiration_period"] == 30000, r


def test_localhop_signature(daemon_lab: Callable[..., RouterLab]) -> None:
    """The operator's key: a correctly signed command is accepted; the wrong key, an
    old SignatureTime or one from the future, and an unsigned (DigestSha256) command
    are refused with 403, counted."""
    lab = daemon_lab(extra_config=[*BASE, LOCALHOP])
    r = command(lab, "h1", "--hmac-key", LAB_KEY, "--prefix", "/tp/ok")
    assert r[0]["status_code"] == 200, r
    assert ("/tp/ok", [(r[0]["face_id"], 0)]) in fib(lab)
    fib0 = fib(lab)
    r = command(lab, "h1", "--hmac-key", WRONG_KEY, "--prefix", "/tp/bad")
    assert r[0]["status_code"] == 403 and r[0]["status_text"] == "bad signature", r
    r = command(lab, "h1", "--prefix", "/tp/digest")  # python-ndn's own: DigestSha256
    assert r[0]["status_code"] == 403, r
    for offset in ("-120000", "120000"):
        r = command(lab, "h1", "--hmac-key", LAB_KEY, "--prefix", "/tp/time",
                    "--signature-time-offset", offset)  # fmt: skip
        assert r[0]["status_code"] == 403, r
    m = mgmt(lab)
    assert m["refused_bad_signature"] == 2 and m["refused_stale_or_replayed"] == 2, m
    assert m["commands_accepted"] == 1, m
    assert fib(lab) == fib0
    # a replay: the same signed command again, from another face (MustBeFresh and a
    # new Nonce, outside the signed portion, so that the CS does not answer it)
    assert replayed_command(lab, "/tp/replay") == [200, 403]
    assert mgmt(lab)["refused_stale_or_replayed"] == 3
    # disabled again at run time: refused
    lab.ctl("ndn", "localhop", "disable")
    r = command(lab, "h1", "--hmac-key", LAB_KEY, "--prefix", "/tp/off")
    assert r[0]["status_code"] == 403, r
    assert mgmt(lab)["refused_localhop_disabled"] == 1


class FixedTimeSigner(TimedHmacSigner):
    """The lab's signer with one SignatureTime for every Interest it signs."""

    def __init__(self, key: bytes, time_ms: int) -> None:
        super().__init__(key)
        self.time_ms = time_ms

    def write_signature_info(self, signature_info: Any) -> None:
        HmacSha256Signer.write_signature_info(self, signature_info)
        signature_info.signature_time = self.time_ms


def replayed_command(lab: RouterLab, prefix: str) -> list[int]:
    """Register prefix from one h1 socket, then send the same signed command from a
    second one: the status codes of the two answers."""
    name = make_command_v2("rib", "register", None, name=Name.from_str(prefix))
    name[0] = Name.from_str("/localhop")[0]  # (None: python-ndn says /localhost)
    signer = FixedTimeSigner(bytes.fromhex(LAB_KEY), int(time.time() * 1000))
    codes = []
    for k, fresh in enumerate((False, True)):
        wire = make_interest(name, InterestParam(nonce=77 + k, lifetime=1000,
                             must_be_fresh=fresh), app_param=b"", signer=signer)  # fmt: skip
        with lab.netns("h1").socket() as s:
            s.settimeout(3)
            s.sendto(bytes(wire), (lab.link("h1").router_ip, 6363))
            got = s.recv(9000)
        if got[0] == 0x64:  # an LpPacket
            got = bytes(parse_lp_packet(got)[1])
        _, _, content, _ = parse_data(got)
        cr = ControlResponse.parse(parse_and_check_tl(memoryview(bytes(content)), 0x65))
        codes.append(int(cr.status_code))
    return codes


def test_local_face_registers_under_localhost(daemon_lab: Callable[..., RouterLab]) -> None:
    """A face the operator made local (``ndn face add udp ADDR:PORT local``): the
    python-ndn producer on it registers with its own /localhost/nfd command, as an
    application on NFD's Unix socket does, even with localhop disabled."""
    lab = daemon_lab(extra_config=BASE)
    h2 = lab.host_ip("h2")
    face = lab.ctl("ndn", "face", "add", "udp", f"{h2}:7001", "local")["face"]
    prod = Producer(lab, "h2", "/tp/local", "--local", "--local-port", "7001")
    routes = [x for x in lab.ctl("ndn", "rib", "show")["routes"] if x["prefix"] == "/tp/local"]
    assert [(x["face"], x["origin"]) for x in routes] == [(face, 0)], routes
    assert "expires_in_ms" not in routes[0]  # a local application's: no bound
    r = peer(lab, "h1", "consumer", "--name", "/tp/local/1")
    assert r["result"] == "data" and r["content"] == "/tp/local/1", r
    assert prod.interests("/tp/local/1")
    assert mgmt(lab)["commands_accepted"] == 1


def test_routes_per_face_and_rate(daemon_lab: Callable[..., RouterLab]) -> None:
    """At most face-routes routes per remote face (403 beyond, counted; renewing one
    it holds is fine), and at most mgmt-rate commands a second: the ones beyond are
    dropped (counted) and their requesters time out."""
    lab = daemon_lab(extra_config=[*BASE, LOCALHOP, "ndn limits face-routes 2"])
    names = ["/tp/r/1", "/tp/r/2", "/tp/r/3", "/tp/r/1"]
    r = command(lab, "h1", "--hmac-key", LAB_KEY, *[w for n in names for w in ("--name", n)])
    assert [x["status_code"] for x in r] == [200, 200, 403, 200], r
    assert mgmt(lab)["refused_face_routes_full"] == 1
    prefixes = [e[0] for e in fib(lab)]
    assert "/tp/r/1" in prefixes and "/tp/r/2" in prefixes and "/tp/r/3" not in prefixes
    # one command a second, one at a time: the second, right after the first, waits
    # for no token and is dropped; the third, a second (its timeout) later, passes
    lab.ctl("ndn", "limits", "mgmt-rate", "1", "mgmt-burst", "1")
    time.sleep(1.1)
    r = command(lab, "h1", "--hmac-key", LAB_KEY, "--name", "/tp/q", "--repeat", "3")
    assert [x["status_code"] for x in r] == [200, None, 200], r
    assert mgmt(lab)["commands_ratelimited"] == 1


def test_on_demand_face_idle_expiry(daemon_lab: Callable[..., RouterLab]) -> None:
    """An on-demand face idle for face-idle-timeout goes, and its routes with it; a
    face that keeps receiving stays."""
    lab = daemon_lab(extra_config=[*BASE, LOCALHOP, "ndn limits face-idle-timeout 2"])
    Producer(lab, "h2", "/tp/idle")
    face = h2_face(lab)
    assert "/tp/idle" in [e[0] for e in fib(lab)]
    shown = {f["id"]: f for f in lab.ctl("ndn", "face", "show")["faces"]}
    assert shown[face]["on_demand"] and shown[face]["idle_ms"] < 2000, shown[face]
    # h1 keeps its face busy meanwhile: one Interest every 0.4 s from one socket
    router = lab.link("h1").router_ip
    wire = bytes(make_interest(Name.from_str("/not/routed"), InterestParam(lifetime=100)))
    with lab.netns("h1").socket() as s:
        deadline = time.monotonic() + 4.5
        while time.monotonic() < deadline:
            s.sendto(wire, (router, 6363))
            time.sleep(0.4)
        ids = {f["id"]: f for f in lab.ctl("ndn", "face", "show")["faces"]}
        assert face not in ids, ids
        busy = [f for f in ids.values() if f["uri"].startswith(f"udp4://{lab.host_ip('h1')}:")]
        assert len(busy) == 1 and busy[0]["idle_ms"] < 2000, busy
    assert "/tp/idle" not in [e[0] for e in fib(lab)]
    assert "/tp/idle" not in [x["prefix"] for x in lab.ctl("ndn", "rib", "show")["routes"]]
    assert mgmt(lab)["on_demand_faces_expired"] >= 1


def test_face_table_full_refuses_then_evicts_idle(daemon_lab: Callable[..., RouterLab]) -> None:
    """1,023 on-demand faces fill the table. A new source is refused while every face
    is fresh (counted, no log per packet); once they have been idle a tenth of the
    idle timeout, the one idle longest is evicted for the next new source, which
    gets its face with its following packet."""
    # Interests live 1 s at most: an evicted face's id is given to a new face 2 s
    # later (once the PIT records of the face it was have expired)
    lab = daemon_lab(
        extra_config=[
            *BASE,
            "ndn limits face-idle-timeout 20",
            "ndn limits interest-lifetime-max 1000",
        ]
    )
    router = lab.link("h1").router_ip
    wire = bytes(make_interest(Name.from_str("/fill"), InterestParam(lifetime=100)))

    def send_from(port: int) -> None:
        with lab.netns("h1").socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("0.0.0.0", port))
            s.sendto(wire, (router, 6363))

    for port in range(20000, 20000 + 1023):
        send_from(port)
        if port % 100 == 0:  # the new-face ring holds 1,023: let the control plane drain it
            time.sleep(0.05)
    lab.wait_until(lambda: show(lab)["faces"] == 1024, timeout=10, what="face table full")
    assert mgmt(lab)["on_demand_faces_created"] == 1023
    send_from(30000)
    lab.wait_until(lambda: mgmt(lab)["on_demand_faces_refused_full"] == 1, timeout=5)
    assert mgmt(lab)["on_demand_faces_evicted"] == 0
    time.sleep(2.5)  # idle for a tenth of 20 s
    send_from(30001)
    lab.wait_until(lambda: mgmt(lab)["on_demand_faces_evicted"] == 1, timeout=5)
    assert show(lab)["faces"] == 1023
    time.sleep(2.2)  # the evicted face's slot is free for another face after 2 s
    evicted = mgmt(lab)["on_demand_faces_evicted"]
    send_from(30001)
    lab.wait_until(lambda: show(lab)["faces"] == 1024, timeout=5, what="the new face")
    assert mgmt(lab)["on_demand_faces_evicted"] == evicted  # the freed slot, no other
    uris = [f["uri"] for f in lab.ctl("ndn", "face", "show")["faces"]]
    assert f"udp4://{lab.host_ip('h1')}:30001" in uris
    assert f"udp4://{lab.host_ip('h1')}:30000" not in uris


def test_pit_share_per_face(daemon_lab: Callable[..., RouterLab]) -> None:
    """pit-face-share 1 of a 4,096-entry PIT: one face holds 40 pending Interests;
    its next ones get Nack Congestion (counted), while another face is served."""
    lab = daemon_lab(extra_config=[*BASE, LOCALHOP, "ndn limits pit-face-share 1"])
    Producer(lab, "h2", "/tp/p")
    router = lab.link("h1").router_ip
    n = 60
    with lab.netns("h1").socket() as s:
        s.settimeout(0.5)
        for k in range(n):
            w = make_interest(Name.from_str(f"/tp/p/silent/{k}"),
                              InterestParam(lifetime=8000, nonce=1000 + k))  # fmt: skip
            s.sendto(bytes(w), (router, 6363))
        nacks = []
        try:
            while True:
                reason, _ = parse_network_nack(s.recv(9000))
                nacks.append(reason)
        except TimeoutError:
            pass
        assert nacks == [50] * (n - 40), nacks  # NackReason Congestion
        assert show(lab)["pit_entries"] == 40
        assert lab.counters()["counters"]["ndn.pit_face_quota_nacked"] == n - 40
        # another face: its own share
        r = peer(lab, "h1", "consumer", "--name", "/tp/p/other")
        assert r["result"] == "data", r

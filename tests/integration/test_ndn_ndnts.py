# SPDX-License-Identifier: BSD-3-Clause
"""NDNts, a second NDN stack independent of python-ndn (JavaScript; the npm @ndn/*
packages pinned in tests/ndnts/package.json, installed by scripts/setup.sh), as real
Node processes (tests/ndnts/*.mjs) against the real daemon, beside python-ndn:

- prefix registration: an NDNts producer registers over the Unix socket (NDNts's
  NfdPrefixReg: origin 65, CAPTURE, an ExpirationPeriod); the route is in twinctl's
  RIB and FIB on the producer's face, and goes when the producer exits;
- segmented fetch both ways, ~1 MB in 8,000-byte segments, SHA-256 compared: python-ndn
  from the NDNts producer over the Unix socket, NDNts from a python-ndn producer over
  TCP from another namespace;
- Nacks both ways: twinplane's NoRoute to an NDNts consumer, and an NDNts peer's
  Congestion passed on to a python-ndn consumer (one next hop: NFD's best-route gives
  up and Nacks downstream with the upstream's reason), each counted on its face;
- NDNts reads every status dataset, which says what twinctl says.

Skipped only when tests/ndnts/node_modules is absent (setup.sh installs it when Node is
present; CI runs setup.sh).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_ndn import peer, show
from test_ndn_nfd_mgmt import PAIRS, listen, twinctl_fib, twinctl_rib, twinctl_view
from test_ndn_stream import App, faces, peer_argv, routes, streams

from twinplane.lab import RouterLab
from twinplane.lab.ndnpeer import object_bytes

NDNTS = Path(__file__).resolve().parents[1] / "ndnts"
pytestmark = pytest.mark.skipif(
    not (NDNTS / "node_modules" / "@ndn").is_dir(),
    reason="tests/ndnts/node_modules absent: scripts/setup.sh installs NDNts (npm ci) "
    "when node is present",
)

BASE = ["ndn enable pit-capacity 4096 cs-capacity 1024"]
SIZE = 1_000_000  # the object, in 125 segments of 8,000 bytes
SEGMENTS = 125
SHA256 = hashlib.sha256(object_bytes(SIZE)).hexdigest()
ROUTE_LIFETIME_MS = 1_200_000  # NfdPrefixReg's: 4 x its 300 s refresh


def node(script: str, *args: str) -> list[str]:
    exe = shutil.which("node")
    assert exe, "node_modules is installed but node is not on PATH"
    return [exe, str(NDNTS / script), *args]


def run_node(lab: RouterLab, ns: str, script: str, *args: str, timeout: float = 60) -> Any:
    """An NDNts script run to its end in namespace ns: its last JSON line."""
    out = lab.netns(ns).run(node(script, *args), timeout=timeout)
    lines = [json.loads(x) for x in out.stdout.splitlines() if x.startswith("{")]
    assert lines, out.stdout + out.stderr
    return lines[-1]


def face_by_id(lab: RouterLab, face: int) -> dict[str, Any]:
    (f,) = [f for f in lab.ctl("ndn", "face", "show")["faces"] if f["id"] == face]
    return f


def test_ndnts_producer_registers_python_ndn_fetches(
    daemon_lab: Callable[..., RouterLab],
) -> None:
    """NDNts's prefix registration over the Unix socket: the route in twinctl's RIB
    (origin 65, CAPTURE, expiring) and FIB on the producer's face; python-ndn's segment
    fetcher gets the ~1 MB object whole from it; the route and the face go when the
    producer exits."""
    lab = daemon_lab(extra_config=BASE)
    uri = f"unix://{listen(lab)}"
    prod = App(lab, "h2", node("producer.mjs", "--transport", uri, "--prefix", "/tp/ndnts",
                               "--size", str(SIZE)))  # fmt: skip
    ev = prod.next(timeout=20)
    assert ev == {"event": "registered", "prefix": "/tp/ndnts"}, ev
    (pf,) = faces(lab, "unix")
    assert pf["local"] is True and pf["uri"].startswith("fd://"), pf
    (route,) = routes(lab, "/tp/ndnts")
    assert (route["face"], route["origin"], route["cost"], route["flags"]) == (
        pf["id"], 65, 0, 2,
    ), route  # fmt: skip
    assert 0 < route["expires_in_ms"] <= ROUTE_LIFETIME_MS, route
    assert twinctl_fib(lab)["/tp/ndnts"] == [(pf["id"], 0)]

    out = lab.netns("h1").run(peer_argv("fetch", "--transport", uri, "--name", "/tp/ndnts"),
                              timeout=60)  # fmt: skip
    r = json.loads(out.stdout.splitlines()[-1])
    assert r == {"size": SIZE, "sha256": SHA256, "segments": SEGMENTS}, r
    # the producer's face: the command and its answer, then every segment
    c = face_by_id(lab, pf["id"])["counters"]
    assert (c["rx_interests"], c["tx_data"]) == (1, 1), c
    assert c["tx_interests"] == c["rx_data"] == SEGMENTS, c
    assert c["rx_bytes"] > SIZE and c["rx_dropped"] == 0, c

    prod.stop()
    lab.wait_until(lambda: not routes(lab, "/tp/ndnts"), 5.0, what="the route removed")
    assert faces(lab, "unix") == [] and "/tp/ndnts" not in twinctl_fib(lab)


def test_ndnts_fetches_from_python_ndn_over_tcp(daemon_lab: Callable[..., RouterLab]) -> None:
    """NDNts's segmented fetch (its congestion control, pipelined Interests) from h1
    over TCP, through twinplane, from a python-ndn producer on the Unix socket: the
    object whole, every segment asked for."""
    lab = daemon_lab(extra_config=BASE)
    router = lab.link("h1").router_ip
    lab.ctl("ndn", "face", "listen", "tcp", f"{router}:6363")
    uri = f"unix://{listen(lab)}"
    argv = peer_argv("producer", "--transport", uri, "--prefix", "/tp/py",
                     "--object-size", str(SIZE), "--segment-size", "8000")  # fmt: skip
    prod = App(lab, "h2", argv)
    assert prod.next().get("event") == "registered"

    r = run_node(lab, "h1", "fetch.mjs", "--transport", f"tcp4://{router}:6363",
                 "--name", "/tp/py")  # fmt: skip
    assert r == {"size": SIZE, "sha256": SHA256, "segments": SEGMENTS}, r
    asked: set[str] = set()
    while len(asked) < SEGMENTS and (ev := prod.next(timeout=5)):
        asked.add(ev.get("name", ""))
    assert asked == {f"/tp/py/seg={k}" for k in range(SEGMENTS)}, sorted(asked)[:5]
    listeners = {x["uri"]: x for x in streams(lab)["listeners"]}
    assert listeners[f"tcp4://{router}:6363"]["accepted"] == 1, listeners
    (pf,) = faces(lab, "unix")
    assert pf["counters"]["rx_data"] >= SEGMENTS and pf["counters"]["rx_dropped"] == 0, pf


def test_nacks_both_ways(daemon_lab: Callable[..., RouterLab]) -> None:
    """twinplane Nacks an NDNts consumer (NoRoute: no route for the name), counted on
    its face; an NDNts peer Nacks (Congestion) the Interest twinplane forwarded to it,
    its only next hop: twinplane gives up (NFD's best-route: no other next hop) and
    Nacks the python-ndn consumer with that reason, the Nack in on the peer's face and
    out on the consumer's."""
    lab = daemon_lab(extra_config=[*BASE, "ndn face accept udp 10.0.0.0/8"])
    uri = f"unix://{listen(lab)}"
    cons = App(lab, "h1", node("nack-consumer.mjs", "--transport", uri,
                               "--name", "/tp/nowhere/1", "--hold"))  # fmt: skip
    r = cons.next(timeout=20)
    assert (r.get("result"), r.get("reason"), r.get("reason_name"), r.get("name")) == (
        "nack", 150, "NoRoute", "/tp/nowhere/1",
    ), r  # fmt: skip
    (cf,) = faces(lab, "unix")
    c = cf["counters"]
    assert (c["rx_interests"], c["tx_nacks"], c["tx_data"]) == (1, 1, 0), cf
    assert show(lab)["totals"]["nack_noroute"] == 1
    cons.stop()
    lab.wait_until(lambda: faces(lab, "unix") == [], 5.0, what="the consumer's face gone")

    nacker = App(lab, "h2", node("nack-peer.mjs", "--transport", uri, "--prefix", "/tp/nacker",
                                 "--reason", "Congestion"))  # fmt: skip
    ev = nacker.next(timeout=20)
    assert ev.get("event") == "registered" and ev.get("status_code") == 200, ev
    (nf,) = faces(lab, "unix")
    assert [r["face"] for r in routes(lab, "/tp/nacker")] == [nf["id"]]
    r = peer(lab, "h1", "consumer", "--name", "/tp/nacker/1", "--lifetime", "2000")
    assert r == {"result": "nack", "reason": 50}, r  # Congestion, as the peer said
    ev = nacker.next()
    assert (ev.get("event"), ev.get("name"), ev.get("reason")) == ("nacked", "/tp/nacker/1", 50)
    c = face_by_id(lab, nf["id"])["counters"]
    assert (c["tx_interests"], c["rx_nacks"]) == (1, 1), c
    (udp,) = [f for f in lab.ctl("ndn", "face", "show")["faces"] if f["on_demand"]]
    c = udp["counters"]
    assert (c["rx_interests"], c["tx_nacks"], c["tx_data"]) == (1, 1, 0), udp
    t = show(lab)["totals"]
    # one Nack in, one PIT entry given up on; the NoRoute was the first Interest's alone
    assert (t["nacks"], t["pit_nacked"], t["nack_noroute"]) == (1, 1, 1), t
    assert show(lab)["pit_entries"] == 0


def check_faces(got: dict, faces0: dict, faces1: dict, uri: str) -> None:
    """faces/list as NDNts read it against twinctl's faces read before and after it."""
    # faces: twinctl's, and the reader's own (a Unix face, on-demand, gone now)
    fs = {f["faceId"]: f for f in got["faces/list"]}
    (reader,) = set(fs) - set(faces0)
    assert reader not in faces1 and fs[reader]["localUri"] == uri, fs[reader]
    assert fs[reader]["faceScope"] == 1 and fs[reader]["facePersistency"] == 0
    assert set(fs) - {reader} == set(faces0) == set(faces1)
    for i, f in faces0.items():
        assert (fs[i]["uri"], fs[i]["mtu"]) == (f["uri"], f["mtu"]), (fs[i], f)
        if "local_uri" in f:  # twinctl gives a stream face's
            assert fs[i]["localUri"] == f["local_uri"], (fs[i], f)
        assert fs[i]["faceScope"] == int(f["local"]), (fs[i], f)
        persistency = 2 if i == 0 else 0 if f["on_demand"] or f["kind"] == "unix" else 1
        assert fs[i]["facePersistency"] == persistency, (fs[i], f)
        for ours, theirs in PAIRS.items():
            camel = "".join(w.title() if k else w for k, w in enumerate(ours.split("_")))
            lo, hi = f["counters"][theirs], faces1[i]["counters"][theirs]
            assert lo <= fs[i][camel] <= hi, (i, camel, fs[i], f, faces1[i])


def test_ndnts_reads_every_dataset(daemon_lab: Callable[..., RouterLab]) -> None:
    """NDNts's nfdmgmt reads status/general, faces/list, faces/channels, fib/list,
    rib/list and strategy-choice/list over the Unix socket; they say what twinctl says:
    the faces (URIs, scope, persistency, MTU, counters between two twinctl reads), the
    listeners, the FIB, the RIB (the NDNts producer's route with its time left), the
    strategy choices."""
    lab = daemon_lab(extra_config=BASE)
    path = listen(lab)
    uri = f"unix://{path}"
    router = lab.link("h1").router_ip
    lab.ctl("ndn", "face", "listen", "tcp", f"{router}:6363")
    static = lab.ctl("ndn", "face", "add", "udp", f"{lab.host_ip('h2')}:7001")["face"]
    lab.ctl("ndn", "fib", "add", "/tp/static", "face", str(static), "cost", "7")
    lab.ctl("ndn", "strategy", "set", "/tp/static", "multicast")
    lab.ctl("ndn", "strategy", "set", "/tp/asf", "asf", "probing-interval", "5000")
    prod = App(lab, "h2", node("producer.mjs", "--transport", uri, "--prefix", "/tp/ndnts",
                               "--size", "8000"))  # fmt: skip
    assert prod.next(timeout=20).get("event") == "registered"

    faces0 = {f["id"]: f for f in lab.ctl("ndn", "face", "show")["faces"]}
    got = run_node(lab, "h1", "datasets.mjs", "--transport", uri)
    faces1 = {f["id"]: f for f in lab.ctl("ndn", "face", "show")["faces"]}
    for name, items in got.items():
        assert isinstance(items, list), (name, items)

    check_faces(got, faces0, faces1, uri)

    # channels: UDP's and the stream listeners
    listeners = {x["uri"] for x in streams(lab)["listeners"]}
    assert {c["localUri"] for c in got["faces/channels"]} == {"udp4://0.0.0.0:6363"} | listeners
    assert listeners == {uri, f"tcp4://{router}:6363"}

    # FIB and RIB
    fib = {e["name"]: sorted((h["faceId"], h["cost"]) for h in e.get("nextHopRecords", []))
           for e in got["fib/list"]}  # fmt: skip
    assert fib == twinctl_fib(lab) and fib["/tp/static"] == [(static, 7)], fib
    rib = {e["name"]: sorted((x["faceId"], x["origin"], x["cost"], x["flags"])
                             for x in e["route"])
           for e in got["rib/list"]}  # fmt: skip
    assert rib == twinctl_rib(lab), rib
    (pf,) = [f for f in faces0.values() if f["kind"] == "unix"]
    assert rib["/tp/ndnts"] == [(pf["id"], 65, 0, 2)], rib
    (e,) = [e for e in got["rib/list"] if e["name"] == "/tp/ndnts"]
    assert 0 < e["route"][0]["expirationPeriod"] <= ROUTE_LIFETIME_MS, e

    # strategy choices, the root first
    sc = [(x["name"], x["strategy"]) for x in got["strategy-choice/list"]]
    assert sc[0] == ("/", "/localhost/nfd/strategy/best-route/v=5"), sc
    assert ("/tp/asf", "/localhost/nfd/strategy/asf/v=5/probing-interval~5000") in sc, sc
    assert twinctl_view(sc) == lab.ctl("show", "ndn", "strategy")["strategies"]

    # the forwarder
    (g,) = got["status/general"]
    assert g["nfdVersion"] == "twinplane" and g["startTimestamp"] <= g["currentTimestamp"]
    assert g["nFibEntries"] == len(fib) and g["nInInterests"] >= 1 and g["nOutData"] >= 1
    # each dataset built once; NDNts's fetcher starts with a window of two Interests
    # (TcpCubic's iw), so it may also ask a one-segment dataset's seg=1 before seg=0
    # says it is the last: not answered, counted
    m = show(lab)["management"]
    assert m["datasets_built"] == len(got) == 6, m
    assert m["dataset_segments_gone"] <= len(got) <= m["dataset_segments_sent"], m

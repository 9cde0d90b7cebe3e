# SPDX-License-Identifier: BSD-3-Clause
"""Stream faces: NDN applications on the host reach twinplane as they reach NFD.

python-ndn applications given no transport configuration (no client.conf: python-ndn's
default, ``unix:///run/nfd/nfd.sock``) run in a mount namespace where
/run/nfd/nfd.sock is twinplane's socket (``ndn face listen unix PATH``, bind-mounted
there), with no NFD on the machine; a producer registers its prefix (/localhost/nfd:
a Unix face is local) and a consumer fetches through twinplane. The same over TCP:
a producer on the router's loopback (a local face) and a consumer in another
namespace (``tcp4://10.0.1.1:6363``, through the port's TAP), and both from other
namespaces (the producer's face not local: /localhop/nfd, signed). A face per
connection, its counters in ``ndn face show``; the route goes when the producer
exits. Framing errors, the listener's cap and a reader that never reads close
connections, counted.
"""

from __future__ import annotations

import hashlib
import json
import queue
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_ndn import PEER

from twinplane.api import ApiError
from twinplane.lab import RouterLab
from twinplane.lab.ndnpeer import LAB_KEY

BASE = ["ndn enable pit-capacity 4096 cs-capacity 1024"]
DEFAULT_URI = "unix:///run/nfd/nfd.sock"  # python-ndn's platform default on Linux

# In a mount namespace of its own: a tmpfs on /run, the lab's socket directory on
# /run/nfd, HOME an empty directory (no ~/.ndn/client.conf), then the command.
NFD_MOUNT = (
    'set -e; mount -t tmpfs tp-run /run; mkdir /run/nfd; mount --bind "$1" /run/nfd; '
    'export HOME="$2"; shift 2; exec "$@"'
)


class App:
    """A python-ndn application (ndnpeer) in a namespace; its JSON lines as they come."""

    def __init__(self, lab: RouterLab, ns: str, argv: list[str]) -> None:
        self.proc = lab.netns(ns).popen(argv, stdout=subprocess.PIPE)
        lab.defer(f"stop {argv[-1]}", self.stop)
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith(b"{"):
                self.lines.put(json.loads(line))

    def next(self, timeout: float = 15) -> dict[str, Any]:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            return {}

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


def peer_argv(mode: str, *args: str, sockdir: Path | None = None) -> list[str]:
    argv = [sys.executable, str(PEER), mode, *args]
    if sockdir is None:
        return argv
    home = sockdir.parent / "home"
    home.mkdir(exist_ok=True)
    return ["unshare", "--mount", "sh", "-c", NFD_MOUNT, "sh", str(sockdir), str(home), *argv]


def faces(lab: RouterLab, kind: str) -> list[dict[str, Any]]:
    return [f for f in lab.ctl("ndn", "face", "show")["faces"] if f["kind"] == kind]


def streams(lab: RouterLab) -> dict[str, Any]:
    s: dict[str, Any] = lab.ctl("show", "ndn")["streams"]
    return s


def routes(lab: RouterLab, prefix: str) -> list[dict[str, Any]]:
    return [r for r in lab.ctl("ndn", "rib", "show")["routes"] if r["prefix"] == prefix]


def fib_prefixes(lab: RouterLab) -> set[str]:
    return {e["prefix"] for e in lab.ctl("ndn", "fib", "show")["fib"]}


def exchange_counters(face: dict[str, Any]) -> dict[str, int]:
    c = face["counters"]
    return {k: c[k] for k in ("rx_interests", "tx_interests", "rx_data", "tx_data")}


def test_unix_socket_default_transport(daemon_lab: Callable[..., RouterLab]) -> None:
    """A producer and a consumer with no transport configuration register and fetch
    through twinplane's /run/nfd/nfd.sock; a Unix face each, local; the producer's
    route goes with its face when it exits."""
    assert subprocess.run(["pgrep", "-x", "nfd"], check=False).returncode == 1, "NFD runs"
    lab = daemon_lab(extra_config=BASE)
    sockdir = lab.workdir / "nfd"
    sockdir.mkdir()
    lab.ctl("ndn", "face", "listen", "unix", str(sockdir / "nfd.sock"))
    assert (sockdir / "nfd.sock").is_socket()

    prod = App(
        lab,
        "h1",
        peer_argv(
            "producer",
            "--transport",
            "default",
            "--prefix",
            "/tp/sock",
            "--content",
            "hello over unix",
            sockdir=sockdir,
        ),  # fmt: skip
    )
    ev = prod.next()
    assert ev == {"event": "transport", "transport": DEFAULT_URI, "client_conf": ""}, ev
    ev = prod.next()
    assert ev.get("event") == "registered", ev
    (pf,) = faces(lab, "unix")
    assert pf["local"] is True and pf["uri"].startswith("fd://"), pf
    assert pf["local_uri"] == f"unix://{sockdir / 'nfd.sock'}", pf
    (route,) = routes(lab, "/tp/sock")
    assert route["face"] == pf["id"] and route["origin"] == 0, route
    assert "/tp/sock" in fib_prefixes(lab)

    out = lab.netns("h2").run(
        peer_argv("consumer", "--transport", "default", "--name", "/tp/sock/1", sockdir=sockdir),
        timeout=60,
    )
    lines = [json.loads(x) for x in out.stdout.splitlines() if x.startswith("{")]
    assert lines[0]["transport"] == DEFAULT_URI and lines[0]["client_conf"] == "", lines
    assert lines[1] == {"result": "data", "name": "/tp/sock/1", "content": "hello over unix"}

    # the producer's face: the command and its answer, the Interest and its Data
    (pf,) = [f for f in faces(lab, "unix") if f["id"] == pf["id"]]
    assert exchange_counters(pf) == {
        "rx_interests": 1, "tx_interests": 1, "rx_data": 1, "tx_data": 1,
    }, pf  # fmt: skip
    assert pf["counters"]["rx_dropped"] == 0 and pf["send_queue_bytes"] == 0, pf
    # the consumer's connection closed, its face gone
    lab.wait_until(lambda: streams(lab)["closed_by_peer"] == 1, 5.0, what="consumer's close")
    assert [f["id"] for f in faces(lab, "unix")] == [pf["id"]]
    s = streams(lab)
    assert s["connections_accepted"] == 2 and s["rx_packets"] == 3 and s["tx_packets"] == 3, s
    assert s["listeners"] == [
        {"uri": f"unix://{sockdir / 'nfd.sock'}", "connections": 1, "accepted": 2, "refused": 0}
    ], s

    # the producer exits: its face and its route go
    prod.stop()
    lab.wait_until(lambda: not routes(lab, "/tp/sock"), 5.0, what="the route removed")
    assert faces(lab, "unix") == [] and "/tp/sock" not in fib_prefixes(lab)
    assert streams(lab)["closed_by_peer"] == 2


def test_tcp_faces(daemon_lab: Callable[..., RouterLab]) -> None:
    """python-ndn's tcp4 transport: a producer on the router's loopback (a local face:
    it registers under /localhost/nfd), a consumer in h1 (not local), through the
    port's TAP to the control plane's socket."""
    lab = daemon_lab(
        extra_config=[*BASE, "ndn face listen tcp 127.0.0.1", "ndn face listen tcp 10.0.1.1:6363"]
    )
    prod = App(
        lab,
        "r",
        peer_argv(
            "producer",
            "--transport",
            "tcp4://127.0.0.1:6363",
            "--prefix",
            "/tp/tcp",
            "--content",
            "hello over tcp",
        ),  # fmt: skip
    )
    ev = prod.next()
    assert ev.get("event") == "registered", ev
    (pf,) = faces(lab, "tcp")
    assert pf["local"] is True and pf["uri"].startswith("tcp4://127.0.0.1:"), pf
    assert pf["local_uri"] == "tcp4://127.0.0.1:6363", pf
    assert routes(lab, "/tp/tcp")[0]["face"] == pf["id"]

    cons = App(
        lab,
        "h1",
        peer_argv("consumer", "--transport", "tcp4://10.0.1.1:6363", "--name", "/tp/tcp/1"),
    )
    r = cons.next(timeout=30)
    assert r == {"result": "data", "name": "/tp/tcp/1", "content": "hello over tcp"}, r
    (pf,) = [f for f in faces(lab, "tcp") if f["id"] == pf["id"]]
    assert exchange_counters(pf) == {
        "rx_interests": 1, "tx_interests": 1, "rx_data": 1, "tx_data": 1,
    }, pf  # fmt: skip
    cons.proc.wait(timeout=10)
    lab.wait_until(lambda: streams(lab)["closed_by_peer"] == 1, 5.0, what="consumer's close")
    listeners = {x["uri"]: x for x in streams(lab)["listeners"]}
    assert listeners["tcp4://10.0.1.1:6363"]["accepted"] == 1, listeners
    assert listeners["tcp4://127.0.0.1:6363"]["accepted"] == 1, listeners

    prod.stop()
    lab.wait_until(lambda: not routes(lab, "/tp/tcp"), 5.0, what="the route removed")
    assert faces(lab, "tcp") == []


def test_tcp_face_not_local(daemon_lab: Callable[..., RouterLab]) -> None:
    """A TCP face from another host is not local: python-ndn's registration goes to
    /localhop/nfd, refused (disabled); a /localhost/nfd command from it is dropped by
    scope control; no route appears."""
    lab = daemon_lab(extra_config=[*BASE, "ndn face listen tcp 10.0.1.1"])
    before = lab.counters()["drops"].get("ndn.localhost_from_non_local_face", 0)

    def command(*args: str) -> dict[str, Any]:
        argv = peer_argv("command", "--transport", "tcp4://10.0.1.1:6363", "--prefix", "/tp/x")
        out = lab.netns("h1").run([*argv, *args], timeout=60)
        r: dict[str, Any] = json.loads(out.stdout.splitlines()[-1])
        return r

    r = command()
    assert r["status_code"] == 403 and "disabled" in r["status_text"], r
    assert lab.ctl("show", "ndn")["management"]["refused_localhop_disabled"] == 1
    r = command("--local")
    assert r == {"status_code": None, "error": "InterestTimeout"}, r
    assert lab.counters()["drops"]["ndn.localhost_from_non_local_face"] == before + 1
    assert not routes(lab, "/tp/x")
    assert streams(lab)["connections_accepted"] == 2


def raw_client(lab: RouterLab, path: Path) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(str(path))
    return s


def closed(s: socket.socket) -> bool:
    """Whether the other end closed s (what it sent before is read and dropped)."""
    try:
        while s.recv(65536):
            pass
        return True
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_framing_errors_and_cap(daemon_lab: Callable[..., RouterLab]) -> None:
    """An element longer than 8,800 bytes, a TLV-TYPE 0: the connection closes, its face
    goes, counted by reason. A partial element is kept until its last byte. Past the
    listener's cap, a connection is closed at once, counted. A socket in use is not
    taken over. 'ndn face del' closes the face's connection."""
    lab = daemon_lab(extra_config=[*BASE, "ndn limits stream-conns 2"])
    path = lab.workdir / "nfd.sock"
    lab.ctl("ndn", "face", "listen", "unix", str(path))
    # a socket somebody listens on (NFD, or ourselves) is never taken over
    with pytest.raises(ApiError, match="another process listens on it"):
        lab.ctl("ndn", "face", "listen", "unix", str(path))

    # an Interest (python-ndn's) sent in two parts, a second apart: one packet
    from ndn.encoding import InterestParam, make_interest

    p = InterestParam()
    p.nonce = 1
    wire = make_interest("/tp/nowhere/1", p)
    a = raw_client(lab, path)
    a.sendall(wire[:5])
    lab.wait_until(lambda: len(faces(lab, "unix")) == 1, 5.0, what="a face")
    assert streams(lab)["rx_packets"] == 0
    a.sendall(wire[5:])
    lab.wait_until(lambda: streams(lab)["rx_packets"] == 1, 5.0, what="the Interest")
    (fa,) = faces(lab, "unix")
    lab.wait_until(
        lambda: faces(lab, "unix")[0]["counters"]["rx_interests"] == 1, 5.0, what="counted"
    )
    # no route: a Nack (NoRoute) back on the same connection, in an LpPacket
    a.settimeout(5)
    assert a.recv(1) == b"\x64"

    b = raw_client(lab, path)  # the second: the cap
    c = raw_client(lab, path)  # the third: closed at once
    assert closed(c)
    s = streams(lab)
    assert s["connections_refused_listener_full"] == 1, s
    assert s["listeners"][0]["refused"] == 1 and s["listeners"][0]["connections"] == 2, s

    b.sendall(b"\x06\xfd\x22\x61")  # a Data of 8,801 bytes announced: too long
    assert closed(b)
    a.sendall(b"\x00\x01x")  # TLV-TYPE 0
    assert closed(a)
    lab.wait_until(lambda: faces(lab, "unix") == [], 5.0, what="faces removed")
    s = streams(lab)
    assert s["closed_tlv_too_long"] == 1 and s["closed_malformed_tlv"] == 1, s
    assert s["listeners"][0]["connections"] == 0, s
    assert fa["id"] not in [f["id"] for f in faces(lab, "unix")]

    # the operator removes a stream face: its connection closes
    d = raw_client(lab, path)
    (fd,) = lab.wait_until(lambda: faces(lab, "unix"), 5.0, what="a face")
    lab.ctl("ndn", "face", "del", str(fd["id"]))
    assert closed(d)
    s = streams(lab)
    assert s["closed_face_removed"] == 1 and s["listeners"][0]["connections"] == 0, s


def test_slow_reader_closed(daemon_lab: Callable[..., RouterLab]) -> None:
    """A client that sends Interests and never reads: its send queue passes the bound
    (ndn limits stream-send-queue) and it is closed, counted, its face removed; the
    producer's face, and whoever else fetches, carry on."""
    lab = daemon_lab(extra_config=[*BASE, "ndn limits stream-send-queue 65536"])
    path = lab.workdir / "nfd.sock"
    lab.ctl("ndn", "face", "listen", "unix", str(path))
    uri = f"unix://{path}"
    argv = peer_argv("producer", "--transport", uri, "--prefix", "/tp/slow", "--pad", "8000")
    prod = App(lab, "h1", argv)
    assert prod.next().get("event") == "registered"
    (pf,) = faces(lab, "unix")

    from ndn.encoding import InterestParam, make_interest

    reader = raw_client(lab, path)
    for i in range(100):
        p = InterestParam()
        p.nonce = i + 1
        try:
            reader.sendall(make_interest(f"/tp/slow/{i}", p))
        except (BrokenPipeError, ConnectionResetError):
            break  # closed already, before all 100 went out: what the test waits for
    lab.wait_until(lambda: streams(lab)["closed_slow_reader"] == 1, 20.0, what="closed")
    assert closed(reader)
    assert [f["id"] for f in faces(lab, "unix")] == [pf["id"]]
    s = streams(lab)
    assert s["tx_packets_queued"] >= 1 and s["closed_by_peer"] == 0, s
    # the producer still serves
    out = lab.netns("h2").run(
        peer_argv("consumer", "--transport", uri, "--name", "/tp/slow/again"), timeout=60
    )
    r = json.loads(out.stdout.splitlines()[-1])
    assert r["result"] == "data" and r["content"].startswith("/tp/slow/again"), r


def test_tcp_both_from_other_namespaces(daemon_lab: Callable[..., RouterLab]) -> None:
    """A producer in h2 and a consumer in h1, both over TCP to the router's addresses:
    the producer's face is not local, so it registers under /localhop/nfd, signed with
    the operator's key, on its own face."""
    lab = daemon_lab(
        extra_config=[
            *BASE,
            f"ndn localhop enable key {LAB_KEY}",
            "ndn face listen tcp 10.0.1.1",
            "ndn face listen tcp 10.0.2.1",
        ]
    )
    argv = peer_argv(
        "producer", "--transport", "tcp4://10.0.2.1:6363", "--prefix", "/tp/far",
        "--hmac-key", LAB_KEY, "--content", "from h2",
    )  # fmt: skip
    prod = App(lab, "h2", argv)
    ev = prod.next()
    assert ev.get("event") == "registered" and ev.get("status_code") == 200, ev
    (pf,) = faces(lab, "tcp")
    assert pf["local"] is False and pf["uri"].startswith("tcp4://10.0.2.2:"), pf
    (route,) = routes(lab, "/tp/far")
    assert route["face"] == pf["id"] and "expires_in_ms" in route, route
    out = lab.netns("h1").run(
        peer_argv("consumer", "--transport", "tcp4://10.0.1.1:6363", "--name", "/tp/far/1"),
        timeout=60,
    )
    r = json.loads(out.stdout.splitlines()[-1])
    assert r == {"result": "data", "name": "/tp/far/1", "content": "from h2"}, r
    prod.stop()
    lab.wait_until(lambda: not routes(lab, "/tp/far"), 5.0, what="the route removed")
    assert faces(lab, "tcp") == []


def test_segmented_object_over_unix(daemon_lab: Callable[..., RouterLab]) -> None:
    """python-ndn's segment fetcher over the Unix socket: 300 KB in Data of 8,000-byte
    segments (elements split across reads both ways), complete and in order."""
    lab = daemon_lab(extra_config=BASE)
    path = lab.workdir / "nfd.sock"
    lab.ctl("ndn", "face", "listen", "unix", str(path))
    uri = f"unix://{path}"
    size = 300_000
    argv = peer_argv(
        "producer", "--transport", uri, "--prefix", "/tp/obj",
        "--object-size", str(size), "--segment-size", "8000",
    )  # fmt: skip
    prod = App(lab, "h2", argv)
    assert prod.next().get("event") == "registered"
    out = lab.netns("h1").run(
        peer_argv("fetch", "--transport", uri, "--name", "/tp/obj"), timeout=120
    )
    r = json.loads(out.stdout.splitlines()[-1])
    expect = bytes((i * 7 + 3) % 251 for i in range(size))
    assert r == {
        "size": size, "sha256": hashlib.sha256(expect).hexdigest(), "segments": 38,
    }, r  # fmt: skip
    s = streams(lab)
    assert s["closed_tlv_too_long"] == 0 and s["closed_malformed_tlv"] == 0, s
    assert s["rx_handback_ring_full"] == 0 and s["rx_no_mbuf"] == 0, s

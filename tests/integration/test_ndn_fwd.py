# SPDX-License-Identifier: BSD-3-Clause
"""The NDN forwarder's forwarding semantics with real NDN applications (python-ndn):
the Dead Nonce List catching a loop after its PIT entry is gone, and the strategies
(best-route, multicast, asf) choosing between two producers of one prefix, set with
twinctl and with NFD's strategy-choice commands.

h2 runs two producers of /tp/st, each from its own UDP port: two on-demand faces,
two routes of the same cost (the FIB orders them by face id). h1 runs consumers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from test_ndn import NDN_CONFIG, Producer, peer, show

from twinplane.api import ApiError
from twinplane.lab import RouterLab


@pytest.fixture
def ndn_lab(daemon_lab: Callable[..., RouterLab]) -> Iterator[RouterLab]:
    yield daemon_lab(extra_config=NDN_CONFIG)


def face_of(lab: RouterLab, local_port: int) -> int:
    """The on-demand face of h2's producer on UDP port local_port."""
    faces = [
        f for f in lab.ctl("ndn", "face", "show")["faces"] if f"{local_port}" in f.get("uri", "")
    ]
    assert len(faces) == 1, lab.ctl("ndn", "face", "show")
    return int(faces[0]["id"])


def strategies(lab: RouterLab) -> dict[str, str]:
    return {e["prefix"]: e["strategy"] for e in lab.ctl("show", "ndn", "strategy")["strategies"]}


def fib_strategy(lab: RouterLab, prefix: str) -> str:
    return next(
        e["strategy"] for e in lab.ctl("ndn", "fib", "show")["fib"] if e["prefix"] == prefix
    )


def consume(lab: RouterLab, names: list[str], *args: str) -> list[dict[str, Any]]:
    r = peer(lab, "h1", "consumer", *[x for n in names for x in ("--name", n)], *args)
    return r if isinstance(r, list) else [r]


def two_producers(lab: RouterLab, *first_args: str) -> tuple[Producer, Producer]:
    """Producers of /tp/st on h2's UDP ports 7001 (started first: the lower face id,
    the FIB's first next hop at equal cost) and 7002; first_args to the first."""
    a = Producer(lab, "h2", "/tp/st", "--local-port", "7001", *first_args)
    b = Producer(lab, "h2", "/tp/st", "--local-port", "7002")
    fa, fb = face_of(lab, 7001), face_of(lab, 7002)
    assert fa < fb
    hops = next(
        e["nexthops"] for e in lab.ctl("ndn", "fib", "show")["fib"] if e["prefix"] == "/tp/st"
    )
    assert [h["face"] for h in hops] == [fa, fb], hops
    return a, b


def test_dead_nonce_list_catches_loop_after_pit_expiry(ndn_lab: RouterLab) -> None:
    """An Interest nobody answers leaves the PIT when its lifetime ends; the same name
    and Nonce coming back (python-ndn re-sending it, as a loop would bring it back) is
    still caught by the Dead Nonce List: Nack Duplicate, not forwarded again. Another
    Nonce goes to the producer."""
    lab = ndn_lab
    prod = Producer(lab, "h2", "/tp/dnl")
    name = "/tp/dnl/silent/1"
    r = consume(lab, [name], "--nonce", "424242", "--lifetime", "700")
    assert r == [{"result": "timeout"}], r
    lab.wait_until(lambda: show(lab)["pit_entries"] == 0, timeout=3, what="PIT entry expired")
    assert len(prod.interests(name)) == 1
    assert show(lab)["totals"]["dnl_inserts"] == 1
    r = consume(lab, [name], "--nonce", "424242", "--lifetime", "700")
    assert r == [{"result": "nack", "reason": 100}], r
    assert show(lab)["totals"]["dnl_loops"] == 1
    assert len(prod.interests(name)) == 1  # not forwarded again
    r = consume(lab, [name], "--nonce", "424243", "--lifetime", "700")
    assert r == [{"result": "timeout"}], r
    assert len(prod.interests(name)) == 2
    assert show(lab)["totals"]["dnl_loops"] == 1


def test_best_route_sends_to_one_producer(ndn_lab: RouterLab) -> None:
    """best-route (the default): every Interest to the first next hop only."""
    lab = ndn_lab
    a, b = two_producers(lab)
    assert strategies(lab) == {"/": "best-route"}
    assert fib_strategy(lab, "/tp/st") == "best-route"
    names = [f"/tp/st/br/{i}" for i in range(5)]
    r = consume(lab, names)
    assert [x["result"] for x in r] == ["data"] * 5, r
    assert sorted(e["name"] for e in a.interests()) == names
    assert b.interests() == []


def test_multicast_sends_to_both_producers(ndn_lab: RouterLab) -> None:
    """multicast, set with twinctl on /tp: each Interest to both producers; unset,
    best-route again."""
    lab = ndn_lab
    a, b = two_producers(lab)
    lab.ctl("ndn", "strategy", "set", "/tp", "multicast")
    assert strategies(lab) == {"/": "best-route", "/tp": "multicast"}
    assert fib_strategy(lab, "/tp/st") == "multicast"
    names = [f"/tp/st/mc/{i}" for i in range(3)]
    r = consume(lab, names)
    assert [x["result"] for x in r] == ["data"] * 3, r
    lab.wait_until(
        lambda: len(a.interests()) == 3 and len(b.interests()) == 3,
        timeout=5,
        what="both producers got every Interest",
    )
    assert sorted(e["name"] for e in b.interests()) == names
    lab.ctl("ndn", "strategy", "unset", "/tp")
    assert strategies(lab) == {"/": "best-route"}
    r = consume(lab, ["/tp/st/mc/after"])
    assert r[0]["result"] == "data", r
    assert len(a.interests()) == 4 and len(b.interests()) == 3


def test_asf_measures_and_picks_the_faster_producer(ndn_lab: RouterLab) -> None:
    """asf: the first producer (the FIB's first hop) answers 300 ms late, the second at
    once. The first Interest goes to the first and a probe to the second; the second's
    Data measures it, so every later Interest goes to it alone. When it stops answering,
    its timeout ranks it last: the next Interest goes to the first producer again."""
    lab = ndn_lab
    slow, fast = two_producers(lab, "--delay", "300")
    lab.ctl("ndn", "strategy", "set", "/tp/st", "asf")
    shown = lab.ctl("show", "ndn", "strategy")["strategies"]
    assert {"prefix": "/tp/st", "strategy": "asf", "probing_interval_ms": 60000} in shown
    names = [f"/tp/st/asf/{i}" for i in range(6)]
    r = consume(lab, names)
    assert [x["result"] for x in r] == ["data"] * 6, r
    assert [e["name"] for e in slow.interests()] == names[:1]
    assert sorted(e["name"] for e in fast.interests()) == names
    assert show(lab)["totals"]["asf_probes"] == 1
    fast.stop()
    r = consume(lab, ["/tp/st/asf/gone"], "--lifetime", "800")
    assert r == [{"result": "timeout"}], r
    lab.wait_until(lambda: show(lab)["pit_entries"] == 0, timeout=3, what="PIT entry expired")
    r = consume(lab, ["/tp/st/asf/back"])
    assert r[0]["result"] == "data", r
    assert [e["name"] for e in slow.interests()] == [names[0], "/tp/st/asf/back"]


def test_strategy_choice_commands(ndn_lab: RouterLab) -> None:
    """NFD's strategy-choice/set and unset from a local face (python-ndn's command
    Interests): set answers with NFD's versioned strategy name and twinctl shows it;
    an unknown strategy is 404, unsetting "/" 400; twinctl's own errors name the
    problem."""
    lab = ndn_lab
    h2 = lab.host_ip("h2")
    lab.ctl("ndn", "face", "add", "udp", f"{h2}:7005", "local")

    def cmd(*args: str) -> dict[str, Any]:
        out = peer(lab, "h2", "command", "--local", "--local-port", "7005", *args)
        assert isinstance(out, dict), out
        return out

    r = cmd(
        "--verb",
        "strategy-choice/set",
        "--prefix",
        "/tp/sc",
        "--strategy",
        "/localhost/nfd/strategy/multicast",
    )
    assert r["status_code"] == 200 and r["name"] == "/tp/sc", r
    assert r["strategy"] == "/localhost/nfd/strategy/multicast/v=4", r
    assert strategies(lab)["/tp/sc"] == "multicast"
    r = cmd(
        "--verb",
        "strategy-choice/set",
        "--prefix",
        "/tp/sc2",
        "--strategy",
        "/localhost/nfd/strategy/asf/v=5/probing-interval~2000",
    )
    assert r["status_code"] == 200, r
    shown = lab.ctl("show", "ndn", "strategy")["strategies"]
    assert {"prefix": "/tp/sc2", "strategy": "asf", "probing_interval_ms": 2000} in shown
    r = cmd(
        "--verb",
        "strategy-choice/set",
        "--prefix",
        "/tp/sc",
        "--strategy",
        "/localhost/nfd/strategy/self-learning",
    )
    assert r["status_code"] == 404, r
    r = cmd("--verb", "strategy-choice/unset", "--prefix", "/tp/sc")
    assert r["status_code"] == 200 and r["name"] == "/tp/sc", r
    assert "/tp/sc" not in strategies(lab)
    r = cmd("--verb", "strategy-choice/unset", "--prefix", "/")
    assert r["status_code"] == 400, r
    with pytest.raises(ApiError, match="unknown strategy 'nonsense'"):
        lab.ctl("ndn", "strategy", "set", "/tp/x", "nonsense")
    with pytest.raises(ApiError, match="no strategy chosen for /tp/none"):
        lab.ctl("ndn", "strategy", "unset", "/tp/none")
    with pytest.raises(ApiError, match="probing-interval is asf's parameter"):
        lab.ctl("ndn", "strategy", "set", "/tp/x", "multicast", "probing-interval", "5000")

# SPDX-License-Identifier: BSD-3-Clause
"""Review N4 through the real daemon: names made to collide under the forwarder's old
name hash, from a namespace over UDP.

The old hash of a name prefix was CRC32C per component chained from a random seed;
raw CRC32C is affine in its seed, so components of one length with one CRC from 0
collide for every seed. ``ndn-crc-collide`` (tests/tools) makes them by
tests/unit/test_hash.c's method (the shared tests/tools/ndn_crc_collide.h) and checks
its own output under that hash. Under it, every name below would share one PCCT chain,
as long as the face's share of the PIT (16,384 here).

One face floods Interests for as many random names, then, once they expired, another
floods the crafted ones, each more than its share. After each, ``show ndn chains``
gives the PCCT's chains. Then: the daemon runs; the crafted names' longest chain is
no longer than the random names' + ``LONGEST_SLACK`` (and their mean walk no longer +
``WALK_SLACK``); each face holds exactly its share of the PIT, the rest answered with
a Nack Congestion and counted in ``ndn.pit_face_quota_nacked``; a python-ndn consumer
on another face still fetches from a python-ndn producer. Structure and counters only,
no timing (the cost per Interest is measured in bench/, not here)."""

from __future__ import annotations

import random
import socket
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from ndn.encoding import Component, InterestParam, make_interest
from test_ndn import NDN_CONFIG
from test_ndn_hostile import event, still_serves, udp_face

from twinplane.lab import RouterLab
from twinplane.lab.daemon import build_dir

N = 20000  # names per flood, as the unit test's (and the review's) attack
PREFIX = "n4"  # routed to a face that never answers: the Interests stay pending
CHUNK = 500  # Interests sent before waiting for the face to have counted them
# The PIT as the daemon's default (65,536 entries: a face's 25 % share 16,384) and a
# small CS: the PCCT has 2 x (65,536 + 2 x 1,024 + 1) rounded up = 262,144 buckets
CONFIG = ["ndn enable pit-capacity 65536 cs-capacity 1024", *NDN_CONFIG[1:]]
RANDOM_LIFETIME_MS = 20000  # pending while they are sent and measured, then expire
CRAFTED_LIFETIME_MS = 120000  # pending to the end of the test

# Decided before the run, from the balls-in-bins law of 16,384 keys in 262,144
# buckets (load 1/16): P(longest chain >= 5) = 2e-3, >= 6: 2e-5, >= 7: 2e-7. Keyed,
# both sets' longest chains follow that law (4, sometimes 5), so crafted > random + 2
# has a probability below 1e-6; the old hash gave 16,384. The mean walk to find an
# entry is 1 + 16,383 / (2 x 262,144) = 1.031 with a standard deviation of 0.0014;
# 0.05 is 35 of them (the old hash: 8,192.5).
LONGEST_SLACK = 2
WALK_SLACK = 0.05


@pytest.fixture
def lab(daemon_lab: Any) -> Iterator[RouterLab]:
    yield daemon_lab(extra_config=CONFIG)


def crafted_components(n: int) -> list[bytes]:
    """n components (TLVs) colliding under the old hash after /PREFIX: the C tool's."""
    tool = build_dir() / "tests" / "tools" / "ndn-crc-collide"
    out = subprocess.run(
        [str(tool), str(n), PREFIX], check=True, capture_output=True, text=True
    ).stdout
    comps = [bytes.fromhex(line) for line in out.split()]
    assert len(comps) == n and len(set(comps)) == n
    # one length, one type: what makes CRC32C affine in its seed across them
    assert {(c[0], c[1], len(c)) for c in comps} == {(8, 24, 26)}
    return comps


def random_components(n: int, rng: random.Random) -> list[bytes]:
    """n distinct components of the crafted ones' length, random bytes."""
    comps = {b"\x08\x18" + rng.randbytes(24) for _ in range(n)}
    while len(comps) < n:
        comps.add(b"\x08\x18" + rng.randbytes(24))
    return list(comps)


def interests(comps: list[bytes], lifetime_ms: int, rng: random.Random) -> list[bytes]:
    """/PREFIX/<comp> Interests, encoded by python-ndn."""
    out = []
    for c in comps:
        p = InterestParam()
        p.nonce = rng.getrandbits(32)
        p.lifetime = lifetime_ms
        out.append(bytes(make_interest([Component.from_str(PREFIX), c], p)))
    return out


def face(lab: RouterLab, fid: int) -> dict[str, Any]:
    f: dict[str, Any] = next(f for f in lab.ctl("ndn", "face", "show")["faces"] if f["id"] == fid)
    return f


def flood(lab: RouterLab, s: socket.socket, fid: int, pkts: list[bytes]) -> None:
    """Send pkts from s (face fid), CHUNK at a time, each chunk counted by the face
    before the next goes: none lost on the way, whatever the machine's load."""
    router = lab.link("h1").router_ip
    base = face(lab, fid)["counters"]["rx_interests"]
    for start in range(0, len(pkts), CHUNK):
        chunk = pkts[start : start + CHUNK]
        for b in chunk:
            s.sendto(b, (router, 6363))
        want = base + start + len(chunk)
        lab.wait_until(
            lambda want=want: face(lab, fid)["counters"]["rx_interests"] >= want,
            timeout=10,
            what=f"face {fid} counted {want - base} Interests",
        )
    assert face(lab, fid)["counters"]["rx_interests"] == base + len(pkts)


def pcct(lab: RouterLab) -> dict[str, Any]:
    """The one forwarding context's PCCT chains (show ndn chains)."""
    c = lab.ctl("show", "ndn", "chains")
    assert len(c["pcct"]) == 1, c  # the lab's one worker lcore: one context
    p: dict[str, Any] = c["pcct"][0]
    # the histogram accounts for every bucket and entry (its last bin,
    # "length_at_least" 31, for all longer chains: their lengths are at least that)
    lengths = [(e.get("length", e.get("length_at_least")), e["buckets"]) for e in p["chains"]]
    assert sum(b for _, b in lengths) == p["buckets"]
    assert p["used_buckets"] == p["buckets"] - sum(b for k, b in lengths if k == 0)
    exact = all("length" in e for e in p["chains"])
    walked = sum(k * b for k, b in lengths)
    if exact:
        assert walked == p["entries"] and max(k for k, _ in lengths) == p["longest_chain"], p
    else:
        assert walked <= p["entries"] and p["longest_chain"] >= 31, p
    return p


def flood_and_measure(
    lab: RouterLab, s: socket.socket, fid: int, pkts: list[bytes], share: int
) -> dict[str, Any]:
    """Flood from face fid; then the face holds its share of the PIT and no more, the
    rest Nacked and counted; the PCCT's chains, with those entries alone in it."""
    nacked = event(lab, "pit_face_quota_nacked")
    tx_nacks = face(lab, fid)["counters"]["tx_nacks"]
    flood(lab, s, fid, pkts)
    lab.wait_until(
        lambda: event(lab, "pit_face_quota_nacked") - nacked == len(pkts) - share,
        timeout=5,
        what="the Interests over the face's share counted",
    )
    f = face(lab, fid)
    assert f["pit_entries"] == share, f
    assert f["counters"]["tx_nacks"] - tx_nacks == len(pkts) - share, f
    show = lab.ctl("show", "ndn")
    assert show["pit_entries"] == share, "some expired before measured (or others held)"
    p = pcct(lab)
    assert not p["torn"], p  # nothing moved during the walk: the flood is over
    assert p["pcct_entries"] == p["entries"] == share, p
    return p


def test_crafted_collisions_cost_what_random_names_cost(lab: RouterLab) -> None:
    rng = random.Random()
    show = lab.ctl("show", "ndn")
    share = show["config"]["pit_capacity"] * show["limits"]["pit-face-share"] // 100
    assert share == 16384 and N > share  # each flood overfills its face's share
    crafted = interests(crafted_components(N), CRAFTED_LIFETIME_MS, rng)
    rand = interests(random_components(N, rng), RANDOM_LIFETIME_MS, rng)

    with lab.netns("h1").socket() as a, lab.netns("h1").socket() as b:
        with lab.netns("h2").socket() as up:
            for s in (a, b, up):
                s.bind(("0.0.0.0", 0))
            # the upstream: a face that receives the Interests and never answers
            fu = udp_face(lab, "h2", up)
            lab.ctl("ndn", "fib", "add", f"/{PREFIX}", "face", str(fu))
            fa, fb = udp_face(lab, "h1", a), udp_face(lab, "h1", b)

            rnd = flood_and_measure(lab, b, fb, rand, share)
            # the random names expire (their lifetime), their face's share with them
            lab.wait_until(
                lambda: lab.ctl("show", "ndn")["pit_entries"] == 0,
                timeout=RANDOM_LIFETIME_MS / 1000 + 15,
                what="the random names' PIT entries expired",
            )
            assert face(lab, fb)["pit_entries"] == 0
            assert pcct(lab)["entries"] == 0

            bad = flood_and_measure(lab, a, fa, crafted, share)
            print(
                f"PCCT of {bad['buckets']} buckets, {share} names: longest chain "
                f"random {rnd['longest_chain']}, crafted {bad['longest_chain']}; "
                f"mean walk to find one: random {rnd['mean_hit_walk']:.4f}, "
                f"crafted {bad['mean_hit_walk']:.4f}"
            )
            longest = bad["longest_chain"], rnd["longest_chain"]
            walk = bad["mean_hit_walk"], rnd["mean_hit_walk"]
            assert longest[0] <= longest[1] + LONGEST_SLACK, f"longest (crafted, random) {longest}"
            assert walk[0] <= walk[1] + WALK_SLACK, f"mean walk (crafted, random) {walk}"
            # the upstream got what the PIT took: both shares, each name once
            assert face(lab, fu)["counters"]["tx_interests"] >= 2 * share

    # the FIB's shape is there too (/n4 among its entries: "/" is not in a bucket)
    fib = lab.ctl("show", "ndn", "chains")["fib"]
    assert fib["buckets"] == 4096 and fib["entries"] == lab.ctl("show", "ndn")["fib_entries"]
    assert 1 <= fib["longest_chain"] <= fib["entries"]
    # the daemon runs, its mbufs came back, and another face is served
    still_serves(lab, "/tp/n4")
    assert face(lab, fa)["pit_entries"] == share  # the crafted names still pending

# SPDX-License-Identifier: BSD-3-Clause
"""Service chains (issue 12): h1 -- p0 [twinplane: chain via NFs] p1 -- h2.

Every NF is a real ``twinplane-nf`` process attached by memif or vhost-user.
Datagrams carry a sequence number; h2 must receive every one, in order, and
each NF's own counters must show it carried them; then an NF stops (counted
drops, or a bypass) and comes back.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from twinplane.lab.nfproc import nf_binary
from twinplane.lab.switch import ChainLab
from twinplane.lab.traffic import UdpReceiver, ping, udp_send

N = 300


@pytest.fixture
def chain_lab(daemon_lab: Callable[..., Any]) -> Callable[..., ChainLab]:
    if not nf_binary().exists():
        pytest.fail(f"{nf_binary()} not built")

    def make(**kwargs: Any) -> ChainLab:
        lab: ChainLab = daemon_lab(lab_class=ChainLab, **kwargs)
        return lab

    return make


def nf_counts(lab: ChainLab) -> list[tuple[int, int, int, int]]:
    """Per NF: (port0 rx, port1 tx, port1 rx, port0 tx)."""
    out = []
    for nf in lab.nfs:
        p = nf.stats()["ports"]
        out.append((p[0]["rx"], p[1]["tx"], p[1]["rx"], p[0]["tx"]))
    return out


def send_seq(lab: ChainLab, n: int = N, tag: bytes = b"chain") -> list[int]:
    """n datagrams h1 -> h2; the sequence numbers h2 got, in arrival order."""
    with UdpReceiver(lab.ns["h2"], 7000) as rx:
        udp_send(
            lab.ns["h1"], "10.0.0.2", 7000, lambda i: tag + b" %06d" % i, count=n, interval=0.0005
        )
        got = rx.wait(n, timeout=15.0)
    return [int(g.split()[-1]) for g in got if g.startswith(tag)]


# load-sensitive (none lost of frames paced 0.5 ms apart): reruns once
@pytest.mark.flaky(reruns=1, reruns_delay=3)
@pytest.mark.parametrize(
    ("backend", "n_nfs"), [("memif", 1), ("memif", 3), ("vhost", 1), ("vhost", 3)]
)
def test_chain_delivers_in_order_through_every_nf(
    chain_lab: Callable[..., ChainLab], backend: str, n_nfs: int
) -> None:
    lab = chain_lab(n_nfs=n_nfs, backend=backend)
    assert ping(lab.ns["h1"], "10.0.0.2", count=2) == 2
    before = nf_counts(lab)
    seqs = send_seq(lab)
    assert seqs == list(range(N)), f"lost or reordered: {len(seqs)} of {N}"
    time.sleep(0.3)  # the NFs write their counters every 100 ms
    after = nf_counts(lab)
    for i, (a, b) in enumerate(zip(before, after, strict=True)):
        fwd_in, fwd_out = b[0] - a[0], b[1] - a[1]
        assert fwd_in >= N and fwd_out >= N, f"nf{i + 1} carried {fwd_in}/{fwd_out} of {N}"
        assert nf_counts(lab)[i][0] == nf_counts(lab)[i][1], "the NF dropped frames"
    c = lab.chain()
    assert [h["nf"] for h in c["hops"]] == [f"nf{i}" for i in range(1, n_nfs + 1)]
    for h in c["hops"]:
        assert h["state"] == "up" and h["fwd_to_nf"] >= N and h["fwd_from_nf"] >= N
        assert h["rev_to_nf"] > 0 and h["rev_from_nf"] > 0  # the ARP and ping replies
    assert c["nf_down_drops"] == 0


def test_chain_nf_stops_drops_counted_then_recovers(chain_lab: Callable[..., ChainLab]) -> None:
    lab = chain_lab(n_nfs=2, backend="memif", on_nf_down="drop")
    assert ping(lab.ns["h1"], "10.0.0.2", count=1) == 1
    nf2 = lab.nfs[1]
    nf2.stop()
    lab.wait_until(lambda: lab.chain()["hops"][1]["state"] == "down", 5.0, 0.1, "nf2 down")
    assert send_seq(lab, 50, b"while-down") == []
    c = lab.chain()
    assert c["nf_down_drops"] >= 50, c
    assert c["hops"][1]["downs"] == 1
    # the NF comes back: the chain carries traffic again, nothing else needed
    lab.nfs[1] = lab.nf_process(2)
    lab.defer("stop nf2 (restarted)", lab.nfs[1].stop)
    lab.nfs[1].start()
    lab.wait_nfs_up()
    assert send_seq(lab, 100, b"after") == list(range(100))


def test_chain_nf_stops_bypassed(chain_lab: Callable[..., ChainLab]) -> None:
    lab = chain_lab(n_nfs=3, backend="memif", on_nf_down="bypass")
    lab.nfs[1].stop()
    lab.wait_until(lambda: lab.chain()["hops"][1]["state"] == "down", 5.0, 0.1, "nf2 down")
    before = nf_counts(lab)
    assert send_seq(lab, 100, b"bypass") == list(range(100))
    time.sleep(0.3)
    after = nf_counts(lab)
    for i in (0, 2):  # nf1 and nf3 still carry it
        assert after[i][0] - before[i][0] >= 100
    assert lab.chain()["nf_down_drops"] == 0
    lab.nfs[1] = lab.nf_process(2)
    lab.defer("stop nf2 (restarted)", lab.nfs[1].stop)
    lab.nfs[1].start()
    lab.wait_nfs_up()
    b2 = lab.nfs[1].stats()["ports"][0]["rx"]
    assert send_seq(lab, 50, b"rejoined") == list(range(50))
    time.sleep(0.3)
    assert lab.nfs[1].stats()["ports"][0]["rx"] - b2 >= 50


def test_chain_commands(chain_lab: Callable[..., ChainLab]) -> None:
    lab = chain_lab(n_nfs=1)
    for words, msg in [
        (("chain", "add", "c1", "from", "p0", "to", "p1", "via", "nf1"), "exists"),
        (("chain", "add", "c2", "from", "p0", "to", "p1", "via", "nf1"), "in a chain already"),
        (("nf", "add", "nf9", "p0", "p0"), "two different ports"),
        (("nf", "del", "nf1"), "is in a chain"),
        (("chain", "add", "c2", "from", "p0", "to", "p1", "via", "nf1", "on-nf-down", "x"), "x"),
    ]:
        with pytest.raises(Exception, match=msg):
            lab.ctl(*words)
    # deleting the chain gives its ports back to l3
    lab.ctl("chain", "del", "c1")
    modes = {p["name"]: p["mode"] for p in lab.ctl("show", "ports")["ports"]}
    assert modes["p0"].startswith("l3") and modes["nf1a"].startswith("l3")
    assert lab.ctl("show", "chain")["chains"] == []

# SPDX-License-Identifier: BSD-3-Clause
"""The baselines of seed 000's comparisons, end to end against the real IN-CSE (ACME):

- single plane (twinplane --single-plane): the worker handles signaling itself and
  waits for the IN-CSE's answers, as the seed's old system did;
- the socket gateway (twinplane-sockgw): kernel sockets, no DPDK, the same codec
  and session manager.

Each must do what the dual-plane gateway does (test_iotgw.py): AE, containers and
values in ACME, release, unassociated agents dropped and counted."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from twinplane.lab import RouterLab
from twinplane.lab.acme import Acme, acme_available, cin_content
from twinplane.lab.daemon import build_dir
from twinplane.lab.sockgw import SockGw, sockgw_binary
from twinplane.proc import Process

PHD_SIM = build_dir() / "src" / "phd-sim"
SOCKGW = sockgw_binary()
GW = "10.0.1.1:6024"
CSE = "10.0.2.2"


def need_acme() -> None:
    if not acme_available() and os.environ.get("CI") != "true":
        pytest.skip("acmecse not installed")


def sim(lab: RouterLab, *args: str, timeout: float = 60) -> dict[str, Any]:
    # the agent waits 2 s per try (4 tries): in these architectures a report
    # waits behind the registration its association started, 3 to 5 creations
    # on a freshly started ACME
    res = lab.netns("h1").run([str(PHD_SIM), "--gw", GW, "--timeout", "2000", *args],
                              check=False, timeout=timeout)  # fmt: skip
    out: dict[str, Any] = json.loads(res.stdout.strip().splitlines()[-1])
    return out


def check_device(
    acme: Acme, sysid: str, labels: list[str], r: dict[str, Any], reports: int
) -> None:
    ae = f"PHD-{sysid.upper()}"
    assert acme.ae_exists(ae)
    names = sorted(c["nm"] for c in acme.children(f"cse-in/{ae}", ty=3))
    assert names == sorted(labels)
    for label in labels:
        assert len(acme.instances(f"cse-in/{ae}/{label}", at_least=reports)) == reports, label
    for handle_value, label in zip(r["last"], labels, strict=True):
        con = cin_content(acme.latest(f"cse-in/{ae}/{label}") or {})
        assert con["value"] == pytest.approx(handle_value["value"]), (label, con)


@pytest.fixture
def single_lab(daemon_lab: Callable[..., RouterLab]) -> tuple[RouterLab, Acme]:
    need_acme()
    lab = daemon_lab(extra_config=[f"iotgw enable cse {CSE} timeout 30 max-sessions 40"],
                     daemon_args=["--single-plane"])  # fmt: skip
    return lab, Acme.in_lab(lab, ns=lab.ns["h2"], address=CSE)


def test_single_plane_full_sessions(single_lab: tuple[RouterLab, Acme]) -> None:
    lab, acme = single_lab
    assert lab.ctl("show", "iotgw")["plane"] == "single"
    devices = {"pulse-oximeter": ["spo2", "pulse-rate"],
               "activity-monitor": ["steps", "distance", "activity-time", "intensity"]}  # fmt: skip
    for i, (device, labels) in enumerate(devices.items()):
        sysid = f"00aa0000000000{i:02x}"
        r = sim(lab, "--type", device, "--sysid", sysid, "--reports", "2", "--interval", "100")
        assert r["result"] == "ok" and r["acked"] == 2, r
        check_device(acme, sysid, labels, r, 2)
    c = lab.ctl("show", "iotgw")
    dp, cp = c["data_plane"], c["control_plane"]
    # every signaling message was handled on the worker; none went to the control plane
    assert dp["signaling_to_control"] == 0
    assert dp["signaling_inline"] >= 2 + 1 + 2  # 2 AARQ, 1 configuration, 2 RLRQ
    assert cp["associated"] == 2 and cp["configured"] == 1 and cp["released"] == 2
    assert cp["reg_ready"] == 2 and cp["reg_failed"] == 0
    assert dp["drop_not_ready"] == 0  # the agent was answered only once registered
    assert lab.ctl("show", "iotgw", "sessions")["sessions"] == []
    # unassociated reports are still dropped on the worker, and counted
    sim(lab, "--type", "pulse-oximeter", "--sysid", "00aa0000000000ff", "--no-associate",
        "--reports", "3", "--interval", "20")  # fmt: skip
    # the simulator returns once it has sent; the last report may still be on its way
    # to the worker (which backs off when idle): wait for the count, then check it
    lab.wait_until(
        lambda: lab.ctl("show", "iotgw")["data_plane"]["drop_unassociated"] >= 3,
        3.0,
        0.05,
        "3 unassociated reports counted",
    )
    assert lab.ctl("show", "iotgw")["data_plane"]["drop_unassociated"] == 3
    assert not acme.ae_exists("PHD-00AA0000000000FF")


def test_single_plane_worker_stays_rcu_reader_while_it_waits(
    daemon_lab: Callable[..., RouterLab],
) -> None:
    """--single-plane: while the worker waits for an IN-CSE that does not answer, it stays
    an RCU reader (online) and reports quiescent states, so grace periods end (what the
    control plane frees is freed once the worker is past it, and never under it)."""
    lab = daemon_lab(extra_config=[f"iotgw enable cse {CSE} timeout 30 reg-timeout 200"],
                     daemon_args=["--single-plane"])  # fmt: skip
    # nothing answers CoAP on h2: the registration's first try waits 0.2 s, the next
    # 0.4 s... 6.2 s in all, then it fails
    agent = Process([PHD_SIM, "--gw", GW, "--timeout", "2000", "--type", "pulse-oximeter",
                     "--sysid", "00aa0000000000e1", "--reports", "1"],
                    lab.workdir / "phd-sim.log", netns=lab.ns["h1"])  # fmt: skip
    with agent:
        # a pulse oximeter (standard configuration): its AARQ starts the registration
        lab.wait_until(
            lambda: lab.ctl("show", "iotgw")["control_plane"]["reg_requests"] >= 1,
            10.0, 0.05, "the association handled on the worker, registering",
        )  # fmt: skip
        assert lab.ctl("show", "iotgw")["data_plane"]["signaling_inline"] == 1
        for _ in range(5):
            worker = lab.ctl("show", "lcores")["workers"][0]
            assert worker["rcu_online"], "the worker went offline while it waits"
            # republishing the lcores' queue lists frees the old ones after a grace period
            lab.ctl("lcore", "1", "role", "worker")
            lab.wait_until(lambda: lab.ctl("show", "sync")["rcu_deferred"] == 0, 0.5, 0.01,
                           "a grace period over while the worker waits")  # fmt: skip
            time.sleep(0.2)
        # all that happened during the wait: no answer came, none will
        c = lab.ctl("show", "iotgw")["control_plane"]
        assert c["reg_ready"] == 0 and c["reg_failed"] == 0
        lab.wait_until(lambda: lab.ctl("show", "iotgw")["control_plane"]["reg_failed"] == 1,
                       10.0, 0.1, "the registration given up")  # fmt: skip
        # what waited in the backlog meanwhile (the agent's retries) is processed after


@pytest.fixture
def sock_lab(daemon_lab: Callable[..., RouterLab]) -> tuple[RouterLab, Acme]:
    need_acme()
    lab = daemon_lab(kernel_forwarding=True, start_daemon=False)
    acme = Acme.in_lab(lab, ns=lab.ns["h2"], address=CSE)
    for link in lab.links:
        lab.router.run(["ip", "addr", "add", link.router_addr, "dev", link.router_if])
    return lab, acme


def test_socket_gateway_full_sessions(sock_lab: tuple[RouterLab, Acme]) -> None:
    lab, acme = sock_lab
    gw = SockGw(lab.router, lab.workdir, "--cse", CSE, "--timeout", "30", "--max-sessions", "3")
    lab.defer("stop sockgw", gw.stop)
    devices = {
        "pulse-oximeter": ["spo2", "pulse-rate"],
        "medication-monitor": ["dispensed-fixed", "dispensed-variable", "status"],
    }
    for i, (device, labels) in enumerate(devices.items()):
        sysid = f"00bb0000000000{i:02x}"
        r = sim(lab, "--type", device, "--sysid", sysid, "--reports", "2", "--interval", "100")
        assert r["result"] == "ok" and r["acked"] == 2, r
        check_device(acme, sysid, labels, r, 2)
    c = gw.counters()
    assert c["plane"] == "socket"
    cp, dp = c["control_plane"], c["data_plane"]
    assert cp["associated"] == 2 and cp["configured"] == 1 and cp["released"] == 2
    assert cp["reg_ready"] == 2 and dp["cin_sent"] == 2 * 2 + 2 * 3
    assert dp["responses_sent"] == 4 and c["sessions"] == 0
    # unassociated reports: dropped and counted, nothing reaches ACME
    sim(lab, "--type", "pulse-oximeter", "--sysid", "00bb0000000000ff", "--no-associate",
        "--reports", "3", "--interval", "20")  # fmt: skip
    assert gw.counters()["data_plane"]["drop_unassociated"] == 3
    assert not acme.ae_exists("PHD-00BB0000000000FF")
    # the session table is bounded: a flood of 5 agents, 3 accepted
    r = sim(lab, "--type", "pulse-oximeter", "--sysid", "0000000000bb0000", "--flood", "5",
            "--timeout", "120")  # fmt: skip
    assert r["accepted"] == 3 and r["rejected"] == 2, r
    assert gw.counters()["sessions"] == 3


def test_socket_gateway_rejects_bad_arguments(tmp_path: Path) -> None:
    for args, msg in (([], "give the IN-CSE"), (["--cse", "10.0.0"], "bad --cse address"),
                      (["--cse", "10.0.0.1", "--port", "0"], "bad --port"),
                      (["--cse", "10.0.0.1:99999"], "bad --cse port"),
                      (["--cse", "10.0.0.1", "extra"], "unexpected argument")):  # fmt: skip
        res = subprocess.run([str(SOCKGW), *args], capture_output=True, text=True, timeout=10)
        assert res.returncode == 2 and msg in res.stderr, (args, res.stderr)

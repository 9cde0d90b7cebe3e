# SPDX-License-Identifier: BSD-3-Clause
"""Trustworthy delivery of the IoT gateway against a real ACME IN-CSE.

Agents replay the specializations' example APDUs (test_iotgw_devices.VECTORS,
signove/antidote's) from h1; ACME runs on h2 with its file database, so that a
restarted IN-CSE keeps its resources as a real one does. Every value is read
back from ACME over HTTP; every loss is read from ``show iotgw``.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable
from typing import Any

import pytest
from test_iotgw_devices import GW, Agent, vec

from twinplane.lab import RouterLab
from twinplane.lab.acme import Acme, acme_available, cin_content

CSE = "10.0.2.2"
BP = "PHD-1122334455667707"  # the 10407 example's system id
PO = "PHD-1122334455667704"  # the 10404 example's


def gw_lab(daemon_lab: Callable[..., RouterLab], *options: str) -> tuple[RouterLab, Acme]:
    if not acme_available() and os.environ.get("CI") != "true":
        pytest.skip("acmecse not installed")
    conf = f"iotgw enable cse {CSE} timeout 60 max-sessions 40 " + " ".join(options)
    lab = daemon_lab(extra_config=[conf])
    return lab, Acme.in_lab(lab, ns=lab.ns["h2"], address=CSE, database="tinydb")


def show(lab: RouterLab) -> dict[str, Any]:
    out: dict[str, Any] = lab.ctl("show", "iotgw")
    return out


def wait_for(what: str, cond: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def bp_report(invoke: int, systolic: int) -> bytes:
    """The 10407 example report (H241_ID_02BC) with another invoke-id and systolic."""
    r = bytearray(vec("bp_report"))
    r[6:8] = invoke.to_bytes(2, "big")
    r[38:40] = systolic.to_bytes(2, "big")
    return bytes(r)


def po_report(invoke: int, spo2: int) -> bytes:
    r = bytearray(vec("po_report"))
    r[6:8] = invoke.to_bytes(2, "big")
    r[34:36] = spo2.to_bytes(2, "big")  # the SpO2 observation's SFLOAT (H241_ID_0190)
    return bytes(r)


def aarq(base: str, sysid: bytes, config: int | None = None) -> bytes:
    """An example AARQ with another system id (the EUI-64 after its length 0x0008)
    and, if given, another dev-config-id (the two bytes after it)."""
    a = bytearray(vec(base))
    at = a.index(bytes.fromhex("0008112233445566")) + 2
    a[at : at + 8] = sysid
    if config is not None:
        a[at + 8 : at + 10] = config.to_bytes(2, "big")
    return bytes(a)


class AgentAt(Agent):
    """test_iotgw_devices.Agent on an address of h1 other than its own."""

    def __init__(self, lab: RouterLab, address: str, port: int) -> None:
        self.sock = lab.ns["h1"].socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((address, port))
        self.sock.settimeout(0.5)
        self.get_rsp = b""
        self.gets = 0


def no_answer(
    agent: Agent, apdu: bytes, seconds: float, until: Callable[[], bool] | None = None
) -> None:
    """The agent sends apdu (and again, as a real one retransmits) and gets no answer,
    for ``seconds`` and then, if given, until ``until()`` holds (at most 15 s more)."""
    invoke = apdu[6:8]
    end = time.monotonic() + seconds
    while time.monotonic() < end or (until is not None and not until()):
        assert time.monotonic() < end + 15.0, "timed out waiting for the gateway"
        agent.sock.sendto(apdu, GW)
        try:
            got = agent.sock.recv(2048)
        except TimeoutError:
            continue
        if agent._handle_get(got):  # the manager's GET of the MDS attributes
            continue
        assert not (got[:2] == b"\xe7\x00" and got[6:8] == invoke), "answered: " + got.hex()


def answered(agent: Agent, apdu: bytes, tries: int = 40) -> None:
    """The agent retransmits apdu (every 0.5 s) until it is answered with its invoke-id."""
    invoke = apdu[6:8]
    agent.exchange(apdu, lambda b: b[:2] == b"\xe7\x00" and b[6:10] == invoke + b"\x02\x01", tries)


def systolic(acme: Acme, at_least: int = 0, wait: float = 5.0) -> list[Any]:
    cins = acme.instances(f"cse-in/{BP}/systolic", at_least=at_least, wait=wait)
    return [cin_content(c)["value"] for c in cins]


# load-sensitive (the IN-CSE restarted within the test's waits): reruns once
@pytest.mark.flaky(reruns=1, reruns_delay=3)
def test_confirmed_delivery_across_cse_restarts(daemon_lab: Callable[..., RouterLab]) -> None:
    """Registration retried until the IN-CSE returns; each confirmed report answered
    only once ACME holds its measurements; the IN-CSE stopped and restarted with one
    report in the gateway's hands and one it had no room for (bounded, counted, kept
    by the agent): both stored once, nothing lost; containers with mni."""
    # room for one report's four measurements
    lab, acme = gw_lab(daemon_lab, "reg-timeout 200", "ack-timeout 300", "mni 50", "max-pending 4")
    agent = Agent(lab, 41200)
    try:
        agent.get_rsp = vec("bp_get_rsp")
        acme.stop()  # down before the device comes: its registration waits for it
        assert agent.associate(vec("bp_aarq")) == 0
        # not registered: not converted, while the registration is tried again and again
        no_answer(
            agent,
            bp_report(0x54, 120),
            2.0,
            lambda: show(lab)["control_plane"]["reg_retries"] >= 2,
        )
        acme.restart()
        answered(agent, bp_report(0x54, 120))  # answered once the registration is done
        # the answer came after ACME stored every measurement: no wait here
        assert systolic(acme, wait=0) == [120]
        for name in ("diastolic", "mean-arterial-pressure", "pulse-rate"):
            assert len(acme.instances(f"cse-in/{BP}/{name}", wait=0)) == 1, name
        assert acme.get(f"cse-in/{BP}/systolic")["m2m:cnt"]["mni"] == 50

        acme.stop()
        # the IN-CSE has not stored it: retransmissions neither answered nor queued
        no_answer(
            agent,
            bp_report(0x55, 130),
            2.0,
            lambda: show(lab)["delivery"]["duplicates_pending"] >= 2,
        )
        no_answer(agent, bp_report(0x56, 140), 1.0)  # no room: refused, the agent keeps it
        d = show(lab)["delivery"]
        assert d["pending"] == 4 and not d["cse_up"], d  # bounded: one report's four values
        assert d["reports_refused_full"] >= 1, d
        acme.restart()
        answered(agent, bp_report(0x55, 130))  # answered (again) once stored
        answered(agent, bp_report(0x56, 140))
        agent.release()
    finally:
        agent.close()
    assert systolic(acme, at_least=3) == [120, 130, 140]  # each once, in order
    d = show(lab)["delivery"]
    assert d["pending"] == 0 and d["cse_up"] and d["went_down"] >= 1, d
    assert d["cin_stored"] == 12 and d["cin_refused"] == 0 and d["cin_lost"] == 0, d
    assert d["answered"] + d["answered_again"] >= 3


def test_fire_and_forget_counts_every_loss(daemon_lab: Callable[..., RouterLab]) -> None:
    """NON measurements answered at once: what went out while the IN-CSE was down is
    counted, and the count is exactly what ACME does not have."""
    lab, acme = gw_lab(daemon_lab, "delivery fire-and-forget")
    assert show(lab)["delivery"]["probes_answered"] >= 0
    agent = Agent(lab, 41201)
    try:
        agent.get_rsp = vec("po_get_rsp")
        assert agent.associate(vec("po_aarq")) == 0
        agent.report(po_report(0x1238, 98))
        # answered at once, maybe before the AE was made (early.c): it is made meanwhile
        for name in ("spo2", "pulse-rate"):
            cnt = f"cse-in/{PO}/{name}"
            wait_for(cnt, lambda c=cnt: acme.request("GET", c).ok)
        # both measurements of the first report stored before the IN-CSE stops
        assert len(acme.instances(f"cse-in/{PO}/spo2", at_least=1)) == 1
        assert len(acme.instances(f"cse-in/{PO}/pulse-rate", at_least=1)) == 1
        acme.stop()
        wait_for("the gateway to see the IN-CSE down", lambda: not show(lab)["delivery"]["cse_up"])
        for i in range(3):  # answered by the gateway, stored nowhere
            agent.report(po_report(0x1239 + i, 90 + i))
        assert show(lab)["delivery"]["forget_sent_while_down"] == 6
        acme.restart()
        wait_for("the gateway to see the IN-CSE back", lambda: show(lab)["delivery"]["cse_up"])
        agent.report(po_report(0x1240, 97))
        agent.release()
    finally:
        agent.close()
    spo2 = [cin_content(c)["value"] for c in acme.instances(f"cse-in/{PO}/spo2", at_least=2)]
    assert spo2 == [98, 97]
    c = show(lab)
    # the first report came before the AE was ready: answered at once, its NONs sent
    # by the control plane once it was (early.c); the rest by the worker
    sent = c["data_plane"]["cin_sent"] + c["early"]["cin_sent"]
    assert sent == 10 and c["delivery"]["forget_sent_while_down"] == 6
    # what ACME stored is what went out while it was up: spo2's values tell them apart
    # (above), and pulse-rate (72 in every report) holds at most the two sent while up.
    # One of those may be ACME's loss, not ours: restarted on its TinyDB files, acmecse
    # 2026.5.3 loses one of two CIN CREATEs that arrive together (a capture at the
    # IN-CSE had both NONs on its wire and one stored; the captured pair, replayed at
    # ACME alone, lost the second in 12 of 12 rounds after a restart, and both were
    # stored without one).
    # A NON's loss is silent by design (RFC 7252 4.3): no gateway could count it.
    pulse = len(acme.instances(f"cse-in/{PO}/pulse-rate", at_least=2))
    assert pulse in (1, 2), pulse


def test_system_id_associated_elsewhere_is_refused(daemon_lab: Callable[..., RouterLab]) -> None:
    lab, acme = gw_lab(daemon_lab)
    agent = Agent(lab, 41202)
    other = Agent(lab, 41203)  # another port: another endpoint, the same system id
    try:
        agent.get_rsp = other.get_rsp = vec("bp_get_rsp")
        assert agent.associate(vec("bp_aarq")) == 0
        assert other.associate(vec("bp_aarq")) == 2  # rejected-transient
        assert show(lab)["control_plane"]["rejected_duplicate"] == 1
        agent.report(bp_report(0x54, 120))  # the first session goes on
        agent.release()
        assert other.associate(vec("bp_aarq")) == 0  # once it is gone, the device may
        other.release()
    finally:
        agent.close()
        other.close()
    assert systolic(acme, at_least=1) == [120]


def test_flood_bounded_per_source_and_idle_sessions_evicted(
    daemon_lab: Callable[..., RouterLab],
) -> None:
    """One address floods: it gets its share, another still associates; a full table
    evicts the session silent for longest before it refuses an agent, but never one in
    use: a registered agent silent for longer than the flood stays (security review
    N8)."""
    if not acme_available() and os.environ.get("CI") != "true":
        pytest.skip("acmecse not installed")
    lab = daemon_lab(
        extra_config=[
            f"iotgw enable cse {CSE} timeout 60 max-sessions 10 max-per-source 6 evict-idle 2"
        ]
    )
    Acme.in_lab(lab, ns=lab.ns["h2"], address=CSE)
    for a in ("10.0.1.3", "10.0.1.4"):
        lab.netns("h1").run(["ip", "addr", "add", f"{a}/24", "dev", "eth0"])
    agents: list[Agent] = []

    def flood(address: str, n: int, first: int) -> list[int]:
        results = []
        for i in range(n):
            a = AgentAt(lab, address, 42000 + first + i)
            agents.append(a)
            sysid = bytes.fromhex(f"00f1000000{first + i:06x}")
            # an extended configuration (0x4001): accepted-unknown-config (3), then the
            # flood sends nothing more
            results.append(a.associate(aarq("bp_aarq", sysid, 0x4001)))
        return results

    try:
        # a real agent first: registered, it reports once, then sleeps (as a health
        # device does between readings); it is the session silent for longest below
        real = AgentAt(lab, "10.0.1.3", 42100)
        agents.append(real)
        real.get_rsp = vec("bp_get_rsp")
        assert real.associate(vec("bp_aarq")) == 0
        real.report(bp_report(0x54, 120))
        res = flood("10.0.1.2", 10, 0)
        assert res == [3] * 6 + [2] * 4, res  # the source's share, then rejected-transient
        assert show(lab)["control_plane"]["rejected_source"] == 4
        assert flood("10.0.1.4", 3, 20) == [3, 3, 3]  # the table is full: 1 + 6 + 3
        # all active (associated within the last evict-idle seconds): refused
        assert flood("10.0.1.4", 1, 23) == [2]
        assert show(lab)["control_plane"]["rejected_full"] == 1
        time.sleep(2.5)  # every session falls idle, the real agent's longest
        assert flood("10.0.1.4", 1, 24) == [3]  # the oldest idle session made room
        assert show(lab)["control_plane"]["evicted"] == 1
        sessions = lab.ctl("show", "iotgw", "sessions")["sessions"]
        assert len(sessions) == 10
        # in use: kept, however long it sleeps; the flood's oldest went instead
        assert [s["state"] for s in sessions if s["agent"] == "10.0.1.3:42100"] == ["ready"]
        assert not any(s["agent"] == "10.0.1.2:42000" for s in sessions)
        real.report(bp_report(0x55, 121))  # and its next report is converted
    finally:
        for a in agents:
            a.close()


def test_cse_neighbour_kept_reachable(daemon_lab: Callable[..., RouterLab]) -> None:
    """The kernel's neighbour entry of the IN-CSE (the daemon's copy comes from it)
    stays confirmed while only the data plane talks to the IN-CSE: reachable time
    8-24 s here (the probe's 5 s with 3 s to spare for a loaded host's late tick; at
    6-18 s a CI run saw STALE), 26 s watched, so an entry nobody confirms goes STALE
    in sight. The daemon confirms only while the IN-CSE answers its probes: a window
    in which a probe went 2 s unanswered (went_down counts it; ACME stalls so on a
    loaded host) says nothing, and is watched again, once.

    The entry is made again once ACME answers (deleted: the next probe resolves it),
    so that its timer runs on the reachable time set here, not on the default's up to
    45 s, and the watch starts once it is REACHABLE after two more answered probes:
    the daemon starts before ACME, and its probes while ACME starts confirm nothing
    (a CI run saw DELAY so, outside what this test is about)."""
    lab, _ = gw_lab(daemon_lab, "delivery fire-and-forget")
    tap = lab.link("h2").tap
    lab.router.run(["sysctl", "-qw", f"net.ipv4.neigh.{tap}.base_reachable_time_ms=16000"])

    def neigh_states() -> set[str]:
        out = lab.router.run(["ip", "-j", "neigh", "show", CSE, "dev", tap]).stdout
        return {s for e in json.loads(out or "[]") for s in e.get("state", [])}

    wait_for("a probe's answer", lambda: show(lab)["delivery"]["probes_answered"] >= 1)
    lab.router.run(["ip", "neigh", "del", CSE, "dev", tap])
    # the next probe resolves the entry; the one after carries the confirmation
    n = show(lab)["delivery"]["probes_answered"] + 2
    wait_for("a confirming probe's answer", lambda: show(lab)["delivery"]["probes_answered"] >= n)
    wait_for("the entry confirmed", lambda: neigh_states() == {"REACHABLE"}, timeout=30)
    for window in (1, 2):
        down = show(lab)["delivery"]["went_down"]
        states = set()
        end = time.monotonic() + 26
        while time.monotonic() < end:
            states |= neigh_states()
            time.sleep(0.5)
        delivery = show(lab)["delivery"]
        if states == {"REACHABLE"} or delivery["went_down"] == down or window == 2:
            break
        print(f"window {window}: {states}, the IN-CSE missed a probe: watched again")
    assert states == {"REACHABLE"}, (states, delivery)
    assert delivery["cse_up"], delivery


def test_one_agent_takes_only_its_share_of_the_queue(
    daemon_lab: Callable[..., RouterLab],
) -> None:
    """Confirmed delivery with the IN-CSE down: an agent that keeps sending new reports
    fills its share of the queue (agent-pending) and no more; another agent's report
    is still taken; both delivered once the IN-CSE is back (security review N8)."""
    lab, acme = gw_lab(
        daemon_lab, "reg-timeout 200", "ack-timeout 300", "max-pending 16", "agent-pending 8"
    )
    noisy, quiet = AgentAt(lab, "10.0.1.2", 41400), AgentAt(lab, "10.0.1.2", 41401)
    try:
        for a, sysid in ((noisy, "1122334455667707"), (quiet, "11223344556677aa")):
            a.get_rsp = vec("bp_get_rsp")
            assert a.associate(aarq("bp_aarq", bytes.fromhex(sysid))) == 0
        answered(noisy, bp_report(0x60, 100))  # both registered, ACME answers
        answered(quiet, bp_report(0x70, 200))
        acme.stop()
        for i in range(4):  # 4 measurements a report: two fit its share of 8
            noisy.sock.sendto(bp_report(0x61 + i, 101 + i), GW)
            time.sleep(0.05)
        wait_for("the share refused", lambda: show(lab)["delivery"]["reports_refused_share"] >= 2)
        taken = show(lab)["delivery"]["reports"]
        quiet.sock.sendto(bp_report(0x71, 201), GW)  # still taken: 8 + 4 of 16
        wait_for("the quiet agent's report", lambda: show(lab)["delivery"]["reports"] > taken)
        d = show(lab)["delivery"]
        assert d["reports_refused_share"] == 2 and d["reports_refused_full"] == 0, d
        assert d["agent_pending"] == 8 and d["pending"] <= 12, d
        acme.restart()
        answered(quiet, bp_report(0x71, 201))
        answered(noisy, bp_report(0x63, 103))  # the refused ones, sent again
        answered(noisy, bp_report(0x64, 104))
    finally:
        noisy.close()
        quiet.close()
    got = sorted(cin_content(c)["value"] for c in acme.instances(f"cse-in/{BP}/systolic", 5))
    assert got == [100, 101, 102, 103, 104], got
    other = "PHD-11223344556677AA"
    got = sorted(cin_content(c)["value"] for c in acme.instances(f"cse-in/{other}/systolic", 2))
    assert got == [200, 201], got

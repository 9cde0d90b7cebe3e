# SPDX-License-Identifier: BSD-3-Clause
"""The AEs' lifetime on the IN-CSE (``iotgw enable ... ae-retention S``) against a real
ACME, security review F7: "nothing is ever deleted on the IN-CSE".

The gateway gives each AE an expirationTime (oneM2M ``et``) of now + the retention and
moves it on while the agent is associated; ACME (told to look for expired resources
every second) deletes the AE, with its containers and measurements, of an agent gone
for longer. An AE that is gone while its agent is associated (the IN-CSE answers 4.04)
is registered again. Everything is read back from ACME over HTTP and from
``show iotgw``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from test_iotgw_delivery import BP, CSE, PO, answered, bp_report, po_report, show, wait_for
from test_iotgw_devices import Agent, vec

from twinplane.lab import RouterLab
from twinplane.lab.acme import Acme, acme_available, cin_content

RETENTION = 4  # s: the AEs' et is now + 4 s, set again every 2 s


def ret_lab(daemon_lab: Callable[..., RouterLab], *options: str) -> tuple[RouterLab, Acme]:
    if not acme_available():
        pytest.skip("acmecse not installed")
    conf = f"iotgw enable cse {CSE} timeout 60 max-sessions 40 reg-timeout 200 " + " ".join(options)
    lab = daemon_lab(extra_config=[conf])
    # ACME looks for resources past their et every second (its default: 60 s)
    return lab, Acme.in_lab(lab, ns=lab.ns["h2"], address=CSE, expiration_interval=1)


def et_of(acme: Acme, ae: str) -> str:
    """The AE's expirationTime as ACME holds it ("20261129T072556")."""
    return str(acme.get(f"cse-in/{ae}")["m2m:ae"]["et"])


def utc(t: float) -> str:
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime(t))


def gone(acme: Acme, path: str) -> bool:
    return acme.request("GET", path).rsc == 4004


def values(acme: Acme, container: str, at_least: int = 0) -> list[Any]:
    """The container's measurements, oldest first; none while it does not exist."""
    if gone(acme, container):
        return []
    return [cin_content(c)["value"] for c in acme.instances(container, at_least=at_least)]


def session_state(lab: RouterLab, ae: str) -> str | None:
    for s in lab.ctl("show", "iotgw", "sessions")["sessions"]:
        if s["ae"] == ae:
            return str(s["state"])
    return None


def test_ae_expires_when_its_agent_left(daemon_lab: Callable[..., RouterLab]) -> None:
    """Two agents report; one leaves: ACME deletes its AE (and its measurements) after
    the retention, while the other one's AE, whose agent goes on reporting for three
    retentions, is kept (its et moved on) and stores every report. The agent that left
    comes back: registered again (a new AE), its next report stored. The one that
    stayed associates again: its AE, which exists, is taken over (et null, then set)."""
    lab, acme = ret_lab(daemon_lab, f"ae-retention {RETENTION}")
    assert show(lab)["ae_retention"] == RETENTION
    bp, po = Agent(lab, 41300), Agent(lab, 41301)
    try:
        bp.get_rsp, po.get_rsp = vec("bp_get_rsp"), vec("po_get_rsp")
        assert bp.associate(vec("bp_aarq")) == 0
        assert po.associate(vec("po_aarq")) == 0
        answered(bp, bp_report(0x54, 120))  # confirmed: answered once ACME stored it
        answered(po, po_report(0x1238, 98))
        t = time.time()
        # the registration's last step set et: now + the retention (ACME's clock is ours)
        for ae in (BP, PO):
            assert utc(t - 2) <= et_of(acme, ae) <= utc(t + RETENTION + 1), ae
        po_et = et_of(acme, PO)
        bp.release()  # the blood pressure monitor goes away

        # the oximeter reports for three retentions, every second
        spo2 = [98]
        end, inv = time.monotonic() + 3 * RETENTION, 0x1239
        while time.monotonic() < end:
            answered(po, po_report(inv, 90 + inv % 8))
            spo2.append(90 + inv % 8)
            inv += 1
            time.sleep(1.0)
        # its AE is there, its et moved on, every measurement stored (its containers
        # outlived the AE's first et)
        assert et_of(acme, PO) > po_et
        assert et_of(acme, PO) >= utc(time.time())
        assert values(acme, f"cse-in/{PO}/spo2", at_least=len(spo2)) == spo2
        # the monitor's AE is gone, and its containers and measurements with it
        wait_for("ACME to delete the BP's AE", lambda: gone(acme, f"cse-in/{BP}"), 2 * RETENTION)
        assert gone(acme, f"cse-in/{BP}/systolic")
        c = show(lab)["control_plane"]
        assert c["ae_refreshed"] >= 3 * RETENTION // 2 - 1, c
        assert c["ae_refresh_failed"] == 0 and c["ae_expired"] == 0, c

        # the monitor comes back: a new AE, with an et, its report stored
        assert bp.associate(vec("bp_aarq")) == 0
        answered(bp, bp_report(0x57, 131))
        t = time.time()
        assert utc(t - 2) <= et_of(acme, BP) <= utc(t + RETENTION + 1)
        assert values(acme, f"cse-in/{BP}/systolic", at_least=1) == [131]  # 120 went
        bp.release()

        # the oximeter associates again while its AE exists: verified as its own, given
        # its default lifetime back (et null, accepted), its containers kept, et set
        po.release()
        assert po.associate(vec("po_aarq")) == 0
        answered(po, po_report(inv, 93))
        spo2.append(93)
        t = time.time()
        assert utc(t - 2) <= et_of(acme, PO) <= utc(t + RETENTION + 1)
        assert values(acme, f"cse-in/{PO}/spo2", at_least=len(spo2)) == spo2
        po.release()
    finally:
        bp.close()
        po.close()
    c = show(lab)["control_plane"]
    assert c["reg_ready"] == 4 and c["reg_failed"] == 0 and c["reg_conflict"] == 0, c
    assert c["ae_refresh_failed"] == 0, c  # the lift and every et accepted


def test_ae_gone_while_associated_confirmed(daemon_lab: Callable[..., RouterLab]) -> None:
    """Confirmed delivery: the AE of an associated agent is deleted on the IN-CSE (as an
    expiry does); the agent's next report meets a 4.04, which makes the gateway register
    it again; the report, sent again by the agent, is then stored and answered. (A long
    retention: no refresh comes first.)"""
    lab, acme = ret_lab(daemon_lab, "ae-retention 600")
    po = Agent(lab, 41302)
    try:
        po.get_rsp = vec("po_get_rsp")
        assert po.associate(vec("po_aarq")) == 0
        answered(po, po_report(0x1238, 98))
        assert acme.request("DELETE", f"cse-in/{PO}").rsc == 2002
        assert gone(acme, f"cse-in/{PO}/spo2")
        answered(po, po_report(0x1239, 95))  # retransmitted until stored
        c = show(lab)["control_plane"]
        assert c["ae_expired"] == 1 and c["ae_reregistered"] == 1, c
        assert c["ae_refreshed"] == 0, c
        assert values(acme, f"cse-in/{PO}/spo2", at_least=1) == [95]  # 98 went with it
        assert show(lab)["delivery"]["cin_refused"] >= 1
        po.release()
    finally:
        po.close()


def test_ae_gone_while_associated_fire_and_forget(daemon_lab: Callable[..., RouterLab]) -> None:
    """Fire-and-forget (no answers from the IN-CSE to the NONs): the refresh of the AE's
    et finds it gone (4.04) and registers it again; the next report is stored."""
    lab, acme = ret_lab(daemon_lab, f"ae-retention {RETENTION}", "delivery fire-and-forget")
    po = Agent(lab, 41303)
    try:
        po.get_rsp = vec("po_get_rsp")
        assert po.associate(vec("po_aarq")) == 0
        po.report(po_report(0x1238, 98))
        wait_for("the first report stored", lambda: len(values(acme, f"cse-in/{PO}/spo2")) == 1)
        assert acme.request("DELETE", f"cse-in/{PO}").rsc == 2002
        wait_for(
            "the AE registered again",
            lambda: (
                show(lab)["control_plane"]["ae_reregistered"] == 1
                and session_state(lab, PO) == "ready"
            ),
            3 * RETENTION,
        )
        assert not gone(acme, f"cse-in/{PO}/spo2")
        po.report(po_report(0x1239, 96))
        wait_for("the next report stored", lambda: values(acme, f"cse-in/{PO}/spo2") == [96])
        c = show(lab)["control_plane"]
        assert c["ae_expired"] == 1 and c["reg_ready"] == 2, c
        po.release()
    finally:
        po.close()

# SPDX-License-Identifier: BSD-3-Clause
"""Reports that come before the gateway has registered the agent's AE.

A real agent with an extended configuration sends its first confirmed scan report
right after the manager accepts the configuration (IEEE 11073-20601 8.4.3), while
the gateway still asks for its MDS attributes and creates the AE and containers on
the IN-CSE. The agent replayed here is Freescale's PHDC thermometer
(test_iotgw_devices.FREESCALE, byte for byte but for the invoke-id and the
temperature); it never answers the manager's GET, and sends each report once,
waiting 20601's confirmed-event timeout (3 s) for the answer instead of
retransmitting, so a report the gateway drops is a report lost. Values are read
back from a real ACME IN-CSE; the IN-CSE made slow (seconds) by dropping the
registrar's first requests in its namespace.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

import pytest
from test_iotgw_delivery import gw_lab, show, wait_for
from test_iotgw_devices import FREESCALE, GW

from twinplane.lab import RouterLab
from twinplane.lab.acme import cin_content

AE = "PHD-4C4E494147454E54"  # the Freescale agent's system id, "LNIAGENT"
TO_CONFIRMED_EVENT = 3.0  # 20601's confirmed event report timeout (s)


def th_report(invoke: int, centi_degc: int) -> bytes:
    """The thermometer's report (PHD_THERMO_DIM_DATA_TX) with another invoke-id and
    temperature (a FLOAT, exponent -2: the mantissa in hundredths of a degree)."""
    r = bytearray(bytes.fromhex(FREESCALE["th_report"]))
    at = r.index(bytes.fromhex("fb387520"))  # 37.00000 degC, exponent -5
    r[at : at + 4] = bytes([0xFE]) + centi_degc.to_bytes(3, "big")
    r[6:8] = invoke.to_bytes(2, "big")
    return bytes(r)


def is_answer(b: bytes, invoke: bytes) -> bool:
    # rors-cmip-confirmed-event-report (0x0201) with the report's invoke-id
    return b[:2] == b"\xe7\x00" and b[6:10] == invoke + b"\x02\x01"


class SilentAgent:
    """The thermometer from h1: association and configuration retransmitted until
    answered; the manager's GET never answered (counted); reports sent once."""

    def __init__(self, lab: RouterLab, port: int) -> None:
        self.sock = lab.ns["h1"].socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("10.0.1.2", port))
        self.sock.settimeout(0.2)
        self.gets = 0
        self.got: list[bytes] = []

    def close(self) -> None:
        self.sock.close()

    def _recv(self) -> bytes | None:
        try:
            b = self.sock.recv(2048)
        except TimeoutError:
            return None
        if b[:2] == b"\xe7\x00" and b[8:10] == b"\x01\x03":  # roiv-cmip-get: ignored
            self.gets += 1
            return None
        self.got.append(b)
        return b

    def exchange(self, apdu: bytes, want: Callable[[bytes], bool]) -> bytes:
        for _ in range(20):
            self.sock.sendto(apdu, GW)
            end = time.monotonic() + 0.5
            while time.monotonic() < end:
                b = self._recv()
                if b is not None and want(b):
                    return b
        raise AssertionError(f"no answer to {apdu.hex()}")

    def configure(self) -> None:
        aare = self.exchange(bytes.fromhex(FREESCALE["th_aarq"]), lambda b: b[:2] == b"\xe3\x00")
        assert aare[4:6] == b"\x00\x03"  # accepted-unknown-config: send it
        config = bytes.fromhex(FREESCALE["th_config"])
        rsp = self.exchange(config, lambda b: is_answer(b, config[6:8]))
        assert rsp[-4:] == b"\x03\x20\x00\x00", rsp.hex()  # config 0x0320 accepted

    def answered_within(self, invokes: list[bytes], seconds: float) -> dict[bytes, float]:
        """When each report (by invoke-id) was answered, in seconds from now; fails
        if one is not answered within ``seconds``."""
        t0, when = time.monotonic(), {}
        for b in self.got:
            for i in invokes:
                if is_answer(b, i):
                    when[i] = 0.0
        while len(when) < len(invokes):
            left = seconds - (time.monotonic() - t0)
            assert left > 0, f"answered {sorted(when)} of {invokes} within {seconds} s"
            b = self._recv()
            for i in invokes:
                if b is not None and i not in when and is_answer(b, i):
                    when[i] = time.monotonic() - t0
        return when


# load-sensitive (reports answered within a time window): reruns once
@pytest.mark.flaky(reruns=1, reruns_delay=3)
@pytest.mark.parametrize("cse", ["prompt", "slow"])
@pytest.mark.parametrize("delivery", ["confirmed", "fire-and-forget"])
def test_reports_before_registration_answered_and_stored(
    daemon_lab: Callable[..., RouterLab], delivery: str, cse: str
) -> None:
    """Two reports sent once each, right after the configuration is accepted (the GET
    of the MDS attributes outstanding, never answered; the AE not made yet): both
    answered, both temperatures in ACME, nothing dropped as not ready. Confirmed
    delivery answers once ACME stored them, within the agent's 3 s when the IN-CSE is
    prompt; fire-and-forget answers at once, the IN-CSE prompt or not."""
    lab, acme = gw_lab(daemon_lab, f"delivery {delivery}")
    port = 41300 if delivery == "confirmed" else 41301
    agent = SilentAgent(lab, port)
    reports = [th_report(0x2001, 3712), th_report(0x2002, 3755)]
    invokes = [r[6:8] for r in reports]
    try:
        # ACME answers (the gateway's probe, every second while it is down)
        wait_for("the IN-CSE", lambda: show(lab)["delivery"]["cse_up"], timeout=30.0)
        if cse == "slow":
            # the registrar's requests are dropped for 4 s, from the configuration on
            blocker = lab.ns["h2"].popen(
                ["sh", "-c", "nft -f - <<'E'\n"
                 "add table inet tpslow\n"
                 "add chain inet tpslow in { type filter hook input priority 0 ; }\n"
                 "add rule inet tpslow in udp dport 5683 drop\nE\n"
                 "sleep 4; nft delete table inet tpslow"]
            )  # fmt: skip
            time.sleep(0.3)  # the table is in place
        agent.configure()
        for r in reports:
            agent.sock.sendto(r, GW)
        slow_confirmed = cse == "slow" and delivery == "confirmed"
        when = agent.answered_within(invokes, 20.0 if slow_confirmed else TO_CONFIRMED_EVENT)
        if cse == "slow":
            assert blocker.wait(timeout=30) == 0
            if slow_confirmed:  # answered only once stored: after the IN-CSE came back
                assert min(when.values()) > 2.0, when
        # fire-and-forget answered before the AE existed: it is made meanwhile
        cnt = f"cse-in/{AE}/temperature"
        wait_for("the container", lambda: acme.request("GET", cnt).ok, timeout=20.0)
        cins = acme.instances(cnt, at_least=2, wait=20.0)
        got = sorted(cin_content(c)["value"] for c in cins)
        assert got == [37.12, 37.55], got
        s = show(lab)
        e, cp, dp = s["early"], s["control_plane"], s["data_plane"]
        assert e["held"] == 2 and e["released"] == 2 and e["holding"] == 0, e
        assert e["dropped"] == 0 and e["refused_full"] == 0, e
        assert e["get_skipped"] == 1 and cp["mds_answered"] == 0, (e, cp)
        assert agent.gets >= 1  # asked, never answered
        assert dp["reports_before_ready"] == 2 and dp["drop_not_ready"] == 0, dp
        if delivery == "confirmed":
            assert s["delivery"]["cin_stored"] == 2 and s["delivery"]["answered"] == 2, s
        else:
            assert e["answered"] == 2 and e["cin_sent"] == 2, e
    finally:
        agent.close()

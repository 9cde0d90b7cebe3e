#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write fuzz_iotgw's seed programs (tests/fuzz/fuzz_iotgw.c says what the ops are).

The APDUs are the real example APDUs of tests/integration/test_iotgw_devices.py
(VECTORS: signove/antidote's 104xx examples; FREESCALE: Freescale's PHDC agent),
read from that file (not imported: it needs the lab), byte for byte but where a
seed says otherwise (another system id, invoke-id or event choice, to make more
devices or reports of the same ones). Each program starts by letting every
session of earlier inputs time out, then takes sessions through the states:
CONFIGURING, QUERYING, REGISTERING, READY, FAILED, released, aborted, timed out,
evicted, refused (full, per source, duplicate device, unbound source), spoofed
sources, reports held before the AE is ready, and the IN-CSE's answers, silences
and garbage.

    tests/fuzz/make_iotgw_seeds.py [DIR]   (default tests/fuzz/iotgw_seeds)
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEVICES = HERE.parent / "integration" / "test_iotgw_devices.py"


def vectors() -> dict[str, bytes]:
    """VECTORS and FREESCALE of the integration test, as bytes."""
    out: dict[str, bytes] = {}
    for node in ast.parse(DEVICES.read_text()).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            name = getattr(node.targets[0], "id", "")
            if name in ("VECTORS", "FREESCALE"):
                for k, v in ast.literal_eval(node.value).items():
                    out[k] = bytes.fromhex(v)
    return out


V = vectors()
# ABRT-apdu, abort-reason undefined (IEEE 11073-20601 A.9: 0xE600, length 2, reason 0)
ABRT = bytes.fromhex("e60000020000")
A, B, C = 0, 1, 2  # the sources (fuzz_iotgw.c's l2[])


def dg(k: int, apdu: bytes, src: int = A, patch_get: bool = False) -> bytes:
    """Agent k's datagram; patch_get: the invoke-id of the gateway's last GET to it."""
    op = bytes([src << 5 | (0x10 if patch_get else 0) | k])
    n = len(apdu)
    return op + (bytes([n]) if n < 0xFF else b"\xff" + n.to_bytes(2, "big")) + apdu


def again(k: int, src: int = A) -> bytes:
    return bytes([src << 5 | 0x08 | k])


def tick(ms: int) -> bytes:
    out = b""
    while ms > 0:
        if ms < 1000:
            out += bytes([0x60 | min(ms // 50, 19)])
            break
        s = min(ms // 1000, 12)
        out += bytes([0x60 | (s + 19)])
        ms -= s * 1000
    return out


def reg(k: int, sel: int = 0, how: int = 0) -> bytes:
    """The IN-CSE answers agent k's registration step: 0 created, 3 4.00, 4 5.00, 5 4.04."""
    return bytes([0x80 | how << 3 | k, sel])


def deliv(sel: int = 0, newest: bool = False, how: int = 0) -> bytes:
    return bytes([0xA0 | how << 2 | (1 if newest else 0), sel])


def lose(newest: bool = False) -> bytes:
    return bytes([0xA2 | (1 if newest else 0)])


LOSE_SOURCE, CSE_FORGETS, CSE_ANSWERS_ALL = b"\xc0", b"\xc1", b"\xc2"


def crowd(n: int) -> bytes:
    """The first n of the crowd's 72 agents associate (antidote's bp_aarq, a system
    id of their own)."""
    return bytes([0xC3, n - 1])


def crowd_reg(c: int, sel: int = 0) -> bytes:
    """The IN-CSE answers crowd agent c's registration request."""
    return bytes([0xC4, c, sel])


def reg_all(seed: int) -> bytes:
    """The IN-CSE answers every registration request it holds, shuffled by seed."""
    return bytes([0xC5, seed])


def reg_stale(seed: int) -> bytes:
    """The IN-CSE answers requests of registrations that ended since."""
    return bytes([0xC6, seed])


def raw(to_reg: bool, data: bytes) -> bytes:
    return bytes([0xE0 | (1 if to_reg else 0), len(data)]) + data


def sysid(aarq: bytes, last: int) -> bytes:
    """The AARQ with its system id's last byte changed (offset 36: 20601 A.8's
    PhdAssociationInformation after one DataProto header): another device."""
    b = bytearray(aarq)
    assert b[34:36] == b"\x00\x08"
    b[43] = last
    return bytes(b)


def invoke(apdu: bytes, inv: int) -> bytes:
    b = bytearray(apdu)
    b[6:8] = inv.to_bytes(2, "big")
    return bytes(b)


def unconfirmed(report: bytes) -> bytes:
    """The same scan report as roiv-cmip-event-report (0x0100): not answered."""
    b = bytearray(report)
    assert b[8:10] == b"\x01\x01"
    b[8:10] = b"\x01\x00"
    return bytes(b)


# every session of an earlier input times out (10 s), what it left is delivered
CLEAN = CSE_ANSWERS_ALL + tick(12000) + tick(12000) + CSE_ANSWERS_ALL


def bp_ready(k: int, src: int = A, aarq: bytes = V["bp_aarq"]) -> bytes:
    """Blood pressure monitor (0x02BC, known): QUERYING, the MDS attributes answered,
    REGISTERING (the AE and 4 containers), READY."""
    out = dg(k, aarq, src) + dg(k, V["bp_get_rsp"], src, patch_get=True)
    # the AE, its containers and (fuzz_iotgw runs with ae-retention 6 s) the AE's et
    return out + reg(k) * 6


SEEDS = {
    # 10407 examples: a whole session, the report delivered, its retransmission
    # answered again, released
    "bp-session": CLEAN
    + bp_ready(0)
    + dg(0, V["bp_report"])
    + CSE_ANSWERS_ALL
    + again(0)
    + dg(0, V["rlrq"]),
    # the AE's et set again every 3 s while the monitor is associated: answered
    # (2.04), then 4.04 (the AE expired): registered again; then refused (4.03), then
    # unanswered (retried, counted failed); released
    "ae-retention": CLEAN
    + bp_ready(0)
    + dg(0, V["bp_report"])
    + CSE_ANSWERS_ALL
    + tick(3100)
    + reg(0)
    + dg(0, invoke(V["bp_report"], 0x55))
    + CSE_ANSWERS_ALL
    + tick(3100)
    + reg(0, 5)
    + reg(0) * 6
    + dg(0, invoke(V["bp_report"], 0x56))
    + CSE_ANSWERS_ALL
    + tick(3100)
    + reg(0, 6)
    + dg(0, invoke(V["bp_report"], 0x57))
    + tick(3100)
    + tick(3100)
    + dg(0, invoke(V["bp_report"], 0x58))
    + tick(3100)
    + tick(3100)
    + dg(0, V["rlrq"]),
    # Freescale's thermometer: extended configuration (CONFIGURING), sent and
    # accepted, the GET answered, the AE and its container, a report
    "th-extended-config": CLEAN
    + dg(1, V["th_aarq"])
    + dg(1, V["th_config"])
    + dg(1, V["th_get_rsp"], patch_get=True)
    + reg(1) * 3
    + dg(1, V["th_report"])
    + deliv(0)
    + deliv(0)
    + CSE_ANSWERS_ALL
    + dg(1, V["rlrq"]),
    # Freescale's glucose meter reports instead of answering the GET: held (QUERYING),
    # registered after the grace, held again while REGISTERING, handed on once READY;
    # aborted
    "gl-early-reports": CLEAN
    + dg(2, V["gl_aarq"])
    + dg(2, V["gl_config"])
    + dg(2, V["gl_report"])
    + again(2)
    + tick(1200)
    + dg(2, invoke(V["gl_report"], 0x1237))
    + reg(2) * 5
    + tick(100)
    + CSE_ANSWERS_ALL
    + dg(2, ABRT),
    # the IN-CSE refuses the pulse oximeter's AE (4.04): FAILED, its reports dropped
    # and the held one too; then it times out
    "po-failed": CLEAN
    + dg(4, V["po_aarq"])
    + dg(4, V["po_report"])
    + dg(4, V["po_get_rsp"], patch_get=True)
    + reg(4, 5)
    + tick(200)
    + dg(4, V["po_report"])
    + tick(12000),
    # the scale never answers the GET (registered after 3 s), the IN-CSE refuses
    # transiently (5.00, 4.00), a late answer, a conflict taken as created
    "ws-transient": CLEAN
    + dg(5, V["ws_aarq"])
    + tick(3100)
    + reg(5, 4)
    + tick(1100)
    + reg(5, 3)
    + reg(5, 0, how=1)
    + tick(2100)
    + reg(5, 0)
    + reg(5, 1)
    + reg(5)  # the AE's et (fuzz_iotgw runs with ae-retention 6 s)
    + dg(5, V["ws_report"])
    + deliv(4)
    + tick(3000)
    + CSE_ANSWERS_ALL
    + dg(5, V["rlrq"]),
    # the crowd (72) and seven devices: the fourth of one address refused, the table
    # (78) full, then a session silent for 4 s evicted
    "full-and-evicted": CLEAN
    + crowd(72)
    + b"".join(dg(k, sysid(V["bp_aarq"], 0x10 + k)) for k in range(8))
    + tick(4500)
    + dg(7, sysid(V["bp_aarq"], 0x17))
    + dg(3, sysid(V["bp_aarq"], 0x13)),
    # a session bound to its AARQ's source: another MAC's and another port's
    # signaling and reports go no further than the worker
    "spoofed-source": CLEAN
    + dg(0, V["bp_aarq"], A)
    + dg(0, V["bp_get_rsp"], B, patch_get=True)
    + dg(0, V["rlrq"], C)
    + dg(0, V["bp_get_rsp"], A, patch_get=True)
    + reg(0) * 6
    + dg(0, V["bp_report"], B)
    + dg(0, V["bp_report"], A)
    + CSE_ANSWERS_ALL
    + dg(0, V["bp_aarq"], C)
    + dg(0, ABRT, A),
    # one device (Freescale's "LNIAGENT") from two ports: the second refused; an AARQ
    # whose source the worker lost refused; the device again once released
    "duplicate-and-unbound": CLEAN
    + dg(1, V["th_aarq"])
    + dg(2, V["gl_aarq"])
    + LOSE_SOURCE
    + dg(3, V["po_aarq"])
    + dg(3, V["po_aarq"])
    + dg(1, V["rlrq"])
    + dg(2, V["gl_aarq"])
    + dg(2, V["gl_config"]),
    # the IN-CSE goes silent with four measurements in flight: retransmissions, the
    # agent's retransmission while pending, down, probes, back, delivered
    "cse-down": CLEAN
    + bp_ready(6)
    + dg(6, V["bp_report"])
    + lose() * 4
    + (tick(9000) + again(6)) * 6
    + CSE_FORGETS
    + tick(2500)
    + deliv(0, newest=True)
    + CSE_ANSWERS_ALL
    + again(6),
    # three devices report until the queue (12) and one agent's share (6) are full;
    # an unconfirmed report; a report of objects the configuration lacks (BMI)
    "queue-bounds": CLEAN
    + bp_ready(0)
    + dg(4, sysid(V["bp_aarq"], 0x44))
    + dg(4, V["bp_get_rsp"], patch_get=True)
    + reg(4) * 6
    + dg(5, V["ws_aarq"])
    + dg(5, V["ws_get_rsp"], patch_get=True)
    + reg(5) * 3
    + dg(0, V["bp_report"])
    + dg(0, invoke(V["bp_report"], 0x55))
    + dg(4, V["bp_report"])
    + dg(4, unconfirmed(invoke(V["bp_report"], 0x56)))
    + dg(5, V["ws_report"])
    + dg(5, invoke(V["ws_report"], 0x1237))
    + dg(5, invoke(V["ws_report"], 0x1238))
    + dg(4, invoke(V["bp_report"], 0x58))
    + deliv(0, how=2)
    + deliv(3)
    + CSE_ANSWERS_ALL
    + dg(0, invoke(V["bp_report"], 0x57))
    + CSE_ANSWERS_ALL,
    # a confirmed event report of a ready agent that reuses a delivered report's
    # invoke-id but is not a scan report (its configuration): not a retransmission of
    # that report, the session manager's (fuzz_iotgw found delivery.c answering it as
    # the report, with an empty event-reply-info)
    "reused-invoke-id": CLEAN
    + dg(1, V["th_aarq"])
    + dg(1, V["th_config"])
    + dg(1, V["th_get_rsp"], patch_get=True)
    + reg(1) * 3
    + dg(1, V["th_report"])
    + CSE_ANSWERS_ALL
    + again(1)
    + dg(1, invoke(V["th_config"], 0x1236))
    + dg(1, V["rlrq"]),
    # what the IN-CSE sends unasked: a stale registration answer, garbage, an ACK of
    # nothing, a reset, to both sockets
    "cse-garbage": CLEAN
    + dg(6, V["po_aarq"])
    + dg(6, V["po_get_rsp"], patch_get=True)
    + reg(6, 0, how=2)
    + reg(6, 0, how=3)
    + raw(True, bytes.fromhex("6241000108000000000000000000c1"))
    + raw(True, bytes.fromhex("70000001"))
    + raw(False, bytes.fromhex("62410001abcd"))
    + raw(False, b"\x40")
    + reg(6, 0x85)
    + reg(6, 0) * 4
    + dg(6, V["po_report"])
    + deliv(1)
    + deliv(2, newest=True)
    + CSE_ANSWERS_ALL,
    # the registrar's window: the crowd's 72 registrations start together after the
    # GET's timeout (64 in flight, 8 waiting); answered out of order, some refused
    # for now (5.00), lost, reset; timeouts; requests of sessions gone since answered
    "crowd-window": CLEAN
    + crowd(72)
    + tick(3100)
    + reg_all(1)
    + crowd_reg(70)
    + crowd_reg(3, 4)
    + reg_all(2)
    + tick(1000)
    + b"".join(reg_all(10 + i) + tick(100) for i in range(8))
    + dg(0, V["bp_aarq"])
    + tick(2000)
    + reg_all(4)
    + tick(9000)
    + reg_all(5)
    + reg_stale(6),
}


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "iotgw_seeds"
    out.mkdir(parents=True, exist_ok=True)
    for name, prog in SEEDS.items():
        (out / name).write_bytes(prog)


if __name__ == "__main__":
    main()

# SPDX-License-Identifier: BSD-3-Clause
"""twinplane-gen's phd template in pcap mode (no DPDK ports): headers and
lengths checked with scapy, every APDU decoded with phd-decode."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest
from scapy.all import IP, UDP, raw, rdpcap

from twinplane.lab.daemon import build_dir

GEN = build_dir() / "src" / "twinplane-gen"
DECODE = build_dir() / "src" / "phd-decode"
PHDSIM = build_dir() / "src" / "phd-sim"
SIG_LEN = 12
HDR = 14 + 20 + 8


def _need(*binaries: Path) -> None:
    for binary in binaries:
        if not binary.exists():
            msg = f"{binary} not built"
            if os.environ.get("CI") == "true":
                pytest.fail(msg)
            pytest.skip(msg)


def _gen(tmp_path: Path, spec: str, count: int) -> list[bytes]:
    out = tmp_path / "phd.pcap"
    subprocess.run(
        [str(GEN), "--pcap", str(out), "--count", str(count), "--stream", spec],
        check=True,
        capture_output=True,
        timeout=30,
    )
    return [raw(p) for p in rdpcap(str(out))]


def _check(frame: bytes, size: int, seq: int, dport: int = 6024) -> tuple[str, int, bytes]:
    """Headers and lengths of one frame; returns (src, sport, APDU)."""
    assert len(frame) == size - 4
    p = IP(frame[14:])
    assert frame[12:14] == b"\x08\x00"
    assert p.version == 4 and p.ihl == 5 and p.proto == 17
    udp = p[UDP]
    assert udp.dport == dport
    assert p.len == 20 + udp.len  # the datagram is the APDU only
    assert 14 + p.len + SIG_LEN <= len(frame)  # the signature rides in the Ethernet padding
    q = IP(frame[14 : 14 + p.len])
    del q.chksum
    assert IP(raw(q)).chksum == p.chksum  # header checksum right
    sig = frame[-SIG_LEN:]
    assert sig[0] == 0x74 and int.from_bytes(sig[4:8], "little") == seq
    return p.src, udp.sport, frame[HDR : 14 + p.len]


def _decode(apdus: list[bytes], config: str | None = None) -> list[dict[str, Any]]:
    argv = [str(DECODE)] + (["--config", config] if config else []) + [a.hex() for a in apdus]
    r = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stdout + r.stderr
    out = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    assert len(out) == len(apdus)
    return out


SPEC = "template phd size 128 src 10.0.1.2-10.0.1.5 sport 40000-40001 dst 10.0.1.1"
IDS = [(f"10.0.1.{2 + i // 2}", 40000 + i % 2) for i in range(8)]  # sport fastest


@pytest.mark.parametrize("kind", ["report", "report-unconfirmed", "aarq", "rlrq", "churn"])
def test_phd_kinds(tmp_path: Path, kind: str) -> None:
    _need(GEN, DECODE)
    frames = _gen(tmp_path, f"{SPEC} kind {kind}", 20)
    assert len(frames) == 20
    checked = [_check(f, 128, i) for i, f in enumerate(frames)]
    for f, (_, _, a) in zip(frames, checked, strict=True):
        assert not any(f[HDR + len(a) : -SIG_LEN])  # zero padding
    js = _decode([a for _, _, a in checked])
    for i, ((src, sport, _), j) in enumerate(zip(checked, js, strict=True)):
        if kind == "churn":
            assert (src, sport) == IDS[(i // 2) % 8]
            assert j["apdu"] == ("RLRQ" if i % 2 else "AARQ")
            continue
        assert (src, sport) == IDS[i % 8]
        if kind.startswith("report"):
            assert j["apdu"] == "PRST"
            assert j["invoke_id"] == i
            m = j["message"]
            assert m["choice"] == ("0x0101" if kind == "report" else "0x0100")
            assert m["event_type_name"] == "MDC_NOTI_SCAN_REPORT_FIXED"
        elif kind == "aarq":
            assert j["apdu"] == "AARQ"
            info = j["data_protos"][0]["phd_association_information"]
            # the endpoint's: "\x02tpg", the address's low 16 bits, the port
            _, _, c, d = (int(x) for x in src.split("."))
            want = bytes([2, 0x74, 0x70, 0x67, c, d]) + sport.to_bytes(2, "big")
            assert info["system_id"] == want.hex()
        else:
            assert j["apdu"] == "RLRQ"


def _phdsim_config(device: str) -> str:
    """The configuration report phd-sim sends for device, as hex: play a manager
    that answers its AARQ with accepted-unknown-config."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    s.settimeout(5)
    port = s.getsockname()[1]
    p = subprocess.Popen(
        [
            str(PHDSIM),
            "--type",
            device,
            "--gw",
            f"127.0.0.1:{port}",
            "--reports",
            "0",
            "--no-release",
            "--timeout",
            "2000",
        ],
        stdout=subprocess.DEVNULL,
    )
    try:
        aarq, peer = s.recvfrom(2048)
        assert aarq[:2] == b"\xe2\x00"
        # AARQ: tag len assoc-version(4) list count(2) len(2) | proto id(2) len(2) info
        info_len = int.from_bytes(aarq[14:16], "big")
        info = aarq[16 : 16 + info_len]
        body = (3).to_bytes(2, "big") + aarq[12:16] + info  # accepted-unknown-config
        s.sendto(b"\xe3\x00" + len(body).to_bytes(2, "big") + body, peer)
        cfg, _ = s.recvfrom(2048)
        return cfg.hex()
    finally:
        p.kill()
        p.wait(5)
        s.close()


@pytest.mark.parametrize("device", ["activity-monitor", "medication-monitor"])
def test_phd_extended_devices_follow_phd_sims_configuration(tmp_path: Path, device: str) -> None:
    _need(GEN, DECODE, PHDSIM)
    config = _phdsim_config(device)
    frames = _gen(tmp_path, f"template phd size 200 device {device} sport 5000-5002", 6)
    checked = [_check(f, 200, i) for i, f in enumerate(frames)]
    js = _decode([a for _, _, a in checked], config)
    for i, j in enumerate(js):
        assert j["apdu"] == "PRST" and j["invoke_id"] == i
        assert "error" not in json.dumps(j)


def test_phd_compound_observations_carry_the_devices_readings(tmp_path: Path) -> None:
    """The generator builds its reports with phd-sim's builder (tp_phd_device_scan_report,
    proto/phd_devices.c): blood pressure's compound observation carries systolic,
    diastolic and mean of agent i, as phd-sim sends them (zeros before the merge)."""
    _need(GEN, DECODE)
    spec = "template phd size 200 device blood-pressure src 10.0.1.2-10.0.1.4"
    aarq = _check(_gen(tmp_path, f"{spec} kind aarq", 1)[0], 200, 0)[2]
    frames = _gen(tmp_path, spec, 3)
    js = _decode([aarq] + [_check(f, 200, i)[2] for i, f in enumerate(frames)])
    assert js[0]["standard_config"] == "IEEE 11073-10407 blood pressure monitor"
    for i, j in enumerate(js[1:]):
        bp, pulse = j["message"]["scan_report"]["observations"]
        sys_, dia = 118 + i % 9, 76 + i % 7
        comps = bp["attributes"][0]["components"]
        assert [(c["label"], c["value"]) for c in comps] == [
            ("systolic", sys_), ("diastolic", dia),
            ("mean-arterial-pressure", int(dia + (sys_ - dia) / 3 + 0.5)),
        ]  # fmt: skip
        assert pulse["attributes"][0]["value"] == 62 + i * 3 % 20


def test_phd_size_too_small_names_the_minimum(tmp_path: Path) -> None:
    _need(GEN)
    r = subprocess.run(
        [
            str(GEN),
            "--pcap",
            str(tmp_path / "x.pcap"),
            "--count",
            "1",
            "--stream",
            "template phd size 128 device activity-monitor",
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode != 0
    assert "144 to 9004 bytes" in r.stderr

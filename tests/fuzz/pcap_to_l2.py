# SPDX-License-Identifier: BSD-3-Clause
"""A Linux bridge's traffic (tests/fuzz/capture_l2_bridge.sh's pcaps) as fuzz_l2
programs (tests/fuzz/fuzz_l2.c's records): every frame a port received, in time
order, as a raw frame (op 0) on its fuzz port, the learn events applied (op 4)
after every 8 frames and where the capture paused, the clock moved (op 5) by the
pauses longer than a second. make_seeds.py l2 writes them to l2_seeds.txt, beside
the scapy-made programs; alone:

    python tests/fuzz/pcap_to_l2.py [DIR]   (name and hex lines)
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

L2_RAW, L2_DRAIN, L2_CLOCK = 0, 4, 5
DIR = Path(__file__).resolve().parent / "l2_linux_bridge"
# the captures' files and the fuzz port each one's frames arrive on; the bridge's own
# BPDUs (stp.pcap) come in on p2, the trunk, as a neighbour Linux bridge's
FILES = {"p0.pcap": 0, "p1.pcap": 1, "p2.pcap": 2, "stp.pcap": 2}
BPDU, LLDP = bytes.fromhex("0180c2000000"), bytes.fromhex("0180c200000e")
H0 = bytes.fromhex("020000000010")  # host h0's MAC, which h1 takes


def read_pcap(path: Path) -> list[tuple[float, bytes]]:
    """The frames of a classic pcap file of Ethernet frames: (time, bytes)."""
    b = path.read_bytes()
    if len(b) < 24:
        return []
    magic = b[:4]
    end = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    frac = 1e-9 if magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d") else 1e-6
    (link,) = struct.unpack(end + "I", b[20:24])
    if link != 1:
        raise ValueError(f"{path}: link type {link}, not Ethernet")
    out, off = [], 24
    while off + 16 <= len(b):
        sec, sub, incl, _ = struct.unpack(end + "IIII", b[off : off + 16])
        off += 16
        out.append((sec + sub * frac, b[off : off + incl]))
        off += incl
    return out


def frames(d: Path = DIR) -> list[tuple[float, int, bytes]]:
    """Every frame of the captures in d: (time, fuzz port, bytes), in time order."""
    out = []
    for name, port in FILES.items():
        if (d / name).exists():
            out += [(t, port, f) for t, f in read_pcap(d / name)]
    return sorted(out, key=lambda x: x[0])


def program(topo: bytes, evs: list[tuple[float, int, bytes]]) -> bytes:
    """topo, then the frames evs as fuzz_l2 records."""
    out, last, n = bytearray(topo), None, 0
    for t, port, f in evs:
        if last is not None and t - last > 0.2:
            out.append(L2_DRAIN)
            if t - last > 1:  # the clock moves by STEP + 1 eighths of a second
                out += bytes([L2_CLOCK, min(255, int((t - last) * 8) - 1)])
        last = t
        out += bytes([L2_RAW, port]) + struct.pack(">H", len(f)) + f
        n += 1
        if n % 8 == 0:
            out.append(L2_DRAIN)
    return bytes(out + bytes([L2_DRAIN]))


def programs(topo: bytes, d: Path = DIR) -> dict[str, bytes]:
    """The seeds: the whole capture; its control frames alone (STP BPDUs, LLDP); from
    the MAC move on (h0's MAC heard on h1's port, p2)."""
    evs = frames(d)
    if not evs:
        return {}
    ctl = [e for e in evs if e[2][:6] in (BPDU, LLDP)]
    move = [i for i, e in enumerate(evs) if e[1] == 2 and e[2][6:12] == H0]
    out = {"linux_bridge": program(topo, evs), "linux_bridge_stp_lldp": program(topo, ctl)}
    if move:
        out["linux_bridge_move"] = program(topo, evs[move[0] :])
    return out


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from make_seeds import L2_TOPO

    for name, prog in programs(L2_TOPO, Path(sys.argv[1]) if len(sys.argv) > 1 else DIR).items():
        print(name, prog.hex())

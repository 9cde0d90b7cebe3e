# SPDX-License-Identifier: BSD-3-Clause
"""The benchmarks' in-memory input: frames from twinplane-gen's templates, in a pcap.

The frames come from the generator's own ``ip4-udp`` template (``twinplane-gen
--pcap``), so a net_pcap replay and a live generator send the same bytes: one
codec for IPv4/UDP, in C. Every frame is 60 bytes in the capture (64 on the
wire with the FCS): Ethernet + IPv4 (TTL 64, valid header checksum) + UDP
(checksum 0, i.e. none, RFC 768) + the generator's 12-byte signature.
Destinations walk 198.18.1.1-254 and source ports 1024-1027 (the last field
fastest), so a DUT's lookup path is not served by a single cached entry.

The destination MAC defaults to the address DPDK's net_pcap PMD gives the
first pcap port it creates in a process, ``02:70:63:61:70:00`` ("\\x02pcap"
plus a per-process device index, see drivers/net/pcap).

Usable as a module (``generate``) or a script::

    python -m twinplane.bench.pcapgen OUT.pcap [--count 1024] [--dst-mac MAC]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

PCAP_PORT0_MAC = "02:70:63:61:70:00"
DEFAULT_SRC_MAC = "02:00:00:00:00:02"
DEFAULT_SRC_IP = "198.18.0.2"
DEFAULT_DST_NET = "198.18.1.0/24"
DEFAULT_DST_RANGE = "198.18.1.1-198.18.1.254"
FRAME_LEN = 60  # 64-byte Ethernet frame without its 4-byte FCS


def gen_binary() -> Path:
    build = Path(os.environ.get("TP_BUILD_DIR", Path(__file__).resolve().parents[3] / "build"))
    return Path(os.environ.get("TP_GEN", build / "src" / "twinplane-gen"))


def stream_spec(
    dst_mac: str = PCAP_PORT0_MAC,
    src_mac: str = DEFAULT_SRC_MAC,
    src_ip: str = DEFAULT_SRC_IP,
    dst_range: str = DEFAULT_DST_RANGE,
    size: int = FRAME_LEN + 4,
) -> str:
    """The generator stream these frames come from (also usable with ``stream add``)."""
    return (
        f"template ip4-udp size {size} dmac {dst_mac} smac {src_mac} "
        f"src {src_ip} dst {dst_range} sport 1024-1027 ttl 64"
    )


def write_frames(path: str, count: int, spec: str) -> None:
    res = subprocess.run(
        [str(gen_binary()), "--pcap", path, "--count", str(count), "--stream", spec],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if res.returncode != 0:
        raise RuntimeError(f"twinplane-gen --pcap failed: {res.stderr.strip()}")


def read_frames(path: str) -> list[bytes]:
    import scapy.layers.l2  # noqa: F401  (registers Ethernet for rdpcap)
    from scapy.utils import rdpcap

    return [bytes(p) for p in rdpcap(path)]


def generate(path: str, count: int = 1024, dst_mac: str = PCAP_PORT0_MAC, **kw: str) -> list[bytes]:
    """Write the frames with the generator and return them as read back."""
    write_frames(path, count, stream_spec(dst_mac=dst_mac, **kw))
    return read_frames(path)


def write_empty_pcap(path: str) -> None:
    """A pcap with a header and no packet: an rx source that never delivers."""
    write_frames(path, 0, stream_spec())


def check_frames(frames: list[bytes]) -> None:
    """Re-parse the frames and verify length, TTL, IP checksum and signature."""
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether

    for i, raw in enumerate(frames):
        pkt = Ether(raw)
        ip = pkt[IP]
        if len(raw) != FRAME_LEN or ip.ttl != 64 or pkt[UDP].chksum != 0:
            raise AssertionError(f"frame {i}: len {len(raw)} ttl {ip.ttl}")
        got = ip.chksum
        del ip.chksum
        if Ether(bytes(pkt))[IP].chksum != got:
            raise AssertionError(f"frame {i}: bad IP checksum")
        if raw[-12] != 0x74 or int.from_bytes(raw[-8:-4], "little") != i:
            raise AssertionError(f"frame {i}: no generator signature")


# IPv6 (issue 35): the generator's ip6-udp template. Destinations in l3fwd's built-in
# LPM6 route to port 1 (2001:200:0:1::/64, examples/l3fwd/main.c), walking the last
# byte; the smallest ip6-udp frame (RFC 5180's 78 B): 14 + 40 + 8 + the 12-byte signature.
DEFAULT_SRC_IP6 = "2001:200::2"
DEFAULT_DST_NET6 = "2001:200:0:1::/64"
DEFAULT_DST_RANGE6 = "2001:200:0:1::1-2001:200:0:1::fe"
FRAME_LEN6 = 74  # 78 on the wire with the FCS


def stream_spec6(
    dst_mac: str = PCAP_PORT0_MAC,
    src_mac: str = DEFAULT_SRC_MAC,
    src_ip: str = DEFAULT_SRC_IP6,
    dst_range: str = DEFAULT_DST_RANGE6,
    size: int = FRAME_LEN6 + 4,
) -> str:
    """The IPv6 twin of stream_spec: hop limit 64, source ports 1024-1027."""
    return (
        f"template ip6-udp size {size} dmac {dst_mac} smac {src_mac} "
        f"src {src_ip} dst {dst_range} sport 1024-1027 hlim 64"
    )


def generate6(
    path: str, count: int = 1024, dst_mac: str = PCAP_PORT0_MAC, **kw: str
) -> list[bytes]:
    """Write IPv6 frames with the generator and return them as read back."""
    write_frames(path, count, stream_spec6(dst_mac=dst_mac, **kw))
    return read_frames(path)


def check_frames6(frames: list[bytes]) -> None:
    """Re-parse the IPv6 frames and verify length, hop limit, the UDP checksum (scapy
    recomputes it) and the signature."""
    from scapy.layers.inet import UDP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import Ether

    for i, raw in enumerate(frames):
        pkt = Ether(raw)
        if len(raw) != FRAME_LEN6 or pkt[IPv6].hlim != 64:
            raise AssertionError(f"frame {i}: len {len(raw)} hop limit {pkt[IPv6].hlim}")
        got = pkt[UDP].chksum
        del pkt[UDP].chksum
        if Ether(bytes(pkt))[UDP].chksum != got:
            raise AssertionError(f"frame {i}: bad UDP checksum")
        if raw[-12] != 0x74 or int.from_bytes(raw[-8:-4], "little") != i:
            raise AssertionError(f"frame {i}: no generator signature")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=1024)
    ap.add_argument("--dst-mac", default=PCAP_PORT0_MAC)
    ap.add_argument("--src-mac", default=DEFAULT_SRC_MAC)
    ap.add_argument("--src-ip", default=DEFAULT_SRC_IP)
    ap.add_argument("--dst-range", default=DEFAULT_DST_RANGE)
    args = ap.parse_args(argv)
    frames = generate(
        args.out,
        count=args.count,
        dst_mac=args.dst_mac,
        src_mac=args.src_mac,
        src_ip=args.src_ip,
        dst_range=args.dst_range,
    )
    check_frames(frames)
    print(
        f"{args.out}: {len(frames)} frames of {FRAME_LEN} "
        f"bytes to {args.dst_range} via {args.dst_mac}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Generate the benchmark's input: a pcap of minimum-size IPv4/UDP frames.

Every frame is 60 bytes in the capture (64 bytes on the wire with the FCS,
which pcap files do not carry): Ethernet + IPv4 (TTL 64, valid header
checksum) + UDP (valid checksum) + 18 bytes of payload. Destinations walk
198.18.1.1-254 (the last octet varies fastest) and the UDP ports vary too, so
a DUT's lookup path is not served by a single cached entry.

The destination MAC defaults to the address DPDK's net_pcap PMD gives the
first pcap port it creates in a process, ``02:70:63:61:70:00`` ("\\x02pcap"
plus a per-process device index, see drivers/net/pcap). Both DUTs of
bench/fwd_cost.py create their input port first, so both see these exact bytes
addressed to their own port-0 MAC.

Usable as a module (``write_pcap``) or a script::

    python -m twinplane.bench.pcapgen OUT.pcap [--count 1024] [--dst-mac MAC]
"""

from __future__ import annotations

import argparse
import ipaddress
import struct
import sys

PCAP_PORT0_MAC = "02:70:63:61:70:00"
DEFAULT_SRC_MAC = "02:00:00:00:00:02"
DEFAULT_SRC_IP = "198.18.0.2"
DEFAULT_DST_NET = "198.18.1.0/24"
FRAME_LEN = 60  # 64-byte Ethernet frame without its 4-byte FCS


def build_frames(
    count: int = 1024,
    dst_mac: str = PCAP_PORT0_MAC,
    src_mac: str = DEFAULT_SRC_MAC,
    src_ip: str = DEFAULT_SRC_IP,
    dst_net: str = DEFAULT_DST_NET,
) -> list[bytes]:
    """Return ``count`` 60-byte frames as raw bytes (scapy computes checksums)."""
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    from scapy.packet import Raw

    net = ipaddress.ip_network(dst_net)
    hosts = list(net.hosts())  # 198.18.1.1 .. 198.18.1.254
    frames = []
    for i in range(count):
        dst = str(hosts[i % len(hosts)])
        sport = 1024 + (i % 4096)
        dport = 5000 + (i // len(hosts)) % 1000
        hdr = (
            Ether(dst=dst_mac, src=src_mac)
            / IP(src=src_ip, dst=dst, ttl=64, id=i & 0xFFFF)
            / UDP(sport=sport, dport=dport)
        )
        pad = FRAME_LEN - len(hdr)
        pkt = hdr / Raw(bytes((i + k) & 0xFF for k in range(pad)))
        raw = bytes(pkt)
        if len(raw) != FRAME_LEN:
            raise AssertionError(f"frame {i} is {len(raw)} bytes, expected {FRAME_LEN}")
        frames.append(raw)
    return frames


def write_pcap(path: str, frames: list[bytes]) -> None:
    """Write a classic little-endian microsecond pcap (DLT_EN10MB)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, raw in enumerate(frames):
            f.write(struct.pack("<IIII", 0, i, len(raw), len(raw)))
            f.write(raw)


def generate(
    path: str, count: int = 1024, dst_mac: str = PCAP_PORT0_MAC, **kw: str
) -> list[bytes]:
    """Build and write the frames; return them."""
    frames = build_frames(count=count, dst_mac=dst_mac, **kw)
    write_pcap(path, frames)
    return frames


def write_empty_pcap(path: str) -> None:
    """A pcap with a header and no packet: an rx source that never delivers."""
    write_pcap(path, [])


def check_frames(frames: list[bytes]) -> None:
    """Re-parse the frames and verify length, TTL and both checksums."""
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether

    for i, raw in enumerate(frames):
        pkt = Ether(raw)
        ip = pkt[IP]
        udp = pkt[UDP]
        if len(raw) != FRAME_LEN or ip.ttl != 64:
            raise AssertionError(f"frame {i}: len {len(raw)} ttl {ip.ttl}")
        got_ip, got_udp = ip.chksum, udp.chksum
        del ip.chksum
        del udp.chksum
        again = Ether(bytes(pkt))
        if again[IP].chksum != got_ip or again[UDP].chksum != got_udp:
            raise AssertionError(f"frame {i}: bad checksum")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=1024)
    ap.add_argument("--dst-mac", default=PCAP_PORT0_MAC)
    ap.add_argument("--src-mac", default=DEFAULT_SRC_MAC)
    ap.add_argument("--src-ip", default=DEFAULT_SRC_IP)
    ap.add_argument("--dst-net", default=DEFAULT_DST_NET)
    args = ap.parse_args(argv)
    frames = generate(
        args.out,
        count=args.count,
        dst_mac=args.dst_mac,
        src_mac=args.src_mac,
        src_ip=args.src_ip,
        dst_net=args.dst_net,
    )
    check_frames(frames)
    print(
        f"{args.out}: {len(frames)} frames of {FRAME_LEN} bytes to {args.dst_net} via {args.dst_mac}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

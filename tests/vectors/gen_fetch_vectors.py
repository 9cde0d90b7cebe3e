# SPDX-License-Identifier: BSD-3-Clause
"""Capture the downloader's test vectors from real implementations: nginx's responses
(Content-Length, chunked, 206 with Content-Range, 302, 404) read raw from a kernel
socket, and Linux's TCP segments (its SYN-ACK, a data segment) with their addresses,
from the FetchLab. Writes tests/unit/fetch_vectors.h and tests/fuzz/fetch_seeds.txt.

    flock /tmp/tp-lab.lock .venv/bin/python tests/vectors/gen_fetch_vectors.py
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

from scapy.layers.inet import IP, TCP
from scapy.utils import rdpcap

from twinplane.lab.fetch import SERVER, FetchLab

ROOT = Path(__file__).resolve().parents[2]
TEXT = b"".join(b"%04d the quick brown fox jumps over the lazy dog\n" % i for i in range(60))


def raw_get(lab: FetchLab, request: bytes) -> bytes:
    """Send request from the router namespace; everything nginx answers until it closes."""
    with lab.ns["r"].context():
        s = socket.create_connection((SERVER, 80), timeout=5)
    with s:
        s.sendall(request)
        chunks = []
        while data := s.recv(65536):
            chunks.append(data)
    return b"".join(chunks)


def get(path: str, extra: str = "") -> bytes:
    return (
        f"GET {path} HTTP/1.1\r\nHost: {SERVER}\r\nUser-Agent: vectors\r\n{extra}"
        "Connection: close\r\n\r\n"
    ).encode()


def c_array(name: str, data: bytes) -> str:
    lines = [f"static const uint8_t {name}[] = {{"]
    for i in range(0, len(data), 12):
        lines.append("\t" + " ".join(f"0x{b:02x}," for b in data[i : i + 12]))
    lines.append("};")
    return "\n".join(lines)


def nginx_version() -> str:
    out = subprocess.run(["nginx", "-v"], capture_output=True, text=True).stderr
    return out.strip().split(": ")[-1]


def octets(addr: str) -> str:
    return ", ".join(str(int(x)) for x in addr.split("."))


def main() -> int:
    with FetchLab() as lab:
        (lab.www / "vec.txt").write_bytes(TEXT)
        responses = {
            "nginx_length": raw_get(lab, get("/vec.txt")),
            "nginx_chunked": raw_get(lab, get("/chunked/vec.txt")),
            "nginx_range": raw_get(lab, get("/vec.txt", "Range: bytes=10-99\r\n")),
            "nginx_redirect": raw_get(lab, get("/redirect")),
            "nginx_404": raw_get(lab, get("/nope")),
        }
        pcap = lab.workdir / "tcp.pcap"
        dump = subprocess.Popen(
            ["ip", "netns", "exec", lab.ns["r"].name, "tcpdump", "-i", "r1", "-w", str(pcap),
             "-U", "tcp port 80"],
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        time.sleep(1.0)
        raw_get(lab, get("/vec.txt"))
        time.sleep(0.5)
        dump.terminate()
        dump.wait()
        pkts = [p for p in rdpcap(str(pcap)) if TCP in p]
    synack = next(p for p in pkts if p[TCP].flags == "SA")
    data = next(p for p in pkts if p[IP].src == SERVER and len(p[TCP].payload) > 0)
    out = [
        "/* SPDX-License-Identifier: BSD-3-Clause */",
        f"/* Test vectors of twinplane-fetch, captured from {nginx_version()} and Linux's TCP",
        " * by tests/vectors/gen_fetch_vectors.py: do not edit. */",
        "#ifndef TP_TEST_FETCH_VECTORS_H",
        "#define TP_TEST_FETCH_VECTORS_H",
        "",
        "#include <stdint.h>",
        "",
        "/* the file nginx served */",
        c_array("vec_text", TEXT),
    ]
    for name, data_ in responses.items():
        out += ["", c_array(name, data_)]
    for name, p in (("linux_synack", synack), ("linux_data", data)):
        seg = bytes(p[TCP])
        out += [
            "",
            f"/* {p.summary()} */",
            c_array(name, seg),
            f"static const uint8_t {name}_src[4] = {{{octets(p[IP].src)}}};",
            f"static const uint8_t {name}_dst[4] = {{{octets(p[IP].dst)}}};",
        ]
    out += ["", "#endif", ""]
    header = ROOT / "tests/unit/fetch_vectors.h"
    header.write_text("\n".join(out))
    subprocess.run(["clang-format", "-i", str(header)], check=True)  # the project's style
    seeds = [
        "# Seed inputs for tests/fuzz/fuzz_fetch.c: tests/unit/fetch_vectors.h (nginx and",
        "# Linux, tests/vectors/gen_fetch_vectors.py), one a line: name and hex; the first",
        "# byte picks the parser (0 HTTP, 1 URL, 2 TCP); for HTTP the next one the split.",
    ]
    for name, data_ in responses.items():
        seeds.append(f"{name} 00{7:02x}{data_.hex()}")
    seeds.append(f"url_relative 01{b'../d/./e?x=1#f'.hex()}")
    seeds.append(f"url_absolute 01{b'http://10.1.2.3:81/p'.hex()}")
    seeds.append(f"tcp_synack 02{bytes(synack[TCP]).hex()}")
    seeds.append(f"tcp_data 02{bytes(data[TCP])[:64].hex()}")
    (ROOT / "tests/fuzz/fetch_seeds.txt").write_text("\n".join(seeds) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

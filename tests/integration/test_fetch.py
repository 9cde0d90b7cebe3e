# SPDX-License-Identifier: BSD-3-Clause
"""twinplane-fetch (issue 13) against nginx through a Linux router: the downloader on
net_af_xdp over a veth, its own ARP/IPv4/TCP. Files must arrive byte-identical (the
SHA-256 of the file on disk, not only the one the downloader reports); failures must
be reported with their own exit status and message."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from twinplane.lab.fetch import (
    SERVER,
    FetchLab,
    FetchResult,
    fetch_binary,
    nginx_binary,
)
from twinplane.lab.fetch import (
    testdut_binary as dut_binary,
)

BIG = 128 << 20  # the large file: ~1 s on this machine's veth
LOSSY = 48 << 20
GIANT = 1 << 30  # issue 13's 1 GB file: ~10 s
FETCH_BURST = 32  # src/fetch/net.h: frames received per poll
TCP_ACK_STRETCH = 44  # src/fetch/tcp.h: segments that make an ACK due at a burst's end
# the server's copy and the download side by side, and room for the rest of the system
GIANT_DISK = 2 * GIANT + (1 << 30)


def _need() -> None:
    missing = []
    if not fetch_binary().exists():
        missing.append(f"{fetch_binary()} not built")
    if nginx_binary() is None:
        missing.append("nginx not installed (scripts/setup.sh)")
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail("; ".join(missing))
        pytest.skip("; ".join(missing))


@pytest.fixture(scope="module")
def lab() -> Iterator[FetchLab]:
    """One lab for the module (namespaces, router, nginx), with its files."""
    _need()
    with FetchLab() as lab:
        lab.add_file("small.bin", 100_003)
        lab.add_file("empty.bin", 0)
        lab.add_file("big.bin", BIG)
        lab.add_file("lossy.bin", LOSSY)
        lab.add_file("slow.bin", 16 << 20)
        yield lab


def fetch(lab: FetchLab, url: str, out: str, *extra: str, timeout: float = 120) -> FetchResult:
    res = lab.fetch(url, out, *extra, timeout=timeout)
    assert isinstance(res, FetchResult)
    assert res.summary, f"no JSON summary\n{res}"
    return res


def counters(res: FetchResult) -> dict[str, Any]:
    c: dict[str, Any] = res.summary["counters"]
    return c


def assert_identical(lab: FetchLab, res: FetchResult, name: str, out: str) -> None:
    """Exit 0, every byte there: the file on disk hashes to the server's file."""
    assert res.returncode == 0, str(res)
    size = (lab.www / name).stat().st_size
    path = lab.out / out
    assert path.stat().st_size == size
    assert FetchLab.file_sha256(path) == lab.sha256(name)
    assert res.summary["sha256"] == lab.sha256(name)
    assert res.summary["bytes"] + res.summary["resumed_from"] == size
    assert res.summary["written"] == res.summary["bytes"]
    assert res.summary["error"] is None
    # mbufs out beyond the rx ring's at the end: af_xdp's last transmitted frame
    assert res.summary["mbufs_outstanding"] <= 1


def test_small_file(lab: FetchLab) -> None:
    res = fetch(lab, f"http://{SERVER}/small.bin", "small.bin")
    assert_identical(lab, res, "small.bin", "small.bin")
    assert res.summary["status"] == 200 and res.summary["framing"] == "length"
    c = counters(res)
    # it resolved the gateway itself and dropped nothing
    assert c["arp_requests_sent"] >= 1 and c["arp_learned"] >= 1
    assert all(v == 0 for k, v in c.items() if k.startswith("drop_")), c
    # nginx saw our request, with a Host header of the URL's
    log = (lab.nginx.dir / "access.log").read_text()
    assert '"GET /small.bin HTTP/1.1" 200 100003' in log


def test_empty_file(lab: FetchLab) -> None:
    res = fetch(lab, f"http://{SERVER}/empty.bin", "empty.bin")
    assert_identical(lab, res, "empty.bin", "empty.bin")


def test_large_file_identical(lab: FetchLab) -> None:
    res = fetch(lab, f"http://{SERVER}/big.bin", "big.bin", "--sha256", lab.sha256("big.bin"))
    assert_identical(lab, res, "big.bin", "big.bin")
    assert res.summary["goodput_bps"] > 0 and res.summary["seconds"] > 0
    c = counters(res)
    assert c["tcp_segments_in"] >= BIG // 1460
    # stretch ACKs (RFC 5681 4.2, stretched as Linux's per GRO batch): due at the end of
    # the burst in which TCP_ACK_STRETCH segments wait, or when the flow pauses; an ACK
    # covers at most TCP_ACK_STRETCH - 1 waiting and a whole burst
    assert c["tcp_acks_sent"] >= c["tcp_segments_in"] // (TCP_ACK_STRETCH + FETCH_BURST - 1) - 1
    assert res.summary["file_writes"] > 0


def takes_direct(d: Path) -> bool:
    """Whether twinplane-fetch writes files in ``d`` with O_DIRECT: not on tmpfs (there
    it is the page cache all the same), and only where the file system takes it."""
    fs = subprocess.run(
        ["stat", "-f", "-c", "%T", str(d)], capture_output=True, text=True, check=True
    ).stdout.strip()
    if fs in ("tmpfs", "ramfs"):
        return False
    probe = d / ".direct-probe"
    try:
        os.close(os.open(probe, os.O_CREAT | os.O_WRONLY | os.O_DIRECT, 0o644))
    except OSError:
        return False
    finally:
        probe.unlink(missing_ok=True)
    return True


def test_large_file_direct(lab: FetchLab) -> None:
    """On a block device's file system the body goes to the file with O_DIRECT, from
    1 MiB aligned buffers: all of it but the last partial 4 KiB block, which goes
    through the page cache; on tmpfs (O_DIRECT would be a second copy) all of it
    through the page cache, by pwritev from the mbufs."""
    res = fetch(lab, f"http://{SERVER}/big.bin", "direct.bin", "--no-digest")
    assert res.returncode == 0, str(res)
    assert FetchLab.file_sha256(lab.out / "direct.bin") == lab.sha256("big.bin")
    if not takes_direct(lab.out):
        assert res.summary["direct"] == "off" and res.summary["direct_bytes"] == 0
    else:
        assert res.summary["direct"] == "on", res.summary
        assert res.summary["direct_bytes"] == BIG // 4096 * 4096
        assert res.summary["file_writes"] >= BIG // (1 << 20)


@pytest.mark.parametrize(
    "how",
    ["no-direct", "tmpfs", "direct-4-ranges"],
)
def test_write_paths(lab: FetchLab, how: str) -> None:
    """Every way the body reaches the file gives the server's bytes: through the page
    cache (--no-direct, or a file on tmpfs); O_DIRECT with 4 ranges whose ends are not
    4 KiB aligned (each part's unaligned head and tail through the page cache, beside
    the O_DIRECT writes of the parts' aligned middles)."""
    extra: list[str] = []
    out: Path = lab.out / f"paths-{how}.bin"
    shm = None
    if how == "no-direct":
        extra = ["--no-direct"]
    elif how == "tmpfs":
        shm = Path("/dev/shm") / f"tp-fetch-test-{os.getpid()}"
        shm.mkdir(exist_ok=True)
        out = shm / "paths.bin"
    if how.endswith("4-ranges"):
        extra += ["--connections", "4"]
    try:
        res = fetch(lab, f"http://{SERVER}/big.bin", str(out), *extra)
        assert res.returncode == 0, str(res)
        assert out.stat().st_size == BIG
        assert FetchLab.file_sha256(out) == lab.sha256("big.bin") == res.summary["sha256"]
        assert res.summary["written"] == BIG and res.summary["mbufs_outstanding"] <= 1
        direct_fs = takes_direct(out.parent)
        s = res.summary
        if how in ("no-direct", "tmpfs") or not direct_fs:
            assert s["direct"] == "off" and s["direct_bytes"] == 0, s
        else:
            assert s["direct"] == "on" and s["connections"] == 4, s
            # each part's unaligned head and tail, under 4 KiB each, and the probe's byte
            assert BIG - 8 * 4096 <= s["direct_bytes"] < BIG, s
    finally:
        out.unlink(missing_ok=True)
        if shm is not None:
            shutil.rmtree(shm, ignore_errors=True)


def test_no_digest(lab: FetchLab) -> None:
    """--no-digest (as curl and wget): the same bytes on disk, no SHA-256 computed."""
    res = fetch(lab, f"http://{SERVER}/small.bin", "nodigest.bin", "--no-digest")
    assert res.returncode == 0, str(res)
    assert res.summary["digest"] is False and res.summary["sha256"] is None
    assert FetchLab.file_sha256(lab.out / "nodigest.bin") == lab.sha256("small.bin")
    assert res.summary["bytes"] == res.summary["written"] == 100_003


def test_1gb_file_identical(lab: FetchLab) -> None:
    """1 GiB (issue 13): generated in the lab for this test, both copies deleted after.
    The file on disk hashes to the server's; nginx logged the whole body sent."""
    free = shutil.disk_usage(lab.workdir).free
    if free < GIANT_DISK:
        pytest.skip(
            f"{lab.workdir}: {free / 2**30:.1f} GiB free, the 1 GiB test needs "
            f"{GIANT_DISK / 2**30:.0f} GiB (server copy, download, margin)"
        )
    out = lab.out / "giant.bin"
    try:
        digest = lab.add_file("giant.bin", GIANT, seed=1)
        res = fetch(lab, f"http://{SERVER}/giant.bin", "giant.bin", "--sha256", digest,
                    timeout=300)  # fmt: skip
        assert_identical(lab, res, "giant.bin", "giant.bin")
        assert res.summary["framing"] == "length" and res.summary["status"] == 200
        c = counters(res)
        assert c["tcp_segments_in"] >= GIANT // 1460
        # nothing malformed on a clean wire; 1 GiB under a loaded CI host may lose
        # frames at the rx ring, and what the recovery brings (a segment outside the
        # window, an old timestamp, a full out-of-order queue) is counted, not failed
        drops = {k: v for k, v in c.items() if k.startswith("drop_") and v}
        recovery = {"drop_tcp_window", "drop_tcp_paws", "drop_tcp_ooo_full",
                    "drop_tcp_ooo_budget", "drop_tcp_ack_old", "drop_tcp_no_conn"}  # fmt: skip
        assert set(drops) <= recovery, drops
        log = (lab.nginx.dir / "access.log").read_text()
        assert f'"GET /giant.bin HTTP/1.1" 200 {GIANT}' in log
    finally:
        out.unlink(missing_ok=True)
        (lab.www / "giant.bin").unlink(missing_ok=True)


def test_four_parallel_ranges(lab: FetchLab) -> None:
    """--connections 4: a one-byte Range learns the size, its connection (kept alive)
    and three more take a quarter each; the file and the digest come out whole."""
    log = lab.nginx.dir / "access.log"
    before = len(log.read_text().splitlines())
    res = fetch(lab, f"http://{SERVER}/big.bin", "parallel.bin", "--connections", "4")
    assert_identical(lab, res, "big.bin", "parallel.bin")
    assert res.summary["connections"] == 4 and res.summary["status"] == 206
    lines = log.read_text().splitlines()[before:]
    sizes = sorted(int(ln.split('" 206 ')[1].split()[0]) for ln in lines if '" 206 ' in ln)
    assert len(sizes) == 5 and sizes[0] == 1, lines  # the probe, then 4 parts
    assert sum(sizes) == BIG
    assert max(sizes) - min(sizes[1:]) <= 4  # even parts


def test_sha256_mismatch(lab: FetchLab) -> None:
    wrong = "0" * 64
    res = fetch(lab, f"http://{SERVER}/small.bin", "mismatch.bin", "--sha256", wrong)
    assert res.returncode == 9, str(res)
    assert "SHA-256 mismatch" in res.stderr and lab.sha256("small.bin") in res.stderr


def test_chunked(lab: FetchLab) -> None:
    res = fetch(lab, f"http://{SERVER}/chunked/big.bin", "chunked.bin")
    assert res.summary["framing"] == "chunked"
    assert_identical(lab, res, "big.bin", "chunked.bin")


def test_404(lab: FetchLab) -> None:
    res = fetch(lab, f"http://{SERVER}/nope.bin", "nope.bin")
    assert res.returncode == 8, str(res)
    assert res.summary["status"] == 404
    assert "404 Not Found" in res.stderr
    assert not (lab.out / "nope.bin").exists()  # no file for an error


def test_refused_port(lab: FetchLab) -> None:
    res = fetch(lab, f"http://{SERVER}:81/small.bin", "refused.bin")
    assert res.returncode == 4, str(res)
    assert "refused" in res.stderr
    assert counters(res)["tcp_rst_rcvd"] == 1


# load-sensitive (a timeout within a time window): reruns once
@pytest.mark.flaky(reruns=1, reruns_delay=3)
def test_timeout_with_syn_retransmissions(lab: FetchLab) -> None:
    lab.run("r", ["nft", "add table ip tpblack"])
    try:
        lab.run(
            "r",
            [
                "nft",
                "add chain ip tpblack f { type filter hook forward priority 0; tcp dport 9 drop; }",
            ],
        )
        t0 = time.monotonic()
        res = fetch(lab, f"http://{SERVER}:9/x", "timeout.bin", "--timeout", "3")
        took = time.monotonic() - t0
    finally:
        lab.run("r", ["nft", "delete table ip tpblack"])
    assert res.returncode == 4, str(res)
    assert "timed out" in res.stderr
    # RFC 6298: the SYN again after 1 s, then 2 s later
    assert res.summary["retransmissions"] >= 1
    assert 3 <= took < 20


def test_host_unreachable(lab: FetchLab) -> None:
    """A server address no one has: the router's ARP fails and it answers our SYNs with
    ICMP host unreachable, which the failure names (a soft error, RFC 1122 4.2.3.9)."""
    res = fetch(lab, "http://10.0.2.99/x", "unreachable.bin", "--timeout", "5")
    assert res.returncode == 4, str(res)
    assert "unreachable" in res.stderr and "code 1" in res.stderr, res.stderr
    assert counters(res)["icmp_errors"] >= 1


def test_redirects(lab: FetchLab) -> None:
    res = fetch(lab, f"http://{SERVER}/redirect", "redirected.bin")
    assert_identical(lab, res, "small.bin", "redirected.bin")
    assert res.summary["redirects"] == 1
    assert res.summary["final_url"] == f"http://{SERVER}/small.bin"
    res = fetch(lab, f"http://{SERVER}/redirect-abs", "redirected2.bin")
    assert_identical(lab, res, "small.bin", "redirected2.bin")
    assert res.summary["final_url"] == f"http://{SERVER}:8080/small.bin"
    res = fetch(lab, f"http://{SERVER}/loop", "loop.bin", "--max-redirect", "3")
    assert res.returncode == 7, str(res)
    assert "too many redirects (3)" in res.stderr


def test_server_closes_early_and_ping(lab: FetchLab) -> None:
    """nginx sends slow.bin at 2 MB/s and is stopped after a second: the short body is
    reported (exit 5). Meanwhile the router pings the downloader, which answers (and
    answered the router's ARP)."""
    proc = lab.fetch(f"http://{SERVER}/slow/slow.bin", "slow.bin", background=True)
    assert isinstance(proc, subprocess.Popen)
    try:
        time.sleep(0.5)
        # the router forgets our MAC (learned from our own request): it must ask
        lab.run("r", ["ip", "neigh", "flush", "dev", "r0"])
        ping = lab.ns["r"].run(["ping", "-n", "-c", "3", "-i", "0.2", "-W", "1", "10.0.1.2"])
        assert " 0% packet loss" in ping.stdout, ping.stdout
        time.sleep(0.5)
        lab.nginx.stop()
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        lab.start_nginx()
    res = FetchLab.result(proc.args, proc.returncode, out, err, 0)
    assert res.returncode == 5, str(res)
    assert "short body" in res.stderr
    size = 16 << 20
    assert 0 < res.summary["bytes"] < size
    assert f"of {size} body bytes" in res.stderr
    c = counters(res)
    assert c["icmp_echo_replies"] >= 3
    assert c["arp_replies_sent"] >= 1


def test_resume_after_interruption(lab: FetchLab) -> None:
    """A download stopped by SIGINT leaves a partial file; --continue asks for the rest
    (Range), and the whole file hashes right; a third run finds nothing to do (416)."""
    size = 16 << 20
    proc = lab.fetch(f"http://{SERVER}/slow/slow.bin", "resume.bin", background=True)
    assert isinstance(proc, subprocess.Popen)
    try:
        partial = lab.out / "resume.bin"
        lab.wait_until(lambda: partial.exists() and partial.stat().st_size > (1 << 20), timeout=10)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    first = FetchLab.result(proc.args, proc.returncode, out, err, 0)
    assert first.returncode == 4 and "interrupted" in first.stderr, str(first)
    assert first.summary["mbufs_outstanding"] <= 1
    have = partial.stat().st_size
    assert 0 < have < size and have == first.summary["written"]

    res = fetch(lab, f"http://{SERVER}/slow.bin", "resume.bin", "--continue")
    assert_identical(lab, res, "slow.bin", "resume.bin")
    assert res.summary["status"] == 206
    assert res.summary["resumed_from"] == have
    if takes_direct(lab.out):
        # from an offset that is not 4 KiB aligned: the head to the next boundary
        # through the page cache, then O_DIRECT, the tail through the page cache again
        assert have % 4096 or res.summary["direct_bytes"] > 0
        assert 0 < res.summary["direct_bytes"] <= size - have, res.summary
    assert res.summary["bytes"] == res.summary["written"] == size - have
    assert (
        f'"GET /slow.bin HTTP/1.1" 206 {size - have}' in (lab.nginx.dir / "access.log").read_text()
    )

    again = fetch(lab, f"http://{SERVER}/slow.bin", "resume.bin", "--continue")
    assert again.returncode == 0, str(again)
    assert again.summary["status"] == 416 and again.summary["bytes"] == 0
    assert again.summary["sha256"] == lab.sha256("slow.bin")
    assert FetchLab.file_sha256(partial) == lab.sha256("slow.bin")


@pytest.mark.parametrize("connections", [1, 4])
def test_loss_and_duplication(lab: FetchLab, connections: int) -> None:
    """1 % of the server's packets dropped and 1 % duplicated by nftables on the
    router: the file still arrives whole, over one connection or four ranges; the
    out-of-order queue and duplicates show in the counters."""
    out = f"lossy{connections}.bin"
    lab.impair(drop_pct=1.0, dup_pct=1.0)
    try:
        res = fetch(
            lab, f"http://{SERVER}/lossy.bin", out, "--connections", str(connections), timeout=180
        )
    finally:
        lab.impair_off()
    assert_identical(lab, res, "lossy.bin", out)
    assert res.summary["connections"] == connections
    assert res.summary["out_of_order"] > 0 and res.summary["duplicates"] > 0
    assert counters(res)["tcp_ooo"] == res.summary["out_of_order"]


def test_bad_command_lines() -> None:
    _need()
    binary = str(fetch_binary())
    for argv, why in (
        ([binary, "--port", "net_null0", "--addr", "10.0.0.1/24", "ftp://x/"], "http://"),
        ([binary, "--port", "net_null0", "--addr", "10.0.0.1/24", "http://host/"], "DNS"),
        ([binary, "--port", "net_null0", "--addr", "10.0.0.1", "http://1.2.3.4/"], "--addr"),
        ([binary, "--addr", "10.0.0.1/24", "http://1.2.3.4/"], "--port"),
        (
            [binary, "--port", "n", "--addr", "10.0.0.1/24", "--gw", "9.9.9.9", "http://1.2.3.4"],
            "--gw",
        ),
        (
            [
                binary,
                "--port",
                "n",
                "--addr",
                "10.0.0.1/24",
                "--no-digest",
                "--sha256",
                "a" * 64,
                "http://1.2.3.4/",
            ],
            "--no-digest",
        ),
        (
            [binary, "-p", "n", "-a", "10.0.0.1/24", "--connections=99", "http://1.2.3.4/"],
            "bad value '99' for --connections",
        ),
    ):
        res = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
        assert res.returncode == 2, (argv, res.stderr)
        assert why in res.stderr, (argv, res.stderr)


def test_off_subnet_without_gateway(tmp_path: Path) -> None:
    """Checked before any packet: a clear error, not a timeout."""
    _need()
    res = subprocess.run(
        [
            str(fetch_binary()),
            "--name",
            f"tpfgw{os.getpid()}",
            "--no-huge",
            "--port",
            "net_null0",
            "--addr",
            "10.0.0.1/24",
            "http://10.9.9.9/x",
            "-o",
            str(tmp_path / "x"),
        ],  # fmt: skip
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert res.returncode == 2, res.stderr
    assert "no --gw" in res.stderr


@pytest.mark.parametrize("connections", [1, 4])
def test_reordering_loss_and_duplication(connections: int) -> None:
    """The project's impairment element (tests/tools/tp-testdut) between the client
    and the router drops every 100th frame and swaps every 50th with its neighbour,
    both ways; nftables on the router duplicates 1 % towards the client. The file
    arrives whole."""
    _need()
    if not dut_binary().exists():
        pytest.fail(f"{dut_binary()} not built")
    dut = ["--drop-every", "100", "--swap-every", "50"]
    with FetchLab(dut=dut) as lab:
        lab.add_file("reorder.bin", 32 << 20)
        lab.impair(dup_pct=1.0)
        res = fetch(lab, f"http://{SERVER}/reorder.bin", "reorder.bin", "--connections",
                    str(connections))  # fmt: skip
        assert_identical(lab, res, "reorder.bin", "reorder.bin")
        assert res.summary["out_of_order"] > 0 and res.summary["duplicates"] > 0
        lab.dut.stop()
        tail = (lab.workdir / "testdut.out").read_text()
        dropped = int(tail.rsplit("dropped ", 1)[1].split()[0])
        assert dropped > 0


# A misbehaving server (review N16) on SERVER:9000 in the server's namespace: each
# connection's request is appended to LOG, then answered as MODE says.
BAD_SERVER = r"""
import socket, sys, time
mode, log = sys.argv[1], sys.argv[2]
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("10.0.2.2", 9000))
ls.listen(4)
print("listening", flush=True)
while True:
    c, _ = ls.accept()
    req = b""
    while b"\r\n\r\n" not in req:
        k = c.recv(4096)
        if not k:
            break
        req += k
    with open(log, "ab") as f:
        f.write(req)
    try:
        if mode == "short206":  # Content-Range says 100 bytes, the body has 5
            c.sendall(b"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 100-199/1000\r\n"
                      b"Content-Length: 5\r\n\r\nhello")
        elif mode == "long206":  # chunked, 150 bytes for a 100-byte range
            body = b"x" * 150
            c.sendall(b"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 100-199/1000\r\n"
                      b"Transfer-Encoding: chunked\r\n\r\n96\r\n" + body + b"\r\n0\r\n\r\n")
        elif mode == "partial206":  # bytes 100-199 whole, but the file has 1000
            c.sendall(b"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 100-199/1000\r\n"
                      b"Content-Length: 100\r\n\r\n" + b"y" * 100)
        elif mode == "interim":  # 1xx answers, one every 0.3 s, never a final one
            for _ in range(200):
                c.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                time.sleep(0.3)
        elif mode == "trickle":  # one body byte every 0.3 s
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n")
            for _ in range(200):
                c.sendall(b"z")
                time.sleep(0.3)
    except OSError:
        pass
    time.sleep(0.5)
    c.close()
"""


@contextmanager
def bad_server(lab: FetchLab, mode: str) -> Iterator[Path]:
    """BAD_SERVER in MODE; yields the file its requests go to."""
    log = lab.workdir / f"bad-{mode}.req"
    argv = ["ip", "netns", "exec", lab.ns["s"].name, sys.executable, "-c", BAD_SERVER]
    proc = subprocess.Popen([*argv, mode, str(log)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "listening"
        yield log
    finally:
        proc.kill()
        proc.wait()


def test_resumed_206_checked_against_content_range(lab: FetchLab) -> None:
    """Review N16: a resumed download's 206 body must be its Content-Range's bytes. A
    5-byte body for "bytes 100-199/1000" fails (exit 7, the mismatch named), so does a
    150-byte chunked one; a right 100-byte body that ends short of the file's 1000
    bytes fails as incomplete (exit 5), not exit 0 with a 200-byte file."""
    url = f"http://{SERVER}:9000/f.bin"
    for mode, code, why in (
        ("short206", 7, "206 body of 5 bytes does not match its Content-Range "
         "(bytes 100-199/1000: 100 bytes)"),
        ("long206", 7, "206 body longer than its Content-Range (bytes 100-199, 100 bytes)"),
        ("partial206", 5, "asked for bytes 100- of 1000, the server sent 100-199: the file "
         "is incomplete"),
    ):  # fmt: skip
        out = lab.out / f"{mode}.bin"
        out.write_bytes(b"a" * 100)
        with bad_server(lab, mode) as log:
            res = fetch(lab, url, str(out), "--continue", "--timeout", "5")
        assert "Range: bytes=100-" in log.read_text(), log.read_text()
        assert res.returncode == code, str(res)
        assert why in res.stderr, res.stderr
        assert res.summary["status"] == 206 and res.summary["resumed_from"] == 100
        assert res.summary["mbufs_outstanding"] <= 1


def test_output_never_through_a_symlink(lab: FetchLab) -> None:
    """Review N16: the output is opened with O_NOFOLLOW (a new one created with O_EXCL) and
    must be a regular file: a planted symbolic link, dangling or not, and a FIFO are
    refused with exit 3 and the path named; what they point to is untouched."""
    url = f"http://{SERVER}/small.bin"
    for name in ("planted.bin", "dangling.bin", "would-be-created.bin", "fifo.bin", "old.bin"):
        (lab.out / name).unlink(missing_ok=True)  # a rerun's
    target = lab.out / "precious.txt"
    target.write_text("keep me\n")
    link = lab.out / "planted.bin"
    link.symlink_to(target)
    for extra in ((), ("--continue",)):
        # --continue: refused before the download starts, with no JSON summary
        res = lab.fetch(url, str(link), *extra)
        assert isinstance(res, FetchResult) and res.returncode == 3, str(res)
        assert f"refusing to write {link}: it is a symbolic link" in res.stderr, res.stderr
        assert target.read_text() == "keep me\n"
    dangling = lab.out / "dangling.bin"
    dangling.symlink_to(lab.out / "would-be-created.bin")
    res = fetch(lab, url, str(dangling))
    assert res.returncode == 3 and "symbolic link" in res.stderr, str(res)
    assert not (lab.out / "would-be-created.bin").exists()
    fifo = lab.out / "fifo.bin"
    os.mkfifo(fifo)
    res = fetch(lab, url, str(fifo), timeout=30)
    assert res.returncode == 3, str(res)
    assert f"refusing to write {fifo}: not a regular file" in res.stderr, res.stderr
    # a regular file is still overwritten, a new one created
    (lab.out / "old.bin").write_bytes(b"o" * 200_000)
    res = fetch(lab, url, "old.bin")
    assert_identical(lab, res, "small.bin", "old.bin")


# load-sensitive (a download stopped within a time window): reruns once
@pytest.mark.flaky(reruns=1, reruns_delay=3)
def test_max_time(lab: FetchLab) -> None:
    """Review N16: --max-time bounds the whole download, as curl's: a server that
    trickles a byte every 0.3 s, or answers 100 Continue every 0.3 s and never a final
    response, makes progress for --timeout, yet ends at --max-time with exit 4."""
    for mode, why in (
        ("trickle", "--max-time of 3 s reached after "),
        ("interim", "--max-time of 3 s reached before the response's body"),
    ):
        with bad_server(lab, mode):
            t0 = time.monotonic()
            res = fetch(lab, f"http://{SERVER}:9000/x", f"{mode}.bin", "--timeout", "2",
                        "--max-time", "3", timeout=60)  # fmt: skip
            took = time.monotonic() - t0
        assert res.returncode == 4, str(res)
        assert why in res.stderr, res.stderr
        assert 3 <= res.summary["seconds"] < 5, res.summary["seconds"]
        assert took < 20
        if mode == "trickle":
            assert 3 <= res.summary["bytes"] <= 15, res.summary["bytes"]

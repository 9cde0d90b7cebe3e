# SPDX-License-Identifier: BSD-3-Clause
"""The daemon's life cycle and control plane: one instance per name, config
errors, clean shutdown, netlink overrun recovery."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from twinplane.lab import RouterLab
from twinplane.lab.daemon import daemon_binary


def _kernel_routes(lab: RouterLab) -> set[str]:
    """Prefixes of the kernel's main-table IPv4 routes through the TAPs."""
    out = lab.router.run(["ip", "-4", "-o", "route", "show", "table", "main"]).stdout
    prefixes = set()
    for line in out.splitlines():
        if " dev tp-" in line:
            p = line.split()[0]
            prefixes.add(p if "/" in p else p + "/32")
    return prefixes


def _dataplane_routes(lab: RouterLab) -> set[str]:
    return {
        r["prefix"]
        for r in lab.ctl("show", "routes")["routes"]
        if r["type"] in ("connected", "gateway")
    }


def test_second_instance_with_same_name_refuses(router_lab: RouterLab) -> None:
    d = router_lab.daemon
    assert d is not None
    res = router_lab.router.run(
        [str(daemon_binary()), "--name", d.name, "--lcores", "0,1"], check=False, timeout=30
    )
    assert res.returncode != 0
    assert f"an instance named '{d.name}' is already running" in res.stderr
    assert f"pid {d.proc.pid}" in res.stderr if d.proc else True
    # the first one is unharmed
    assert router_lab.ctl("version")["api"] == 1


def test_malformed_config_rejected_with_line(router_lab: RouterLab) -> None:
    bad = router_lab.workdir / "bad.conf"
    bad.write_text("# comment\nset backoff on\nroute add 10.0.0.0/40 via 10.0.2.2\n")
    res = router_lab.router.run(
        [
            str(daemon_binary()), "--name", router_lab.tag + "b", "--lcores", "0,1",
            "--no-huge", "--config", str(bad), "--socket", str(router_lab.workdir / "b.sock"),
            "--log-file", str(router_lab.workdir / "b.log"),
        ],
        check=False, timeout=60,
    )  # fmt: skip
    log = (router_lab.workdir / "b.log").read_text()
    assert res.returncode != 0
    assert "configuration" in res.stderr and "failed" in res.stderr
    assert "bad.conf:3: route add: bad prefix '10.0.0.0/40'" in log


def test_twinctl_errors_are_specific(router_lab: RouterLab) -> None:
    for words, msg in [
        (["route", "add", "10.1.0.0/16"], "usage: route add"),
        (["route", "add", "10.1.0.0/16", "via", "10.0.2.300"], "bad gateway '10.0.2.300'"),
        (["port", "add", "p0", "net_null9"], "port 'p0' exists"),
        (["port", "add", "pz", "net_nosuchpmd0"], "cannot probe 'net_nosuchpmd0'"),
        (["port", "add", "pz", "net_null7", "txq", "0"], "txq: bad number '0' (1-16384)"),
        (["port", "add", "pz", "net_null7", "txqs", "1"], "unknown option 'txqs' (rxq, txq,"),
        (["show", "everything"], "unknown command 'show everything'"),
        (["set", "exception", "rate", "-5"], "bad rate '-5'"),
    ]:
        res = subprocess.run(
            [str(daemon_binary().parent / "twinctl"), "-s", router_lab.daemon.socket, *words],
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        assert res.returncode == 1, words
        assert msg in res.stderr, (words, res.stderr)
    # nothing changed, the daemon still answers
    assert [p["name"] for p in router_lab.ctl("show", "ports")["ports"]] == ["p0", "p1"]


def test_clean_shutdown_releases_everything() -> None:
    """SIGTERM: exit 0, TAPs gone, API socket gone, no hugepage file left."""
    with RouterLab() as lab:
        d = lab.daemon
        assert d is not None and d.proc is not None
        taps = [link.tap for link in lab.links]
        for tap in taps:
            assert lab.router.run(["ip", "link", "show", tap], check=False).returncode == 0
        d.proc.send_signal(signal.SIGTERM)
        assert d.proc.wait(15) == 0
        for tap in taps:
            assert lab.router.run(["ip", "link", "show", tap], check=False).returncode != 0
        assert not os.path.exists(d.socket)
        if os.path.isdir("/dev/hugepages"):
            left = [
                e.name for e in os.scandir("/dev/hugepages") if e.name.startswith(f"{d.name}map_")
            ]
            assert left == [], f"hugepage files left: {left}"


def test_netlink_overrun_triggers_full_resync(router_lab: RouterLab) -> None:
    """A small netlink buffer, the daemon stopped (SIGSTOP) while 2,000 routes
    are added: events are lost for certain; on SIGCONT the daemon notices
    (ENOBUFS), resyncs, and ends equal to the kernel."""
    d = router_lab.daemon
    assert d is not None and d.proc is not None
    router_lab.ctl("set", "netlink", "rcvbuf", "4096")
    before = router_lab.ctl("show", "sync")
    batch = router_lab.workdir / "routes.batch"
    batch.write_text(
        "".join(f"route add 10.{100 + i // 200}.{i % 200}.0/24 via 10.0.2.2\n" for i in range(2000))
    )
    d.proc.send_signal(signal.SIGSTOP)
    try:
        router_lab.router.run(["ip", "-batch", str(batch)])
    finally:
        d.proc.send_signal(signal.SIGCONT)
    want = _kernel_routes(router_lab)
    assert len(want) >= 2002
    router_lab.wait_until(lambda: _dataplane_routes(router_lab) == want, 10, 0.2, "routes in sync")
    after = router_lab.ctl("show", "sync")
    assert after["overruns"] > before["overruns"]
    assert after["resyncs"] > before["resyncs"]

    # deletions are lost too and repaired the same way
    d.proc.send_signal(signal.SIGSTOP)
    try:
        router_lab.router.run(["ip", "route", "flush", "proto", "boot"])
    finally:
        d.proc.send_signal(signal.SIGCONT)
    want = _kernel_routes(router_lab)
    router_lab.wait_until(
        lambda: _dataplane_routes(router_lab) == want, 10, 0.2, "deletions in sync"
    )
    assert {r["type"] for r in router_lab.ctl("show", "routes")["routes"]} <= {
        "connected",
        "local",
        "host",
    }
    # and the router still forwards
    res = router_lab.netns("h1").run(
        ["ping", "-n", "-c", "2", "-i", "0.2", "-W", "2", "10.0.2.2"], check=False
    )
    assert res.returncode == 0, res.stdout


# load-sensitive (bounds a count by the bucket's rate x elapsed time): reruns once
@pytest.mark.flaky(reruns=1, reruns_delay=3)
def test_exception_rate_limit_counts_excess(router_lab: RouterLab) -> None:
    """Punted traffic above the token bucket is dropped and counted; forwarding goes on."""
    router_lab.ctl("set", "exception", "rate", "50", "burst", "10")
    c0 = router_lab.counters()
    # 300 pings to the router's own address, 2 ms apart: all punted (local destination).
    # Not a flood ping: its pace follows the replies, which a busy machine delays by
    # milliseconds. A token bucket of 50/s and 10 passes at most 10 + 50 x the time the
    # pings took; the rest must be counted.
    t0 = time.monotonic()
    router_lab.netns("h1").run(
        ["ping", "-n", "-q", "-i", "0.002", "-c", "300", "-W", "1", "10.0.1.1"], check=False
    )
    took = time.monotonic() - t0
    c1 = router_lab.counters()
    limited = c1["drops"]["core.exception_ratelimited"] - c0["drops"]["core.exception_ratelimited"]
    received = c1["ports"]["p0"]["rx"] - c0["ports"]["p0"]["rx"]
    assert received >= 250, (received, c1["ports"]["p0"])
    assert limited >= received - 10 - 50 * took - 5, (limited, received, took, c1["drops"])
    assert limited > 0, (took, c1["drops"])
    res = router_lab.netns("h1").run(
        ["ping", "-n", "-c", "3", "-i", "0.2", "-W", "2", "10.0.2.2"], check=False
    )
    assert res.returncode == 0, res.stdout
    time.sleep(0.1)


def test_instance_names_and_files_checked(tmp_path: Path) -> None:
    """Review N17: every program's --name becomes /run/twinplane/<name>.lock as root: the
    daemon, the generator, the NF host and the downloader all check it with one
    function (letters, digits, - and _), and none follows a symbolic link planted at
    the lock's path; the daemon's --log-file is never followed through one either."""
    bin_dir = daemon_binary().parent
    fetch_argv = ["--port", "net_null0", "--addr", "10.0.0.1/24", "http://10.0.0.2/"]
    for prog, extra in (
        ("twinplane", []),
        ("twinplane-gen", []),
        ("twinplane-nf", ["--port0", "net_null0", "--port1", "net_null1"]),
        ("twinplane-fetch", fetch_argv),
    ):
        for name in ("../evil", "a/b", "", "x" * 65, "dot.ted"):
            argv = [str(bin_dir / prog), "--name", name, *extra]
            res = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
            assert res.returncode != 0, (prog, name)
            assert f"bad --name '{name}' (1 to 64 letters, digits, - and _)" in res.stderr, (
                prog,
                res.stderr,
            )
    assert not Path("/run/evil.lock").exists()

    target = tmp_path / "victim"
    target.write_text("keep\n")
    name = f"tpsym{os.getpid()}"
    lock = Path("/run/twinplane") / f"{name}.lock"
    lock.parent.mkdir(exist_ok=True)
    lock.unlink(missing_ok=True)
    lock.symlink_to(target)
    try:
        for prog, extra in (("twinplane", []), ("twinplane-fetch", fetch_argv)):
            argv = [str(bin_dir / prog), "--name", name, "--no-huge", *extra]
            res = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
            assert res.returncode != 0
            assert f"cannot open {lock}: it is a symbolic link" in res.stderr, res.stderr
        assert target.read_text() == "keep\n"
    finally:
        lock.unlink(missing_ok=True)

    log = tmp_path / "log"
    log.symlink_to(target)
    res = subprocess.run(
        [str(bin_dir / "twinplane"), "--name", name, "--no-huge", "--socket",
         str(tmp_path / "s.sock"), "--log-file", str(log)],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert res.returncode != 0
    assert f"--log-file {log}: it is a symbolic link" in res.stderr, res.stderr
    assert target.read_text() == "keep\n"
    assert not lock.exists()  # released on the way out

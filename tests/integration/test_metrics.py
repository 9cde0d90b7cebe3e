# SPDX-License-Identifier: BSD-3-Clause
"""The Prometheus endpoint (docs/METRICS.md): the page after traffic passes promtool and
agrees with `show counters` and `show ports`; Debian's Prometheus scrapes it and its API
gives a port's rx rate; bad and slow clients are answered or closed without slowing the
API; the Grafana dashboard asks only for metrics the page serves."""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import subprocess
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from twinplane.api import ApiError, Client
from twinplane.lab import RouterLab
from twinplane.metrics import Page, get, http_request, names_in, parse
from twinplane.proc import Process

METRICS = "127.0.0.1:19187"  # in the router's namespace
PROM_WEB = "127.0.0.1:19190"
DASHBOARD = Path(__file__).resolve().parents[2] / "docs" / "grafana-twinplane.json"


@pytest.fixture
def metrics_lab(daemon_lab: Callable[..., RouterLab]) -> RouterLab:
    """The router lab with the metrics server on (--metrics)."""
    return daemon_lab(daemon_args=["--metrics", METRICS])


def connect(lab: RouterLab) -> Callable[[], socket.socket]:
    return lambda: lab.router.socket(socket.AF_INET, socket.SOCK_STREAM)


def scrape(lab: RouterLab) -> tuple[str, Page]:
    r = get(connect(lab), METRICS)
    assert r.status == 200, r
    assert r.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    text = r.body.decode()
    return text, parse(text)


def ping(lab: RouterLab, count: int, interval: float = 0.01) -> None:
    lab.run("h1", ["ping", "-n", "-q", "-c", str(count), "-i", str(interval), lab.host_ip("h2")])


def api_latency(path: str) -> float:
    """Seconds for `show counters` on a fresh API connection."""
    t0 = time.monotonic()
    with Client(path, timeout=5.0) as c:
        c.cmd("show", "counters")
    return time.monotonic() - t0


def between(v: float, lo: int, hi: int, what: str) -> None:
    """v was read between two reads of the daemon's own counter (lo, then hi)."""
    assert lo <= v <= hi, f"{what}: {v} not within [{lo}, {hi}] of show counters"


def check_conventions(page: Page, version: dict[str, str]) -> None:
    """Every family has HELP and TYPE, its name the prefix, _total on counters only."""
    for name in page.samples:
        assert name.startswith("twinplane_"), name
        assert name in page.types and name in page.helps, name
        assert (page.types[name] == "counter") == name.endswith("_total"), name
    assert page.samples["twinplane_build_info"] == [
        ({"version": version["twinplane"], "dpdk": version["dpdk"]}, 1.0)
    ]


def check_port(page: Page, port: str, b: dict[str, Any], a: dict[str, Any]) -> None:
    """The port's lcore counts and drop reasons against show counters' (b, a)."""
    for key, name in (
        ("rx", "twinplane_lcore_rx_packets_total"),
        ("tx", "twinplane_lcore_tx_packets_total"),
        ("exception", "twinplane_lcore_exception_packets_total"),
    ):
        between(page.value(name, port=port), b[key], a[key], f"{port} {key}")
    drops = page.by("twinplane_drops_total", lambda ls: f"{ls['module']}.{ls['reason']}", port=port)
    for reason, v in drops.items():
        lo, hi = b["drop_reasons"].get(reason, 0), a["drop_reasons"].get(reason, 0)
        between(v, lo, hi, f"{port} {reason}")


def check_device(page: Page, port: str, b: dict[str, int], a: dict[str, int]) -> None:
    """The port's device counters against show ports' stats (b, a)."""
    for key, name in (
        ("ipackets", "twinplane_port_rx_packets_total"),
        ("opackets", "twinplane_port_tx_packets_total"),
        ("ibytes", "twinplane_port_rx_bytes_total"),
        ("obytes", "twinplane_port_tx_bytes_total"),
        ("ierrors", "twinplane_port_rx_errors_total"),
        ("imissed", "twinplane_port_rx_missed_total"),
    ):
        between(page.value(name, port=port), b[key], a[key], f"{port} {key}")


def check_totals(page: Page, b: dict[str, Any], a: dict[str, Any]) -> None:
    """Every named counter over every port and lcore against show counters' totals."""
    for kind, name, label in (
        ("drops", "twinplane_drops_total", "reason"),
        ("counters", "twinplane_events_total", "event"),
    ):
        totals = page.by(name, lambda ls, lb=label: f"{ls['module']}.{ls[lb]}")
        assert set(totals) == set(b[kind]), kind
        for k, v in totals.items():
            between(v, b[kind][k], a[kind][k], k)
    punts = page.by("twinplane_punts_total", lambda ls: f"{ls['module']}.{ls['reason']}")
    assert set(punts) == set(b["exception"]["reasons"])
    for k, v in punts.items():
        between(v, b["exception"]["reasons"][k], a["exception"]["reasons"][k], k)
    for k in ("to_kernel", "from_kernel", "tap_errors"):
        between(
            page.value(f"twinplane_exception_{k}_total"),
            b["exception"][k],
            a["exception"][k],
            k,
        )


def test_page_passes_promtool_and_matches_show_counters(metrics_lab: RouterLab) -> None:
    lab = metrics_lab
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool not installed (Debian's prometheus package: scripts/setup.sh)")
    ping(lab, 50)
    time.sleep(0.5)  # the last replies are counted
    before = lab.ctl("show", "counters")
    ports_before = {p["name"]: p["stats"] for p in lab.ctl("show", "ports")["ports"]}
    text, page = scrape(lab)
    after = lab.ctl("show", "counters")
    ports_after = {p["name"]: p["stats"] for p in lab.ctl("show", "ports")["ports"]}

    check = subprocess.run(
        [promtool, "check", "metrics"], input=text, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr
    check_conventions(page, lab.ctl("version"))
    for port in ("p0", "p1"):
        check_port(page, port, before["ports"][port], after["ports"][port])
        check_device(page, port, ports_before[port], ports_after[port])
    check_totals(page, before, after)
    # the pings went through: 50 requests in on p0, 50 replies in on p1
    assert page.value("twinplane_lcore_rx_packets_total", port="p0") >= 50
    assert page.value("twinplane_lcore_tx_packets_total", port="p1") >= 50
    assert page.value("twinplane_port_rx_bytes_total", port="p0") >= 50 * 98
    # gauges: mbufs, the modules' tables
    assert page.value("twinplane_mbufs") == before["mempool"]["size"]
    assert page.value("twinplane_ip4_routes") >= 2  # the two connected networks
    assert page.value("twinplane_ip4_neighbours") >= 2  # h1 and h2
    for name in ("twinplane_ndn_fib_entries", "twinplane_rcu_deferred", "twinplane_ring_used"):
        assert name in page.samples, name


def prometheus_config(workdir: Path) -> Path:
    cfg = workdir / "prometheus.yml"
    cfg.write_text(
        "global:\n"
        "  scrape_interval: 1s\n"
        "  scrape_timeout: 1s\n"
        "scrape_configs:\n"
        "  - job_name: twinplane\n"
        "    static_configs:\n"
        f"      - targets: ['{METRICS}']\n"
    )
    return cfg


def prom_query(lab: RouterLab, expr: str) -> list[dict[str, Any]]:
    """An instant query to the Prometheus server's HTTP API (in the router namespace)."""
    q = urllib.parse.quote(expr)
    r = get(connect(lab), PROM_WEB, f"/api/v1/query?query={q}")
    assert r.status == 200, r
    answer = json.loads(r.body)
    assert answer["status"] == "success", answer
    return answer["data"]["result"]  # type: ignore[no-any-return]


def test_prometheus_scrapes_the_rx_rate(metrics_lab: RouterLab) -> None:
    lab = metrics_lab
    binary = shutil.which("prometheus")
    if binary is None:
        pytest.skip("prometheus not installed (Debian's prometheus package: scripts/setup.sh)")
    storage = lab.workdir / "prometheus-data"
    prom = Process(
        [
            binary,
            f"--config.file={prometheus_config(lab.workdir)}",
            f"--storage.tsdb.path={storage}",
            f"--web.listen-address={PROM_WEB}",
        ],
        lab.workdir / "prometheus.out",
        label="prometheus",
        netns=lab.router,
    )
    prom.start()
    lab.defer("stop prometheus", prom.stop)
    h1 = lab.netns("h1")
    # 20 pings a second towards h2 for as long as the test needs
    pinger = h1.popen(
        ["ping", "-n", "-q", "-i", "0.05", "-w", "40", lab.host_ip("h2")],
        stdout=subprocess.DEVNULL,
    )
    try:
        expr = 'rate(twinplane_port_rx_packets_total{port="p0"}[5s])'
        rate = 0.0
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError, AssertionError):
                result = prom_query(lab, f"{expr} > 0")
                if result:
                    rate = float(result[0]["value"][1])
                    break
            time.sleep(1)
        assert rate > 0, f"Prometheus never saw p0's rx rate:\n{prom.logs()}"
        # about 20 requests/s arrive on p0 (ARP adds a few)
        assert 5 < rate < 100, rate
        up = prom_query(lab, 'up{job="twinplane"}')
        assert up and up[0]["value"][1] == "1", up
        # Prometheus keeps its connection: it did not cost a connection per scrape
        time.sleep(3)
        m = lab.ctl("show", "metrics")
        assert m["scrapes"] >= 3
        assert m["accepted"] < m["scrapes"]
    finally:
        pinger.terminate()
        pinger.wait(5)


def raw_exchange(lab: RouterLab, raw: bytes, timeout: float = 5.0) -> tuple[int, bytes]:
    """Send raw bytes; the status of the answer (0 if closed without one) and the answer."""
    with connect(lab)() as s:
        host, port = METRICS.rsplit(":", 1)
        s.connect((host, int(port)))
        try:
            r = http_request(s, raw, timeout)
        except (IndexError, ValueError):
            return 0, b""
        return r.status, r.body


@contextlib.contextmanager
def slow_client(lab: RouterLab, interval: float) -> Iterator[threading.Event]:
    """A client that writes a request head one byte every ``interval`` seconds; yields an
    event set once the daemon has closed it."""
    s = connect(lab)()
    host, port = METRICS.rsplit(":", 1)
    s.connect((host, int(port)))
    closed, stop = threading.Event(), threading.Event()
    data = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200 + b"\r\n\r\n"

    def run() -> None:
        s.settimeout(None)  # blocking; the peek below does not wait (MSG_DONTWAIT)
        for b in data:
            try:
                s.send(bytes([b]))
                if s.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                    closed.set()
                    return
            except BlockingIOError:
                pass
            except OSError:
                closed.set()
                return
            if stop.wait(interval):
                return

    t = threading.Thread(target=run, daemon=True)
    t.start()
    try:
        yield closed
    finally:
        stop.set()
        t.join(5)
        s.close()


# load-sensitive (deadlines, API answers within 100 ms): reruns once
@pytest.mark.flaky(reruns=1, reruns_delay=3)
def test_bad_and_slow_clients_do_not_slow_the_api(metrics_lab: RouterLab) -> None:
    lab = metrics_lab
    assert lab.daemon is not None
    lab.ctl("set", "metrics", "deadline", "1000")
    host = f"Host: {METRICS}\r\n"
    cases = [
        (f"GET /other HTTP/1.1\r\n{host}Connection: close\r\n\r\n", 404),
        (f"POST /metrics HTTP/1.1\r\n{host}Connection: close\r\n\r\n", 405),
        ("GARBAGE\r\n\r\n", 400),
        (f"GET /metrics HTTP/1.1\r\n{host}Content-Length: 5\r\n\r\nhello", 400),
        ("GET /metrics HTTP/1.1\r\n\r\n", 400),  # no Host
        (f"GET /metrics HTTP/2.0\r\n{host}\r\n", 505),
        # a header section over 8 KiB
        (f"GET /metrics HTTP/1.1\r\n{host}X-Big: {'b' * 9000}\r\n\r\n", 431),
    ]
    for raw, want in cases:
        status, _ = raw_exchange(lab, raw.encode())
        assert status == want, (raw[:40], status)
    # 20 pipelined requests on one kept-alive connection: 20 pages, one a pass of the
    # control loop
    with connect(lab)() as s:
        h, p = METRICS.rsplit(":", 1)
        s.connect((h, int(p)))
        one = f"GET /metrics HTTP/1.1\r\n{host}\r\n"
        last = one.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n")
        r = http_request(s, (one * 19 + last).encode())
        assert r.status == 200 and r.body.count(b"HTTP/1.1 200 OK\r\n") == 19

    m0 = lab.ctl("show", "metrics")
    # a slow loris and 64 idle clients (the cap is 16: 48 are closed at once, 16 at the
    # deadline); meanwhile the API answers as usual and a scrape gets through after
    with slow_client(lab, 0.2) as closed:
        idle = []
        for _ in range(64):
            s = connect(lab)()
            s.connect((METRICS.rsplit(":", 1)[0], int(METRICS.rsplit(":", 1)[1])))
            idle.append(s)
        try:
            lat = [api_latency(lab.daemon.socket) for _ in range(10)]
            assert max(lat) < 0.1, f"show counters took {max(lat) * 1000:.0f} ms"
            t0 = time.monotonic()
            for s in idle:
                s.settimeout(4.0)
                with contextlib.suppress(ConnectionResetError):
                    assert s.recv(16) == b""  # closed, no answer
            assert time.monotonic() - t0 < 4.0
            assert closed.wait(4.0), "the slow client was never closed"
        finally:
            for s in idle:
                s.close()
    m = lab.ctl("show", "metrics")
    assert m["refused_full"] - m0["refused_full"] >= 64 - 16
    assert m["closed_deadline"] - m0["closed_deadline"] >= 1
    assert m["bad_request"] >= 3 and m["not_found"] >= 1 and m["bad_method"] >= 1
    assert m["header_too_large"] >= 1 and m["bad_version"] >= 1
    assert m["clients"] == 0
    _, page = scrape(lab)
    assert page.value("twinplane_metrics_responses_total", code="404") >= 1
    assert page.value("twinplane_metrics_closed_total", reason="deadline") >= 1


def test_metrics_listen_and_stop(daemon_lab: Callable[..., RouterLab]) -> None:
    lab = daemon_lab()  # off by default
    with pytest.raises(OSError), connect(lab)() as s:
        s.connect(("127.0.0.1", 19187))
    lab.ctl("metrics", "listen", METRICS)
    _, page = scrape(lab)
    assert "twinplane_build_info" in page.samples
    with pytest.raises(ApiError, match="already listening"):
        lab.ctl("metrics", "listen", METRICS)
    lab.ctl("metrics", "stop")
    with pytest.raises(OSError), connect(lab)() as s:
        s.connect(("127.0.0.1", 19187))


def test_dashboard_asks_only_for_served_metrics(metrics_lab: RouterLab) -> None:
    lab = metrics_lab
    ping(lab, 5)
    _, page = scrape(lab)
    dash = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for panel in dash["panels"] for t in panel.get("targets", [])]
    assert len(exprs) >= 8
    used = set().union(*(names_in(e) for e in exprs))
    # every module's panel: names the modules serve once enabled are in the page's
    # families (HELP/TYPE), even with no sample yet
    missing = {n for n in used if n not in page.types}
    assert not missing, f"the dashboard asks for metrics the page does not serve: {missing}"


def test_clear_counters_leaves_the_page_counting(metrics_lab: RouterLab) -> None:
    """The page serves raw counters: `clear counters` zeroes `show counters`, never a
    Prometheus counter (docs/decisions/0097.md)."""
    lab = metrics_lab
    ping(lab, 20)
    time.sleep(0.3)
    _, before = scrape(lab)
    lab.ctl("clear", "counters")
    assert lab.ctl("show", "counters")["ports"]["p0"]["rx"] < 20
    ping(lab, 10)
    time.sleep(0.3)
    _, after = scrape(lab)
    for name in ("twinplane_lcore_rx_packets_total", "twinplane_lcore_tx_packets_total"):
        for port in ("p0", "p1"):
            assert after.value(name, port=port) >= before.value(name, port=port) + 10, name
    assert after.value("twinplane_drops_total") >= before.value("twinplane_drops_total")

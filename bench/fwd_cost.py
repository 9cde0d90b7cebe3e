#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Forwarding cost: twinplane against DPDK's l3fwd, over testpmd's io floor, on one input.

The three DUTs forward the same pcap of 64-byte IPv4/UDP frames
(198.18.1.0/24), replayed from memory by net_pcap's infinite_rx mode, with one
worker on lcore 1 (the EAL main lcore / control plane on lcore 0):
  l3fwd      DPDK's example router (LPM), the baseline;
  twinplane  the daemon;
  testpmd    dpdk-testpmd --forward-mode=io: receive a burst, send it on the
             paired port, touch nothing. The floor of what any forwarder
             costs on this input (net_pcap's rx copy and tx free plus a loop).
Runs are interleaved (l3fwd, twinplane, testpmd, l3fwd, ...) because the
machine is shared and noisy; the report gives medians, min-max spreads, the
ratio twinplane/l3fwd (Mpps) and the ratio of the two routers' cycles per
packet above the testpmd floor.

Port set, identical for all DUTs:
  port 0  net_pcap0,rx_pcap=IN,rx_pcap=IN,infinite_rx=1
          input; only queue 0 is used. rx_pcap is given twice because
          net_pcap has as many (drop) tx queues as rx_pcap arguments and
          l3fwd sets up one tx queue per lcore (2).
  port 1  net_pcap1,rx_pcap=EMPTY,rx_pcap=EMPTY
          output; no tx_pcap, so net_pcap frees every transmitted frame
          (its "tx drop" mode); its rx is an empty capture, polled by all.
Every frame is routed out of port 1 (l3fwd's built-in LPM table has
198.18.1.0/24 -> port 1; twinplane gets 198.18.1.0/24 via one neighbour on
p1; testpmd's io mode pairs ports 0 <-> 1), so all forward, none drop.

Mpps is the rate of port 1's opackets (ethdev counters read through DPDK's
telemetry socket, the same way for every DUT) over a --seconds window after
--warmup seconds. Cycles per packet = TSC Hz / packets per second: the worker
busy-polls, so all of lcore 1's cycles are spent on forwarding.

Usage (root; needs hugepages, sets them up if missing):
    .venv/bin/python bench/fwd_cost.py [--runs 5] [--seconds 5] [--only l3fwd,testpmd]
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import itertools
import json
import os
import platform
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))


from twinplane.bench import ensure_venv

ensure_venv(ROOT)

from twinplane.bench import pcapgen
from twinplane.bench.duts import cpu_instruction_set, tsc_hz
from twinplane.bench.telemetry import Telemetry, TelemetryError, wait_for_socket
from twinplane.proc import Process, remove_dpdk_runtime

MAIN_LCORE = 0
WORKER_LCORE = 1
L3FWD_PREFIX = "l3fwdbench"
TESTPMD_PREFIX = "testpmdbench"
TP_NAME = "fwdbench"
DUTS = ("l3fwd", "twinplane", "testpmd")  # also the interleaving order within a run
NEIGH_MAC = "02:00:00:00:00:01"  # l3fwd's default destination MAC for port 1
IN_PORT, OUT_PORT = 0, 1


class BenchError(Exception):
    pass


# --------------------------------------------------------------------------
# machine set-up and facts


def ensure_hugepages(n: int = 512) -> None:
    nr = Path("/proc/sys/vm/nr_hugepages")
    if int(nr.read_text()) < n:
        nr.write_text(f"{n}\n")
    mounts = Path("/proc/mounts").read_text()
    if not any(line.split()[2] == "hugetlbfs" for line in mounts.splitlines() if line.split()[2:3]):
        os.makedirs("/dev/hugepages", exist_ok=True)
        subprocess.run(["mount", "-t", "hugetlbfs", "nodev", "/dev/hugepages"], check=True)


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {"kernel": platform.release(), "nproc": os.cpu_count()}
    info["cpu_instruction_set"] = cpu_instruction_set()
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for key in ("Model name", "Hypervisor vendor", "CPU max MHz", "L2 cache", "L3 cache"):
            m = re.search(rf"^{key}:\s*(.+)$", lscpu, re.M)
            if m:
                info[key.lower().replace(" ", "_")] = m.group(1).strip()
    except OSError:
        pass
    try:
        info["dpdk"] = subprocess.run(
            ["pkg-config", "--modversion", "libdpdk"], capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        pass
    info["loadavg_at_start"] = Path("/proc/loadavg").read_text().split()[:3]
    return info


def git_rev() -> str:
    r = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    rev = r.stdout.strip() if r.returncode == 0 else "none"
    d = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    )
    return rev + ("-dirty" if d.stdout.strip() else "")


# --------------------------------------------------------------------------
# a DUT process


class Dut:
    """A DPDK process whose ports 0 and 1 we read via telemetry.

    It may use every CPU (this script keeps itself off the worker's), is
    stopped with SIGINT (SIGKILL after a timeout) and its EAL runtime files
    (prefix ``prefix``) are removed afterwards."""

    name = "dut"

    def __init__(self, cmd: list[str], log: Path, prefix: str, netns: str | None = None) -> None:
        self.prefix = prefix
        self.process = Process(
            cmd,
            log,
            label=self.name,
            netns=netns,
            cpus=f"0-{(os.cpu_count() or 1) - 1}",
            stop_signal=signal.SIGINT,
            stop_timeout=15.0,
            cleanup=functools.partial(remove_dpdk_runtime, prefix),
            error=BenchError,
        )
        self.tel: Telemetry | None = None

    @property
    def log(self) -> Path:
        return self.process.log

    def alive(self) -> bool:
        return self.process.running()

    def start(self) -> None:
        self.process.start()

    def fail(self, what: str) -> Exception:
        return self.process.fail(what)

    def connect(self, timeout: float) -> None:
        try:
            self.tel = wait_for_socket(self.prefix, timeout=timeout, alive=self.alive)
        except TelemetryError as e:
            raise self.fail(str(e)) from None

    def counters(self) -> tuple[float, dict[int, dict[str, Any]]]:
        assert self.tel is not None
        return self.tel.sample([IN_PORT, OUT_PORT])

    def port_mac(self, port: int) -> str:
        assert self.tel is not None
        return str((self.tel.port_info(port) or {}).get("mac_addr", ""))

    def offloads(self) -> dict[str, dict[str, Any]]:
        """The rx/tx offloads each port was configured with (telemetry's
        /ethdev/info); net_pcap offers none, so anything but 0 would be a DUT
        asking for what the port lacks. Empty without telemetry."""
        if self.tel is None:
            return {}
        res = {}
        for p in (IN_PORT, OUT_PORT):
            info = self.tel.port_info(p) or {}
            res[f"port{p}"] = {k: info.get(k) for k in ("rx_offloads", "tx_offloads")}
        return res

    def extra(self) -> dict[str, Any]:
        """DUT-specific counters sampled with each window edge."""
        return {}

    def stop(self, timeout: float = 15.0) -> int | None:
        if self.tel is not None:
            self.tel.close()
            self.tel = None
        return self.process.stop(timeout=timeout)


class L3fwd(Dut):
    name = "l3fwd"


class Testpmd(Dut):
    name = "testpmd"


class Twinplane(Dut):
    name = "twinplane"

    def __init__(self, cmd: list[str], log: Path, prefix: str, sock: str, netns: str) -> None:
        super().__init__(cmd, log, prefix, netns=netns)
        self.sock = sock
        self.netns = netns
        from twinplane.api import Client

        self.api = Client(sock, timeout=5.0)

    def start(self) -> None:
        subprocess.run(["ip", "netns", "add", self.netns], check=True)
        # keep the kernel quiet on the TAPs (no IPv6 ND/MLD chatter)
        for key in ("all", "default"):
            subprocess.run(
                [
                    "ip",
                    "netns",
                    "exec",
                    self.netns,
                    "sysctl",
                    "-qw",
                    f"net.ipv6.conf.{key}.disable_ipv6=1",
                ],
                check=False,
            )
        super().start()

    def wait_api(self, timeout: float) -> None:
        def answers() -> bool:
            try:
                self.api.cmd("version", json=False)
            except OSError:  # not listening yet
                self.api.close()
                raise
            return True

        self.process.wait_ready(answers, timeout, f"answering on {self.sock}", retry_on=(OSError,))

    def connect(self, timeout: float) -> None:
        """Prefer DPDK telemetry (as for l3fwd); fall back to the API's port stats."""
        try:
            self.tel = wait_for_socket(self.prefix, timeout=min(timeout, 10.0), alive=self.alive)
            self.source = "telemetry"
        except TelemetryError as e:
            if not self.alive():
                raise self.fail(str(e)) from None
            print(
                f"fwd_cost: twinplane telemetry unavailable ({e}); using 'show ports' stats",
                file=sys.stderr,
            )
            self.tel = None
            self.source = "api"

    def port_mac(self, port: int) -> str:
        if self.tel is not None:
            return super().port_mac(port)
        for p in self.api.cmd("show", "ports")["ports"]:
            if p["id"] == port:
                return str(p.get("mac", ""))
        return ""

    def counters(self) -> tuple[float, dict[int, dict[str, Any]]]:
        if self.tel is not None:
            return super().counters()
        t0 = time.monotonic()
        ports = self.api.cmd("show", "ports")["ports"]
        t1 = time.monotonic()
        by_id = {p["id"]: p["stats"] for p in ports}
        return (t0 + t1) / 2.0, {IN_PORT: by_id[IN_PORT], OUT_PORT: by_id[OUT_PORT]}

    def extra(self) -> dict[str, Any]:
        try:
            workers = self.api.cmd("show", "workers")["workers"]
            counters = self.api.cmd("show", "counters")
        except Exception as e:  # noqa: BLE001 - reported, not fatal
            return {"error": str(e)}
        return {
            "t": time.monotonic(),
            "workers": workers,
            "drops": counters.get("drops", {}),
            "exception": counters.get("exception", {}),
        }

    def stop(self, timeout: float = 15.0) -> int | None:
        self.api.close()
        try:
            return super().stop(timeout)
        finally:
            subprocess.run(["ip", "netns", "del", self.netns], check=False)


# --------------------------------------------------------------------------
# one measurement


def measure(
    dut: Dut, warmup: float, seconds: float, hz: float, startup_timeout: float = 60.0
) -> dict[str, Any]:
    t_start = time.monotonic()
    # wait for forwarding to begin
    while True:
        if not dut.alive():
            raise dut.fail("exited before forwarding")
        _, c = dut.counters()
        if c[OUT_PORT].get("opackets", 0) > 0:
            break
        if time.monotonic() - t_start > startup_timeout:
            raise dut.fail(
                f"port {OUT_PORT} transmitted nothing after {startup_timeout:.0f}s "
                f"(port {IN_PORT} ipackets={c[IN_PORT].get('ipackets')})"
            )
        time.sleep(0.2)
    time.sleep(warmup)

    samples = [dut.counters()]
    x0 = dut.extra()
    step = 1.0 if seconds >= 2 else seconds
    t_end = samples[0][0] + seconds
    while True:
        now = time.monotonic()
        if now >= t_end:
            break
        time.sleep(min(step, t_end - now))
        samples.append(dut.counters())
    x1 = dut.extra()
    if not dut.alive():
        raise dut.fail("died during the measurement window")

    (t0, c0), (t1, c1) = samples[0], samples[-1]
    win = t1 - t0

    def rate(port: int, key: str) -> float:
        return (c1[port][key] - c0[port][key]) / win

    tx_pps = rate(OUT_PORT, "opackets")
    rx_pps = rate(IN_PORT, "ipackets") + rate(OUT_PORT, "ipackets")
    per_sec = [
        (b[1][OUT_PORT]["opackets"] - a[1][OUT_PORT]["opackets"]) / (b[0] - a[0]) / 1e6
        for a, b in itertools.pairwise(samples)
    ]
    res: dict[str, Any] = {
        "mpps": tx_pps / 1e6,
        "rx_mpps": rx_pps / 1e6,
        "cycles_per_pkt": hz / tx_pps if tx_pps else None,
        "window_s": win,
        "per_interval_mpps": per_sec,
        "delta": {
            f"port{p}": {
                k: c1[p][k] - c0[p][k]
                for k in ("ipackets", "opackets", "imissed", "ierrors", "oerrors", "rx_nombuf")
                if k in c1[p]
            }
            for p in (IN_PORT, OUT_PORT)
        },
    }
    if x0.get("workers") and x1.get("workers"):
        w0 = {w["lcore"]: w for w in x0["workers"]}
        ws = []
        for w in x1["workers"]:
            a = w0.get(w["lcore"])
            if a is None:
                continue
            d = {
                k: w[k] - a[k]
                for k in ("rx", "tx", "busy_cycles", "total_cycles", "polls", "idle_polls")
                if k in w and k in a
            }
            d["lcore"] = w["lcore"]
            wt = x1["t"] - x0["t"]
            if d.get("total_cycles"):
                d["busy_ratio"] = d.get("busy_cycles", 0) / d["total_cycles"]
                d["tsc_hz_measured"] = d["total_cycles"] / wt
            if d.get("tx"):
                d["busy_cycles_per_pkt"] = d.get("busy_cycles", 0) / d["tx"]
                d["total_cycles_per_pkt"] = d.get("total_cycles", 0) / d["tx"]
            ws.append(d)
        res["workers"] = ws
        res["drops"] = {
            k: v - x0["drops"].get(k, 0)
            for k, v in x1["drops"].items()
            if v - x0["drops"].get(k, 0)
        }
    elif x1.get("error"):
        res["api_error"] = x1["error"]
    return res


# --------------------------------------------------------------------------
# command lines


def port_devargs(inp: Path, empty: Path) -> tuple[str, str]:
    p0 = f"net_pcap0,rx_pcap={inp},rx_pcap={inp},infinite_rx=1"
    p1 = f"net_pcap1,rx_pcap={empty},rx_pcap={empty}"
    return p0, p1


def l3fwd_cmd(binary: Path, p0: str, p1: str) -> list[str]:
    return [
        str(binary),
        "-l",
        f"{MAIN_LCORE},{WORKER_LCORE}",
        "--file-prefix",
        L3FWD_PREFIX,
        "--no-pci",
        "--vdev",
        p0,
        "--vdev",
        p1,
        "--",
        "-p",
        "0x3",
        "--config",
        f"({IN_PORT},0,{WORKER_LCORE}),({OUT_PORT},0,{WORKER_LCORE})",
        "--lookup",
        "lpm",
        "--parse-ptype",
    ]


def testpmd_cmd(binary: Path, p0: str, p1: str) -> list[str]:
    """dpdk-testpmd in io mode on the same ports: one forwarding lcore (1) runs
    both streams of the 0 <-> 1 pair, as l3fwd and twinplane poll both ports.

    Not interactive, and not ``-i --auto-start``: with stdin on /dev/null (as
    Process gives it) the prompt reads EOF and testpmd quits at once, and so
    does plain non-interactive mode, whose "Press enter to exit" read(0)
    returns at once (both tried: gone within 0.2 s). ``--stats-period`` makes
    the main lcore sleep in a loop until SIGINT instead; one hour, so it prints
    nothing and reads no counters during the window (the telemetry reads are
    the same as for the other DUTs). ``--no-flush-rx``: testpmd would otherwise
    drain rx for up to a second before it starts, and infinite_rx never runs
    dry. ``--total-num-mbufs=8192``: l3fwd's pool size (testpmd's default is
    sized for RTE_MAX_ETHPORTS ports). No offload flags: io mode asks for none
    (the run records each port's rx/tx offloads: 0 on net_pcap)."""
    return [
        str(binary),
        "-l",
        f"{MAIN_LCORE},{WORKER_LCORE}",
        "--file-prefix",
        TESTPMD_PREFIX,
        "--no-pci",
        "--vdev",
        p0,
        "--vdev",
        p1,
        "--",
        "--forward-mode=io",
        "--nb-cores=1",
        "--portmask=0x3",
        "--stats-period=3600",
        "--no-flush-rx",
        "--total-num-mbufs=8192",
    ]


def twinplane_config(p0: str, p1: str) -> str:
    return "\n".join(
        [
            "# bench/fwd_cost.py: twinplane side of the forwarding-cost benchmark",
            f"port add p0 {p0}",
            f"port add p1 {p1}",
            "address add 198.18.0.1/24 dev p0",
            "address add 10.1.1.1/24 dev p1",
            f"neigh add 10.1.1.2 lladdr {NEIGH_MAC} dev p1",
            "route add 198.18.1.0/24 via 10.1.1.2",
            "",
        ]
    )


def twinplane_cmd(binary: Path, cfg: Path, sock: str, log: Path) -> list[str]:
    return [
        str(binary),
        "--name",
        TP_NAME,
        "--lcores",
        f"{MAIN_LCORE},{WORKER_LCORE}",
        "--no-backoff",
        "--socket",
        sock,
        "--log-file",
        str(log),
        "--config",
        str(cfg),
        "--eal",
        "--no-pci",  # as l3fwd: no PCI scan (the host's own NIC is a virtio PCI device)
    ]


# --------------------------------------------------------------------------
# report


def summarize(vals: list[float]) -> dict[str, float]:
    return {
        "median": statistics.median(vals),
        "min": min(vals),
        "max": max(vals),
        "mean": statistics.fmean(vals),
        "stdev": statistics.stdev(vals) if len(vals) > 1 else 0.0,
    }


def overhead_ratio(twinplane: float, l3fwd: float, floor: float) -> float | None:
    """(twinplane - floor) / (l3fwd - floor), in cycles per packet: each router's
    cost above testpmd's io floor, twinplane's over l3fwd's. None when l3fwd is
    not above the floor (the ratio would be meaningless)."""
    if l3fwd - floor <= 0:
        return None
    return (twinplane - floor) / (l3fwd - floor)


def write_plot(
    path: Path,
    runs: dict[str, list[dict[str, Any]]],
    ratio: float | None = None,
    over: float | None = None,
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    duts = [d for d in DUTS if runs.get(d)]
    colors = {"l3fwd": "#4c72b0", "twinplane": "#dd8452", "testpmd": "#8c8c8c"}
    labels = {"testpmd": "testpmd io\n(floor)"}
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    for ax, key, label in (
        (axes[0], "mpps", "Mpps (64 B, 1 worker)"),
        (axes[1], "cycles_per_pkt", "TSC cycles / packet"),
    ):
        for i, d in enumerate(duts):
            vals = [r[key] for r in runs[d]]
            med = statistics.median(vals)
            ax.bar(i, med, width=0.6, color=colors[d], alpha=0.55, label=f"{d} median")
            ax.errorbar(
                i,
                med,
                yerr=[[med - min(vals)], [max(vals) - med]],
                fmt="none",
                ecolor="black",
                capsize=6,
            )
            xs = [i - 0.18 + 0.36 * k / max(1, len(vals) - 1) for k in range(len(vals))]
            ax.scatter(xs, vals, color="black", s=14, zorder=3)
            ax.text(i, med * 0.5, f"median\n{med:.1f}", ha="center", va="center", fontsize=9)
        if key == "cycles_per_pkt" and "testpmd" in duts:
            floor = statistics.median(r[key] for r in runs["testpmd"])
            ax.axhline(floor, color=colors["testpmd"], linestyle="--", linewidth=1)
        ax.set_xticks(range(len(duts)), [labels.get(d, d) for d in duts])
        ax.set_xlim(-0.7, max(1, len(duts)) - 0.3)
        ax.set_ylabel(label)
        ax.set_ylim(bottom=0)
        ax.grid(axis="y", alpha=0.3)
    parts = []
    if ratio is not None:
        parts.append(f"twinplane/l3fwd = {ratio:.3f} (Mpps)")
    if over is not None:
        parts.append(f"cycles above the testpmd floor, twinplane/l3fwd = {over:.3f}")
    fig.suptitle(
        "Forwarding cost, 64 B IPv4/UDP from net_pcap infinite_rx, worker on lcore 1\n"
        + (", ".join(parts) + "\n" if parts else "")
        + "bars: median, whiskers: min-max, dots: runs in order",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_markdown(path: Path, doc: dict[str, Any]) -> None:
    s = doc["summary"]
    duts = [d for d in DUTS if d in s]
    floor = s["testpmd"]["cycles_per_pkt"]["median"] if "testpmd" in s else None
    lines = [
        "# Forwarding cost: twinplane vs DPDK l3fwd, over testpmd's io floor",
        "",
        f"Generated by `bench/fwd_cost.py` on {doc['date']} (tree {doc['git']}); raw "
        "numbers in [fwd_cost.json](fwd_cost.json), plot [fwd_cost.png](fwd_cost.png).",
        "",
        f"- Input: {doc['input']['frames']} distinct {doc['input']['frame_len'] + 4}-byte (60 + "
        f"FCS) IPv4/UDP frames to {doc['input']['dst_net']}, dst MAC {doc['input']['dst_mac']}, "
        "replayed from memory by `net_pcap` with `infinite_rx=1`; the same file for every DUT.",
        "- One worker: DUT worker pinned to lcore 1, EAL main lcore / control plane on lcore "
        f"0 ({doc['machine'].get('nproc')} CPUs: {doc['machine'].get('model_name', '?')}, "
        f"{doc['machine'].get('hypervisor_vendor', 'bare metal')} guest).",
        "- Port 0 receives, port 1 transmits into "
        "net_pcap's tx-drop; every DUT polls both ports' rx.",
        "- DUTs: l3fwd (LPM), twinplane, and `dpdk-testpmd --forward-mode=io` (receive a "
        "burst, send it on the paired port, read nothing): the floor any forwarder pays "
        "here, net_pcap's rx copy and tx free plus a polling loop.",
        f"- {doc['params']['runs']} interleaved runs "
        f"({doc['params']['order'].removeprefix('interleaved: ')}), each "
        f"{doc['params']['warmup']} s warm-up then a {doc['params']['seconds']} s window.",
        "- Mpps: port 1 `opackets` rate from the ethdev counters via DPDK telemetry (same for "
        f"every DUT). Cycles/packet: TSC Hz ({doc['tsc_hz'] / 1e6:.0f} MHz, "
        f"{doc['tsc_hz_source']}) / packets per second; the worker busy-polls, so all its "
        "cycles count.",
        "",
        "| DUT | Mpps median | Mpps min-max | spread | cycles/pkt median | cycles/pkt min-max"
        + (" | above floor |" if floor is not None else " |"),
        "|---|---:|---:|---:|---:|---:|" + ("---:|" if floor is not None else ""),
    ]
    for d in duts:
        m, c = s[d]["mpps"], s[d]["cycles_per_pkt"]
        spread = (m["max"] - m["min"]) / m["median"] * 100 if m["median"] else 0
        row = (
            f"| {d} | {m['median']:.2f} | {m['min']:.2f}-{m['max']:.2f} | "
            f"{spread:.1f} % | {c['median']:.1f} | {c['min']:.1f}-{c['max']:.1f} |"
        )
        if floor is not None:
            row += " (floor) |" if d == "testpmd" else f" {c['median'] - floor:.1f} |"
        lines.append(row)
    lines.append("")
    if doc.get("ratio") is not None:
        pr = s.get("paired_ratio")
        lines.append(
            f"**Ratio twinplane / l3fwd (Mpps, medians): {doc['ratio']:.3f}**"
            + (
                f"; per interleaved run: median {pr['median']:.3f}, "
                f"min-max {pr['min']:.3f}-{pr['max']:.3f}."
                if pr
                else "."
            )
            + " Above 1: twinplane forwards more."
        )
        lines.append("")
    over = doc.get("twinplane_overhead_over_l3fwd_overhead")
    po = s.get("paired_overhead_ratio")
    if over is not None or po:
        txt = (
            f"**Cycles above the testpmd floor, twinplane / l3fwd (medians): {over:.3f}**"
            if over is not None
            else "**Cycles above the testpmd floor, twinplane / l3fwd: undefined on the "
            "medians (l3fwd not above the floor)**"
        )
        if po:
            txt += (
                f"; per interleaved run triple: median {po['median']:.3f}, "
                f"min-max {po['min']:.3f}-{po['max']:.3f}"
            )
            if po.get("undefined"):
                txt += f" ({po['undefined']} triple(s) undefined, left out)"
            txt += "."
        lines.append(
            txt + " (twinplane - testpmd) / (l3fwd - testpmd) in cycles per packet: the "
            "share of l3fwd's own forwarding work twinplane spends; below 1: less."
        )
        lines.append("")
    paired = "twinplane" in doc["runs"] and "l3fwd" in doc["runs"]
    triple = paired and "testpmd" in doc["runs"]
    lines += [
        "## Runs",
        "",
        "| run | "
        + " | ".join(f"{d} Mpps" for d in duts)
        + (" | twinplane/l3fwd" if paired else "")
        + (" | overhead ratio" if triple else "")
        + " |",
        "|---|" + "---:|" * (len(duts) + paired + triple),
    ]
    n = max(len(doc["runs"][d]) for d in duts)
    for i in range(n):
        cells = [
            f"{doc['runs'][d][i]['mpps']:.2f}" if i < len(doc["runs"][d]) else "" for d in duts
        ]
        if paired:
            t, l3 = doc["runs"]["twinplane"][i], doc["runs"]["l3fwd"][i]
            cells.append(f"{t['mpps'] / l3['mpps']:.3f}")
        if triple:
            o = overhead_ratio(
                doc["runs"]["twinplane"][i]["cycles_per_pkt"],
                doc["runs"]["l3fwd"][i]["cycles_per_pkt"],
                doc["runs"]["testpmd"][i]["cycles_per_pkt"],
            )
            cells.append(f"{o:.3f}" if o is not None else "n/a")
        lines.append(f"| {i + 1} | " + " | ".join(cells) + " |")
    tw = doc["runs"].get("twinplane") or []
    wk = [w for r in tw for w in r.get("workers", []) if w.get("tx")]
    if wk:
        lines += [
            "",
            "twinplane's own worker counters (median over runs): busy "
            f"{statistics.median(w['busy_ratio'] for w in wk) * 100:.1f} % of polls' cycles, "
            f"{statistics.median(w['busy_cycles_per_pkt'] for w in wk):.1f} busy cycles/pkt, "
            f"TSC measured {statistics.median(w['tsc_hz_measured'] for w in wk) / 1e6:.0f} MHz.",
        ]
    offl = {
        d: {
            str(v)
            for r in doc["runs"][d]
            for p in r.get("offloads", {}).values()
            for v in p.values()
        }
        for d in duts
    }
    if any(offl.values()):
        lines += [
            "",
            "Port offloads as configured (telemetry `/ethdev/info`, every run): "
            + ", ".join(f"{d} rx/tx {'/'.join(sorted(v)) if v else '?'}" for d, v in offl.items())
            + ".",
        ]
    lines += ["", "## Commands", "", "```"]
    for d in duts:
        if d in doc["commands"]:
            lines.append(doc["commands"][d])
    lines.append("```")
    if "twinplane_config" in doc["commands"]:
        lines += [
            "",
            "twinplane start-up configuration:",
            "",
            "```",
            doc["commands"]["twinplane_config"].rstrip(),
            "```",
        ]
    lines += [
        "",
        "## Caveats",
        "",
        "- l3fwd is built from Debian's dpdk-doc source by `scripts/build-l3fwd.sh`, "
        "with its requested rx offloads (RTE_ETH_RX_OFFLOAD_CHECKSUM) masked to the "
        "port's capabilities (none on net_pcap). l3fwd never verifies the IPv4 header "
        "checksum itself (its RFC 1812 check says 'checked in H/W' and does not look at "
        "the mbuf's checksum flag), while twinplane verifies it in software and also "
        "checks the destination MAC and martian sources. l3fwd needs `--parse-ptype` on "
        "net_pcap (software packet-type parsing in an rx callback, part of its cost).",
        "- The worker cost includes polling port 1's empty rx (an empty pcap file) on every "
        "loop, for every DUT; twinplane polls every port, so l3fwd and testpmd are configured "
        "to do the same.",
        "- A share of each packet's cycles is net_pcap itself (mbuf alloc "
        "+ 60-byte copy on rx, free on tx), identical for every DUT; the Mpps "
        "ratio understates the difference in the forwarding code proper. testpmd io "
        "measures that share (plus its loop), and the overhead ratio takes it out.",
        "- testpmd io reads no header and writes none; the 60-byte copy has just put "
        "the frame in L1, so the routers' header reads are cheap on this input, "
        "cheaper than from a NIC's DMA.",
        "- Shared, virtualized machine: compare ratios "
        "and spreads, not absolute numbers across days.",
    ]
    if any(r.get("counter_source") == "api" for r in tw):
        lines.append(
            "- twinplane's telemetry socket was not available: its port counters "
            "were read with `show ports` through the control API instead."
        )
    lines.append("")
    path.write_text("\n".join(lines))


# --------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="interleaved runs per DUT (default 5)")
    ap.add_argument(
        "--seconds", type=float, default=5.0, help="measurement window per run (default 5)"
    )
    ap.add_argument(
        "--warmup",
        type=float,
        default=2.0,
        help="seconds between first forwarded packet and window",
    )
    ap.add_argument("--frames", type=int, default=1024, help="distinct frames in the input pcap")
    ap.add_argument(
        "--only",
        metavar="DUT[,DUT]",
        default=",".join(DUTS),
        help=f"DUTs to run, comma-separated, of {', '.join(DUTS)} (default: all)",
    )
    ap.add_argument("--l3fwd", type=Path, default=ROOT / "build/l3fwd/dpdk-l3fwd")
    ap.add_argument("--twinplane", type=Path, default=ROOT / "build/src/twinplane")
    ap.add_argument("--testpmd", type=Path, default=Path("/usr/bin/dpdk-testpmd"))
    ap.add_argument("--out", type=Path, default=ROOT / "docs/results", help="report directory")
    ap.add_argument(
        "--workdir", type=Path, help="keep pcaps, configs and logs here (default: a temp dir)"
    )
    ap.add_argument(
        "--from-json",
        type=Path,
        metavar="JSON",
        help="only rewrite the markdown and plot from an earlier fwd_cost.json",
    )
    args = ap.parse_args(argv)
    if args.from_json:
        doc = json.loads(args.from_json.read_text())
        args.out.mkdir(parents=True, exist_ok=True)
        write_plot(
            args.out / "fwd_cost.png",
            doc["runs"],
            doc.get("ratio"),
            doc.get("twinplane_overhead_over_l3fwd_overhead"),
        )
        write_markdown(args.out / "fwd_cost.md", doc)
        print(f"wrote {args.out}/fwd_cost.{{md,png}} from {args.from_json}")
        return 0
    if args.runs < 1 or args.seconds <= 0:
        ap.error("--runs >= 1 and --seconds > 0")
    if os.geteuid() != 0:
        sys.exit("fwd_cost: run as root (hugepages, network namespace)")

    only = {d.strip() for d in args.only.split(",") if d.strip()}
    if not only or only - set(DUTS):
        ap.error(f"--only: comma-separated DUTs of {', '.join(DUTS)}")
    duts = [d for d in DUTS if d in only]
    if "l3fwd" in duts:
        subprocess.run(
            [str(ROOT / "scripts/build-l3fwd.sh"), str(args.l3fwd.parent)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    if "twinplane" in duts and not os.access(args.twinplane, os.X_OK):
        sys.exit(f"fwd_cost: {args.twinplane} not built")
    if "testpmd" in duts and not os.access(args.testpmd, os.X_OK):
        sys.exit(f"fwd_cost: no {args.testpmd} (Debian package dpdk-dev; scripts/setup.sh)")

    ensure_hugepages()
    # keep this process (and its sampling) off the worker's CPU
    os.sched_setaffinity(0, {MAIN_LCORE})
    hz, hz_src = tsc_hz()

    work = args.workdir or Path(tempfile.mkdtemp(prefix="fwd_cost."))
    work.mkdir(parents=True, exist_ok=True)
    inp, empty = work / "in.pcap", work / "empty.pcap"
    frames = pcapgen.generate(str(inp), count=args.frames, dst_mac=pcapgen.PCAP_PORT0_MAC)
    pcapgen.check_frames(frames)
    pcapgen.write_empty_pcap(str(empty))
    p0, p1 = port_devargs(inp, empty)
    cfg = work / "twinplane.conf"
    cfg.write_text(twinplane_config(p0, p1))
    sock = str(work / "twinplane.sock")
    netns = f"tpbench{os.getpid()}"

    commands = {}
    if "l3fwd" in duts:
        commands["l3fwd"] = shlex.join(l3fwd_cmd(args.l3fwd, p0, p1))
    if "testpmd" in duts:
        commands["testpmd"] = shlex.join(testpmd_cmd(args.testpmd, p0, p1))
    if "twinplane" in duts:
        commands["twinplane"] = shlex.join(
            [
                "ip",
                "netns",
                "exec",
                netns,
                *twinplane_cmd(args.twinplane, cfg, sock, work / "twinplane.RUN.log"),
            ]
        )
        commands["twinplane_config"] = cfg.read_text()
    print(
        f"fwd_cost: {args.runs} runs x {args.seconds:g} s, TSC {hz / 1e6:.0f} MHz, work dir {work}"
    )

    runs: dict[str, list[dict[str, Any]]] = {d: [] for d in duts}
    for i in range(args.runs):
        line = [f"[run {i + 1}/{args.runs}]"]
        for d in duts:
            if d == "l3fwd":
                dut: Dut = L3fwd(
                    l3fwd_cmd(args.l3fwd, p0, p1), work / f"l3fwd.{i + 1}.log", L3FWD_PREFIX
                )
            elif d == "testpmd":
                dut = Testpmd(
                    testpmd_cmd(args.testpmd, p0, p1),
                    work / f"testpmd.{i + 1}.log",
                    TESTPMD_PREFIX,
                )
            else:
                log = work / f"twinplane.{i + 1}.log"
                dut = Twinplane(
                    twinplane_cmd(args.twinplane, cfg, sock, log),
                    work / f"twinplane.{i + 1}.out",
                    TP_NAME,
                    sock,
                    netns,
                )
            try:
                dut.start()
                if isinstance(dut, Twinplane):
                    dut.wait_api(60)
                dut.connect(60)
                mac = dut.port_mac(IN_PORT)
                if mac.lower() != pcapgen.PCAP_PORT0_MAC:
                    raise dut.fail(
                        f"port {IN_PORT} MAC is {mac!r}, the input "
                        f"is addressed to {pcapgen.PCAP_PORT0_MAC}"
                    )
                offloads = dut.offloads()
                r = measure(dut, args.warmup, args.seconds, hz)
            except BaseException as e:
                # its own session: a Ctrl-C reaches only this script, which stops it
                dut.stop()
                if not isinstance(e, BenchError):
                    raise
                if isinstance(dut, Twinplane):
                    extra = dut.log.with_suffix(".log")
                    if extra.exists():
                        print(
                            f"--- {extra} (daemon --log-file) "
                            f"---\n{extra.read_text(errors='replace')[-6000:]}",
                            file=sys.stderr,
                        )
                print(f"fwd_cost: {e}", file=sys.stderr)
                return 1
            rc = dut.stop()
            r["exit_code"] = rc
            r["counter_source"] = getattr(dut, "source", "telemetry")
            r["offloads"] = offloads
            r["run"] = i + 1
            runs[d].append(r)
            line.append(f"{d} {r['mpps']:6.2f} Mpps {r['cycles_per_pkt']:6.1f} cyc/pkt")
        if "twinplane" in duts and "l3fwd" in duts:
            t, l3 = runs["twinplane"][-1], runs["l3fwd"][-1]
            line.append(f"ratio {t['mpps'] / l3['mpps']:.3f}")
            if "testpmd" in duts:
                o = overhead_ratio(
                    t["cycles_per_pkt"], l3["cycles_per_pkt"], runs["testpmd"][-1]["cycles_per_pkt"]
                )
                line.append(f"overhead ratio {o:.3f}" if o is not None else "overhead ratio n/a")
        print("  ".join(line), flush=True)

    summary: dict[str, Any] = {
        d: {
            "mpps": summarize([r["mpps"] for r in runs[d]]),
            "cycles_per_pkt": summarize([r["cycles_per_pkt"] for r in runs[d]]),
        }
        for d in duts
    }
    ratio = over = None
    per_run_over: list[float | None] = []
    if "twinplane" in duts and "l3fwd" in duts:
        ratio = summary["twinplane"]["mpps"]["median"] / summary["l3fwd"]["mpps"]["median"]
        summary["paired_ratio"] = summarize(
            [t["mpps"] / l3["mpps"] for t, l3 in zip(runs["twinplane"], runs["l3fwd"], strict=True)]
        )
    if ratio is not None and "testpmd" in duts:
        med = {d: summary[d]["cycles_per_pkt"]["median"] for d in duts}
        over = overhead_ratio(med["twinplane"], med["l3fwd"], med["testpmd"])
        # the same ratio within each interleaved run (l3fwd, twinplane, testpmd)
        per_run_over = [
            overhead_ratio(t["cycles_per_pkt"], l3["cycles_per_pkt"], f["cycles_per_pkt"])
            for l3, t, f in zip(runs["l3fwd"], runs["twinplane"], runs["testpmd"], strict=True)
        ]
        defined = [o for o in per_run_over if o is not None]
        if defined:
            summary["paired_overhead_ratio"] = summarize(defined) | {
                "undefined": len(per_run_over) - len(defined)
            }
    floor = summary["testpmd"]["cycles_per_pkt"]["median"] if "testpmd" in summary else None

    doc: dict[str, Any] = {
        "benchmark": "fwd_cost",
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "git": git_rev(),
        "twinplane_mpps_median": summary["twinplane"]["mpps"]["median"]
        if "twinplane" in summary
        else None,
        "l3fwd_mpps_median": summary["l3fwd"]["mpps"]["median"] if "l3fwd" in summary else None,
        "testpmd_io_mpps_median": summary["testpmd"]["mpps"]["median"]
        if "testpmd" in summary
        else None,
        "ratio": ratio,
        "twinplane_overhead_over_l3fwd_overhead": over,
        "twinplane_overhead_over_l3fwd_overhead_per_run": per_run_over,
        "overhead_definition": "(twinplane - testpmd) / (l3fwd - testpmd), in cycles per "
        "packet: of the medians for the headline, within each interleaved run for the list; "
        "testpmd --forward-mode=io is the floor (net_pcap rx copy + tx free + loop)",
        "twinplane_mpps": [r["mpps"] for r in runs.get("twinplane", [])],
        "l3fwd_mpps": [r["mpps"] for r in runs.get("l3fwd", [])],
        "testpmd_mpps": [r["mpps"] for r in runs.get("testpmd", [])],
        "twinplane_cycles_per_pkt": [r["cycles_per_pkt"] for r in runs.get("twinplane", [])],
        "l3fwd_cycles_per_pkt": [r["cycles_per_pkt"] for r in runs.get("l3fwd", [])],
        "testpmd_cycles_per_pkt": [r["cycles_per_pkt"] for r in runs.get("testpmd", [])],
        "cycles_per_pkt_median": {d: summary[d]["cycles_per_pkt"]["median"] for d in duts},
        "cycles_per_pkt_above_floor_median": {
            d: summary[d]["cycles_per_pkt"]["median"] - floor for d in duts if d != "testpmd"
        }
        if floor is not None
        else None,
        "summary": summary,
        "tsc_hz": hz,
        "tsc_hz_source": hz_src,
        "cycles_per_pkt_definition": "TSC Hz / forwarded packets per second (port 1 opackets "
        "rate); the worker lcore busy-polls",
        "lcores": {"main": MAIN_LCORE, "worker": WORKER_LCORE},
        "params": {
            "runs": args.runs,
            "seconds": args.seconds,
            "warmup": args.warmup,
            "order": "interleaved: " + ", ".join(duts) + ", ...",
        },
        "input": {
            "frames": args.frames,
            "frame_len": pcapgen.FRAME_LEN,
            "dst_net": pcapgen.DEFAULT_DST_NET,
            "generator_stream": pcapgen.stream_spec(),
            "dst_mac": pcapgen.PCAP_PORT0_MAC,
            "src": pcapgen.DEFAULT_SRC_IP,
        },
        "ports": {"0": p0.replace(str(work) + "/", ""), "1": p1.replace(str(work) + "/", "")},
        "machine": machine_info(),
        "commands": commands,
        "runs": runs,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "fwd_cost.json").write_text(json.dumps(doc, indent=1) + "\n")
    write_plot(args.out / "fwd_cost.png", runs, ratio, over)
    write_markdown(args.out / "fwd_cost.md", doc)
    for d in duts:
        m = summary[d]["mpps"]
        print(
            f"{d}: median {m['median']:.2f} Mpps (min {m['min']:.2f}, max "
            f"{m['max']:.2f}), {summary[d]['cycles_per_pkt']['median']:.1f} cycles/pkt"
        )
    if ratio is not None:
        pr = summary["paired_ratio"]
        print(
            f"ratio twinplane/l3fwd: {ratio:.3f} (per run: median {pr['median']:.3f}, "
            f"min {pr['min']:.3f}, max {pr['max']:.3f})"
        )
    if "paired_overhead_ratio" in summary or over is not None:
        po = summary.get("paired_overhead_ratio")
        print(
            "cycles above the testpmd floor, twinplane/l3fwd: "
            + (f"{over:.3f}" if over is not None else "undefined")
            + (
                f" (per run: median {po['median']:.3f}, min {po['min']:.3f}, max {po['max']:.3f})"
                if po
                else ""
            )
        )
    print(f"wrote {args.out}/fwd_cost.{{md,png,json}}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: BSD-3-Clause
"""Devices under test and the wires to them (bench/rfc2544_ip4.py).

Traffic always goes generator port g0 -> DUT port 0 -> DUT port 1 ->
generator port g1. The DUT gets CPU 0, the generator CPU 1 (``DUT_CPU``,
``GEN_CPU``); this process pins itself to the generator's CPU.

Wires (``WIRES``):

- ``memif``: shared memory, ``net_memif`` pairs. The generator's ports are
  memif servers (one socket file per link), the DUT's ports the clients. No
  kernel on the path; every frame is copied into and out of the shared
  rings by the two DPDK processes.
- ``veth``: kernel interfaces. Two veth pairs between a generator namespace
  and a DUT namespace, offloads off (``ethtool -K IF tx off tso off gso
  off``). DPDK processes own their ends through ``net_af_xdp`` (native XDP on
  veth, copy mode); the kernel carries every frame across each pair.

DUTs (``DUTS``): ``loopback`` (no DUT: the generator's two ports joined
straight, the wire's own ceiling), ``twinplane``, ``l3fwd`` (DPDK's example,
scripts/build-l3fwd.sh), ``kernel`` (Linux forwarding in the DUT namespace,
veth only) and ``testdut`` (tests/tools/tp-testdut, a plain DPDK
forwarder, optionally lossy or rate-capped: the tests' synthetic DUT).

Addressing, the same for every DUT::

    gen g0  198.18.0.2  02:74:67:00:00:00  --->  DUT p0  198.18.0.1/24  02:74:64:00:00:00
    gen g1  198.19.1.2  02:74:67:00:00:01  <---  DUT p1  198.19.1.1/24  02:74:64:00:00:01
    streams: 198.18.0.2 -> 198.18.1.1-254 (UDP); the DUT routes 198.18.1.0/24 via
    198.19.1.2 (a permanent neighbour with g1's MAC); l3fwd's built-in LPM table
    sends 198.18.1.0/24 to port 1, --eth-dest=1,<g1 MAC>.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import os
import platform
import re
import secrets
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from twinplane.bench.gen import Gen, gen_binary
from twinplane.bench.rfc2544 import TrialFn, TrialResult
from twinplane.bench.telemetry import Telemetry, TelemetryError, wait_for_socket
from twinplane.lab.daemon import REPO_ROOT, Daemon, build_dir, daemon_binary
from twinplane.lab.netns import Netns, _pid_alive, list_netns, veth
from twinplane.proc import Process, remove_dpdk_runtime, tail

DUT_CPU = 0
GEN_CPU = 1
WIRES = ("memif", "veth")
DUTS = {
    "memif": ("loopback", "twinplane", "l3fwd"),
    "veth": ("loopback", "twinplane", "l3fwd", "kernel"),
}
ALL_DUTS = ("loopback", "testdut", "twinplane", "l3fwd", "kernel")

GEN_MAC = ("02:74:67:00:00:00", "02:74:67:00:00:01")
DUT_MAC = ("02:74:64:00:00:00", "02:74:64:00:00:01")
GEN_IP = ("198.18.0.2", "198.19.1.2")
DUT_ADDR = ("198.18.0.1/24", "198.19.1.1/24")
DST_NET = "198.18.1.0/24"
DST_RANGE = "198.18.1.1-198.18.1.254"

# search upper bounds per wire: packets/s and L2 bit/s (the lower wins)
WIRE_MAX = {"memif": (40e6, 200e9), "veth": (2e6, 40e9)}

NS_PREFIX = "tpr"  # namespaces: tpr<pid>-<hex>-{g,d}


class DutError(RuntimeError):
    """A DUT or its wire could not be set up, or died."""


def wire_max_pps(wire: str, size: int) -> float:
    pps, bps = WIRE_MAX[wire]
    return min(pps, bps / (size * 8))


# --------------------------------------------------------------------------
# machine


def ensure_hugepages(free_mib: int = 1536) -> dict[str, Any]:
    """Make sure ``free_mib`` MiB of 2 MiB hugepages are free and hugetlbfs is
    mounted; raise nr_hugepages by the shortfall. Returns what was done."""
    info: dict[str, Any] = {}
    mem = Path("/proc/meminfo").read_text()
    free = int(re.search(r"HugePages_Free:\s+(\d+)", mem).group(1))  # type: ignore[union-attr]
    nr = Path("/proc/sys/vm/nr_hugepages")
    total = int(nr.read_text())
    need = free_mib // 2
    info["before"] = {"total": total, "free": free}
    if free < need:
        nr.write_text(f"{total + need - free}\n")
        info["raised_to"] = int(nr.read_text())
    mounts = Path("/proc/mounts").read_text()
    if not any(ln.split()[2:3] == ["hugetlbfs"] for ln in mounts.splitlines()):
        os.makedirs("/dev/hugepages", exist_ok=True)
        subprocess.run(["mount", "-t", "hugetlbfs", "nodev", "/dev/hugepages"], check=True)
        info["mounted"] = "/dev/hugepages"
    return info


def tsc_hz() -> tuple[float, str]:
    """TSC frequency: the kernel's calibration if it logged one, else /proc/cpuinfo."""
    try:
        out = subprocess.run(
            ["dmesg"], check=False, capture_output=True, text=True, timeout=5
        ).stdout
        m = re.search(r"tsc: Detected ([0-9.]+) MHz", out)
        if m:
            return float(m.group(1)) * 1e6, "kernel log 'tsc: Detected N MHz'"
    except (OSError, subprocess.SubprocessError):
        pass
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("cpu MHz"):
            return float(line.split(":")[1]) * 1e6, "/proc/cpuinfo 'cpu MHz'"
    raise DutError("cannot tell the CPU frequency")


def cpu_instruction_set(build: Path | None = None) -> str | None:
    """The -march twinplane was built with (meson's cpu_instruction_set, from the build
    directory's introspection file; scripts/build-l3fwd.sh builds l3fwd with the same),
    or None if the build directory is not set up."""
    path = (build or build_dir()) / "meson-info" / "intro-buildoptions.json"
    try:
        opts = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return next((o["value"] for o in opts if o["name"] == "cpu_instruction_set"), None)


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {"kernel": platform.release(), "nproc": os.cpu_count()}
    info["cpu_instruction_set"] = cpu_instruction_set()
    with contextlib.suppress(OSError):
        lscpu = subprocess.run(["lscpu"], check=False, capture_output=True, text=True).stdout
        for key in ("Model name", "Hypervisor vendor", "CPU max MHz", "L2 cache", "L3 cache"):
            m = re.search(rf"^{key}:\s*(.+)$", lscpu, re.MULTILINE)
            if m:
                info[key.lower().replace(" ", "_")] = m.group(1).strip()
    with contextlib.suppress(OSError):
        info["dpdk"] = subprocess.run(
            ["pkg-config", "--modversion", "libdpdk"], check=False, capture_output=True, text=True
        ).stdout.strip()
    info["loadavg_at_start"] = Path("/proc/loadavg").read_text().split()[:3]
    info["user_hz"] = os.sysconf("SC_CLK_TCK")
    with contextlib.suppress(OSError):
        import gzip

        with gzip.open("/proc/config.gz", "rt") as f:
            cfg = f.read()
        for key in ("CONFIG_HZ", "CONFIG_IRQ_TIME_ACCOUNTING", "CONFIG_TICK_CPU_ACCOUNTING"):
            m = re.search(rf"^{key}=(\S+)", cfg, re.MULTILINE)
            info[key.lower()] = m.group(1) if m else "n"
    return info


def git_rev() -> str:
    r = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "rev-parse", "--short", "HEAD"],
        check=False,
        capture_output=True,
        text=True,
    )
    rev = r.stdout.strip() if r.returncode == 0 else "none"
    d = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "status", "--porcelain", "--untracked-files=no"],
        check=False,
        capture_output=True,
        text=True,
    )
    return rev + ("-dirty" if d.stdout.strip() else "")


def reap_stale_namespaces() -> list[str]:
    """Delete tpr<pid>-... namespaces of bench processes that no longer run."""
    gone = []
    for name in list_netns():
        m = re.match(rf"^{NS_PREFIX}(\d+)-", name)
        if m and not _pid_alive(int(m.group(1))):
            Netns(name).delete()
            gone.append(name)
    return gone


def cpu_ticks(cpu: int) -> dict[str, int]:
    """/proc/stat's line for ``cpu``: ticks (USER_HZ) per state."""
    keys = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
    for line in Path("/proc/stat").read_text().splitlines():
        f = line.split()
        if f and f[0] == f"cpu{cpu}":
            return dict(zip(keys, (int(x) for x in f[1:9]), strict=False))
    raise DutError(f"no cpu{cpu} in /proc/stat")


def softirq_counts(kind: str = "NET_RX") -> list[int]:
    """/proc/softirqs: how often ``kind`` ran on each CPU."""
    for line in Path("/proc/softirqs").read_text().splitlines():
        f = line.split()
        if f and f[0] == f"{kind}:":
            return [int(x) for x in f[1:]]
    return []


def cpu_busy(seconds: float = 1.0, cpus: tuple[int, ...] = (DUT_CPU, GEN_CPU)) -> dict[int, float]:
    """Busy fraction of each CPU over ``seconds`` (/proc/stat; this process sleeps meanwhile)."""
    a = {c: cpu_ticks(c) for c in cpus}
    time.sleep(seconds)
    b = {c: cpu_ticks(c) for c in cpus}
    out = {}
    for c in cpus:
        d = {k: b[c][k] - a[c][k] for k in a[c]}
        total = sum(d.values())
        out[c] = (total - d["idle"] - d["iowait"]) / total if total else 0.0
    return out


def xcpu_probe_binary() -> Path:
    return Path(os.environ.get("TP_XCPU_PROBE", build_dir() / "src" / "tp-xcpu-probe"))


def xcpu_probe(cpus: tuple[int, int] = (DUT_CPU, GEN_CPU)) -> dict[str, Any] | None:
    """The host placement of two vCPUs, as the round trip of a cache line between
    them (``src/tools/xcpu-probe.c``): about 50-90 ns when the host runs them on
    cores that share a cache, 150-400 ns or 1,100+ ns when it does not. Every frame
    on a memif wire crosses between the generator's CPU and the DUT's, so a DUT's
    cycles per packet there move by up to 3x with this (docs/results/README.md).

    Runs for ~20-30 ms under SCHED_FIFO, so it preempts the busy-polling generator
    and DUT: call it between trials, never during one. None when the probe is not
    built or fails."""
    exe = xcpu_probe_binary()
    if not exe.exists():
        return None
    try:
        out = subprocess.run(
            ["chrt", "-f", "50", str(exe), str(cpus[0]), str(cpus[1]), "1000", "7"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    try:
        d = json.loads(out.stdout)
    except ValueError:
        return None
    return {"rtt_ns": d["rtt_ns"], "rtt_ns_min": d["rtt_ns_min"]}


def placement(rtt_ns: float | None) -> str | None:
    """A probe's round trip as a class: ``near`` (the two vCPUs share a cache, under
    120 ns), ``mid`` (under 600 ns) or ``far``."""
    if rtt_ns is None:
        return None
    return "near" if rtt_ns < 120 else "mid" if rtt_ns < 600 else "far"


PLACEMENTS = ("near", "mid", "far")


def search_placement(rtts: list[float | None]) -> dict[str, Any]:
    """A search's placement (``placement``) from its trials' probes: the class of at
    least 80 % of them, else None (the host moved the vCPUs during the search); and
    the probes' median round trip."""
    classes = [placement(x) for x in rtts if x is not None]
    if not classes:
        return {"placement": None, "xcpu_rtt_ns": None}
    top = max(set(classes), key=classes.count)
    return {
        "placement": top if classes.count(top) >= 0.8 * len(classes) else None,
        "xcpu_rtt_ns": statistics.median(x for x in rtts if x is not None),
    }


def wait_quiet(
    max_busy: float = 0.15, timeout: float = 900.0, on_wait: Any = None
) -> dict[str, Any]:
    """Wait until neither CPU is more than ``max_busy`` busy (other sessions'
    builds, fuzzers...) for two samples in a row, at most ``timeout`` seconds.
    Call with nothing of ours running. Returns what was seen."""
    t0 = time.monotonic()
    quiet = 0
    busy = cpu_busy()
    first = dict(busy)
    while time.monotonic() - t0 < timeout:
        quiet = quiet + 1 if max(busy.values()) <= max_busy else 0
        if quiet >= 2:
            break
        if on_wait is not None and not quiet:
            on_wait(busy, time.monotonic() - t0)
        busy = cpu_busy()
    return {
        "busy_first": first,
        "busy_last": busy,
        "waited_s": round(time.monotonic() - t0, 1),
        "quiet": quiet >= 2,
        "loadavg": Path("/proc/loadavg").read_text().split()[:3],
    }


def pinned_threads(pid: int, cpu: int) -> list[int]:
    """Threads of ``pid`` whose CPU affinity is exactly {cpu} (DPDK lcores)."""
    out = []
    with contextlib.suppress(OSError):
        for tid in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                if os.sched_getaffinity(int(tid)) == {cpu}:
                    out.append(int(tid))
    return sorted(out)


def kernel_thread(comm: str) -> int | None:
    """Pid of the kernel thread named ``comm`` (e.g. ksoftirqd/0)."""
    for d in os.listdir("/proc"):
        if d.isdigit():
            with contextlib.suppress(OSError):
                if Path(f"/proc/{d}/comm").read_text().strip() == comm:
                    return int(d)
    return None


def run_delay_ns(tid: int) -> int:
    """Time ``tid`` has spent runnable but waiting for its CPU (/proc/PID/schedstat)."""
    try:
        return int(Path(f"/proc/{tid}/schedstat").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def runtime_ns(tid: int) -> int:
    """CPU time ``tid`` has run (/proc/PID/schedstat)."""
    try:
        return int(Path(f"/proc/{tid}/schedstat").read_text().split()[0])
    except (OSError, IndexError, ValueError):
        return 0


class CpuWatch:
    """How long the threads that matter waited for their CPU during a trial.

    A DPDK lcore that busy-polls is never off its CPU unless something else
    runs there: another process of this shared machine, a kernel thread. Its
    run-queue wait (the scheduler's ``run_delay``) during a trial says whether
    the trial measured the DUT or the neighbours. Groups: ``dut`` (the DUT's
    threads pinned to DUT_CPU, or ksoftirqd on it for the kernel) and ``gen``
    (the generator's threads pinned to GEN_CPU)."""

    def __init__(self) -> None:
        self.groups: dict[str, list[int]] = {}
        # every thread of ours on each CPU, to tell what share of it others took
        self.ours: dict[int, list[int]] = {}
        self.kernel_dut = False  # the DUT is softirq work: count others from /proc/stat

    def add(self, group: str, tids: list[int]) -> None:
        self.groups.setdefault(group, []).extend(tids)

    def add_ours(self, cpu: int, tids: list[int]) -> None:
        self.ours.setdefault(cpu, []).extend(tids)

    def snapshot(self) -> dict[str, Any]:
        snap: dict[str, Any] = {
            g: sum(run_delay_ns(t) for t in tids) for g, tids in self.groups.items()
        }
        snap["_t"] = time.monotonic()
        snap["_run"] = {c: sum(runtime_ns(t) for t in tids) for c, tids in self.ours.items()}
        if self.kernel_dut:
            snap["_ticks"] = cpu_ticks(DUT_CPU)
        return snap

    def wait_ms(self, a: dict[str, Any], b: dict[str, Any]) -> dict[str, float]:
        return {g: (b[g] - a.get(g, 0)) / 1e6 for g in b if not g.startswith("_")}

    def others_share(self, a: dict[str, Any], b: dict[str, Any]) -> dict[str, float]:
        """Share of each CPU that tasks not ours had during the interval: 1 - our
        threads' run time / wall time (busy-polling threads would have it all).
        For the kernel DUT, CPU 0's user+nice+system ticks (its forwarding is softirq)."""
        wall = (b["_t"] - a["_t"]) * 1e9
        out = {}
        for c in b["_run"]:
            if c == DUT_CPU and self.kernel_dut:
                continue
            out[f"cpu{c}"] = (
                round(max(0.0, 1.0 - (b["_run"][c] - a["_run"].get(c, 0)) / wall), 4)
                if wall
                else 0.0
            )
        if self.kernel_dut:
            d = {k: b["_ticks"][k] - a["_ticks"][k] for k in a["_ticks"]}
            tot = sum(d.values())
            out[f"cpu{DUT_CPU}"] = (
                round((d["user"] + d["nice"] + d["system"]) / tot, 4) if tot else 0.0
            )
        return out


# --------------------------------------------------------------------------
# binaries


@dataclass
class Binaries:
    gen: Path = field(default_factory=gen_binary)
    twinplane: Path = field(default_factory=daemon_binary)
    l3fwd: Path = field(default_factory=lambda: build_dir() / "l3fwd" / "dpdk-l3fwd")
    testdut: Path = field(
        default_factory=lambda: Path(
            os.environ.get("TP_TESTDUT", build_dir() / "tests" / "tools" / "tp-testdut")
        )
    )


# --------------------------------------------------------------------------
# DUT processes


def dpdk_process(argv: list[str], prefix: str, log: Path, label: str, netns: str | None) -> Process:
    """A DPDK process of ours (l3fwd, tp-testdut), optionally in a namespace: stopped
    with SIGINT (SIGKILL after 10 s), its EAL runtime files removed afterwards."""
    return Process(
        argv,
        log,
        label=label,
        netns=netns,
        stop_signal=signal.SIGINT,
        stop_timeout=10.0,
        cleanup=functools.partial(remove_dpdk_runtime, prefix),
        error=DutError,
    )


class Dut:
    """What a testbed needs from a DUT. ``loopback`` is this base: no DUT.

    ``switch``: the DUT is an L2 switch (bench/ovs.py): the streams go to the
    generator's own second MAC, which the testbed teaches it first."""

    name = "loopback"
    wires: tuple[str, ...] = WIRES
    gen_rxq: int | None = None  # receive queues the generator's memif servers need
    switch = False

    def __init__(self, tb: Testbed) -> None:
        self.tb = tb

    def start(self, ports: tuple[str, str]) -> None:
        pass

    def stop(self) -> None:
        pass

    def running(self) -> bool:
        return True

    def describe(self) -> dict[str, Any]:
        return {"dut": self.name}

    def logs(self) -> str:
        return ""

    def watch_tids(self) -> list[int]:
        """Threads doing the DUT's forwarding on DUT_CPU (for CpuWatch)."""
        return []

    def pid(self) -> int | None:
        return None

    def all_tids(self) -> list[int]:
        """Every thread of the DUT's process pinned to DUT_CPU."""
        pid = self.pid()
        return pinned_threads(pid, DUT_CPU) if pid else []

    # cost per forwarded packet: a snapshot before and after a trial
    def cost_snapshot(self) -> dict[str, Any] | None:
        return None

    def cost(self, a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any] | None:
        return None


class TwinplaneDut(Dut):
    name = "twinplane"

    def config_lines(self, ports: tuple[str, str]) -> list[str]:
        """The daemon's start-up configuration: a router between the two ports."""
        return [
            "# bench/rfc2544_ip4.py: twinplane as the DUT",
            f"port add p0 {ports[0]}",
            f"port add p1 {ports[1]}",
            f"address add {DUT_ADDR[0]} dev p0",
            f"address add {DUT_ADDR[1]} dev p1",
            f"neigh add {GEN_IP[0]} lladdr {GEN_MAC[0]} dev p0",
            f"neigh add {GEN_IP[1]} lladdr {GEN_MAC[1]} dev p1",
            f"route add {DST_NET} via {GEN_IP[1]}",
        ]

    def start(self, ports: tuple[str, str]) -> None:
        tb = self.tb
        self.ns = tb.dut_ns or tb.own_ns("t")
        self.config = "\n".join([*self.config_lines(ports), ""])
        self.daemon = Daemon(
            self.ns,
            f"{tb.tag}t",
            tb.workdir,
            self.config,
            lcores=f"0@{DUT_CPU},1@{DUT_CPU}",
            binary=tb.bins.twinplane,
            extra_args=["--no-backoff"],
        )
        self.daemon.start(timeout=60)

    def stop(self) -> None:
        if getattr(self, "daemon", None) is not None:
            self.daemon.stop()

    def running(self) -> bool:
        return self.daemon.running()

    def logs(self) -> str:
        return self.daemon.logs()

    def watch_tids(self) -> list[int]:
        # the workers; the main thread (the first lcore, also on DUT_CPU) is the control plane
        pid = self.daemon.pid
        return [t for t in pinned_threads(pid, DUT_CPU) if t != pid]

    def pid(self) -> int | None:
        return self.daemon.pid if self.daemon.proc else None

    def describe(self) -> dict[str, Any]:
        return {
            "dut": self.name,
            "command": "ip netns exec NS " + shlex.join(self.daemon.argv),
            "config": self.config,
        }

    def cost_snapshot(self) -> dict[str, Any]:
        ws = self.daemon.client.cmd("show", "workers")["workers"]
        keys = ("busy_cycles", "total_cycles", "tx", "rx", "polls", "idle_polls")
        return {"t": time.monotonic(), **{k: sum(int(w.get(k, 0)) for w in ws) for k in keys}}

    def cost(self, a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        d = {k: b[k] - a[k] for k in a}
        tx = d["tx"]
        return {
            "method": "twinplane 'show workers': busy_cycles / tx (TSC cycles of worker loop "
            "iterations that received packets, per packet transmitted)",
            "cycles_per_pkt": d["busy_cycles"] / tx if tx else None,
            "busy_ratio": d["busy_cycles"] / d["total_cycles"] if d["total_cycles"] else None,
            "forwarded": tx,
            "delta": d,
        }


class TwinplaneL2Dut(TwinplaneDut):
    """twinplane's L2 switch: the two ports in bridge br0 (VLAN 1, MAC aging an hour, so
    no entry ages out during a search), the same lcores as the router."""

    name = "twinplane-l2"
    switch = True

    def config_lines(self, ports: tuple[str, str]) -> list[str]:
        return [
            "# bench/l2.py: twinplane's L2 switch as the DUT",
            f"port add p0 {ports[0]}",
            f"port add p1 {ports[1]}",
            "bridge add br0 aging 3600",
            # the learning benchmark's 16,384 sources on one port: no per-port limit
            # or learn rate (the defaults, 1,024 MACs and 1,000 events/s, protect a
            # port facing untrusted hosts)
            "port set p0 mode l2 bridge br0 mac-limit 0 learn-rate 0",
            "port set p1 mode l2 bridge br0 mac-limit 0 learn-rate 0",
        ]


class DpdkDut(Dut):
    """A DUT that is one DPDK process of ours (``dpdk_process``), set by ``start``."""

    process: Process | None = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()

    def running(self) -> bool:
        return self.process is not None and self.process.running()

    def logs(self) -> str:
        return self.process.logs(40) if self.process is not None else ""

    def watch_tids(self) -> list[int]:
        assert self.process is not None
        return pinned_threads(self.process.pid, DUT_CPU)

    def pid(self) -> int | None:
        return self.process.pid if self.process is not None and self.process.proc else None

    def describe(self) -> dict[str, Any]:
        return {"dut": self.name, "command": self.process.command_line if self.process else None}


class L3fwdDut(DpdkDut):
    name = "l3fwd"

    def start(self, ports: tuple[str, str]) -> None:
        tb = self.tb
        self.prefix = f"{tb.tag}l"
        argv = [
            str(tb.bins.l3fwd), "--lcores", f"0@{DUT_CPU}", "--file-prefix", self.prefix,
            "--no-pci", "--huge-unlink", "--vdev", ports[0], "--vdev", ports[1], "--",
            "-p", "0x3", "--config", "(0,0,0),(1,0,0)", "--lookup", "lpm", "--parse-ptype",
            f"--eth-dest=1,{GEN_MAC[1]}", f"--eth-dest=0,{GEN_MAC[0]}",
        ]  # fmt: skip
        proc = self.process = dpdk_process(
            argv, self.prefix, tb.workdir / "l3fwd.out", "l3fwd", tb.dut_ns_name
        )
        proc.start()
        try:
            self.tel: Telemetry = wait_for_socket(self.prefix, timeout=60, alive=proc.running)
        except TelemetryError as e:
            raise proc.fail(str(e)) from None
        # l3fwd answers telemetry before its ports are up; its main loop starts after
        proc.wait_ready(
            lambda: "entering main loop" in tail(proc.log, 200),
            60,
            "in its main loop",
            interval=0.2,
        )

    def stop(self) -> None:
        if getattr(self, "tel", None) is not None:
            self.tel.close()
        super().stop()

    def cost_snapshot(self) -> dict[str, Any]:
        busy = self.tel.command("/l3fwd/busy")
        st = self.tel.port_stats(1)
        return {
            "t": time.monotonic(),
            "busy_cycles": int(busy["busy_cycles"]),
            "total_cycles": int(busy["total_cycles"]),
            "polls": int(busy["polls"]),
            "busy_polls": int(busy["busy_polls"]),
            "rx": int(busy["rx"]),
            "tx": int(st["opackets"]),
        }

    def cost(self, a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        d = {k: b[k] - a[k] for k in a}
        tx = d["tx"]
        return {
            "method": "l3fwd patched by scripts/build-l3fwd.sh, telemetry /l3fwd/busy: busy_cycles "
            "(TSC cycles of loop iterations that received packets) / port 1 opackets",
            "cycles_per_pkt": d["busy_cycles"] / tx if tx else None,
            "busy_ratio": d["busy_cycles"] / d["total_cycles"] if d["total_cycles"] else None,
            "forwarded": tx,
            "delta": d,
        }


class TestDut(DpdkDut):
    """tests/tools/tp-testdut: forwards port 0 <-> port 1, options as given."""

    __test__ = False  # not a pytest class
    name = "testdut"

    def start(self, ports: tuple[str, str]) -> None:
        tb = self.tb
        self.prefix = f"{tb.tag}x"
        argv = [
            str(tb.bins.testdut),
            "--name",
            self.prefix,
            "--lcores",
            f"0@{DUT_CPU}",
            "--port",
            ports[0],
            "--port",
            ports[1],
            *tb.dut_args,
        ]
        self.process = dpdk_process(
            argv, self.prefix, tb.workdir / "testdut.out", "tp-testdut", tb.dut_ns_name
        )
        self.process.start()


def kernel_cost_from_ticks(run: dict[str, Any], hz: float, user_hz: int) -> dict[str, Any]:
    """Cycles per packet of the kernel DUT from a cost run's CPU ticks.

    Busy time is the wall time less what /proc/stat calls idle (and iowait)
    and less other tasks' user and system time: with the tick stopped on an
    idle CPU (NOHZ), interrupts and the softirqs they run on the way out of
    idle fall between the ticks and show up in no /proc/stat column, but the
    idle time itself is measured exactly (time between idle entry and the
    next interrupt). The softirq column alone undercounts by that much."""
    t = run["ticks"]
    wall = run["window_s"] * user_hz
    busy = wall - t["idle"] - t.get("iowait", 0) - t["user"] - t["nice"] - t["system"]
    base = run.get("idle_busy_fraction") or 0.0
    fwd = run["forwarded"]
    cyc = hz / user_hz
    out = {
        "cycles_per_pkt": max(0.0, busy - base * wall) * cyc / fwd if fwd else None,
        "cycles_per_pkt_softirq_ticks": t["softirq"] * cyc / fwd if fwd else None,
        "busy_share": busy / wall if wall else None,
        "softirq_ticks_share": t["softirq"] / wall if wall else None,
        "unaccounted_share": (wall - sum(t.values())) / wall if wall else None,
    }
    return out


class KernelDut(Dut):
    """Linux forwarding between the two veths of the DUT namespace.

    Its cost is read from /proc/stat (``kernel_cost_from_ticks``): the time
    CPU 0 was neither idle nor running tasks during the trial, the softirq
    processing that RPS on the ingress veth (rx-0/rps_cpus) steers there (IP
    forwarding, the egress veth's transmit, the XDP program of the generator's
    socket on its far end), less the same share measured in an idle second
    just before, times TSC Hz, per packet sent on the egress veth."""

    name = "kernel"
    wires = ("veth",)
    idle_window_s = 1.0

    def start(self, ports: tuple[str, str]) -> None:
        tb = self.tb
        ns = tb.dut_ns
        assert ns is not None
        self.ns = ns
        self.steps = [
            (
                "sysctl -w net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 "
                "net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.all.send_redirects=0"
            ),
            f"ip addr add {DUT_ADDR[0]} dev d0",
            f"ip addr add {DUT_ADDR[1]} dev d1",
            f"ip neigh replace {GEN_IP[0]} lladdr {GEN_MAC[0]} nud permanent dev d0",
            f"ip neigh replace {GEN_IP[1]} lladdr {GEN_MAC[1]} nud permanent dev d1",
            f"ip route add {DST_NET} via {GEN_IP[1]}",
            f"sh -c 'echo {1 << DUT_CPU:x} > /sys/class/net/d0/queues/rx-0/rps_cpus'",
            f"sh -c 'echo {1 << DUT_CPU:x} > /sys/class/net/d1/queues/rx-0/rps_cpus'",
        ]
        for step in self.steps:
            ns.run(step)
        for ifn in ("d0", "d1"):
            ns.run(["sysctl", "-qw", f"net.ipv4.conf.{ifn}.rp_filter=0"])

    def describe(self) -> dict[str, Any]:
        return {"dut": self.name, "netns_setup": self.steps}

    def watch_tids(self) -> list[int]:
        pid = kernel_thread(f"ksoftirqd/{DUT_CPU}")
        return [pid] if pid else []

    def _if_stat(self, ifname: str, key: str) -> int:
        return int(self.ns.run(["cat", f"/sys/class/net/{ifname}/statistics/{key}"]).stdout)

    def _snap(self) -> dict[str, Any]:
        return {
            "t": time.monotonic(),
            "cpu": cpu_ticks(DUT_CPU),
            "net_rx": softirq_counts("NET_RX"),
            "tx": self._if_stat("d1", "tx_packets"),
            "rx": self._if_stat("d0", "rx_packets"),
        }

    def cost_snapshot(self) -> dict[str, Any]:
        idle0 = self._snap()
        time.sleep(self.idle_window_s)
        s = self._snap()
        s["idle_before"] = idle0
        return s

    def cost(self, a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        hz = self.tb.tsc_hz
        user_hz = os.sysconf("SC_CLK_TCK")
        idle = a["idle_before"]
        idle_wall = (a["t"] - idle["t"]) * user_hz
        it = {k: a["cpu"][k] - idle["cpu"][k] for k in a["cpu"]}
        idle_busy = (
            idle_wall - it["idle"] - it["iowait"] - it["user"] - it["nice"] - it["system"]
        ) / idle_wall
        run: dict[str, Any] = {
            "method": f"CPU {DUT_CPU} time neither idle nor running tasks (/proc/stat: wall - idle "
            "- iowait - user - nice - system) during the trial, less that share in "
            "an idle second before, x TSC Hz, / packets sent on the egress veth d1",
            "window_s": b["t"] - a["t"],
            "ticks": {k: b["cpu"][k] - a["cpu"][k] for k in a["cpu"]},
            "idle_busy_fraction": max(0.0, idle_busy),
            "forwarded": b["tx"] - a["tx"],
            "net_rx_softirqs_per_cpu": [
                y - x for x, y in zip(a["net_rx"], b["net_rx"], strict=False)
            ],
        }
        run.update(kernel_cost_from_ticks(run, hz, user_hz))
        return run


DUT_CLASSES: dict[str, type[Dut]] = {
    "loopback": Dut,
    "twinplane": TwinplaneDut,
    "twinplane-l2": TwinplaneL2Dut,
    "l3fwd": L3fwdDut,
    "testdut": TestDut,
    "kernel": KernelDut,
}


def register(cls: type[Dut]) -> type[Dut]:
    """Add a DUT class defined elsewhere (bench/ovs.py) to ``DUT_CLASSES``."""
    DUT_CLASSES[cls.name] = cls
    return cls


# --------------------------------------------------------------------------
# the testbed: one wire, one DUT, one generator


def memif_devargs(index: int, role: str, sock: Path, mac: str, rsize: int | None = None) -> str:
    s = f"net_memif{index},role={role},id=0,socket={sock},socket-abstract=no,mac={mac}"
    return s + (f",rsize={rsize}" if rsize else "")


def af_xdp_devargs(index: int, iface: str) -> str:
    return f"net_af_xdp{index},iface={iface},start_queue=0,queue_count=1"


class Testbed:
    """Set up ``wire`` with ``dut`` between two generator ports; run trials; tear down.

    ``tag`` names everything (namespaces, EAL prefixes, sockets) so several
    testbeds never collide; ``workdir`` keeps configurations and logs."""

    def __init__(
        self,
        wire: str,
        dut: str,
        workdir: Path,
        bins: Binaries | None = None,
        tsc: float | None = None,
        dut_args: list[str] | None = None,
        memif_rsize: int | None = None,
        gen_eal: str | None = None,
        disturb_ms: float = 2.0,
        nice: int | None = -20,
        probe: bool = True,
    ) -> None:
        if wire not in WIRES:
            raise ValueError(f"unknown wire {wire!r}")
        if dut not in DUT_CLASSES:
            raise ValueError(f"unknown DUT {dut!r}")
        if wire not in DUT_CLASSES[dut].wires:
            raise ValueError(f"DUT {dut!r} does not run on wire {wire!r}")
        self.wire = wire
        self.dut_name = dut
        self.tag = f"{NS_PREFIX}{os.getpid()}-{secrets.token_hex(2)}"
        self.workdir = Path(workdir) / f"{wire}-{dut}-{self.tag}"
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.bins = bins or Binaries()
        self.tsc_hz = tsc or tsc_hz()[0]
        self.dut_args = list(dut_args or [])
        self.memif_rsize = memif_rsize
        self.gen_eal = gen_eal
        self.disturb_ms = disturb_ms
        self.nice = nice
        # tp-xcpu-probe before each trial: the vCPUs' placement (xcpu_probe)
        self.probe = probe
        self.reniced: dict[int, int] = {}  # tid -> nice before, for threads not ours
        self.watch = CpuWatch()
        self.namespaces: list[Netns] = []
        self.gen_ns: Netns | None = None
        self.dut_ns: Netns | None = None
        self.gen: Gen | None = None
        self.dut: Dut = DUT_CLASSES[dut](self)
        self.streams: dict[int, str] = {}
        self.wire_setup: list[str] = []
        self.gen_ports: tuple[str, str] = ("", "")
        self.dut_ports: tuple[str, str] = ("", "")

    @property
    def dut_ns_name(self) -> str | None:
        return self.dut_ns.name if self.dut_ns else None

    def own_ns(self, suffix: str) -> Netns:
        ns = Netns(f"{self.tag}-{suffix}").create()
        self.namespaces.append(ns)
        return ns

    # --- set-up ----------------------------------------------------------

    def _memif(self) -> None:
        sd = self.workdir / "memif"
        sd.mkdir(exist_ok=True)
        l0, l1 = sd / "l0.sock", sd / "l1.sock"
        r = self.memif_rsize
        if self.dut_name == "loopback":
            # one process, server and client of the same socket: g0 -> g1
            self.gen_ports = (
                memif_devargs(0, "server", l0, GEN_MAC[0], r),
                memif_devargs(1, "client", l0, GEN_MAC[1], r),
            )
        else:
            self.gen_ports = (
                memif_devargs(0, "server", l0, GEN_MAC[0], r),
                memif_devargs(1, "server", l1, GEN_MAC[1], r),
            )
            self.dut_ports = (
                memif_devargs(0, "client", l0, DUT_MAC[0], r),
                memif_devargs(1, "client", l1, DUT_MAC[1], r),
            )
        self.wire_setup.append(f"memif socket files in {sd}")

    def _veth(self) -> None:
        g = self.own_ns("g")
        self.gen_ns = g
        if self.dut_name == "loopback":
            veth(g, "g0", g, "g1")
            self.wire_setup.append("veth pair g0 <-> g1, both in the generator namespace")
        else:
            d = self.own_ns("d")
            self.dut_ns = d
            veth(g, "g0", d, "d0")
            veth(g, "g1", d, "d1")
            for ifn, mac in (("d0", DUT_MAC[0]), ("d1", DUT_MAC[1])):
                d.run(["ip", "link", "set", "dev", ifn, "address", mac])
            self.dut_ports = (af_xdp_devargs(0, "d0"), af_xdp_devargs(1, "d1"))
            self.wire_setup.append(
                "veth pairs g0 <-> d0, g1 <-> d1 (generator namespace <-> DUT namespace)"
            )
        for ifn, mac in (("g0", GEN_MAC[0]), ("g1", GEN_MAC[1])):
            g.run(["ip", "link", "set", "dev", ifn, "address", mac])
        self.gen_ports = (af_xdp_devargs(0, "g0"), af_xdp_devargs(1, "g1"))
        self.wire_setup.append(
            "offloads off on every veth end: ethtool -K IF tx off tso off gso off"
        )

    def start(
        self, sizes: tuple[int, ...] | list[int] = (64,), ready_timeout: float = 60.0
    ) -> None:
        try:
            if self.wire == "memif":
                self._memif()
            else:
                self._veth()
            self.gen = Gen(
                f"{self.tag}g",
                self.workdir,
                binary=self.bins.gen,
                netns=self.gen_ns.name if self.gen_ns else None,
                eal=self.gen_eal,
            )
            self.gen.start()
            # a memif client with several transmit queues opens as many rings
            rxq = self.dut.gen_rxq if self.wire == "memif" else None
            self.gen.port_add("g0", self.gen_ports[0], rxq=rxq)
            self.gen.port_add("g1", self.gen_ports[1], rxq=rxq)
            # memif: the generator's servers are up before the DUT's clients connect
            self.dut.start(self.dut_ports)
            if self.dut.switch:
                self.teach_switch()
            for size in sizes:
                self.add_stream(size)
            first = self.streams[min(self.streams)]
            try:
                self.gen.wait_forwarding(first, timeout=ready_timeout)
            except Exception as e:
                raise DutError(f"{self.wire}/{self.dut_name}: {e}\n{self.dut.logs()}") from e
            self._watch_threads()
        except BaseException:
            self.close()
            raise

    def _watch_threads(self) -> None:
        """The CPU watch's thread groups (DUT, generator, ours), and the DUT's and
        generator's threads reniced to ``self.nice`` if set (the kernel DUT's old
        niceness kept for close)."""
        assert self.gen is not None
        gen_pid = self.gen.pid
        # the generator's worker lcore; its first lcore (the main thread) serves the API
        gen_tids = [t for t in pinned_threads(gen_pid, GEN_CPU) if t != gen_pid]
        self.watch.add("dut", self.dut.watch_tids())
        self.watch.add("gen", gen_tids)
        self.watch.add_ours(GEN_CPU, [*pinned_threads(gen_pid, GEN_CPU), threading.get_native_id()])
        if isinstance(self.dut, KernelDut):
            self.watch.kernel_dut = True
        elif self.dut_name != "loopback":
            self.watch.add_ours(DUT_CPU, self.dut.all_tids())
        if self.nice is not None:
            for tid in self.watch.groups["dut"] + self.watch.groups["gen"]:
                if self.watch.kernel_dut and tid in self.watch.groups["dut"]:
                    self.reniced[tid] = os.getpriority(os.PRIO_PROCESS, tid)
                os.setpriority(os.PRIO_PROCESS, tid, self.nice)

    def add_stream(self, size: int, dmac: str | None = None) -> str:
        assert self.gen is not None
        name = f"s{size}"
        if dmac is None:
            dmac = GEN_MAC[1] if self.dut_name == "loopback" or self.dut.switch else DUT_MAC[0]
        self.gen.stream_add(
            name,
            "g0",
            size,
            dmac=dmac,
            smac=GEN_MAC[0],
            src=GEN_IP[0],
            dst=DST_RANGE,
            sport=1024,
            dport=1025,
            ttl=64,
        )
        self.streams[size] = name
        return name

    def teach_switch(self, frames: int = 32) -> None:
        """Send a few frames from g1 (source GEN_MAC[1], to g0) so that a switch
        DUT has learned where g1 is before the first trial and does not flood
        the streams to g1 to every port."""
        assert self.gen is not None
        self.gen.stream_add(
            "learn1",
            "g1",
            64,
            dmac=GEN_MAC[0],
            smac=GEN_MAC[1],
            src=GEN_IP[1],
            dst=GEN_IP[0],
            sport=1025,
            dport=1024,
        )
        self.gen.trial_raw("learn1", 1000, count=frames)
        self.gen.stream_del("learn1")

    def trial_fn(
        self, size: int, warmup: float | None = None, drain: float | None = None
    ) -> TrialFn:
        assert self.gen is not None
        inner = self.gen.trial_fn(self.streams[size], warmup=warmup, drain=drain)

        def fn(rate: float, duration: float) -> TrialResult:
            if not self.dut.running():
                raise DutError(f"{self.wire}/{self.dut_name}: the DUT died\n{self.dut.logs()}")
            probe = xcpu_probe() if self.probe else None
            a = self.watch.snapshot()
            r = inner(rate, duration)
            b = self.watch.snapshot()
            if probe is not None:
                r.extra["xcpu_rtt_ns"] = probe["rtt_ns"]
            w = self.watch.wait_ms(a, b)
            r.extra["cpu_wait_ms"] = {k: round(v, 3) for k, v in w.items()}
            r.extra["others_share"] = self.watch.others_share(a, b)
            # the DUT's forwarding threads lost their CPU for long enough to overflow a ring
            r.disturbed = w.get("dut", 0.0) > self.disturb_ms * max(1.0, r.elapsed_s)
            return r

        return fn

    def describe(self) -> dict[str, Any]:
        d = {
            "wire": self.wire,
            "wire_setup": self.wire_setup,
            "generator": self.gen.command_line if self.gen else None,
            "generator_ports": list(self.gen_ports),
            "dut_ports": list(self.dut_ports),
            **self.dut.describe(),
        }
        return {
            k: (v.replace(str(self.workdir) + "/", "") if isinstance(v, str) else v)
            for k, v in d.items()
        }

    def close(self) -> None:
        errors = []
        for tid, prio in self.reniced.items():  # ksoftirqd: put it back
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, tid, prio)
        self.reniced.clear()
        for fn in (self.dut.stop, (self.gen.stop if self.gen else (lambda: None))):
            try:
                fn()
            except Exception as e:  # noqa: BLE001 - keep tearing down
                errors.append(str(e))
        for ns in reversed(self.namespaces):
            try:
                ns.delete()
            except Exception as e:  # noqa: BLE001
                errors.append(str(e))
        self.namespaces.clear()
        if errors:
            raise DutError("teardown: " + "; ".join(errors))

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def bench_start(script: str, workdir: Path | None) -> tuple[float, Path] | None:
    """A benchmark's start: root checked (None, with the reason on stderr, when
    not), this process pinned to the generator's CPU, the TSC's rate, and the work
    directory (``workdir`` or a fresh one, announced)."""
    if os.geteuid() != 0:
        print(f"bench/{script}.py: run as root (namespaces, hugepages)", file=sys.stderr)
        return None
    pin_to_generator_cpu()
    tsc = tsc_hz()[0]
    wd = workdir or Path(tempfile.mkdtemp(prefix=f"tp-{script}-"))
    print(f"bench/{script}.py: work directory {wd}", flush=True)
    return tsc, wd


class CpuIsolation:
    """Keep every other task off the DUT's CPU while a benchmark runs, as CSIT's
    ``isolcpus`` does, and undo it afterwards.

    Two things make a shared machine's noise reach a poll-mode DUT, found with a
    ``sched_switch`` trace of the DUT's CPU during a trial:

    - *autogroup* (``kernel.sched_autogroup_enabled``): the scheduler first shares
      a CPU between sessions, then between the tasks of a session, so the DUT's
      ``nice -20`` counts for nothing against another session's shell or
      compiler, and such a task gets the CPU for a whole tick (4 ms at HZ=250):
      4096 ring slots last 1.6 ms at 2.5 Mpps. It is turned off for the run, so
      nice applies across the machine;
    - tasks that may run on any CPU (other sessions' processes, unbound kernel
      threads such as ``kdamond``) land on the DUT's CPU: their affinity loses
      that CPU for the run (tasks pinned to it alone, per-CPU kernel threads and
      this benchmark's own DUT are left alone).

    ``sweep()`` again before each measurement catches tasks started since; tasks
    inherit their parent's affinity, so few are new."""

    AUTOGROUP = Path("/proc/sys/kernel/sched_autogroup_enabled")

    def __init__(self, cpu: int = DUT_CPU) -> None:
        self.cpu = cpu
        self.moved: dict[int, set[int]] = {}  # tid -> affinity before
        self.autogroup_before: str | None = None
        self.autogroup_changed = False
        self.sweeps = 0
        self.unmovable = 0
        self.moved_total = 0

    def __enter__(self) -> Self:
        # a SIGTERM must undo it too: make it an exit that runs __exit__
        if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
        with contextlib.suppress(OSError):
            self.autogroup_before = self.AUTOGROUP.read_text().strip()
            if self.autogroup_before != "0":
                self.AUTOGROUP.write_text("0")
                self.autogroup_changed = True
        self.sweep()
        return self

    def __exit__(self, *exc: object) -> None:
        self.restore()

    def sweep(self) -> int:
        """Move the tasks that may run elsewhere off the CPU; returns how many moved now."""
        n = 0
        unmovable = 0
        self.sweeps += 1
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for t in tids:
                tid = int(t)
                try:
                    cpus = os.sched_getaffinity(tid)
                except OSError:
                    continue
                if self.cpu not in cpus or len(cpus) < 2:
                    continue
                try:
                    os.sched_setaffinity(tid, cpus - {self.cpu})
                except OSError:  # per-CPU kernel threads refuse
                    unmovable += 1
                    continue
                self.moved.setdefault(tid, cpus)
                n += 1
        self.moved_total += n
        self.unmovable = unmovable
        return n

    def restore(self) -> None:
        for tid, cpus in self.moved.items():
            with contextlib.suppress(OSError):
                if os.sched_getaffinity(tid) == cpus - {self.cpu}:
                    os.sched_setaffinity(tid, cpus)
        self.moved.clear()
        if self.autogroup_changed and self.autogroup_before is not None:
            with contextlib.suppress(OSError):
                self.AUTOGROUP.write_text(self.autogroup_before)
            self.autogroup_changed = False

    def describe(self) -> dict[str, Any]:
        return {
            "cpu": self.cpu,
            "autogroup_before": self.autogroup_before,
            "autogroup_during": "0" if self.autogroup_before is not None else None,
            "tasks_moved": self.moved_total,
            "sweeps": self.sweeps,
            "unmovable_last_sweep": self.unmovable,
        }


@contextlib.contextmanager
def lab_lock(path: str | None) -> Iterator[float]:
    """flock(2) on ``path`` (the same lock as ``flock /tmp/tp-lab.lock CMD``);
    yields the seconds waited for it. No lock for an empty path."""
    if not path:
        yield 0.0
        return
    t0 = time.monotonic()
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield time.monotonic() - t0
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def pin_to_generator_cpu() -> None:
    """Keep this process (and what it starts without its own pinning) on the generator's CPU."""
    with contextlib.suppress(OSError):
        os.sched_setaffinity(0, {GEN_CPU})


# DUTs defined in their own modules register themselves (``register``) on import
import twinplane.bench.ovs  # noqa: E402, F401

# SPDX-License-Identifier: BSD-3-Clause
"""The fwd_cost bed: three DPDK forwarders on one in-memory input (bench/fwd_cost.py).

Every forwarder gets the same two ports, the same lcores and is read through
the same counters; only the program differs:

- ``l3fwd``: DPDK's example router (LPM), built by scripts/build-l3fwd.sh with
  twinplane's ``-march``;
- ``twinplane``: the daemon, in a namespace of its own (its TAPs live there);
- ``testpmd``: ``dpdk-testpmd --forward-mode=io``, which moves bursts from
  port 0 to port 1 and reads nothing: the floor of any forwarder on this input.

Ports (``port_devargs``): port 0 replays a pcap of 64-byte IPv4/UDP frames from
memory (net_pcap ``infinite_rx``), port 1 frees what it is given (no
``tx_pcap``) and polls an empty capture. Lcores (``LCORES``): the EAL main lcore
(control plane) on CPU 1 with the bench process, the one forwarding lcore alone
on CPU 0 (the CPU report.main keeps other tasks off).

A trial (``Bed.trial``) starts one forwarder, waits until port 1 transmits,
lets it warm up, reads port 1's ``opackets`` over a window through DPDK
telemetry, and stops it. Cycles per packet are TSC Hz / packets per second:
the forwarding lcore busy-polls, so the whole core is charged, on every side.
The pure functions at the end turn the trials of a run into pairs.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shlex
import statistics
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twinplane.bench import duts as D
from twinplane.bench import paired, pcapgen
from twinplane.bench.telemetry import Telemetry, TelemetryError, wait_for_socket
from twinplane.lab.daemon import Daemon, build_dir, daemon_binary
from twinplane.lab.netns import Netns
from twinplane.proc import Process

MAIN_CPU, WORKER_CPU = D.GEN_CPU, D.DUT_CPU
WORKER_LCORE = 1
# lcore 0 (the main lcore, control plane) on CPU 1, lcore 1 (forwarding) on CPU 0
LCORES = f"0@{MAIN_CPU},{WORKER_LCORE}@{WORKER_CPU}"
# l3fwd forwards on its main lcore: given a main lcore of its own, that lcore would only
# spin in rte_eal_mp_wait_lcore() (a whole CPU at 100 %) while lcore 1 forwards
L3FWD_LCORES = f"{WORKER_LCORE}@{WORKER_CPU}"
IN_PORT, OUT_PORT = 0, 1
NEIGH_MAC = "02:00:00:00:00:01"  # l3fwd's default destination MAC for port 1
DUTS = ("l3fwd", "twinplane", "testpmd")
STAT_KEYS = ("ipackets", "opackets", "imissed", "ierrors", "oerrors", "rx_nombuf")


@dataclass
class Binaries:
    l3fwd: Path = field(default_factory=lambda: build_dir() / "l3fwd" / "dpdk-l3fwd")
    twinplane: Path = field(default_factory=daemon_binary)
    testpmd: Path = Path("/usr/bin/dpdk-testpmd")


def port_devargs(inp: Path, empty: Path) -> tuple[str, str]:
    """rx_pcap twice on each port: net_pcap gives a port one tx queue per rx_pcap
    argument, and l3fwd sets up one tx queue per lcore (2)."""
    return (
        f"net_pcap0,rx_pcap={inp},rx_pcap={inp},infinite_rx=1",
        f"net_pcap1,rx_pcap={empty},rx_pcap={empty}",
    )


def twinplane_config(p0: str, p1: str) -> str:
    """One next hop for the whole prefix, as l3fwd's built-in LPM table has."""
    return "\n".join(
        [
            "# bench/fwd_cost.py: twinplane as the router",
            f"port add p0 {p0}",
            f"port add p1 {p1}",
            "address add 198.18.0.1/24 dev p0",
            "address add 10.1.1.1/24 dev p1",
            f"neigh add 10.1.1.2 lladdr {NEIGH_MAC} dev p1",
            f"route add {pcapgen.DEFAULT_DST_NET} via 10.1.1.2",
            "",
        ]
    )


def twinplane_config6(p0: str, p1: str) -> str:
    """IPv6 (issue 35): the same shape, l3fwd's built-in LPM6 route to port 1 through
    one permanent neighbour (a /64 and a /128 in twinplane's rte_lpm6)."""
    return "\n".join(
        [
            "# bench/fwd_cost.py: twinplane as the IPv6 router",
            f"port add p0 {p0}",
            f"port add p1 {p1}",
            "address6 add 2001:200::1/64 dev p0",
            "address6 add 2001:db8:1::1/64 dev p1",
            f"neigh6 add 2001:db8:1::2 lladdr {NEIGH_MAC} dev p1",
            f"route6 add {pcapgen.DEFAULT_DST_NET6} via 2001:db8:1::2",
            "",
        ]
    )


def eal_args(prefix: str, p0: str, p1: str, lcores: str = LCORES) -> list[str]:
    return [
        "--lcores",
        lcores,
        "--file-prefix",
        prefix,
        "--no-pci",
        "--huge-unlink",
        "--vdev",
        p0,
        "--vdev",
        p1,
    ]


def l3fwd_argv(binary: Path, prefix: str, p0: str, p1: str, ipv6: bool = False) -> list[str]:
    """Both ports polled by the one lcore (twinplane polls every port); ``--parse-ptype``
    because net_pcap reports no packet types. ``--ipv6``: l3fwd's IPv6 mode; with
    ``--lookup lpm`` it looks IPv6 packets up in its LPM6 table (rte_lpm6, the built-in
    2001:200:0:{0-f}::/64 routes) by packet type, IPv4 or not."""
    q = f"({IN_PORT},0,{WORKER_LCORE}),({OUT_PORT},0,{WORKER_LCORE})"
    return [
        str(binary),
        *eal_args(prefix, p0, p1, L3FWD_LCORES),
        "--",
        "-p",
        "0x3",
        "--config",
        q,
        "--lookup",
        "lpm",
        "--parse-ptype",
        *(["--ipv6"] if ipv6 else []),
    ]


def testpmd_argv(binary: Path, prefix: str, p0: str, p1: str) -> list[str]:
    """io mode, one forwarding lcore for both streams (0 -> 1, 1 -> 0). Not
    interactive: with stdin on /dev/null ``--stats-period`` keeps the main lcore
    sleeping until SIGINT (an hour: it prints nothing during a trial).
    ``--no-flush-rx``: infinite_rx never runs dry. 8192 mbufs: l3fwd's pool."""
    return [
        str(binary),
        *eal_args(prefix, p0, p1),
        "--",
        "--forward-mode=io",
        "--nb-cores=1",
        "--portmask=0x3",
        "--stats-period=3600",
        "--no-flush-rx",
        "--total-num-mbufs=8192",
    ]


def twinplane_cflags(build: Path | None = None) -> str | None:
    """The flags twinplane's fast path was compiled with (src/core/worker.c in the
    build's compile_commands.json: -O, -march, -f and -D), None without a build."""
    try:
        cmds = json.loads(((build or build_dir()) / "compile_commands.json").read_text())
    except (OSError, ValueError):
        return None
    for c in cmds:
        if c["file"].endswith("src/core/worker.c") and "libtwinplane.a.p" in c["command"]:
            flags = [a for a in shlex.split(c["command"]) if a[:2] in ("-O", "-m", "-f", "-D")]
            return " ".join(dict.fromkeys(a for a in flags if not a.startswith("-fdiag")))
    return None


def l3fwd_cflags(build: Path | None = None) -> str | None:
    """l3fwd's CFLAGS as its patched Makefile has them (scripts/build-l3fwd.sh)."""
    src = (build or build_dir()) / "l3fwd-src" / "l3fwd"
    r = subprocess.run(
        ["make", "-s", "-C", str(src), "--eval", "tp-cflags: ; @echo $(CFLAGS)", "tp-cflags"],
        check=False,
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        return None
    return " ".join(a for a in r.stdout.split() if not a.startswith("-I"))


class Forwarder:
    """One forwarder's process, its telemetry and its own busy counters."""

    name = ""

    def __init__(self, bed: Bed) -> None:
        self.bed = bed
        self.prefix = f"{bed.tag}{self.name[0]}"
        self.proc: Process | None = None
        self.tel: Telemetry | None = None

    def launch(self) -> Process:
        """Its process, not started yet."""
        raise NotImplementedError

    def start(self) -> None:
        proc = self.proc = self.launch()
        proc.start()
        try:
            self.tel = wait_for_socket(self.prefix, timeout=60, alive=proc.running)
        except TelemetryError as e:
            raise proc.fail(str(e)) from None
        renice(proc.pid)

    def running(self) -> bool:
        return self.proc is not None and self.proc.running()

    def sample(self) -> tuple[float, dict[int, dict[str, Any]]]:
        assert self.tel is not None
        return self.tel.sample([IN_PORT, OUT_PORT])

    def busy(self) -> dict[str, int] | None:
        """Its own cycle counters (busy/total cycles of the forwarding lcore), if any."""
        return None

    def drops(self) -> dict[str, int]:
        """Its own drop counters by reason, if any."""
        return {}

    def stop(self) -> str | None:
        """Stop it; why the shutdown was not clean, or None."""
        if self.tel is not None:
            self.tel.close()
        if self.proc is None:
            return None
        self.proc.stop()
        return self.proc.shutdown_problem()


class L3fwd(Forwarder):
    name = "l3fwd"

    def launch(self) -> Process:
        b = self.bed
        argv = l3fwd_argv(b.bins.l3fwd, self.prefix, *b.ports, ipv6=b.family == "ip6")
        return D.dpdk_process(argv, self.prefix, b.log("l3fwd"), "l3fwd", None)

    def busy(self) -> dict[str, int]:
        assert self.tel is not None
        b = self.tel.command(f"/l3fwd/busy,{WORKER_LCORE}")
        return {k: int(b[k]) for k in ("busy_cycles", "total_cycles", "rx")}


class Testpmd(Forwarder):
    name = "testpmd"

    def launch(self) -> Process:
        b = self.bed
        argv = testpmd_argv(b.bins.testpmd, self.prefix, *b.ports)
        return D.dpdk_process(argv, self.prefix, b.log("testpmd"), "testpmd", None)


class Twinplane(Forwarder):
    name = "twinplane"

    def launch(self) -> Process:
        b = self.bed
        self.ns = Netns(f"{b.tag}-t").create()
        # Daemon.start (through Forwarder.start) waits until its API answers
        self.daemon = Daemon(
            self.ns,
            self.prefix,
            b.trial_dir(),
            (twinplane_config6 if b.family == "ip6" else twinplane_config)(*b.ports),
            lcores=LCORES,
            binary=b.bins.twinplane,
            extra_args=["--no-backoff", "--eal", "--no-pci"],
        )
        return self.daemon

    def busy(self) -> dict[str, int]:
        ws = self.daemon.client.cmd("show", "workers")["workers"]
        w = next(w for w in ws if w["lcore"] == WORKER_LCORE)
        return {k: int(w[k]) for k in ("busy_cycles", "total_cycles", "rx")}

    def drops(self) -> dict[str, int]:
        return dict(self.daemon.client.cmd("show", "counters").get("drops", {}))

    def stop(self) -> str | None:
        try:
            return super().stop()
        finally:
            if getattr(self, "ns", None) is not None:
                self.ns.delete()


FORWARDERS: dict[str, type[Forwarder]] = {c.name: c for c in (L3fwd, Twinplane, Testpmd)}


def renice(pid: int, nice: int = -20) -> None:
    """Every thread of the forwarder at ``nice`` (its main lcore shares CPU 1 with
    this process and the machine's other work; the same for every forwarder)."""
    with contextlib.suppress(OSError):
        for t in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, int(t), nice)


@dataclass
class Bed:
    """The input, the ports and the trials of one run."""

    workdir: Path
    tsc_hz: float
    seconds: float
    warmup: float
    frames: int = 1024
    bins: Binaries = field(default_factory=Binaries)
    tag: str = field(default_factory=lambda: f"{D.NS_PREFIX}{os.getpid()}-{secrets.token_hex(2)}")
    ports: tuple[str, str] = ("", "")
    trials_started: int = 0
    family: str = "ip4"  # or "ip6": the input and the routers' tables

    def prepare(self) -> dict[str, Any]:
        """Hugepages, the input and the empty capture; what the input is."""
        for what, path in vars(self.bins).items():
            if not os.access(path, os.X_OK):
                raise D.DutError(f"{what}: {path} is not built (bench/README.md)")
        D.reap_stale_namespaces()
        D.ensure_hugepages()
        v6 = self.family == "ip6"
        inp = self.workdir / ("in6.pcap" if v6 else "in.pcap")
        empty = self.workdir / "empty.pcap"
        if v6:
            frames = pcapgen.generate6(str(inp), self.frames, pcapgen.PCAP_PORT0_MAC)
            pcapgen.check_frames6(frames)
        else:
            frames = pcapgen.generate(str(inp), self.frames, pcapgen.PCAP_PORT0_MAC)
            pcapgen.check_frames(frames)
        pcapgen.write_empty_pcap(str(empty))
        self.ports = port_devargs(inp, empty)
        return {
            "family": self.family,
            "frames": self.frames,
            "frame_len": (pcapgen.FRAME_LEN6 if v6 else pcapgen.FRAME_LEN) + 4,
            "dst_net": pcapgen.DEFAULT_DST_NET6 if v6 else pcapgen.DEFAULT_DST_NET,
            "dst_mac": pcapgen.PCAP_PORT0_MAC,
            "ports": [p.replace(f"{self.workdir}/", "") for p in self.ports],
        }

    def trial_dir(self) -> Path:
        d = self.workdir / f"{'ip6-' if self.family == 'ip6' else ''}trial{self.trials_started:03d}"
        d.mkdir(exist_ok=True)
        return d

    def log(self, name: str) -> Path:
        return self.trial_dir() / f"{name}.out"

    def trial(self, dut: str) -> dict[str, Any]:
        """One forwarder's run: started, warmed up, a window measured, stopped.
        A forwarder that fails raises (the run stops; nothing is re-run)."""
        self.trials_started += 1
        fwd = FORWARDERS[dut](self)
        try:
            fwd.start()
            assert fwd.tel is not None and fwd.proc is not None
            mac = str((fwd.tel.port_info(IN_PORT) or {}).get("mac_addr", "")).lower()
            if mac != pcapgen.PCAP_PORT0_MAC:
                raise fwd.proc.fail(
                    f"port 0 MAC {mac!r}, the input goes to {pcapgen.PCAP_PORT0_MAC}"
                )
            offloads = {
                f"port{p}": {k: fwd.tel.port_info(p).get(k) for k in ("rx_offloads", "tx_offloads")}
                for p in (IN_PORT, OUT_PORT)
            }
            fwd.proc.wait_ready(
                lambda: fwd.sample()[1][OUT_PORT].get("opackets", 0) > 0,
                60,
                "transmitting on port 1",
                interval=0.2,
            )
            time.sleep(self.warmup)
            cpu0 = D.cpu_ticks(MAIN_CPU)
            s0, b0 = fwd.sample(), fwd.busy()
            d0 = fwd.drops()
            time.sleep(self.seconds)
            s1, b1 = fwd.sample(), fwd.busy()
            cpu1 = D.cpu_ticks(MAIN_CPU)
            d1 = fwd.drops()
            if not fwd.running():
                raise fwd.proc.fail("died during the window")
            command = fwd.proc.command_line
        finally:
            problem = fwd.stop()
        out = window(s0, s1, self.tsc_hz)
        out.update(dut=dut, command=command, offloads=offloads, shutdown_problem=problem)
        out["main_cpu_busy"] = cpu_busy_share(cpu0, cpu1)
        if b0 is not None and b1 is not None:
            out["busy"] = busy_share(b0, b1)
        if d1:
            out["drops"] = {k: v - d0.get(k, 0) for k, v in d1.items() if v - d0.get(k, 0)}
        return out


# --------------------------------------------------------------------------
# pure: a window's rates, pairs from trials


def window(
    s0: tuple[float, dict[int, dict[str, Any]]],
    s1: tuple[float, dict[int, dict[str, Any]]],
    tsc_hz: float,
) -> dict[str, Any]:
    """Rates between two telemetry samples: Mpps is port 1's ``opackets`` rate,
    cycles per packet the TSC rate over it (the whole forwarding core)."""
    (t0, c0), (t1, c1) = s0, s1
    win = t1 - t0
    tx = (c1[OUT_PORT]["opackets"] - c0[OUT_PORT]["opackets"]) / win
    rx = (c1[IN_PORT]["ipackets"] - c0[IN_PORT]["ipackets"]) / win
    return {
        "mpps": tx / 1e6,
        "rx_mpps": rx / 1e6,
        "cycles_per_pkt": tsc_hz / tx if tx else None,
        "window_s": win,
        "delta": {
            f"port{p}": {k: c1[p][k] - c0[p][k] for k in STAT_KEYS if k in c1[p]}
            for p in (IN_PORT, OUT_PORT)
        },
    }


def cpu_busy_share(a: dict[str, int], b: dict[str, int]) -> float | None:
    """The busy share of a CPU between two /proc/stat readings (``duts.cpu_ticks``)."""
    d = {k: b[k] - a[k] for k in a}
    total = sum(d.values())
    return (total - d["idle"] - d["iowait"]) / total if total else None


def busy_share(b0: dict[str, int], b1: dict[str, int]) -> dict[str, Any]:
    """A forwarder's own counters over the window: the share of the lcore's cycles
    spent in loop passes that received packets, and those cycles per packet."""
    d = {k: b1[k] - b0[k] for k in b0}
    return {
        "share": d["busy_cycles"] / d["total_cycles"] if d["total_cycles"] else None,
        "busy_cycles_per_rx": d["busy_cycles"] / d["rx"] if d["rx"] else None,
        **d,
    }


def of_family(trials: list[dict[str, Any]], family: str) -> list[dict[str, Any]]:
    """The trials of one family's input (trials without the key are IPv4's)."""
    return [t for t in trials if t.get("family", "ip4") == family]


def make_pairs(trials: list[dict[str, Any]]) -> tuple[list[paired.Pair], list[paired.Pair]]:
    """The run's pairs from its trials (each has ``pair``, ``order``, ``placement``,
    ``dut``, ``mpps``, ``cycles_per_pkt``): Mpps (A = l3fwd, B = twinplane) and
    cycles above that pair's testpmd floor (A = l3fwd's, B = twinplane's). No pair
    is at a ceiling: each forwarder's own core pulls the input, there is no
    generator or wire to reach (testpmd io is that core doing less, not a limit)."""
    by: dict[int, dict[str, dict[str, Any]]] = {}
    for t in trials:
        by.setdefault(t["pair"], {})[t["dut"]] = t
    mpps, over = [], []
    for i in sorted(by):
        p = by[i]
        l3, tp, io = p["l3fwd"], p["twinplane"], p["testpmd"]
        order = tuple(l3["order"])
        floor = io["cycles_per_pkt"]
        extra = {"testpmd_mpps": io["mpps"], "floor_cycles_per_pkt": floor}
        mpps.append(paired.Pair(i, order, l3["mpps"], tp["mpps"], l3["placement"], False, extra))
        a, b = l3["cycles_per_pkt"] - floor, tp["cycles_per_pkt"] - floor
        over.append(paired.Pair(i, order, a, b, l3["placement"], False, dict(extra)))
    return mpps, over


def medians_by_placement(trials: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """Per placement and forwarder: median Mpps and cycles per packet, and the trials."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for where in sorted({t["placement"] for t in trials}):
        for dut in DUTS:
            ts = [t for t in trials if t["placement"] == where and t["dut"] == dut]
            if ts:
                out.setdefault(where, {})[dut] = {
                    "mpps": statistics.median(t["mpps"] for t in ts),
                    "cycles_per_pkt": statistics.median(t["cycles_per_pkt"] for t in ts),
                    "trials": len(ts),
                }
    return out

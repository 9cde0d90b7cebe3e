#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Seed 000's comparisons: the dual-plane IoT gateway against its two baselines.

Systems (``SYSTEMS``), all the same code (src/nf/iotgw: one codec, one report
path, one session manager):

- ``dual``: twinplane, reports converted on the worker, signaling on the
  control plane (kernel socket behind the TAPs, asynchronous registrar);
- ``single``: twinplane --single-plane, signaling handled on the worker, which
  waits for the IN-CSE's answers (the seed's old architecture, with DPDK);
- ``socket``: twinplane-sockgw, kernel UDP sockets, one thread, no DPDK (the
  seed's "previous single plane IoT system").

Traffic: twinplane-gen port g0 plays thousands of pulse oximeters (template
phd: confirmed fixed scan reports, SpO2 and pulse rate, 2 contentInstances
each); port g1 is the IN-CSE: a CoAP sink that ACKs the registrations (CON)
at once and counts the contentInstance creations (NON). A message counts as
delivered when both its CoAP requests reached the sink:
delivered = NON requests at g1 / 2. ACME is used for correctness (the
integration tests), not here: it creates ~300 resources/s.

Wires: ``veth`` (two veth pairs between a generator and a DUT namespace; DPDK
processes on AF_XDP; the kernel carries every frame) for all three systems,
and ``memif`` (shared memory, no kernel) for the two DPDK ones. CPU: the DUT's
forwarding thread (worker, or sockgw's one thread and its softirqs through
RPS) on CPU 0; the generator on CPU 1, and twinplane's control plane on CPU 1
too (the seed gives it a core of its own; this machine has two).

Figures (docs/results/iotgw.json keys fig3..fig6, series per system):

- fig3: overhead ratio OR(N) = (tT - tP) / tT for N = 1,000..10,000 reports;
  tT the forwarding thread's time over the N messages (twinplane: busy
  cycles, loop iterations that received packets; sockgw: its thread's run
  time), tP the time in the report path (tp_iotgw_report: classify, decode,
  convert, build the CoAP requests; `iotgw profile on`, sockgw --profile);
- fig4: throughput against message size: the highest report rate with loss
  <= 0.1 % (binary search, rfc2544.search);
- fig5: message loss against size at the seed's offered load, 1 Gbit/s line
  rate for the size (the generator may fall short on veth: reported);
- fig6: throughput against control messages per second (1,000..40,000; AARQ
  and RLRQ in turn, each association registering on the sink) at a fixed
  total of 1 Gbit/s worth of 512-byte messages;
- cost: CPU cycles per message at a load all carry: --cost-samples short
  measurements (5 x 1 s) per repetition, each right after tp-xcpu-probe (the
  host's placement of the DUT's and the generator's vCPUs: memif costs move with
  it), summarized over all of them and by placement (near, mid, far); Fig. 3's
  trials are probed the same way (xcpu_rtt_ns and placement in the raw JSON).

Usage (root):
    .venv/bin/python bench/iotgw.py --quick      # a few minutes: a subset, 1 repetition
    .venv/bin/python bench/iotgw.py              # everything, 3 repetitions
    .venv/bin/python bench/iotgw.py --from-json docs/results/iotgw.json   # redraw
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import secrets
import shlex
import statistics
import sys
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from twinplane.bench import ensure_venv

ensure_venv(ROOT)

from twinplane.bench import duts as D
from twinplane.bench.gen import Gen
from twinplane.bench.rfc2544 import SearchParams, TrialResult, search
from twinplane.lab.daemon import Daemon
from twinplane.lab.netns import Netns, veth
from twinplane.lab.sockgw import SockGw

SYSTEMS = ("dual", "single", "socket")
WIRE_SYSTEMS = {"veth": ("dual", "single", "socket"), "memif": ("dual", "single")}
SIZES = (128, 256, 512, 1024, 1518)
QUICK_SIZES = (128, 512, 1518)
FIG3_N = tuple(range(1000, 10001, 1000))
FIG6_CONTROL = (0, 1000, 5000, 10000, 15000, 20000, 25000, 30000, 35000, 40000)
QUICK_CONTROL = (0, 1000, 10000, 40000)
METRICS_PER_REPORT = 2  # pulse oximeter: SpO2, pulse rate
AGENTS = 1000  # report identities, associated before the measurements
CHURN_IDS = 2048  # control-message identities (AARQ, RLRQ in turn)
FIG3_RATE = 20000.0
COST_RATE = 50000.0
LOSS_TOL = 0.001
GW_IP, CSE_IP = "198.18.0.1", "198.19.1.2"
AGENT_IP = D.GEN_IP[0]
SEARCH_HI = {"veth": 1.0e6, "memif": 4.0e6}
MEMIF_RSIZE = 14
PLACEMENTS = ("near", "mid", "far")  # D.placement(): the vCPUs share a cache, or not


def line_rate_1g(size: int) -> float:
    """Frames/s of 1 Gbit/s at this frame size (20 bytes of preamble and gap)."""
    return 1e9 / ((size + 20) * 8)


def schedstat_ns(tid: int) -> int:
    with open(f"/proc/{tid}/schedstat") as f:
        return int(f.read().split()[0])


def irq_ticks(cpu: int) -> int:
    t = D.cpu_ticks(cpu)
    return t["irq"] + t["softirq"]


class Bed:
    """One wire, one system between the generator's two ports."""

    def __init__(
        self, wire: str, system: str, workdir: Path, tsc: float, cse_delay_us: float
    ) -> None:
        self.wire, self.system, self.tsc = wire, system, tsc
        self.cse_delay_us = cse_delay_us
        self.tag = f"tpi{os.getpid()}-{secrets.token_hex(2)}"
        self.workdir = workdir / f"{wire}-{system}-{self.tag}"
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.namespaces: list[Netns] = []
        self.gen: Gen | None = None
        self.daemon: Daemon | None = None
        self.sockgw: SockGw | None = None
        self.setup: list[str] = []
        self.sizes: set[int] = set()

    # --- set-up ----------------------------------------------------------

    def _ns(self, suffix: str) -> Netns:
        ns = Netns(f"{self.tag}-{suffix}").create()
        self.namespaces.append(ns)
        return ns

    def start(self) -> None:
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    def _start(self) -> None:
        gen_ns = dut_ns = None
        if self.wire == "memif":
            sd = self.workdir / "memif"
            sd.mkdir(exist_ok=True)
            socks = (sd / "l0.sock", sd / "l1.sock")
            # 16k-slot rings: the generator shares its CPU with twinplane's control
            # plane, and catches up in bursts after losing it for a time slice
            gports = [
                D.memif_devargs(i, "server", socks[i], D.GEN_MAC[i], MEMIF_RSIZE) for i in (0, 1)
            ]
            dports = [
                D.memif_devargs(i, "client", socks[i], D.DUT_MAC[i], MEMIF_RSIZE) for i in (0, 1)
            ]
            self.setup.append(f"memif: generator servers, DUT clients, rsize={MEMIF_RSIZE} ({sd})")
        else:
            gen_ns, dut_ns = self._ns("g"), self._ns("d")
            veth(gen_ns, "g0", dut_ns, "d0")
            veth(gen_ns, "g1", dut_ns, "d1")
            for ns, ifn, mac in (
                (gen_ns, "g0", D.GEN_MAC[0]),
                (gen_ns, "g1", D.GEN_MAC[1]),
                (dut_ns, "d0", D.DUT_MAC[0]),
                (dut_ns, "d1", D.DUT_MAC[1]),
            ):
                ns.run(["ip", "link", "set", "dev", ifn, "address", mac])
            gports = [D.af_xdp_devargs(i, f"g{i}") for i in (0, 1)]
            dports = [D.af_xdp_devargs(i, f"d{i}") for i in (0, 1)]
            self.setup.append("veth g0<->d0, g1<->d1, offloads off; generator on AF_XDP")
        self.gen = Gen(f"{self.tag}g", self.workdir, netns=gen_ns.name if gen_ns else None)
        self.gen.start()
        self.gen.port_add("g0", gports[0])
        self.gen.port_add("g1", gports[1], sink="coap", delay_us=self.cse_delay_us)
        if self.system == "socket":
            assert dut_ns is not None
            self._start_sockgw(dut_ns)
        else:
            self._start_twinplane(dut_ns or self._ns("t"), dports)
        self.gen.stream_add("assoc", "g0", 128, template="phd", **self._phd("aarq", AGENTS, 10000))
        self.gen.stream_add(
            "churn", "g0", 512, template="phd", **self._phd("churn", CHURN_IDS, 30000)
        )

    def _phd(self, kind: str, n: int, port0: int) -> dict[str, Any]:
        return {
            "dmac": D.DUT_MAC[0],
            "smac": D.GEN_MAC[0],
            "src": AGENT_IP,
            "dst": GW_IP,
            "sport": f"{port0}-{port0 + n - 1}",
            "dport": 6024,
            "extra": ["kind", kind],
        }

    def _start_twinplane(self, ns: Netns, ports: list[str]) -> None:
        config = "\n".join(
            [
                f"# bench/iotgw.py: the {self.system}-plane gateway",
                f"port add p0 {ports[0]}",
                f"port add p1 {ports[1]}",
                f"address add {GW_IP}/24 dev p0",
                f"address add {D.DUT_ADDR[1]} dev p1",
                f"neigh add {AGENT_IP} lladdr {D.GEN_MAC[0]} dev p0",
                f"neigh add {CSE_IP} lladdr {D.GEN_MAC[1]} dev p1",
                # the generator's agents do not answer the MDS GET (seed 000's never
                # asked): registrations without it, as the paper measured; NON
                # contentInstances answered at once, as seed 000's system sent them
                # (the generator's IN-CSE is a sink); its agents share one address
                f"iotgw enable cse {CSE_IP} timeout 3600 max-sessions 8192 mds-get no"
                " delivery fire-and-forget max-per-source 0",
                "iotgw profile on",
                "",
            ]
        )
        args = ["--no-backoff"] + (["--single-plane"] if self.system == "single" else [])
        # the worker (lcore 1) alone on the DUT's CPU; the control plane (lcore 0) beside the
        # generator
        self.daemon = Daemon(
            ns,
            f"{self.tag}t",
            self.workdir,
            config,
            lcores=f"0@{D.GEN_CPU},1@{D.DUT_CPU}",
            extra_args=args,
        )
        self.daemon.start(timeout=60)
        self.setup.append("twinplane " + shlex.join(self.daemon.argv[1:]))

    def _start_sockgw(self, ns: Netns) -> None:
        steps = [
            f"ip addr add {GW_IP}/24 dev d0",
            f"ip addr add {D.DUT_ADDR[1]} dev d1",
            f"ip neigh replace {AGENT_IP} lladdr {D.GEN_MAC[0]} nud permanent dev d0",
            f"ip neigh replace {CSE_IP} lladdr {D.GEN_MAC[1]} nud permanent dev d1",
            f"sh -c 'echo {1 << D.DUT_CPU:x} > /sys/class/net/d0/queues/rx-0/rps_cpus'",
            f"sh -c 'echo {1 << D.DUT_CPU:x} > /sys/class/net/d1/queues/rx-0/rps_cpus'",
        ]
        for s in steps:
            ns.run(s)
        self.sockgw = SockGw(
            ns,
            self.workdir,
            "--cse",
            CSE_IP,
            "--listen",
            GW_IP,
            "--timeout",
            "3600",
            "--max-sessions",
            "8192",
            "--rcvbuf",
            str(4 << 20),
            "--profile",
            cpu=D.DUT_CPU,
        )
        self.setup += [*steps, self.sockgw.command_line]

    def stream(self, size: int) -> str:
        name = f"r{size}"
        if size not in self.sizes:
            assert self.gen is not None
            self.gen.stream_add(
                name, "g0", size, template="phd", **self._phd("report", AGENTS, 10000)
            )
            self.sizes.add(size)
        return name

    # --- state of the gateway --------------------------------------------

    def counters(self) -> dict[str, Any]:
        if self.system == "socket":
            assert self.sockgw is not None
            c: dict[str, Any] = self.sockgw.counters()
            c["runtime_ns"] = schedstat_ns(self.sockgw.pid)
            c["irq_ticks"] = irq_ticks(D.DUT_CPU)
            c["t"] = time.monotonic()
            return c
        assert self.daemon is not None
        c = self.daemon.client.cmd("show", "iotgw")
        ws = self.daemon.client.cmd("show", "workers")["workers"]
        c["busy_cycles"] = sum(int(w["busy_cycles"]) for w in ws)
        c["t"] = time.monotonic()
        return c

    def associate(self) -> None:
        """Associate the AGENTS report identities; wait until every one is registered."""
        assert self.gen is not None
        rate = 2000.0 if self.system == "dual" else 500.0
        self.gen.trial_raw("assoc", rate, count=AGENTS)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            c = self.counters()
            if c["control_plane"]["reg_ready"] >= AGENTS and c["sessions"] >= AGENTS:
                return
            time.sleep(0.5)
        raise RuntimeError(
            f"{self.wire}/{self.system}: agents not registered: {c['control_plane']}"
        )

    # --- trials ----------------------------------------------------------

    def trial(
        self,
        streams: list[str],
        rate: float,
        duration: float | None = None,
        count: int | None = None,
        weights: list[float] | None = None,
        drain: float = 0.3,
    ) -> dict[str, Any]:
        """One generator trial; reports offered and delivered, and the gateway's counters."""
        assert self.gen is not None
        a = self.counters()
        raw = self.gen.trial_raw(
            streams,
            rate,
            duration=duration,
            count=count,
            weights=weights,
            drain=drain if duration is not None else None,
        )
        if count is not None:
            time.sleep(drain)
        b = self.counters()
        by_name = {s["name"]: s for s in raw["streams"]}
        sink = next(p for p in raw["ports"] if p["name"] == "g1")
        reports = by_name[streams[0]]["offered"]
        sent = by_name[streams[0]]["tx"]  # what the wire took of them
        ctrl = sum(by_name[s]["offered"] for s in streams[1:])
        delivered = sink["rx_coap_non"] / METRICS_PER_REPORT
        elapsed = raw["trial"]["duration_s"]
        return {
            "rate_pps": rate,
            "elapsed_s": elapsed,
            "reports": reports,
            "sent": sent,
            "control": ctrl,
            "delivered": delivered,
            "loss": 1 - delivered / reports if reports else None,
            "sink": sink,
            "delta": delta(a, b, self.tsc),
            "gen": {k: raw["trial"][k] for k in ("offered", "tx", "tx_full", "tx_nombuf")},
        }

    def search_fn(self, size: int) -> Any:
        name = self.stream(size)

        def fn(rate: float, duration: float) -> TrialResult:
            r = self.trial([name], rate, duration)
            return TrialResult(
                rate_pps=rate,
                duration_s=duration,
                offered=r["reports"],
                rx=int(min(r["delivered"], r["reports"])),
                elapsed_s=r["elapsed_s"],
                tx=r["reports"],
                extra={"delta": r["delta"]},
            )

        return fn

    def describe(self) -> dict[str, Any]:
        return {
            "wire": self.wire,
            "system": self.system,
            "setup": self.setup,
            "generator": self.gen.command_line if self.gen else None,
        }

    def close(self) -> None:
        if self.sockgw is not None:
            self.sockgw.stop()
        if self.daemon is not None:
            self.daemon.stop()
        if self.gen is not None:
            self.gen.stop()
        for ns in reversed(self.namespaces):
            ns.delete()
        self.namespaces.clear()


def delta(a: dict[str, Any], b: dict[str, Any], tsc: float) -> dict[str, Any]:
    dp = {k: b["data_plane"][k] - a["data_plane"][k] for k in a["data_plane"]}
    cp = {k: b["control_plane"][k] - a["control_plane"][k] for k in a["control_plane"]}
    d: dict[str, Any] = {
        "data_plane": dp,
        "control_plane": cp,
        "report_cycles": b["report_cycles"] - a["report_cycles"],
    }
    if "busy_cycles" in a:
        d["thread_cycles"] = b["busy_cycles"] - a["busy_cycles"]
        d["thread_method"] = "worker busy cycles (loop iterations that received packets)"
    else:
        d["thread_cycles"] = (b["runtime_ns"] - a["runtime_ns"]) * tsc / 1e9
        d["irq_cycles"] = (b["irq_ticks"] - a["irq_ticks"]) / os.sysconf("SC_CLK_TCK") * tsc
        d["thread_method"] = "sockgw thread run time (/proc/PID/schedstat) x TSC Hz"
    return d


# ---------------------------------------------------------------------------
# the figures


def fig3(bed: Bed, ns: tuple[int, ...]) -> list[dict[str, Any]]:
    out = []
    name = bed.stream(512)
    # warm-up, not recorded: the first reports after association find cold caches
    # and a cold AE table (measured: 4-5x the cycles of a warm report)
    bed.trial([name], FIG3_RATE, duration=1.0)
    for n in ns:
        pr = probe()  # the vCPUs' placement, before the trial (never during it)
        r = bed.trial([name], FIG3_RATE, count=n)
        d = r["delta"]
        tt, tp = d["thread_cycles"], d["report_cycles"]
        out.append(
            {
                "n": n,
                **pr,
                "or": (tt - tp) / tt if tt else None,
                "thread_cycles": tt,
                "report_cycles": tp,
                "delivered": r["delivered"],
                "reports": r["reports"],
            }
        )
    return out


def fig4(bed: Bed, sizes: tuple[int, ...], quick: bool) -> list[dict[str, Any]]:
    out = []
    p = SearchParams(
        duration_s=0.5 if quick else 1.0,
        probe_duration_s=0.3,
        resolution=0.03,
        resolution_pps=2000.0,
        tolerances=(LOSS_TOL,),
        max_trials=14,
    )
    for size in sizes:
        res = search(bed.search_fn(size), SEARCH_HI[bed.wire], p)
        t = res.targets[0]
        out.append(
            {
                "size": size,
                "throughput_pps": t.rate_pps,
                "measured_pps": t.measured_pps,
                "converged": t.converged,
                "lower_fail_pps": t.lower_fail_pps,
                "trials": len(res.trials),
            }
        )
    return out


def fig5(bed: Bed, sizes: tuple[int, ...], duration: float) -> list[dict[str, Any]]:
    out = []
    for size in sizes:
        rate = line_rate_1g(size)
        r = bed.trial([bed.stream(size)], rate, duration)
        out.append(
            {
                "size": size,
                "rate_pps": rate,
                "offered_pps": r["reports"] / r["elapsed_s"],
                "sent_pps": r["sent"] / r["elapsed_s"],
                "delivered_pps": r["delivered"] / r["elapsed_s"],
                "loss": r["loss"],
                "loss_of_sent": 1 - min(r["delivered"], r["sent"]) / r["sent"]
                if r["sent"]
                else None,
            }
        )
    return out


def fig6(bed: Bed, controls: tuple[int, ...], duration: float) -> list[dict[str, Any]]:
    out = []
    total = line_rate_1g(512)
    name = bed.stream(512)
    for c in controls:
        if c:
            r = bed.trial([name, "churn"], total, duration, weights=[total - c, c])
        else:
            r = bed.trial([name], total, duration)
        cp = r["delta"]["control_plane"]
        out.append(
            {
                "control_per_s": c,
                "total_pps": total,
                "offered_reports_pps": r["reports"] / r["elapsed_s"],
                "offered_control_pps": r["control"] / r["elapsed_s"],
                "throughput_pps": r["delivered"] / r["elapsed_s"],
                "loss": r["loss"],
                "associated": cp["associated"],
                "released": cp["released"],
                "associated_per_s": cp["associated"] / r["elapsed_s"],
                # AARQs are half the control messages (AARQ and RLRQ in turn); completed:
                # answered with an accepted AARE by the session manager
                "associations_offered": r["control"] / 2,
                "associations_completed_ratio": cp["associated"] / (r["control"] / 2)
                if r["control"]
                else None,
                "reg_ready": cp["reg_ready"],
                "dp": r["delta"]["data_plane"],
                "gen": r["gen"],
            }
        )
    return out


def probe() -> dict[str, Any]:
    """The vCPUs' placement right before a measurement (tp-xcpu-probe: a cache line's
    round trip between the DUT's CPU and the generator's; ~20 ms under SCHED_FIFO,
    so between trials only): ``xcpu_rtt_ns`` and ``placement`` (near|mid|far), None
    when the probe is not built."""
    p = D.xcpu_probe()
    rtt = p["rtt_ns"] if p else None
    return {"xcpu_rtt_ns": rtt, "placement": D.placement(rtt)}


def cost_sample(bed: Bed, duration: float) -> dict[str, Any]:
    """One cost measurement: the probe, then a trial at COST_RATE for duration."""
    c: dict[str, Any] = probe()
    r = bed.trial([bed.stream(128)], COST_RATE, duration)
    d = r["delta"]
    msgs = r["delivered"]
    c.update(
        {
            "duration_s": duration,
            "method": d["thread_method"],
            "reports": r["reports"],
            "messages": msgs,
            "loss": r["loss"],
            "thread_cycles": d["thread_cycles"],
            "report_cycles": d["report_cycles"],
        }
    )
    if "irq_cycles" in d:
        c["irq_cycles"] = d["irq_cycles"]
    return c


def per_msg(c: dict[str, Any]) -> dict[str, Any]:
    """Cycles per delivered message of a measurement (or of several, summed)."""
    out: dict[str, Any] = {}
    msgs = c["messages"]
    if msgs:
        out["cycles_per_msg"] = c["thread_cycles"] / msgs
        out["report_path_cycles_per_msg"] = c["report_cycles"] / msgs
        if "irq_cycles" in c:
            out["irq_cycles_per_msg"] = c["irq_cycles"] / msgs
            out["cycles_per_msg_with_irq"] = (c["thread_cycles"] + c["irq_cycles"]) / msgs
    return out


def cost(bed: Bed, samples: int, duration: float) -> dict[str, Any]:
    """CPU cycles per message at COST_RATE: `samples` short measurements, each after
    its own probe of the vCPUs' placement (memif costs move with it, up to 3x), so
    that every placement the host gives during a run gets samples of its own. The
    totals over the samples give the repetition's figures (the keys of before)."""
    # warm-up, not recorded: the first reports after association find cold caches
    bed.trial([bed.stream(128)], COST_RATE, duration=0.5)
    ss = []
    for _ in range(samples):
        s = cost_sample(bed, duration)
        s.update(per_msg(s))
        ss.append(s)
    tot = {
        k: sum(s[k] for s in ss)
        for k in ("reports", "messages", "thread_cycles", "report_cycles", "irq_cycles")
        if all(k in s for s in ss)
    }
    c: dict[str, Any] = {
        "rate_pps": COST_RATE,
        "messages": tot["messages"],
        "loss": 1 - tot["messages"] / tot["reports"] if tot["reports"] else None,
        "method": ss[0]["method"],
        "samples": ss,
        **per_msg(tot),
    }
    return c


# ---------------------------------------------------------------------------


def run_one(
    wire: str, system: str, args: argparse.Namespace, tsc: float, workdir: Path
) -> dict[str, Any]:
    bed = Bed(wire, system, workdir, tsc, args.cse_delay_us)
    res: dict[str, Any] = {}
    t0 = time.monotonic()
    try:
        bed.start()
        bed.associate()
        res["describe"] = bed.describe()
        for key, fn in (
            ("cost", lambda: cost(bed, args.cost_samples, args.cost_sample_s)),
            ("fig3", lambda: fig3(bed, args.fig3_n)),
            ("fig4", lambda: fig4(bed, args.sizes, args.quick)),
            ("fig5", lambda: fig5(bed, args.sizes, args.duration)),
            ("fig6", lambda: fig6(bed, args.controls, args.duration)),
        ):
            if key in args.only:
                print(f"  {wire}/{system}: {key} ...", flush=True)
                res[key] = fn()
    except Exception as e:  # noqa: BLE001 - recorded, the run goes on
        res["error"] = f"{e}\n{traceback.format_exc()}"
        print(f"  {wire}/{system}: ERROR {e}", flush=True)
    finally:
        bed.close()
    res["wall_s"] = round(time.monotonic() - t0, 1)
    return res


def median_spread(xs: list[float]) -> dict[str, Any]:
    xs = [x for x in xs if x is not None]
    if not xs:
        return {"median": None, "min": None, "max": None, "n": 0}
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


def summarize(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per figure, per wire, per system: medians and spreads over the repetitions."""
    out: dict[str, Any] = {"fig3": {}, "fig4": {}, "fig5": {}, "fig6": {}, "cost": {}}
    for fig, key, vals in (
        ("fig3", "n", ("or",)),
        ("fig4", "size", ("throughput_pps",)),
        ("fig5", "size", ("loss", "loss_of_sent", "offered_pps", "sent_pps", "delivered_pps")),
        (
            "fig6",
            "control_per_s",
            ("throughput_pps", "loss", "associated_per_s", "associations_completed_ratio"),
        ),
    ):
        for wire in ("veth", "memif"):
            for system in SYSTEMS:
                reps = [
                    r[fig] for r in runs if r["wire"] == wire and r["system"] == system and fig in r
                ]
                if not reps:
                    continue
                xs = sorted({p[key] for rep in reps for p in rep})
                series = []
                for x in xs:
                    pts = [p for rep in reps for p in rep if p[key] == x]
                    series.append(
                        {key: x, **{v: median_spread([p.get(v) for p in pts]) for v in vals}}
                    )
                out[fig].setdefault(wire, {})[system] = series
    for wire in ("veth", "memif"):
        for system in SYSTEMS:
            reps = [
                r["cost"]
                for r in runs
                if r["wire"] == wire and r["system"] == system and "cost" in r
            ]
            if not reps:
                continue
            # every cost sample of every repetition (a repetition of before, without
            # samples, counts as one); and the same by the vCPUs' placement
            samples = [s for c in reps for s in c.get("samples", [c])]
            keys = ("cycles_per_msg", "cycles_per_msg_with_irq", "report_path_cycles_per_msg")
            cs: dict[str, Any] = {k: median_spread([x.get(k) for x in samples]) for k in keys}
            for pl in PLACEMENTS:
                at = [x for x in samples if x.get("placement") == pl]
                if at:
                    cs.setdefault("by_placement", {})[pl] = {
                        k: median_spread([x.get(k) for x in at]) for k in keys
                    }
                    cs["by_placement"][pl]["xcpu_rtt_ns"] = median_spread(
                        [x.get("xcpu_rtt_ns") for x in at]
                    )
            out["cost"].setdefault(wire, {})[system] = cs
    return out


def ratios(summary: dict[str, Any]) -> dict[str, Any]:
    """Dual over the baselines, per wire and x (medians)."""
    out: dict[str, Any] = {}
    for fig, key, val in (
        ("fig4", "size", "throughput_pps"),
        ("fig6", "control_per_s", "throughput_pps"),
    ):
        for wire, systems in summary[fig].items():
            dual = {p[key]: p[val]["median"] for p in systems.get("dual", [])}
            for base in ("single", "socket"):
                for p in systems.get(base, []):
                    d, b = dual.get(p[key]), p[val]["median"]
                    if d is not None and b:
                        out.setdefault(fig, {}).setdefault(wire, {}).setdefault(
                            f"dual/{base}", []
                        ).append({key: p[key], "ratio": d / b})
    return out


def plot(doc: dict[str, Any], out: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = doc["summary"]
    figure, axes = plt.subplots(2, 2, figsize=(13, 9))
    styles = {"veth": "-", "memif": "--"}
    colors = {"dual": "tab:blue", "single": "tab:orange", "socket": "tab:green"}
    panels = (
        ("fig3", "n", "or", "Fig. 3 overhead ratio (tT-tP)/tT", "messages N", 1.0),
        (
            "fig4",
            "size",
            "throughput_pps",
            "Fig. 4 throughput (loss <= 0.1 %)",
            "frame size (B)",
            1e-3,
        ),
        ("fig5", "size", "loss", "Fig. 5 loss at 1 Gbit/s offered", "frame size (B)", 100.0),
        (
            "fig6",
            "control_per_s",
            "throughput_pps",
            "Fig. 6 throughput vs control messages (512 B)",
            "control messages/s",
            1e-3,
        ),
    )
    ylabels = {"fig3": "overhead ratio", "fig4": "kmsg/s", "fig5": "loss %", "fig6": "kmsg/s"}
    for ax, (fig, key, val, title, xl, scale) in zip(axes.flat, panels, strict=True):
        for wire, systems in s.get(fig, {}).items():
            for system, series in systems.items():
                xs = [p[key] for p in series if p[val]["median"] is not None]
                med = [p[val]["median"] * scale for p in series if p[val]["median"] is not None]
                lo = [p[val]["min"] * scale for p in series if p[val]["median"] is not None]
                hi = [p[val]["max"] * scale for p in series if p[val]["median"] is not None]
                if not xs:
                    continue
                ax.plot(
                    xs,
                    med,
                    styles[wire],
                    marker="o",
                    color=colors[system],
                    label=f"{system} ({wire})",
                )
                ax.fill_between(xs, lo, hi, color=colors[system], alpha=0.12)
        ax.set_title(title)
        ax.set_xlabel(xl)
        ax.set_ylabel(ylabels[fig])
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    later = "".join(
        f"; {', '.join(u['figures'])} re-measured {u['date']}" for u in doc.get("updates", [])
    )
    figure.suptitle(
        f"IoT gateway, seed 000 comparisons ({doc['date']}{later}, "
        f"{doc['reps']} repetitions; median, band = min..max)"
    )
    figure.tight_layout()
    path = out / "iotgw.png"
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def _m(sp: dict[str, Any], scale: float = 1.0, nd: int = 1, pct: bool = False) -> str:
    if sp["median"] is None:
        return "-"
    f = (lambda x: f"{x * 100:.{nd}f}") if pct else (lambda x: f"{x * scale:,.{nd}f}")
    if sp["n"] > 1 and sp["min"] != sp["max"]:
        return f"{f(sp['median'])} ({f(sp['min'])}-{f(sp['max'])})"
    return f(sp["median"])


def _table(
    fig: dict[str, Any], key: str, head: Any, cell: Any, rows: tuple[str, ...] = ("",)
) -> list[str]:
    """A markdown table of one figure: a row per wire, system (and row kind), a column per x."""
    xs = sorted({p[key] for sy in fig.values() for se in sy.values() for p in se})
    lines = [
        "| wire | system | " + " | ".join(head(x) for x in xs) + " |",
        "|---|---|" + "---|" * len(xs),
    ]
    for row in rows:
        for wire, systems in fig.items():
            for system, series in systems.items():
                at = {p[key]: p for p in series}
                lines.append(
                    f"| {wire} | {system}{row} | "
                    + " | ".join(cell(at[x], row) if x in at else "-" for x in xs)
                    + " |"
                )
    return lines


def _headline(s: dict[str, Any]) -> list[str]:
    """The few numbers the issue asks about, from the summary (medians)."""
    out = []

    def pt(fig: str, wire: str, system: str, key: str, x: Any) -> dict[str, Any] | None:
        return next((p for p in s.get(fig, {}).get(wire, {}).get(system, []) if p[key] == x), None)

    for wire in ("memif", "veth"):
        series = s.get("fig6", {}).get(wire, {}).get("dual", [])
        if series:
            top = max(series, key=lambda p: p["control_per_s"])
            single = pt("fig6", wire, "single", "control_per_s", top["control_per_s"])
            single_loss = f"{single['loss']['median'] * 100:.1f} %" if single else "-"
            out.append(
                f"- Fig. 6, {wire}: at {top['control_per_s']:,} control messages/s "
                f"the dual plane loses {top['loss']['median'] * 100:.2f} % of its "
                f"reports (worst repetition {top['loss']['max'] * 100:.2f} %; the "
                f"seed's dual plane: 1.9 %); the single plane {single_loss}."
            )
            acr = top.get("associations_completed_ratio")
            if acr and acr["median"] is not None:
                out.append(
                    f"- Fig. 6, {wire}: the dual plane completes {acr['median'] * 100:.1f} % "
                    f"of the associations offered at {top['control_per_s']:,} control "
                    f"messages/s (worst repetition {acr['min'] * 100:.1f} %; target 95 %)."
                )
    d = s.get("cost", {}).get("memif", {}).get("dual")
    if d and d["report_path_cycles_per_msg"]["median"]:
        r = d["report_path_cycles_per_msg"]
        out.append(
            f"- Report path on memif (`report_cycles_memif`): {r['median']:,.0f} cycles per "
            f"pulse-oximeter report ({r['min']:,.0f}-{r['max']:,.0f}; target 1,500), of "
            f"{d['cycles_per_msg']['median']:,.0f} worker cycles per report in all ("
            f"{r['n']} samples)."
            + (
                " By the vCPUs' placement: "
                + ", ".join(
                    f"{pl} {v['report_path_cycles_per_msg']['median']:,.0f} "
                    f"(worker {v['cycles_per_msg']['median']:,.0f}, n={v['cycles_per_msg']['n']})"
                    for pl, v in d["by_placement"].items()
                )
                + "."
                if d.get("by_placement")
                else ""
            )
        )
    f4 = s.get("fig4", {}).get("veth", {})
    if f4.get("dual") and f4.get("socket"):
        rs = [
            (p["size"], p["throughput_pps"]["median"] / q["throughput_pps"]["median"])
            for p in f4["dual"]
            for q in f4["socket"]
            if p["size"] == q["size"] and q["throughput_pps"]["median"]
        ]
        out.append(
            "- Fig. 4, veth (the same wire for both): dual plane over the socket gateway "
            + ", ".join(f"{z} B {r:.2f}x" for z, r in rs)
            + " (the seed: about 2.5x at small messages)."
        )
    c = s.get("cost", {})
    d, k = c.get("memif", {}).get("dual"), c.get("veth", {}).get("socket")
    if d and k and d["cycles_per_msg"]["median"] and k["cycles_per_msg_with_irq"]["median"]:
        out.append(
            "- Cycles per message, each on its cheapest wire: dual plane on memif "
            f"{d['cycles_per_msg']['median']:,.0f}, socket gateway on veth "
            f"{k['cycles_per_msg_with_irq']['median']:,.0f} with its softirqs "
            f"({k['cycles_per_msg_with_irq']['median'] / d['cycles_per_msg']['median']:.1f}x)."
        )
    return (["## Headline", ""] + out + [""]) if out else []


def write_report(doc: dict[str, Any], out: Path) -> None:
    s, rt = doc["summary"], doc["ratios"]
    L = [
        "# IoT gateway: dual plane against single plane and the socket gateway (seed 000)",
        "",
        f"`{doc['command']}` on {doc['date']}, git {doc['git']}. "
        f"{doc['reps']} repetition(s), median (min-max). Machine: "
        + f"{doc['machine'].get('nproc', '?')} CPUs, "
        + doc["machine"].get("model_name", "?")
        + (
            f", {doc['machine']['hypervisor_vendor']} guest"
            if doc["machine"].get("hypervisor_vendor")
            else ""
        )
        + f", kernel {doc['machine'].get('kernel', '?')}, DPDK {doc['machine'].get('dpdk', '?')}"
        + f", TSC {doc['tsc_hz'] / 1e9:.2f} GHz.",
        "",
    ]
    for u in doc.get("updates", []):
        L += [
            f"Re-measured later and merged in: {', '.join(u['figures'])}, by `{u['command']}` "
            f"on {u['date']}, git {u['git']}, TSC {u.get('tsc_hz', doc['tsc_hz']) / 1e9:.2f} "
            "GHz (the other figures are from the run above).",
            "",
        ]
    L += [
        "Systems, all built from the same codec, report path and session manager (src/nf/iotgw):",
        "**dual** = twinplane (signaling on the control plane), **single** = "
        "twinplane --single-plane (signaling on the worker, which waits for the "
        "IN-CSE), **socket** = twinplane-sockgw (kernel sockets, one thread, no "
        "DPDK). CPU: the forwarding thread (worker, or sockgw and its softirqs via "
        "RPS) alone on CPU 0; generator on CPU 1, and twinplane's control plane on "
        "CPU 1 too (the seed gives it its own core; this machine has two).",
        "",
        "Traffic: twinplane-gen plays 1,000 associated pulse oximeters (confirmed fixed scan "
        "reports: SpO2 and pulse rate, two contentInstances each); its second port is the "
        "IN-CSE, a CoAP sink that ACKs registrations at once and counts the contentInstance "
        "creations. A message is delivered when both its CoAP requests reached the sink. The "
        f"sink answers each registration request after {doc.get('cse_delay_us', 0):g} us, an "
        "IN-CSE's service time (a LAN round trip and a fast server; ACME takes about 3 ms): "
        "that is what a single-plane gateway waits for, inline. Message size = Ethernet frame "
        "size (the APDU is the same; the rest is padding): a pulse-oximeter report with the "
        "generator's signature needs 110 B, so the seed's 64 B point is not possible.",
        "",
        "Wires: **veth** (kernel veth pairs, DPDK processes on AF_XDP: the kernel moves "
        "every frame, for DPDK ports too) for all three; **memif** (shared memory, no "
        "kernel) for the two DPDK systems. On veth the wire, not the gateway, is often "
        "the limit; the architectural comparison (Fig. 6) belongs on memif.",
        "",
    ]
    L += _headline(s)
    if s.get("cost"):
        L += [
            f"## CPU cycles per message (at {int(COST_RATE)} msg/s, 128 B)",
            "",
            "| wire | system | cycles/msg (forwarding thread) "
            "| + softirq (socket) | of which report path |",
            "|---|---|---|---|---|",
        ]
        for wire, systems in s["cost"].items():
            for system, c in systems.items():
                L.append(
                    f"| {wire} | {system} | {_m(c['cycles_per_msg'], nd=0)} "
                    f"| {_m(c['cycles_per_msg_with_irq'], nd=0)} | "
                    f"{_m(c['report_path_cycles_per_msg'], nd=0)} |"
                )
        L += [
            "",
            "twinplane: worker busy cycles (loop iterations that received packets) per "
            "delivered message; the kernel's veth and AF_XDP work happens outside the worker "
            "and is not in it. sockgw: its thread's run time (/proc/PID/schedstat), and with "
            "the softirq time of CPU 0 (/proc/stat irq+softirq) where the kernel receives for "
            "it. Each system on its cheapest wire: dual and single on memif, socket on veth."
            + (
                f" Each repetition takes {doc['cost_samples']} measurements of "
                f"{doc['cost_sample_s']:g} s after a 0.5 s warm-up; the median (min-max) is "
                "over all of them."
                if doc.get("cost_samples")
                else ""
            ),
            "",
        ]
        rows = [
            (wire, system, pl, v)
            for wire, systems in s["cost"].items()
            for system, c in systems.items()
            for pl, v in c.get("by_placement", {}).items()
        ]
        if rows:
            L += [
                "By the vCPUs' placement: before each measurement, tp-xcpu-probe times a "
                "cache line's round trip between the DUT's CPU and the generator's (~20 ms "
                "under SCHED_FIFO, between trials), the host's placement of the two vCPUs: "
                "near (< 120 ns, they share a cache), mid (< 600 ns) or far. Every memif frame "
                "crosses between the two CPUs, so memif costs move with it.",
                "",
                "| wire | system | placement | round trip ns | cycles/msg "
                "| of which report path | samples |",
                "|---|---|---|---|---|---|---|",
            ]
            for wire, system, pl, v in rows:
                L.append(
                    f"| {wire} | {system} | {pl} | {_m(v['xcpu_rtt_ns'], nd=0)} "
                    f"| {_m(v['cycles_per_msg'], nd=0)} "
                    f"| {_m(v['report_path_cycles_per_msg'], nd=0)} | {v['cycles_per_msg']['n']} |"
                )
            L.append("")
    if s.get("fig3"):
        L += [
            "## Fig. 3: overhead ratio OR(N) = (tT - tP) / tT",
            "",
            f"N reports at {int(FIG3_RATE)} msg/s, 512 B. tT: the forwarding thread's "
            "time over them; tP: time in the report path (classify, decode, convert, "
            "build the CoAP requests). Seed: ~13.1 % and stable as N grows. One "
            "trial per N, in increasing order, after a 1 s warm-up trial that is not "
            "recorded; every report is new to the gateway (its invoke-id continues "
            "from the agent's last, so none is answered as a duplicate).",
            "",
        ]
        L += _table(s["fig3"], "n", lambda n: f"N={n:,}", lambda p, _: _m(p["or"], pct=True) + " %")
        L.append("")
    if s.get("fig4"):
        L += ["## Fig. 4: throughput against message size (loss <= 0.1 %), messages/s", ""]
        L += _table(
            s["fig4"], "size", lambda z: f"{z} B", lambda p, _: _m(p["throughput_pps"], nd=0)
        )
        for wire, r in rt.get("fig4", {}).items():
            for k, pts in r.items():
                L.append(
                    f"\n{wire}, {k}: " + ", ".join(f"{p['size']} B {p['ratio']:.2f}x" for p in pts)
                )
        L += [
            "",
            "Seed: dual 2.5x, 2.7x, 2.1x, 1.9x and 1.58x the "
            "single plane system without DPDK (64..1024 B).",
            "",
        ]
    if s.get("fig5"):
        L += ["## Fig. 5: message loss at the offered load of 1 Gbit/s", ""]
        L += _table(
            s["fig5"],
            "size",
            lambda z: f"{z} B",
            lambda p, row: (
                _m(p["loss_of_sent"], pct=True) + f" % of {p['sent_pps']['median'] / 1e3:.0f}k/s"
                if row
                else _m(p["loss"], pct=True) + f" % of {p['offered_pps']['median'] / 1e3:.0f}k/s"
            ),
            rows=("", " (of sent)"),
        )
        L += [
            "",
            "Offered: 1 Gbit/s line rate for the size, as the seed. Rows '(of sent)': "
            "loss of what the generator's port took. On memif a refused frame means the "
            "DUT had not drained the shared ring: the DUT's loss, the first row. On "
            "veth it means the kernel had not yet taken the generator's AF_XDP frames: "
            "the wire's limit, and the '(of sent)' row is the DUT's loss. Seed: single "
            "72.23 % loss at 64 B, dual 9.66 %; dual loses nothing at 512 B and more.",
            "",
        ]
    if s.get("fig6"):
        L += [
            "## Fig. 6: throughput against control messages (512 B, 1 Gbit/s total), messages/s",
            "",
            "Control messages: association requests and release requests in turn from "
            "2,048 agent identities; each association registers the device on the "
            "sink (3 confirmable requests). Reports make up the rest of the 1 Gbit/s.",
            "",
        ]
        L += _table(
            s["fig6"],
            "control_per_s",
            lambda c: f"{c:,}",
            lambda p, row: (
                _m(p["loss"], pct=True, nd=2) + " %"
                if row == " loss"
                else _m(p.get("associations_completed_ratio") or {"median": None}, pct=True) + " %"
                if row == " associations completed"
                else _m(p["associated_per_s"], nd=0)
                if row
                else _m(p["throughput_pps"], nd=0)
            ),
            rows=("", " loss", " associations/s", " associations completed"),
        )
        for wire, r in rt.get("fig6", {}).items():
            for k, pts in r.items():
                L.append(
                    f"\n{wire}, {k}: "
                    + ", ".join(f"{p['control_per_s']:,} {p['ratio']:.2f}x" for p in pts)
                )
        L += [
            "",
            "Associations/s: AARQs the session manager accepted (half the control messages "
            "are AARQs); associations completed: those over the AARQs offered. The dual "
            "plane's exception path admits 50,000 signaling packets/s (its token bucket "
            "for the signaling class; 20,000 before issue 14, which shed about half at "
            "40,000), never at the reports' expense. Seed: the dual plane loses 1.9 "
            "% at 40,000 control messages; twinplane's target is under 1 %. The seed's single "
            "plane with DPDK falls to 89 %..13 % of dual from 10,000 to 40,000.",
            "",
        ]
    errors = [
        f"{r['wire']}/{r['system']} rep {r['rep']}: {r['error'].splitlines()[0]}"
        for r in doc["runs"]
        if "error" in r
    ]
    if errors:
        L += ["## Errors", ""] + [f"- {e}" for e in errors] + [""]
    L += ["## Set-up", ""]
    seen = set()
    for r in doc["runs"]:
        d = r.get("describe")
        if d and (d["wire"], d["system"]) not in seen:
            seen.add((d["wire"], d["system"]))
            L += [f"- {d['wire']}/{d['system']}:"] + [f"  - `{x}`" for x in d["setup"]]
    L += [
        "",
        "Raw results: `docs/results/iotgw.json` (`runs`: every repetition; `fig3`..`fig6`: "
        "medians per wire and system; `summary`: with spreads). Plot: `docs/results/iotgw.png`.",
        "",
    ]
    (out / "iotgw.md").write_text("\n".join(L))


def build_doc(
    runs: list[dict[str, Any]], args: argparse.Namespace, tsc: float, argv: list[str]
) -> dict[str, Any]:
    summary = summarize(runs)
    doc: dict[str, Any] = {
        "command": "bench/iotgw.py " + " ".join(argv),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "git": D.git_rev(),
        "machine": D.machine_info(),
        "tsc_hz": tsc,
        "reps": args.reps,
        "quick": args.quick,
        "fig3_n": list(args.fig3_n),
        "cse_delay_us": args.cse_delay_us,
        "cost_samples": args.cost_samples,
        "cost_sample_s": args.cost_sample_s,
        "cpu": {"dut": D.DUT_CPU, "generator": D.GEN_CPU, "twinplane_control_plane": D.GEN_CPU},
        "summary": summary,
        "ratios": ratios(summary),
        "runs": runs,
    }
    # issue 14's keys: the report path's cycles per report on memif (dual plane), and
    # the share of associations completed at the highest control load of Fig. 6
    cm = summary["cost"].get("memif", {}).get("dual")
    if cm:
        doc["report_cycles_memif"] = cm["report_path_cycles_per_msg"]
        doc["worker_cycles_per_report_memif"] = cm["cycles_per_msg"]
        bp = cm.get("by_placement", {})
        doc["report_cycles_memif_by_placement"] = {
            pl: v["report_path_cycles_per_msg"] for pl, v in bp.items()
        }
        doc["worker_cycles_per_report_memif_by_placement"] = {
            pl: v["cycles_per_msg"] for pl, v in bp.items()
        }
    f6 = summary["fig6"].get("memif", {}).get("dual")
    if f6:
        top = max(f6, key=lambda p: p["control_per_s"])
        doc["associations_completed_ratio"] = {
            "control_per_s": top["control_per_s"],
            **top["associations_completed_ratio"],
        }
    # the keys: per figure, the measured series per system (medians; wire inside)
    for fig in ("fig3", "fig4", "fig5", "fig6"):
        doc[fig] = {
            system: {
                wire: summary[fig][wire][system]
                for wire in summary[fig]
                if system in summary[fig][wire]
            }
            for system in SYSTEMS
        }
    return doc


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="fewer sizes, points and repetitions")
    ap.add_argument("--reps", type=int, default=None, help="repetitions (3; --quick 1)")
    ap.add_argument("--wires", default="veth,memif")
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--only", default="cost,fig3,fig4,fig5,fig6", help="figures to measure")
    ap.add_argument(
        "--duration", type=float, default=None, help="seconds per trial (1; --quick 0.5)"
    )
    ap.add_argument(
        "--cost-samples",
        type=int,
        default=5,
        help="cost: measurements per repetition, each after its own placement probe (5)",
    )
    ap.add_argument(
        "--cost-sample-s", type=float, default=1.0, help="cost: seconds per measurement (1)"
    )
    ap.add_argument(
        "--cse-delay-us",
        type=float,
        default=100.0,
        help="the IN-CSE stand-in answers a registration request after this long (100)",
    )
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "results")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument(
        "--fig3-n",
        default=None,
        help="comma-separated N for Fig. 3, in the order measured (1000,2000,...,10000)",
    )
    ap.add_argument(
        "--controls",
        dest="controls_arg",
        default=None,
        help="comma-separated control messages/s for Fig. 6 (0,1000,...,40000; --quick 0,1000,"
        "10000,40000)",
    )
    ap.add_argument(
        "--merge",
        action="store_true",
        help="re-measure the figures of --only and merge them into OUT/iotgw.json, "
        "keeping the others (same repetitions, wires and systems)",
    )
    ap.add_argument(
        "--from-json", type=Path, default=None, help="only redraw the report from raw results"
    )
    a = ap.parse_args(argv)
    a.reps = a.reps or (1 if a.quick else 3)
    a.duration = a.duration or (0.5 if a.quick else 1.0)
    a.sizes = QUICK_SIZES if a.quick else SIZES
    a.controls = QUICK_CONTROL if a.quick else FIG6_CONTROL
    if a.controls_arg:
        try:
            a.controls = tuple(int(x) for x in a.controls_arg.split(","))
        except ValueError:
            ap.error(f"--controls: expected comma-separated rates, got {a.controls_arg!r}")
        if any(c < 0 for c in a.controls):
            ap.error("--controls: rates must not be negative")
    if a.fig3_n:
        try:
            a.fig3_n = tuple(int(x) for x in a.fig3_n.split(","))
        except ValueError:
            ap.error(f"--fig3-n: expected comma-separated message counts, got {a.fig3_n!r}")
        if any(n <= 0 for n in a.fig3_n):
            ap.error("--fig3-n: message counts must be positive")
    else:
        a.fig3_n = (1000, 5000, 10000) if a.quick else FIG3_N
    if a.cost_samples < 1 or a.cost_sample_s <= 0:
        ap.error("--cost-samples must be at least 1 and --cost-sample-s positive")
    a.only = set(a.only.split(","))
    return a


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.from_json:
        doc = json.loads(args.from_json.read_text())
        args.out.mkdir(parents=True, exist_ok=True)
        write_report(doc, args.out)
        plot(doc, args.out)
        return 0
    started = D.bench_start("iotgw", args.workdir)
    if started is None:
        return 2
    tsc, workdir = started
    D.ensure_hugepages()
    wires = [w for w in args.wires.split(",") if w]
    systems = [s for s in args.systems.split(",") if s]
    runs: list[dict[str, Any]] = []
    for rep in range(args.reps):
        for wire in wires:
            for system in WIRE_SYSTEMS[wire]:
                if system not in systems:
                    continue
                print(f"rep {rep + 1}/{args.reps}: {wire}/{system}", flush=True)
                r = run_one(wire, system, args, tsc, workdir)
                runs.append({"rep": rep, "wire": wire, "system": system, **r})
                (workdir / "runs.json").write_text(json.dumps(runs, indent=1))
    if args.merge:
        old = json.loads((args.out / "iotgw.json").read_text())
        figures = sorted(args.only)
        for r in runs:
            o = next(
                (
                    o
                    for o in old["runs"]
                    if (o["rep"], o["wire"], o["system"]) == (r["rep"], r["wire"], r["system"])
                ),
                None,
            )
            if o is None:
                old["runs"].append(r)
                continue
            for k in figures:
                if k in r:
                    o[k] = r[k]
            if "error" in r:
                o.setdefault("merge_errors", []).append(r["error"])
        merged = build_doc(old["runs"], args, tsc, argv)
        for k in ("command", "date", "git", "machine", "tsc_hz", "reps", "quick", "cse_delay_us"):
            merged[k] = old[k]
        if "cost" not in figures:
            for k in ("cost_samples", "cost_sample_s"):
                merged[k] = old.get(k)
        merged["fig3_n"] = list(args.fig3_n) if "fig3" in figures else old.get("fig3_n")
        merged["updates"] = old.get("updates", []) + [
            {
                "figures": figures,
                "command": "bench/iotgw.py " + " ".join(argv),
                "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
                "git": D.git_rev(),
                "machine": D.machine_info(),
                "tsc_hz": tsc,
            }
        ]
        doc = merged
    else:
        doc = build_doc(runs, args, tsc, argv)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "iotgw.json").write_text(json.dumps(doc, indent=1))
    write_report(doc, args.out)
    plot(doc, args.out)
    print(f"wrote {args.out / 'iotgw.md'}, iotgw.json, iotgw.png", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""RFC 2544 IPv4 forwarding: twinplane, DPDK's l3fwd and the Linux kernel, side by side.

One command measures, for every DUT on each wire (python/twinplane/bench/duts.py):

- throughput (RFC 2544 26.1): the highest zero-loss rate (NDR) and the highest
  rate within a loss tolerance (PDR), per frame size, by MLRsearch (the IETF
  BMWG method of FD.io CSIT: a load stays a lower bound when at most half of
  its trial seconds lose frames, so a trial spoiled by another task on the
  shared machine does not end the search) or, with ``--search binary``, by
  this harness's bisection with retries;
- latency at that rate (26.2), from the generator's per-frame timestamps;
- frame loss against offered load (26.3), for some frame sizes;
- the cost per forwarded packet in CPU cycles, each DUT at a load it carries:
  twinplane and l3fwd from their own busy-cycle accounting, the kernel from the
  softirq time of the core that forwards.

Traffic: twinplane-gen port g0 -> DUT port 0 -> DUT port 1 -> g1. The DUT gets
CPU 0, the generator CPU 1. Wires: ``memif`` (shared memory) and ``veth``
(kernel veth pairs, AF_XDP ports); ``loopback`` is the wire without a DUT, its
ceiling. Runs are repeated (``--reps``) and interleaved: each repetition goes
through every wire and DUT once, so slow drifts of the shared machine hit all
alike. Results: docs/results/rfc2544_ip4.{json,md} and rfc2544_ip4_*.png.

Usage (root):
    .venv/bin/python bench/rfc2544_ip4.py --quick     # ~5 min: 3 frame sizes, 2 repetitions
    .venv/bin/python bench/rfc2544_ip4.py             # 7 sizes x 3 repetitions, ~30-40 min
    .venv/bin/python bench/rfc2544_ip4.py --rfc       # RFC durations (60 s trials): hours
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import datetime as dt
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))


from twinplane.bench import ensure_venv

ensure_venv(ROOT)

from twinplane.bench import duts as D
from twinplane.bench import plots
from twinplane.bench.rfc2544 import (
    FRAME_SIZES,
    QUICK_SIZES,
    Progress,
    SearchParams,
    TrialResult,
    add_search_arguments,
    gbps_l1,
    gbps_l2,
    loss_curve,
    loss_loads,
    run_search,
    spread,
    with_retries,
)

STEM = "rfc2544_ip4"
COST_KEYS = ("twinplane_memif", "l3fwd_memif", "twinplane_veth", "l3fwd_veth", "kernel_veth")

MODES: dict[str, dict[str, Any]] = {
    # a repetition of everything takes about 10 min here; 3 of them ~30 min
    "default": {
        "sizes": FRAME_SIZES,
        "reps": 3,
        "duration": 1.0,
        "probe_duration": 0.3,
        "warmup": 0.05,
        "drain": 0.1,
        "resolution": 0.02,
        "loss_sizes": (64,),
        "loss_steps": 10,
        "loss_stop_after_zero": 0,
        "latency_duration": 1.0,
        "cost_duration": 3.0,
        "cost_rounds": 10,
        "retries": 1,
        "search": "mlr",
    },
    "quick": {
        "sizes": QUICK_SIZES,
        "reps": 2,
        "duration": 0.5,
        "probe_duration": 0.2,
        "warmup": 0.05,
        "drain": 0.1,
        "resolution": 0.03,
        "loss_sizes": (64,),
        "loss_steps": 5,
        "loss_stop_after_zero": 0,
        "latency_duration": 0.5,
        "cost_duration": 2.0,
        "cost_rounds": 2,
        "retries": 1,
        "search": "mlr",
    },
    # RFC 2544: trials of at least 60 s (24), latency trials of 120 s (26.2), 2 s
    # settling before and after a trial (23), loss in 10 % steps down to two
    # loss-free trials in a row (26.3)
    "rfc": {
        "sizes": FRAME_SIZES,
        "reps": 1,
        "duration": 60.0,
        "probe_duration": 5.0,
        "warmup": 2.0,
        "drain": 2.0,
        "resolution": 0.005,
        "loss_sizes": FRAME_SIZES,
        "loss_steps": 10,
        "loss_stop_after_zero": 2,
        "search": "binary",
        "latency_duration": 120.0,
        "cost_duration": 10.0,
        "cost_rounds": 0,
        "retries": 0,
    },
}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__,
    )
    m = ap.add_mutually_exclusive_group()
    m.add_argument(
        "--quick",
        action="store_true",
        help="sizes 64,512,1518; 2 repetitions of 0.5 s trials (~5 min)",
    )
    m.add_argument(
        "--rfc", action="store_true", help="RFC 2544 durations: 60 s trials, 120 s latency trials"
    )
    ap.add_argument(
        "--sizes", help="frame sizes, comma-separated (default: 64,128,256,512,1024,1280,1518)"
    )
    ap.add_argument("--reps", type=int, help="repetitions of every search (default 3; quick 2)")
    ap.add_argument(
        "--duration", type=float, help="seconds per search trial (default 1; quick 0.5; rfc 60)"
    )
    ap.add_argument(
        "--probe-duration", type=float, help="seconds of the first, overload trial of a search"
    )
    ap.add_argument(
        "--warmup", type=float, help="seconds of traffic before each trial's measured part"
    )
    ap.add_argument(
        "--drain", type=float, help="seconds to wait for frames in flight after a trial"
    )
    ap.add_argument("--resolution", type=float, help="search resolution, relative (default 0.02)")
    ap.add_argument(
        "--resolution-pps", type=float, default=1000.0, help="... and absolute floor (pps)"
    )
    ap.add_argument(
        "--pdr-loss",
        type=float,
        default=0.005,
        help="loss tolerance of the PDR (default 0.005 = 0.5 %%)",
    )
    add_search_arguments(ap)
    ap.add_argument(
        "--retries",
        type=int,
        help="binary search: repeat a trial with a small loss this many times before the "
        "rate fails (default 1; rfc 0)",
    )
    ap.add_argument(
        "--retry-max-loss", type=float, default=0.02, help="only losses below this are retried"
    )
    ap.add_argument(
        "--rate-slack",
        type=float,
        default=0.01,
        help="a trial fails when the generator offered less than (1 - this) of the rate",
    )
    ap.add_argument("--wires", default="memif,veth", help="wires to test (memif,veth)")
    ap.add_argument(
        "--duts",
        help="DUTs, comma-separated, each where it can run "
        "(default: loopback,twinplane,l3fwd,kernel; also testdut)",
    )
    ap.add_argument("--loss-sizes", help="frame sizes with a loss-against-load curve (default 64)")
    ap.add_argument(
        "--loss-steps", type=int, help="loads of a loss curve: 1/N .. N/N of the wire's ceiling"
    )
    ap.add_argument("--no-loss-curve", action="store_true")
    ap.add_argument("--no-latency", action="store_true")
    ap.add_argument(
        "--latency-duration", type=float, help="seconds of the latency trial at the NDR"
    )
    ap.add_argument("--no-cost", action="store_true")
    ap.add_argument("--cost-duration", type=float, help="seconds of the cost trial")
    ap.add_argument(
        "--cost-load",
        type=float,
        default=0.9,
        help="cost trial rate as a fraction of the DUT's 64 B PDR in the same repetition",
    )
    ap.add_argument(
        "--cost-rounds",
        type=int,
        help="after the repetitions, this many rounds of back-to-back cost trials of "
        "--cost-round-duts, each with the host-placement probe (default 10; quick 2)",
    )
    ap.add_argument(
        "--cost-round-duts",
        default="twinplane_memif,l3fwd_memif,kernel_veth",
        help="DUT_WIRE keys of the cost rounds",
    )
    ap.add_argument(
        "--memif-rsize",
        type=int,
        default=12,
        help="log2 of the memif ring size on both sides (default 12: 4096 slots)",
    )
    ap.add_argument(
        "--nice",
        type=int,
        default=-20,
        help="nice of the forwarding threads (DUT lcores or ksoftirqd, generator worker); "
        "99 = leave",
    )
    ap.add_argument(
        "--quiet-busy",
        type=float,
        default=0.15,
        help="before each wire/DUT pair, wait until no CPU is busier than this (others' load)",
    )
    ap.add_argument(
        "--quiet-timeout",
        type=float,
        default=900.0,
        help="... for at most this many seconds, then go on and say so (0: do not wait)",
    )
    ap.add_argument(
        "--contended-share",
        type=float,
        default=0.03,
        help="a trial is contended when other tasks had more than this share of a CPU",
    )
    ap.add_argument(
        "--max-contended",
        type=float,
        default=0.25,
        help="redo a wire/DUT pair when more than this fraction of its search trials "
        "were contended",
    )
    ap.add_argument(
        "--redo", type=int, default=2, help="redo a contended pair at most this many times"
    )
    ap.add_argument(
        "--no-isolate",
        action="store_true",
        help="leave other tasks' CPU affinity and the scheduler's autogroups alone "
        "(default: keep other tasks off the DUT's CPU and turn autogroup off for the run)",
    )
    ap.add_argument("--out", type=Path, default=ROOT / "docs/results", help="report directory")
    ap.add_argument(
        "--workdir", type=Path, help="configurations and logs (default: a fresh temp dir, kept)"
    )
    ap.add_argument(
        "--from-json", type=Path, metavar="JSON", help="only redraw the markdown and plots"
    )
    ap.add_argument(
        "--resume",
        type=Path,
        metavar="JSON",
        help="continue an interrupted run from its (partial) JSON, with the same options",
    )
    ap.add_argument("--gen", type=Path, help="twinplane-gen binary")
    ap.add_argument("--twinplane", type=Path, help="twinplane binary")
    ap.add_argument("--l3fwd", type=Path, default=ROOT / "build/l3fwd/dpdk-l3fwd")
    ap.add_argument("--testdut", type=Path, help="tp-testdut binary")
    ap.add_argument(
        "--no-build", action="store_true", help="do not run scripts/build-l3fwd.sh first"
    )
    args = ap.parse_args(argv)
    mode = "quick" if args.quick else "rfc" if args.rfc else "default"
    args.mode = mode
    for k, v in MODES[mode].items():
        if getattr(args, k, None) is None:
            setattr(args, k, v)
    if isinstance(args.sizes, str):
        args.sizes = tuple(int(x) for x in args.sizes.split(","))
    if isinstance(args.loss_sizes, str):
        args.loss_sizes = tuple(int(x) for x in args.loss_sizes.split(","))
    args.loss_sizes = tuple(s for s in args.loss_sizes if s in args.sizes) or (min(args.sizes),)
    for s in args.sizes:
        if not 64 <= s <= 1518:
            ap.error(f"frame size {s} out of 64..1518")
    args.wires = tuple(w for w in args.wires.split(",") if w)
    for w in args.wires:
        if w not in D.WIRES:
            ap.error(f"unknown wire {w!r}")
    want = (
        tuple(args.duts.split(",")) if args.duts else ("loopback", "twinplane", "l3fwd", "kernel")
    )
    for d in want:
        if d not in D.ALL_DUTS:
            ap.error(f"unknown DUT {d!r} (one of {', '.join(D.ALL_DUTS)})")
    args.plan = [(w, d) for w in args.wires for d in want if w in D.DUT_CLASSES[d].wires]
    if args.nice == 99:
        args.nice = None
    args.cost_round_keys = tuple(
        k
        for k in args.cost_round_duts.split(",")
        if k and (k.rsplit("_", 1)[-1], k.rsplit("_", 1)[0]) in args.plan
    )
    for k in args.cost_round_duts.split(","):
        if k and k not in COST_KEYS:
            ap.error(f"--cost-round-duts: unknown key {k!r} (one of {', '.join(COST_KEYS)})")
    return args


# --------------------------------------------------------------------------
# the run


class Runner:
    def __init__(self, args: argparse.Namespace) -> None:
        self.a = args
        self.bins = D.Binaries()
        for key in ("gen", "twinplane", "l3fwd", "testdut"):
            if getattr(args, key, None):
                setattr(self.bins, key, getattr(args, key))
        self.hz, self.hz_src = D.tsc_hz()
        self.params = SearchParams(
            duration_s=args.duration,
            probe_duration_s=args.probe_duration,
            resolution=args.resolution,
            resolution_pps=args.resolution_pps,
            tolerances=(0.0, args.pdr_loss),
            rate_slack=args.rate_slack,
        )
        self.work = args.workdir or Path(tempfile.mkdtemp(prefix=f"{STEM}."))
        self.work.mkdir(parents=True, exist_ok=True)
        self.doc: dict[str, Any] = {}
        self.raw: dict[str, Any] = {"search": {}, "loss": {}, "cost": {}, "setups": {}}
        self.errors: list[dict[str, Any]] = []
        self.progress: Progress | None = None
        self.units_done = 0.0
        self.iso: D.CpuIsolation | None = None

    # --- progress ---------------------------------------------------------

    def units_total(self) -> float:
        a = self.a
        per_combo = len(a.sizes) * (1.0 + (0 if a.no_latency else 0.2)) + 0.5  # + start/stop
        total = 0.0
        for w, d in a.plan:
            total += per_combo
            if not a.no_loss_curve:
                total += len(a.loss_sizes) * 1.0
            if not a.no_cost and f"{d}_{w}" in COST_KEYS:
                total += 0.3
        return total * a.reps + 0.4 * len(a.cost_round_keys) * max(0, a.cost_rounds)

    def advance(self, units: float, status: str | None = None) -> None:
        self.units_done += units
        if self.progress:
            self.progress.update(self.units_done, status)

    def status(self, text: str) -> None:
        if self.progress:
            self.progress.update(status=text)

    def say(self, text: str) -> None:
        if self.progress:
            self.progress.message(text)
        else:
            print(text, file=sys.stderr, flush=True)

    # --- one wire and DUT, one repetition -----------------------------------

    def combo(self, rep: int, wire: str, dut: str) -> None:
        a = self.a
        label = f"rep {rep + 1}/{a.reps} {wire}/{dut}"
        if self.iso is not None:
            self.iso.sweep()
        if a.quiet_timeout > 0:

            def waiting(busy: dict[int, float], waited: float) -> None:
                self.status(
                    f"{label}: waiting for a quiet machine ("
                    + ", ".join(f"CPU {c} {b * 100:.0f} % busy" for c, b in busy.items())
                    + f", {waited:.0f} s)"
                )

            q = D.wait_quiet(a.quiet_busy, a.quiet_timeout, on_wait=waiting)
            q.update({"rep": rep + 1, "wire": wire, "dut": dut})
            self.raw.setdefault("background", []).append(q)
            if not q["quiet"]:
                self.say(
                    f"[{label}] the machine stayed busy ({q['busy_last']}) "
                    f"for {q['waited_s']:.0f} s; going on"
                )
            elif q["waited_s"] > 5:
                self.say(
                    f"[{label}] waited {q['waited_s']:.0f} s for other tasks to leave the CPUs"
                )
        tb = self.testbed(wire, dut)
        self.status(f"{label}: starting")
        t0 = time.monotonic()
        tb.start(a.sizes)
        try:
            self.raw["setups"].setdefault(wire, {}).setdefault(dut, tb.describe())
            self.advance(0.5, f"{label}: up in {time.monotonic() - t0:.1f}s")
            ndr_by_size: dict[int, float] = {}
            pdr_by_size: dict[int, float] = {}
            for size in a.sizes:
                ndr_by_size[size], pdr_by_size[size] = self.throughput(
                    tb, rep, wire, dut, size, label
                )
            if not a.no_loss_curve:
                for size in a.loss_sizes:
                    self.loss(tb, rep, wire, dut, size, ndr_by_size.get(size), label)
                    self.advance(1.0)
            key = f"{dut}_{wire}"
            if not a.no_cost and key in COST_KEYS:
                self.cost(tb, rep, key, pdr_by_size, label)
                self.advance(0.3)
        finally:
            tb.close()

    def testbed(self, wire: str, dut: str) -> D.Testbed:
        a = self.a
        return D.Testbed(
            wire,
            dut,
            self.work,
            bins=self.bins,
            tsc=self.hz,
            memif_rsize=a.memif_rsize,
            nice=a.nice,
        )

    def trial_fn(self, tb: D.Testbed, size: int, label: str, retries: bool = True) -> Any:
        a = self.a
        fn = tb.trial_fn(size, warmup=a.warmup, drain=a.drain)

        def shown(rate: float, duration: float) -> TrialResult:
            self.status(f"{label} {size}B: trial at {rate / 1e6:.3f} Mpps")
            return fn(rate, duration)

        if retries and a.retries and a.search == "binary":
            return with_retries(
                shown, a.retries, max_loss=a.retry_max_loss, rate_slack=a.rate_slack
            )
        return shown

    def throughput(
        self, tb: D.Testbed, rep: int, wire: str, dut: str, size: int, label: str
    ) -> tuple[float, float]:
        a = self.a
        hi = D.wire_max_pps(wire, size)

        def on_trial(r: TrialResult) -> None:
            self.status(
                f"{label} {size}B: {a.search} trial at {r.rate_pps / 1e6:.3f} Mpps, "
                f"loss {r.loss_ratio:.2e}"
            )

        res = run_search(
            a.search,
            self.trial_fn(tb, size, label),
            hi,
            self.params,
            exceed_ratio=a.exceed_ratio,
            duration_sum_s=a.duration_sum,
            on_trial=on_trial,
        )
        lat = None
        ndr = res.ndr
        if not a.no_latency and ndr.rate_pps > 0:
            r = self.trial_fn(tb, size, label, retries=False)(ndr.rate_pps, a.latency_duration)
            lat = r.summary()
        entry = {
            "rep": rep + 1,
            "ndr_pps": ndr.measured_pps,
            "ndr_rate_pps": ndr.rate_pps,
            "ndr_at_hi": ndr.at_hi,
            "ndr_converged": ndr.converged,
            "ndr_lower_fail_pps": ndr.lower_fail_pps,
            "pdr_pps": res.pdr.measured_pps,
            "pdr_rate_pps": res.pdr.rate_pps,
            "pdr_at_hi": res.pdr.at_hi,
            "pdr_loss_tolerance": res.pdr.tolerance,
            "search_hi_pps": hi,
            "search_method": a.search,
            "search_trials": len(res.trials),
            "search_wall_s": round(res.wall_s, 2),
            "ndr_trial": ndr.trial,
            "latency_trial": lat,
            "trials": res.trials,
        }
        self.raw["search"].setdefault(wire, {}).setdefault(dut, {}).setdefault(
            str(size), []
        ).append(entry)
        at = "(at the search's upper bound)" if ndr.at_hi else ""
        self.say(
            f"[{label}] {size:5d} B  NDR {ndr.measured_pps / 1e6:8.3f} "
            f"Mpps {at} PDR {res.pdr.measured_pps / 1e6:8.3f} Mpps  "
            f"({len(res.trials)} trials, {res.wall_s:.0f} s)"
            + (
                f"  latency p50 {lat['latency_ns']['p50'] / 1e3:.1f} "
                f"us p99 {lat['latency_ns']['p99'] / 1e3:.1f} us"
                if lat and lat.get("latency_ns")
                else ""
            )
        )
        self.advance(1.0 + (0 if a.no_latency else 0.2))
        return ndr.rate_pps, res.pdr.rate_pps

    def ceiling(self, wire: str, size: int, rep: int) -> float | None:
        runs = self.raw["search"].get(wire, {}).get("loopback", {}).get(str(size), [])
        for r in runs:
            if r["rep"] == rep + 1 and r["ndr_pps"]:
                return float(r["ndr_pps"])
        vals = [r["ndr_pps"] for r in runs if r["ndr_pps"]]
        return max(vals) if vals else None

    def loss(
        self, tb: D.Testbed, rep: int, wire: str, dut: str, size: int, ndr: float | None, label: str
    ) -> None:
        a = self.a
        ceil = self.ceiling(wire, size, rep)
        if dut == "loopback" or ceil is None:
            ceil = (ndr or D.wire_max_pps(wire, size) / 4) * (1.0 if dut == "loopback" else 1.5)
        loads = loss_loads(ceil, ndr if dut != "loopback" else None, steps=a.loss_steps)
        self.status(f"{label} {size}B: loss curve, {len(loads)} loads")
        pts = loss_curve(
            self.trial_fn(tb, size, label, retries=False),
            loads,
            a.duration,
            stop_after_zero=a.loss_stop_after_zero,
        )
        self.raw["loss"].setdefault(wire, {}).setdefault(dut, {}).setdefault(str(size), []).append(
            {"rep": rep + 1, "reference_pps": ceil, "points": pts}
        )

    def cost(
        self,
        tb: D.Testbed,
        rep: int,
        key: str,
        pdr_by_size: dict[int, float],
        label: str,
        round_no: int | None = None,
    ) -> None:
        a = self.a
        size = 64 if 64 in pdr_by_size else min(pdr_by_size)
        pdr = pdr_by_size[size]
        if not pdr:
            self.say(f"[{label}] cost: no PDR at {size} B, skipped")
            return
        rate = a.cost_load * pdr
        self.status(f"{label}: cost trial at {rate / 1e6:.3f} Mpps")
        before = tb.dut.cost_snapshot()
        r = self.trial_fn(tb, size, label, retries=False)(rate, a.cost_duration)
        after = tb.dut.cost_snapshot()
        c = tb.dut.cost(before, after) if before is not None else None
        if c is None:
            return
        after_probe = D.xcpu_probe()
        c.update(
            {
                "rep": rep + 1 if round_no is None else None,
                "phase": "repetition" if round_no is None else "round",
                "round": round_no,
                "xcpu_rtt_ns": r.extra.get("xcpu_rtt_ns"),
                "xcpu_rtt_ns_after": after_probe["rtt_ns"] if after_probe else None,
                "placement": D.placement(r.extra.get("xcpu_rtt_ns")),
                "size": size,
                "load_pps": rate,
                "load_fraction_of_pdr": a.cost_load,
                "trial": r.summary(),
            }
        )
        if c.get("cycles_per_pkt"):
            # what the DUT core could forward if it did nothing else
            c["implied_core_capacity_pps"] = self.hz / c["cycles_per_pkt"]
        self.raw["cost"].setdefault(key, []).append(c)
        cpp = c.get("cycles_per_pkt")
        if c["xcpu_rtt_ns"] is not None:
            label += f" (probe {c['xcpu_rtt_ns']:.0f} ns, {c['placement']})"
        self.say(
            f"[{label}] cost at {rate / 1e6:.3f} Mpps ({size} B): "
            + (f"{cpp:.0f} cycles/packet" if cpp else "no packets forwarded")
            + (f", busy {c['busy_ratio'] * 100:.0f} %" if c.get("busy_ratio") else "")
        )

    # --- everything -------------------------------------------------------

    def run(self) -> int:
        a = self.a
        self.hugepages = D.ensure_hugepages(1024)
        D.reap_stale_namespaces()
        D.pin_to_generator_cpu()
        self.started = dt.datetime.now(dt.UTC)
        self.machine = D.machine_info()
        done: set[tuple[int, str, str]] = set()
        if a.resume:
            done = self.load_partial(a.resume)
        print(
            f"{STEM}: {a.mode} mode, {len(a.plan)} wire/DUT pairs x "
            f"{len(a.sizes)} sizes x {a.reps} repetitions, trials of "
            f"{a.duration:g} s; TSC {self.hz / 1e6:.0f} MHz; work dir {self.work}",
            file=sys.stderr,
            flush=True,
        )
        self.progress = Progress(self.units_total(), label=STEM)
        if done:  # roughly: the pairs already done count their share
            self.units_done = self.units_total() * len(done) / max(1, a.reps * len(a.plan))
        self.progress.update(self.units_done, force=True)
        with contextlib.ExitStack() as stack:
            if not a.no_isolate:
                self.iso = stack.enter_context(D.CpuIsolation(D.DUT_CPU))
            self.run_plan(done)
            if a.cost_rounds > 0 and not a.no_cost and a.cost_round_keys:
                self.cost_rounds()
        self.progress.close()
        self.finish(partial=False)
        print(
            f"{STEM}: wrote {a.out}/{STEM}.{{json,md}} and {STEM}_*.png"
            + (f"; {len(self.errors)} error(s), see the report" if self.errors else ""),
            file=sys.stderr,
        )
        return 1 if self.errors else 0

    def run_plan(self, done: set[tuple[int, str, str]]) -> None:
        a = self.a
        for rep in range(a.reps):
            for wire, dut in a.plan:
                if (rep + 1, wire, dut) in done:
                    continue
                for attempt in range(a.redo + 1):
                    saved = {
                        k: copy.deepcopy(v)
                        for k, v in self.raw.items()
                        if k in ("search", "loss", "cost")
                    }
                    try:
                        self.combo(rep, wire, dut)
                    except KeyboardInterrupt:
                        self.errors.append(
                            {"rep": rep + 1, "wire": wire, "dut": dut, "error": "interrupted"}
                        )
                        self.finish(partial=True)
                        raise
                    except Exception as e:  # noqa: BLE001 - reported, the rest goes on
                        msg = f"{type(e).__name__}: {e}"
                        self.errors.append(
                            {
                                "rep": rep + 1,
                                "wire": wire,
                                "dut": dut,
                                "error": msg,
                                "traceback": traceback.format_exc(),
                            }
                        )
                        self.say(f"[rep {rep + 1} {wire}/{dut}] FAILED: {msg}")
                        break
                    frac, n = self.contention(rep, wire, dut)
                    info = {
                        "rep": rep + 1,
                        "wire": wire,
                        "dut": dut,
                        "attempt": attempt + 1,
                        "contended_trials": frac,
                        "search_trials": n,
                    }
                    if frac <= a.max_contended or attempt == a.redo:
                        self.raw.setdefault("contention", []).append(info)
                        if frac > a.max_contended:
                            self.say(
                                f"[rep {rep + 1} {wire}/{dut}] {frac * 100:.0f} % of the "
                                f"trials contended after {attempt + 1} attempts; kept"
                            )
                        break
                    self.raw.setdefault("discarded", []).append(info)
                    self.raw.update(saved)
                    self.say(
                        f"[rep {rep + 1} {wire}/{dut}] {frac * 100:.0f} % of {n} trials "
                        f"had other tasks on the CPUs (> {a.contended_share * 100:g} % "
                        "of a CPU): results dropped, redoing"
                    )
                self.finish(partial=True)  # keep what we have so far

    def cost_rounds(self) -> None:
        """Rounds of back-to-back cost trials, one per key of --cost-round-duts in
        turn (the order rotating by round), each at the load of the repetitions' cost
        trials (cost_load x the median 64 B PDR), each with the placement probe before
        and after: costs compared within a round ran seconds apart, mostly in one
        placement of the host's vCPUs, and the probe says when not (docs: *Cost*)."""
        a = self.a
        pdr: dict[str, float] = {}
        for key in a.cost_round_keys:
            dut, wire = key.rsplit("_", 1)
            runs = self.raw["search"].get(wire, {}).get(dut, {}).get("64", [])
            vals = [r["pdr_rate_pps"] for r in runs if r.get("pdr_rate_pps")]
            if vals:
                pdr[key] = statistics.median(vals)
            else:
                self.say(f"[cost rounds] {key}: no 64 B PDR from the repetitions, left out")
        keys = [k for k in a.cost_round_keys if k in pdr]
        for rnd in range(a.cost_rounds):
            order = keys[rnd % len(keys) :] + keys[: rnd % len(keys)] if keys else []
            for key in order:
                dut, wire = key.rsplit("_", 1)
                label = f"cost round {rnd + 1}/{a.cost_rounds} {wire}/{dut}"
                if self.iso is not None:
                    self.iso.sweep()
                try:
                    tb = self.testbed(wire, dut)
                    self.status(f"{label}: starting")
                    tb.start((64,))
                    try:
                        # settle: the first frames through a fresh DUT warm its caches
                        self.trial_fn(tb, 64, label, retries=False)(a.cost_load * pdr[key], 0.3)
                        self.cost(tb, -1, key, {64: pdr[key]}, label, round_no=rnd + 1)
                    finally:
                        tb.close()
                except Exception as e:  # noqa: BLE001 - reported, the rest goes on
                    msg = f"{type(e).__name__}: {e}"
                    self.errors.append(
                        {"phase": "cost rounds", "round": rnd + 1, "key": key, "error": msg}
                    )
                    self.say(f"[{label}] FAILED: {msg}")
                self.advance(0.4)
            self.finish(partial=True)

    def load_partial(self, path: Path) -> set[tuple[int, str, str]]:
        """Take the finished wire/DUT pairs of an interrupted run; drop what an
        unfinished pair left. Returns the finished (rep, wire, dut)."""
        doc = json.loads(path.read_text())
        done = {(c["rep"], c["wire"], c["dut"]) for c in doc.get("contention", [])}

        def keep(rep: int, wire: str, dut: str) -> bool:
            return (rep, wire, dut) in done

        for wire in D.WIRES:
            for dut, by_size in (doc.get(wire) or {}).items():
                for size, e in by_size.items():
                    reps = [r for r in e["reps"] if keep(r["rep"], wire, dut)]
                    if reps:
                        self.raw["search"].setdefault(wire, {}).setdefault(dut, {})[size] = reps
        for wire, by_dut in (doc.get("loss_curves") or {}).items():
            for dut, by_size in by_dut.items():
                for size, runs in by_size.items():
                    runs = [r for r in runs if keep(r["rep"], wire, dut)]
                    if runs:
                        self.raw["loss"].setdefault(wire, {}).setdefault(dut, {})[size] = runs
        for key, c in (doc.get("cost") or {}).items():
            runs = [r for r in c["runs"] if keep(r["rep"], c["wire"], c["dut"])]
            if runs:
                self.raw["cost"][key] = runs
        self.raw["setups"] = doc.get("setups") or {}
        for k in ("background", "contention", "discarded"):
            self.raw[k] = list(doc.get(k) or [])
        self.errors = [e for e in doc.get("errors") or [] if e.get("error") != "interrupted"]
        self.started = dt.datetime.strptime(doc["date"], "%Y-%m-%dT%H:%M:%SZ").replace(
            tzinfo=dt.UTC
        )
        self.resumed = {
            "from": str(path),
            "at": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "pairs_kept": len(done),
            "wall_s_before": doc.get("wall_s"),
        }
        self.say(f"resuming: {len(done)} finished wire/DUT pairs kept from {path}")
        return done

    def contention(self, rep: int, wire: str, dut: str) -> tuple[float, int]:
        """Fraction of this pair's search trials in repetition ``rep`` during which other
        tasks had more than --contended-share of a CPU; and the number of trials."""
        n = bad = 0
        for reps in self.raw["search"].get(wire, {}).get(dut, {}).values():
            for r in reps:
                if r["rep"] != rep + 1:
                    continue
                for t in r["trials"]:
                    n += 1
                    if max((t.get("others_share") or {"x": 0.0}).values()) > self.a.contended_share:
                        bad += 1
        return (bad / n if n else 0.0), n

    def finish(self, partial: bool) -> None:
        doc = build_doc(self, partial)
        self.doc = doc
        out = self.a.out
        out.mkdir(parents=True, exist_ok=True)
        tmp = out / f"{STEM}.json.tmp"
        tmp.write_text(json.dumps(doc, indent=1) + "\n")
        tmp.replace(out / f"{STEM}.json")
        if not partial:
            write_report(doc, out)


# --------------------------------------------------------------------------
# the document


def summarize_cost(
    raw: dict[str, list[dict[str, Any]]], hz: float, user_hz: int
) -> tuple[dict, dict]:
    """The ``cost`` section and the cost ratios, from the cost runs per key."""
    cost: dict[str, Any] = {}
    for key, runs in raw.items():
        dut, wire = key.split("_")
        if dut == "kernel":
            for r in runs:  # (re)derive from the ticks, also for documents of older versions
                if r.get("ticks") and r.get("window_s") and r.get("forwarded"):
                    r.update(D.kernel_cost_from_ticks(r, hz, user_hz))
                    r["implied_core_capacity_pps"] = (
                        hz / r["cycles_per_pkt"] if r["cycles_per_pkt"] else None
                    )
        cost[key] = {
            "dut": dut,
            "wire": wire,
            "cycles_per_pkt": spread(r.get("cycles_per_pkt") for r in runs),
            "load_pps": spread(r.get("load_pps") for r in runs),
            "loss_ratio": spread((r.get("trial") or {}).get("loss_ratio") for r in runs),
            "implied_core_capacity_pps": spread(r.get("implied_core_capacity_pps") for r in runs),
            "method": runs[0].get("method") if runs else None,
            "runs": runs,
        }
        if dut == "kernel":
            cost[key]["method"] = (
                f"CPU {D.DUT_CPU} time neither idle nor running tasks (/proc/stat: wall - "
                "idle - iowait - user - nice - system) during the trial, less that share "
                "in an idle second before, x TSC Hz, / packets sent on the egress veth d1"
            )
            cost[key]["cycles_per_pkt_softirq_ticks"] = spread(
                r.get("cycles_per_pkt_softirq_ticks") for r in runs
            )
            cost[key]["busy_share"] = spread(r.get("busy_share") for r in runs)
            cost[key]["unaccounted_share"] = spread(r.get("unaccounted_share") for r in runs)

        by_pl: dict[str, list[float]] = {}
        for r in runs:
            if r.get("placement") and r.get("cycles_per_pkt"):
                by_pl.setdefault(r["placement"], []).append(r["cycles_per_pkt"])
        if by_pl:
            cost[key]["cycles_per_pkt_by_placement"] = {
                pl: spread(v)
                for pl, v in sorted(by_pl.items(), key=lambda kv: PLACEMENTS.index(kv[0]))
            }

    def cmed(k: str) -> float | None:
        return (cost.get(k) or {}).get("cycles_per_pkt", {}).get("median")

    ratios: dict[str, Any] = {}
    for num, den in (
        ("kernel_veth", "l3fwd_memif"),
        ("kernel_veth", "twinplane_memif"),
        ("kernel_veth", "l3fwd_veth"),
        ("kernel_veth", "twinplane_veth"),
        ("twinplane_memif", "l3fwd_memif"),
        ("twinplane_veth", "l3fwd_veth"),
    ):
        n, d = cmed(num), cmed(den)
        if n and d:
            ratios[f"{num}_over_{den}"] = n / d
    ratios["paired"] = paired_cost_ratios(raw)
    return cost, ratios


PLACEMENTS = D.PLACEMENTS


def ndr_ratios_by_placement(doc: dict[str, Any]) -> dict[str, Any]:
    """twinplane's and l3fwd's NDR on each wire and size: the ratio per repetition
    (the two searches of a repetition run minutes apart), and by the placement of the
    host's vCPUs that each search ran in (duts.search_placement: 80 % of its trials
    agreeing), the ratio of the medians of the searches in that placement."""
    out: dict[str, Any] = {}
    for wire in ("memif", "veth"):
        t_by = doc.get(wire, {}).get("twinplane", {})
        l_by = doc.get(wire, {}).get("l3fwd", {})
        for size in sorted(set(t_by) & set(l_by), key=int):
            t_reps = {r["rep"]: r for r in t_by[size]["reps"]}
            l_reps = {r["rep"]: r for r in l_by[size]["reps"]}
            per_rep = [
                t_reps[k]["ndr_pps"] / l_reps[k]["ndr_pps"]
                for k in sorted(set(t_reps) & set(l_reps))
                if l_reps[k]["ndr_pps"]
            ]
            by: dict[str, dict[str, list[float]]] = {}
            for dut, reps in (("twinplane", t_reps), ("l3fwd", l_reps)):
                for r in reps.values():
                    pl = D.search_placement([t.get("xcpu_rtt_ns") for t in r.get("trials", [])])
                    if pl["placement"]:
                        by.setdefault(pl["placement"], {}).setdefault(dut, []).append(r["ndr_pps"])
            bp = {}
            for pl in PLACEMENTS:
                e = by.get(pl, {})
                if e.get("twinplane") and e.get("l3fwd"):
                    tm, lm = statistics.median(e["twinplane"]), statistics.median(e["l3fwd"])
                    bp[pl] = {
                        "ratio": tm / lm if lm else None,
                        "twinplane_ndr_pps": spread(e["twinplane"]),
                        "l3fwd_ndr_pps": spread(e["l3fwd"]),
                    }
            out.setdefault(f"ndr_twinplane_over_l3fwd_{wire}_per_rep", {})[size] = per_rep
            out.setdefault(f"ndr_twinplane_over_l3fwd_{wire}_by_placement", {})[size] = bp
    return out


PAIRED = (
    ("kernel_veth", "twinplane_memif"),
    ("kernel_veth", "l3fwd_memif"),
    ("twinplane_memif", "l3fwd_memif"),
)


def run_placement(r: dict[str, Any]) -> str | None:
    """A cost trial's placement when the probes before and after it agree, else None."""
    a, b = D.placement(r.get("xcpu_rtt_ns")), D.placement(r.get("xcpu_rtt_ns_after"))
    return a if a is not None and a == b else None


def paired_cost_ratios(raw: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Cost ratios within each cost round (trials seconds apart): per round, and
    their median and spread over all rounds and over the rounds whose two trials
    ran in one placement of the host's vCPUs (both probes of both trials agree)."""
    out: dict[str, Any] = {}
    by_round: dict[str, dict[int, dict[str, Any]]] = {}
    for key, runs in raw.items():
        for r in runs:
            if r.get("phase") == "round" and r.get("cycles_per_pkt"):
                by_round.setdefault(key, {})[r["round"]] = r
    for num, den in PAIRED:
        rounds = []
        for rnd in sorted(set(by_round.get(num, {})) & set(by_round.get(den, {}))):
            n, d = by_round[num][rnd], by_round[den][rnd]
            pn, pd = run_placement(n), run_placement(d)
            rounds.append(
                {
                    "round": rnd,
                    "ratio": n["cycles_per_pkt"] / d["cycles_per_pkt"],
                    "placement": pn if pn == pd else None,
                    "placements": [pn, pd],
                    "xcpu_rtt_ns": [n.get("xcpu_rtt_ns"), d.get("xcpu_rtt_ns")],
                }
            )
        if not rounds:
            continue
        e: dict[str, Any] = {"all": spread(x["ratio"] for x in rounds), "rounds": rounds}
        for pl in PLACEMENTS:
            v = [x["ratio"] for x in rounds if x["placement"] == pl]
            if v:
                e[pl] = spread(v)
        out[f"{num}_over_{den}"] = e
    return out


def build_doc(run: Runner, partial: bool) -> dict[str, Any]:
    a = run.a
    doc: dict[str, Any] = {
        "benchmark": STEM,
        "partial": partial,
        "date": run.started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "wall_s": round((dt.datetime.now(dt.UTC) - run.started).total_seconds(), 1),
        "resumed": getattr(run, "resumed", None),
        "git": D.git_rev(),
        "mode": a.mode,
        "command": shlex.join([sys.executable, *sys.argv]),
        "cpus": {"dut": D.DUT_CPU, "generator": D.GEN_CPU, "harness": D.GEN_CPU},
        "tsc_hz": run.hz,
        "tsc_hz_source": run.hz_src,
        "machine": run.machine,
        "hugepages": run.hugepages,
        "params": {
            "sizes": list(a.sizes),
            "reps": a.reps,
            "trial_duration_s": a.duration,
            "probe_duration_s": a.probe_duration,
            "warmup_s": a.warmup,
            "drain_s": a.drain,
            "resolution": a.resolution,
            "resolution_pps": a.resolution_pps,
            "pdr_loss_tolerance": a.pdr_loss,
            "search": a.search,
            "exceed_ratio": a.exceed_ratio,
            "duration_sum_s": a.duration_sum,
            "retries": a.retries,
            "retry_max_loss": a.retry_max_loss,
            "rate_slack": a.rate_slack,
            "loss_sizes": list(a.loss_sizes),
            "loss_steps": a.loss_steps,
            "loss_stop_after_zero": a.loss_stop_after_zero,
            "latency_trial_s": a.latency_duration,
            "cost_trial_s": a.cost_duration,
            "cost_rounds": a.cost_rounds,
            "cost_round_keys": list(a.cost_round_keys),
            "cost_load_fraction_of_pdr": a.cost_load,
            "memif_rsize": a.memif_rsize,
            "nice": a.nice,
            "quiet_busy": a.quiet_busy,
            "quiet_timeout_s": a.quiet_timeout,
            "contended_share": a.contended_share,
            "max_contended": a.max_contended,
            "redo": a.redo,
            "search_upper_bound": {
                w: {"pps": D.WIRE_MAX[w][0], "l2_bps": D.WIRE_MAX[w][1]} for w in D.WIRES
            },
            "plan": [f"{w}/{d}" for w, d in a.plan],
        },
        "addressing": {
            "gen_mac": D.GEN_MAC,
            "dut_mac": D.DUT_MAC,
            "gen_ip": D.GEN_IP,
            "dut_addr": D.DUT_ADDR,
            "dst": D.DST_RANGE,
            "route": f"{D.DST_NET} via {D.GEN_IP[1]}",
        },
        "setups": run.raw["setups"],
        "errors": run.errors,
        "background": run.raw.get("background", []),
        "contention": run.raw.get("contention", []),
        "discarded": run.raw.get("discarded", []),
        "isolation": run.iso.describe() if run.iso is not None else None,
    }
    for wire, by_dut in run.raw["search"].items():
        doc[wire] = {}
        for dut, by_size in by_dut.items():
            doc[wire][dut] = {}
            for size, reps in by_size.items():
                s = int(size)
                ndr = spread(r["ndr_pps"] for r in reps)
                lat: dict[str, Any] = {}
                for q in ("min", "p50", "p99", "p999", "max", "mean"):
                    vals = [(r["latency_trial"] or {}).get("latency_ns", {}).get(q) for r in reps]
                    lat[q] = spread(vals)
                med = ndr["median"] or 0.0
                doc[wire][dut][size] = {
                    "ndr_pps": ndr,
                    "pdr_pps": spread(r["pdr_pps"] for r in reps),
                    "ndr_mpps_median": med / 1e6,
                    "ndr_gbps_l2_median": gbps_l2(med, s),
                    "ndr_gbps_l1_median": gbps_l1(med, s),
                    "ndr_at_search_upper_bound": any(r["ndr_at_hi"] for r in reps),
                    "latency_at_ndr_ns": lat,
                    "latency_loss_ratio": spread(
                        (r["latency_trial"] or {}).get("loss_ratio") for r in reps
                    ),
                    "reps": reps,
                }
    doc["loss_curves"] = run.raw["loss"]
    doc["cost"], ratios = summarize_cost(run.raw["cost"], run.hz, run.machine.get("user_hz", 100))
    for wire in ("memif", "veth"):
        for size in (str(s) for s in a.sizes):
            t = (
                doc.get(wire, {})
                .get("twinplane", {})
                .get(size, {})
                .get("ndr_pps", {})
                .get("median")
            )
            l3 = doc.get(wire, {}).get("l3fwd", {}).get(size, {}).get("ndr_pps", {}).get("median")
            if t and l3:
                ratios.setdefault(f"ndr_twinplane_over_l3fwd_{wire}", {})[size] = t / l3
    ratios.update(ndr_ratios_by_placement(doc))
    doc["ratios"] = ratios
    # which results the wire (or the generator) limits: NDR within 10 % of the loopback's
    limited: dict[str, Any] = {}
    for wire in ("memif", "veth"):
        for dut, entry in doc.get(wire, {}).items():
            if dut == "loopback":
                continue
            for size, e in entry.items():
                c = doc[wire].get("loopback", {}).get(size, {}).get("ndr_pps", {}).get("median")
                m = e["ndr_pps"]["median"]
                if c and m:
                    e["fraction_of_wire_ceiling"] = m / c
                    if m >= 0.9 * c:
                        limited.setdefault(wire, {}).setdefault(dut, []).append(int(size))
    doc["limited_by_wire"] = limited
    # noise of the shared machine: trials repeated after a small loss, CPU waits
    waits: dict[str, list[float]] = {"dut": [], "gen": []}
    others: dict[str, list[float]] = {}
    paused: list[float] = []
    n_trials = n_retried = 0
    for by_dut in run.raw["search"].values():
        for by_size in by_dut.values():
            for reps in by_size.values():
                for r in reps:
                    for t in r["trials"]:
                        n_trials += 1
                        n_retried += 1 if t.get("attempts") else 0
                        for g, v in (t.get("cpu_wait_ms") or {}).items():
                            waits.setdefault(g, []).append(v)
                        for c, v in (t.get("others_share") or {}).items():
                            others.setdefault(c, []).append(v)
                        if "gen_paused_s" in t:
                            paused.append(t["gen_paused_s"] * 1e3)
    doc["noise"] = {
        "gen_paused_ms_per_trial": spread(paused) if paused else None,
        "search_trials": n_trials,
        "trials_retried": n_retried,
        "cpu_wait_ms_per_trial": {g: spread(v) for g, v in waits.items()},
        "others_share_per_trial": {c: spread(v) for c, v in others.items()},
        "definition": "run-queue wait (/proc/TID/schedstat run_delay) during a trial of the DUT's "
        "forwarding threads (twinplane worker, l3fwd lcore, ksoftirqd for the kernel) and "
        "of the generator's worker: time they were runnable but another task had their CPU",
    }
    return doc


# --------------------------------------------------------------------------
# the report


def _f(x: float | None, nd: int = 2) -> str:
    return "-" if x is None else f"{x:.{nd}f}"


def _cell(sp: dict[str, Any], scale: float, nd: int = 2, ge: bool = False) -> str:
    if not sp or sp.get("median") is None:
        return "-"
    m = sp["median"] * scale
    pre = ">= " if ge else ""
    if sp.get("n", 1) > 1:
        return f"{pre}{m:.{nd}f} ({sp['min'] * scale:.{nd}f}-{sp['max'] * scale:.{nd}f})"
    return f"{pre}{m:.{nd}f}"


WIRE_TEXT = {
    "memif": (
        "**memif** (shared memory): `net_memif` pairs, the generator's ports are the servers, "
        "one socket file per link, the DUT's the clients; no kernel on the path, each frame is "
        "copied into and out of the shared rings. The DPDK data planes' own limits show here."
    ),
    "veth": (
        "**veth** (kernel interfaces): two veth pairs between a generator namespace "
        "and a DUT namespace, offloads off (`ethtool -K IF tx off tso off gso off`); "
        "DPDK ports are `net_af_xdp` (`iface=IF,start_queue=0,queue_count=1`, native "
        "XDP on veth, copy mode). The kernel carries every frame across each pair, "
        "for the DPDK DUTs as for the kernel itself."
    ),
}


def _isolation_line(doc: dict[str, Any]) -> str:
    iso = doc.get("isolation")
    if not iso:
        return (
            "- **Isolation**: none (`--no-isolate`): other tasks could run on the DUT's CPU, "
            "and with the scheduler's autogroups a task of another session shares it "
            "equally with the DUT whatever the nice."
        )
    ag = iso.get("autogroup_before")
    return (
        f"- **Isolation**, as CSIT's `isolcpus` at run time: every task that could also run "
        f"elsewhere was kept off CPU {iso['cpu']} ({iso['tasks_moved']} tasks moved over "
        f"{iso['sweeps']} sweeps, one before each wire/DUT pair; per-CPU kernel threads "
        "stay), and the scheduler's autogroups were "
        + ("turned off" if ag not in (None, "0") else "already off" if ag == "0" else "unknown")
        + " for the run, so the forwarding threads' nice holds against other sessions' "
        "tasks. Both undone at the end. Why: a `sched_switch` trace of the DUT's CPU "
        "showed other sessions' tasks taking it for a whole 4 ms tick despite nice -20, "
        "longer than a 4096-slot ring lasts at 2.5 Mpps."
    )


def _background_line(doc: dict[str, Any]) -> str:
    bg = doc.get("background") or []
    p = doc["params"]
    if not bg:
        return "- **Other tasks**: the script did not wait for a quiet machine."
    waited = sum(b["waited_s"] for b in bg)
    busy = [b for b in bg if not b["quiet"]]
    first = max(max(b["busy_first"].values()) for b in bg)
    names = ", ".join(f"rep {b['rep']} {b['wire']}/{b['dut']}" for b in busy)
    return (
        "- **Other tasks**: before each wire/DUT pair the script waits until both CPUs "
        f"are at most {p.get('quiet_busy', 0.15) * 100:g} % busy with other sessions' "
        f"work, for up to {p.get('quiet_timeout_s', 900) / 60:g} min: {waited / 60:.1f} "
        f"min of waiting in all, the busiest CPU seen {first * 100:.0f} %; "
        + (
            f"**{len(busy)} of {len(bg)} pairs started on a busy machine** ({names})."
            if busy
            else f"all {len(bg)} pairs started on a quiet machine."
        )
        + " Load can still arrive during a pair: each trial measures the share of each CPU other "
        "tasks took (1 - our threads' run time / wall time; "
        "for the kernel DUT, CPU 0's user and system "
        "time)" + _contention_text(doc)
    )


def _contention_text(doc: dict[str, Any]) -> str:
    p = doc["params"]
    o = (doc.get("noise") or {}).get("others_share_per_trial") or {}
    parts = [
        f"{c.upper()} {v['median'] * 100:.1f} % median, {v['max'] * 100:.0f} % max"
        for c, v in sorted(o.items())
        if v.get("median") is not None
    ]
    txt = ("; per search trial: " + ", ".join(parts)) if parts else ""
    disc = doc.get("discarded") or []
    kept_bad = [
        c
        for c in doc.get("contention") or []
        if c["contended_trials"] > p.get("max_contended", 0.25)
    ]
    txt += (
        ". A pair whose trials were contended (others above "
        f"{p.get('contended_share', 0.03) * 100:g} % of a CPU) more than "
        f"{p.get('max_contended', 0.25) * 100:g} % of the time is dropped and redone "
        f"after a quiet wait, at most {p.get('redo', 2)} times: {len(disc)} redone"
    )
    if kept_bad:
        txt += "; **kept although contended**: " + ", ".join(
            f"rep {c['rep']} {c['wire']}/{c['dut']} ({c['contended_trials'] * 100:.0f} %)"
            for c in kept_bad
        )
    return txt + "."


def _binary_method_lines(doc: dict[str, Any]) -> list[str]:
    """The Method bullets of a run with the plain bisection (``--search binary``)."""
    p = doc["params"]
    return [
        (
            "- **Search** (`python/twinplane/bench/rfc2544.py`): one short trial at the "
            f"search's upper bound (memif {D.WIRE_MAX['memif'][0] / 1e6:.0f} Mpps, veth "
            f"{D.WIRE_MAX['veth'][0] / 1e6:.0f} Mpps, capped at "
            f"{D.WIRE_MAX['memif'][1] / 1e9:.0f} / {D.WIRE_MAX['veth'][1] / 1e9:.0f} Gbit/s); "
            "if it loses frames, the rate that got through is tried next, then steps away from "
            "the bound that moved last (doubling) and bisection, until the bracket is narrower "
            "than the resolution. Both NDR and PDR come out of the same trials. A trial fails "
            "if it loses frames beyond the tolerance, or if the generator offered less than "
            f"{(1 - p['rate_slack']) * 100:g} % of the rate (so a ceiling of the generator is "
            "found, not passed). Frames a port refused (memif ring full, `tx_full`) count as "
            "lost. The NDR reported is the offered rate measured in the passing trial."
        ),
        (
            f"- **Retries**: a trial losing less than {p['retry_max_loss'] * 100:g} % is "
            f"repeated up to {p['retries']} time(s) before its rate fails: the machine is "
            "shared, and a DUT thread that loses its CPU for a millisecond overflows its "
            "ring whatever the DUT. Heavier loss fails at once. Search trials: "
            f"{doc['noise']['search_trials']}, of which {doc['noise']['trials_retried']} "
            "needed a retry. Run-queue wait per trial (ms, median (min-max)): DUT "
            f"{_cell(doc['noise']['cpu_wait_ms_per_trial'].get('dut', {}), 1, 1)}, generator "
            f"{_cell(doc['noise']['cpu_wait_ms_per_trial'].get('gen', {}), 1, 1)}."
        ),
    ]


def write_report(doc: dict[str, Any], out: Path) -> None:
    pngs = plots.write_all(doc, out, STEM)
    p = doc["params"]
    cost_load = p.get("cost_load_fraction_of_pdr", p.get("cost_load_fraction_of_ndr", 0.9))
    m = doc.get("machine", {})
    dut_cpu, gen_cpu = doc["cpus"]["dut"], doc["cpus"]["generator"]
    L: list[str] = [
        "# RFC 2544 IPv4 forwarding: twinplane, DPDK l3fwd and the Linux kernel",
        "",
        (
            f"Generated by `bench/rfc2544_ip4.py` ({doc['mode']} mode) on "
            f"{doc['date']}, tree {doc['git']}, in {doc['wall_s'] / 60:.0f} min"
            + (
                f" (interrupted after {doc['resumed']['wall_s_before'] / 60:.0f} "
                f"min with {doc['resumed']['pairs_kept']} wire/DUT pairs done, "
                f"resumed at {doc['resumed']['at']} with `--resume`)"
                if doc.get("resumed")
                else ""
            )
            + f". Raw results: [{STEM}.json]({STEM}.json)."
        ),
        "",
        (
            f"- **Cores**: the DUT runs on **CPU {dut_cpu}** alone (twinplane `--lcores "
            f"0@{dut_cpu},1@{dut_cpu}`: control plane and one worker; l3fwd `--lcores "
            f"0@{dut_cpu}`; the kernel's forwarding is steered to CPU {dut_cpu} with RPS on "
            f"the ingress veth), the generator `twinplane-gen` on **CPU {gen_cpu}** (`--lcores "
            f"0@{gen_cpu},1@{gen_cpu}`: API and the tx/rx loop); this script also stays on CPU "
            f"{gen_cpu}. Machine: {m.get('nproc')} CPUs, {m.get('model_name', '?')}, "
            f"{m.get('hypervisor_vendor', 'bare metal')} guest, kernel {m.get('kernel')}, DPDK "
            f"{m.get('dpdk')}; TSC {doc['tsc_hz'] / 1e6:.0f} MHz."
        ),
        (
            "- **Traffic**: generator port g0 -> DUT port 0 -> DUT port 1 -> generator port "
            f"g1; IPv4/UDP from {doc['addressing']['gen_ip'][0]} to "
            f"{doc['addressing']['dst']}; frame sizes {', '.join(str(s) for s in p['sizes'])} "
            f"bytes (FCS included). Every DUT routes {doc['addressing']['route']} (a "
            "permanent neighbour), l3fwd with its built-in LPM table."
        ),
        (
            "- **Method**: per frame size "
            + (
                f"MLRsearch (exceed ratio {p['exceed_ratio']:g}, {p['duration_sum_s']:g} s of "
                "trials per bound) "
                if p.get("search") == "mlr"
                else "a binary search "
            )
            + "for the highest rate with no loss (NDR) "
            f"and with at most {p['pdr_loss_tolerance'] * 100:g} % loss (PDR), "
            f"{p['trial_duration_s']:g} s trials after {p['warmup_s']:g} s of warm-up, resolution "
            f"{p['resolution'] * 100:g} %; repeated {p['reps']} times, wires and DUTs interleaved; "
            "tables give the median and (min-max) over the repetitions. Then a latency trial at "
            f"the NDR, a loss-against-load sweep ({', '.join(str(s) for s in p['loss_sizes'])} B) "
            f"and a cost trial at {cost_load * 100:g} % of the 64 B PDR. Details under *Method*."
        ),
        "",
    ]
    if doc.get("partial"):
        L += ["**This is a partial report (the run did not finish).**", ""]
    if doc.get("errors"):
        L += ["## Errors", ""]
        for e in doc["errors"]:
            first = e["error"].splitlines()[0] if e["error"] else ""
            L.append(f"- repetition {e['rep']}, {e['wire']}/{e['dut']}: `{first[:300]}`")
        L += ["", "Full messages (commands, logs) in the JSON's `errors`.", ""]

    # headline
    L += ["## Summary", ""]
    for wire in ("memif", "veth"):
        if not doc.get(wire):
            continue
        parts = []
        for dut, entry in doc[wire].items():
            e = entry.get("64") or entry.get(str(min(int(k) for k in entry)))
            if e and e["ndr_pps"]["median"] is not None:
                parts.append(
                    f"{dut} {e['ndr_pps']['median'] / 1e6:.2f} / {e['pdr_pps']['median'] / 1e6:.2f}"
                )
        size0 = "64" if "64" in next(iter(doc[wire].values()), {}) else "smallest"
        L.append(
            f"- NDR / PDR at {size0} B on **{wire}** (Mpps, medians): " + ", ".join(parts) + "."
        )
        # a DUT whose zero-loss rate is far below its 0.5 %-loss rate loses a few frames at any
        # load: on this machine, the rings overflowing while other tasks hold the DUT's or
        # generator's CPU
        fragile = []
        for dut, entry in doc[wire].items():
            ratios_nd = [
                e["ndr_pps"]["median"] / e["pdr_pps"]["median"]
                for e in entry.values()
                if e["ndr_pps"]["median"] and e["pdr_pps"]["median"]
            ]
            if dut != "loopback" and ratios_nd and statistics.median(ratios_nd) < 0.7:
                lo_ndr = (
                    min(e["ndr_pps"]["median"] for e in entry.values() if e["ndr_pps"]["median"])
                    / 1e6
                )
                hi_ndr = (
                    max(e["ndr_pps"]["median"] for e in entry.values() if e["ndr_pps"]["median"])
                    / 1e6
                )
                fragile.append(
                    f"{dut} (NDR {lo_ndr:.2f}-{hi_ndr:.2f} Mpps over all sizes, "
                    f"median NDR/PDR {statistics.median(ratios_nd):.2f})"
                )
        if fragile:
            L.append(
                f"- On {wire} the zero-loss rate of "
                + ", ".join(fragile)
                + " is far below the PDR and "
                "hardly depends on the frame size: these DUTs lose a handful of frames at "
                "almost any load once a trial lasts a second, when another task holds the "
                "DUT's or the generator's CPU for a millisecond or two and a ring overflows "
                "(see *Loss against offered load* and *Method*). Their NDR measures this "
                "machine's noise more than the DUT; compare them by PDR and cost."
            )
    lim = doc.get("limited_by_wire") or {}
    for wire, by in lim.items():
        for dut, sizes in by.items():
            L.append(
                f"- On {wire}, {dut} reaches 90 % or more of the wire's own "
                f"ceiling (loopback) at {', '.join(str(s) for s in sorted(sizes))} "
                "B: there the wire or the generator, not the DUT, is the limit."
            )
    cost = doc.get("cost") or {}
    r = doc.get("ratios") or {}
    if cost:
        cparts = [
            f"{k.replace('_', ' on ')} {v['cycles_per_pkt']['median']:.0f}"
            for k, v in cost.items()
            if v["cycles_per_pkt"]["median"]
        ]
        L.append(
            "- Cost per forwarded 64 B packet, TSC cycles (median): " + ", ".join(cparts) + "."
        )
    if r.get("kernel_veth_over_l3fwd_memif") or r.get("kernel_veth_over_twinplane_memif"):
        L.append(
            "- Seed 004 (ADLINK/Intel white paper) claims about 10x per core for DPDK's "
            "architecture over the kernel's. Measured here, cost per packet, the kernel "
            "on veth against the DPDK data planes on memif (each on its cheapest wire): "
            + ", ".join(
                f"kernel/{k} = **{r[f'kernel_veth_over_{k}_memif']:.1f}x**"
                for k in ("l3fwd", "twinplane")
                if r.get(f"kernel_veth_over_{k}_memif")
            )
            + "; on the same veth wire: "
            + ", ".join(
                f"kernel/{k} = {r[f'kernel_veth_over_{k}_veth']:.1f}x"
                for k in ("l3fwd", "twinplane")
                if r.get(f"kernel_veth_over_{k}_veth")
            )
            + ". The veth figures of the DPDK DUTs include the AF_XDP system calls their core "
            "makes; see *Cost*."
        )
    for wire in ("memif", "veth"):
        for size, v in (r.get(f"ndr_twinplane_over_l3fwd_{wire}") or {}).items():
            per = (r.get(f"ndr_twinplane_over_l3fwd_{wire}_per_rep") or {}).get(size) or []
            bp = (r.get(f"ndr_twinplane_over_l3fwd_{wire}_by_placement") or {}).get(size) or {}
            L.append(
                f"- NDR twinplane / l3fwd on {wire} at {size} B: {v:.2f} (ratio of the "
                "medians)"
                + ("; per repetition " + ", ".join(f"{x:.2f}" for x in per) if per else "")
                + (
                    "; by the placement each search ran in: "
                    + ", ".join(
                        f"{pl} {e['ratio']:.2f} ({e['twinplane_ndr_pps']['median'] / 1e6:.2f} "
                        f"vs {e['l3fwd_ndr_pps']['median'] / 1e6:.2f} Mpps, "
                        f"{e['twinplane_ndr_pps']['n']} and {e['l3fwd_ndr_pps']['n']} searches)"
                        for pl, e in bp.items()
                        if e.get("ratio")
                    )
                    if bp
                    else ""
                )
                + "."
            )
    kt = (r.get("paired") or {}).get("kernel_veth_over_twinplane_memif")
    if kt:
        L.append(
            "- Paired within cost rounds (trials half a minute apart), kernel on veth / "
            f"twinplane on memif: all rounds **{kt['all']['median']:.1f}x** "
            f"({kt['all']['min']:.1f}-{kt['all']['max']:.1f}, {kt['all']['n']} rounds)"
            + "".join(
                f"; {pl} placement **{kt[pl]['median']:.1f}x** ({kt[pl]['min']:.1f}-"
                f"{kt[pl]['max']:.1f}, {kt[pl]['n']})"
                for pl in PLACEMENTS
                if kt.get(pl)
            )
            + ". The placement is that of the host's two vCPUs (*Cost*: a memif DUT pays "
            "the cross-CPU transfer of every frame, 3x dearer when they share no cache)."
        )
    L.append("")

    # NDR tables
    for wire in ("memif", "veth"):
        if not doc.get(wire):
            continue
        duts = list(doc[wire])
        sizes = sorted({int(s) for d in duts for s in doc[wire][d]})
        L += [f"## Throughput on {wire}", "", WIRE_TEXT[wire], ""]
        L += [
            (
                "NDR, Mpps: median (min-max). `loopback` is the wire without a DUT: "
                "generator port 0 straight to port 1, the ceiling of this wire and "
                "generator. A `>=` marks a search that passed at its upper bound."
            ),
            "",
        ]
        L.append("| frame | " + " | ".join(duts) + " | line rate 10G |")
        L.append("|---:|" + "---:|" * (len(duts) + 1))
        for s in sizes:
            cells = []
            for d in duts:
                e = doc[wire][d].get(str(s))
                cells.append(
                    _cell(e["ndr_pps"], 1e-6, 3, e["ndr_at_search_upper_bound"]) if e else "-"
                )
            L.append(f"| {s} | " + " | ".join(cells) + f" | {10e9 / ((s + 20) * 8) / 1e6:.3f} |")
        L += [
            "",
            (
                "NDR, Gbit/s of frames (FCS included; add 20 bytes a frame for Ethernet's "
                "preamble and gap), and the DUT's share of the wire's ceiling:"
            ),
            "",
        ]
        L.append("| frame | " + " | ".join(duts) + " |")
        L.append("|---:|" + "---:|" * len(duts))
        for s in sizes:
            cells = []
            for d in duts:
                e = doc[wire][d].get(str(s))
                if not e or e["ndr_pps"]["median"] is None:
                    cells.append("-")
                    continue
                frac = e.get("fraction_of_wire_ceiling")
                cells.append(
                    f"{e['ndr_gbps_l2_median']:.2f}" + (f" ({frac * 100:.0f} %)" if frac else "")
                )
            L.append(f"| {s} | " + " | ".join(cells) + " |")
        L += ["", f"PDR (at most {p['pdr_loss_tolerance'] * 100:g} % loss), Mpps:", ""]
        L.append("| frame | " + " | ".join(duts) + " |")
        L.append("|---:|" + "---:|" * len(duts))
        for s in sizes:
            cells = [
                (_cell(doc[wire][d][str(s)]["pdr_pps"], 1e-6, 3) if str(s) in doc[wire][d] else "-")
                for d in duts
            ]
            L.append(f"| {s} | " + " | ".join(cells) + " |")
        L += [
            "",
            (
                f"Latency at the NDR ({p['latency_trial_s']:g} s trial), generator "
                "to generator, µs: p50 / p99 / max (medians over repetitions):"
            ),
            "",
        ]
        L.append("| frame | " + " | ".join(duts) + " |")
        L.append("|---:|" + "---:|" * len(duts))
        for s in sizes:
            cells = []
            for d in duts:
                lat = (doc[wire][d].get(str(s)) or {}).get("latency_at_ndr_ns") or {}
                if not lat or lat.get("p50", {}).get("median") is None:
                    cells.append("-")
                    continue
                cells.append(
                    " / ".join(_f(lat[q]["median"] / 1e3, 1) for q in ("p50", "p99", "max"))
                )
            L.append(f"| {s} | " + " | ".join(cells) + " |")
        L.append("")

    # cost
    if cost:
        L += [
            "## Cost per forwarded packet",
            "",
            (
                f"Each DUT forwards 64 B frames at a load it carries ({cost_load * 100:g} % of "
                f"its own 64 B PDR on that wire in the same repetition, {p['cost_trial_s']:g} "
                f"s); cycles are TSC cycles of the DUT's core, CPU {dut_cpu}. *Core capacity* "
                "is TSC Hz / cycles per packet: what the DUT's core would forward if it did "
                "nothing else, which the wire's ceiling may hide."
            ),
            "",
            (
                "| DUT | wire | cycles/packet, median (min-max) | core capacity, "
                "Mpps | load, Mpps | loss in the trial | how it is measured |"
            ),
            "|---|---|---:|---:|---:|---:|---|",
        ]
        for k in COST_KEYS:
            c = cost.get(k)
            if not c:
                continue
            lr = (c.get("loss_ratio") or {}).get("median")
            L.append(
                f"| {c['dut']} | {c['wire']} | {_cell(c['cycles_per_pkt'], 1, 0)} "
                f"| {_cell(c.get('implied_core_capacity_pps') or {}, 1e-6, 2)} | "
                f"{_cell(c['load_pps'], 1e-6, 3)} | "
                f"{'-' if lr is None else f'{lr * 100:.3g} %'} | {c['method']} |"
            )
        kc = cost.get("kernel_veth")
        if kc:
            L += [
                "",
                (
                    "Kernel, same trials: the softirq column of `/proc/stat` alone gives only "
                    f"{_cell(kc.get('cycles_per_pkt_softirq_ticks') or {}, 1, 0)} cycles/packet, "
                    "because this kernel samples softirq time with the scheduler tick, and an "
                    "idle CPU woken by the RPS interrupt runs the softirq with its tick "
                    f"stopped: {_cell(kc.get('unaccounted_share') or {}, 100, 0)} % of the wall "
                    "time is in no column at all. Idle time is measured exactly (from idle "
                    "entry to the interrupt), so wall - idle is the figure to trust."
                ),
            ]
        bypl = {
            k: c["cycles_per_pkt_by_placement"]
            for k, c in cost.items()
            if c.get("cycles_per_pkt_by_placement")
        }
        if bypl:
            L += [
                "",
                "### The host's placement of the two vCPUs",
                "",
                (
                    "This machine is a KVM guest whose host moves its two vCPUs, every minute "
                    "or two, between cores that share a cache and cores that do not. "
                    "`tp-xcpu-probe` (src/tools/xcpu-probe.c) measures it between trials: "
                    f"the round trip of one cache line between CPU {dut_cpu} and the generator's "
                    "CPU (two threads under SCHED_FIFO handing it back and forth; median of 7 "
                    "blocks of 1,000). Classes: *near* under 120 ns (a shared cache; ~50 ns "
                    "here), *mid* under 600 ns (~180-400 ns), *far* above (~1,200 ns). Every "
                    "frame on memif crosses between the two CPUs twice through shared memory "
                    "(the generator writes it, the DUT copies it in; the DUT copies it out, "
                    "the generator reads it), so a memif DUT's cycles per packet follow the "
                    "placement; the kernel's far larger cost on veth moves less."
                ),
                "",
                "Cycles per packet by placement (probe before the trial; all cost trials: "
                "repetitions and rounds), median (min-max) [trials]:",
                "",
                "| DUT | wire | " + " | ".join(PLACEMENTS) + " |",
                "|---|---|" + "---:|" * len(PLACEMENTS),
            ]
            for k in COST_KEYS:
                if k not in bypl:
                    continue
                c = cost[k]
                cells = []
                for pl in PLACEMENTS:
                    v = bypl[k].get(pl)
                    cells.append(f"{_cell(v, 1, 0)} [{v['n']}]" if v else "-")
                L.append(f"| {c['dut']} | {c['wire']} | " + " | ".join(cells) + " |")
        pr = (r or {}).get("paired") or {}
        if pr:
            L += [
                "",
                (
                    f"**Cost rounds**: {p.get('cost_rounds', 0)} rounds of back-to-back cost "
                    "trials (" + ", ".join(p.get("cost_round_keys") or []) + ", a fresh "
                    "testbed each, the order rotating by round), each at the load of the "
                    "repetitions' cost trials for that DUT; a round's trials run within about "
                    "half a minute, so their ratio is paired. A pair counts for a placement "
                    "when the probes before and after both its trials agree."
                ),
                "",
                "| ratio (per round) | all rounds | " + " | ".join(PLACEMENTS) + " |",
                "|---|---:|" + "---:|" * len(PLACEMENTS),
            ]
            for name, e in pr.items():
                cells = [f"{_cell(e['all'], 1, 2)} [{e['all']['n']}]"]
                for pl in PLACEMENTS:
                    v = e.get(pl)
                    cells.append(f"{_cell(v, 1, 2)} [{v['n']}]" if v else "-")
                L.append(f"| {name.replace('_over_', ' / ')} | " + " | ".join(cells) + " |")
        if r:
            L += [
                "",
                "Ratios of the medians: "
                + ", ".join(
                    f"{k.replace('_over_', ' / ')} = {v:.2f}"
                    for k, v in r.items()
                    if isinstance(v, float)
                )
                + ".",
            ]
        L += [
            "",
            "Where the figures come from, per wire:",
            "",
            (
                "- *memif* (twinplane, l3fwd): the data plane's own busy-cycle accounting, "
                "the TSC cycles of poll-loop iterations that received packets divided by "
                "packets transmitted (twinplane `show workers`: `busy_cycles`/`tx` of its "
                "worker; l3fwd patched by `scripts/build-l3fwd.sh` the same way, read with "
                "the telemetry command `/l3fwd/busy`, over port 1's `opackets`). Includes "
                "the memif copies in and out of the shared rings; no kernel."
            ),
            (
                "- *veth*, DPDK DUTs: the same counters; their core also makes the AF_XDP "
                "transmit system calls, in which the kernel moves the frame across the "
                "veth and runs the generator's XDP program (counted); the kernel work of "
                "their receive side (veth transmit from the generator and the XDP redirect "
                "into the DUT's socket) runs on the generator's CPU (not counted)."
            ),
            (
                f"- *veth*, kernel: the time CPU {dut_cpu} was neither idle nor running a "
                "task (`/proc/stat`: wall time - idle - iowait - user - nice - system), less "
                "that share in an idle second just before, times TSC Hz, per packet sent on "
                "the egress veth: its interrupt and softirq time. RPS on the ingress veth "
                f"sends all receive processing to CPU {dut_cpu}: IP input, forwarding, "
                "neighbour output, the egress veth's transmit, and the generator's XDP "
                "program on the far end of it. The veth transmit from the generator (enqueue "
                "to the backlog) runs on the generator's CPU (not counted)."
            ),
            "",
        ]

    # loss curves
    if doc.get("loss_curves"):
        L += [
            "## Loss against offered load",
            "",
            (
                "Offered loads from 10 % to 100 % of the wire's ceiling (the "
                "loopback's NDR in the same repetition) in even steps, plus 5, 10, "
                "20 and 50 % above each DUT's NDR; one trial a load per "
                f"repetition, no retries. Plot: [{STEM}_loss.png]({STEM}_loss.png)."
            ),
            "",
        ]
        for wire, by_dut in doc["loss_curves"].items():
            for dut, by_size in by_dut.items():
                for size, runs in by_size.items():
                    pts: dict[float, list[float]] = {}
                    for run in runs:
                        for q in run["points"]:
                            pts.setdefault(round(q["rate_pps"] / 1e6, 3), []).append(
                                q["loss_ratio"] * 100
                            )
                    if pts:
                        cells = ", ".join(
                            f"{x:g}: {statistics.median(v):.3g} %" for x, v in sorted(pts.items())
                        )
                        L.append(f"- {wire}/{dut} {size} B (Mpps: loss): {cells}")
        L.append("")

    L += ["## Plots", ""] + [f"![{q.stem}]({q.name})" for q in pngs] + [""]

    # method
    L += [
        "## Method",
        "",
        *(
            [
                (
                    "- **Search**: MLRsearch (PyPI `MLRsearch`, the controller of FD.io CSIT, "
                    "IETF draft-ietf-bmwg-mlrsearch) through `mlr_search` in "
                    "`python/twinplane/bench/rfc2544.py`. Two goals, loss ratio 0 (NDR) and "
                    f"{p['pdr_loss_tolerance'] * 100:g} % (PDR), each with exceed ratio "
                    f"{p['exceed_ratio']:g}: a load is a lower bound when, over at least "
                    f"{p['duration_sum_s']:g} s of trials at it, at most "
                    f"{p['exceed_ratio'] * 100:g} % of those seconds were in trials losing "
                    "more than the goal allows; the search stops when the relevant lower and "
                    f"upper bounds are within {p['resolution'] * 100:g} %. Trials last "
                    f"{p['trial_duration_s']:g} s (shorter ones early on). The rate reported is "
                    "the conditional throughput (the lower bound's load times one minus the "
                    "worst loss among its counted trials). Frames a port refused (`tx_full`) "
                    "count as lost; a rate the generator fell short of by more than "
                    f"{p['rate_slack'] * 100:g} % counts the missing frames as lost. Why: "
                    "this machine is shared, and another task holding the DUT's CPU for a "
                    "few milliseconds overflows any DUT's ring; under the plain bisection "
                    "one such trial ended the search for whichever DUT it hit. Search trials: "
                    f"{doc['noise']['search_trials']}. Run-queue wait per trial (ms, median "
                    "(min-max)): DUT "
                    f"{_cell(doc['noise']['cpu_wait_ms_per_trial'].get('dut', {}), 1, 1)}, "
                    "generator "
                    f"{_cell(doc['noise']['cpu_wait_ms_per_trial'].get('gen', {}), 1, 1)}."
                    + (
                        " The generator's pauses per trial (its thread lost the CPU; the "
                        "schedule moved on rather than bursting, docs/GEN.md), ms: "
                        f"{_cell(doc['noise']['gen_paused_ms_per_trial'], 1, 2)}."
                        if doc["noise"].get("gen_paused_ms_per_trial")
                        else ""
                    )
                )
            ]
            if p.get("search") == "mlr"
            else _binary_method_lines(doc)
        ),
        (
            f"- **Scheduling**: the forwarding threads (DUT lcores or ksoftirqd/{dut_cpu}, the "
            f"generator's worker) run at nice {p['nice']}; memif rings have 2^{p['memif_rsize']} "
            "slots on both sides (AF_XDP rings are the PMD's default, 2048)."
        ),
        _isolation_line(doc),
        _background_line(doc),
        (
            "- **Latency**: the generator timestamps every frame with the TSC "
            "and reads it on return (one process, one clock), log buckets of "
            "about 9 %; a trial at the NDR found in the same repetition."
        ),
        "",
        "Commands (paths relative to the work directory):",
        "",
    ]
    for wire, by_dut in (doc.get("setups") or {}).items():
        for dut, s in by_dut.items():
            L.append(f"- {wire}/{dut}:")
            L.append(
                f"  - generator: `{s.get('generator')}`; ports: "
                + ", ".join(f"`{x}`" for x in s["generator_ports"])
            )
            if s.get("command"):
                L.append(f"  - DUT: `{s['command']}`")
            if s.get("config"):
                L.append(
                    "  - twinplane configuration: "
                    + "; ".join(
                        f"`{ln}`"
                        for ln in s["config"].splitlines()
                        if ln and not ln.startswith("#")
                    )
                )
            if s.get("netns_setup"):
                L.append("  - DUT namespace: " + "; ".join(f"`{x}`" for x in s["netns_setup"]))
    L += [
        "",
        "## Caveats",
        "",
        (
            "- Shared, virtualized machine (2 vCPUs): absolute rates move "
            "between runs; compare DUTs within a wire and look at the spreads. "
            "Zero loss over a trial is fragile where any other task can take "
            "the DUT's CPU for a millisecond; the PDR is the steadier figure."
        ),
        (
            "- On veth the generator (one core, AF_XDP system calls) is the bottleneck near "
            "its ceiling: results near the loopback's are limited by the ports, not the DUT."
        ),
        (
            "- twinplane's control plane shares CPU 0 with its worker (`--lcores 0@0,1@0`), "
            "as asked of the set-up; its wake-ups take a little of the worker's time. l3fwd "
            "has no control plane. The kernel has the whole CPU 0 for softirq processing."
        ),
        (
            "- The kernel forwards in softirq context, which no task can preempt; the DPDK DUTs "
            "are user threads (at nice -20 here) that other tasks can still interrupt for a time "
            "slice. That, not the forwarding code, is why the DPDK DUTs lose a few frames at "
            "loads far below their capacity on this shared machine while the kernel does not."
        ),
        (
            "- l3fwd verifies no IPv4 header checksum (its RFC 1812 check "
            "relies on hardware), twinplane does in software; l3fwd needs "
            "`--parse-ptype` on memif and AF_XDP (packet types in software)."
        ),
        "",
    ]
    (out / f"{STEM}.md").write_text("\n".join(L))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.from_json:
        doc = json.loads(args.from_json.read_text())
        # derived cost figures are recomputed from the runs (the method may have changed)
        cost, ratios = summarize_cost(
            {k: v["runs"] for k, v in (doc.get("cost") or {}).items()},
            doc["tsc_hz"],
            (doc.get("machine") or {}).get("user_hz", 100),
        )
        doc["cost"] = cost
        doc.setdefault("ratios", {}).update(ratios)
        doc["ratios"].update(ndr_ratios_by_placement(doc))
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"{STEM}.json").write_text(json.dumps(doc, indent=1) + "\n")
        write_report(doc, args.out)
        print(f"wrote {args.out}/{STEM}.{{md,json}} and plots from {args.from_json}")
        return 0
    if os.geteuid() != 0:
        sys.exit(f"{STEM}: run as root (namespaces, hugepages, AF_XDP)")
    if any(d == "l3fwd" for _, d in args.plan) and not args.no_build:
        r = subprocess.run(
            [str(ROOT / "scripts/build-l3fwd.sh"), str(args.l3fwd.parent)],
            check=False,
            capture_output=True,
            text=True,
        )
        if r.returncode != 0:
            sys.exit(
                f"{STEM}: scripts/build-l3fwd.sh failed:\n{r.stdout[-3000:]}{r.stderr[-3000:]}"
            )
    bins = D.Binaries()
    need = {
        "gen": args.gen or bins.gen,
        "twinplane": args.twinplane or bins.twinplane,
        "l3fwd": args.l3fwd,
        "testdut": args.testdut or bins.testdut,
    }
    used = {"gen"} | {d for _, d in args.plan}
    for k, path in need.items():
        if k in used and not os.access(path, os.X_OK):
            sys.exit(f"{STEM}: {path} not built")
    return Runner(args).run()


if __name__ == "__main__":
    sys.exit(main())

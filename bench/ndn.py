#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Issue 10's NDN forwarder benchmark: satisfaction against sending rate, cycles
per Interest-Data exchange, the Content Store hit path and round-trip times, with
twinplane's own IPv4 forwarding on the same wire in the same run as the floor.

Set-up (one *bed*, started afresh per repetition and Data payload size)::

    twinplane-gen g0 (consumer, memif server) --> twinplane p0 (group face, mode ndn)
                                                   twinplane p1 (face to g1's MAC)  --> g1
    twinplane-gen g1 (producer ndn payload N, memif server) <-- Data back the same way

- CPUs: twinplane's worker (lcore 1, the forwarder: input, PIT-CS, FIB, output)
  alone on CPU 0; the generator (API lcore and worker: the consumer port g0 and
  the producer port g1 in one process and one loop), twinplane's control plane
  (lcore 0, asleep in epoll but for the API) and this script on CPU 1. The two
  polling threads run at nice -20.
- Forwarder: ``--no-backoff``; ``ndn enable cs-capacity 16384 pit-capacity
  65536`` (the defaults, stated), ``ndn face add ether p0`` (the multicast group
  face the consumer's Interests reach), ``ndn face add ether p1 remote <g1>``,
  ``ndn fib add /0 face <p1's face>``, ``ndn limits pit-face-share 100`` (the
  consumer's one face stands for every consumer). Ports in mode ``ndn`` for the
  NDN trials, switched to ``l3`` (``port set pN mode l3``, at run time, same
  process) for the IPv4 trials: p0 198.18.0.1/24, p1 198.19.1.1/24, route
  198.18.1.0/24 via 198.19.1.2 (g1's MAC, a permanent neighbour).
- Names: prefix ``/`` and the generator's ``/<i>/<j>/[p0/p1/...]/<seq>``, so
  ``comps`` is the whole name's component count (3: ``/0/0/<seq>``).
  Every Interest asks for a new name (no ``seq-mod``): a CS miss, a PIT insert,
  the Data satisfies it and goes into the CS (full after the warm-up, so each
  insert evicts the least recently used entry).

Measurements (each repetition goes through every bed; repetitions interleave):

- cost: ``--cost-rate`` Interests/s (500k) for ``--cost-seconds`` (2 s) per
  name length, after a 0.3 s warm-up trial of the same stream (fills the CS), as
  ``--cost-pieces`` (4) back-to-back trials, each after its own placement probe,
  combined (their summed counters); the pieces are also classed by placement.
  Cycles per exchange = the forwarder worker's ``busy_cycles`` (``show
  workers``: TSC cycles of loop iterations that did any work) over the trial
  and its drain, divided by the Data the forwarder sent to the consumer's face
  over the same window (``ndn face show``: ``tx_data`` of face p0), each
  exchange being one Interest and one Data through the forwarder;
- IPv4 floor: the same worker, ports in l3 mode, ip4-udp 64-byte frames at
  twice the cost rate (the same packets/s through the forwarder as the NDN
  trials: Interest + Data), cycles per packet = busy_cycles / packets sent;
- CS hit: a 3-component stream over 1,024 names (``seq-mod 1024``), warmed
  with one trial, then measured at the cost rate: busy cycles per Interest
  answered from the CS (``cs_hits``), the producer seeing none;
- capacity: the highest Interest rate with 100 % satisfaction (Data for every
  Interest offered, counting Interests the memif ring refused as unsatisfied),
  by rfc2544.search (tolerance 0, and 0.1 % as a second target), each failing
  rate with a small loss (< 2 %) retried once, 1 s trials; the zero-loss rate
  then verified by VERIFY_TRIALS more trials, stepped down by the resolution
  while one of them loses anything;
- satisfaction against sending rate: a fixed grid of rates, Data received /
  Interests offered; a sweep point or cost piece that lost Interests while the
  forwarder was kept from its CPU (its thread's run-queue wait, or passes of its
  loop over 1 ms: ``long_pass_cycles``, which also see the host holding its vCPU)
  is measured again, and listed;
- latency: the generator's RTT percentiles (Interest out to Data in, TSC) at
  100k and at the cost rate; IPv4 one-way latency at the cost rate's packets/s;
- wire ceiling: the generator's consumer straight into its producer (memif
  loopback in one process, no forwarder), its capacity by the same search.
- the host's placement of the two vCPUs (duts.xcpu_probe: ~20 ms under SCHED_FIFO)
  before every measured trial, never during one; kept per trial (``xcpu_rtt_ns``,
  ``placement``). Costs are reported overall and by placement, capacity by
  placement, and each sweep point is judged against the capacity of its own
  placement (README, Decisions: "The host's placement of the vCPUs").

Usage (root; runs under the venv):
    .venv/bin/python bench/ndn.py --quick      # ~3-5 min, 1 repetition, a subset
    .venv/bin/python bench/ndn.py              # the full report, 3 repetitions, ~20-30 min
    .venv/bin/python bench/ndn.py --from-json docs/results/ndn.json   # redraw only

The script takes ``--lock`` (default /tmp/tp-lab.lock, flock) around each bed,
not around the whole run, so another user of the lab's hugepages and memif
interleaves with it.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import re
import secrets
import shlex
import shutil
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from twinplane.bench import ensure_venv

ensure_venv(ROOT)

from twinplane.bench import duts as D
from twinplane.bench.gen import Gen, ndn_producer_counters, ndn_results
from twinplane.bench.rfc2544 import (
    Progress,
    SearchParams,
    TrialResult,
    search,
    spread,
    with_retries,
)
from twinplane.lab.daemon import Daemon
from twinplane.lab.netns import Netns

COMPS = (3, 7, 13)
PAYLOADS = (0, 300, 600, 900, 1200)
QUICK_COMPS = (3, 13)
QUICK_PAYLOADS = (0, 1200)
COST_RATE = 500_000.0  # Interests/s: every variant carries it (see the report's capacity)
SWEEP_RATES = (0.2e6, 0.4e6, 0.6e6, 0.8e6, 1.0e6, 1.2e6, 1.4e6, 1.8e6, 2.2e6, 2.6e6, 3.0e6, 3.5e6)
QUICK_SWEEP = (0.4e6, 0.8e6, 1.6e6, 2.5e6, 3.5e6)
LAT_RATE_LOW = 100_000.0
SEARCH_HI = 6.0e6  # Interests/s: the generator's loopback answers 7 M/s (1 s trials)
TOLERANCES = (0.0, 0.001)
# The search's zero-loss rate verified (as TRex's NDR benchmark and RFC 2544's repeated
# trials do): VERIFY_TRIALS more trials there, each with the search's retry rule; one of
# them losing anything sends the rate down by the resolution, at most VERIFY_STEPS times.
# A search's highest passing rate is the best of many noisy trials near the knee; this
# one carried every Interest in each of its trials.
VERIFY_TRIALS = 2
VERIFY_STEPS = 5
CS_CAPACITY = 16384
PIT_CAPACITY = 65536
HIT_NAMES = 1024
TEL_EVERY = (16, 1)  # telemetry cost: 1 packet in N timed (16: calibration; 1: every packet)
MEMIF_RSIZE = 12  # 4096 slots, as bench/rfc2544_ip4.py
NDN_MCAST = "01:00:5e:00:17:aa"
FIB_PREFIX = "/0"
BAR_CYCLES = 1000.0
LOCK = "/tmp/tp-lab.lock"
SWEEP_RETRY_BELOW = 0.02  # a sweep point losing less is retried once (the search's rule)
# a trial in which the forwarder's thread waited longer than this for its CPU (per
# second of trial) is disturbed, as duts.Testbed marks the RFC 2544 trials: at 2 M
# Interests/s, 2 ms fill most of the 4096-slot ring into the forwarder
SWEEP_DISTURBED_MS = 2.0
SWEEP_DISTURBED_TRIES = 3  # a sweep point is measured at most this often while disturbed
# ... or while the forwarder was saturated: busy for at least this share of the trial's
# sending time. At the capacity the searches find it is busy 93-99 % of it; a point
# below that capacity which saturates it finds the forwarder slower than in the search
# (its cycles per exchange in the trial say by how much: the host's placement and its
# neighbours move them by up to a third within one placement class)
SWEEP_SATURATED = 0.95
# ... or while its load (busy share) was within this of the lowest load at which the
# searches of its placement passed at their capacity: the host moves the forwarder's
# cycles per exchange by up to a tenth within one placement class (a mid trial at
# 2.2M/s ran at 1,110 cycles where the search's at 2.365M ran at 1,038-1,052), so a
# rate below the capacity can be a load at it. The search's resolution.
SWEEP_LOAD_MARGIN = 0.02


# --------------------------------------------------------------------------
# the lab lock


lab_lock = D.lab_lock  # bench/model.py uses it as NB.lab_lock
ISO: D.CpuIsolation | None = None  # main() keeps other tasks off the forwarder's CPU


# --------------------------------------------------------------------------
# one bed


def cpu_stat() -> dict[str, tuple[float, float]]:
    """Per CPU, the ms the hypervisor took (steal) and the kernel spent in softirqs
    since boot (/proc/stat): neither shows as a task's wait for its CPU."""
    tick = 1000.0 / os.sysconf("SC_CLK_TCK")
    out = {}
    with open("/proc/stat") as f:
        for line in f:
            w = line.split()
            if w[0].startswith("cpu") and w[0] != "cpu":
                out[w[0]] = (int(w[8]) * tick, int(w[7]) * tick)
    return out


class Bed:
    """The generator's consumer and producer ports, and twinplane between them
    (``loopback``: no forwarder, the consumer's port joined to the producer's)."""

    def __init__(
        self,
        payload: int,
        workdir: Path,
        tsc: float,
        loopback: bool = False,
        rsize: int = MEMIF_RSIZE,
        ndn_enable: str = "",
        lcores: tuple[str, ...] = (),
    ) -> None:
        """``rsize``: the memif rings' log2 size (with one lcore, the forwarder's
        queues); ``ndn_enable``: words added to ``ndn enable``; ``lcores``: the
        forwarder's data-plane lcores' roles (``input``, ``forwarding``...), all on
        the forwarder's CPU (sharing it, idle ones backing off), else one lcore
        running every stage."""
        self.payload = payload
        self.loopback = loopback
        self.rsize = rsize
        self.ndn_enable = ndn_enable
        self.lcores = lcores
        self.tsc = tsc
        self.tag = f"tpn{os.getpid()}-{secrets.token_hex(2)}"
        kind = "loopback" if loopback else "twinplane"
        self.workdir = workdir / f"{kind}-p{payload}-{self.tag}"
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.gen: Gen | None = None
        self.daemon: Daemon | None = None
        self.ns: Netns | None = None
        self.watch = D.CpuWatch()
        self.mode = ""
        self.faces: dict[str, int] = {}
        self.setup: list[str] = []
        self.streams: set[str] = set()

    # --- set-up ----------------------------------------------------------

    def start(self) -> None:
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    def _start(self) -> None:
        sd = self.workdir / "memif"
        sd.mkdir(exist_ok=True)
        l0, l1 = sd / "l0.sock", sd / "l1.sock"
        r = self.rsize
        if self.loopback:
            gports = (
                D.memif_devargs(0, "server", l0, D.GEN_MAC[0], r),
                D.memif_devargs(1, "client", l0, D.GEN_MAC[1], r),
            )
        else:
            gports = (
                D.memif_devargs(0, "server", l0, D.GEN_MAC[0], r),
                D.memif_devargs(1, "server", l1, D.GEN_MAC[1], r),
            )
        self.gen = Gen(f"{self.tag}g", self.workdir)
        self.gen.start()
        self.gen.port_add("g0", gports[0])
        self.gen.port_add("g1", gports[1], producer="ndn", payload=self.payload)
        self.setup.append("generator " + shlex.join(self.gen.argv[1:]))
        self.setup += [
            f"generator: port add g0 {gports[0]}",
            f"generator: port add g1 {gports[1]} producer ndn payload {self.payload}",
        ]
        if not self.loopback:
            self._start_twinplane()
        gen_pid = self.gen.pid
        self.watch.add("gen", [t for t in D.pinned_threads(gen_pid, D.GEN_CPU) if t != gen_pid])
        self.watch.add_ours(
            D.GEN_CPU, [*D.pinned_threads(gen_pid, D.GEN_CPU), threading.get_native_id()]
        )
        for tid in self.watch.groups.get("dut", []) + self.watch.groups["gen"]:
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, tid, -20)

    def _start_twinplane(self) -> None:
        assert self.gen is not None
        sd = self.workdir / "memif"
        dports = [
            D.memif_devargs(i, "client", sd / f"l{i}.sock", D.DUT_MAC[i], self.rsize)
            for i in (0, 1)
        ]
        roles = [f"lcore {i + 1} role {r}" for i, r in enumerate(self.lcores)]
        txq = " txq 1" if len(self.lcores) > 1 else ""
        config = "\n".join(
            [
                "# bench/ndn.py: the NDN forwarder, and IPv4 on the same ports",
                # the generator's memif servers have one queue pair: a second TX ring
                # from a second lcore would be refused, so the lcores share one
                f"port add p0 {dports[0]}{txq}",
                f"port add p1 {dports[1]}{txq}",
                f"address add {D.DUT_ADDR[0]} dev p0",
                f"address add {D.DUT_ADDR[1]} dev p1",
                f"neigh add {D.GEN_IP[0]} lladdr {D.GEN_MAC[0]} dev p0",
                f"neigh add {D.GEN_IP[1]} lladdr {D.GEN_MAC[1]} dev p1",
                f"route add {D.DST_NET} via {D.GEN_IP[1]}",
                *roles,
                f"ndn enable pit-capacity {PIT_CAPACITY} cs-capacity {CS_CAPACITY}"
                + (f" {self.ndn_enable}" if self.ndn_enable else ""),
                # the generator's one face stands for every consumer: the whole PIT
                "ndn limits pit-face-share 100",
                "",
            ]
        )
        self.ns = Netns(f"{self.tag}-t").create()
        self.daemon = Daemon(
            self.ns,
            f"{self.tag}t",
            self.workdir,
            config,
            lcores=f"0@{D.GEN_CPU},"
            + ",".join(f"{i + 1}@{D.DUT_CPU}" for i in range(max(1, len(self.lcores)))),
            extra_args=[] if len(self.lcores) > 1 else ["--no-backoff"],
        )
        self.daemon.start(timeout=60)
        self.setup.append("twinplane " + shlex.join(self.daemon.argv[1:]))
        self.setup += [ln for ln in config.splitlines() if ln and not ln.startswith("#")]
        self.faces["consumer"] = int(self.dut_cmd("ndn", "face", "add", "ether", "p0")["face"])
        self.faces["producer"] = int(
            self.dut_cmd("ndn", "face", "add", "ether", "p1", "remote", D.GEN_MAC[1])["face"]
        )
        self.dut_cmd("ndn", "fib", "add", FIB_PREFIX, "face", str(self.faces["producer"]))
        self.setup += [
            f"ndn face add ether p0  -> face {self.faces['consumer']}",
            f"ndn face add ether p1 remote {D.GEN_MAC[1]}  -> face {self.faces['producer']}",
            f"ndn fib add {FIB_PREFIX} face {self.faces['producer']}",
        ]
        pid = self.daemon.pid
        self.watch.add("dut", [t for t in D.pinned_threads(pid, D.DUT_CPU) if t != pid])
        self.watch.add_ours(D.DUT_CPU, D.pinned_threads(pid, D.DUT_CPU))

    def dut_cmd(self, *words: str) -> Any:
        assert self.daemon is not None
        return self.daemon.client.cmd(*words)

    def set_mode(self, mode: str) -> None:
        """Both ports to ``mode`` (ndn or l3); no-op when already there."""
        if self.loopback or self.mode == mode:
            return
        for p in ("p0", "p1"):
            self.dut_cmd("port", "set", p, "mode", mode)
        self.mode = mode

    def ndn_stream(self, comps: int, seq_mod: int | None = None) -> str:
        assert self.gen is not None
        name = f"n{comps}" + (f"m{seq_mod}" if seq_mod else "")
        if name not in self.streams:
            self.gen.ndn_stream_add(
                name, "g0", prefix="/", comps=comps, seq_mod=seq_mod, smac=D.GEN_MAC[0]
            )
            self.streams.add(name)
        return name

    def ip_stream(self, size: int = 64) -> str:
        assert self.gen is not None
        name = f"ip{size}"
        if name not in self.streams:
            self.gen.stream_add(
                name,
                "g0",
                size,
                dmac=D.DUT_MAC[0],
                smac=D.GEN_MAC[0],
                src=D.GEN_IP[0],
                dst=D.DST_RANGE,
                sport=1024,
                dport=1025,
                ttl=64,
            )
            self.streams.add(name)
        return name

    # --- counters and trials ---------------------------------------------

    def dut_snapshot(self) -> dict[str, Any]:
        if self.daemon is None:
            return {}
        c = self.daemon.client
        ws = c.cmd("show", "workers")["workers"]
        snap: dict[str, Any] = {
            k: sum(int(w.get(k, 0)) for w in ws)
            for k in (
                "busy_cycles", "total_cycles", "rx", "tx", "polls", "idle_polls",
                "long_passes", "long_pass_cycles",
            )
        }  # fmt: skip
        if self.mode == "ndn":
            snap["ndn"] = dict(c.cmd("show", "ndn")["totals"])
            faces = {int(f["id"]): f["counters"] for f in c.cmd("ndn", "face", "show")["faces"]}
            for role, fid in self.faces.items():
                snap[f"face_{role}"] = dict(faces.get(fid, {}))
        return snap

    def trial(
        self,
        stream: str,
        rate: float,
        duration: float,
        drain: float = 0.2,
        probe: bool = True,
        keep_hist: bool = False,
    ) -> dict[str, Any]:
        """One trial; the generator's view and the forwarder's counters over it.
        ``probe``: the host's placement of the two vCPUs measured first
        (duts.xcpu_probe, ~20 ms under SCHED_FIFO, before the counters' first
        snapshot so that it is no part of the trial); ``keep_hist``: the RTT
        histogram kept (``latency_hist``) for merging trials."""
        assert self.gen is not None
        if self.daemon is not None and not self.daemon.running():
            raise RuntimeError(f"twinplane died\n{self.daemon.logs()}")
        pr = D.xcpu_probe() if probe else None
        a, wa, sa = self.dut_snapshot(), self.watch.snapshot(), cpu_stat()
        raw = self.gen.trial_raw(stream, rate, duration=duration, drain=drain)
        b, wb, sb = self.dut_snapshot(), self.watch.snapshot(), cpu_stat()
        t = raw["trial"]
        out: dict[str, Any] = {
            "stream": stream,
            "rate_pps": rate,
            "duration_s": duration,
            "elapsed_s": float(t.get("duration_s") or duration),
            "offered": int(t["offered"]),
            "tx": int(t["tx"]),
            "tx_full": int(t.get("tx_full", 0)),
            "tx_nombuf": int(t.get("tx_nombuf", 0)),
            "rx": int(t["rx"]),
            "lost": int(t["lost"]),
            "cpu_wait_ms": {k: round(v, 3) for k, v in self.watch.wait_ms(wa, wb).items()},
            "steal_ms": {k: round(sb[k][0] - sa[k][0], 1) for k in sa},
            "softirq_ms": {k: round(sb[k][1] - sa[k][1], 1) for k in sa},
            "others_share": self.watch.others_share(wa, wb),
            # the generator: off its CPU (paused), late on its CPU (lag_max_us: its
            # latest burst; held: bursts that waited for the catch-up pace)
            "gen_paused_ms": round(1e3 * float(t.get("paused_s") or 0.0), 3),
            "gen_lag_max_us": round(float(t.get("lag_max_us") or 0.0), 1),
            "gen_held": int(t.get("held") or 0),
        }
        if probe:
            out["xcpu_rtt_ns"] = pr["rtt_ns"] if pr else None
            out["placement"] = D.placement(out["xcpu_rtt_ns"])
        s = raw["streams"][0]
        lat = s.get("latency_ns") or {}
        out["latency_ns"] = {k: v for k, v in lat.items() if k != "hist"}
        if keep_hist:
            out["latency_hist"] = lat.get("hist") or []
        nr = ndn_results(raw).get(stream)
        if nr is not None:
            out["satisfied"] = nr.satisfied
            out["nacks"] = nr.nacks
            out["satisfaction"] = nr.satisfied / out["offered"] if out["offered"] else 0.0
            out["producer"] = ndn_producer_counters(raw, "g1")
        if a:
            d = {k: b[k] - a[k] for k in a if isinstance(a[k], int)}
            out["dut"] = d
            if "ndn" in a and "ndn" in b:
                out["dut_ndn"] = {k: b["ndn"][k] - a["ndn"][k] for k in a["ndn"]}
                for role in self.faces:
                    fa, fb = a[f"face_{role}"], b[f"face_{role}"]
                    out[f"dut_face_{role}"] = {k: fb[k] - fa.get(k, 0) for k in fb}
                ex = out["dut_face_consumer"].get("tx_data", 0)
                out["exchanges"] = ex
                out["cycles_per_exchange"] = d["busy_cycles"] / ex if ex else None
                hits = out["dut_ndn"].get("cs_hits", 0)
                out["cs_hits"] = hits
                out["cycles_per_cs_hit"] = d["busy_cycles"] / hits if hits else None
            else:
                out["cycles_per_packet"] = d["busy_cycles"] / d["tx"] if d["tx"] else None
            out["busy_ratio"] = d["busy_cycles"] / d["total_cycles"] if d["total_cycles"] else None
            # passes of the forwarder's loop over 1 ms: its thread off the CPU, or its
            # vCPU held by the host, which cpu_wait_ms cannot see
            out["dut_long_pass_ms"] = round(1e3 * d.get("long_pass_cycles", 0) / self.tsc, 3)
        return out

    def search_fn(self, stream: str, log: list[dict[str, Any]]) -> Any:
        def fn(rate: float, duration: float) -> TrialResult:
            r = self.trial(stream, rate, duration)
            log.append(r)
            return TrialResult(
                rate_pps=rate,
                duration_s=duration,
                offered=r["offered"],
                rx=min(r["satisfied"], r["offered"]),
                elapsed_s=r["elapsed_s"],
                tx=r["tx"],
                tx_full=r["tx_full"],
                tx_nombuf=r["tx_nombuf"],
                extra={
                    "others_share": r["others_share"],
                    "cpu_wait_ms": r["cpu_wait_ms"],
                    "busy_ratio": r.get("busy_ratio"),
                    "busy_share": busy_share(r, self.tsc),
                    "cycles_per_exchange": r.get("cycles_per_exchange"),
                    "satisfied_of_accepted": r["satisfied"] / r["tx"] if r["tx"] else None,
                    "xcpu_rtt_ns": r.get("xcpu_rtt_ns"),
                    "placement": r.get("placement"),
                },
            )

        return fn

    def wait_path(self, stream: str, timeout: float = 30.0) -> None:
        """Small trials until one comes back whole (memif links up, mode switched)."""
        deadline = time.monotonic() + timeout
        while True:
            r = self.trial(stream, 20000, 0.05, drain=0.1, probe=False)
            if r["offered"] and r["lost"] == 0:
                return
            if time.monotonic() > deadline:
                logs = self.daemon.logs() if self.daemon else ""
                raise RuntimeError(f"{stream}: nothing comes back: {r}\n{logs}")
            time.sleep(0.2)

    def close(self) -> None:
        for fn in (
            (self.daemon.stop if self.daemon else None),
            (self.gen.stop if self.gen else None),
            (self.ns.delete if self.ns else None),
        ):
            if fn is not None:
                with contextlib.suppress(Exception):
                    fn()


# --------------------------------------------------------------------------
# measurements


def capacity(
    bed: Bed, stream: str, args: argparse.Namespace, prog: Progress | None
) -> dict[str, Any]:
    log: list[dict[str, Any]] = []
    fn = with_retries(bed.search_fn(stream, log), retries=1, max_loss=0.02)
    p = SearchParams(
        duration_s=args.search_seconds,
        probe_duration_s=0.3,
        resolution=args.resolution,
        resolution_pps=5000.0,
        tolerances=TOLERANCES,
    )
    res = search(fn, SEARCH_HI, p)
    trials = list(res.trials)
    rate, verify, at_cap = res.ndr.rate_pps, [], res.ndr.trial or {}
    for _ in range(VERIFY_STEPS if rate > 0 else 0):
        got = [fn(rate, args.search_seconds) for _ in range(VERIFY_TRIALS)]
        ok = all(r.passes(0.0, p.rate_slack) for r in got)
        verify.append({"rate_pps": rate, "passed": ok})
        trials += [r.summary() for r in got]
        if ok:
            at_cap = got[-1].summary()
            break
        rate *= 1.0 - args.resolution
    # none verified within VERIFY_STEPS: a step under the lowest rate tried, marked
    # unverified (the run still measures 80 % of it); the summaries leave it out
    verified = not verify or verify[-1]["passed"]
    if prog:
        prog.message(
            f"  capacity {stream} payload {bed.payload}"
            f"{' (loopback)' if bed.loopback else ''}: {rate / 1e6:.3f} M Interests/s"
            f" (search {res.ndr.rate_pps / 1e6:.3f}; {len(trials)} trials)"
        )
    above = [t for t in trials if t["rate_pps"] > rate + 1 and t["lost"]]
    fail = min(above, key=lambda t: t["rate_pps"]) if above else None
    # the search's placement of the host's vCPUs: its trials' probes, 80 % agreeing
    pl = D.search_placement([t.get("xcpu_rtt_ns") for t in trials])
    return {
        "placement": pl["placement"],
        "xcpu_rtt_ns": pl["xcpu_rtt_ns"],
        "capacity_pps": rate,
        "capacity_search_pps": res.ndr.rate_pps,
        "verify": verify,
        "verified": verified,
        "busy_ratio_at_capacity": at_cap.get("busy_ratio"),
        "first_failure": fail,
        "capacity_measured_pps": res.ndr.measured_pps,
        "capacity_0p1_pps": res.pdr.rate_pps,
        "converged": res.ndr.converged,
        "lowest_fail_pps": res.ndr.lower_fail_pps,
        "trials": trials,
        "wall_s": round(res.wall_s, 1),
    }


def _verify_note(doc: dict[str, Any]) -> str:
    """How far verification moved the searches' capacities, for the report."""
    found = []
    for run in [*doc.get("runs", []), *doc.get("loopback", [])]:
        cap = run.get("capacity") or {}
        found += [cap] if "capacity_pps" in cap else list(cap.values())
    caps = [c for c in found if isinstance(c, dict) and c.get("verify")]
    if not caps:
        return ""
    lowered = [c for c in caps if c["capacity_pps"] < c["capacity_search_pps"]]
    unver = [c for c in caps if not c.get("verified", True)]
    drops = [1 - c["capacity_pps"] / c["capacity_search_pps"] for c in lowered]
    return (
        f"Of {len(caps)} searches, {len(lowered)} had their rate lowered by verification"
        + (f" (by {100 * min(drops):.0f}-{100 * max(drops):.0f} %)" if drops else "")
        + (
            f", {len(unver)} with no rate verified in {VERIFY_STEPS} steps (no capacity: left "
            "out of the capacity figures and of the sweep's judgement)"
            if unver
            else ""
        )
        + ". "
    )


def merge_hist(hists: list[list[list[int]]], lo: int, hi: int) -> dict[str, int]:
    """Percentiles of the sum of the generator's RTT histograms (pairs of bucket
    upper bound and count), by the generator's rule (tp_rxstats_quantile: the
    bucket's upper bound, clamped to the smallest and largest samples)."""
    acc: dict[int, int] = {}
    for h in hists:
        for upper, n in h:
            acc[upper] = acc.get(upper, 0) + n
    total = sum(acc.values())
    out = {"min": lo, "max": hi}
    for key, q in (("p50", 0.5), ("p99", 0.99), ("p999", 0.999)):
        want = min(int(q * total), total - 1)
        run, val = 0, hi
        for upper in sorted(acc):
            run += acc[upper]
            if run > want:
                val = min(max(upper, lo), hi)
                break
        out[key] = val if total else 0
    return out


SUMMED = ("offered", "tx", "tx_full", "tx_nombuf", "rx", "lost", "satisfied", "exchanges",
          "cs_hits")  # fmt: skip


def combine(pieces: list[dict[str, Any]]) -> dict[str, Any]:
    """One cost measurement from back-to-back pieces (each with its own placement
    probe): counters summed, so its cycles per exchange (or per packet, or per CS
    hit) are the pieces' total busy cycles over their total exchanges, as one long
    trial's; RTT percentiles from the summed histograms; ``placement`` the pieces'
    when they all agree, else None. The pieces are kept under ``pieces``."""
    out: dict[str, Any] = {
        "stream": pieces[0]["stream"],
        "rate_pps": pieces[0]["rate_pps"],
        "duration_s": sum(p["duration_s"] for p in pieces),
        "elapsed_s": sum(p["elapsed_s"] for p in pieces),
    }
    for k in SUMMED:
        if all(k in p for p in pieces):
            out[k] = sum(p[k] for p in pieces)
    for k in ("cpu_wait_ms", "steal_ms", "softirq_ms", "dut", "dut_ndn", "nacks",
              "dut_face_consumer", "dut_face_producer"):  # fmt: skip
        if all(isinstance(p.get(k), dict) for p in pieces):
            keys = pieces[0][k].keys()
            out[k] = {x: sum(p[k].get(x) or 0 for p in pieces) for x in keys}
    if "satisfied" in out:
        out["satisfaction"] = out["satisfied"] / out["offered"] if out["offered"] else 0.0
    d = out.get("dut")
    if d:
        busy = d["busy_cycles"]
        if "exchanges" in out:
            ex, hits = out["exchanges"], out.get("cs_hits", 0)
            out["cycles_per_exchange"] = busy / ex if ex else None
            out["cycles_per_cs_hit"] = busy / hits if hits else None
        else:
            out["cycles_per_packet"] = busy / d["tx"] if d["tx"] else None
        out["busy_ratio"] = busy / d["total_cycles"] if d["total_cycles"] else None
    lats = [p["latency_ns"] for p in pieces if p.get("latency_ns")]
    if lats and all("latency_hist" in p for p in pieces):
        out["latency_ns"] = merge_hist(
            [p["latency_hist"] for p in pieces],
            min(x.get("min", 0) for x in lats),
            max(x.get("max", 0) for x in lats),
        )
    pls = {p.get("placement") for p in pieces}
    out["placement"] = pls.pop() if len(pls) == 1 else None
    rtts = [p["xcpu_rtt_ns"] for p in pieces if p.get("xcpu_rtt_ns") is not None]
    out["xcpu_rtt_ns"] = sorted(rtts)[len(rtts) // 2] if rtts else None
    out["pieces"] = [{k: v for k, v in p.items() if k != "latency_hist"} for p in pieces]
    return out


def cost_trial(
    bed: Bed, stream: str, args: argparse.Namespace, rate: float | None = None
) -> dict[str, Any]:
    """A warm-up trial (fills the CS, the PIT at steady state), then ``--cost-pieces``
    back-to-back trials of ``--cost-seconds`` in all, each after a placement probe,
    combined (``combine``)."""
    rate = rate or args.cost_rate
    bed.trial(stream, rate, 0.3, probe=False)
    each = args.cost_seconds / args.cost_pieces
    return combine([cost_piece(bed, stream, rate, each) for _ in range(args.cost_pieces)])


def _lossy(t: dict[str, Any]) -> bool:
    return t["satisfaction"] < 1.0 if "satisfaction" in t else t["lost"] > 0


def cost_piece(bed: Bed, stream: str, rate: float, seconds: float) -> dict[str, Any]:
    """One piece of a cost trial. A piece that loses Interests (or IPv4 packets) while
    the forwarder was kept from its CPU (``disturbed``) is measured again, as a sweep
    point is, SWEEP_DISTURBED_TRIES trials at most; the last stands, the first is kept
    under ``first`` (without its histogram), the count under ``tries``."""
    tries: list[dict[str, Any]] = []
    while True:
        r = bed.trial(stream, rate, seconds, keep_hist=True)
        tries.append(r)
        if not (_lossy(r) and disturbed(r)) or len(tries) >= SWEEP_DISTURBED_TRIES:
            break
    r["disturbed"] = _lossy(r) and disturbed(r)
    if len(tries) > 1:
        r["first"] = {k: v for k, v in tries[0].items() if k != "latency_hist"}
        r["tries"] = len(tries)
    return r


def perf_profile(bed: Bed, stream: str, rate: float, seconds: float) -> dict[str, Any]:
    """perf record -e cpu-clock on the forwarder's CPU during a trial at ``rate``."""
    perf = shutil.which("perf")
    if perf is None:
        return {"error": "perf not installed"}
    data = bed.workdir / "perf.data"
    rec = subprocess.Popen(
        [perf, "record", "-q", "-e", "cpu-clock", "-F", "4999", "-C", str(D.DUT_CPU),
         "-o", str(data), "--", "sleep", f"{seconds:g}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    time.sleep(0.2)
    r = bed.trial(stream, rate, seconds + 0.5)
    _, err = rec.communicate(timeout=seconds + 30)
    if rec.returncode != 0:
        return {"error": f"perf record exited {rec.returncode}: {err.strip()[:300]}"}
    rep = subprocess.run(
        [perf, "report", "-i", str(data), "--stdio", "--no-children", "--sort", "dso,sym",
         "--percent-limit", "0.5"],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    by_dso = subprocess.run(
        [perf, "report", "-i", str(data), "--stdio", "--no-children", "--sort", "dso"],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    dsos = []
    for ln in by_dso.stdout.splitlines():
        m = re.match(r"^\s+([0-9.]+)%\s+(\S+)\s*$", ln)
        if m:
            dsos.append({"percent": float(m.group(1)), "dso": m.group(2)})
    top = []
    for ln in rep.stdout.splitlines():
        m = re.match(r"^\s+([0-9.]+)%\s+(\S+)\s+\[[.kH]\]\s+(.+?)\s*$", ln)
        if m:
            top.append({"percent": float(m.group(1)), "dso": m.group(2), "symbol": m.group(3)})
    return {
        "command": f"perf record -e cpu-clock -F 4999 -C {D.DUT_CPU} -- sleep {seconds:g}",
        "stream": stream,
        "rate_pps": rate,
        "busy_ratio": r.get("busy_ratio"),
        "cycles_per_exchange": r.get("cycles_per_exchange"),
        "top": top[:25],
        "by_dso": dsos[:8],
    }


def disturbed(t: dict[str, Any]) -> bool:
    """The forwarder lost its CPU long enough in trial ``t`` to fill its ring: its
    thread waited for the CPU (the guest's scheduler says so), or its loop had passes
    over 1 ms that the guest counts as running (the host held its vCPU: a 0.5 s trial
    at 500k Interests/s lost 992 Interests so, with the forwarder 14 % busy and an RTT
    of 10 ms)."""
    wait = (t.get("cpu_wait_ms") or {}).get("dut") or 0.0
    wait = max(wait, t.get("dut_long_pass_ms") or 0.0)
    return bool(wait > SWEEP_DISTURBED_MS * max(1.0, t.get("elapsed_s") or 1.0))


def busy_share(t: dict[str, Any], tsc: float) -> float | None:
    """The forwarder's busy time in trial ``t`` (its drain included: the backlog it
    clears there is the trial's) over the trial's sending time."""
    busy = (t.get("dut") or {}).get("busy_cycles")
    el = t.get("elapsed_s")
    return busy / tsc / el if busy is not None and el else None


def saturated(t: dict[str, Any], tsc: float) -> bool:
    """The forwarder had no CPU to spare in trial ``t``: the rate was over its capacity
    at that time, whatever a search found earlier."""
    b = busy_share(t, tsc)
    return b is not None and b >= SWEEP_SATURATED


def sweep_point(bed: Bed, stream: str, rate: float, seconds: float) -> dict[str, Any]:
    """One point of the satisfaction sweep. A trial that loses Interests while the
    forwarder's thread was kept off its CPU (``disturbed``) or while the forwarder was
    saturated (``saturated``) is measured again, up to SWEEP_DISTURBED_TRIES such
    trials in all; a trial that leaves less than
    SWEEP_RETRY_BELOW of its Interests unsatisfied is retried once, as the capacity
    search retries such a rate (a neighbour taking the CPU for a few milliseconds fills
    the ring). The last trial stands, marked ``disturbed`` or ``saturated`` if it lost
    Interests so; the first is kept under ``first``, the count under ``tries``."""
    tries: list[dict[str, Any]] = []
    small_retry = False

    def excused(t: dict[str, Any]) -> bool:
        return disturbed(t) or saturated(t, bed.tsc)

    while True:
        r = bed.trial(stream, rate, seconds)
        r["busy_share"] = busy_share(r, bed.tsc)
        tries.append(r)
        lost = 1.0 - r.get("satisfaction", 1.0)
        if lost <= 0:
            break
        if excused(r) and sum(map(excused, tries)) < SWEEP_DISTURBED_TRIES:
            continue
        if lost < SWEEP_RETRY_BELOW and not small_retry:
            small_retry = True
            continue
        break
    r["disturbed"] = lost > 0 and disturbed(r)
    r["saturated"] = lost > 0 and not r["disturbed"] and saturated(r, bed.tsc)
    if len(tries) > 1:
        r["first"] = tries[0]
        r["tries"] = len(tries)
        r["disturbed_tries"] = sum(
            1 for t in tries if disturbed(t) and t.get("satisfaction", 1.0) < 1
        )
    return r


def run_bed(
    rep: int,
    payload: int,
    args: argparse.Namespace,
    tsc: float,
    workdir: Path,
    prog: Progress,
) -> dict[str, Any]:
    """Everything measured with one forwarder and one producer payload size."""
    out: dict[str, Any] = {"rep": rep, "payload": payload}
    with lab_lock(args.lock) as waited:
        out["lock_wait_s"] = round(waited, 1)
        if ISO is not None:
            ISO.sweep()
        D.ensure_hugepages(1024)
        bed = Bed(payload, workdir, tsc)
        try:
            bed.start()
            out["setup"] = bed.setup
            # IPv4 first: ports in l3 mode
            bed.set_mode("l3")
            ip = bed.ip_stream(64)
            bed.wait_path(ip)
            out["ipv4"] = cost_trial(bed, ip, args, 2 * args.cost_rate)
            prog.advance(1, f"rep {rep + 1} payload {payload}: ipv4")
            bed.set_mode("ndn")
            out["cost"] = {}
            for comps in args.comps:
                st = bed.ndn_stream(comps)
                if comps == args.comps[0]:
                    bed.wait_path(st)
                out["cost"][str(comps)] = cost_trial(bed, st, args)
                prog.advance(1, f"rep {rep + 1} payload {payload}: cost {comps}")
            if payload == args.payloads[0]:
                # telemetry's cost: off, then 1 in N packets timed, back to back
                st = bed.ndn_stream(args.comps[0])
                tel: dict[str, Any] = {"off": cost_trial(bed, st, args)}
                for every in TEL_EVERY:
                    bed.dut_cmd("ndn", "telemetry", "sample", str(every))
                    tel[str(every)] = cost_trial(bed, st, args)
                bed.dut_cmd("ndn", "telemetry", "sample", "0")
                out["telemetry_cost"] = tel
                prog.advance(1, f"rep {rep + 1} payload {payload}: telemetry cost")
            hit = bed.ndn_stream(3, seq_mod=HIT_NAMES)
            out["cs_hit"] = cost_trial(bed, hit, args)
            prog.advance(1)
            if payload == args.payloads[0]:
                out["latency"] = {}
                for comps in args.comps:
                    st = bed.ndn_stream(comps)
                    out["latency"][str(comps)] = bed.trial(st, LAT_RATE_LOW, args.search_seconds)
            # capacity: 3 components at every payload, every name length at the first
            out["capacity"] = {}
            for comps in args.comps if payload == args.payloads[0] else args.comps[:1]:
                out["capacity"][str(comps)] = capacity(bed, bed.ndn_stream(comps), args, prog)
                prog.advance(3, f"rep {rep + 1} payload {payload}: capacity {comps}")
            if payload == args.payloads[0]:
                # the same cost at 80 % of this repetition's capacity: bigger bursts
                out["cost_near_capacity"] = {}
                for comps in args.comps:
                    cap = out["capacity"][str(comps)]["capacity_pps"]
                    if cap:
                        st = bed.ndn_stream(comps)
                        out["cost_near_capacity"][str(comps)] = cost_trial(bed, st, args, 0.8 * cap)
                out["sweep"] = {}
                for comps in args.comps:
                    st = bed.ndn_stream(comps)
                    out["sweep"][str(comps)] = [
                        sweep_point(bed, st, rate, args.search_seconds) for rate in args.sweep
                    ]
                    prog.advance(3, f"rep {rep + 1}: sweep {comps}")
                if args.profile and rep == 0:
                    cap = out["capacity"][str(args.comps[0])]["capacity_pps"]
                    st = bed.ndn_stream(args.comps[0])
                    out["profile"] = {
                        "cost_rate": perf_profile(bed, st, args.cost_rate, 4.0),
                        "near_capacity": perf_profile(bed, st, 0.9 * cap, 4.0) if cap else None,
                    }
            if bed.daemon is not None:
                out["show_ndn_end"] = bed.daemon.client.cmd("show", "ndn")
                out["faces_end"] = bed.daemon.client.cmd("ndn", "face", "show")
        except Exception as e:  # noqa: BLE001 - keep the other beds
            out["error"] = f"{e}\n{traceback.format_exc()}"
            prog.message(f"  rep {rep + 1} payload {payload}: ERROR {str(e).splitlines()[0]}")
            if bed.daemon is not None:
                out["dut_log"] = bed.daemon.logs()
        finally:
            bed.close()
    return out


def run_loopback(
    rep: int, args: argparse.Namespace, tsc: float, workdir: Path, prog: Progress
) -> dict[str, Any]:
    out: dict[str, Any] = {"rep": rep, "payload": args.payloads[0]}
    with lab_lock(args.lock) as waited:
        out["lock_wait_s"] = round(waited, 1)
        if ISO is not None:
            ISO.sweep()
        D.ensure_hugepages(1024)
        bed = Bed(args.payloads[0], workdir, tsc, loopback=True)
        try:
            bed.start()
            out["setup"] = bed.setup
            st = bed.ndn_stream(args.comps[0])
            bed.wait_path(st)
            out["capacity"] = capacity(bed, st, args, prog)
            out["latency"] = bed.trial(st, LAT_RATE_LOW, args.search_seconds)
        except Exception as e:  # noqa: BLE001
            out["error"] = f"{e}\n{traceback.format_exc()}"
            prog.message(f"  rep {rep + 1} loopback: ERROR {str(e).splitlines()[0]}")
        finally:
            bed.close()
    prog.advance(3, f"rep {rep + 1}: loopback")
    return out


# --------------------------------------------------------------------------
# summary


def _vals(runs: list[dict[str, Any]], *path: str) -> list[float]:
    out = []
    for r in runs:
        v: Any = r
        for k in path:
            if not isinstance(v, dict) or k not in v:
                v = None
                break
            v = v[k]
        if isinstance(v, int | float):
            out.append(float(v))
    return out


def _cap_of(cr: Any) -> float | None:
    """A search's capacity, None for a search whose rate passed no verification in
    VERIFY_STEPS steps (it has none)."""
    if not isinstance(cr, dict) or not cr.get("verified", True):
        return None
    v = cr.get("capacity_pps")
    return float(v) if isinstance(v, int | float) else None


def _caps(runs: list[dict[str, Any]], *path: str) -> list[float]:
    """The verified capacities at ``path`` under ``capacity`` (``_cap_of``)."""
    out = []
    for r in runs:
        cr: Any = r.get("capacity") or {}
        for k in path:
            cr = cr.get(k) if isinstance(cr, dict) else None
        v = _cap_of(cr)
        if v is not None:
            out.append(v)
    return out


def _sp(vals: list[float]) -> dict[str, Any]:
    s = spread(vals)
    return {k: s[k] for k in ("median", "min", "max", "n")} | {"values": vals}


def _by_placement(runs: list[dict[str, Any]], what: str, key: str, *sub: str) -> dict[str, Any]:
    """``key`` of every piece of the cost measurement ``what`` (then ``sub``) of the
    runs, by the placement its probe found: per placement the pieces' median
    (min-max), ``n`` pieces, from ``beds`` beds."""
    by: dict[str, list[float]] = {}
    beds: dict[str, set[int]] = {}
    for i, r in enumerate(runs):
        m: Any = r.get(what)
        for k in sub:
            m = m.get(k) if isinstance(m, dict) else None
        for pc in (m or {}).get("pieces") or []:
            v, pl = pc.get(key), pc.get("placement")
            if pl and isinstance(v, int | float):
                by.setdefault(pl, []).append(float(v))
                beds.setdefault(pl, set()).add(i)
    return {pl: _sp(by[pl]) | {"beds": len(beds[pl])} for pl in D.PLACEMENTS if pl in by}


def summarize(doc: dict[str, Any]) -> dict[str, Any]:
    beds = [r for r in doc["runs"] if "error" not in r]
    loops = [r for r in doc["loopback"] if "error" not in r]
    comps = doc["params"]["comps"]
    payloads = doc["params"]["payloads"]
    first = [r for r in beds if r["payload"] == payloads[0]]
    s: dict[str, Any] = {}
    cpe: dict[str, Any] = {}
    for c in comps:
        by_p = {
            str(p): _sp(
                _vals([r for r in beds if r["payload"] == p], "cost", str(c), "cycles_per_exchange")
            )
            for p in payloads
        }
        cpe[str(c)] = {**by_p[str(payloads[0])], "payload": payloads[0], "by_payload": by_p}
    s["cycles_per_exchange"] = cpe
    # the same by the host's placement of the two vCPUs (each piece's probe)
    cpe_pl: dict[str, Any] = {}
    for c in comps:
        by_p = {
            str(p): _by_placement(
                [r for r in beds if r["payload"] == p], "cost", "cycles_per_exchange", str(c)
            )
            for p in payloads
        }
        cpe_pl[str(c)] = {**by_p[str(payloads[0])], "payload": payloads[0], "by_payload": by_p}
    s["cycles_per_exchange_by_placement"] = cpe_pl
    s["ipv4_cycles_per_packet_by_placement"] = _by_placement(beds, "ipv4", "cycles_per_packet")
    s["cs_hit_cycles_by_placement"] = {
        str(p): _by_placement([r for r in beds if r["payload"] == p], "cs_hit", "cycles_per_cs_hit")
        for p in payloads
    }
    ip = _vals(beds, "ipv4", "cycles_per_packet")
    s["ipv4_cycles_per_packet"] = _sp(ip)
    s["ipv4_cycles_per_packet_by_payload_bed"] = {
        str(p): _sp(_vals([r for r in beds if r["payload"] == p], "ipv4", "cycles_per_packet"))
        for p in payloads
    }
    s["cs_hit_cycles"] = {
        str(p): _sp(_vals([r for r in beds if r["payload"] == p], "cs_hit", "cycles_per_cs_hit"))
        for p in payloads
    }
    # per bed: the exchange's cost over two IPv4 packets of the same bed
    ratio = {}
    for c in comps:
        v = []
        for r in beds:
            a = (r.get("cost", {}).get(str(c)) or {}).get("cycles_per_exchange")
            b = (r.get("ipv4") or {}).get("cycles_per_packet")
            if a and b:
                v.append(a / (2 * b))
        ratio[str(c)] = _sp(v)
    s["exchange_over_two_ipv4_packets"] = ratio
    # telemetry: cycles per exchange with 1 in N packets timed, and over the paired
    # trial with it off
    tc: dict[str, Any] = {"off": _sp(_vals(first, "telemetry_cost", "off", "cycles_per_exchange"))}
    for every in TEL_EVERY:
        rel = []
        for r in first:
            t = r.get("telemetry_cost") or {}
            a = (t.get(str(every)) or {}).get("cycles_per_exchange")
            b = (t.get("off") or {}).get("cycles_per_exchange")
            if a and b:
                rel.append(a / b)
        tc[str(every)] = {
            "cycles_per_exchange": _sp(
                _vals(first, "telemetry_cost", str(every), "cycles_per_exchange")
            ),
            "over_off": _sp(rel),
        }
    s["telemetry_cost"] = tc
    s["capacity_pps"] = {str(c): _sp(_caps(first, str(c))) for c in comps}
    # capacity by placement: the searches whose trials' probes agreed (80 %)
    cap_pl: dict[str, Any] = {}
    for c in comps:
        by: dict[str, list[float]] = {}
        mixed = 0
        for r in first:
            cr = (r.get("capacity") or {}).get(str(c))
            cap = _cap_of(cr)
            if cap is None:
                continue
            if cr.get("placement"):
                by.setdefault(cr["placement"], []).append(cap)
            else:
                mixed += 1
        cap_pl[str(c)] = {pl: _sp(by[pl]) for pl in D.PLACEMENTS if pl in by} | {
            "searches_in_no_one_placement": mixed
        }
    s["capacity_pps_by_placement"] = cap_pl
    s["capacity_0p1_pps"] = {
        str(c): _sp(_vals(first, "capacity", str(c), "capacity_0p1_pps")) for c in comps
    }
    s["capacity_3comp_by_payload_pps"] = {
        str(p): _sp(_caps([r for r in beds if r["payload"] == p], str(comps[0]))) for p in payloads
    }
    s["loopback_capacity_pps"] = _sp(_caps(loops))
    lat: dict[str, Any] = {}
    for c in comps:
        for label, key in (("low", "latency"), ("cost_rate", "cost")):
            lat[f"{c}_{label}"] = {
                q: _sp(_vals(first, key, str(c), "latency_ns", q))
                for q in ("p50", "p99", "p999", "max")
            }
    lat["ipv4_cost_rate"] = {
        q: _sp(_vals(first, "ipv4", "latency_ns", q)) for q in ("p50", "p99", "p999", "max")
    }
    lat["loopback_low"] = {
        q: _sp(_vals(loops, "latency", "latency_ns", q)) for q in ("p50", "p99", "p999", "max")
    }
    s["latency_ns"] = lat
    # the forwarder's load at each capacity: the lowest busy share among the passing
    # trials at the capacity's rate, over the searches of one placement
    cap_load: dict[str, dict[str, float]] = {}
    for c in comps:
        for r in first:
            cr = (r.get("capacity") or {}).get(str(c)) or {}
            pl, cap = cr.get("placement"), _cap_of(cr)
            if pl is None or cap is None:
                continue
            loads = [
                t["busy_share"]
                for t in cr.get("trials") or []
                if t.get("busy_share") is not None
                and not t.get("lost")
                and abs(t["rate_pps"] - cap) < 1.0
            ]
            if loads:
                cur = cap_load.setdefault(str(c), {}).get(pl)
                cap_load[str(c)][pl] = min(loads + ([cur] if cur is not None else []))
    s["capacity_load_by_placement"] = cap_load
    sweep: dict[str, Any] = {}
    below_cap_short: list[dict[str, Any]] = []
    below_cap_at_load: list[dict[str, Any]] = []
    below_cap_disturbed: list[dict[str, Any]] = []
    below_cap_saturated: list[dict[str, Any]] = []
    unjudged: list[dict[str, Any]] = []
    for c in comps:
        pts = []
        for i, rate in enumerate(doc["params"]["sweep"]):
            pts.append(
                {
                    "rate_pps": rate,
                    "satisfaction": _sp(
                        [
                            r["sweep"][str(c)][i]["satisfaction"]
                            for r in first
                            if "sweep" in r and len(r["sweep"][str(c)]) > i
                        ]
                    ),
                }
            )
        sweep[str(c)] = pts
        # each point against the capacity measured in its own placement
        for r in first:
            cap_rep = (r.get("capacity", {}).get(str(c)) or {}).get("capacity_pps")
            for t in (r.get("sweep") or {}).get(str(c), []):
                pl = t.get("placement")
                cap, cap_from = None, None
                if pl in D.PLACEMENTS:
                    # its own placement's capacity or, lacking one, a slower placement's:
                    # near costs less per exchange than mid, mid than far (README), so
                    # a slower placement's capacity is a lower bound of the point's own
                    for other in D.PLACEMENTS[D.PLACEMENTS.index(pl) :]:
                        cap = (cap_pl[str(c)].get(other) or {}).get("median")
                        if cap is not None:
                            cap_from = other
                            break
                if cap is None or (cap_from != pl and t["rate_pps"] >= cap):
                    unjudged.append(
                        {"rep": r["rep"], "comps": c, "rate_pps": t["rate_pps"],
                         "placement": pl, "satisfaction": t["satisfaction"],
                         "capacity_same_rep_pps": cap_rep}
                    )  # fmt: skip
                elif t["rate_pps"] < cap and t["satisfaction"] < 1.0:
                    load = (cap_load.get(str(c)) or {}).get(cap_from)
                    at_load = (
                        load is not None
                        and t.get("busy_share") is not None
                        and t["busy_share"] >= load - SWEEP_LOAD_MARGIN
                    )
                    (
                        below_cap_disturbed
                        if t.get("disturbed")
                        else below_cap_saturated
                        if t.get("saturated")
                        else below_cap_at_load
                        if at_load
                        else below_cap_short
                    ).append(
                        {
                            "rep": r["rep"],
                            "comps": c,
                            "rate_pps": t["rate_pps"],
                            "placement": pl,
                            "xcpu_rtt_ns": t.get("xcpu_rtt_ns"),
                            "capacity_pps": cap,
                            "capacity_placement": cap_from,
                            "capacity_same_rep_pps": cap_rep,
                            "satisfaction": t["satisfaction"],
                            "others_share": t["others_share"],
                            "cpu_wait_ms": t["cpu_wait_ms"],
                            "dut_long_pass_ms": t.get("dut_long_pass_ms"),
                            "steal_ms": t.get("steal_ms"),
                            "softirq_ms": t.get("softirq_ms"),
                            "retried": "first" in t,
                            "tries": t.get("tries", 1),
                            "disturbed_tries": t.get("disturbed_tries", 0),
                            "unsatisfied": t["offered"] - t["satisfied"],
                            "refused_by_ring": t["tx_full"],
                            "busy_share": t.get("busy_share"),
                            "capacity_load": load,
                            "cycles_per_exchange": t.get("cycles_per_exchange"),
                        }
                    )
    s["satisfaction_sweep"] = sweep
    s["cycles_per_exchange_at_80pct_capacity"] = {
        str(c): _sp(_vals(first, "cost_near_capacity", str(c), "cycles_per_exchange"))
        for c in comps
    }
    s["busy_ratio_at_capacity"] = {
        str(c): _sp(_vals(first, "capacity", str(c), "busy_ratio_at_capacity")) for c in comps
    }
    fails = []
    for r in first:
        for c in comps:
            f = (r.get("capacity", {}).get(str(c)) or {}).get("first_failure")
            if f and f["lost"]:  # not the passing trial itself (its rate rounded up)
                fails.append(
                    {
                        "rep": r["rep"],
                        "comps": c,
                        "rate_pps": f["rate_pps"],
                        "offered": f["offered"],
                        "unsatisfied": f["lost"],
                        "refused_by_ring": f["tx_full"],
                        "satisfied_of_accepted": f.get("satisfied_of_accepted"),
                        "busy_ratio": f.get("busy_ratio"),
                        # of the sending time (older reports: from the ratio over the
                        # trial and its 0.2 s drain)
                        "busy_share": f.get("busy_share")
                        or (f.get("busy_ratio") or 0) * (f["duration_s"] + 0.2) / f["duration_s"],
                    }
                )
    s["first_failures_above_capacity"] = fails
    s["below_capacity_unsatisfied"] = below_cap_short
    s["below_capacity_unsatisfied_disturbed"] = below_cap_disturbed
    s["below_capacity_unsatisfied_saturated"] = below_cap_saturated
    s["below_capacity_unsatisfied_at_capacity_load"] = below_cap_at_load
    s["sweep_points_unjudged"] = unjudged
    # the cost trials themselves (500k Interests/s, below every capacity): all
    # satisfied? A piece measured again (lost while disturbed) is listed; one still
    # lossy and disturbed after its last try is excused as a sweep point is
    short, short_disturbed, again = [], [], []
    for r in beds:
        for c, t in (r.get("cost") or {}).items():
            for i, p in enumerate(t.get("pieces") or []):
                if "first" in p:
                    f = p["first"]
                    again.append(
                        {"rep": r["rep"], "payload": r["payload"], "comps": int(c),
                         "piece": i, "tries": p["tries"], "first_unsatisfied":
                         f["offered"] - f.get("satisfied", f["offered"]),
                         "first_refused_by_ring": f["tx_full"],
                         "first_dut_cpu_wait_ms": (f.get("cpu_wait_ms") or {}).get("dut"),
                         "first_dut_long_pass_ms": f.get("dut_long_pass_ms"),
                         "first_rtt_max_us": round((f.get("latency_ns") or {}).get("max", 0)
                                                   / 1e3, 1),
                         "last_unsatisfied": p["offered"] - p.get("satisfied", p["offered"])}
                    )  # fmt: skip
            if t.get("satisfaction", 1.0) < 1.0:
                dis = any(p.get("disturbed") for p in t.get("pieces") or [])
                (short_disturbed if dis else short).append(
                    {"rep": r["rep"], "payload": r["payload"], "comps": int(c),
                     "satisfaction": t["satisfaction"], "nacks": t.get("nacks"),
                     "unsatisfied": t["offered"] - t["satisfied"],
                     "refused_by_ring": t["tx_full"]}
                )  # fmt: skip
    s["cost_trials_unsatisfied"] = short
    s["cost_trials_unsatisfied_disturbed"] = short_disturbed
    s["cost_pieces_measured_again"] = again
    c3 = cpe[str(comps[0])]["median"]
    s["bar"] = {
        "cycles": BAR_CYCLES,
        "comps": comps[0],
        "median": c3,
        "met": bool(c3 is not None and c3 <= BAR_CYCLES and comps[0] == 3),
        "satisfaction_below_capacity_met": not below_cap_short and not short,
        "by_placement": {
            pl: {"median": v["median"], "met": v["median"] <= BAR_CYCLES and comps[0] == 3}
            for pl, v in cpe_pl[str(comps[0])].items()
            if pl in D.PLACEMENTS
        },
    }
    s["errors"] = [
        {"rep": r["rep"], "payload": r.get("payload"), "error": r["error"].splitlines()[0]}
        for r in doc["runs"] + doc["loopback"]
        if "error" in r
    ]
    return s


# --------------------------------------------------------------------------
# report


def plot(doc: dict[str, Any], out: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = doc["summary"]
    comps = doc["params"]["comps"]
    payloads = doc["params"]["payloads"]
    colors = {3: "#dd8452", 7: "#4c72b0", 13: "#55a868"}
    fig, axes = plt.subplots(2, 2, figsize=(13, 9.5))

    ax = axes[0][0]
    for c in comps:
        pts = s["satisfaction_sweep"][str(c)]
        xs = [p["rate_pps"] / 1e6 for p in pts if p["satisfaction"]["n"]]
        med = [p["satisfaction"]["median"] * 100 for p in pts if p["satisfaction"]["n"]]
        lo = [p["satisfaction"]["min"] * 100 for p in pts if p["satisfaction"]["n"]]
        hi = [p["satisfaction"]["max"] * 100 for p in pts if p["satisfaction"]["n"]]
        col = colors.get(c)
        ax.plot(xs, med, "o-", color=col, label=f"{c} components")
        ax.fill_between(xs, lo, hi, color=col, alpha=0.2)
        cap = s["capacity_pps"][str(c)]["median"]
        if cap:
            ax.axvline(cap / 1e6, color=col, ls=":", lw=1)
    lb = s["loopback_capacity_pps"]["median"]
    if lb:
        ax.axvline(lb / 1e6, color="#7f7f7f", ls="--", lw=1, label="generator loopback capacity")
    ax.set_xlabel("Interests sent (M/s)")
    ax.set_ylabel("satisfied (% of Interests sent)")
    ax.set_title("Satisfaction against sending rate (payload 0; dotted: capacity)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)

    ax = axes[0][1]
    for c in comps:
        by = s["cycles_per_exchange"][str(c)]["by_payload"]
        xs = [p for p in payloads if by[str(p)]["n"]]
        med = [by[str(p)]["median"] for p in xs]
        err = [
            [by[str(p)]["median"] - by[str(p)]["min"] for p in xs],
            [by[str(p)]["max"] - by[str(p)]["median"] for p in xs],
        ]
        ax.errorbar(xs, med, yerr=err, fmt="o-", capsize=3, color=colors.get(c),
                    label=f"exchange, {c} components")  # fmt: skip
    hit = s["cs_hit_cycles"]
    xs = [p for p in payloads if hit[str(p)]["n"]]
    ax.plot(xs, [hit[str(p)]["median"] for p in xs], "s--", color="#8172b2",
            label="CS hit (3 components)")  # fmt: skip
    ipb = s["ipv4_cycles_per_packet_by_payload_bed"]
    xs = [p for p in payloads if ipb[str(p)]["n"]]
    ax.plot(xs, [2 * ipb[str(p)]["median"] for p in xs], "^:", color="#7f7f7f",
            label="IPv4 floor: 2 x cycles/packet (64 B)")  # fmt: skip
    ax.axhline(BAR_CYCLES, color="red", lw=1, ls="--", label=f"bar: {BAR_CYCLES:.0f} cycles")
    ax.set_xlabel("Data payload (bytes)")
    ax.set_ylabel("forwarder busy cycles per exchange")
    ax.set_title(f"Cost at {doc['params']['cost_rate'] / 1e3:.0f}k Interests/s (median, min-max)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)

    ax = axes[1][0]
    lat = s["latency_ns"]
    rows = [(f"{c} comp\n{lab}", lat[f"{c}_{k}"]) for c in comps
            for k, lab in (("low", "100k/s"), ("cost_rate", "cost rate"))]  # fmt: skip
    rows.append(("IPv4 1-way\ncost rate x2", lat["ipv4_cost_rate"]))
    rows.append(("loopback\n100k/s", lat["loopback_low"]))
    qs = ("p50", "p99", "p999")
    width = 0.25
    for k, q in enumerate(qs):
        xs = [i + (k - 1) * width for i in range(len(rows))]
        ys = [(r[1][q]["median"] or 0) / 1e3 for r in rows]
        ax.bar(xs, ys, width, label=q)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([r[0] for r in rows], fontsize=7)
    ax.set_yscale("log")
    ax.set_ylabel("round-trip time (us, log)")
    ax.set_title("Latency percentiles (generator RTT histogram, median over repetitions)")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)

    ax = axes[1][1]
    cb = s["capacity_3comp_by_payload_pps"]
    xs = [p for p in payloads if cb[str(p)]["n"]]
    med = [cb[str(p)]["median"] / 1e6 for p in xs]
    err = [
        [(cb[str(p)]["median"] - cb[str(p)]["min"]) / 1e6 for p in xs],
        [(cb[str(p)]["max"] - cb[str(p)]["median"]) / 1e6 for p in xs],
    ]
    ax.errorbar(xs, med, yerr=err, fmt="o-", capsize=3, color=colors[3],
                label="3 components")  # fmt: skip
    for c in comps[1:]:
        cs = s["capacity_pps"][str(c)]
        if cs["n"]:
            yerr = [[(cs["median"] - cs["min"]) / 1e6], [(cs["max"] - cs["median"]) / 1e6]]
            ax.errorbar(
                [payloads[0]],
                [cs["median"] / 1e6],
                yerr=yerr,
                fmt="D",
                capsize=3,
                color=colors.get(c),
                label=f"{c} components",
            )
    if lb:
        ax.axhline(lb / 1e6, color="#7f7f7f", ls="--", label="generator loopback (3 comp, 0 B)")
    ax.set_xlabel("Data payload (bytes)")
    ax.set_ylabel("capacity (M Interests/s, 100 % satisfied)")
    ax.set_title("Capacity (median, min-max)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)

    fig.suptitle(
        f"twinplane NDN forwarder on memif, forwarder on CPU {D.DUT_CPU}, generator on CPU "
        f"{D.GEN_CPU} ({doc['params']['reps']} repetitions, {doc['date']})",
        fontsize=10,
    )
    fig.tight_layout()
    path = out / "ndn.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _f(sp: dict[str, Any], scale: float = 1.0, nd: int = 0, pct: bool = False) -> str:
    if not sp or not sp.get("n"):
        return "-"
    k = 100.0 if pct else scale
    fmt = f"{{:,.{nd}f}}"
    m, lo, hi = (fmt.format(sp[x] * k) for x in ("median", "min", "max"))
    return f"{m} ({lo}-{hi})" if sp["n"] > 1 else m


def _fpl(sp: dict[str, Any] | None, scale: float = 1.0, nd: int = 0) -> str:
    """A by-placement cell: median (min-max) [n] or [n, beds]."""
    if not sp or not sp.get("n"):
        return "-"
    n = f"{sp['n']}, {sp['beds']}" if "beds" in sp else f"{sp['n']}"
    return f"{_f(sp, scale, nd)} [{n}]"


def _placement_line(by: dict[str, Any], bar: dict[str, Any] | None) -> str:
    """The headline's cost by placement, and where the bar holds."""
    cells = [f"{pl} {_fpl(by.get(pl))}" for pl in D.PLACEMENTS if by.get(pl)]
    if not cells:
        return ""
    met = [pl for pl, v in (bar or {}).items() if v.get("met")]
    return (
        " By placement of the vCPUs (pieces, beds): "
        + "; ".join(cells)
        + (f"; the bar holds in: {', '.join(met)}." if met else "; the bar holds in none.")
    )


def _point_head(x: dict[str, Any]) -> str:
    """A listed sweep point: where it ran and the capacity it was judged against."""
    return (
        f"rep {x['rep'] + 1}, {x['comps']} components, {x['rate_pps'] / 1e6:.2f} M/s, "
        f"placement {x.get('placement')} (probe {x.get('xcpu_rtt_ns') or 0:.0f} ns; "
        f"capacity there {x['capacity_pps'] / 1e6:.3f}, this repetition's "
        f"{(x.get('capacity_same_rep_pps') or 0) / 1e6:.3f})"
    )


def _point_cpe(x: dict[str, Any], tsc: float) -> str:
    """A listed sweep point's cycles per exchange and the rate they allow on one CPU."""
    cpe = x.get("cycles_per_exchange") or 0
    return f"{cpe:,.0f} cycles per exchange ({tsc / cpe / 1e6 if cpe else 0:.2f} M/s on one CPU)"


def write_report(doc: dict[str, Any], out: Path) -> None:
    s = doc["summary"]
    p = doc["params"]
    comps, payloads = p["comps"], p["payloads"]
    cr = p["cost_rate"]
    L: list[str] = []
    L.append("# NDN forwarder: satisfaction, cycles per exchange, CS hits, latency (issue 10)")
    L.append("")
    L.append(
        f"`bench/ndn.py {' '.join(doc['argv'])}` on {doc['date']}, git {doc['git']}, "
        f"{p['reps']} interleaved repetitions. Machine: {doc['machine'].get('model_name', '?')}, "
        f"{doc['machine'].get('nproc')} CPUs ({doc['machine'].get('hypervisor_vendor', 'bare')}"
        f" guest), TSC {doc['tsc_hz'] / 1e9:.3f} GHz, DPDK {doc['machine'].get('dpdk', '?')}. "
        "A shared machine: read ratios and spreads, not single figures. Figures are "
        "median (min-max) over the repetitions."
    )
    L.append("")
    L.append(
        f"**Pinning**: the forwarder (twinplane's worker, lcore 1, `--no-backoff`) alone on "
        f"CPU {D.DUT_CPU}; the generator (consumer port g0 and producer port g1 in one "
        f"`twinplane-gen` process, one polling loop) on CPU {D.GEN_CPU}, with twinplane's "
        "control plane (asleep but for API calls) and this script. Wire: memif, 4096-slot "
        "rings, generator ports are the servers."
    )
    iso = doc.get("isolation")
    L.append("")
    L.append(
        f"**Isolation**: every task that may run elsewhere kept off CPU {iso['cpu']} for the "
        f"run ({iso['tasks_moved']} moved; per-CPU kernel threads stay) and the scheduler's "
        "autogroups off, so nice -20 holds against other sessions' tasks (README, "
        "Decisions); both undone at the end."
        if iso
        else "**Isolation**: none (`--no-isolate`, or a report from before it existed)."
    )
    L.append("")
    L.append(
        "**Placement of the two vCPUs**: this KVM host runs the guest's two vCPUs sometimes "
        "on cores that share a cache and sometimes not, and moves them every minute or two. "
        "Every frame on memif crosses between the generator's CPU and the forwarder's, so "
        "the forwarder's cycles per packet follow that placement (up to 3x for the IPv4 "
        "router; README, [Decisions](../../README.md#decisions), *The host's placement of "
        "the vCPUs*). Before each measured trial (cost pieces, sweep points, capacity search "
        "trials, latency trials; never during one) `tp-xcpu-probe` (src/tools/xcpu-probe.c) "
        "times a cache line's round trip between the two CPUs for ~20 ms under SCHED_FIFO: "
        "*near* under 120 ns (a shared cache, ~50 ns), *mid* under 600 ns (~180-400 ns), "
        "*far* above (~1,200 ns). Each trial keeps `xcpu_rtt_ns` and `placement` in the "
        "JSON; each cost trial is "
        f"{p.get('cost_pieces', 1)} back-to-back pieces of "
        f"{p['cost_seconds'] / p.get('cost_pieces', 1):g} s, each after its own probe, so "
        "that every placement the run meets gets samples; a capacity search has the "
        "placement of at least 80 % of its trials' probes, else none."
    )
    L.append("")
    b = s["bar"]
    c0 = str(comps[0])
    ipm = s["ipv4_cycles_per_packet"]["median"]
    L.append("## Headline")
    L.append("")
    L.append(
        f"- **Cycles per Interest-Data exchange, {c0}-component names, 0-byte Data**: "
        f"{_f(s['cycles_per_exchange'][c0])} at {cr / 1e3:.0f}k Interests/s. "
        f"Bar: at most {BAR_CYCLES:,.0f}: **{'met' if b['met'] else 'not met'}**"
        + (f" ({b['median'] / BAR_CYCLES:.2f}x the bar)." if b["median"] else ".")
        + _placement_line(s["cycles_per_exchange_by_placement"][c0], b.get("by_placement"))
    )
    L.append(
        f"- **IPv4 floor** (twinplane l3 mode, same worker, same wire, same run, 64 B at "
        f"{2 * cr / 1e3:.0f}k packets/s): {_f(s['ipv4_cycles_per_packet'])} cycles per "
        f"packet, so {2 * ipm:,.0f} for two packets. An exchange costs "
        f"{_f(s['exchange_over_two_ipv4_packets'][c0], nd=2)} times two IPv4 packets "
        "(per bed, paired)."
        if ipm
        else "- IPv4 floor: not measured."
    )
    L.append(
        f"- **Capacity** ({c0} components, 0 B; the highest Interest rate with every Interest "
        f"satisfied): {_f(s['capacity_pps'][c0], 1e-6, 3)} M Interests/s; the generator's "
        f"own loopback (consumer into producer, no forwarder): "
        f"{_f(s['loopback_capacity_pps'], 1e-6, 3)} M/s."
    )
    short = s["below_capacity_unsatisfied"]
    dis = s.get("below_capacity_unsatisfied_disturbed") or []
    sat = s.get("below_capacity_unsatisfied_saturated") or []
    atl = s.get("below_capacity_unsatisfied_at_capacity_load") or []
    unj = s.get("sweep_points_unjudged") or []
    L.append(
        "- **100 % satisfaction below capacity** (each sweep point against the capacity "
        "measured in its own placement, or lacking one in a slower placement; a point that "
        "lost Interests while the forwarder was kept from its CPU for more than "
        f"{SWEEP_DISTURBED_MS:g} ms a second (its thread waiting for it, or passes of its loop "
        "over 1 ms, the host holding its vCPU), or while the forwarder was busy for "
        f"{SWEEP_SATURATED:.0%} or more of the trial (saturated: slower then than in the "
        f"search), is measured again, {SWEEP_DISTURBED_TRIES} times at most): "
        + (
            "every sweep point below that capacity was fully satisfied"
            if not short
            else f"{len(short)} sweep point(s) below it lost Interests ("
            + ", ".join(
                f"{x['comps']} components {x['rate_pps'] / 1e6:.2f} M/s {x['placement']}"
                for x in short
            )
            + "; listed under *Satisfaction* below)"
        )
        + (
            f"; {len(dis)} point(s) below it lost Interests in each of their trials while "
            "the forwarder was kept from its CPU (disturbed, not judged: "
            + ", ".join(
                f"{x['comps']} components {x['rate_pps'] / 1e6:.2f} M/s "
                f"{max(x['cpu_wait_ms'].get('dut', 0), x.get('dut_long_pass_ms') or 0):.1f} ms"
                for x in dis
            )
            + ")"
            if dis
            else ""
        )
        + (
            f"; {len(sat)} point(s) below it lost Interests in each of their trials with the "
            "forwarder saturated (not judged; listed under *Satisfaction* with the trial's "
            "cycles per exchange: "
            + ", ".join(
                f"{x['comps']} components {x['rate_pps'] / 1e6:.2f} M/s "
                f"{x['satisfaction'] * 100:.1f} %"
                for x in sat
            )
            + ")"
            if sat
            else ""
        )
        + (
            f"; {len(atl)} point(s) below its rate lost Interests with the forwarder as loaded "
            f"as at the capacity (busy within {SWEEP_LOAD_MARGIN:.0%} of the searches' lowest "
            "passing share; not judged, listed under *Satisfaction*: "
            + ", ".join(
                f"{x['comps']} components {x['rate_pps'] / 1e6:.2f} M/s "
                f"busy {(x.get('busy_share') or 0) * 100:.1f} % against "
                f"{(x.get('capacity_load') or 0) * 100:.1f} %"
                for x in atl
            )
            + ")"
            if atl
            else ""
        )
        + (
            f"; {len(unj)} point(s) not judged (no capacity measured in their placement "
            "or a slower one under their rate, "
            f"{sum(1 for x in unj if x['satisfaction'] < 1.0)} of them lost Interests)."
            if unj
            else "."
        )
    )
    cshort = s.get("cost_trials_unsatisfied") or []
    cdis = s.get("cost_trials_unsatisfied_disturbed") or []
    again = s.get("cost_pieces_measured_again") or []
    n_cost = sum(len(r.get("cost") or {}) for r in doc["runs"] if "error" not in r)
    L.append(
        f"- **The cost trials** ({n_cost} NDN trials at {doc['params']['cost_rate'] / 1e3:.0f}k "
        "Interests/s, below every capacity; a piece that lost Interests while the forwarder "
        "was kept from its CPU is measured again, as a sweep point is): "
        + (
            "all fully satisfied"
            if not cshort and not cdis
            else (
                f"{len(cshort)} lost Interests (listed under *Satisfaction*)"
                if cshort
                else "none lost Interests undisturbed"
            )
            + (f"; {len(cdis)} lost them while disturbed in each try" if cdis else "")
        )
        + (
            f"; {len(again)} piece(s) measured again (the first try lost "
            + ", ".join(str(x["first_unsatisfied"]) for x in again)
            + " Interests or packets, listed under *Satisfaction*)."
            if again
            else "."
        )
    )
    L.append(f"- **CS hit**: {_f(s['cs_hit_cycles'][str(payloads[0])])} cycles per Interest "
             "answered from the Content Store (3 components, 0 B).")  # fmt: skip
    tc = s.get("telemetry_cost") or {}
    if tc.get("off", {}).get("n"):
        L.append(
            f"- **Telemetry's cost** ({c0} components, 0 B, paired trials): off "
            f"{_f(tc['off'])} cycles per exchange; "
            + "; ".join(
                f"1 packet in {e} timed {_f(tc[str(e)]['cycles_per_exchange'])} "
                f"({_f(tc[str(e)]['over_off'], 1, 3)} x off)"
                for e in TEL_EVERY
            )
            + "."
        )
    lat = s["latency_ns"][f"{c0}_low"]
    L.append(
        f"- **RTT** ({c0} components, 100k Interests/s): p50 {_f(lat['p50'], 1e-3, 1)} us, "
        f"p99 {_f(lat['p99'], 1e-3, 1)} us, p99.9 {_f(lat['p999'], 1e-3, 1)} us."
    )
    L.append("")
    L.append("![ndn](ndn.png)")
    L.append("")
    L.append("## Cycles per exchange")
    L.append("")
    L.append(
        f"At {cr / 1e3:.0f}k Interests/s, {p['cost_seconds']:g} s per measurement "
        f"({p.get('cost_pieces', 1)} back-to-back pieces of "
        f"{p['cost_seconds'] / p.get('cost_pieces', 1):g} s, each after its placement probe) "
        "after a 0.3 s warm-up trial of the same stream. **Definition**: the forwarder "
        "worker's `busy_cycles` (`show workers`: TSC cycles of the loop iterations that did "
        "any work: receive, PIT-CS, FIB, transmit, their rings and per-loop hooks; empty polls "
        "excluded) over the pieces and their 0.2 s drains, divided by the Data packets the "
        "forwarder sent on the consumer's face (`ndn face show`: `tx_data` of the p0 face) "
        "over the same window. Each exchange is one Interest and one Data through the "
        "forwarder; every name is new (CS miss, PIT insert, Data into a full CS, "
        "LRU eviction). The cost depends on the rate (smaller bursts cost more per packet): "
        "every figure here is at the same rate, and the IPv4 floor at the same packets/s."
    )
    L.append("")
    L.append("| name components | " + " | ".join(f"{q} B Data" for q in payloads) + " |")
    L.append("|---|" + "---|" * len(payloads))
    for c in comps:
        by = s["cycles_per_exchange"][str(c)]["by_payload"]
        L.append(f"| {c} | " + " | ".join(_f(by[str(q)]) for q in payloads) + " |")
    L.append("| CS hit, 3 | " + " | ".join(_f(s["cs_hit_cycles"][str(q)]) for q in payloads) + " |")
    L.append(
        "| IPv4 64 B, per packet | "
        + " | ".join(_f(s["ipv4_cycles_per_packet_by_payload_bed"][str(q)]) for q in payloads)
        + " |"
    )
    L.append("")
    L.append(
        "The IPv4 row is measured in each payload's bed (64-byte frames whatever the "
        "payload; the column only says which bed). Exchange cost over two IPv4 packets, "
        "per bed: "
        + ", ".join(
            f"{c} components {_f(s['exchange_over_two_ipv4_packets'][str(c)], nd=2)}" for c in comps
        )
        + "."
    )
    L.append("")
    cpl = s.get("cycles_per_exchange_by_placement") or {}
    if any(pl in cpl.get(str(c), {}) for c in comps for pl in D.PLACEMENTS):
        L.append(
            f"By placement ({payloads[0]} B Data; each cost piece classed by its own probe): "
            "median (min-max) over the pieces [pieces, beds]. The IPv4 row is per packet."
        )
        L.append("")
        L.append("| | " + " | ".join(D.PLACEMENTS) + " |")
        L.append("|---|" + "---|" * len(D.PLACEMENTS))
        rows = [(f"{c} components", cpl[str(c)]) for c in comps]
        rows.append(
            (
                "CS hit, 3 components",
                (s.get("cs_hit_cycles_by_placement") or {}).get(str(payloads[0])) or {},
            )
        )
        rows.append(("IPv4 64 B, per packet", s.get("ipv4_cycles_per_packet_by_placement") or {}))
        for lab, row in rows:
            L.append(f"| {lab} | " + " | ".join(_fpl(row.get(pl)) for pl in D.PLACEMENTS) + " |")
        L.append("")
        if len(payloads) > 1:
            L.append(
                f"{comps[0]} components by payload and placement: "
                + "; ".join(
                    f"{q} B "
                    + ", ".join(
                        f"{pl} {_f(v)}"
                        for pl, v in cpl[str(comps[0])]["by_payload"][str(q)].items()
                        if pl in D.PLACEMENTS
                    )
                    for q in payloads
                )
                + "."
            )
            L.append("")
    L.append("## Capacity and satisfaction")
    L.append("")
    L.append(
        f"Capacity: `rfc2544.search` from {SEARCH_HI / 1e6:g} M/s down, 1 s trials "
        "(0.3 s overload probe), "
        f"resolution {p['resolution'] * 100:g} %, tolerance 0 (every Interest offered "
        "satisfied; Interests the memif ring refused count as unsatisfied); a rate losing "
        "less than 2 % is retried once before it fails (the neighbours on this shared "
        "machine take the CPU for milliseconds). The search's zero-loss rate is then "
        f"verified, as TRex's NDR benchmark does: {VERIFY_TRIALS} more trials there (the "
        "same retry rule), and while one of them loses anything the rate goes down by the "
        f"resolution and is tried again ({VERIFY_STEPS} times at most); the capacity is the "
        "rate that passed them (the search's own highest pass is the best of many noisy "
        "trials near the knee). "
        + _verify_note(doc)
        + "The 0.1 % column is the same search's second target."
    )
    L.append("")
    L.append(
        "| | capacity (M Interests/s) | with 0.1 % unsatisfied allowed | forwarder busy at "
        "capacity | cycles/exchange at 80 % of capacity |"
    )
    L.append("|---|---|---|---|---|")
    for c in comps:
        L.append(
            f"| {c} components, 0 B | {_f(s['capacity_pps'][str(c)], 1e-6, 3)} | "
            f"{_f(s['capacity_0p1_pps'][str(c)], 1e-6, 3)} | "
            f"{_f(s['busy_ratio_at_capacity'][str(c)], pct=True)} % | "
            f"{_f(s['cycles_per_exchange_at_80pct_capacity'][str(c)])} |"
        )
    for q in payloads[1:]:
        L.append(
            f"| {comps[0]} components, {q} B | "
            f"{_f(s['capacity_3comp_by_payload_pps'][str(q)], 1e-6, 3)} | | | |"
        )
    L.append(
        f"| generator loopback, no forwarder | {_f(s['loopback_capacity_pps'], 1e-6, 3)} | | | |"
    )
    L.append("")
    cap_pl = s.get("capacity_pps_by_placement") or {}
    if cap_pl:
        L.append(
            "Capacity by placement (payload 0; a search counts for the placement of at least "
            "80 % of its trials' probes), M Interests/s, median (min-max) [searches]; the "
            "satisfaction sweep is judged against these:"
        )
        L.append("")
        L.append("| | " + " | ".join(D.PLACEMENTS) + " | searches in no one placement |")
        L.append("|---|" + "---|" * (len(D.PLACEMENTS) + 1))
        for c in comps:
            row = cap_pl.get(str(c)) or {}
            L.append(
                f"| {c} components | "
                + " | ".join(_fpl(row.get(pl), 1e-6, 3) for pl in D.PLACEMENTS)
                + f" | {row.get('searches_in_no_one_placement', 0)} |"
            )
        L.append("")
    fails = s["first_failures_above_capacity"]
    if fails:
        ring = sum(f["refused_by_ring"] for f in fails)
        unsat = sum(f["unsatisfied"] for f in fails)
        acc = [f["satisfied_of_accepted"] for f in fails if f["satisfied_of_accepted"] is not None]
        L.append(
            "What fails just above capacity (the lowest failing rate of each search, payload "
            f"0): of {unsat:,} unsatisfied Interests, {ring:,} were refused by the memif "
            "ring into the forwarder (full when the generator offered them); of the Interests "
            f"the ring took, the forwarder answered at least {min(acc) * 100 if acc else 0:.3f} %. "
            "The forwarder's busy time in those trials over their sending time (the drain's "
            "backlog included): "
            + ", ".join(f"{(f.get('busy_share') or 0) * 100:.0f} %" for f in fails)
            + "."
        )
        L.append("")
    L.append(
        "Satisfaction against sending rate (payload 0): Data received / Interests offered, "
        f"{p['search_seconds']:g} s per point; a point that lost less than "
        f"{SWEEP_RETRY_BELOW:.0%} was retried once and the retry stands, the capacity "
        "search's rule (the first trials are in the JSON, `first`)."
    )
    L.append("")
    L.append("| Interests/s | " + " | ".join(f"{c} components" for c in comps) + " |")
    L.append("|---|" + "---|" * len(comps))
    for i, rate in enumerate(p["sweep"]):
        cells = []
        for c in comps:
            pt = s["satisfaction_sweep"][str(c)][i]["satisfaction"]
            cells.append(_f(pt, nd=2, pct=True) + (" %" if pt.get("n") else ""))
        L.append(f"| {rate / 1e6:.2f} M | " + " | ".join(cells) + " |")
    L.append("")
    if short:
        L.append(
            "Sweep points below the measured capacity that were not fully satisfied. The "
            "zero-loss capacity is fragile on this machine (as the IPv4 NDR in "
            "rfc2544_ip4.md): every unsatisfied Interest here and above capacity was refused "
            "by the full 4096-slot memif ring into the forwarder, none was dropped or left "
            "unanswered inside it. Read the 0.1 % column and the sweep's medians as well as "
            "the strict capacity."
        )
        L.append("")
        for x in short:
            L.append(
                f"- {_point_head(x)}: {x['satisfaction'] * 100:.3f} %, "
                f"{x.get('refused_by_ring', '?')} of {x.get('unsatisfied', '?')} unsatisfied "
                f"refused by the memif ring; the forwarder thread waited "
                f"{x.get('cpu_wait_ms', {}).get('dut', '?')} ms for its CPU; other tasks' share "
                f"of the CPUs {x['others_share']}"
                + (
                    f"; hypervisor steal {x['steal_ms']} ms, softirq {x['softirq_ms']} ms"
                    if x.get("steal_ms") is not None
                    else ""
                )
                + (f"; {x['tries']} trials, the last stands" if x.get("tries", 1) > 1 else "")
            )
        L.append("")
    if sat:
        L.append(
            "Sweep points below the measured capacity that lost Interests in every trial "
            f"(up to {SWEEP_DISTURBED_TRIES}) with the forwarder busy for "
            f"{SWEEP_SATURATED:.0%} or more of the trial: the rate was over what it carried "
            "at that time. The trial's cycles per exchange and the rate they allow on one "
            "CPU:"
        )
        L.append("")
        for x in sat:
            L.append(
                f"- {_point_head(x)}: {x['satisfaction'] * 100:.3f} %, forwarder busy "
                f"{(x.get('busy_share') or 0) * 100:.0f} % of the trial, "
                f"{_point_cpe(x, doc['tsc_hz'])}; {x['tries']} trial(s)"
            )
        L.append("")
    atl = s.get("below_capacity_unsatisfied_at_capacity_load") or []
    if atl:
        L.append(
            "Sweep points below the measured capacity's rate that lost Interests with the "
            "forwarder as loaded as at that capacity: busy for at least the lowest share at "
            "which the searches of the placement passed at their capacity, less "
            f"{SWEEP_LOAD_MARGIN:.0%} (the search's resolution). The forwarder ran slower per "
            "exchange than in the search (the host moves it by up to a tenth within one "
            "placement class), so the rate was at its capacity for that trial; not judged:"
        )
        L.append("")
        for x in atl:
            L.append(
                f"- {_point_head(x)}: {x['satisfaction'] * 100:.3f} %, "
                f"{x.get('refused_by_ring', '?')} refused by the memif ring; forwarder busy "
                f"{(x.get('busy_share') or 0) * 100:.1f} % of the trial against "
                f"{(x.get('capacity_load') or 0) * 100:.1f} % at the capacity; "
                f"{_point_cpe(x, doc['tsc_hz'])}; {x['tries']} trial(s), the last stands"
            )
        L.append("")
    unj_lost = [x for x in unj if x["satisfaction"] < 1.0]
    if unj_lost:
        L.append(
            "Sweep points not judged (no capacity search in their placement or a slower one "
            f"under their rate): {len(unj)}, "
            f"{len(unj) - len(unj_lost)} of them fully satisfied; those that lost Interests: "
            + "; ".join(
                f"rep {x['rep'] + 1} {x['comps']} components {x['rate_pps'] / 1e6:.2f} M/s "
                f"{x['placement'] or 'no probe'} {x['satisfaction'] * 100:.3f} %"
                for x in unj_lost
            )
            + "."
        )
        L.append("")
    for key, head in (
        ("cost_trials_unsatisfied", "Cost trials that were not fully satisfied:"),
        (
            "cost_trials_unsatisfied_disturbed",
            "Cost trials that lost Interests while disturbed in every try of a piece:",
        ),
    ):
        if s.get(key):
            L += [head, ""] + [f"- {x}" for x in s[key]] + [""]
    if s.get("cost_pieces_measured_again"):
        L.append(
            "Cost pieces measured again: the first try lost Interests (NDN) or packets "
            "(IPv4) while the forwarder was kept from its CPU, by its thread's wait "
            "(`first_dut_cpu_wait_ms`) or by passes of its loop over 1 ms that the guest "
            "counts as running (`first_dut_long_pass_ms`: the host held its vCPU):"
        )
        L.append("")
        for x in s["cost_pieces_measured_again"]:
            L.append(f"- {x}")
        L.append("")
    L.append("## Latency")
    L.append("")
    L.append(
        "The generator's round-trip time of each satisfied Interest (TSC at send, TSC at "
        "the Data's arrival, both in the generator; log histogram, about 9 % resolution), "
        "microseconds; bursts of 32. IPv4: one-way, generator to generator, at twice the "
        "cost rate in packets/s. Payload 0."
    )
    L.append("")
    L.append("| | p50 | p99 | p99.9 | max |")
    L.append("|---|---|---|---|---|")
    lat = s["latency_ns"]
    for c in comps:
        for k, lab in (("low", "100k Interests/s"), ("cost_rate", f"{cr / 1e3:.0f}k Interests/s")):
            row = lat[f"{c}_{k}"]
            L.append(f"| {c} components, {lab} | " + " | ".join(
                _f(row[q], 1e-3, 1) for q in ("p50", "p99", "p999", "max")) + " |")  # fmt: skip
    for key, lab in (
        ("ipv4_cost_rate", f"IPv4 64 B one-way, {2 * cr / 1e3:.0f}k packets/s"),
        ("loopback_low", "generator loopback, no forwarder, 100k/s"),
    ):
        row = lat[key]
        L.append(f"| {lab} | " + " | ".join(
            _f(row[q], 1e-3, 1) for q in ("p50", "p99", "p999", "max")) + " |")  # fmt: skip
    L.append("")
    prof = doc.get("profile")
    if prof:
        L.append("## Profile of the forwarder's CPU")
        L.append("")
        for key, lab in (
            ("cost_rate", "at the cost rate"),
            ("near_capacity", "at 90 % of capacity"),
        ):
            pr = prof.get(key)
            if not pr:
                continue
            if "error" in pr:
                L.append(f"- {lab}: {pr['error']}")
                continue
            L.append(
                f"`{pr['command']}` during a {comps[0]}-component trial {lab} "
                f"({pr['rate_pps'] / 1e6:.3f} M/s; worker busy {pr['busy_ratio'] * 100:.0f} % "
                f"of its cycles, {pr['cycles_per_exchange']:.0f} cycles per exchange). Share of "
                "all samples on the CPU (busy and empty polls alike):"
            )
            L.append("")
            L.append(
                "By object: "
                + ", ".join(f"{d['dso']} {d['percent']:.1f} %" for d in pr.get("by_dso", []))
                + " (the Debian DPDK libraries have no symbols: addresses only)."
            )
            L.append("")
            L.append("| % | object | symbol |")
            L.append("|---|---|---|")
            for t in pr["top"][:18]:
                L.append(f"| {t['percent']:.1f} | {t['dso']} | `{t['symbol']}` |")
            L.append("")
    if s["errors"]:
        L.append("## Errors")
        L.append("")
        for e in s["errors"]:
            L.append(f"- rep {e['rep'] + 1}, payload {e['payload']}: {e['error']}")
        L.append("")
    L.append("## Set-up")
    L.append("")
    setup = next((r["setup"] for r in doc["runs"] if "setup" in r), [])
    L.append("One bed (forwarder and generator started afresh) per repetition and payload:")
    L.append("")
    L.append("```")
    L += [re.sub(r"/tmp/[^ ,]*/", "WORKDIR/", x) for x in setup]
    L.append("```")
    L.append("")
    L.append(
        "Streams: `stream add nC port g0 template ndn size 64 prefix / comps C smac "
        f"{D.GEN_MAC[0]}` (destination {NDN_MCAST}, the group face), the CS-hit stream with "
        f"`seq-mod {HIT_NAMES}`, and `ip64`: ip4-udp 64 B to {D.DST_RANGE}. Ports switch "
        "between `mode l3` (IPv4 trials, first) and `mode ndn` at run time. Raw results: "
        "`ndn.json` (`runs`: every trial with the generator's and the forwarder's "
        "counters; `summary`)."
    )
    (out / "ndn.md").write_text("\n".join(L) + "\n")


# --------------------------------------------------------------------------
# main


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="1 repetition, a subset, short trials")
    ap.add_argument("--reps", type=int, default=None, help="repetitions (3; --quick 1)")
    ap.add_argument("--comps", default=None, help="name lengths (3,7,13; the first is the bar's)")
    ap.add_argument("--payloads", default=None, help="Data payloads in bytes (0,300,600,900,1200)")
    ap.add_argument("--cost-rate", type=float, default=COST_RATE, help="Interests/s (500000)")
    ap.add_argument("--cost-seconds", type=float, default=None, help="per cost trial (2; 0.5)")
    ap.add_argument(
        "--cost-pieces",
        type=int,
        default=None,
        help="each cost trial as this many back-to-back trials, each after its own "
        "placement probe (4; 2)",
    )
    ap.add_argument("--search-seconds", type=float, default=None, help="per trial (1; 0.5)")
    ap.add_argument("--resolution", type=float, default=None, help="search (0.02; 0.05)")
    ap.add_argument("--no-profile", dest="profile", action="store_false",
                    help="no perf profile of the forwarder's CPU")  # fmt: skip
    ap.add_argument("--lock", default=LOCK, help=f"flock file around each bed ({LOCK}; '' none)")
    ap.add_argument(
        "--no-isolate",
        action="store_true",
        help="leave other tasks' CPU affinity and the scheduler's autogroups alone "
        "(default: other tasks kept off the forwarder's CPU, autogroup off for the run)",
    )
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "results")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument(
        "--from-json", type=Path, default=None, help="only recompute the summary and redraw"
    )
    a = ap.parse_args(argv)
    a.reps = a.reps or (1 if a.quick else 3)
    a.comps = tuple(int(x) for x in a.comps.split(",")) if a.comps else (
        QUICK_COMPS if a.quick else COMPS)  # fmt: skip
    a.payloads = tuple(int(x) for x in a.payloads.split(",")) if a.payloads else (
        QUICK_PAYLOADS if a.quick else PAYLOADS)  # fmt: skip
    a.cost_seconds = a.cost_seconds or (0.5 if a.quick else 2.0)
    a.cost_pieces = max(1, a.cost_pieces or (2 if a.quick else 4))
    a.search_seconds = a.search_seconds or (0.5 if a.quick else 1.0)
    a.resolution = a.resolution or (0.05 if a.quick else 0.02)
    a.sweep = QUICK_SWEEP if a.quick else SWEEP_RATES
    return a


def build_doc(
    args: argparse.Namespace, argv: list[str], tsc: float, runs: list[Any], loops: list[Any]
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "argv": argv,
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "git": D.git_rev(),
        "machine": D.machine_info(),
        "tsc_hz": tsc,
        "cpus": {"forwarder": D.DUT_CPU, "generator": D.GEN_CPU},
        "params": {
            "reps": args.reps,
            "quick": args.quick,
            "comps": list(args.comps),
            "payloads": list(args.payloads),
            "cost_rate": args.cost_rate,
            "cost_seconds": args.cost_seconds,
            "cost_pieces": args.cost_pieces,
            "search_seconds": args.search_seconds,
            "resolution": args.resolution,
            "sweep": list(args.sweep),
            "cs_capacity": CS_CAPACITY,
            "pit_capacity": PIT_CAPACITY,
            "hit_names": HIT_NAMES,
            "tolerances": list(TOLERANCES),
        },
        "runs": runs,
        "loopback": loops,
    }
    prof = next((r["profile"] for r in runs if r.get("profile")), None)
    if prof:
        doc["profile"] = prof
    return finish(doc)


def finish(doc: dict[str, Any]) -> dict[str, Any]:
    """(Re)compute the summary from the runs; the issue's keys at the top level."""
    doc["summary"] = summarize(doc)
    s = doc["summary"]
    doc["cycles_per_exchange"] = s["cycles_per_exchange"]
    doc["ipv4_cycles_per_packet"] = s["ipv4_cycles_per_packet"]
    doc["cycles_per_exchange_by_placement"] = s["cycles_per_exchange_by_placement"]
    doc["ipv4_cycles_per_packet_by_placement"] = s["ipv4_cycles_per_packet_by_placement"]
    doc["cs_hit_cycles_by_placement"] = s["cs_hit_cycles_by_placement"]
    doc["capacity_pps_by_placement"] = s["capacity_pps_by_placement"]
    doc["capacity_pps"] = s["capacity_pps"]
    doc["cs_hit_cycles"] = s["cs_hit_cycles"]
    doc["latency_ns"] = s["latency_ns"]
    doc["telemetry_cost"] = s["telemetry_cost"]
    return doc


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.from_json:
        doc = finish(json.loads(args.from_json.read_text()))
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "ndn.json").write_text(json.dumps(doc, indent=1))
        write_report(doc, args.out)
        plot(doc, args.out)
        return 0
    started = D.bench_start("ndn", args.workdir)
    if started is None:
        return 2
    tsc, workdir = started
    per_bed = 2 + len(args.comps)
    total = args.reps * (
        len(args.payloads) * per_bed + 3 * (len(args.comps) * 2 + len(args.payloads) - 1) + 4
    )
    prog = Progress(total, "ndn")
    runs: list[dict[str, Any]] = []
    loops: list[dict[str, Any]] = []
    global ISO
    with contextlib.ExitStack() as stack:
        if not args.no_isolate:
            ISO = stack.enter_context(D.CpuIsolation(D.DUT_CPU))
        measure(args, tsc, workdir, prog, runs, loops)
        isolation = ISO.describe() if ISO is not None else None
    prog.close()
    doc = build_doc(args, argv, tsc, runs, loops)
    doc["isolation"] = isolation
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "ndn.json").write_text(json.dumps(doc, indent=1))
    write_report(doc, args.out)
    plot(doc, args.out)
    print(f"wrote {args.out / 'ndn.md'}, ndn.json, ndn.png", flush=True)
    s = doc["summary"]
    for c in args.comps:
        print(f"  cycles/exchange {c} comps: {s['cycles_per_exchange'][str(c)]['median']}")
    print(f"  ipv4 cycles/packet: {s['ipv4_cycles_per_packet']['median']}")
    return 0


def measure(
    args: argparse.Namespace,
    tsc: float,
    workdir: Path,
    prog: Progress,
    runs: list[dict[str, Any]],
    loops: list[dict[str, Any]],
) -> None:
    for rep in range(args.reps):
        # rotate the payload order: slow drifts of the shared machine hit every bed alike
        order = list(args.payloads)
        k = rep % len(order)
        order = [order[0]] + order[1:][k:] + order[1:][:k] if rep else order
        for payload in order:
            prog.update(status=f"rep {rep + 1} payload {payload}", force=True)
            runs.append(run_bed(rep, payload, args, tsc, workdir, prog))
            (workdir / "runs.json").write_text(json.dumps({"runs": runs, "loopback": loops}))
        loops.append(run_loopback(rep, args, tsc, workdir, prog))
        (workdir / "runs.json").write_text(json.dumps({"runs": runs, "loopback": loops}))


if __name__ == "__main__":
    sys.exit(main())

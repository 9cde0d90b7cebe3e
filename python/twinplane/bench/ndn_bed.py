# SPDX-License-Identifier: BSD-3-Clause
"""The NDN forwarder's test bed: the generator's consumer and producer on memif,
twinplane between them (``bench/ndn.py``, ``bench/ndn_ab.py``, ``bench/model.py``).

::

    twinplane-gen g0 (consumer, memif server) --> twinplane p0 (group face, mode ndn)
                                                  twinplane p1 (face to g1's MAC) --> g1
    twinplane-gen g1 (producer ndn payload N, memif server) <-- Data back the same way

The forwarder's worker runs alone on ``DUT_CPU`` (``--no-backoff``); the generator,
twinplane's control plane and the calling script on ``GEN_CPU``. Ports switch
between ``mode ndn`` and ``mode l3`` at run time, so the IPv4 floor is measured by
the same worker on the same wire. How the figures are defined:
``docs/bench/ndn.md``.

Besides the bed, the pure logic the NDN reports judge with: a trial as a verdict
sees it (``verdict_trial``), a sweep point's placement and verdict, the rule that
compares a sweep point with the capacity of its placement (``judge_sweep``) and a
figure's median by placement (``figure``). Unit tests: ``tests/bench/test_ndn_bed.py``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shlex
import statistics
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from twinplane.bench import duts as D
from twinplane.bench import paired, verdict
from twinplane.bench.gen import Gen, ndn_producer_counters, ndn_results
from twinplane.bench.rfc2544 import MlrParams, TrialResult, mlr_search
from twinplane.lab.daemon import Daemon
from twinplane.lab.netns import Netns

COST_RATE = 500_000.0  # Interests/s: below every capacity measured (docs/bench/ndn.md)
CS_CAPACITY = 16384
PIT_CAPACITY = 65536
HIT_NAMES = 1024  # the CS-hit stream's names (seq-mod)
MEMIF_RSIZE = 12  # 4096 slots, as bench/rfc2544_ip4.py
FIB_PREFIX = "/0"
SEARCH_HI = 6.0e6  # Interests/s: the capacity search's max load
RATE_SLACK = 0.01  # a generator offering less than asked by more counts the rest as lost
WARMUP_S = 0.3  # a cost trial's warm-up trial: the CS full, the PIT at steady state
CEILING_MARGIN = 0.03  # a capacity this close to the generator loopback's is its ceiling


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
        """``rsize``: the memif rings' log2 size; ``ndn_enable``: words added to
        ``ndn enable``; ``lcores``: the forwarder's data-plane lcores' roles
        (``input``, ``forwarding``...), all on the forwarder's CPU, else one lcore
        running every stage. The daemon is ``$TP_DAEMON`` (lab.daemon)."""
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
        g0 = D.memif_devargs(0, "server", l0, D.GEN_MAC[0], r)
        if self.loopback:
            g1 = D.memif_devargs(1, "client", l0, D.GEN_MAC[1], r)
        else:
            g1 = D.memif_devargs(1, "server", l1, D.GEN_MAC[1], r)
        self.gen = Gen(f"{self.tag}g", self.workdir)
        self.gen.start()
        self.gen.port_add("g0", g0)
        self.gen.port_add("g1", g1, producer="ndn", payload=self.payload)
        self.setup += [
            "generator " + shlex.join(self.gen.argv[1:]),
            f"generator: port add g0 {g0}",
            f"generator: port add g1 {g1} producer ndn payload {self.payload}",
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
        sd = self.workdir / "memif"
        dports = [
            D.memif_devargs(i, "client", sd / f"l{i}.sock", D.DUT_MAC[i], self.rsize)
            for i in (0, 1)
        ]
        roles = [f"lcore {i + 1} role {r}" for i, r in enumerate(self.lcores)]
        # the generator's memif servers have one queue pair: several lcores share one
        txq = " txq 1" if len(self.lcores) > 1 else ""
        config = [
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
        ]
        self.ns = Netns(f"{self.tag}-t").create()
        n_lcores = max(1, len(self.lcores))
        self.daemon = Daemon(
            self.ns,
            f"{self.tag}t",
            self.workdir,
            "\n".join(config) + "\n",
            lcores=f"0@{D.GEN_CPU}," + ",".join(f"{i + 1}@{D.DUT_CPU}" for i in range(n_lcores)),
            extra_args=[] if len(self.lcores) > 1 else ["--no-backoff"],
        )
        self.daemon.start(timeout=60)
        self.setup += ["twinplane " + shlex.join(self.daemon.argv[1:]), *config]
        cons = self.dut_cmd("ndn", "face", "add", "ether", "p0")
        prod = self.dut_cmd("ndn", "face", "add", "ether", "p1", "remote", D.GEN_MAC[1])
        self.faces = {"consumer": int(cons["face"]), "producer": int(prod["face"])}
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
        """The consumer's stream of ``comps``-component names (``/<i>/<j>/.../<seq>``),
        every name new unless ``seq_mod`` (then that many names, repeated)."""
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
                name, "g0", size, dmac=D.DUT_MAC[0], smac=D.GEN_MAC[0], src=D.GEN_IP[0],
                dst=D.DST_RANGE, sport=1024, dport=1025, ttl=64,
            )  # fmt: skip
            self.streams.add(name)
        return name

    def dut_snapshot(self) -> dict[str, Any]:
        if self.daemon is None:
            return {}
        c = self.daemon.client
        ws = c.cmd("show", "workers")["workers"]
        keys = ("busy_cycles", "total_cycles", "tx", "long_pass_cycles")
        snap: dict[str, Any] = {k: sum(int(w.get(k, 0)) for w in ws) for k in keys}
        if self.mode == "ndn":
            snap["ndn"] = dict(c.cmd("show", "ndn")["totals"])
            faces = {int(f["id"]): f["counters"] for f in c.cmd("ndn", "face", "show")["faces"]}
            for role, fid in self.faces.items():
                snap[f"face_{role}"] = dict(faces.get(fid, {}))
        return snap

    def trial(
        self, stream: str, rate: float, duration: float, drain: float = 0.2, probe: bool = True
    ) -> dict[str, Any]:
        """One trial: the generator's view and the forwarder's counters over it
        (the trial and its drain). ``probe``: the host's placement of the two vCPUs
        measured first (duts.xcpu_probe, ~20 ms, before the counters' first snapshot
        so that it is no part of the trial)."""
        assert self.gen is not None
        if self.daemon is not None and not self.daemon.running():
            raise RuntimeError(f"twinplane died\n{self.daemon.logs()}")
        pr = D.xcpu_probe() if probe else None
        a, wa = self.dut_snapshot(), self.watch.snapshot()
        raw = self.gen.trial_raw(stream, rate, duration=duration, drain=drain)
        b, wb = self.dut_snapshot(), self.watch.snapshot()
        t = raw["trial"]
        out: dict[str, Any] = {
            "stream": stream,
            "rate_pps": rate,
            "duration_s": duration,
            "elapsed_s": float(t.get("duration_s") or duration),
            "offered": int(t["offered"]),
            "tx": int(t["tx"]),
            "tx_full": int(t.get("tx_full", 0)),
            "rx": int(t["rx"]),
            "lost": int(t["lost"]),
            "cpu_wait_ms": {k: round(v, 3) for k, v in self.watch.wait_ms(wa, wb).items()},
            "others_share": self.watch.others_share(wa, wb),
        }
        if probe:
            out["xcpu_rtt_ns"] = pr["rtt_ns"] if pr else None
            out["placement"] = D.placement(out["xcpu_rtt_ns"])
        lat = raw["streams"][0].get("latency_ns") or {}
        out["latency_ns"] = {k: v for k, v in lat.items() if k != "hist"}
        nr = ndn_results(raw).get(stream)
        if nr is not None:
            out["satisfied"] = nr.satisfied
            out["satisfaction"] = nr.satisfied / out["offered"] if out["offered"] else 0.0
            out["producer"] = ndn_producer_counters(raw, "g1")
        if a:
            d = {k: b[k] - a[k] for k in a if isinstance(a[k], int)}
            out["dut"] = d
            if "ndn" in a and "ndn" in b:
                ndn = {k: b["ndn"][k] - a["ndn"][k] for k in a["ndn"]}
                fa, fb = a["face_consumer"], b["face_consumer"]
                ex = fb.get("tx_data", 0) - fa.get("tx_data", 0)
                out["exchanges"], out["cs_hits"] = ex, ndn.get("cs_hits", 0)
                out["cycles_per_exchange"] = d["busy_cycles"] / ex if ex else None
                hits = out["cs_hits"]
                out["cycles_per_cs_hit"] = d["busy_cycles"] / hits if hits else None
            else:
                out["cycles_per_packet"] = d["busy_cycles"] / d["tx"] if d["tx"] else None
            out["busy_ratio"] = d["busy_cycles"] / d["total_cycles"] if d["total_cycles"] else None
            # passes of the forwarder's loop over 1 ms: the host held its vCPU
            out["dut_long_pass_ms"] = round(1e3 * d.get("long_pass_cycles", 0) / self.tsc, 3)
        return out

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
        for obj, meth in ((self.daemon, "stop"), (self.gen, "stop"), (self.ns, "delete")):
            if obj is not None:
                with contextlib.suppress(Exception):
                    getattr(obj, meth)()


def cost_trial(bed: Bed, stream: str, rate: float, seconds: float) -> dict[str, Any]:
    """A warm-up trial of the same stream (WARMUP_S: fills the CS, the PIT at steady
    state), then one measured trial of ``seconds`` after its placement probe."""
    bed.trial(stream, rate, WARMUP_S, probe=False)
    return bed.trial(stream, rate, seconds)


# --------------------------------------------------------------------------
# judging: pure functions of recorded trials


def unsatisfied(t: dict[str, Any]) -> int:
    """Interests offered and not satisfied (refused by the memif ring included);
    for an IPv4 trial, frames lost."""
    return t["offered"] - min(t["satisfied"], t["offered"]) if "satisfied" in t else t["lost"]


def verdict_trial(t: dict[str, Any], rate_slack: float = RATE_SLACK) -> verdict.Trial:
    """A recorded trial as the goal judges it: loss = unsatisfied Interests; a
    generator that offered less than ``(1 - rate_slack)`` of the asked rate has the
    missing Interests counted as lost (as rfc2544.mlr_search counts them unsent)."""
    el = t.get("elapsed_s") or t["duration_s"]
    asked = int(t["rate_pps"] * el)
    short = t["offered"] < (1.0 - rate_slack) * asked
    offered = asked if short else t["offered"]
    return verdict.Trial(t["duration_s"], offered, unsatisfied(t) + (offered - t["offered"]))


def trial_placement(trials: Iterable[dict[str, Any]]) -> str:
    """The placement of a set of trials: that of at least 80 % of their probes
    (duts.search_placement), else ``mixed``; ``none`` without a probe."""
    rtts = [t.get("xcpu_rtt_ns") for t in trials]
    if all(x is None for x in rtts):
        return "none"
    return D.search_placement(rtts)["placement"] or "mixed"


def sweep_point(
    run: Callable[[], dict[str, Any]], goal: verdict.Goal, max_trials: int = 50
) -> dict[str, Any]:
    """Trials at one load (``run``) until the goal decides it (verdict.load_verdict
    over all of them; none left out); ``max_trials`` only guards against a trial
    that lasts no time."""
    trials: list[dict[str, Any]] = []
    v = verdict.Verdict.UNDECIDED
    while v is verdict.Verdict.UNDECIDED and len(trials) < max_trials:
        trials.append(run())
        v = verdict.load_verdict([verdict_trial(t) for t in trials], goal)
    return {
        "rate_pps": trials[0]["rate_pps"],
        "verdict": v.value,
        "placement": trial_placement(trials),
        "unsatisfied": sum(unsatisfied(t) for t in trials),
        "offered": sum(t["offered"] for t in trials),
        "n_trials": len(trials),
        "trials": trials,
    }


def capacity_search(
    fn: Callable[[float, float], dict[str, Any]],
    goal: verdict.Goal,
    trial_s: float,
    resolution: float,
    hi: float = SEARCH_HI,
) -> dict[str, Any]:
    """The highest Interest rate the goal passes: MLRsearch (rfc2544.mlr_search)
    with the goal's loss ratio, exceed ratio and duration sum; loss is unsatisfied
    Interests. ``capacity_pps`` is the relevant lower bound's load (a load the
    goal passes), ``upper_pps`` the relevant upper bound's (None: not found, the
    capacity is then at least ``hi``)."""
    log: list[dict[str, Any]] = []

    def trial(rate: float, duration: float) -> TrialResult:
        t = fn(rate, duration)
        log.append(t)
        return TrialResult(rate_pps=rate, duration_s=duration, offered=t["offered"],
                           rx=t["offered"] - unsatisfied(t), elapsed_s=t["elapsed_s"],
                           tx=t["tx"], tx_full=t["tx_full"])  # fmt: skip

    p = MlrParams(
        tolerances=(goal.loss_ratio,),
        exceed_ratio=goal.exceed_ratio,
        relative_width=resolution,
        initial_trial_duration_s=trial_s / 2,
        final_trial_duration_s=trial_s,
        duration_sum_s=max(goal.duration_sum, trial_s),
        rate_slack=RATE_SLACK,
    )
    res = mlr_search(trial, hi, p)
    lb = (res.ndr.trial or {}).get("rate_pps")
    return {
        "capacity_pps": lb,
        "upper_pps": res.ndr.lower_fail_pps,
        "conditional_throughput_pps": res.ndr.rate_pps,
        "at_max": res.ndr.at_hi,
        "placement": trial_placement(log),
        "wall_s": round(res.wall_s, 1),
        "trials": log,
    }


def judge_sweep(
    points: list[dict[str, Any]], capacities: dict[tuple[int, str], float]
) -> dict[str, list[dict[str, Any]]]:
    """Each sweep point (``comps``, ``placement``, ``rate_pps``, ``verdict``) against
    a capacity of its name length (``capacities``, from ``capacities_by_placement``):
    that of its own placement when one was measured there, else the lowest measured
    in any placement or in none (``mixed``), so that a point of a placement no
    search ran in, or of several, is held to the slowest capacity seen.
    ``below``: its rate is under that capacity (the goal must pass it); ``above``:
    at or over it (not held to the goal); ``no_capacity``: no search of its name
    length found a capacity. Every point lands in exactly one class; ``failing``
    lists the ``below`` points the goal did not pass."""
    out: dict[str, list[dict[str, Any]]] = {"below": [], "above": [], "no_capacity": []}
    for p in points:
        own = capacities.get((p["comps"], p["placement"]))
        if own is not None and p["placement"] in D.PLACEMENTS:
            cap, src = own, "own placement"
        else:
            cap = min((v for (c, _), v in capacities.items() if c == p["comps"]), default=None)
            src = None if cap is None else "lowest"
        key = "no_capacity" if cap is None else "below" if p["rate_pps"] < cap else "above"
        out[key].append({**p, "capacity_pps": cap, "capacity_from": src})
    out["failing"] = [p for p in out["below"] if p["verdict"] != verdict.Verdict.PASS.value]
    return out


def capacities_by_placement(searches: list[dict[str, Any]]) -> dict[tuple[int, str], float]:
    """(comps, placement) -> the median capacity of the searches in that placement;
    searches whose trials' probes agree on none are ``mixed``."""
    by: dict[tuple[int, str], list[float]] = {}
    for s in searches:
        if s.get("capacity_pps"):
            pl = s["placement"] if s["placement"] in D.PLACEMENTS else "mixed"
            by.setdefault((s["comps"], pl), []).append(s["capacity_pps"])
    return {k: statistics.median(v) for k, v in by.items()}


def at_ceiling(search: dict[str, Any], loopback: dict[tuple[int, str], float]) -> bool:
    """A capacity search that reached the generator's ceiling, not the forwarder's:
    the max load passed, or a capacity within CEILING_MARGIN of the generator
    loopback's (``capacities_by_placement`` of the loopback's searches, 3
    components) in the same placement."""
    lb, cap = loopback.get((3, search["placement"])), search.get("capacity_pps")
    near_lb = cap is not None and lb is not None and cap >= (1 - CEILING_MARGIN) * lb
    return bool(search.get("at_max")) or near_lb


def figure(samples: list[tuple[str | None, float | None]], unit: str, definition: str) -> dict:
    """A measured figure (not a ratio) for a report's headline or tables: the
    median of its samples with the bootstrap 95 % interval (paired.summarize), and
    the same by placement; ``samples`` are (placement, value), None values dropped
    (a trial that satisfied nothing has no cost) and counted in ``missing``."""
    vals = [(pl or "none", v) for pl, v in samples if v is not None]
    pooled = paired.summarize([v for _, v in vals])
    by: dict[str, list[float]] = {}
    for pl, v in vals:
        by.setdefault(pl, []).append(v)
    return {
        **_figure_cell(pooled),
        "missing": len(samples) - len(vals),
        "by_placement": {pl: _figure_cell(paired.summarize(by[pl])) for pl in sorted(by)},
        "unit": unit,
        "definition": definition,
    }


def _figure_cell(s: paired.Summary) -> dict[str, Any]:
    return {"value": s.ratio, "ci95": list(s.ci95) if s.ci95 else None, "n": s.pairs}

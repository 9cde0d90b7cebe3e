#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Issue 11's report: the performance model (``python/twinplane/model``) checked
against queueing theory and against the forwarder, and seed 002's figures
regenerated, model and (where this machine can run it) measurement overlaid.

Parts, in this order (every measurement before any model computation, so the
simulator's processes never share a CPU with a trial):

1. **Measurement** (beds of bench/ndn.py: the generator's NDN consumer g0 and
   producer g1 on one CPU, twinplane on the other, memif between them):

   - *validation beds*: one forwarding lcore running every stage (``--no-backoff``),
     whose queues are the memif rings it polls; ring sizes 2^8, 2^10, 2^12 (the
     three queue capacities, a bed each, producer payload 0). In each, per name
     length (3, 7, 13 components): calibration (a trial at ``--cal-rates``, one
     under the capacity, one over it, the model's samples from the live forwarder
     through ``ndn telemetry`` while it runs), then trials at six rates from 1.0
     to 3.6 M Interests/s (the generator's own ceiling is about 4 M/s), the same in
     every bed, ``--reps`` repetitions interleaved. Satisfaction = Data received /
     Interests offered (the ones the full ring refused count as lost).
   - *payload bed*: ring 2^12, Data of 1,200 bytes, calibration only (the main
     effect of payload).
   - *queue beds*: an input lcore and a forwarding lcore sharing the forwarder's
     CPU (back-off on), ``ndn enable interest-queue Q data-queue Q`` (separate
     rings) against ``queues shared`` (one ring, the seed's NDN-DPDK); the loss
     split into Interests lost before the producer (offered - the producer's
     Interests) and Data lost after it (the producer's Data - Data received).

2. **Theory** (all CPUs): the SMC estimate (Chernoff-Hoeffding, epsilon 0.01,
   delta 0.05) of the loss probability of M/M/1/K, M/D/1/K and M/M/c/K (c = 2,
   4, one shared queue) over a grid of loads and capacities, against the closed
   forms; M/M/1/K's CTMC solved exactly by Storm.
3. **Speed**: the simulator's events per second on one core (a calibrated
   pipeline), repeated.
4. **Validation**: the model of each validation point (run to completion, queue
   = the ring, the generator's bursts of 32 and the forwarder's polls of 32,
   service times drawn from that bed's fits) against the measurement.
5. **Seed 002's figures** (SMC, epsilon stated per figure): satisfaction against
   queue capacity at three rates (the seed's Fig. 17a); against forwarding lcores
   1-8 at two capacities (17b, pipeline: input lcore, NDT, forwarding lcores);
   against lcores for 3/7/13 components at 500 and 700 ns intervals and
   placements P1-P4 (Fig. 23, with an *assumed* NUMA penalty: this machine has one
   NUMA node); separate queues against one shared queue, model and forwarder.

Usage (root; runs under the venv):
    .venv/bin/python bench/model.py --quick     # ~6 min: fewer points, coarser SMC
    .venv/bin/python bench/model.py             # the report, ~25 min
    .venv/bin/python bench/model.py --from-json docs/results/model.json  # redraw

Writes docs/results/model.{md,json,png} and model-fits.png.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
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

import numpy as np

from twinplane.bench import duts as D
from twinplane.bench import ndn_bed as NB
from twinplane.bench.rfc2544 import Progress
from twinplane.model import calib, smc, theory
from twinplane.model.fit import Fit
from twinplane.model.sim import Dist, Pipeline

COMPS = (3, 7, 13)
RSIZES = (12, 10, 8)  # the validation beds' rings: 4096, 1024, 256 slots (the first calibrates)
RATES = (1.0e6, 1.8e6, 2.4e6, 2.8e6, 3.2e6, 3.6e6)  # Interests/s (the generator: ~4 M)
CAL_RATES = (0.5e6, 3.6e6)  # Interests/s: low, and at or over every name length's capacity
CAL_SECONDS = 2.0
TRIAL_SECONDS = 1.0
REPS = 3
BURST = 32  # the generator's TX bursts and the forwarder's RX polls
PRODUCER_DELAY = 2000.0  # ns, Interest out to its Data in (the generator's loop): assumed
MODEL_RUNS = 16  # runs per validation point
PAIR_TRIES = 3  # a calibration-trial pair measured again while their placements differ
MODEL_MAX_INTERESTS = 400_000  # per run (a trial's Interests, capped)
QUEUE_BED_Q = 1024
QUEUE_BED_RATES = (0.6e6, 1.0e6, 1.6e6)
THEORY_LOADS = (0.5, 0.7, 0.9, 1.0, 1.1, 1.3)
THEORY_K = (1, 2, 4, 8, 12)
THEORY_C = (2, 4)
NUMA_CROSS_NS = 100.0  # assumed: a forwarding stage's extra time per NUMA crossing
FIG_QUEUES = (64, 128, 256, 512, 1024, 2048, 4096)
FIG_INTERVALS = (500.0, 700.0, 200.0)  # ns: seed 002's two, and one our forwarder needs lcores for
LOCK = "/tmp/tp-lab.lock"


# --------------------------------------------------------------------------
# measurement


def calibrate(bed: Any, stream: str, rate: float, seconds: float, factors: dict) -> dict:
    """A trial at ``rate`` with the model's sampler reading the forwarder's telemetry
    while it runs (after a 0.3 s start); the trial's result kept with the samples."""
    assert bed.daemon is not None
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["trial"] = bed.trial(stream, rate, seconds + 0.6)
        except Exception as e:  # noqa: BLE001 - reported with the set
            box["error"] = str(e)

    th = threading.Thread(target=run)
    th.start()
    time.sleep(0.3)
    s = calib.collect(bed.daemon.client, seconds, every=16, factors=factors)
    th.join()
    s["trial"] = {
        k: box.get("trial", {}).get(k)
        for k in (
            "offered",
            "satisfaction",
            "busy_ratio",
            "cycles_per_exchange",
            "placement",
            "xcpu_rtt_ns",
        )
    }
    if "error" in box:
        s["trial_error"] = box["error"]
    return s


def predicted_capacity(s: dict[str, Any]) -> float:
    """Interests/s one lcore serves running every stage: 1 / (an exchange's mean
    service: both packets' input and forwarding stages and the untimed I/O)."""
    d = calib.service_dists(s)
    mean = sum(d[k].mean() for k in ("in_i", "in_d", "fwd_i", "fwd_d") if k in d)
    return 1e9 / mean


def validation_bed(
    rsize: int, args: argparse.Namespace, tsc: float, workdir: Path, rates: dict, prog: Progress
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "rsize": rsize,
        "queue": 1 << rsize,
        "cal": {},
        "cal_trial": {},
        "trials": {},
    }
    with D.lab_lock(args.lock):
        D.ensure_hugepages(1024)
        bed = NB.Bed(0, workdir, tsc, rsize=rsize)
        try:
            bed.start()
            out["setup"] = bed.setup
            bed.set_mode("ndn")
            for comps in args.comps:
                st = bed.ndn_stream(comps)
                if comps == args.comps[0]:
                    bed.wait_path(st)
                bed.trial(st, 500_000, 0.3)  # the CS full: each insert evicts
                sets = []
                for r in args.cal_rates:
                    f = {"comps": comps, "rate": r, "payload": 0, "lcores": 1, "queue": 1 << rsize}
                    sets.append(calibrate(bed, st, r, args.cal_seconds, f))
                out["cal"][str(comps)] = sets
                rates.setdefault(str(comps), list(args.rates))
                prog.advance(1, f"ring {1 << rsize}: calibrated {comps}")
            for rep in range(args.reps):
                for comps in args.comps:
                    st = bed.ndn_stream(comps)
                    # each trial's own calibration, in the second before it: the shared
                    # host's speed changes by up to 2x within seconds
                    r0 = args.cal_rates[-1]
                    f = {"comps": comps, "rate": r0, "payload": 0, "lcores": 1, "queue": 1 << rsize}
                    for rate in rates[str(comps)]:
                        key = f"{comps}/{rate:.0f}/{rep}"
                        # the pair again when the host moved the vCPUs between the two
                        # (their placement probes differ): the forwarder's speed changes
                        # by half with the placement, and a model calibrated in one
                        # placement predicts for that one
                        tries: list[list[str | None]] = []
                        for _ in range(PAIR_TRIES):
                            cal = calibrate(bed, st, r0, 0.8, f)
                            r = _slim(bed.trial(st, rate, args.trial_seconds))
                            tries.append([cal["trial"].get("placement"), r.get("placement")])
                            if tries[-1][0] == tries[-1][1]:
                                break
                        out["cal_trial"][key] = cal
                        r["rep"] = rep
                        r["pair_placements"] = tries
                        out["trials"].setdefault(f"{comps}/{rate:.0f}", []).append(r)
                    prog.advance(1, f"ring {1 << rsize}: rep {rep + 1} {comps}")
        except Exception as e:  # noqa: BLE001 - keep the other beds
            out["error"] = f"{e}\n{traceback.format_exc()}"
            prog.message(f"  ring {1 << rsize}: ERROR {str(e).splitlines()[0]}")
            if bed.daemon is not None:
                out["dut_log"] = bed.daemon.logs()
        finally:
            bed.close()
    return out


def _slim(r: dict[str, Any]) -> dict[str, Any]:
    keys = (
        "rate_pps",
        "elapsed_s",
        "offered",
        "tx",
        "tx_full",
        "satisfied",
        "satisfaction",
        "busy_ratio",
        "cycles_per_exchange",
        "cpu_wait_ms",
        "steal_ms",
        "others_share",
        "placement",
        "xcpu_rtt_ns",
    )
    out = {k: r.get(k) for k in keys}
    prod = r.get("producer") or {}
    out["producer_interests"] = prod.get("rx_interests")
    out["producer_data"] = prod.get("tx_data")
    out["producer_drop_tx_full"] = prod.get("drop_tx_full")
    return out


def payload_bed(args: argparse.Namespace, tsc: float, workdir: Path) -> dict[str, Any]:
    """Calibration only, Data of 1,200 bytes: the payload's main effect."""
    out: dict[str, Any] = {"payload": 1200, "cal": {}}
    with D.lab_lock(args.lock):
        D.ensure_hugepages(1024)
        bed = NB.Bed(1200, workdir, tsc, rsize=12)
        try:
            bed.start()
            bed.set_mode("ndn")
            for comps in args.comps:
                st = bed.ndn_stream(comps)
                if comps == args.comps[0]:
                    bed.wait_path(st)
                bed.trial(st, 500_000, 0.3)
                out["cal"][str(comps)] = [
                    calibrate(
                        bed,
                        st,
                        r,
                        args.cal_seconds,
                        {"comps": comps, "rate": r, "payload": 1200, "lcores": 1, "queue": 4096},
                    )
                    for r in args.cal_rates
                ]
        except Exception as e:  # noqa: BLE001
            out["error"] = f"{e}\n{traceback.format_exc()}"
        finally:
            bed.close()
    return out


def queue_bed(
    mode: str, args: argparse.Namespace, tsc: float, workdir: Path, prog: Progress
) -> dict[str, Any]:
    """An input lcore and a forwarding lcore on the forwarder's CPU, the forwarding
    context's queues separate or shared."""
    q = QUEUE_BED_Q
    words = f"interest-queue {q} data-queue {q}" + (" queues shared" if mode == "shared" else "")
    out: dict[str, Any] = {"queues": mode, "queue": q, "ndn_enable": words, "trials": {}}
    with D.lab_lock(args.lock):
        D.ensure_hugepages(1024)
        bed = NB.Bed(0, workdir, tsc, rsize=12, ndn_enable=words, lcores=("input", "forwarding"))
        try:
            bed.start()
            out["setup"] = bed.setup
            bed.set_mode("ndn")
            st = bed.ndn_stream(3)
            bed.wait_path(st)
            bed.trial(st, 300_000, 0.3)
            out["cal"] = calibrate(
                bed,
                st,
                args.queue_rates[-1],
                args.cal_seconds,
                {"comps": 3, "rate": args.queue_rates[-1], "payload": 0, "lcores": 2, "queue": q},
            )
            for _rep in range(args.reps):
                for rate in args.queue_rates:
                    rings0 = _rings(bed)
                    r = _slim(bed.trial(st, rate, args.trial_seconds))
                    rings1 = _rings(bed)
                    r["ring_drops"] = {k: rings1[k] - rings0.get(k, 0) for k in rings1}
                    out["trials"].setdefault(f"{rate:.0f}", []).append(r)
            prog.advance(1, f"queues {mode}")
        except Exception as e:  # noqa: BLE001
            out["error"] = f"{e}\n{traceback.format_exc()}"
            prog.message(f"  queues {mode}: ERROR {str(e).splitlines()[0]}")
            if bed.daemon is not None:
                out["dut_log"] = bed.daemon.logs()
        finally:
            bed.close()
    return out


def _rings(bed: Any) -> dict[str, int]:
    rs = bed.dut_cmd("show", "rings")["rings"]
    return {r["name"]: int(r["dropped_full"]) for r in rs if r["name"].startswith("ndn-")}


# --------------------------------------------------------------------------
# model side


def theory_grid(args: argparse.Namespace) -> dict[str, Any]:
    """SMC loss estimates against the closed forms (one lcore: M/M/1/K, M/D/1/K; c
    lcores sharing one queue: M/M/c/K), and Storm on M/M/1/K's CTMC."""
    mean = 100.0
    rows = []
    for kind in ("mm1k", "md1k", "mmck"):
        for c in THEORY_C if kind == "mmck" else (1,):
            for k in args.theory_k:
                kk = k + c - 1 if kind == "mmck" else k  # at least c places
                for rho in args.theory_loads:
                    m, closed = theory.queue_model(kind, rho, kk, c, mean)
                    seed = 1 + len(rows)
                    est = smc.estimate(m, "loss", args.epsilon, 0.05, seed=seed)
                    rows.append(
                        {
                            "kind": kind,
                            "c": c,
                            "K": kk,
                            "load": rho,
                            "closed_form": closed,
                            "smc": est.value,
                            "runs": est.runs,
                            "abs_error": abs(est.value - closed),
                        }
                    )
    storm = []
    for rho in (0.6, 1.0, 1.4):
        for k in (5, 12):
            lam, mu = rho / mean, 1 / mean
            storm.append(
                {
                    "load": rho,
                    "K": k,
                    "storm": theory.mm1k_loss_storm(lam, mu, k),
                    "closed_form": theory.mm1k_loss(lam, mu, k),
                }
            )
    return {
        "epsilon": args.epsilon,
        "delta": 0.05,
        "mean_service_ns": mean,
        "rows": rows,
        "max_abs_error": max(r["abs_error"] for r in rows),
        "within_epsilon": sum(r["abs_error"] <= args.epsilon for r in rows),
        "points": len(rows),
        "storm": storm,
        "storm_max_abs_diff": max(abs(s["storm"] - s["closed_form"]) for s in storm),
    }


def sim_speed(model: Pipeline, reps: int) -> dict[str, Any]:
    """Events per second of the simulator in this process (one core)."""
    vals = []
    for i in range(reps):
        t0 = time.perf_counter()
        _, ev = model.run(8, seed=100 + i)
        vals.append(ev / (time.perf_counter() - t0))
    return {
        "model": "run to completion, calibrated (3 components), 100k Interests per run",
        "reps": reps,
        "values": vals,
        "median": float(np.median(vals)),
        "min": float(min(vals)),
        "max": float(max(vals)),
    }


def dists_of(s: dict[str, Any]) -> dict[str, Dist]:
    return calib.service_dists(s)


def rtc_model(s: dict[str, Any], q: int, rate: float, seconds: float) -> Pipeline:
    """One lcore running every stage; its queues the rings it polls (Interests from
    the consumer's port, Data from the producer's), polled 32 at a time by turns;
    Interests in the generator's bursts of 32."""
    n = int(min(MODEL_MAX_INTERESTS, rate * seconds))
    return Pipeline(
        interval=1e9 / rate,
        rtc=True,
        n_fwd=1,
        q_interest=q,
        q_data=q,
        poll_burst=BURST,
        arrival_burst=BURST,
        producer_delay=PRODUCER_DELAY,
        n_interests=n,
        warmup=0,
        **dists_of(s),
    )


def predict(model: Pipeline, runs: int, seed: int) -> dict[str, Any]:
    res, ev = smc.simulate(model, runs, seed)
    sat = res["satisfaction"]
    half = 1.96 * float(sat.std(ddof=1)) / math.sqrt(len(sat)) if len(sat) > 1 else 0.0
    return {
        "satisfaction": float(sat.mean()),
        "ci95": half,
        "runs": runs,
        "events": ev,
        "drop_fwd_interest": float(res["drop_fwd_interest"].mean()),
        "drop_fwd_data": float(res["drop_fwd_data"].mean()),
        "drop_input": float(res["drop_input"].mean()),
    }


def validation(beds: list[dict[str, Any]], args: argparse.Namespace) -> dict[str, Any]:
    pts = []
    for b in beds:
        if "error" in b and not b.get("trials"):
            continue
        for key, trials in sorted(b["trials"].items()):
            comps_s, rate_s = key.split("/")
            rate = float(rate_s)
            per_rep = []
            for t in trials:
                if t.get("satisfaction") is None:
                    continue
                # the rate the generator achieved (it falls behind near its own ceiling),
                # the repetition's own calibration (else the bed's first)
                eff = t["offered"] / t["elapsed_s"] if t.get("elapsed_s") else rate
                eff = min(rate, eff) if eff > 0 else rate
                cal = (
                    b.get("cal_trial", {}).get(f"{comps_s}/{rate:.0f}/{t.get('rep')}")
                    or b.get("cal_rep", {}).get(f"{comps_s}/{t.get('rep')}")
                    or b["cal"][comps_s][-1]
                )
                model = rtc_model(cal, b["queue"], eff, args.trial_seconds)
                p = predict(model, args.model_runs, seed=int(rate) % 100000 + b["queue"])
                per_rep.append({"measured": t["satisfaction"], "model": p["satisfaction"],
                                "ci95": p["ci95"], "rate_effective": eff})  # fmt: skip
            if not per_rep:
                continue
            meas = [x["measured"] for x in per_rep]
            med = float(np.median(meas))
            eff = float(np.median([x["rate_effective"] for x in per_rep]))
            p = {
                "satisfaction": float(np.median([x["model"] for x in per_rep])),
                "ci95": max(x["ci95"] for x in per_rep),
            }
            pts.append(
                {
                    "queue": b["queue"],
                    "comps": int(comps_s),
                    "rate": rate,
                    "rate_effective": eff,
                    "measured": med,
                    "measured_min": min(meas),
                    "measured_max": max(meas),
                    "model": p["satisfaction"],
                    "model_ci95": p["ci95"],
                    "abs_points": 100 * abs(p["satisfaction"] - med),
                    "per_rep": per_rep,
                }
            )
    worst = max(pts, key=lambda p: p["abs_points"]) if pts else None
    pairs = [
        t.get("pair_placements") or []
        for b in beds
        for ts in b.get("trials", {}).values()
        for t in ts
    ]
    return {
        # calibration-trial pairs: measured again because the placements differed, and
        # those whose last try still differed (kept, judged like the others)
        "pairs": len(pairs),
        "pairs_retried": sum(len(x) > 1 for x in pairs),
        "pairs_mismatched": sum(bool(x) and x[-1][0] != x[-1][1] for x in pairs),
        "points": pts,
        "n_points": len(pts),
        "within_5": sum(p["abs_points"] <= 5.0 for p in pts),
        "max_abs_points": worst["abs_points"] if worst else None,
        "worst": worst,
    }


def pipeline_model(s: dict[str, Any], rate: float, n_fwd: int, q: int, **kw: Any) -> Pipeline:
    """NDN-DPDK's pipeline: an input lcore (decode, NDT), n forwarding lcores, each
    with its queues (the forwarding lcore sends)."""
    d = dists_of(s)
    warm = kw.pop("warmup", 10 * q + 4000)  # a queue full before counting (steady state)
    return Pipeline(
        interval=1e9 / rate,
        n_fwd=n_fwd,
        poll_burst=BURST,  # the forwarding lcore takes its rings by turns, 32 at a time
        q_interest=q,
        q_data=q,
        q_input=4096,
        producer_delay=PRODUCER_DELAY,
        n_interests=warm + kw.pop("counted", 20000),
        warmup=warm,
        **d,
        **kw,
    )


def est(model: Pipeline, eps: float, seed: int) -> dict[str, Any]:
    e = smc.estimate(model, "satisfaction", eps, 0.05, seed=seed)
    return {"satisfaction": e.value, "epsilon": eps, "runs": e.runs}


def figures(
    beds: list[dict[str, Any]],
    qbeds: list[dict[str, Any]],
    rates: dict[str, list[float]],
    args: argparse.Namespace,
    prog: Progress,
) -> dict[str, Any]:
    first = next(b for b in beds if b.get("cal"))
    cal = {c: first["cal"][c][-1] for c in first["cal"]}
    c3 = cal[str(args.comps[0])]
    out: dict[str, Any] = {}
    # (a) satisfaction vs queue capacity at three rates, run to completion (one lcore)
    a_rates = rates[str(args.comps[0])][-3:]
    out["queue"] = {
        "comps": args.comps[0],
        "epsilon": args.fig_eps,
        "rates": a_rates,
        "queues": list(FIG_QUEUES),
        "model": {
            f"{r:.0f}": [
                est(
                    rtc_model(c3, q, r, 1.0).with_(
                        n_interests=10 * q + 20000 + 4000, warmup=10 * q + 4000
                    ),
                    args.fig_eps,
                    seed=q + i,
                )["satisfaction"]
                for q in FIG_QUEUES
            ]
            for i, r in enumerate(a_rates)
        },
    }
    prog.advance(1, "figure: queue capacity")
    # (b) satisfaction vs forwarding lcores 1-8, two capacities, pipeline
    cap1 = predicted_capacity(c3)
    b_rate = round(2.5 * cap1, -3)
    out["lcores"] = {
        "comps": args.comps[0],
        "rate": b_rate,
        "epsilon": args.fig_eps,
        "queues": [64, 4096],
        "model": {
            str(q): [
                est(pipeline_model(c3, b_rate, n, q), args.fig_eps, seed=n * 7 + q)["satisfaction"]
                for n in range(1, 9)
            ]
            for q in (64, 4096)
        },
    }
    prog.advance(1, "figure: lcores")
    # (c) lcores x name length x interval x placement (assumed NUMA penalty)
    out["placement"] = {
        "epsilon": args.placement_eps,
        "numa_cross_ns": NUMA_CROSS_NS,
        "numa_assumed": True,
        "queue": 4096,
        "intervals_ns": list(FIG_INTERVALS),
        "model": {},
    }
    for comps in args.comps:
        for iv in FIG_INTERVALS:
            for pl in (1, 2, 3, 4):
                out["placement"]["model"][f"{comps}/{iv:.0f}/P{pl}"] = [
                    est(
                        pipeline_model(
                            cal[str(comps)],
                            1e9 / iv,
                            n,
                            4096,
                            placement=pl,
                            numa_cross=NUMA_CROSS_NS,
                            counted=10000,
                            warmup=12000,
                        ),
                        args.placement_eps,
                        seed=n + pl * 10 + comps * 100,
                    )["satisfaction"]
                    for n in range(1, 9)
                ]
        prog.advance(1, f"figure: placement {comps}")
    # (d) separate vs shared queues: the model of the queue beds and over Q
    qd: dict[str, Any] = {"forwarder": {}, "model": {}}
    for qb in qbeds:
        mode = qb["queues"]
        rows = []
        for rate_s, trials in sorted(qb.get("trials", {}).items(), key=lambda kv: float(kv[0])):
            off = np.median([t["offered"] for t in trials])
            sat = np.median([t["satisfaction"] for t in trials])
            pi = np.median([t.get("producer_interests") or 0 for t in trials])
            got = np.median([t["satisfied"] for t in trials])
            rows.append(
                {
                    "rate": float(rate_s),
                    "satisfaction": float(sat),
                    "interests_lost_before_producer": float((off - pi) / off) if off else None,
                    "data_lost_after_producer": float((pi - got) / off) if off else None,
                    "ring_drops": trials[-1].get("ring_drops"),
                }
            )
        qd["forwarder"][mode] = rows
        cal2 = qb.get("cal")
        if not cal2 or "interest" not in cal2.get("stages", {}):
            continue
        mrows = []
        for rate_s in sorted(qb.get("trials", {}), key=float):
            # two lcores sharing one CPU: each has half of it while both are busy
            d = {k: v.scaled(2.0) for k, v in dists_of(cal2).items()}
            m = Pipeline(
                interval=1e9 / float(rate_s),
                n_fwd=1,
                queues=mode,
                poll_burst=BURST,
                q_interest=qb["queue"],
                q_data=qb["queue"],
                q_input=4096,
                producer_delay=PRODUCER_DELAY,
                n_interests=200_000,
                warmup=20_000,
                **d,
            )
            res, _ = smc.simulate(m, args.model_runs, seed=int(float(rate_s)) % 9973)
            sent = res["sent"].mean()
            mrows.append(
                {
                    "rate": float(rate_s),
                    "satisfaction": float(res["satisfaction"].mean()),
                    "interests_lost_before_producer": float(
                        (res["drop_input"] + res["drop_fwd_interest"]).mean() / sent
                    ),
                    "data_lost_after_producer": float(res["drop_fwd_data"].mean() / sent),
                }
            )
        qd["model"][mode] = mrows
    # the seed's Fig. 17a finding, in the model: shared vs separate over Q at one rate
    # over the pipeline's forwarding lcore (the input lcore does the rest)
    d3 = dists_of(c3)
    fast = round(1.3e9 / (d3["fwd_i"].mean() + d3["fwd_d"].mean()), -3)
    qd["over_queue"] = {
        "rate": fast,
        "queues": list(FIG_QUEUES),
        "epsilon": args.fig_eps,
        "model": {
            mode: [
                est(pipeline_model(c3, fast, 1, q, queues=mode), args.fig_eps, seed=q + 3)[
                    "satisfaction"
                ]
                for q in FIG_QUEUES
            ]
            for mode in ("separate", "shared")
        },
    }
    out["shared_vs_separate"] = qd
    prog.advance(1, "figure: queues")
    return out


def main_effects(beds: list[dict[str, Any]], pbed: dict, qbeds: list[dict]) -> dict[str, Any]:
    sets = [s for b in beds for v in b.get("cal", {}).values() for s in v]
    sets += [s for b in beds for s in b.get("cal_rep", {}).values()]
    sets += [s for b in beds for s in b.get("cal_trial", {}).values()]
    sets += [s for v in pbed.get("cal", {}).values() for s in v]
    sets += [q["cal"] for q in qbeds if q.get("cal")]
    sets = [s for s in sets if s.get("stages")]
    return {st: calib.main_effects(sets, st) for st in ("input", "interest", "data")}


def fit_table(beds: list[dict[str, Any]]) -> dict[str, Any]:
    first = next((b for b in beds if b.get("cal")), None)
    out: dict[str, Any] = {}
    if first is None:
        return out
    for comps, sets in first["cal"].items():
        s = sets[-1]
        out[comps] = {k: f.to_dict() for k, f in calib.fits(s).items()}
        out[comps]["timed_ns_per_packet"] = s.get("timed_ns_per_packet")
        out[comps]["scale"] = calib.scale_of(s)
        out[comps]["simulated_as"] = {k: d.kind for k, d in calib.service_dists(s).items()}
        out[comps]["busy_ns_per_packet"] = s.get("busy_ns_per_packet")
        out[comps]["predicted_capacity"] = predicted_capacity(s)
    return out


# --------------------------------------------------------------------------
# report


def _strip_samples(sets: list[dict[str, Any]], keep: int) -> None:
    """The samples counted, and a random ``keep`` of each stage kept in the JSON."""
    for s in sets:
        st = s.get("stages", {})
        s["samples"] = {k: len(v) for k, v in st.items()}
        rng = np.random.default_rng(5)
        s["stages"] = {
            k: (v if len(v) <= keep else [v[i] for i in sorted(rng.choice(len(v), keep, False))])
            for k, v in st.items()
        }


def plot(doc: dict[str, Any], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axs = plt.subplots(2, 3, figsize=(17, 10))
    # theory
    ax = axs[0][0]
    th = doc["theory"]
    for kind, mk in (("mm1k", "o"), ("md1k", "s"), ("mmck", "^")):
        rs = [r for r in th["rows"] if r["kind"] == kind]
        ax.scatter(
            [r["closed_form"] for r in rs], [r["smc"] for r in rs], marker=mk, s=14, label=kind
        )
    ax.plot([0, 1], [0, 1], "k-", lw=0.6)
    ax.set_xlabel("closed-form loss probability")
    ax.set_ylabel("SMC estimate")
    ax.set_title(
        f"theory: max |error| {th['max_abs_error']:.4f} (epsilon {th['epsilon']})", fontsize=10
    )
    ax.legend(fontsize=8)
    # validation
    ax = axs[0][1]
    v = doc["validation"]
    for q, mk in ((4096, "o"), (1024, "s"), (256, "^")):
        for comps, col in zip(COMPS, ("C0", "C1", "C2"), strict=True):
            ps = sorted(
                (p for p in v["points"] if p["queue"] == q and p["comps"] == comps),
                key=lambda p: p["rate"],
            )
            if not ps:
                continue
            x = [p["rate"] / 1e6 for p in ps]
            ax.plot(x, [100 * p["model"] for p in ps], color=col, lw=0.8, alpha=0.7)
            ax.errorbar(
                x,
                [100 * p["measured"] for p in ps],
                yerr=[
                    [100 * (p["measured"] - p["measured_min"]) for p in ps],
                    [100 * (p["measured_max"] - p["measured"]) for p in ps],
                ],
                fmt=mk,
                color=col,
                ms=4,
                label=f"{comps} comps, Q {q}",
            )
    ax.set_xlabel("Interests/s (M)")
    ax.set_ylabel("satisfaction (%)")
    ax.set_title(
        f"one lcore: model (lines) vs forwarder (marks), max {v['max_abs_points']:.1f} pp",
        fontsize=10,
    )
    ax.legend(fontsize=6, ncol=3)
    # (a) queue capacity
    ax = axs[0][2]
    fq = doc["figures"]["queue"]
    for i, (r, ys) in enumerate(fq["model"].items()):
        ax.plot(fq["queues"], [100 * y for y in ys], "-", color=f"C{i}", lw=0.8,
                label=f"model {float(r) / 1e6:.1f} M/s, first calibration")  # fmt: skip
        ms = [
            p
            for p in v["points"]
            if p["comps"] == fq["comps"] and abs(p["rate"] - float(r)) < 1 and p["measured"]
        ]
        ms.sort(key=lambda p: p["queue"])
        ax.plot(
            [p["queue"] for p in ms],
            [100 * p["measured"] for p in ms],
            "o",
            color=f"C{i}",
            label=f"forwarder {float(r) / 1e6:.1f} M/s",
        )
        ax.plot(
            [p["queue"] for p in ms],
            [100 * p["model"] for p in ms],
            "x",
            ms=9,
            color=f"C{i}",
            label="model, that bed's calibrations",
        )
    ax.set_xscale("log", base=2)
    ax.set_xlabel("queue capacity (packets)")
    ax.set_ylabel("satisfaction (%)")
    ax.set_title(
        f"vs queue capacity, one lcore ({fq['comps']} comps; beds at different host speeds)",
        fontsize=10,
    )
    ax.legend(fontsize=7)
    # (b) lcores
    ax = axs[1][0]
    fl = doc["figures"]["lcores"]
    for q, ys in fl["model"].items():
        ax.plot(range(1, 9), [100 * y for y in ys], "o-", label=f"model Q={q}")
    ax.set_xlabel("forwarding lcores")
    ax.set_ylabel("satisfaction (%)")
    ax.set_title(f"pipeline at {fl['rate'] / 1e6:.2f} M Interests/s (model only)", fontsize=10)
    ax.legend(fontsize=8)
    # (c) placement: 3 and 13 comps at 500 ns
    ax = axs[1][1]
    fp = doc["figures"]["placement"]
    for key, ys in fp["model"].items():
        comps, iv, pl = key.split("/")
        if iv != "200":
            continue
        ls = {"3": "-", "7": "--", "13": ":"}[comps]
        col = f"C{int(pl[1]) - 1}"
        ax.plot(range(1, 9), [100 * y for y in ys], ls, color=col, label=f"{comps} comps {pl}")
    ax.set_xlabel("forwarding lcores")
    ax.set_ylabel("satisfaction (%)")
    ax.set_title(
        f"200 ns interval, P1-P4 (NUMA {fp['numa_cross_ns']:.0f} ns/crossing, ASSUMED)",
        fontsize=10,
    )
    ax.legend(fontsize=6, ncol=3)
    # (d) shared vs separate
    ax = axs[1][2]
    sq = doc["figures"]["shared_vs_separate"]
    for mode, col in (("separate", "C0"), ("shared", "C3")):
        ys = sq["over_queue"]["model"].get(mode)
        if ys:
            ax.plot(sq["over_queue"]["queues"], [100 * y for y in ys], "-", color=col,
                    label=f"model {mode}, {sq['over_queue']['rate'] / 1e6:.2f} M/s")  # fmt: skip
    ax.set_xscale("log", base=2)
    ax.set_xlabel("queue capacity (packets)")
    ax.set_ylabel("satisfaction (%)")
    ax.set_title("separate per-type queues vs one shared queue (pipeline)", fontsize=10)
    ax.legend(fontsize=7)
    fig.suptitle(
        "twinplane performance model (seed 002): theory, forwarder, seed figures -- "
        "forwarder on one CPU, generator on the other",
        fontsize=11,
    )
    fig.tight_layout()
    fig.savefig(out / "model.png", dpi=90)
    plt.close(fig)
    # the fits against their histograms (the first bed's overload sets)
    fits = doc.get("fits", {})
    first = next((b for b in doc["beds"] if b.get("cal")), None)
    if not fits or first is None:
        return
    fig, axs = plt.subplots(len(fits), 3, figsize=(14, 3.2 * len(fits)), squeeze=False)
    for i, comps in enumerate(sorted(fits, key=int)):
        s = first["cal"][comps][-1]
        for j, st in enumerate(("input", "interest", "data")):
            ax = axs[i][j]
            x = np.asarray(s["stages"].get(st) or [], dtype=float)
            f = fits[comps].get(st)
            if len(x) == 0 or f is None:
                continue
            fo = Fit(f["family"], f["params"], f["ppcc"], f["ks_stat"], f["ks_p"], f["n"])
            hi = np.quantile(x, 0.995)
            ax.hist(x[x <= hi], bins=60, density=True, alpha=0.55, label=f"samples ({len(x)})")
            dr = fo.to_dist().draw(100_000, seed=3)
            ax.hist(dr[dr <= hi], bins=60, density=True, histtype="step", lw=1.5,
                    label=f"{f['family']} PPCC {f['ppcc']:.3f} KS {f['ks_stat']:.3f}")  # fmt: skip
            ax.set_title(f"{st} stage, {comps} components (ns)", fontsize=9)
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "model-fits.png", dpi=80)
    plt.close(fig)


def _p(x: float | None, nd: int = 1) -> str:
    return "-" if x is None else f"{100 * x:.{nd}f}"


def _bias(p: dict[str, Any]) -> str:
    """Whether a validation point's model is off the same way in every repetition."""
    d = [r["model"] - r["measured"] for r in p["per_rep"]]
    if all(x < 0.005 for x in d):
        return " (the model at or below the forwarder in every repetition)"
    if all(x > -0.005 for x in d):
        return " (the model at or above the forwarder in every repetition)"
    return " (the model above in some repetitions, below in others)"


def write_report(doc: dict[str, Any], out: Path) -> None:
    th, v, sp, fg = doc["theory"], doc["validation"], doc["sim_speed"], doc["figures"]
    L = [
        "# The performance model (issue 11, seed 002)",
        "",
        f"Written by `bench/model.py` ({doc['mode']}) at {doc['commit']} on {doc['date']}. "
        "Plots: `model.png` (theory, validation, the seed's figures), `model-fits.png` "
        "(the calibrated stages' fits over their histograms); raw data: `model.json`.",
        "",
        "Set-up: bench/ndn.py's beds. The generator's NDN consumer and producer "
        f"(`twinplane-gen`, one process, one loop) pinned to CPU {D.GEN_CPU}; the forwarder's "
        f"data-plane lcore(s) to CPU {D.DUT_CPU}; memif between them. The model runs after "
        "every measurement, on both CPUs. This machine has one NUMA node: the placement "
        f"figure's penalty ({NUMA_CROSS_NS:.0f} ns per crossing) is **assumed, not measured**.",
        "",
        "## Headline",
        "",
        "| check | result | bar |",
        "|---|---|---|",
        f"| `theory_max_abs_error`: SMC vs M/M/1/K, M/D/1/K, M/M/c/K ({th['points']} points) "
        f"| {doc['theory_max_abs_error']:.4f} ({th['within_epsilon']}/{th['points']} within "
        f"epsilon) | epsilon {th['epsilon']} (delta {th['delta']}) |",
        f"| Storm (M/M/1/K CTMC) vs closed form | {th['storm_max_abs_diff']:.2e} | exact |",
        f"| `measured_max_abs_points`: model vs forwarder ({v['n_points']} points: rates x "
        f"queues x name lengths) | {doc['measured_max_abs_points']:.2f} pp "
        f"({v['within_5']}/{v['n_points']} within 5) | 5 pp |",
        f"| `sim_events_per_second` (one core, median of {sp['reps']}) | "
        f"{doc['sim_events_per_second'] / 1e6:.1f} M ({sp['min'] / 1e6:.1f}-"
        f"{sp['max'] / 1e6:.1f}) | 5 M |",
        "",
        "## Calibration",
        "",
        "Per name length, the first validation bed (ring 4,096), the trial over capacity "
        f"({doc['params']['cal_rates'][-1] / 1e6:.1f} M Interests/s): the telemetry's "
        "stages (1 packet in 16 timed, raw samples read through the API while the trial "
        "runs), the chosen fit (normal first; else lognormal, gamma, Weibull by PPCC "
        "among the ones KS does not reject at 1 %; Box-Cox when none reaches PPCC 0.99), "
        "and how they are simulated: the fitted family when KS does not reject it and "
        "its PPCC is at least 0.99, else the samples themselves (empirical). The timed "
        "stages of a packet do not add up to the lcore's busy time per packet (`show "
        "workers`), so every stage is scaled by busy / timed (`scale`): the shapes come "
        "from the telemetry, the mean from the busy time.",
        "",
        "| comps | stage | samples | fit | parameters | PPCC | KS D | KS p |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for comps, fs in sorted(doc["fits"].items(), key=lambda kv: int(kv[0])):
        for st in ("input", "interest", "data"):
            f = fs.get(st)
            if not f:
                continue
            par = ", ".join(f"{k} {val:.3g}" for k, val in f["params"].items())
            L.append(
                f"| {comps} | {st} | {f['n']} | {f['family']} | {par} | {f['ppcc']:.4f} | "
                f"{f['ks_stat']:.3f} | {f['ks_p']:.2g} |"
            )
    L += [
        "",
        "| comps | busy ns / packet | timed stages ns / packet | scale | simulated as "
        "| predicted capacity (M/s) |",
        "|---|---|---|---|---|---|",
    ]
    for comps, fs in sorted(doc["fits"].items(), key=lambda kv: int(kv[0])):
        L.append(
            f"| {comps} | {fs.get('busy_ns_per_packet') or 0:.0f} | "
            f"{fs.get('timed_ns_per_packet') or 0:.0f} | {fs.get('scale', 1):.3f} | "
            f"{', '.join(f'{k} {v}' for k, v in fs.get('simulated_as', {}).items())} | "
            f"{fs['predicted_capacity'] / 1e6:.3f} |"
        )
    L += ["", "### Main effects (sensitivity) and ANOVA", ""]
    L += [
        "Every calibration set (3 rings x 3 name lengths x 2 rates, payload 1,200 at "
        "ring 4,096, and the two-lcore beds): each factor's levels' mean latency of the "
        "stage, the effect (max - min) and its share of the grand mean, ranked; F and p "
        "of a type-II ANOVA over the sets' samples.",
        "",
        "| stage | factor | effect (ns) | share | levels (mean ns) | ANOVA F | p |",
        "|---|---|---|---|---|---|---|",
    ]
    for st, me in doc["main_effects"].items():
        an = me.get("anova", {}).get("factors", {})
        for k in me.get("ranked", []):
            f = me["factors"][k]
            lv = ", ".join(f"{a}: {b:.0f}" for a, b in f["levels"].items())
            a = an.get(k, {})
            L.append(
                f"| {st} | {k} | {f['effect_ns']:.0f} | {100 * f['effect_share']:.0f} % | {lv} "
                f"| {a.get('F', float('nan')):.1f} | {a.get('p', float('nan')):.2g} |"
            )
    L += [
        "",
        "## Validation against the forwarder (one lcore)",
        "",
        "One data-plane lcore runs every stage (input, forwarding, output): its queues are "
        "the memif rings it polls, whose size is the queue capacity (a bed per size). "
        "Rates: "
        f"{', '.join(f'{x / 1e6:g}' for x in doc['params']['rates'])} M Interests/s in every "
        "bed (the model is given the rate the generator achieved, offered / elapsed, "
        "which falls short near its own ceiling). Measured: the median "
        f"of {doc['params']['reps']} interleaved {doc['params']['trial_seconds']:.0f} s trials "
        "(min-max), Data received / Interests offered. Model: the mean of "
        f"{doc['params']['model_runs']} runs of the trial's Interests (up to "
        f"{MODEL_MAX_INTERESTS:,}), run to completion, Interests in bursts of {BURST} at the "
        f"rate, polls of up to {BURST} by turns, the producer {PRODUCER_DELAY:.0f} ns "
        "away (assumed), service from the calibration taken in the second before that "
        "trial (0.8 s of telemetry at the top rate: the host's speed changes by up to 2x "
        "within seconds); the point's model figure is the median of the repetitions'. "
        "A calibration and its trial are measured again (up to "
        f"{PAIR_TRIES} times) while the placement probes before them differ (the host "
        "moved the vCPUs between the two: the forwarder's cost per exchange changes by "
        "half, and a model calibrated in one placement predicts for that one)"
        + (
            f": {v['pairs_retried']} of {v['pairs']} pairs were measured again, "
            f"{v['pairs_mismatched']} still differed at the last try (kept, judged)."
            if "pairs" in v
            else "."
        ),
        "",
        "| queue | comps | rate (M/s) | achieved (M/s) | forwarder % (min-max) "
        "| model % (95 % CI) | diff (pp) |",
        "|---|---|---|---|---|---|---|",
    ]
    for p in sorted(v["points"], key=lambda p: (p["queue"], p["comps"], p["rate"])):
        L.append(
            f"| {p['queue']} | {p['comps']} | {p['rate'] / 1e6:.3f} | "
            f"{p.get('rate_effective', p['rate']) / 1e6:.3f} | {_p(p['measured'])} "
            f"({_p(p['measured_min'])}-{_p(p['measured_max'])}) | {_p(p['model'])} "
            f"(±{100 * p['model_ci95']:.2f}) | {p['abs_points']:.2f} |"
        )
    per: dict[tuple[int, int], list[int]] = {}
    for p in v["points"]:
        per.setdefault((p["queue"], p["comps"]), [0, 0])
        per[(p["queue"], p["comps"])][0] += p["abs_points"] <= 5.0
        per[(p["queue"], p["comps"])][1] += 1
    misses = [p for p in v["points"] if p["abs_points"] > 5.0]
    L += [
        "",
        "Rates within 5 pp, per queue and name length: "
        + ", ".join(f"{q}/{c}: {n}/{m}" for (q, c), (n, m) in sorted(per.items()))
        + ". "
        + (
            "Over 5 pp: "
            + "; ".join(
                f"{p['queue']}/{p['comps']} at {p['rate'] / 1e6:g} M/s, per repetition "
                "(forwarder, model) "
                + ", ".join(
                    f"({100 * r['measured']:.1f}, {100 * r['model']:.1f})" for r in p["per_rep"]
                )
                + _bias(p)
                for p in sorted(misses, key=lambda p: (p["queue"], p["comps"], p["rate"]))
            )
            + ". All are at the knee, where the satisfaction moves by several points for a "
            "small change in the forwarder's speed; where the model is on one side in every "
            "repetition, the gap is the model's, not the host's."
            if misses
            else "None over 5 pp."
        ),
    ]
    L += [
        "",
        "## Theory",
        "",
        f"Loss probability, SMC (Chernoff-Hoeffding: {th['rows'][0]['runs']:,} runs of 500 "
        f"counted arrivals each for epsilon {th['epsilon']}, delta {th['delta']}; Poisson "
        "arrivals, mean service 100 ns) against the closed forms; K counts the servers' "
        "places too.",
        "",
        "| queue | c | K | loads | max abs error |",
        "|---|---|---|---|---|",
    ]
    groups: dict[tuple, list] = {}
    for r in th["rows"]:
        groups.setdefault((r["kind"], r["c"], r["K"]), []).append(r)
    for (kind, c, k), rs in groups.items():
        L.append(
            f"| {kind} | {c} | {k} | {', '.join(str(r['load']) for r in rs)} | "
            f"{max(r['abs_error'] for r in rs):.4f} |"
        )
    L += [
        "",
        "Storm (the M/M/1/K CTMC, PRISM language, steady-state probability of a full "
        "queue) against the closed form:",
        "",
        "| load | K | Storm | closed form |",
        "|---|---|---|---|",
    ]
    for s in th["storm"]:
        L.append(f"| {s['load']} | {s['K']} | {s['storm']:.6f} | {s['closed_form']:.6f} |")
    L += [
        "",
        "## Simulator speed",
        "",
        f"{sp['model']}: {sp['median'] / 1e6:.1f} M events/s on one core (median of "
        f"{sp['reps']}, {sp['min'] / 1e6:.1f}-{sp['max'] / 1e6:.1f}); SMC spreads runs over "
        "both CPUs.",
        "",
        "## Seed 002's figures",
        "",
    ]
    fq = fg["queue"]
    L += [
        f"**Satisfaction vs queue capacity** (Fig. 17a; one lcore run to completion, "
        f"{fq['comps']} components; SMC epsilon {fq['epsilon']}; from the first bed's "
        "calibration). The forwarder's points are the validation's, each bed modelled from "
        "its own calibrations: the host's speed differed between the beds (see the "
        "validation table), more than the queue's size moves the satisfaction:",
        "",
        "| rate (M/s) | " + " | ".join(str(q) for q in fq["queues"]) + " |",
        "|---|" + "---|" * len(fq["queues"]),
    ]
    for r, ys in fq["model"].items():
        L.append(f"| {float(r) / 1e6:.3f} | " + " | ".join(_p(y) for y in ys) + " |")
    fl = fg["lcores"]
    L += [
        "",
        f"**Satisfaction vs forwarding lcores** (Fig. 17b; the pipeline: an input lcore, "
        f"NDT dispatch, 1-8 forwarding lcores; {fl['rate'] / 1e6:.2f} M Interests/s, 2.5x "
        "one lcore's capacity; model only, this machine has two CPUs):",
        "",
        "| queue | " + " | ".join(str(n) for n in range(1, 9)) + " |",
        "|---|" + "---|" * 8,
    ]
    for q, ys in fl["model"].items():
        L.append(f"| {q} | " + " | ".join(_p(y) for y in ys) + " |")
    fp = fg["placement"]
    L += [
        "",
        f"**Placements P1-P4** (Fig. 23; queue {fp['queue']}, SMC epsilon {fp['epsilon']}; "
        f"NUMA penalty {fp['numa_cross_ns']:.0f} ns per crossing, ASSUMED; model only). "
        "P1 all on one node; P2 the server face on the other; P3 the forwarding lcores "
        "and the server face on the other; P4 the forwarding lcores on the other. The "
        "seed's intervals (500 and 700 ns) ask less than one of our forwarding lcores "
        "serves; 200 ns (5 M Interests/s) is added to show the lcores' scaling.",
        "",
        "| comps | interval | placement | " + " | ".join(str(n) for n in range(1, 9)) + " |",
        "|---|---|---|" + "---|" * 8,
    ]
    for key, ys in fp["model"].items():
        comps, iv, pl = key.split("/")
        L.append(f"| {comps} | {iv} ns | {pl} | " + " | ".join(_p(y) for y in ys) + " |")
    L += [
        "",
        "In the pipeline one input lcore decodes the Interests and the Data alike, two "
        "packets per exchange, through one FIFO: where satisfaction stays under 100 % "
        "however many forwarding lcores, that lcore is the limit (the seed's plateaus).",
    ]
    sq = fg["shared_vs_separate"]
    L += [
        "",
        "**Separate per-type queues vs one shared queue** (the seed's finding: a shared "
        "queue full of Interests drops Data, each a forwarded Interest wasted). Forwarder: "
        "an input lcore and a forwarding lcore sharing one CPU (back-off on), queues of "
        f"{QUEUE_BED_Q}; model: the same pipeline, each lcore's service doubled (half the "
        "CPU while both are busy: an assumption).",
        "",
        "| queues | rate (M/s) | side | satisfaction % | Interests lost before the producer % "
        "| Data lost after it % |",
        "|---|---|---|---|---|---|",
    ]
    for mode in ("separate", "shared"):
        for side in ("forwarder", "model"):
            for r in sq.get(side, {}).get(mode, []):
                L.append(
                    f"| {mode} | {r['rate'] / 1e6:.2f} | {side} | {_p(r['satisfaction'])} | "
                    f"{_p(r['interests_lost_before_producer'])} | "
                    f"{_p(r['data_lost_after_producer'])} |"
                )
    oq = sq["over_queue"]
    L += [
        "",
        f"Model, one forwarding lcore at {oq['rate'] / 1e6:.2f} M Interests/s, over the "
        "queue capacity:",
        "",
        "| queues | " + " | ".join(str(q) for q in oq["queues"]) + " |",
        "|---|" + "---|" * len(oq["queues"]),
    ]
    for mode, ys in oq["model"].items():
        L.append(f"| {mode} | " + " | ".join(_p(y) for y in ys) + " |")
    L += ["", "## Notes", ""] + [f"- {n}" for n in doc.get("notes", [])]
    (out / "model.md").write_text("\n".join(L) + "\n")


# --------------------------------------------------------------------------


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--from-json", type=Path)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "results")
    ap.add_argument("--lock", default=LOCK)
    ap.add_argument("--workdir", type=Path)
    ap.add_argument(
        "--from-measure", type=Path, help="a work directory's measure.json: model side only"
    )
    a = ap.parse_args(argv)
    a.comps = COMPS
    a.rsizes = RSIZES
    a.rates = RATES
    a.cal_rates = CAL_RATES
    a.cal_seconds = CAL_SECONDS
    a.trial_seconds = TRIAL_SECONDS
    a.reps = REPS
    a.model_runs = MODEL_RUNS
    a.queue_rates = QUEUE_BED_RATES
    a.epsilon = 0.01
    a.theory_loads = THEORY_LOADS
    a.theory_k = THEORY_K
    a.fig_eps = 0.05
    a.placement_eps = 0.1
    a.speed_reps = 5
    if a.quick:
        a.rsizes = (12, 8)
        a.reps = 1
        a.cal_seconds = 1.0
        a.model_runs = 8
        a.epsilon = 0.02
        a.theory_loads = (0.5, 0.9, 1.3)
        a.theory_k = (1, 4, 12)
        a.fig_eps = 0.1
        a.placement_eps = 0.2
        a.speed_reps = 3
    return a


def finish(doc: dict[str, Any]) -> dict[str, Any]:
    doc["theory_max_abs_error"] = doc["theory"]["max_abs_error"]
    doc["measured_max_abs_points"] = doc["validation"]["max_abs_points"]
    doc["sim_events_per_second"] = doc["sim_speed"]["median"]
    return doc


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.from_json:
        doc = finish(json.loads(args.from_json.read_text()))
        args.out.mkdir(parents=True, exist_ok=True)
        write_report(doc, args.out)
        plot(doc, args.out)
        return 0
    started = D.bench_start("model", args.workdir)
    if started is None:
        return 2
    tsc, workdir = started
    n_steps = len(args.rsizes) * len(args.comps) * (1 + args.reps) + 2 + 7
    prog = Progress(n_steps, "model")
    t0 = time.monotonic()
    rates: dict[str, list[float]] = {}
    if args.from_measure:
        m = json.loads(args.from_measure.read_text())
        beds, pbed, qbeds, rates = m["beds"], m["payload_bed"], m["queue_beds"], m["rates"]
        prog.advance(len(args.rsizes) * len(args.comps) * (1 + args.reps) + 2)
    else:
        beds = []
        for rs in args.rsizes:
            beds.append(validation_bed(rs, args, tsc, workdir, rates, prog))
        pbed = payload_bed(args, tsc, workdir)
        qbeds = [queue_bed(m, args, tsc, workdir, prog) for m in ("separate", "shared")]
        (workdir / "measure.json").write_text(
            json.dumps({"beds": beds, "payload_bed": pbed, "queue_beds": qbeds, "rates": rates})
        )
    measure_s = time.monotonic() - t0
    # the model, on every CPU now
    os.sched_setaffinity(0, range(os.cpu_count() or 1))
    prog.message("  model: theory grid")
    th = theory_grid(args)
    prog.advance(1, "theory")
    first = next(b for b in beds if b.get("cal"))
    c3 = first["cal"][str(args.comps[0])][-1]
    speed = sim_speed(rtc_model(c3, 4096, 1.0e6, 0.1), args.speed_reps)
    val = validation(beds, args)
    prog.advance(1, "validation")
    figs = figures(beds, qbeds, rates, args, prog)
    prog.close()
    commit = D.git_rev()
    doc: dict[str, Any] = {
        "mode": "quick" if args.quick else "full",
        "commit": commit,
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "argv": argv,
        "cpus": {"generator": D.GEN_CPU, "forwarder": D.DUT_CPU},
        "params": {
            k: getattr(args, k)
            for k in (
                "comps",
                "rsizes",
                "rates",
                "cal_rates",
                "cal_seconds",
                "trial_seconds",
                "reps",
                "model_runs",
                "queue_rates",
                "fig_eps",
                "placement_eps",
            )
        },
        "measure_seconds": round(measure_s),
        "model_seconds": round(time.monotonic() - t0 - measure_s),
        "theory": th,
        "sim_speed": speed,
        "validation": val,
        "fits": fit_table(beds),
        "main_effects": main_effects(beds, pbed, qbeds),
        "figures": figs,
        "notes": [
            "NUMA: this machine has one node; the placement figure's penalty is an "
            "assumption (a forwarding stage's extra time per crossing), not a measurement.",
            "Two CPUs: the lcore figures beyond one lcore are the model's alone; the "
            "shared/separate forwarder beds put two lcores on one CPU.",
            "The producer's delay (Interest out to Data in, the generator's loop) is "
            f"assumed at {PRODUCER_DELAY:.0f} ns; it moves no loss at these queue sizes.",
        ],
    }
    for i, b in enumerate(beds):  # the first bed's overload sets: the fit plots' source
        for sets in b.get("cal", {}).values():
            _strip_samples(sets[:-1], 2000)
            _strip_samples(sets[-1:], 20000 if i == 0 else 2000)
        _strip_samples(list(b.get("cal_rep", {}).values()), 1000)
        _strip_samples(list(b.get("cal_trial", {}).values()), 300)
    for sets in pbed.get("cal", {}).values():
        _strip_samples(sets, 2000)
    _strip_samples([q["cal"] for q in qbeds if q.get("cal")], 2000)
    doc["beds"] = beds
    doc["payload_bed"] = pbed
    doc["queue_beds"] = qbeds
    if args.from_measure:
        when = dt.datetime.fromtimestamp(args.from_measure.stat().st_mtime, dt.UTC)
        doc["notes"].insert(
            0,
            f"The forwarder's measurements were taken at {when:%Y-%m-%d %H:%M} UTC (the "
            "tree of the commit before this one, the forwarder unchanged since); the model "
            "side was computed again from them at this commit (--from-measure).",
        )
    doc = finish(doc)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "model.json").write_text(json.dumps(doc, indent=1))
    write_report(doc, args.out)
    plot(doc, args.out)
    print(f"wrote {args.out / 'model.md'}, model.json, model.png, model-fits.png", flush=True)
    print(
        f"  theory_max_abs_error {doc['theory_max_abs_error']:.4f}  "
        f"measured_max_abs_points {doc['measured_max_abs_points']:.2f}  "
        f"sim_events_per_second {doc['sim_events_per_second'] / 1e6:.1f} M"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

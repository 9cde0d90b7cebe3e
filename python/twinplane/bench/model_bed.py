# SPDX-License-Identifier: BSD-3-Clause
"""The performance model's bench (``bench/model.py``): its trials on the NDN bed,
the model of each trial, the figure the model is judged by, the two-lcore beds
of the separate-against-shared queue comparison (``queue_side``) and the model's
own checks (theory grid, speed, seed 002's figures).

A *validation pair* is a calibration (the forwarder's per-stage telemetry read
through the API while a trial at ``CAL_RATE`` runs, ``calibrate``) and, right
after it, the trial the model predicts (``validation_pair``). The model of that
trial (``predict``) is one lcore running every stage, its queues the memif
rings, the generator's bursts at the rate it achieved, service times from that
pair's calibration. Its error is predicted minus measured satisfaction, in
percentage points. How and why: ``docs/bench/model.md``.

The pure part (``achieved_rate``, ``loss_split``, ``pair_placement``,
``point_errors``, ``abs_interval``, ``model_error``) has unit tests in
``tests/bench/test_model_bed.py``.
"""

from __future__ import annotations

import math
import statistics
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from twinplane.bench import ndn_bed as NB
from twinplane.bench import paired
from twinplane.model import calib, smc, theory
from twinplane.model.sim import Pipeline

CAL_RATE = 3.6e6  # Interests/s: a calibration's trial, at or over every capacity here
BURST = 32  # the generator's TX bursts and the forwarder's RX polls
PRODUCER_DELAY = 2000.0  # ns, Interest out to its Data in (the generator's loop): assumed
MODEL_MAX_INTERESTS = 400_000  # a modelled trial's Interests, at most
NUMA_CROSS_NS = 100.0  # assumed: a forwarding stage's extra time per NUMA crossing
FIG_QUEUES = (64, 128, 256, 512, 1024, 2048, 4096)
FIG_INTERVALS = (500.0, 700.0, 200.0)  # ns: seed 002's two, and one that needs lcores
QUEUE_SLOTS = 1024  # the two-lcore beds' forwarding queues
SUMMARY = ("offered", "satisfaction", "busy_ratio", "placement", "xcpu_rtt_ns")


def calibrate(bed: NB.Bed, stream: str, rate: float, seconds: float, factors: dict) -> dict:
    """A trial at ``rate`` with the model's sampler reading the forwarder's telemetry
    while it runs (from 0.3 s after its start, for ``seconds``): the sample set
    (calib.collect) with the trial's summary under ``trial``."""
    assert bed.daemon is not None
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["trial"] = bed.trial(stream, rate, seconds + 0.6)
        except Exception as e:  # noqa: BLE001 - kept with the set
            box["error"] = str(e)

    th = threading.Thread(target=run)
    th.start()
    time.sleep(0.3)
    s = calib.collect(bed.daemon.client, seconds, every=16, factors=factors)
    th.join()
    s["trial"] = {k: box.get("trial", {}).get(k) for k in SUMMARY}
    if "error" in box:
        s["trial_error"] = box["error"]
    return s


def validation_pair(
    bed: NB.Bed, stream: str, factors: dict, rate: float, trial_s: float, cal_s: float
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A calibration at CAL_RATE for ``cal_s`` seconds, then the trial at ``rate``:
    (the calibration's sample set, the trial with both placements and the pair's)."""
    cal = calibrate(bed, stream, CAL_RATE, cal_s, {**factors, "rate": CAL_RATE})
    t = bed.trial(stream, rate, trial_s)
    t["cal_placement"] = cal["trial"].get("placement")
    t["pair_placement"] = pair_placement(t["cal_placement"], t.get("placement"))
    return cal, t


def achieved_rate(t: dict[str, Any]) -> float:
    """The rate the generator achieved (offered / elapsed; it falls short near its
    own ceiling), at most the asked rate."""
    eff = t["offered"] / t["elapsed_s"] if t.get("elapsed_s") else 0.0
    return min(t["rate_pps"], eff) if eff > 0 else t["rate_pps"]


def rtc_model(cal: dict[str, Any], queue: int, rate: float, seconds: float) -> Pipeline:
    """One lcore running every stage; its queues the rings it polls (Interests from
    the consumer's port, Data from the producer's), polled BURST at a time by turns;
    Interests in the generator's bursts of BURST at ``rate``; service times from
    the calibration (calib.service_dists)."""
    return Pipeline(
        interval=1e9 / rate,
        rtc=True,
        n_fwd=1,
        q_interest=queue,
        q_data=queue,
        poll_burst=BURST,
        arrival_burst=BURST,
        producer_delay=PRODUCER_DELAY,
        n_interests=int(min(MODEL_MAX_INTERESTS, rate * seconds)),
        warmup=0,
        **calib.service_dists(cal),
    )


def predict(model: Pipeline, runs: int, seed: int) -> dict[str, float]:
    """The model's satisfaction: the mean of ``runs`` runs and its 95 % half-width."""
    res, _ = smc.simulate(model, runs, seed)
    sat = res["satisfaction"]
    half = 1.96 * float(sat.std(ddof=1)) / math.sqrt(len(sat)) if len(sat) > 1 else 0.0
    return {"satisfaction": float(sat.mean()), "ci95": half}


def pipeline_model(cal: dict[str, Any], rate: float, n_fwd: int, q: int, **kw: Any) -> Pipeline:
    """NDN-DPDK's pipeline (the seed's figures): an input lcore (decode, NDT), n
    forwarding lcores with their queues; a queue's worth of warm-up first."""
    warm = kw.pop("warmup", 10 * q + 4000)
    return Pipeline(
        interval=1e9 / rate,
        n_fwd=n_fwd,
        poll_burst=BURST,
        q_interest=q,
        q_data=q,
        q_input=4096,
        producer_delay=PRODUCER_DELAY,
        n_interests=warm + kw.pop("counted", 20000),
        warmup=warm,
        **calib.service_dists(cal),
        **kw,
    )


def smc_satisfaction(model: Pipeline, eps: float, seed: int) -> float:
    """Mean satisfaction within ``eps`` at 95 % (Chernoff-Hoeffding)."""
    return smc.estimate(model, "satisfaction", eps, 0.05, seed=seed).value


def predicted_capacity(cal: dict[str, Any]) -> float:
    """Interests/s one lcore serves running every stage: 1 / (an exchange's mean
    service: both packets' input and forwarding stages)."""
    d = calib.service_dists(cal)
    return 1e9 / sum(d[k].mean() for k in ("in_i", "in_d", "fwd_i", "fwd_d") if k in d)


def queue_side(workdir: Path, tsc: float, shared: bool, rates: tuple, trial_s: float) -> list:
    """A fresh bed of two lcores on the forwarder's CPU, an input lcore and a
    forwarding lcore (back-off on), whose forwarding queues are QUEUE_SLOTS each,
    per packet type or ``shared`` (one ring, the seed's NDN-DPDK): a trial of 3
    components per rate, each with its rings' drops and its loss split (loss_split)."""
    words = f"interest-queue {QUEUE_SLOTS} data-queue {QUEUE_SLOTS}"
    words += " queues shared" if shared else ""
    bed = NB.Bed(0, workdir, tsc, ndn_enable=words, lcores=("input", "forwarding"))
    try:
        bed.start()
        bed.set_mode("ndn")
        s = bed.ndn_stream(3)
        bed.wait_path(s)
        bed.trial(s, 300_000, 0.3, probe=False)  # the CS full
        out = []
        for rate in rates:
            d0 = ring_drops(bed)
            t = bed.trial(s, rate, trial_s)
            d1 = ring_drops(bed)
            t["ring_drops"] = {k: v - d0.get(k, 0) for k, v in d1.items()}
            if not out:
                t["setup"] = bed.setup
            out.append({**t, **loss_split(t)})
        return out
    finally:
        bed.close()


def ring_drops(bed: NB.Bed) -> dict[str, int]:
    rs = bed.dut_cmd("show", "rings")["rings"]
    return {r["name"]: int(r["dropped_full"]) for r in rs if r["name"].startswith("ndn-")}


def fit_row(s: dict[str, Any]) -> dict[str, Any]:
    """A calibration's fits (calib.fits), busy and timed ns per packet, the scale,
    how each stage is simulated and the capacity the model predicts."""
    return {"fits": {k: f.to_dict() for k, f in calib.fits(s).items()},
            "busy_ns": s.get("busy_ns_per_packet"), "timed_ns": s.get("timed_ns_per_packet"),
            "scale": calib.scale_of(s), "capacity": predicted_capacity(s),
            "simulated_as": {k: d.kind for k, d in calib.service_dists(s).items()}}  # fmt: skip


def seed_figures(cal: dict[int, dict], rates: tuple, eps: float) -> dict[str, Any]:
    """Seed 002's figures, model only (this machine has two CPUs and one NUMA node),
    from a calibration per name length (``cal``; 3 among them): satisfaction
    against the queue capacity at ``rates`` (one lcore, Fig. 17a), against 1-8
    forwarding lcores at 2.5x one lcore's capacity (17b), against lcores per name
    length, interval and placement P1-P4 (Fig. 23, epsilon 2 x ``eps``), and
    separate against shared queues over the capacity."""
    c3, sat = cal[3], smc_satisfaction
    fq = {f"{r:.0f}": [sat(rtc_model(c3, q, r, 1.0).with_(
        n_interests=10 * q + 24000, warmup=10 * q + 4000), eps, q + i) for q in FIG_QUEUES]
        for i, r in enumerate(rates)}  # fmt: skip
    b_rate = round(2.5 * predicted_capacity(c3), -3)
    fl = {str(q): [sat(pipeline_model(c3, b_rate, n, q), eps, 7 * n + q) for n in range(1, 9)]
          for q in (64, 4096)}  # fmt: skip
    fp = {f"{c}/{iv:.0f}/P{pl}": [sat(pipeline_model(
        cal[c], 1e9 / iv, n, 4096, placement=pl, numa_cross=NUMA_CROSS_NS, counted=10000,
        warmup=12000), 2 * eps, n + 10 * pl + 100 * c) for n in range(1, 9)]
        for c in cal for iv in FIG_INTERVALS for pl in (1, 2, 3, 4)}  # fmt: skip
    d = calib.service_dists(c3)
    fast = round(1.3e9 / (d["fwd_i"].mean() + d["fwd_d"].mean()), -3)
    fs = {m: [sat(pipeline_model(c3, fast, 1, q, queues=m), eps, q + 3) for q in FIG_QUEUES]
          for m in ("separate", "shared")}  # fmt: skip
    return {"queue": fq, "lcores": {"rate": b_rate, "model": fl}, "placement": fp,
            "shared_vs_separate": {"rate": fast, "model": fs}}  # fmt: skip


def theory_grid(eps: float, loads: tuple, ks: tuple, cs: tuple = (2, 4)) -> dict[str, Any]:
    """SMC loss estimates (epsilon ``eps``, delta 0.05) against the closed forms:
    M/M/1/K and M/D/1/K, and M/M/c/K (c lcores sharing one queue); and Storm on
    M/M/1/K's CTMC against its closed form."""
    rows = []
    for kind in ("mm1k", "md1k", "mmck"):
        for c in cs if kind == "mmck" else (1,):
            for k in ks:
                kk = k + c - 1 if kind == "mmck" else k  # at least c places
                for rho in loads:
                    m, closed = theory.queue_model(kind, rho, kk, c, 100.0)
                    e = smc.estimate(m, "loss", eps, 0.05, seed=1 + len(rows))
                    rows.append({"kind": kind, "c": c, "K": kk, "load": rho, "runs": e.runs,
                                 "closed_form": closed, "smc": e.value,
                                 "abs_error": abs(e.value - closed)})  # fmt: skip
    storm = [
        {"load": rho, "K": k, "storm": theory.mm1k_loss_storm(rho / 100, 0.01, k),
         "closed_form": theory.mm1k_loss(rho / 100, 0.01, k)}
        for rho in (0.6, 1.0, 1.4) for k in (5, 12)
    ]  # fmt: skip
    return {"epsilon": eps, "delta": 0.05, "rows": rows, "storm": storm,
            "max_abs_error": max(r["abs_error"] for r in rows),
            "within_epsilon": sum(r["abs_error"] <= eps for r in rows),
            "storm_max_abs_diff": max(abs(s["storm"] - s["closed_form"]) for s in storm),
            }  # fmt: skip


def sim_speed(model: Pipeline, reps: int) -> list[float]:
    """Events per second of the simulator in this process (one core), ``reps`` times."""
    out = []
    for i in range(reps):
        t0 = time.perf_counter()
        _, ev = model.run(8, seed=100 + i)
        out.append(ev / (time.perf_counter() - t0))
    return out


def trim_samples(s: dict[str, Any], keep: int) -> dict[str, Any]:
    """A sample set for the JSON: each stage's sample count, and ``keep`` of its
    samples (a fixed random choice)."""
    st = s.get("stages", {})
    rng = np.random.default_rng(5)
    pick = {
        k: v if len(v) <= keep else [v[i] for i in sorted(rng.choice(len(v), keep, False))]
        for k, v in st.items()
    }
    return {**s, "samples": {k: len(v) for k, v in st.items()}, "stages": pick}


# --------------------------------------------------------------------------
# judging: pure functions of recorded trials


def loss_split(t: dict[str, Any]) -> dict[str, float]:
    """Where a trial's unsatisfied Interests were lost, as shares of those offered:
    before the producer (offered - the producer's Interests) and after it, as
    Data (the producer's Data - Data received)."""
    off, got = t["offered"], t.get("satisfied", 0)
    prod = (t.get("producer") or {}).get("rx_interests", 0)
    if not off:
        return {}
    return {"interests_lost_before_producer": (off - prod) / off,
            "data_lost_after_producer": (prod - got) / off}  # fmt: skip


def pair_placement(cal: str | None, trial: str | None) -> str:
    """A validation pair's placement: its calibration's and its trial's probes'
    when they agree, ``mixed`` when the host moved the vCPUs between the two
    (the model is then calibrated in another placement than it predicts),
    ``none`` without a probe."""
    if cal is None or trial is None:
        return "none"
    return trial if cal == trial else "mixed"


def point_errors(trials: list[dict[str, Any]], key: str | None = None) -> list[dict[str, Any]]:
    """The validation points (queue, comps, rate_pps) of ``trials`` that have a
    ``measured`` and a ``model`` satisfaction (fractions); with ``key``, one point
    per value of that field too (e.g. ``pair_placement``). A point's ``error``
    (percentage points) is the absolute value of the median over its trials of
    100 x (model - measured): the model's bias there, paired per trial."""
    by: dict[tuple, list[dict[str, Any]]] = {}
    for t in trials:
        if t.get("measured") is None or t.get("model") is None:
            continue
        k = (t["queue"], t["comps"], t["rate_pps"], t.get(key) if key else None)
        by.setdefault(k, []).append(t)
    out = []
    for (q, c, r, kv), ts in sorted(by.items(), key=lambda kv: tuple(map(str, kv[0]))):
        diffs = [100 * (t["model"] - t["measured"]) for t in ts]
        med = statistics.median(diffs)
        out.append({"queue": q, "comps": c, "rate_pps": r, **({key: kv} if key else {}),
                    "error": abs(med), "signed_median": med, "diffs": diffs,
                    "measured": statistics.median(t["measured"] for t in ts),
                    "model": statistics.median(t["model"] for t in ts)})  # fmt: skip
    return out


def abs_interval(values: list[float]) -> list[float]:
    """The bootstrap 95 % interval of the median of ``values``, as an interval of
    its absolute value (from 0 when the signed interval holds 0)."""
    lo, hi = paired.bootstrap_median_ci(values)
    if lo <= 0 <= hi:
        return [0.0, max(-lo, hi)]
    return sorted([abs(lo), abs(hi)])


def model_error(trials: list[dict[str, Any]], bound: float) -> dict[str, Any]:
    """The headline ``model_error_points``: the largest point error (point_errors)
    over every validation point, with the bootstrap interval of that worst point's
    median, how many points are within ``bound``; and the same by pair placement
    (each placement's trials make its own points)."""

    def worst(points: list[dict[str, Any]]) -> dict[str, Any]:
        if not points:
            return {"value": None, "ci95": None, "points": 0, "within": 0, "worst": None}
        w = max(points, key=lambda p: p["error"])
        return {"value": w["error"], "ci95": abs_interval(w["diffs"]), "points": len(points),
                "within": sum(p["error"] <= bound for p in points),
                "worst": {k: w[k] for k in ("queue", "comps", "rate_pps", "measured", "model")},
                }  # fmt: skip

    by: dict[str, list[dict[str, Any]]] = {}
    for p in point_errors(trials, "pair_placement"):
        by.setdefault(p["pair_placement"], []).append(p)
    head = worst(point_errors(trials))
    n = sum(1 for t in trials if t.get("model") is not None and t.get("measured") is not None)
    return {**head, "unit": "points", "trials": n,
            "by_placement": {pl: worst(ps) for pl, ps in sorted(by.items())},
            "definition": "largest over the validation points (queue x name length x rate) of "
            "|median over the point's trials of (model - measured satisfaction)|, in "
            "percentage points; each trial modelled from its own calibration"}  # fmt: skip

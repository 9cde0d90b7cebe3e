# SPDX-License-Identifier: BSD-3-Clause
"""``python -m twinplane.model`` (also ``twinplane-model``): the performance model's
command line.

    calibrate  samples from a running forwarder (--socket) or a file (--from):
               fits per stage (with plots), main effects, a calibration JSON
    simulate   runs of one pipeline configuration: satisfaction, drops, RTT
    smc        an SMC estimate (Chernoff-Hoeffding) or Wald's SPRT of a property
    theory     a queue's loss probability: closed form, Storm, and the simulator
    plan       the fewest forwarding lcores, then the smallest queue, meeting a
               satisfaction target at a rate and name length, with its confidence

Every command prints JSON on stdout; errors go to stderr with exit status 2."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from twinplane.model import calib, smc, theory
from twinplane.model.sim import Dist, Pipeline, SimError

DEFAULT_QUEUES = (64, 128, 256, 512, 1024, 2048, 4096)


def _dist(text: str) -> Dist:
    """KIND:shape,loc,scale | const:NS | expon:MEAN"""
    kind, _, rest = text.partition(":")
    try:
        nums = [float(x) for x in rest.split(",")] if rest else []
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"{text!r}: numbers after the kind") from e
    try:
        if kind == "const" and len(nums) == 1:
            return Dist.const(nums[0])
        if kind == "expon" and len(nums) == 1:
            return Dist.expon(nums[0])
        if kind == "norm" and len(nums) == 2:
            return Dist("norm", 0, nums[0], nums[1])
        if kind in ("lognorm", "gamma", "weibull_min", "boxcox") and len(nums) == 3:
            return Dist(kind, *nums)
    except SimError as e:
        raise argparse.ArgumentTypeError(str(e)) from e
    raise argparse.ArgumentTypeError(
        f"{text!r}: const:NS, expon:MEAN, norm:LOC,SCALE or "
        "lognorm|gamma|weibull_min|boxcox:SHAPE,LOC,SCALE"
    )


def _pipeline_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("pipeline (times in ns)")
    g.add_argument("--calibration", type=Path, help="a calibration JSON (from calibrate)")
    g.add_argument("--name-length", type=int, default=3, help="the calibration set's comps")
    g.add_argument("--fwd-interest", type=_dist, help="forwarding an Interest (e.g. expon:300)")
    g.add_argument("--fwd-data", type=_dist, help="forwarding a Data")
    g.add_argument("--input", type=_dist, help="the input stage, per packet")
    g.add_argument("--rate", type=float, help="Interests/s (or --interval)")
    g.add_argument("--interval", type=float, help="ns between Interests")
    g.add_argument("--poisson", action="store_true", help="exponential intervals")
    g.add_argument("--lcores", type=int, default=1, help="forwarding lcores")
    g.add_argument("--queue", type=int, default=4096, help="each queue's capacity")
    g.add_argument("--shared-queue", action="store_true", help="one FIFO for both types")
    g.add_argument("--pool", action="store_true", help="one queue served by all lcores")
    g.add_argument("--rtc", action="store_true", help="one lcore runs every stage")
    g.add_argument("--placement", type=int, default=1, choices=(1, 2, 3, 4))
    g.add_argument("--numa-cross", type=float, default=0.0, help="ns per NUMA crossing")
    g.add_argument("--producer-delay", type=float, default=2000.0)
    g.add_argument("--interest-only", action="store_true", help="no producer")
    g.add_argument("--interests", type=int, default=20000, help="per run, warm-up included")
    g.add_argument("--warmup", type=int, default=2000)


def calibration_set(path: Path, comps: int) -> dict[str, Any]:
    """The calibration file's sample set for a name length (the nearest one)."""
    doc = json.loads(path.read_text())
    sets = doc.get("sets") if isinstance(doc, dict) else None
    if not sets:
        raise ValueError(f"{path}: no 'sets' (write one with 'calibrate --out')")
    return min(sets, key=lambda s: abs(int(s.get("factors", {}).get("comps", 0)) - comps))


def build_pipeline(a: argparse.Namespace) -> Pipeline:
    kw: dict[str, Any] = {}
    if a.calibration:
        s = calibration_set(a.calibration, a.name_length)
        if "dists" in s:
            kw.update({k: Dist.from_dict(v) for k, v in s["dists"].items()})
        else:
            kw.update(calib.service_dists(s))
    if a.fwd_interest:
        kw["fwd_i"] = a.fwd_interest
    if a.fwd_data:
        kw["fwd_d"] = a.fwd_data
    if a.input:
        kw["in_i"] = kw["in_d"] = a.input
    if "fwd_i" not in kw:
        raise ValueError("no service times: give --calibration or --fwd-interest/--fwd-data")
    if a.interval:
        interval = a.interval
    elif a.rate:
        interval = 1e9 / a.rate
    else:
        raise ValueError("give --rate or --interval")
    return Pipeline(
        interval=interval,
        poisson=a.poisson,
        n_fwd=a.lcores,
        dispatch="pool" if a.pool else "ndt",
        queues="shared" if a.shared_queue else "separate",
        q_interest=a.queue,
        q_data=a.queue,
        rtc=a.rtc,
        placement=a.placement,
        numa_cross=a.numa_cross,
        producer_delay=a.producer_delay,
        interest_only=a.interest_only,
        n_interests=a.interests,
        warmup=a.warmup,
        **kw,
    )


def cmd_simulate(a: argparse.Namespace) -> dict[str, Any]:
    m = build_pipeline(a)
    runs, events = smc.simulate(m, a.runs, a.seed)
    return {
        "runs": a.runs,
        "events": events,
        "satisfaction_mean": float(runs["satisfaction"].mean()),
        "satisfaction_min": float(runs["satisfaction"].min()),
        "drops_per_run": {
            k: float(runs[k].mean())
            for k in ("drop_input", "drop_fwd_interest", "drop_fwd_data", "drop_output")
        },
        "rtt_mean_ns": float(runs["rtt_mean"].mean()),
        "fwd_busy": float(runs["fwd_busy"].mean()),
    }


def cmd_smc(a: argparse.Namespace) -> dict[str, Any]:
    m = build_pipeline(a)
    if a.sprt is not None:
        return smc.sprt(
            m, a.sprt, a.prop, s=a.s, alpha=a.delta, beta=a.delta, seed=a.seed
        ).to_dict()
    return smc.estimate(m, a.prop, a.epsilon, a.delta, s=a.s, seed=a.seed).to_dict()


def cmd_theory(a: argparse.Namespace) -> dict[str, Any]:
    kind = a.kind
    m, closed = theory.queue_model(
        kind, a.load, a.capacity, a.servers, a.service, a.interests, a.warmup
    )
    est = smc.estimate(m, "loss", a.epsilon, a.delta, seed=a.seed)
    out = {"kind": kind, "load": a.load, "K": a.capacity, "closed_form": closed}
    out["smc"] = est.to_dict()
    out["abs_error"] = abs(est.value - closed)
    out["within_epsilon"] = out["abs_error"] <= a.epsilon
    if kind == "mm1k" and a.storm:
        out["storm"] = theory.mm1k_loss_storm(a.load / a.service, 1 / a.service, a.capacity)
    return out


def cmd_calibrate(a: argparse.Namespace) -> dict[str, Any]:
    from twinplane.model.fit import plot_fit

    if a.from_file:
        sets = calib.load(a.from_file)
    else:
        from twinplane.api import Client

        factors = {"comps": a.name_length, "rate": a.rate, "payload": a.payload}
        sets = [calib.collect(Client(a.socket), a.seconds, a.every, factors=factors)]
    out_sets = []
    for s in sets:
        fits = calib.fits(s)
        entry = {k: v for k, v in s.items() if k != "stages"}
        entry["samples"] = {k: len(v) for k, v in s["stages"].items()}
        entry["fits"] = {k: f.to_dict() for k, f in fits.items()}
        entry["dists"] = {k: d.to_dict() for k, d in calib.service_dists(s).items()}
        if a.plots:
            a.plots.mkdir(parents=True, exist_ok=True)
            tag = "-".join(f"{k}{v}" for k, v in sorted(s.get("factors", {}).items()))
            for st, f in fits.items():
                png = a.plots / f"fit-{st}-{tag or 'set'}.png"
                plot_fit(s["stages"][st], f, png, f"{st} stage, {tag}")
                entry["fits"][st]["plot"] = str(png)
        out_sets.append(entry)
    doc = {
        "sets": out_sets,
        "main_effects": {st: calib.main_effects(sets, st) for st in ("input", "interest", "data")},
    }
    if a.out:
        a.out.write_text(json.dumps(doc, indent=1))
    return doc


def cmd_plan(a: argparse.Namespace) -> dict[str, Any]:
    if a.socket:
        from twinplane.api import Client

        factors = {"comps": a.name_length, "rate": a.rate}
        s = calib.collect(Client(a.socket), a.seconds, factors=factors)
        dists = calib.service_dists(s)
        source = f"live forwarder at {a.socket} ({a.seconds} s of samples)"
    elif a.calibration:
        s = calibration_set(a.calibration, a.name_length)
        dists = (
            {k: Dist.from_dict(v) for k, v in s["dists"].items()}
            if "dists" in s
            else calib.service_dists(s)
        )
        source = f"{a.calibration} (set of {s.get('factors', {}).get('comps')} components)"
    else:
        raise ValueError("plan: give --calibration FILE or --socket PATH (a running forwarder)")
    queues = sorted(a.queues)
    tried = []
    for n in range(1, a.max_lcores + 1):
        for q in queues:
            m = Pipeline(
                interval=1e9 / a.rate,
                poisson=a.poisson,
                n_fwd=n,
                q_interest=q,
                q_data=q,
                producer_delay=a.producer_delay,
                n_interests=a.interests,
                warmup=a.warmup,
                **dists,
            )
            t = smc.sprt(
                m,
                a.confidence,
                "satisfaction_at_least",
                s=a.target,
                indifference=a.indifference,
                alpha=1 - a.confidence,
                beta=1 - a.confidence,
                seed=a.seed + n * 100 + q,
            )
            tried.append({"lcores": n, "queue": q, **t.to_dict()})
            if t.accepted and t.decided:
                est = smc.estimate(m, "satisfaction", a.epsilon, 1 - a.confidence, seed=a.seed)
                return {
                    "answer": {"forwarding_lcores": n, "queue_capacity": q},
                    "question": {
                        "rate": a.rate,
                        "name_length": a.name_length,
                        "target": a.target,
                        "confidence": a.confidence,
                    },
                    "meaning": (
                        f"with {n} forwarding lcore(s) and queues of {q}, a run of "
                        f"{a.interests - a.warmup} Interests is satisfied at >= {a.target} with "
                        f"probability >= {a.confidence} (SPRT, indifference {a.indifference}, "
                        f"errors {1 - a.confidence:.3g})"
                    ),
                    "satisfaction": est.to_dict(),
                    "calibration": source,
                    "tried": tried,
                }
    return {"answer": None, "calibration": source, "tried": tried}


def _simulate_parser(sub: Any) -> None:
    p = sub.add_parser("simulate", help="runs of one configuration")
    _pipeline_args(p)
    p.add_argument("--runs", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(fn=cmd_simulate)


def _smc_parser(sub: Any) -> None:
    p = sub.add_parser("smc", help="estimate a property, or test it (--sprt THETA)")
    _pipeline_args(p)
    p.add_argument("--prop", default="all_satisfied", choices=smc.PROPERTIES)
    p.add_argument("--s", type=float, default=1.0, help="satisfaction_at_least's rate")
    p.add_argument("--epsilon", type=float, default=0.01)
    p.add_argument("--delta", type=float, default=0.05)
    p.add_argument("--sprt", type=float, help="test P(prop) >= THETA instead")
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(fn=cmd_smc)


def _theory_parser(sub: Any) -> None:
    p = sub.add_parser("theory", help="closed form vs the simulator")
    p.add_argument("kind", choices=("mm1k", "md1k", "mmck"))
    p.add_argument("--load", type=float, required=True, help="lambda / (c mu)")
    p.add_argument("--capacity", type=int, required=True, help="K: waiting room + servers")
    p.add_argument("--servers", type=int, default=2, help="c (mmck)")
    p.add_argument("--service", type=float, default=100.0, help="mean service (ns)")
    p.add_argument("--epsilon", type=float, default=0.01)
    p.add_argument("--delta", type=float, default=0.05)
    p.add_argument("--interests", type=int, default=600)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--storm", action="store_true", help="also solve the CTMC with Storm")
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(fn=cmd_theory)


def _calibrate_parser(sub: Any) -> None:
    p = sub.add_parser("calibrate", help="samples -> fits, main effects, calibration JSON")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--socket", help="a running twinplane's API socket (traffic running)")
    src.add_argument("--from", dest="from_file", type=Path, help="sample sets (JSON)")
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--every", type=int, default=16, help="time 1 packet in N")
    p.add_argument("--name-length", type=int, default=3, help="the factor, for the record")
    p.add_argument("--rate", type=float, help="the factor, for the record")
    p.add_argument("--payload", type=int, help="the factor, for the record")
    p.add_argument("--out", type=Path, help="write the calibration JSON")
    p.add_argument("--plots", type=Path, help="a directory for the fit plots")
    p.set_defaults(fn=cmd_calibrate)


def _plan_parser(sub: Any) -> None:
    p = sub.add_parser("plan", help="lcores and queue capacity for a rate")
    p.add_argument("--rate", type=float, required=True, help="Interests/s")
    p.add_argument("--name-length", type=int, default=3)
    p.add_argument("--target", type=float, default=0.99, help="satisfaction rate per run")
    p.add_argument("--confidence", type=float, default=0.95)
    p.add_argument("--indifference", type=float, default=0.02)
    p.add_argument("--epsilon", type=float, default=0.01)
    p.add_argument("--calibration", type=Path)
    p.add_argument("--socket", help="calibrate now from this running forwarder")
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--max-lcores", type=int, default=8)
    p.add_argument(
        "--queues", type=lambda t: [int(x) for x in t.split(",")], default=list(DEFAULT_QUEUES)
    )
    p.add_argument("--poisson", action="store_true")
    p.add_argument("--producer-delay", type=float, default=2000.0)
    p.add_argument("--interests", type=int, default=20000)
    p.add_argument("--warmup", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(fn=cmd_plan)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="twinplane-model", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for add in (_simulate_parser, _smc_parser, _theory_parser, _calibrate_parser, _plan_parser):
        add(sub)

    a = ap.parse_args(argv)
    try:
        out = a.fn(a)
    except (ValueError, SimError, OSError) as e:
        print(f"twinplane-model {a.cmd}: {e}", file=sys.stderr)
        return 2
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

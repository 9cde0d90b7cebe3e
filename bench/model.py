#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The performance model (issue 11, rewritten for issue 34): its prediction of the
NDN forwarder's Interest satisfaction against the measurement, trial by trial; the
forwarder's separate against shared queues (paired); the simulator against queueing
theory, its speed; seed 002's figures (model). Beds: ``twinplane.bench.ndn_bed``'s,
one per memif ring size; the rest is ``twinplane.bench.model_bed``. Every
measurement runs before any model computation. How and why: docs/bench/model.md.

Usage (root; takes the lab lock itself):
    .venv/bin/python bench/model.py --quick --out /tmp/model-quick   # ~7 min
    .venv/bin/python bench/model.py                                  # ~30-35 min
"""

from __future__ import annotations

import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from twinplane.bench import ensure_venv

ensure_venv(ROOT)

from twinplane.bench import duts as D
from twinplane.bench import model_bed as MB
from twinplane.bench import ndn_bed as NB
from twinplane.bench import paired, report, stale
from twinplane.model import calib

RINGS, QUICK_RINGS = (12, 10, 8), (12, 8)  # log2 of the memif rings: the queue capacities
COMPS = (3, 7, 13)
RATES = (1.0e6, 1.8e6, 2.4e6, 2.8e6, 3.2e6, 3.6e6)  # Interests/s (the generator: ~4 M)
BED_CAL_RATES = (0.5e6, MB.CAL_RATE)  # a bed's calibrations per name length (fits, effects)
BAR_POINTS = 5.0  # issue 11/34: model error <= 5 percentage points
BAR_EVENTS = 5e6  # issue 11: simulator events per second on one core
QUEUE_RATES = (0.6e6, 1.0e6, 1.6e6)  # Interests/s: the two-lcore beds' trials
QUEUE_HEAD = 1.0e6  # the rate of the paired comparison


def build(ap: Any) -> None:
    ap.add_argument("--rings", help="log2 ring sizes, 12 first (12,10,8; --quick 12,8)")
    ap.add_argument("--comps", help="name lengths, 3 first (3,7,13)")
    ap.add_argument("--reps", type=int, help="validation pairs per point (3; --quick 1)")
    ap.add_argument("--trial-seconds", type=float, default=1.0, help="a validation trial (1)")
    ap.add_argument("--cal-seconds", type=float, default=0.8,
                    help="a pair's calibration: telemetry read for (0.8)")  # fmt: skip
    ap.add_argument("--model-runs", type=int, help="model runs per trial (16; --quick 8)")
    ap.add_argument("--epsilon", type=float, help="theory grid's SMC epsilon (0.01; 0.02)")
    ap.add_argument("--fig-eps", type=float, help="seed figures' SMC epsilon (0.05; 0.2)")


def options(a: Any) -> None:
    a.rings = [int(x) for x in a.rings.split(",")] if a.rings else list(
        QUICK_RINGS if a.quick else RINGS)  # fmt: skip
    a.comps = [int(x) for x in a.comps.split(",")] if a.comps else list(COMPS)
    if a.rings[0] != 12 or a.comps[0] != 3:
        raise SystemExit("--rings must start with 12 and --comps with 3 (the figures' bed)")
    a.reps = a.reps or (1 if a.quick else 3)
    a.model_runs = a.model_runs or (8 if a.quick else 16)
    a.epsilon = a.epsilon or (0.02 if a.quick else 0.01)
    a.fig_eps = a.fig_eps or (0.2 if a.quick else 0.05)
    a.bed_cal_seconds = 1.0 if a.quick else 2.0
    a.theory_loads = (0.5, 0.9, 1.3) if a.quick else (0.5, 0.7, 0.9, 1.0, 1.1, 1.3)
    a.theory_k = (1, 4, 12) if a.quick else (1, 2, 4, 8, 12)
    a.speed_reps = 3 if a.quick else 5


def rules(a: Any, pairs: int) -> dict[str, Any]:
    return {
        "comparisons": "validation: prediction against measurement, pair by pair (no ABBA); "
        f"queues: separate (A) against shared (B), ABBA, {pairs} pairs, a fresh bed per side",
        "validation pair": f"a calibration ({a.cal_seconds:g} s of telemetry, 1 packet in 16, "
        f"during a trial at {MB.CAL_RATE / 1e6:g} M/s), then the trial it predicts "
        f"({a.trial_seconds:g} s + 0.2 s drain); none measured again, none left out",
        "measured": "Data received / Interests offered (the ones the full ring refused lost)",
        "model": f"mean of {a.model_runs} runs: one lcore running every stage, the ring as its "
        f"queues, bursts of {MB.BURST} at the rate achieved (offered / elapsed), polls of "
        f"{MB.BURST}, service from the pair's calibration, producer {MB.PRODUCER_DELAY:g} ns "
        "(assumed)",
        "model_error_points": "max over points (queue x name length x rate) of |median over "
        "the point's pairs of 100 x (model - measured)|",
        "placement": "a pair's: its calibration's and trial's probes when they agree, else "
        "mixed; every figure also by placement",
        "search / sweep goal": "none: no load is judged pass or fail",
        "validation points": f"queues {', '.join(str(1 << r) for r in a.rings)} x name lengths "
        f"{', '.join(map(str, a.comps))} x {', '.join(f'{r / 1e6:g}' for r in RATES)} M/s; "
        f"{a.reps} pairs each",
        "queue beds": f"input and forwarding lcore on one CPU, queues {MB.QUEUE_SLOTS}; "
        f"{', '.join(f'{r / 1e6:g}' for r in QUEUE_RATES)} M/s, 3 components",
        "theory": f"SMC epsilon {a.epsilon:g}, delta 0.05; loads "
        f"{', '.join(map(str, a.theory_loads))}; K {', '.join(map(str, a.theory_k))}",
        "seed figures": f"SMC epsilon {a.fig_eps:g} (placements {2 * a.fig_eps:g}); NUMA "
        f"{MB.NUMA_CROSS_NS:g} ns per crossing, ASSUMED (one node here)",
    }


def measure(ctx: report.Context) -> report.Report:
    a = ctx.args
    options(a)
    rep = report.Report("model", rules(a, ctx.pairs))
    st: dict[str, Any] = {"cal": {}, "errors": []}
    for rsize in a.rings:
        run_bed(ctx, rep, st, rsize)
    queue_pairs(ctx, rep, st)
    os.sched_setaffinity(0, range(os.cpu_count() or 1))  # the model: every CPU
    model_side(a, rep, st)
    (ctx.workdir / "trials.json").write_text(json.dumps(rep.trials, default=str))  # kept
    summarize(a, rep, st)
    return rep


def run_bed(ctx: report.Context, rep: report.Report, st: dict, rsize: int) -> None:
    a, q = ctx.args, 1 << rsize
    if ctx.iso is not None:
        ctx.iso.sweep()
    D.ensure_hugepages(1024)
    print(f"bench/model.py: bed ring {q}", flush=True)
    bed = NB.Bed(0, ctx.workdir, ctx.tsc_hz, rsize=rsize)
    try:
        bed.start()
        rep.extra.setdefault("setup", bed.setup)
        bed.set_mode("ndn")
        fac = {"payload": 0, "lcores": 1, "queue": q}
        for comps in a.comps:
            s = bed.ndn_stream(comps)
            bed.wait_path(s)
            bed.trial(s, 500_000, 0.3, probe=False)  # the CS full: each insert evicts
            cals = [MB.calibrate(bed, s, r, a.bed_cal_seconds, {**fac, "comps": comps, "rate": r})
                    for r in BED_CAL_RATES]  # fmt: skip
            st["cal"][(q, comps)] = cals
            rep.trials += [{"kind": "calibration", "queue": q, "comps": comps,
                            **MB.trim_samples(c, 2000)} for c in cals]  # fmt: skip
        for i in range(a.reps):  # interleaved: every point once per repetition
            for comps in a.comps:
                s, f = bed.ndn_stream(comps), {**fac, "comps": comps}
                for rate in RATES:
                    cal, t = MB.validation_pair(bed, s, f, rate, a.trial_seconds, a.cal_seconds)
                    rep.trials.append({"kind": "validation", "queue": q, "comps": comps,
                                       "rep": i, **t, "calibration": cal})  # fmt: skip
            print(f"  ring {q}: repetition {i + 1} of {a.reps}", flush=True)
    except Exception as e:  # noqa: BLE001 - the other beds still report
        st["errors"].append(f"ring {q}: {str(e).splitlines()[0]}")
        print(f"bench/model.py: ring {q}: ERROR {e}", flush=True)
    finally:
        bed.close()


def queue_pairs(ctx: report.Context, rep: report.Report, st: dict) -> None:
    """Separate per-type queues (A) against one shared queue (B), a fresh two-lcore
    bed per side, ABBA pairs; the ratio is B / A of the satisfaction at QUEUE_HEAD."""
    n = [0]  # sides run

    def side(shared: bool) -> float:
        if ctx.iso is not None:
            ctx.iso.sweep()
        ts = MB.queue_side(ctx.workdir, ctx.tsc_hz, shared, QUEUE_RATES, ctx.args.trial_seconds)
        mode, n[0] = "shared" if shared else "separate", n[0] + 1
        rep.trials += [{"kind": "queues", "queues": mode, "pair": (n[0] - 1) // 2, **t}
                       for t in ts]  # fmt: skip
        sat = next(t.get("satisfaction") or 0.0 for t in ts if t["rate_pps"] == QUEUE_HEAD)
        print(f"  queues pair {(n[0] + 1) // 2}: {mode} {100 * sat:.1f} %", flush=True)
        return sat

    print("bench/model.py: queue beds (separate, shared)", flush=True)
    try:
        st["queue_pairs"] = paired.run_pairs(ctx.pairs, lambda: side(False), lambda: side(True),
            lambda: D.placement((D.xcpu_probe() or {}).get("rtt_ns")) or "none")  # fmt: skip
    except Exception as e:  # noqa: BLE001 - the validation still reports
        st["errors"].append(f"queue beds: {str(e).splitlines()[0]}")


def model_side(a: Any, rep: report.Report, st: dict) -> None:
    """Each validation trial's prediction, the theory grid, the speed, the figures."""
    print("bench/model.py: the model", flush=True)
    for n, t in enumerate(x for x in rep.trials if x["kind"] == "validation"):
        t["measured"], t["rate_effective"] = t.get("satisfaction"), MB.achieved_rate(t)
        try:
            m = MB.rtc_model(t["calibration"], t["queue"], t["rate_effective"], a.trial_seconds)
            p = MB.predict(m, a.model_runs, seed=1 + n)
            t["model"], t["model_ci95"] = p["satisfaction"], p["ci95"]
        except ValueError as e:  # a calibration without samples: no prediction
            t["model"], t["model_failed"] = None, str(e)
        t["calibration"] = MB.trim_samples(t["calibration"], 300)
    st["theory"] = MB.theory_grid(a.epsilon, a.theory_loads, a.theory_k)
    cal = {c: sets[-1] for (q, c), sets in st["cal"].items() if q == 1 << a.rings[0]}
    try:  # the bed's calibrations: the speed, the figures, the fits (the pairs are kept)
        st["speed"] = MB.sim_speed(MB.rtc_model(cal[3], 4096, 1e6, 0.1), a.speed_reps)
        st["figures"] = MB.seed_figures(cal, RATES[-3:], a.fig_eps)
        sets = [s for ss in st["cal"].values() for s in ss]
        sets += [t["calibration"] for t in rep.trials if t["kind"] == "validation"]
        st["effects"] = {s: calib.main_effects([x for x in sets if x.get("stages")], s)
                         for s in ("input", "interest", "data")}  # fmt: skip
        st["fits"] = {c: MB.fit_row(s) for c, s in cal.items()}
    except (KeyError, ValueError) as e:
        st["errors"].append(f"the 4,096-slot bed's calibrations: {e!r}")


# --------------------------------------------------------------------------
# the report


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def summarize(a: Any, rep: report.Report, st: dict[str, Any]) -> None:
    val = [t for t in rep.trials if t["kind"] == "validation"]
    err = MB.model_error(val, BAR_POINTS)
    rep.add("model_error_points", err, report.Bar("<=", BAR_POINTS))
    th = st["theory"]
    rep.add("theory_max_abs_error", {"value": th["max_abs_error"], "unit": "",
            "definition": "largest |SMC - closed form| loss probability over the grid"},
            report.Bar("<=", a.epsilon))  # fmt: skip
    sp = st.get("speed") or []
    if sp:
        rep.add("sim_events_per_second", {"value": statistics.median(sp),
                "ci95": [min(sp), max(sp)], "unit": "events/s", "definition": "simulator "
                f"events per second on one core, median (min-max) of {len(sp)} runs"},
                report.Bar(">=", BAR_EVENTS))  # fmt: skip
    qp = st.get("queue_pairs") or []
    if qp:
        rep.add("satisfaction_shared_over_separate", paired.headline(qp, "satisfaction with "
                f"one shared queue / with separate queues, {QUEUE_HEAD / 1e6:g} M/s, two lcores "
                "on the forwarder's CPU, a fresh bed per side, paired ABBA"))  # fmt: skip
    rep.extra.update(theory=th, sim_speed=sp, errors=st["errors"], figures=st.get("figures"),
                     fits=st.get("fits"), main_effects=st.get("effects"),
                     queue_pairs=[p.to_json() for p in qp],
                     measured_paths=stale.DEFAULT_PATHS["model"])  # fmt: skip
    L = ["## Goals", ""]
    for k, b in rep.bar_results().items():
        word = {True: "met", False: "**NOT met**", None: "not decided"}[b["met"]]
        L.append(f"- `{k}` {b['goal']}: {word}.")
    w = err["worst"]
    if w:
        L += ["", f"Model error: {err['within']} of {err['points']} points within "
              f"{BAR_POINTS:g} points ({err['trials']} pairs); the worst is ring {w['queue']}, "
              f"{w['comps']} components, {w['rate_pps'] / 1e6:g} M/s: measured "
              f"{pct(w['measured'])} %, model {pct(w['model'])} % (medians over its pairs)."
              ]  # fmt: skip
    nf = sum(t.get("model") is None or t.get("measured") is None for t in val)
    L += [f"Pairs without a prediction or a measured satisfaction (no point): {nf}."]
    L += ["", "## Model error by placement (the pairs', both probes)", "",
          "| placement | points | within 5 | error (points) | worst point's 95 % interval |",
          "|---|---|---|---|---|"]  # fmt: skip
    for pl, v in err["by_placement"].items():
        ci = "-" if not v["ci95"] else f"{v['ci95'][0]:.2f}-{v['ci95'][1]:.2f}"
        e = "-" if v["value"] is None else f"{v['value']:.2f}"
        L.append(f"| {pl} | {v['points']} | {v['within']} | {e} | {ci} |")
    L += validation_md(val) + queues_md(rep) + calibration_md(st) + theory_md(st)
    L += figures_md(st)
    if st["errors"]:
        L += ["", "## Errors", ""] + [f"- {e}" for e in st["errors"]]
    L += ["", "## Set-up", "", "```", *rep.extra.get("setup", []), "```"]
    rep.markdown = "\n".join(L)
    rep.figure = lambda path: plot(val, st, path)


def validation_md(val: list[dict[str, Any]]) -> list[str]:
    L = ["", "## Validation points (one lcore)", "", "Satisfaction %, medians over the "
         "point's pairs; error = |median of (model - measured)| in points; placements: "
         "the pairs' (n, near, mid, far, mixed).", "",
         "| queue | comps | M/s | achieved | measured (min-max) | model | error | pairs |",
         "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    by_pl = {(p["queue"], p["comps"], p["rate_pps"]): p for p in MB.point_errors(val)}
    for (q, c, r), p in sorted(by_pl.items()):
        ts = [t for t in val if (t["queue"], t["comps"], t["rate_pps"]) == (q, c, r)]
        ms = [t["measured"] for t in ts if t.get("measured") is not None]
        ach = statistics.median(t["rate_effective"] for t in ts) / 1e6
        pls = ", ".join(sorted(t["pair_placement"] for t in ts))
        L.append(f"| {q} | {c} | {r / 1e6:g} | {ach:.3f} | {pct(p['measured'])} "
                 f"({pct(min(ms))}-{pct(max(ms))}) | {pct(p['model'])} | {p['error']:.2f} "
                 f"| {len(ts)}: {pls} |")  # fmt: skip
    return L


def queues_md(rep: report.Report) -> list[str]:
    h = rep.headline.get("satisfaction_shared_over_separate")
    keys = ("satisfaction", "interests_lost_before_producer", "data_lost_after_producer")
    L = ["", "## Separate against shared queues (the forwarder, two lcores on one CPU)", "",
         f"Paired: {report.headline_text(h) if h else 'none'}. Medians over every side's "
         "trial, % of the Interests offered:", "", "| queues | M/s | trials | satisfied | "
         "Interests lost before the producer | Data lost after it |", "|---" * 6 + "|"]  # fmt: skip
    for m in ("separate", "shared"):
        for r in QUEUE_RATES:
            ts = [t for t in rep.trials if (t["kind"], t.get("queues"), t.get("rate_pps")) ==
                  ("queues", m, r)]  # fmt: skip
            med = [statistics.median(t.get(k) or 0.0 for t in ts) if ts else None for k in keys]
            L.append(f"| {m} | {r / 1e6:g} | {len(ts)} | " + " | ".join(map(pct, med)) + " |")
    return L


def calibration_md(st: dict[str, Any]) -> list[str]:
    L = ["", "## Calibration (ring 4,096, the bed's trial at 3.6 M/s)", "",
         "| comps | stage | samples | fit | PPCC | KS p | busy ns/pkt | timed ns/pkt | scale | "
         "simulated as | capacity M/s |", "|---" * 11 + "|"]  # fmt: skip
    for c, r in sorted((st.get("fits") or {}).items()):
        for s, f in r["fits"].items():
            L.append(f"| {c} | {s} | {f['n']} | {f['family']} | {f['ppcc']:.4f} | "
                     f"{f['ks_p']:.2g} | {r['busy_ns'] or 0:.0f} | {r['timed_ns'] or 0:.0f} | "
                     f"{r['scale']:.3f} | {r['simulated_as'].get('fwd_i', '-')} | "
                     f"{r['capacity'] / 1e6:.3f} |")  # fmt: skip
    L += ["", "Main effects on each stage's mean (every calibration set), ANOVA p:", "",
          "| stage | factor | effect ns | share | p |", "|---|---|---|---|---|"]  # fmt: skip
    for s, me in (st.get("effects") or {}).items():
        an = me.get("anova", {}).get("factors", {})
        for k in me.get("ranked", []):
            f, p = me["factors"][k], an.get(k, {}).get("p", float("nan"))
            L.append(f"| {s} | {k} | {f['effect_ns']:.0f} | {100 * f['effect_share']:.0f} % "
                     f"| {p:.2g} |")  # fmt: skip
    return L


def theory_md(st: dict[str, Any]) -> list[str]:
    th = st["theory"]
    return ["", "## Theory", "", f"SMC loss (epsilon {th['epsilon']:g}, delta 0.05, "
         f"{th['rows'][0]['runs']:,} runs) against the closed forms: max |error| "
         f"{th['max_abs_error']:.4f}, {th['within_epsilon']} of {len(th['rows'])} within "
         f"epsilon. Storm (M/M/1/K CTMC) against the closed form: max "
         f"{th['storm_max_abs_diff']:.1e} (every row in model.json's theory)."]  # fmt: skip


def row(head: str, ys: list[float]) -> str:
    return f"| {head} | " + " | ".join(pct(y) for y in ys) + " |"


def figures_md(st: dict[str, Any]) -> list[str]:
    fg = st.get("figures")
    if not fg:
        return []
    n8 = " | ".join(map(str, range(1, 9)))
    L = ["", "## Seed 002's figures (model, satisfaction %)", "", "Against queue capacity "
         "(Fig. 17a; one lcore, 3 components):", "",
         "| M/s | " + " | ".join(map(str, MB.FIG_QUEUES)) + " |", "|---|" + "---|" * 7]  # fmt: skip
    L += [row(f"{float(r) / 1e6:g}", ys) for r, ys in fg["queue"].items()]
    L += ["", f"Against forwarding lcores (Fig. 17b; pipeline at "
          f"{fg['lcores']['rate'] / 1e6:.2f} M/s, 2.5x one lcore's capacity):", "",
          f"| queue | {n8} |", "|---|" + "---|" * 8]  # fmt: skip
    L += [row(q, ys) for q, ys in fg["lcores"]["model"].items()]
    L += ["", "Against lcores, name length, interval and placement P1-P4 (Fig. 23; queue "
          "4,096; NUMA penalty ASSUMED):", "", f"| comps/interval ns/placement | {n8} |",
          "|---|" + "---|" * 8]  # fmt: skip
    L += [row(k, ys) for k, ys in fg["placement"].items()]
    sv = fg["shared_vs_separate"]
    L += ["", f"Separate per-type queues against one shared queue (one forwarding lcore at "
          f"{sv['rate'] / 1e6:.2f} M/s):", "", "| queues | " + " | ".join(map(str, MB.FIG_QUEUES))
          + " |", "|---|" + "---|" * 7]  # fmt: skip
    L += [row(m, ys) for m, ys in sv["model"].items()]
    return L


def plot(val: list[dict[str, Any]], st: dict[str, Any], path: Path) -> None:
    plt = report.pyplot()
    fig, axs = plt.subplots(1, 3, figsize=(16, 4.8))
    ax = axs[0]
    for p in MB.point_errors(val, "pair_placement"):
        mk = {"near": "o", "mid": "s", "far": "^"}.get(p["pair_placement"], "x")
        col = {3: "C0", 7: "C1", 13: "C2"}.get(p["comps"], "C3")
        ax.scatter(100 * p["measured"], 100 * p["model"], marker=mk, s=16, color=col)
    ax.plot([0, 100], [0, 100], "k-", lw=0.6)
    ax.plot([5, 100], [0, 95], "k:", lw=0.6)
    ax.plot([0, 95], [5, 100], "k:", lw=0.6)
    ax.set(xlabel="measured satisfaction (%)", ylabel="model (%)",
           title="per point: o near, s mid, ^ far, x mixed; blue/orange/green 3/7/13")  # fmt: skip
    th = st["theory"]
    for kind, mk in (("mm1k", "o"), ("md1k", "s"), ("mmck", "^")):
        rs = [r for r in th["rows"] if r["kind"] == kind]
        axs[1].scatter([r["closed_form"] for r in rs], [r["smc"] for r in rs], marker=mk, s=14,
                       label=kind)  # fmt: skip
    axs[1].plot([0, 1], [0, 1], "k-", lw=0.6)
    axs[1].set(xlabel="closed-form loss", ylabel="SMC estimate",
               title=f"theory: max |error| {th['max_abs_error']:.4f}")  # fmt: skip
    pts = MB.point_errors(val)
    for i, (r, ys) in enumerate(((st.get("figures") or {}).get("queue") or {}).items()):
        ms = sorted((p["queue"], 100 * p["measured"]) for p in pts
                    if p["comps"] == 3 and p["rate_pps"] == float(r))  # fmt: skip
        axs[2].plot(MB.FIG_QUEUES, [100 * y for y in ys], "-", color=f"C{i}",
                    label=f"model {float(r) / 1e6:g} M/s")  # fmt: skip
        axs[2].plot([m[0] for m in ms], [m[1] for m in ms], "o", color=f"C{i}",
                    label="forwarder (median of pairs)")  # fmt: skip
    axs[2].set(xscale="log", xlabel="queue capacity (packets)", ylabel="satisfaction (%)",
               title="Fig. 17a: one lcore, 3 components")  # fmt: skip
    axs[0].grid(alpha=0.3)
    for ax in axs[1:]:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(report.main("model", __doc__, build, measure))

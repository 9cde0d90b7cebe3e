#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Seed 000's comparisons: the dual-plane IoT gateway against its two baselines.

Two paired comparisons, each in ABBA order, every side a fresh gateway with its
1,000 pulse oximeters associated (python/twinplane/bench/iotgw_bed.py):

- memif, single plane (A) against dual plane (B): per side the report path's
  cost (``report_cycles_memif``), Fig. 3 (overhead ratio against N), Fig. 5
  (loss at 1 Gbit/s offered per size) and Fig. 6 (reports delivered against
  control messages/s; the pair's ratio at the highest control load);
- veth, socket gateway (A) against dual plane (B): Fig. 4 (the highest report
  rate the goal passes, per size; a pair's ratio per size) and Fig. 5.

Every load (a search's, a sweep point's) is decided by one goal, given on the
command line (``--loss-ratio``, ``--exceed-ratio``, ``--duration-sum``), from
all its trials. Methodology: docs/bench/iotgw.md.

Usage (root):
    .venv/bin/python bench/iotgw.py --quick --out /tmp/iotgw-quick   # a check
    .venv/bin/python bench/iotgw.py                                  # the report
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from twinplane.bench import ensure_venv

ensure_venv(ROOT)

from twinplane.bench import duts as D
from twinplane.bench import iotgw_bed as B
from twinplane.bench import paired, report, verdict

GOAL = verdict.Goal(loss_ratio=0.001, exceed_ratio=0.5, duration_sum=5.0)
SIZES, QUICK_SIZES = (128, 256, 512, 1024, 1518), (512,)
CONTROLS, QUICK_CONTROLS = (0, 5000, 10000, 20000, 30000, 40000), (0, 40000)
FIG3_N, QUICK_FIG3_N = (1000, 4000, 7000, 10000), (1000, 10000)
FIG3_RATE, COST_RATE, COST_SIZE, FIG6_SIZE = B.FIG3_RATE, B.COST_RATE, B.COST_SIZE, B.FIG6_SIZE
BARS = {
    "report_cycles_memif": report.Bar("<=", 600),  # issue 34
    "associations_completed_ratio": report.Bar(">=", 0.95),  # issue 14
    "loss_dual_memif": report.Bar("<=", 0.01),  # seed 000's dual plane lost 1.9 %
}


def ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",") if x)


def build(ap: Any) -> None:
    verdict.add_goal_arguments(ap, GOAL)
    ap.add_argument("--trial-s", type=float, default=1.0, help="seconds per trial (1)")
    ap.add_argument("--cost-s", type=float, default=1.0, help="the cost trial's seconds (1)")
    ap.add_argument(
        "--resolution",
        type=float,
        default=None,
        help="Fig. 4 search: passing and failing loads this close stop it (0.05; --quick 0.1)",
    )
    ap.add_argument(
        "--sizes",
        type=ints,
        default=None,
        help="frame sizes for Fig. 4 and 5 (128,...,1518; --quick 512)",
    )
    ap.add_argument(
        "--controls",
        type=ints,
        default=None,
        help="control messages/s for Fig. 6 (0,5000,...,40000; --quick 0,40000)",
    )
    ap.add_argument(
        "--fig3-n",
        type=ints,
        default=None,
        help="reports per Fig. 3 trial (1000,4000,7000,10000; --quick 1000,10000)",
    )
    ap.add_argument(
        "--cse-delay-us",
        type=float,
        default=100.0,
        help="the IN-CSE sink answers a registration after this long (100)",
    )
    ap.add_argument("--wires", default="memif,veth", help="comparisons to run (memif,veth)")


class Run:
    """The trials of the run (every one, in order) and where they go."""

    def __init__(self, ctx: report.Context, goal: verdict.Goal) -> None:
        self.ctx, self.a, self.goal = ctx, ctx.args, goal
        self.trials: list[dict[str, Any]] = []
        self.setups: dict[str, Any] = {}
        self.last: dict[tuple[str, int], float] = {}  # a search's start: the side's last result
        self.t0 = time.monotonic()

    def keep(self, t: dict[str, Any], pair: int, **extra: Any) -> dict[str, Any]:
        t.update(pair=pair, **extra)
        self.trials.append(t)
        return t

    def bed(self, wire: str, system: str) -> B.Bed:
        if self.ctx.iso is not None:
            self.ctx.iso.sweep()
        return B.Bed(wire, system, self.ctx.workdir, self.ctx.tsc_hz, self.a.cse_delay_us)

    def memif_side(self, system: str, pair: int) -> dict[str, Any]:
        a, k = self.a, self.keep
        with self.bed("memif", system) as bed:
            self.setups[f"memif/{system}"] = bed.describe()
            k(bed.trial("warm-up", COST_SIZE, COST_RATE, duration=0.5), pair)
            cost = k(bed.trial("cost", COST_SIZE, COST_RATE, duration=a.cost_s), pair)
            for n in a.fig3_n:
                k(bed.trial("fig3", FIG6_SIZE, FIG3_RATE, count=n), pair, n=n)
            for z in a.sizes:
                k(bed.trial("fig5", z, B.line_rate_1g(z), duration=a.trial_s), pair)
            total, top = B.line_rate_1g(FIG6_SIZE), None
            for c in a.controls:
                top = k(bed.trial("fig6", FIG6_SIZE, total, duration=a.trial_s, control=c), pair)
        return {"cost": cost, "top": top}

    def veth_side(self, system: str, pair: int) -> dict[str, Any]:
        a, k, out = self.a, self.keep, {}
        with self.bed("veth", system) as bed:
            self.setups[f"veth/{system}"] = bed.describe()
            k(bed.trial("warm-up", COST_SIZE, COST_RATE, duration=0.5), pair)
            for z in a.sizes:

                def run(rate: float, z: int = z) -> dict[str, Any]:
                    return k(bed.trial("fig4", z, rate, duration=a.trial_s), pair)

                start = self.last.get((system, z))
                s = B.search(run, self.goal, B.MAX_RATE["veth"], a.resolution, start)
                self.last[(system, z)] = s["rate_pps"] or start
                rtts = [t["xcpu_rtt_ns"] for ld in s["loads"] for t in ld["trials"]]
                s["placement"] = D.search_placement(rtts)["placement"] or "mixed"
                for ld in s["loads"]:
                    ld["trials"] = len(ld["trials"])
                out[z] = s
            for z in a.sizes:
                k(bed.trial("fig5", z, B.line_rate_1g(z), duration=a.trial_s), pair)
        return out

    def pairs(self, wire: str, sides: tuple[str, str]) -> list[dict[str, Any]]:
        """The comparison's sessions in ABBA order: pair i runs A then B, or B then A."""
        fn = self.memif_side if wire == "memif" else self.veth_side
        out = []
        for i, order in enumerate(paired.abba_order(self.ctx.pairs)):
            got = {}
            for side in order:
                system = sides[0] if side == "A" else sides[1]
                print(
                    f"  {wire} pair {i + 1}/{self.ctx.pairs}: {system} "
                    f"({time.monotonic() - self.t0:.0f} s)",
                    flush=True,
                )
                got[side] = fn(system, i)
            out.append({"index": i, "order": order, **got})
        return out


def same(a: str, b: str) -> str:
    """A pair's placement: its sides' when both had the same, else ``mixed``."""
    return a if a == b else "mixed"


def memif_headlines(rep: report.Report, run: Run, sessions: list[dict[str, Any]]) -> None:
    g, top = run.goal, max(run.a.controls)
    pairs = []
    for s in sessions:
        ta, tb = s["A"]["top"], s["B"]["top"]
        tie = not B.as_trial(ta).bad(g) and not B.as_trial(tb).bad(g)
        pairs.append(
            paired.Pair(
                s["index"],
                s["order"],
                B.rate_of(ta),
                B.rate_of(tb),
                same(ta["placement"], tb["placement"]),
                tie,
                {"loss_single": ta["loss"], "loss_dual": tb["loss"]},
            )
        )
    rep.extra.setdefault("pairs", {})["memif"] = [p.to_json() for p in pairs]
    name = f"{top // 1000}k" if top % 1000 == 0 else str(top)
    offered = B.line_rate_1g(FIG6_SIZE) - top
    rep.add(
        f"dual_over_single_memif_{name}",
        paired.headline(
            pairs,
            f"reports delivered per second, dual / single plane, memif, {FIG6_SIZE} B, "
            f"{top:,} control messages/s in 1 Gbit/s; a tie when both lose at most the goal's "
            f"loss ratio",
            ceiling=offered,
        ),
    )
    duals = [s["B"] for s in sessions]
    costs = [d["cost"] for d in duals]
    pl = [c["placement"] for c in costs]
    h = B.value_summary(
        [c["report_cycles"] / c["delivered"] for c in costs],
        pl,
        "cycles per report",
        "dual plane, memif: cycles in tp_iotgw_report "
        f"(iotgw profile) per delivered {COST_SIZE} B report at "
        f"{COST_RATE:,.0f}/s, one {run.a.cost_s:g} s trial per session",
    )
    h["worker_cycles_per_report"] = B.value_summary(
        [c["thread_cycles"] / c["delivered"] for c in costs],
        pl,
        "cycles per report",
        "the worker's busy cycles per delivered report, same trials",
    )
    committed = B.committed_report(ROOT)
    h["previous"] = B.previous_figure(committed) if committed else None
    rep.add("report_cycles_memif", h, BARS["report_cycles_memif"])
    tops = [d["top"] for d in duals]
    tpl = [t["placement"] for t in tops]
    ratio = [
        t["associated"] / (t["control_offered"] / 2) if t["control_offered"] else 0.0 for t in tops
    ]
    rep.add(
        "associations_completed_ratio",
        B.value_summary(
            ratio,
            tpl,
            "share",
            f"dual plane, memif: AARQs accepted / AARQs offered at {top:,} control messages/s",
        ),
        BARS["associations_completed_ratio"],
    )
    rep.add(
        "loss_dual_memif",
        B.value_summary(
            [t["loss"] for t in tops],
            tpl,
            "share",
            f"dual plane, memif: reports not delivered "
            f"/ asked at {top:,} control messages/s (Fig. 6)",
        ),
        BARS["loss_dual_memif"],
    )


def veth_headlines(rep: report.Report, run: Run, sessions: list[dict[str, Any]]) -> None:
    out = {}
    for z in run.a.sizes:
        pairs = []
        for s in sessions:
            sa, sb = s["A"][z], s["B"][z]
            pairs.append(
                paired.Pair(
                    s["index"],
                    s["order"],
                    sa["rate_pps"],
                    sb["rate_pps"],
                    same(sa["placement"], sb["placement"]),
                    sa["at_ceiling"] and sb["at_ceiling"],
                    {"socket": sa, "dual": sb},
                )
            )
        ceiling = min(p.extra[k]["ceiling_pps"] for p in pairs for k in ("socket", "dual"))
        rep.add(
            f"dual_over_socket_veth_{z}",
            paired.headline(
                pairs,
                f"highest report rate the goal passes, dual plane / socket gateway, veth, {z} B",
                ceiling=ceiling,
            ),
        )
        out[z] = [p.to_json() for p in pairs]
    rep.extra.setdefault("pairs", {})["veth"] = out


def measure(ctx: report.Context) -> report.Report:
    a = ctx.args
    a.resolution = a.resolution or (0.1 if a.quick else 0.05)
    a.sizes = a.sizes or (QUICK_SIZES if a.quick else SIZES)
    a.controls = a.controls or (QUICK_CONTROLS if a.quick else CONTROLS)
    a.fig3_n = a.fig3_n or (QUICK_FIG3_N if a.quick else FIG3_N)
    goal = verdict.goal_from_args(a)
    D.ensure_hugepages()
    rules = {
        "goal (every load: search, sweep point)": goal.text(),
        "loss": "reports asked for (rate x sending time) and not delivered (both NON "
        "requests at the sink); a report the generator or the wire did not take is lost",
        "pairs per comparison": f"{ctx.pairs}, ABBA order, a fresh gateway per side",
        "placement": "tp-xcpu-probe before every trial; a pair's is its sides' when equal, "
        "else mixed",
        "tie at the ceiling": "Fig. 4: both sides pass a load within the resolution of what "
        "the wire took at the overload trial; Fig. 6: both sides lose at most the loss ratio",
        "trial": f"{a.trial_s:g} s (cost {a.cost_s:g} s; warm-up 0.5 s at "
        f"{COST_RATE:,.0f}/s, kept); Fig. 3 at {FIG3_RATE:,.0f}/s",
        "Fig. 4 search": f"overload trial at {B.MAX_RATE['veth']:,.0f}/s, then loads until "
        f"passing and failing are within {a.resolution:g}",
        "sizes, controls, Fig. 3 N": f"{list(a.sizes)}, {list(a.controls)}, {list(a.fig3_n)}",
        "IN-CSE answer delay": f"{a.cse_delay_us:g} us",
        "CPU": f"forwarding thread on CPU {D.DUT_CPU}; generator and twinplane's control "
        f"plane on CPU {D.GEN_CPU}",
    }
    rep = report.Report("iotgw", rules)
    run = Run(ctx, goal)
    wires = a.wires.split(",")
    try:
        if "memif" in wires:
            memif_headlines(rep, run, run.pairs("memif", ("single", "dual")))
        if "veth" in wires:
            veth_headlines(rep, run, run.pairs("veth", ("socket", "dual")))
    finally:
        (ctx.workdir / "trials.json").write_text(json.dumps(run.trials, indent=1))
    rep.trials = run.trials
    rep.extra["setup"] = run.setups
    rep.extra["wall_s"] = round(time.monotonic() - run.t0)
    rep.markdown = B.tables(rep, run.trials, goal, run.setups)
    rep.figure = lambda path: B.plot(run.trials, rep.extra.get("pairs", {}), path)
    return rep


if __name__ == "__main__":
    sys.exit(report.main("iotgw", __doc__, build, measure))

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/l2.py: twinplane's L2 switch against OVS-DPDK and the Linux bridge (issue 12,
seed 003; method of issue 34). How it is measured: docs/bench/l2.md.

Comparisons, each in ABBA pairs on fresh testbeds, the vCPU placement probed
in every trial and a pair classed by all its trials' probes:

- ndr_twinplane_over_ovsdpdk_<size>: NDR on memif (MLRsearch, one goal from the
  command line), twinplane-l2 over OVS-DPDK, per frame size (--sizes); the
  headline is 64 B, held to >= 1.2 in every placement;
- ndr_twinplane_over_{ovsdpdk,linuxbridge}_veth_64: the same on veth (af_xdp for
  the DPDK switches; the Linux bridge switches the veths itself), no bar;
- hop_cost_twinplane_over_ovsdpdk: the switch's cycles per hop of a service chain
  of twinplane-nf processes (--chains) at a fixed load, held to <= 0.7.

Report: docs/results/l2.{md,json,png}.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from twinplane.bench import duts as D
from twinplane.bench import l2_bed as B
from twinplane.bench import paired, report, verdict
from twinplane.bench.report import Bar, Context, Report

GOAL = verdict.Goal(loss_ratio=0.0, exceed_ratio=0.5, duration_sum=5.0)
NDR_BAR = Bar(">=", 1.2, every_placement=True)
HOP_BAR = Bar("<=", 0.7)
TWIN, OVS, BRIDGE = "twinplane-l2", "ovsdpdk-x", "linuxbridge"
COST_RATE = {"memif": 0.1e6, "vhost": 0.04e6}  # under both switches' chain NDR
PARTS = ("ndr", "veth", "hop")


def build(ap: Any) -> None:
    verdict.add_goal_arguments(ap, GOAL)
    # --quick: a 2 s duration sum and 0.5 s final trials unless given (a check, not a figure)
    ap.set_defaults(duration_sum=None)
    next(x for x in ap._actions if x.dest == "duration_sum").help += "; --quick 2"
    ap.add_argument("--parts", default=None,
                    help=f"of {', '.join(PARTS)} (default all; --quick ndr,hop)")  # fmt: skip
    ap.add_argument("--sizes", default=None,
                    help="memif NDR frame sizes (default 64,1518; --quick 64)")  # fmt: skip
    ap.add_argument("--trial-duration", type=float, default=None,
                    help="seconds of MLRsearch's final trials, its first half that "
                    "(default 1; --quick 0.5)")  # fmt: skip
    ap.add_argument("--resolution", type=float, default=0.02,
                    help="MLRsearch's relative width at which a search stops")  # fmt: skip
    ap.add_argument("--rate-slack", type=float, default=0.01,
                    help="a trial whose generator offered this share less than asked "
                    "counts the missing frames as lost")  # fmt: skip
    ap.add_argument("--ceiling-margin", type=float, default=0.95,
                    help="an NDR this close to the generator's reach or the wire's "
                    "maximum is at the ceiling")  # fmt: skip
    ap.add_argument("--chains", default="memif:2,vhost:2",
                    help="chain set-ups backend:NFs, pairs 2k and 2k+1 on set-up k")  # fmt: skip
    ap.add_argument("--cost-trials", type=int, default=3, help="cost trials per side (median)")
    ap.add_argument("--cost-duration", type=float, default=2.0, help="seconds per cost trial")
    ap.add_argument("--memif-rsize", type=int, default=12,
                    help="log2 of the memif rings' slots, both switches")  # fmt: skip


def with_defaults(a: Any) -> tuple[verdict.Goal, list[str], list[int], list[tuple[str, int]]]:
    """The options --quick changes, filled in; the goal, parts, sizes and chains."""
    if a.duration_sum is None:
        a.duration_sum = 2.0 if a.quick else GOAL.duration_sum
    a.trial_duration = a.trial_duration or (0.5 if a.quick else 1.0)
    parts = (a.parts or ("ndr,hop" if a.quick else ",".join(PARTS))).split(",")
    sizes = [int(x) for x in (a.sizes or ("64" if a.quick else "64,1518")).split(",")]
    chains = [(b, int(n)) for b, n in (c.split(":") for c in a.chains.split(","))]
    return verdict.goal_from_args(a), parts, sizes, chains


def rules_for(ctx: Context, goal: verdict.Goal, chains: list[tuple[str, int]],
              flags: dict[str, str]) -> dict[str, str]:  # fmt: skip
    a = ctx.args
    return {
        "goal (every NDR search and every cost load)": goal.text(),
        "search": f"MLRsearch (PyPI MLRsearch, rfc2544.mlr_search), NDR goal only; final "
        f"trials {a.trial_duration:g} s, first {a.trial_duration / 2:g} s; relative width "
        f"{a.resolution:g}; highest load the wire's maximum (duts.WIRE_MAX)",
        "what counts as loss": "frames offered and not received, frames the DUT's port "
        f"refused; a generator offering more than {a.rate_slack:g} below the asked rate has "
        "the frames it did not send counted as lost",
        "pairs per comparison": f"{ctx.pairs}, ABBA, each side on a fresh testbed",
        "placement": "tp-xcpu-probe before every trial; a pair's placement is the class of "
        ">= 80 % of its trials' probes (both sides), else 'mixed'",
        "tie at the ceiling": f"both sides' NDR >= {a.ceiling_margin:g} x the generator's "
        "reach in that search (the highest rate it offered when short of the asked one) "
        "or x the wire's maximum",
        "NDR bar": "every placement's paired median, and the pooled one, >= 1.2",
        "chains": ", ".join(f"{b} x {n} NFs" for b, n in chains)
        + "; cost at "
        + ", ".join(f"{COST_RATE[b] / 1e6:g} Mpps ({b})" for b in COST_RATE)
        + f", median of {a.cost_trials} trials of {a.cost_duration:g} s per side",
        "cycles per hop": "twinplane: worker busy cycles / frames sent; OVS-DPDK: PMD "
        "processing cycles / frames received (both: TSC cycles of poll iterations that "
        "received frames, per crossing of the switch)",
        "cores": f"switch's forwarding thread on CPU {D.DUT_CPU} (nice -20); twinplane's "
        f"control thread there too (as in rfc2544_ip4); OVS-DPDK's other threads, the "
        f"generator and the NFs on CPU {D.GEN_CPU}",
        "build flags": "; ".join(f"{k}: {v}" for k, v in flags.items()),
    }


class Comparisons:
    """Each comparison's pairs, run ABBA; every trial into the report as it ends."""

    def __init__(self, ctx: Context, rep: Report, say: Any) -> None:
        self.ctx, self.rep, self.say = ctx, rep, say
        self.done: dict[str, dict[str, Any]] = {}

    def side(self, kind: str, cmp: str, fn: Any) -> Any:
        def run(i: int) -> dict[str, Any]:
            return fn(i, lambda t: self.rep.trials.append({"comparison": cmp, "pair": i,
                                                           "side": kind, **t}))  # fmt: skip

        return run

    def compare(self, cmp: str, definition: str, run_a: Any, run_b: Any) -> None:
        n = self.ctx.pairs
        self.say(f"{cmp}: {n} pairs")

        def progress(rec: dict[str, Any]) -> None:
            self.say(f"{cmp} pair {rec['index'] + 1}/{n}: {rec.get('placement', 'FAILED')}")

        pairs, failed = B.abba_pairs(n, self.side("A", cmp, run_a), self.side("B", cmp, run_b),
                                     progress)  # fmt: skip
        reach = [x for p in pairs if p.at_ceiling for x in
                 (p.extra["A"]["gen_reach_pps"], p.extra["B"]["gen_reach_pps"]) if x]  # fmt: skip
        ceiling = statistics.median(reach) / 1e6 if reach else None
        h = paired.headline(pairs, definition, ceiling=ceiling)
        self.done[cmp] = {"pairs": [p.to_json() for p in pairs], "failed": failed, "h": h}


def measure(ctx: Context) -> Report:
    a = ctx.args
    goal, parts, sizes, chains = with_defaults(a)
    D.ensure_hugepages()
    D.reap_stale_namespaces()
    t0 = time.monotonic()
    flags = B.build_flags()

    def say(msg: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)

    bed = B.Bed(ctx.workdir, ctx.tsc_hz, ctx.iso, goal, a.trial_duration, a.resolution,
                a.rate_slack, a.ceiling_margin, a.memif_rsize, say)  # fmt: skip
    rep = Report("l2", rules=rules_for(ctx, goal, chains, flags))
    cs = Comparisons(ctx, rep, say)

    def ndr(wire: str, dut: str, size: int) -> Any:
        return lambda i, keep: bed.ndr_side(wire, dut, size, keep)

    def hop(switch: str) -> Any:
        def run(i: int, keep: B.Keep) -> dict[str, Any]:
            backend, n = chains[(i // 2) % len(chains)]
            out = bed.hop_cost_side(B.chain_dut(switch, backend, n), COST_RATE[backend],
                                    a.cost_trials, a.cost_duration, keep)  # fmt: skip
            return {**out, "chain": f"{backend}:{n}"}

        return run

    for size in sizes if "ndr" in parts else []:
        cs.compare(f"ndr_twinplane_over_ovsdpdk_{size}",
                   f"NDR of twinplane-l2 / NDR of OVS-DPDK, memif, {size} B frames (Mpps)",
                   ndr("memif", OVS, size), ndr("memif", TWIN, size))  # fmt: skip
    for peer, label in ((OVS, "ovsdpdk"), (BRIDGE, "linuxbridge")) if "veth" in parts else []:
        cs.compare(f"ndr_twinplane_over_{label}_veth_64",
                   f"NDR of twinplane-l2 / NDR of {label}, veth, 64 B frames (Mpps)",
                   ndr("veth", peer, 64), ndr("veth", TWIN, 64))  # fmt: skip
    if "hop" in parts:
        cs.compare("hop_cost_twinplane_over_ovsdpdk",
                   "switch cycles per hop of a service chain, twinplane-l2 / OVS-DPDK",
                   hop("ovsdpdk"), hop("twinplane"))  # fmt: skip
    finish(rep, cs.done, flags, time.monotonic() - t0)
    return rep


def finish(rep: Report, comparisons: dict[str, dict[str, Any]], flags: dict[str, Any],
           wall_s: float) -> None:  # fmt: skip
    """The comparisons into the report: headlines with their bars, pairs, tables, plot."""
    for cmp, c in comparisons.items():
        bar = NDR_BAR if cmp == "ndr_twinplane_over_ovsdpdk_64" else None
        rep.add(cmp, c["h"], HOP_BAR if cmp.startswith("hop_cost") else bar)
    rep.extra = {
        "pairs": {k: c["pairs"] for k, c in comparisons.items()},
        "failed_pairs": {k: c["failed"] for k, c in comparisons.items() if c["failed"]},
        "build_flags": flags,
        "wall_s": round(wall_s, 1),
    }
    rep.markdown = markdown(comparisons, rep)
    if any(c["pairs"] for c in comparisons.values()):
        ratios = {k: c["pairs"] for k, c in comparisons.items()}
        goals = {k: b.value for k, b in rep.bars.items()}
        rep.figure = lambda path: B.plot_pairs(ratios, goals, path)


def _mpps(x: float | None) -> str:
    return "-" if x is None else f"{x / 1e6:.3f}"


def markdown(comparisons: dict[str, dict[str, Any]], rep: Report) -> str:
    """The bars' verdicts in words, then every pair of every comparison."""
    L = ["## Goals", ""]
    for name, bar in rep.bars.items():
        h = rep.headline[name]
        met = bar.met(h["ratio"], h["ci95"], h["by_placement"])
        word = {True: "**met**", False: "**not met**", None: "**not decided** (a tie "
                "at the ceiling leaves a placement without a ratio)"}[met]  # fmt: skip
        L.append(f"- `{name}` {bar.text()}: {word}; {report.headline_text(h)}.")
    for cmp, c in comparisons.items():
        hop = cmp.startswith("hop_cost")
        unit = "cycles/hop" if hop else "NDR Mpps"
        L += ["", f"## `{cmp}`", "", f"{c['h'].definition}: {c['h'].text()}.", "",
              f"| pair | order | placement | A {unit} | B {unit} | B / A | at ceiling | "
              f"{'chain, A / B load verdict' if hop else 'generator reach A / B (Mpps)'} |",
              "|---|---|---|---|---|---|---|---|"]  # fmt: skip
        for p in c["pairs"]:
            sa, sb = p["A"], p["B"]
            if hop:
                note = f"{sa['chain']}, {sa['load_verdict']} / {sb['load_verdict']}"
                va, vb = f"{p['a']:.0f}", f"{p['b']:.0f}"
            else:
                note = f"{_mpps(sa['gen_reach_pps'])} / {_mpps(sb['gen_reach_pps'])}"
                va, vb = _mpps(p["a"]), _mpps(p["b"])
            ratio = p["b"] / p["a"] if p["a"] else float("inf")
            L.append(f"| {p['index']} | {p['order']} | {p['placement']} | {va} | {vb} | "
                     f"{ratio:.2f} | {'yes' if p['at_ceiling'] else 'no'} | {note} |")  # fmt: skip
        for f in c["failed"]:
            err = next(s["error"] for s in (f["A"], f["B"]) if "error" in s)
            L.append(f"| {f['index']} | {f['order']} | - | - | - | - | - | FAILED: "
                     f"{err.splitlines()[0][:160]} |")  # fmt: skip
        sides = [s for p in c["pairs"] for s in (p["A"], p["B"])]
        moved = sorted({m for s in sides for m in s.get("ovs_moved") or ()})
        on_dut = {s["dut"]: s["dut_cpu_threads"] for s in sides}
        L += ["", f"Threads that may run on CPU {D.DUT_CPU}: "
              + "; ".join(f"{d}: {', '.join(t) or 'none'}" for d, t in on_dut.items())
              + (f". OVS threads moved off it after the start: {', '.join(moved)}" if moved else "")
              + "."]  # fmt: skip
    return "\n".join(L)


if __name__ == "__main__":
    sys.exit(report.main("l2", __doc__, build, measure))

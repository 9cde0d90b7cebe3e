#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Two builds of the L2 switch against each other: the switch's cost per frame
(twinplane-l2 between the generator's two memif ports, one hop, 64 B, STP off: the
bridge's default; the worker's busy cycles over the frames it switched, at a fixed
load under the NDR) with daemon A and daemon B, each in a bed started afresh, in
ABBA pairs; the host's placement of the two vCPUs probed before each trial, a
pair classed by all its trials' probes (as bench/l2.py). The headline is the
paired median of B / A per placement and pooled, with its bootstrap interval.
Method: docs/bench/l2_ab.md.

Usage (root; takes the lab lock itself)::

    .venv/bin/python bench/l2_ab.py --a /tmp/before/build/src/twinplane \\
        --b build/src/twinplane --out /tmp/l2-ab

``--a``/``--b`` take a daemon binary or a tree (its build/src/twinplane). The
generator is this tree's (build/src/twinplane-gen); only the switch changes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from twinplane.bench import ensure_venv

ensure_venv(ROOT)

from twinplane.bench import duts as D
from twinplane.bench import l2_bed as B
from twinplane.bench import paired, report, verdict

GOAL = verdict.Goal(loss_ratio=0.0, exceed_ratio=0.5, duration_sum=5.0)  # bench/l2.py's


def daemon(p: Path) -> Path:
    """A daemon binary, or a tree's (``TREE/build/src/twinplane``, ``BUILD/src/twinplane``)."""
    p = p.resolve()
    if not p.is_dir():
        return p
    for c in (p / "build" / "src" / "twinplane", p / "src" / "twinplane"):
        if c.is_file():
            return c
    raise SystemExit(f"{p}: no build/src/twinplane or src/twinplane in this tree")


def build(ap: Any) -> None:
    ap.add_argument("--a", type=Path, required=True, help="daemon A (before): binary or tree")
    ap.add_argument("--b", type=Path, required=True, help="daemon B (after): binary or tree")
    ap.add_argument("--rate", type=float, default=1e6, help="frames/s of the load (1000000)")
    ap.add_argument("--trials", type=int, default=3, help="cost trials per side (median; 3)")
    ap.add_argument("--seconds", type=float, help="a cost trial (2; --quick 0.5)")
    ap.add_argument("--memif-rsize", type=int, default=12, help="log2 of the memif rings' slots")


def measure(ctx: report.Context) -> report.Report:
    a = ctx.args
    a.seconds = a.seconds or (0.5 if a.quick else 2.0)
    binaries = {"A": daemon(a.a), "B": daemon(a.b)}
    D.ensure_hugepages()
    D.reap_stale_namespaces()
    rep = report.Report("l2_ab", {
        "A": str(binaries["A"]), "B": str(binaries["B"]),
        "pairs (ABBA, a bed started afresh per side)": ctx.pairs,
        "trial": f"twinplane-l2, br0 with p0 and p1 (STP off, the default; a side whose "
        f"bridge runs STP fails), 64 B on memif (rings of 2^{a.memif_rsize}), one hop "
        f"g0 -> p0 -> p1 -> g1, {a.rate / 1e6:g} Mpps; {a.trials} trials of {a.seconds:g} s "
        "per side, the side's figure their median",
        "cycles per frame": "the worker's busy cycles (TSC cycles of loop passes that "
        "received frames, 'show workers') / frames it sent",
        "load verdict": f"each side's trials judged by bench/l2.py's goal ({GOAL.text()}), "
        "kept beside the figure; no side is left out for it",
        "cores": f"the switch's worker and control thread on CPU {D.DUT_CPU} (nice -20), "
        f"the generator on CPU {D.GEN_CPU}",
        "placement": "tp-xcpu-probe before every trial; a pair's placement is the class of "
        ">= 80 % of its trials' probes (both sides), else 'mixed' (l2_bed.pair_placement)",
        "failed side": "its pair has no ratio, is listed as FAILED and is not re-run",
    })  # fmt: skip
    print("rules:\n" + "\n".join(f"  {k}: {v}" for k, v in rep.rules.items()), flush=True)
    bed = B.Bed(ctx.workdir, ctx.tsc_hz, ctx.iso, GOAL, a.seconds, 0.02, 0.01, 0.95,
                a.memif_rsize, lambda m: print(m, flush=True))  # fmt: skip

    def side(name: str) -> Any:
        def run(pair: int) -> dict[str, Any]:
            os.environ["TP_DAEMON"] = str(binaries[name])
            tag = {"pair": pair, "side": name, "binary": str(binaries[name])}
            return bed.switch_cost_side(a.rate, a.trials, a.seconds,
                                        lambda t: rep.trials.append({**tag, **t}))  # fmt: skip

        return run

    def show(p: dict[str, Any]) -> None:
        if "a" not in p:
            print(f"  pair {p['index'] + 1} {p['order']}: FAILED", flush=True)
            return
        print(f"  pair {p['index'] + 1} {p['order']} {p['placement']}: A {p['a']:.1f}, "
              f"B {p['b']:.1f} cycles/frame, B/A {p['b'] / p['a']:.4f}", flush=True)  # fmt: skip

    pairs, failed = B.abba_pairs(ctx.pairs, side("A"), side("B"), show)
    what = "switch cycles per frame of B / A (paired beds, ABBA; one hop, STP off)"
    rep.add("cycles_per_frame_b_over_a", paired.headline(pairs, what))
    rep.extra["pairs"] = [p.to_json() for p in pairs]
    rep.extra["failed_pairs"] = failed
    lines = [
        "## Pairs",
        "",
        "| pair | order | placement | A cycles/frame | B cycles/frame | B / A | load A / B |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [f"| {p.index + 1} | {''.join(p.order)} | {p.placement} | {p.a:.1f} | {p.b:.1f} "
              f"| {p.ratio():.4f} | {p.extra['A']['load_verdict']} / "
              f"{p.extra['B']['load_verdict']} |" for p in pairs]  # fmt: skip
    for f in failed:
        err = next(s["error"] for s in (f["A"], f["B"]) if "error" in s)
        lines.append(f"| {f['index'] + 1} | {f['order']} | - | - | - | - | FAILED: "
                     f"{(err.splitlines() or [''])[0][:160]} |")  # fmt: skip
    rep.markdown = "\n".join(lines)
    return rep


if __name__ == "__main__":
    sys.exit(report.main("l2_ab", __doc__, build, measure))

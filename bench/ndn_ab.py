#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Two builds of the NDN forwarder against each other: bench/ndn.py's cost trial
(cycles per Interest-Data exchange: the same bed, stream, rate and warm-up) with
daemon A and daemon B, each in a bed started afresh, in ABBA pairs; the host's
placement of the two vCPUs probed before each pair (and each trial). The headline
is the paired median of B / A per placement and pooled, with its bootstrap
interval. Method: docs/bench/ndn_ab.md.

Usage (root; takes the lab lock itself)::

    .venv/bin/python bench/ndn_ab.py --a /tmp/before/twinplane --b build/src/twinplane \\
        --out /tmp/ndn-ab

The generator is this tree's (build/src/twinplane-gen); only the forwarder changes.
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
from twinplane.bench import ndn_bed as NB
from twinplane.bench import paired, report


def build(ap: Any) -> None:
    ap.add_argument("--a", type=Path, required=True, help="daemon binary A (before)")
    ap.add_argument("--b", type=Path, required=True, help="daemon binary B (after)")
    ap.add_argument("--comps", type=int, default=3, help="name components (3)")
    ap.add_argument("--payload", type=int, default=0, help="Data payload, bytes (0)")
    ap.add_argument("--cost-rate", type=float, default=NB.COST_RATE, help="Interests/s (500000)")
    ap.add_argument("--cost-seconds", type=float, help="a cost trial (2; --quick 0.5)")


def measure(ctx: report.Context) -> report.Report:
    a = ctx.args
    a.cost_seconds = a.cost_seconds or (0.5 if a.quick else 2.0)
    binaries = {"A": a.a.resolve(), "B": a.b.resolve()}
    rep = report.Report("ndn_ab", {
        "A": str(binaries["A"]), "B": str(binaries["B"]),
        "pairs (ABBA, a bed started afresh per side)": ctx.pairs,
        "cost": f"{a.comps} components, {a.payload} B Data, {a.cost_rate / 1e3:g}k Interests/s, "
        f"{NB.WARMUP_S:g} s warm-up then {a.cost_seconds:g} s; forwarder busy cycles / Data "
        "sent to the consumer's face",
        "placement": "probed before each pair (the pair's) and before each trial",
    })  # fmt: skip

    def side(name: str) -> float:
        os.environ["TP_DAEMON"] = str(binaries[name])
        if ctx.iso is not None:
            ctx.iso.sweep()
        D.ensure_hugepages(1024)
        bed = NB.Bed(a.payload, ctx.workdir, ctx.tsc_hz)
        try:
            bed.start()
            bed.set_mode("ndn")
            st = bed.ndn_stream(a.comps)
            bed.wait_path(st)
            t = NB.cost_trial(bed, st, a.cost_rate, a.cost_seconds)
        finally:
            bed.close()
        pair = len(rep.trials) // 2  # both sides of a pair run before the next pair
        rep.trials.append({"pair": pair, "side": name, "binary": str(binaries[name]), **t})
        return t.get("cycles_per_exchange") or float("nan")

    def probe() -> str:
        return D.placement((D.xcpu_probe() or {}).get("rtt_ns")) or "none"

    def show(p: paired.Pair) -> None:
        print(f"  pair {p.index + 1} {''.join(p.order)} {p.placement}: A {p.a:.0f}, "
              f"B {p.b:.0f} cycles/exchange, B/A {p.ratio():.4f}", flush=True)  # fmt: skip

    pairs = paired.run_pairs(ctx.pairs, lambda: side("A"), lambda: side("B"), probe, on_pair=show)
    rep.add("cycles_per_exchange_b_over_a", paired.headline(
        pairs, "cycles per exchange of B / A (paired beds, ABBA)"))  # fmt: skip
    rep.extra["pairs"] = [p.to_json() for p in pairs]
    lines = [
        "## Pairs",
        "",
        "| pair | order | placement | A | B | B / A |",
        "|---|---|---|---|---|---|",
    ]
    lines += [f"| {p.index + 1} | {''.join(p.order)} | {p.placement} | {p.a:.0f} | {p.b:.0f} "
              f"| {p.ratio():.4f} |" for p in pairs]  # fmt: skip
    rep.markdown = "\n".join(lines)
    return rep


if __name__ == "__main__":
    sys.exit(report.main("ndn_ab", __doc__, build, measure))

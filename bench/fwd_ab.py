#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Two builds of the router against each other: bench/fwd_cost.py's trial (one
forwarding lcore pulling net_pcap's in-memory input, Mpps out of port 1 over the
window) with twinplane binary A and twinplane binary B, each started afresh, in
ABBA pairs; the vCPUs' placement probed before each pair. The headline is the
paired median of B Mpps / A Mpps per placement and pooled, with its bootstrap
interval. Method: docs/bench/fwd_ab.md.

Usage (root; takes the lab lock itself)::

    .venv/bin/python bench/fwd_ab.py --a /tmp/before/twinplane --b build/src/twinplane \\
        --out /tmp/fwd-ab
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from twinplane.bench import ensure_venv

ensure_venv(ROOT)

from twinplane.bench import duts as D
from twinplane.bench import fwd_cost_bed as B
from twinplane.bench import paired, report


def build(ap: Any) -> None:
    ap.add_argument("--a", type=Path, required=True, help="daemon binary A (before)")
    ap.add_argument("--b", type=Path, required=True, help="daemon binary B (after)")
    ap.add_argument("--family", choices=["ip4", "ip6"], default="ip4", help="input (ip4)")
    ap.add_argument("--seconds", type=float, help="window per trial (5; --quick 2)")
    ap.add_argument("--warmup", type=float, help="seconds before the window (2; --quick 1)")
    ap.add_argument("--frames", type=int, default=1024, help="distinct frames in the input")


def measure(ctx: report.Context) -> report.Report:
    a = ctx.args
    seconds = a.seconds or (2.0 if a.quick else 5.0)
    warmup = a.warmup or (1.0 if a.quick else 2.0)
    binaries = {"A": a.a.resolve(), "B": a.b.resolve()}
    # one bed: the same input file and ports for both sides, only the binary changes
    bins = {s: B.Binaries(twinplane=p) for s, p in binaries.items()}
    bed = B.Bed(ctx.workdir, ctx.tsc_hz, seconds, warmup, a.frames, bins["A"], family=a.family)
    inp = bed.prepare()
    rep = report.Report("fwd_ab", {
        "A": str(binaries["A"]), "B": str(binaries["B"]),
        "pairs (ABBA, each side's daemon started afresh)": ctx.pairs,
        "trial": f"fwd_cost's: start, wait for port 1 to transmit, {warmup:g} s warm-up, "
        f"{seconds:g} s window, stop; Mpps = port 1 opackets over the window",
        "input": f"{inp['frames']} distinct {inp['frame_len']} B {a.family} frames to "
        f"{inp['dst_net']}, net_pcap infinite_rx",
        "lcores": f"`--lcores {B.LCORES}`: the forwarding lcore alone on CPU 0",
        "placement": "probed before each pair (the pair's)",
    })  # fmt: skip

    def side(name: str) -> float:
        if ctx.iso is not None:
            ctx.iso.sweep()
        bed.bins = bins[name]
        t = bed.trial("twinplane")
        pair = len(rep.trials) // 2  # both sides of a pair run before the next pair
        rep.trials.append({"pair": pair, "side": name, "binary": str(binaries[name]), **t})
        return float(t["mpps"])

    def probe() -> str:
        return D.placement((D.xcpu_probe() or {}).get("rtt_ns")) or "none"

    def show(p: paired.Pair) -> None:
        print(f"  pair {p.index + 1} {''.join(p.order)} {p.placement}: A {p.a:.2f}, "
              f"B {p.b:.2f} Mpps, B/A {p.ratio():.4f}", flush=True)  # fmt: skip

    pairs = paired.run_pairs(ctx.pairs, lambda: side("A"), lambda: side("B"), probe, on_pair=show)
    rep.add("mpps_b_over_a", paired.headline(pairs, "Mpps of B / A (paired, ABBA)"))
    rep.extra["pairs"] = [p.to_json() for p in pairs]
    lines = ["## Pairs", "", "| pair | order | placement | A Mpps | B Mpps | B / A |",
             "|---|---|---|---|---|---|"]  # fmt: skip
    lines += [f"| {p.index + 1} | {''.join(p.order)} | {p.placement} | {p.a:.2f} | {p.b:.2f} "
              f"| {p.ratio():.4f} |" for p in pairs]  # fmt: skip
    rep.markdown = "\n".join(lines)
    return rep


if __name__ == "__main__":
    sys.exit(report.main("fwd_ab", __doc__, build, measure))

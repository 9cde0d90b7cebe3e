#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Two builds of the IoT gateway against each other on bench/iotgw.py's cost trial.

The dual-plane gateway on memif (bench/iotgw.py's bed: 1,000 associated pulse
oximeters, the CoAP sink as IN-CSE), one 0.5 s warm-up and ``--trials`` trials of
128 B reports at 50,000/s per side; a side's figure is the median over its trials of
the report path's cycles (``iotgw profile``) per delivered report, and of the
worker's busy cycles per delivered report. Daemon A and daemon B run in paired beds,
ABBA, each bed started afresh; the generator is this tree's. Per pair the ratio B / A.

Usage (root)::

    .venv/bin/python bench/iotgw_ab.py --a /tmp/before/twinplane --b build/src/twinplane \\
        --name iotgw-ab-output-path --out docs/results/ab
"""

from __future__ import annotations

import os
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from twinplane.bench import iotgw_bed as B
from twinplane.bench import paired, report

SIZE, RATE = 128, 50_000.0
MEASURED = [
    "src/core",
    "src/nf/iotgw",
    "src/nf/ip4",
    "src/gen",
    "python/twinplane/bench/iotgw_bed.py",
    "bench/iotgw_ab.py",
]


def build(ap: Any) -> None:
    ap.add_argument("--a", type=Path, required=True, help="daemon binary A (before)")
    ap.add_argument("--b", type=Path, required=True, help="daemon binary B (after)")
    ap.add_argument("--trials", type=int, default=3, help="cost trials per side (3)")
    ap.add_argument("--seconds", type=float, default=1.0, help="per cost trial (1)")
    ap.add_argument("--cse-delay-us", type=float, default=100.0)
    ap.add_argument("--name", default="iotgw_ab", help="report name (docs/results/ab/NAME.*)")


def measure(ctx: report.Context) -> report.Report:
    a = ctx.args
    trials: list[dict[str, Any]] = []
    figures: dict[str, list[dict[str, Any]]] = {"A": [], "B": []}

    def side(label: str, binary: Path, pair: int) -> float:
        os.environ["TP_DAEMON"] = str(binary.resolve())
        if ctx.iso is not None:
            ctx.iso.sweep()
        got = []
        with B.Bed("memif", "dual", ctx.workdir, ctx.tsc_hz, a.cse_delay_us) as bed:
            for k in range(a.trials + 1):
                kind = "warm-up" if k == 0 else "cost"
                t = bed.trial(kind, SIZE, RATE, duration=0.5 if k == 0 else a.seconds)
                t.update(side=label, binary=str(binary), pair=pair)
                trials.append(t)
                if k and t["delivered"]:
                    got.append(t)
        fig = {
            "report": statistics.median(t["report_cycles"] / t["delivered"] for t in got),
            "worker": statistics.median(t["thread_cycles"] / t["delivered"] for t in got),
            "placements": [t["placement"] for t in got],
        }
        figures[label].append(fig)
        print(f"pair {pair} {label}: report {fig['report']:.0f}, worker {fig['worker']:.0f} "
              f"cycles per report, {fig['placements']}", flush=True)  # fmt: skip
        return fig["report"]

    n = {"A": 0, "B": 0}

    def run(label: str) -> float:
        n[label] += 1
        return side(label, a.a if label == "A" else a.b, max(n.values()) - 1)

    def placement() -> str:
        return B.probe()["placement"] or "unknown"

    pairs = paired.run_pairs(ctx.pairs, lambda: run("A"), lambda: run("B"), placement)
    worker = [
        paired.Pair(
            p.index, p.order, figures["A"][i]["worker"], figures["B"][i]["worker"], p.placement
        )  # fmt: skip
        for i, p in enumerate(pairs)
    ]
    rep = report.Report(
        a.name,
        rules={
            "pairs": f"{ctx.pairs}, ABBA, a fresh bed per side, placement probed before each pair",
            "A": str(a.a),
            "B": str(a.b),
            "trial": f"{a.trials} x {a.seconds:g} s of {SIZE} B reports at {RATE:,.0f}/s after a "
            "0.5 s warm-up; a side's figure is the median over its trials",
            "IN-CSE answer delay": f"{a.cse_delay_us:g} us",
        },
    )
    rep.add("report_cycles_b_over_a", paired.headline(
        pairs, "iotgw profile cycles per delivered report, B / A"))  # fmt: skip
    rep.add("worker_cycles_b_over_a", paired.headline(
        worker, "worker busy cycles per delivered report, B / A"))  # fmt: skip
    rep.trials = trials
    rep.script = "iotgw_ab"
    rep.extra = {
        "pairs": [p.to_json() for p in pairs],
        "figures": figures,
        # what the comparison depends on: the daemons are the binaries given, so this
        # tree's gateway and router sources, the generator and this bed
        "measured_paths": MEASURED,
    }
    return rep


if __name__ == "__main__":
    sys.exit(report.main("iotgw_ab", __doc__, build, measure))

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Two builds of the NDN forwarder against each other: bench/ndn.py's cost trial
(cycles per Interest-Data exchange, the same bed, stream, rate and pieces) with
daemon A and daemon B in paired beds, A B then B A alternately (so a slow drift of
the shared machine weighs on both), each bed started afresh. Per pair the ratio
B / A; the report is their median and spread, with every piece's placement of the
two vCPUs (the bench's probe before each piece).

Usage (root; runs under the venv; the lab lock is the caller's, for the whole run)::

    flock /tmp/tp-lab.lock .venv/bin/python bench/ndn_ab.py \\
        --a /tmp/before/twinplane --b build/src/twinplane --pairs 4 \\
        --out docs/results/ndn-ab-NAME.json

The generator is this tree's (build/src/twinplane-gen); only the forwarder changes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ndn as N

from twinplane.bench import paired

D = N.D


def one_bed(binary: Path, args: argparse.Namespace, tsc: float, workdir: Path) -> dict[str, Any]:
    os.environ["TP_DAEMON"] = str(binary)
    if N.ISO is not None:
        N.ISO.sweep()
    D.ensure_hugepages(1024)
    bed = N.Bed(args.payload, workdir, tsc)
    try:
        bed.start()
        bed.set_mode("ndn")
        st = bed.ndn_stream(args.comps)
        bed.wait_path(st)
        t = N.cost_trial(bed, st, args)
    finally:
        bed.close()
    return {
        "binary": str(binary),
        "cycles_per_exchange": t.get("cycles_per_exchange"),
        "satisfaction": t.get("satisfaction"),
        "placement": t.get("placement"),
        "xcpu_rtt_ns": t.get("xcpu_rtt_ns"),
        "pieces": [
            {
                k: p.get(k)
                for k in (
                    "cycles_per_exchange",
                    "placement",
                    "xcpu_rtt_ns",
                    "satisfaction",
                    "disturbed",
                    "dut_long_pass_ms",
                )
            }
            for p in t["pieces"]
        ],  # fmt: skip
    }


def pair_placement(p: dict[str, Any]) -> str:
    """The placement of a pair: that of every piece of both beds, else "mixed"."""
    pls = {pc["placement"] for v in ("a", "b") for pc in p[v]["pieces"]}
    return pls.pop() if len(pls) == 1 and None not in pls else "mixed"


def _median(vals: list[float | None]) -> float | None:
    got = [v for v in vals if v is not None]
    return statistics.median(got) if got else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    ap.add_argument("--a", type=Path, required=True, help="daemon binary A (before)")
    ap.add_argument("--b", type=Path, required=True, help="daemon binary B (after)")
    ap.add_argument("--pairs", type=int, default=4)
    ap.add_argument("--comps", type=int, default=3)
    ap.add_argument("--payload", type=int, default=0)
    ap.add_argument("--cost-rate", type=float, default=N.COST_RATE)
    ap.add_argument("--cost-seconds", type=float, default=2.0)
    ap.add_argument("--cost-pieces", type=int, default=4)
    ap.add_argument("--no-isolate", action="store_true")
    ap.add_argument("--out", type=Path, default=None, help="JSON of every bed and the ratios")
    args = ap.parse_args(argv)
    started = D.bench_start("ndn_ab", None)
    if started is None:
        return 2
    tsc, workdir = started
    pairs: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        if not args.no_isolate:
            N.ISO = stack.enter_context(D.CpuIsolation(D.DUT_CPU))
        for i in range(args.pairs):
            order = ("a", "b") if i % 2 == 0 else ("b", "a")
            got: dict[str, Any] = {"order": "".join(order).upper()}
            for v in order:
                try:
                    got[v] = one_bed(getattr(args, v), args, tsc, workdir)
                except Exception as e:  # noqa: BLE001 - the other beds still count
                    got[v] = {"error": str(e), "cycles_per_exchange": None, "placement": None,
                              "pieces": []}  # fmt: skip
                cpe, pls = got[v]["cycles_per_exchange"], [p["placement"] for p in got[v]["pieces"]]
                cpe = f"{cpe:.0f}" if cpe else got[v].get("error")
                print(f"pair {i + 1} {v.upper()}: {cpe} cycles/exchange, pieces {pls}", flush=True)
            a, b = got["a"]["cycles_per_exchange"], got["b"]["cycles_per_exchange"]
            got["ratio"] = b / a if a and b else None
            print(f"pair {i + 1}: B/A {got['ratio'] and round(got['ratio'], 4)}", flush=True)
            pairs.append(got)
            (workdir / "pairs.json").write_text(json.dumps(pairs))
    ratios = [p["ratio"] for p in pairs if p["ratio"] is not None]
    head = paired.headline(
        [
            paired.Pair(
                i,
                tuple(p["order"]),
                p["a"]["cycles_per_exchange"],
                p["b"]["cycles_per_exchange"],
                pair_placement(p),
            )  # fmt: skip
            for i, p in enumerate(pairs)
            if p["ratio"] is not None
        ],
        "cycles per exchange of B / A (paired beds, ABBA; placement: every piece of both)",
    )
    # the pairs whose two beds ran at one placement (every piece of both), and every
    # piece by its placement: the host's placement moves the cost more than most changes
    same = [
        p["ratio"]
        for p in pairs
        if p["ratio"] is not None
        and p["a"]["placement"]
        and p["a"]["placement"] == p["b"]["placement"]
    ]
    by_pl: dict[str, Any] = {}
    for v in ("a", "b"):
        for p in pairs:
            for pc in p[v]["pieces"]:
                if pc["placement"] and pc["cycles_per_exchange"]:
                    by_pl.setdefault(pc["placement"], {"a": [], "b": []})[v].append(
                        pc["cycles_per_exchange"]
                    )
    for d in by_pl.values():
        ma = statistics.median(d["a"]) if d["a"] else None
        mb = statistics.median(d["b"]) if d["b"] else None
        d.update(a_median=ma, b_median=mb, ratio=mb / ma if ma and mb else None)
    doc = {
        "tree": D.git_rev(),
        "headline": {"cycles_per_exchange_b_over_a": head.to_json()},
        "argv": sys.argv[1:] if argv is None else argv,
        "git": D.git_rev(),
        "machine": D.machine_info(),
        "tsc_hz": tsc,
        "params": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "pairs": pairs,
        "ratio_median": statistics.median(ratios) if ratios else None,
        "ratio_min": min(ratios) if ratios else None,
        "ratio_max": max(ratios) if ratios else None,
        "a_median": _median([p["a"]["cycles_per_exchange"] for p in pairs]),
        "b_median": _median([p["b"]["cycles_per_exchange"] for p in pairs]),
        "same_placement_ratios": same,
        "same_placement_ratio_median": statistics.median(same) if same else None,
        "pieces_by_placement": by_pl,
    }
    if ratios:
        print(f"B/A median {doc['ratio_median']:.4f} (min {doc['ratio_min']:.4f}, max "
              f"{doc['ratio_max']:.4f}, {len(ratios)} pairs); A {doc['a_median']:.0f}, "
              f"B {doc['b_median']:.0f} cycles/exchange (medians)", flush=True)  # fmt: skip
    if ratios:
        print(f"paired headline B/A: {head.text('{:.3f}')}", flush=True)
    if same:
        print(f"pairs at one placement: B/A median {statistics.median(same):.4f} "
              f"({min(same):.4f}-{max(same):.4f}, {len(same)} pairs)", flush=True)  # fmt: skip
    for pl, d in by_pl.items():
        if d["ratio"]:
            a_n, b_n = len(d["a"]), len(d["b"])
            print(f"pieces at {pl}: A {d['a_median']:.0f} ({a_n}), "
                  f"B {d['b_median']:.0f} ({b_n}), B/A {d['ratio']:.4f}", flush=True)  # fmt: skip
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(doc, indent=1))
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

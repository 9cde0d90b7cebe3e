#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""RFC 2544 IPv4 forwarding: twinplane, DPDK's l3fwd and the Linux kernel (seed 004).

Two parts, each paired (docs/bench/rfc2544_ip4.md says how and why):

- NDR: per wire and frame size, pairs of MLRsearches of every DUT the wire carries
  (memif: twinplane, l3fwd; veth: twinplane, l3fwd, kernel), each on a fresh
  testbed, the order reversed every other pair; one goal for every search.
- cost: rounds of one trial per side at one fixed offered load of 64 B frames:
  kernel on veth, twinplane on veth, twinplane on memif; the kernel is charged its
  CPU's /proc/stat busy time, twinplane its whole polling core.

Usage (root):
    .venv/bin/python bench/rfc2544_ip4.py --quick --sizes 64    # ~6 min
    .venv/bin/python bench/rfc2544_ip4.py                       # seed 004: ~4 h
    .venv/bin/python bench/rfc2544_ip4.py --sizes 64,1518 --wires memif --no-cost

The whole of seed 004 does not fit one sitting: run it in parts at one clean tree
(each its own --out), then merge them into the report:
    .venv/bin/python bench/rfc2544_ip4.py --no-ndr --out /work/rfc/cost     # both wires
    .venv/bin/python bench/rfc2544_ip4.py --no-cost --wires memif --out /work/rfc/memif
    .venv/bin/python bench/rfc2544_ip4.py --no-cost --wires veth --out /work/rfc/veth
    .venv/bin/python bench/rfc2544_ip4.py --merge /work/rfc/*/rfc2544_ip4.json
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from twinplane.bench import ensure_venv

ensure_venv(ROOT)

from twinplane.bench import duts as D
from twinplane.bench import paired, report, verdict
from twinplane.bench import rfc2544_ip4_bed as B
from twinplane.bench.rfc2544 import FRAME_SIZES

NAME = "rfc2544_ip4"
GOAL = verdict.Goal(loss_ratio=0.0, exceed_ratio=0.5, duration_sum=5.0)
NDR_BAR = report.Bar(">=", 0.95)  # seed 004's conclusion: twinplane at least 95 % of l3fwd
# bench/rfc2544_ip6.py sets these (and NAME, FRAME_SIZES) to run the same pairs on IPv6
TESTBED: type[D.Testbed] = D.Testbed
BAR_SIZE = 64  # NDR_BAR judges ndr_twinplane_over_l3fwd_memif_<BAR_SIZE>


def build(ap: Any) -> None:
    verdict.add_goal_arguments(ap, GOAL)
    ap.set_defaults(duration_sum=None)  # 5 s; 2 s with --quick (measure)
    ap.add_argument(
        "--sizes",
        default=",".join(map(str, FRAME_SIZES)),
        help="frame sizes in bytes, comma-separated (default: seed 004's seven)",
    )
    ap.add_argument("--wires", default="memif,veth", help="wires, comma-separated")
    ap.add_argument("--no-ndr", action="store_true", help="skip the NDR pairs")
    ap.add_argument("--no-cost", action="store_true", help="skip the cost rounds")
    ap.add_argument(
        "--trial",
        type=float,
        default=None,
        help="seconds of a search's final trials (default 1; --quick 0.5)",
    )
    ap.add_argument(
        "--relative-width",
        type=float,
        default=None,
        help="MLRsearch stops when its bounds are this close (default 0.02; --quick 0.05)",
    )
    ap.add_argument(
        "--rate-slack",
        type=float,
        default=0.01,
        help="a trial offered below (1 - this) of its rate counts its "
        "missing frames as lost (default 0.01)",
    )
    ap.add_argument(
        "--ceiling-share",
        type=float,
        default=0.95,
        help="a search is at the ceiling when its NDR is this share of the "
        "generator's reach in it or of the wire's maximum (default 0.95)",
    )
    ap.add_argument(
        "--cost-pps",
        type=float,
        default=0.5e6,
        help="the cost rounds' offered load, 64 B (default 0.5 Mpps)",
    )
    ap.add_argument(
        "--cost-duration",
        type=float,
        default=None,
        help="seconds of a cost trial (default 3; --quick 2)",
    )
    ap.add_argument("--warmup", type=float, default=0.05, help="seconds before a trial counts")
    ap.add_argument("--drain", type=float, default=0.1, help="seconds for frames in flight")


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def rules(a: Any, goal: verdict.Goal, pairs: int, sizes: list[int]) -> dict[str, Any]:
    return {
        "goal (every search)": goal.text(),
        "search": f"MLRsearch (draft-ietf-bmwg-mlrsearch), relative width {a.relative_width:g}, "
        f"trials {a.trial / 2:g} s then {a.trial:g} s, warm-up {a.warmup:g} s, "
        f"drain {a.drain:g} s; upper bound the wire's maximum (duts.wire_max_pps)",
        "short offer": f"a trial offered below {1 - a.rate_slack:g} of its rate counts the "
        "missing frames as lost",
        "pairs": f"{pairs} per comparison, the order of the sides reversed every other pair; "
        "every search on a fresh testbed; placement probed before every trial",
        "ceiling": f"a search is at the ceiling when its NDR >= {a.ceiling_share:g} x min("
        "the generator's highest offered rate in that search, the wire's maximum); "
        "a pair is a tie when both sides are",
        "sizes / wires": f"{','.join(map(str, sizes))} B on {a.wires}",
        "cost": f"{a.cost_pps / 1e6:g} Mpps of 64 B, {a.cost_duration:g} s trials, "
        "same load for every side; kernel: /proc/stat busy (all but idle and iowait, "
        "softirq included); twinplane: TSC x sending time (whole polling core)",
        "excluded": "nothing: every trial is in the JSON; a side that fails to start or "
        "dies gives its pair no ratio and is listed under errors",
    }


def side(ctx: report.Context, wire: str, dut: str, size: int, body: Any) -> dict[str, Any]:
    """One side of a pair on a fresh testbed (other tasks swept off the DUT's CPU first)."""
    if ctx.iso is not None:
        ctx.iso.sweep()
    return B.run_side(
        ctx.workdir, D.Binaries(), ctx.tsc_hz, wire, dut, [size], body, testbed=TESTBED
    )


def ndr_line(r: dict[str, Any]) -> str:
    if "error" in r:
        return r["error"][:200]
    return (
        f"NDR {r['ndr_pps'] / 1e6:.3f} Mpps (generator reach {r['gen_reach_pps'] / 1e6:.3f}, "
        f"{r['placement']}, {len(r['trials'])} trials, {r['wall_s']:.0f} s)"
        + (" at the ceiling" if r["at_ceiling"] else "")
    )


def ndr_phase(ctx: report.Context, goal: verdict.Goal, sizes: list[int], out: dict) -> None:
    a = ctx.args
    mlr = {
        "relative_width": a.relative_width,
        "initial_trial_duration_s": a.trial / 2,
        "final_trial_duration_s": a.trial,
        "rate_slack": a.rate_slack,
    }
    for wire in a.wires.split(","):
        for size in sizes:
            runs = out.setdefault(f"{wire}_{size}", [])

            def search(tb: D.Testbed, s: int = size) -> dict[str, Any]:
                return B.ndr_search(tb, s, goal, mlr, a.ceiling_share, a.warmup, a.drain)

            for i in range(ctx.pairs):
                run: dict[str, Any] = {"index": i, "order": B.side_order(B.SIDES[wire], i)}
                for dut in run["order"]:
                    run[dut] = side(ctx, wire, dut, size, search)
                    say(f"[{wire} {size} B pair {i + 1}/{ctx.pairs}] {dut}: {ndr_line(run[dut])}")
                runs.append(run)


def cost_phase(ctx: report.Context, out: list) -> None:
    a = ctx.args
    sides = [f"{d}_{w}" for d, w in B.COST_SIDES if w in a.wires.split(",")]

    def trial(tb: D.Testbed) -> dict[str, Any]:
        return B.cost_trial(tb, a.cost_pps, a.cost_duration, a.warmup, a.drain)

    for i in range(ctx.pairs):
        run: dict[str, Any] = {"index": i, "order": B.side_order(sides, i)}
        for name in run["order"]:
            dut, wire = name.split("_")
            r = run[name] = side(ctx, wire, dut, 64, trial)
            c = r.get("cycles_per_pkt") or {}
            figs = ", ".join(f"{k} {v:.0f}" for k, v in c.items() if v and k != "busy_share")
            say(f"[cost {i + 1}/{ctx.pairs}] {name}: {r.get('error', figs)[:200]}")
        out.append(run)


def ceiling_of(ps: list[paired.Pair]) -> float | None:
    tied = [min(p.a, p.b) for p in ps if p.at_ceiling]
    return min(tied) if tied else None


def add_ndr(rep: report.Report, runs: list, wire: str, size: int, texts: list) -> None:
    comps = [("l3fwd", "twinplane", "ndr_twinplane_over_l3fwd")]  # (A, B): B / A
    if wire == "veth":
        comps.append(("twinplane", "kernel", "ndr_kernel_over_twinplane"))
    for side_a, side_b, stem in comps:
        ps = B.pairs(
            runs,
            side_a,
            side_b,
            lambda r: r.get("ndr_pps"),
            ceiling=lambda r: bool(r.get("at_ceiling")),
        )
        if not ps:
            continue
        ceil = ceiling_of(ps)
        h = paired.headline(
            ps, f"NDR of {side_b} / NDR of {side_a}, {wire}, {size} B", ceiling=ceil
        )
        name = f"{stem}_{wire}_{size}"
        rep.add(
            name,
            {**h.to_json(), "ceiling_pps": ceil},
            NDR_BAR if name == f"ndr_twinplane_over_l3fwd_memif_{BAR_SIZE}" else None,
        )
        texts.append(
            (
                name,
                h.text("{:.3g}")
                if ceil is None
                else h.text("{:.3g}").replace(f">= {ceil:g}", f">= {ceil / 1e6:.3f} Mpps"),
            )
        )


# (name, kernel side, twinplane side); the kernel is charged its /proc/stat busy time
COSTS = (
    ("cost_kernel_over_twinplane_veth", "kernel_veth", "twinplane_veth"),
    ("cost_kernel_veth_over_twinplane_memif", "kernel_veth", "twinplane_memif"),
)
# twinplane's definitions: the headline's first, the others beside it
TP_DEFS = (
    ("", "whole_core", "TSC x sending time per packet delivered (its whole polling core)"),
    ("_busy_loop", "busy_loop", "its busy-loop cycles per packet (loop passes with packets)"),
    ("_proc", "proc_busy", "its CPU's /proc/stat busy time per packet, as the kernel's"),
)


def add_cost(rep: report.Report, runs: list) -> None:
    def fig(defn: str) -> Any:
        return lambda r: (r.get("cycles_per_pkt") or {}).get(defn)

    for name, kside, tside in COSTS:
        for suffix, tdef, what in TP_DEFS:
            ps = B.pairs(runs, tside, kside, fig(tdef), fig("proc_busy"))
            if ps:
                defn = (
                    f"kernel's CPU /proc/stat busy cycles per packet (softirq included) "
                    f"on veth / twinplane's on {tside.split('_')[1]}: {what}; "
                    f"both at the same offered load"
                )
                rep.add(name + suffix, paired.headline(ps, defn))


def tables(ndr: dict[str, list], cost: list) -> str:
    lines = [
        "## NDR per DUT (Mpps, median of its searches per placement)",
        "",
        "| wire | size | DUT | placement | searches | NDR | at the ceiling | reach |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for key, runs in ndr.items():
        wire, size = key.split("_")
        for dut in B.SIDES[wire]:
            rs = [r[dut] for r in runs if dut in r and "error" not in r[dut]]
            for where in sorted({str(r["placement"]) for r in rs}):
                g = [r for r in rs if str(r["placement"]) == where]
                med = statistics.median(r["ndr_pps"] for r in g) / 1e6
                reach = statistics.median(r["gen_reach_pps"] for r in g) / 1e6
                n_c = sum(r["at_ceiling"] for r in g)
                lines.append(
                    f"| {wire} | {size} | {dut} | {where} | {len(g)} | {med:.3f} | "
                    f"{n_c}/{len(g)} | {reach:.3f} |"
                )
    if cost:
        lines += [
            "",
            "## Cost per packet (cycles, median over the rounds)",
            "",
            "| side | rounds | proc_busy | proc_softirq | whole_core | busy_loop | busy share |",
            "|---|---|---|---|---|---|---|",
        ]
        for side in [f"{d}_{w}" for d, w in B.COST_SIDES]:
            cs = [r[side]["cycles_per_pkt"] for r in cost if "cycles_per_pkt" in r.get(side, {})]
            if not cs:
                continue
            cells = []
            for k in ("proc_busy", "proc_softirq", "whole_core", "busy_loop", "busy_share"):
                v = [c[k] for c in cs if c.get(k) is not None]
                cells.append(
                    f"{statistics.median(v):.{3 if k == 'busy_share' else 0}f}" if v else "-"
                )
            lines.append(f"| {side} | {len(cs)} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def keep_trials(rep: report.Report, ndr: dict[str, list], cost: list) -> list[dict[str, Any]]:
    """Every trial of every side into the report (taken out of the runs); the errors."""
    errors = []
    groups = [(f"ndr {k}", rs) for k, rs in ndr.items()] + [("cost", cost)]
    for phase, runs in groups:
        for run in runs:
            for side, r in run.items():
                if not isinstance(r, dict):
                    continue
                trials = r.pop("trials", None) or ([r["trial"]] if "trial" in r else [])
                meta = {"phase": phase, "pair": run["index"], "side": side}
                rep.trials += [{**meta, **t} for t in trials]
                if "error" in r:
                    errors.append({**meta, "error": r["error"]})
    return errors


def measure(ctx: report.Context) -> report.Report:
    a = ctx.args
    a.trial = a.trial or (0.5 if a.quick else 1.0)
    a.duration_sum = a.duration_sum or (2.0 if a.quick else GOAL.duration_sum)
    a.relative_width = a.relative_width or (0.05 if a.quick else 0.02)
    a.cost_duration = a.cost_duration or (2.0 if a.quick else 3.0)
    goal = verdict.goal_from_args(a)
    sizes = [int(s) for s in a.sizes.split(",")]
    D.ensure_hugepages(1024)
    D.reap_stale_namespaces()
    rep = report.Report(NAME, rules(a, goal, ctx.pairs, sizes))
    ndr: dict[str, list] = {}
    cost: list = []
    if not a.no_cost:  # first: a short phase, its load fixed before the run
        cost_phase(ctx, cost)
    if not a.no_ndr:
        ndr_phase(ctx, goal, sizes, ndr)
    errors = keep_trials(rep, ndr, cost)
    return assemble(rep, ndr, cost, errors, goal.to_json())


def merge(paths: list[Path]) -> report.Report:
    """The report from parts (runs over some wires, sizes or phases each, at one
    tree): their searches and rounds side by side, as one run would have made them."""
    docs = report.load_parts(NAME, paths, {"sizes / wires"})
    rep = report.merged_report(NAME, paths, docs, {"sizes / wires"})
    ndr: dict[str, list] = {}
    for p, d in zip(paths, docs, strict=True):
        for key, runs in d.get("ndr_searches", {}).items():
            if key in ndr:
                raise report.PartsError(f"{p}: {key} is in another part too")
            ndr[key] = runs
    with_cost = [d["cost_rounds"] for d in docs if d.get("cost_rounds")]
    if len(with_cost) > 1:
        raise report.PartsError("cost rounds in more than one part")
    errors = [e for d in docs for e in d.get("errors", [])]
    return assemble(rep, ndr, with_cost[0] if with_cost else [], errors, docs[0]["goal"])


def assemble(
    rep: report.Report, ndr: dict[str, list], cost: list, errors: list, goal: dict[str, Any]
) -> report.Report:
    """The headline, tables and plot of the searches and rounds (trials kept already)."""
    texts: list = []
    for key, runs in ndr.items():
        wire, size = key.split("_")
        add_ndr(rep, runs, wire, int(size), texts)
    add_cost(rep, cost)
    bar_key = f"ndr_twinplane_over_l3fwd_memif_{BAR_SIZE}"
    if ndr.get(f"memif_{BAR_SIZE}") and bar_key not in rep.headline:
        rep.bars[bar_key] = NDR_BAR  # no pair had both sides
    rep.extra.update(ndr_searches=ndr, cost_rounds=cost, errors=errors, goal=goal)
    rep.markdown = tables(ndr, cost)
    if ndr:
        rep.figure = lambda path: B.plot_ndr(ndr, path)
    if texts:
        rep.markdown += "\n## NDR comparisons (paired, per placement)\n\n" + "".join(
            f"- `{n}`: {t}\n" for n, t in texts
        )
    if errors:
        rep.markdown += f"\n{len(errors)} side(s) failed: see `errors` in the JSON.\n"
    return rep


if __name__ == "__main__":
    sys.exit(report.main(NAME, __doc__, build, measure, merge=merge))

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Forwarding cost: twinplane against DPDK's l3fwd on one in-memory input, paired.

Each pair runs l3fwd (A) and twinplane (B) back to back in ABBA order, then
testpmd io (the floor: net_pcap's rx copy and tx free plus a loop). All three
forward the same pcap of 64-byte IPv4/UDP frames replayed from memory (net_pcap
infinite_rx) on one forwarding lcore alone on CPU 0 (twinplane's and testpmd's
main lcore on CPU 1; l3fwd forwards on its main lcore), and are read through
the same counter (port 1 opackets, DPDK telemetry).
Cycles per packet = TSC Hz / packets per second: the whole polling core.

Headline: twinplane_over_l3fwd_mpps, the paired median of twinplane Mpps / l3fwd
Mpps per placement and pooled (goal >= 1.05, 95 % interval above 1.0), and
overhead_twinplane_over_l3fwd, (twinplane - floor) / (l3fwd - floor) in cycles
per packet within each pair. How and why: docs/bench/fwd_cost.md.

IPv6 (issue 35): each pair then runs the three again on 78-byte IPv6/UDP frames (the
generator's ip6-udp, to l3fwd's built-in LPM6 route; l3fwd with ``--ipv6``). Headline
ip6_twinplane_over_l3fwd_mpps, paired the same way (goal >= 0.95). ``--families ip4``
leaves it out.

Usage (root; takes the lab lock): .venv/bin/python bench/fwd_cost.py [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from twinplane.bench import ensure_venv

ensure_venv(ROOT)

from twinplane.bench import duts as D
from twinplane.bench import fwd_cost_bed as B
from twinplane.bench import paired, report, stale

NAME = "fwd_cost"
SIDES = {"A": "l3fwd", "B": "twinplane"}
BAR = report.Bar(">=", 1.05, ci_edge=1.0)  # issue 34: router in-memory
BAR6 = report.Bar(">=", 0.95)  # issue 35: IPv6 at least 95 % of l3fwd's LPM6
MPPS_DEF = "twinplane Mpps / l3fwd Mpps (port 1 opackets rate), within each pair"
OVER_DEF = (
    "(twinplane - testpmd io) / (l3fwd - testpmd io) in TSC cycles per packet, "
    "the testpmd io trial of the same pair as the floor"
)


def build(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="measurement window per trial (default 5; --quick 2)",
    )
    ap.add_argument(
        "--warmup",
        type=float,
        default=None,
        help="seconds from the first packet out to the window (2; --quick 1)",
    )
    ap.add_argument("--frames", type=int, default=1024, help="distinct frames in the input")
    ap.add_argument(
        "--families",
        default="ip4,ip6",
        help="inputs, in this order within each pair: ip4, ip6 or both (default)",
    )
    bins = B.Binaries()
    ap.add_argument("--l3fwd", type=Path, default=bins.l3fwd)
    ap.add_argument("--twinplane", type=Path, default=bins.twinplane)
    ap.add_argument("--testpmd", type=Path, default=bins.testpmd)


def probe() -> tuple[str, float | None]:
    """The placement of CPU 0 and CPU 1 on the host, probed with nothing running."""
    p = D.xcpu_probe()
    rtt = p["rtt_ns"] if p else None
    return D.placement(rtt) or "unprobed", rtt


def rules(ctx: report.Context, bed: B.Bed, inp: dict[str, Any], inp6: dict | None) -> dict:
    r = {
        "pairs": f"{ctx.pairs}, ABBA: A = l3fwd, B = twinplane (pair 0 AB, pair 1 BA, ...); "
        "testpmd io after each pair, in every pair",
        "trial": f"start, wait for port 1 to transmit, {bed.warmup:g} s warm-up, "
        f"{bed.seconds:g} s window, stop",
        "input": f"{inp['frames']} distinct {inp['frame_len']} B IPv4/UDP frames to "
        f"{inp['dst_net']}, net_pcap infinite_rx (`{inp['ports'][0]}`); port 1 `{inp['ports'][1]}`",
        "lcores": f"the forwarding lcore {B.WORKER_LCORE} alone on CPU {B.WORKER_CPU} for all "
        f"three; twinplane and testpmd `--lcores {B.LCORES}` (main lcore on CPU {B.MAIN_CPU}, "
        f"with this script), l3fwd `--lcores {B.L3FWD_LCORES}` (it forwards on its main "
        "lcore); every thread nice -20",
        "Mpps": "port 1 opackets over the window, DPDK telemetry /ethdev/stats (all three)",
        "cycles per packet": f"TSC Hz ({ctx.tsc_hz / 1e6:.0f} MHz) / packets per second: "
        "the whole polling core, on every side",
        "placement": "tp-xcpu-probe CPU 0 <-> CPU 1 before each pair (its class labels the "
        "pair) and after it (recorded); headline per placement and pooled",
        "ceiling": "none: each forwarder's own core pulls the input from memory, there is "
        "no generator or wire to reach (testpmd io is the same core doing less work)",
        "loss goal": "none: no search and no offered load (each forwarder pulls the input "
        "from memory as fast as it polls), so no MLRsearch goal applies",
        "failures": "a trial that fails stops the run; no trial is re-run or left out",
        "twinplane build": f"`{B.twinplane_cflags()}` (build/compile_commands.json)",
        "l3fwd build": f"`{B.l3fwd_cflags()}` (scripts/build-l3fwd.sh; `--lookup lpm "
        "--parse-ptype`, offloads masked, busy counters)",
        "testpmd": f"`{bed.bins.testpmd}` (Debian dpdk-dev, `--forward-mode=io`)",
    }
    if inp6 is not None:
        r["IPv6 input"] = (
            f"after the IPv4 trials of each pair, the same three (same order) on "
            f"{inp6['frames']} distinct {inp6['frame_len']} B IPv6/UDP frames (ip6-udp, hop "
            f"limit 64, valid UDP checksum) to {inp6['dst_net']}, l3fwd's built-in LPM6 route "
            "to port 1; l3fwd `--ipv6` (it does not decrement the hop limit, twinplane does); "
            "headline `ip6_twinplane_over_l3fwd_mpps` paired as IPv4's"
        )
    return r


def measure(ctx: report.Context) -> report.Report:
    a = ctx.args
    seconds = a.seconds if a.seconds is not None else (2.0 if a.quick else 5.0)
    warmup = a.warmup if a.warmup is not None else (1.0 if a.quick else 2.0)
    bins = B.Binaries(a.l3fwd, a.twinplane, a.testpmd)
    fams = [f for f in a.families.split(",") if f]
    if not fams or set(fams) - {"ip4", "ip6"}:
        raise SystemExit(f"--families {a.families!r}: ip4, ip6 or ip4,ip6")
    beds = {
        f: B.Bed(ctx.workdir, ctx.tsc_hz, seconds, warmup, a.frames, bins, family=f) for f in fams
    }
    inps = {f: b.prepare() for f, b in beds.items()}
    bed, inp, inp6 = next(iter(beds.values())), inps.get("ip4", {}), inps.get("ip6")
    rep = report.Report(NAME, rules(ctx, bed, inp or inp6 or {}, inp6))
    print(
        f"bench/{NAME}.py: {ctx.pairs} pairs x {3 * len(fams)} trials of {warmup:g}+{seconds:g} s",
        flush=True,
    )
    trials = rep.trials
    for i, order in enumerate(paired.abba_order(ctx.pairs)):
        where, rtt = probe()
        for fam, fbed in beds.items():
            for pos, dut in enumerate([*(SIDES[s] for s in order), "testpmd"]):
                if ctx.iso is not None:
                    ctx.iso.sweep()
                t = fbed.trial(dut)
                t.update(pair=i, order="".join(order), position=pos, placement=where)
                t.update(xcpu_rtt_ns=rtt, family=fam)
                trials.append(t)
        after = probe()[1]
        for t in trials[-3 * len(fams) :]:
            t["xcpu_rtt_ns_after"] = after
        for fam in fams:
            got = {t["dut"]: t for t in trials[-3 * len(fams) :] if t["family"] == fam}
            print(
                f"  pair {i + 1}/{ctx.pairs} {fam} {''.join(order)} {where}: "
                + ", ".join(
                    f"{d} {got[d]['mpps']:.2f} Mpps {got[d]['cycles_per_pkt']:.1f} cyc"
                    for d in B.DUTS
                )
                + f", ratio {got['twinplane']['mpps'] / got['l3fwd']['mpps']:.3f}",
                flush=True,
            )
    rep.extra = {"input": inp}
    md6, h6 = "", None
    if "ip6" in fams:
        t6 = B.of_family(trials, "ip6")
        mpps6, over6 = B.make_pairs(t6)
        h6 = paired.headline(mpps6, MPPS_DEF)
        rep.add("ip6_twinplane_over_l3fwd_mpps", h6, BAR6)
        rep.add("ip6_overhead_twinplane_over_l3fwd", paired.headline(over6, OVER_DEF))
        by6 = B.medians_by_placement(t6)
        rep.extra.update(input6=inp6, pairs6=[p.to_json() for p in mpps6], medians6=by6)
        md6 = "# IPv6\n\n" + markdown(h6, mpps6, over6, t6, by6, BAR6, "ip6_")
    if "ip4" not in fams:
        rep.extra["measured_paths"] = stale.DEFAULT_PATHS[NAME]
        rep.markdown = md6
        rep.figure = lambda path: plot(path, t6, mpps6, h6)
        return rep
    trials4 = B.of_family(trials, "ip4")
    mpps, over = B.make_pairs(trials4)
    h_mpps = paired.headline(mpps, MPPS_DEF)
    rep.add("twinplane_over_l3fwd_mpps", h_mpps, BAR)
    rep.add("overhead_twinplane_over_l3fwd", paired.headline(over, OVER_DEF))
    by_place = B.medians_by_placement(trials4)
    rep.extra.update(
        {
            "pairs": [p.to_json() for p in mpps],
            "overhead_pairs": [p.to_json() for p in over],
            "medians_by_placement": by_place,
            "measured_paths": stale.DEFAULT_PATHS[NAME],
        }
    )
    rep.markdown = markdown(h_mpps, mpps, over, trials4, by_place) + md6
    rep.figure = lambda path: plot(path, trials4, mpps, h_mpps)
    return rep


def goal_text(h: paired.Headline, bar: report.Bar = BAR, key: str = "") -> str:
    s = h.pooled
    met = bar.met(s.ratio, list(s.ci95) if s.ci95 else None)
    word = "is met" if met else "is **not met**"
    parts = [f"{k} {paired.describe(v, '{:.3f}')}" for k, v in sorted(h.by_placement.items())]
    return (
        f"Goal `{key}twinplane_over_l3fwd_mpps` {bar.text()} {word}: pooled paired median "
        f"{paired.describe(s, '{:.3f}')}; by placement: {'; '.join(parts)}."
    )


def markdown(
    h: paired.Headline,
    mpps: list[paired.Pair],
    over: list[paired.Pair],
    trials: list[dict[str, Any]],
    by_place: dict[str, Any],
    bar: report.Bar = BAR,
    key: str = "",
) -> str:
    lines = [
        "## Against the goal",
        "",
        goal_text(h, bar, key),
        "",
        "## Medians by placement",
        "",
        "| placement | forwarder | trials | Mpps | cycles/packet | above the floor |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for where, per in by_place.items():
        floor = per.get("testpmd", {}).get("cycles_per_pkt")
        for dut, m in per.items():
            above = (
                "floor"
                if dut == "testpmd"
                else (f"{m['cycles_per_pkt'] - floor:.1f}" if floor else "-")
            )
            lines.append(
                f"| {where} | {dut} | {m['trials']} | {m['mpps']:.2f} | "
                f"{m['cycles_per_pkt']:.1f} | {above} |"
            )
    lines += [
        "",
        "## Pairs",
        "",
        "Each pair in its order, testpmd io last; placement probed before the pair "
        "(round trip before / after, ns). Cycles are TSC cycles per packet.",
        "",
        "| pair | order | placement | l3fwd Mpps | twinplane Mpps | testpmd Mpps | "
        "ratio | l3fwd cyc | twinplane cyc | floor cyc | overhead ratio |",
        "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for p, o in zip(mpps, over, strict=True):
        t = {x["dut"]: x for x in trials if x["pair"] == p.index}
        rtt = "/".join(
            f"{v:.0f}" if v is not None else "-"
            for v in (t["l3fwd"]["xcpu_rtt_ns"], t["l3fwd"]["xcpu_rtt_ns_after"])
        )
        lines.append(
            f"| {p.index} | {''.join(p.order)} | {p.placement} ({rtt}) | {p.a:.2f} | {p.b:.2f} | "
            f"{p.extra['testpmd_mpps']:.2f} | {p.ratio():.3f} | "
            f"{t['l3fwd']['cycles_per_pkt']:.1f} | {t['twinplane']['cycles_per_pkt']:.1f} | "
            f"{p.extra['floor_cycles_per_pkt']:.1f} | {o.ratio():.3f} |"
        )
    busy = {
        d: [t["busy"]["share"] for t in trials if t["dut"] == d and "busy" in t]
        for d in SIDES.values()
    }
    main = {
        d: [t["main_cpu_busy"] for t in trials if t["dut"] == d and t["main_cpu_busy"] is not None]
        for d in B.DUTS
    }
    drops = sum(sum(t.get("drops", {}).values()) for t in trials)
    fwd = min(t["mpps"] / t["rx_mpps"] for t in trials if t["rx_mpps"])
    lines += [
        "",
        "## Checks",
        "",
        "- Busy share of the forwarding lcore (its own counters: cycles of loop passes "
        "that received packets over all its cycles), median: "
        + ", ".join(f"{d} {statistics.median(v) * 100:.2f} %" for d, v in busy.items() if v)
        + ".",
        f"- CPU {B.MAIN_CPU} (main lcores, this script, the machine's other work) busy "
        "during the windows, median: "
        + ", ".join(f"{d} {statistics.median(v) * 100:.0f} %" for d, v in main.items() if v)
        + ".",
        f"- Packets dropped by twinplane over all its windows: {drops}; lowest share of "
        f"port 0's received packets sent on port 1 in any trial: {fwd * 100:.2f} %.",
        "- Shutdown problems: "
        + (
            ", ".join(
                f"pair {t['pair']} {t['dut']}: {t['shutdown_problem']}"
                for t in trials
                if t["shutdown_problem"]
            )
            or "none"
        )
        + ".",
    ]
    return "\n".join(lines) + "\n"


def plot(
    path: Path, trials: list[dict[str, Any]], mpps: list[paired.Pair], h: paired.Headline
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    colors = {"l3fwd": "#4c72b0", "twinplane": "#dd8452", "testpmd": "#8c8c8c"}
    marks = {"near": "o", "mid": "s", "far": "D"}
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(11, 4.2))
    for d in B.DUTS:
        ts = [t for t in trials if t["dut"] == d]
        ax0.plot([t["pair"] for t in ts], [t["mpps"] for t in ts], color=colors[d], label=d)
        for t in ts:
            ax0.scatter(
                t["pair"], t["mpps"], color=colors[d], marker=marks.get(t["placement"], "x")
            )
    ax0.set_xlabel("pair (markers: placement o near, s mid, D far, x unprobed)")
    ax0.set_ylabel("Mpps (64 B, one forwarding lcore)")
    ax0.set_ylim(bottom=0)
    ax0.legend(fontsize=8)
    for p in mpps:
        ax1.scatter(p.index, p.ratio(), color="black", marker=marks.get(p.placement, "x"))
    s = h.pooled
    if s.ratio is not None and s.ci95 is not None:
        ax1.axhspan(*s.ci95, color="#dd8452", alpha=0.2, label="pooled 95 % interval")
        ax1.axhline(s.ratio, color="#dd8452", label=f"pooled paired median {s.ratio:.3f}")
    ax1.axhline(BAR.value, color="green", linestyle="--", label=f"goal {BAR.value:g}")
    ax1.axhline(1.0, color="grey", linestyle=":", linewidth=1)
    ax1.set_xlabel("pair")
    ax1.set_ylabel("twinplane Mpps / l3fwd Mpps")
    ax1.legend(fontsize=8, loc="best")
    for ax in (ax0, ax1):
        ax.grid(alpha=0.3)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.suptitle(
        "fwd_cost: net_pcap infinite_rx, l3fwd / twinplane in ABBA pairs, "
        "testpmd io after each pair",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(report.main(NAME, __doc__, build, measure))

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The NDN forwarder (issue 10): cycles per Interest-Data exchange by name length
and Data payload, twinplane's own IPv4 forwarding on the same wire as the floor
(paired, ABBA), the Content Store hit path, the capacity (MLRsearch) and the
satisfaction sweep, both judged by ONE goal given on the command line, and RTTs.

Beds: one per Data payload (``twinplane.bench.ndn_bed``), then the generator's
own loopback (no forwarder). How and why: docs/bench/ndn.md.

Usage (root; takes the lab lock itself):
    .venv/bin/python bench/ndn.py --quick --out /tmp/ndn-quick   # ~5-8 min
    .venv/bin/python bench/ndn.py                                # ~30-40 min
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
from twinplane.bench import ndn_bed as NB
from twinplane.bench import paired, report, verdict

COMPS, QUICK_COMPS = (3, 7, 13), (3, 13)
PAYLOADS, QUICK_PAYLOADS = (0, 300, 600, 900, 1200), (0, 1200)
SWEEP = (0.2e6, 0.4e6, 0.6e6, 0.8e6, 1.0e6, 1.2e6, 1.4e6, 1.8e6, 2.2e6, 2.6e6, 3.0e6, 3.5e6)
QUICK_SWEEP = (0.4e6, 0.8e6, 1.6e6, 2.5e6, 3.5e6)
GOAL = verdict.Goal(loss_ratio=0.0, exceed_ratio=0.5, duration_sum=5.0)
LAT_RATE = 100_000.0  # Interests/s: the low-load RTT
BAR_CYCLES = 500.0  # issue 34: cycles per exchange, 3 components, 0 B
QS = ("p50", "p99", "p999", "max")


def build(ap: Any) -> None:
    verdict.add_goal_arguments(ap, GOAL)
    ap.add_argument("--comps", help="name lengths, 3 among them (3,7,13; --quick 3,13)")
    ap.add_argument("--payloads", help="Data payloads, bytes, 0 first (0,...,1200; --quick 0,1200)")
    ap.add_argument("--cost-rate", type=float, default=NB.COST_RATE, help="Interests/s (500000)")
    ap.add_argument("--cost-seconds", type=float, help="a cost trial (2; --quick 0.5)")
    ap.add_argument("--trial-seconds", type=float, default=1.0,
                    help="a search's final trials and a sweep point's trials (1)")  # fmt: skip
    ap.add_argument("--resolution", type=float, help="the search's relative width (0.02; 0.05)")
    ap.add_argument("--searches", type=int, help="searches and sweeps per name length (3; 1)")


def options(a: Any) -> None:
    a.comps = [int(x) for x in a.comps.split(",")] if a.comps else list(
        QUICK_COMPS if a.quick else COMPS)  # fmt: skip
    a.payloads = [int(x) for x in a.payloads.split(",")] if a.payloads else list(
        QUICK_PAYLOADS if a.quick else PAYLOADS)  # fmt: skip
    if 3 not in a.comps or a.payloads[0] != 0:
        raise SystemExit("--comps must hold 3 and --payloads start with 0 (the headline's)")
    a.cost_seconds = a.cost_seconds or (0.5 if a.quick else 2.0)
    a.resolution = a.resolution or (0.05 if a.quick else 0.02)
    a.searches = a.searches or (1 if a.quick else 3)
    a.sweep = QUICK_SWEEP if a.quick else SWEEP


def rules(a: Any, goal: verdict.Goal, pairs: int) -> dict[str, Any]:
    return {
        "goal (capacity search and every sweep point)": goal.text(),
        "loss": "an Interest not satisfied by Data in the trial and its 0.2 s drain (refused "
        f"by the memif ring included); a generator short of the asked rate by over "
        f"{NB.RATE_SLACK:.0%} has the rest counted as lost",
        "capacity": f"MLRsearch (rfc2544.mlr_search) from {NB.SEARCH_HI / 1e6:g} M/s, relative "
        f"width {a.resolution:g}, final trials {a.trial_seconds:g} s; the capacity is the "
        "relevant lower bound's load",
        "sweep point": f"trials of {a.trial_seconds:g} s at the rate until the goal decides it "
        "(verdict.load_verdict over all of them)",
        "below capacity": "a sweep point's rate under the capacity of its name length (payload "
        "0) in its placement (the median of the searches there; placement: 80 % of the trials' "
        "probes agree, else mixed); lacking one, under the lowest capacity measured (any "
        "placement or mixed). Each such point the goal does not pass counts in "
        "sweep_points_failing; a point at or over it is not held to the goal; every point is "
        "listed",
        "cost": f"{a.cost_rate / 1e3:g}k Interests/s, {NB.WARMUP_S:g} s warm-up then "
        f"{a.cost_seconds:g} s; forwarder busy cycles / Data sent to the consumer's face",
        "pairs (IPv4 floor vs 3-component exchange, ABBA, per payload)": pairs,
        "placement": "probed before each pair (the pair's) and before each trial (the trial's)",
        "searches per name length (payload 0)": a.searches,
        "searches per other payload (3 components)": 1,
        "sweep (M Interests/s)": ", ".join(f"{r / 1e6:g}" for r in a.sweep),
        "name lengths": ", ".join(map(str, a.comps)),
        "payloads (B)": ", ".join(map(str, a.payloads)),
    }


def measure(ctx: report.Context) -> report.Report:
    a = ctx.args
    options(a)
    goal = verdict.goal_from_args(a)
    rep = report.Report("ndn", rules(a, goal, ctx.pairs))
    state: dict[str, Any] = {"pairs": {}, "searches": [], "points": [], "errors": []}
    for payload in a.payloads:
        run_bed(ctx, rep, state, NB.Bed(payload, ctx.workdir, ctx.tsc_hz), goal)
    run_bed(ctx, rep, state, NB.Bed(0, ctx.workdir, ctx.tsc_hz, loopback=True), goal)
    summarize(a, rep, state)
    return rep


def keep(rep: report.Report, t: dict[str, Any], **tags: Any) -> None:
    rep.trials.append({**tags, **t})


def run_bed(ctx: report.Context, rep: report.Report, st: dict, bed: NB.Bed, goal: Any) -> None:
    a, payload = ctx.args, bed.payload
    bed_tag = "loopback" if bed.loopback else payload
    if ctx.iso is not None:
        ctx.iso.sweep()
    D.ensure_hugepages(1024)
    print(f"bench/ndn.py: bed {bed_tag}", flush=True)
    try:
        bed.start()
        rep.extra.setdefault("setup", bed.setup)
        if bed.loopback:
            for i in range(a.searches):
                search(ctx, rep, st, bed, 3, i, goal)
            return
        st["pairs"][payload] = cost_pairs(ctx, rep, bed)
        for i in range(a.searches if payload == 0 else 1):
            for comps in a.comps if payload == 0 else [3]:
                search(ctx, rep, st, bed, comps, i, goal)
                if payload == 0:
                    sweep(ctx, rep, st, bed, comps, i, goal)
    except Exception as e:  # noqa: BLE001 - the other beds still report
        st["errors"].append(f"bed {bed_tag}: {str(e).splitlines()[0]}")
        print(f"bench/ndn.py: bed {bed_tag}: ERROR {e}", flush=True)
    finally:
        bed.close()


def cost_pairs(ctx: report.Context, rep: report.Report, bed: NB.Bed) -> list[paired.Pair]:
    """ABBA pairs of the IPv4 floor (A: cycles per two 64 B packets at twice the cost
    rate) and the 3-component exchange (B); after each pair, the other name lengths
    and the CS hit in the same bed (figures, no comparison)."""
    a, payload, n = ctx.args, bed.payload, [0]

    def mode(m: str, stream: str) -> str:
        bed.set_mode(m)
        bed.wait_path(stream)
        return stream

    def ipv4() -> float:
        t = NB.cost_trial(bed, mode("l3", bed.ip_stream(64)), 2 * a.cost_rate, a.cost_seconds)
        keep(rep, t, kind="ipv4", payload=payload, pair=n[0])
        return 2 * t["cycles_per_packet"] if t.get("cycles_per_packet") else float("nan")

    def ndn(comps: int, seq_mod: int | None = None) -> float:
        s = mode("ndn", bed.ndn_stream(comps, seq_mod))
        t = NB.cost_trial(bed, s, a.cost_rate, a.cost_seconds)
        kind = "cs_hit" if seq_mod else "cost"
        keep(rep, t, kind=kind, payload=payload, comps=comps, pair=n[0])
        return t.get("cycles_per_cs_hit" if seq_mod else "cycles_per_exchange") or float("nan")

    def after(p: paired.Pair) -> None:
        for comps in a.comps if payload == 0 else []:
            if comps != 3:
                ndn(comps)
        ndn(3, NB.HIT_NAMES)
        print(f"  payload {payload} pair {p.index + 1}: {p.placement} IPv4x2 {p.a:.0f}, "
              f"exchange {p.b:.0f} cycles", flush=True)  # fmt: skip
        n[0] += 1

    def probe() -> str:
        return D.placement((D.xcpu_probe() or {}).get("rtt_ns")) or "none"

    return paired.run_pairs(ctx.pairs, ipv4, lambda: ndn(3), probe, on_pair=after)


def search(ctx: report.Context, rep: report.Report, st: dict, bed: NB.Bed, comps: int,
           i: int, goal: verdict.Goal) -> None:  # fmt: skip
    a, s = ctx.args, bed.ndn_stream(comps)
    bed.set_mode("ndn")
    bed.wait_path(s)
    tag = "loopback" if bed.loopback else bed.payload
    res = NB.capacity_search(lambda r, d: bed.trial(s, r, d), goal, a.trial_seconds, a.resolution)
    for t in res.pop("trials"):
        keep(rep, t, kind="search", payload=tag, comps=comps, search=i)
    st["searches"].append({**res, "payload": tag, "comps": comps, "search": i})
    cap = res["capacity_pps"] or 0
    print(f"  capacity {tag} {comps} comps: {cap / 1e6:.3f} M/s {res['placement']}", flush=True)
    keep(rep, bed.trial(s, LAT_RATE, a.trial_seconds), kind="latency", payload=tag, comps=comps)


def sweep(ctx: report.Context, rep: report.Report, st: dict, bed: NB.Bed, comps: int,
          i: int, goal: verdict.Goal) -> None:  # fmt: skip
    s = bed.ndn_stream(comps)
    for rate in ctx.args.sweep:
        pt = NB.sweep_point(lambda r=rate: bed.trial(s, r, ctx.args.trial_seconds), goal)
        for t in pt.pop("trials"):
            keep(rep, t, kind="sweep", payload=0, comps=comps, sweep=i)
        st["points"].append({**pt, "comps": comps, "sweep": i})


# --------------------------------------------------------------------------
# the report


def trials_of(rep: report.Report, **want: Any) -> list[dict[str, Any]]:
    return [t for t in rep.trials if all(t.get(k) == v for k, v in want.items())]


def figure(rep: report.Report, kind: str, key: str, what: str, **want: Any) -> dict[str, Any]:
    ts = trials_of(rep, kind=kind, **want)
    unit = key.replace("_", " ")
    return NB.figure([(t.get("placement"), t.get(key)) for t in ts], unit, what)


def mpps(v: float | None) -> str:
    return f"{v / 1e6:.3f}" if v else "-"


def cell(f: dict[str, Any]) -> str:
    if f.get("value") is None:
        return "-"
    lo, hi = (f"{x:,.0f}" for x in f["ci95"])
    return f"{f['value']:,.0f} ({lo}-{hi}) [{f['n']}]"


def summarize(a: Any, rep: report.Report, st: dict[str, Any]) -> None:
    cr, ps = a.cost_rate, a.payloads
    cpe = "forwarder busy cycles (loop passes that did work, trial and drain) / Data it sent"
    fig = {(c, p): figure(rep, "cost", "cycles_per_exchange", cpe, comps=c, payload=p)
           for c in a.comps for p in ps}  # fmt: skip
    fig |= {("CS hit, 3", p): figure(rep, "cs_hit", "cycles_per_cs_hit", "busy / cs_hits",
                                     payload=p) for p in ps}  # fmt: skip
    fig |= {
        ("IPv4 64 B, per packet", p): figure(
            rep, "ipv4", "cycles_per_packet", "busy / packets sent", payload=p
        )
        for p in ps
    }
    head = dict(fig[(3, 0)], definition=f"{cpe}; 3 components, 0 B, {cr / 1e3:g}k Interests/s")
    rep.add("cycles_per_exchange_3", head, report.Bar("<=", BAR_CYCLES))
    caps = NB.capacities_by_placement([s for s in st["searches"] if s["payload"] == 0])
    j = NB.judge_sweep(st["points"], caps)
    rep.add("sweep_points_failing", {
        "value": len(j["failing"]), "unit": "points", "below_capacity": len(j["below"]),
        "at_or_above": len(j["above"]), "no_capacity": len(j["no_capacity"]),
        "definition": "sweep points below capacity (rules) that the goal did not pass",
    }, report.Bar("<=", 0))  # fmt: skip
    if st["pairs"].get(0):
        rep.add("exchange_over_two_ipv4_packets_3", paired.headline(
            st["pairs"][0], "cycles per exchange (3 components, 0 B) / cycles per two IPv4 "
            "packets (64 B, same worker and wire), paired ABBA"))  # fmt: skip
    rep.extra.update(searches=st["searches"], sweep_points=st["points"], errors=st["errors"],
                     figures={f"{k[0]}/{k[1]}": v for k, v in fig.items()})  # fmt: skip
    L = ["## Goals", ""]
    for k, b in rep.bar_results().items():
        word = {True: "met", False: "**NOT met**", None: "not decided"}[b["met"]]
        L.append(f"- `{k}` {b['goal']}: {word}.")
    by = head["by_placement"]
    L += [
        "- `cycles_per_exchange_3` by placement: "
        + "; ".join(f"{pl} {cell(v)}" for pl, v in by.items())
        + ".",
        "",
        "Figures: median (bootstrap 95 % interval) [trials]; by placement, the trial's own "
        "probe. The IPv4 row is per packet, 64 B at twice the cost rate.",
        "",
        f"## Cycles at {cr / 1e3:g}k Interests/s, by name components",
        "",
        "| | " + " | ".join(f"{p} B Data" for p in ps) + " |",
        "|---|" + "---|" * len(ps),
    ]
    rows = [*a.comps, "CS hit, 3", "IPv4 64 B, per packet"]
    L += [f"| {r} | " + " | ".join(cell(fig[(r, p)]) for p in ps) + " |" for r in rows]
    pls = sorted({pl for r in rows for pl in fig[(r, 0)]["by_placement"]})
    L += ["", "By placement, 0 B Data:", "", "| | " + " | ".join(pls) + " |",
          "|---|" + "---|" * len(pls)]  # fmt: skip
    L += [f"| {r} | " + " | ".join(cell(fig[(r, 0)]["by_placement"].get(pl, {})) for pl in pls)
          + " |" for r in rows]  # fmt: skip
    L += [
        "",
        "Paired exchange / two IPv4 packets, by payload bed: "
        + "; ".join(f"{p} B {paired.headline(v, '').text()}" for p, v in st["pairs"].items())
        + ".",
    ]
    costs = [t for t in rep.trials if t["kind"] in ("cost", "cs_hit", "ipv4")]
    lossy = [t for t in costs if NB.unsatisfied(t)]
    L += [
        "",
        f"Cost trials that lost Interests or packets: {len(lossy)} of {len(costs)} (all "
        "kept in the figures)."
        + "".join(
            f" {t['kind']} {t.get('comps', '')} payload "
            f"{t['payload']}: {NB.unsatisfied(t)} of {t['offered']}."
            for t in lossy
        ),
    ]
    L += capacity_md(a, st) + sweep_md(st, j) + latency_md(a, rep)
    if st["errors"]:
        L += ["", "## Errors", ""] + [f"- {e}" for e in st["errors"]]
    L += ["", "## Set-up", "", "```", *rep.extra.get("setup", []), "```"]
    rep.markdown = "\n".join(L)
    rep.figure = lambda path: plot(a, st, fig, caps, path)


def capacity_md(a: Any, st: dict) -> list[str]:
    L = ["", "## Capacity (M Interests/s)", "", "Each search: the relevant lower bound (`>=`: "
         "the max load passed), the upper bound, the placement of its trials' probes; "
         f"**ceiling**: within {NB.CEILING_MARGIN:.0%} of the loopback's capacity there or at "
         "the max load (the generator's ceiling, a tie: not the forwarder's figure).", "",
         "| payload B (bed) | components | searches | median by placement |",
         "|---|---|---|---|"]  # fmt: skip
    lb = NB.capacities_by_placement([s for s in st["searches"] if s["payload"] == "loopback"])
    for tag in [*a.payloads, "loopback"]:
        for c in a.comps:
            ss = [s for s in st["searches"] if s["payload"] == tag and s["comps"] == c]
            each = ", ".join(f"{'>= ' if s['at_max'] else ''}{mpps(s['capacity_pps'])} (< "
                             f"{mpps(s['upper_pps'])}) {s['placement']}" + (" **ceiling**"
                             if tag != "loopback" and NB.at_ceiling(s, lb) else "")
                             for s in ss)  # fmt: skip
            med = ", ".join(f"{pl} {mpps(v)}" for (_, pl), v in
                            sorted(NB.capacities_by_placement(ss).items()))  # fmt: skip
            L += [f"| {tag} | {c} | {each} | {med} |"] if ss else []
    return L


def sweep_md(st: dict, j: dict) -> list[str]:
    nc, nf = j["no_capacity"], sum(p["verdict"] != "pass" for p in j["no_capacity"])
    L = ["", "## Satisfaction sweep (0 B)", "", f"{len(st['points'])} points. Below capacity: "
         f"{len(j['below'])}, the goal failed **{len(j['failing'])}** of them; at or over it: "
         f"{len(j['above'])}; no capacity found: {len(nc)} ({nf} failed).", "",
         "| components | M/s | sweep | placement | trials | satisfied | capacity | class | "
         "verdict |", "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for k in ("below", "above", "no_capacity"):
        for p in j[k]:
            sat = 100 * (1 - p["unsatisfied"] / p["offered"]) if p["offered"] else 0.0
            v = "**FAIL**" if k == "below" and p["verdict"] != "pass" else p["verdict"]
            cap = f"{mpps(p['capacity_pps'])} ({p['capacity_from']})" if p["capacity_pps"] else "-"
            row = [p["comps"], f"{p['rate_pps'] / 1e6:g}", p["sweep"] + 1, p["placement"]]
            row += [p["n_trials"], f"{sat:.3f} %", cap, k, v]
            L.append("| " + " | ".join(map(str, row)) + " |")
    return L


def latency_md(a: Any, rep: report.Report) -> list[str]:
    L = ["", "## Round-trip time (us, median over trials; IPv4: one way)", "",
         "| | trials | " + " | ".join(QS) + " |", "|---|---|" + "---|" * len(QS)]  # fmt: skip
    at = (("latency", LAT_RATE), ("cost", a.cost_rate))
    rows = [(f"{c} components, {r / 1e3:g}k/s", dict(kind=k, payload=0, comps=c))
            for k, r in at for c in a.comps]  # fmt: skip
    rows.append((f"IPv4 64 B, {2 * a.cost_rate / 1e3:g}k/s", dict(kind="ipv4", payload=0)))
    rows.append((f"loopback, {LAT_RATE / 1e3:g}k/s", dict(kind="latency", payload="loopback")))
    for name, want in rows:
        ts = [t["latency_ns"] for t in trials_of(rep, **want) if t.get("latency_ns")]
        vals = [statistics.median(x.get(q, 0) for x in ts) / 1e3 if ts else 0 for q in QS]
        L.append(f"| {name} | {len(ts)} | " + " | ".join(f"{v:.1f}" for v in vals) + " |")
    return L


def plot(a: Any, st: dict, fig_: dict, caps: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(12, 4.5))
    for k, c in enumerate(a.comps):
        col = f"C{k}"
        pts = [p for p in st["points"] if p["comps"] == c]
        ax0.plot([p["rate_pps"] / 1e6 for p in pts],
                 [100 * (1 - p["unsatisfied"] / max(1, p["offered"])) for p in pts],
                 "o", color=col, alpha=0.6, label=f"{c} components")  # fmt: skip
        for (cc, _), v in caps.items():
            if cc == c:
                ax0.axvline(v / 1e6, color=col, ls=":", lw=1)
        ys = [fig_[(c, p)]["value"] for p in a.payloads]
        ax1.plot(a.payloads, [y or float("nan") for y in ys], "o-", color=col,
                 label=f"{c} components")  # fmt: skip
    ax1.axhline(BAR_CYCLES, color="red", ls="--", lw=1, label=f"goal {BAR_CYCLES:g}")
    ax0.set(xlabel="Interests sent (M/s)", ylabel="satisfied (%)",
            title="Sweep points (dotted: capacity per placement)")  # fmt: skip
    ax1.set(xlabel="Data payload (B)", ylabel="cycles per exchange", ylim=(0, None),
            title=f"Cost at {a.cost_rate / 1e3:g}k Interests/s (median)")  # fmt: skip
    for ax in (ax0, ax1):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(report.main("ndn", __doc__, build, measure))

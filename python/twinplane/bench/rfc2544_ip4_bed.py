# SPDX-License-Identifier: BSD-3-Clause
"""bench/rfc2544_ip4.py's own bed: its sides, searches, cost trials and pairs.

The testbed itself (wires, generator, DUTs) is ``duts.Testbed``; the method
(pairs, headline, goal) is ``paired`` and ``verdict``. This module holds what
only the RFC 2544 benchmark does with them (docs/bench/rfc2544_ip4.md):

- ``side_order``: the order of a pair's sides, palindromic (ABC, CBA, ...), so
  every two of them alternate as ABBA does;
- ``ndr_search``: one MLRsearch for one DUT, wire and frame size on a fresh
  testbed, judged by one ``verdict.Goal``, with the generator's reach in it and
  whether the NDR reached it (``at_ceiling``);
- ``cost_trial``: one trial at a fixed offered load with the DUT core's time
  charged by each definition of the report (``cost_figures``);
- ``pairs``: two sides' results of the same pairs as ``paired.Pair``.

The pure parts (``side_order``, ``at_ceiling``, ``pair_placement``,
``cost_figures``, ``pairs``) have unit tests in tests/bench.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from twinplane.bench import duts as D
from twinplane.bench import paired
from twinplane.bench.rfc2544 import MlrParams, TrialResult, mlr_search
from twinplane.bench.verdict import Goal

# the DUTs each wire carries, in the order of a pair's first run (the kernel has no
# memif: memif is a DPDK user-space ring, not a kernel interface)
SIDES = {"memif": ("twinplane", "l3fwd"), "veth": ("twinplane", "l3fwd", "kernel")}
# the cost rounds' sides: (DUT, wire)
COST_SIDES = (("kernel", "veth"), ("twinplane", "veth"), ("twinplane", "memif"))


def side_order(sides: Sequence[str], index: int) -> list[str]:
    """Pair ``index``'s order: ``sides`` forward on even pairs, reversed on odd ones."""
    return list(sides) if index % 2 == 0 else list(reversed(sides))


def at_ceiling(ndr_pps: float, reach_pps: float, wire_max_pps: float, share: float) -> bool:
    """A search reached the ceiling when its NDR is at least ``share`` of the lower of
    the generator's reach in it (the highest rate it really offered in any trial) and
    the wire's nominal maximum: the DUT carried all the generator could send."""
    top = min(reach_pps, wire_max_pps)
    return top > 0 and ndr_pps >= share * top


def pair_placement(a: str | None, b: str | None) -> str:
    """Two searches' placements as the pair's: the same class, else ``mixed``."""
    return a if a is not None and a == b else "mixed"


def ndr_search(
    tb: D.Testbed,
    size: int,
    goal: Goal,
    mlr: dict[str, float],
    ceiling_share: float,
    warmup: float,
    drain: float,
    on_trial: Callable[[TrialResult], None] | None = None,
) -> dict[str, Any]:
    """One MLRsearch on a started testbed. ``mlr``: relative_width,
    initial_trial_duration_s, final_trial_duration_s, rate_slack."""
    hi = D.wire_max_pps(tb.wire, size)
    params = MlrParams(
        tolerances=(goal.loss_ratio,),
        exceed_ratio=goal.exceed_ratio,
        duration_sum_s=goal.duration_sum,
        **mlr,
    )
    seen: list[TrialResult] = []

    def trial(r: TrialResult) -> None:
        seen.append(r)
        if on_trial is not None:
            on_trial(r)

    fn = tb.trial_fn(size, warmup=warmup, drain=drain)
    try:
        res = mlr_search(fn, hi, params, on_trial=trial)
    except RuntimeError as e:  # MLRsearch over its time limit: no NDR, the trials kept
        return {"error": f"MLRsearch: {e}", "trials": [t.summary() for t in seen]}
    ndr = res.ndr
    reach = max((t["offered_rate_pps"] for t in res.trials), default=0.0)
    where = D.search_placement([t.get("xcpu_rtt_ns") for t in res.trials])
    return {
        "ndr_pps": ndr.rate_pps,
        "upper_bound_pps": ndr.lower_fail_pps,
        "converged": ndr.converged,
        "search_hi_pps": hi,
        "gen_reach_pps": reach,
        "at_ceiling": at_ceiling(ndr.rate_pps, reach, hi, ceiling_share),
        "placement": where["placement"],
        "xcpu_rtt_ns": where["xcpu_rtt_ns"],
        "wall_s": round(res.wall_s, 2),
        "trials": res.trials,
    }


def cost_figures(
    tsc_hz: float,
    user_hz: int,
    window_s: float,
    ticks: dict[str, int],
    forwarded: int,
    sending_s: float,
    delivered: int,
    busy_cycles: float | None = None,
) -> dict[str, float | None]:
    """Cycles per packet of the DUT's CPU by each definition (docs/bench/rfc2544_ip4.md):

    - ``proc_busy``: the CPU's /proc/stat time neither idle nor iowait (user, system,
      irq, softirq, steal) over the window, x TSC Hz, per packet the DUT forwarded;
    - ``proc_softirq``: the softirq ticks alone, the same way (the kernel's forwarding);
    - ``whole_core``: TSC Hz x the sending time per packet delivered: a polling core
      is the DUT's the whole time, whatever it does with it (None for the kernel: a
      DUT without ``busy_cycles`` does not poll);
    - ``busy_loop``: the DUT's own busy-loop cycles per packet (``busy_cycles``, a
      polling DUT's passes that received packets), None for the kernel."""
    wall = window_s * user_hz
    busy = wall - ticks["idle"] - ticks.get("iowait", 0)
    cyc = tsc_hz / user_hz
    per = (lambda x: x * cyc / forwarded) if forwarded else (lambda _x: None)
    polling = busy_cycles is not None
    return {
        "proc_busy": per(max(0.0, busy)),
        "proc_softirq": per(ticks["softirq"]),
        "whole_core": tsc_hz * sending_s / delivered if delivered and polling else None,
        "busy_loop": busy_cycles / forwarded if busy_cycles is not None and forwarded else None,
        "busy_share": busy / wall if wall else None,
    }


def cost_trial(
    tb: D.Testbed, load_pps: float, duration: float, warmup: float, drain: float
) -> dict[str, Any]:
    """One trial of 64 B frames at ``load_pps`` with the DUT's CPU accounted."""
    fn = tb.trial_fn(64, warmup=warmup, drain=drain)
    fn(load_pps, 0.3)  # settle: the first frames through a fresh DUT warm its caches
    before = tb.dut.cost_snapshot()  # the kernel's sleeps its idle second first
    t0, ticks0 = time.monotonic(), D.cpu_ticks(D.DUT_CPU)
    r = fn(load_pps, duration)
    t1, ticks1 = time.monotonic(), D.cpu_ticks(D.DUT_CPU)
    after = tb.dut.cost_snapshot()
    own = tb.dut.cost(before, after) or {}
    delta = own.get("delta") or {}
    ticks = {k: ticks1[k] - ticks0[k] for k in ticks0}
    figs = cost_figures(
        tb.tsc_hz,
        os.sysconf("SC_CLK_TCK"),
        t1 - t0,
        ticks,
        int(own.get("forwarded") or 0),
        r.elapsed_s,
        r.rx,
        busy_cycles=delta.get("busy_cycles"),
    )
    return {
        "load_pps": load_pps,
        "cycles_per_pkt": figs,
        "forwarded": own.get("forwarded"),
        "ticks": ticks,
        "window_s": round(t1 - t0, 4),
        "placement": D.placement(r.extra.get("xcpu_rtt_ns")),
        "trial": r.summary(),
        "dut_own": {k: v for k, v in own.items() if k != "delta"},
    }


def run_side(
    workdir: Path,
    bins: D.Binaries,
    tsc: float,
    wire: str,
    dut: str,
    sizes: Sequence[int],
    body: Callable[[D.Testbed], dict[str, Any]],
    memif_rsize: int | None = 12,
    testbed: type[D.Testbed] = D.Testbed,
) -> dict[str, Any]:
    """Start a fresh testbed (``testbed``: rfc2544_ip6_bed.Testbed6 for IPv6), run
    ``body`` on it, tear it down; a set-up error or a DUT that dies is returned as
    ``{"error": ...}`` (the pair then has no figure)."""
    try:
        with testbed(wire, dut, workdir, bins=bins, tsc=tsc, memif_rsize=memif_rsize) as tb:
            tb.start(sizes)
            return body(tb)
    except (D.DutError, OSError, RuntimeError) as e:
        return {"error": f"{type(e).__name__}: {str(e)[:2000]}"}


def pairs(
    runs: Sequence[dict[str, Any]],
    a: str,
    b: str,
    fig_a: Callable[[dict[str, Any]], float | None],
    fig_b: Callable[[dict[str, Any]], float | None] | None = None,
    ceiling: Callable[[dict[str, Any]], bool] | None = None,
) -> list[paired.Pair]:
    """``paired.Pair`` of sides ``a`` and ``b`` from ``runs`` (one dict per pair:
    ``index``, ``order`` and a result per side), each side's figure by ``fig_a`` and
    ``fig_b`` (``fig_a`` for both by default). A pair where either side has no figure
    (it failed to start or died) has no ratio; its trials stay in the report."""
    fig_b = fig_b or fig_a
    out = []
    for run in runs:
        ra, rb = run.get(a), run.get(b)
        fa = fig_a(ra) if ra is not None else None
        fb = fig_b(rb) if rb is not None else None
        if fa is None or fb is None:
            continue
        order = [s for s in run["order"] if s in (a, b)]
        p = paired.Pair(
            run["index"],
            ("A", "B") if order[0] == a else ("B", "A"),
            fa,
            fb,
            pair_placement(ra.get("placement"), rb.get("placement")),
        )
        p.at_ceiling = bool(ceiling and ceiling(ra) and ceiling(rb))
        out.append(p)
    return out


COLORS = {"twinplane": "#dd8452", "l3fwd": "#4c72b0", "kernel": "#55a868"}
MARKERS = {"near": "o", "mid": "s", "far": "^", "None": "x"}


def plot_ndr(ndr: dict[str, list[dict[str, Any]]], path: Path) -> None:
    """Every search's NDR against the frame size, a panel per wire: colour the DUT,
    marker the search's placement (x: the probes disagreed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    wires = [w for w in SIDES if any(k.startswith(w + "_") for k in ndr)]
    fig, axes = plt.subplots(1, len(wires), figsize=(6 * len(wires), 4.2), squeeze=False)
    for ax, wire in zip(axes[0], wires, strict=True):
        seen = set()
        for key, runs in ndr.items():
            if not key.startswith(wire + "_"):
                continue
            size = int(key.split("_")[1])
            for run in runs:
                for dut in SIDES[wire]:
                    r = run.get(dut) or {}
                    if "ndr_pps" not in r:
                        continue
                    where = str(r.get("placement"))
                    label = f"{dut} ({where})" if (dut, where) not in seen else None
                    seen.add((dut, where))
                    ax.scatter(size, r["ndr_pps"] / 1e6, c=COLORS[dut], label=label,
                               marker=MARKERS.get(where, "x"), alpha=0.7)  # fmt: skip
        ax.set_xscale("log", base=2)
        ax.set_title(f"{wire}: NDR per search")
        ax.set_xlabel("frame size (B)")
        ax.set_ylabel("NDR (Mpps)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)

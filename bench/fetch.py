#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/fetch.py: twinplane-fetch against curl, both downloading from nginx (issue 13,
seed 001; method of issue 34).

One HTTP download at a time from nginx through a Linux router, on the downloader's
lab (python/twinplane/lab/fetch.py), the client on CPU 0, nginx and the router's
receive on CPU 1::

    c: c0 (client) --- r0 [r: ip_forward] r1 --- s0: nginx

At each file size, a block (one pair of the method) downloads the file with
twinplane-fetch (--no-digest, af_xdp on c0), curl (kernel sockets on the same c0,
offloads off like the DPDK port needs) and curl with the veths' offloads on (the
kernel's best case), twinplane-fetch first in even blocks and last in odd ones;
the vCPU placement is probed before each block. Every download is checked (size,
SHA-256); one that fails or does not match is a failed trial, kept and counted.

Headline (at --headline-mib): goodput and whole-core cycles per byte of
twinplane-fetch over curl's, paired medians per placement and pooled; beside it
the /proc/stat busy cycles per byte of both (softirq included). How it is
measured and charged: docs/bench/fetch.md. Report: docs/results/fetch.{md,json,png}.
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from twinplane.bench import ensure_venv

ensure_venv(ROOT)

from twinplane.bench import duts as D
from twinplane.bench import fetch_bed as B
from twinplane.bench import report
from twinplane.bench.report import Bar, Report, headline_text
from twinplane.lab.fetch import FetchLab, fetch_binary, nginx_binary

SIZES_MIB = (512, 1024, 3072)
QUICK_SIZES_MIB = (256, 1024)
HEADLINE_MIB = 1024
CEILING_SHARE = 0.98
PEERS = ("curl", "curl_offloads")
# the headline's keys (issue 34) and their goals (issue 34, "What it must show")
HEADLINE = {
    "goodput_twinplane_over_curl": ("goodput_bps", Bar(">=", 1.5)),
    "core_cycles_per_byte_twinplane_over_curl": ("core_cycles_per_byte", Bar("<=", 1.0)),
    # the second accounting, labelled, no goal: where the kernel's work for curl counts
    "proc_stat_cycles_per_byte_twinplane_over_curl": ("proc_stat_cycles_per_byte", None),
}
# the extra comparisons, at every size: (metric, peer)
COMPARISONS = [
    *((m, "curl") for m in B.METRICS),
    ("goodput_bps", "curl_offloads"),
    ("core_cycles_per_byte", "curl_offloads"),
    ("proc_stat_cycles_per_byte", "curl_offloads"),
]


def comparison_name(metric: str, peer: str) -> str:
    return f"{metric.removesuffix('_bps')}_twinplane_over_{peer}"


def build(ap: Any) -> None:
    ap.add_argument(
        "--sizes",
        default=None,
        help="file sizes in MiB, comma-separated (512,1024,3072; --quick 256,1024)",
    )
    ap.add_argument(
        "--headline-mib",
        type=int,
        default=HEADLINE_MIB,
        help=f"the size the headline is taken at ({HEADLINE_MIB}; one of --sizes)",
    )
    ap.add_argument(
        "--ceiling-share",
        type=float,
        default=CEILING_SHARE,
        help="the server's CPU busy share over a transfer at which it is the "
        f"limit: both sides at it make a tie at the ceiling ({CEILING_SHARE:g})",
    )
    ap.add_argument("--out-dir", type=Path, default=None,
                    help="where downloads go (default: the work directory's disk)")  # fmt: skip


def sizes_of(args: Any) -> list[int]:
    if args.sizes is None:
        return [m * B.MIB for m in (QUICK_SIZES_MIB if args.quick else SIZES_MIB)]
    try:
        sizes = [int(x) * B.MIB for x in args.sizes.split(",") if x]
    except ValueError:
        raise SystemExit(f"--sizes: MiB, comma-separated, got {args.sizes!r}") from None
    if not sizes or any(s <= 0 for s in sizes):
        raise SystemExit("--sizes: positive sizes")
    return sizes


def rules_for(ctx: report.Context, sizes: list[int], head: int, out_dir: Path) -> dict[str, Any]:
    a = ctx.args
    return {
        "pairs": f"{ctx.pairs} blocks per size; a block downloads the file once with each "
        "side: twinplane-fetch, curl, curl with offloads (this order in even blocks, the "
        "reverse in odd ones: ABBA for every comparison)",
        "sizes": ", ".join(B.size_name(s) for s in sizes),
        "headline size": B.size_name(head) + " (the other sizes: extra comparisons)",
        "sides": "; ".join(f"`{s.name}`: {s.label}" for s in B.SIDES.values()),
        "cpus": f"client on CPU {B.CLIENT_CPU} (twinplane-fetch's lcore, `taskset` for curl), "
        f"nginx and the router's receive from the client (RPS on r0) on CPU {B.SERVER_CPU}",
        "write": f"to {out_dir}: twinplane-fetch with O_DIRECT inside its transfer, curl "
        "through the page cache (its writeback after the transfer, `sync` between downloads)",
        "placement": "xcpu probe of CPUs 0 and 1 before each block: near < 120 ns <= mid "
        "< 600 ns <= far",
        "headline accounting": "whole core, both sides: transfer seconds x TSC Hz per body "
        "byte (each client has CPU 0 to itself for its transfer)",
        "second accounting": "/proc/stat busy time of CPU 0 (wall - idle - iowait, softirq "
        "included) over the client process's life x TSC Hz per body byte, both sides",
        "failed download": "kept and counted: goodput 0, cycles per byte infinite; both "
        "sides of a pair failed: ratio 1",
        "tie at the ceiling": f"both downloads of a pair with the server's CPU at least "
        f"{a.ceiling_share:.0%} busy over the transfer (time-bound figures only)",
        "search goal": "none: fixed downloads, no search or sweep",
        "cpu isolation": "off (--no-isolate)" if ctx.iso is None else f"CPU {B.CLIENT_CPU}",
    }


def progress(t: dict[str, Any]) -> None:
    g = t["goodput_bps"] / 1e9
    cyc = t["core_cycles_per_byte"]
    what = f"{g:5.2f} Gbit/s {cyc:5.2f} cyc/B" if t["ok"] else f"FAILED: {t['reason']}"
    print(f"  block {t['block']} {B.size_name(t['size']):>8} {t['placement']:8} "
          f"{t['side']:14} {t['seconds']:6.2f} s {what}", flush=True)  # fmt: skip


def measure(ctx: report.Context) -> Report:
    a = ctx.args
    missing = [w for w, ok in ((f"{fetch_binary()} (build it)", fetch_binary().exists()),
               ("nginx", nginx_binary()), ("curl", shutil.which("curl"))) if not ok]  # fmt: skip
    if missing:
        raise SystemExit("bench/fetch.py: missing " + ", ".join(missing))
    head = a.headline_mib * B.MIB
    www = ctx.workdir / "www"
    out_dir = a.out_dir or ctx.workdir / "out"
    for d in (www, out_dir):
        d.mkdir(parents=True, exist_ok=True)
    sizes, disk = B.disk_plan(sizes_of(a), www, out_dir)
    if head not in sizes:
        raise SystemExit(f"bench/fetch.py: the headline size {B.size_name(head)} is not "
                         f"among the sizes that fit: {disk}")  # fmt: skip
    D.ensure_hugepages(512)
    rep = Report("fetch", rules_for(ctx, sizes, head, out_dir))
    trials: list[dict[str, Any]] = []

    def keep(t: dict[str, Any]) -> None:
        trials.append(t)
        progress(t)
        (ctx.workdir / "trials.json").write_text(json.dumps(trials, indent=1))

    print(f"bench/fetch.py: writing {len(sizes)} files", flush=True)
    files = B.prepare_files(sizes, www)
    try:
        with FetchLab(server_cpu=B.SERVER_CPU, router_cpu=B.SERVER_CPU) as lab:
            for name, path, digest in files.values():
                lab.link_file(name, path, digest)
            sides = [B.TWINPLANE, *PEERS]
            B.run_blocks(lab, files, ctx.pairs, sides, out_dir, ctx.tsc_hz, ctx.iso, keep)
    finally:
        for _, path, _ in files.values():
            path.unlink(missing_ok=True)
    rep.trials = trials
    for key, (metric, bar) in HEADLINE.items():
        rep.add(key, B.comparison(trials, metric, B.TWINPLANE, "curl", head, a.ceiling_share), bar)
    comps = {
        str(s): {comparison_name(m, p): B.comparison(trials, m, B.TWINPLANE, p, s,
                                                     a.ceiling_share) for m, p in COMPARISONS}
        for s in sizes
    }  # fmt: skip
    sides_by_size = {str(s): {n: B.side_medians(trials, n, s) for n in B.SIDES} for s in sizes}
    rep.extra = {
        "headline_size": head,
        "sizes": sizes,
        "disk": disk,
        "definitions": {k: m.definition for k, m in B.METRICS.items()},
        "comparisons": comps,
        "sides": sides_by_size,
        "failed_downloads": sum(not t["ok"] for t in trials),
    }
    rep.markdown = markdown(rep, head, sizes, comps, sides_by_size)
    rep.figure = lambda path: plot(trials, sizes, a.ceiling_share, path)
    return rep


def _num(x: float | None, fmt: str = "{:.2f}", scale: float = 1.0) -> str:
    return "-" if x is None else fmt.format(x * scale)


def goals_text(rep: Report, head: int) -> list[str]:
    out = []
    for key, (_, bar) in HEADLINE.items():
        if bar is None:
            continue
        h = rep.headline[key]
        fig = "no figure" if h["ratio"] is None else f"{h['ratio']:.2f}"
        met = bar.met(h["ratio"], h["ci95"])
        verdict = {True: "met", False: "**NOT met**", None: "not judged (tie at the ceiling)"}
        out.append(f"- `{key}` at {B.size_name(head)}: {fig} against the goal {bar.text()}: "
                   f"{verdict[met]} ({h['pairs_at_ceiling']} of {h['pairs']} pairs at the "
                   "server's ceiling, ties outside the ratio).")  # fmt: skip
    return out


def markdown(
    rep: Report,
    head: int,
    sizes: list[int],
    comps: dict[str, dict[str, Any]],
    sides: dict[str, dict[str, Any]],
) -> str:
    failed = rep.extra["failed_downloads"]
    lines = [
        "## Goals",
        "",
        *goals_text(rep, head),
        "",
        f"The whole-core ratio is the reciprocal of the goodput ratio pair by pair (both "
        f"sides are charged their core for their transfer time); the /proc/stat ratio "
        f"credits each side the CPU time it left idle. {failed} of {len(rep.trials)} "
        f"downloads failed (every one kept, `ok` false in the trials).",
        "",
    ]
    for s in sizes:
        k = str(s)
        lines += [
            f"## {B.size_name(s)}{' (the headline size)' if s == head else ''}",
            "",
            "| comparison (twinplane-fetch over ...) | paired median (95 % CI, pairs) "
            "by placement | failed downloads | pairs at the ceiling |",
            "|---|---|---|---|",
        ]
        for name, h in comps[k].items():
            f = h["failed_downloads"]
            lines.append(f"| `{name}` | {headline_text(h)} | "
                         f"{', '.join(f'{x}: {n}' for x, n in f.items())} | "
                         f"{h['pairs_at_ceiling']} |")  # fmt: skip
        lines += [
            "",
            "| side | downloads (failed) | time s | goodput Gbit/s | whole-core cycles/B "
            "| /proc/stat cycles/B | both CPUs cycles/B | server CPU busy |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for name, m in sides[k].items():
            lines.append(
                f"| {B.SIDES[name].label} | {m['downloads']} ({m['failed']}) | "
                f"{_num(m['seconds'])} | {_num(m['goodput_bps'], scale=1e-9)} | "
                f"{_num(m['core_cycles_per_byte'])} | {_num(m['proc_stat_cycles_per_byte'])} | "
                f"{_num(m['system_cycles_per_byte'])} | "
                f"{_num(m['server_busy_share'], '{:.0%}')} |"
            )
        waits = [t["fetch"]["write_wait_cycles"] / t["fetch"]["loop_cycles"] for t in rep.trials
                 if t["size"] == s and t.get("fetch", {}).get("loop_cycles")]  # fmt: skip
        if waits:
            lines += ["", f"twinplane-fetch waited for its O_DIRECT writes "
                      f"{statistics.median(waits):.0%} of its loop's time (median of "
                      "`write_wait_cycles` / `loop_cycles`): its core idle, charged in the "
                      "whole-core figure, not in /proc/stat."]  # fmt: skip
        lines.append("")
    lines += [
        "Medians of the successful downloads per side; the ratios are paired medians "
        "(each pair: the two sides' downloads of one block). Definitions: "
        + "; ".join(f"**{k}**: {v}" for k, v in rep.extra["definitions"].items())
        + ".",
    ]
    return "\n".join(lines) + "\n"


def plot(trials: list[dict[str, Any]], sizes: list[int], share: float, path: Path) -> None:
    """Each pair's ratio (twinplane-fetch over curl) per size: goodput and
    whole-core and /proc/stat cycles per byte, one marker per placement."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = ("goodput_bps", "core_cycles_per_byte", "proc_stat_cycles_per_byte")
    fig, axes = plt.subplots(1, len(metrics), figsize=(13, 4.4))
    marks = {"near": "o", "mid": "s", "far": "^"}
    for ax, m in zip(axes, metrics, strict=True):
        for j, s in enumerate(sizes):
            blocks: dict[int, list[dict[str, Any]]] = {}
            for t in trials:
                if t["size"] == s and t["side"] in (B.TWINPLANE, "curl"):
                    blocks.setdefault(t["block"], []).append(t)
            ps = [B.block_pair(b, m, B.TWINPLANE, "curl", share) for b in blocks.values()]
            for p in ps:
                if p.ratio() != float("inf"):
                    face = "none" if p.at_ceiling else "#c44e52"
                    ax.scatter(j, p.ratio(), marker=marks.get(p.placement, "x"),
                               edgecolors="#c44e52", facecolors=face)  # fmt: skip
            rs = [p.ratio() for p in ps if not p.at_ceiling]  # as the headline
            if rs:
                ax.hlines(statistics.median(rs), j - 0.3, j + 0.3, color="black")
        ax.axhline(1.0, color="grey", lw=0.8, ls=":")
        ax.set_xticks(range(len(sizes)), [B.size_name(s) for s in sizes])
        ax.set_title(f"{m}: twinplane-fetch / curl", fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("paired ratios (o near, square mid, ^ far; hollow: at the ceiling; bar: "
                 "median)", fontsize=9)  # fmt: skip
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(report.main("fetch", __doc__, build, measure))

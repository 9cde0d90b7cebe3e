# SPDX-License-Identifier: BSD-3-Clause
"""PNG plots of an RFC 2544 report (bench/rfc2544_ip4.py's JSON document).

Each function takes the whole document and a path; matplotlib runs headless.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

COLORS = {
    "loopback": "#7f7f7f",
    "testdut": "#8c564b",
    "twinplane": "#dd8452",
    "l3fwd": "#4c72b0",
    "kernel": "#55a868",
}
MARKERS = {"loopback": "s", "testdut": "v", "twinplane": "o", "l3fwd": "^", "kernel": "D"}
WIRE_TITLES = {
    "memif": "memif (shared memory, no kernel)",
    "veth": "veth + AF_XDP (kernel on the path)",
}


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _wires(doc: dict[str, Any]) -> list[str]:
    return [w for w in ("memif", "veth") if doc.get(w)]


def _sizes(entry: dict[str, Any]) -> list[int]:
    return sorted(int(k) for k in entry if k.isdigit())


def plot_ndr(doc: dict[str, Any], path: Path) -> None:
    """NDR per frame size: Mpps (top) and Gbit/s (bottom), one column per wire;
    median with min-max whiskers; the loopback (wire ceiling) dashed."""
    plt = _plt()
    wires = _wires(doc)
    fig, axes = plt.subplots(
        2, max(1, len(wires)), figsize=(6.2 * max(1, len(wires)), 8), squeeze=False
    )
    for col, wire in enumerate(wires):
        for row, (key, label) in enumerate(
            (("mpps", "NDR (Mpps)"), ("gbps_l2", "NDR (Gbit/s, frame bytes)"))
        ):
            ax = axes[row][col]
            for dut, entry in doc[wire].items():
                sizes = _sizes(entry)
                if not sizes:
                    continue
                xs, med, lo, hi = [], [], [], []
                for s in sizes:
                    sp = entry[str(s)]["ndr_pps"]
                    if sp.get("median") is None:
                        continue
                    f = 1e-6 if key == "mpps" else s * 8 / 1e9
                    xs.append(s)
                    med.append(sp["median"] * f)
                    lo.append((sp["median"] - sp["min"]) * f)
                    hi.append((sp["max"] - sp["median"]) * f)
                if not xs:
                    continue
                ls = "--" if dut == "loopback" else "-"
                name = f"{dut} (wire ceiling)" if dut == "loopback" else dut
                ax.errorbar(
                    xs,
                    med,
                    yerr=[lo, hi],
                    label=name,
                    color=COLORS.get(dut),
                    ls=ls,
                    marker=MARKERS.get(dut, "o"),
                    ms=4,
                    capsize=3,
                    lw=1.3,
                )
            ax.set_xscale("log", base=2)
            ax.set_xticks(doc.get("params", {}).get("sizes") or [64, 128, 256, 512, 1024, 1518])
            ax.get_xaxis().set_major_formatter(plt.matplotlib.ticker.ScalarFormatter())
            ax.minorticks_off()
            ax.set_xlabel("frame size (bytes, FCS included)")
            ax.set_ylabel(label)
            if key == "mpps":
                ax.set_yscale("log")
                ax.set_title(WIRE_TITLES.get(wire, wire), fontsize=10)
            else:
                ax.set_ylim(bottom=0)
            ax.grid(alpha=0.3, which="both")
            ax.legend(fontsize=8)
    fig.suptitle(
        "RFC 2544 throughput (NDR, zero loss): median over repetitions, "
        f"whiskers min-max\nDUT on CPU {doc.get('cpus', {}).get('dut', 0)}, "
        f"generator on CPU {doc.get('cpus', {}).get('generator', 1)}",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_loss(doc: dict[str, Any], path: Path) -> None:
    """Frame loss against offered load: one panel per wire and loss-curve size."""
    plt = _plt()
    curves = doc.get("loss_curves") or {}
    panels = [
        (w, s)
        for w in _wires(doc)
        for s in sorted({int(k) for d in curves.get(w, {}).values() for k in d})
    ]
    if not panels:
        return
    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 4.4), squeeze=False)
    for ax, (wire, size) in zip(axes[0], panels, strict=False):
        for dut, by_size in curves[wire].items():
            runs = by_size.get(str(size)) or []
            pts: dict[float, list[float]] = {}
            for run in runs:
                for p in run["points"]:
                    x = round(p["offered_rate_pps"] / 1e6, 4)
                    ax.scatter(
                        [x],
                        [max(p["loss_ratio"] * 100, 1e-4)],
                        color=COLORS.get(dut),
                        s=8,
                        alpha=0.35,
                    )
                    pts.setdefault(round(p["rate_pps"] / 1e6, 4), []).append(p["loss_ratio"] * 100)
            if pts:
                xs = sorted(pts)
                ys = [max(statistics.median(pts[x]), 1e-4) for x in xs]
                ax.plot(
                    xs,
                    ys,
                    color=COLORS.get(dut),
                    marker=MARKERS.get(dut, "o"),
                    ms=3,
                    lw=1.2,
                    label=dut,
                )
        ax.set_yscale("log")
        ax.set_ylim(5e-5, 150)
        ax.axhline(1e-4, color="black", lw=0.5, alpha=0.4)
        ax.set_xlabel("offered load (Mpps)")
        ax.set_ylabel("frames lost (%), 1e-4 = none")
        ax.set_title(f"{WIRE_TITLES.get(wire, wire)}, {size} B", fontsize=10)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    fig.suptitle(
        "Frame loss rate against offered load (RFC 2544 "
        "26.3): line = median over repetitions, dots = trials",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_latency(doc: dict[str, Any], path: Path) -> None:
    """Latency at the NDR per frame size: p50 (solid) and p99 (dotted), per wire."""
    plt = _plt()
    wires = _wires(doc)
    fig, axes = plt.subplots(
        1, max(1, len(wires)), figsize=(6.2 * max(1, len(wires)), 4.4), squeeze=False
    )
    for ax, wire in zip(axes[0], wires, strict=False):
        for dut, entry in doc[wire].items():
            for q, ls in (("p50", "-"), ("p99", ":")):
                xs, ys = [], []
                for s in _sizes(entry):
                    lat = (entry[str(s)].get("latency_at_ndr_ns") or {}).get(q) or {}
                    if lat.get("median"):
                        xs.append(s)
                        ys.append(lat["median"] / 1e3)
                if xs:
                    ax.plot(
                        xs,
                        ys,
                        ls=ls,
                        color=COLORS.get(dut),
                        marker=MARKERS.get(dut, "o"),
                        ms=3,
                        label=f"{dut} {q}",
                    )
        ax.set_xscale("log", base=2)
        ax.set_xticks(doc.get("params", {}).get("sizes") or [64, 128, 256, 512, 1024, 1518])
        ax.get_xaxis().set_major_formatter(plt.matplotlib.ticker.ScalarFormatter())
        ax.minorticks_off()
        ax.set_yscale("log")
        ax.set_xlabel("frame size (bytes)")
        ax.set_ylabel("latency at NDR (µs), generator to generator")
        ax.set_title(WIRE_TITLES.get(wire, wire), fontsize=10)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7, ncol=2)
    fig.suptitle(
        "Latency at the throughput rate (RFC 2544 26.2): median over repetitions", fontsize=10
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_cost(doc: dict[str, Any], path: Path) -> None:
    """Cycles per forwarded packet: median bars, min-max whiskers, dots per run."""
    plt = _plt()
    cost = doc.get("cost") or {}
    keys = [
        k
        for k in ("l3fwd_memif", "twinplane_memif", "l3fwd_veth", "twinplane_veth", "kernel_veth")
        if cost.get(k, {}).get("cycles_per_pkt", {}).get("median")
    ]
    if not keys:
        return
    fig, ax = plt.subplots(figsize=(8.5, 4.6))
    for i, k in enumerate(keys):
        c = cost[k]
        sp = c["cycles_per_pkt"]
        dut = c.get("dut", k.split("_")[0])
        hatch = "" if c.get("wire") == "memif" else "//"
        ax.bar(
            i,
            sp["median"],
            width=0.6,
            color=COLORS.get(dut),
            alpha=0.6,
            hatch=hatch,
            edgecolor="black",
            lw=0.5,
        )
        ax.errorbar(
            i,
            sp["median"],
            yerr=[[sp["median"] - sp["min"]], [sp["max"] - sp["median"]]],
            fmt="none",
            ecolor="black",
            capsize=5,
        )
        vals = [r["cycles_per_pkt"] for r in c.get("runs", []) if r.get("cycles_per_pkt")]
        if vals:
            xs = [i - 0.15 + 0.3 * j / max(1, len(vals) - 1) for j in range(len(vals))]
            ax.scatter(xs, vals, color="black", s=10, zorder=3)
        ax.text(i, sp["median"] * 1.08, f"{sp['median']:.0f}", ha="center", va="bottom", fontsize=9)
    ax.set_xticks(range(len(keys)), [k.replace("_", "\n") for k in keys])
    ax.set_yscale("log")
    ax.set_ylabel("TSC cycles per forwarded packet (64 B)")
    ax.grid(axis="y", alpha=0.3, which="both")
    ratio = (doc.get("ratios") or {}).get("kernel_veth_over_l3fwd_memif")
    rt = f"; kernel (veth) / l3fwd (memif) = {ratio:.1f}x" if ratio else ""
    ax.set_title(
        "Cost per forwarded packet on the DUT core (solid: memif, hatched: veth)" + rt, fontsize=10
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_all(doc: dict[str, Any], out: Path, stem: str) -> list[Path]:
    """Write every plot as ``out/stem_<kind>.png``; return the paths written."""
    written = []
    for kind, fn in (
        ("ndr", plot_ndr),
        ("loss", plot_loss),
        ("latency", plot_latency),
        ("cost", plot_cost),
    ):
        p = out / f"{stem}_{kind}.png"
        fn(doc, p)
        if p.exists():
            written.append(p)
    return written

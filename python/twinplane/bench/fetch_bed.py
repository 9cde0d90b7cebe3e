# SPDX-License-Identifier: BSD-3-Clause
"""The downloader's bench bed (``bench/fetch.py``): twinplane-fetch and curl
downloading the same files from nginx, one at a time, on the same veth.

The lab (namespaces, router, nginx, running the downloader) is
``twinplane.lab.fetch.FetchLab``; this module adds what the benchmark needs on
top of it: one measured download (``download``), the order of a pair's downloads
(``side_order``), and the paired comparisons built from the trials
(``comparison``). The accounting is described in docs/bench/fetch.md.

A *block* is one pair of the method: at one file size, every side downloads the
file once, back to back, in ``side_order`` (twinplane-fetch first in even
blocks, last in odd ones: ABBA for every comparison with it).
"""

from __future__ import annotations

import math
import os
import shutil
import statistics
import subprocess
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twinplane.bench import duts as D
from twinplane.bench import paired
from twinplane.lab.fetch import SERVER, FetchLab, FetchResult, write_pattern

CLIENT_CPU = D.DUT_CPU
SERVER_CPU = D.GEN_CPU
MIB = 1 << 20
GIB = 1 << 30
DISK_MARGIN = GIB
TWINPLANE = "twinplane"


@dataclass(frozen=True)
class Side:
    """One downloader: its program and whether the path's veths keep their offloads
    (TX checksum, SG, TSO, GSO) while it runs."""

    name: str
    program: str
    offloads: bool
    label: str


SIDES = {
    s.name: s
    for s in (
        Side(TWINPLANE, "twinplane-fetch", False, "twinplane-fetch --no-digest (af_xdp)"),
        Side("curl", "curl", False, "curl, offloads off"),
        Side("curl_offloads", "curl", True, "curl, offloads on (the kernel's best case)"),
    )
}


@dataclass(frozen=True)
class Metric:
    """A per-download figure. ``timed``: it follows the transfer time, so a pair
    in which the server's CPU was saturated for both sides is a tie at the ceiling.
    ``failed``: the figure a failed download gets (nothing good delivered)."""

    key: str
    unit: str
    definition: str
    timed: bool
    failed: float


METRICS = {
    m.key: m
    for m in (
        Metric("goodput_bps", "bit/s", "body bits / transfer seconds (twinplane-fetch: first "
               "SYN to last byte written; curl: time_total)", True, 0.0),
        Metric("goodput_process_bps", "bit/s", "body bits / the client process's wall time "
               "(twinplane-fetch's EAL start-up and exit included)", True, 0.0),
        Metric("core_cycles_per_byte", "cycles/B", "the client's whole core over the "
               "transfer: transfer seconds x TSC Hz / body bytes, both sides", True, math.inf),
        Metric("proc_stat_cycles_per_byte", "cycles/B", "the client CPU's /proc/stat busy "
               "time (wall - idle - iowait: user, system, irq, softirq) over the client "
               "process's life x TSC Hz / body bytes, both sides", False, math.inf),
        Metric("system_cycles_per_byte", "cycles/B", "both CPUs' /proc/stat busy time "
               "(client, router, nginx) over the client process's life x TSC Hz / body "
               "bytes", False, math.inf),
    )
}  # fmt: skip


def size_name(size: int) -> str:
    return f"{size / GIB:g} GiB" if size >= GIB // 2 else f"{size // MIB} MiB"


def side_order(block: int, sides: Iterable[str]) -> list[str]:
    """The sides of block ``block`` in the order they download: as given in even
    blocks, reversed in odd ones (ABBA for every two sides)."""
    s = list(sides)
    return s if block % 2 == 0 else s[::-1]


def busy_seconds(a: dict[str, int], b: dict[str, int], wall: float, user_hz: int) -> float:
    """The time a CPU was not idle between two /proc/stat samples ``wall`` seconds
    apart: wall less idle and iowait (exact under NOHZ, where the busy columns are
    tick samples that miss short softirq runs)."""
    idle = (b["idle"] - a["idle"]) + (b["iowait"] - a["iowait"])
    return max(0.0, wall - idle / user_hz)


def plan_sizes(sizes: Iterable[int], www_free: int, out_free: int, same_fs: bool) -> list[int]:
    """The sizes whose files fit: every server file at once, plus one download at a
    time (on the same file system or not), with DISK_MARGIN left."""
    kept: list[int] = []
    for s in sorted(sizes):
        www_need = sum(kept) + s + DISK_MARGIN + (s if same_fs else 0)
        if www_free >= www_need and out_free >= s + DISK_MARGIN:
            kept.append(s)
    return kept


# --------------------------------------------------------------------------
# one download


def _curl_argv(url: str, out: Path) -> list[str]:
    return ["curl", "-sS", "--fail", "-o", str(out), "-w", "%{time_total}\n", url]


# twinplane-fetch's own figures kept with its trials (why its core sat idle: the
# O_DIRECT writes it waited for, write_wait_cycles; its busy passes, never compared)
FETCH_KEYS = ("busy_cycles", "loop_cycles", "write_wait_cycles", "direct", "retransmissions")


def _run(
    lab: FetchLab, side: Side, url: str, out: Path, timeout: float
) -> tuple[str, float, dict[str, Any]]:
    """Run one download; returns (why it failed or "", its transfer seconds, and
    twinplane-fetch's figures)."""
    try:
        if side.program == "twinplane-fetch":
            res = lab.fetch(url, out, "--no-digest", cpu=CLIENT_CPU, timeout=timeout)
            assert isinstance(res, FetchResult)
            if res.returncode != 0 or "seconds" not in res.summary:
                return f"exit {res.returncode}: {res.stderr.strip()[-300:]}", 0.0, {}
            own = {k: res.summary[k] for k in FETCH_KEYS if k in res.summary}
            return "", float(res.summary["seconds"]), own
        argv = lab.client_argv(_curl_argv(url, out), cpu=CLIENT_CPU)
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
        if p.returncode != 0:
            return f"exit {p.returncode}: {p.stderr.strip()[-300:]}", 0.0, {}
        return "", float(p.stdout.split()[0]), {}
    except subprocess.TimeoutExpired:
        return f"no end after {timeout:.0f} s", 0.0, {}


def download(
    lab: FetchLab, side: Side, name: str, size: int, digest: str, out_dir: Path, tsc: float
) -> dict[str, Any]:
    """One measured download of ``name`` by ``side``: a trial. The file is checked
    (size, SHA-256) after the measurement, then deleted and ``sync`` run; a download
    that fails or does not match is a failed trial (``ok`` false, ``reason``) whose
    figures are those of a download that delivered nothing."""
    lab.set_offloads(side.offloads)
    lab.set_kernel_client(side.program != "twinplane-fetch")
    out = out_dir / f"{side.name}.bin"
    out.unlink(missing_ok=True)
    user_hz = os.sysconf("SC_CLK_TCK")
    cpus = (CLIENT_CPU, SERVER_CPU)
    ticks0 = {c: D.cpu_ticks(c) for c in cpus}
    t0 = time.monotonic()
    url = f"http://{SERVER}/{name}"
    reason, seconds, own = _run(lab, side, url, out, 120 + size / (50 * MIB))
    wall = time.monotonic() - t0
    ticks1 = {c: D.cpu_ticks(c) for c in cpus}
    busy = {c: busy_seconds(ticks0[c], ticks1[c], wall, user_hz) for c in cpus}
    t1 = time.monotonic()
    if not reason:
        got = out.stat().st_size if out.exists() else -1
        if got != size:
            reason = f"{got} bytes, not {size}"
        elif FetchLab.file_sha256(out) != digest:
            reason = "SHA-256 differs from the server's file"
    out.unlink(missing_ok=True)
    os.sync()  # nothing of this file left to write back while the next side runs
    ok = not reason and seconds > 0
    t: dict[str, Any] = {
        "side": side.name,
        "size": size,
        "ok": ok,
        "reason": reason or None,
        "seconds": seconds,
        "process_wall_s": wall,
        "check_s": time.monotonic() - t1,  # the check, deletion and sync after it
        "client_cpu_busy_s": busy[CLIENT_CPU],
        "server_cpu_busy_s": busy[SERVER_CPU],
        # the server's CPU (nginx, the router's receive) busy over the transfer
        "server_busy_share": busy[SERVER_CPU] / seconds if seconds > 0 else None,
    }
    good = {
        "goodput_bps": size * 8 / seconds if ok else 0.0,
        "goodput_process_bps": size * 8 / wall if ok else 0.0,
        "core_cycles_per_byte": seconds * tsc / size,
        "proc_stat_cycles_per_byte": busy[CLIENT_CPU] * tsc / size,
        "system_cycles_per_byte": (busy[CLIENT_CPU] + busy[SERVER_CPU]) * tsc / size,
    }
    # JSON has no infinity: a failed download's cycles per byte are null
    t.update({k: (v if ok or k.startswith("goodput") else None) for k, v in good.items()})
    if own:
        t["fetch"] = own
    return t


def prepare_files(sizes: Iterable[int], www: Path) -> dict[int, tuple[str, Path, str]]:
    """The server's files, pseudo-random, one per size: {size: (name, path, SHA-256)}."""
    files = {}
    for s in sizes:
        name = f"f{s // MIB}m.bin"
        files[s] = (name, www / name, write_pattern(www / name, s, name))
    return files


def disk_plan(sizes: Iterable[int], www: Path, out_dir: Path) -> tuple[list[int], dict[str, Any]]:
    """``plan_sizes`` on the real file systems, and what it saw (for the report)."""
    www_free = shutil.disk_usage(www).free
    out_free = shutil.disk_usage(out_dir).free
    same = os.stat(www).st_dev == os.stat(out_dir).st_dev
    sizes = list(sizes)
    kept = plan_sizes(sizes, www_free, out_free, same)
    return kept, {
        "www_dir": str(www),
        "www_free_bytes": www_free,
        "out_dir": str(out_dir),
        "out_free_bytes": out_free,
        "left_out": [s for s in sizes if s not in kept],
    }


def run_blocks(
    lab: FetchLab,
    files: dict[int, tuple[str, Path, str]],
    n_blocks: int,
    sides: list[str],
    out_dir: Path,
    tsc: float,
    iso: D.CpuIsolation | None,
    on_trial: Callable[[dict[str, Any]], None],
) -> list[dict[str, Any]]:
    """Every block: for each pair index, each size in turn, the placement probed
    (and the client's CPU swept of other tasks), then every side once in
    ``side_order``. Returns every trial; ``on_trial`` sees each as it ends."""
    trials = []
    for i in range(n_blocks):
        for size, (name, _, digest) in files.items():
            if iso is not None:
                iso.sweep()
            probe = D.xcpu_probe((CLIENT_CPU, SERVER_CPU))
            rtt = probe["rtt_ns"] if probe else None
            where = D.placement(rtt) or "unprobed"
            for pos, side in enumerate(side_order(i, sides)):
                t = download(lab, SIDES[side], name, size, digest, out_dir, tsc)
                t.update(block=i, position=pos, placement=where, xcpu_rtt_ns=rtt)
                trials.append(t)
                on_trial(t)
    return trials


# --------------------------------------------------------------------------
# paired comparisons from the trials


def figure(trial: dict[str, Any], metric: str) -> float:
    """A trial's figure for ``metric``; a failed download's is the metric's
    ``failed`` figure (goodput 0, cycles per byte infinite)."""
    if not trial["ok"]:
        return METRICS[metric].failed
    return float(trial[metric])


def block_pair(
    block: list[dict[str, Any]], metric: str, num: str, den: str, ceiling_share: float
) -> paired.Pair:
    """The pair ``num`` over ``den`` of one block (its trials) for ``metric``:
    ``Pair.ratio()`` is num's figure / den's. A failed side counts with the figure
    of a download that delivered nothing; when both failed, neither did better (a
    ratio of 1). Both sides with the server's CPU at least ``ceiling_share`` busy
    over their transfer: at the ceiling (for the time-bound metrics)."""
    by = {t["side"]: t for t in block}
    tn, td = by[num], by[den]
    ran = ["B" if t["side"] == num else "A" for t in block if t["side"] in (num, den)]
    first = block[0]
    both_failed = not tn["ok"] and not td["ok"]
    a, b = (1.0, 1.0) if both_failed else (figure(td, metric), figure(tn, metric))
    shares = [t["server_busy_share"] for t in (tn, td)]
    ceiling = (
        METRICS[metric].timed
        and tn["ok"]
        and td["ok"]
        and all(s is not None and s >= ceiling_share for s in shares)
    )
    p = paired.Pair(first["block"], (ran[0], ran[1]), a, b, first["placement"], ceiling)
    p.extra = {"size": first["size"], "both_failed": both_failed}
    return p


def comparison(
    trials: list[dict[str, Any]],
    metric: str,
    num: str,
    den: str,
    size: int,
    ceiling_share: float,
) -> dict[str, Any]:
    """The paired headline of ``num`` over ``den`` for ``metric`` at ``size``, from
    every block of that size (none left out), with the failed downloads counted."""
    blocks: dict[int, list[dict[str, Any]]] = {}
    for t in trials:
        if t["size"] == size and t["side"] in (num, den):
            blocks.setdefault(t["block"], []).append(t)
    pairs = [block_pair(b, metric, num, den, ceiling_share) for _, b in sorted(blocks.items())]
    what = f"{SIDES[num].label} / {SIDES[den].label}, {size_name(size)}: "
    h = paired.headline(pairs, what + METRICS[metric].definition).to_json()
    failed = {s: sum(1 for b in blocks.values() for t in b if t["side"] == s and not t["ok"])
              for s in (num, den)}  # fmt: skip
    h["failed_downloads"] = failed
    h["pairs_at_ceiling"] = sum(p.at_ceiling for p in pairs)
    return h


def side_medians(trials: list[dict[str, Any]], side: str, size: int) -> dict[str, Any]:
    """Per side and size: downloads, failures and the medians of the successful ones."""
    ts = [t for t in trials if t["side"] == side and t["size"] == size]
    ok = [t for t in ts if t["ok"]]
    keys = ("seconds", "server_busy_share", *METRICS)
    med = {k: statistics.median(t[k] for t in ok) if ok else None for k in keys}
    return {"downloads": len(ts), "failed": len(ts) - len(ok), **med}

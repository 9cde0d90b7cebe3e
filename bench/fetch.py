#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/fetch.py: twinplane-fetch against curl and wget (issue 13, seed 001).

One HTTP download at a time from nginx (Debian's) through a Linux router, on the
downloader's lab (python/twinplane/lab/fetch.py)::

    c: c0 (client, 10.0.1.2) --- r0 [r: ip_forward] r1 --- s0 (10.0.2.2): nginx

- **Tools**: ``twinplane_fetch`` (its own TCP/IP on c0 through net_af_xdp, SHA-256
  of the body as it arrives, checked against ``--sha256``), ``twinplane_fetch_nodigest``
  (the same with ``--no-digest``: like curl and wget, no digest), ``curl``
  and ``wget`` over kernel sockets on the same c0 (the kernel gets the client's
  address while they run), all with the veths' offloads off (TX checksum, SG, TSO,
  GSO: what the DPDK port needs); ``curl_offloads`` and ``wget_offloads`` again with
  them on, the kernel's best case on this wire (64 KiB segments end to end).
  The bar (goodput at least curl's, at most half its cycles per byte) is judged on
  the like-for-like pair: ``twinplane_fetch_nodigest`` against ``curl`` (neither
  hashes); ``twinplane_fetch``'s figures are reported beside it.
- **Files**: 0.5, 1 and 3 GiB (the seed's 2.2, 4.6 and 14.4 GB scaled to this
  machine), pseudo-random, written once and served by every repetition's nginx;
  each download goes to ``--out-dir`` (default: the work directory's file system,
  a disk, where a downloader writes: twinplane-fetch with O_DIRECT, curl and wget
  through the page cache, whose writeback after the download is not measured), is
  checked (size, SHA-256) after the measurement, deleted, and ``sync`` run. The
  ``*_tmpfs`` pair (``twinplane_fetch_nodigest_tmpfs`` against ``curl_tmpfs``)
  writes to /dev/shm instead, both through the page cache. Free space is checked
  first; sizes that do not fit are left out and the report says so.
- **CPUs**: the client on CPU 0 every time (twinplane-fetch's lcore ``0@(0)``,
  ``taskset -c 0`` for curl and wget), nginx (master and worker) and this script on
  CPU 1. The router receives what the client sends on CPU 1 too (RPS on its
  client-facing veth ``r0``, ``FetchLab(router_cpu=...)``): a veth runs a frame's
  receive on the sending CPU, so without it every ACK a client sends was forwarded,
  and answered by nginx's TCP with its next segments, on the client's CPU inside the
  client's system call (twinplane-fetch's AF_XDP kick, curl's ACKs from ``recv``).
  The same for every tool; twinplane-fetch's port runs without busy polling
  (``busy_budget=0``: its idle polls make no system call).
- **Measures**, per download: time (twinplane-fetch's own from its first SYN to the
  last body byte; curl's ``time_total``; wget's process wall time), goodput (body
  bits / time), and the client's CPU cycles per body byte:
  ``cycles_per_byte``: twinplane-fetch's busy cycles (its loop's passes that
  received, sent, wrote or hashed, TSC); for curl and wget CPU 0's busy time
  (/proc/stat: wall - idle - iowait, everything the CPU did, the kernel's softirq
  work there included) x TSC Hz, less the share other tasks took in the half
  second before. ``cycles_per_byte_wall``: the CPU time the client held: for
  twinplane-fetch its transfer time x TSC Hz (a polling core is 100 % busy), for
  the kernel tools the same figure as ``cycles_per_byte``. Also recorded: CPU 0's
  /proc/stat figure over twinplane-fetch's whole process (EAL start-up and exit
  included), each client's own process CPU time (rusage), and both CPUs together.
- **Repetitions** (5) are interleaved: each is a fresh lab (namespaces, nginx)
  under the lab lock, every size and tool once, the tools' order rotated.

Report: docs/results/fetch.{md,json,png}. ``--quick``: 64 and 256 MiB, one
repetition (to check the script, not for numbers).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from twinplane.bench import ensure_venv

ensure_venv(ROOT)

from twinplane.bench import duts as D
from twinplane.lab.fetch import (
    SERVER,
    FetchLab,
    FetchResult,
    fetch_binary,
    nginx_binary,
    write_pattern,
)

CLIENT_CPU = D.DUT_CPU
SERVER_CPU = D.GEN_CPU
MIB = 1 << 20
GIB = 1 << 30
SIZES = (GIB // 2, GIB, 3 * GIB)
QUICK_SIZES = (64 * MIB, 256 * MIB)
DISK_MARGIN = GIB
# the tool the bar is judged on: like curl, it computes no digest
BAR_TOOL = "twinplane_fetch_nodigest"
# other tasks' share of the client's CPU before a download above which its /proc/stat
# figures are flagged (the report counts them)
CONTENDED_SHARE = 0.1
# key: (program, offloads on the path's veths, the download to tmpfs instead of the disk)
TOOLS: dict[str, tuple[str, bool, bool]] = {
    "twinplane_fetch": ("twinplane-fetch", False, False),
    "twinplane_fetch_nodigest": ("twinplane-fetch", False, False),
    "curl": ("curl", False, False),
    "wget": ("wget", False, False),
    "curl_offloads": ("curl", True, False),
    "wget_offloads": ("wget", True, False),
    "twinplane_fetch_nodigest_tmpfs": ("twinplane-fetch", False, True),
    "curl_tmpfs": ("curl", False, True),
}
# what a tool's ratios are taken against: curl writing where it writes
TMPFS_REF = "curl_tmpfs"
LABELS = {
    "twinplane_fetch": "twinplane-fetch (af_xdp), SHA-256",
    "twinplane_fetch_nodigest": "twinplane-fetch (af_xdp), no digest",
    "curl": "curl, offloads off",
    "wget": "wget, offloads off",
    "curl_offloads": "curl, offloads on",
    "wget_offloads": "wget, offloads on",
    "twinplane_fetch_nodigest_tmpfs": "twinplane-fetch (af_xdp), no digest, to tmpfs",
    "curl_tmpfs": "curl, offloads off, to tmpfs",
}
COLORS = {
    "twinplane_fetch": "#dd8452",
    "twinplane_fetch_nodigest": "#c44e52",
    "curl": "#4c72b0",
    "wget": "#55a868",
    "curl_offloads": "#8fa8d8",
    "wget_offloads": "#9ed3a8",
    "twinplane_fetch_nodigest_tmpfs": "#e8a0a2",
    "curl_tmpfs": "#2a3f66",
}


def ref_tool(tool: str) -> str:
    """The curl run a tool is compared with: the one writing to the same file system."""
    return TMPFS_REF if TOOLS[tool][2] else "curl"


DEFINITIONS = {
    "cycles_per_byte": "twinplane_fetch: its busy cycles (loop passes that received, sent, "
    "wrote or hashed; TSC) per body byte; kernel tools: CPU 0's busy time (/proc/stat wall - "
    "idle - iowait, softirq included) less other tasks' share before, x TSC Hz, per body byte",
    "cycles_per_byte_wall": "twinplane_fetch: transfer seconds x TSC Hz per body byte (the "
    "polling core is 100 % busy); kernel tools: as cycles_per_byte",
    "cycles_per_byte_proc_stat": "every tool: CPU 0's /proc/stat busy time over the client "
    "process's life (twinplane-fetch: EAL start-up and exit included)",
    "cycles_per_byte_process": "the client process's own CPU time (rusage user + system), "
    "without softirq work done for it",
    "system_cycles_per_byte": "CPU 0 and CPU 1 busy together (client, router, nginx; this "
    "script asleep)",
    "goodput": "body bits / transfer seconds (twinplane-fetch: first SYN to last byte; curl: "
    "time_total; wget: process wall time)",
}


class BenchError(RuntimeError):
    """A download failed or came back wrong."""


def size_name(size: int) -> str:
    return f"{size / GIB:g} GiB" if size >= GIB // 2 else f"{size // MIB} MiB"


# --------------------------------------------------------------------------
# one download


def busy_seconds(a: dict[str, int], b: dict[str, int], wall: float, user_hz: int) -> float:
    """The time a CPU was not idle between two /proc/stat samples ``wall`` seconds
    apart: wall less idle and iowait (the idle time is exact under NOHZ; the
    softirq column is not, DESIGN of bench/rfc2544_ip4.py's kernel cost)."""
    idle = (b["idle"] - a["idle"]) + (b["iowait"] - a["iowait"])
    return max(0.0, wall - idle / user_hz)


def kernel_tool_argv(prog: str, url: str, out: Path) -> list[str]:
    if prog == "curl":
        fmt = "%{time_total} %{size_download}\n"
        return ["curl", "-sS", "--fail", "-o", str(out), "-w", fmt, url]
    return ["wget", "-q", "-O", str(out), url]


def download(
    lab: FetchLab, tool: str, name: str, size: int, digest: str, out_dir: Path, tsc: float
) -> dict[str, Any]:
    """One download of ``name`` by ``tool``, measured; the output checked and deleted."""
    prog, offloads, _ = TOOLS[tool]
    lab.set_offloads(offloads)
    lab.set_kernel_client(prog != "twinplane-fetch")
    out = out_dir / f"{tool}.bin"
    out.unlink(missing_ok=True)
    url = f"http://{SERVER}/{name}"
    user_hz = os.sysconf("SC_CLK_TCK")
    cpus = (CLIENT_CPU, SERVER_CPU)
    # other tasks' share of each CPU just before (this script sleeps meanwhile)
    base = D.cpu_busy(0.5, cpus)
    timeout = 120 + size / (50 * MIB)
    ticks0 = {c: D.cpu_ticks(c) for c in cpus}
    rus0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    summary: dict[str, Any] = {}
    if prog == "twinplane-fetch":
        what = ["--no-digest"] if "_nodigest" in tool else ["--sha256", digest]
        res = lab.fetch(url, out, *what, cpu=CLIENT_CPU, timeout=timeout)
        assert isinstance(res, FetchResult)
        rc, stdout, stderr = res.returncode, res.stdout, res.stderr
        summary = res.summary
    else:
        argv = lab.client_argv(kernel_tool_argv(prog, url, out), cpu=CLIENT_CPU)
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
        rc, stdout, stderr = p.returncode, p.stdout, p.stderr
    wall = time.monotonic() - t0
    rus1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    ticks1 = {c: D.cpu_ticks(c) for c in cpus}
    if rc != 0:
        raise BenchError(f"{tool} {name}: exit {rc}\n{stdout[-2000:]}\n{stderr[-2000:]}")
    # checked after the measurement, on this script's CPU
    got = out.stat().st_size if out.exists() else -1
    ok = got == size and FetchLab.file_sha256(out) == digest
    out.unlink(missing_ok=True)
    # nothing of this file left to write back while the next tool is measured
    os.sync()
    if not ok:
        raise BenchError(f"{tool} {name}: {got} bytes, not the server's {size} or its SHA-256")

    if prog == "twinplane-fetch":
        seconds = float(summary["seconds"])
    elif prog == "curl":
        seconds = float(stdout.split()[0])
    else:
        seconds = wall
    raw = {c: busy_seconds(ticks0[c], ticks1[c], wall, user_hz) for c in cpus}
    busy = {c: max(0.0, raw[c] - base[c] * wall) for c in cpus}
    proc_cpu = (rus1.ru_utime - rus0.ru_utime) + (rus1.ru_stime - rus0.ru_stime)
    r: dict[str, Any] = {
        "tool": tool,
        "size": size,
        "seconds": seconds,
        "process_wall_s": wall,
        "goodput_bps": size * 8 / seconds,
        "client_cpu_busy_s": busy[CLIENT_CPU],
        "server_cpu_busy_s": busy[SERVER_CPU],
        "client_cpu_busy_raw_s": raw[CLIENT_CPU],
        "server_cpu_busy_raw_s": raw[SERVER_CPU],
        "other_share_before": {str(c): base[c] for c in cpus},
        # other tasks held the client's CPU: the /proc/stat figures are not the client's
        "contended": base[CLIENT_CPU] > CONTENDED_SHARE,
        "process_cpu_s": proc_cpu,
        "cycles_per_byte_proc_stat": busy[CLIENT_CPU] * tsc / size,
        "cycles_per_byte_process": proc_cpu * tsc / size,
        "system_cycles_per_byte": (busy[CLIENT_CPU] + busy[SERVER_CPU]) * tsc / size,
        "server_cycles_per_byte": busy[SERVER_CPU] * tsc / size,
    }
    if prog == "twinplane-fetch":
        r["cycles_per_byte"] = summary["busy_cycles"] / size
        r["cycles_per_byte_wall"] = seconds * tsc / size
        r["fetch"] = {
            k: summary[k]
            for k in (
                "busy_cycles",
                "loop_cycles",
                "polls",
                "busy_polls",
                "tsc_hz",
                "retransmissions",
                "out_of_order",
                "duplicates",
                "mbufs_outstanding",
                "digest",
                "file_writes",
                "direct",
                "direct_bytes",
                "write_wait_cycles",
                "direct_slow_writes",
                "direct_max_wait_us",
            )
            if k in summary
        }
        r["fetch"]["port"] = summary.get("port", {})
        # the busy cycles by stage, per body byte (rx, stack, write: pwritev, tx: the kick)
        r["fetch"]["busy_split_per_byte"] = {
            k: v / size for k, v in summary.get("busy_split", {}).items()
        }
        r["fetch"]["acks_sent"] = summary["counters"]["tcp_acks_sent"]
        r["fetch"]["segments_in"] = summary["counters"]["tcp_segments_in"]
        r["fetch"]["drops"] = {
            k: v for k, v in summary["counters"].items() if k.startswith("drop_") and v
        }
    else:
        r["cycles_per_byte"] = r["cycles_per_byte_proc_stat"]
        r["cycles_per_byte_wall"] = r["cycles_per_byte_proc_stat"]
    return r


# --------------------------------------------------------------------------
# the run


def plan_sizes(sizes: tuple[int, ...], www_dir: Path, out_dir: Path) -> tuple[list[int], dict]:
    """The sizes whose files fit: the server's copies all at once in ``www_dir``, one
    download at a time in ``out_dir`` (with DISK_MARGIN left on each)."""
    www_free = shutil.disk_usage(www_dir).free
    out_free = shutil.disk_usage(out_dir).free
    same = os.stat(www_dir).st_dev == os.stat(out_dir).st_dev
    kept: list[int] = []
    for s in sorted(sizes):
        www_need = sum(kept) + s + DISK_MARGIN + (s if same else 0)
        if www_free >= www_need and out_free >= s + DISK_MARGIN:
            kept.append(s)
    info = {
        "www_dir": str(www_dir),
        "www_free_bytes": www_free,
        "out_dir": str(out_dir),
        "out_free_bytes": out_free,
        "same_file_system": same,
        "asked": list(sizes),
        "kept": kept,
        "left_out": [s for s in sizes if s not in kept],
    }
    return kept, info


def choose_out_dir(arg: Path | None, workdir: Path) -> Path:
    """Where downloads go: ``--out-dir``, else the work directory's file system (a
    disk: where a downloader writes, and where twinplane-fetch writes with O_DIRECT)."""
    d = arg if arg is not None else workdir / "out"
    d.mkdir(parents=True, exist_ok=True)
    return d


def tmpfs_dir(largest: int) -> Path | None:
    """A directory on /dev/shm for the ``*_tmpfs`` tools, if it has room."""
    shm = Path("/dev/shm")
    if shm.is_dir() and shutil.disk_usage(shm).free >= largest + 2 * DISK_MARGIN:
        return Path(tempfile.mkdtemp(prefix="tp-fetch-", dir=shm))
    return None


def run(args: argparse.Namespace, tsc: float, workdir: Path) -> dict[str, Any]:
    www = workdir / "www"
    www.mkdir(exist_ok=True)
    out_dir = choose_out_dir(args.out_dir, workdir)
    sizes, disk = plan_sizes(args.sizes, www, out_dir)
    if not sizes:
        raise BenchError(f"no file size fits on disk: {disk}")
    if disk["left_out"]:
        print(f"bench/fetch.py: left out for lack of space: {disk['left_out']}", flush=True)
    tools = [t for t in args.tools if t in TOOLS]
    shm = tmpfs_dir(max(sizes)) if any(TOOLS[t][2] for t in tools) else None
    disk["tmpfs_dir"] = str(shm) if shm else None
    if shm is None and any(TOOLS[t][2] for t in tools):
        left = [t for t in tools if TOOLS[t][2]]
        disk["tmpfs_tools_left_out"] = left
        print(f"bench/fetch.py: no room on /dev/shm: {left} left out", flush=True)
        tools = [t for t in tools if not TOOLS[t][2]]
    else:
        disk["tmpfs_free_bytes"] = shutil.disk_usage(shm).free if shm else None
    files: dict[int, tuple[str, Path, str]] = {}
    for s in sizes:
        name = f"f{s // MIB}m.bin"
        t0 = time.monotonic()
        digest = write_pattern(www / name, s, name)
        files[s] = (name, www / name, digest)
        print(f"  {name}: written in {time.monotonic() - t0:.1f} s", flush=True)
    runs: list[dict[str, Any]] = []
    reps_meta: list[dict[str, Any]] = []
    try:
        for rep in range(args.reps):
            quiet = D.wait_quiet(args.quiet_busy, args.quiet_timeout)
            order = tools[rep % len(tools) :] + tools[: rep % len(tools)]
            with (
                D.lab_lock(args.lock) as waited,
                FetchLab(server_cpu=SERVER_CPU, router_cpu=SERVER_CPU) as lab,
            ):
                reps_meta.append({"rep": rep, "quiet": quiet, "lock_wait_s": round(waited, 1)})
                for s in sizes:
                    name, path, digest = files[s]
                    lab.link_file(name, path, digest)
                for s in sizes:
                    name, _, digest = files[s]
                    for tool in order:
                        where = shm if TOOLS[tool][2] and shm else out_dir
                        r = download(lab, tool, name, s, digest, where, tsc)
                        r["rep"] = rep
                        runs.append(r)
                        print(
                            f"rep {rep + 1}/{args.reps} {size_name(s):>8} {tool:16} "
                            f"{r['seconds']:7.2f} s {r['goodput_bps'] / 1e9:6.2f} Gbit/s "
                            f"{r['cycles_per_byte']:6.2f} cyc/B "
                            f"(wall {r['cycles_per_byte_wall']:.2f})",
                            flush=True,
                        )
                        (workdir / "runs.json").write_text(json.dumps(runs, indent=1))
    finally:
        for _, path, _ in files.values():
            path.unlink(missing_ok=True)
        if shm is not None:
            shutil.rmtree(shm, ignore_errors=True)
    return {"runs": runs, "reps_meta": reps_meta, "disk": disk, "sizes": sizes, "tools": tools}


# --------------------------------------------------------------------------
# summary


def median_spread(xs: list[float]) -> dict[str, Any]:
    xs = [x for x in xs if x is not None]
    if not xs:
        return {"median": None, "min": None, "max": None, "n": 0}
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


def summarize(runs: list[dict[str, Any]], sizes: list[int], tools: list[str]) -> dict[str, Any]:
    keys = (
        "seconds",
        "goodput_bps",
        "cycles_per_byte",
        "cycles_per_byte_wall",
        "cycles_per_byte_proc_stat",
        "cycles_per_byte_process",
        "system_cycles_per_byte",
        "server_cycles_per_byte",
    )
    by: dict[str, Any] = {}
    for t in tools:
        by[t] = {}
        for s in sizes:
            rs = [r for r in runs if r["tool"] == t and r["size"] == s]
            by[t][str(s)] = {k: median_spread([r[k] for r in rs]) for k in keys}
        by[t]["all"] = {k: median_spread([r[k] for r in runs if r["tool"] == t]) for k in keys}

    def ratio(key: str, tool: str, s: int | None) -> list[float]:
        """tool's ``key`` over curl's (to the same file system) in the same repetition and
        size."""
        out = []
        ref = ref_tool(tool)
        for r in runs:
            if r["tool"] != tool or (s is not None and r["size"] != s):
                continue
            c = [
                x
                for x in runs
                if x["tool"] == ref and (x["rep"], x["size"]) == (r["rep"], r["size"])
            ]
            if c and c[0][key]:
                out.append(r[key] / c[0][key])
        return out

    ratios: dict[str, Any] = {}
    for key in ("goodput_bps", "cycles_per_byte", "cycles_per_byte_wall"):
        ratios[key] = {
            t: {
                **{str(s): median_spread(ratio(key, t, s)) for s in sizes},
                "all": median_spread(ratio(key, t, None)),
            }
            for t in tools
            if t != ref_tool(t)
        }
    return {"by_tool": by, "ratios_vs_curl": ratios}


def build_doc(
    res: dict[str, Any], args: argparse.Namespace, tsc: float, argv: list[str]
) -> dict[str, Any]:
    s = summarize(res["runs"], res["sizes"], res["tools"])
    by = s["by_tool"]
    rv = s["ratios_vs_curl"]
    doc: dict[str, Any] = {
        "command": "bench/fetch.py " + shlex.join(argv),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "git": D.git_rev(),
        "machine": D.machine_info(),
        "tsc_hz": tsc,
        "quick": args.quick,
        "reps": args.reps,
        "sizes": res["sizes"],
        "tools": res["tools"],
        "cpu": {
            "client": CLIENT_CPU,
            "server_nginx": SERVER_CPU,
            "router_rx": SERVER_CPU,
            "this_script": SERVER_CPU,
        },
        "disk": res["disk"],
        # the issue's keys: twinplane-fetch's (and the others') goodput over curl's in the
        # same repetition and size, every size together and per size
        "goodput_ratio_vs_curl": rv["goodput_bps"],
        "cycles_per_byte": {
            t: by[t]["all"]["cycles_per_byte"]
            | {"by_size": {k: v["cycles_per_byte"] for k, v in by[t].items() if k != "all"}}
            for t in res["tools"]
        },
        "cycles_per_byte_wall": {
            t: by[t]["all"]["cycles_per_byte_wall"]
            | {"by_size": {k: v["cycles_per_byte_wall"] for k, v in by[t].items() if k != "all"}}
            for t in res["tools"]
        },
        "cycles_ratio_vs_curl": {"busy": rv["cycles_per_byte"], "wall": rv["cycles_per_byte_wall"]},
        "definitions": DEFINITIONS,
        "summary": by,
        "reps_meta": res["reps_meta"],
        "runs": res["runs"],
    }
    # the bar on the like-for-like pair (no digest either side), and the same test
    # for twinplane-fetch with its digest, for the record
    doc["bar"] = bar_for(rv, BAR_TOOL) | {"judged_on": BAR_TOOL, "against": "curl"}
    doc["bar_with_digest"] = bar_for(rv, "twinplane_fetch")
    if "twinplane_fetch_nodigest_tmpfs" in res["tools"] and TMPFS_REF in res["tools"]:
        doc["bar_tmpfs"] = bar_for(rv, "twinplane_fetch_nodigest_tmpfs") | {"against": TMPFS_REF}
    return doc


def bar_for(rv: dict[str, Any], tool: str) -> dict[str, Any]:
    good = rv["goodput_bps"].get(tool, {}).get("all", {})
    busy = rv["cycles_per_byte"].get(tool, {}).get("all", {})
    wall = rv["cycles_per_byte_wall"].get(tool, {}).get("all", {})
    return {
        "goodput_at_least_curl": good.get("median") is not None and good["median"] >= 1.0,
        "busy_cycles_at_most_half_curl": busy.get("median") is not None and busy["median"] <= 0.5,
        "wall_cycles_at_most_half_curl": wall.get("median") is not None and wall["median"] <= 0.5,
    }


# --------------------------------------------------------------------------
# report


def _ms(sp: dict[str, Any], scale: float = 1.0, nd: int = 2) -> str:
    if not sp or sp.get("median") is None:
        return "-"
    m, lo, hi = (sp[k] * scale for k in ("median", "min", "max"))
    if sp["n"] == 1:
        return f"{m:.{nd}f}"
    return f"{m:.{nd}f} ({lo:.{nd}f}-{hi:.{nd}f})"


def met(ok: bool) -> str:
    return "met" if ok else "not met"


def write_report(doc: dict[str, Any], out: Path) -> Path:
    by = doc["summary"]
    tools = doc["tools"]
    g = doc["goodput_ratio_vs_curl"]
    cr = doc["cycles_ratio_vs_curl"]
    m = doc["machine"]
    lines = [
        "# Downloader: twinplane-fetch against curl and wget (issue 13, seed 001)",
        "",
        f"Commit `{doc['git']}`, {doc['date']}. Command: `{doc['command']}`. Machine: "
        f"{m.get('model_name', '?')} ({m.get('hypervisor_vendor', 'bare metal')}), "
        f"{m.get('nproc')} CPUs, TSC {doc['tsc_hz'] / 1e9:.2f} GHz, kernel {m.get('kernel')}. "
        f"{doc['reps']} repetition(s)"
        f"{' (--quick: checks the script, not numbers)' if doc['quick'] else ''}.",
        "",
        "Set-up: nginx in namespace `s` behind a Linux router (`r`), the client on veth `c0` "
        "in `c`; "
        f"the client pinned to CPU {doc['cpu']['client']} every time (twinplane-fetch's lcore, "
        f"`taskset` for curl and wget), nginx and this script on CPU {doc['cpu']['server_nginx']}, "
        + (
            f"the router's receive from the client on CPU {doc['cpu']['router_rx']} "
            "(RPS on its veth `r0`, for every tool). "
            if doc["cpu"].get("router_rx") is not None
            else ""
        )
        + "twinplane-fetch on `net_af_xdp` over c0, curl and wget over kernel sockets on the "
        "same c0; "
        "offloads (TX checksum, SG, TSO, GSO) off on every veth of the path for all three "
        "(what the DPDK port needs), and on again for curl and wget as their best case.",
        "",
    ]
    d = doc["disk"]
    lines += [
        f"Disk: the server's files in `{d['www_dir']}` "
        f"({d['www_free_bytes'] / GIB:.1f} GiB free before), "
        f"downloads to `{d['out_dir']}` ({d['out_free_bytes'] / GIB:.1f} GiB free; "
        "twinplane-fetch writes there with O_DIRECT, curl and wget through the page cache)"
        + (
            f", and for the `to tmpfs` rows to `{d['tmpfs_dir']}` "
            f"({d['tmpfs_free_bytes'] / GIB:.1f} GiB free; every tool through the page cache)"
            if d.get("tmpfs_dir")
            else ""
        )
        + ", one at a time, "
        "each checked (size and SHA-256) after its measurement, deleted, and `sync` run "
        "before the next. "
        + (
            "Sizes left out for lack of space: "
            + ", ".join(size_name(s) for s in d["left_out"])
            + "."
            if d["left_out"]
            else "Every size fitted."
        ),
        "",
    ]
    if "curl" in tools:
        for t, bar, what in (
            (BAR_TOOL, doc["bar"], "the bar is judged on this pair: neither computes a digest"),
            (
                "twinplane_fetch",
                doc.get("bar_with_digest"),
                "with its SHA-256, which curl does not compute: for the record",
            ),
            (
                "twinplane_fetch_nodigest_tmpfs",
                doc.get("bar_tmpfs"),
                "both writing to tmpfs, through the page cache, against curl to tmpfs: for "
                "the record",
            ),
        ):
            if t not in tools or bar is None:
                continue
            lines += [
                f"**{LABELS[t]} / curl on the same wire (offloads off; {what}), median "
                f"(min-max) over every size and repetition: goodput {_ms(g[t]['all'])}x, client "
                f"cycles per byte {_ms(cr['busy'][t]['all'])}x counting its busy "
                f"cycles, {_ms(cr['wall'][t]['all'])}x counting the polling "
                "core's whole time.** The bar: goodput at least curl's (ratio >= 1) and at most "
                f"half its cycles per byte (<= 0.5): goodput {met(bar['goodput_at_least_curl'])}, "
                f"busy cycles {met(bar['busy_cycles_at_most_half_curl'])}, wall-clock cycles "
                f"{met(bar['wall_cycles_at_most_half_curl'])}.",
                "",
            ]
    for s in doc["sizes"]:
        k = str(s)
        lines += [
            f"## {size_name(s)}",
            "",
            "| tool | time s | goodput Gbit/s | goodput / curl (same file system) "
            "| client cycles/B "
            "| client wall cycles/B | process cycles/B | both CPUs cycles/B |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for t in tools:
            e = by[t][k]
            ratio = "1" if t == ref_tool(t) else _ms(g[t][k])
            lines.append(
                f"| {LABELS[t]} | {_ms(e['seconds'])} | {_ms(e['goodput_bps'], 1e-9)} | {ratio} | "
                f"{_ms(e['cycles_per_byte'])} | {_ms(e['cycles_per_byte_wall'])} | "
                f"{_ms(e['cycles_per_byte_process'])} | {_ms(e['system_cycles_per_byte'])} |"
            )
        lines.append("")
    runs = doc["runs"]
    contended = [r for r in runs if r.get("contended")]
    disk_runs = [r for r in runs if "fetch" in r and not TOOLS[r["tool"]][2]]
    if disk_runs:
        kept = [r for r in disk_runs if r["fetch"].get("direct") == "on"]
        others = sorted({str(r["fetch"].get("direct")) for r in disk_runs} - {"on"})
        waits = [r["fetch"].get("write_wait_cycles", 0) / r["size"] for r in kept]
        lines += [
            f"O_DIRECT: {len(kept)} of {len(disk_runs)} twinplane-fetch downloads to the disk "
            "wrote with it to the end"
            + (f" (the others: {', '.join(others)})" if others else "")
            + (
                f"; the loop slept {_ms(median_spread(waits))} cycles per byte in those "
                "writes, waiting for the device (`write_wait_cycles`, not counted busy: "
                "the CPU was free)."
                if waits
                else "."
            ),
            "",
        ]
    lines += [
        "Medians, (min-max) over the repetitions. "
        + (
            f"**{len(contended)} of {len(runs)} downloads started with other tasks holding "
            f"more than {CONTENDED_SHARE:.0%} of the client's CPU** (`contended` in the JSON): "
            "their /proc/stat figures (kernel tools' cycles, both CPUs) are not the client's; "
            "twinplane-fetch's busy cycles and every tool's goodput suffer too. Run again on "
            "a quiet machine."
            if contended
            else "No download started with other tasks on the client's CPU "
            f"(more than {CONTENDED_SHARE:.0%} of it in the half second before)."
        ),
        "",
        "## What the columns are",
        "",
        "- **client cycles/B** (`cycles_per_byte`): for twinplane-fetch its own busy cycles, the "
        "TSC cycles of its loop's passes that received, sent, wrote or hashed something (the "
        "work); "
        f"for curl and wget CPU {doc['cpu']['client']}'s busy time from /proc/stat (wall - idle - "
        "iowait: the tool, its system calls, and the kernel's softirq work on that CPU), less the "
        "share other tasks took in the half second before, x TSC Hz.",
        "- **client wall cycles/B** (`cycles_per_byte_wall`): the CPU time the client held. "
        "twinplane-fetch polls: its core is 100 % busy for the whole transfer, so this is the "
        "transfer time x TSC Hz. For the kernel tools it is the same figure as the previous "
        "column.",
        "- **process cycles/B**: the client process's own CPU time (rusage user + system; "
        "twinplane-fetch's is its polling thread's wall time, EAL start-up included); for the "
        "kernel tools it leaves out softirq work done on their behalf.",
        "- **both CPUs cycles/B**: CPU 0 and CPU 1 busy together (client, router, nginx).",
        "- **time**: twinplane-fetch's own (first SYN to last body byte, EAL start-up of about "
        "a second not included; the JSON keeps the process's wall time), curl's `time_total`, "
        "wget's process wall time.",
        "",
        "On veth, a frame's receive processing runs on the CPU that sent it: the server's data "
        "crosses the router in softirq on nginx's CPU; what the client sends (its ACKs) is "
        "received by the router on the CPU named above (RPS on `r0`; without it, routing the "
        "ACKs and nginx's answers to them ran on the client's CPU inside its system calls), "
        "for every tool alike; the both-CPUs column shows where the total went.",
        "",
        "![fetch results](fetch.png)",
        "",
    ]
    path = out / "fetch.md"
    path.write_text("\n".join(lines))
    return path


def plot(doc: dict[str, Any], out: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by = doc["summary"]
    sizes = doc["sizes"]
    tools = doc["tools"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 5.2))
    width = 0.8 / max(1, len(tools))
    wall_label = "twinplane-fetch, whole polling core"
    for ax, key, scale, ylabel in (
        (axes[0], "goodput_bps", 1e-9, "goodput, Gbit/s"),
        (axes[1], "cycles_per_byte", 1.0, "client CPU cycles per byte"),
    ):
        for i, t in enumerate(tools):
            xs = [j + (i - (len(tools) - 1) / 2) * width for j in range(len(sizes))]
            sp = [by[t][str(s)][key] for s in sizes]
            med = [x["median"] * scale for x in sp]
            err = [
                [(x["median"] - x["min"]) * scale for x in sp],
                [(x["max"] - x["median"]) * scale for x in sp],
            ]
            ax.bar(xs, med, width, yerr=err, capsize=2, color=COLORS[t], label=LABELS[t])
            if key == "cycles_per_byte" and t.startswith("twinplane_fetch"):
                wall = [by[t][str(s)]["cycles_per_byte_wall"]["median"] for s in sizes]
                ax.scatter(xs, wall, marker="_", s=300, color="black", zorder=3,
                           label=wall_label)  # fmt: skip
                wall_label = "_"  # one legend entry
        ax.set_xticks(range(len(sizes)), [size_name(s) for s in sizes])
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_title("goodput (median, min-max)")
    axes[1].set_title(f"client CPU {doc['cpu']['client']}, cycles per body byte")
    handles, labels = axes[1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0.14, 1, 1))
    path = out / "fetch.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# --------------------------------------------------------------------------


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="64 and 256 MiB, one repetition")
    ap.add_argument("--reps", type=int, default=None, help="repetitions (5; --quick 1)")
    ap.add_argument(
        "--sizes", default=None, help="file sizes in MiB, comma-separated (512,1024,3072)"
    )
    ap.add_argument("--tools", default=",".join(TOOLS), help=f"any of {','.join(TOOLS)}")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "results")
    ap.add_argument(
        "--out-dir",
        type=Path,
        default=None,
        help="where downloads go (tmpfs if it has room, else the work directory)",
    )
    ap.add_argument("--workdir", type=Path, default=None, help="the server's files and runs.json")
    ap.add_argument(
        "--lock", default="/tmp/tp-lab.lock", help="flock file around each repetition ('' none)"
    )
    ap.add_argument(
        "--quiet-busy",
        type=float,
        default=0.15,
        help="wait until both CPUs are at most this busy before a repetition",
    )
    ap.add_argument(
        "--quiet-timeout", type=float, default=None, help="at most this long (600; --quick 30)"
    )
    ap.add_argument(
        "--from-json", type=Path, default=None, help="only redraw the report from raw results"
    )
    a = ap.parse_args(argv)
    a.reps = a.reps or (1 if a.quick else 5)
    if a.sizes:
        try:
            a.sizes = tuple(int(x) * MIB for x in a.sizes.split(","))
        except ValueError:
            ap.error(f"--sizes: MiB, comma-separated, got {a.sizes!r}")
        if any(s <= 0 for s in a.sizes):
            ap.error("--sizes: sizes must be positive")
    else:
        a.sizes = QUICK_SIZES if a.quick else SIZES
    a.tools = [t for t in a.tools.split(",") if t]
    bad = [t for t in a.tools if t not in TOOLS]
    if bad:
        ap.error(f"--tools: unknown {bad}; known: {','.join(TOOLS)}")
    if a.quiet_timeout is None:
        a.quiet_timeout = 30.0 if a.quick else 600.0
    return a


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.from_json:
        doc = json.loads(args.from_json.read_text())
        args.out.mkdir(parents=True, exist_ok=True)
        write_report(doc, args.out)
        plot(doc, args.out)
        return 0
    missing = [
        what
        for what, ok in (
            (f"{fetch_binary()} (build it)", fetch_binary().exists()),
            ("nginx (scripts/setup.sh)", nginx_binary() is not None),
            ("curl (scripts/setup.sh)", shutil.which("curl") is not None),
            ("wget (scripts/setup.sh)", shutil.which("wget") is not None),
        )
        if not ok
    ]
    if missing:
        print("bench/fetch.py: missing " + ", ".join(missing), file=sys.stderr)
        return 2
    started = D.bench_start("fetch", args.workdir)
    if started is None:
        return 2
    tsc, workdir = started
    D.ensure_hugepages(512)
    try:
        res = run(args, tsc, workdir)
    except BenchError as e:
        print(f"bench/fetch.py: {e}", file=sys.stderr)
        return 1
    doc = build_doc(res, args, tsc, argv)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "fetch.json").write_text(json.dumps(doc, indent=1) + "\n")
    md = write_report(doc, args.out)
    png = plot(doc, args.out)
    print(f"bench/fetch.py: wrote {md}, {png}, {args.out / 'fetch.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

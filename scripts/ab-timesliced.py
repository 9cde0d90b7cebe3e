#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A development A/B of two forwarders on fwd_cost's bed, time-sliced on one CPU.

Not a report (reports are bench/*.py): a tool to tell whether a change to a forwarding
path makes it cheaper, on a host whose speed swings 30 % between trials seconds apart
(decision 0117). Both forwarders run at once, each forwarding lcore on CPU 0 (the
kernel alternates them every few milliseconds), on fwd_cost's in-memory input, so both
see the same host. A round starts both (the first one alternating), waits 1 s, and
charges each the CPU time of its forwarding thread over the window (schedstat) at the
TSC rate, over the packets it sent on port 1. Each round prints both costs and the
speed ratio B/A; the end prints the median and range of the rounds' ratios.

A side is ``l3fwd`` or ``NAME=PATH`` (a twinplane binary), e.g. from the repository:

    .venv/bin/python scripts/ab-timesliced.py --rounds 10 l3fwd \\
        new=build/src/twinplane

Root; takes the lab lock; nothing else should run meanwhile (builds, tests).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from twinplane.bench import duts as D  # noqa: E402
from twinplane.bench import fwd_cost_bed as B  # noqa: E402


def side(spec: str) -> tuple[str, Path | None]:
    name, _, path = spec.partition("=")
    if name != "l3fwd" and not path:
        raise SystemExit(f"{spec!r}: l3fwd or NAME=PATH")
    return name, Path(path).resolve() if path else None


def round_costs(beds: list[B.Bed], names: list[str], first: int, seconds: float) -> list[float]:
    """One round: both forwarders at once; each one's TSC cycles per packet sent."""
    fw: list[B.Forwarder | None] = [None, None]
    try:
        for i in (first, 1 - first):
            beds[i].trials_started += 1
            f = fw[i] = B.FORWARDERS["l3fwd" if names[i] == "l3fwd" else "twinplane"](beds[i])
            f.start()
            assert f.proc is not None
            f.proc.wait_ready(
                lambda f=f: f.sample()[1][B.OUT_PORT].get("opackets", 0) > 0,
                60,
                "transmitting on port 1",
                interval=0.2,
            )
        tids = []
        for f in fw:
            assert f is not None and f.proc is not None
            t = D.pinned_threads(f.proc.pid, B.WORKER_CPU)
            if len(t) != 1:
                raise SystemExit(f"{f.name}: threads on CPU {B.WORKER_CPU}: {t}")
            tids.append(t[0])
        time.sleep(1.0)
        s0 = [f.sample() for f in fw if f]
        c0 = [D.runtime_ns(t) for t in tids]
        time.sleep(seconds)
        s1 = [f.sample() for f in fw if f]
        c1 = [D.runtime_ns(t) for t in tids]
    finally:
        for f in fw:
            if f is not None:
                f.stop()
    out = []
    for i in range(2):
        sent = s1[i][1][B.OUT_PORT]["opackets"] - s0[i][1][B.OUT_PORT]["opackets"]
        out.append((c1[i] - c0[i]) * 1e-9 * beds[i].tsc_hz / sent)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", help="l3fwd or NAME=PATH")
    ap.add_argument("b", help="l3fwd or NAME=PATH")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=4.0, help="window per round")
    ap.add_argument("--family", default="ip6", choices=["ip4", "ip6"])
    ap.add_argument("--out", type=Path, default=None, help="work directory (default: a new one)")
    a = ap.parse_args()
    sides = [side(a.a), side(a.b)]
    names = [n for n, _ in sides]
    if names[0] == names[1]:
        names = [names[0] + "-a", names[1] + "-b"]
    work = a.out or Path(tempfile.mkdtemp(prefix="ab-timesliced-"))
    tsc = D.tsc_hz()[0]
    with D.lab_lock("/tmp/tp-lab.lock"):
        D.ensure_hugepages(3072)  # two forwarders at once
        beds = []
        for name, (_, path) in zip(names, sides, strict=True):
            d = work / name
            d.mkdir(parents=True, exist_ok=True)
            bins = B.Binaries(twinplane=path) if path else B.Binaries()
            bed = B.Bed(d, tsc, a.seconds, 1.0, 1024, bins, family=a.family)
            bed.prepare()
            beds.append(bed)
        ratios = []
        for r in range(a.rounds):
            ca, cb = round_costs(beds, [n for n, _ in sides], r % 2, a.seconds)
            ratios.append(ca / cb)
            print(
                f"round {r}: {names[0]} {ca:.1f} cyc/pkt, {names[1]} {cb:.1f} cyc/pkt, "
                f"speed {names[1]}/{names[0]} {ca / cb:.3f}",
                flush=True,
            )
    print(
        f"{names[1]}/{names[0]} speed, {a.rounds} rounds: median {statistics.median(ratios):.3f}, "
        f"range {min(ratios):.3f}-{max(ratios):.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: BSD-3-Clause
"""The failover bed: one trial on a ``RoutedLab`` (twinplanes or Linux routers).

A sequenced stream runs from h1's stub to h2's stub over r1's two ECMP paths; after a
second, an event takes one path away: ``link`` cuts r1 - r2 silently (carrier kept),
``node`` SIGKILLs r2 (its daemon; on Linux, its FRR with forwarding off). The trial
records the frames lost, the longest outage of one flow (``loss_ms``: its lost
frames times its period, which is what a flow on the failed path sees), and when r1's
forwarding table (the data plane's, or the kernel's) had moved to r3 alone. Then the
link or node comes back and the trial waits until r1 uses both paths again, so the
next trial starts from the same state.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from twinplane.bench import paired
from twinplane.lab.routed import EDGES, RoutedLab, SeqStream

EVENTS = ("link", "node")
PORT = 7020
VIA_R2, VIA_R3 = "10.1.12.2", "10.1.13.2"


def r1_hops(lab: RoutedLab, prefix: str) -> set[str]:
    """r1's next hops for ``prefix``: its data plane's, or (Linux) its kernel's."""
    node = lab.nodes["r1"]
    if node.daemon is None:
        out = node.kernel_route(prefix).split()
        return {out[i + 1] for i, w in enumerate(out) if w == "via"}
    r = node.route(prefix)
    if r is None or r.get("state") != "installed":
        return set()
    if r.get("type") == "multipath":
        return {h["via"] for h in r["hops"] if h["state"] == "alive"}
    return {r["via"]} if "via" in r else set()


def trial(
    lab: RoutedLab, event: str, rate: int = 1000, flows: int = 8, timeout: float = 60.0
) -> dict[str, Any]:
    """One failover; the lab converged, r1 on both paths. Its numbers (ms, frames)."""
    if event not in EVENTS:
        raise ValueError(f"event {event!r}: one of {', '.join(EVENTS)}")
    h1, h2 = EDGES
    prefix = h2.stub
    if r1_hops(lab, prefix) != {VIA_R2, VIA_R3}:
        raise RuntimeError(f"r1 is not on both paths before the trial: {r1_hops(lab, prefix)}")
    stream = SeqStream(lab.ns[h1.host], h1.stub_ip, lab.ns[h2.host], h2.stub_ip, PORT, rate, flows)
    time.sleep(1.0)
    t0 = time.monotonic()
    if event == "link":
        lab.cut("r1", "r2")
    else:
        lab.kill_router("r2")
    moved = None
    while time.monotonic() - t0 < timeout:
        if r1_hops(lab, prefix) == {VIA_R3}:
            moved = time.monotonic()
            break
        time.sleep(0.005)
    time.sleep(1.0)
    received = stream.stop()
    out = {
        "event": event,
        "sent": stream.sent,
        "lost": stream.sent - len(received),
        "loss_ms": stream.outage_ms(received),
        "moved_ms": None if moved is None else (moved - t0) * 1000.0,
    }
    if event == "link":
        lab.restore("r1", "r2")
    else:
        lab.restart_router("r2")
    lab.wait_until(lambda: r1_hops(lab, prefix) == {VIA_R2, VIA_R3}, timeout, 0.1, "ECMP again")
    lab.wait_converged(timeout)
    return out


def summary(values: list[float], unit: str = "ms") -> dict[str, Any]:
    """A headline of ``values``: the median, its 95 % bootstrap interval, and the
    spread (min, quartiles, max); ``value`` None when there are none."""
    if not values:
        return {"value": None, "unit": unit, "n": 0}
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return {
        "value": statistics.median(values),
        "unit": unit,
        "ci95": list(paired.bootstrap_median_ci(values)),
        "n": len(values),
        "spread": {"min": min(values), "q1": q[0], "q3": q[2], "max": max(values)},
    }

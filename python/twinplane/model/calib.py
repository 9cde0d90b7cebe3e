# SPDX-License-Identifier: BSD-3-Clause
"""Calibration: per-stage latency samples from a running forwarder, through its API
(``ndn telemetry sample N``, ``show ndn telemetry raw``), or from a file; the
main-effects (sensitivity) analysis of the factors they were taken under; the fits
the simulator draws from.

A *sample set* is a dict::

    {"factors": {"type"..., "comps": 3, "payload": 0, "rate": 500000, "lcores": 1},
     "tsc_hz": ..., "stages": {"input": [ns...], "interest": [...], "data": [...],
                               "queue": [...]},
     "busy_ns_per_packet": ..., "timed_ns_per_packet": ...}

``busy_ns_per_packet`` is what the lcore really spends per packet (its busy time
over the packets it received, ``show workers``). The stages' timings do not add up
to it: the poll loop is timed by no stage, a burst's transmission falls in the stage
of the one packet whose enqueue sends it, and a preempted sample takes milliseconds
(on this machine the timed stages come to about 0.8 of the busy time; they came to
six times it while 1 packet in exactly 16 was sampled, always the burst's last).
So the model takes the
*shapes* from the telemetry and the *mean* from the busy time: every stage is
scaled by ``busy / timed`` (``scale`` in the calibration), the share of each stage
kept."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from twinplane.model.fit import KS_ALPHA, PPCC_GOOD, Fit, fit
from twinplane.model.sim import Dist

STAGES = ("input", "queue", "interest", "data")


def _busy(client: Any) -> tuple[int, int]:
    ws = client.cmd("show", "workers")["workers"]
    return sum(int(w.get("busy_cycles", 0)) for w in ws), sum(int(w.get("rx", 0)) for w in ws)


def collect(
    client: Any,
    seconds: float,
    every: int = 16,
    period: float = 0.1,
    factors: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Samples for ``seconds`` while traffic runs: telemetry on (1 packet in
    ``every``), ``show ndn telemetry raw`` read every ``period`` seconds (each read
    gives each lcore's most recent 1,024 samples of a stage; only the ones new since
    the last read are kept), telemetry off again at the end."""
    client.cmd("ndn", "telemetry", "sample", str(every))
    stages: dict[str, list[int]] = {s: [] for s in STAGES}
    seen: dict[str, int] = {s: 0 for s in STAGES}
    tsc_hz = 0.0
    try:
        b0, rx0 = _busy(client)
        first = client.cmd("show", "ndn", "telemetry")
        for s in STAGES:
            seen[s] = int(first["stages"].get(s, {}).get("samples", 0))
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            time.sleep(period)
            t = client.cmd("show", "ndn", "telemetry", "raw")
            tsc_hz = float(t["tsc_hz"])
            for s in STAGES:
                st = t["stages"].get(s, {})
                n = int(st.get("samples", 0))
                new = n - seen[s]
                seen[s] = n
                raw = st.get("raw_cycles") or []
                # raw is sorted: a random subset of the right size stands for the new ones
                if new > 0 and raw:
                    k = min(new, len(raw))
                    pick = np.random.default_rng(n).choice(len(raw), k, replace=False)
                    stages[s].extend(int(raw[i]) for i in pick)
        b1, rx1 = _busy(client)
    finally:
        client.cmd("ndn", "telemetry", "sample", "0")
    ns = 1e9 / tsc_hz if tsc_hz else 1.0
    out: dict[str, Any] = {
        "factors": dict(factors or {}),
        "tsc_hz": tsc_hz,
        "every": every,
        "stages": {s: [round(c * ns, 2) for c in v] for s, v in stages.items()},
    }
    pkts = rx1 - rx0
    if pkts > 0 and tsc_hz:
        busy_ns = (b1 - b0) * ns / pkts
        st = out["stages"]
        # per packet: its input stage, and half an exchange's forwarding stages
        timed = _mean(st["input"]) + 0.5 * (_mean(st["interest"]) + _mean(st["data"]))
        out["busy_ns_per_packet"] = busy_ns
        out["timed_ns_per_packet"] = timed
    return out


def _mean(x: Iterable[float]) -> float:
    a = np.asarray(list(x), dtype=float)
    return float(a.mean()) if len(a) else 0.0


def load(path: Path) -> list[dict[str, Any]]:
    """Sample sets from a JSON file: one, a list, or {"sets": [...]}."""
    doc = json.loads(Path(path).read_text())
    sets = doc.get("sets", doc) if isinstance(doc, dict) else doc
    sets = sets if isinstance(sets, list) else [sets]
    for i, s in enumerate(sets):
        if not isinstance(s, dict) or "stages" not in s:
            raise ValueError(f"{path}: sample set {i} has no 'stages'")
        for name, v in s["stages"].items():
            if not isinstance(v, list) or not all(isinstance(x, (int, float)) for x in v):
                raise ValueError(f"{path}: sample set {i}, stage {name!r}: a list of numbers")
    return sets


def main_effects(sets: list[dict[str, Any]], stage: str) -> dict[str, Any]:
    """Main effects of each factor on a stage's mean latency (DataPlot's main-effects
    plot, as seed 002 uses it): for each factor, the mean latency at each of its
    levels over every sample set at that level, and the effect, the range of those
    means (max - min), in ns and as a share of the grand mean. Factors with one level
    have no effect to tell."""
    rows = [(s["factors"], _mean(s["stages"].get(stage, []))) for s in sets]
    rows = [(f, m) for f, m in rows if m > 0]
    if not rows:
        return {"stage": stage, "grand_mean_ns": None, "factors": {}}
    grand = float(np.mean([m for _, m in rows]))
    names = sorted({k for f, _ in rows for k in f})
    res: dict[str, Any] = {}
    for k in names:
        levels: dict[str, list[float]] = {}
        for f, m in rows:
            if k in f:
                levels.setdefault(str(f[k]), []).append(m)
        means = {lv: float(np.mean(v)) for lv, v in levels.items()}
        if len(means) < 2:
            continue
        eff = max(means.values()) - min(means.values())
        res[k] = {"levels": means, "effect_ns": eff, "effect_share": eff / grand}
    ranked = sorted(res, key=lambda k: -res[k]["effect_ns"])
    out = {"stage": stage, "grand_mean_ns": grand, "factors": res, "ranked": ranked}
    if res:
        out["anova"] = _anova(sets, stage, list(res))
    return out


def _anova(sets: list[dict[str, Any]], stage: str, factors: list[str]) -> dict[str, Any]:
    """A type-II ANOVA of the stage's latency on the factors (categorical, main
    effects only), over up to 200 samples of each set (statsmodels' OLS): F and p
    per factor, and how much of the variance the factors explain."""
    import pandas as pd
    import statsmodels.api as sm
    from statsmodels.formula.api import ols

    rows = []
    for i, s in enumerate(sets):
        v = s["stages"].get(stage) or []
        if not v:
            continue
        pick = np.random.default_rng(i).choice(v, min(200, len(v)), replace=False)
        f = s.get("factors", {})
        rows += [{**{k: str(f.get(k)) for k in factors}, "y": float(x)} for x in pick]
    df = pd.DataFrame(rows)
    usable = [k for k in factors if df[k].nunique() > 1]
    if not usable or len(df) <= len(usable) + 1:
        return {}
    model = ols("y ~ " + " + ".join(f"C({k})" for k in usable), data=df).fit()
    table = sm.stats.anova_lm(model, typ=2)
    return {
        "r_squared": float(model.rsquared),
        "factors": {
            k: {"F": float(table.loc[f"C({k})", "F"]), "p": float(table.loc[f"C({k})", "PR(>F)"])}
            for k in usable
        },
    }


def fits(samples: dict[str, Any]) -> dict[str, Fit]:
    """The fits of a sample set's stages that have samples (queue excluded: it is
    what the model computes, not an input)."""
    out = {}
    for s in ("input", "interest", "data"):
        v = samples["stages"].get(s) or []
        if len(v) >= 8:
            out[s] = fit([x for x in v if x > 0])
    return out


def stage_dist(samples: list[float], f: Fit | None, k: float) -> Dist:
    """A stage's distribution scaled by k: the fitted family when one fits (KS does
    not reject it at 1 % and its PPCC is at least 0.99; all four are
    location-scale families), else the samples themselves (empirical, up to 4,096
    of them), as the seed falls back to the data when no family fits."""
    if f is not None and f.family != "boxcox" and f.ks_p >= KS_ALPHA and f.ppcc >= PPCC_GOOD:
        return f.to_dist().scaled(k)
    x = np.asarray([v for v in samples if v > 0], dtype=float)
    if len(x) > 4096:
        x = np.random.default_rng(3).choice(x, 4096, replace=False)
    return Dist("empirical", samples=tuple(float(v) for v in np.sort(x))).scaled(k)


def _unscaled(samples: dict[str, Any]) -> dict[str, Dist]:
    f = fits(samples)
    if "interest" not in f or "data" not in f:
        raise ValueError("calibration needs samples of the interest and data stages")
    st = samples["stages"]
    out = {
        "fwd_i": stage_dist(st["interest"], f["interest"], 1.0),
        "fwd_d": stage_dist(st["data"], f["data"], 1.0),
    }
    if "input" in f:
        out["in_i"] = out["in_d"] = stage_dist(st["input"], f["input"], 1.0)
    return out


def scale_of(samples: dict[str, Any], dists: dict[str, Dist] | None = None) -> float:
    """busy / timed per packet, timed as the simulator will draw it (the stages'
    distributions' means: a packet's input stage and half an exchange's forwarding
    stages); 1 when the set has no busy time (a file of stage samples alone is
    taken as it is)."""
    busy = samples.get("busy_ns_per_packet")
    if not busy:
        return 1.0
    d = dists or _unscaled(samples)
    timed = (d["in_i"].mean() if "in_i" in d else 0.0) + 0.5 * (
        d["fwd_i"].mean() + d["fwd_d"].mean()
    )
    return float(busy) / timed if timed > 0 else 1.0


def service_dists(samples: dict[str, Any]) -> dict[str, Dist]:
    """The simulator's distributions for a sample set: the input stage (both types:
    the telemetry does not tell them apart), the Interest and Data forwarding
    stages, each scaled so that a packet's mean is the lcore's busy time per packet
    (see the module's text)."""
    d = _unscaled(samples)
    k = scale_of(samples, d)
    return {name: dist.scaled(k) for name, dist in d.items()}

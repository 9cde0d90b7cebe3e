# SPDX-License-Identifier: BSD-3-Clause
"""RFC 2544 method: throughput search (NDR and PDR), loss against load, latency.

Pure Python, no I/O: a *trial function* ``fn(rate_pps, duration_s) ->
TrialResult`` runs one trial (``twinplane.bench.gen.Gen.trial`` against the
generator, or a fake in the tests) and this module decides which rates to try
and what the answers are.

Throughput (RFC 2544 section 26.1) is the highest rate at which the DUT loses
no frame. ``search`` finds it by bisection between a rate that passed and one
that failed, for several loss tolerances at once: every trial updates the
bracket of every tolerance, so NDR (tolerance 0) and PDR (e.g. 0.5 % loss)
come out of one search for little more than the cost of one.

A trial *passes* a tolerance when

- the frames lost, ``offered - unique received``, are at most ``tolerance``
  of the frames offered. Frames the generator's port refused (``tx_full``:
  the memif ring or the AF_XDP tx ring was full, the DUT or the wire did not
  take them) and frames it could not allocate (``tx_nombuf``) count as
  offered and lost: at that rate they did not get through;
- and the generator really offered the rate: measured offered rate at least
  ``(1 - rate_slack)`` of the requested one. A generator that cannot keep up
  fails the trial instead of passing a rate it never sent, so a search over a
  ceiling converges to what the generator and the wire can do.

The search, per tolerance:

1. one short trial at ``hi`` (the search's upper bound, e.g. the wire's
   nominal maximum); if it passes, the answer is ``hi`` (``at_hi``: only a
   lower bound of the DUT's capacity);
2. otherwise its *delivered* rate (unique frames received per second under
   overload) is a good guess of the capacity: it is tried next, less half the
   resolution;
3. then steps away from the bound that moved last, by the resolution and
   doubling while the same bound keeps moving (never past the midpoint of the
   bracket, so never worse than plain bisection), and bisects once both
   bounds have moved;
4. until ``hi_fail - lo_pass <= max(resolution * hi_fail, resolution_pps)``.

The answer is the highest passing rate. A result that contradicts the
bracket (a pass above a known failure, noise on a shared machine) is kept in
the trial list but does not move the bracket.
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

FRAME_SIZES = (64, 128, 256, 512, 1024, 1280, 1518)
QUICK_SIZES = (64, 512, 1518)
ETH_OVERHEAD_L1 = 20  # preamble (7) + SFD (1) + inter-frame gap (12)


# --------------------------------------------------------------------------
# units


def gbps_l2(pps: float, size: int) -> float:
    """Gbit/s of frames of ``size`` bytes (FCS included) at ``pps``."""
    return pps * size * 8 / 1e9


def gbps_l1(pps: float, size: int) -> float:
    """Gbit/s on an Ethernet wire: the frame plus 20 bytes of preamble and gap."""
    return pps * (size + ETH_OVERHEAD_L1) * 8 / 1e9


def line_rate_pps(size: int, bps: float = 10e9) -> float:
    """Frames per second of ``size`` bytes that fill an Ethernet link of ``bps``."""
    return bps / ((size + ETH_OVERHEAD_L1) * 8)


# --------------------------------------------------------------------------
# one trial


@dataclass
class TrialResult:
    """One trial as the search sees it (built from the generator's JSON by ``from_gen``)."""

    rate_pps: float  # requested
    duration_s: float  # requested
    offered: int  # frames offered: sent + refused by the port + not allocated
    rx: int  # unique frames received
    elapsed_s: float  # measured length of the sending phase
    tx: int = 0  # frames the port accepted
    tx_full: int = 0
    tx_nombuf: int = 0
    duplicates: int = 0
    reordered: int = 0
    latency_ns: dict[str, Any] | None = None
    raw: dict[str, Any] | None = None
    # set by the trial function, a diagnostic: the DUT's forwarding threads
    # waited for their CPU (other tasks had it) longer than a threshold
    disturbed: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def lost(self) -> int:
        return max(0, self.offered - self.rx)

    @property
    def loss_ratio(self) -> float:
        return self.lost / self.offered if self.offered else 1.0

    @property
    def offered_rate_pps(self) -> float:
        return self.offered / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def delivered_rate_pps(self) -> float:
        return self.rx / self.elapsed_s if self.elapsed_s > 0 else 0.0

    def passes(self, tolerance: float, rate_slack: float) -> bool:
        return (
            self.offered > 0
            and self.loss_ratio <= tolerance
            and self.offered_rate_pps >= self.rate_pps * (1.0 - rate_slack)
        )

    def summary(self) -> dict[str, Any]:
        """A compact dict for the JSON report (no histogram, no raw reply)."""
        d: dict[str, Any] = {
            "rate_pps": round(self.rate_pps, 1),
            "duration_s": self.duration_s,
            "offered": self.offered,
            "rx": self.rx,
            "lost": self.lost,
            "loss_ratio": self.loss_ratio,
            "offered_rate_pps": round(self.offered_rate_pps, 1),
            "delivered_rate_pps": round(self.delivered_rate_pps, 1),
            "tx_full": self.tx_full,
            "tx_nombuf": self.tx_nombuf,
            "reordered": self.reordered,
            "duplicates": self.duplicates,
        }
        if self.latency_ns:
            d["latency_ns"] = {k: v for k, v in self.latency_ns.items() if k != "hist"}
        if self.disturbed:
            d["disturbed"] = True
        d.update(self.extra)
        return d

    @classmethod
    def from_gen(cls, reply: dict[str, Any], rate_pps: float, duration_s: float) -> TrialResult:
        """Build from a ``trial`` reply of twinplane-gen (docs/GEN.md)."""
        t = reply.get("trial", reply)
        tx = int(t.get("tx", 0))
        tx_full = int(t.get("tx_full", 0))
        tx_nombuf = int(t.get("tx_nombuf", 0))
        dups = int(t.get("duplicates", 0))
        # GEN.md: offered = frames the pacing sent out (accepted by the port or
        # refused: tx_full); lost = offered - unique frames received
        offered = int(t["offered"]) if "offered" in t else tx + tx_full + tx_nombuf
        if "lost" in t:
            rx_unique = max(0, offered - int(t["lost"]))
        else:
            rx_unique = max(0, int(t.get("rx", 0)) - dups)
        # the reply's duration_s is the measured length of the sending phase
        elapsed = float(t.get("duration_s") or 0.0)
        if not elapsed and t.get("tx_rate_pps") and tx:
            elapsed = tx / float(t["tx_rate_pps"])
        if not elapsed:
            elapsed = duration_s
        lat = None
        streams = reply.get("streams") or []
        if len(streams) == 1:
            lat = streams[0].get("latency_ns")
        elif streams:
            # several streams: the one with most frames speaks for the trial
            lat = max(streams, key=lambda s: s.get("rx", 0)).get("latency_ns")
        return cls(
            rate_pps=float(rate_pps),
            duration_s=float(duration_s),
            offered=offered,
            rx=rx_unique,
            elapsed_s=elapsed,
            tx=tx,
            tx_full=tx_full,
            tx_nombuf=tx_nombuf,
            duplicates=dups,
            reordered=int(t.get("reordered", 0)),
            latency_ns=lat,
            raw=reply,
            extra={"gen_paused_s": float(t.get("paused_s") or 0.0)} if "paused_s" in t else {},
        )


TrialFn = Callable[[float, float], TrialResult]


def with_retries(
    fn: TrialFn,
    retries: int,
    max_loss: float = 0.02,
    tolerance: float = 0.0,
    rate_slack: float = 0.01,
    on_retry: Callable[[TrialResult], None] | None = None,
) -> TrialFn:
    """Repeat a trial that lost frames, but fewer than ``max_loss`` of them, up
    to ``retries`` times; the first passing attempt (or the last) counts.

    On a shared machine a DUT thread that loses its CPU for a millisecond
    overflows its receive ring whatever the DUT is: a small loss may be the
    neighbours'. A rate fails only when ``retries + 1`` trials in a row lose
    frames. A heavy loss (overload) or a rate the generator could not offer
    is final at once. Every attempt is kept in ``extra``."""

    def wrapped(rate: float, duration: float) -> TrialResult:
        r = fn(rate, duration)
        attempts = [r]
        while (
            len(attempts) <= retries
            and not r.passes(tolerance, rate_slack)
            and r.loss_ratio < max_loss
            and r.offered_rate_pps >= r.rate_pps * (1.0 - rate_slack)
        ):
            if on_retry is not None:
                on_retry(r)
            r = fn(rate, duration)
            attempts.append(r)
        if len(attempts) > 1:
            r.extra["attempts"] = len(attempts)
            r.extra["retried_loss"] = [a.loss_ratio for a in attempts[:-1]]
            r.extra["retried_cpu_wait_ms"] = [a.extra.get("cpu_wait_ms") for a in attempts[:-1]]
        return r

    return wrapped


# --------------------------------------------------------------------------
# the search


@dataclass
class SearchParams:
    duration_s: float = 1.0  # each trial
    probe_duration_s: float = 0.3  # the first trial at hi (overload probe)
    resolution: float = 0.02  # relative: stop when hi_fail - lo_pass <= resolution * hi_fail
    resolution_pps: float = 1000.0  # ... or when the bracket is this narrow in pps
    tolerances: tuple[float, ...] = (0.0, 0.005)  # NDR, PDR
    rate_slack: float = 0.01  # the offered rate may fall short of the requested by this much
    max_trials: int = 40

    def width_goal(self, hi: float) -> float:
        return max(self.resolution * hi, self.resolution_pps)


@dataclass
class Bracket:
    tolerance: float
    lo: float  # highest rate known to pass (the search's lower bound at first)
    hi: float | None  # lowest rate known to fail (None: hi not tried yet)
    lo_trial: TrialResult | None = None
    last_moved: str = ""  # "lo" or "hi": the bound the last useful trial moved
    step: float = 0.0  # galloping step away from that bound
    bisect: bool = False  # both bounds have moved: bisect
    anchor: float | None = None  # delivered rate at overload, tried first
    at_hi: bool = False  # passed at the search's upper bound

    def converged(self, p: SearchParams) -> bool:
        if self.at_hi:
            return True
        return self.hi is not None and self.hi - self.lo <= p.width_goal(self.hi)


@dataclass
class TargetResult:
    tolerance: float
    rate_pps: float  # highest passing requested rate (0 if none passed)
    measured_pps: float  # offered rate measured in that trial
    converged: bool
    at_hi: bool  # passed at the upper bound: the DUT may do more
    lower_fail_pps: float | None  # the lowest failing rate found
    trial: dict[str, Any] | None  # summary of the passing trial


@dataclass
class SearchResult:
    hi_pps: float
    params: dict[str, Any]
    targets: list[TargetResult]
    trials: list[dict[str, Any]] = field(default_factory=list)
    wall_s: float = 0.0

    def target(self, tolerance: float) -> TargetResult:
        for t in self.targets:
            if math.isclose(t.tolerance, tolerance, abs_tol=1e-12):
                return t
        raise KeyError(tolerance)

    @property
    def ndr(self) -> TargetResult:
        return self.targets[0]

    @property
    def pdr(self) -> TargetResult:
        return self.targets[-1]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _next_probe(b: Bracket, p: SearchParams) -> float:
    assert b.hi is not None
    lo, hi = b.lo, b.hi
    mid = (lo + hi) / 2.0
    if b.anchor is not None:
        a, b.anchor = b.anchor, None
        # a little below what got through under overload: loss at the cliff
        # is common, and a pass there leaves a small step up to bracket it
        a *= 1.0 - p.resolution / 2
        if lo < a < hi:
            return a
    if b.bisect or not b.last_moved:
        return mid
    if not b.step:
        # the resolution near the answer: relative to the pass once there is one
        b.step = p.width_goal(lo if lo > 0 else hi)
    if b.last_moved == "lo":
        return min(lo + b.step, mid)
    return max(hi - b.step, mid)


def _update(b: Bracket, r: TrialResult, p: SearchParams) -> None:
    """Move bracket ``b`` after trial ``r``."""
    rate = r.rate_pps
    moved = ""
    if r.passes(b.tolerance, p.rate_slack):
        if b.hi is None:  # the first trial, at hi
            b.at_hi = True
            b.lo, b.lo_trial = rate, r
        elif b.lo < rate < b.hi:
            b.lo, b.lo_trial = rate, r
            moved = "lo"
    else:
        if b.hi is None:  # the first trial, at hi: what got through is the anchor
            b.hi = rate
            d = r.delivered_rate_pps
            b.anchor = d if d > 0 else None
        elif b.lo < rate < b.hi:
            b.hi = rate
            moved = "hi"
    if not moved:
        return  # no move, or a result that contradicts the bracket (noise)
    if b.last_moved and moved != b.last_moved:
        b.bisect = True  # a pass and a fail on both sides: plain bisection now
    elif moved == b.last_moved and b.step:
        b.step *= 2.0  # the same bound keeps moving: gallop
    b.last_moved = moved


def search(
    trial: TrialFn,
    hi: float,
    params: SearchParams | None = None,
    lo: float = 0.0,
    on_trial: Callable[[TrialResult, list[Bracket]], None] | None = None,
) -> SearchResult:
    """Find the highest rate in [lo, hi] passing each of ``params.tolerances``."""
    p = params or SearchParams()
    if hi <= lo:
        raise ValueError(f"search: hi {hi} <= lo {lo}")
    tols = sorted(set(p.tolerances))
    brackets = [Bracket(tolerance=t, lo=lo, hi=None) for t in tols]
    trials: list[TrialResult] = []
    t_start = time.monotonic()

    def record(r: TrialResult) -> None:
        trials.append(r)
        for b in brackets:
            _update(b, r, p)
        if on_trial is not None:
            on_trial(r, brackets)

    # 1. overload probe at hi (short); a pass is confirmed at full length
    r = trial(hi, min(p.probe_duration_s, p.duration_s))
    if r.passes(max(tols), p.rate_slack) and p.probe_duration_s < p.duration_s:
        r = trial(hi, p.duration_s)
    record(r)

    while len(trials) < p.max_trials:
        todo = [b for b in brackets if not b.converged(p)]
        if not todo:
            break
        b = todo[0]
        rate = hi if b.hi is None else _next_probe(b, p)
        if rate <= 0 or (b.hi is not None and not (b.lo < rate < b.hi)):
            # the bracket has collapsed below the resolution of a rate
            b.hi = b.lo
            continue
        record(trial(rate, p.duration_s))

    targets = []
    for b in brackets:
        lt = b.lo_trial
        targets.append(
            TargetResult(
                tolerance=b.tolerance,
                rate_pps=b.lo if lt is not None else 0.0,
                measured_pps=lt.offered_rate_pps if lt is not None else 0.0,
                converged=b.converged(p),
                at_hi=b.at_hi,
                lower_fail_pps=b.hi,
                trial=lt.summary() if lt is not None else None,
            )
        )
    return SearchResult(
        hi_pps=hi,
        params=asdict(p),
        targets=targets,
        trials=[t.summary() for t in trials],
        wall_s=time.monotonic() - t_start,
    )


# --------------------------------------------------------------------------
# MLRsearch (IETF BMWG draft-ietf-bmwg-mlrsearch, FD.io CSIT's method)


@dataclass
class MlrParams:
    """The search goals of MLRsearch, one per loss tolerance (NDR, PDR).

    A load is a *lower bound* of a goal when, over at least ``duration_sum``
    seconds of trials at it, no more than ``exceed_ratio`` of those seconds
    were in trials that lost more than the goal's loss ratio. With the
    default 0.5 (CSIT's), the answer is the load whose trials mostly pass: a
    trial spoiled by another task holding the DUT's CPU for a few
    milliseconds no longer drags the result down, while a rate the DUT really
    cannot carry fails most of its trials and stays an upper bound."""

    tolerances: tuple[float, ...] = (0.0, 0.005)  # NDR, PDR
    exceed_ratio: float = 0.5
    relative_width: float = 0.02  # the bounds' distance when the search stops
    initial_trial_duration_s: float = 0.5
    final_trial_duration_s: float = 1.0
    duration_sum_s: float = 5.0  # seconds of trials that decide a bound
    preceding_targets: int = 2
    expansion_coefficient: int = 2
    min_load_fraction: float = 1e-3  # min load = hi * this (or lo, if higher)
    search_duration_max_s: float = 600.0
    rate_slack: float = 0.01  # as SearchParams: a short offer within it is not loss


def _mlr_measurement(r: TrialResult, rate_slack: float) -> Any:
    """A MeasurementResult of MLRsearch from one of our trials.

    Frames the port refused (tx_full) or could not allocate are in
    ``offered`` and not received: loss, as in our own search. A generator
    that offered less than ``(1 - rate_slack)`` of the intended rate has the
    missing frames counted as unsent (MLRsearch counts unsent as bad), so a
    rate never really offered cannot become a lower bound."""
    from MLRsearch import MeasurementResult

    elapsed = r.elapsed_s if r.elapsed_s > 0 else r.duration_s
    if r.offered_rate_pps >= r.rate_pps * (1.0 - rate_slack):
        intended = r.offered
    else:
        intended = max(r.offered, int(r.rate_pps * elapsed))
    return MeasurementResult(
        intended_duration=r.duration_s,
        intended_load=r.rate_pps,
        offered_count=r.offered,
        forwarding_count=min(r.rx, r.offered),
        offered_duration=elapsed,
        intended_count=intended,
    )


def mlr_search(
    trial: TrialFn,
    hi: float,
    params: MlrParams | None = None,
    lo: float = 0.0,
    on_trial: Callable[[TrialResult], None] | None = None,
) -> SearchResult:
    """NDR and PDR by MLRsearch (PyPI ``MLRsearch``), same result shape as ``search``.

    ``rate_pps`` of each target is the goal's *conditional throughput* (the
    relevant lower bound's load scaled by its worst loss among the trials
    that count, as the draft defines it), ``lower_fail_pps`` the relevant
    upper bound. ``measured_pps`` is the conditional throughput too (the
    draft's answer, which reports use); ``trial`` is the longest trial at the
    relevant lower bound."""

    from MLRsearch import AbstractMeasurer, Config, MultipleLossRatioSearch, SearchGoal

    p = params or MlrParams()
    if hi <= lo:
        raise ValueError(f"mlr_search: hi {hi} <= lo {lo}")
    tols = sorted(set(p.tolerances))
    goals = [
        SearchGoal(
            loss_ratio=t,
            exceed_ratio=p.exceed_ratio,
            relative_width=p.relative_width,
            initial_trial_duration=p.initial_trial_duration_s,
            final_trial_duration=p.final_trial_duration_s,
            duration_sum=p.duration_sum_s,
            preceding_targets=p.preceding_targets,
            expansion_coefficient=p.expansion_coefficient,
            fail_fast=False,
        )
        for t in tols
    ]
    trials: list[TrialResult] = []

    class Measurer(AbstractMeasurer):
        def measure(self, intended_duration: float, intended_load: float) -> Any:
            r = trial(float(intended_load), float(intended_duration))
            trials.append(r)
            if on_trial is not None:
                on_trial(r)
            return _mlr_measurement(r, p.rate_slack)

    config = Config(
        goals=goals,
        min_load=max(lo, hi * p.min_load_fraction, 1.0),
        max_load=hi,
        search_duration_max=p.search_duration_max_s,
        warmup_duration=None,
    )
    t_start = time.monotonic()
    result = MultipleLossRatioSearch(config=config).search(measurer=Measurer())
    targets = []
    for t, g in zip(tols, goals, strict=True):
        gr = result[g]
        ct = gr.conditional_throughput if gr is not None else None
        lb = gr.relevant_lower_bound if gr is not None else None
        ub = gr.relevant_upper_bound if gr is not None else None
        lb_load = float(lb) if lb is not None else None
        at_lb = [
            x
            for x in trials
            if lb_load is not None and math.isclose(x.rate_pps, lb_load, rel_tol=1e-9)
        ]
        last = max(at_lb, key=lambda x: x.duration_s) if at_lb else None
        targets.append(
            TargetResult(
                tolerance=t,
                rate_pps=float(ct) if ct is not None else 0.0,
                measured_pps=float(ct) if ct is not None else 0.0,
                converged=lb is not None and (ub is not None or math.isclose(lb_load, hi)),
                at_hi=lb_load is not None and math.isclose(lb_load, hi, rel_tol=1e-9),
                lower_fail_pps=float(ub) if ub is not None else None,
                trial=last.summary() if last is not None else None,
            )
        )
    params_d = asdict(p)
    params_d["method"] = "mlrsearch"
    return SearchResult(
        hi_pps=hi,
        params=params_d,
        targets=targets,
        trials=[x.summary() for x in trials],
        wall_s=time.monotonic() - t_start,
    )


SEARCH_METHODS = ("mlr", "binary")


def add_search_arguments(ap: Any, duration_sum: float = 5.0) -> None:
    """The options every benchmark's throughput search shares (argparse)."""
    ap.add_argument(
        "--search",
        choices=SEARCH_METHODS,
        help="throughput search: mlr (MLRsearch, the default) or binary (this module's "
        "bisection, with retries of small losses)",
    )
    ap.add_argument(
        "--exceed-ratio",
        type=float,
        default=0.5,
        help="MLRsearch: share of a load's trial seconds that may exceed the loss "
        "ratio, the load still a lower bound (default 0.5, as FD.io CSIT)",
    )
    ap.add_argument(
        "--duration-sum",
        type=float,
        default=duration_sum,
        help=f"MLRsearch: trial seconds that decide a bound (default {duration_sum:g})",
    )


def run_search(
    method: str,
    trial: TrialFn,
    hi: float,
    params: SearchParams,
    exceed_ratio: float = 0.5,
    duration_sum_s: float = 5.0,
    on_trial: Callable[[TrialResult], None] | None = None,
) -> SearchResult:
    """One throughput search by ``method`` ("mlr" or "binary"), both from the same
    ``SearchParams``: MLRsearch's relative width is the resolution, its final
    trials last ``duration_s`` and its first ones ``max(probe, duration / 2)``."""
    if method == "binary":
        cb = (lambda r, _b: on_trial(r)) if on_trial is not None else None
        return search(trial, hi, params, on_trial=cb)
    if method != "mlr":
        raise ValueError(f"unknown search method {method!r} (one of {', '.join(SEARCH_METHODS)})")
    mp = MlrParams(
        tolerances=params.tolerances,
        exceed_ratio=exceed_ratio,
        relative_width=params.resolution,
        initial_trial_duration_s=min(
            params.duration_s, max(params.probe_duration_s, params.duration_s / 2)
        ),
        final_trial_duration_s=params.duration_s,
        duration_sum_s=max(duration_sum_s, params.duration_s),
        rate_slack=params.rate_slack,
    )
    return mlr_search(trial, hi, mp, on_trial=on_trial)


# --------------------------------------------------------------------------
# loss against offered load (RFC 2544 section 26.3) and latency (26.2)


def loss_loads(ceiling_pps: float, ndr_pps: float | None = None, steps: int = 10) -> list[float]:
    """Offered loads for a loss curve: 100 %, 90 % ... of ``ceiling_pps`` (RFC 2544
    26.3 steps down in 10 % of the maximum rate), plus points just above the
    DUT's throughput so the knee shows. Sorted, highest first."""
    loads = {ceiling_pps * (k / steps) for k in range(steps, 0, -1)}
    if ndr_pps:
        for f in (1.05, 1.1, 1.2, 1.5):
            if ndr_pps * f < ceiling_pps:
                loads.add(ndr_pps * f)
    return sorted(loads, reverse=True)


def loss_curve(
    trial: TrialFn,
    loads: Sequence[float],
    duration_s: float,
    stop_after_zero: int = 0,
    on_trial: Callable[[TrialResult], None] | None = None,
) -> list[dict[str, Any]]:
    """One trial per offered load (highest first). With ``stop_after_zero`` N > 0,
    stop after N consecutive loss-free trials (RFC 2544 26.3 uses 2)."""
    out = []
    zeros = 0
    for rate in loads:
        r = trial(rate, duration_s)
        out.append(r.summary())
        if on_trial:
            on_trial(r)
        zeros = zeros + 1 if r.lost == 0 and r.offered else 0
        if stop_after_zero and zeros >= stop_after_zero:
            break
    return out


# --------------------------------------------------------------------------
# statistics over repetitions


def spread(vals: Iterable[float | None]) -> dict[str, Any]:
    """median, min, max, mean, stdev and n of the values that are not None."""
    v = [float(x) for x in vals if x is not None]
    if not v:
        return {"median": None, "min": None, "max": None, "mean": None, "stdev": None, "n": 0}
    return {
        "median": statistics.median(v),
        "min": min(v),
        "max": max(v),
        "mean": statistics.fmean(v),
        "stdev": statistics.stdev(v) if len(v) > 1 else 0.0,
        "n": len(v),
    }


# --------------------------------------------------------------------------
# progress on stderr


class Progress:
    """A one-line progress bar on stderr (redrawn with \\r on a terminal, else a
    line per update at most every ``min_interval`` seconds)."""

    def __init__(
        self,
        total: float,
        label: str = "",
        width: int = 28,
        stream: Any = None,
        min_interval: float = 10.0,
    ) -> None:
        self.total = max(total, 1e-9)
        self.done = 0.0
        self.label = label
        self.width = width
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.t0 = time.monotonic()
        self.min_interval = min_interval
        self._last_print = 0.0
        self.status = ""

    def _fmt(self, s: float) -> str:
        s = max(0, int(s))
        return (
            f"{s // 3600:d}:{s % 3600 // 60:02d}:{s % 60:02d}"
            if s >= 3600
            else f"{s // 60:02d}:{s % 60:02d}"
        )

    def update(
        self, done: float | None = None, status: str | None = None, force: bool = False
    ) -> None:
        if done is not None:
            self.done = min(done, self.total)
        if status is not None:
            self.status = status
        now = time.monotonic()
        if not self.tty and not force and now - self._last_print < self.min_interval:
            return
        self._last_print = now
        frac = self.done / self.total
        el = now - self.t0
        eta = el / frac - el if frac > 0.005 else float("nan")
        fill = int(frac * self.width)
        bar = "#" * fill + "-" * (self.width - fill)
        eta_s = "--:--" if math.isnan(eta) else self._fmt(eta)
        line = f"{self.label} [{bar}] {frac * 100:5.1f}% {self._fmt(el)}<{eta_s} {self.status}"
        if self.tty:
            cols = 160
            self.stream.write("\r" + line[:cols].ljust(cols))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def advance(self, amount: float = 1.0, status: str | None = None) -> None:
        self.update(self.done + amount, status)

    def message(self, text: str) -> None:
        """Print a line without breaking the bar."""
        if self.tty:
            self.stream.write("\r" + " " * 160 + "\r")
        self.stream.write(text + "\n")
        self.stream.flush()
        if self.tty:
            self.update(force=True)

    def close(self) -> None:
        self.update(force=True)
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()

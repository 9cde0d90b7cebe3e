# SPDX-License-Identifier: BSD-3-Clause
"""Paired comparisons: the one way a twinplane report compares A with B.

Every comparison runs its two sides back to back in ABBA order (pair 0 runs A
then B, pair 1 runs B then A, and so on), so a drift of the host over time
falls on both sides alike. Each pair gives one ratio ``B / A`` (or whatever
``definition`` says is divided by what), and records the vCPU placement probed
for that pair (``cache-sharing``, ``apart``, ...): the host moves the two vCPUs
between placements every minute or two, and a placement moves memif figures
2-3x, so figures of different placements are never mixed in one ratio.

The headline of a comparison (``Headline.to_json``) is the layout every
``docs/results/<name>.json`` uses under ``headline``::

    {"ratio": pooled paired median, "ci95": [lo, hi], "pairs": n,
     "by_placement": {placement: {"ratio", "ci95", "pairs"}},
     "at_ceiling": bool, "definition": "what is divided by what"}

``ci95`` is a percentile bootstrap of the median (10,000 resamples, a fixed
seed so that the same trials give the same interval). A comparison in which
both sides reached the generator's or the wire's ceiling in a placement has no
ratio there: it is a tie at the ceiling, and the report says ``tie at the
ceiling (>= X)``.

Pure Python, no I/O; the statistics have unit tests in ``tests/bench``.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

BOOTSTRAP_RESAMPLES = 10_000
BOOTSTRAP_SEED = 2544  # fixed: the same trials give the same interval
MIN_PAIRS = 10
MIN_PAIRS_QUICK = 5


def abba_order(n_pairs: int) -> list[tuple[str, str]]:
    """The order in which each pair runs its sides: AB, BA, AB, BA, ..."""
    return [("A", "B") if i % 2 == 0 else ("B", "A") for i in range(n_pairs)]


@dataclass
class Pair:
    """One back-to-back run of both sides, in ``order``, in one placement."""

    index: int
    order: tuple[str, str]
    a: float
    b: float
    placement: str
    # both sides reached the ceiling (the generator's or the wire's) in this pair
    at_ceiling: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def ratio(self, invert: bool = False) -> float:
        """``b / a`` (``a / b`` when ``invert``); inf when the divisor is 0."""
        num, den = (self.a, self.b) if invert else (self.b, self.a)
        return num / den if den else float("inf")

    def to_json(self) -> dict[str, Any]:
        d = {
            "index": self.index,
            "order": "".join(self.order),
            "a": self.a,
            "b": self.b,
            "placement": self.placement,
            "at_ceiling": self.at_ceiling,
        }
        d.update(self.extra)
        return d


def bootstrap_median_ci(
    values: Sequence[float],
    level: float = 0.95,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the median of ``values``.

    One value gives a zero-width interval at that value; none raises
    ValueError."""
    if not values:
        raise ValueError("no values")
    if len(values) == 1:
        return (values[0], values[0])
    rng = random.Random(seed)
    n = len(values)
    meds = sorted(statistics.median(rng.choices(values, k=n)) for _ in range(resamples))
    lo_i = int((1 - level) / 2 * resamples)
    hi_i = min(resamples - 1, int((1 + level) / 2 * resamples))
    return (meds[lo_i], meds[hi_i])


@dataclass
class Summary:
    """The paired median of a set of pairs, its interval and size."""

    ratio: float | None
    ci95: tuple[float, float] | None
    pairs: int
    at_ceiling: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "ratio": self.ratio,
            "ci95": list(self.ci95) if self.ci95 else None,
            "pairs": self.pairs,
            "at_ceiling": self.at_ceiling,
        }


def summarize(ratios: Sequence[float], at_ceiling: bool = False) -> Summary:
    """Median of paired ratios with its bootstrap 95 % interval. A set in which
    every pair was at the ceiling has no ratio (a tie at the ceiling)."""
    if at_ceiling or not ratios:
        return Summary(None, None, len(ratios), at_ceiling)
    return Summary(statistics.median(ratios), bootstrap_median_ci(ratios), len(ratios))


@dataclass
class Headline:
    """One comparison's headline, as ``docs/results/<name>.json`` stores it."""

    definition: str
    pooled: Summary
    by_placement: dict[str, Summary]
    ceiling: float | None = None  # the ceiling's value when a placement tied at it

    @property
    def at_ceiling(self) -> bool:
        return bool(self.by_placement) and all(s.at_ceiling for s in self.by_placement.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "ratio": self.pooled.ratio,
            "ci95": list(self.pooled.ci95) if self.pooled.ci95 else None,
            "pairs": self.pooled.pairs,
            "by_placement": {k: v.to_json() for k, v in sorted(self.by_placement.items())},
            "at_ceiling": self.at_ceiling,
            "ceiling": self.ceiling,
            "definition": self.definition,
        }

    def text(self, fmt: str = "{:.2f}") -> str:
        """One line for a report: the pooled ratio and each placement's."""
        parts = []
        for name, s in sorted(self.by_placement.items()):
            parts.append(f"{name}: {describe(s, fmt, self.ceiling)}")
        return f"{describe(self.pooled, fmt, self.ceiling)} ({'; '.join(parts)})"


def describe(s: Summary, fmt: str = "{:.2f}", ceiling: float | None = None) -> str:
    """``1.07 (0.98-1.15, 10 pairs)``, or the tie at the ceiling."""
    if s.at_ceiling:
        at = f" (>= {ceiling:g})" if ceiling is not None else ""
        return f"tie at the ceiling{at}, {s.pairs} pairs"
    if s.ratio is None or s.ci95 is None:
        return f"no ratio, {s.pairs} pairs"
    lo, hi = s.ci95
    return f"{fmt.format(s.ratio)} ({fmt.format(lo)}-{fmt.format(hi)}, {s.pairs} pairs)"


def headline(
    pairs: Iterable[Pair],
    definition: str,
    invert: bool = False,
    ceiling: float | None = None,
) -> Headline:
    """The headline of a comparison from all its pairs (none excluded).

    A placement in which every pair was at the ceiling is a tie there; the
    pooled figure is the median over the pairs not at the ceiling (a tie when
    none is left)."""
    pairs = list(pairs)
    by: dict[str, list[Pair]] = {}
    for p in pairs:
        by.setdefault(p.placement, []).append(p)
    placements = {}
    for name, ps in by.items():
        tie = all(p.at_ceiling for p in ps)
        placements[name] = summarize([p.ratio(invert) for p in ps if not p.at_ceiling], tie)
        placements[name].pairs = len(ps)  # a tie counts its pairs too
    open_ratios = [p.ratio(invert) for p in pairs if not p.at_ceiling]
    pooled = summarize(open_ratios, at_ceiling=bool(pairs) and not open_ratios)
    pooled.pairs = len(pairs)
    return Headline(definition, pooled, placements, ceiling)


def run_pairs(
    n_pairs: int,
    run_a: Callable[[], float],
    run_b: Callable[[], float],
    placement: Callable[[], str],
    at_ceiling: Callable[[float, float], bool] | None = None,
    on_pair: Callable[[Pair], None] | None = None,
) -> list[Pair]:
    """Run ``n_pairs`` pairs in ABBA order. ``placement`` is probed before each
    pair; ``at_ceiling(a, b)`` says whether both sides reached the ceiling.
    ``on_pair`` sees each pair as it completes (progress, saving)."""
    out = []
    for i, order in enumerate(abba_order(n_pairs)):
        where = placement()
        got = {}
        for side in order:
            got[side] = run_a() if side == "A" else run_b()
        p = Pair(i, order, got["A"], got["B"], where)
        p.at_ceiling = bool(at_ceiling and at_ceiling(p.a, p.b))
        out.append(p)
        if on_pair:
            on_pair(p)
    return out

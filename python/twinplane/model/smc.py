# SPDX-License-Identifier: BSD-3-Clause
"""Statistical model checking over the simulator's runs.

- Probability estimation with the Chernoff-Hoeffding bound: N = ceil(ln(2/delta) /
  (2 epsilon^2)) independent runs give an estimate within epsilon of the true value
  with probability at least 1 - delta. It holds for any per-run observable bounded
  in [0, 1]: a property's 0/1 outcome ("every Interest of the run is satisfied",
  "the run's satisfaction rate >= s"), or a run's loss fraction, whose expectation
  is the loss probability (up to the warm-up the runs leave out).
- Wald's sequential probability ratio test for P(property) >= theta, with an
  indifference region theta +- indifference and error bounds alpha (accepting
  "< theta" when it is >= theta + indifference) and beta.

Runs are spread over the CPUs (a process per chunk, each with its own seeds)."""

from __future__ import annotations

import math
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from twinplane.model.sim import Pipeline


def chernoff_runs(epsilon: float, delta: float) -> int:
    """Runs for precision epsilon with confidence 1 - delta (Okamoto's bound)."""
    if not (0 < epsilon < 1 and 0 < delta < 1):
        raise ValueError("epsilon and delta: in (0, 1)")
    return math.ceil(math.log(2 / delta) / (2 * epsilon**2))


PROPERTIES = ("all_satisfied", "satisfaction_at_least", "satisfaction", "loss")


def observe(runs: np.ndarray, prop: str, s: float = 1.0) -> np.ndarray:
    """The per-run observable in [0, 1] of a property:

    - ``all_satisfied``: 1 when every counted Interest of the run got its Data;
    - ``satisfaction_at_least``: 1 when the run's satisfaction rate is >= s;
    - ``satisfaction``: the run's satisfaction rate;
    - ``loss``: 1 - the satisfaction rate (the loss fraction)."""
    sat = runs["satisfaction"]
    if prop == "all_satisfied":
        return (runs["satisfied"] == runs["sent"]).astype(float)
    if prop == "satisfaction_at_least":
        return (sat >= s).astype(float)
    if prop == "satisfaction":
        return sat.astype(float)
    if prop == "loss":
        return 1.0 - sat.astype(float)
    raise ValueError(f"property {prop!r}: one of {', '.join(PROPERTIES)}")


def _chunk(args: tuple[Pipeline, int, int]) -> tuple[np.ndarray, int]:
    model, n, seed = args
    return model.run(n, seed)


def workers_default() -> int:
    return max(1, len(os.sched_getaffinity(0)))


def simulate(
    model: Pipeline, n_runs: int, seed: int = 1, workers: int | None = None
) -> tuple[np.ndarray, int]:
    """n_runs runs, in chunks over ``workers`` processes (1: in this process)."""
    workers = workers or workers_default()
    if workers <= 1 or n_runs < 64:
        return model.run(n_runs, seed)
    k = min(workers * 4, n_runs)
    sizes = [n_runs // k + (1 if i < n_runs % k else 0) for i in range(k)]
    jobs = [(model, n, seed * 1_000_003 + i) for i, n in enumerate(sizes)]
    with ProcessPoolExecutor(max_workers=workers) as ex:
        parts = list(ex.map(_chunk, jobs))
    return np.concatenate([p[0] for p in parts]), sum(p[1] for p in parts)


@dataclass
class Estimate:
    prop: str
    value: float
    epsilon: float
    delta: float
    runs: int
    events: int
    threshold: float | None = None

    @property
    def confidence(self) -> float:
        return 1 - self.delta

    def to_dict(self) -> dict[str, Any]:
        d = {
            "property": self.prop,
            "estimate": self.value,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "confidence": self.confidence,
            "runs": self.runs,
            "events": self.events,
            "interval": [max(0.0, self.value - self.epsilon), min(1.0, self.value + self.epsilon)],
        }
        if self.threshold is not None:
            d["threshold"] = self.threshold
        return d


def estimate(
    model: Pipeline,
    prop: str = "all_satisfied",
    epsilon: float = 0.01,
    delta: float = 0.05,
    s: float = 1.0,
    seed: int = 1,
    workers: int | None = None,
) -> Estimate:
    """P(prop) (or E[observable]) within epsilon with confidence 1 - delta."""
    n = chernoff_runs(epsilon, delta)
    runs, events = simulate(model, n, seed, workers)
    x = observe(runs, prop, s)
    thr = s if prop == "satisfaction_at_least" else None
    return Estimate(prop, float(x.mean()), epsilon, delta, n, events, thr)


@dataclass
class SprtResult:
    accepted: bool  # True: P(prop) >= theta
    runs: int
    successes: int
    theta: float
    indifference: float
    alpha: float
    beta: float
    decided: bool  # False: max_runs reached without a decision

    def to_dict(self) -> dict[str, Any]:
        return {
            "hypothesis": f"P >= {self.theta}",
            "accepted": self.accepted,
            "decided": self.decided,
            "runs": self.runs,
            "successes": self.successes,
            "indifference": self.indifference,
            "alpha": self.alpha,
            "beta": self.beta,
        }


def sprt(
    model: Pipeline,
    theta: float,
    prop: str = "all_satisfied",
    s: float = 1.0,
    indifference: float = 0.01,
    alpha: float = 0.05,
    beta: float = 0.05,
    seed: int = 1,
    batch: int = 64,
    max_runs: int = 100_000,
) -> SprtResult:
    """Wald's SPRT of H0: p >= theta + indifference against H1: p <= theta -
    indifference, on the 0/1 outcomes of ``prop`` (all_satisfied or
    satisfaction_at_least), drawn in batches."""
    if prop not in ("all_satisfied", "satisfaction_at_least"):
        raise ValueError("sprt: a 0/1 property (all_satisfied, satisfaction_at_least)")
    p0 = min(1 - 1e-9, theta + indifference)
    p1 = max(1e-9, theta - indifference)
    a = math.log(beta / (1 - alpha))  # accept H0 at or below
    b = math.log((1 - beta) / alpha)  # accept H1 at or above
    llr, n, k, r = 0.0, 0, 0, 0
    while n < max_runs:
        runs, _ = model.run(batch, seed * 7919 + r)
        r += 1
        for x in observe(runs, prop, s):
            n += 1
            if x:
                k += 1
                llr += math.log(p1 / p0)
            else:
                llr += math.log((1 - p1) / (1 - p0))
            if llr <= a:
                return SprtResult(True, n, k, theta, indifference, alpha, beta, True)
            if llr >= b:
                return SprtResult(False, n, k, theta, indifference, alpha, beta, True)
    return SprtResult(k / max(n, 1) >= theta, n, k, theta, indifference, alpha, beta, False)

# SPDX-License-Identifier: BSD-3-Clause
"""Closed forms the simulator is checked against: the loss (blocking) probability
of M/M/1/K, M/D/1/K (the M/G/1/K embedded chain) and M/M/c/K, K being the system's
capacity (waiting room + servers), and the same M/M/1/K solved exactly as a CTMC
by Storm (stormpy)."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np

from twinplane.model.sim import Dist, Pipeline


def mm1k_loss(lam: float, mu: float, k: int) -> float:
    """P(an arrival finds K in the system), Poisson arrivals at lam, exponential
    service at mu, one server, capacity K."""
    rho = lam / mu
    if math.isclose(rho, 1.0):
        return 1.0 / (k + 1)
    return (1 - rho) * rho**k / (1 - rho ** (k + 1))


def mmck_loss(lam: float, mu: float, c: int, k: int) -> float:
    """M/M/c/K: c servers sharing one queue, capacity K >= c (in log space)."""
    if k < c:
        raise ValueError("M/M/c/K needs K >= c")
    a = lam / mu
    logs = []
    for n in range(k + 1):
        if n <= c:
            logs.append(n * math.log(a) - math.lgamma(n + 1))
        else:
            logs.append(n * math.log(a) - math.lgamma(c + 1) - (n - c) * math.log(c))
    m = max(logs)
    w = np.exp(np.array(logs) - m)
    return float(w[-1] / w.sum())


def mg1k_loss(lam: float, k: int, arrivals_pmf: np.ndarray, mean_service: float) -> float:
    """M/G/1/K through the chain embedded at departures: arrivals_pmf[j] = P(j
    arrivals during one service), for j = 0..K-1 at least. The time-average
    probability of a full system, the blocking probability by PASTA, is
    1 - 1/(pi_0 + rho) with pi the departure-epoch distribution over 0..K-1
    (Gross and Harris, Fundamentals of Queueing Theory, M/G/1/K)."""
    rho = lam * mean_service
    if k == 1:
        return rho / (1 + rho)
    a = np.asarray(arrivals_pmf, dtype=float)
    n = k  # states 0..K-1
    p = np.zeros((n, n))
    for i in range(n):
        base = max(i - 1, 0)  # after a departure from i (i = 0: the next arrival's service)
        for j in range(base, n - 1):
            p[i, j] = a[j - base] if j - base < len(a) else 0.0
        p[i, n - 1] = max(0.0, 1.0 - p[i, : n - 1].sum())
    # pi P = pi, sum pi = 1
    m = p.T - np.eye(n)
    m[-1, :] = 1.0
    rhs = np.zeros(n)
    rhs[-1] = 1.0
    pi = np.linalg.solve(m, rhs)
    return float(1.0 - 1.0 / (pi[0] + rho))


def md1k_loss(lam: float, d: float, k: int) -> float:
    """M/D/1/K: deterministic service time d."""
    rho = lam * d
    j = np.arange(k + 1)
    logs = -rho + j * math.log(rho) - np.array([math.lgamma(x + 1) for x in j])
    return mg1k_loss(lam, k, np.exp(logs), d)


def mm1k_loss_storm(lam: float, mu: float, k: int) -> float:
    """M/M/1/K as a CTMC in the PRISM language, its long-run probability of a full
    system computed by Storm (the arriving customer's blocking probability, PASTA)."""
    import stormpy

    prism = f"""ctmc
const int K = {k};
module queue
  n : [0..K] init 0;
  [] n < K -> {lam!r} : (n' = n + 1);
  [] n > 0 -> {mu!r} : (n' = n - 1);
endmodule
label "full" = n = K;
"""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "mm1k.prism"
        path.write_text(prism)
        program = stormpy.parse_prism_program(str(path), prism_compatibility=True)
    props = stormpy.parse_properties('LRA=? ["full"]', program)
    model = stormpy.build_model(program, props)
    result = stormpy.model_checking(model, props[0])
    return float(result.get_value(model.initial_states[0]))


def queue_model(
    kind: str,
    load: float,
    k: int,
    c: int = 1,
    service: float = 100.0,
    n_interests: int = 600,
    warmup: int = 100,
) -> tuple[Pipeline, float]:
    """A textbook queue as the simulator's configuration, with its closed-form loss:
    ``kind`` mm1k or md1k (one server, exponential or constant service) or mmck (c
    servers sharing one queue, exponential service); ``load`` = lambda / (c mu);
    ``k`` the capacity (waiting room + servers); Poisson arrivals, no producer."""
    if kind not in ("mm1k", "md1k", "mmck"):
        raise ValueError(f"queue kind {kind!r}: mm1k, md1k or mmck")
    c = c if kind == "mmck" else 1
    if k < c:
        raise ValueError(f"capacity {k}: at least the {c} server(s)")
    lam, mu = load * c / service, 1 / service
    model = Pipeline(
        fwd_i=Dist.const(service) if kind == "md1k" else Dist.expon(service),
        interval=1 / lam,
        poisson=True,
        interest_only=True,
        n_fwd=c,
        dispatch="pool",
        q_interest=k - c,
        n_interests=n_interests,
        warmup=warmup,
    )
    if kind == "mm1k":
        closed = mm1k_loss(lam, mu, k)
    elif kind == "md1k":
        closed = md1k_loss(lam, service, k)
    else:
        closed = mmck_loss(lam, mu, c, k)
    return model, closed

# SPDX-License-Identifier: BSD-3-Clause
"""Distribution fitting as seed 002 does it with DataPlot: try the normal first, then
the usual families (lognormal, gamma, Weibull), judge each by its probability plot
correlation coefficient (PPCC) and the Kolmogorov-Smirnov statistic, and, when none
fits well enough (PPCC below 0.99), a Box-Cox transform to normality. The normal is
chosen when its PPCC is at least 0.99 and KS does not reject it (at 1 %); else the
fit with the highest PPCC among those KS does not reject, else the highest PPCC.

A fit's parameters are scipy.stats's (shape, loc, scale); :func:`to_dist` turns it
into the simulator's :class:`~twinplane.model.sim.Dist`."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from twinplane.model.sim import Dist

FAMILIES = ("norm", "lognorm", "gamma", "weibull_min")
KS_ALPHA = 0.01  # KS p-value below which a fit is rejected
PPCC_GOOD = 0.99  # "close enough to 1": below it for every family, Box-Cox is tried


@dataclass
class Fit:
    family: str  # norm, lognorm, gamma, weibull_min, boxcox
    params: dict[str, float]
    ppcc: float
    ks_stat: float
    ks_p: float
    n: int
    candidates: list[dict[str, Any]] = field(default_factory=list)

    def to_dist(self) -> Dist:
        p = self.params
        if self.family == "boxcox":
            return Dist("boxcox", shape=p["lambda"], loc=p["mu"], scale=p["sigma"])
        return Dist(self.family, p.get("shape", 0.0), p["loc"], p["scale"])

    def to_dict(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "params": self.params,
            "ppcc": self.ppcc,
            "ks_stat": self.ks_stat,
            "ks_p": self.ks_p,
            "n": self.n,
            "candidates": self.candidates,
        }

    def mean(self) -> float:
        return float(np.mean(self.to_dist().draw(20000, seed=7)))


def _family_fit(x: np.ndarray, fam: str) -> dict[str, Any]:
    dist = getattr(stats, fam)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if fam == "norm":
            loc, scale = dist.fit(x)
            tries = [({"loc": float(loc), "scale": float(scale)}, dist(loc, scale))]
        else:
            # the location fixed (an MLE of it is unstable): at 0, and just below the
            # smallest sample (a latency's floor); the better probability plot wins
            tries = []
            for floc in (0.0, float(x.min()) - 1e-6 * max(1.0, abs(float(x.min())))):
                shape, loc, scale = dist.fit(x, floc=floc)
                p = {"shape": float(shape), "loc": float(loc), "scale": float(scale)}
                tries.append((p, dist(shape, loc, scale)))
        best: dict[str, Any] = {}
        for params, frozen in tries:
            (_osm, _osr), (_slope, _icpt, r) = stats.probplot(x, dist=frozen)
            ks = stats.kstest(x, frozen.cdf)
            cand = {
                "family": fam,
                "params": params,
                "ppcc": float(r),
                "ks_stat": float(ks.statistic),
                "ks_p": float(ks.pvalue),
            }
            # a variant KS does not reject beats one it does; then the PPCC
            if not best or (cand["ks_p"] >= KS_ALPHA, cand["ppcc"]) > (
                best["ks_p"] >= KS_ALPHA,
                best["ppcc"],
            ):
                best = cand
    return best


def _boxcox_fit(x: np.ndarray) -> dict[str, Any]:
    y, lam = stats.boxcox(x)
    mu, sigma = float(np.mean(y)), float(np.std(y, ddof=1))
    (_osm, _osr), (_s, _i, r) = stats.probplot(y, dist="norm")
    ks = stats.kstest(y, "norm", args=(mu, sigma))
    return {
        "family": "boxcox",
        "params": {"lambda": float(lam), "mu": mu, "sigma": sigma},
        "ppcc": float(r),
        "ks_stat": float(ks.statistic),
        "ks_p": float(ks.pvalue),
    }


def fit(samples: Any, alpha: float = KS_ALPHA, max_samples: int = 20000) -> Fit:
    """The best fit of positive samples (latencies), as described above. With more
    than max_samples, a fixed-seed random subset is fitted (KS rejects any model of
    a very large sample)."""
    x = np.asarray(samples, dtype=float)
    x = x[np.isfinite(x)]
    if len(x) < 8:
        raise ValueError(f"fit: {len(x)} samples, 8 at least")
    if np.any(x <= 0):
        raise ValueError("fit: latencies must be positive")
    if len(x) > max_samples:
        x = np.random.default_rng(1).choice(x, max_samples, replace=False)
    if np.ptp(x) == 0:
        return Fit("norm", {"loc": float(x[0]), "scale": 0.0}, 1.0, 0.0, 1.0, len(x))
    cands = [_family_fit(x, f) for f in FAMILIES]
    if max(c["ppcc"] for c in cands) < PPCC_GOOD:
        cands.append(_boxcox_fit(x))
    ok = [c for c in cands if c["ks_p"] >= alpha]
    norm = cands[0]
    if norm["ppcc"] >= PPCC_GOOD and norm["ks_p"] >= alpha:
        best = norm  # the seed's first question: is it normal? (then it stops there)
    else:
        best = max(ok or cands, key=lambda c: c["ppcc"])
    return Fit(
        best["family"],
        best["params"],
        best["ppcc"],
        best["ks_stat"],
        best["ks_p"],
        len(x),
        cands,
    )


def plot_fit(samples: Any, f: Fit, path: Any, title: str) -> None:
    """The samples' histogram with the chosen fit's density (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = np.asarray(samples, dtype=float)
    fig, ax = plt.subplots(figsize=(5, 3.2))
    hi = np.quantile(x, 0.995)
    ax.hist(x[x <= hi], bins=60, density=True, alpha=0.55, label=f"samples (n={len(x)})")
    draws = f.to_dist().draw(200_000, seed=3)
    ax.hist(
        draws[draws <= hi],
        bins=60,
        density=True,
        histtype="step",
        linewidth=1.6,
        label=f"{f.family} fit (PPCC {f.ppcc:.3f})",
    )
    ax.set_xlabel("latency (ns)")
    ax.set_ylabel("density")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)

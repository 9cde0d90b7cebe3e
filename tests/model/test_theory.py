# SPDX-License-Identifier: BSD-3-Clause
"""The performance model against queueing theory (issue 11): with exponential or
deterministic service and one lcore, the simulator's SMC estimate of the loss
probability is within the stated epsilon of M/M/1/K and M/D/1/K's closed forms, and
of M/M/c/K's with c lcores sharing one queue; a small CTMC checked exactly by Storm
gives the closed form too. Also: the samplers against scipy.stats, Wald's SPRT both
ways, and the simulator's refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from twinplane.model import smc, theory
from twinplane.model.fit import fit
from twinplane.model.sim import Dist, Pipeline, SimError

EPS, DELTA = 0.02, 0.05  # the stated precision and confidence of these checks
MEAN = 100.0  # ns of service
LOADS = (0.5, 0.9, 1.3)
CAPACITIES = (1, 3, 8)  # K: waiting room + the server


def queue(service: Dist, lam: float, k: int, c: int = 1) -> Pipeline:
    """Poisson arrivals at lam into c lcores sharing a queue of K - c places."""
    return Pipeline(
        fwd_i=service,
        interval=1 / lam,
        poisson=True,
        interest_only=True,
        n_fwd=c,
        dispatch="pool",
        q_interest=k - c,
        n_interests=600,
        warmup=100,
    )


def smc_loss(model: Pipeline, seed: int) -> smc.Estimate:
    return smc.estimate(model, "loss", epsilon=EPS, delta=DELTA, seed=seed, workers=1)


def test_chernoff_runs() -> None:
    # N = ceil(ln(2/delta) / (2 eps^2)): 0.01 and 0.05 give 18,445 (ln 40 = 3.6889)
    assert smc.chernoff_runs(0.01, 0.05) == 18445
    assert smc.chernoff_runs(0.02, 0.05) == math.ceil(math.log(40) / (2 * 0.02**2))
    with pytest.raises(ValueError):
        smc.chernoff_runs(0, 0.05)


@pytest.mark.parametrize("rho", LOADS)
@pytest.mark.parametrize("k", CAPACITIES)
def test_mm1k(rho: float, k: int) -> None:
    lam = rho / MEAN
    est = smc_loss(queue(Dist.expon(MEAN), lam, k), seed=k * 100 + int(rho * 10))
    want = theory.mm1k_loss(lam, 1 / MEAN, k)
    assert est.runs == smc.chernoff_runs(EPS, DELTA)
    assert abs(est.value - want) <= EPS, (est.value, want)


@pytest.mark.parametrize("rho", LOADS)
@pytest.mark.parametrize("k", CAPACITIES)
def test_md1k(rho: float, k: int) -> None:
    lam = rho / MEAN
    est = smc_loss(queue(Dist.const(MEAN), lam, k), seed=k * 100 + int(rho * 10) + 1)
    want = theory.md1k_loss(lam, MEAN, k)
    assert abs(est.value - want) <= EPS, (est.value, want)


@pytest.mark.parametrize(("c", "k"), [(2, 2), (2, 6), (4, 5), (4, 12)])
@pytest.mark.parametrize("rho", LOADS)
def test_mmck_shared_queue(c: int, k: int, rho: float) -> None:
    lam = rho * c / MEAN
    est = smc_loss(queue(Dist.expon(MEAN), lam, k, c), seed=c * 1000 + k * 10 + int(rho * 10))
    want = theory.mmck_loss(lam, 1 / MEAN, c, k)
    assert abs(est.value - want) <= EPS, (est.value, want)


def test_closed_forms_agree_with_each_other() -> None:
    # the M/G/1/K embedded chain with exponential service is M/M/1/K; M/M/c/K with
    # c = 1 too; and M/M/1/1 loses rho / (1 + rho) (Erlang's B with one server)
    for rho in (0.3, 1.0, 2.0):
        for k in (1, 2, 5, 9):
            lam, mu = rho, 1.0
            j = np.arange(k + 1)
            geo = (1 / (1 + rho)) * (rho / (1 + rho)) ** j
            assert theory.mg1k_loss(lam, k, geo, 1 / mu) == pytest.approx(
                theory.mm1k_loss(lam, mu, k), abs=1e-9
            )
            assert theory.mmck_loss(lam, mu, 1, k) == pytest.approx(
                theory.mm1k_loss(lam, mu, k), abs=1e-12
            )
        assert theory.mm1k_loss(rho, 1.0, 1) == pytest.approx(rho / (1 + rho))
        assert theory.md1k_loss(rho, 1.0, 1) == pytest.approx(rho / (1 + rho))


def test_storm_ctmc_agrees() -> None:
    """M/M/1/5 at loads below, at and above 1 as a CTMC, solved by Storm: the closed
    form to 1e-6, and the simulator's estimate within epsilon."""
    for rho in (0.6, 1.0, 1.4):
        lam, mu, k = rho / MEAN, 1 / MEAN, 5
        exact = theory.mm1k_loss_storm(lam, mu, k)
        assert exact == pytest.approx(theory.mm1k_loss(lam, mu, k), abs=1e-6)
        est = smc_loss(queue(Dist.expon(MEAN), lam, k), seed=int(rho * 100))
        assert abs(est.value - exact) <= EPS


@pytest.mark.parametrize(
    ("dist", "frozen"),
    [
        (Dist("expon", loc=10, scale=50), stats.expon(10, 50)),
        (Dist("norm", loc=300, scale=20), stats.norm(300, 20)),
        (Dist("lognorm", 0.5, 0, 200), stats.lognorm(0.5, 0, 200)),
        (Dist("gamma", 0.7, 5, 80), stats.gamma(0.7, 5, 80)),
        (Dist("gamma", 3.0, 5, 80), stats.gamma(3.0, 5, 80)),
        (Dist("weibull_min", 1.8, 0, 150), stats.weibull_min(1.8, 0, 150)),
    ],
)
def test_samplers_follow_scipy(dist: Dist, frozen: object) -> None:
    x = dist.draw(20000, seed=11)
    assert stats.kstest(x, frozen.cdf).pvalue > 0.001  # type: ignore[attr-defined]


def test_boxcox_sampler_inverts_the_transform() -> None:
    lam, mu, sigma = 0.3, 12.0, 0.8
    x = Dist("boxcox", lam, mu, sigma).draw(20000, seed=5)
    y = (x**lam - 1) / lam
    assert stats.kstest(y, stats.norm(mu, sigma).cdf).pvalue > 0.001


def test_fit_picks_the_family() -> None:
    for frozen, family in (
        (stats.gamma(2.5, 40, 30), "gamma"),
        (stats.lognorm(0.6, 0, 150), "lognorm"),
        (stats.norm(800, 25), "norm"),
    ):
        x = frozen.rvs(4000, random_state=3)
        f = fit(x)
        assert f.family == family, f.to_dict()
        assert f.ppcc > 0.99 and f.ks_p > 0.01
        assert f.mean() == pytest.approx(float(np.mean(x)), rel=0.03)
    # a two-mode sample: no family fits, Box-Cox is tried and reported
    x = np.concatenate([stats.norm(100, 5).rvs(2000, random_state=1), np.full(200, 400.0)])
    f = fit(x)
    assert any(c["family"] == "boxcox" for c in f.candidates)
    with pytest.raises(ValueError, match="positive"):
        fit([1.0, 2.0, 0.0, 3.0, 4.0, 5.0, 6.0, 7.0])


def test_sprt_decides_both_ways() -> None:
    light = queue(Dist.expon(MEAN), 0.2 / MEAN, 40)  # loses nothing in 500 Interests
    heavy = queue(Dist.expon(MEAN), 1.5 / MEAN, 4)  # loses about a third
    yes = smc.sprt(light, 0.9, "all_satisfied", seed=3)
    no = smc.sprt(heavy, 0.5, "satisfaction_at_least", s=0.9, seed=4)
    assert yes.decided and yes.accepted, yes
    assert no.decided and not no.accepted, no
    assert yes.runs < 1000 and no.runs < 1000  # sequential: far fewer than Chernoff's


def test_pipeline_data_lost_means_unsatisfied() -> None:
    """With a producer: an exchange is satisfied only when its Data comes back; a
    shared queue loses Data to Interests, separate queues (Data first) lose none."""
    base = Pipeline(
        fwd_i=Dist.const(100.0),
        fwd_d=Dist.const(60.0),
        interval=140.0,
        producer_delay=1000.0,
        q_interest=64,
        q_data=64,
        n_interests=5000,
        warmup=500,
    )
    sep, _ = base.run(20, seed=1)
    shared, _ = base.with_(queues="shared").run(20, seed=1)
    assert sep["drop_fwd_data"].sum() == 0 and sep["drop_fwd_interest"].sum() > 0
    assert shared["drop_fwd_data"].sum() > 0
    for r in (sep, shared):
        lost = r["drop_fwd_interest"] + r["drop_fwd_data"]
        assert np.all(r["sent"] - r["satisfied"] == lost)
    # offered 1 / 140 per ns, served at most 1 / 160 (an Interest and its Data)
    assert sep["satisfaction"].mean() == pytest.approx(140 / 160, abs=0.02)


def test_refusals_say_why() -> None:
    with pytest.raises(SimError, match="n_fwd"):
        Pipeline(fwd_i=Dist.const(1.0), interest_only=True, n_fwd=0).run(1)
    with pytest.raises(SimError, match="warmup"):
        Pipeline(fwd_i=Dist.const(1.0), interest_only=True, n_interests=10, warmup=10).run(1)
    with pytest.raises(SimError, match="forwarding stage"):
        Pipeline(fwd_i=Dist.const(1.0)).run(1)  # Data need fwd_d
    with pytest.raises(SimError, match="kind"):
        Dist("pareto")
    with pytest.raises(SimError, match="rtc"):
        Pipeline(fwd_i=Dist.const(1.0), fwd_d=Dist.const(1.0), rtc=True, n_fwd=2).run(1)

# SPDX-License-Identifier: BSD-3-Clause
"""The model's command line (``python -m twinplane.model``) end to end, from a file
of stage samples: calibrate (fits, their plots, main effects, the simulator's
distributions scaled to the busy time), simulate, smc, plan (more lcores for more
rate), theory (the closed form and Storm), and the specific errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from twinplane.model.__main__ import main
from twinplane.model.sim import Dist


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, object, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, (json.loads(out) if rc == 0 else None), err


@pytest.fixture
def samples(tmp_path: Path) -> Path:
    """Two sample sets (3 and 13 components): gamma-shaped stages whose timed sum per
    packet is twice the busy time (the scale the model must apply: 0.5)."""
    rng = np.random.default_rng(7)
    sets = []
    for comps, base in ((3, 200.0), (13, 300.0)):
        stages = {
            "input": list(rng.gamma(9.0, base / 20 / 9, 4000) + 1),
            "interest": list(rng.gamma(4.0, base / 4, 4000) + 1),
            "data": list(rng.gamma(4.0, base * 0.8 / 4, 4000) + 1),
        }
        timed = np.mean(stages["input"]) + 0.5 * (
            np.mean(stages["interest"]) + np.mean(stages["data"])
        )
        sets.append(
            {
                "factors": {"comps": comps, "rate": 1e6},
                "stages": stages,
                "busy_ns_per_packet": timed / 2,
            }
        )
    p = tmp_path / "samples.json"
    p.write_text(json.dumps({"sets": sets}))
    return p


def test_calibrate_simulate_plan(
    capsys: pytest.CaptureFixture[str], samples: Path, tmp_path: Path
) -> None:
    cal = tmp_path / "cal.json"
    plots = tmp_path / "plots"
    rc, doc, err = run(
        capsys, "calibrate", "--from", str(samples), "--out", str(cal), "--plots", str(plots)
    )
    assert rc == 0, err
    assert isinstance(doc, dict) and cal.exists()
    s3 = doc["sets"][0]
    # gamma samples: the fit is gamma (or a family KS cannot tell from it), plotted
    assert s3["fits"]["interest"]["family"] in ("gamma", "lognorm", "weibull_min", "norm")
    assert s3["fits"]["interest"]["ks_p"] >= 0.01
    assert Path(s3["fits"]["interest"]["plot"]).stat().st_size > 1000
    # the name length's main effect on the interest stage: 13 comps slower
    me = doc["main_effects"]["interest"]
    lv = me["factors"]["comps"]["levels"]
    assert lv["13"] > lv["3"] * 1.3, me
    # simulated at half the timed mean (busy / timed = 0.5)
    mean_i = float(np.mean(json.loads(samples.read_text())["sets"][0]["stages"]["interest"]))
    assert Dist.from_dict(s3["dists"]["fwd_i"]).mean() == pytest.approx(mean_i / 2, rel=0.05)

    # one lcore: a low rate is all satisfied, far above its capacity it is not
    rc, low, err = run(
        capsys, "simulate", "--calibration", str(cal), "--rate", "5e5", "--runs", "20",
        "--interests", "5000", "--warmup", "500", "--queue", "256",
    )  # fmt: skip
    assert rc == 0, err
    assert isinstance(low, dict) and low["satisfaction_min"] == 1.0
    rc, high, _ = run(
        capsys, "simulate", "--calibration", str(cal), "--rate", "2e7", "--runs", "20",
        "--interests", "5000", "--warmup", "500", "--queue", "256",
    )  # fmt: skip
    assert rc == 0 and isinstance(high, dict) and high["satisfaction_mean"] < 0.5

    # plan: the fewest lcores for the rate, more for more rate
    answers = []
    for rate in ("5e5", "8e6"):
        rc, plan, err = run(
            capsys, "plan", "--calibration", str(cal), "--rate", rate, "--name-length", "3",
            "--target", "0.99", "--queues", "64,1024", "--max-lcores", "8",
            "--interests", "4000", "--warmup", "1000", "--epsilon", "0.05",
        )  # fmt: skip
        assert rc == 0, err
        assert isinstance(plan, dict) and plan["answer"] is not None, plan
        assert plan["satisfaction"]["estimate"] >= 0.97
        answers.append(plan["answer"]["forwarding_lcores"])
    assert answers[0] == 1 and answers[1] > 1, answers

    # smc: "every Interest satisfied" at a low rate, by SPRT
    rc, t, err = run(
        capsys, "smc", "--calibration", str(cal), "--rate", "5e5", "--interests", "3000",
        "--warmup", "300", "--prop", "all_satisfied", "--sprt", "0.9",
    )  # fmt: skip
    assert rc == 0 and isinstance(t, dict) and t["accepted"] and t["decided"], (t, err)


def test_theory_command(capsys: pytest.CaptureFixture[str]) -> None:
    rc, doc, err = run(
        capsys, "theory", "mm1k", "--load", "0.9", "--capacity", "4", "--epsilon", "0.03",
        "--storm",
    )  # fmt: skip
    assert rc == 0, err
    assert isinstance(doc, dict) and doc["within_epsilon"], doc
    assert doc["storm"] == pytest.approx(doc["closed_form"], abs=1e-6)
    rc, doc, err = run(
        capsys, "theory", "mmck", "--load", "0.8", "--capacity", "4", "--servers", "2",
        "--epsilon", "0.03",
    )  # fmt: skip
    assert rc == 0 and isinstance(doc, dict) and doc["within_epsilon"], (doc, err)


def test_errors_are_specific(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, _, err = run(capsys, "simulate", "--rate", "1e6")
    assert rc == 2 and "no service times" in err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"sets": [{"stages": {"interest": ["x"]}}]}))
    rc, _, err = run(capsys, "calibrate", "--from", str(bad))
    assert rc == 2 and "a list of numbers" in err
    rc, _, err = run(capsys, "theory", "mmck", "--load", "0.5", "--capacity", "1", "--servers", "2")
    assert rc == 2 and "at least the 2 server(s)" in err
    rc, _, err = run(capsys, "plan", "--rate", "1e6")
    assert rc == 2 and "--calibration FILE or --socket" in err

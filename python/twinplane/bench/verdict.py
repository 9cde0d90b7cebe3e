# SPDX-License-Identifier: BSD-3-Clause
"""One rule for "did this load pass": MLRsearch's goal, declared before the run.

A goal (draft-ietf-bmwg-mlrsearch, section "Search Goal") has three parts:

- ``loss_ratio``: a trial is *bad* when it lost more than this share of what
  was offered (0 for NDR);
- ``exceed_ratio``: the share of a load's trial seconds that may be bad (the
  host's noise is declared here, before the run, not excused after it);
- ``duration_sum``: trial seconds at a load that decide it.

A load is decided from all its trials, none excluded (``load_verdict``):

- ``PASS`` (a lower bound) when, counting the seconds not yet measured as bad,
  the bad share is at most ``exceed_ratio``;
- ``FAIL`` (an upper bound) when, counting the seconds not yet measured as good,
  the bad share is still above ``exceed_ratio``;
- ``UNDECIDED`` otherwise: more trial seconds are needed.

The same goal serves a throughput search (MLRsearch itself, ``rfc2544.py``) and
a sweep of fixed loads (NDN's Interest sweep, iotgw's report rates): a point of
a sweep is a load, decided the same way. Reports print the goal
(``Goal.text``) and keep every trial.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any


class Verdict(enum.Enum):
    PASS = "pass"
    FAIL = "fail"
    UNDECIDED = "undecided"


@dataclass(frozen=True)
class Goal:
    loss_ratio: float = 0.0
    exceed_ratio: float = 0.5
    duration_sum: float = 5.0

    def __post_init__(self) -> None:
        if not 0 <= self.loss_ratio < 1:
            raise ValueError(f"loss_ratio {self.loss_ratio} is not in [0, 1)")
        if not 0 <= self.exceed_ratio < 1:
            raise ValueError(f"exceed_ratio {self.exceed_ratio} is not in [0, 1)")
        if self.duration_sum <= 0:
            raise ValueError(f"duration_sum {self.duration_sum} is not > 0")

    def text(self) -> str:
        return (
            f"loss ratio {self.loss_ratio:g}, exceed ratio {self.exceed_ratio:g}, "
            f"duration sum {self.duration_sum:g} s"
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Trial:
    """What a verdict needs of one trial at a load."""

    duration_s: float
    offered: int
    lost: int

    @property
    def loss_ratio(self) -> float:
        return self.lost / self.offered if self.offered else 1.0

    def bad(self, goal: Goal) -> bool:
        """Lost more than the goal allows (a trial that offered nothing is bad)."""
        return self.offered == 0 or self.loss_ratio > goal.loss_ratio


def load_verdict(trials: Iterable[Trial], goal: Goal) -> Verdict:
    """The verdict on one load from all its trials (MLRsearch's conditional rule)."""
    good = bad = 0.0
    for t in trials:
        if t.bad(goal):
            bad += t.duration_s
        else:
            good += t.duration_s
    measured = good + bad
    whole = max(goal.duration_sum, measured)
    missing = whole - measured
    if (bad + missing) <= goal.exceed_ratio * whole:
        return Verdict.PASS
    if bad > goal.exceed_ratio * whole:
        return Verdict.FAIL
    return Verdict.UNDECIDED


def add_goal_arguments(ap: Any, goal: Goal) -> None:
    """The goal's three command-line options, with this benchmark's defaults."""
    ap.add_argument(
        "--loss-ratio",
        type=float,
        default=goal.loss_ratio,
        help=f"a trial is bad above this loss share (default {goal.loss_ratio:g})",
    )
    ap.add_argument(
        "--exceed-ratio",
        type=float,
        default=goal.exceed_ratio,
        help=f"share of a load's trial seconds that may be bad ({goal.exceed_ratio:g})",
    )
    ap.add_argument(
        "--duration-sum",
        type=float,
        default=goal.duration_sum,
        help=f"trial seconds that decide a load (default {goal.duration_sum:g})",
    )


def goal_from_args(a: Any) -> Goal:
    return Goal(a.loss_ratio, a.exceed_ratio, a.duration_sum)

# SPDX-License-Identifier: BSD-3-Clause
"""Integration fixtures: every lab is built by ``daemon_lab`` (``router_lab`` is its default
topology), which checks the daemon after the test and always tears the lab down."""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from twinplane.bench import duts
from twinplane.lab import RouterLab
from twinplane.lab.daemon import daemon_binary

# Mbufs still in use after a test, beyond the baseline taken after start-up,
# once the daemon had MEMPOOL_SETTLE_S seconds to drain rings and queues.
MEMPOOL_SETTLE_S = 3.0
MEMPOOL_SLACK = int(os.environ.get("TP_LAB_MEMPOOL_SLACK", "0"))

# the labs a test's fixtures built, for the failure report
LABS = pytest.StashKey[list[RouterLab]]()


def _sigterm(signum: int, frame: FrameType | None) -> None:
    # Turn SIGTERM (a CI timeout, a kill) into the Ctrl-C path, which runs
    # fixture teardown, so no namespace or daemon outlives the run. A second
    # SIGTERM then ends the process (Lab.close ignores it while it runs).
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_configure(config: pytest.Config) -> None:
    signal.signal(signal.SIGTERM, _sigterm)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    rep: pytest.TestReport = outcome.get_result()  # type: ignore[attr-defined]
    setattr(item, f"rep_{rep.when}", rep)
    if not rep.failed:
        return
    for lab in item.stash.get(LABS, []):
        if lab.daemon is not None:
            lab.keep_on_failure()
            rep.sections.append(
                ("twinplane daemon", f"{lab.daemon.logs()}\n(lab files kept in {lab.workdir})")
            )


def _require_daemon() -> None:
    if daemon_binary().exists():
        return
    msg = f"twinplane daemon not built ({daemon_binary()}); set TP_DAEMON or build first"
    if os.environ.get("CI") == "true":
        pytest.fail(msg)
    pytest.skip(msg)


@pytest.fixture
def daemon_lab(request: pytest.FixtureRequest) -> Iterator[Callable[..., RouterLab]]:
    """A factory: ``daemon_lab(**kwargs)`` builds ``RouterLab(**kwargs)`` for this test
    (or ``lab_class(**kwargs)``, a RouterLab subclass such as the switch lab).

    With a daemon (the default), a baseline of in-use mbufs is taken once it
    runs; after a passing test, the fixture asserts that the daemon still runs
    and that the in-use count came back to the baseline (no mbuf leak); then,
    whatever the outcome, that it stops cleanly on SIGTERM. Every lab is torn
    down at the end, and its files kept when something failed.
    """
    labs = request.node.stash.setdefault(LABS, [])
    with contextlib.ExitStack() as stack:

        def make(lab_class: type[RouterLab] = RouterLab, **kwargs: Any) -> RouterLab:
            if kwargs.get("start_daemon", True):
                _require_daemon()
            lab = lab_class(**kwargs)
            labs.append(lab)
            stack.enter_context(_checked(lab, request))
            return lab

        yield make


@pytest.fixture
def router_lab(daemon_lab: Callable[..., RouterLab]) -> RouterLab:
    """h1 (10.0.1.2) -- p0 [twinplane, 10.0.1.1 / 10.0.2.1] p1 -- h2 (10.0.2.2).

    The RouterLab (``run``, ``ctl``, ``counters``, ``mempool_in_use``...), with
    ``daemon_lab``'s checks.
    """
    return daemon_lab()


@contextlib.contextmanager
def _checked(lab: RouterLab, request: pytest.FixtureRequest) -> Iterator[None]:
    """The checks around one test of ``lab``'s daemon, and the lab's teardown."""
    try:
        if lab.daemon is not None:
            lab.flush_tx_residue()
            lab.mempool_baseline = lab.settle_mempool()
        yield
        if lab.daemon is None:
            return
        rep = getattr(request.node, "rep_call", None)
        if rep is not None and rep.passed:
            _check_mempool(lab)
        if not lab.daemon.running():
            pytest.fail(f"daemon died during the test ({lab.daemon.state()})\n{lab.daemon.logs()}")
        lab.stop_daemon()
        problem = lab.daemon.shutdown_problem()
        if problem:
            pytest.fail(f"{problem}\n{lab.daemon.logs()}")
    except BaseException:
        lab.keep_on_failure()
        raise
    finally:
        lab.close()


def _check_mempool(lab: RouterLab) -> None:
    assert lab.daemon is not None
    if not lab.daemon.running():
        return  # reported by the fixture
    baseline = lab.mempool_baseline
    assert baseline is not None
    lab.flush_tx_residue()
    in_use = lab.settle_mempool(baseline + MEMPOOL_SLACK, timeout=MEMPOOL_SETTLE_S)
    if in_use > baseline + MEMPOOL_SLACK:
        pytest.fail(
            f"mbuf leak: mempool in_use {in_use} > baseline {baseline} (+{MEMPOOL_SLACK}) "
            f"after {MEMPOOL_SETTLE_S:g}s to settle; show mempool: {lab.mempool()}"
        )


@pytest.fixture
def workdir() -> Iterator[Path]:
    """A scratch directory for a testbed's files, removed after the test."""
    with tempfile.TemporaryDirectory(prefix="tptb-") as d:
        yield Path(d)


@pytest.fixture
def on_generator_cpu() -> Iterator[None]:
    """Run (and start the DPDK processes) from the generator's CPU, as the
    benchmarks do, so no helper thread lands on the DUT's CPU."""
    before = os.sched_getaffinity(0)
    duts.pin_to_generator_cpu()
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)

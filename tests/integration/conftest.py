"""Integration fixtures: ``router_lab`` builds the default topology and always tears it down."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from types import FrameType

import pytest
from twinplane.lab import RouterLab
from twinplane.lab.daemon import daemon_binary

# Mbufs still in use after a test, beyond the baseline taken after start-up,
# once the daemon had MEMPOOL_SETTLE_S seconds to drain rings and queues.
MEMPOOL_SETTLE_S = 3.0
MEMPOOL_SLACK = int(os.environ.get("TP_LAB_MEMPOOL_SLACK", "0"))


def _sigterm(signum: int, frame: FrameType | None) -> None:
    # Turn SIGTERM (a CI timeout, a kill) into the Ctrl-C path, which runs
    # fixture teardown, so no namespace or daemon outlives the run. A second
    # SIGTERM then ends the process (Lab.close ignores it while it runs).
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_configure(config: pytest.Config) -> None:
    signal.signal(signal.SIGTERM, _sigterm)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Iterator[None]:
    outcome = yield
    rep: pytest.TestReport = outcome.get_result()  # type: ignore[attr-defined]
    setattr(item, f"rep_{rep.when}", rep)
    lab = getattr(item, "funcargs", {}).get("router_lab")
    if rep.failed and isinstance(lab, RouterLab) and lab.daemon is not None:
        lab.keep_on_failure()
        rep.sections.append(
            (
                "twinplane daemon",
                f"{lab.daemon.logs()}\n(lab files kept in {lab.workdir})",
            )
        )


def _require_daemon() -> None:
    if daemon_binary().exists():
        return
    msg = (
        f"twinplane daemon not built ({daemon_binary()}); set TP_DAEMON or build first"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(msg)
    pytest.skip(msg)


@pytest.fixture
def router_lab(request: pytest.FixtureRequest) -> Iterator[RouterLab]:
    """h1 (10.0.1.2) -- p0 [twinplane, 10.0.1.1 / 10.0.2.1] p1 -- h2 (10.0.2.2).

    Yields the RouterLab (``run``, ``ctl``, ``counters``, ``mempool_in_use``...).
    After a passing test, asserts that the daemon still runs and that the
    mempool's in-use count came back to its post-start baseline; then that
    the daemon stops cleanly on SIGTERM.
    """
    _require_daemon()
    lab = RouterLab()
    try:
        lab.flush_tx_residue()
        lab.mempool_baseline = lab.settle_mempool()
        yield lab
        rep = getattr(request.node, "rep_call", None)
        if rep is not None and rep.passed:
            _check_after_test(lab)
        assert lab.daemon is not None
        if not lab.daemon.running():
            rc = lab.daemon.proc.returncode if lab.daemon.proc else None
            pytest.fail(f"daemon died during the test (exit {rc})\n{lab.daemon.logs()}")
        lab.stop_daemon()
        problem = lab.daemon.shutdown_problem()
        if problem:
            pytest.fail(f"{problem}\n{lab.daemon.logs()}")
    except BaseException:
        lab.keep_on_failure()
        raise
    finally:
        lab.close()


def _check_after_test(lab: RouterLab) -> None:
    assert lab.daemon is not None
    if not lab.daemon.running():
        return  # reported by the fixture
    baseline = lab.mempool_baseline
    assert baseline is not None
    lab.flush_tx_residue()
    in_use = lab.settle_mempool(baseline + MEMPOOL_SLACK, timeout=MEMPOOL_SETTLE_S)
    if in_use > baseline + MEMPOOL_SLACK:
        lab.keep_on_failure()
        pytest.fail(
            f"mbuf leak: mempool in_use {in_use} > baseline {baseline} (+{MEMPOOL_SLACK}) "
            f"after {MEMPOOL_SETTLE_S:g}s to settle; show mempool: {lab.mempool()}"
        )

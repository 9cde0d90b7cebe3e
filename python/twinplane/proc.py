# SPDX-License-Identifier: BSD-3-Clause
"""One wrapper for every process the lab and the benchmarks start: daemons, tools, DPDK apps."""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Protocol, Self

from twinplane.closing import Closing

# What ``logs`` shows besides stdout/stderr: (title, path) pairs, or a function giving them
# (ACME's log files only exist once it runs).
SideLogs = Sequence[tuple[str, Path]] | Callable[[], Iterable[tuple[str, Path]]]


class ProcessError(RuntimeError):
    """A process did not start, died, or did not become ready in time."""


class _Named(Protocol):
    """A network namespace: anything with a ``name`` (``twinplane.lab.netns.Netns``)."""

    @property
    def name(self) -> str: ...


def tail(path: Path | str, lines: int = 60) -> str:
    """The last ``lines`` lines of a text file ('' if it does not exist)."""
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except FileNotFoundError:
        return ""


def remove_dpdk_runtime(prefix: str) -> None:
    """Remove what a DPDK process leaves under its EAL file prefix: the runtime
    directory /var/run/dpdk/PREFIX and its hugepage files (PREFIXmap_N) on every
    hugetlbfs mount."""
    shutil.rmtree(f"/var/run/dpdk/{prefix}", ignore_errors=True)
    try:
        with open("/proc/mounts") as f:
            mounts = [ln.split()[1] for ln in f if ln.split()[2:3] == ["hugetlbfs"]]
    except OSError:
        return
    for mnt in mounts:
        with contextlib.suppress(OSError):
            for entry in os.scandir(mnt):
                if entry.name.startswith(f"{prefix}map_"):
                    os.unlink(entry.path)


def signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


class Process(Closing):
    """One child process, from start to a checked stop.

    It runs ``[ip netns exec NETNS] [taskset -c CPUS] ARGV`` in a session of its
    own: a Ctrl-C at the terminal reaches only this Python process, whose
    teardown then stops the child with its own stop signal. ``ip netns exec``
    and ``taskset`` exec what follows, so ``pid`` is the program's own and
    signals reach it directly. Its stdout and stderr go to ``log``.

    ``stop`` sends ``stop_signal`` (to the process group with ``kill_group``),
    waits ``stop_timeout`` seconds, then sends SIGKILL and records that in
    ``killed``; then it runs ``cleanup`` (e.g. ``remove_dpdk_runtime``).
    ``shutdown_problem`` says afterwards whether that went cleanly. Errors are
    raised as ``error`` (the caller's own exception class), their message
    carrying the command line and the tail of the logs.

    ``with Process(...) as p:`` starts it (unless started) and always stops it.
    """

    def __init__(
        self,
        argv: Sequence[str | os.PathLike[str]],
        log: Path | str,
        *,
        label: str | None = None,
        netns: str | _Named | None = None,
        cpus: str | int | None = None,
        cwd: Path | str | None = None,
        env: Mapping[str, str] | None = None,
        append_log: bool = False,
        stop_signal: int = signal.SIGTERM,
        stop_timeout: float = 5.0,
        kill_group: bool = False,
        side_logs: SideLogs = (),
        cleanup: Callable[[], object] | None = None,
        error: type[Exception] = ProcessError,
    ) -> None:
        self.argv = [str(a) for a in argv]
        self.log = Path(log)
        self.label = label or Path(self.argv[0]).name
        self.netns = netns if netns is None or isinstance(netns, str) else netns.name
        self.cpus = None if cpus is None else str(cpus)
        self.cwd = cwd
        self.env = dict(env) if env is not None else None
        self.append_log = append_log
        self.stop_signal = stop_signal
        self.stop_timeout = stop_timeout
        self.kill_group = kill_group
        self.side_logs = side_logs
        self.cleanup = cleanup
        self.error = error
        self.proc: subprocess.Popen[bytes] | None = None
        self.returncode: int | None = None  # set by stop()
        self.stopped_with: int | None = None  # the signal stop() sent, None if it had exited
        self.killed = False  # stop() had to SIGKILL it

    # --- command line ------------------------------------------------------

    @property
    def full_argv(self) -> list[str]:
        """What is executed: ``argv`` behind the namespace and CPU prefixes."""
        argv = list(self.argv)
        if self.cpus is not None:
            argv = ["taskset", "-c", self.cpus, *argv]
        if self.netns is not None:
            argv = ["ip", "netns", "exec", self.netns, *argv]
        return argv

    @property
    def command_line(self) -> str:
        return shlex.join(self.full_argv)

    def __repr__(self) -> str:
        return f"<Process {self.label} pid {self.proc.pid if self.proc else '-'} {self.state()}>"

    # --- life --------------------------------------------------------------

    def start(self) -> Self:
        """Start it; also again after a stop (a fresh run with the same command)."""
        if self.running():
            raise self.error(f"{self.label}: already running (pid {self.pid})")
        self.returncode = self.stopped_with = None
        self.killed = False
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab" if self.append_log else "wb") as out:
            try:
                self.proc = subprocess.Popen(
                    self.full_argv,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    cwd=self.cwd,
                    env=self.env,
                    start_new_session=True,
                )
            except OSError as e:
                raise self.error(f"{self.label}: cannot run {self.command_line}: {e}") from e
        return self

    @property
    def pid(self) -> int:
        if self.proc is None:
            raise self.error(f"{self.label}: not started")
        return self.proc.pid

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def send_signal(self, sig: int) -> None:
        """Signal the process (its group with ``kill_group``); nothing if it has exited."""
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            if self.kill_group:
                os.killpg(self.proc.pid, sig)
            else:
                self.proc.send_signal(sig)

    def wait(self, timeout: float | None = None) -> int:
        """Wait for it to exit by itself; its exit status. ``error`` after ``timeout``."""
        if self.proc is None:
            raise self.error(f"{self.label}: not started")
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise self.fail(f"still running after {timeout:g}s") from None

    def wait_ready(
        self,
        ready: Callable[[], object],
        timeout: float,
        what: str = "ready",
        retry_on: tuple[type[BaseException], ...] = (),
        interval: float = 0.1,
    ) -> None:
        """Poll ``ready()`` until it returns something true, while the process runs.

        An exception of ``retry_on`` from ``ready`` counts as not ready yet (the
        last one is quoted in the error). Raises ``error`` if the process exits
        meanwhile or ``timeout`` seconds pass."""
        deadline = time.monotonic() + timeout
        last: BaseException | None = None
        while True:
            if not self.running():
                raise self.fail(f"exited before it was {what}")
            try:
                if ready():
                    return
            except retry_on as e:
                last = e
            if time.monotonic() >= deadline:
                why = f" (last: {last})" if last is not None else ""
                raise self.fail(f"not {what} after {timeout:g}s{why}")
            time.sleep(interval)

    def stop(self, *, sig: int | None = None, timeout: float | None = None) -> int | None:
        """Send ``sig`` (default ``stop_signal``), wait ``timeout`` s (default
        ``stop_timeout``), then SIGKILL; run ``cleanup``. The exit status; None
        if it never started. Idempotent."""
        if self.proc is None:
            return None
        sig = self.stop_signal if sig is None else sig
        timeout = self.stop_timeout if timeout is None else timeout
        if self.proc.poll() is None:
            self.stopped_with = sig
            self.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.killed = True
                self.send_signal(signal.SIGKILL)
                self.proc.wait(5.0)
        self.returncode = self.proc.returncode
        if self.cleanup is not None:
            self.cleanup()
        return self.returncode

    def _enter(self) -> None:
        if self.proc is None:
            self.start()

    def close(self) -> None:
        self.stop()

    # --- after the fact ----------------------------------------------------

    def shutdown_problem(self) -> str | None:
        """After ``stop``: why the shutdown was not clean, or None.

        Clean is an exit status of 0, or death by the stop signal itself."""
        if self.killed:
            return f"{self.label} ignored {signal_name(self.stopped_with or 0)} and was killed"
        rc = self.returncode
        if rc is None or rc == 0:
            return None
        if self.stopped_with is None:
            return f"{self.label} had exited by itself: {self.state()}"
        if rc == -self.stopped_with:
            return None
        if rc < 0:
            return f"{self.label} died of {signal_name(-rc)} while stopping"
        return f"{self.label} exited with status {rc} on {signal_name(self.stopped_with)}"

    def state(self) -> str:
        """'not started', 'running', 'exited with N' or 'died of SIGNAME'."""
        if self.proc is None:
            return "not started"
        rc = self.proc.poll()
        if rc is None:
            return "running"
        return f"died of {signal_name(-rc)}" if rc < 0 else f"exited with {rc}"

    def logs(self, lines: int = 60) -> str:
        """Tail of its side logs and of its stdout/stderr."""
        side = self.side_logs() if callable(self.side_logs) else self.side_logs
        parts = []
        for title, path in [*side, ("stdout/stderr", self.log)]:
            text = tail(path, lines)
            if text:
                parts.append(f"--- {self.label} {title} ({path}) ---\n{text}")
        return "\n".join(parts) or f"({self.label} wrote no output)"

    def fail(self, what: str, lines: int = 40) -> Exception:
        """An ``error`` saying ``what``, with its state, command line and logs."""
        return self.error(
            f"{self.label}: {what} ({self.state()}); command:\n "
            f" {self.command_line}\n{self.logs(lines)}"
        )

# SPDX-License-Identifier: BSD-3-Clause
"""The Lab: owns namespaces, processes and files, and always tears them down."""

from __future__ import annotations

import atexit
import contextlib
import os
import secrets
import shutil
import signal
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

from twinplane.lab.netns import Cmd, Netns, reap_stale

T = TypeVar("T")


class LabError(RuntimeError):
    """Building the lab failed, or tearing it down left something behind."""


class Lab:
    """A set of namespaces and whatever runs in them, torn down as one.

    Everything the lab creates registers an undo step with ``defer``;
    ``close`` runs them in reverse order, continues past failures and only
    then reports them. Names carry ``tpl<pid>-<random>`` so two labs never
    collide, and ``reap_stale`` (run on construction) removes namespaces of
    lab processes that were killed before they could clean up.
    """

    def __init__(self, keep: bool | None = None) -> None:
        reap_stale()
        self.tag = f"tpl{os.getpid()}-{secrets.token_hex(2)}"
        self.workdir = Path(
            tempfile.mkdtemp(prefix=f"{self.tag}-", dir=os.environ.get("TP_LAB_DIR", "/tmp"))
        )
        self.keep = os.environ.get("TP_LAB_KEEP") == "1" if keep is None else keep
        self._keep_given = keep is not None
        self.ns: dict[str, Netns] = {}
        self._undo: list[tuple[str, Callable[[], object]]] = []
        self.closed = False
        atexit.register(self._atexit)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is not None:
            self.keep_on_failure()
        self.close()

    def keep_on_failure(self) -> None:
        """Keep the work directory (logs) because something failed.

        Unless ``keep`` was given explicitly, or TP_LAB_KEEP_ON_FAIL=0.
        """
        if not self._keep_given and os.environ.get("TP_LAB_KEEP_ON_FAIL", "1") == "1":
            self.keep = True

    def defer(self, what: str, fn: Callable[[], object]) -> None:
        """Register an undo step; ``close`` runs them last-in, first-out."""
        self._undo.append((what, fn))

    def add_ns(self, role: str) -> Netns:
        """Create the namespace for ``role`` (``h1``, ``r``...) and track it."""
        if role in self.ns:
            raise LabError(f"namespace role {role!r} exists")
        ns = Netns(f"{self.tag}-{role}")
        self.defer(f"delete netns {ns.name}", ns.delete)
        ns.create()
        self.ns[role] = ns
        return ns

    def netns(self, ns: str | Netns) -> Netns:
        """The Netns for a role name, a full namespace name or a Netns."""
        if isinstance(ns, Netns):
            return ns
        if ns in self.ns:
            return self.ns[ns]
        for n in self.ns.values():
            if n.name == ns:
                return n
        raise KeyError(f"no lab namespace {ns!r} (roles: {', '.join(self.ns)})")

    def run(self, ns: str | Netns, cmd: Cmd, check: bool = True, timeout: float = 30.0) -> str:
        """Run ``cmd`` in a lab namespace and return its stdout."""
        return self.netns(ns).run(cmd, check=check, timeout=timeout).stdout

    @staticmethod
    def wait_until(
        fn: Callable[[], T],
        timeout: float = 5.0,
        interval: float = 0.05,
        what: str = "condition",
    ) -> T:
        """Poll ``fn`` until it returns something truthy; return that, or raise TimeoutError."""
        deadline = time.monotonic() + timeout
        while True:
            value = fn()
            if value:
                return value
            if time.monotonic() >= deadline:
                raise TimeoutError(f"{what} not reached within {timeout:g}s")
            time.sleep(interval)

    def close(self) -> None:
        """Tear everything down (idempotent); raise LabError listing failed steps."""
        if self.closed:
            return
        self.closed = True
        errors: list[str] = []
        restore: dict[signal.Signals, Any] = {}
        if threading.current_thread() is threading.main_thread():
            # A second Ctrl-C or SIGTERM must not cut the teardown short; it
            # is bounded anyway (every process gets SIGKILL after a timeout).
            for sig in (signal.SIGINT, signal.SIGTERM):
                restore[sig] = signal.signal(sig, signal.SIG_IGN)
        try:
            while self._undo:
                what, fn = self._undo.pop()
                try:
                    fn()
                except Exception as e:  # noqa: BLE001 - finish teardown, report all
                    errors.append(f"{what}: {e!r}\n{traceback.format_exc(limit=3)}")
            if not self.keep:
                shutil.rmtree(self.workdir, ignore_errors=True)
        finally:
            for sig, handler in restore.items():
                signal.signal(sig, handler)
            atexit.unregister(self._atexit)
        if errors:
            raise LabError("lab teardown had errors:\n" + "\n".join(errors))

    def _atexit(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

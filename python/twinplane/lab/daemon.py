# SPDX-License-Identifier: BSD-3-Clause
"""Start, watch and stop one twinplane daemon inside a lab namespace."""

from __future__ import annotations

import functools
import os
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import Self

from twinplane.api import ApiError, Client
from twinplane.lab.netns import Netns
from twinplane.proc import Process, ProcessError, remove_dpdk_runtime

REPO_ROOT = Path(__file__).resolve().parents[3]


class DaemonError(ProcessError):
    """The daemon did not start, died, or did not answer its API."""


def build_dir() -> Path:
    """The meson build directory: $TP_BUILD_DIR, else <repo>/build."""
    return Path(os.environ.get("TP_BUILD_DIR", REPO_ROOT / "build"))


def daemon_binary() -> Path:
    """Path of the daemon: $TP_DAEMON, else <build>/src/twinplane."""
    return Path(os.environ.get("TP_DAEMON", build_dir() / "src" / "twinplane"))


def twinctl_binary() -> Path:
    """Path of the CLI: $TP_TWINCTL, else <build>/src/twinctl."""
    return Path(os.environ.get("TP_TWINCTL", build_dir() / "src" / "twinctl"))


class Daemon(Process):
    """One ``twinplane`` process run with ``ip netns exec`` in a namespace.

    Its stdout/stderr (EAL messages) go to ``<workdir>/<name>.out``, its own
    log to ``<workdir>/<name>.log``. ``name`` is also its EAL file prefix:
    ``stop`` (SIGTERM, SIGKILL after a timeout) removes its runtime files.
    """

    def __init__(
        self,
        ns: Netns,
        name: str,
        workdir: Path,
        config: str,
        lcores: str = "0,1",
        binary: Path | None = None,
        extra_args: Sequence[str] = (),
    ) -> None:
        self.ns = ns
        self.name = name
        self.workdir = workdir
        self.binary = binary or daemon_binary()
        self.socket = str(workdir / f"{name}.sock")
        self.config_path = workdir / f"{name}.conf"
        self.log_path = workdir / f"{name}.log"
        self.out_path = workdir / f"{name}.out"
        self.lcores = lcores
        self.extra_args = list(extra_args)
        self.config = config
        self._client: Client | None = None
        argv = [
            str(self.binary),
            "--name", self.name,
            "--socket", self.socket,
            "--config", str(self.config_path),
            "--lcores", self.lcores,
            "--log-file", str(self.log_path),
            *self.extra_args,
        ]  # fmt: skip
        super().__init__(
            argv,
            self.out_path,
            label="daemon",
            netns=ns,
            stop_signal=signal.SIGTERM,
            stop_timeout=20.0,  # a stalled host: a clean exit took more than 5 s once
            side_logs=[("log", self.log_path)],
            cleanup=functools.partial(remove_dpdk_runtime, name),
            error=DaemonError,
        )

    @property
    def client(self) -> Client:
        if self._client is None:
            self._client = Client(self.socket, timeout=10.0)
        return self._client

    def start(self, timeout: float = 60.0) -> Self:
        """Write the config, start the daemon and wait until its API answers."""
        if not self.binary.exists():
            raise DaemonError(f"daemon binary {self.binary} not found (build it, or set TP_DAEMON)")
        self.config_path.write_text(self.config)
        super().start()
        self.wait_ready(
            self._api_answers, timeout, "answering its API", retry_on=(OSError, ApiError)
        )
        return self

    def _api_answers(self) -> bool:
        if not os.path.exists(self.socket):
            return False
        try:
            self.client.cmd("version", json=False, timeout=2.0)
        except (OSError, ApiError):
            self.client.close()
            raise
        return True

    def stop(self, *, sig: int | None = None, timeout: float | None = None) -> int | None:
        """Close the API connection, then ``Process.stop``."""
        if self._client is not None:
            self._client.close()
        return super().stop(sig=sig, timeout=timeout)

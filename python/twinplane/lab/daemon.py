"""Start, watch and stop one twinplane daemon inside a lab namespace."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from twinplane.api import ApiError, Client
from twinplane.lab.netns import Netns

REPO_ROOT = Path(__file__).resolve().parents[3]


class DaemonError(RuntimeError):
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


def tail(path: Path | str, lines: int = 60) -> str:
    """The last ``lines`` lines of a text file ('' if it does not exist)."""
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except FileNotFoundError:
        return ""


class Daemon:
    """One ``twinplane`` process run with ``ip netns exec`` in a namespace.

    ``ip netns exec`` execs the daemon, so the Popen pid is the daemon's and
    signals reach it directly. Its stdout/stderr (EAL messages) go to
    ``<workdir>/<name>.out``, its own log to ``<workdir>/<name>.log``.
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
        self.proc: subprocess.Popen[bytes] | None = None
        self.returncode: int | None = None
        self.died_early = False
        self.killed = False
        self._client: Client | None = None

    @property
    def argv(self) -> list[str]:
        return [
            str(self.binary),
            "--name", self.name,
            "--socket", self.socket,
            "--config", str(self.config_path),
            "--lcores", self.lcores,
            "--log-file", str(self.log_path),
            *self.extra_args,
        ]  # fmt: skip

    @property
    def client(self) -> Client:
        if self._client is None:
            self._client = Client(self.socket, timeout=10.0)
        return self._client

    def start(self, timeout: float = 60.0) -> None:
        """Write the config, start the daemon and wait until its API answers."""
        if not self.binary.exists():
            raise DaemonError(
                f"daemon binary {self.binary} not found (build it, or set TP_DAEMON)"
            )
        self.config_path.write_text(self.config)
        with open(self.out_path, "wb") as out:
            self.proc = self.ns.popen(
                self.argv,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        self.wait_ready(timeout)

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        last: Exception | None = None
        while time.monotonic() < deadline:
            if not self.running():
                self.died_early = True
                raise DaemonError(
                    f"daemon exited with {self.proc and self.proc.returncode} during start-up\n{self.logs()}"
                )
            if os.path.exists(self.socket):
                try:
                    self.client.cmd("version", json=False, timeout=2.0)
                    return
                except (OSError, ApiError) as e:
                    last = e
                    self.client.close()
            time.sleep(0.1)
        raise DaemonError(
            f"daemon API not ready after {timeout:.0f}s ({last})\n{self.logs()}"
        )

    def stop(self, timeout: float = 5.0) -> int | None:
        """SIGTERM, wait ``timeout`` s, then SIGKILL; return the exit status."""
        if self._client is not None:
            self._client.close()
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.killed = True
                with contextlib.suppress(ProcessLookupError):
                    self.proc.kill()
                self.proc.wait(5.0)
        self.returncode = self.proc.returncode
        self._remove_runtime_files()
        return self.returncode

    def _remove_runtime_files(self) -> None:
        """Remove EAL runtime files and hugepage files left under our unique name."""
        shutil.rmtree(f"/var/run/dpdk/{self.name}", ignore_errors=True)
        with open("/proc/mounts") as f:
            mounts = [line.split()[1] for line in f if line.split()[2] == "hugetlbfs"]
        for mnt in mounts:
            with contextlib.suppress(OSError):
                for entry in os.scandir(mnt):
                    if entry.name.startswith(f"{self.name}map_"):
                        os.unlink(entry.path)

    def shutdown_problem(self) -> str | None:
        """After ``stop``: why the shutdown was not clean, or None."""
        if self.killed:
            return "daemon ignored SIGTERM and was killed"
        rc = self.returncode
        if rc is None or rc == 0 or rc == -signal.SIGTERM:
            return None
        if rc < 0:
            return f"daemon died of signal {signal.Signals(-rc).name} while stopping"
        return f"daemon exited with status {rc} on SIGTERM"

    def logs(self, lines: int = 60) -> str:
        """Tail of the daemon's log file and of its stdout/stderr."""
        parts = []
        for label, path in (("log", self.log_path), ("stdout/stderr", self.out_path)):
            text = tail(path, lines)
            if text:
                parts.append(f"--- daemon {label} ({path}) ---\n{text}")
        return "\n".join(parts) or "(daemon wrote no output)"

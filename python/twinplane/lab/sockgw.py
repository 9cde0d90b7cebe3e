"""twinplane-sockgw, the IoT gateway on kernel sockets (seed 000's baseline), as a process.

Used by the integration tests and by bench/iotgw.py: started in a namespace,
stopped with SIGTERM, counters read through SIGUSR1 (the gateway writes them,
in the daemon's names, to its --stats file)."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from twinplane.closing import stop_process
from twinplane.lab.daemon import build_dir, tail
from twinplane.lab.netns import Netns


def sockgw_binary() -> Path:
    return build_dir() / "src" / "twinplane-sockgw"


class SockGw:
    def __init__(self, ns: Netns, workdir: Path, *args: str, cpu: int | None = None) -> None:
        self.stats = workdir / "sockgw-stats.json"
        self.log = workdir / "sockgw.log"
        self.argv = (["taskset", "-c", str(cpu)] if cpu is not None else []) + [
            str(sockgw_binary()), "--stats", str(self.stats), *args]  # fmt: skip
        with open(self.log, "wb") as out:
            self.proc = ns.popen(self.argv, stdout=out, stderr=subprocess.STDOUT)
        time.sleep(0.3)
        if self.proc.poll() is not None:
            raise RuntimeError(f"twinplane-sockgw exited: {tail(self.log)}")

    @property
    def command_line(self) -> str:
        return shlex.join(self.argv)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def counters(self, timeout: float = 5.0) -> dict[str, Any]:
        """Ask for the counters (SIGUSR1) and read them once the file is rewritten."""
        before = self.stats.stat().st_mtime_ns if self.stats.exists() else 0
        self.proc.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.stats.exists() and self.stats.stat().st_mtime_ns != before:
                out: dict[str, Any] = json.loads(self.stats.read_text())
                return out
            time.sleep(0.02)
        raise RuntimeError(f"twinplane-sockgw wrote no counters: {tail(self.log)}")

    def stop(self) -> int | None:
        stop_process(self.proc, signal.SIGTERM, 5)
        return self.proc.returncode

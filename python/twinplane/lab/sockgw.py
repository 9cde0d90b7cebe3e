# SPDX-License-Identifier: BSD-3-Clause
"""twinplane-sockgw, the IoT gateway on kernel sockets (seed 000's baseline), as a process.

Used by the integration tests and by bench/iotgw.py: started in a namespace,
stopped with SIGTERM, counters read through SIGUSR1 (the gateway writes them,
in the daemon's names, to its --stats file)."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

from twinplane.lab.daemon import build_dir
from twinplane.lab.netns import Netns
from twinplane.proc import Process


def sockgw_binary() -> Path:
    return build_dir() / "src" / "twinplane-sockgw"


class SockGw(Process):
    """Started by the constructor, in ``ns``, pinned to ``cpu`` if given."""

    def __init__(self, ns: Netns, workdir: Path, *args: str, cpu: int | None = None) -> None:
        self.stats = workdir / "sockgw-stats.json"
        argv = [str(sockgw_binary()), "--stats", str(self.stats), *args]
        super().__init__(argv, workdir / "sockgw.log", netns=ns, cpus=cpu, error=RuntimeError)
        self.start()
        time.sleep(0.3)
        if not self.running():
            raise self.fail("exited at start-up")

    def counters(self, timeout: float = 5.0) -> dict[str, Any]:
        """Ask for the counters (SIGUSR1) and read them once the file is rewritten."""
        before = self.stats.stat().st_mtime_ns if self.stats.exists() else 0
        self.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.stats.exists() and self.stats.stat().st_mtime_ns != before:
                out: dict[str, Any] = json.loads(self.stats.read_text())
                return out
            time.sleep(0.02)
        raise self.fail("wrote no counters")

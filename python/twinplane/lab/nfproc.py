# SPDX-License-Identifier: BSD-3-Clause
"""``twinplane-nf``, the sample network function of service chains (docs/NF.md), as a process.

Two ports given as devargs (memif clients, virtio_user, pcap...), forwarding
port 0 <-> port 1; its counters come from the JSON file it rewrites every
100 ms and at exit::

    nf = NfProcess("nf1", workdir, memif0_devargs, memif1_devargs, swap_mac=True)
    with nf:  # started, then always stopped
        ...
        nf.stats()["ports"][0]["rx"]
"""

from __future__ import annotations

import functools
import json
import os
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Self

from twinplane.lab.daemon import build_dir
from twinplane.proc import Process, ProcessError, remove_dpdk_runtime


class NfError(ProcessError):
    """The NF did not start, died, or wrote no counters."""


def nf_binary() -> Path:
    """Path of the NF: $TP_NF, else <build>/src/twinplane-nf."""
    return Path(os.environ.get("TP_NF", build_dir() / "src" / "twinplane-nf"))


class NfProcess(Process):
    """One ``twinplane-nf`` process, named ``name`` (also its EAL file prefix).

    Its output goes to ``<workdir>/<name>.out``, its counters to
    ``<workdir>/<name>.json``. ``stop`` sends SIGTERM (SIGKILL after 10 s): the NF
    writes its final counters and exits 0; its EAL runtime files are removed then.
    ``cpu`` pins it with taskset; ``lcores`` is its EAL lcore list, by default
    lcore 0 on ``cpu`` (EAL pins its threads itself: a bare ``--lcores 0`` would move
    it to CPU 0 whatever taskset said)."""

    def __init__(
        self,
        name: str,
        workdir: Path,
        port0: str,
        port1: str,
        *,
        netns: str | None = None,
        swap_mac: bool = False,
        cycles: int = 0,
        backoff: bool = True,
        lcores: str | None = None,
        no_huge: bool = False,
        cpu: int | str | None = None,
        burst: int | None = None,
        binary: Path | None = None,
        extra_args: Sequence[str] = (),
    ) -> None:
        self.name = name
        self.workdir = Path(workdir)
        self.binary = Path(binary) if binary else nf_binary()
        self.stats_path = self.workdir / f"{name}.json"
        self.out_path = self.workdir / f"{name}.out"
        if lcores is None:
            lcores = f"0@({cpu})" if cpu is not None else "0"
        argv = [
            str(self.binary),
            "--name", name,
            "--lcores", lcores,
            "--port0", port0,
            "--port1", port1,
            "--stats", str(self.stats_path),
        ]  # fmt: skip
        if swap_mac:
            argv.append("--swap-mac")
        if cycles:
            argv += ["--cycles", str(cycles)]
        if backoff:
            argv.append("--backoff")
        if no_huge:
            argv.append("--no-huge")
        if burst:
            argv += ["--burst", str(burst)]
        argv += list(extra_args)
        super().__init__(
            argv,
            self.out_path,
            label=f"twinplane-nf {name}",
            netns=netns,
            cpus=cpu,
            stop_signal=signal.SIGTERM,
            stop_timeout=10.0,
            cleanup=functools.partial(remove_dpdk_runtime, name),
            error=NfError,
        )

    @property
    def ready_line(self) -> str:
        return f"twinplane-nf {self.name}: port0 "

    def start(self, timeout: float = 30.0) -> Self:
        """Start it and wait for its ready line (both ports started)."""
        if not self.binary.exists():
            raise NfError(f"NF binary {self.binary} not found (build it, or set TP_NF)")
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.stats_path.unlink(missing_ok=True)
        super().start()
        self.wait_ready(self._ready, timeout, "ready (its ready line)")
        return self

    def _ready(self) -> bool:
        try:
            text = self.out_path.read_text(errors="replace")
        except FileNotFoundError:
            return False
        return any(
            ln.startswith(self.ready_line) and ln.endswith(" ready") for ln in text.splitlines()
        )

    def stats(self) -> dict[str, Any]:
        """The counters as last written (every 100 ms; the final ones after ``stop``):
        ``ports`` [{name, link, rx, tx, tx_drop, rx_bytes}, two], ``polls``,
        ``idle_polls``, ``busy_cycles``, ``tsc_hz``, ``final``. The file is replaced
        by a rename, so a read never sees half of it."""
        try:
            out: dict[str, Any] = json.loads(self.stats_path.read_text())
        except (OSError, ValueError) as e:
            raise self.fail(f"no counters in {self.stats_path}: {e}") from e
        return out

# SPDX-License-Identifier: BSD-3-Clause
"""Client of DPDK's telemetry socket (v2), for reading a running DPDK app.

Every DPDK primary process (EAL telemetry enabled, the default) listens on
``/var/run/dpdk/<file-prefix>/dpdk_telemetry.v2``, a SOCK_SEQPACKET unix
socket. On connect it sends one JSON greeting (``version``, ``pid``,
``max_output_len``); each request is a command string such as
``/ethdev/stats,0`` and each reply one JSON object keyed by the command
(``{"/ethdev/stats": {"ipackets": ..., ...}}``).

Example::

    with Telemetry.for_prefix("l3fwdbench") as t:
        t.ports()                 # [0, 1]
        t.port_stats(0)           # {"ipackets": ..., "opackets": ..., ...}
        t.command("/eal/params")

Also a small CLI: ``python -m twinplane.bench.telemetry PREFIX [CMD ...]``.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from typing import Any

from twinplane.closing import Closing

RUNTIME_DIR = os.environ.get("DPDK_RUNTIME_DIR", "/var/run/dpdk")
SOCKET_NAME = "dpdk_telemetry.v2"


class TelemetryError(Exception):
    """The socket is missing, refused us, or answered something unexpected."""


def socket_path(prefix: str, runtime_dir: str = RUNTIME_DIR) -> str:
    """Telemetry socket path of the DPDK process with EAL file prefix ``prefix``."""
    return os.path.join(runtime_dir, prefix, SOCKET_NAME)


class Telemetry(Closing):
    """One connection to a DPDK telemetry v2 socket."""

    def __init__(self, path: str, timeout: float = 5.0) -> None:
        self.path = path
        self.timeout = timeout
        self.info: dict[str, Any] = {}
        self.max_output_len = 16384
        self._sock: socket.socket | None = None

    @classmethod
    def for_prefix(cls, prefix: str, timeout: float = 5.0) -> Telemetry:
        return cls(socket_path(prefix), timeout=timeout)

    def _enter(self) -> None:
        self.connect()

    def connect(self) -> None:
        if self._sock is not None:
            return
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self.path)
            greeting = sock.recv(65536)
        except OSError as e:
            sock.close()
            raise TelemetryError(f"{self.path}: {e}") from e
        if not greeting:
            sock.close()
            raise TelemetryError(f"{self.path}: closed before the greeting (too many clients?)")
        try:
            self.info = json.loads(greeting.decode())
        except ValueError as e:
            sock.close()
            raise TelemetryError(f"{self.path}: bad greeting {greeting[:80]!r}") from e
        self.max_output_len = int(self.info.get("max_output_len", self.max_output_len))
        self._sock = sock

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def command(self, cmd: str) -> Any:
        """Send one command; return the value under the command's key."""
        self.connect()
        assert self._sock is not None
        try:
            self._sock.send(cmd.encode())
            raw = self._sock.recv(max(self.max_output_len, 65536))
        except OSError as e:
            self.close()
            raise TelemetryError(f"{self.path}: {cmd}: {e}") from e
        if not raw:
            self.close()
            raise TelemetryError(f"{self.path}: {cmd}: connection closed")
        try:
            reply = json.loads(raw.decode())
        except ValueError as e:
            raise TelemetryError(f"{self.path}: {cmd}: bad reply {raw[:80]!r}") from e
        key = cmd.split(",", 1)[0]
        if not isinstance(reply, dict) or key not in reply:
            raise TelemetryError(f"{self.path}: {cmd}: unexpected reply {reply!r}")
        return reply[key]

    # Convenience wrappers -------------------------------------------------

    def ports(self) -> list[int]:
        return list(self.command("/ethdev/list") or [])

    def port_stats(self, port: int) -> dict[str, Any]:
        stats = self.command(f"/ethdev/stats,{port}")
        if not isinstance(stats, dict):
            raise TelemetryError(f"/ethdev/stats,{port}: no such port? ({stats!r})")
        return stats

    def port_info(self, port: int) -> dict[str, Any]:
        return self.command(f"/ethdev/info,{port}")

    def sample(self, ports: list[int]) -> tuple[float, dict[int, dict[str, Any]]]:
        """Read the stats of ``ports``; return (monotonic time, {port: stats}).

        The time is the midpoint of the requests, so rates computed from two
        samples are not biased by the socket round trips.
        """
        t0 = time.monotonic()
        out = {p: self.port_stats(p) for p in ports}
        t1 = time.monotonic()
        return (t0 + t1) / 2.0, out


def wait_for_socket(prefix: str, timeout: float = 30.0, alive: Any = None) -> Telemetry:
    """Wait until the process with file prefix ``prefix`` answers telemetry.

    ``alive`` is an optional callable returning False once the process died,
    to stop waiting early.
    """
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        if alive is not None and not alive():
            raise TelemetryError(f"process with file prefix {prefix!r} exited")
        t = Telemetry.for_prefix(prefix)
        try:
            t.connect()
            return t
        except TelemetryError as e:
            last = e
            time.sleep(0.1)
    raise TelemetryError(f"telemetry of {prefix!r} not up after {timeout:.0f}s: {last}")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print(
            "usage: python -m twinplane.bench.telemetry PREFIX [COMMAND ...]",
            file=sys.stderr,
        )
        return 2
    prefix, cmds = argv[0], argv[1:] or ["/"]
    with Telemetry.for_prefix(prefix) as t:
        for c in cmds:
            print(json.dumps({c: t.command(c)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Context-manager plumbing shared by the project's resources (sockets, sniffers, clients)."""

from __future__ import annotations

import contextlib
import signal
import subprocess
from types import TracebackType
from typing import Self


def stop_process(
    proc: subprocess.Popen[bytes] | None, sig: int = signal.SIGTERM, timeout: float = 5.0
) -> int | None:
    """Send ``sig``, wait ``timeout`` s, then SIGKILL; the exit status (None: no process)."""
    if proc is None:
        return None
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            proc.wait(5.0)
    return proc.returncode


class Closing:
    """``with obj:`` runs ``_enter()`` (nothing by default) and always ``close()``."""

    def _enter(self) -> None:
        """Acquire on entry; subclasses that open lazily need nothing here."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self._enter()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

# SPDX-License-Identifier: BSD-3-Clause
"""Context-manager plumbing shared by the project's resources (sockets, sniffers, processes)."""

from __future__ import annotations

from types import TracebackType
from typing import Self


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

# SPDX-License-Identifier: BSD-3-Clause
"""twinplane: Python tools around the twinplane daemon (API client, lab)."""

from twinplane.api import ApiError, Client

__all__ = ["ApiError", "Client"]

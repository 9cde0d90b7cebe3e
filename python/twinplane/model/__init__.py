# SPDX-License-Identifier: BSD-3-Clause
"""The performance model of seed 002 (issue 11): calibration from the forwarder's
per-stage telemetry, a compiled pipeline simulator, statistical model checking and
capacity planning. ``python -m twinplane.model --help``."""

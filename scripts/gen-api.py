#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Regenerate docs/API.md's command reference from the daemon's `help --json`.

Run as root after a build (it starts a daemon without ports in a namespace of its
own, as the tests do): `sudo .venv/bin/python scripts/gen-api.py [--check]`.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from twinplane.apidoc import main

sys.exit(main())

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The demo: set-up (idempotent), then two hosts routed through twinplane on
# virtual ports: ping, a short UDP stream, and the counters that prove the data
# plane did the forwarding. Everything is torn down at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh >/dev/null
PYTHONPATH=python exec .venv/bin/python -m twinplane.lab "$@"

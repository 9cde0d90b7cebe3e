# SPDX-License-Identifier: BSD-3-Clause
"""Benchmark helpers: input generation (pcapgen) and DPDK telemetry (telemetry).

The benchmark entry points live in bench/ at the top of the repository.
"""

import os
import sys
from pathlib import Path


def ensure_venv(root: Path) -> None:
    """Re-run the calling script under the project's venv if this interpreter lacks scapy or
    matplotlib."""
    try:
        import matplotlib  # noqa: F401
        import scapy  # noqa: F401
    except ImportError:
        venv_py = root / ".venv" / "bin" / "python"
        if venv_py.exists() and Path(sys.prefix).resolve() != venv_py.parent.parent.resolve():
            os.execv(str(venv_py), [str(venv_py), *sys.argv])

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""RFC 2544 IPv6 forwarding (RFC 5180): twinplane, DPDK's l3fwd and the Linux kernel.

bench/rfc2544_ip4.py's NDR pairs (its goal, MLRsearch, pairs, ceiling, tables and
merge) on IPv6 frames: the generator's ip6-udp to l3fwd's built-in LPM6 route,
every DUT routing 2001:200:0:1::/64 (python/twinplane/bench/rfc2544_ip6_bed.py).
Sizes: RFC 5180's 78 B (the generator's smallest IPv6 frame, its 12-byte
signature after the UDP header), 128, 256, 512, 1024, 1280, 1518. The NDR bar:
twinplane at least 95 % of l3fwd on memif at 78 B. The cost rounds are IPv4's (64 B): not run
here (--no-cost is the default).

Usage (root):
    .venv/bin/python bench/rfc2544_ip6.py --quick --sizes 78 --wires memif
    .venv/bin/python bench/rfc2544_ip6.py                       # every size, both wires
    .venv/bin/python bench/rfc2544_ip6.py --merge PART.json ...
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from twinplane.bench import ensure_venv

ensure_venv(ROOT)

from twinplane.bench import report
from twinplane.bench import rfc2544_ip6_bed as B6

_spec = importlib.util.spec_from_file_location("rfc2544_ip4", ROOT / "bench" / "rfc2544_ip4.py")
assert _spec is not None and _spec.loader is not None
R = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(R)

NAME = R.NAME = "rfc2544_ip6"
R.FRAME_SIZES = B6.FRAME_SIZES6
R.TESTBED = B6.Testbed6
R.BAR_SIZE = B6.FRAME_SIZES6[0]


def rules(*args: Any) -> dict[str, Any]:
    """rfc2544_ip4's rules and the IPv6 addressing, fixed before the run as those."""
    r: dict[str, Any] = _rules(*args)
    r["addressing"] = (
        f"ip6-udp {B6.GEN_IP6[0]} -> {B6.DST_RANGE6}, hop limit 64, valid UDP checksum; "
        f"every DUT routes {B6.DST_NET6} (l3fwd: its built-in LPM6 route to port 1)"
    )
    return r


_rules, R.rules = R.rules, rules


def build(ap: Any) -> None:
    R.build(ap)
    ap.set_defaults(no_cost=True)


if __name__ == "__main__":
    sys.exit(report.main(NAME, __doc__, build, R.measure, merge=R.merge))

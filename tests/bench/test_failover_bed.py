# SPDX-License-Identifier: BSD-3-Clause
"""The failover bed's figures: a flow's outage from a sequenced stream, and the headline's
median and spread."""

from __future__ import annotations

from twinplane.bench.failover_bed import summary
from twinplane.lab.routed import flow_outage_ms


def test_outage_is_the_worst_flow_not_the_total() -> None:
    # 8 flows at 1,000/s: a flow's period is 8 ms. Flow 3 loses 40 datagrams in a row
    # (320 ms), flow 5 loses 2; the others none: the outage is flow 3's, not 42 x 8 ms.
    sent = 8000
    lost = {3 + 8 * k for k in range(100, 140)} | {5 + 8 * 500, 5 + 8 * 501}
    received = set(range(sent)) - lost
    assert flow_outage_ms(sent, received, 8, 1000) == 320.0
    assert flow_outage_ms(sent, set(range(sent)), 8, 1000) == 0.0
    # one flow: every datagram lost is 1 ms
    assert flow_outage_ms(1000, set(range(0, 1000, 2)), 1, 1000) == 500.0


def test_summary_median_interval_spread() -> None:
    h = summary([300.0, 320.0, 310.0, 900.0, 305.0])
    assert h["value"] == 310.0 and h["n"] == 5 and h["unit"] == "ms"
    assert h["spread"]["min"] == 300.0 and h["spread"]["max"] == 900.0
    lo, hi = h["ci95"]
    assert 300.0 <= lo <= 310.0 <= hi <= 900.0
    assert summary([])["value"] is None
    one = summary([42.0])
    assert one["value"] == 42.0 and one["ci95"] == [42.0, 42.0]

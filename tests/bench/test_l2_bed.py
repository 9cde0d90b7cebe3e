# SPDX-License-Identifier: BSD-3-Clause
"""bench/l2.py's own rules: the generator's reach, the tie at the ceiling, a
pair's placement and the ABBA pairs with a failed side (no daemon)."""

from twinplane.bench import l2_bed as B


def _t(rate, offered_rate):
    return {"rate_pps": rate, "offered_rate_pps": offered_rate}


def test_gen_reach_is_the_highest_short_offer():
    trials = [_t(40e6, 21.0e6), _t(30e6, 22.5e6), _t(20e6, 19.9e6), _t(10e6, 10e6)]
    # 20e6 asked, 19.9e6 offered: within the 1 % slack, not short
    assert B.gen_reach(trials, 0.01) == 22.5e6
    assert B.gen_reach([_t(10e6, 10e6), _t(5e6, 4.96e6)], 0.01) is None


def test_at_ceiling_against_the_reach_or_the_wire():
    assert B.at_ceiling(20e6, 21e6, 40e6, 0.95) is True  # 95.2 % of the reach
    assert B.at_ceiling(19e6, 21e6, 40e6, 0.95) is False
    assert B.at_ceiling(19e6, None, 20e6, 0.95) is True  # the wire's maximum
    assert B.at_ceiling(5e6, None, 40e6, 0.95) is False


def test_pair_placement_needs_most_probes_to_agree():
    assert B.pair_placement([80, 90, 85, 70, 100]) == "near"
    assert B.pair_placement([80, 90, 400, 70, 100]) == "near"  # 4 of 5
    assert B.pair_placement([80, 90, 400, 450, None]) == "mixed"
    assert B.pair_placement([None, None]) == "unprobed"


def test_abba_pairs_keep_order_and_record_a_failed_side():
    calls = []

    def side(name, values):
        def run(i):
            calls.append((name, i))
            v = values[i]
            if v is None:
                raise RuntimeError("set-up failed")
            return {"value": v, "rtts": [80, 90], "at_ceiling": v > 100}

        return run

    seen = []
    pairs, failed = B.abba_pairs(
        4, side("A", [10, 10, 200, 10]), side("B", [12, None, 300, 14]), seen.append
    )
    assert [c[0] for c in calls] == list("ABBAABBA")
    assert [p.index for p in pairs] == [0, 2, 3]
    assert pairs[1].at_ceiling is True and pairs[0].at_ceiling is False
    assert pairs[0].placement == "near" and pairs[0].ratio() == 1.2
    assert len(failed) == 1 and failed[0]["index"] == 1
    assert failed[0]["B"]["error"] == "set-up failed" and failed[0]["A"]["value"] == 10
    assert len(seen) == 4  # every pair reported, the failed one too

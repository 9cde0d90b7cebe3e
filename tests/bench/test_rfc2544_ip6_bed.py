# SPDX-License-Identifier: BSD-3-Clause
"""rfc2544_ip6's bed: IPv6 DUTs on duts.Testbed, l3fwd's LPM6 prefix everywhere."""

from twinplane.bench import duts as D
from twinplane.bench import rfc2544_ip6_bed as B6


def test_testbed6_routes_ipv6_on_every_dut(tmp_path):
    for dut, cls in (("twinplane", B6.TwinplaneDut6), ("kernel", B6.KernelDut6)):
        tb = B6.Testbed6("veth", dut, tmp_path, tsc=1e9, probe=False)
        assert type(tb.dut) is cls
    # l3fwd needs nothing else: its built-in LPM6 table has the prefix
    assert type(B6.Testbed6("memif", "l3fwd", tmp_path, tsc=1e9).dut) is D.L3fwdDut
    lines = B6.TwinplaneDut6(B6.Testbed6("memif", "twinplane", tmp_path, tsc=1e9)).config_lines(
        ("a", "b")
    )
    assert "route6 add 2001:200:0:1::/64 via 2001:db8:1::2" in lines
    assert f"neigh6 add 2001:db8:1::2 lladdr {D.GEN_MAC[1]} dev p1" in lines
    assert not [x for x in lines if x.startswith(("route add", "address add"))]


def test_sizes_are_rfc_5180s():
    # from 78 B: 14 + 40 + 8 + the 12-byte signature + FCS
    assert B6.FRAME_SIZES6 == (78, 128, 256, 512, 1024, 1280, 1518)

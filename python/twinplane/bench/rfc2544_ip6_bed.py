# SPDX-License-Identifier: BSD-3-Clause
"""RFC 2544 over IPv6 (issue 35): duts.Testbed with IPv6 streams and DUTs.

bench/rfc2544_ip6.py runs bench/rfc2544_ip4.py's NDR pairs on this bed. The wires,
generator, placement and CPU accounting are duts.Testbed's; only the addressing
and the DUTs' tables differ::

    gen g0  2001:200::2     --->  DUT p0  2001:200::1/64
    gen g1  2001:db8:1::2   <---  DUT p1  2001:db8:1::1/64
    streams: ip6-udp 2001:200::2 -> 2001:200:0:1::1-fe, hop limit 64; the DUT
    routes 2001:200:0:1::/64 via 2001:db8:1::2 (a permanent neighbour with g1's
    MAC); l3fwd's built-in LPM6 table sends 2001:200:0:1::/64 to port 1
    (examples/l3fwd/main.c), --eth-dest=1,<g1 MAC> as for IPv4.

l3fwd needs no other DUT class: with ``--lookup lpm`` it looks IPv6 packets up in
its LPM6 table by packet type (its ``--ipv6`` flag only selects EM and ACL rule
files, DPDK 22.11 examples/l3fwd/main.c).

RFC 5180 5 sizes IPv6 frames from 78 B (14 + 40 + 8 + the generator's 12-byte
signature + FCS), as the sizes here.
"""

from __future__ import annotations

from typing import Any

from twinplane.bench import duts as D

GEN_IP6 = ("2001:200::2", "2001:db8:1::2")
DUT_ADDR6 = ("2001:200::1/64", "2001:db8:1::1/64")
DST_NET6 = "2001:200:0:1::/64"
DST_RANGE6 = "2001:200:0:1::1-2001:200:0:1::fe"
FRAME_SIZES6 = (78, 128, 256, 512, 1024, 1280, 1518)


class TwinplaneDut6(D.TwinplaneDut):
    def config_lines(self, ports: tuple[str, str]) -> list[str]:
        """The daemon's start-up configuration: an IPv6 router between the two ports."""
        return [
            "# bench/rfc2544_ip6.py: twinplane as the IPv6 DUT",
            f"port add p0 {ports[0]}",
            f"port add p1 {ports[1]}",
            f"address6 add {DUT_ADDR6[0]} dev p0",
            f"address6 add {DUT_ADDR6[1]} dev p1",
            f"neigh6 add {GEN_IP6[0]} lladdr {D.GEN_MAC[0]} dev p0",
            f"neigh6 add {GEN_IP6[1]} lladdr {D.GEN_MAC[1]} dev p1",
            f"route6 add {DST_NET6} via {GEN_IP6[1]}",
        ]


class KernelDut6(D.KernelDut):
    """Linux forwarding IPv6 between the DUT namespace's veths (cost as KernelDut's)."""

    def start(self, ports: tuple[str, str]) -> None:
        ns = self.tb.dut_ns
        assert ns is not None
        self.ns = ns
        self.steps = [
            "sysctl -qw net.ipv6.conf.all.forwarding=1",
            *(
                f"sysctl -qw net.ipv6.conf.{i}.disable_ipv6=0 net.ipv6.conf.{i}.accept_dad=0"
                for i in ("d0", "d1")
            ),
            f"ip -6 addr add {DUT_ADDR6[0]} dev d0 nodad",
            f"ip -6 addr add {DUT_ADDR6[1]} dev d1 nodad",
            f"ip -6 neigh replace {GEN_IP6[0]} lladdr {D.GEN_MAC[0]} nud permanent dev d0",
            f"ip -6 neigh replace {GEN_IP6[1]} lladdr {D.GEN_MAC[1]} nud permanent dev d1",
            f"ip -6 route add {DST_NET6} via {GEN_IP6[1]}",
            f"sh -c 'echo {1 << D.DUT_CPU:x} > /sys/class/net/d0/queues/rx-0/rps_cpus'",
            f"sh -c 'echo {1 << D.DUT_CPU:x} > /sys/class/net/d1/queues/rx-0/rps_cpus'",
        ]
        for step in self.steps:
            ns.run(step)


DUTS6: dict[str, type[D.Dut]] = {"twinplane": TwinplaneDut6, "kernel": KernelDut6}


class Testbed6(D.Testbed):
    """duts.Testbed whose streams are ip6-udp and whose twinplane and kernel DUTs
    route IPv6 (l3fwd, loopback and testdut as they are)."""

    def __init__(self, wire: str, dut: str, *args: Any, **kw: Any) -> None:
        super().__init__(wire, dut, *args, **kw)
        if dut in DUTS6:
            self.dut = DUTS6[dut](self)

    def add_stream(self, size: int, dmac: str | None = None) -> str:
        assert self.gen is not None
        name = f"s{size}"
        if dmac is None:
            dmac = D.GEN_MAC[1] if self.dut_name == "loopback" or self.dut.switch else D.DUT_MAC[0]
        self.gen.stream_add(
            name,
            "g0",
            size,
            template="ip6-udp",
            dmac=dmac,
            smac=D.GEN_MAC[0],
            src=GEN_IP6[0],
            dst=DST_RANGE6,
            sport=1024,
            dport=1025,
            extra=["hlim", "64"],
        )
        self.streams[size] = name
        return name

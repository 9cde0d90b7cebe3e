# SPDX-License-Identifier: BSD-3-Clause
"""A routed network: four routers in a diamond, FRR on each, hosts at the edges.

Topology (``DIAMOND``)::

                      r2                         loopbacks 10.255.0.N/32
             p1 10.1.12.0/30 p0   p1 10.1.24.0/30 p1
    h1 --p0 r1                                     r4 p0-- h2
             p2 10.1.13.0/30 p0   p1 10.1.34.0/30 p2
                      r3

Each router is a namespace with a twinplane daemon owning its veth ends
(``kernel=True``: the kernel routes instead, FRR on the veths themselves,
for the side-by-side comparison) and FRR (zebra, bfdd, ospfd, bgpd) on its
TAPs. OSPF (point-to-point, BFD on every core link) carries the core links and
the loopbacks; the routers are one AS, an iBGP full mesh between loopbacks
(multi-hop, over OSPF: ``punt control-peer add``); each host speaks eBGP with
BFD to its edge router and announces a stub (``10.10N.0.0/24``, a local
route on its ``lo``). From r1 to h2's stub, BGP's next hop (r4's loopback)
resolves over OSPF through r2 and r3: an ECMP route in r1's data plane.

A link is cut silently (``cut``: an nftables egress drop on both veth ends,
carrier stays up, so only BFD or OSPF's dead interval finds it) or with
``ip link set down`` (``how="down"``), and restored (``restore``). With 2 CPUs,
the daemons alternate their control and data-plane lcores between the CPUs
and back off when idle.
"""

from __future__ import annotations

import ipaddress
import json
import shlex
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from twinplane.lab.daemon import Daemon, twinctl_binary
from twinplane.lab.frr import Frr
from twinplane.lab.lab import Lab, LabError
from twinplane.lab.netns import Netns, veth
from twinplane.lab.router import port_devargs
from twinplane.lab.traffic import UdpReceiver

AS_CORE = 65000
BFD_PROFILE = "fast"
LOG_MS = "log timestamp precision 3\n"  # the logs tell a failover's steps apart
# Small tables: four daemons share the host's hugepages (ip6's default tables
# alone take 136 MiB a daemon); a lab network holds a few dozen routes.
SMALL_TABLES = (
    "--max-routes", "1024", "--tbl8-groups", "64",
    "--max-routes6", "256", "--tbl8-groups6", "16",
)  # fmt: skip


@dataclass(frozen=True)
class CoreLink:
    """A link between two routers' ports, addresses ``net``'s .1 (a) and .2 (b)."""

    a: str
    a_port: str
    b: str
    b_port: str
    net: str

    def addr(self, side: int) -> str:
        n = ipaddress.ip_network(self.net)
        return f"{n.network_address + 1 + side}/{n.prefixlen}"

    @property
    def name(self) -> str:
        return f"{self.a}-{self.b}"


@dataclass(frozen=True)
class Edge:
    """A host on a router's port, in its own AS, announcing ``stub``."""

    router: str
    port: str
    host: str
    net: str  # router .1, host .2
    asn: int
    stub: str

    @property
    def router_ip(self) -> str:
        return str(ipaddress.ip_network(self.net).network_address + 1)

    @property
    def host_ip(self) -> str:
        return str(ipaddress.ip_network(self.net).network_address + 2)

    @property
    def stub_ip(self) -> str:
        return str(ipaddress.ip_network(self.stub).network_address + 1)


ROUTERS = ("r1", "r2", "r3", "r4")
CORE = (
    CoreLink("r1", "p1", "r2", "p0", "10.1.12.0/30"),
    CoreLink("r1", "p2", "r3", "p0", "10.1.13.0/30"),
    CoreLink("r2", "p1", "r4", "p1", "10.1.24.0/30"),
    CoreLink("r3", "p1", "r4", "p2", "10.1.34.0/30"),
)
EDGES = (
    Edge("r1", "p0", "h1", "10.0.1.0/24", 65101, "10.101.0.0/24"),
    Edge("r4", "p0", "h2", "10.0.2.0/24", 65102, "10.102.0.0/24"),
)


def loopback(router: str) -> str:
    """The router's loopback address (a /32 on its first port's TAP)."""
    return f"10.255.0.{ROUTERS.index(router) + 1}"


def bfd_config(interval_ms: int, multiplier: int) -> str:
    return (
        f"bfd\n profile {BFD_PROFILE}\n  receive-interval {interval_ms}\n"
        f"  transmit-interval {interval_ms}\n  detect-multiplier {multiplier}\n !\n!\n"
    )


class Node:
    """One router: its namespace, ports (name -> address/len), daemon and FRR."""

    def __init__(self, name: str, ns: Netns) -> None:
        self.name = name
        self.ns = ns
        self.ports: dict[str, str] = {}
        self.daemon: Daemon | None = None
        self.frr: Frr | None = None

    @staticmethod
    def ifname(port: str) -> str:
        """The interface FRR and the kernel route on: the port's TAP, or (kernel) the
        veth end itself, named alike so that one FRR configuration serves both."""
        return f"tp-{port}"

    def veth_end(self, port: str, kernel: bool) -> str:
        """The veth end of ``port`` in this namespace (the DPDK port's netdev)."""
        return f"tp-{port}" if kernel else f"r-{port}"

    def ctl(self, *words: str) -> Any:
        """An API command of this router's daemon, JSON parsed."""
        if self.daemon is None:
            raise LabError(f"{self.name} runs no twinplane daemon")
        return self.daemon.client.cmd(*words, json=True)

    def twinctl(self, *words: str) -> str:
        """``twinctl`` (the binary) against this router's daemon; its stdout."""
        if self.daemon is None:
            raise LabError(f"{self.name} runs no twinplane daemon")
        argv = [str(twinctl_binary()), "-s", self.daemon.socket, *words]
        return subprocess.run(argv, check=True, capture_output=True, text=True, timeout=30).stdout

    def routes(self) -> list[dict[str, Any]]:
        r: list[dict[str, Any]] = self.ctl("show", "routes")["routes"]
        return r

    def route(self, prefix: str) -> dict[str, Any] | None:
        """The data-plane route of exactly ``prefix``, or None."""
        return next((r for r in self.routes() if r.get("prefix") == prefix), None)

    def kernel_route(self, prefix: str) -> str:
        return self.ns.run(["ip", "-4", "route", "show", prefix], check=False).stdout

    def port_tx(self) -> dict[str, int]:
        """Frames sent per port: the daemon's counters, or the veths' (kernel)."""
        if self.daemon is not None:
            c = self.ctl("show", "counters")["ports"]
            return {p: int(c[p]["tx"]) for p in self.ports}
        out = {}
        for p in self.ports:
            path = f"/sys/class/net/{self.veth_end(p, True)}/statistics/tx_packets"
            out[p] = int(self.ns.run(["cat", path]).stdout)
        return out

    def vtysh_json(self, command: str) -> Any:
        assert self.frr is not None
        text = self.frr.vtysh(command)
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return {}

    def bfd_peers(self) -> dict[str, str]:
        """BFD sessions: peer address -> status (``up``, ``down``, ``init``)."""
        peers = self.vtysh_json("show bfd peers json")
        return {p["peer"]: p["status"] for p in peers} if isinstance(peers, list) else {}

    def ospf_full(self) -> int:
        """OSPF neighbours in state Full."""
        nbrs = self.vtysh_json("show ip ospf neighbor json").get("neighbors", {})
        return sum(
            1 for lst in nbrs.values() for n in lst if str(n.get("state", "")).startswith("Full")
        )

    def bgp_established(self) -> int:
        """BGP sessions Established."""
        peers = self.vtysh_json("show bgp ipv4 unicast summary json").get("peers", {})
        return sum(1 for p in peers.values() if p.get("state") == "Established")


class RoutedLab(Lab):
    """The diamond of ``ROUTERS`` with ``CORE`` links and ``EDGES`` hosts.

    ``kernel``: Linux routes (FRR on the kernel), no twinplane. ``router_args``: a
    router's own daemon options (after the lab's ``daemon_args``). ``bfd``: BFD on
    OSPF's core links and the eBGP sessions, ``bfd_ms`` x ``bfd_mult``;
    without, failures are found by OSPF's dead interval (``ospf_dead`` s).
    """

    def __init__(
        self,
        kernel: bool = False,
        bfd: bool = True,
        bfd_ms: int = 100,
        bfd_mult: int = 3,
        ospf_hello: int = 1,
        ospf_dead: int = 4,
        daemon_args: Sequence[str] = (),
        router_args: Mapping[str, Sequence[str]] | None = None,
        start: bool = True,
        keep: bool | None = None,
    ) -> None:
        super().__init__(keep=keep)
        self.kernel = kernel
        self.bfd = bfd
        self.bfd_ms, self.bfd_mult = bfd_ms, bfd_mult
        self.ospf_hello, self.ospf_dead = ospf_hello, ospf_dead
        self.daemon_args = [*SMALL_TABLES, *daemon_args]
        self.router_args = {r: list(a) for r, a in (router_args or {}).items()}
        self.nodes: dict[str, Node] = {}
        self.hosts: dict[str, Frr] = {}
        self.cuts: dict[str, str] = {}
        try:
            self.build_topology()
            if start:
                self.start()
        except BaseException:
            self.keep_on_failure()
            self.close()
            raise

    # --- topology -------------------------------------------------------

    def core_link(self, a: str, b: str) -> CoreLink:
        for link in CORE:
            if {link.a, link.b} == {a, b}:
                return link
        raise KeyError(f"no core link {a}-{b}")

    def build_topology(self) -> None:
        for r in ROUTERS:
            self.nodes[r] = Node(r, self.add_ns(r))
        k = self.kernel
        for link in CORE:
            na, nb = self.nodes[link.a], self.nodes[link.b]
            veth(na.ns, na.veth_end(link.a_port, k), nb.ns, nb.veth_end(link.b_port, k))
            na.ports[link.a_port] = link.addr(0)
            nb.ports[link.b_port] = link.addr(1)
        for e in EDGES:
            node, h = self.nodes[e.router], self.add_ns(e.host)
            veth(node.ns, node.veth_end(e.port, k), h, "eth0")
            plen = ipaddress.ip_network(e.net).prefixlen
            node.ports[e.port] = f"{e.router_ip}/{plen}"
            h.run(["ip", "addr", "add", f"{e.host_ip}/{plen}", "dev", "eth0"])
            h.run(["ip", "route", "add", "default", "via", e.router_ip])
            # the stub: every address of it is the host's own (AnyIP)
            h.run(["ip", "link", "set", "lo", "up"])
            h.run(["ip", "route", "add", "local", e.stub, "dev", "lo"])
        for node in self.nodes.values():
            node.ports = dict(sorted(node.ports.items()))
            if k:
                self.kernel_router(node)

    def kernel_router(self, node: Node) -> None:
        """Addresses on the veths, forwarding on: Linux as the router."""
        node.ns.sysctl(
            {
                "net.ipv4.ip_forward": "1",
                "net.ipv4.conf.all.rp_filter": "0",
                "net.ipv4.conf.default.rp_filter": "0",
                "net.ipv4.fib_multipath_hash_policy": "1",  # 5-tuple, as twinplane
            }
        )
        node.ns.run(["ip", "link", "set", "lo", "up"])
        for port, addr in node.ports.items():
            node.ns.run(["ip", "addr", "add", addr, "dev", node.veth_end(port, True)])
        first = next(iter(node.ports))
        node.ns.run(
            ["ip", "addr", "add", f"{loopback(node.name)}/32", "dev", node.veth_end(first, True)]
        )

    def daemon_config(self, node: Node) -> str:
        lines = [f"# routed lab {self.tag}, router {node.name}"]
        for i, port in enumerate(node.ports):
            lines.append(f"port add {port} {port_devargs('af_packet', i, f'r-{port}')}")
        for port, addr in node.ports.items():
            lines.append(f"address add {addr} dev {port}")
        first = next(iter(node.ports))
        lines.append(f"address add {loopback(node.name)}/32 dev {first}")
        # iBGP between loopbacks is multi-hop: its peers are named (decision 0057)
        lines.append("punt control-peer add 10.255.0.0/24")
        return "\n".join(lines) + "\n"

    def start(self) -> None:
        """Daemons, then FRR on every router and host; does not wait for convergence."""
        if not self.kernel:
            for i, node in enumerate(self.nodes.values()):
                self.start_daemon(node, i)
        for node in self.nodes.values():
            node.frr = Frr(self, node.ns, self.router_frr(node), label=node.name)
            node.frr.start()
        for e in EDGES:
            self.hosts[e.host] = Frr(self, self.ns[e.host], self.host_frr(e), label=e.host)
            self.hosts[e.host].start()

    def start_daemon(self, node: Node, i: int) -> Daemon:
        # control lcore and data-plane lcore on different CPUs, alternating by router
        lcores = "0@0,1@1" if i % 2 == 0 else "0@1,1@0"
        node.daemon = Daemon(
            node.ns,
            f"{self.tag}-{node.name}",
            self.workdir,
            self.daemon_config(node),
            lcores,
            # a router's own options come last: they win over the lab's
            extra_args=[*self.daemon_args, *self.router_args.get(node.name, [])],
        )
        self.defer(f"stop daemon {node.name}", node.daemon.stop)
        node.daemon.start()
        self.wait_until(
            lambda: all(
                addr in p.get("addrs", [])
                for p in node.ctl("show", "ports")["ports"]
                for port, addr in node.ports.items()
                if p.get("name") == port
            ),
            20.0,
            0.1,
            f"{node.name}'s ports",
        )
        return node.daemon

    # --- FRR configurations ----------------------------------------------

    def router_frr(self, node: Node) -> dict[str, str]:
        lo = loopback(node.name)
        ospf = [f"hostname {node.name}", "!"]
        core_ports = [p for p, a in node.ports.items() if a.startswith("10.1.")]
        for port in core_ports:
            ospf += [
                f"interface {node.ifname(port)}",
                " ip ospf network point-to-point",
                f" ip ospf hello-interval {self.ospf_hello}",
                f" ip ospf dead-interval {self.ospf_dead}",
                f" ip ospf retransmit-interval {self.ospf_hello}",
            ]
            if self.bfd:
                ospf += [" ip ospf bfd", f" ip ospf bfd profile {BFD_PROFILE}"]
            ospf.append("!")
        ospf += ["router ospf", f" ospf router-id {lo}", " network 10.1.0.0/16 area 0"]
        for e in EDGES:
            if e.router == node.name:
                # the edge router's loopback (BGP's next hop: next-hop-self) and its edge
                # subnet are stub links of area 0 on the passive edge port: intra-area,
                # so computed with the SPF. As externals they would wait for ospfd's
                # separate external-route pass, a second later (OSPF_ASE_CALC_INTERVAL).
                ospf += [f" network {lo}/32 area 0", f" network {e.net} area 0",
                         f" passive-interface {node.ifname(e.port)}"]  # fmt: skip
        ospf += [
            # the core routers' loopbacks (iBGP's sessions only), as externals
            " redistribute connected",
            " timers throttle spf 0 50 500",
            "!",
        ]
        bgp = [
            f"hostname {node.name}",
            f"router bgp {AS_CORE}",
            f" bgp router-id {lo}",
            " no bgp ebgp-requires-policy",
            " no bgp network import-check",
            " timers bgp 3 9",
            " neighbor IBGP peer-group",
            f" neighbor IBGP remote-as {AS_CORE}",
            f" neighbor IBGP update-source {lo}",
            " neighbor IBGP timers connect 1",
            " neighbor IBGP advertisement-interval 0",
        ]
        bgp += [f" neighbor {loopback(r)} peer-group IBGP" for r in ROUTERS if r != node.name]
        for e in EDGES:
            if e.router != node.name:
                continue
            bgp += [
                f" neighbor {e.host_ip} remote-as {e.asn}",
                f" neighbor {e.host_ip} timers connect 1",
                f" neighbor {e.host_ip} advertisement-interval 0",
            ]
            if self.bfd:
                bgp.append(f" neighbor {e.host_ip} bfd profile {BFD_PROFILE}")
        bgp += [
            " address-family ipv4 unicast",
            "  neighbor IBGP next-hop-self",
            " exit-address-family",
            "!",
        ]
        return {
            "zebra": f"hostname {node.name}\n{LOG_MS}",
            "bfdd": LOG_MS + bfd_config(self.bfd_ms, self.bfd_mult),
            "ospfd": LOG_MS + "\n".join(ospf) + "\n",
            "bgpd": LOG_MS + "\n".join(bgp) + "\n",
        }

    def host_frr(self, e: Edge) -> dict[str, str]:
        bgp = [
            f"hostname {e.host}",
            f"router bgp {e.asn}",
            f" bgp router-id {e.host_ip}",
            " no bgp ebgp-requires-policy",
            " no bgp network import-check",
            " timers bgp 3 9",
            f" neighbor {e.router_ip} remote-as {AS_CORE}",
            f" neighbor {e.router_ip} timers connect 1",
            f" neighbor {e.router_ip} advertisement-interval 0",
        ]
        if self.bfd:
            bgp.append(f" neighbor {e.router_ip} bfd profile {BFD_PROFILE}")
        bgp += [" address-family ipv4 unicast", f"  network {e.stub}", " exit-address-family", "!"]
        return {
            "bfdd": LOG_MS + bfd_config(self.bfd_ms, self.bfd_mult),
            "bgpd": LOG_MS + "\n".join(bgp) + "\n",
        }

    # --- state ------------------------------------------------------------

    def converged(self) -> list[str]:
        """What is not there yet (empty when converged): OSPF Full on every core
        link, every BGP session up, every BFD session up, both stubs in every router's
        kernel (and data plane)."""
        missing: list[str] = []
        for node in self.nodes.values():
            n_core = sum(1 for a in node.ports.values() if a.startswith("10.1."))
            if (full := node.ospf_full()) < n_core:
                missing.append(f"{node.name}: OSPF Full {full}/{n_core}")
            n_edge = sum(1 for e in EDGES if e.router == node.name)
            want_bgp = len(ROUTERS) - 1 + n_edge
            if (est := node.bgp_established()) < want_bgp:
                missing.append(f"{node.name}: BGP Established {est}/{want_bgp}")
            if self.bfd:
                bfd = node.bfd_peers()
                if len(bfd) < n_core + n_edge or any(s != "up" for s in bfd.values()):
                    missing.append(f"{node.name}: BFD {bfd}")
            for e in EDGES:
                if e.stub not in node.kernel_route(e.stub):
                    missing.append(f"{node.name}: no {e.stub} in the kernel")
                elif node.daemon is not None and node.route(e.stub) is None:
                    missing.append(f"{node.name}: no {e.stub} in show routes")
        return missing

    def wait_converged(self, timeout: float = 60.0) -> None:
        missing: list[str] = []

        def done() -> bool:
            missing[:] = self.converged()
            return not missing

        try:
            self.wait_until(done, timeout, 0.5, "convergence")
        except TimeoutError:
            raise LabError(
                f"not converged after {timeout:g}s: {'; '.join(missing)}\n{self.diagnose()}"
            ) from None

    def diagnose(self) -> str:
        """Protocol state of every router, for a failure's message."""
        out = []
        for node in self.nodes.values():
            if node.frr is None:
                continue
            out.append(
                f"--- {node.name}\n"
                + node.frr.vtysh(
                    "show ip ospf neighbor", "show bgp ipv4 unicast summary", "show bfd peers brief"
                )
                + node.ns.run(["ip", "-4", "route"], check=False).stdout
            )
        return "\n".join(out)

    # --- failures -----------------------------------------------------------

    def cut(self, a: str, b: str, how: str = "silent") -> None:
        """Cut the link between routers a and b: ``silent`` (nftables egress drop on
        both ends, carrier kept) or ``down`` (both veth ends set down)."""
        link = self.core_link(a, b)
        for r, port in ((link.a, link.a_port), (link.b, link.b_port)):
            node = self.nodes[r]
            dev = node.veth_end(port, self.kernel)
            if how == "down":
                node.ns.run(["ip", "link", "set", "dev", dev, "down"])
                continue
            if how != "silent":
                raise ValueError(f"cut how={how!r}: silent or down")
            table = f"cut_{port}"
            chain = (
                f"{{ type filter hook egress device {shlex.quote(dev)} priority 0; policy drop; }}"
            )
            node.ns.run(["nft", "add", "table", "netdev", table])
            node.ns.run(["nft", "add", "chain", "netdev", table, "e", chain])
        self.cuts[link.name] = how

    def restore(self, a: str, b: str) -> None:
        """Undo ``cut``."""
        link = self.core_link(a, b)
        how = self.cuts.pop(link.name)
        for r, port in ((link.a, link.a_port), (link.b, link.b_port)):
            node = self.nodes[r]
            dev = node.veth_end(port, self.kernel)
            if how == "down":
                node.ns.run(["ip", "link", "set", "dev", dev, "up"])
            else:
                node.ns.run(["nft", "delete", "table", "netdev", f"cut_{port}"])

    def kill_router(self, r: str) -> None:
        """SIGKILL router r: its daemon (its TAPs go with it: FRR there loses its
        interfaces), or with ``kernel`` its FRR, forwarding off. Either way the node
        stops forwarding at once and its neighbours find out by BFD or OSPF."""
        node = self.nodes[r]
        if node.daemon is not None:
            node.daemon.stop(sig=signal.SIGKILL, timeout=5.0)
            return
        node.ns.sysctl({"net.ipv4.ip_forward": "0"})
        if node.frr is not None:
            for proc in node.frr.procs.values():
                proc.stop(sig=signal.SIGKILL, timeout=5.0)

    def restart_router(self, r: str) -> None:
        """Bring a killed router back: FRR stopped, the daemon started anew (or
        forwarding on), then FRR; does not wait for convergence."""
        node = self.nodes[r]
        if node.frr is not None:
            node.frr.stop()
        if self.kernel:
            node.ns.sysctl({"net.ipv4.ip_forward": "1"})
        else:
            self.start_daemon(node, ROUTERS.index(r))
        node.frr = Frr(self, node.ns, self.router_frr(node), label=node.name)
        node.frr.start()


class SeqStream:
    """A sequenced UDP stream from ``src`` (a host namespace, from ``src_ip``) to
    ``dst_ip``:``port`` in ``dst``, ``rate`` datagrams/s round-robin over ``flows``
    source ports (so that every ECMP path carries some), sent by a thread until
    ``stop``, which returns the sequence numbers received."""

    def __init__(
        self,
        src: Netns,
        src_ip: str,
        dst: Netns,
        dst_ip: str,
        port: int,
        rate: int = 1000,
        flows: int = 8,
    ) -> None:
        self.src, self.src_ip, self.dst_ip, self.port = src, src_ip, dst_ip, port
        self.rate, self.flows = rate, flows
        self.rx = UdpReceiver(dst, port)
        self.sent = 0
        self.t_send: list[float] = []
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _run(self) -> None:
        socks = []
        try:
            for i in range(self.flows):
                s = self.src.socket(socket.AF_INET, socket.SOCK_DGRAM)
                socks.append(s)
                s.bind((self.src_ip, 30000 + i))
            t = time.monotonic()
            while not self._stop.is_set():
                socks[self.sent % self.flows].sendto(
                    self.sent.to_bytes(4, "big"), (self.dst_ip, self.port)
                )
                self.sent += 1
                t += 1.0 / self.rate
                time.sleep(max(0.0, t - time.monotonic()))
        finally:
            for s in socks:
                s.close()

    def stop(self, drain: float = 0.3) -> set[int]:
        """Stop sending; what arrived (after ``drain`` s for what is on its way)."""
        self._stop.set()
        self._t.join()
        time.sleep(drain)
        got = {int.from_bytes(d[:4], "big") for d in self.rx.wait(self.sent, timeout=1.0)}
        self.rx.close()
        return got

    def outage_ms(self, received: set[int]) -> float:
        """``flow_outage_ms`` of this stream."""
        return flow_outage_ms(self.sent, received, self.flows, self.rate)


def flow_outage_ms(sent: int, received: set[int], flows: int, rate: float) -> float:
    """The longest a flow went without delivery, in ms: its lost datagrams times its
    period (``flows`` / ``rate``). Datagram i belongs to flow i % flows; a flow on the
    surviving path loses none, one on the failed path loses the whole outage."""
    lost = [0] * flows
    for i in range(sent):
        if i not in received:
            lost[i % flows] += 1
    return max(lost) * flows * 1000.0 / rate

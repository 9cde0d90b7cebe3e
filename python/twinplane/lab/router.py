# SPDX-License-Identifier: BSD-3-Clause
"""The router lab: hosts on veth pairs to a twinplane daemon in a router namespace.

Default topology (``DEFAULT_LINKS``)::

    h1 eth0 10.0.1.2/24 ---veth--- r-p0 [port p0, tp-p0 10.0.1.1/24]
                                         twinplane (ns r)
    h2 eth0 10.0.2.2/24 ---veth--- r-p1 [port p1, tp-p1 10.0.2.1/24]

Each host's default route points at the router. The daemon owns the router
ends of the veths through ``net_af_packet`` (default) or ``net_af_xdp``
(``TP_LAB_PMD=af_xdp``) and mirrors each port on a TAP ``tp-<port>``.

Neither reassembles nor answers twice: af_xdp's XDP program takes frames away
from the kernel; an af_packet socket only copies them, so the daemon makes the
kernel side of the veth inert and removes the defragmentation flag DPDK 22.11
sets on the socket's fanout (README, Decisions). tests/integration/
test_conformance.py checks both against the kernel as a router.
"""

from __future__ import annotations

import ipaddress
import json
import os
import shlex
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twinplane.lab.daemon import Daemon, twinctl_binary
from twinplane.lab.lab import Lab, LabError
from twinplane.lab.netns import Netns, veth

PMDS = ("af_packet", "af_xdp")
DEFAULT_PMD = "af_packet"


@dataclass(frozen=True)
class Link:
    """One router port and the host behind it."""

    port: str  # daemon port name
    host: str  # host namespace role
    router_addr: str  # address/len on the port (its TAP)
    host_addr: str  # address/len of the host
    host_if: str = "eth0"
    mtu: int | None = None  # the veth's MTU and the port's (None: the kernel's 1500)
    router_mac: str | None = None  # the router end's MAC (None: the kernel's random one)
    host_mac: str | None = None

    @property
    def router_if(self) -> str:
        """The router end of the veth, owned by the DPDK port."""
        return f"r-{self.port}"

    @property
    def tap(self) -> str:
        """The port's TAP mirror in the router namespace."""
        return f"tp-{self.port}"

    @property
    def router_ip(self) -> str:
        return self.router_addr.split("/")[0]

    @property
    def host_ip(self) -> str:
        return self.host_addr.split("/")[0]

    @property
    def network(self) -> str:
        return str(ipaddress.ip_interface(self.router_addr).network)


DEFAULT_LINKS = (
    Link("p0", "h1", "10.0.1.1/24", "10.0.1.2/24"),
    Link("p1", "h2", "10.0.2.1/24", "10.0.2.2/24"),
)


def lab_pmd() -> str:
    """The PMD the lab uses for router ports: $TP_LAB_PMD, default af_packet."""
    pmd = os.environ.get("TP_LAB_PMD", DEFAULT_PMD)
    if pmd not in PMDS:
        raise ValueError(f"TP_LAB_PMD={pmd!r}: expected one of {', '.join(PMDS)}")
    return pmd


def port_devargs(pmd: str, index: int, iface: str) -> str:
    """DPDK devargs for a virtual PMD port on netdev ``iface``; ``index`` makes the vdev name
    unique."""
    if pmd == "af_packet":
        return (
            f"net_af_packet{index},iface={iface},blocksz=4096,framesz=2048,framecnt=512,"
            "qpairs=1,qdisc_bypass=0"
        )
    if pmd == "af_xdp":
        return f"net_af_xdp{index},iface={iface},start_queue=0,queue_count=1"
    raise ValueError(f"unknown PMD {pmd!r}")


class RouterLab(Lab):
    """Hosts, a router namespace and a twinplane daemon in it.

    Roles: ``r`` for the router namespace, and each link's host role.

    The daemon prepares the router namespace itself (forwarding on its TAPs,
    not the namespace-wide ip_forward, so the kernel routes and sends ICMP
    errors for what the exception path hands it; af_packet netdevs made
    inert), and the tests check that it does.
    For runs without the daemon, or with its ``--no-sysctl``, the lab can do
    it: ``kernel_forwarding`` sets what the daemon sets (ip_forward=1,
    send_redirects=0, a loose rp_filter on the router's interfaces) in the
    router namespace, ``isolate_ports`` keeps the kernel stack off the router
    ends of the veths (``Netns.isolate``).
    """

    def __init__(
        self,
        links: Sequence[Link] = DEFAULT_LINKS,
        pmd: str | None = None,
        lcores: str = "0,1",
        extra_config: Sequence[str] = (),
        daemon_args: Sequence[str] | None = None,
        kernel_forwarding: bool = False,
        isolate_ports: bool = False,
        start_daemon: bool = True,
        keep: bool | None = None,
        binary: Path | None = None,
    ) -> None:
        super().__init__(keep=keep)
        self.links = tuple(links)
        self.pmd = pmd or lab_pmd()
        self.lcores = lcores
        self.extra_config = list(extra_config)
        # Extra daemon options: the argument, else $TP_DAEMON_ARGS (e.g. "--no-backoff").
        if daemon_args is None:
            daemon_args = shlex.split(os.environ.get("TP_DAEMON_ARGS", ""))
        self.daemon_args = list(daemon_args)
        self.kernel_forwarding = kernel_forwarding
        self.isolate_ports = isolate_ports
        self.binary = binary  # another daemon build (the test daemon); None: the daemon
        self.daemon: Daemon | None = None
        self.mempool_baseline: int | None = None
        try:
            self.build_topology()
            if start_daemon:
                self.start_daemon()
        except BaseException:
            self.keep_on_failure()
            self.close()
            raise

    # --- topology -------------------------------------------------------

    @property
    def router(self) -> Netns:
        return self.ns["r"]

    def link(self, key: str) -> Link:
        """The link for a port name (``p0``) or a host role (``h1``)."""
        for link in self.links:
            if key in (link.port, link.host):
                return link
        raise KeyError(f"no link for {key!r}")

    def host_ip(self, host: str) -> str:
        return self.link(host).host_ip

    def build_topology(self) -> None:
        r = self.add_ns("r")
        if self.kernel_forwarding:
            r.sysctl(
                {
                    "net.ipv4.ip_forward": "1",
                    # the daemon gives its TAPs a loose filter (kpolicy.c); the kernel
                    # takes max(all, interface): all 0, interfaces created after 2
                    "net.ipv4.conf.all.rp_filter": "0",
                    "net.ipv4.conf.default.rp_filter": "2",
                    "net.ipv4.conf.all.send_redirects": "0",
                    "net.ipv4.conf.default.send_redirects": "0",
                }
            )
        for link in self.links:
            # several links may end in one host (a generator owning all of them):
            # its default route goes through the first
            first = link.host not in self.ns
            h = self.add_ns(link.host) if first else self.ns[link.host]
            veth(r, link.router_if, h, link.host_if, mtu=link.mtu,
                 a_mac=link.router_mac, b_mac=link.host_mac)  # fmt: skip
            if self.isolate_ports:
                r.isolate(link.router_if)
            h.run(["ip", "addr", "add", link.host_addr, "dev", link.host_if])
            if first:
                h.run(["ip", "route", "add", "default", "via", link.router_ip])

    def daemon_config(self) -> str:
        """The start-up configuration: one API command per line."""
        lines = [f"# twinplane lab {self.tag}, pmd {self.pmd}"]
        for i, link in enumerate(self.links):
            mtu = f" mtu {link.mtu}" if link.mtu is not None else ""
            lines.append(f"port add {link.port} {port_devargs(self.pmd, i, link.router_if)}{mtu}")
        for link in self.links:
            lines.append(f"address add {link.router_addr} dev {link.port}")
        lines += self.extra_config
        return "\n".join(lines) + "\n"

    def start_daemon(self, timeout: float = 60.0) -> Daemon:
        """Start twinplane in the router namespace and wait for its ports."""
        self.daemon = Daemon(
            self.router,
            self.tag,
            self.workdir,
            self.daemon_config(),
            self.lcores,
            binary=self.binary,
            extra_args=self.daemon_args,
        )
        self.defer("stop daemon", self.stop_daemon)
        self.daemon.start(timeout)
        self.wait_ports()
        return self.daemon

    def stop_daemon(self) -> int | None:
        return self.daemon.stop() if self.daemon is not None else None

    def wait_ports(self, timeout: float = 20.0) -> None:
        """Wait until every port is listed with its address and its TAP is up with the address."""
        missing: list[str] = []

        def ready() -> bool:
            missing.clear()
            ports = {p.get("name"): p for p in self.ctl("show", "ports").get("ports", [])}
            for link in self.links:
                p = ports.get(link.port)
                if p is None:
                    missing.append(f"port {link.port} not in 'show ports'")
                    continue
                if link.router_addr not in p.get("addrs", []):
                    missing.append(
                        f"port {link.port} addrs {p.get('addrs')} lack {link.router_addr}"
                    )
                out = self.router.run(
                    ["ip", "-4", "-o", "addr", "show", "dev", link.tap], check=False
                ).stdout
                if link.router_addr not in out:
                    missing.append(f"{link.tap} has no {link.router_addr} in the kernel")
                state = self.router.run(
                    ["ip", "-o", "link", "show", "dev", link.tap], check=False
                ).stdout
                if ",UP" not in state and "<UP" not in state:
                    missing.append(f"{link.tap} is not up: {state.strip() or 'absent'}")
            return not missing

        try:
            self.wait_until(ready, timeout, 0.1, "ports ready")
        except TimeoutError:
            assert self.daemon is not None
            raise LabError(
                f"daemon ports not ready after {timeout:g}s: "
                f"{'; '.join(missing)}\n{self.daemon.logs()}"
            ) from None

    # --- control API ----------------------------------------------------

    def ctl(self, *words: str) -> Any:
        """Run an API command, JSON response parsed."""
        assert self.daemon is not None, "daemon not started"
        return self.daemon.client.cmd(*words, json=True)

    def ctl_text(self, *words: str) -> str:
        """Run an API command, text response."""
        assert self.daemon is not None, "daemon not started"
        text: str = self.daemon.client.cmd(*words, json=False)
        return text

    def twinctl(self, *words: str, check: bool = True) -> str:
        """Run the ``twinctl`` binary against this lab's daemon; return its stdout."""
        assert self.daemon is not None, "daemon not started"
        argv = [str(twinctl_binary()), "-s", self.daemon.socket, *words]
        res = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=30)
        if check and res.returncode != 0:
            raise LabError(f"{' '.join(argv)} exited {res.returncode}: {res.stderr.strip()}")
        return res.stdout

    def counters(self) -> dict[str, Any]:
        """``show counters`` (JSON)."""
        c: dict[str, Any] = self.ctl("show", "counters")
        return c

    def drops(self) -> dict[str, int]:
        """The global drop-reason map of ``show counters``."""
        d: dict[str, int] = self.counters()["drops"]
        return d

    def mempool(self) -> dict[str, Any]:
        m: dict[str, Any] = self.ctl("show", "mempool")
        return m

    def mempool_in_use(self) -> int:
        return int(self.mempool()["in_use"])

    def routes(self) -> list[dict[str, Any]]:
        r: list[dict[str, Any]] = self.ctl("show", "routes")["routes"]
        return r

    def route(self, prefix: str) -> dict[str, Any] | None:
        """The data-plane route for exactly ``prefix``, or None."""
        return next((r for r in self.routes() if r.get("prefix") == prefix), None)

    def routes6(self) -> list[dict[str, Any]]:
        r: list[dict[str, Any]] = self.ctl("show", "routes6")["routes"]
        return r

    def route6(self, prefix: str) -> dict[str, Any] | None:
        """The data-plane IPv6 route for exactly ``prefix`` (RFC 5952 form), or None."""
        return next((r for r in self.routes6() if r.get("prefix") == prefix), None)

    def enable_ipv6(self) -> None:
        """IPv6 on h1 and h2 (their namespaces start with it off) and on their TAPs:
        2001:db8:1::/64 on h1's side, 2001:db8:2::/64 on h2's, each host's default
        route via the router (::1 on its TAP)."""
        for host, net in (("h1", 1), ("h2", 2)):
            ns = self.ns[host]
            ns.sysctl(
                {"net.ipv6.conf.eth0.disable_ipv6": "0", "net.ipv6.conf.eth0.accept_dad": "0"}
            )
            ns.run(["ip", "-6", "addr", "add", f"2001:db8:{net}::2/64", "dev", "eth0", "nodad"])
            ns.run(["ip", "-6", "route", "add", "default", "via", f"2001:db8:{net}::1"])
            tap = self.link(host).tap
            self.router.run(
                ["ip", "-6", "addr", "add", f"2001:db8:{net}::1/64", "dev", tap, "nodad"]
            )
        # The TAPs' link-local addresses pass DAD 1-2 s after the daemon turned IPv6
        # on; only then does the kernel add their /128 routes, which the daemon takes
        # into its table. Wait for them here, so that a test counting the table's
        # routes does not see one arrive later (a CI run saw that).
        taps = [self.link(h).tap for h in ("h1", "h2")]
        self.wait_until(lambda: all(self._link_local_in_table(t) for t in taps),
                        10.0, 0.05, "the TAPs' link-local addresses in the IPv6 table")  # fmt: skip

    def _link_local_in_table(self, tap: str) -> bool:
        out = self.router.run(["ip", "-6", "-j", "addr", "show", "dev", tap]).stdout
        lls = [a for i in json.loads(out or "[]") for a in i.get("addr_info", [])
               if a.get("scope") == "link"]  # fmt: skip
        return bool(lls) and all(
            not a.get("tentative") and self.route6(f"{a['local']}/128") is not None for a in lls
        )

    def neighbours(self) -> list[dict[str, Any]]:
        n: list[dict[str, Any]] = self.ctl("show", "neigh")["neighbours"]
        return n

    def port(self, name: str) -> dict[str, Any]:
        """The ``show ports`` entry of port ``name``."""
        for p in self.ctl("show", "ports")["ports"]:
            if p.get("name") == name:
                return dict(p)
        raise KeyError(f"no port {name!r}")

    def flush_tx_residue(self) -> None:
        """Make every port transmit one packet: a ping from each host to its router address.

        Some PMDs hold the mbufs of their last transmit until the next one
        (net_af_xdp reclaims its completion ring when it sends again). After a
        flush, each port holds exactly its last, one-packet transmit, so two
        in-use counts taken after a flush compare like for like.
        """
        for link in self.links:
            self.ns[link.host].run(
                ["ping", "-n", "-q", "-c", "1", "-W", "1", link.router_ip], check=False
            )

    def settle_mempool(self, baseline: int | None = None, timeout: float = 3.0) -> int:
        """Wait until in-use mbufs are at or below ``baseline`` (or stop changing); the last
        count."""
        last = self.mempool_in_use()
        if baseline is not None and last <= baseline:
            return last
        stable = 0
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            time.sleep(0.1)
            cur = self.mempool_in_use()
            if baseline is not None and cur <= baseline:
                return cur
            stable = stable + 1 if cur == last else 0
            last = cur
            if baseline is None and stable >= 5:
                break
        return last

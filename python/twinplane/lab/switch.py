# SPDX-License-Identifier: BSD-3-Clause
"""The switch lab: hosts on veth pairs to twinplane ports bridged in one bridge domain.

Default topology (``DEFAULT_HOSTS``)::

    h1 eth0 10.0.0.1/24 ---veth--- r-p0 [port p0, l2 bridge br0 vlan 1]
    h2 eth0 10.0.0.2/24 ---veth--- r-p1 [port p1, ...]          twinplane (ns r)
    h3 eth0 10.0.0.3/24 ---veth--- r-p2 [port p2, ...]

Each host's port gets the words after ``mode l2 bridge br0`` from its
``SwitchHost`` (``vlan 10``, ``trunk 10,20 native 1``...). ``extra_config``
adds commands after the bridge is built (a routed port, static MACs, chains).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from twinplane.lab.router import Link, RouterLab, port_devargs


@dataclass(frozen=True)
class SwitchHost:
    """One bridged port and the host behind it."""

    port: str
    host: str
    host_addr: str
    words: str = ""  # after "port set P mode l2 bridge BR"
    host_if: str = "eth0"
    bridge: str = ""  # its bridge: the lab's unless named (then added too)
    port_words: str = ""  # after "port add P DEVARGS" (e.g. "mtu 1000")

    @property
    def router_if(self) -> str:
        return f"r-{self.port}"

    @property
    def host_ip(self) -> str:
        return self.host_addr.split("/")[0]


DEFAULT_HOSTS = (
    SwitchHost("p0", "h1", "10.0.0.1/24"),
    SwitchHost("p1", "h2", "10.0.0.2/24"),
    SwitchHost("p2", "h3", "10.0.0.3/24"),
)


class SwitchLab(RouterLab):
    """Hosts bridged by a twinplane daemon (bridge ``br0``); RouterLab's tools
    (``ctl``, ``counters``, ``mempool_in_use``...) and the test fixture's checks.

    ``routed`` adds RouterLab links (routed ports with addresses) beside the
    bridge, to show both kinds of port in one daemon.
    """

    def __init__(
        self,
        hosts: Sequence[SwitchHost] = DEFAULT_HOSTS,
        bridge: str = "br0",
        bridge_words: str = "",
        routed: Sequence[Link] = (),
        **kwargs: Any,
    ) -> None:
        self.hosts = tuple(hosts)
        self.bridge = bridge
        self.bridge_words = bridge_words
        super().__init__(links=tuple(routed), **kwargs)

    def build_topology(self) -> None:
        super().build_topology()  # the routed links, if any, and the router namespace
        from twinplane.lab.netns import veth

        for h in self.hosts:
            ns = self.add_ns(h.host)
            veth(self.router, h.router_if, ns, h.host_if)
            ns.run(["ip", "addr", "add", h.host_addr, "dev", h.host_if])

    def host(self, role: str) -> SwitchHost:
        for h in self.hosts:
            if role in (h.host, h.port):
                return h
        raise KeyError(f"no switch host {role!r}")

    def host_mac(self, role: str) -> str:
        h = self.host(role)
        return self.ns[h.host].mac(h.host_if)

    def daemon_config(self) -> str:
        lines = [super().daemon_config().rstrip("\n").split("\n")[0]]
        routed = super().daemon_config().rstrip("\n").split("\n")[1:]
        lines.append(f"bridge add {self.bridge} {self.bridge_words}".rstrip())
        for b in dict.fromkeys(h.bridge for h in self.hosts if h.bridge not in ("", self.bridge)):
            lines.append(f"bridge add {b}")
        base = len(self.links)
        for i, h in enumerate(self.hosts):
            br = h.bridge or self.bridge
            dev = port_devargs(self.pmd, base + i, h.router_if)
            lines.append(f"port add {h.port} {dev} {h.port_words}".rstrip())
            lines.append(f"port set {h.port} mode l2 bridge {br} {h.words}".rstrip())
        # the routed ports (and the caller's extra lines) after the bridge
        return "\n".join(lines + routed) + "\n"

    def wait_ports(self, timeout: float = 20.0) -> None:
        if self.links:
            super().wait_ports(timeout)

        def ready() -> bool:
            ports = {p.get("name"): p for p in self.ctl("show", "ports").get("ports", [])}
            return all(
                str(ports.get(h.port, {}).get("mode", "")).startswith("l2") for h in self.hosts
            )

        self.wait_until(ready, timeout, 0.1, "bridged ports ready")

    def flush_tx_residue(self) -> None:
        """Make every bridged port transmit: a broadcast ping from each host (flooded to
        every other port in its VLAN), then the routed links' pings."""
        for h in self.hosts:
            net = h.host_addr.split("/")[0].rsplit(".", 1)[0]
            self.ns[h.host].run(
                ["ping", "-n", "-q", "-b", "-c", "1", "-W", "0.3", f"{net}.255"], check=False
            )
        super().flush_tx_residue()

    # --- the bridge through the API ---------------------------------------

    def bridge_info(self, bridge: str | None = None) -> dict[str, Any]:
        b: dict[str, Any] = self.ctl("show", "bridge", bridge or self.bridge)
        return b

    def macs(self, bridge: str | None = None) -> list[dict[str, Any]]:
        m: list[dict[str, Any]] = self.ctl("show", "bridge", bridge or self.bridge, "macs")["macs"]
        return m

    def mac_port(self, mac: str, vlan: int | None = None, bridge: str | None = None) -> str | None:
        """The port ``bridge`` (the lab's) has learned ``mac`` on (in ``vlan``), or None."""
        for e in self.macs(bridge):
            if e["mac"].lower() == mac.lower() and (vlan is None or e["vlan"] == vlan):
                return str(e["port"])
        return None

    def port_mac(self, port: str) -> str:
        """The MAC of twinplane's port ``port`` (``show ports``)."""
        for p in self.ctl("show", "ports")["ports"]:
            if p["name"] == port:
                return str(p["mac"]).lower()
        raise KeyError(f"no port {port}")

    def add_kernel_bridge(self, n_hosts: int = 3, words: str = "") -> list[str]:
        """A Linux bridge ``br0`` (``stp_state 0``, no VLAN filtering; ``words`` after
        ``type bridge``) in namespace ``kbr``, beside the daemon's, with hosts
        ``kh1..khN`` on veths (bridge ports ``kb-p0..``): the reference the tests
        compare the switch's untagged behaviour with. Torn down with the lab; returns
        the hosts' roles (their interface is ``eth0``)."""
        from twinplane.lab.netns import veth

        kb = self.add_ns("kbr")
        kb.run(["ip", "link", "add", "br0", "type", "bridge", "stp_state", "0", *words.split()])
        roles = []
        for i in range(n_hosts):
            role = f"kh{i + 1}"
            veth(kb, f"kb-p{i}", self.add_ns(role), "eth0")
            kb.run(["ip", "link", "set", f"kb-p{i}", "master", "br0"])
            roles.append(role)
        kb.run(["ip", "link", "set", "br0", "up"])
        return roles

    def port_l2(self, port: str) -> dict[str, Any]:
        """The port's entry in ``show bridge``, whichever bridge it is in."""
        for b in self.ctl("show", "bridge")["bridges"]:
            for p in b["ports"]:
                if p["port"] == port:
                    return dict(p)
        raise KeyError(f"port {port} in no bridge")


class ChainLab(RouterLab):
    """A service chain: h1 -- p0 [twinplane: chain c1 via nf1..nfN] p1 -- h2.

    Each NF is a ``twinplane-nf`` process attached by two ports, ``nfIa`` (toward it in
    the forward direction) and ``nfIb`` (back from it): memif (twinplane the server) or
    vhost-user (twinplane's ``net_vhost`` the server, the NF's ``net_virtio_user`` the
    client). The NFs start after the daemon and are always stopped with the lab.
    """

    def __init__(
        self,
        n_nfs: int = 1,
        backend: str = "memif",
        on_nf_down: str = "drop",
        swap_mac: bool = False,
        **kwargs: Any,
    ) -> None:
        if backend not in ("memif", "vhost"):
            raise ValueError(f"backend {backend!r}: memif or vhost")
        self.n_nfs = n_nfs
        self.backend = backend
        self.on_nf_down = on_nf_down
        self.swap_mac = swap_mac
        self.nfs: list[Any] = []
        super().__init__(links=(), **kwargs)

    def build_topology(self) -> None:
        from twinplane.lab.netns import veth

        r = self.add_ns("r")
        for port, host, addr in (("p0", "h1", "10.0.0.1/24"), ("p1", "h2", "10.0.0.2/24")):
            ns = self.add_ns(host)
            veth(r, f"r-{port}", ns, "eth0")
            ns.run(["ip", "addr", "add", addr, "dev", "eth0"])

    def sock(self, i: int, side: str) -> str:
        return str(self.workdir / f"nf{i}{side}.sock")

    def daemon_config(self) -> str:
        lines = [f"# twinplane chain lab {self.tag}, {self.n_nfs} NFs over {self.backend}"]
        lines.append(f"port add p0 {port_devargs(self.pmd, 0, 'r-p0')}")
        lines.append(f"port add p1 {port_devargs(self.pmd, 1, 'r-p1')}")
        for i in range(1, self.n_nfs + 1):
            for k, side in enumerate("ab"):
                idx = 2 * i + k
                if self.backend == "memif":
                    dev = (
                        f"net_memif{idx},role=server,id=0,socket={self.sock(i, side)},"
                        "socket-abstract=no"
                    )
                else:
                    dev = f"net_vhost{idx},iface={self.sock(i, side)},queues=1"
                lines.append(f"port add nf{i}{side} {dev}")
            lines.append(f"nf add nf{i} nf{i}a nf{i}b")
        via = " ".join(f"nf{i}" for i in range(1, self.n_nfs + 1))
        lines.append(f"chain add c1 from p0 to p1 via {via} on-nf-down {self.on_nf_down}")
        return "\n".join(lines + self.extra_config) + "\n"

    def nf_process(self, i: int) -> Any:
        from twinplane.lab.nfproc import NfProcess

        if self.backend == "memif":
            ports = [
                f"net_memif{k},role=client,id=0,socket={self.sock(i, s)},socket-abstract=no"
                for k, s in enumerate("ab")
            ]
        else:
            ports = [
                f"net_virtio_user{k},path={self.sock(i, s)},queues=1" for k, s in enumerate("ab")
            ]
        return NfProcess(
            f"{self.tag}n{i}", self.workdir, ports[0], ports[1], swap_mac=self.swap_mac
        )

    def start_daemon(self, timeout: float = 60.0) -> Any:
        d = super().start_daemon(timeout)
        for i in range(1, self.n_nfs + 1):
            nf = self.nf_process(i)
            self.nfs.append(nf)
            self.defer(f"stop nf{i}", nf.stop)
            nf.start()
        self.wait_nfs_up()
        return d

    def wait_nfs_up(self, timeout: float = 20.0) -> None:
        self.wait_until(
            lambda: all(h["state"] == "up" for h in self.chain()["hops"]),
            timeout,
            0.1,
            "every NF of the chain up",
        )

    def wait_ports(self, timeout: float = 20.0) -> None:
        def ready() -> bool:
            ports = {p.get("name"): p for p in self.ctl("show", "ports").get("ports", [])}
            return all(
                str(ports.get(p, {}).get("mode", "")).startswith("chain") for p in ("p0", "p1")
            )

        self.wait_until(ready, timeout, 0.1, "chain ports ready")

    def flush_tx_residue(self) -> None:
        """A ping each way through the chain (when every NF is up): every port sends."""
        for host, dst in (("h1", "10.0.0.2"), ("h2", "10.0.0.1")):
            self.ns[host].run(["ping", "-n", "-q", "-c", "1", "-W", "1", dst], check=False)

    def chain(self) -> dict[str, Any]:
        c: dict[str, Any] = self.ctl("show", "chain", "c1")
        return c

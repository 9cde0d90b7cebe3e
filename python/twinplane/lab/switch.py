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
        base = len(self.links)
        for i, h in enumerate(self.hosts):
            lines.append(f"port add {h.port} {port_devargs(self.pmd, base + i, h.router_if)}")
            lines.append(f"port set {h.port} mode l2 bridge {self.bridge} {h.words}".rstrip())
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

    def bridge_info(self) -> dict[str, Any]:
        b: dict[str, Any] = self.ctl("show", "bridge", self.bridge)
        return b

    def macs(self) -> list[dict[str, Any]]:
        m: list[dict[str, Any]] = self.ctl("show", "bridge", self.bridge, "macs")["macs"]
        return m

    def mac_port(self, mac: str, vlan: int | None = None) -> str | None:
        """The port the bridge has learned ``mac`` on (in ``vlan``), or None."""
        for e in self.macs():
            if e["mac"].lower() == mac.lower() and (vlan is None or e["vlan"] == vlan):
                return str(e["port"])
        return None

    def port_l2(self, port: str) -> dict[str, Any]:
        for p in self.bridge_info()["ports"]:
            if p["port"] == port:
                return dict(p)
        raise KeyError(f"port {port} not in bridge {self.bridge}")

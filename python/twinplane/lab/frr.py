# SPDX-License-Identifier: BSD-3-Clause
"""Run FRR daemons (zebra, ospfd...) inside a lab namespace.

Each instance gets its own directory in the lab's work directory for its
configuration files, pid files, zebra socket, vty sockets and logs, so
several instances (one per namespace) never share a path. The daemons run
in the foreground as children of the lab and are stopped by it.
"""

from __future__ import annotations

import os
import pwd
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from twinplane.lab.lab import Lab, LabError
from twinplane.lab.netns import Netns
from twinplane.proc import Process

FRR_DIR = Path(os.environ.get("TP_FRR_DIR", "/usr/lib/frr"))
VTYSH = os.environ.get("TP_VTYSH", "vtysh")
# Debian's FRR insists that its user is in the vty group (frrvty): root is not.
FRR_USER = os.environ.get("TP_FRR_USER", "frr")


def frr_available(daemons: Iterable[str] = ("zebra", "ospfd")) -> bool:
    """True if the FRR daemons are installed."""
    return all(os.access(FRR_DIR / d, os.X_OK) for d in daemons)


@dataclass(frozen=True)
class OspfInterface:
    """An interface in OSPF area 0; passive ones are announced but send no hellos."""

    name: str
    passive: bool = False
    point_to_point: bool = True


def ospf_config(
    hostname: str,
    router_id: str,
    networks: Sequence[str],
    interfaces: Sequence[OspfInterface],
    hello: int = 1,
    dead: int = 4,
) -> str:
    """An ospfd configuration with fast timers for a lab.

    Hello/dead 1/4 s and point-to-point links (no DR election, no wait
    timer) let two routers reach Full and exchange routes in a few seconds.
    """
    lines = [f"hostname {hostname}", "!"]
    for itf in interfaces:
        lines.append(f"interface {itf.name}")
        if itf.point_to_point:
            lines.append(" ip ospf network point-to-point")
        lines.append(f" ip ospf hello-interval {hello}")
        lines.append(f" ip ospf dead-interval {dead}")
        lines.append(f" ip ospf retransmit-interval {hello}")
        lines.append("!")
    lines += ["router ospf", f" ospf router-id {router_id}"]
    lines += [f" network {net} area 0" for net in networks]
    lines += [f" passive-interface {itf.name}" for itf in interfaces if itf.passive]
    lines += [" timers throttle spf 0 50 500", "!", ""]
    return "\n".join(lines)


def ospf6_config(
    hostname: str,
    router_id: str,
    interfaces: Sequence[OspfInterface],
    hello: int = 1,
    dead: int = 4,
) -> str:
    """An ospf6d (OSPFv3, RFC 5340) configuration with ospf_config's fast timers: every
    interface in area 0, the passive ones announced without hellos (FRR 8 syntax)."""
    lines = [f"hostname {hostname}", "!"]
    for itf in interfaces:
        lines.append(f"interface {itf.name}")
        lines.append(" ipv6 ospf6 area 0")
        if itf.point_to_point:
            lines.append(" ipv6 ospf6 network point-to-point")
        if itf.passive:
            lines.append(" ipv6 ospf6 passive")
        lines.append(f" ipv6 ospf6 hello-interval {hello}")
        lines.append(f" ipv6 ospf6 dead-interval {dead}")
        lines.append(f" ipv6 ospf6 retransmit-interval {hello}")
        lines.append("!")
    lines += ["router ospf6", f" ospf6 router-id {router_id}"]
    lines += [" timers throttle spf 0 50 500", "!", ""]
    return "\n".join(lines)


def bgp6_config(
    hostname: str, asn: int, router_id: str, peer: str, peer_asn: int, networks: Sequence[str] = ()
) -> str:
    """A bgpd configuration of one eBGP session over IPv6 carrying IPv6 unicast only,
    with lab timers (keepalive 1 s, hold 3 s, connect retry 1 s, no advertisement
    interval) and no policy required (RFC 8212 is FRR's default)."""
    lines = [
        f"hostname {hostname}",
        "!",
        f"router bgp {asn}",
        f" bgp router-id {router_id}",
        " no bgp ebgp-requires-policy",
        " no bgp default ipv4-unicast",
        f" neighbor {peer} remote-as {peer_asn}",
        f" neighbor {peer} timers 1 3",
        f" neighbor {peer} timers connect 1",
        f" neighbor {peer} advertisement-interval 0",
        " address-family ipv6 unicast",
    ]
    lines += [f"  network {net}" for net in networks]
    lines += [f"  neighbor {peer} activate", " exit-address-family", "!", ""]
    return "\n".join(lines)


class Frr:
    """FRR daemons of one namespace: zebra first, then the protocol daemons."""

    def __init__(
        self, lab: Lab, ns: Netns, configs: Mapping[str, str], label: str | None = None
    ) -> None:
        """``configs`` maps daemon name (``zebra``, ``ospfd``) to its configuration text."""
        self.lab = lab
        self.ns = ns
        self.label = label or ns.name.rsplit("-", 1)[-1]
        self.dir = lab.workdir / f"frr-{self.label}"
        self.configs = dict(configs)
        self.configs.setdefault("zebra", f"hostname {self.label}\n!\n")
        self.procs: dict[str, Process] = {}

    @property
    def zserv(self) -> Path:
        return self.dir / "zserv.api"

    def argv(self, daemon: str) -> list[str]:
        d = self.dir
        # bfdd's control socket defaults to one path for the whole machine
        own = ["--bfdctl", str(d / "bfdd.sock")] if daemon == "bfdd" else []
        return [
            str(FRR_DIR / daemon),
            "-f", str(d / f"{daemon}.conf"),
            "-i", str(d / f"{daemon}.pid"),
            "-z", str(self.zserv),
            "--vty_socket", str(d),
            "-u", FRR_USER,
            "-g", FRR_USER,
            "-P", "0",
            "--log", f"file:{d / f'{daemon}.log'}",
            "--log-level", "info",
            *own,
        ]  # fmt: skip

    def start(self, timeout: float = 15.0) -> None:
        """Start zebra, wait for its socket, then the other daemons; wait for their vty sockets."""
        self.dir.mkdir(parents=True, exist_ok=True)
        # The daemons drop to FRR_USER: let it reach and write its directory.
        self.lab.workdir.chmod(0o711)
        pw = pwd.getpwnam(FRR_USER)
        os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        order = ["zebra"] + [d for d in self.configs if d != "zebra"]
        self.lab.defer(f"stop FRR in {self.ns.name}", self.stop)
        for daemon in order:
            (self.dir / f"{daemon}.conf").write_text(self.configs[daemon])
            proc = Process(
                self.argv(daemon),
                self.dir / f"{daemon}.out",
                label=f"FRR {daemon} in {self.ns.name}",
                netns=self.ns,
                side_logs=[("log", self.dir / f"{daemon}.log")],
                error=LabError,
            )
            self.procs[daemon] = proc.start()
            vty = self.dir / f"{daemon}.vty"
            proc.wait_ready(vty.exists, timeout, f"listening on {vty.name}", interval=0.05)
            if daemon == "zebra":
                proc.wait_ready(self.zserv.exists, timeout, "serving zserv.api", interval=0.05)

    def vtysh(self, *commands: str) -> str:
        """Run vtysh commands against this instance; return the output."""
        argv = [VTYSH, "--vty_socket", str(self.dir)]
        for c in commands:
            argv += ["-c", c]
        res = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=15)
        return res.stdout + res.stderr

    def logs(self, daemon: str | None = None, lines: int = 40) -> str:
        procs = [self.procs[daemon]] if daemon else list(self.procs.values())
        return "\n".join(p.logs(lines) for p in procs)

    def stop(self, timeout: float = 5.0) -> None:
        """SIGTERM every daemon (protocols first, zebra last), SIGKILL after ``timeout``."""
        for proc in reversed(list(self.procs.values())):
            proc.stop(timeout=timeout)

# SPDX-License-Identifier: BSD-3-Clause
"""Network namespaces, veth pairs and commands run inside them (iproute2)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from typing import IO

NETNS_DIR = "/run/netns"
# ``ip netns exec NAME`` bind-mounts each file of /etc/netns/NAME over its /etc twin
ETC_NETNS_DIR = "/etc/netns"
# A lab namespace's resolver: no server but its own loopback, which refuses at once.
# The host's server is reached, if at all, through the device under test: a process
# that looks up a name at start (ACME asks for "<hostname>.local" and ".lan") waited
# 5 s a try for it, 12-14 s an ACME start in a lab against 2-4 s on the host.
LAB_RESOLV_CONF = """\
# twinplane lab namespace (python/twinplane/lab/netns.py): names resolve from
# /etc/hosts only; a DNS lookup fails at once
nameserver 127.0.0.1
options attempts:1 timeout:1
"""
CLONE_NEWNET = 0x40000000
IFNAMSIZ = 16

Cmd = str | Sequence[str]

_libc = ctypes.CDLL(None, use_errno=True)


class CommandError(subprocess.CalledProcessError):
    """A lab command failed; its str() carries the command's stderr."""

    def __str__(self) -> str:
        err = (self.stderr or "").strip()
        out = (self.stdout or "").strip()
        detail = err or out
        return f"{shlex.join(self.cmd)} exited {self.returncode}" + (
            f": {detail}" if detail else ""
        )


def _argv(cmd: Cmd) -> list[str]:
    return shlex.split(cmd) if isinstance(cmd, str) else [str(c) for c in cmd]


def run(
    cmd: Cmd,
    ns: str | None = None,
    check: bool = True,
    timeout: float = 30.0,
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` (in namespace ``ns`` if given) and return its result.

    Output is captured as text. With ``check``, a non-zero exit raises
    CommandError including stderr.
    """
    argv = _argv(cmd)
    if ns is not None:
        argv = ["ip", "netns", "exec", ns, *argv]
    res = subprocess.run(
        argv, check=False, capture_output=True, text=True, timeout=timeout, input=input
    )
    if check and res.returncode != 0:
        raise CommandError(res.returncode, argv, res.stdout, res.stderr)
    return res


def check_ifname(name: str) -> str:
    """Return ``name`` if it is a valid Linux interface name, else raise."""
    if not name or len(name) >= IFNAMSIZ or "/" in name or any(c.isspace() for c in name):
        raise ValueError(f"bad interface name {name!r} (1..{IFNAMSIZ - 1} chars)")
    return name


def _setns(fd: int) -> None:
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns: {os.strerror(err)}")


@contextlib.contextmanager
def netns_context(name: str) -> Iterator[None]:
    """Move the calling thread into namespace ``name`` for the block.

    Sockets opened inside the block stay in that namespace after it ends,
    which is how tests in the root namespace talk from a lab host. Only the
    calling thread moves; threads it starts inside the block inherit it.
    """
    with (
        open("/proc/thread-self/ns/net", "rb") as orig,
        open(os.path.join(NETNS_DIR, name), "rb") as target,
    ):
        _setns(target.fileno())
        try:
            yield
        finally:
            _setns(orig.fileno())


def open_socket(
    ns: str, family: int = socket.AF_INET, type: int = socket.SOCK_DGRAM, proto: int = 0
) -> socket.socket:
    """Return a new socket living in namespace ``ns``."""
    with netns_context(ns):
        return socket.socket(family, type, proto)


def list_netns() -> list[str]:
    """Names of the named network namespaces (``ip netns list``)."""
    try:
        return sorted(os.listdir(NETNS_DIR))
    except FileNotFoundError:
        return []


def _pid_alive(pid: int) -> bool:
    """True if ``pid`` runs (a zombie, exited but not yet waited for, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[-1].split()[0] not in ("Z", "X")


def netns_pids(name: str) -> list[int]:
    """Pids of the processes whose network namespace is ``name``."""
    res = run(["ip", "netns", "pids", name], check=False)
    return [int(p) for p in res.stdout.split() if p.isdigit()]


def kill_pids(pids: Sequence[int], timeout: float = 3.0) -> None:
    """SIGTERM ``pids``, wait up to ``timeout``, then SIGKILL survivors."""
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 2.0)):
        live = [p for p in pids if _pid_alive(p)]
        if not live:
            return
        for p in live:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and any(_pid_alive(p) for p in live):
            time.sleep(0.05)


class Netns:
    """One named network namespace; ``delete`` kills what runs in it."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.created = False

    def __repr__(self) -> str:
        return f"Netns({self.name!r})"

    def __str__(self) -> str:
        return self.name

    @property
    def etc_dir(self) -> str:
        return os.path.join(ETC_NETNS_DIR, self.name)

    def create(self) -> Netns:
        run(["ip", "netns", "add", self.name])
        self.created = True
        os.makedirs(self.etc_dir, exist_ok=True)
        with open(os.path.join(self.etc_dir, "resolv.conf"), "w") as f:
            f.write(LAB_RESOLV_CONF)
        # IPv6 off: keeps router solicitations and MLD out of the counters.
        self.sysctl(
            {
                "net.ipv6.conf.all.disable_ipv6": "1",
                "net.ipv6.conf.default.disable_ipv6": "1",
            }
        )
        self.run("ip link set lo up")
        return self

    def delete(self) -> None:
        """Kill every process in the namespace, then delete it (and its veths) and its
        files under /etc/netns."""
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(self.etc_dir)
        if self.name not in list_netns():
            self.created = False
            return
        kill_pids(netns_pids(self.name))
        run(["ip", "netns", "del", self.name])
        self.created = False

    def run(
        self, cmd: Cmd, check: bool = True, timeout: float = 30.0
    ) -> subprocess.CompletedProcess[str]:
        return run(cmd, ns=self.name, check=check, timeout=timeout)

    def popen(
        self,
        cmd: Cmd,
        stdin: int | IO[bytes] | None = None,
        stdout: int | IO[bytes] | None = None,
        stderr: int | IO[bytes] | None = None,
        start_new_session: bool = False,
    ) -> subprocess.Popen[bytes]:
        """Start ``cmd`` in the namespace (``ip netns exec`` execs it: same pid)."""
        argv = ["ip", "netns", "exec", self.name, *_argv(cmd)]
        return subprocess.Popen(
            argv,
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            start_new_session=start_new_session,
        )

    def sysctl(self, values: dict[str, str]) -> None:
        self.run(["sysctl", "-qw", *(f"{k}={v}" for k, v in values.items())])

    def socket(
        self,
        family: int = socket.AF_INET,
        type: int = socket.SOCK_DGRAM,
        proto: int = 0,
    ) -> socket.socket:
        return open_socket(self.name, family, type, proto)

    def context(self) -> contextlib.AbstractContextManager[None]:
        return netns_context(self.name)

    def link_exists(self, ifname: str) -> bool:
        return self.run(["ip", "link", "show", "dev", ifname], check=False).returncode == 0

    def mac(self, ifname: str) -> str:
        out = self.run(["cat", f"/sys/class/net/{ifname}/address"]).stdout
        return out.strip()

    def offloads_off(self, ifname: str) -> None:
        """Turn off veth TX checksum offload and segmentation (DESIGN.md: TCP stalls otherwise)."""
        self.run(["ethtool", "-K", ifname, "tx", "off", "tso", "off", "gso", "off"])

    def isolate(self, ifname: str) -> None:
        """Keep this namespace's kernel stack off a netdev that DPDK owns.

        With net_af_packet the kernel still sees every frame on the veth and,
        as the router namespace holds the TAP addresses, would answer ARP and
        pings for them and forward traffic itself. No ARP on the device and a
        strict reverse-path filter (no route ever points at it) drop every
        IPv4 packet there before the stack uses it; forwarding is off too.
        """
        self.run(["ip", "link", "set", "dev", ifname, "arp", "off"])
        self.sysctl(
            {
                f"net.ipv4.conf.{ifname}.rp_filter": "1",
                f"net.ipv4.conf.{ifname}.forwarding": "0",
                f"net.ipv4.conf.{ifname}.accept_local": "0",
            }
        )


def veth(
    a: Netns,
    a_if: str,
    b: Netns,
    b_if: str,
    mtu: int | None = None,
    a_mac: str | None = None,
    b_mac: str | None = None,
) -> None:
    """Create a veth pair with one end in each namespace, both ends up, offloads off
    (and with the MTU and MACs given).

    The pair is created directly inside the namespaces, so the names only
    need to be unique there, never in the root namespace.
    """
    check_ifname(a_if)
    check_ifname(b_if)
    cmd = [
        "ip",
        "link",
        "add",
        "name",
        a_if,
        "netns",
        a.name,
        "type",
        "veth",
        "peer",
        "name",
        b_if,
        "netns",
        b.name,
    ]
    run(cmd)
    for ns, ifname, mac in ((a, a_if, a_mac), (b, b_if, b_mac)):
        if mtu is not None:
            ns.run(["ip", "link", "set", "dev", ifname, "mtu", str(mtu)])
        if mac is not None:
            ns.run(["ip", "link", "set", "dev", ifname, "address", mac])
        ns.offloads_off(ifname)
        ns.run(["ip", "link", "set", "dev", ifname, "up"])


_STALE = re.compile(r"^tpl(\d+)-")


def reap_stale(prefix: str = "tpl") -> list[str]:
    """Delete lab namespaces left by lab processes that no longer run.

    Lab namespaces are named ``tpl<pid>-...`` after the process that made
    them; those whose process is gone are leftovers of a crash or a kill (their
    /etc/netns files too, left where the namespace went without ``delete``).
    Returns the names deleted.
    """
    gone = []
    etc = os.listdir(ETC_NETNS_DIR) if os.path.isdir(ETC_NETNS_DIR) else []
    for name in sorted(set(list_netns()) | set(etc)):
        m = _STALE.match(name)
        if not name.startswith(prefix) or m is None:
            continue
        if _pid_alive(int(m.group(1))):
            continue
        Netns(name).delete()
        gone.append(name)
    return gone

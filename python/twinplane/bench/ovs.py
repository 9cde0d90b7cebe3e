# SPDX-License-Identifier: BSD-3-Clause
"""A private OVS-DPDK instance, and the L2 switches of issue 12 as benchmark DUTs.

``OvsDpdk`` runs its own ``ovsdb-server`` and ``ovs-vswitchd-dpdk`` out of one
directory (database, sockets, pid files, logs, vhost-user sockets), never the
system's service: every OVS tool it runs gets ``OVS_RUNDIR``, ``OVS_DBDIR``,
``OVS_LOGDIR`` and ``OVS_SYSCONFDIR`` pointing there, and names the private
database and control sockets explicitly as well.

The DUTs register themselves in ``duts.DUT_CLASSES``:

- ``ovsdpdk``: OVS-DPDK, a netdev bridge of two ``type=dpdk`` ports made from
  the testbed's devargs (memif clients, or ``net_af_xdp`` on d0/d1), flows
  ``actions=NORMAL`` (a learning switch), one PMD thread on DUT_CPU. Cost from
  ``dpif-netdev/pmd-stats-show``: processing cycles per packet received.
- ``linuxbridge``: a kernel bridge of d0 and d1 in the DUT namespace (veth
  only), no STP, MAC ageing 3600 s. Cost measured like the ``kernel`` DUT's.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from twinplane.bench import duts
from twinplane.bench.duts import DUT_CPU, Dut, DutError, KernelDut, pinned_threads
from twinplane.proc import Process, ProcessError, tail

VSWITCHD = Path(
    os.environ.get("TP_OVS_VSWITCHD", "/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk")
)
SCHEMA = Path(os.environ.get("TP_OVS_SCHEMA", "/usr/share/openvswitch/vswitch.ovsschema"))
PKGDATADIR = SCHEMA.parent

# Seconds of MAC ageing for the benchmark's switches: far longer than any run,
# so a learned address never ages out between trials and the switch never floods.
MAC_AGEING_S = 3600


class OvsError(DutError):
    """OVS did not start, a command failed, or a port could not be set up."""


def _number(text: str) -> float | int:
    return float(text) if "." in text else int(text)


def parse_pmd_stats(text: str) -> dict[str, dict[str, float | int]]:
    """``ovs-appctl dpif-netdev/pmd-stats-show`` as numbers, per thread.

    Keys of the result are the section titles (``pmd thread numa_id 0 core_id 0``,
    ``main thread``); in each, every ``name: N`` line becomes ``{name: N}``
    (``idle cycles: 123 (40.00%)`` gives ``idle cycles`` 123 and
    ``idle cycles %`` 40.0; ``avg processing cycles per packet: 55.2 (a/b)``
    gives 55.2)."""
    out: dict[str, dict[str, float | int]] = {}
    cur: dict[str, float | int] | None = None
    for line in text.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            cur = out.setdefault(line.strip().rstrip(":"), {})
            continue
        m = re.match(r"\s+(.+?):\s+(-?[0-9.]+)(?:\s+\(([0-9.]+)%\))?", line)
        if m and cur is not None:
            cur[m.group(1)] = _number(m.group(2))
            if m.group(3) is not None:
                cur[m.group(1) + " %"] = float(m.group(3))
    return out


class OvsDpdk:
    """A private OVS-DPDK: ``ovsdb-server`` and ``ovs-vswitchd-dpdk`` in ``workdir``.

    ``start`` creates the database, sets DPDK's options (``dpdk-init=true``,
    ``--in-memory --no-pci`` under its own file prefix, ``socket_mem`` MiB of
    hugepages, the main lcore and the PMD thread on ``cpu``, vhost-user sockets
    in ``workdir``) and starts both daemons, optionally in network namespace
    ``netns``. ``stop`` (also ``close``, ``with``) stops both and is safe to call
    after any failure. Commands raise ``OvsError`` with the tool's stderr and the
    tail of the vswitchd log."""

    def __init__(
        self,
        workdir: Path | str,
        name: str = "ovs",
        netns: str | None = None,
        cpu: int = DUT_CPU,
        socket_mem: int = 256,
        extra_eal: Sequence[str] = (),
        other_config: dict[str, str] | None = None,
    ) -> None:
        self.dir = Path(workdir)
        self.name = name
        self.netns = netns
        self.cpu = cpu
        self.socket_mem = socket_mem
        self.extra_eal = list(extra_eal)
        self.other_config = dict(other_config or {})
        self.db = self.dir / "conf.db"
        self.db_sock = self.dir / "db.sock"
        self.db_ctl = self.dir / "ovsdb-server.ctl"
        self.ctl = self.dir / "ovs-vswitchd.ctl"
        self.log = self.dir / "ovs-vswitchd.log"
        # vhost-sock-dir: OVS takes it relative to OVS_RUNDIR, our directory
        self.vhost_dir = self.dir / "vhost"
        self.prefix = name  # EAL --file-prefix
        self.env = {
            **os.environ,
            "OVS_RUNDIR": str(self.dir),
            "OVS_DBDIR": str(self.dir),
            "OVS_LOGDIR": str(self.dir),
            "OVS_SYSCONFDIR": str(self.dir),
            "OVS_PKGDATADIR": str(PKGDATADIR),
        }
        self.dbserver: Process | None = None
        self.vswitchd: Process | None = None
        self.commands: list[str] = []  # every vsctl/ofctl command, for the report

    # --- life --------------------------------------------------------------

    def _process(self, argv: list[str], log: str, label: str) -> Process:
        return Process(
            argv,
            self.dir / log,
            label=label,
            netns=self.netns,
            env=self.env,
            stop_signal=signal.SIGTERM,
            stop_timeout=15.0,
            error=OvsError,
        )

    def eal_args(self) -> list[str]:
        return [f"--file-prefix={self.prefix}", "--no-pci", "--in-memory", *self.extra_eal]

    def start(self, timeout: float = 60.0) -> OvsDpdk:
        for tool in (VSWITCHD, SCHEMA):
            if not tool.exists():
                raise OvsError(f"{tool} not found (apt-get install openvswitch-switch-dpdk)")
        self.vhost_dir.mkdir(parents=True, exist_ok=True)
        try:
            self._start(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self, timeout: float) -> None:
        for f in (self.db, self.db_sock, self.db_ctl, self.ctl):
            with contextlib.suppress(FileNotFoundError):
                f.unlink()
        self._tool(["ovsdb-tool", "create", str(self.db), str(SCHEMA)])
        self.dbserver = self._process(
            [
                "ovsdb-server",
                str(self.db),
                f"--remote=punix:{self.db_sock}",
                "--remote=db:Open_vSwitch,Open_vSwitch,manager_options",
                f"--pidfile={self.dir / 'ovsdb-server.pid'}",
                f"--unixctl={self.db_ctl}",
                f"--log-file={self.dir / 'ovsdb-server.log'}",
                "--no-chdir",
                "-vconsole:off",
            ],  # fmt: skip
            "ovsdb-server.out",
            "ovsdb-server",
        )
        self.dbserver.start()
        self.dbserver.wait_ready(self.db_sock.exists, timeout, f"listening on {self.db_sock}")
        self.vsctl("init", wait=False)
        cfg = {
            "dpdk-init": "true",
            "dpdk-extra": " ".join(self.eal_args()),
            "dpdk-socket-mem": str(self.socket_mem),
            "dpdk-socket-limit": str(self.socket_mem),
            "dpdk-lcore-mask": f"0x{1 << self.cpu:x}",
            "pmd-cpu-mask": f"0x{1 << self.cpu:x}",
            "vhost-sock-dir": self.vhost_dir.name,
            **self.other_config,
        }
        self.vsctl(
            "set", "Open_vSwitch", ".", *(f'other_config:{k}="{v}"' for k, v in cfg.items()),
            wait=False,
        )  # fmt: skip
        self.vswitchd = self._process(
            [
                str(VSWITCHD),
                f"unix:{self.db_sock}",
                f"--pidfile={self.dir / 'ovs-vswitchd.pid'}",
                f"--unixctl={self.ctl}",
                f"--log-file={self.log}",
                "--no-chdir",
                "-vconsole:off",
                "-vfile:info",
            ],  # fmt: skip
            "ovs-vswitchd.out",
            "ovs-vswitchd",
        )
        self.vswitchd.side_logs = [("log", self.log)]
        self.vswitchd.start()
        self.vswitchd.wait_ready(
            lambda: (
                self.vsctl("get", "Open_vSwitch", ".", "dpdk_initialized", wait=False) == "true"
            ),
            timeout,
            "DPDK-initialized",
            retry_on=(OvsError,),
            interval=0.3,
        )
        self.vswitchd.wait_ready(self.ctl.exists, timeout, f"answering on {self.ctl}")

    def stop(self) -> None:
        """Stop vswitchd, then ovsdb-server; idempotent. Errors if either had to be killed."""
        problems = []
        for p in (self.vswitchd, self.dbserver):
            if p is None:
                continue
            try:
                p.stop()
            except (ProcessError, OSError) as e:
                problems.append(str(e))
            if p.killed:
                problems.append(p.shutdown_problem() or f"{p.label} killed")
        self.vswitchd = self.dbserver = None
        # --in-memory leaves no EAL runtime files; sockets and pid files stay in the directory
        shutil.rmtree(f"/var/run/dpdk/{self.prefix}", ignore_errors=True)
        if problems:
            raise OvsError("OVS teardown: " + "; ".join(problems))

    def close(self) -> None:
        self.stop()

    def __enter__(self) -> OvsDpdk:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def running(self) -> bool:
        return self.vswitchd is not None and self.vswitchd.running()

    @property
    def pid(self) -> int | None:
        return self.vswitchd.pid if self.vswitchd is not None and self.vswitchd.proc else None

    def logs(self, lines: int = 40) -> str:
        return (
            self.vswitchd.logs(lines)
            if self.vswitchd is not None
            else tail(self.log, lines) or "(no ovs-vswitchd log)"
        )

    # --- tools -------------------------------------------------------------

    def _tool(self, argv: list[str], timeout: float = 60.0, record: bool = False) -> str:
        if record:
            self.commands.append(" ".join(argv))
        try:
            r = subprocess.run(
                argv, env=self.env, capture_output=True, text=True, timeout=timeout, check=False
            )
        except subprocess.TimeoutExpired:
            raise OvsError(f"{argv[0]}: no answer in {timeout:g}s: {' '.join(argv)}") from None
        if r.returncode != 0:
            raise OvsError(
                f"{' '.join(argv)} exited {r.returncode}: {(r.stderr or r.stdout).strip()}"
                + (f"\n{tail(self.log, 20)}" if self.vswitchd is not None else "")
            )
        return r.stdout.strip()

    def vsctl(self, *args: str, wait: bool = True, timeout: float = 60.0) -> str:
        """``ovs-vsctl`` on the private database; its stdout, stripped."""
        opts = [f"--db=unix:{self.db_sock}", f"--timeout={timeout:g}"]
        if not wait:
            opts.append("--no-wait")
        return self._tool(["ovs-vsctl", *opts, *args], timeout + 5, record=True)

    def ofctl(self, command: str, bridge: str, *args: str) -> str:
        """``ovs-ofctl COMMAND <bridge's mgmt socket> ARGS``."""
        mgmt = f"unix:{self.dir / bridge}.mgmt"
        return self._tool(["ovs-ofctl", command, mgmt, *args], record=True)

    def appctl(self, *args: str, timeout: float = 30.0) -> str:
        """``ovs-appctl -t <vswitchd's control socket> ARGS``."""
        return self._tool(
            ["ovs-appctl", f"--timeout={timeout:g}", "-t", str(self.ctl), *args], timeout + 5
        )

    # --- configuration -----------------------------------------------------

    def add_bridge(self, name: str) -> None:
        """A userspace (``datapath_type=netdev``) bridge; its local port stays down."""
        self.vsctl("add-br", name, "--", "set", "Bridge", name, "datapath_type=netdev")

    def _check_port(self, name: str) -> int:
        """The port's OpenFlow number; ``OvsError`` with OVS's reason if it failed."""
        err = self.vsctl("get", "Interface", name, "error", wait=False)
        ofport = self.vsctl("get", "Interface", name, "ofport", wait=False)
        if err not in ("[]", "", '""') or ofport in ("[]", "-1"):
            raise OvsError(
                f"OVS could not set up port {name}: error {err}, ofport {ofport}\n"
                f"{tail(self.log, 20)}"
            )
        return int(ofport)

    def _add_port(self, bridge: str, name: str, settings: list[str], ofport: int | None) -> int:
        if ofport is not None:
            settings = [*settings, f"ofport_request={ofport}"]
        self.vsctl("add-port", bridge, name, "--", "set", "Interface", name, *settings)
        return self._check_port(name)

    def add_dpdk_port(
        self, bridge: str, name: str, devargs: str, ofport: int | None = None, **options: str
    ) -> int:
        """A ``type=dpdk`` port from DPDK ``devargs`` (a vdev: net_memif, net_af_xdp...).
        Returns its OpenFlow port number.

        OVS gives a port one transmit queue per PMD thread plus one for its main
        thread, as many as the driver allows (af_xdp with queue_count=1: one,
        shared under a lock). A memif client therefore asks its peer for n_pmd + 1
        rings: a memif server configured with fewer receive queues refuses them
        ("Invalid ring index" in the log) and the link stays down. A memif client
        port also fails outright if its server's socket does not exist yet."""
        opts = [
            f'options:dpdk-devargs="{devargs}"',
            *(f"options:{k}={v}" for k, v in options.items()),
        ]
        return self._add_port(bridge, name, ["type=dpdk", *opts], ofport)

    def add_vhost_port(
        self, bridge: str, name: str, mode: str = "client", ofport: int | None = None
    ) -> tuple[int, Path]:
        """A vhost-user port and the path of its socket. ``mode="client"``:
        ``dpdkvhostuserclient``, OVS connects to a server at ``<dir>/<name>.sock``
        (the NF, e.g. virtio_user with server=1, creates it). ``mode="server"``:
        ``dpdkvhostuser``, OVS creates ``<vhost-sock-dir>/<name>``."""
        if mode == "client":
            path = self.dir / f"{name}.sock"
            settings = ["type=dpdkvhostuserclient", f"options:vhost-server-path={path}"]
        elif mode == "server":
            path = self.vhost_dir / name
            settings = ["type=dpdkvhostuser"]
        else:
            raise ValueError(f"vhost-user mode {mode!r}: client or server")
        return self._add_port(bridge, name, settings, ofport), path

    def link_state(self, name: str) -> str:
        """``up`` or ``down``, as OVS sees the interface."""
        return self.vsctl("get", "Interface", name, "link_state", wait=False)

    def wait_links_up(self, names: Sequence[str], timeout: float = 10.0) -> None:
        """Wait until every interface of ``names`` is up; ``OvsError`` naming those
        still down, with the log's tail."""
        deadline = time.monotonic() + timeout
        while True:
            down = [n for n in names if self.link_state(n) != "up"]
            if not down:
                return
            if time.monotonic() > deadline:
                raise OvsError(
                    f"OVS: link still down after {timeout:g}s: {', '.join(down)}\n"
                    f"{tail(self.log, 20)}"
                )
            time.sleep(0.2)

    def ofport(self, name: str) -> int:
        return int(self.vsctl("get", "Interface", name, "ofport", wait=False))

    def flows_normal(self, bridge: str, ageing_s: int = MAC_AGEING_S) -> None:
        """A learning switch: one flow ``actions=NORMAL``, MAC ageing ``ageing_s``."""
        self.vsctl("set", "Bridge", bridge, f"other_config:mac-aging-time={ageing_s}")
        self.ofctl("del-flows", bridge)
        self.ofctl("add-flow", bridge, "priority=0,actions=NORMAL")

    def flows_chain(self, bridge: str, hops: Sequence[str | int]) -> list[str]:
        """Steer ``hops`` (port names or numbers) as a chain, both ways:
        in_port=hops[i] -> hops[i+1] and in_port=hops[i+1] -> hops[i] for each
        pair (0,1), (2,3)...: e.g. [p0, nf1a, nf1b, nf2a, nf2b, p1] puts two
        NFs between p0 and p1, each NF forwarding between its a and b ports.
        Every other packet is dropped. Returns the flows."""
        if len(hops) % 2:
            raise ValueError("flows_chain: an even number of ports (pairs of in -> out)")
        nums = [h if isinstance(h, int) else self.ofport(h) for h in hops]
        flows = []
        for a, b in zip(nums[0::2], nums[1::2], strict=True):
            flows += [f"priority=10,in_port={a},actions=output:{b}",
                      f"priority=10,in_port={b},actions=output:{a}"]  # fmt: skip
        self.ofctl("del-flows", bridge)
        for f in flows:
            self.ofctl("add-flow", bridge, f)
        self.ofctl("add-flow", bridge, "priority=0,actions=drop")
        return flows

    def pmd_stats(self) -> dict[str, dict[str, float | int]]:
        """``dpif-netdev/pmd-stats-show`` per thread (``parse_pmd_stats``)."""
        return parse_pmd_stats(self.appctl("dpif-netdev/pmd-stats-show"))

    def pmd_totals(self) -> dict[str, int]:
        """Packets received and idle/processing cycles of all PMD threads together."""
        keys = ("packets received", "processing cycles", "idle cycles")
        tot = dict.fromkeys(keys, 0)
        for title, st in self.pmd_stats().items():
            if title.startswith("pmd thread"):
                for k in keys:
                    tot[k] += int(st.get(k, 0))
        return tot

    def pmd_stats_clear(self) -> None:
        self.appctl("dpif-netdev/pmd-stats-clear")

    def pmd_tids(self) -> list[int]:
        """Thread ids of the PMD threads (named ``pmd-c<core>/id:<n>``)."""
        pid = self.pid
        out = []
        if pid is None:
            return out
        with contextlib.suppress(OSError):
            for tid in os.listdir(f"/proc/{pid}/task"):
                with contextlib.suppress(OSError):
                    if Path(f"/proc/{pid}/task/{tid}/comm").read_text().startswith("pmd"):
                        out.append(int(tid))
        return sorted(out)


# --------------------------------------------------------------------------
# DUTs


class OvsDpdkDut(Dut):
    """OVS-DPDK as a learning switch between the testbed's two DUT ports."""

    name = "ovsdpdk"
    wires = duts.WIRES
    # OVS gives each port n_pmd + 1 transmit queues: its memif client opens 2 rings
    gen_rxq = 2
    switch = True
    bridge = "br0"
    # other_config over OvsDpdk's defaults (a subclass's: bench/l2.py puts the
    # main lcore on the generator's CPU, the PMD alone on DUT_CPU)
    ovs_config: ClassVar[dict[str, str]] = {}

    def start(self, ports: tuple[str, str]) -> None:
        tb = self.tb
        self.ovs = OvsDpdk(
            tb.workdir / "ovs", name=f"{tb.tag}o", netns=tb.dut_ns_name,
            other_config=self.ovs_config,
        )  # fmt: skip
        self.ovs.start()
        self.ovs.add_bridge(self.bridge)
        for i, devargs in enumerate(ports):
            self.ovs.add_dpdk_port(self.bridge, f"p{i}", devargs, ofport=i + 1)
        self.ovs.flows_normal(self.bridge)
        self.ovs.wait_links_up(["p0", "p1"])
        deadline = time.monotonic() + 30
        while not self.ovs.pmd_tids():
            if time.monotonic() > deadline:
                raise OvsError(f"OVS started no PMD thread\n{self.ovs.logs()}")
            time.sleep(0.2)

    def stop(self) -> None:
        if getattr(self, "ovs", None) is not None:
            self.ovs.stop()

    def running(self) -> bool:
        return self.ovs.running()

    def logs(self) -> str:
        return self.ovs.logs()

    def pid(self) -> int | None:
        return self.ovs.pid

    def watch_tids(self) -> list[int]:
        return self.ovs.pmd_tids()

    def all_tids(self) -> list[int]:
        pid = self.ovs.pid
        return sorted(set(self.ovs.pmd_tids()) | set(pinned_threads(pid, DUT_CPU) if pid else []))

    def describe(self) -> dict[str, Any]:
        return {
            "dut": self.name,
            "command": self.ovs.vswitchd.command_line if self.ovs.vswitchd else None,
            "ovs_commands": list(self.ovs.commands),
        }

    def cost_snapshot(self) -> dict[str, Any]:
        return {"t": time.monotonic(), **self.ovs.pmd_totals()}

    def cost(self, a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        d = {k: b[k] - a[k] for k in a}
        rx = d["packets received"]
        cyc = d["processing cycles"]
        return {
            "method": "ovs-appctl dpif-netdev/pmd-stats-show: processing cycles (TSC cycles of "
            "PMD iterations that received packets) / packets received",
            "cycles_per_pkt": cyc / rx if rx else None,
            "busy_ratio": cyc / (cyc + d["idle cycles"]) if cyc + d["idle cycles"] else None,
            "forwarded": rx,
            "delta": d,
        }


class LinuxBridgeDut(KernelDut):
    """A Linux bridge of d0 and d1 in the DUT namespace: no STP, ageing 3600 s,
    no address (it only switches). RPS steers both veths' receive work to
    DUT_CPU, so the cost is the ``kernel`` DUT's, measured the same way."""

    name = "linuxbridge"
    wires = ("veth",)
    switch = True

    def start(self, ports: tuple[str, str]) -> None:
        ns = self.tb.dut_ns
        assert ns is not None
        self.ns = ns
        self.steps = [
            # ageing_time in centiseconds
            f"ip link add br0 type bridge stp_state 0 ageing_time {MAC_AGEING_S * 100} "
            "forward_delay 0",
            "ip link set d0 master br0",
            "ip link set d1 master br0",
            "ip link set br0 up",
            f"sh -c 'echo {1 << DUT_CPU:x} > /sys/class/net/d0/queues/rx-0/rps_cpus'",
            f"sh -c 'echo {1 << DUT_CPU:x} > /sys/class/net/d1/queues/rx-0/rps_cpus'",
        ]
        for step in self.steps:
            ns.run(step)


duts.register(OvsDpdkDut)
duts.register(LinuxBridgeDut)

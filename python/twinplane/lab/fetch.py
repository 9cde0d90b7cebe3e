# SPDX-License-Identifier: BSD-3-Clause
"""The downloader's lab: ``twinplane-fetch`` on a DPDK port in namespace ``c``, a Linux
router in ``r`` and nginx (Debian's) in ``s``::

    c: c0 (DPDK, 10.0.1.2) --- r0 10.0.1.1 [r, ip_forward] r1 10.0.2.1 --- s0 10.0.2.2: nginx

Every veth has TX checksum offload, TSO and GSO off (DESIGN.md: frames to a DPDK port
must be whole and checksummed). ``impair`` adds nftables rules on the router that drop,
duplicate and reorder the server's packets towards the client::

    with FetchLab() as lab:
        lab.add_file("big.bin", 64 << 20)
        res = lab.fetch("http://10.0.2.2/big.bin", "out.bin")
        assert res.returncode == 0 and res.summary["sha256"] == lab.sha256("big.bin")
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twinplane.lab.daemon import build_dir
from twinplane.lab.lab import Lab, LabError
from twinplane.lab.netns import run, veth
from twinplane.proc import Process, ProcessError, remove_dpdk_runtime

CLIENT_ADDR = "10.0.1.2/24"
GW = "10.0.1.1"
SERVER = "10.0.2.2"
# net_af_xdp without busy polling: an empty poll of the downloader's loop makes no system
# call (with it, each one is a recvfrom that runs c0's NAPI, the kernel's receive work,
# on the client's CPU in passes the loop counts as idle); see README, Decisions
PORT_OPTS = "busy_budget=0"


def fetch_binary() -> Path:
    """Path of the downloader: $TP_FETCH, else <build>/src/twinplane-fetch."""
    return Path(os.environ.get("TP_FETCH", build_dir() / "src" / "twinplane-fetch"))


def testdut_binary() -> Path:
    """The project's impairment element: $TP_TESTDUT, else <build>/tests/tools/tp-testdut."""
    return Path(os.environ.get("TP_TESTDUT", build_dir() / "tests" / "tools" / "tp-testdut"))


def nginx_binary() -> str | None:
    """nginx from Debian's package, or None."""
    return shutil.which("nginx") or (
        "/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None
    )


class NginxError(ProcessError):
    """nginx did not start or died."""


NGINX_CONF = """\
daemon off;
master_process on;
worker_processes 1;
user root;
pid {dir}/nginx.pid;
error_log {dir}/error.log info;
events {{ worker_connections 256; }}
http {{
    access_log {dir}/access.log;
    default_type application/octet-stream;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 30;
    client_body_temp_path {dir}/tmp;
    server {{
        listen {addr}:80;
        listen {addr}:8080;
        root {root};
        # the same files without a length: SSI drops Content-Length, so HTTP/1.1
        # clients get them chunked (the files hold no SSI command)
        location /chunked/ {{ alias {root}/; ssi on; ssi_types *; }}
        # the same files, slowly: 'server closing early' stops nginx mid-transfer
        location /slow/ {{ alias {root}/; limit_rate {slow_rate}; }}
        location = /redirect {{ return 302 /small.bin; }}
        location = /redirect-abs {{ return 301 http://{addr}:8080/small.bin; }}
        location = /loop {{ return 302 /loop; }}
    }}
}}
"""


def write_pattern(path: Path, size: int, key: str) -> str:
    """Write ``size`` pseudo-random bytes derived from ``key`` to ``path``; returns their
    SHA-256. Each MiB differs from the others; no ``<`` appears (no "<!--#" for nginx's
    SSI in ``/chunked/``)."""
    h = hashlib.sha256()
    block = memoryview(hashlib.shake_256(key.encode()).digest(1 << 20).replace(b"<", b">"))
    with open(path, "wb") as f:
        left = size
        i = 0
        while left:
            k = i % len(block)  # a rotation of the block per MiB, written without a copy
            for part in (block[k:], block[:k]):
                part = part[: min(left, len(part))]
                f.write(part)
                h.update(part)
                left -= len(part)
            i += 7919
    return h.hexdigest()


class Nginx(Process):
    """nginx serving ``root`` on ``addr`` ports 80 and 8080 in namespace ``netns``."""

    def __init__(
        self,
        netns: str,
        workdir: Path,
        root: Path,
        addr: str,
        slow_rate: str,
        cpus: int | None = None,
    ) -> None:
        self.dir = workdir / "nginx"
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "tmp").mkdir(exist_ok=True)
        self.addr = addr
        conf = self.dir / "nginx.conf"
        conf.write_text(NGINX_CONF.format(dir=self.dir, root=root, addr=addr, slow_rate=slow_rate))
        binary = nginx_binary()
        if binary is None:
            raise NginxError("nginx not installed (scripts/setup.sh installs it)")
        super().__init__(
            [binary, "-e", "stderr", "-p", str(self.dir), "-c", str(conf)],
            self.dir / "nginx.out",
            label="nginx",
            netns=netns,
            cpus=cpus,
            stop_signal=signal.SIGTERM,
            stop_timeout=5.0,
            side_logs=[("error.log", self.dir / "error.log")],
            error=NginxError,
        )


@dataclass
class FetchResult:
    """One run of the downloader: exit status, output, the JSON summary if asked."""

    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    summary: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return (
            f"{' '.join(self.argv)}\n exit {self.returncode} in {self.seconds:.1f}s\n"
            f" stdout: {self.stdout.strip()}\n stderr: {self.stderr.strip()}"
        )


class FetchLab(Lab):
    """The three namespaces, nginx serving ``root`` (the lab's ``www``), and the way to
    run the downloader in ``c`` (``fetch``) and kernel tools there too, on the same
    veth (``set_kernel_client``, ``client_argv``: curl and wget)."""

    def __init__(
        self,
        *,
        mtu: int = 1500,
        slow_rate: str = "2m",
        dut: list[str] | None = None,
        server_cpu: int | None = None,
        router_cpu: int | None = None,
        keep: bool | None = None,
    ) -> None:
        """``dut``: put tp-testdut with these options (``--drop-every 100``...) between
        the client and the router, in namespace ``d`` (c0 - d0 [tp-testdut] d1 - r0).
        ``server_cpu``: nginx (master and worker) pinned to that CPU. ``router_cpu``:
        what the client sends is received by the router on that CPU (RPS on ``r0``),
        not on the client's: see ``steer_router``."""
        super().__init__(keep=keep)
        self.dut_args = dut
        self.server_cpu = server_cpu
        self.router_cpu = router_cpu
        self.kernel_client = False
        self.www = self.workdir / "www"
        self.www.mkdir()
        self.out = self.workdir / "out"
        self.out.mkdir()
        self._hashes: dict[str, str] = {}
        self.name_prefix = "tpf" + secrets.token_hex(3)
        self.runs = 0
        try:
            self._build(mtu, slow_rate)
        except BaseException:
            self.close()
            raise

    def _build(self, mtu: int, slow_rate: str) -> None:
        c, r, s = self.add_ns("c"), self.add_ns("r"), self.add_ns("s")
        if self.dut_args is None:
            veth(c, "c0", r, "r0", mtu=mtu)
        else:
            d = self.add_ns("d")
            veth(c, "c0", d, "d0", mtu=mtu)
            veth(d, "d1", r, "r0", mtu=mtu)
        veth(r, "r1", s, "s0", mtu=mtu)
        r.run(["ip", "addr", "add", f"{GW}/24", "dev", "r0"])
        r.run(["ip", "addr", "add", "10.0.2.1/24", "dev", "r1"])
        r.sysctl({"net.ipv4.ip_forward": "1"})
        s.run(["ip", "addr", "add", f"{SERVER}/24", "dev", "s0"])
        s.run(["ip", "route", "add", "default", "via", "10.0.2.1"])
        if self.router_cpu is not None:
            self.steer_router(self.router_cpu)
        if self.dut_args is not None:
            self._start_dut()
        self.nginx = Nginx(s.name, self.workdir, self.www, SERVER, slow_rate, self.server_cpu)
        self.defer("stop nginx", self.nginx.stop)
        self.start_nginx()

    def _start_dut(self) -> None:
        name = f"{self.name_prefix}dut"
        self.dut = Process(
            [
                str(testdut_binary()),
                "--name",
                name,
                "--lcores",
                "0",
                "--port",
                "net_af_xdp0,iface=d0,start_queue=0,queue_count=1",
                "--port",
                "net_af_xdp1,iface=d1,start_queue=0,queue_count=1",
                *(self.dut_args or []),
            ],  # fmt: skip
            self.workdir / "testdut.out",
            label="tp-testdut",
            netns=self.ns["d"].name,
            stop_signal=signal.SIGTERM,
            cleanup=functools.partial(remove_dpdk_runtime, name),
            error=LabError,
        )
        self.defer("stop tp-testdut", self.dut.stop)
        self.dut.start()
        out = self.workdir / "testdut.out"
        self.dut.wait_ready(
            lambda: out.exists() and "forwarding" in out.read_text(errors="replace"),
            20.0,
            "forwarding",
        )

    def start_nginx(self) -> None:
        self.nginx.start()

        def listening() -> bool:
            out = self.run("s", ["ss", "-Htln", f"src {SERVER}:80"], check=False)
            return f"{SERVER}:80" in out

        self.nginx.wait_ready(listening, 10.0, "listening on port 80")

    # --- content ---------------------------------------------------------------

    def add_file(self, name: str, size: int, seed: int = 0) -> str:
        """A file of ``size`` pseudo-random bytes under the server's root (and the
        ``/chunked/`` and ``/slow/`` views); returns its SHA-256."""
        digest = write_pattern(self.www / name, size, f"{name}-{seed}")
        self._hashes[name] = digest
        return digest

    def link_file(self, name: str, path: Path, digest: str) -> None:
        """Serve an existing file (``write_pattern``'s) as ``name``: a hard link when
        on the same file system, else a symbolic link."""
        target = self.www / name
        try:
            os.link(path, target)
        except OSError:
            target.symlink_to(path)
        self._hashes[name] = digest

    def sha256(self, name: str) -> str:
        return self._hashes[name]

    @staticmethod
    def file_sha256(path: Path) -> str:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
        return h.hexdigest()

    # --- impairment --------------------------------------------------------------

    def impair(self, drop_pct: float = 0.0, dup_pct: float = 0.0) -> None:
        """nftables on the router, for packets towards the client: drop ``drop_pct``
        and duplicate ``dup_pct`` per cent of them (numgen random per packet)."""

        def per_10k(pct: float) -> int:
            return int(round(pct * 100))

        rules = [
            "table ip tpimpair {",
            " chain impair { type filter hook forward priority 0; policy accept;",
        ]
        if dup_pct:
            rules.append(
                f"  ip daddr 10.0.1.2 numgen random mod 10000 < {per_10k(dup_pct)} "
                'dup to 10.0.1.2 device "r0"'
            )
        if drop_pct:
            rules.append(f"  ip daddr 10.0.1.2 numgen random mod 10000 < {per_10k(drop_pct)} drop")
        rules += [" }", "}"]
        run(["nft", "-f", "-"], ns=self.ns["r"].name, input="\n".join(rules) + "\n")

    def impair_off(self) -> None:
        """Remove the impairment rules."""
        self.ns["r"].run(["nft", "delete", "table", "ip", "tpimpair"], check=False)

    # --- the wire and the kernel's client ------------------------------------------

    def path_ifaces(self) -> list[tuple[str, str]]:
        """Every veth end between the client and the server, as (namespace, name)."""
        ends = [("c", "c0"), ("r", "r0"), ("r", "r1"), ("s", "s0")]
        if self.dut_args is not None:
            ends += [("d", "d0"), ("d", "d1")]
        return ends

    def steer_router(self, cpu: int) -> None:
        """RPS on the router's client-facing veth (``r0``, every receive queue): the
        frames the client sends are routed, and handled by the server's TCP, on ``cpu``.
        A veth runs a frame's receive path on the sending CPU; without this, each ACK a
        client sends (twinplane-fetch's AF_XDP transmit kick, curl's ACKs from its
        ``recv``) has the router forward it and nginx answer it with its next segments
        on the client's CPU, inside the client's system call. Two machines would not
        share that work; the same for every tool."""
        mask = format(1 << cpu, "x")
        # /sys as the router's namespace sees it (ip netns exec mounts it)
        self.ns["r"].run(
            [
                "sh",
                "-c",
                f"for f in /sys/class/net/r0/queues/rx-*/rps_cpus; do echo {mask} > $f; done",
            ]
        )

    def set_offloads(self, on: bool) -> None:
        """TX checksum offload, scatter-gather, TSO and GSO on every veth of the path:
        off (the lab's default, what a DPDK port needs) or on (a veth's defaults: the
        kernel's TCP then moves 64 KiB segments end to end)."""
        state = "on" if on else "off"
        for ns, ifname in self.path_ifaces():
            self.ns[ns].run(
                ["ethtool", "-K", ifname, "tx", state, "sg", state, "tso", state, "gso", state]
            )

    def set_kernel_client(self, on: bool) -> None:
        """Give c0 the client's address in the kernel (for curl and wget over kernel
        sockets on the same veth), or take it away again (for twinplane-fetch, which
        owns c0 through af_xdp and answers ARP for that address itself)."""
        if on == self.kernel_client:
            return
        c = self.ns["c"]
        if on:
            c.run(["ip", "addr", "add", CLIENT_ADDR, "dev", "c0"])
            c.run(["ip", "route", "add", "default", "via", GW])
        else:
            c.run(["ip", "addr", "flush", "dev", "c0"])
        # the router learns the client's MAC again either way (it is c0's in both)
        self.ns["r"].run(["ip", "neigh", "flush", "dev", "r0"], check=False)
        self.kernel_client = on

    def client_argv(self, argv: list[str], cpu: int | None = None) -> list[str]:
        """``argv`` run in the client's namespace, pinned to ``cpu`` if given."""
        pin = ["taskset", "-c", str(cpu)] if cpu is not None else []
        return ["ip", "netns", "exec", self.ns["c"].name, *pin, *argv]

    # --- the downloader -------------------------------------------------------------

    def fetch(
        self,
        url: str,
        output: str | Path,
        *extra: str,
        timeout: float = 120.0,
        cpu: int | None = None,
        background: bool = False,
    ) -> FetchResult | subprocess.Popen[str]:
        """Run twinplane-fetch in ``c`` on af_xdp over c0 (JSON summary on). ``cpu``:
        the whole process on that CPU from its start (EAL initialisation included, as
        ``client_argv`` pins a kernel tool), its lcore too. With ``background``, the
        Popen (stdout, stderr piped); else its result."""
        binary = fetch_binary()
        if not binary.exists():
            raise LabError(f"{binary} not built")
        if self.kernel_client:
            raise LabError("c0 has a kernel address: set_kernel_client(False) first")
        self.runs += 1
        name = f"{self.name_prefix}{self.runs}"
        out = Path(output)
        if not out.is_absolute():
            out = self.out / out
        lcores = f"0@({cpu})" if cpu is not None else "0"
        argv = [
            str(binary),
            "--name", name,
            "--lcores", lcores,
            "--port", f"net_af_xdp0,iface=c0,start_queue=0,queue_count=1,{PORT_OPTS}",
            "--addr", CLIENT_ADDR,
            "--gw", GW,
            "--json", "--quiet",
            url, "-o", str(out),
            *extra,
        ]  # fmt: skip
        full = self.client_argv(argv, cpu)
        self.defer(f"remove DPDK runtime {name}", functools.partial(remove_dpdk_runtime, name))
        if background:
            return subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        t0 = time.monotonic()
        res = subprocess.run(full, capture_output=True, text=True, timeout=timeout, check=False)
        return self.result(argv, res.returncode, res.stdout, res.stderr, time.monotonic() - t0)

    @staticmethod
    def result(argv: list[str], rc: int, stdout: str, stderr: str, seconds: float) -> FetchResult:
        r = FetchResult(argv, rc, stdout, stderr, seconds)
        for line in stdout.splitlines():
            if line.startswith("{"):
                r.summary = json.loads(line)
        return r

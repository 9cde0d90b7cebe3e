# SPDX-License-Identifier: BSD-3-Clause
"""ACME, a real oneM2M IN-CSE (pip ``acmecse``), run by the lab, and a small HTTP client for it.

``Acme`` writes an ini file into its work directory, starts ``acmecse`` there
(on loopback, or inside a lab ``Netns`` via ``ip netns exec``), waits until
both its HTTP binding answers a RETRIEVE of the CSEBase and its CoAP binding
answers a CoAP ping, and always stops it: ``close()`` (also run by ``with``,
by ``start()`` when start-up fails, and by the lab when made with
``Acme.in_lab``) sends SIGTERM to its process group and SIGKILL after a
timeout. The database is in memory; nothing outlives the process.

Reading resources back goes over HTTP (TS-0009 binding), so tests check what
the gateway sent over CoAP through a different path: ``get``, ``children``,
``instances``, ``latest`` (the ``la`` virtual resource) and ``ae_exists``.
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import shutil
import socket
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from twinplane.lab.daemon import REPO_ROOT
from twinplane.lab.lab import Lab
from twinplane.lab.netns import Netns
from twinplane.proc import Process, ProcessError, tail

ADMIN = "CAdmin"
RVI = "3"
COAP_PORT = 5683
HTTP_PORT = 8080

Json = dict[str, Any]


class AcmeError(ProcessError):
    """ACME did not start, died, or answered a request with an error."""


class _PortInUse(AcmeError):
    """ACME runs, but one of its bindings could not bind its port."""


class _NotYet(Exception):
    """ACME runs but does not answer as it should yet (start-up)."""


def acme_binary() -> Path | None:
    """The ``acmecse`` entry point: $TP_ACMECSE, the running venv's, the repo venv's, or PATH."""
    env = os.environ.get("TP_ACMECSE")
    if env:
        return Path(env)
    for cand in (
        Path(sys.executable).parent / "acmecse",
        REPO_ROOT / ".venv" / "bin" / "acmecse",
    ):
        if cand.exists():
            return cand
    found = shutil.which("acmecse")
    return Path(found) if found else None


def acme_available() -> bool:
    """True if ``acmecse`` is installed (see scripts/setup.sh)."""
    binary = acme_binary()
    return binary is not None and os.access(binary, os.X_OK)


def free_port(kind: int, address: str = "127.0.0.1") -> int:
    """A port the kernel says is free now for ``kind`` (SOCK_STREAM, SOCK_DGRAM) on ``address``."""
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind((address, 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Response:
    """A oneM2M response over HTTP: the Response Status Code and the JSON body."""

    rsc: int
    body: Json | None
    status: int

    @property
    def ok(self) -> bool:
        return 2000 <= self.rsc < 3000


class _NsHTTPConnection(http.client.HTTPConnection):
    """An HTTPConnection whose socket lives in a lab namespace."""

    def __init__(self, ns: Netns, host: str, port: int, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._ns = ns

    def connect(self) -> None:
        sock = self._ns.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.settimeout(self.timeout)
            sock.connect((self.host, self.port))
        except BaseException:
            sock.close()
            raise
        self.sock = sock


class Acme(Process):
    """One ACME IN-CSE process with HTTP and CoAP bindings.

    ``address`` is where both bindings listen; in the root namespace the
    ports default to free ones (parallel runs do not collide), in a lab
    namespace to 8080 (HTTP) and 5683 (CoAP). ``coap_target`` is the
    ``host:port`` for coap-tool and the gateway.
    """

    def __init__(
        self,
        workdir: Path | str,
        *,
        ns: Netns | None = None,
        address: str = "127.0.0.1",
        http_port: int | None = None,
        coap_port: int | None = None,
        cse_id: str = "id-in",
        cse_name: str = "cse-in",
        admin: str = ADMIN,
        log_level: str = "info",
        binary: Path | None = None,
        database: str = "memory",
        expiration_interval: int | None = None,
    ) -> None:
        self.workdir = Path(workdir)
        self.ns = ns
        self.address = address
        self._ports_given = http_port is not None or coap_port is not None
        self.http_port = http_port or (HTTP_PORT if ns else free_port(socket.SOCK_STREAM, address))
        self.coap_port = coap_port or (COAP_PORT if ns else free_port(socket.SOCK_DGRAM, address))
        self.cse_id = cse_id
        self.cse_name = cse_name
        self.admin = admin
        self.log_level = log_level
        # "memory", or "tinydb": resources kept in the work directory across a restart
        self.database = database
        # seconds between ACME's looks for resources past their expirationTime (et),
        # which it then deletes with their children; None: its default (60 s)
        self.expiration_interval = expiration_interval
        self.binary = binary or acme_binary()
        self.config_path = self.workdir / "acme.ini"
        self.out_path = self.workdir / "acme.out"
        self._rqi = itertools.count(1)
        # --config takes a bare file name, looked up in --base-directory
        argv = [
            str(self.binary or "acmecse"),
            "--base-directory", str(self.workdir),
            "--config", self.config_path.name,
            "--headless",
        ]  # fmt: skip
        super().__init__(
            argv,
            self.out_path,
            label="ACME",
            netns=ns,
            cwd=self.workdir,
            env=dict(os.environ, PYTHONUNBUFFERED="1"),
            append_log=True,  # across the attempts of start()
            kill_group=True,
            side_logs=self._log_files,
            error=AcmeError,
        )

    @classmethod
    def in_lab(cls, lab: Lab, ns: Netns | None = None, **kwargs: Any) -> Acme:
        """Start ACME in ``lab``'s work directory; the lab stops it on close."""
        acme = cls(lab.workdir / "acme", ns=ns, **kwargs)
        lab.defer("stop ACME", acme.close)
        acme.start()
        return acme

    def __repr__(self) -> str:
        where = f" in {self.ns.name}" if self.ns else ""
        return f"Acme(http {self.address}:{self.http_port}, coap {self.coap_target}{where})"

    # -- process ---------------------------------------------------------

    @property
    def coap_target(self) -> str:
        return f"{self.address}:{self.coap_port}"

    @property
    def http_url(self) -> str:
        return f"http://{self.address}:{self.http_port}"

    def config(self) -> str:
        """The ini file: [basic.config] values the default acme.ini interpolates, and overrides.

        Section and key names are those of acmecse's init/acme.ini.default.
        """
        cse = (
            f"\n[cse]\ncheckExpirationsInterval={self.expiration_interval}\n"
            if self.expiration_interval is not None
            else ""
        )
        return f"""\
[basic.config]
cseType=IN
cseID={self.cse_id}
cseName={self.cse_name}
adminID={self.admin}
networkInterface={self.address}
cseHost={self.address}
httpPort={self.http_port}
databaseType={self.database}
logLevel={self.log_level}
consoleType=simple

[cse.registration]
allowedAEOriginators=C*,S*

[http]
enable=true

[coap]
enable=true
port={self.coap_port}
listenIF={self.address}

[console]
headless=true

[textui]
enable=false

[webui]
enable=false

[cse.statistics]
enable=false

[logging]
enableFileLogging=true
enableScreenLogging=false
path={self.workdir / "logs"}
{cse}"""

    def start(self, timeout: float = 60.0) -> Self:
        """Write the config, start ACME and wait until HTTP and CoAP answer.

        In the root namespace with both ports chosen here, a port taken between
        choosing and binding (a parallel run) makes ACME exit; it is then
        restarted on new ports, up to three times.
        """
        if self.binary is None or not self.binary.exists():
            raise AcmeError("acmecse not installed (pip install acmecse; or set TP_ACMECSE)")
        if self.proc is not None:
            raise AcmeError("ACME already started")
        self.workdir.mkdir(parents=True, exist_ok=True)
        for attempt in range(3):
            try:
                self._spawn()
                self._wait_ready(timeout)
                return self
            except AcmeError as e:
                # an HTTP port in use makes ACME exit; a CoAP one only logs an error
                died = self.proc is not None and not self.running()
                self.close()
                retry = died or isinstance(e, _PortInUse)
                if not retry or self._ports_given or self.ns is not None or attempt == 2:
                    raise
                self.http_port = free_port(socket.SOCK_STREAM, self.address)
                self.coap_port = free_port(socket.SOCK_DGRAM, self.address)
            except BaseException:
                self.close()
                raise
        raise AssertionError("unreachable")

    def restart(self, timeout: float = 60.0) -> Self:
        """Stop ACME and start it again on the same ports (with ``database="tinydb"``
        it keeps its resources, as an IN-CSE that restarts does)."""
        self.stop()
        self.proc = None
        return self.start(timeout)

    def _spawn(self) -> None:
        # a failed attempt's log is kept aside, out of the way of _bind_failed
        for old in (self.workdir / "logs").glob("*.log"):
            old.rename(old.with_suffix(f".log.{int(time.time() * 1000)}"))
        self.config_path.write_text(self.config())
        super().start()

    def _wait_ready(self, timeout: float) -> None:
        http_ok = False

        def ready() -> bool:
            nonlocal http_ok
            if not http_ok:
                r = self.request("GET", self.cse_name, timeout=2.0)
                if r.rsc != 2000:
                    raise _NotYet(f"HTTP RETRIEVE {self.cse_name}: rsc {r.rsc}")
                http_ok = True
            # the answer could come from whoever holds the port if ACME could not bind
            if self._bind_failed():
                raise _PortInUse(f"a port of ACME is in use\n{self.logs()}")
            if not self.coap_ping():
                raise _NotYet(f"no answer to a CoAP ping on {self.coap_target}")
            # ACME answers over HTTP and CoAP seconds before its start is done (its
            # "CSE started", after the importer and the managers): at log levels that
            # print it, wait for that line, so a test's next request meets a started CSE
            if self.log_level.lower() in ("debug", "info") and not self._started():
                raise _NotYet("no 'CSE started' in ACME's log yet")
            return True

        self.wait_ready(
            ready,
            timeout,
            "answering over HTTP and CoAP",
            retry_on=(OSError, http.client.HTTPException, ValueError, _NotYet),
        )

    def _started(self) -> bool:
        return any(
            "CSE started" in tail(path, 200) for path in (self.workdir / "logs").glob("*.log")
        )

    def _bind_failed(self) -> bool:
        return any(
            "Address already in use" in tail(path, 200)
            for path in (self.workdir / "logs").glob("*.log")
        )

    def coap_ping(self, timeout: float = 1.0) -> bool:
        """True if the CoAP binding answers a CON GET of the CSEBase with an ACK.

        ACME (CoAPthon) does not answer an Empty CON ("CoAP ping", RFC 7252
        4.3), so the probe is a GET with a single Uri-Path option; any ACK
        with its Message ID counts, whatever the code.
        """
        mid = next(self._rqi) & 0xFFFF
        name = self.cse_name.encode()
        if not 0 < len(name) < 269:
            raise ValueError(f"CSE name {self.cse_name!r}: 1-268 bytes")
        # RFC 7252 3: CON (0x40) GET (0x01), MID; Uri-Path (11): 4-bit length, or 13 + 1 byte
        opt = bytes([0xB0 | len(name)]) if len(name) < 13 else bytes([0xBD, len(name) - 13])
        probe = bytes([0x40, 0x01, mid >> 8, mid & 0xFF]) + opt + name
        sock = (
            self.ns.socket(socket.AF_INET, socket.SOCK_DGRAM)
            if self.ns is not None
            else socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        )
        with sock:
            sock.settimeout(timeout)
            sock.connect((self.address, self.coap_port))
            sock.send(probe)
            try:
                while True:
                    data = sock.recv(65536)
                    if len(data) >= 4 and data[0] & 0xF0 == 0x60 and data[2:4] == probe[2:4]:
                        return True
            except (TimeoutError, ConnectionRefusedError):
                return False

    def _log_files(self) -> Iterable[tuple[str, Path]]:
        return [(p.name, p) for p in sorted((self.workdir / "logs").glob("*.log"))]

    # -- HTTP client (TS-0009) --------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        originator: str | None = None,
        body: Json | None = None,
        ty: int | None = None,
        query: str | None = None,
        timeout: float = 30.0,
    ) -> Response:
        """One oneM2M request over HTTP; ``path`` is CSE-relative ("cse-in/ae/cnt").
        ``timeout`` is long: on a stalling host ACME once took more than 10 s to answer."""
        url = "/" + path.lstrip("/") + (f"?{query}" if query else "")
        headers = {
            "X-M2M-Origin": originator or self.admin,
            "X-M2M-RI": f"tp-{os.getpid()}-{next(self._rqi)}",
            "X-M2M-RVI": RVI,
            "Accept": "application/json",
        }
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json" + (f";ty={ty}" if ty else "")
        if self.ns is not None:
            conn: http.client.HTTPConnection = _NsHTTPConnection(
                self.ns, self.address, self.http_port, timeout
            )
        else:
            conn = http.client.HTTPConnection(self.address, self.http_port, timeout=timeout)
        try:
            conn.request(method, url, body=data, headers=headers)
            resp = conn.getresponse()
            raw = resp.read()
            rsc = int(resp.getheader("X-M2M-RSC") or 0)
            status = resp.status
        finally:
            conn.close()
        parsed = json.loads(raw) if raw.strip() else None
        return Response(rsc=rsc, body=parsed, status=status)

    def get(self, path: str, originator: str | None = None) -> Json:
        """RETRIEVE ``path``; the body ({"m2m:ae": {...}}), or AcmeError."""
        r = self.request("GET", path, originator)
        if not r.ok or r.body is None:
            raise AcmeError(f"GET {path}: rsc {r.rsc}: {r.body}")
        return r.body

    def create(self, path: str, ty: int, body: Json, originator: str | None = None) -> Json:
        """CREATE a child of ``path`` over HTTP (for set-up and comparison in tests)."""
        r = self.request("POST", path, originator, body=body, ty=ty)
        if r.rsc != 2001 or r.body is None:
            raise AcmeError(f"CREATE in {path}: rsc {r.rsc}: {r.body}")
        return r.body

    def children(self, path: str, ty: int | None = None) -> list[Json]:
        """Direct children of ``path``: [{"nm": name, "typ": type, "val": SP-relative id}]."""
        r = self.request("GET", path, query="rcn=6")
        if not r.ok or r.body is None:
            raise AcmeError(f"children of {path}: rsc {r.rsc}: {r.body}")
        # rcn=6 lists every descendant; keep those whose parent is path
        parent = f"/{self.cse_id}/{path.strip('/')}"
        refs = r.body.get("m2m:rrl", {}).get("rrf", [])
        return [
            ref
            for ref in refs
            if ref["val"].rsplit("/", 1)[0] == parent and (ty is None or ref["typ"] == ty)
        ]

    def instances(self, container: str, at_least: int = 0, wait: float = 5.0) -> list[Json]:
        """The contentInstances of a container, oldest first (by stateTag of creation).

        The gateway creates them with CoAP NON requests, so an agent's confirmation
        can come before the CSE has stored them: with ``at_least``, poll up to
        ``wait`` seconds until that many are there (and return what is, either way)."""
        deadline = time.monotonic() + wait
        while True:
            r = self.request("GET", container, query="rcn=8&ty=4")
            if not r.ok or r.body is None:
                # ACME answers 5000 while it sorts a child whose creation time is not
                # yet set (a CIN being stored as we ask): ask again while there is time
                if r.rsc == 5000 and time.monotonic() < deadline:
                    time.sleep(0.1)
                    continue
                raise AcmeError(f"instances of {container}: rsc {r.rsc}: {r.body}")
            cins: list[Json] = r.body.get("m2m:cnt", {}).get("m2m:cin", [])
            if len(cins) >= at_least or time.monotonic() >= deadline:
                return sorted(cins, key=lambda c: (c.get("ct", ""), c.get("st", 0)))
            time.sleep(0.1)

    def latest(self, container: str, wait: float = 5.0) -> Json | None:
        """The latest contentInstance of a container (its ``la`` virtual resource), or None
        if there is none after polling up to ``wait`` seconds (see instances())."""
        deadline = time.monotonic() + wait
        while True:
            r = self.request("GET", f"{container.rstrip('/')}/la")
            if r.rsc != 4004:
                break
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.1)
        if not r.ok or r.body is None:
            raise AcmeError(f"GET {container}/la: rsc {r.rsc}: {r.body}")
        cin: Json = r.body["m2m:cin"]
        return cin

    def ae_exists(self, name: str) -> bool:
        """True if an AE named ``name`` is registered under the CSEBase."""
        r = self.request("GET", f"{self.cse_name}/{name}")
        return r.ok and r.body is not None and "m2m:ae" in r.body


def cin_content(cin: Json) -> Any:
    """The ``con`` of a contentInstance, parsed as JSON when its ``cnf`` says JSON."""
    con = cin.get("con")
    if isinstance(con, str) and str(cin.get("cnf", "")).startswith("application/json"):
        return json.loads(con)
    return con

# SPDX-License-Identifier: BSD-3-Clause
"""The CoAP/oneM2M codec against a real IN-CSE: coap-tool (the C codec) creates, ACME answers.

One ACME per module (start-up costs a second or two), on free loopback ports,
read back over HTTP; one more in a lab namespace. Every ACME is stopped at
the end, also when a test fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from twinplane.lab import Lab
from twinplane.lab.acme import Acme, acme_available, cin_content
from twinplane.lab.daemon import build_dir
from twinplane.lab.netns import Netns

CSE = "cse-in"
TY_AE, TY_CNT, TY_CIN = 2, 3, 4
# RFC 7252 5.10 and TS-0008 table 6.2.2.4.0-1
OPT_URI_PATH = 11
OPT_CF = 12  # Content-Format; 50 is application/json
OPT_TY = 267
OPT_RVI = 271
OPT_FR = 279
OPT_RQI = 283
OPT_RSC = 307
NEED_ACME = "acmecse not installed (scripts/setup.sh puts it in the venv)"


def coap_tool_binary() -> Path:
    """$TP_COAP_TOOL, else <build>/tests/tools/coap-tool."""
    return Path(os.environ.get("TP_COAP_TOOL", build_dir() / "tests" / "tools" / "coap-tool"))


def _require(ok: bool, msg: str) -> None:
    if ok:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(msg)
    pytest.skip(msg)


class CoapTool:
    """Runs coap-tool (in a namespace if given) and parses its one line of JSON."""

    def __init__(self, target: str, ns: Netns | None = None) -> None:
        self.target = target
        self.ns = ns
        self.binary = str(coap_tool_binary())

    def run(self, *args: str, timeout: float = 20.0) -> tuple[int, Any]:
        argv = [self.binary, *args]
        if self.ns is not None:
            argv = ["ip", "netns", "exec", self.ns.name, *argv]
        res = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
        if res.returncode == 2:
            raise AssertionError(f"coap-tool usage error: {res.stderr}")
        out = res.stdout.strip()
        try:
            return res.returncode, json.loads(out) if out.startswith("{") else out
        except json.JSONDecodeError as e:
            raise AssertionError(f"coap-tool printed {out!r}: {e}") from e

    def create(
        self, path: str, ty: int, origin: str, *body: str, type_: str = "con", **kw: str
    ) -> tuple[int, Any]:
        args = ["create", "--to", self.target, "--type", type_, "--path", path]
        args += [
            "--ty",
            str(ty),
            "--from",
            origin,
            "--rqi",
            kw.pop("rqi", uuid.uuid4().hex[:12]),
        ]
        for k, v in kw.items():
            args += [f"--{k}", v]
        return self.run(*args, *body)


def option(rsp: dict[str, Any], num: int) -> Any:
    return next(o.get("value", o.get("hex")) for o in rsp["options"] if o["num"] == num)


@pytest.fixture(scope="module")
def acme_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Acme]:
    _require(acme_available(), NEED_ACME)
    _require(coap_tool_binary().exists(), f"{coap_tool_binary()} not built")
    acme = Acme(tmp_path_factory.mktemp("acme"))
    try:
        acme.start()
        yield acme
    finally:
        acme.close()
    assert not acme.running(), "ACME still runs after close()"


@pytest.fixture
def acme(acme_server: Acme, request: pytest.FixtureRequest) -> Iterator[Acme]:
    yield acme_server
    rep = getattr(request.node, "rep_call", None)
    if rep is not None and rep.failed:
        rep.sections.append(("ACME", f"{acme_server!r}\n{acme_server.logs()}"))
    assert acme_server.running(), f"ACME died during the test\n{acme_server.logs()}"


@pytest.fixture
def tool(acme: Acme) -> CoapTool:
    return CoapTool(acme.coap_target)


def device() -> tuple[str, str]:
    """A fresh (AE name, originator) pair, as the gateway derives them from a system id."""
    sysid = uuid.uuid4().hex[:16].upper()
    return f"PHD-{sysid}", f"C{sysid}"


def wait_instances(acme: Acme, container: str, n: int) -> list[dict[str, Any]]:
    """The container's instances once there are n (NON requests are not acknowledged)."""

    cins = acme.instances(container, at_least=n, wait=10)
    assert len(cins) == n, cins
    return cins


def register(tool: CoapTool, ae: str, origin: str, *metrics: str) -> None:
    rc, rsp = tool.create(f"/{CSE}", TY_AE, origin, "--ae", ae, api="Ntwinplane.test")
    assert rc == 0 and rsp["code"] == "2.01" and rsp["rsc"] == 2001, rsp
    for m in metrics:
        rc, rsp = tool.create(f"/{CSE}/{ae}", TY_CNT, origin, "--cnt", m)
        assert rc == 0 and rsp["rsc"] == 2001, rsp


def test_create_ae_container_instances(acme: Acme, tool: CoapTool) -> None:
    ae, origin = device()
    register(tool, ae, origin, "spo2", "pulse")
    # the response is a piggybacked ACK carrying TS-0008 options
    rc, rsp = tool.create(
        f"/{CSE}/{ae}/spo2", TY_CIN, origin, "--mantissa", "975", "--exponent", "-1",
        unit="%", time="20260101T120000", rqi="cin-1",
    )  # fmt: skip
    assert rc == 0 and rsp["type"] == "ACK" and rsp["code"] == "2.01", rsp
    assert option(rsp, OPT_RSC) == 2001
    assert option(rsp, OPT_RQI) == "cin-1"
    assert option(rsp, OPT_CF) == 50
    assert json.loads(rsp["payload"])["m2m:cin"]["cnf"] == "application/json:0"
    # NON: fire and forget, as the data plane sends them
    for v in ("96", "95"):
        rc, rsp = tool.create(f"/{CSE}/{ae}/spo2", TY_CIN, origin, "--value", v, type_="non")
        assert rc == 0 and "sent" in rsp, rsp
    rc, _ = tool.create(f"/{CSE}/{ae}/pulse", TY_CIN, origin, "--value", "72", unit="bpm")
    assert rc == 0

    assert acme.ae_exists(ae)
    assert acme.get(f"{CSE}/{ae}")["m2m:ae"]["aei"] == origin
    assert sorted(c["nm"] for c in acme.children(f"{CSE}/{ae}", ty=TY_CNT)) == [
        "pulse",
        "spo2",
    ]
    spo2 = wait_instances(acme, f"{CSE}/{ae}/spo2", 3)
    assert [cin_content(c) for c in spo2] == [
        {"value": 97.5, "unit": "%", "time": "20260101T120000"},
        {"value": 96},
        {"value": 95},
    ]
    latest = acme.latest(f"{CSE}/{ae}/pulse")
    assert latest is not None and cin_content(latest) == {"value": 72, "unit": "bpm"}
    assert acme.latest(f"{CSE}/{ae}/spo2") is not None


def test_non_with_wait_gets_non_response(acme: Acme, tool: CoapTool) -> None:
    ae, origin = device()
    register(tool, ae, origin, "hr")
    rc, rsp = tool.create(f"/{CSE}/{ae}/hr", TY_CIN, origin, "--value", "60", "--wait", type_="non")
    # RFC 7252 5.2.3: a NON request gets a NON response, with our token
    assert rc == 0 and rsp["type"] == "NON" and rsp["code"] == "2.01", rsp
    # responseType noResponse (TS-0004 rt=5) as Uri-Query: created, nothing sent back
    rc, rsp = tool.create(
        f"/{CSE}/{ae}/hr", TY_CIN, origin, "--value", "61", "--wait", "--timeout", "1",
        type_="non", query="rt=5",
    )  # fmt: skip
    assert rc == 3 and rsp == {"error": "timeout"}
    wait_instances(acme, f"{CSE}/{ae}/hr", 2)


def test_registering_twice(acme: Acme, tool: CoapTool) -> None:
    ae, origin = device()
    register(tool, ae, origin, "hr")
    # what the registrar sees when an association repeats: the AE and container exist
    rc, rsp = tool.create(f"/{CSE}", TY_AE, origin, "--ae", ae)
    assert rc == 1 and rsp["code"] == "4.03" and rsp["rsc"] == 4117, rsp
    rc, rsp = tool.create(f"/{CSE}/{ae}", TY_CNT, origin, "--cnt", "hr")
    assert rc == 1 and rsp["code"] == "4.03" and rsp["rsc"] == 4105, rsp


def test_malformed_requests_get_errors(acme: Acme, tool: CoapTool) -> None:
    ae, origin = device()
    register(tool, ae, origin, "hr")
    hr = f"/{CSE}/{ae}/hr"
    # content that is not JSON
    rc, rsp = tool.create(hr, TY_CIN, origin, "--payload", '{"m2m:cin":{"con":')
    assert rc == 1 and rsp["code"] == "4.00" and rsp["rsc"] == 4000, rsp
    # TY says contentInstance, the body is a container
    rc, rsp = tool.create(hr, TY_CIN, origin, "--cnt", "x")
    assert rc == 1 and rsp["code"] == "4.00" and rsp["rsc"] == 4000, rsp
    # a parent that does not exist
    rc, rsp = tool.create(f"/{CSE}/{ae}/nope", TY_CIN, origin, "--value", "1")
    assert rc == 1 and rsp["code"] == "4.04" and rsp["rsc"] == 4004, rsp
    # SP-relative form without the CSE-ID (TS-0008 6.2.2.3): not found
    rc, rsp = tool.create(f"/~/{CSE}/{ae}/hr", TY_CIN, origin, "--value", "1")
    assert rc == 1 and rsp["code"].startswith("4."), rsp
    # An AE create with TS-0008 V1-era option numbers (FR 256, RQI 257; TY was 267 then
    # too): 257 is critical (odd) and unknown to ACME, so the CoAP layer refuses the
    # request; CoAPthon answers with a Reset that carries 4.00 (RFC 7252 wants it Empty)
    body = json.dumps({"m2m:ae": {"rn": f"{ae}-old", "api": "Nx", "rr": False, "srv": ["3"]}})
    old = bytes([0x40, 0x02, 0x00, 0x42])  # CON POST, MID 0x0042, no token
    old += bytes([0xB6]) + b"cse-in"  # Uri-Path (11)
    old += bytes([0x11, 50])  # Content-Format (12): 50
    old += bytes([0xD5, 256 - 12 - 13]) + b"Cold1"  # FR (256): 13 + 231, length 5
    old += bytes([0x12]) + b"r1"  # RQI (257)
    old += bytes([0xA1, TY_AE])  # TY (267)
    old += b"\xff" + body.encode()
    rc, rsp = tool.run("send", "--to", tool.target, "--hex", old.hex(), "--timeout", "3")
    assert rc in (1, 4), rsp
    assert not acme.ae_exists(f"{ae}-old")

    # ACME keeps working, and nothing was created by the bad requests
    rc, rsp = tool.create(hr, TY_CIN, origin, "--value", "70")
    assert rc == 0 and rsp["rsc"] == 2001, rsp
    assert [cin_content(c) for c in acme.instances(hr.lstrip("/"))] == [{"value": 70}]


def test_target_forms(acme: Acme, tool: CoapTool) -> None:
    ae, origin = device()
    register(tool, ae, origin, "hr")
    # TS-0008 6.2.2.3: CSE-relative, SP-relative ("~" + CSE-ID), absolute ("_" + SP-ID)
    for path in (
        f"{CSE}/{ae}/hr",
        f"/~/{acme.cse_id}/{CSE}/{ae}/hr",
        f"/_/acme.example.com/{acme.cse_id}/{CSE}/{ae}/hr",
    ):
        rc, rsp = tool.create(path, TY_CIN, origin, "--cin", "x", cnf="text/plain:0")
        assert rc == 0 and rsp["rsc"] == 2001, (path, rsp)
    # vnd.onem2m-res+json (TS-0008 table 6.2.2.2-1) is read as JSON too
    rc, rsp = tool.create(f"/{CSE}/{ae}/hr", TY_CIN, origin, "--value", "1", cf="10001")
    assert rc == 0 and rsp["rsc"] == 2001, rsp
    assert len(acme.instances(f"{CSE}/{ae}/hr")) == 4


def test_request_bytes() -> None:
    """The printed request, decoded by coap-tool and by an independent decoder (aiocoap)."""
    _require(coap_tool_binary().exists(), f"{coap_tool_binary()} not built")
    tool = CoapTool("")
    rc, hexed = tool.run(
        "create", "--path", "/cse-in/PHD-00/spo2", "--ty", "4", "--from", "C00", "--rqi", "r9",
        "--type", "non", "--mid", "4660", "--token", "cafe", "--value", "1",
    )  # fmt: skip
    assert rc == 0 and isinstance(hexed, str)
    raw = bytes.fromhex(hexed)
    # NON POST, MID 0x1234, token cafe
    assert raw[:6] == bytes([0x52, 0x02, 0x12, 0x34, 0xCA, 0xFE])
    rc, msg = tool.run("decode", hexed)
    assert rc == 0, msg
    assert [(o["num"], o.get("value")) for o in msg["options"]] == [
        (OPT_URI_PATH, "cse-in"), (OPT_URI_PATH, "PHD-00"), (OPT_URI_PATH, "spo2"),
        (OPT_CF, 50), (OPT_TY, 4), (OPT_RVI, "3"), (OPT_FR, "C00"), (OPT_RQI, "r9"),
    ]  # fmt: skip
    aiocoap = pytest.importorskip("aiocoap")
    m = aiocoap.Message.decode(raw)
    assert m.opt.uri_path == ("cse-in", "PHD-00", "spo2")
    assert int(m.opt.content_format) == 50
    assert m.opt.get_option(OPT_RQI)[0].value == b"r9"
    assert int.from_bytes(m.opt.get_option(OPT_TY)[0].value, "big") == 4
    assert json.loads(m.payload)["m2m:cin"]["cnf"] == "application/json:0"


def test_acme_in_namespace() -> None:
    """ACME inside a lab namespace, reached from there by coap-tool and by HTTP sockets."""
    _require(acme_available(), NEED_ACME)
    _require(coap_tool_binary().exists(), f"{coap_tool_binary()} not built")
    with Lab() as lab:
        ns = lab.add_ns("cse")
        acme = Acme.in_lab(lab, ns=ns)
        assert acme.coap_target == "127.0.0.1:5683"
        tool = CoapTool(acme.coap_target, ns=ns)
        ae, origin = device()
        register(tool, ae, origin, "hr")
        rc, rsp = tool.create(f"/{CSE}/{ae}/hr", TY_CIN, origin, "--value", "61")
        assert rc == 0 and rsp["rsc"] == 2001, rsp
        assert acme.ae_exists(ae)
        latest = acme.latest(f"{CSE}/{ae}/hr")
        assert latest is not None and cin_content(latest) == {"value": 61}
    # the lab stopped it: the process has exited and was reaped
    assert acme.returncode is not None and not acme.running()

# SPDX-License-Identifier: BSD-3-Clause
"""NFD management as local applications and tools use it: the status datasets
(status/general, faces/list, faces/channels, fib/list, rib/list,
strategy-choice/list) read with
python-ndn's segment fetcher and nfd_mgmt messages over twinplane's Unix socket and
checked against ``twinctl``'s view; the commands faces/create, faces/destroy and
rib/register's flags and ExpirationPeriod; malformed ControlParameters answered
with NFD's status codes and texts, counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from test_ndn import peer, show

from twinplane.lab import RouterLab
from twinplane.lab.ndnpeer import LAB_KEY

BASE = ["ndn enable pit-capacity 4096 cs-capacity 1024", "ndn face accept udp 10.0.0.0/8"]
DATASETS = [
    "status/general",
    "faces/list",
    "faces/channels",
    "fib/list",
    "rib/list",
    "strategy-choice/list",
]


def listen(lab: RouterLab) -> Path:
    path = lab.workdir / "nfd.sock"
    lab.ctl("ndn", "face", "listen", "unix", str(path))
    return path


def datasets(lab: RouterLab, path: Path, *names: str) -> dict[str, dict[str, Any]]:
    """Each dataset named, fetched by python-ndn over the Unix socket (a face of its
    own, local): {"segments", "names", "version", "size", "value"} by name."""
    argv = ["--transport", f"unix://{path}", "--lifetime", "2000"]
    r = peer(lab, "h1", "dataset", *argv, *[w for n in names for w in ("--name", n)])
    got = {x["dataset"]: x for x in (r if isinstance(r, list) else [r])}
    for n in names:
        assert "error" not in got[n], got[n]
    return got


def command(lab: RouterLab, path: Path, *args: str) -> dict[str, Any]:
    """One command over the Unix socket (a local face: /localhost/nfd)."""
    r = peer(lab, "h1", "command", "--transport", f"unix://{path}", *args, timeout=60)
    assert isinstance(r, dict), r
    return r


def mgmt(lab: RouterLab) -> dict[str, Any]:
    m: dict[str, Any] = show(lab)["management"]
    return m


def twinctl_fib(lab: RouterLab) -> dict[str, list[tuple[int, int]]]:
    return {
        e["prefix"]: sorted((h["face"], h["cost"]) for h in e["nexthops"])
        for e in lab.ctl("ndn", "fib", "show")["fib"]
    }


def twinctl_rib(lab: RouterLab) -> dict[str, list[tuple[int, int, int, int]]]:
    out: dict[str, list[tuple[int, int, int, int]]] = {}
    for r in lab.ctl("ndn", "rib", "show")["routes"]:
        out.setdefault(r["prefix"], []).append((r["face"], r["origin"], r["cost"], r["flags"]))
    return {k: sorted(v) for k, v in out.items()}


# FaceStatus' counters and ``ndn face show``'s
PAIRS = {
    "n_in_interests": "rx_interests",
    "n_out_interests": "tx_interests",
    "n_in_data": "rx_data",
    "n_out_data": "tx_data",
    "n_in_nacks": "rx_nacks",
    "n_out_nacks": "tx_nacks",
    "n_in_bytes": "rx_bytes",
    "n_out_bytes": "tx_bytes",
}


def check_faces(
    status: list[dict[str, Any]], faces0: dict[int, Any], faces1: dict[int, Any], path: Path
) -> None:
    """faces/list against twinctl before and after it: the same faces (the dataset
    client's own, a Unix face that comes and goes, aside), URIs, scope, persistency,
    MTU, and counters between the two reads."""
    fs = {f["face_id"]: f for f in status}
    client = [i for i, f in fs.items() if f["local_uri"] == f"unix://{path}"]
    assert len(client) == 1 and fs[client[0]]["uri"].startswith("fd://"), fs
    assert fs[client[0]]["face_scope"] == 1 and fs[client[0]]["face_persistency"] == 0
    assert set(fs) - set(client) == set(faces0) == set(faces1) - set(client)
    for i, f in faces0.items():
        assert fs[i]["uri"] == f["uri"], (fs[i], f)
        assert fs[i]["face_scope"] == int(f["local"]), (fs[i], f)
        assert fs[i]["face_persistency"] == (2 if i == 0 else 0 if f["on_demand"] else 1)
        assert fs[i]["mtu"] == f["mtu"]
        for ours, theirs in PAIRS.items():
            lo, hi = f["counters"][theirs], faces1[i]["counters"][theirs]
            assert lo <= fs[i][ours] <= hi, (i, ours, fs[i], f, faces1[i])
    assert fs[0]["uri"] == "internal://management"
    od = [i for i, f in faces0.items() if f["on_demand"]]
    assert len(od) == 1 and 0 < fs[od[0]]["expiration_period"] <= 600000, fs[od[0]]


def test_datasets_match_twinctl(daemon_lab: Callable[..., RouterLab]) -> None:
    """Every dataset, read with python-ndn, says what twinctl says: the faces (ids,
    URIs, scope, counters between two twinctl reads), the channels, the FIB, the RIB
    (with a route's time left), the forwarder's counts. Each is versioned and
    segmented as NFD publishes: /<dataset>/v=<ms>/seg=<n>; rib/list here spans
    several segments."""
    lab = daemon_lab(extra_config=BASE)
    path = listen(lab)
    h2 = lab.host_ip("h2")
    static = lab.ctl("ndn", "face", "add", "udp", f"{h2}:7001")["face"]
    for i in range(300):  # ~13 kB of RibEntry: two segments at least
        lab.ctl("ndn", "fib", "add", f"/tp/many/route-{i:04d}", "face", str(static))
    r = command(lab, path, "--prefix", "/tp/exp", "--face-id", str(static),
                "--cost", "7", "--expiration-period", "30000")  # fmt: skip
    assert r["status_code"] == 200 and r["expiration_period"] == 30000, r
    # over UDP from h1 (an on-demand face), out on face `static` (no answer)
    r = peer(lab, "h1", "consumer", "--name", "/tp/many/route-0001/x", "--lifetime", "300")
    assert r["result"] == "timeout", r

    faces0 = {f["id"]: f for f in lab.ctl("ndn", "face", "show")["faces"]}
    got = datasets(lab, path, *DATASETS)
    faces1 = {f["id"]: f for f in lab.ctl("ndn", "face", "show")["faces"]}

    for name, d in got.items():
        prefix = f"/localhost/nfd/{name}"
        assert all(n.startswith(f"{prefix}/v={d['version']}/seg=") for n in d["names"]), d
        assert [n.rsplit("=", 1)[1] for n in d["names"]] == [str(i) for i in range(len(d["names"]))]
        assert abs(d["version"] / 1000 - time.time()) < 60, d
    assert got["rib/list"]["segments"] >= 2 and got["rib/list"]["size"] > 8000

    check_faces(got["faces/list"]["value"]["face_status"], faces0, faces1, path)
    fs = {f["face_id"]: f for f in got["faces/list"]["value"]["face_status"]}
    assert fs[static]["uri"] == f"udp4://{h2}:7001" and fs[static]["n_out_interests"] >= 1

    # channels: the UDP one (on-demand faces) and the Unix listener
    ch = {c["local_uri"] for c in got["faces/channels"]["value"]["channels"]}
    listeners = {x["uri"] for x in show(lab)["streams"]["listeners"]}
    assert ch == {"udp4://0.0.0.0:6363"} | listeners == {"udp4://0.0.0.0:6363", f"unix://{path}"}

    # FIB and RIB: exactly twinctl's
    fib = {e["name"]: sorted((h["face_id"], h["cost"]) for h in e.get("next_hop_records", []))
           for e in got["fib/list"]["value"]["entries"]}  # fmt: skip
    assert fib == twinctl_fib(lab)
    assert fib["/localhost/nfd"] == [(0, 0)] and fib["/tp/exp"] == [(static, 7)]
    rib = {e["name"]: sorted((x["face_id"], x["origin"], x["cost"], x["flags"])
                             for x in e["routes"])
           for e in got["rib/list"]["value"]["entries"]}  # fmt: skip
    assert rib == twinctl_rib(lab) and len(rib) == 300 + 3, len(rib)
    (exp,) = [e for e in got["rib/list"]["value"]["entries"] if e["name"] == "/tp/exp"]
    assert 0 < exp["routes"][0]["expiration_period"] <= 30000, exp
    many = [e for e in got["rib/list"]["value"]["entries"] if e["name"].startswith("/tp/many")]
    assert all("expiration_period" not in e["routes"][0] for e in many)

    # the forwarder: its counts
    g = got["status/general"]["value"]
    assert g["nfd_version"] == "twinplane" and g["start_timestamp"] <= g["current_timestamp"]
    assert g["n_fib_entries"] == len(fib)
    assert g["n_out_interests"] >= 1 and g["n_in_interests"] >= 1

    # no strategy chosen: the root's, best-route, as NFD's
    sc = got["strategy-choice/list"]["value"]["strategy_choices"]
    assert sc == [{"name": "/", "strategy": {"name": "/localhost/nfd/strategy/best-route/v=5"}}]

    m = mgmt(lab)
    assert m["datasets_built"] == len(DATASETS), m
    assert m["dataset_segments_sent"] == sum(d["segments"] for d in got.values()), m


def strategy_choices(lab: RouterLab, path: Path) -> list[tuple[str, str]]:
    """strategy-choice/list read with python-ndn (StrategyChoiceMsg): (prefix,
    strategy name) in the dataset's order."""
    got = datasets(lab, path, "strategy-choice/list")["strategy-choice/list"]
    return [(c["name"], c["strategy"]["name"]) for c in got["value"]["strategy_choices"]]


def twinctl_view(choices: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """The dataset's choices as ``show ndn strategy`` gives them: the strategy's
    short name (the component after /localhost/nfd/strategy), asf's probing interval
    (its parameter, else NFD's default, 60 s)."""
    out: list[dict[str, Any]] = []
    for prefix, name in choices:
        comps = name.split("/")
        assert comps[:4] == ["", "localhost", "nfd", "strategy"] and comps[5].startswith("v=")
        e: dict[str, Any] = {"prefix": prefix, "strategy": comps[4]}
        if comps[4] == "asf":
            params = dict(c.split("~") for c in comps[6:])
            e["probing_interval_ms"] = int(params.get("probing-interval", 60000))
        out.append(e)
    return out


def test_strategy_choice_dataset(daemon_lab: Callable[..., RouterLab]) -> None:
    """strategy-choice/list, read with python-ndn: a StrategyChoice per prefix, the
    root first, each strategy named as NFD names it (its version; asf's
    probing-interval when given), whether set by twinctl or by strategy-choice/set, and
    the same choices as ``show ndn strategy``; the set command's response names the
    strategy as the dataset does. Unset choices go; a new root choice stays first."""
    lab = daemon_lab(extra_config=BASE)
    path = listen(lab)
    nfd = "/localhost/nfd/strategy"
    lab.ctl("ndn", "strategy", "set", "/tp/m", "multicast")
    lab.ctl("ndn", "strategy", "set", "/tp/a", "asf", "probing-interval", "5000")
    lab.ctl("ndn", "strategy", "set", "/tp/a/plain", "asf")
    sets = [
        ("/tp/b", f"{nfd}/best-route", f"{nfd}/best-route/v=5"),
        ("/tp/m2", f"{nfd}/multicast/v=4", f"{nfd}/multicast/v=4"),
        ("/tp/a2", f"{nfd}/asf/v=5/probing-interval~2000", f"{nfd}/asf/v=5/probing-interval~2000"),
    ]
    for prefix, strategy, named in sets:
        r = command(lab, path, "--verb", "strategy-choice/set", "--prefix", prefix,
                    "--strategy", strategy)  # fmt: skip
        assert r["status_code"] == 200 and r["strategy"] == named, (strategy, r)

    got = strategy_choices(lab, path)
    assert got[0] == ("/", f"{nfd}/best-route/v=5"), got
    assert dict(got) == {
        "/": f"{nfd}/best-route/v=5",
        "/tp/m": f"{nfd}/multicast/v=4",
        "/tp/a": f"{nfd}/asf/v=5/probing-interval~5000",
        "/tp/a/plain": f"{nfd}/asf/v=5",
        **{p: named for p, _, named in sets},
    } and len(got) == 7, got  # fmt: skip
    shown = lab.ctl("show", "ndn", "strategy")["strategies"]
    assert twinctl_view(got) == shown, (got, shown)
    assert {"prefix": "/tp/a/plain", "strategy": "asf", "probing_interval_ms": 60000} in shown

    # unset by twinctl and by command, the root set: a new version says so
    lab.ctl("ndn", "strategy", "unset", "/tp/m")
    r = command(lab, path, "--verb", "strategy-choice/unset", "--prefix", "/tp/b")
    assert r["status_code"] == 200, r
    r = command(lab, path, "--verb", "strategy-choice/set", "--prefix", "/",
                "--strategy", f"{nfd}/multicast")  # fmt: skip
    assert r["status_code"] == 200 and r["strategy"] == f"{nfd}/multicast/v=4", r
    time.sleep(1.2)  # past the last version's FreshnessPeriod (1 s): not from the CS
    again = strategy_choices(lab, path)
    assert again[0] == ("/", f"{nfd}/multicast/v=4"), again
    assert {p for p, _ in again} == {"/", "/tp/a", "/tp/a/plain", "/tp/m2", "/tp/a2"}, again
    assert twinctl_view(again) == lab.ctl("show", "ndn", "strategy")["strategies"]
    assert mgmt(lab)["datasets_built"] == 2


def test_dataset_versions_and_bounds(daemon_lab: Callable[..., RouterLab]) -> None:
    """A new request (no version) builds a new version once the last is stale; a
    segment of a version no longer held, or past the last, gets no answer (counted).
    """
    lab = daemon_lab(extra_config=BASE)
    path = listen(lab)
    a = datasets(lab, path, "faces/list")["faces/list"]
    time.sleep(1.2)  # past the segments' FreshnessPeriod (1 s)
    b = datasets(lab, path, "faces/list")["faces/list"]
    assert b["version"] > a["version"], (a, b)
    before = mgmt(lab)
    # seg=0 of the old version, seg=5 of the new one (there is one): no answer
    for v, seg in ((a["version"], 0), (b["version"], 5)):
        name = f"/localhost/nfd/faces/list/v={v}/seg={seg}"
        argv = ["--transport", f"unix://{path}", "--lifetime", "500", "--must-be-fresh"]
        r = peer(lab, "h1", "consumer", *argv, "--name", name)
        assert r["result"] == "timeout", r
    m = mgmt(lab)
    assert m["dataset_segments_gone"] - before["dataset_segments_gone"] == 2, m
    assert m["datasets_built"] == 2, m


def test_faces_create_destroy(daemon_lab: Callable[..., RouterLab]) -> None:
    """faces/create makes udp4 and ether faces (200, their FaceId, Uri, LocalUri as
    NFD's), twinctl shows them; again: 409 with the existing face; a URI it cannot
    make: 406, or 400 when it does not parse or is not canonical; faces/destroy
    removes the face and its routes (200, and 200 again for a face that is gone)."""
    lab = daemon_lab(extra_config=BASE)
    path = listen(lab)
    h2 = lab.host_ip("h2")
    r = command(lab, path, "--module", "faces", "--verb", "create", "--uri", f"udp4://{h2}:7002")
    assert r["status_code"] == 200 and r["status_text"] == "OK", r
    udp = r["face_id"]
    assert r["uri"] == f"udp4://{h2}:7002" and r["face_persistency"] == 1, r
    shown = {f["id"]: f for f in lab.ctl("ndn", "face", "show")["faces"]}
    assert shown[udp]["uri"] == f"udp4://{h2}:7002" and shown[udp]["local"] is False
    # the same again: 409, the existing face in the body
    r = command(lab, path, "--module", "faces", "--verb", "create", "--uri", f"udp4://{h2}:7002")
    assert r["status_code"] == 409 and r["face_id"] == udp, r
    assert r["status_text"] == "Face with remote URI already exists", r
    # an Ethernet face on a port, as NFD's: ether://[MAC] with LocalUri dev://PORT
    port = lab.link("h2").port
    r = command(lab, path, "--module", "faces", "--verb", "create",
                "--uri", "ether://[02:00:00:00:00:42]", "--local-uri", f"dev://{port}")  # fmt: skip
    assert r["status_code"] == 200 and r["local_uri"] == f"dev://{port}", r
    eth = r["face_id"]
    shown = {f["id"]: f for f in lab.ctl("ndn", "face", "show")["faces"]}
    assert shown[eth]["kind"] == "ether" and "02:00:00:00:00:42" in shown[eth]["uri"]
    before = mgmt(lab)
    bad = [
        (["--uri", f"tcp4://{h2}:6363"], 406, "Unsupported protocol"),
        (["--uri", f"udp4://{h2}"], 400, "Non-canonical remote URI"),
        (["--uri", "udp4://10.0.2.300:6363"], 400, "Malformed command"),
        (["--uri", "not a uri"], 400, "Malformed command"),
        (["--uri", "ether://[02:00:00:00:00:43]"], 406,
         "Creation of unicast Ethernet faces requires a LocalUri with dev:// scheme"),
        (["--uri", f"udp4://{h2}:7003", "--face-persistency", "0"], 406,
         "Outgoing faces do not support on-demand persistency"),
        ([], 400, "failed in validating parameters"),  # no Uri
    ]  # fmt: skip
    for args, code, text in bad:
        r = command(lab, path, "--module", "faces", "--verb", "create", *args)
        assert (r["status_code"], r["status_text"]) == (code, text), (args, r)
    m = mgmt(lab)
    assert m["refused_face_uri"] - before["refused_face_uri"] == 6, m
    assert m["refused_invalid_parameters"] - before["refused_invalid_parameters"] == 1, m
    assert m["refused_face_exists"] == 1, m
    # destroy: the face and its route go
    lab.ctl("ndn", "fib", "add", "/tp/via-udp", "face", str(udp))
    r = command(lab, path, "--module", "faces", "--verb", "destroy", "--face-id", str(udp))
    assert r["status_code"] == 200 and r["face_id"] == udp, r
    assert udp not in {f["id"] for f in lab.ctl("ndn", "face", "show")["faces"]}
    assert "/tp/via-udp" not in twinctl_fib(lab)
    r = command(lab, path, "--module", "faces", "--verb", "destroy", "--face-id", str(udp))
    assert r["status_code"] == 200, r  # NFD's: gone already is fine
    r = command(lab, path, "--module", "faces", "--verb", "destroy")
    assert (r["status_code"], r["status_text"]) == (400, "failed in validating parameters"), r
    r = command(lab, path, "--module", "faces", "--verb", "destroy", "--face-id", "0")
    assert r["status_code"] == 200 and 0 in {
        f["id"] for f in lab.ctl("ndn", "face", "show")["faces"]
    }


def test_malformed_control_parameters(daemon_lab: Callable[..., RouterLab]) -> None:
    """ControlParameters that do not decode, or lack what the command needs: 400 with
    the reason, counted; nothing changes."""
    lab = daemon_lab(extra_config=BASE)
    path = listen(lab)
    fib0 = twinctl_fib(lab)
    cases = [
        ("rib", "register", "6803ff0102", 400, "malformed ControlParameters"),  # bad TLV
        ("rib", "register", "6800", 400, "failed in validating parameters"),  # no Name
        ("rib", "unregister", "6803690101", 400, "failed in validating parameters"),
        ("rib", "register", "69020001", 400, "malformed ControlParameters"),  # not 0x68
        ("faces", "create", "68047200", 400, "malformed ControlParameters"),  # Uri: 2 of 0
        ("faces", "create", "6802720", 400, "malformed ControlParameters"),
    ]
    before = mgmt(lab)
    for module, verb, raw, code, text in cases:
        if len(raw) % 2:
            raw += "0"
        r = command(lab, path, "--module", module, "--verb", verb, "--raw-params", raw)
        assert (r["status_code"], r["status_text"]) == (code, text), (raw, r)
    m = mgmt(lab)
    assert m["commands_malformed"] - before["commands_malformed"] == 4, m
    assert m["refused_invalid_parameters"] - before["refused_invalid_parameters"] == 2, m
    assert m["commands_refused"] - before["commands_refused"] == len(cases), m
    assert twinctl_fib(lab) == fib0


def test_rib_register_expiration(daemon_lab: Callable[..., RouterLab]) -> None:
    """rib/register with an ExpirationPeriod: the route and its FIB entry go when it
    expires; Flags as given (CHILD_INHERIT 1, CAPTURE 2) are kept and shown."""
    lab = daemon_lab(extra_config=BASE)
    path = listen(lab)
    h2 = lab.host_ip("h2")
    face = lab.ctl("ndn", "face", "add", "udp", f"{h2}:7001")["face"]
    t0 = time.monotonic()
    r = command(lab, path, "--prefix", "/tp/short", "--face-id", str(face),
                "--expiration-period", "6000", "--flags", "2")  # fmt: skip
    assert r["status_code"] == 200 and r["flags"] == 2 and r["expiration_period"] == 6000, r
    assert twinctl_rib(lab)["/tp/short"] == [(face, 0, 0, 2)]
    got = datasets(lab, path, "rib/list")["rib/list"]["value"]["entries"]
    (e,) = [x for x in got if x["name"] == "/tp/short"]
    assert e["routes"][0]["flags"] == 2 and 0 < e["routes"][0]["expiration_period"] <= 6000
    deadline = time.monotonic() + 10
    while "/tp/short" in twinctl_rib(lab) and time.monotonic() < deadline:
        time.sleep(0.5)  # the expiry timer runs each second
    assert time.monotonic() - t0 >= 6 - 0.5
    assert "/tp/short" not in twinctl_rib(lab) and "/tp/short" not in twinctl_fib(lab)


def test_local_command_signed_with_ecdsa(daemon_lab: Callable[..., RouterLab]) -> None:
    """An application signing with its own ECDSA key (python-ndn's default keychain
    does) registers over the Unix socket, as NFD's default localhost_security lets it
    (counted: the signature is not verified); from a face that is not local, under
    /localhop, the same command is refused (HMAC only)."""
    lab = daemon_lab(extra_config=[*BASE, f"ndn localhop enable key {LAB_KEY}"])
    path = listen(lab)
    face = lab.ctl("ndn", "face", "add", "udp", f"{lab.host_ip('h2')}:7001")["face"]
    r = command(lab, path, "--ecdsa", "--prefix", "/tp/ecdsa", "--face-id", str(face))
    assert r["status_code"] == 200 and r["name"] == "/tp/ecdsa", r
    assert twinctl_rib(lab)["/tp/ecdsa"] == [(face, 0, 0, 1)]
    assert mgmt(lab)["localhost_signature_not_verified"] == 1
    r = peer(lab, "h1", "command", "--ecdsa", "--prefix", "/tp/ecdsa-remote")
    assert r["status_code"] == 403, r
    assert r["status_text"] == "signature type: SignatureHmacWithSha256 only", r
    assert "/tp/ecdsa-remote" not in twinctl_rib(lab)
    assert mgmt(lab)["localhost_signature_not_verified"] == 1


def test_rib_flags_child_inherit_and_capture(daemon_lab: Callable[..., RouterLab]) -> None:
    """NFD's route inheritance: a FIB entry has its own routes, plus its ancestors'
    CHILD_INHERIT ones for other faces (nearest first), up to an ancestor with a
    CAPTURE route; a CAPTURE route of its own stops all inheritance. Unregistering the
    ancestor's route takes it out of its descendants' entries."""
    lab = daemon_lab(extra_config=BASE)
    path = listen(lab)
    a, b, c = (
        lab.ctl("ndn", "face", "add", "udp", f"{lab.host_ip('h2')}:{p}")["face"]
        for p in (7001, 7002, 7003)
    )

    def reg(prefix: str, face: int, cost: int, flags: int, verb: str = "register") -> None:
        r = command(lab, path, "--verb", verb, "--prefix", prefix, "--face-id", str(face),
                    "--cost", str(cost), "--flags", str(flags))  # fmt: skip
        assert r["status_code"] == 200, r

    reg("/", c, 30, 1)  # CHILD_INHERIT
    reg("/tp", a, 10, 1)
    reg("/tp/x", b, 5, 0)
    reg("/tp/y", b, 5, 2)  # CAPTURE
    fib = twinctl_fib(lab)
    assert fib["/tp/x"] == [(a, 10), (b, 5), (c, 30)], fib
    assert fib["/tp/y"] == [(b, 5)], fib
    assert fib["/tp"] == [(a, 10), (c, 30)] and fib["/"] == [(c, 30)], fib
    assert fib["/localhost/nfd"] == [(0, 0)], fib  # management's: CAPTURE
    reg("/tp", a, 10, 3)  # CHILD_INHERIT and CAPTURE: nothing above /tp
    fib = twinctl_fib(lab)
    assert fib["/tp/x"] == [(a, 10), (b, 5)] and fib["/tp"] == [(a, 10)], fib
    reg("/tp", a, 0, 0, verb="unregister")
    fib = twinctl_fib(lab)
    assert "/tp" not in fib and fib["/tp/x"] == [(b, 5), (c, 30)], fib

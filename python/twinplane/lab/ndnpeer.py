# SPDX-License-Identifier: BSD-3-Clause
"""Real NDN applications (python-ndn) for the labs: run as
``python -m twinplane.lab.ndnpeer MODE ...`` inside a namespace, talking to a
forwarder over UDP (``udp4://ROUTER:6363``), exactly as an application would.
With ``--transport default`` python-ndn chooses the transport itself, as an
application given no configuration does (its client.conf, else its platform's
default, ``unix:///run/nfd/nfd.sock``; the first line says which:
{"event": "transport", "transport": ..., "client_conf": PATH or ""}); with
``--transport URI`` (``tcp4://HOST:PORT``, ``unix://PATH``) it is python-ndn's
face for that URI.

Modes:
  producer   register a prefix with the forwarder (NFD's rib/register) and
             answer Interests under it; prints one JSON line per event
             ({"event": "registered"}, {"event": "interest", "name": ...}).
  consumer   express Interests, one name after the other, from one face; prints
             {"result": "data"|"nack"|"timeout", ...} for each.
  fetch      fetch a segmented object with python-ndn's segment fetcher;
             prints {"size": N, "sha256": HEX, "segments": K}.
  command    send one rib/register or rib/unregister command (or, with --module
             faces, faces/create or faces/destroy) with the given
             ControlParameters; prints the ControlResponse
             ({"status_code": 200, "status_text": "OK", "face_id": ...}).
  dataset    fetch each NFD status dataset named (``--name status/general``,
             faces/list, faces/channels, fib/list, rib/list, strategy-choice/list;
             under /localhost/nfd)
             with python-ndn's segment fetcher and parse it with python-ndn's
             nfd_mgmt messages; prints {"dataset": ..., "segments": K, "version": V,
             "value": ...} for each.

Management commands: by default python-ndn's own (NDNApp.register: the older
command Interest, DigestSha256), under /localhop/nfd, or /localhost/nfd with
``--local`` (the face claims to be local, as a Unix-socket application's would).
With ``--hmac-key HEX`` they are NDN 0.3 signed Interests under /localhop/nfd,
signed with SignatureHmacWithSha256 under that key and a SignatureTime (what the
forwarder's ``ndn localhop enable key HEX`` accepts). ``--local-port`` binds the
UDP source port, so that the operator can make the face first (``ndn face add udp
ADDR:PORT local``).

A producer with ``--object-size N`` serves a deterministic object of N bytes
(byte i is i*7+3 mod 251) as segments ``PREFIX/seg=K`` of ``--segment-size``
bytes, FinalBlockId on each; names under ``PREFIX/silent`` are never answered.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import sys
import time
from enum import Enum, Flag
from typing import Any

from ndn.app import NDNApp
from ndn.app_support.nfd_mgmt import (
    ControlResponse,
    FacePersistency,
    FaceStatusMsg,
    FibStatus,
    GeneralStatus,
    RibStatus,
    StrategyChoiceMsg,
    make_command,
    make_command_v2,
    parse_response,
)
from ndn.client_conf import default_face, read_client_conf
from ndn.encoding import (
    BytesField,
    Component,
    FormalName,
    InterestParam,
    ModelField,
    Name,
    NameField,
    RepeatedField,
    TlvModel,
)
from ndn.encoding.tlv_var import parse_and_check_tl, parse_tl_num
from ndn.platform import Platform
from ndn.security import KeychainDigest, sha256_digest_checker
from ndn.security.signer.sha256_ecdsa_signer import Sha256WithEcdsaSigner
from ndn.security.signer.sha256_hmac_signer import HmacSha256Signer
from ndn.transport.udp_face import UdpFace
from ndn.types import InterestCanceled, InterestNack, InterestTimeout, ValidationFailure


def emit(obj: dict[str, Any]) -> None:
    print(json.dumps(obj), flush=True)


def object_bytes(size: int) -> bytes:
    return bytes((i * 7 + 3) % 251 for i in range(size))


# the lab's /localhop/nfd key (ndn localhop enable key LAB_KEY)
LAB_KEY = "6c61622d6c6f63616c686f702d6b65792d74776f2d7a65726f2d6f6e652d7a65"


class PeerUdpFace(UdpFace):
    """python-ndn's UDP face, from a chosen source port, local or not as told."""

    def __init__(self, host: str, port: int, local_port: int | None, local: bool) -> None:
        super().__init__(host, port)
        self.local_port = local_port
        self.local = local

    def isLocalFace(self) -> bool:
        return self.local

    async def open(self) -> None:
        face = self

        class Handler(asyncio.DatagramProtocol):
            def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
                typ, _ = parse_tl_num(data)
                asyncio.create_task(face.callback(typ, data))

            def connection_lost(self, exc: Exception | None) -> None:
                if not face.close.done():
                    face.close.set_result(True)

        loop = asyncio.get_running_loop()
        self.running = True
        self.close = loop.create_future()
        local = ("0.0.0.0", self.local_port) if self.local_port else None
        self.transport, _ = await loop.create_datagram_endpoint(
            Handler, remote_addr=(self.host, self.port), local_addr=local
        )

    def send(self, data: bytes) -> None:
        self.transport.sendto(data)


class TimedHmacSigner(HmacSha256Signer):
    """SignatureHmacWithSha256 with a SignatureTime (NDN 0.3 section 3.2), later
    each time, as NFD's command Interest validation wants."""

    last = 0

    def __init__(self, key: bytes, time_offset_ms: int = 0) -> None:
        super().__init__("/localhop/operator/KEY", key)
        self.offset = time_offset_ms

    def write_signature_info(self, signature_info: Any) -> None:
        super().write_signature_info(signature_info)
        t = max(int(time.time() * 1000), TimedHmacSigner.last + 1)
        TimedHmacSigner.last = t
        signature_info.signature_time = t + self.offset


def make_app(router: str | None, port: int, args: argparse.Namespace | None = None) -> NDNApp:
    transport = getattr(args, "transport", "udp")
    if transport == "default":
        # no face given: python-ndn reads client.conf, else takes its default
        conf = [p for p in Platform().client_conf_paths() if os.path.exists(p)]
        emit(
            {
                "event": "transport",
                "transport": read_client_conf()["transport"],
                "client_conf": conf[0] if conf else "",
            }
        )
        return NDNApp(keychain=KeychainDigest())
    if transport != "udp":
        face = default_face(transport)
        if getattr(args, "local", False):  # claim to be local: /localhost/nfd commands
            face.isLocalFace = lambda: True  # type: ignore[method-assign]
        return NDNApp(face=face, keychain=KeychainDigest())
    assert router is not None
    local_port = getattr(args, "local_port", None)
    local = bool(getattr(args, "local", False))
    return NDNApp(face=PeerUdpFace(router, port, local_port, local), keychain=KeychainDigest())


async def command(
    app: NDNApp, verb: str, args: argparse.Namespace, **params: Any
) -> dict[str, Any]:
    """One command: verb "register", "unregister", "create", "destroy" of --module (rib,
    faces), or "MODULE/VERB" (e.g. "strategy-choice/set"); its ControlResponse as a dict
    (status_code None: no answer)."""
    if "/" in verb:
        module, verb = verb.split("/")
    else:
        module = getattr(args, "module", "rib")
    try:
        if getattr(args, "raw_params", None) is not None:
            # these bytes as the ControlParameters component, in a signed Interest
            # (NDN 0.3; the app's keychain: DigestSha256) under /localhost/nfd
            name = Name.from_str(f"/localhost/nfd/{module}/{verb}")
            name.append(Component.from_bytes(bytes.fromhex(args.raw_params)))
            _, _, reply = await app.express_interest(name, app_param=b"", lifetime=1000)
        elif getattr(args, "ecdsa", False):
            # signed as an application with its own key (python-ndn's default
            # keychain holds ECDSA P-256 ones): a fresh key, NDN 0.3 signed Interest
            from Cryptodome.PublicKey import ECC

            key = ECC.generate(curve="P-256").export_key(format="DER")
            signer = Sha256WithEcdsaSigner(Name.from_str("/tp/app/KEY/%01"), key)
            name = make_command_v2(module, verb, app.face, **params)
            _, _, reply = await app.express_interest(
                name, app_param=b"", signer=signer, lifetime=1000
            )
        elif args.hmac_key:
            name = make_command_v2(module, verb, app.face, **params)
            signer = TimedHmacSigner(bytes.fromhex(args.hmac_key), args.signature_time_offset)
            _, _, reply = await app.express_interest(
                name, app_param=b"", signer=signer, lifetime=1000
            )
        else:
            name = make_command(module, verb, app.face, **params)
            _, _, reply = await app.express_interest(name, lifetime=1000)
    except (InterestNack, InterestTimeout, InterestCanceled, ValidationFailure) as e:
        return {"status_code": None, "error": type(e).__name__}
    # python-ndn's parse_response wants a body, which refusals do not carry
    cr = ControlResponse.parse(parse_and_check_tl(memoryview(reply), 0x65))
    out: dict[str, Any] = {"status_code": cr.status_code, "status_text": cr.status_text}
    if cr.body is not None:
        ret = parse_response(reply)
        out.update(
            (k, None if v is None else Name.to_str(v) if k == "name" else plain(v))
            for k, v in ret.items()
        )
        if ret.get("strategy") is not None:
            out["strategy"] = Name.to_str([bytes(c) for c in ret["strategy"].name])
    return out


async def register_and_serve(
    app: NDNApp, prefix: FormalName, on_interest: Any, args: argparse.Namespace
) -> None:
    """Register prefix for on_interest (an NFD command signed with --hmac-key, or
    python-ndn's own), and unregister it after --unregister-after seconds; each step
    is an event line."""
    if args.hmac_key:
        app.set_interest_filter(prefix, on_interest)
        r = await command(app, "register", args, name=prefix)
        ok = r["status_code"] == 200
        emit(
            {
                "event": "registered" if ok else "register_failed",
                "prefix": args.prefix,
                "status_code": r["status_code"],
            }
        )
    else:
        ok = await app.register(prefix, on_interest)
        emit({"event": "registered" if ok else "register_failed", "prefix": args.prefix})
    if not ok:
        app.shutdown()
        return
    if args.unregister_after is not None:
        await asyncio.sleep(args.unregister_after)
        if args.hmac_key:
            ok = (await command(app, "unregister", args, name=prefix))["status_code"] == 200
        else:
            ok = await app.unregister(prefix)
        emit({"event": "unregistered" if ok else "unregister_failed"})


def producer(args: argparse.Namespace) -> None:
    app = make_app(args.router, args.port, args)
    prefix = Name.from_str(args.prefix)
    silent = prefix + [Component.from_str("silent")]
    obj = object_bytes(args.object_size) if args.object_size else b""
    seg = args.segment_size
    n_segs = max(1, (len(obj) + seg - 1) // seg) if obj else 0

    def on_interest(name: FormalName, param: InterestParam, _app_param: Any) -> None:
        emit({"event": "interest", "name": Name.to_str(name), "nonce": param.nonce})
        if Name.is_prefix(silent, name):
            return
        kw: dict[str, Any] = {}
        if args.freshness is not None:
            kw["freshness_period"] = args.freshness
        if obj:
            # the first Interest (CanBePrefix, the object's name) gets segment 0
            k = 0
            if len(name) > len(prefix) and Component.get_type(name[-1]) == Component.TYPE_SEGMENT:
                k = Component.to_number(name[-1])
            if k >= n_segs:
                return
            data_name = prefix + [Component.from_segment(k)]
            app.put_data(
                data_name,
                obj[k * seg : (k + 1) * seg],
                final_block_id=Component.from_segment(n_segs - 1),
                **kw,
            )
            return
        content = (args.content or Name.to_str(name)) + "x" * args.pad
        if args.delay:  # a slower producer (a strategy's measurements see it)
            asyncio.get_running_loop().call_later(
                args.delay / 1000, lambda: app.put_data(name, content.encode(), **kw)
            )
            return
        app.put_data(name, content.encode(), **kw)

    app.run_forever(after_start=register_and_serve(app, prefix, on_interest, args))


def consumer(args: argparse.Namespace) -> None:
    app = make_app(args.router, args.port, args)

    async def main() -> None:
        try:
            for name in [n for n in args.name for _ in range(args.repeat)]:
                kw: dict[str, Any] = {
                    "lifetime": args.lifetime,
                    "can_be_prefix": args.can_be_prefix,
                    "must_be_fresh": args.must_be_fresh,
                }
                if args.nonce is not None:
                    kw["nonce"] = args.nonce
                out: dict[str, Any] = {}
                try:
                    name, _meta, content = await app.express_interest(name, **kw)
                    out.update(
                        result="data",
                        name=Name.to_str(name),
                        content=bytes(content or b"").decode(errors="replace"),
                    )
                except InterestNack as e:
                    out.update(result="nack", reason=e.reason)
                except InterestTimeout:
                    out.update(result="timeout")
                except (InterestCanceled, ValidationFailure) as e:
                    out.update(result=type(e).__name__)
                emit(out)
        finally:
            app.shutdown()

    app.run_forever(after_start=main())


def fetch(args: argparse.Namespace) -> None:
    from ndn.app_support.segment_fetcher import segment_fetcher

    app = make_app(args.router, args.port, args)

    async def main() -> None:
        h = hashlib.sha256()
        size = segs = 0
        try:
            async for chunk in segment_fetcher(
                app, args.name[0], timeout=args.lifetime, retry_times=args.retries
            ):
                h.update(chunk)
                size += len(chunk)
                segs += 1
            emit({"size": size, "sha256": h.hexdigest(), "segments": segs})
        except (InterestNack, InterestTimeout, InterestCanceled, ValidationFailure) as e:
            emit({"error": type(e).__name__, "size": size, "segments": segs})
        finally:
            app.shutdown()

    app.run_forever(after_start=main())


class ChannelStatus(TlvModel):
    """NFD Management, Channel Dataset (python-ndn's nfd_mgmt has no model of it):
    ChannelStatus (0x82) holding a LocalUri (0x81)."""

    local_uri = BytesField(0x81, is_string=True)


class ChannelStatusMsg(TlvModel):
    channels = RepeatedField(ModelField(0x82, ChannelStatus))


DATASETS: dict[str, Any] = {
    "status/general": GeneralStatus,
    "faces/list": FaceStatusMsg,
    "faces/channels": ChannelStatusMsg,
    "fib/list": FibStatus,
    "rib/list": RibStatus,
    "strategy-choice/list": StrategyChoiceMsg,
}


def plain(v: Any) -> Any:
    """A parsed TlvModel as JSON: names as URIs, enums and flags as numbers."""
    if isinstance(v, TlvModel):
        out = {}
        for f in v._encoded_fields:
            x = getattr(v, f.name)
            if x is not None:
                out[f.name] = Name.to_str(x) if isinstance(f, NameField) else plain(x)
        return out
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, Enum | Flag):
        return int(v.value)
    if isinstance(v, memoryview | bytes | bytearray):
        return bytes(v).hex()
    return v


def dataset(args: argparse.Namespace) -> None:
    from ndn.app_support.segment_fetcher import segment_fetcher

    app = make_app(args.router, args.port, args)

    async def fetch_one(which: str) -> dict[str, Any]:
        prefix = Name.from_str("/localhost/nfd/" + which)
        content = b""
        segs = 0
        names: list[FormalName] = []

        async def validator(name: FormalName, sig: Any) -> bool:
            # python-ndn's own check (DigestSha256), noting each segment's name
            names.append(list(name))
            return bool(await sha256_digest_checker(name, sig))

        async for chunk in segment_fetcher(
            app, prefix, timeout=args.lifetime, retry_times=args.retries, validator=validator
        ):
            content += bytes(chunk)
            segs += 1
        first = names[0]
        return {
            "dataset": which,
            "segments": segs,
            "names": [Name.to_str(n) for n in names],
            "version": Component.to_number(first[len(prefix)]),
            "size": len(content),
            "value": plain(DATASETS[which].parse(content)),
        }

    async def main() -> None:
        try:
            for which in args.name:
                try:
                    emit(await fetch_one(which))
                except (InterestNack, InterestTimeout, InterestCanceled, ValidationFailure) as e:
                    emit({"dataset": which, "error": type(e).__name__})
        finally:
            app.shutdown()

    app.run_forever(after_start=main())


def send_command(args: argparse.Namespace) -> None:
    """One command per --name (else --prefix), --repeat times each, from one face."""
    app = make_app(args.router, args.port, args)
    extra: dict[str, Any] = {}
    for k in ("face_id", "origin", "cost", "flags", "expiration_period", "uri", "local_uri"):
        if getattr(args, k) is not None:
            extra[k] = getattr(args, k)
    if args.strategy is not None:
        extra["strategy"] = Name.from_str(args.strategy)
    if args.face_persistency is not None:
        extra["face_persistency"] = FacePersistency(args.face_persistency)

    async def main() -> None:
        try:
            if args.module == "faces" or args.raw_params is not None:  # no Name
                for _ in range(args.repeat):
                    emit(await command(app, args.verb, args, **extra))
                return
            for name in args.name or [args.prefix]:
                for _ in range(args.repeat):
                    emit(await command(app, args.verb, args, name=Name.from_str(name), **extra))
        finally:
            app.shutdown()

    app.run_forever(after_start=main())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="ndnpeer", description=__doc__.split("\n\n")[0])
    p.add_argument("mode", choices=["producer", "consumer", "fetch", "command", "dataset"])
    p.add_argument("--router", help="the forwarder's address (UDP)")
    p.add_argument(
        "--transport",
        default="udp",
        help="udp (to --router), default (python-ndn's own choice), or a face URI",
    )
    p.add_argument("--port", type=int, default=6363)
    p.add_argument("--prefix", help="producer: the prefix to register")
    p.add_argument("--name", action="append", help="consumer (repeatable), fetch: the name")
    p.add_argument("--freshness", type=int, help="producer: FreshnessPeriod (ms)")
    p.add_argument("--delay", type=int, default=0, help="producer: answer this many ms later")
    p.add_argument("--content", help="producer: the Content (default: the name)")
    p.add_argument("--pad", type=int, default=0, help="producer: add this many 'x' to the Content")
    p.add_argument("--object-size", type=int, default=0)
    p.add_argument("--segment-size", type=int, default=1000)
    p.add_argument("--unregister-after", type=float)
    p.add_argument("--lifetime", type=int, default=2000)
    p.add_argument("--can-be-prefix", action="store_true")
    p.add_argument("--must-be-fresh", action="store_true")
    p.add_argument("--nonce", type=int)
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--retries", type=int, default=3)
    p.add_argument("--local", action="store_true", help="commands under /localhost/nfd")
    p.add_argument("--local-port", type=int, help="the UDP source port")
    p.add_argument("--hmac-key", help="sign commands (/localhop/nfd) with this key (hex)")
    p.add_argument("--signature-time-offset", type=int, default=0, help="ms added to it")
    p.add_argument("--module", default="rib", choices=["rib", "faces"], help="command: module")
    p.add_argument(
        "--verb",
        default="register",
        choices=[
            "register",
            "unregister",
            "create",
            "destroy",
            "strategy-choice/set",
            "strategy-choice/unset",
        ],
    )
    p.add_argument("--strategy", help="command: Strategy (strategy-choice/set)")
    p.add_argument("--flags", type=int, help="command: Flags")
    p.add_argument("--uri", help="command: Uri")
    p.add_argument("--local-uri", help="command: LocalUri")
    p.add_argument("--face-persistency", type=int, help="command: FacePersistency")
    p.add_argument("--raw-params", help="command: this ControlParameters TLV (hex) as is")
    p.add_argument("--ecdsa", action="store_true", help="command: signed with an ECDSA key")
    p.add_argument("--face-id", type=int, help="command: FaceId")
    p.add_argument("--origin", type=int, help="command: Origin")
    p.add_argument("--cost", type=int, help="command: Cost")
    p.add_argument("--expiration-period", type=int, help="command: ExpirationPeriod (ms)")
    args = p.parse_args(argv)
    if args.transport == "udp" and not args.router:
        p.error("--router is needed with --transport udp")
    modes = {
        "producer": producer,
        "consumer": consumer,
        "fetch": fetch,
        "command": send_command,
        "dataset": dataset,
    }
    modes[args.mode](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())

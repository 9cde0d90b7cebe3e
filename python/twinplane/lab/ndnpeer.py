# SPDX-License-Identifier: BSD-3-Clause
"""Real NDN applications (python-ndn) for the labs: run as
``python -m twinplane.lab.ndnpeer MODE ...`` inside a namespace, talking to a
forwarder over UDP (``udp4://ROUTER:6363``), exactly as an application would.

Modes:
  producer   register a prefix with the forwarder (NFD's rib/register) and
             answer Interests under it; prints one JSON line per event
             ({"event": "registered"}, {"event": "interest", "name": ...}).
  consumer   express Interests, one name after the other, from one face; prints
             {"result": "data"|"nack"|"timeout", ...} for each.
  fetch      fetch a segmented object with python-ndn's segment fetcher;
             prints {"size": N, "sha256": HEX, "segments": K}.

A producer with ``--object-size N`` serves a deterministic object of N bytes
(byte i is i*7+3 mod 251) as segments ``PREFIX/seg=K`` of ``--segment-size``
bytes, FinalBlockId on each; names under ``PREFIX/silent`` are never answered.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
from typing import Any

from ndn.app import NDNApp
from ndn.encoding import Component, FormalName, InterestParam, Name
from ndn.security import KeychainDigest
from ndn.transport.udp_face import UdpFace
from ndn.types import InterestCanceled, InterestNack, InterestTimeout, ValidationFailure


def emit(obj: dict[str, Any]) -> None:
    print(json.dumps(obj), flush=True)


def object_bytes(size: int) -> bytes:
    return bytes((i * 7 + 3) % 251 for i in range(size))


def make_app(router: str, port: int) -> NDNApp:
    return NDNApp(face=UdpFace(router, port), keychain=KeychainDigest())


def producer(args: argparse.Namespace) -> None:
    app = make_app(args.router, args.port)
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
        app.put_data(name, content.encode(), **kw)

    async def main() -> None:
        ok = await app.register(prefix, on_interest)
        emit({"event": "registered" if ok else "register_failed", "prefix": args.prefix})
        if not ok:
            app.shutdown()
            return
        if args.unregister_after is not None:
            await asyncio.sleep(args.unregister_after)
            ok = await app.unregister(prefix)
            emit({"event": "unregistered" if ok else "unregister_failed"})

    app.run_forever(after_start=main())


def consumer(args: argparse.Namespace) -> None:
    app = make_app(args.router, args.port)

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

    app = make_app(args.router, args.port)

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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="ndnpeer", description=__doc__.split("\n\n")[0])
    p.add_argument("mode", choices=["producer", "consumer", "fetch"])
    p.add_argument("--router", required=True, help="the forwarder's address")
    p.add_argument("--port", type=int, default=6363)
    p.add_argument("--prefix", help="producer: the prefix to register")
    p.add_argument("--name", action="append", help="consumer (repeatable), fetch: the name")
    p.add_argument("--freshness", type=int, help="producer: FreshnessPeriod (ms)")
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
    args = p.parse_args(argv)
    {"producer": producer, "consumer": consumer, "fetch": fetch}[args.mode](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())

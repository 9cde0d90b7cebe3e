"""Demo: build the default router lab, ping and stream UDP through twinplane, show counters.

Run as root from the repository root after building::

    .venv/bin/python -m twinplane.lab            # PYTHONPATH=python
    .venv/bin/python -m twinplane.lab --pmd af_xdp --count 1000

Everything it creates (namespaces, veths, the daemon) is torn down at the
end, also after an error or Ctrl-C.
"""

from __future__ import annotations

import argparse
import signal
import sys
from types import FrameType

from twinplane.lab.router import PMDS, RouterLab, lab_pmd
from twinplane.lab.traffic import UdpReceiver, udp_send


def _sigterm(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m twinplane.lab", description=__doc__.splitlines()[0]
    )
    ap.add_argument(
        "--pmd",
        choices=PMDS,
        default=None,
        help="port driver (default $TP_LAB_PMD or af_packet)",
    )
    ap.add_argument(
        "--count", type=int, default=500, help="UDP datagrams to send h1 -> h2"
    )
    ap.add_argument("--keep", action="store_true", help="keep the lab's log directory")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, _sigterm)

    pmd = args.pmd or lab_pmd()
    print(
        f"building lab: h1 10.0.1.2 -- [p0 twinplane ({pmd}) p1] -- h2 10.0.2.2",
        flush=True,
    )
    with RouterLab(pmd=pmd, keep=args.keep or None) as lab:
        h1, h2 = lab.ns["h1"], lab.ns["h2"]
        print(
            f"namespaces: {', '.join(ns.name for ns in lab.ns.values())}; logs in {lab.workdir}"
        )

        print("\n$ ping -c 3 10.0.2.2   (in h1)", flush=True)
        res = h1.run(
            ["ping", "-n", "-c", "3", "-i", "0.2", "-W", "2", "10.0.2.2"], check=False
        )
        print(res.stdout.rstrip())
        ping_ok = res.returncode == 0

        print(f"\nsending {args.count} UDP datagrams h1 -> h2:7000", flush=True)
        before = lab.counters()
        with UdpReceiver(h2, 7000) as rx:
            udp_send(
                h1,
                "10.0.2.2",
                7000,
                lambda i: b"demo %06d" % i,
                count=args.count,
                interval=0.0005,
            )
            got = len(rx.wait(args.count, timeout=3.0))
        after = lab.counters()
        fwd = after["ports"]["p1"]["tx"] - before["ports"]["p1"]["tx"]
        to_kernel = after["exception"]["to_kernel"] - before["exception"]["to_kernel"]
        print(
            f"h2 received {got}/{args.count}; data plane p1 tx +{fwd}, exception to_kernel +{to_kernel}"
        )

        print("\n$ twinctl show counters", flush=True)
        try:
            print(lab.twinctl("show", "counters").rstrip())
        except (OSError, RuntimeError) as e:
            print(f"(twinctl not usable: {e}; same command through the API)")
            print(lab.ctl_text("show", "counters").rstrip())

        ok = ping_ok and got == args.count and fwd >= args.count
        print(f"\n{'OK' if ok else 'FAILED'}: tearing down", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

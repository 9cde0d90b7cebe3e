# SPDX-License-Identifier: BSD-3-Clause
"""Demo: two hosts routed through twinplane, then PHD devices through its IoT gateway to ACME.

Then NDN, the L2 switch, and the downloader (twinplane-fetch from nginx).

Part 1, the router: ping and a UDP stream h1 -> h2, then the counters that show
the data plane forwarded. Part 2, the gateway (seed 000): a pulse oximeter, an
activity monitor, a medication monitor, a blood-pressure monitor and a weighing
scale (phd-sim, in h1) talk ISO/IEEE
11073-20601 to twinplane, which converts their reports into oneM2M
contentInstances on a real IN-CSE (ACME, in h2); live counters while they run,
then each device's latest readings read back from ACME.

Run as root from the repository root after building::

    .venv/bin/python -m twinplane.lab            # PYTHONPATH=python
    .venv/bin/python -m twinplane.lab --pmd af_xdp --count 1000

Everything it creates (namespaces, veths, the daemon) is torn down at the
end, also after an error or Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import FrameType
from typing import Any

from twinplane.lab.acme import Acme, acme_available, cin_content
from twinplane.lab.daemon import build_dir
from twinplane.lab.ndnpeer import LAB_KEY
from twinplane.lab.router import PMDS, RouterLab, lab_pmd
from twinplane.lab.traffic import UdpReceiver, ping, udp_send
from twinplane.metrics import get, parse
from twinplane.proc import Process, tail


def _sigterm(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


CSE = "10.0.2.2"
DEVICES = [
    ("pulse-oximeter", "00A0000000000001"),
    ("activity-monitor", "00A0000000000002"),
    ("medication-monitor", "00A0000000000003"),
    ("blood-pressure", "00A0000000000004"),
    ("weighing-scale", "00A0000000000005"),
]


def sim_result(sim: Process) -> dict[str, Any]:
    """phd-sim's result: the last line of JSON it printed ({} if none)."""
    lines = [ln for ln in tail(sim.log, 20).splitlines() if ln.startswith("{")]
    out: dict[str, Any] = json.loads(lines[-1]) if lines else {}
    return out


def gateway_demo(lab: RouterLab) -> bool:
    """PHD agents -> twinplane -> ACME, with live counters; True if every reading arrived."""
    print(f"\nstarting the IN-CSE (ACME) on {CSE} in h2 ...", flush=True)
    acme = Acme.in_lab(lab, ns=lab.ns["h2"], address=CSE)
    sims = [
        Process(
            [str(build_dir() / "src" / "phd-sim"), "--type", dev, "--sysid", sysid,
             "--gw", "10.0.1.1:6024", "--reports", "6", "--interval", "400"],
            lab.workdir / f"phd-sim-{dev}.out",
            netns=lab.ns["h1"],
        ).start()
        for dev, sysid in DEVICES
    ]  # fmt: skip
    for sim in sims:
        lab.defer(f"stop {sim.label}", sim.stop)
    print(f"{len(sims)} devices associate, configure and report (6 confirmed reports each):")
    while any(p.running() for p in sims):
        c = lab.ctl("show", "iotgw")
        d, cp = c["data_plane"], c["control_plane"]
        print(
            f"  sessions {c['sessions']}  reports {d['reports']}  cin sent "
            f"{d['cin_sent']}  answers {d['responses_sent']}  to control "
            f"{d['signaling_to_control']}  AEs ready {cp['reg_ready']}",
            flush=True,
        )
        time.sleep(1)
    results = [sim_result(p) for p in sims]
    ok = all(r.get("result") == "ok" for r in results)
    print("\nlatest readings, read back from ACME over HTTP:")
    for (dev, sysid), r in zip(DEVICES, results, strict=True):
        ae = f"PHD-{sysid}"
        print(
            f"  {dev} ({ae}): session {r.get('result')}, {r.get('acked', 0)} reports acknowledged"
        )
        print(f"    labels {acme.get(f'cse-in/{ae}')['m2m:ae'].get('lbl', [])}")
        for cnt in acme.children(f"cse-in/{ae}", ty=3):
            cin = acme.latest(f"cse-in/{ae}/{cnt['nm']}")
            con = cin_content(cin) if cin else None
            ok = ok and con is not None
            print(f"    {cnt['nm']:<20} {con}")
    return ok


NDN_CONFIG = [
    "ndn enable pit-capacity 4096 cs-capacity 1024",
    "ndn face accept udp 10.0.0.0/8",
    # remote applications register under /localhop/nfd, signed with the lab's key
    f"ndn localhop enable key {LAB_KEY}",
]


METRICS = "127.0.0.1:9464"  # in the router's namespace


def trace_demo(lab: RouterLab) -> bool:
    """The packet trace: two pings from h1, their path through the stages."""
    print("\nPacket trace: $ twinctl trace start count 2 port p0; ping -c 2 (h1); show trace")
    lab.ctl("trace", "start", "count", "2", "port", "p0")
    lab.ns["h1"].run(["ping", "-n", "-c", "2", "-i", "0.2", "-W", "2", "10.0.2.2"], check=False)
    try:
        lab.wait_until(
            lambda: len([p for p in lab.ctl("show", "trace")["packets"] if p["verdict"]]) >= 2,
            3.0, 0.05, "two traced packets",
        )  # fmt: skip
    except TimeoutError:
        pass
    trace = lab.ctl("show", "trace")["packets"]
    lab.ctl("trace", "stop")
    for p in trace[:2]:
        i, v = p["in"], (p["verdict"] or [{}])[0]
        print(
            f"  {i.get('ip4_src')} -> {i.get('ip4_dst')} ttl {i.get('ttl')} in {i.get('port')}: "
            f"{','.join(p['stages'])} -> {v.get('action')} {v.get('port', '')} ttl {v.get('ttl')}"
        )
    return len(trace) >= 2 and all("ip4.forward" in p["stages"] for p in trace[:2])


def router_more_demo(lab: RouterLab) -> bool:
    """IPv6 (ping6 and a UDP stream) forwarded by the lcores, an ECMP route from the kernel, a
    packet trace, and the Prometheus page of the counters."""
    print("\nIPv6: 2001:db8:1::/64 (h1) and 2001:db8:2::/64 (h2) on the router's TAPs")
    lab.enable_ipv6()
    print("$ ping -6 -c 3 2001:db8:2::2   (in h1)", flush=True)
    args = ["ping", "-6", "-n", "-c", "3", "-i", "0.2", "-W", "6", "2001:db8:2::2"]
    res = lab.ns["h1"].run(args, check=False)
    print(res.stdout.rstrip())
    ok6 = " 3 received" in res.stdout
    n6, tx0 = 200, lab.counters()["ports"]["p1"]["tx"]
    with UdpReceiver(lab.ns["h2"], 7006, "::") as rx:
        udp_send(lab.ns["h1"], "2001:db8:2::2", 7006, lambda i: b"v6 %04d" % i, n6, 0.002)
        got6 = len(rx.wait(n6, timeout=5.0))
    tx6 = lab.counters()["ports"]["p1"]["tx"] - tx0
    print(f"$ {n6} UDP datagrams h1 -> [2001:db8:2::2]:7006: {got6} arrived, p1 sent {tx6}")
    ok6 = ok6 and got6 == n6 and tx6 >= n6
    routes6 = lab.ctl("show", "routes6")["routes"]
    print(f"  twinctl show routes6: {len(routes6)} routes from the kernel, e.g.")
    for r in routes6[:4]:
        print(f"    {r['prefix']:<22} {r['type']:<10} {r['state']}")

    print("\nECMP: a kernel route with two next hops becomes a next-hop group")
    print("$ ip route add 10.99.0.0/16 nexthop via 10.0.1.2 nexthop via 10.0.2.2   (router)")
    lab.router.run(["ip", "route", "add", "10.99.0.0/16", "nexthop", "via", "10.0.1.2",
                    "nexthop", "via", "10.0.2.2"])  # fmt: skip

    def group() -> dict[str, Any] | None:
        r = lab.route("10.99.0.0/16")
        return r if r and r.get("type") == "multipath" and r.get("state") == "installed" else None

    try:
        r = lab.wait_until(group, 3.0, 0.05, "10.99.0.0/16 as a group")
    except TimeoutError:
        r = None
    line = next((x for x in lab.twinctl("show", "routes").splitlines() if "10.99.0.0" in x), "")
    print(f"  twinctl show routes: {line.strip()}")
    okm = r is not None and len(r.get("hops", [])) == 2

    okt = trace_demo(lab)

    print(f"\nPrometheus: $ twinctl metrics listen {METRICS}", flush=True)
    lab.ctl("metrics", "listen", METRICS)
    resp = get(lambda: lab.router.socket(socket.AF_INET, socket.SOCK_STREAM), METRICS)
    page = parse(resp.body.decode()) if resp.status == 200 else None
    if page is not None:
        fams = [n for n, t in page.types.items() if t == "counter"]
        print(f"  GET /metrics: {resp.status}, {len(page.types)} families ({len(fams)} counters)")
        for name in ("twinplane_port_rx_packets_total", "twinplane_port_tx_packets_total"):
            v = {ls.get("port"): int(x) for ls, x in page.samples.get(name, [])}
            print(f"    {name} {v}")
    return (
        ok6
        and okm
        and okt
        and page is not None
        and page.value("twinplane_port_rx_packets_total") > 0
    )


def ndn_demo(lab: RouterLab) -> bool:
    """python-ndn applications through the NDN forwarder over UDP faces."""
    peer = [sys.executable, str(Path(__file__).with_name("ndnpeer.py"))]
    print("\nNDN: a python-ndn producer in h2 registers /demo/ndn with twinplane", flush=True)
    prod = lab.ns["h2"].popen(
        [
            *peer,
            "producer",
            "--router",
            "10.0.2.1",
            "--prefix",
            "/demo/ndn",
            "--object-size",
            "300000",
            "--segment-size",
            "1200",
            "--hmac-key",
            LAB_KEY,
        ],
        stdout=subprocess.PIPE,
    )
    try:
        assert prod.stdout is not None
        reg = json.loads(prod.stdout.readline() or b"{}")
        print(f"  producer: {reg}")

        def consumer(*args: str) -> list[dict[str, Any]]:
            out = lab.ns["h1"].run([*peer, *args], check=False, timeout=120).stdout
            return [json.loads(x) for x in out.splitlines() if x.startswith("{")]

        res = consumer(
            "consumer",
            "--router",
            "10.0.1.1",
            "--name",
            "/demo/ndn/seg=0",
            "--name",
            "/demo/ndn/seg=0",
            "--name",
            "/nowhere/x",
        )
        for r in res:
            if "content" in r:
                r["content"] = f"<{len(r['content'])} bytes>"
            print(f"  consumer in h1: {r}")
        fetched = consumer("fetch", "--router", "10.0.1.1", "--name", "/demo/ndn")
        print(f"  segment fetcher in h1: {fetched[0] if fetched else 'nothing'}")
        s = lab.ctl("show", "ndn")
        t = s["totals"]
        print(
            f"  forwarder: {t['interests']} Interests, {t['data']} Data, CS hits "
            f"{t['cs_hits']}, Nack NoRoute {t['nack_noroute']}, PIT now {s['pit_entries']}, "
            f"CS {s['cs_entries']}"
        )
        print("  $ twinctl ndn fib show")
        for e in lab.ctl("ndn", "fib", "show")["fib"]:
            hops = ", ".join(f"face {h['face']} cost {h['cost']}" for h in e["nexthops"])
            print(f"    {e['prefix']:<18} {e['strategy']:<10} {hops}")
        ch = lab.ctl("show", "ndn", "chains")
        print("  $ twinctl show ndn chains   (keyed name hashes: review N4)")
        for c in ch["pcct"]:
            print(
                f"    PCCT of lcore {c['lcore']}: {c['entries']} entries in "
                f"{c['used_buckets']} of {c['buckets']} buckets, longest chain "
                f"{c['longest_chain']}"
            )
        f = ch["fib"]
        print(f"    FIB: {f['entries']} entries, longest chain {f['longest_chain']}")
        return (
            reg.get("event") == "registered"
            and [r.get("result") for r in res] == ["data", "data", "nack"]
            and t["cs_hits"] >= 1
            and bool(fetched)
            and fetched[0].get("size") == 300000
        )
    finally:
        prod.terminate()
        prod.wait(5)


def fetch_demo(keep: bool | None) -> bool:
    """The downloader (seed 001): twinplane-fetch on af_xdp, its own TCP/IP stack, gets
    a file from nginx through a Linux router, four ranges in parallel, and checks
    its SHA-256 against the server's file."""
    from twinplane.lab.fetch import SERVER, FetchLab, FetchResult, fetch_binary, nginx_binary

    print("\n=== the downloader: twinplane-fetch (user-space TCP) from nginx ===", flush=True)
    if not fetch_binary().exists() or nginx_binary() is None:
        print("(twinplane-fetch not built or nginx not installed: skipped; scripts/setup.sh)")
        return True
    with FetchLab(keep=keep) as lab:
        lab.add_file("demo.bin", 32 << 20)
        want = lab.sha256("demo.bin")
        url = f"http://{SERVER}/demo.bin"
        print(f"$ twinplane-fetch --port net_af_xdp0,iface=c0 ... {url} --connections 4 --sha256 …")
        res = lab.fetch(url, "demo.bin", "--connections", "4", "--sha256", want)
        assert isinstance(res, FetchResult)
        sm = res.summary
        if res.returncode != 0 or not sm:
            print(f"download FAILED: {res}")
            return False
        print(
            f"{sm['bytes']:,} bytes in {sm['seconds']:.2f} s, {sm['goodput_bps'] / 1e9:.2f} "
            f"Gbit/s over {sm['connections']} connections, {sm['retransmissions']} "
            f"retransmissions; SHA-256 {sm['sha256'][:16]}… equals the server's file"
        )
        return bool(sm["sha256"] == want)


def l2_demo(pmd: str, keep: bool | None) -> bool:
    """The L2 switch: three hosts, two VLANs, learning, isolation; the MAC table."""
    from twinplane.lab.switch import SwitchHost, SwitchLab

    hosts = (
        SwitchHost("p0", "h1", "10.0.0.1/24", "vlan 10"),
        SwitchHost("p1", "h2", "10.0.0.2/24", "vlan 10"),
        SwitchHost("p2", "h3", "10.0.0.3/24", "vlan 20"),
    )
    print(
        "\nL2 switch: a second twinplane bridges h1, h2 (VLAN 10) and h3 (VLAN 20) in br0",
        flush=True,
    )
    with SwitchLab(hosts=hosts, pmd=pmd, keep=keep) as lab:
        for cmd in lab.daemon_config().splitlines()[1:]:
            print(f"  {cmd}")
        same = ping(lab.ns["h1"], "10.0.0.2", count=3)
        other = ping(lab.ns["h1"], "10.0.0.3", count=2, wait=1.0)
        print(f"$ ping 10.0.0.2 (h1, same VLAN): {same}/3 answered")
        print(f"$ ping 10.0.0.3 (h1, VLAN 20):   {other}/2 answered (isolated)")
        print("$ twinctl show bridge br0 macs", flush=True)
        print(lab.ctl_text("show", "bridge", "br0", "macs").rstrip())
        learned = {e["port"] for e in lab.macs()}
        return same == 3 and other == 0 and {"p0", "p1"} <= learned


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
    ap.add_argument("--count", type=int, default=500, help="UDP datagrams to send h1 -> h2")
    ap.add_argument("--keep", action="store_true", help="keep the lab's log directory")
    ap.add_argument("--no-iotgw", action="store_true", help="the router part only")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, _sigterm)

    pmd = args.pmd or lab_pmd()
    print(
        f"building lab: h1 10.0.1.2 -- [p0 twinplane ({pmd}) p1] -- h2 10.0.2.2",
        flush=True,
    )
    iotgw = not args.no_iotgw and acme_available()
    extra = [f"iotgw enable cse {CSE}"] if iotgw else []
    extra += NDN_CONFIG
    with RouterLab(pmd=pmd, keep=args.keep or None, extra_config=extra) as lab:
        h1, h2 = lab.ns["h1"], lab.ns["h2"]
        print(f"namespaces: {', '.join(ns.name for ns in lab.ns.values())}; logs in {lab.workdir}")

        print("\n$ ping -c 3 10.0.2.2   (in h1)", flush=True)
        res = h1.run(["ping", "-n", "-c", "3", "-i", "0.2", "-W", "2", "10.0.2.2"], check=False)
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
            f"h2 received {got}/{args.count}; data plane p1 "
            f"tx +{fwd}, exception to_kernel +{to_kernel}"
        )

        mods = lab.ctl("show", "modules")
        print("\nnetwork functions (modules), their port modes and ethertypes:")
        for m in mods["modules"]:
            print(f"  {m['name']:<6} {m['help']} ({len(m['counters'])} counters)")
        print("  port modes: " + ", ".join(m["mode"] for m in mods["port_modes"]))
        print(
            "  ethertypes on l3 ports: "
            + ", ".join(f"{e['ethertype']} {e['module']}" for e in mods["ethertypes"])
        )

        print("\n$ twinctl show counters", flush=True)
        try:
            print(lab.twinctl("show", "counters").rstrip())
        except (OSError, RuntimeError) as e:
            print(f"(twinctl not usable: {e}; same command through the API)")
            print(lab.ctl_text("show", "counters").rstrip())

        ok = ping_ok and got == args.count and fwd >= args.count
        ok = router_more_demo(lab) and ok
        ok = ndn_demo(lab) and ok
        if iotgw:
            ok = gateway_demo(lab) and ok
        elif not args.no_iotgw:
            print(
                "\n(acmecse not installed: the gateway part "
                "is skipped; scripts/setup.sh installs it)"
            )
        print("\ntearing down the router lab", flush=True)
    ok = l2_demo(pmd, args.keep or None) and ok
    ok = fetch_demo(args.keep or None) and ok
    print(f"\n{'OK' if ok else 'FAILED'}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

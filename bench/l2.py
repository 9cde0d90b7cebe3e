#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/l2.py: twinplane's L2 switch against OVS-DPDK and the Linux bridge (issue 12, seed 003).

Parts, all in one run, the switches side by side on the same wires and cores
(the switch on DUT_CPU, the generator on GEN_CPU):

1. Switching, RFC 2544 (NDR and PDR by the harness's search), frame sizes 64 to
   1518: twinplane-l2 and OVS-DPDK on memif (the generator the memif server),
   all three on veth (af_xdp for the DPDK switches; the Linux bridge switches
   the veths itself); with the switch's cycles per packet at a common rate.
   Part ndr64 adds paired 64-byte memif searches (twinplane and OVS-DPDK one
   after the other, the order alternating): the headline ratio is the median
   of every pair's ratio.
2. iperf3 TCP between two namespaces through each switch on veth, as in the
   seed: N runs, mean and coefficient of variation.
3. Service chains of 1 to 4 twinplane-nf processes (memif and vhost-user), the
   generator on memif at the ends: NDR and PDR, and the switch's cycles per
   packet per hop (each packet crosses the switch n + 1 times) at a rate both
   switches carry.
4. Learning: how fast twinplane's control plane learns N new MACs from the
   learn events, and what a 16k-entry table costs the fast path.

Report: docs/results/l2.{md,json,png}.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from twinplane.bench import duts as D
from twinplane.bench import ovs as O
from twinplane.bench.rfc2544 import (
    SearchParams,
    add_search_arguments,
    run_search,
    spread,
    with_retries,
)
from twinplane.lab.nfproc import NfProcess

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"
SIZES = (64, 128, 256, 512, 1024, 1280, 1518)
QUICK_SIZES = (64, 1518)
CHAIN_LENGTHS = (1, 2, 3, 4)


# --------------------------------------------------------------------------
# chain DUTs: the switch between the generator's two memif ports, n NFs hung on it


def nf_ports_client(backend: str, socks: tuple[str, str]) -> tuple[str, str]:
    if backend == "memif":
        return (
            f"net_memif0,role=client,id=0,socket={socks[0]},socket-abstract=no",
            f"net_memif1,role=client,id=0,socket={socks[1]},socket-abstract=no",
        )
    return (
        f"net_virtio_user0,path={socks[0]},queues=1",
        f"net_virtio_user1,path={socks[1]},queues=1",
    )


class ChainMixin:
    n_nfs = 1
    backend = "memif"
    nf_rxq2 = False
    nfs: list[NfProcess]

    def start_nfs(self, tb: D.Testbed, socks: list[tuple[str, str]]) -> None:
        self.nfs = []
        for i, pair in enumerate(socks, 1):
            nf = NfProcess(
                f"{tb.tag}n{i}",
                tb.workdir,
                *nf_ports_client(self.backend, pair),
                backoff=True,
                cpu=D.GEN_CPU,
                # OVS-DPDK's memif ports have 2 transmit queues (PMD + main thread), a
                # ring each: the NF polls both (a vhost-user port has one)
                extra_args=("--rxq", "2") if self.nf_rxq2 and self.backend == "memif" else (),
            )
            self.nfs.append(nf)
            nf.start(timeout=60)
            # the NFs share the generator's CPU: the same nice as its worker, so the
            # scheduler shares it evenly instead of starving them
            tids = D.pinned_threads(nf.pid, D.GEN_CPU)
            if tb.nice is not None:
                for tid in tids:
                    os.setpriority(os.PRIO_PROCESS, tid, tb.nice)
            tb.watch.add_ours(D.GEN_CPU, tids)

    def stop_nfs(self) -> None:
        for nf in getattr(self, "nfs", []):
            nf.stop()


class TwinplaneChainDut(ChainMixin, D.TwinplaneDut):
    name = "twinplane-chain"
    switch = True

    def config_lines(self, ports: tuple[str, str]) -> list[str]:
        tb = self.tb
        lines = [
            f"# bench/l2.py: twinplane, a chain of {self.n_nfs} NFs over {self.backend}",
            f"port add p0 {ports[0]}",
            f"port add p1 {ports[1]}",
        ]
        self.socks = []
        for i in range(1, self.n_nfs + 1):
            pair = []
            for k, side in enumerate("ab"):
                sock = str(tb.workdir / f"nf{i}{side}.sock")
                pair.append(sock)
                idx = 2 + 2 * i + k
                dev = (
                    f"net_memif{idx},role=server,id=0,socket={sock},socket-abstract=no"
                    if self.backend == "memif"
                    else f"net_vhost{idx},iface={sock},queues=1"
                )
                lines.append(f"port add nf{i}{side} {dev}")
            self.socks.append((pair[0], pair[1]))
            lines.append(f"nf add nf{i} nf{i}a nf{i}b")
        via = " ".join(f"nf{i}" for i in range(1, self.n_nfs + 1))
        lines.append(f"chain add c1 from p0 to p1 via {via}")
        return lines

    def start(self, ports: tuple[str, str]) -> None:
        super().start(ports)
        self.start_nfs(self.tb, self.socks)
        deadline = time.monotonic() + 30
        while any(
            h["state"] != "up" for h in self.daemon.client.cmd("show", "chain", "c1")["hops"]
        ):
            if time.monotonic() > deadline:
                raise D.DutError(f"chain NFs not up\n{self.logs()}")
            time.sleep(0.1)

    def stop(self) -> None:
        self.stop_nfs()
        super().stop()


class OvsChainDut(ChainMixin, O.OvsDpdkDut):
    name = "ovsdpdk-chain"
    nf_rxq2 = True

    def start(self, ports: tuple[str, str]) -> None:
        super().start(ports)
        ovs, br = self.ovs, self.bridge
        hops: list[str] = ["p0"]
        socks = []
        for i in range(1, self.n_nfs + 1):
            pair = []
            for side in "ab":
                name = f"nf{i}{side}"
                if self.backend == "memif":
                    sock = str(self.tb.workdir / f"o-{name}.sock")
                    idx = 10 + 2 * i + (side == "b")
                    ovs.add_dpdk_port(
                        br,
                        name,
                        f"net_memif{idx},role=server,id=0,socket={sock},socket-abstract=no",
                    )
                else:
                    _, path = ovs.add_vhost_port(br, name, mode="server")
                    sock = str(path)
                pair.append(sock)
                hops.append(name)
            socks.append((pair[0], pair[1]))
        hops.append("p1")
        ovs.flows_chain(br, hops)
        self.start_nfs(self.tb, socks)
        ovs.wait_links_up([h for h in hops], timeout=30)

    def stop(self) -> None:
        self.stop_nfs()
        super().stop()


def chain_dut(switch: str, backend: str, n: int) -> str:
    """Register a chain DUT class for (switch, backend, n); its name."""
    base = TwinplaneChainDut if switch == "twinplane" else OvsChainDut
    name = f"{switch}-chain-{backend}-{n}"
    cls = type(name, (base,), {"name": name, "n_nfs": n, "backend": backend, "wires": ("memif",)})
    D.DUT_CLASSES[name] = cls
    return name


# --------------------------------------------------------------------------


class Runner:
    def __init__(self, a: argparse.Namespace, tsc: float, work: Path) -> None:
        self.a = a
        self.tsc = tsc
        self.work = work
        self.iso: D.CpuIsolation | None = None
        self.params = SearchParams(
            duration_s=a.duration,
            probe_duration_s=0.3,
            resolution=a.resolution,
            resolution_pps=2000,
            tolerances=(0.0, 0.005),
        )
        self.raw: dict[str, Any] = {
            "switching": {},
            "chain": {},
            "chain_cost": [],
            "iperf3": {},
            "learning": {},
            "errors": [],
        }

    def say(self, msg: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)

    def on_bed(
        self,
        part: str,
        key: str,
        wire: str,
        dut: str,
        sizes: list[int],
        body: Callable[[D.Testbed], None],
    ) -> None:
        """Run body on a started testbed; a failure (set-up or body) is recorded under
        ``errors`` and the run goes on."""
        if self.iso is not None:
            self.iso.sweep()
        try:
            with D.Testbed(
                wire, dut, self.work, tsc=self.tsc, memif_rsize=self.a.memif_rsize
            ) as tb:
                tb.start(sizes)
                body(tb)
        except Exception as e:  # noqa: BLE001 - record and go on
            self.say(f"{part} {key}: FAILED {e}")
            self.raw["errors"].append({"part": part, "setup": key, "error": str(e)[:2000]})

    def trial(self, tb: D.Testbed, size: int) -> Any:
        fn = tb.trial_fn(size, warmup=0.1, drain=0.1)
        if self.a.search != "binary":
            return fn  # MLRsearch weighs repeated trials itself
        return with_retries(fn, self.a.retries, max_loss=0.02)

    def ndr_pdr(self, tb: D.Testbed, size: int, label: str) -> dict[str, Any]:
        hi = D.wire_max_pps(tb.wire, size)
        res = run_search(
            self.a.search,
            self.trial(tb, size),
            hi,
            self.params,
            exceed_ratio=self.a.exceed_ratio,
            duration_sum_s=self.a.duration_sum,
        )
        out = {
            "ndr_pps": res.ndr.rate_pps,
            "pdr_pps": res.pdr.rate_pps,
            "ndr_converged": res.ndr.converged,
            "trials": len(res.trials),
            "wall_s": round(res.wall_s, 1),
            # each trial: rate, loss, the DUT threads' wait for their CPU (diagnostics)
            "trial_log": [
                {
                    k: v
                    for k, v in t.items()
                    if k
                    in (
                        "rate_pps",
                        "loss_ratio",
                        "disturbed",
                        "cpu_wait_ms",
                        "attempts",
                        "retried_loss",
                        "retried_cpu_wait_ms",
                        "xcpu_rtt_ns",
                    )
                }
                for t in res.trials
            ],
        }
        out.update(D.search_placement([t.get("xcpu_rtt_ns") for t in res.trials]))
        self.say(
            f"{label} {size}B: NDR {out['ndr_pps'] / 1e6:.3f} PDR {out['pdr_pps'] / 1e6:.3f} Mpps"
        )
        return out

    def cost_at(self, tb: D.Testbed, size: int, rate: float) -> dict[str, Any] | None:
        """The switch's cycles per packet at ``rate``: the median of ``--cost-trials``
        trials (one trial's figure moves by a third on this machine)."""
        fn = tb.trial_fn(size, warmup=0.1, drain=0.1)
        runs = []
        for _ in range(self.a.cost_trials):
            a = tb.dut.cost_snapshot()
            r = fn(rate, self.a.cost_duration)
            b = tb.dut.cost_snapshot()
            c = tb.dut.cost(a, b) if a is not None else None
            if c is None or c.get("cycles_per_pkt") is None:
                return c
            c["rate_pps"] = rate
            c["loss_ratio"] = r.loss_ratio
            c["xcpu_rtt_ns"] = r.extra.get("xcpu_rtt_ns")
            runs.append(c)
        rtts = [c["xcpu_rtt_ns"] for c in runs]
        runs.sort(key=lambda c: c["cycles_per_pkt"])
        med = dict(runs[len(runs) // 2])
        med["trials"] = [round(c["cycles_per_pkt"], 1) for c in runs]
        med.update(D.search_placement(rtts))  # the trials' placement, if they agree
        return med

    # --- 1. switching ---------------------------------------------------------------

    def switching(self) -> None:
        a = self.a
        plan = [("memif", "twinplane-l2"), ("memif", "ovsdpdk")]
        if not a.memif_only:
            plan += [("veth", "twinplane-l2"), ("veth", "ovsdpdk"), ("veth", "linuxbridge")]
        for rep in range(a.reps):
            for wire, dut in plan:
                if wire == "veth" and rep >= a.veth_reps:
                    continue
                key = f"{wire}/{dut}"
                self.say(f"switching rep {rep + 1}/{a.reps}: {key}")

                def body(tb: D.Testbed, key: str = key, wire: str = wire, rep: int = rep) -> None:
                    per: dict[str, Any] = {"rep": f"s{rep}"}
                    for size in a.sizes:
                        per[str(size)] = self.ndr_pdr(tb, size, key)
                    # the switch's cost at a rate every switch of the wire carries
                    rate = a.cost_rate_memif if wire == "memif" else a.cost_rate_veth
                    per["cost_64"] = self.cost_at(tb, 64, rate)
                    self.raw["switching"].setdefault(key, []).append(per)

                self.on_bed("switching", key, wire, dut, list(a.sizes), body)

    def ndr64(self) -> None:
        """More paired 64-byte NDR searches on memif (the headline ratio): one search
        moves by 2x from one minute to the next here, so the ratio is the median over
        the switching part's pairs and these; the order alternates within a pair."""
        a = self.a
        for i in range(a.ndr64_reps):
            order = ["twinplane-l2", "ovsdpdk"]
            if i % 2:
                order.reverse()
            for dut in order:
                key = f"memif/{dut}"
                self.say(f"ndr64 pair {i + 1}/{a.ndr64_reps}: {key}")

                def body(tb: D.Testbed, key: str = key, i: int = i) -> None:
                    per = {"rep": f"n{i}", "64": self.ndr_pdr(tb, 64, key)}
                    self.raw["switching"].setdefault(key, []).append(per)

                self.on_bed("ndr64", key, "memif", dut, [64], body)

    # --- 2. iperf3 ----------------------------------------------------------------------

    def iperf3(self) -> None:
        for dut in ("twinplane-l2", "ovsdpdk", "linuxbridge"):
            self.say(f"iperf3 through {dut}")
            try:
                self.raw["iperf3"][dut] = self.iperf3_one(dut)
            except Exception as e:  # noqa: BLE001
                self.say(f"iperf3 {dut}: FAILED {e}")
                self.raw["errors"].append({"part": "iperf3", "setup": dut, "error": str(e)[:2000]})

    def iperf3_one(self, dut: str) -> dict[str, Any]:
        """h1 (10.9.0.1) -- d0 [switch] d1 -- h2 (10.9.0.2), veths with offloads off."""
        a = self.a
        tb = D.Testbed("veth", dut, self.work, tsc=self.tsc)
        try:
            # the testbed's own wire (the generator namespace's g0/g1 are the hosts' ends)
            tb.start([64])
            tb.gen.stop()  # the generator leaves the veths: iperf3 uses them
            g = tb.gen_ns
            assert g is not None
            # two hosts: g0 and g1 sit in one namespace; move g1 to its own
            h2 = tb.own_ns("h2")
            g.run(["ip", "link", "set", "g1", "netns", h2.name])
            g.run(["ip", "addr", "add", "10.9.0.1/24", "dev", "g0"])
            g.run(["ip", "link", "set", "g0", "up"])
            h2.run(["ip", "addr", "add", "10.9.0.2/24", "dev", "g1"])
            h2.run(["ip", "link", "set", "g1", "up"])
            for ns, ifn in ((g, "g0"), (h2, "g1")):
                ns.run(["ethtool", "-K", ifn, "tx", "off", "tso", "off", "gso", "off"], check=False)
            server = h2.popen(["iperf3", "-s"])
            time.sleep(0.5)
            runs = []
            try:
                g.run(["ping", "-c", "3", "-i", "0.2", "-W", "1", "10.9.0.2"], check=False)
                for i in range(a.iperf_runs):
                    res = g.run(
                        ["taskset", "-c", str(D.GEN_CPU), "iperf3", "-c", "10.9.0.2", "-t",
                         str(a.iperf_seconds), "-J"],
                        check=False,
                        timeout=a.iperf_seconds + 30,
                    )  # fmt: skip
                    try:
                        j = json.loads(res.stdout)
                        bps = j["end"]["sum_received"]["bits_per_second"]
                        retr = j["end"]["sum_sent"].get("retransmits")
                    except (ValueError, KeyError) as e:
                        raise RuntimeError(
                            f"iperf3 run {i}: {res.stdout[-500:]} {res.stderr[-500:]}"
                        ) from e
                    runs.append({"gbps": bps / 1e9, "retransmits": retr})
                    self.say(f"  iperf3 {dut} run {i + 1}: {bps / 1e9:.3f} Gbit/s")
            finally:
                server.terminate()
                server.wait(timeout=5)
            vals = [r["gbps"] for r in runs]
            mean = statistics.fmean(vals)
            return {
                "runs": runs,
                "mean_gbps": mean,
                "cv": statistics.pstdev(vals) / mean if mean else None,
                "offloads": "tx, tso, gso off on every veth end (the DPDK ports need it; the "
                "same for the Linux bridge)",
                "client_cpu": D.GEN_CPU,
            }
        finally:
            tb.close()

    # --- 3. chains ----------------------------------------------------------------------

    def chains(self) -> None:
        a = self.a
        for backend in a.backends:
            for n in a.chain_lengths:
                res: dict[str, Any] = {}
                for switch in ("twinplane", "ovsdpdk"):
                    dut = chain_dut(switch, backend, n)
                    key = f"{switch}/{backend}/{n}"
                    self.say(f"chain {key}")

                    def body(
                        tb: D.Testbed,
                        key: str = key,
                        backend: str = backend,
                        switch: str = switch,
                        res: dict[str, Any] = res,
                    ) -> None:
                        r = self.ndr_pdr(tb, 64, key)
                        rate = a.chain_cost_rate_vhost if backend == "vhost" else a.chain_cost_rate
                        r["cost"] = self.cost_at(tb, 64, rate)
                        c = r["cost"] or {}
                        if c.get("cycles_per_pkt"):
                            # every packet crossed the switch n + 1 times, each counted
                            r["cycles_per_pkt_per_hop"] = c["cycles_per_pkt"]
                        res[switch] = r

                    self.on_bed("chain", key, "memif", dut, [64], body)
                self.raw["chain"].setdefault(backend, {})[str(n)] = res

    def chain_cost(self) -> None:
        """Paired cost rounds of the chains (part chain_cost): in each round, every
        set-up's switch cost with twinplane and with OVS-DPDK on fresh testbeds one
        right after the other (the order alternating), so a pair's two figures are
        half a minute apart and, when both ran in one placement of the vCPUs, classed
        by it. Part chains measures each set-up once, minutes apart from the other
        switch's: the host's placement moves a hop's cost by 2-3x in between."""
        a = self.a
        for rnd in range(a.chain_cost_rounds):
            for backend in a.backends:
                for n in a.chain_lengths:
                    rate = a.chain_cost_rate_vhost if backend == "vhost" else a.chain_cost_rate
                    order = ("twinplane", "ovsdpdk")
                    if (rnd + n) % 2:
                        order = order[::-1]
                    for switch in order:
                        key = f"{switch}/{backend}/{n}"
                        self.say(f"chain cost round {rnd + 1}/{a.chain_cost_rounds}: {key}")
                        entry = {"round": rnd, "backend": backend, "n": n, "switch": switch}
                        dut = chain_dut(switch, backend, n)
                        body = functools.partial(self.chain_cost_one, entry, rate)
                        self.on_bed("chain_cost", key, "memif", dut, [64], body)

    def chain_cost_one(self, entry: dict[str, Any], rate: float, tb: D.Testbed) -> None:
        """One set-up's cost in a round of part chain_cost, recorded with ``entry``."""
        c = self.cost_at(tb, 64, rate)
        self.raw["chain_cost"].append({**entry, "cost": c})
        if c and c.get("cycles_per_pkt"):
            self.say(f"  {c['cycles_per_pkt']:.0f} cycles/hop ({c.get('placement') or 'mixed'})")

    # --- 4. learning --------------------------------------------------------------------

    def learning(self) -> None:
        a = self.a
        n = a.learn_macs
        try:
            with D.Testbed(
                "memif", "twinplane-l2", self.work, tsc=self.tsc, memif_rsize=a.memif_rsize
            ) as tb:
                tb.start([64])
                cli = tb.dut.daemon.client
                base = cli.cmd("show", "bridge", "br0")["macs"]
                tb.gen.stream_add(
                    "many", "g0", 64, dmac=D.GEN_MAC[1], smac="02:aa:00:00:00:00",
                    extra=["smacs", str(n)],
                )  # fmt: skip
                # every source keeps sending (each MAC once per n / rate seconds), in
                # slices of 0.2 s, until the table holds them all: the learning time
                fn = tb.gen.trial_fn("many", warmup=0.0, drain=0.05)
                rate = a.learn_rate
                learned_at = None
                sent_s = 0.0
                r = None
                while sent_s < 20:
                    r = fn(rate, 0.2)
                    sent_s += 0.2
                    if cli.cmd("show", "bridge", "br0")["macs"] >= base + n:
                        learned_at = sent_s
                        break
                b = cli.cmd("show", "bridge", "br0")
                # the fast path with n + 1 entries against one: cycles per packet
                one = self.cost_at(tb, 64, a.cost_rate_memif)
                fn_many = tb.gen.trial_fn("many", warmup=0.1, drain=0.1)
                ca = tb.dut.cost_snapshot()
                rm = fn_many(a.cost_rate_memif, a.cost_duration)
                cb = tb.dut.cost_snapshot()
                many = tb.dut.cost(ca, cb)
                ws = cli.cmd("show", "counters")
                self.raw["learning"] = {
                    "new_macs": n,
                    "sent_at_pps": rate,
                    "send_s": n / rate,
                    "all_learned_after_s": learned_at,
                    "learn_rate_macs_per_s": n / learned_at if learned_at else None,
                    "learned": b["learned"],
                    "macs_in_table": b["macs"],
                    "learn_events": ws.get("counters", {}).get("l2.learn_events"),
                    "learn_ring_full": ws.get("counters", {}).get("l2.learn_ring_full"),
                    "last_slice_loss": r.loss_ratio if r else None,
                    "cost_one_source": one,
                    "cost_many_sources": many,
                    "many_sources_loss": rm.loss_ratio,
                }
                self.say(f"learning: {n} MACs learned after {learned_at} s")
        except Exception as e:  # noqa: BLE001
            self.say(f"learning: FAILED {e}")
            self.raw["errors"].append({"part": "learning", "error": str(e)[:2000]})

    # --- report -------------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        sw = self.raw["switching"]
        out: dict[str, Any] = {}

        def med(key: str, size: int, what: str) -> float | None:
            vals = [r[str(size)][what] for r in sw.get(key, []) if str(size) in r]
            return statistics.median(vals) if vals else None

        ratios = []
        ovs_by_rep = {r.get("rep"): r for r in sw.get("memif/ovsdpdk", [])}
        for t in sw.get("memif/twinplane-l2", []):
            o = ovs_by_rep.get(t.get("rep"))
            if o and "64" in t and "64" in o and o["64"]["ndr_pps"]:
                ratios.append(t["64"]["ndr_pps"] / o["64"]["ndr_pps"])
        out["ndr_64_twinplane_over_ovsdpdk"] = spread(ratios) if ratios else None
        out["ndr_64_ratio_per_rep"] = ratios
        # the same pairs, classed by the host's placement of the two vCPUs when both
        # searches of the pair ran in one (duts.xcpu_probe; README Decisions)
        by_pl: dict[str, list[float]] = {}
        pairs = []
        for t in sw.get("memif/twinplane-l2", []):
            o = ovs_by_rep.get(t.get("rep"))
            if not (o and "64" in t and "64" in o and o["64"]["ndr_pps"]):
                continue
            pt, po = t["64"].get("placement"), o["64"].get("placement")
            ratio = t["64"]["ndr_pps"] / o["64"]["ndr_pps"]
            pairs.append({"rep": t.get("rep"), "ratio": ratio, "placements": [pt, po]})
            if pt is not None and pt == po:
                by_pl.setdefault(pt, []).append(ratio)
        out["ndr_64_pairs"] = pairs
        out["ndr_64_twinplane_over_ovsdpdk_by_placement"] = {
            pl: spread(v) for pl, v in sorted(by_pl.items())
        }
        table = {}
        for key in sw:
            table[key] = {
                str(s): {"ndr_pps": med(key, s, "ndr_pps"), "pdr_pps": med(key, s, "pdr_pps")}
                for s in self.a.sizes
            }
            costs = [
                r["cost_64"]["cycles_per_pkt"]
                for r in sw[key]
                if r.get("cost_64") and r["cost_64"].get("cycles_per_pkt")
            ]
            table[key]["cycles_per_pkt_64"] = statistics.median(costs) if costs else None
        out["switching"] = table
        chain: dict[str, Any] = {}
        for backend, lens in self.raw["chain"].items():
            for n, per in lens.items():
                for switch, r in per.items():
                    chain.setdefault(switch, {}).setdefault(backend, {})[n] = {
                        "ndr_pps": r.get("ndr_pps"),
                        "pdr_pps": r.get("pdr_pps"),
                        "cycles_per_pkt_per_hop": r.get("cycles_per_pkt_per_hop"),
                    }
        out["chain"] = chain
        cr = []
        for backend, lens in chain.get("twinplane", {}).items():
            for n, t in lens.items():
                o = chain.get("ovsdpdk", {}).get(backend, {}).get(n, {})
                if t.get("cycles_per_pkt_per_hop") and o.get("cycles_per_pkt_per_hop"):
                    cr.append(t["cycles_per_pkt_per_hop"] / o["cycles_per_pkt_per_hop"])
        out["chain_cycles_per_hop_twinplane_over_ovsdpdk"] = spread(cr) if cr else None
        out.update(chain_cost_summary(self.raw.get("chain_cost") or []))
        out["iperf3"] = {
            k: {"mean_gbps": v["mean_gbps"], "cv": v["cv"], "runs": len(v["runs"])}
            for k, v in self.raw["iperf3"].items()
        }
        out["learning"] = self.raw["learning"]
        return out


def chain_cost_summary(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """Part chain_cost's pairs: per round and set-up, twinplane's cycles per hop over
    OVS-DPDK's; over all pairs, per set-up, and by placement (both in one)."""
    if not rounds:
        return {}
    got: dict[tuple[int, str, int], dict[str, Any]] = {}
    for e in rounds:
        c = e.get("cost") or {}
        if c.get("cycles_per_pkt"):
            got.setdefault((e["round"], e["backend"], e["n"]), {})[e["switch"]] = c
    pairs = []
    for (rnd, backend, n), per in sorted(got.items()):
        t, o = per.get("twinplane"), per.get("ovsdpdk")
        if not (t and o):
            continue
        pairs.append(
            {
                "round": rnd,
                "backend": backend,
                "n": n,
                "twinplane": round(t["cycles_per_pkt"], 1),
                "ovsdpdk": round(o["cycles_per_pkt"], 1),
                "ratio": t["cycles_per_pkt"] / o["cycles_per_pkt"],
                "placements": [t.get("placement"), o.get("placement")],
            }
        )
    if not pairs:
        return {}
    per_setup: dict[str, Any] = {}
    for backend in dict.fromkeys(p["backend"] for p in pairs):
        for n in sorted({p["n"] for p in pairs if p["backend"] == backend}):
            mine = [p for p in pairs if p["backend"] == backend and p["n"] == n]
            per_setup.setdefault(backend, {})[str(n)] = {
                "twinplane": statistics.median(p["twinplane"] for p in mine),
                "ovsdpdk": statistics.median(p["ovsdpdk"] for p in mine),
                "ratio": spread([p["ratio"] for p in mine]),
            }
    by_pl: dict[str, list[float]] = {}
    for p in pairs:
        a, b = p["placements"]
        if a is not None and a == b:
            by_pl.setdefault(a, []).append(p["ratio"])
    return {
        "chain_cost_pairs": pairs,
        "chain_cost_per_setup": per_setup,
        "chain_cost_ratio_paired": spread([p["ratio"] for p in pairs]),
        "chain_cost_ratio_paired_by_placement": {k: spread(v) for k, v in sorted(by_pl.items())},
        "chain_cost_setups_below_1": sum(
            1 for b in per_setup.values() for v in b.values() if v["ratio"]["median"] < 1
        ),
        "chain_cost_setups": sum(len(b) for b in per_setup.values()),
    }


def write_report(doc: dict[str, Any], out: Path) -> None:
    s = doc["summary"]
    L: list[str] = []
    L.append("# L2 switch: twinplane against OVS-DPDK and the Linux bridge (issue 12, seed 003)\n")
    L.append(f"Commit `{doc['commit']}`, {doc['date']}. Command: `{doc['command']}`. "
             f"Machine: {doc['machine'].get('model_name', '?')} "
             f"({doc['machine'].get('hypervisor_vendor', '')}), 2 CPUs: the switch (and its "
             f"control plane or OVS's other threads) on CPU {D.DUT_CPU}, the generator on CPU "
             f"{D.GEN_CPU}; NFs of the chains on CPU {D.GEN_CPU} with idle back-off. "
             "A shared, noisy VM: read the ratios and the spreads, not one absolute "
             "figure.\n")  # fmt: skip
    m = doc.get("merged")
    if m:
        L.append(
            f"Part{'s' if len(m['parts_now']) > 1 else ''} {', '.join(m['parts_now'])} "
            "measured by the command above; the others "
            f"kept from the run of commit `{m['base_commit']}`, {m['base_date']} "
            f"(`{m['base_command']}`).\n"
        )
    p = doc["params"]
    if p.get("memif_rsize"):
        L.append(
            f"Wires: memif with rings of 2^{p['memif_rsize']} slots on both sides (the "
            "generator's ports the servers, the switch's the clients); veth pairs with "
            "offloads off, af_xdp for the DPDK switches. The forwarding threads "
            "(twinplane's worker, OVS-DPDK's PMD, the generator's worker) run at nice -20. "
            "On this VM a kernel thread (`kdamond.0`, DAMON) was traced taking a CPU for up "
            "to 3.4 ms at a time: at 6 Mpps that is 20,000 frames, more than a ring holds, "
            "whichever switch runs (rings of 2^14 slots absorb more but put both switches "
            "behind the generator's cache misses at 6 Mpps: tried, and left).\n"
        )
    iso = doc.get("isolation")
    L.append(
        (
            f"Isolation: every task that may run elsewhere kept off CPU {iso['cpu']} for the "
            f"run ({iso['tasks_moved']} moved; per-CPU kernel threads stay), and the "
            "scheduler's autogroups off, so nice -20 holds against other sessions' tasks "
            "(README, Decisions); both undone at the end.\n"
        )
        if iso
        else "Isolation: none (`--no-isolate`).\n"
    )
    if p.get("search") == "mlr":
        L.append(
            "Throughput search: MLRsearch (PyPI `MLRsearch`, FD.io CSIT's method), NDR and "
            f"PDR goals with exceed ratio {p['exceed_ratio']:g} over {p['duration_sum_s']:g} s "
            "of trials per bound: a load stays a lower bound while at most that share of its "
            "trial seconds lose frames, so one trial hit by a CPU stall no longer ends the "
            "search. Rates are conditional throughputs.\n"
        )
    else:
        L.append(
            f"Throughput search: bisection, a small loss retried {p.get('retries', 0)} times.\n"
        )
    r = s.get("ndr_64_twinplane_over_ovsdpdk")
    if r:
        L.append(f"**64-byte NDR on memif, twinplane / OVS-DPDK in the same run: median "
                 f"{r['median']:.2f}x** (min {r['min']:.2f}, max {r['max']:.2f}, {r['n']} "
                 f"pairs of searches one after the other: "
                 f"{', '.join(f'{x:.2f}' for x in s['ndr_64_ratio_per_rep'])}). "
                 "Bar: 1.2x. A pair's two searches are a minute apart, and one search's "
                 "NDR moves by 2x from one minute to the next on this machine (a neighbour "
                 "taking a CPU for a millisecond loses frames whatever the switch): hence "
                 "many pairs and their median.\n")  # fmt: skip
    bp = s.get("ndr_64_twinplane_over_ovsdpdk_by_placement") or {}
    if s.get("ndr_64_pairs"):
        L.append(
            "The host moves this guest's two vCPUs between cores that share a cache and "
            "cores that do not, every minute or two, and every frame on memif crosses "
            "between them: `tp-xcpu-probe` times a cache line's round trip between the two "
            "CPUs before each trial (*near* under 120 ns, *mid* under 600, *far* above; "
            "README Decisions). A search's placement is its trials' when at least 80 % of "
            "them agree. Pairs whose two searches ran in one placement: "
            + (
                ", ".join(
                    f"{pl} {v['median']:.2f}x ({v['min']:.2f}-{v['max']:.2f}, {v['n']} pairs)"
                    for pl, v in bp.items()
                )
                if bp
                else "none"
            )
            + "; each pair's placements: "
            + ", ".join(
                f"{x['ratio']:.2f} ({'/'.join(pl or 'mixed' for pl in x['placements'])})"
                for x in s["ndr_64_pairs"]
            )
            + ".\n"
        )
    L.append("## Switching (RFC 2544, NDR / PDR 0.5 %, Mpps; median of repetitions, "
             "64 B on memif also over part ndr64's searches)\n")  # fmt: skip
    sizes = doc["params"]["sizes"]
    L.append("| wire / switch | " + " | ".join(f"{z} B" for z in sizes) + " | cycles/pkt (64 B) |")
    L.append("|---|" + "---|" * (len(sizes) + 1))
    for key, v in s["switching"].items():
        cells = []
        for z in sizes:
            e = v[str(z)]
            cells.append(
                "-"
                if e["ndr_pps"] is None
                else f"{e['ndr_pps'] / 1e6:.3f} / {e['pdr_pps'] / 1e6:.3f}"
            )
        c = v.get("cycles_per_pkt_64")
        L.append(f"| {key} | " + " | ".join(cells) + f" | {'-' if c is None else f'{c:.0f}'} |")
    L.append("")
    L.append("Cycles per packet: twinplane `show workers` busy cycles / packets sent; OVS-DPDK "
             "`pmd-stats-show` processing cycles / packets received; the Linux bridge CPU "
             f"{D.DUT_CPU}'s non-idle time (kernel DUT method). Measured in a trial at a rate "
             "every switch of the wire carries (see JSON `params`).\n")  # fmt: skip
    if s["iperf3"]:
        L.append(
            "## iperf3 TCP through each switch "
            "(veth, offloads off; mean, coefficient of variation)\n"
        )
        L.append("| switch | mean Gbit/s | CV | runs |\n|---|---|---|---|")
        for k, v in s["iperf3"].items():
            cv = "-" if v["cv"] is None else f"{v['cv'] * 100:.1f} %"
            L.append(f"| {k} | {v['mean_gbps']:.3f} | {cv} | {v['runs']} |")
        L.append("")
    if s["chain"]:
        L.append(
            "## Service chains (64 B, generator on memif; NDR / PDR Mpps; "
            "switch cycles per packet per hop)\n"
        )
        L.append(
            "| backend | NFs | twinplane NDR / PDR | OVS-DPDK NDR / PDR "
            "| twinplane cyc/hop | OVS-DPDK cyc/hop |"
        )
        L.append("|---|---|---|---|---|---|")
        tw, ov = s["chain"].get("twinplane", {}), s["chain"].get("ovsdpdk", {})
        for backend in doc["params"]["backends"]:
            for n in doc["params"]["chain_lengths"]:
                t = tw.get(backend, {}).get(str(n), {})
                o = ov.get(backend, {}).get(str(n), {})

                def f(e: dict[str, Any]) -> str:
                    if not e or e.get("ndr_pps") is None:
                        return "failed"
                    return f"{e['ndr_pps'] / 1e6:.3f} / {e['pdr_pps'] / 1e6:.3f}"

                def c(e: dict[str, Any]) -> str:
                    v = e.get("cycles_per_pkt_per_hop") if e else None
                    return "-" if v is None else f"{v:.0f}"

                L.append(f"| {backend} | {n} | {f(t)} | {f(o)} | {c(t)} | {c(o)} |")
        L.append("")
        cr = s.get("chain_cycles_per_hop_twinplane_over_ovsdpdk")
        if cr:
            L.append(
                f"**Switch cycles per packet per hop, twinplane / OVS-DPDK over the "
                f"{cr['n']} chain set-ups: median {cr['median']:.2f}** (min {cr['min']:.2f}, "
                f"max {cr['max']:.2f}). Bar: below 1.\n"
            )
        p = doc["params"]
        L.append(
            "Every NF is the same `twinplane-nf` (forwarding, no MAC swap) on CPU "
            f"{D.GEN_CPU}, at the generator worker's priority, backing off when idle: the "
            "chains' NDR is bounded by what that one CPU gives the generator and the NFs, "
            "for both switches alike. The switch's cost is measured at "
            f"{p.get('chain_cost_rate_pps', 0) / 1e6:.3f} Mpps (memif NFs) and "
            f"{p.get('chain_cost_rate_vhost_pps', 0) / 1e6:.3f} Mpps (vhost-user NFs), under "
            "every NDR of the table, the median of "
            f"{p.get('cost_trials', 1)} trials; per hop because each counts every "
            "crossing of the switch (twinplane: frames sent; OVS-DPDK: frames received).\n"
        )
    ps = s.get("chain_cost_per_setup")
    if ps:
        pr = s["chain_cost_ratio_paired"]
        bp = s.get("chain_cost_ratio_paired_by_placement") or {}
        rounds = 1 + max(x["round"] for x in s["chain_cost_pairs"])
        L.append("### Chain cost in paired rounds\n")
        L.append(
            f"{rounds} rounds; in each, every set-up's switch cost with twinplane and with "
            "OVS-DPDK on fresh testbeds one right after the other (the order alternating), "
            f"as above (the median of {doc['params'].get('cost_trials', 1)} trials each), "
            "so the two figures of a pair are half a minute apart: the table above "
            "measures each switch's set-up once, minutes apart, and the host's placement "
            "of the vCPUs moves a hop's cost by 2-3x in that time. Cycles per packet per "
            "hop, medians over the rounds:\n"
        )
        L.append("| backend | NFs | twinplane | OVS-DPDK | twinplane / OVS-DPDK (min-max) |")
        L.append("|---|---|---|---|---|")
        for backend, lens in ps.items():
            for n, v in lens.items():
                r = v["ratio"]
                L.append(
                    f"| {backend} | {n} | {v['twinplane']:.0f} | {v['ovsdpdk']:.0f} | "
                    f"{r['median']:.2f} ({r['min']:.2f}-{r['max']:.2f}, {r['n']}) |"
                )
        L.append("")
        L.append(
            f"**Paired, twinplane / OVS-DPDK cycles per hop: median {pr['median']:.2f}** "
            f"(min {pr['min']:.2f}, max {pr['max']:.2f}, {pr['n']} pairs); set-ups whose "
            f"median pair is below 1: {s['chain_cost_setups_below_1']} of "
            f"{s['chain_cost_setups']}. Pairs whose two costs ran in one placement: "
            + (
                ", ".join(
                    f"{pl} {v['median']:.2f} ({v['min']:.2f}-{v['max']:.2f}, {v['n']})"
                    for pl, v in bp.items()
                )
                if bp
                else "none"
            )
            + ".\n"
        )
    ln = s.get("learning") or {}
    if ln:
        t = ln.get("all_learned_after_s")
        learned_s = "never (within 20 s)" if t is None else f"{t:.3f} s"
        L.append("## Learning (twinplane): events to the control plane\n")
        L.append(f"{ln['new_macs']} new source MACs, each sending again every "
                 f"{ln['send_s'] * 1e3:.0f} ms ({ln['sent_at_pps'] / 1e6:.2f} Mpps in all): all "
                 "in the table after "
                 f"{learned_s} "
                 f"(learn events {ln.get('learn_events')}, lost to a full ring "
                 f"{ln.get('learn_ring_full')}). Fast path with one source against "
                 f"{ln['new_macs']} learned sources: "
                 f"{(ln.get('cost_one_source') or {}).get('cycles_per_pkt') or 0:.0f} and "
                 f"{(ln.get('cost_many_sources') or {}).get('cycles_per_pkt') or 0:.0f} cycles "
                 "per packet.\n")  # fmt: skip
    if doc["raw"]["errors"]:
        L.append("## What failed in this run\n")
        for e in doc["raw"]["errors"]:
            L.append(f"- {e['part']} {e.get('setup', '')}: {e['error'][:300]}")
        L.append("")
    L.append("![L2 results](l2.png)\n")
    (out / "l2.md").write_text("\n".join(L))


def plot(doc: dict[str, Any], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = doc["summary"]
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.5))
    sizes = doc["params"]["sizes"]
    for key, v in s["switching"].items():
        ys = [(v[str(z)]["ndr_pps"] or 0) / 1e6 for z in sizes]
        ax[0].plot(sizes, ys, marker="o", label=key)
    ax[0].set_xlabel("frame size (B)")
    ax[0].set_ylabel("NDR (Mpps)")
    ax[0].set_title("switching, RFC 2544 NDR")
    ax[0].legend(fontsize=7)
    for switch, per in s["chain"].items():
        for backend, lens in per.items():
            xs = sorted(int(n) for n in lens)
            ys = [(lens[str(n)].get("ndr_pps") or 0) / 1e6 for n in xs]
            ax[1].plot(xs, ys, marker="o", label=f"{switch} {backend}")
    ax[1].set_xlabel("NFs in the chain")
    ax[1].set_ylabel("NDR (Mpps), 64 B")
    ax[1].set_title("service chains")
    ax[1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "l2.png", dpi=110)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--quick", action="store_true", help="sizes 64 and 1518, 1 repetition, short trials"
    )
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--sizes", default=None)
    ap.add_argument("--duration", type=float, default=None, help="seconds per search trial")
    ap.add_argument("--resolution", type=float, default=0.03)
    add_search_arguments(ap)
    ap.add_argument("--retries", type=int, default=2, help="binary search: retries of a small loss")
    ap.add_argument("--cost-duration", type=float, default=2.0)
    ap.add_argument("--cost-rate-memif", type=float, default=1.0e6)
    ap.add_argument("--cost-rate-veth", type=float, default=0.2e6)
    ap.add_argument(
        "--chain-cost-rate",
        type=float,
        default=0.1e6,
        help="rate of the chains' cost trials on memif NFs (under both switches' NDR)",
    )
    ap.add_argument("--chain-cost-rate-vhost", type=float, default=0.04e6)
    ap.add_argument("--cost-trials", type=int, default=3, help="cost trials per set-up (median)")
    ap.add_argument(
        "--memif-rsize",
        type=int,
        default=12,
        help="log2 of the memif ring size of the wire, both switches (default 12: 4096 slots, "
        "as bench/rfc2544_ip4.py; 14 absorbs longer stalls but its 32 MB of buffers per ring "
        "miss the caches: both switches then stop at the generator's 6 Mpps)",
    )
    ap.add_argument("--veth-reps", type=int, default=None, help="repetitions on veth (--reps)")
    ap.add_argument(
        "--chain-cost-rounds",
        type=int,
        default=None,
        help="paired cost rounds of every chain set-up (part chain_cost; default 3, quick 1)",
    )
    ap.add_argument(
        "--merge",
        action="store_true",
        help="keep --out's l2.json and replace only the parts run now (their raw results), "
        "then write the report of the whole",
    )
    ap.add_argument("--chain-lengths", default="1,2,3,4")
    ap.add_argument("--backends", default="memif,vhost")
    ap.add_argument("--iperf-runs", type=int, default=10)
    ap.add_argument("--iperf-seconds", type=float, default=5.0)
    ap.add_argument("--learn-macs", type=int, default=16384)
    ap.add_argument("--learn-rate", type=float, default=0.5e6)
    ap.add_argument("--memif-only", action="store_true", help="switching on memif only")
    ap.add_argument("--parts", default="switching,ndr64,iperf3,chains,chain_cost,learning")
    ap.add_argument(
        "--ndr64-reps",
        type=int,
        default=None,
        help="extra paired 64-byte memif NDR searches (part ndr64; default 8, quick 1)",
    )
    ap.add_argument(
        "--no-isolate",
        action="store_true",
        help="leave other tasks' CPU affinity and the scheduler's autogroups alone "
        "(default: other tasks kept off the switch's CPU, autogroup off for the run)",
    )
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--workdir", type=Path)
    ap.add_argument(
        "--rebuild",
        action="store_true",
        help="measure nothing: write l2.md and l2.png again from --out's l2.json",
    )
    a = ap.parse_args(argv)
    a.search = a.search or "mlr"
    a.reps = a.reps or (1 if a.quick else 3)
    a.veth_reps = min(a.reps, a.veth_reps or a.reps)
    if a.chain_cost_rounds is None:
        a.chain_cost_rounds = 1 if a.quick else 3
    if a.ndr64_reps is None:
        a.ndr64_reps = 1 if a.quick else 8
    a.sizes = (
        tuple(int(x) for x in a.sizes.split(","))
        if a.sizes
        else (QUICK_SIZES if a.quick else SIZES)
    )
    a.duration = a.duration or (0.5 if a.quick else 1.0)
    if a.quick:
        a.iperf_runs = min(a.iperf_runs, 3)
        a.iperf_seconds = min(a.iperf_seconds, 2.0)
    a.chain_lengths = tuple(int(x) for x in a.chain_lengths.split(","))
    a.backends = tuple(a.backends.split(","))
    a.parts = tuple(a.parts.split(","))
    return a


# the raw results each part writes
PART_RAW = {
    "switching": "switching",
    "ndr64": "switching",
    "iperf3": "iperf3",
    "chains": "chain",
    "chain_cost": "chain_cost",
    "learning": "learning",
}


def merge_into(doc: dict[str, Any], run: Runner, path: Path) -> None:
    """--merge: the run's raw results over those of ``path``'s run for the parts run
    now; the rest (and the parameters of the parts not run) kept from it."""
    old = json.loads(path.read_text())["meta"]
    raw = old["raw"]
    mine = {PART_RAW[p] for p in run.a.parts}
    if "switching" in mine and not {"switching", "ndr64"} <= set(run.a.parts):
        raise SystemExit("bench/l2.py --merge: parts switching and ndr64 go together")
    for k in mine:
        raw[k] = run.raw[k]
    raw["errors"] = [
        e for e in raw.get("errors", []) if PART_RAW.get(e.get("part", "")) not in mine
    ] + run.raw["errors"]
    raw.setdefault("chain_cost", [])
    run.raw = raw
    params = dict(old["params"])
    for k, v in doc["params"].items():
        params.setdefault(k, v)
    if "chain_cost" in run.a.parts:
        params["chain_cost_rounds"] = run.a.chain_cost_rounds
    run.a.sizes = tuple(params["sizes"])
    doc["params"] = params
    doc["merged"] = {
        "parts_now": list(run.a.parts),
        "base_commit": old.get("commit"),
        "base_date": old.get("date"),
        "base_command": old.get("command"),
        "base_wall_s": old.get("wall_s"),
    }


def rebuild(out: Path) -> int:
    """The report and plot again from a run's JSON (the JSON is the record)."""
    j = json.loads((out / "l2.json").read_text())
    doc = dict(j["meta"])
    doc["summary"] = {k: v for k, v in j.items() if k != "meta"}
    write_report(doc, out)
    plot(doc, out)
    print(f"bench/l2.py: report rebuilt in {out}/l2.md")
    return 0


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    if a.rebuild:
        return rebuild(a.out)
    st = D.bench_start("l2", a.workdir)
    if st is None:
        return 2
    tsc, work = st
    D.ensure_hugepages()
    D.reap_stale_namespaces()
    run = Runner(a, tsc, work)
    t0 = time.monotonic()
    with contextlib.ExitStack() as stack:
        if not a.no_isolate:
            run.iso = stack.enter_context(D.CpuIsolation(D.DUT_CPU))
        if "switching" in a.parts:
            run.switching()
        if "ndr64" in a.parts:
            run.ndr64()
        if "iperf3" in a.parts:
            run.iperf3()
        if "chains" in a.parts:
            run.chains()
        if "chain_cost" in a.parts:
            run.chain_cost()
        if "learning" in a.parts:
            run.learning()
    doc = {
        "bench": "bench/l2.py",
        "commit": D.git_rev(),
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "command": "bench/l2.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "machine": D.machine_info(),
        "cpus": {"switch": D.DUT_CPU, "generator": D.GEN_CPU, "nfs": D.GEN_CPU},
        "isolation": run.iso.describe() if run.iso is not None else None,
        "params": {
            "sizes": list(a.sizes),
            "reps": a.reps,
            "trial_s": a.duration,
            "resolution": a.resolution,
            "search": a.search,
            "exceed_ratio": a.exceed_ratio,
            "duration_sum_s": a.duration_sum,
            "retries": a.retries,
            "cost_rate_memif_pps": a.cost_rate_memif,
            "cost_rate_veth_pps": a.cost_rate_veth,
            "chain_cost_rate_pps": a.chain_cost_rate,
            "chain_cost_rate_vhost_pps": a.chain_cost_rate_vhost,
            "cost_trials": a.cost_trials,
            "cost_duration_s": a.cost_duration,
            "memif_rsize": a.memif_rsize,
            "veth_reps": a.veth_reps,
            "ndr64_reps": a.ndr64_reps,
            "chain_lengths": list(a.chain_lengths),
            "chain_cost_rounds": a.chain_cost_rounds,
            "backends": list(a.backends),
            "iperf_runs": a.iperf_runs,
            "iperf_seconds": a.iperf_seconds,
        },
        "wall_s": round(time.monotonic() - t0, 1),
    }
    if a.merge:
        merge_into(doc, run, a.out / "l2.json")
    doc["summary"] = run.summary()
    doc["raw"] = run.raw
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "l2.json").write_text(
        json.dumps(
            {**doc["summary"], "meta": {k: v for k, v in doc.items() if k not in ("summary",)}},
            indent=1,
            default=str,
        )
    )
    write_report(doc, a.out)
    plot(doc, a.out)
    print(f"bench/l2.py: report in {a.out}/l2.md ({doc['wall_s']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: BSD-3-Clause
"""The bed of ``bench/l2.py``: twinplane's L2 switch against OVS-DPDK and the
Linux bridge, on the testbed of ``duts.Testbed`` (docs/bench/l2.md).

What is this benchmark's own:

- ``OvsExclusive``: OVS-DPDK with its PMD thread alone on DUT_CPU (``pmd-cpu-mask``)
  and every other thread of ``ovs-vswitchd`` (main lcore, handlers,
  revalidators, urcu) on GEN_CPU (``dpdk-lcore-mask``; a thread found on
  DUT_CPU after the start is moved there and named in the pair's record);
- the service chains: ``n`` ``twinplane-nf`` processes hung on the switch by
  memif or vhost-user, the generator at the chain's ends (``chain_dut``);
- one side of a pair: an NDR search judged by the run's ``verdict.Goal``
  (``ndr_side``) or the switch's cycles per hop at a fixed load
  (``hop_cost_side``), each on a fresh testbed, with every trial kept;
- ``abba_pairs``: the ABBA pairs of two sides, each pair classed by the vCPU
  placement of ALL its trials' probes (``pair_placement``);
- the generator's ceiling: ``gen_reach`` and ``at_ceiling``.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from twinplane.bench import duts as D
from twinplane.bench import ovs as O
from twinplane.bench import paired, verdict
from twinplane.bench.rfc2544 import MlrParams, mlr_search
from twinplane.lab.nfproc import NfProcess

# --------------------------------------------------------------------------
# pure rules (tests/bench/test_l2_bed.py)


def gen_reach(trials: list[dict[str, Any]], rate_slack: float) -> float | None:
    """The generator's ceiling seen in a search: the highest rate it offered in a
    trial where it fell short of the asked rate by more than ``rate_slack``
    (offered counts frames the DUT's port refused, so a short offer is the
    generator's own limit). None when it never fell short."""
    short = [
        t["offered_rate_pps"]
        for t in trials
        if t["offered_rate_pps"] < t["rate_pps"] * (1.0 - rate_slack)
    ]
    return max(short) if short else None


def at_ceiling(ndr: float, reach: float | None, wire_max: float, margin: float) -> bool:
    """An NDR within ``margin`` of the generator's reach or of the wire's maximum."""
    return ndr >= margin * wire_max or (reach is not None and ndr >= margin * reach)


def pair_placement(rtts: list[float | None]) -> str:
    """A pair's placement: the class (``duts.placement``) of at least 80 % of
    its trials' probes, both sides together; ``mixed`` when the host moved the
    vCPUs during the pair, ``unprobed`` when no probe ran."""
    p = D.search_placement(rtts)
    if p["placement"] is not None:
        return p["placement"]
    return "mixed" if any(x is not None for x in rtts) else "unprobed"


def abba_pairs(
    n: int,
    run_a: Callable[[int], dict[str, Any]],
    run_b: Callable[[int], dict[str, Any]],
    on_pair: Callable[[dict[str, Any]], None] | None = None,
) -> tuple[list[paired.Pair], list[dict[str, Any]]]:
    """``n`` pairs in ABBA order. A side (called with the pair's index) returns
    ``value``, ``rtts`` (its trials' probes), ``at_ceiling`` and what else it
    recorded; a side that raised is ``{"error": ...}``, and its pair, with no
    ratio, goes to the second list (the report lists it; it is not re-run)."""
    pairs, failed = [], []
    for i, order in enumerate(paired.abba_order(n)):
        got: dict[str, dict[str, Any]] = {}
        for side in order:
            try:
                got[side] = (run_a if side == "A" else run_b)(i)
            except Exception as e:  # noqa: BLE001 - recorded, the run goes on
                got[side] = {"error": str(e)[:2000], "rtts": []}
        a, b = got["A"], got["B"]
        rec = {"index": i, "order": "".join(order), "A": a, "B": b}
        if "error" in a or "error" in b:
            failed.append(rec)
        else:
            p = paired.Pair(
                i, order, a["value"], b["value"], pair_placement(a["rtts"] + b["rtts"]),
                at_ceiling=bool(a.get("at_ceiling") and b.get("at_ceiling")),
                extra={"A": a, "B": b},
            )  # fmt: skip
            pairs.append(p)
            rec = p.to_json()
        if on_pair:
            on_pair(rec)
    return pairs, failed


# --------------------------------------------------------------------------
# the switches


def cost_trials(
    tb: Any,
    dut: str,
    load: tuple[float, int, float],
    keep: Keep,
    keys: tuple[str, str],
    **extra: Any,
) -> list[dict[str, Any]]:
    """``trials`` trials of ``duration`` s at ``rate`` (``load``) on testbed ``tb``,
    64 B, each with the switch's cycles per frame (``keys[0]``) and the frames it
    counted (``keys[1]``), ``extra`` beside them; ``keep`` gets each as it ends."""
    rate, trials, duration = load
    fn = tb.trial_fn(64, warmup=0.1, drain=0.1)
    runs: list[dict[str, Any]] = []
    for _ in range(trials):
        a = tb.dut.cost_snapshot()
        r = fn(rate, duration)
        c = tb.dut.cost(a, tb.dut.cost_snapshot()) or {}
        runs.append({"dut": dut, **r.summary(), **extra, keys[0]: c.get("cycles_per_pkt"),
                     "busy_ratio": c.get("busy_ratio"), keys[1]: c.get("forwarded")})  # fmt: skip
        keep(runs[-1])
    return runs


def dut_cpu_threads(pid: int | None) -> list[str]:
    """``comm`` of each thread of ``pid`` that may run on DUT_CPU."""
    out = []
    if pid is None:
        return out
    with contextlib.suppress(OSError):
        for tid in sorted(os.listdir(f"/proc/{pid}/task"), key=int):
            with contextlib.suppress(OSError):
                if D.DUT_CPU in os.sched_getaffinity(int(tid)):
                    out.append(Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip())
    return out


class OvsExclusive(O.OvsDpdkDut):
    """OVS-DPDK, its PMD thread alone on DUT_CPU and its other threads on GEN_CPU."""

    name = "ovsdpdk-x"
    ovs_config: ClassVar[dict[str, str]] = {"dpdk-lcore-mask": f"0x{1 << D.GEN_CPU:x}"}
    moved: list[str]

    def start(self, ports: tuple[str, str]) -> None:
        super().start(ports)
        pmds = set(self.ovs.pmd_tids())
        self.moved = []
        pid = self.ovs.pid
        assert pid is not None
        for tid in map(int, os.listdir(f"/proc/{pid}/task")):
            with contextlib.suppress(OSError):
                if tid not in pmds and D.DUT_CPU in os.sched_getaffinity(tid):
                    os.sched_setaffinity(tid, {D.GEN_CPU})
                    self.moved.append(Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip())


D.register(OvsExclusive)


def nf_ports(backend: str, socks: tuple[str, str]) -> tuple[str, str]:
    """An NF's two ports, clients of the switch's sockets."""
    if backend == "memif":
        return tuple(  # type: ignore[return-value]
            f"net_memif{k},role=client,id=0,socket={s},socket-abstract=no"
            for k, s in enumerate(socks)
        )
    return tuple(f"net_virtio_user{k},path={s},queues=1" for k, s in enumerate(socks))  # type: ignore[return-value]


class ChainMixin:
    """``n_nfs`` twinplane-nf processes on GEN_CPU (the generator's nice, idle
    back-off), each between two ports of the switch."""

    n_nfs = 1
    backend = "memif"
    nf_rxq2 = False  # OVS's memif ports open 2 rings (PMD + main thread): poll both
    tb: D.Testbed

    def start_nfs(self, socks: list[tuple[str, str]]) -> None:
        self.nfs: list[NfProcess] = []
        rxq = ("--rxq", "2") if self.nf_rxq2 and self.backend == "memif" else ()
        for i, pair in enumerate(socks, 1):
            nf = NfProcess(f"{self.tb.tag}n{i}", self.tb.workdir, *nf_ports(self.backend, pair),
                           backoff=True, cpu=D.GEN_CPU, extra_args=rxq)  # fmt: skip
            self.nfs.append(nf)
            nf.start(timeout=60)
            tids = D.pinned_threads(nf.pid, D.GEN_CPU)
            for tid in tids if self.tb.nice is not None else ():
                os.setpriority(os.PRIO_PROCESS, tid, self.tb.nice)
            self.tb.watch.add_ours(D.GEN_CPU, tids)

    def stop_nfs(self) -> None:
        for nf in getattr(self, "nfs", []):
            nf.stop()


class TwinplaneChain(ChainMixin, D.TwinplaneDut):
    switch = True

    def config_lines(self, ports: tuple[str, str]) -> list[str]:
        lines = [f"# bench/l2.py: a chain of {self.n_nfs} NFs over {self.backend}",
                 f"port add p0 {ports[0]}", f"port add p1 {ports[1]}"]  # fmt: skip
        self.socks = []
        for i in range(1, self.n_nfs + 1):
            pair = []
            for k, side in enumerate("ab"):
                sock = str(self.tb.workdir / f"nf{i}{side}.sock")
                idx = 2 + 2 * i + k
                dev = (
                    f"net_memif{idx},role=server,id=0,socket={sock},socket-abstract=no"
                    if self.backend == "memif"
                    else f"net_vhost{idx},iface={sock},queues=1"
                )
                lines.append(f"port add nf{i}{side} {dev}")
                pair.append(sock)
            self.socks.append((pair[0], pair[1]))
            lines.append(f"nf add nf{i} nf{i}a nf{i}b")
        via = " ".join(f"nf{i}" for i in range(1, self.n_nfs + 1))
        lines.append(f"chain add c1 from p0 to p1 via {via}")
        return lines

    def start(self, ports: tuple[str, str]) -> None:
        super().start(ports)
        self.start_nfs(self.socks)
        deadline = time.monotonic() + 30
        cli = self.daemon.client
        while any(h["state"] != "up" for h in cli.cmd("show", "chain", "c1")["hops"]):
            if time.monotonic() > deadline:
                raise D.DutError(f"chain NFs not up\n{self.logs()}")
            time.sleep(0.1)

    def stop(self) -> None:
        self.stop_nfs()
        super().stop()


class OvsChain(ChainMixin, OvsExclusive):
    nf_rxq2 = True

    def start(self, ports: tuple[str, str]) -> None:
        super().start(ports)
        ovs, hops, socks = self.ovs, ["p0"], []
        for i in range(1, self.n_nfs + 1):
            pair = []
            for k, side in enumerate("ab"):
                name = f"nf{i}{side}"
                if self.backend == "memif":
                    sock = str(self.tb.workdir / f"o-{name}.sock")
                    ovs.add_dpdk_port(self.bridge, name, f"net_memif{10 + 2 * i + k},role=server,"
                                      f"id=0,socket={sock},socket-abstract=no")  # fmt: skip
                else:
                    sock = str(ovs.add_vhost_port(self.bridge, name, mode="server")[1])
                pair.append(sock)
                hops.append(name)
            socks.append((pair[0], pair[1]))
        hops.append("p1")
        ovs.flows_chain(self.bridge, hops)
        self.start_nfs(socks)
        ovs.wait_links_up(hops, timeout=30)

    def stop(self) -> None:
        self.stop_nfs()
        super().stop()


def chain_dut(switch: str, backend: str, n: int) -> str:
    """The DUT name of a chain of ``n`` NFs over ``backend`` on ``switch``
    (``twinplane`` or ``ovsdpdk``), registered in ``duts.DUT_CLASSES``."""
    base = TwinplaneChain if switch == "twinplane" else OvsChain
    name = f"{switch}-chain-{backend}-{n}"
    attrs = {"name": name, "n_nfs": n, "backend": backend, "wires": ("memif",)}
    D.register(type(name, (base,), attrs))
    return name


# --------------------------------------------------------------------------
# one side of a pair

Keep = Callable[[dict[str, Any]], None]  # takes each trial as it ends


@dataclass
class Bed:
    """What every side shares: the work directory, the TSC, the isolation, the
    goal; the search's final trial length and relative width; the rate slack
    (a short offer's missing frames are lost), the ceiling margin
    (``at_ceiling``) and the memif ring size; ``say`` for progress."""

    workdir: Path
    tsc: float
    iso: D.CpuIsolation | None
    goal: verdict.Goal
    trial_s: float
    resolution: float
    rate_slack: float
    margin: float
    memif_rsize: int
    say: Callable[[str], None] = print

    @contextlib.contextmanager
    def testbed(self, wire: str, dut: str, size: int) -> Iterator[D.Testbed]:
        if self.iso is not None:
            self.iso.sweep()
        with D.Testbed(wire, dut, self.workdir, tsc=self.tsc, memif_rsize=self.memif_rsize) as tb:
            tb.start([size])
            yield tb

    def mlr_params(self) -> MlrParams:
        g = self.goal
        return MlrParams(tolerances=(g.loss_ratio,), exceed_ratio=g.exceed_ratio,
                         relative_width=self.resolution, initial_trial_duration_s=self.trial_s / 2,
                         final_trial_duration_s=self.trial_s, duration_sum_s=g.duration_sum,
                         rate_slack=self.rate_slack)  # fmt: skip

    def ndr_side(self, wire: str, dut: str, size: int, keep: Keep) -> dict[str, Any]:
        """One NDR search (MLRsearch, the run's goal) on a fresh testbed; ``keep``
        gets every trial as it ends (a search cut short keeps its trials)."""
        with self.testbed(wire, dut, size) as tb:
            threads = dut_cpu_threads(tb.dut.pid())
            hi = D.wire_max_pps(wire, size)
            fn = tb.trial_fn(size, warmup=0.1, drain=0.1)
            res = mlr_search(fn, hi, self.mlr_params(),
                             on_trial=lambda r: keep({"dut": dut, **r.summary()}))  # fmt: skip
        t = res.targets[0]
        reach = gen_reach(res.trials, self.rate_slack)
        out = {
            "dut": dut, "value": t.rate_pps, "converged": t.converged,
            "upper_bound_pps": t.lower_fail_pps, "gen_reach_pps": reach,
            "at_ceiling": at_ceiling(t.rate_pps, reach, hi, self.margin),
            "rtts": [x.get("xcpu_rtt_ns") for x in res.trials],
            "dut_cpu_threads": threads, "ovs_moved": getattr(tb.dut, "moved", None),
            "wall_s": round(res.wall_s, 1),
        }  # fmt: skip
        self.say(f"  {wire}/{dut} {size} B: NDR {t.rate_pps / 1e6:.3f} Mpps"
                 f"{' (at the ceiling)' if out['at_ceiling'] else ''}")  # fmt: skip
        return out

    def hop_cost_side(
        self, dut: str, rate: float, trials: int, duration: float, keep: Keep
    ) -> dict[str, Any]:
        """The switch's cycles per hop of a chain at ``rate``: the median of
        ``trials`` trials (each switch counts every crossing: twinplane its
        frames sent, OVS-DPDK its frames received); the load's verdict by the
        run's goal is recorded with them, no trial left out."""
        with self.testbed("memif", dut, 64) as tb:
            threads = dut_cpu_threads(tb.dut.pid())
            runs = cost_trials(tb, dut, (rate, trials, duration), keep,
                               ("cycles_per_hop", "crossings"))  # fmt: skip
        per = [x["cycles_per_hop"] for x in runs if x["cycles_per_hop"] is not None]
        vt = [verdict.Trial(x["duration_s"], x["offered"], x["lost"]) for x in runs]
        out = {
            "dut": dut, "value": statistics.median(per) if per else None,
            "load_verdict": verdict.load_verdict(vt, self.goal).value,
            "rtts": [x.get("xcpu_rtt_ns") for x in runs], "at_ceiling": False,
            "dut_cpu_threads": threads, "ovs_moved": getattr(tb.dut, "moved", None),
        }  # fmt: skip
        if out["value"] is None:
            raise D.DutError(f"{dut}: no cycles per hop (nothing crossed the switch)")
        self.say(f"  {dut}: {out['value']:.0f} cycles/hop ({out['load_verdict']})")
        return out

    def switch_cost_side(
        self, rate: float, trials: int, duration: float, keep: Keep
    ) -> dict[str, Any]:
        """twinplane-l2's cycles per frame switched, one hop (g0 -> p0 -> br0 -> p1
        -> g1, 64 B on memif) at ``rate``, on a fresh testbed (the daemon is
        ``$TP_DAEMON``, read when the testbed starts): the median over ``trials``
        trials of ``duration`` s of the worker's busy cycles / frames it sent.
        The bridge's STP state is recorded (``stp_on``: None when the build has
        no STP); a bridge that runs STP is an error, the trial being "STP off".
        ``keep`` gets every trial as it ends, with the load's verdict by the run's
        goal kept beside the median, no trial left out."""
        dut = "twinplane-l2"
        with self.testbed("memif", dut, 64) as tb:
            bridge = tb.dut.daemon.client.cmd("show", "bridge", "br0")  # type: ignore[attr-defined]
            stp_on = (bridge.get("stp") or {}).get("on")
            if stp_on:
                raise D.DutError("twinplane-l2: br0 runs STP; the cost trial is with STP off")
            threads = dut_cpu_threads(tb.dut.pid())
            runs = cost_trials(tb, dut, (rate, trials, duration), keep,
                               ("cycles_per_frame", "frames_switched"), stp_on=stp_on)  # fmt: skip
        per = [x["cycles_per_frame"] for x in runs if x["cycles_per_frame"] is not None]
        if not per:
            raise D.DutError(f"{dut}: no cycles per frame (nothing crossed the switch)")
        vt = [verdict.Trial(x["duration_s"], x["offered"], x["lost"]) for x in runs]
        out = {
            "dut": dut, "value": statistics.median(per), "stp_on": stp_on,
            "load_verdict": verdict.load_verdict(vt, self.goal).value,
            "rtts": [x.get("xcpu_rtt_ns") for x in runs], "dut_cpu_threads": threads,
        }  # fmt: skip
        self.say(f"  {dut}: {out['value']:.1f} cycles/frame ({out['load_verdict']})")
        return out


# --------------------------------------------------------------------------
# what the report records about the two builds (docs/bench/l2.md, "Build flags")


def _run(argv: list[str]) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def build_flags() -> dict[str, Any]:
    """What can be read of both builds: OVS-DPDK's Debian package and version
    line, Debian's default CFLAGS (the package's build used them), DPDK's
    pkg-config -march, twinplane's meson cpu_instruction_set."""
    dpdk_cflags = _run(["pkg-config", "--cflags", "libdpdk"]).split()
    ovs_ver = _run([str(O.VSWITCHD), "--version"]).splitlines()
    return {
        "ovs_package": "openvswitch-switch-dpdk "
        + _run(["dpkg-query", "-W", "-f", "${Version}", "openvswitch-switch-dpdk"]),
        "ovs_version": "; ".join(ovs_ver[:2]),
        "debian_default_cflags": _run(["dpkg-buildflags", "--get", "CFLAGS"]) or None,
        "dpdk": _run(["pkg-config", "--modversion", "libdpdk"]),
        "dpdk_pkgconfig_march": next((f for f in dpdk_cflags if f.startswith("-march")), None),
        "twinplane_cpu_instruction_set": D.cpu_instruction_set(),
    }


def plot_pairs(
    comparisons: dict[str, list[dict[str, Any]]], bars: dict[str, float], path: Path
) -> None:
    """Each comparison's paired ratios, pair by pair, coloured by placement, with
    its goal (``bars``: a comparison's name to the goal's value) as a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(comparisons)
    fig, axes = plt.subplots(1, n, figsize=(5 * n, 3.8), squeeze=False)
    colours = {"near": "tab:green", "mid": "tab:orange", "far": "tab:red"}
    for ax, (name, pairs) in zip(axes[0], comparisons.items(), strict=True):
        for p in pairs:
            if "placement" in p and p["a"]:
                colour = colours.get(p["placement"], "grey")
                mark = "x" if p["at_ceiling"] else "o"
                ax.scatter(p["index"], p["b"] / p["a"], c=colour, marker=mark, label=p["placement"])
        ax.axhline(1.0, color="grey", lw=0.6, ls=":")
        if name in bars:
            ax.axhline(bars[name], color="tab:blue", lw=0.8, ls="--", label="goal")
        handles = dict(zip(*reversed(ax.get_legend_handles_labels()), strict=True))
        ax.legend(handles.values(), handles.keys(), fontsize=7)
        ax.set_title(name, fontsize=8)
        ax.set_xlabel("pair (x: both at the ceiling)")
        ax.set_ylabel("ratio")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)

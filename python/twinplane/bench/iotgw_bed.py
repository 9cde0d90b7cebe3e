# SPDX-License-Identifier: BSD-3-Clause
"""The IoT gateway's bed (bench/iotgw.py): one gateway between the generator's two ports.

Systems, all built from src/nf/iotgw (one codec, one report path,
one session manager):

- ``dual``: twinplane; reports converted on the worker, signaling on the
  control plane (asynchronous registrar);
- ``single``: twinplane --single-plane; signaling on the worker, which waits
  for the IN-CSE's answers (seed 000's old architecture, with DPDK);
- ``socket``: twinplane-sockgw; kernel UDP sockets, one thread, no DPDK.

The generator's port g0 plays ``AGENTS`` pulse oximeters (template ``phd``:
confirmed fixed scan reports, SpO2 and pulse rate, one contentInstance each);
its port g1 is the IN-CSE, a CoAP sink that ACKs registrations (CON) after
``cse_delay_us`` and counts the contentInstance creations (NON). A report is
delivered when both its NON requests reached the sink.

Wires: ``memif`` (shared memory, the two DPDK systems) and ``veth`` (two veth
pairs; the DPDK processes on AF_XDP, sockgw on the kernel's sockets). The
forwarding thread (worker, or sockgw and its softirqs via RPS) is on the DUT's
CPU; the generator and twinplane's control plane on the other.

Also here, without a daemon (unit-tested in tests/bench/test_iotgw_bed.py):
the search judged by one ``verdict.Goal`` (``search``), the verdicts of a
sweep's points (``sweep_verdicts``), a figure's median with its interval per
placement (``value_summary``) and the previous report's figure
(``previous_figure``).
"""

from __future__ import annotations

import json
import math
import os
import secrets
import shlex
import statistics
import subprocess
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from twinplane.bench import duts as D
from twinplane.bench import paired, verdict
from twinplane.bench.gen import Gen
from twinplane.bench.report import headline_text
from twinplane.lab.daemon import Daemon
from twinplane.lab.netns import Netns, veth
from twinplane.lab.sockgw import SockGw

METRICS_PER_REPORT = 2  # pulse oximeter: SpO2, pulse rate
AGENTS = 1000  # report identities, associated before any measurement
CHURN_IDS = 2048  # control-message identities (AARQ, RLRQ in turn)
GW_IP, CSE_IP = "198.18.0.1", "198.19.1.2"
AGENT_IP = D.GEN_IP[0]
MAX_RATE = {"veth": 1.0e6, "memif": 4.0e6}  # a search's first (overload) trial
MEMIF_RSIZE = 14  # 16k-slot rings: the generator shares its CPU with the control plane
RESULT_JSON = "docs/results/iotgw.json"
FIG3_RATE, COST_RATE, COST_SIZE, FIG6_SIZE = 20000.0, 50000.0, 128, 512


def line_rate_1g(size: int) -> float:
    """Frames/s of 1 Gbit/s at this frame size (20 bytes of preamble and gap)."""
    return 1e9 / ((size + 20) * 8)


def probe() -> dict[str, Any]:
    """The vCPUs' placement now (tp-xcpu-probe, ~20 ms: between trials only)."""
    p = D.xcpu_probe()
    rtt = p["rtt_ns"] if p else None
    return {"xcpu_rtt_ns": rtt, "placement": D.placement(rtt) or "unknown"}


class Bed:
    """One wire, one system between the generator's two ports, its agents associated."""

    def __init__(self, wire: str, system: str, workdir: Path, tsc: float, cse_delay_us: float):
        self.wire, self.system, self.tsc, self.cse_delay_us = wire, system, tsc, cse_delay_us
        self.tag = f"tpi{os.getpid()}-{secrets.token_hex(2)}"
        self.workdir = workdir / f"{wire}-{system}-{self.tag}"
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.namespaces: list[Netns] = []
        self.gen: Gen | None = None
        self.daemon: Daemon | None = None
        self.sockgw: SockGw | None = None
        self.setup: list[str] = []
        self.sizes: set[int] = set()

    def __enter__(self) -> Bed:
        try:
            self._start()
            self._associate()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _ns(self, suffix: str) -> Netns:
        ns = Netns(f"{self.tag}-{suffix}").create()
        self.namespaces.append(ns)
        return ns

    def _start(self) -> None:
        gen_ns = dut_ns = None
        if self.wire == "memif":
            socks = [self.workdir / f"l{i}.sock" for i in (0, 1)]
            gports = [
                D.memif_devargs(i, "server", socks[i], D.GEN_MAC[i], MEMIF_RSIZE) for i in (0, 1)
            ]
            dports = [
                D.memif_devargs(i, "client", socks[i], D.DUT_MAC[i], MEMIF_RSIZE) for i in (0, 1)
            ]
            self.setup.append(f"memif: generator servers, DUT clients, rsize={MEMIF_RSIZE}")
        else:
            gen_ns, dut_ns = self._ns("g"), self._ns("d")
            for i in (0, 1):
                veth(gen_ns, f"g{i}", dut_ns, f"d{i}")
                gen_ns.run(["ip", "link", "set", "dev", f"g{i}", "address", D.GEN_MAC[i]])
                dut_ns.run(["ip", "link", "set", "dev", f"d{i}", "address", D.DUT_MAC[i]])
            gports = [D.af_xdp_devargs(i, f"g{i}") for i in (0, 1)]
            dports = [D.af_xdp_devargs(i, f"d{i}") for i in (0, 1)]
            self.setup.append("veth g0<->d0, g1<->d1; generator on AF_XDP")
        self.gen = Gen(f"{self.tag}g", self.workdir, netns=gen_ns.name if gen_ns else None)
        self.gen.start()
        self.gen.port_add("g0", gports[0])
        self.gen.port_add("g1", gports[1], sink="coap", delay_us=self.cse_delay_us)
        if self.system == "socket":
            assert dut_ns is not None
            self._start_sockgw(dut_ns)
        else:
            self._start_twinplane(dut_ns or self._ns("t"), dports)
        self.gen.stream_add("assoc", "g0", 128, template="phd", **_phd("aarq", AGENTS, 10000))
        self.gen.stream_add("churn", "g0", 512, template="phd", **_phd("churn", CHURN_IDS, 30000))

    def _start_twinplane(self, ns: Netns, ports: list[str]) -> None:
        config = "\n".join(
            [
                f"# bench/iotgw.py: the {self.system}-plane gateway",
                f"port add p0 {ports[0]}",
                f"port add p1 {ports[1]}",
                f"address add {GW_IP}/24 dev p0",
                f"address add {D.DUT_ADDR[1]} dev p1",
                f"neigh add {AGENT_IP} lladdr {D.GEN_MAC[0]} dev p0",
                f"neigh add {CSE_IP} lladdr {D.GEN_MAC[1]} dev p1",
                # the generator's agents do not answer the MDS GET (seed 000's never asked);
                # NON contentInstances, as seed 000's system sent them; one agent address
                f"iotgw enable cse {CSE_IP} timeout 3600 max-sessions 8192 mds-get no"
                " delivery fire-and-forget max-per-source 0",
                "iotgw profile on",
                "",
            ]
        )
        args = ["--no-backoff"] + (["--single-plane"] if self.system == "single" else [])
        # the worker (lcore 1) alone on the DUT's CPU, the control plane beside the generator
        self.daemon = Daemon(
            ns,
            f"{self.tag}t",
            self.workdir,
            config,
            lcores=f"0@{D.GEN_CPU},1@{D.DUT_CPU}",
            extra_args=args,
        )
        self.daemon.start(timeout=60)
        self.setup.append("twinplane " + shlex.join(self.daemon.argv[1:]))

    def _start_sockgw(self, ns: Netns) -> None:
        steps = [
            f"ip addr add {GW_IP}/24 dev d0",
            f"ip addr add {D.DUT_ADDR[1]} dev d1",
            f"ip neigh replace {AGENT_IP} lladdr {D.GEN_MAC[0]} nud permanent dev d0",
            f"ip neigh replace {CSE_IP} lladdr {D.GEN_MAC[1]} nud permanent dev d1",
            f"sh -c 'echo {1 << D.DUT_CPU:x} > /sys/class/net/d0/queues/rx-0/rps_cpus'",
            f"sh -c 'echo {1 << D.DUT_CPU:x} > /sys/class/net/d1/queues/rx-0/rps_cpus'",
        ]
        for s in steps:
            ns.run(s)
        self.sockgw = SockGw(
            ns,
            self.workdir,
            "--cse",
            CSE_IP,
            "--listen",
            GW_IP,
            "--timeout",
            "3600",
            "--max-sessions",
            "8192",
            "--rcvbuf",
            str(4 << 20),
            "--profile",
            cpu=D.DUT_CPU,
        )
        self.setup += [*steps, self.sockgw.command_line]

    def _associate(self) -> None:
        """Associate the AGENTS report identities; wait until every one is registered."""
        assert self.gen is not None
        self.gen.trial_raw("assoc", 2000.0 if self.system == "dual" else 500.0, count=AGENTS)
        deadline = time.monotonic() + 120
        while True:
            c = self.counters()
            if c["control_plane"]["reg_ready"] >= AGENTS and c["sessions"] >= AGENTS:
                return
            if time.monotonic() > deadline:
                raise D.DutError(f"{self.wire}/{self.system}: agents not registered: {c}")
            time.sleep(0.5)

    def stream(self, size: int) -> str:
        """The report stream of this frame size (added on first use)."""
        name = f"r{size}"
        if size not in self.sizes:
            assert self.gen is not None
            self.gen.stream_add(name, "g0", size, template="phd", **_phd("report", AGENTS, 10000))
            self.sizes.add(size)
        return name

    def counters(self) -> dict[str, Any]:
        """The gateway's counters, and its forwarding thread's cycles (``thread_cycles``)."""
        if self.system == "socket":
            assert self.sockgw is not None
            c: dict[str, Any] = self.sockgw.counters()
            c["thread_cycles"] = D.runtime_ns(self.sockgw.pid) * self.tsc / 1e9
            return c
        assert self.daemon is not None
        c = self.daemon.client.cmd("show", "iotgw")
        ws = self.daemon.client.cmd("show", "workers")["workers"]
        c["thread_cycles"] = sum(int(w["busy_cycles"]) for w in ws)
        return c

    def trial(
        self,
        kind: str,
        size: int,
        rate: float,
        duration: float | None = None,
        count: int | None = None,
        control: float = 0.0,
    ) -> dict[str, Any]:
        """One trial of reports of ``size`` at ``rate`` (``control`` of it AARQ/RLRQ
        churn), after a placement probe: what was asked, offered, delivered, and
        the gateway's counters over it. Every trial is returned for report.trials."""
        assert self.gen is not None
        where = probe()
        streams, weights = [self.stream(size)], None
        if control:
            streams, weights = [streams[0], "churn"], [rate - control, control]
        a = self.counters()
        raw = self.gen.trial_raw(
            streams,
            rate,
            duration=duration,
            count=count,
            weights=weights,
            drain=0.3 if duration is not None else None,
        )
        if count is not None:
            time.sleep(0.3)
        b = self.counters()
        by = {s["name"]: s for s in raw["streams"]}
        sink = next(p for p in raw["ports"] if p["name"] == "g1")
        rep = by[streams[0]]
        secs = raw["trial"]["duration_s"]
        cp = {k: b["control_plane"][k] - a["control_plane"][k] for k in a["control_plane"]}
        # asked: the reports the rate asked for over the sending time; one the
        # generator or the wire did not take counts as lost (a short offer is loss)
        asked = max(rep["offered"], round((rate - control) * secs)) if duration else rep["offered"]
        delivered = min(sink["rx_coap_non"] / METRICS_PER_REPORT, asked)
        return {
            "kind": kind,
            "wire": self.wire,
            "system": self.system,
            "size": size,
            "rate_pps": rate,
            "control_pps": control,
            "duration_s": duration or secs,
            "sending_s": secs,
            **where,
            "asked": asked,
            "offered": rep["offered"],
            "sent": rep["tx"],
            "delivered": delivered,
            "lost": asked - delivered,
            "loss": (asked - delivered) / asked if asked else None,
            "control_offered": by["churn"]["offered"] if control else 0,
            "associated": cp.get("associated", 0),
            "reg_ready": cp.get("reg_ready", 0),
            "thread_cycles": b["thread_cycles"] - a["thread_cycles"],
            "report_cycles": b["report_cycles"] - a["report_cycles"],
        }

    def describe(self) -> dict[str, Any]:
        return {
            "wire": self.wire,
            "system": self.system,
            "setup": self.setup,
            "generator": self.gen.command_line if self.gen else None,
        }

    def close(self) -> None:
        for p in (self.sockgw, self.daemon, self.gen):
            if p is not None:
                p.stop()
        for ns in reversed(self.namespaces):
            ns.delete()
        self.namespaces.clear()


def _phd(kind: str, n: int, port0: int) -> dict[str, Any]:
    return {
        "dmac": D.DUT_MAC[0],
        "smac": D.GEN_MAC[0],
        "src": AGENT_IP,
        "dst": GW_IP,
        "sport": f"{port0}-{port0 + n - 1}",
        "dport": 6024,
        "extra": ["kind", kind],
    }


# ---------------------------------------------------------------------------
# judging: pure, no daemon


def as_trial(t: dict[str, Any]) -> verdict.Trial:
    """A recorded trial as the verdict sees it: its nominal length, the reports
    asked for and those not delivered."""
    return verdict.Trial(t["duration_s"], int(t["asked"]), int(round(t["lost"])))


def decide(
    run: Callable[[float], dict[str, Any]],
    rate: float,
    goal: verdict.Goal,
    trials: list[dict[str, Any]],
) -> verdict.Verdict:
    """Trials at ``rate`` until the goal decides it (at most its duration sum and
    one trial more); ``trials`` already holds this load's earlier ones."""
    while True:
        v = verdict.load_verdict((as_trial(t) for t in trials), goal)
        if v is not verdict.Verdict.UNDECIDED:
            return v
        trials.append(run(rate))


def search(
    run: Callable[[float], dict[str, Any]],
    goal: verdict.Goal,
    max_rate: float,
    resolution: float,
    start: float | None = None,
    min_rate: float = 1000.0,
    max_loads: int = 14,
) -> dict[str, Any]:
    """The highest report rate the goal passes, as MLRsearch finds it: a first
    trial at ``max_rate`` (what the generator and the wire took of it is their
    ceiling), then loads decided by the goal (``decide``), from ``start`` (the
    same side's last result) or the first trial's delivered rate, stepping up
    or down by twice the resolution, the step doubling while no bound is on the
    other side, then halving the bracket until the highest passing load is
    within ``resolution`` of the lowest failing one. Returns the rate (0 if none
    passed), the bounds, the ceiling and every load with its verdict and trials."""
    first = run(max_rate)
    secs = first["sending_s"]
    ceiling = first["sent"] / secs if secs else 0.0
    loads: dict[float, list[dict[str, Any]]] = {max_rate: [first]}
    verdicts: dict[float, verdict.Verdict] = {}
    lo, hi = 0.0, max_rate
    if not as_trial(first).bad(goal):  # the overload trial passed: decide the top load
        verdicts[max_rate] = decide(run, max_rate, goal, loads[max_rate])
        if verdicts[max_rate] is verdict.Verdict.PASS:
            lo = max_rate
    rate = min(max_rate, start or (first["delivered"] / secs if secs else 0.0))
    step, failed = 2 * resolution, max_rate in verdicts
    while lo < max_rate and len(verdicts) < max_loads and rate >= min_rate:
        verdicts[rate] = decide(run, rate, goal, loads.setdefault(rate, []))
        if verdicts[rate] is verdict.Verdict.PASS:
            lo = max(lo, rate)
        else:
            hi, failed = min(hi, rate), True
        if lo and hi / lo <= 1 + resolution:
            break
        if lo and failed:
            rate = math.sqrt(lo * hi)
        else:
            rate = min(max_rate, lo * (1 + step)) if lo else rate * max(0.5, 1 - step)
            step *= 2
    return {
        "rate_pps": lo,
        "upper_pps": hi,
        "start_pps": start,
        "ceiling_pps": ceiling,
        "at_ceiling": bool(lo) and lo >= (1 - resolution) * ceiling,
        "loads": [
            {
                "rate_pps": r,
                "verdict": verdicts[r].value if r in verdicts else "probe",
                "trials": ts,
            }
            for r, ts in sorted(loads.items())
        ],
    }


def sweep_verdicts(
    trials: Iterable[dict[str, Any]], goal: verdict.Goal, key: Callable[[dict[str, Any]], Any]
) -> dict[Any, str]:
    """A sweep's points, each a load decided by the goal from all its trials
    (every session's, none left out): point key -> "pass", "fail" or "undecided"."""
    by: dict[Any, list[verdict.Trial]] = {}
    for t in trials:
        by.setdefault(key(t), []).append(as_trial(t))
    return {k: verdict.load_verdict(ts, goal).value for k, ts in by.items()}


def value_summary(
    values: list[float], placements: list[str], unit: str, definition: str
) -> dict[str, Any]:
    """A figure that is not a ratio: the median of its samples with the bootstrap
    95 % interval, pooled and per placement (report.Report.add's ``value`` form)."""

    def one(xs: list[float]) -> dict[str, Any]:
        if not xs:
            return {"value": None, "ci95": None, "samples": 0}
        return {
            "value": statistics.median(xs),
            "ci95": list(paired.bootstrap_median_ci(xs)),
            "samples": len(xs),
        }

    by: dict[str, list[float]] = {}
    for x, p in zip(values, placements, strict=True):
        by.setdefault(p, []).append(x)
    return {
        **one(values),
        "unit": unit,
        "definition": definition,
        "by_placement": {p: one(xs) for p, xs in sorted(by.items())},
    }


def previous_figure(doc: dict[str, Any], key: str = "report_cycles_memif") -> dict[str, Any] | None:
    """``key`` of a committed report, in either layout: this script's (``value``,
    ``ci95``) or the one before issue 34 (``median``, ``min``, ``max``, ``n``)."""
    h = doc.get("headline", {}).get(key) or doc.get(key)
    if not isinstance(h, dict):
        return None
    tree = doc.get("tree") or doc.get("git")
    if "value" in h:
        lo_hi = h.get("ci95")
        return {
            "value": h["value"],
            "range": lo_hi,
            "range_kind": "95 % interval",
            "samples": h.get("samples"),
            "tree": tree,
            "date": doc.get("date"),
        }
    if "median" in h:
        return {
            "value": h["median"],
            "range": [h.get("min"), h.get("max")],
            "range_kind": "min-max",
            "samples": h.get("n"),
            "tree": tree,
            "date": doc.get("date"),
        }
    return None


def committed_report(root: Path, rev: str = "HEAD") -> dict[str, Any] | None:
    """docs/results/iotgw.json as committed at ``rev`` (None if there is none)."""
    r = subprocess.run(
        ["git", "-C", str(root), "show", f"{rev}:{RESULT_JSON}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if r.returncode != 0:
        return None
    try:
        return json.loads(r.stdout)
    except ValueError:
        return None


# ---------------------------------------------------------------------------
# the generated report's tables


def rate_of(t: dict[str, Any]) -> float:
    return t["delivered"] / t["sending_s"] if t["sending_s"] else 0.0


def pct(x: float | None, nd: int = 2) -> str:
    return "-" if x is None else f"{x * 100:.{nd}f} %"


def med(xs: list[float]) -> float | None:
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def _by(trials: list[dict[str, Any]], **match: Any) -> list[dict[str, Any]]:
    return [t for t in trials if all(t[k] == v for k, v in match.items())]


def _table(title: str, head: list[str], rows: list[list[str]], note: str = "") -> list[str]:
    out = [f"## {title}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out + ([""] + [note] if note else []) + [""]


def _previous(rep: Any) -> list[str]:
    prev = rep.headline.get("report_cycles_memif", {}).get("previous")
    if not prev:
        return []
    lo, hi = prev["range"]
    return [
        "`report_cycles_memif` of the previous report, **from another tree** "
        f"({prev['tree']}, {prev['date']}; not paired with this run, its own method): "
        f"{prev['value']:,.0f} cycles per report ({prev['range_kind']} {lo:,.0f}-{hi:,.0f}, "
        f"{prev['samples']} samples); this run: "
        f"{headline_text(rep.headline['report_cycles_memif'], '{:,.0f}')}.",
        "",
    ]


def _not_met(rep: Any) -> list[str]:
    out = []
    for key, res in rep.bar_results().items():
        if res["met"] is False:
            h = headline_text(rep.headline[key])
            out += [f"**Goal not met**: `{key}` is {h}; the goal is {res['goal']}.", ""]
    return out


def _placements(rep: Any) -> list[str]:
    """The figures that are not ratios, pooled and per placement, with their intervals."""
    rows = []
    for key, h in rep.headline.items():
        if "value" not in h:
            continue
        for p, s in [("pooled", h), *h.get("by_placement", {}).items()]:
            lo_hi = "-" if not s.get("ci95") else "-".join(f"{x:,.4g}" for x in s["ci95"])
            v = "none" if s["value"] is None else f"{s['value']:,.4g} {h['unit']}"
            rows.append([f"`{key}`", p, v, lo_hi, str(s["samples"])])
    head = ["figure", "placement", "median", "95 % interval", "samples"]
    return _table("Figures by placement", head, rows) if rows else []


def _cost(T: list[dict[str, Any]], g: verdict.Goal) -> list[str]:
    costs = _by(T, kind="cost")
    verdicts = sweep_verdicts(costs, g, lambda t: t["system"])
    rows = []
    for sy, p in sorted({(t["system"], t["placement"]) for t in costs}):
        ts = _by(costs, system=sy, placement=p)
        rp = med([t["report_cycles"] / t["delivered"] for t in ts])
        wk = med([t["thread_cycles"] / t["delivered"] for t in ts])
        rows.append([sy, p, f"{rp:,.0f}", f"{wk:,.0f}", str(len(ts)), verdicts[sy]])
    head = ["system", "placement", "report path cycles", "worker cycles", "samples", "verdict"]
    return (
        _table(f"Cost per report, memif, {COST_RATE:,.0f}/s, {COST_SIZE} B (median)", head, rows)
        if rows
        else []
    )


def _fig3(T: list[dict[str, Any]], g: verdict.Goal) -> list[str]:
    f3 = _by(T, kind="fig3")
    ns, verdicts = sorted({t["n"] for t in f3}), sweep_verdicts(f3, g, lambda t: t["system"])
    rows = []
    for sy in sorted(verdicts):
        ors = [
            med(
                [
                    1 - t["report_cycles"] / t["thread_cycles"]
                    for t in _by(f3, system=sy, n=n)
                    if t["thread_cycles"]
                ]
            )
            for n in ns
        ]
        rows.append([sy, *(pct(x, 1) for x in ors), verdicts[sy]])
    head = ["system", *(f"N={n:,}" for n in ns), f"verdict at {FIG3_RATE:,.0f}/s"]
    return (
        _table(
            "Fig. 3: overhead ratio OR(N) = (tT - tP) / tT, memif (median)",
            head,
            rows,
            "tT: the worker's busy cycles over N reports; tP: the report path's.",
        )
        if rows
        else []
    )


def _fig4(rep: Any) -> list[str]:
    rows = []
    for z, ps in rep.extra.get("pairs", {}).get("veth", {}).items():
        a, b = med([p["a"] for p in ps]), med([p["b"] for p in ps])
        h = headline_text(rep.headline[f"dual_over_socket_veth_{z}"])
        rows.append([f"{z} B", f"{a:,.0f}/s", f"{b:,.0f}/s", h])
    head = ["size", "socket (median)", "dual (median)", "dual / socket, paired"]
    return _table("Fig. 4: highest report rate the goal passes, veth", head, rows) if rows else []


def _fig5(T: list[dict[str, Any]], g: verdict.Goal) -> list[str]:
    f5 = _by(T, kind="fig5")
    zs = sorted({t["size"] for t in f5})
    verdicts = sweep_verdicts(f5, g, lambda t: (t["wire"], t["system"], t["size"]))
    rows = []
    for w, sy in sorted({(t["wire"], t["system"]) for t in f5}):
        loss = [med([t["loss"] for t in _by(f5, wire=w, system=sy, size=z)]) for z in zs]
        rows.append(
            [w, sy, *(f"{pct(x)} ({verdicts[(w, sy, z)]})" for x, z in zip(loss, zs, strict=True))]
        )
    head = ["wire", "system", *(f"{z} B" for z in zs)]
    return (
        _table("Fig. 5: report loss at 1 Gbit/s offered (median; verdict)", head, rows)
        if rows
        else []
    )


def _fig6(T: list[dict[str, Any]], g: verdict.Goal) -> list[str]:
    f6 = _by(T, kind="fig6")
    cs = sorted({t["control_pps"] for t in f6})
    verdicts = sweep_verdicts(f6, g, lambda t: (t["system"], t["control_pps"]))
    rows = []
    for sy in sorted({t["system"] for t in f6}):
        at = [_by(f6, system=sy, control_pps=c) for c in cs]
        rows += [
            [sy, "delivered/s", *(f"{med([rate_of(t) for t in ts]):,.0f}" for ts in at)],
            [sy, "loss", *(pct(med([t["loss"] for t in ts])) for ts in at)],
            [sy, "verdict", *(verdicts[(sy, c)] for c in cs)],
            [
                sy,
                "associations completed",
                *(
                    pct(med([t["associated"] * 2 / t["control_offered"] for t in ts]), 1)
                    if ts[0]["control_offered"]
                    else "-"
                    for ts in at
                ),
            ],
        ]
    head = ["system", "row", *(f"{c:,.0f}/s" for c in cs)]
    note = (
        "The dual plane's control plane shares the generator's CPU; the single plane "
        "signals on its worker (seed 000's architecture)."
    )
    return (
        _table(
            f"Fig. 6: reports against control messages, memif, {FIG6_SIZE} B, "
            "1 Gbit/s in all (median)",
            head,
            rows,
            note,
        )
        if rows
        else []
    )


def tables(
    rep: Any, trials: list[dict[str, Any]], goal: verdict.Goal, setups: dict[str, Any]
) -> str:
    """The generated report's tables (``rep``: a report.Report with its headline):
    the previous figure, goals not met, cost, Fig. 3-6 and the set-up."""
    L = _previous(rep) + _not_met(rep) + _placements(rep) + _cost(trials, goal)
    L += _fig3(trials, goal) + _fig4(rep) + _fig5(trials, goal) + _fig6(trials, goal)
    L += ["## Set-up", ""]
    for k, d in setups.items():
        L += [f"- {k}:"] + [f"  - `{x}`" for x in d["setup"]]
    return "\n".join(L) + "\n"


def plot(trials: list[dict[str, Any]], pairs: dict[str, Any], path: Path) -> None:
    """Fig. 3-6 in one picture: each side's median, the band its min-max."""
    from twinplane.bench.report import pyplot as _plt

    plt = _plt()
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    colors = {"dual": "tab:blue", "single": "tab:orange", "socket": "tab:green"}

    def series(ax: Any, pts: dict[str, dict[Any, list[float]]]) -> None:
        for name, at in sorted(pts.items()):
            xs = sorted(at)
            sy = name.split(" ")[0]
            style = "--o" if name.endswith("veth") else "-o"
            ax.plot(xs, [statistics.median(at[x]) for x in xs], style, color=colors[sy], label=name)
            ax.fill_between(
                xs, [min(at[x]) for x in xs], [max(at[x]) for x in xs], color=colors[sy], alpha=0.15
            )
        if pts:
            ax.legend(fontsize=8)
        ax.grid(alpha=0.3)

    def collect(kind: str, x: str, y: Callable[[dict[str, Any]], float], label: str = "{system}"):
        out: dict[str, dict[Any, list[float]]] = {}
        for t in _by(trials, kind=kind):
            if kind != "fig3" or t["thread_cycles"]:
                out.setdefault(label.format(**t), {}).setdefault(t[x], []).append(y(t))
        return out

    ax = axes[0][0]
    series(ax, collect("fig3", "n", lambda t: 100 * (1 - t["report_cycles"] / t["thread_cycles"])))
    ax.set(title="Fig. 3 overhead ratio, memif", xlabel="reports N", ylabel="OR %")
    ax = axes[0][1]
    f4: dict[str, dict[Any, list[float]]] = {}
    for z, ps in pairs.get("veth", {}).items():
        for p in ps:
            f4.setdefault("socket", {}).setdefault(int(z), []).append(p["a"] / 1e3)
            f4.setdefault("dual", {}).setdefault(int(z), []).append(p["b"] / 1e3)
    series(ax, f4)
    ax.set(title="Fig. 4 highest passing report rate, veth", xlabel="frame B", ylabel="k/s")
    ax = axes[1][0]
    series(ax, collect("fig5", "size", lambda t: 100 * t["loss"], "{system} {wire}"))
    ax.set(title="Fig. 5 loss at 1 Gbit/s offered", xlabel="frame B", ylabel="loss %")
    ax = axes[1][1]
    series(ax, collect("fig6", "control_pps", lambda t: rate_of(t) / 1e3))
    ax.set(
        title="Fig. 6 reports delivered, memif, 512 B", xlabel="control messages/s", ylabel="k/s"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)

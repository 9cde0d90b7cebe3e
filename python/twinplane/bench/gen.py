# SPDX-License-Identifier: BSD-3-Clause
"""Start, drive and stop ``twinplane-gen`` (docs/GEN.md) from Python.

The generator speaks the daemon's API (docs/API.md), so ``twinplane.api.Client``
talks to it; this wrapper adds the process (optionally inside a network
namespace, as AF_XDP ports must live where their netdevs are), the commands
of GEN.md as methods, and trials that come back as
``twinplane.bench.rfc2544.TrialResult``::

    with Gen("gen", workdir) as g:
        g.port_add("g0", "net_memif0,role=server,socket=/tmp/l0.sock,socket-abstract=no")
        g.port_add("g1", "net_memif1,role=server,socket=/tmp/l1.sock,socket-abstract=no")
        g.stream_add("s64", "g0", 64, dmac="02:74:64:00:00:00", dst="198.18.1.1-198.18.1.254")
        r = g.trial("s64", rate=1e6, duration=1.0)
        r.loss_ratio, r.offered_rate_pps, r.latency_ns["p99"]

NDN (GEN.md "ndn"): a consumer stream and a producer port answering it::

        g.port_add("p", "net_memif1,...", producer="ndn", payload=100)
        g.ndn_stream_add("c", "g0", prefix="/bench", streams_i=4, comps=6, must_be_fresh=True)
        reply = g.trial_raw("c", 100000, duration=1.0)
        ndn_results(reply)["c"].satisfaction_ratio, ndn_results(reply)["c"].nacks
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from twinplane.api import ApiError, Client, ProtocolError
from twinplane.bench.rfc2544 import TrialFn, TrialResult
from twinplane.lab.daemon import build_dir
from twinplane.proc import Process, ProcessError, remove_dpdk_runtime

DEFAULT_LCORES = "0@1,1@1"  # API lcore and worker both on CPU 1: the DUT gets CPU 0


class GenError(ProcessError):
    """The generator did not start, died, or refused a command."""


NACK_REASONS = ("congestion", "duplicate", "no_route", "other")


@dataclass
class NdnStreamResult:
    """An NDN consumer stream's part of a trial reply (GEN.md "ndn")."""

    name: str
    interests: int  # Interests the port took
    satisfied: int  # Data received, once each
    nacks: dict[str, int] = field(default_factory=dict)  # by reason: NACK_REASONS
    latency_ns: dict[str, Any] | None = None  # round-trip times of the Data

    @property
    def satisfaction_ratio(self) -> float:
        return self.satisfied / self.interests if self.interests else 0.0

    @property
    def nacks_total(self) -> int:
        return sum(self.nacks.values())

    @property
    def unanswered(self) -> int:
        return max(0, self.interests - self.satisfied - self.nacks_total)


def ndn_results(reply: dict[str, Any]) -> dict[str, NdnStreamResult]:
    """The NDN consumer streams of a ``trial`` reply, by stream name."""
    out: dict[str, NdnStreamResult] = {}
    for s in reply.get("streams") or []:
        if "satisfied" not in s:
            continue
        out[s["name"]] = NdnStreamResult(
            name=s["name"],
            interests=int(s["tx"]),
            satisfied=int(s["satisfied"]),
            nacks={k: int(v) for k, v in (s.get("nacks") or {}).items()},
            latency_ns=s.get("latency_ns"),
        )
    return out


def ndn_producer_counters(reply: dict[str, Any], port: str) -> dict[str, int]:
    """A producer port's counters in a ``trial`` reply (over the trial) or in
    ``show ports`` (since the port was added)."""
    for p in reply.get("ports") or []:
        if p.get("name") == port:
            return dict(p.get("ndn_producer") or {})
    raise KeyError(f"no port {port!r} in the reply")


def gen_binary() -> Path:
    """Path of the generator: $TP_GEN, else <build>/src/twinplane-gen."""
    return Path(os.environ.get("TP_GEN", build_dir() / "src" / "twinplane-gen"))


def fmt_rate(pps: float) -> str:
    """A rate word for ``trial``: whole packets per second."""
    return str(max(1, round(pps)))


class Gen(Process):
    """One ``twinplane-gen`` process and a connection to its API socket.

    Stopped with SIGINT (SIGKILL after 10 s); its EAL runtime files (prefix
    ``name``) are removed afterwards."""

    def __init__(
        self,
        name: str,
        workdir: Path,
        lcores: str = DEFAULT_LCORES,
        binary: Path | None = None,
        netns: str | None = None,
        config: Sequence[str] = (),
        eal: str | None = None,
        extra_args: Sequence[str] = (),
    ) -> None:
        self.name = name
        self.workdir = Path(workdir)
        self.lcores = lcores
        self.binary = Path(binary) if binary else gen_binary()
        self.config = list(config)
        self.eal = eal
        self.extra_args = list(extra_args)
        self.socket = str(self.workdir / f"{name}.sock")
        self.config_path = self.workdir / f"{name}.conf"
        self.log_path = self.workdir / f"{name}.log"
        self.out_path = self.workdir / f"{name}.out"
        self.client = Client(self.socket, timeout=10.0)
        self.commands: list[str] = []  # every API command sent, for the report
        argv = [
            str(self.binary),
            "--name", self.name,
            "--lcores", self.lcores,
            "--socket", self.socket,
            "--log-file", str(self.log_path),
        ]  # fmt: skip
        if self.config:
            argv += ["--config", str(self.config_path)]
        if self.eal:
            argv += ["--eal", self.eal]
        argv += self.extra_args
        super().__init__(
            argv,
            self.out_path,
            label="twinplane-gen",
            netns=netns,
            stop_signal=signal.SIGINT,
            stop_timeout=10.0,
            side_logs=[("log", self.log_path)],
            cleanup=functools.partial(remove_dpdk_runtime, name),
            error=GenError,
        )

    # --- process ---------------------------------------------------------

    def start(self, timeout: float = 60.0) -> Self:
        if not self.binary.exists():
            raise GenError(f"generator binary {self.binary} not found (build it, or set TP_GEN)")
        self.workdir.mkdir(parents=True, exist_ok=True)
        if self.config:
            self.config_path.write_text("\n".join(self.config) + "\n")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.socket)
        super().start()
        self.wait_ready(
            self._api_answers,
            timeout,
            f"answering on {self.socket}",
            retry_on=(OSError, ApiError, ProtocolError, ValueError),
        )
        return self

    def _api_answers(self) -> bool:
        if not os.path.exists(self.socket):
            return False
        try:
            self.client.cmd("show", "ports", timeout=2.0)
        except (OSError, ApiError, ProtocolError, ValueError):
            self.client.close()
            raise
        return True

    def stop(self, *, sig: int | None = None, timeout: float | None = None) -> int | None:
        """Close the API connection, then ``Process.stop``."""
        self.client.close()
        return super().stop(sig=sig, timeout=timeout)

    # --- commands --------------------------------------------------------

    def cmd(self, *words: str, json: bool = True, timeout: float | None = None) -> Any:
        self.commands.append(" ".join(words))
        try:
            return self.client.cmd(*words, json=json, timeout=timeout)
        except ApiError as e:
            raise GenError(f"twinplane-gen: '{' '.join(words)}' refused: {e}") from e
        except (OSError, ProtocolError) as e:
            raise self.fail(f"'{' '.join(words)}': {e}") from e

    def port_add(
        self,
        name: str,
        devargs: str,
        rxd: int | None = None,
        txd: int | None = None,
        sink: str | None = None,
        delay_us: float | None = None,
        producer: str | None = None,
        payload: int | None = None,
        freshness_ms: int | None = None,
        nack: str | int | None = None,
        sign: str | None = None,
        rxq: int | None = None,
    ) -> None:
        """``rxq``: receive queues, polled in turn (a memif client that opens one ring
        per transmit queue, as OVS-DPDK does). ``producer="ndn"``: the port answers
        Interests with Data of ``payload`` bytes (``freshness_ms``, ``sign`` "digest" or
        "null"), or with Nacks (``nack``: "congestion", "duplicate", "no-route",
        "unspecified" or a number)."""
        words = ["port", "add", name, devargs]
        if rxd:
            words += ["rxd", str(rxd)]
        if txd:
            words += ["txd", str(txd)]
        if rxq:
            words += ["rxq", str(rxq)]
        if sink:
            words += ["sink", sink]
        if delay_us:
            words += ["delay-us", f"{delay_us:g}"]
        if producer:
            words += ["producer", producer]
        for key, val in (
            ("payload", payload),
            ("freshness", freshness_ms),
            ("nack", nack),
            ("sign", sign),
        ):
            if val is not None:
                words += [key, str(val)]
        self.cmd(*words, json=False, timeout=60.0)

    def stream_add(
        self,
        name: str,
        port: str,
        size: int,
        template: str = "ip4-udp",
        dmac: str | None = None,
        smac: str | None = None,
        src: str | None = None,
        dst: str | None = None,
        sport: str | int | None = None,
        dport: str | int | None = None,
        ttl: int | None = None,
        extra: Sequence[str] = (),
    ) -> None:
        """``extra``: the template's own words (phd: ``kind report``, ``device ...``)."""
        words = ["stream", "add", name, "port", port, "template", template, "size", str(size)]
        for key, val in (
            ("dmac", dmac),
            ("smac", smac),
            ("src", src),
            ("dst", dst),
            ("sport", sport),
            ("dport", dport),
            ("ttl", ttl),
        ):
            if val is not None:
                words += [key, str(val)]
        words += list(extra)
        self.cmd(*words, json=False, timeout=30.0)

    def ndn_stream_add(
        self,
        name: str,
        port: str,
        size: int = 64,
        encap: str | None = None,
        prefix: str | None = None,
        streams_i: int | None = None,
        variants_j: int | None = None,
        comps: int | None = None,
        must_be_fresh: bool = False,
        can_be_prefix: bool = False,
        lifetime_ms: int | None = None,
        hop_limit: int | None = None,
        seq_mod: int | None = None,
        dmac: str | None = None,
        smac: str | None = None,
        src: str | None = None,
        dst: str | None = None,
        sport: int | None = None,
        dport: int | None = None,
    ) -> None:
        """An NDN consumer stream (template ``ndn``); ``size`` is a minimum, the
        name decides the frame length."""
        words: list[str] = []
        for key, val in (
            ("encap", encap),
            ("prefix", prefix),
            ("streams-i", streams_i),
            ("variants-j", variants_j),
            ("comps", comps),
            ("lifetime", lifetime_ms),
            ("hop-limit", hop_limit),
            ("seq-mod", seq_mod),
        ):
            if val is not None:
                words += [key, str(val)]
        if must_be_fresh:
            words.append("must-be-fresh")
        if can_be_prefix:
            words.append("can-be-prefix")
        # the addresses are stream_add's own words
        self.stream_add(
            name,
            port,
            size,
            template="ndn",
            extra=words,
            dmac=dmac,
            smac=smac,
            src=src,
            dst=dst,
            sport=sport,
            dport=dport,
        )

    def stream_del(self, name: str) -> None:
        self.cmd("stream", "del", name, json=False)

    def show(self, what: str) -> Any:
        return self.cmd("show", what)

    def trial_raw(
        self,
        streams: str | Sequence[str],
        rate: float | str,
        duration: float | None = None,
        count: int | None = None,
        burst: int | None = None,
        warmup: float | None = None,
        drain: float | None = None,
        timeout: float | None = None,
        weights: Sequence[float] | None = None,
    ) -> dict[str, Any]:
        """Run one ``trial``; return the generator's JSON reply. ``weights``: each
        stream's share of the rate, in the order of ``streams``."""
        if (duration is None) == (count is None):
            raise ValueError("trial: give duration or count")
        names = streams if isinstance(streams, str) else ",".join(streams)
        rate_w = rate if isinstance(rate, str) else fmt_rate(rate)
        words = ["trial", names, "rate", rate_w]
        if duration is not None:
            words += ["duration", f"{duration:g}"]
        else:
            words += ["count", str(count)]
        if burst:
            words += ["burst", str(burst)]
        # GEN.md: warmup and drain go with the duration form only
        if warmup is not None and duration is not None:
            words += ["warmup", f"{warmup:g}"]
        if drain is not None and duration is not None:
            words += ["drain", f"{drain:g}"]
        if weights is not None:
            words += ["weights", ",".join(f"{w:g}" for w in weights)]
        if timeout is None:
            # the generator may be slower than asked: it then takes longer to
            # send the frames of the trial; allow it down to 100k frames/s
            frames = (
                (count or 0)
                if duration is None
                else (float(rate) if not isinstance(rate, str) else 1e6)
                * (duration + (warmup or 0))
            )
            timeout = 30.0 + 2 * ((duration or 0) + (warmup or 0) + (drain or 0.2)) + frames / 1e5
        return self.cmd(*words, timeout=timeout)

    def trial(
        self,
        streams: str | Sequence[str],
        rate: float,
        duration: float,
        burst: int | None = None,
        warmup: float | None = None,
        drain: float | None = None,
    ) -> TrialResult:
        reply = self.trial_raw(
            streams, rate, duration=duration, burst=burst, warmup=warmup, drain=drain
        )
        if not isinstance(reply, dict) or "trial" not in reply:
            raise GenError(f"twinplane-gen: unexpected trial reply {reply!r:.300}")
        return TrialResult.from_gen(reply, rate, duration)

    def trial_fn(
        self,
        streams: str | Sequence[str],
        burst: int | None = None,
        warmup: float | None = None,
        drain: float | None = None,
    ) -> TrialFn:
        """A ``fn(rate_pps, duration_s) -> TrialResult`` for ``rfc2544.search``."""

        def fn(rate: float, duration: float) -> TrialResult:
            return self.trial(streams, rate, duration, burst=burst, warmup=warmup, drain=drain)

        return fn

    def wait_forwarding(
        self, stream: str, timeout: float = 30.0, rate: float = 20000, duration: float = 0.02
    ) -> TrialResult:
        """Send small probes until one comes back whole: the path through the DUT
        is up (links, routes, neighbours). Raises GenError after ``timeout``."""
        deadline = time.monotonic() + timeout
        last: TrialResult | None = None
        while True:
            reply = self.trial_raw(stream, rate, duration=duration, drain=0.1)
            last = TrialResult.from_gen(reply, rate, duration)
            if last.offered and last.lost == 0:
                return last
            if time.monotonic() > deadline:
                raise self.fail(
                    "nothing comes back through the DUT after "
                    f"{timeout:.0f}s: last probe {last.summary()}"
                )
            if not self.running():
                raise self.fail("died while probing the path")
            time.sleep(0.2)

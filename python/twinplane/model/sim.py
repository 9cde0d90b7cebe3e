# SPDX-License-Identifier: BSD-3-Clause
"""The pipeline simulator (``src/model/sim.c``, built as ``build/src/model/libtpsim.so``)
through ctypes: :class:`Dist` for a stage's service time, :class:`Pipeline` for one
configuration, :meth:`Pipeline.run` for a batch of independent runs.

Times are in nanoseconds. A queue capacity is the waiting room, not counting the
packet in service (a queue of capacity Q in front of one server is an M/x/1/K system
with K = Q + 1)."""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from twinplane.lab.daemon import build_dir

KINDS = {
    "none": 0,
    "const": 1,
    "expon": 2,
    "norm": 3,
    "lognorm": 4,
    "gamma": 5,
    "weibull_min": 6,
    "boxcox": 7,
    "empirical": 8,
}


class SimError(ValueError):
    """A configuration the simulator refuses, with its reason."""


class _CDist(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_int32),
        ("pad", ctypes.c_int32),
        ("shape", ctypes.c_double),
        ("loc", ctypes.c_double),
        ("scale", ctypes.c_double),
        ("add", ctypes.c_double),
        ("samples", ctypes.POINTER(ctypes.c_double)),
        ("n_samples", ctypes.c_uint64),
    ]


class _CParams(ctypes.Structure):
    _fields_ = [
        ("n_interests", ctypes.c_uint64),
        ("warmup", ctypes.c_uint64),
        ("interval", ctypes.c_double),
        ("poisson", ctypes.c_int32),
        ("n_fwd", ctypes.c_uint32),
        ("dispatch", ctypes.c_int32),
        ("queues", ctypes.c_int32),
        ("q_interest", ctypes.c_uint32),
        ("q_data", ctypes.c_uint32),
        ("q_input", ctypes.c_uint32),
        ("q_output", ctypes.c_uint32),
        ("interest_only", ctypes.c_int32),
        ("placement", ctypes.c_int32),
        ("numa_cross", ctypes.c_double),
        ("producer_delay", ctypes.c_double),
        ("rtc", ctypes.c_int32),
        ("poll_burst", ctypes.c_uint32),
        ("arrival_burst", ctypes.c_uint32),
        ("in_i", _CDist),
        ("in_d", _CDist),
        ("fwd_i", _CDist),
        ("fwd_d", _CDist),
        ("out", _CDist),
    ]


class _CResult(ctypes.Structure):
    _fields_ = [
        ("sent", ctypes.c_uint64),
        ("satisfied", ctypes.c_uint64),
        ("drop_input", ctypes.c_uint64),
        ("drop_fwd_interest", ctypes.c_uint64),
        ("drop_fwd_data", ctypes.c_uint64),
        ("drop_output", ctypes.c_uint64),
        ("rtt_mean", ctypes.c_double),
        ("rtt_max", ctypes.c_double),
        ("fwd_busy", ctypes.c_double),
    ]


RESULT_FIELDS = [name for name, _ in _CResult._fields_]


def library_path() -> Path:
    """$TP_SIM_LIB, else libtpsim.so in the meson build directory."""
    env = os.environ.get("TP_SIM_LIB")
    return Path(env) if env else build_dir() / "src" / "model" / "libtpsim.so"


@cache
def _lib() -> ctypes.CDLL:
    path = library_path()
    if not path.exists():
        raise SimError(f"simulator library {path} not found: build the project (meson, ninja)")
    lib = ctypes.CDLL(str(path))
    lib.tp_sim_run.argtypes = [
        ctypes.POINTER(_CParams),
        ctypes.c_uint64,
        ctypes.c_uint32,
        ctypes.POINTER(_CResult),
        ctypes.POINTER(ctypes.c_uint64),
        ctypes.c_char_p,
        ctypes.c_uint32,
    ]
    lib.tp_sim_run.restype = ctypes.c_int
    lib.tp_sim_draw_n.argtypes = [
        ctypes.POINTER(_CDist),
        ctypes.c_uint64,
        ctypes.POINTER(ctypes.c_double),
        ctypes.c_uint64,
    ]
    lib.tp_sim_draw_n.restype = None
    return lib


@dataclass(frozen=True)
class Dist:
    """A service-time distribution in scipy.stats's terms: ``kind`` one of
    const, expon, norm, lognorm, gamma, weibull_min, boxcox (``shape`` = lambda,
    ``loc``/``scale`` the mean and deviation of the transformed normal), empirical
    (``samples``), or none (the stage absent)."""

    kind: str = "none"
    shape: float = 0.0
    loc: float = 0.0
    scale: float = 1.0
    samples: tuple[float, ...] | None = None
    add: float = 0.0  # a constant added to every draw

    @staticmethod
    def const(value: float) -> Dist:
        return Dist("const", loc=value)

    @staticmethod
    def expon(mean: float) -> Dist:
        return Dist("expon", scale=mean)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise SimError(f"distribution kind {self.kind!r}: one of {', '.join(KINDS)}")
        if self.kind == "empirical" and not self.samples:
            raise SimError("an empirical distribution needs samples")

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind}
        if self.kind in ("gamma", "weibull_min", "lognorm", "boxcox"):
            d["shape"] = self.shape
        if self.kind != "none":
            d["loc"] = self.loc
        if self.kind not in ("none", "const", "empirical"):
            d["scale"] = self.scale
        if self.kind == "empirical":
            d["samples"] = list(self.samples or ())
        if self.add:
            d["add"] = self.add
        return d

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Dist:
        s = d.get("samples")
        return Dist(
            str(d.get("kind", "none")),
            float(d.get("shape", 0.0)),
            float(d.get("loc", 0.0)),
            float(d.get("scale", 1.0)),
            tuple(float(x) for x in s) if s else None,
            float(d.get("add", 0.0)),
        )

    def _c(self, keep: list[Any]) -> _CDist:
        c = _CDist(KINDS[self.kind], 0, self.shape, self.loc, self.scale, self.add, None, 0)
        if self.samples:
            arr = (ctypes.c_double * len(self.samples))(*self.samples)
            keep.append(arr)
            c.samples = ctypes.cast(arr, ctypes.POINTER(ctypes.c_double))
            c.n_samples = len(self.samples)
        return c

    def scaled(self, k: float) -> Dist:
        """Draws times k: the location, the scale, the samples and the added
        constant (the families here are location-scale ones; Box-Cox is not, and
        is refused)."""
        if k == 1.0:
            return self
        if self.kind == "boxcox":
            raise SimError("a Box-Cox distribution does not scale: use its samples")
        return replace(
            self,
            loc=self.loc * k,
            scale=self.scale * k,
            samples=tuple(x * k for x in self.samples) if self.samples else None,
            add=self.add * k,
        )

    def mean(self) -> float:
        """The mean of 40,000 of the simulator's own draws."""
        return float(self.draw(40000, seed=11).mean())

    def draw(self, n: int, seed: int = 1) -> np.ndarray:
        """n draws from the simulator's own sampler (to test it against scipy)."""
        keep: list[Any] = []
        c = self._c(keep)
        out = np.empty(n, dtype=np.float64)
        _lib().tp_sim_draw_n(
            ctypes.byref(c), seed, out.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), n
        )
        return out


NONE = Dist()


@dataclass(frozen=True)
class Pipeline:
    """One configuration of the forwarder's pipeline (sim.h's tp_sim_params)."""

    fwd_i: Dist
    fwd_d: Dist = NONE
    interval: float = 1000.0
    poisson: bool = False
    n_fwd: int = 1
    dispatch: str = "ndt"  # or "pool": one queue set served by every lcore
    queues: str = "separate"  # or "shared": one FIFO for Interests and Data
    q_interest: int = 4096
    q_data: int = 4096
    q_input: int = 4096
    q_output: int = 4096
    in_i: Dist = NONE
    in_d: Dist = NONE
    out: Dist = NONE
    interest_only: bool = False
    placement: int = 1
    numa_cross: float = 0.0
    producer_delay: float = 0.0
    rtc: bool = False  # one lcore: input + forwarding + output per packet, RX rings as queues
    poll_burst: int = 0  # 0: Data first; N: up to N of a type, then the other type
    arrival_burst: int = 1  # Interests sent together every arrival_burst * interval
    n_interests: int = 20000
    warmup: int = 2000
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def with_(self, **kw: Any) -> Pipeline:
        return replace(self, **kw)

    def _c(self, keep: list[Any]) -> _CParams:
        if self.dispatch not in ("ndt", "pool"):
            raise SimError(f"dispatch {self.dispatch!r}: ndt or pool")
        if self.queues not in ("separate", "shared"):
            raise SimError(f"queues {self.queues!r}: separate or shared")
        for name in ("q_interest", "q_data", "q_input", "q_output", "n_fwd", "n_interests"):
            if int(getattr(self, name)) < 0:
                raise SimError(f"{name}: not negative")
        return _CParams(
            n_interests=int(self.n_interests),
            warmup=int(self.warmup),
            interval=float(self.interval),
            poisson=int(self.poisson),
            n_fwd=int(self.n_fwd),
            dispatch=0 if self.dispatch == "ndt" else 1,
            queues=0 if self.queues == "separate" else 1,
            q_interest=int(self.q_interest),
            q_data=int(self.q_data),
            q_input=int(self.q_input),
            q_output=int(self.q_output),
            interest_only=int(self.interest_only),
            placement=int(self.placement),
            numa_cross=float(self.numa_cross),
            producer_delay=float(self.producer_delay),
            rtc=int(self.rtc),
            poll_burst=int(self.poll_burst),
            arrival_burst=int(self.arrival_burst),
            in_i=self.in_i._c(keep),
            in_d=self.in_d._c(keep),
            fwd_i=self.fwd_i._c(keep),
            fwd_d=self.fwd_d._c(keep),
            out=self.out._c(keep),
        )

    def run(self, n_runs: int, seed: int = 1) -> tuple[np.ndarray, int]:
        """n_runs independent runs: a structured array with RESULT_FIELDS (plus
        ``satisfaction``, satisfied / sent), and the events simulated."""
        keep: list[Any] = []
        p = self._c(keep)
        res = (_CResult * max(1, n_runs))()
        events = ctypes.c_uint64(0)
        err = ctypes.create_string_buffer(256)
        rc = _lib().tp_sim_run(
            ctypes.byref(p), int(seed) & (2**64 - 1), n_runs, res, ctypes.byref(events), err, 256
        )
        if rc != 0:
            raise SimError(f"simulator: {err.value.decode() or 'failed'}")
        dt = [(n, np.float64) for n in RESULT_FIELDS] + [("satisfaction", np.float64)]
        out = np.zeros(n_runs, dtype=dt)
        for i in range(n_runs):
            r = res[i]
            for n in RESULT_FIELDS:
                out[n][i] = getattr(r, n)
        sent = np.maximum(out["sent"], 1)
        out["satisfaction"] = out["satisfied"] / sent
        return out, int(events.value)

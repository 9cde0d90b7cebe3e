# SPDX-License-Identifier: BSD-3-Clause
"""The daemon's metrics page (Prometheus text format 0.0.4, docs/METRICS.md): fetch it over
HTTP from a namespace, parse it, and name the metrics a PromQL expression uses."""

from __future__ import annotations

import re
import socket
from collections.abc import Callable
from dataclasses import dataclass, field

Labels = dict[str, str]

_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$")
_LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?')
_UNESCAPE = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}
_METRIC_NAME = re.compile(r"\btwinplane_[a-zA-Z0-9_:]*")


@dataclass
class Page:
    """A parsed page: each family's type and help, its samples (labels, value)."""

    types: dict[str, str] = field(default_factory=dict)
    helps: dict[str, str] = field(default_factory=dict)
    samples: dict[str, list[tuple[Labels, float]]] = field(default_factory=dict)

    def value(self, name: str, **labels: str) -> float:
        """The sum of the samples of ``name`` whose labels include ``labels``."""
        return sum(
            v
            for ls, v in self.samples.get(name, [])
            if all(ls.get(k) == want for k, want in labels.items())
        )

    def by(self, name: str, key: Callable[[Labels], str], **labels: str) -> dict[str, float]:
        """Samples of ``name`` matching ``labels``, summed by ``key(labels)``."""
        out: dict[str, float] = {}
        for ls, v in self.samples.get(name, []):
            if all(ls.get(k) == want for k, want in labels.items()):
                out[key(ls)] = out.get(key(ls), 0.0) + v
        return out


def parse(text: str) -> Page:
    """Parse the text format; raises ValueError on a line it does not understand."""
    page = Page()
    for line in text.splitlines():
        if not line:
            continue
        if line.startswith("# HELP "):
            name, _, help_ = line[7:].partition(" ")
            page.helps[name] = help_
            continue
        if line.startswith("# TYPE "):
            name, _, type_ = line[7:].partition(" ")
            page.types[name] = type_
            continue
        if line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        if m is None:
            raise ValueError(f"not a sample line: {line!r}")
        labels: Labels = {}
        rest = m.group(2) or ""
        pos = 0
        while pos < len(rest):
            lm = _LABEL.match(rest, pos)
            if lm is None:
                raise ValueError(f"bad labels in {line!r}")
            labels[lm.group(1)] = re.sub(r"\\.", lambda e: _UNESCAPE[e.group(0)], lm.group(2))
            pos = lm.end()
        page.samples.setdefault(m.group(1), []).append((labels, float(m.group(3))))
    return page


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes


def http_request(sock: socket.socket, raw: bytes, timeout: float = 5.0) -> Response:
    """Send ``raw`` (a whole request, ``Connection: close``) on a connected socket and read
    the answer until the server closes."""
    sock.settimeout(timeout)
    sock.sendall(raw)
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for h in lines[1:]:
        k, _, v = h.partition(":")
        headers[k.strip().lower()] = v.strip()
    return Response(status, headers, body)


def get(
    connect: Callable[[], socket.socket], addr: str, path: str = "/metrics", timeout: float = 5.0
) -> Response:
    """GET ``path`` from ``addr`` (``A.B.C.D:PORT``) over a socket ``connect()`` makes
    (e.g. in a lab namespace)."""
    host, port = addr.rsplit(":", 1)
    with connect() as s:
        s.settimeout(timeout)
        s.connect((host, int(port)))
        req = f"GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
        return http_request(s, req.encode(), timeout)


def names_in(expr: str) -> set[str]:
    """The twinplane_* metric names a PromQL expression uses."""
    return set(_METRIC_NAME.findall(expr))

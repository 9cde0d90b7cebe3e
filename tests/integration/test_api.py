# SPDX-License-Identifier: BSD-3-Clause
"""The Python API client against the daemon: JSON and text, errors, framing."""

from __future__ import annotations

import errno
import socket
import struct

import pytest

from twinplane.api import HEADER, ApiError, Client, encode_request
from twinplane.lab import RouterLab


def test_encode_request() -> None:
    frame = encode_request(7, ["route", "del", "10.0.0.0/8"], json=True)
    assert HEADER.unpack(frame[:16]) == (1, 2, 7, 0, len(frame) - 16)
    assert frame[16:] == b"route\0del\x0010.0.0.0/8\0"


def test_json_and_text(router_lab: RouterLab) -> None:
    assert router_lab.daemon is not None
    with Client(router_lab.daemon.socket) as c:
        v = c.cmd("version")
        assert v["api"] == 1
        text = c.cmd("version", json=False)
        assert isinstance(text, str) and str(v["twinplane"]) in text
        assert c.cmd("show counters")["mempool"]["size"] > 0  # one string is split into words


@pytest.mark.parametrize(
    ("words", "status", "needle"),
    [
        (
            ("route", "add", "10.0.0.0/33", "via", "10.0.2.2"),
            -errno.EINVAL,
            "10.0.0.0/33",
        ),
        (("no-such-command",), -errno.ENOENT, "no-such-command"),
    ],
)
def test_errors_raise_api_error(
    router_lab: RouterLab, words: tuple[str, ...], status: int, needle: str
) -> None:
    with pytest.raises(ApiError) as exc:
        router_lab.ctl(*words)
    assert exc.value.status == status
    assert needle in exc.value.message
    assert router_lab.ctl("version")["api"] == 1  # the connection survives an error


def test_other_version_refused(router_lab: RouterLab) -> None:
    assert router_lab.daemon is not None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(router_lab.daemon.socket)
        payload = b"version\0"
        s.sendall(struct.pack("<HHIiI", 2, 2, 99, 0, len(payload)) + payload)
        _, _, rid, status, length = HEADER.unpack(s.recv(16, socket.MSG_WAITALL))
        assert rid == 99
        assert status == -errno.EPROTONOSUPPORT
        assert length > 0

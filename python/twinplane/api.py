# SPDX-License-Identifier: BSD-3-Clause
"""Client for the twinplane control API (docs/API.md), version 1.

Every message is a 16-byte little-endian header ``<HHIiI`` (version, type,
id, status, len) followed by ``len`` bytes of payload. A request's payload is
the command's words, each NUL-terminated; the daemon parses them.
"""

from __future__ import annotations

import errno
import itertools
import json as jsonlib
import os
import socket
import struct
import threading
from typing import Any

from twinplane.closing import Closing

API_VERSION = 1
CMD_TEXT = 1
CMD_JSON = 2

HEADER = struct.Struct("<HHIiI")
MAX_REQUEST = 1 << 20
DEFAULT_SOCKET_DIR = "/run/twinplane"


class ApiError(Exception):
    """The daemon answered a request with a negative errno status."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.errno = -status
        self.message = message
        name = errno.errorcode.get(-status, str(status))
        super().__init__(f"{message} ({name})")


class ProtocolError(Exception):
    """The peer broke the framing (short read, wrong version, wrong id)."""


class ConnectionClosed(ProtocolError):
    """The peer closed the connection before the first byte of an answer."""


def default_socket(name: str = "twinplane") -> str:
    """Return the daemon's default socket path for instance ``name``."""
    return os.path.join(DEFAULT_SOCKET_DIR, f"{name}.sock")


def encode_request(req_id: int, words: tuple[str, ...] | list[str], json: bool) -> bytes:
    """Frame one request: header plus the NUL-terminated words."""
    payload = b"".join(w.encode() + b"\0" for w in words)
    if len(payload) > MAX_REQUEST:
        raise ValueError(f"request payload {len(payload)} bytes exceeds {MAX_REQUEST}")
    kind = CMD_JSON if json else CMD_TEXT
    return HEADER.pack(API_VERSION, kind, req_id, 0, len(payload)) + payload


class Client(Closing):
    """A connection to one daemon's API socket.

    The connection is opened on first use and kept; ``cmd`` is thread-safe
    (one request in flight at a time). Use as a context manager or call
    ``close``.
    """

    def __init__(self, path: str | None = None, timeout: float = 5.0) -> None:
        self.path = path or default_socket()
        self.timeout = timeout
        self._sock: socket.socket | None = None
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def connect(self) -> None:
        """Open the socket now (``cmd`` does it on demand)."""
        if self._sock is not None:
            return
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self.path)
        except OSError:
            sock.close()
            raise
        self._sock = sock

    def close(self) -> None:
        """Close the connection; a later ``cmd`` reconnects."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def _recv_exact(self, n: int) -> bytes:
        assert self._sock is not None
        buf = bytearray()
        while len(buf) < n:
            chunk = self._sock.recv(n - len(buf))
            if not chunk:
                if not buf:
                    raise ConnectionClosed(f"connection closed before {n} bytes")
                raise ProtocolError(f"connection closed after {len(buf)} of {n} bytes")
            buf += chunk
        return bytes(buf)

    def raw(
        self, *words: str, json: bool = True, timeout: float | None = None
    ) -> tuple[int, bytes]:
        """Send one request; return (status, payload) without interpreting them.

        A kept connection the daemon has closed meanwhile (its idle timeout) is
        opened again once: the request never reached the daemon."""
        with self._lock:
            for attempt in (0, 1):
                reused = self._sock is not None
                self.connect()
                assert self._sock is not None
                self._sock.settimeout(self.timeout if timeout is None else timeout)
                req_id = next(self._ids) & 0xFFFFFFFF
                try:
                    self._sock.sendall(encode_request(req_id, words, json))
                    version, _kind, resp_id, status, length = HEADER.unpack(
                        self._recv_exact(HEADER.size)
                    )
                    payload = self._recv_exact(length) if length else b""
                    break
                except (ConnectionClosed, BrokenPipeError, ConnectionResetError):
                    self.close()
                    if not reused or attempt:
                        raise
                except BaseException:
                    # The stream is in an unknown state: drop it, reconnect next time.
                    self.close()
                    raise
            if version != API_VERSION:
                self.close()
                raise ProtocolError(f"response version {version}, expected {API_VERSION}")
            if resp_id != req_id:
                self.close()
                raise ProtocolError(f"response id {resp_id}, expected {req_id}")
            return status, payload

    def cmd(self, *words: str, json: bool = True, timeout: float | None = None) -> Any:
        """Run one command; return parsed JSON (``json=True``) or text.

        Raises ApiError on a negative status, ProtocolError on bad framing,
        and socket.timeout / OSError on transport trouble.
        """
        if len(words) == 1 and " " in words[0]:
            words = tuple(words[0].split())
        status, payload = self.raw(*words, json=json, timeout=timeout)
        text = payload.rstrip(b"\0").decode(errors="replace")
        if status < 0:
            raise ApiError(status, text.strip() or " ".join(words))
        if not json:
            return text
        if not text.strip():
            return None
        return jsonlib.loads(text)

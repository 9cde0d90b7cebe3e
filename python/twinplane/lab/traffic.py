# SPDX-License-Identifier: BSD-3-Clause
"""Send and receive test traffic from inside lab namespaces.

Sockets are opened inside the namespace (``netns_context``) and then used
from the test process, so no helper process is needed. Scapy is imported
lazily; only the layer-2 helpers need it.
"""

from __future__ import annotations

import select
import socket
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from twinplane.closing import Closing
from twinplane.lab.netns import Netns, netns_context

if TYPE_CHECKING:
    from scapy.packet import Packet
    from scapy.supersocket import SuperSocket


def udp_send(
    ns: Netns,
    dst: str,
    dport: int,
    payload: bytes | Callable[[int], bytes] = b"twinplane",
    count: int = 1,
    interval: float = 0.0,
    ttl: int | None = None,
    sport: int = 0,
) -> int:
    """Send ``count`` UDP datagrams from ``ns`` to ``dst:dport``; return how many were sent.

    ``payload`` may be a function of the sequence number. ``interval`` paces
    the datagrams so a polling data plane with idle back-off is not overrun.
    """
    v6 = ":" in dst  # an IPv6 destination: an AF_INET6 socket, hop limit for ttl
    with ns.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_DGRAM) as s:
        if sport:
            s.bind(("::" if v6 else "0.0.0.0", sport))
        if ttl is not None and v6:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, ttl)
        elif ttl is not None:
            s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, ttl)
        sent = 0
        for i in range(count):
            data = payload(i) if callable(payload) else payload
            s.sendto(data, (dst, dport))
            sent += 1
            if interval:
                time.sleep(interval)
        return sent


class UdpReceiver(Closing):
    """A UDP socket bound in a namespace; collects datagrams on demand."""

    def __init__(self, ns: Netns, port: int, addr: str = "0.0.0.0") -> None:
        """``addr`` "::" or an IPv6 address: an AF_INET6 socket."""
        self.sock = ns.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.sock.bind((addr, port))
        self.sock.setblocking(False)
        self.received: list[tuple[bytes, tuple[str, int]]] = []

    def close(self) -> None:
        self.sock.close()

    def drain(self) -> int:
        """Read whatever is queued now; return the number of new datagrams."""
        n = 0
        while True:
            try:
                data, addr = self.sock.recvfrom(65535)
            except BlockingIOError:
                return n
            self.received.append((data, addr))
            n += 1

    def wait(self, count: int, timeout: float = 3.0) -> list[bytes]:
        """Wait until ``count`` datagrams in total have arrived (or timeout); all payloads."""
        deadline = time.monotonic() + timeout
        while len(self.received) < count:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            ready, _, _ = select.select([self.sock], [], [], left)
            if ready:
                self.drain()
        self.drain()
        return [d for d, _ in self.received]


class IcmpListener(Closing):
    """A raw ICMP socket in a namespace: sees every ICMP packet the host receives."""

    def __init__(self, ns: Netns) -> None:
        self.sock = ns.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)

    def close(self) -> None:
        self.sock.close()

    def wait(self, match: Callable[[bytes], bool], timeout: float = 3.0) -> bytes | None:
        """Return the first IPv4 packet (header included) for which ``match`` holds, or None."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self.sock], [], [], left)
            if not ready:
                break
            pkt = self.sock.recv(65535)
            if match(pkt):
                return pkt
        return None


def ping(ns: Netns, dst: str, count: int = 3, interval: float = 0.2, wait: float = 6.0) -> int:
    """Run ``ping`` in ``ns``; return the number of replies received. ``wait`` is long
    because a shared host can hold a reply back for seconds; it costs only when none come."""
    res = ns.run(
        [
            "ping",
            "-n",
            "-q",
            "-c",
            str(count),
            "-i",
            str(interval),
            "-W",
            str(wait),
            dst,
        ],
        check=False,
        timeout=count * interval + wait + 10,
    )
    for line in res.stdout.splitlines():
        if "received" in line:
            # "3 packets transmitted, 3 received, 0% packet loss, time 402ms"
            return int(line.split(",")[1].split()[0])
    return 0


def l2_socket(ns: Netns, iface: str) -> SuperSocket:
    """A scapy layer-2 socket on ``iface`` in ``ns`` (send with ``.send(pkt)``).

    Build frames with explicit Ether src/dst: scapy's own address look-ups
    run in the test process's namespace, not the lab's.
    """
    from scapy.arch.linux import L2Socket

    with netns_context(ns.name):
        return L2Socket(iface=iface, promisc=False)


class Sniffer(Closing):
    """A scapy AsyncSniffer on ``iface`` in ``ns``, filtered by a Python predicate.

    Use as a context manager, or ``start`` then ``wait``/``stop``. The socket
    is bound before ``start`` returns, so nothing sent afterwards is missed.
    """

    def __init__(
        self, ns: Netns, iface: str, lfilter: Callable[[Packet], bool] | None = None
    ) -> None:
        from scapy.arch.linux import L2ListenSocket
        from scapy.sendrecv import AsyncSniffer

        with netns_context(ns.name):
            self.sock = L2ListenSocket(iface=iface, promisc=False)
        self.captured: list[Packet] = []
        self._lfilter = lfilter
        self.sniffer: AsyncSniffer = AsyncSniffer(
            opened_socket=self.sock, prn=self._keep, store=False
        )

    def _keep(self, pkt: Packet) -> None:
        if self._lfilter is None or self._lfilter(pkt):
            self.captured.append(pkt)

    def _enter(self) -> None:
        self.start()

    def close(self) -> None:
        self.stop()

    def start(self) -> None:
        self.sniffer.start()

    def wait(self, count: int = 1, timeout: float = 3.0) -> list[Packet]:
        """Wait until ``count`` packets matched or ``timeout`` passed; stop; return them."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and len(self.captured) < count:
            time.sleep(0.02)
        return self.stop()

    def stop(self) -> list[Packet]:
        """Stop sniffing (idempotent) and return what matched."""
        if self.sniffer.running:
            self.sniffer.stop()
        if not self.sock.closed:
            self.sock.close()
        return list(self.captured)


PACKET_OUTGOING = 4  # sockaddr_ll.sll_pkttype of a frame the interface sends
ETH_P_ALL = 0x0003


class FrameCapture(Closing):
    """A packet socket on ``iface`` in ``ns``: every frame the interface receives, as bytes.

    Opened (and bound) in the constructor, so nothing received afterwards is
    missed; frames wait in the socket's buffer until ``frames`` reads them,
    so no thread runs meanwhile. Frames the interface sends are skipped. The
    same socket sends raw frames (``send``).
    """

    def __init__(self, ns: Netns, iface: str, rcvbuf: int = 8 << 20) -> None:
        self.sock = ns.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.bind((iface, ETH_P_ALL))
        self.sock.setblocking(False)
        self.received: list[bytes] = []

    def close(self) -> None:
        self.sock.close()

    def send(self, frame: bytes) -> None:
        self.sock.send(frame)

    def frames(self) -> list[bytes]:
        """Every frame received so far, in order."""
        while True:
            try:
                data, addr = self.sock.recvfrom(65535)
            except BlockingIOError:
                return list(self.received)
            if addr[2] != PACKET_OUTGOING:
                self.received.append(data)

# SPDX-License-Identifier: BSD-3-Clause
"""twinplane-gen's NDN consumer template and producer port: Interests written in
pcap mode and the producer's answers (a net_pcap port replaying Interests) decoded
with python-ndn, a real implementation, not our codec; satisfaction, round-trip
times and Nacks over a memif loop between a consumer port and a producer port of
one generator (no forwarder)."""

from __future__ import annotations

import hashlib
import os
import secrets
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ndn.encoding import Component, Name, parse_data, parse_interest
from ndn.encoding.ndnlp_v2 import parse_lp_packet_v2
from ndn.encoding.tlv_var import parse_tl_num
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from scapy.utils import rdpcap, wrpcap

from twinplane.bench.gen import Gen, GenError, ndn_producer_counters, ndn_results
from twinplane.lab.daemon import build_dir

GEN = build_dir() / "src" / "twinplane-gen"
NDN_MCAST = "01:00:5e:00:17:aa"
SIG_MAGIC = 0x74


def _need() -> None:
    if not GEN.exists():
        msg = f"{GEN} not built"
        if os.environ.get("CI") == "true":
            pytest.fail(msg)
        pytest.skip(msg)


def _element(buf: bytes) -> bytes:
    """The first TLV element of buf (what follows it is Ethernet padding)."""
    _, n1 = parse_tl_num(buf, 0)
    length, n2 = parse_tl_num(buf, n1)
    return bytes(buf[: n1 + n2 + length])


def _pcap_frames(tmp: Path, spec: str, count: int) -> list[bytes]:
    out = tmp / "ndn.pcap"
    res = subprocess.run(
        [str(GEN), "--pcap", str(out), "--count", str(count), "--stream", spec],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    return [bytes(p) for p in rdpcap(str(out))]


def _interest(lp_wire: bytes) -> tuple[bytes, Any, bytes]:
    """(PIT token, (name, params), Interest wire) of an LpPacket holding an Interest."""
    lp = parse_lp_packet_v2(_element(lp_wire))
    frag = bytes(lp.fragment)
    name, params, app, _ = parse_interest(frag)
    assert app is None
    return bytes(lp.pit_token), (name, params), frag


# --- the consumer's Interests, in pcap mode ---------------------------------


def test_names_structure_nonces_flags(workdir: Path) -> None:
    _need()
    spec = (
        "template ndn size 64 prefix /tp/bench streams-i 3 variants-j 12 comps 9 "
        "must-be-fresh can-be-prefix lifetime 1500 hop-limit 7 smac 02:00:00:00:00:09"
    )
    frames = _pcap_frames(workdir, spec, 3 * 12 * 2 + 5)
    length = len(frames[0])
    nonces = set()
    for n, f in enumerate(frames):
        assert len(f) == length  # every frame the same length
        eth = Ether(f)
        assert eth.dst == NDN_MCAST and eth.src == "02:00:00:00:00:09" and eth.type == 0x8624
        token, (name, p), _ = _interest(f[14:])
        # the signature rides in the PIT token: magic, trial, stream, seq (little-endian)
        assert len(token) == 12 and token[0] == SIG_MAGIC
        assert int.from_bytes(token[4:8], "little") == n
        # /tp/bench/<i>/<j>/p0/p1/p2/p3/<seq>: 9 components, j fastest, seq = round
        assert len(name) == 9
        assert Name.to_str(name[:2]) == "/tp/bench"
        i, j = n % 36 // 12, n % 12
        assert bytes(Component.get_value(name[2])) == str(i).encode()
        assert bytes(Component.get_value(name[3])) == f"{j:02d}".encode()  # zero-padded
        assert [bytes(Component.get_value(c)) for c in name[4:8]] == [b"p0", b"p1", b"p2", b"p3"]
        assert [Component.get_type(c) for c in name[2:8]] == [Component.TYPE_GENERIC] * 6
        seq = name[8]
        assert Component.get_type(seq) == 0x3A and len(Component.get_value(seq)) == 8
        assert Component.to_number(seq) == n // 36
        assert p.must_be_fresh and p.can_be_prefix
        assert p.lifetime == 1500 and p.hop_limit == 7
        nonces.add(p.nonce)
    assert len(nonces) == len(frames)  # no nonce repeats


def test_pad_components_and_defaults(workdir: Path) -> None:
    _need()
    frames = _pcap_frames(workdir, "template ndn size 64 prefix /a comps 7", 3)
    for n, f in enumerate(frames):
        _, (name, p), _ = _interest(f[14:])
        uri = Name.to_str(name[:-1])
        assert uri == "/a/0/0/p0/p1/p2"
        assert Component.to_number(name[-1]) == n
        # flags absent, lifetime and hop limit omitted unless asked
        assert not p.must_be_fresh and not p.can_be_prefix
        assert p.lifetime is None and p.hop_limit is None
    # the default: prefix /tp, exactly <i>/<j>/<seq> after it
    _, (name, _), _ = _interest(_pcap_frames(workdir, "template ndn size 64", 1)[0][14:])
    assert len(name) == 4 and Name.to_str(name[:3]) == "/tp/0/0"


def test_seq_mod_repeats_names(workdir: Path) -> None:
    _need()
    frames = _pcap_frames(workdir, "template ndn size 64 variants-j 2 seq-mod 3", 14)
    names = [Name.to_str(_interest(f[14:])[1][0]) for f in frames]
    assert names[:6] == names[6:12] and len(set(names[:6])) == 6
    nonces = [_interest(f[14:])[1][1].nonce for f in frames]
    assert len(set(nonces)) == len(nonces)  # the same names, new nonces


def test_udp_encap_and_size_minimum(workdir: Path) -> None:
    _need()
    spec = ("template ndn size 200 encap udp src 10.1.0.2 dst 10.1.0.1 sport 40000 "
            "prefix /u")  # fmt: skip
    frames = _pcap_frames(workdir, spec, 4)
    for n, f in enumerate(frames):
        assert len(f) == 196  # size is a minimum: zero padding after the datagram
        e = Ether(f)
        assert e.dst == "02:00:00:00:00:01" and e.type == 0x0800
        ip = e[IP]
        assert ip.src == "10.1.0.2" and ip.dst == "10.1.0.1" and ip.proto == 17
        assert e[UDP].sport == 40000 and e[UDP].dport == 6363
        raw_ip = f[14 : 14 + ip.len]
        q = IP(raw_ip)
        del q.chksum
        assert IP(bytes(q)).chksum == ip.chksum
        udp_payload = f[14 + 20 + 8 : 14 + ip.len]
        assert len(udp_payload) == e[UDP].len - 8
        assert not any(f[14 + ip.len :])
        token, (name, _), _ = _interest(udp_payload)
        assert int.from_bytes(token[4:8], "little") == n
        assert Name.to_str(name[:3]) == "/u/0/0"
    # a name longer than size: the name decides
    long = _pcap_frames(workdir, "template ndn size 64 comps 40", 1)[0]
    assert len(long) > 60


def test_bad_words_rejected(workdir: Path) -> None:
    _need()
    for words, msg in [
        ("comps 3 prefix /a/b", "comps 3: too few for prefix /a/b (2 components), <i>, <j> and "
         "<seq>: at least 5"),
        ("comps 65", "comps 65: at most 64"),
        ("encap tcp", "bad encap 'tcp' (eth or udp)"),
        ("src 10.0.0.1", "src, dst, sport and dport go with encap udp"),
        ("encap udp dst 10.0.0.300", "bad dst '10.0.0.300'"),
        ("prefix /a/%zz", "bad prefix '/a/%zz'"),
        ("streams-i 0", "bad streams-i '0'"),
        ("variants-j x", "bad variants-j 'x'"),
        ("hop-limit 256", "bad hop-limit '256'"),
        ("lifetime -1", "bad lifetime '-1'"),
        ("seq-mod 0", "bad seq-mod '0'"),
        ("lifetime", "'lifetime' needs a value"),
        ("fresh", "unknown ndn option 'fresh'"),
    ]:  # fmt: skip
        res = subprocess.run(
            [str(GEN), "--pcap", str(workdir / "x.pcap"), "--count", "1", "--stream",
             f"template ndn size 64 {words}"],
            capture_output=True, text=True, timeout=30, check=False,
        )  # fmt: skip
        assert res.returncode != 0 and msg in res.stderr, (words, res.stderr)


# --- the producer: answers to replayed Interests, decoded with python-ndn ------


def _interest_frames(workdir: Path) -> tuple[list[bytes], dict[str, int]]:
    """Interests for a producer: the consumer template's (LpPacket with PIT token,
    Ethernet and UDP), bare ones from python-ndn, one malformed, one not NDN."""
    from ndn.encoding import InterestParam, make_interest

    lp_eth = _pcap_frames(workdir, "template ndn size 64 prefix /p streams-i 2", 6)
    lp_udp = _pcap_frames(workdir, "template ndn size 64 encap udp prefix /q", 3)
    bare_name = Name.from_str("/bare/x/y")
    bare = bytes(make_interest(bare_name, InterestParam(must_be_fresh=True, nonce=7)))
    mac_c, mac_p = "02:00:00:00:0c:01", "02:00:00:00:0c:02"
    frames = lp_eth + lp_udp
    frames.append(bytes(Ether(src=mac_c, dst=mac_p, type=0x8624) / Raw(bare)))
    frames.append(bytes(Ether(src=mac_c, dst=mac_p) / IP(src="10.2.0.2", dst="10.2.0.1")
                        / UDP(sport=5000, dport=6363) / Raw(bare)))  # fmt: skip
    frames.append(bytes(Ether(src=mac_c, dst=mac_p, type=0x8624) / Raw(b"\x05\x02\x07\x00")))
    frames.append(bytes(Ether(src=mac_c, dst=mac_p) / IP() / UDP(dport=9) / Raw(b"x" * 30)))
    return frames, {"interests": 11, "malformed": 1}


def _producer_answers(workdir: Path, frames: list[bytes], ports: dict[str, dict[str, Any]]
                      ) -> dict[str, tuple[list[bytes], dict[str, int]]]:  # fmt: skip
    """Replay frames into one net_pcap producer port per entry of ports (port_add
    keywords); their answers and counters."""
    inp = workdir / "in.pcap"
    wrpcap(str(inp), [Ether(f) for f in frames])
    g = Gen("tgn" + secrets.token_hex(3), workdir)
    g.start()
    outs: dict[str, Path] = {}
    try:
        for k, (name, kw) in enumerate(ports.items()):
            outs[name] = workdir / f"{name}.pcap"
            g.port_add(name, f"net_pcap{k},rx_pcap={inp},tx_pcap={outs[name]}", **kw)
        deadline = time.monotonic() + 20
        while True:
            shown = g.show("ports")
            counters = {n: ndn_producer_counters(shown, n) for n in ports}
            if all(c["rx_interests"] + c["rx_malformed"] == 12 for c in counters.values()):
                break
            assert time.monotonic() < deadline, counters
            time.sleep(0.1)
    finally:
        g.stop()  # net_pcap writes its file when the port closes
    return {n: ([bytes(p) for p in rdpcap(str(outs[n]))], counters[n]) for n in ports}


def test_producer_data_decodes_and_digest_verifies(workdir: Path) -> None:
    _need()
    frames, _ = _interest_frames(workdir)
    got = _producer_answers(workdir, frames, {
        "pd": {"producer": "ndn", "payload": 300, "freshness_ms": 1000, "sign": "digest"},
        "pn": {"producer": "ndn", "payload": 40},
    })  # fmt: skip
    for port, (answers, c) in got.items():
        assert c["rx_interests"] == 11 and c["tx_data"] == 11 and c["rx_malformed"] == 1, c
        assert c["tx_nacks"] == 0 and c["drop_tx_full"] == 0 and c["drop_too_big"] == 0
        assert len(answers) == 11  # the frame that is not NDN is not answered
        for k, (q, a) in enumerate(zip(frames[:11], answers, strict=True)):
            qe, ae = Ether(q), Ether(a)
            # addresses swapped; the multicast group is no source: the port's MAC
            assert ae.dst == qe.src
            assert ae.src == (qe.dst if qe.dst != NDN_MCAST else ae.src)
            assert ae.src != NDN_MCAST and ae.type == qe.type
            if qe.type == 0x0800:
                assert (ae[IP].src, ae[IP].dst) == (qe[IP].dst, qe[IP].src)
                assert (ae[UDP].sport, ae[UDP].dport) == (qe[UDP].dport, qe[UDP].sport)
                qn, an = bytes(qe[UDP].payload), bytes(ae[UDP].payload)
                assert len(an) == ae[UDP].len - 8
            else:
                qn, an = q[14:], a[14:]
            if qn[0] == 0x64:  # an LpPacket in, an LpPacket out, the PIT token echoed
                qlp, alp = parse_lp_packet_v2(_element(qn)), parse_lp_packet_v2(_element(an))
                assert bytes(alp.pit_token) == bytes(qlp.pit_token)
                assert alp.nack is None
                qi, data = bytes(qlp.fragment), bytes(alp.fragment)
            else:  # bare in, bare out
                assert k >= 9
                qi, data = _element(qn), _element(an)
            qname = parse_interest(qi)[0]
            name, meta, content, sig = parse_data(data)
            assert Name.to_str(name) == Name.to_str(qname)
            if port == "pd":
                assert len(content) == 300 and meta.freshness_period == 1000
                assert sig.signature_info.signature_type == 0  # DigestSha256
                covered = b"".join(bytes(x) for x in sig.signature_covered_part)
                assert hashlib.sha256(covered).digest() == bytes(sig.signature_value_buf)
            else:
                assert len(content) == 40 and meta.freshness_period is None
                assert sig.signature_info.signature_type == 200  # the null signature
                assert len(sig.signature_value_buf) == 0


def test_producer_nacks(workdir: Path) -> None:
    _need()
    frames, _ = _interest_frames(workdir)
    got = _producer_answers(workdir, frames, {"pk": {"producer": "ndn", "nack": "no-route"}})
    answers, c = got["pk"]
    assert c["rx_interests"] == 11 and c["tx_nacks"] == 11 and c["tx_data"] == 0, c
    for q, a in zip(frames[:11], answers, strict=True):
        qe, ae = Ether(q), Ether(a)
        qn = bytes(qe[UDP].payload) if qe.type == 0x0800 else q[14:]
        an = bytes(ae[UDP].payload) if ae.type == 0x0800 else a[14:]
        lp = parse_lp_packet_v2(_element(an))
        assert lp.nack is not None and lp.nack.nack_reason == 150
        # the Nack carries the Interest it refuses
        qi = bytes(parse_lp_packet_v2(_element(qn)).fragment) if qn[0] == 0x64 else _element(qn)
        assert bytes(lp.fragment) == qi
        if qn[0] == 0x64:
            assert bytes(lp.pit_token) == bytes(parse_lp_packet_v2(_element(qn)).pit_token)


# --- a consumer port looped to a producer port --------------------------------


def _memif(i: int, role: str, sock: Path) -> str:
    return f"net_memif{i},role={role},id=0,socket={sock},rsize=14"


@pytest.fixture
def loop(workdir: Path) -> Iterator[Gen]:
    """Consumer ports c0 (data producer p0), c1 (congestion-Nack producer p1)."""
    _need()
    g = Gen("tgn" + secrets.token_hex(3), workdir)
    g.start()
    try:
        for k, kw in enumerate([{"payload": 100, "sign": "digest"}, {"nack": "congestion"}]):
            s = workdir / f"l{k}.sock"
            g.port_add(f"c{k}", _memif(2 * k, "server", s))
            g.port_add(f"p{k}", _memif(2 * k + 1, "client", s), producer="ndn", **kw)
        g.ndn_stream_add("n0", "c0", prefix="/loop", streams_i=4, variants_j=5, comps=7,
                         must_be_fresh=True)  # fmt: skip
        g.ndn_stream_add("u0", "c0", encap="udp", prefix="/loopu", seq_mod=10)
        g.ndn_stream_add("k1", "c1", prefix="/nack")
        g.stream_add("ip0", "c0", 64, dst="198.18.1.1")
        # the links are up once a small trial is answered in full
        deadline = time.monotonic() + 20
        while True:
            r = ndn_results(g.trial_raw("n0,k1", 10000, count=100))
            if r["n0"].satisfied == r["n0"].interests and r["k1"].nacks_total == r["k1"].interests:
                break
            assert time.monotonic() < deadline, r
        yield g
    finally:
        g.stop()


# load-sensitive (zero loss of a paced Interest stream): reruns once
@pytest.mark.flaky(reruns=1, reruns_delay=3)
def test_loop_every_interest_satisfied(loop: Gen) -> None:
    reply = loop.trial_raw("n0,u0,ip0", 100000, count=30000)
    res = ndn_results(reply)
    assert set(res) == {"n0", "u0"}  # ip4-udp streams have no satisfaction
    for name in ("n0", "u0"):
        s = res[name]
        assert abs(s.interests - 10000) <= 32 and s.satisfied == s.interests, s
        assert s.satisfaction_ratio == 1.0 and s.nacks_total == 0
        lat = s.latency_ns
        assert lat is not None and 0 < lat["min"] <= lat["p50"] <= lat["p99"] <= lat["max"]
        assert sum(n for _, n in lat["hist"]) == s.interests
    # the ip4-udp stream beside them comes back through the producer port untouched
    ip = next(s for s in reply["streams"] if s["name"] == "ip0")
    assert ip["rx"] == ip["tx"] > 9900 and ip["lost"] == 0
    t = reply["trial"]
    assert t["offered"] == 30000 and t["lost"] == 0 and t["rx_stray"] == 0
    c = ndn_producer_counters(reply, "p0")
    interests = res["n0"].interests + res["u0"].interests
    assert c["rx_interests"] == interests and c["tx_data"] == interests
    assert c["rx_malformed"] == 0 and c["drop_tx_full"] == 0


def test_loop_nacks_by_reason(loop: Gen) -> None:
    reply = loop.trial_raw("k1", 50000, count=5000)
    s = ndn_results(reply)["k1"]
    assert s.satisfied == 0 and s.satisfaction_ratio == 0.0
    assert s.nacks == {"congestion": 5000, "duplicate": 0, "no_route": 0, "other": 0}
    assert ndn_producer_counters(reply, "p1")["tx_nacks"] == 5000
    # show streams has the last trial's counts, show ports the producer's totals
    k1 = next(x for x in loop.show("streams")["streams"] if x["name"] == "k1")
    assert k1["template"] == "ndn" and k1["nacks"]["congestion"] == 5000
    p1 = ndn_producer_counters(loop.show("ports"), "p1")
    assert p1["nack"] == "congestion" and p1["tx_nacks"] >= 5000


def test_producer_bad_words(loop: Gen) -> None:
    for kw, msg in [
        ({"producer": "ccn"}, "producer: unknown kind 'ccn' (ndn)"),
        ({"payload": 10}, "payload, freshness, nack and sign go with producer ndn"),
        ({"producer": "ndn", "payload": "x"}, "payload: bad size 'x'"),
        ({"producer": "ndn", "payload": 3000}, "does not fit the generator's mbufs"),
        ({"producer": "ndn", "nack": "tired"}, "nack: bad reason 'tired'"),
        ({"producer": "ndn", "sign": "rsa"}, "sign: bad signature 'rsa' (digest or null)"),
        ({"producer": "ndn", "nack": "duplicate", "payload": 5}, "a Nack carries no payload"),
        ({"producer": "ndn", "sink": "coap"}, "a sink or a producer, not both"),
    ]:
        with pytest.raises(GenError) as e:
            loop.port_add("px", "net_null0", **kw)
        assert msg in str(e.value), (kw, str(e.value))

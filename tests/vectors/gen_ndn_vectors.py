# SPDX-License-Identifier: BSD-3-Clause
"""NDN test vectors from a real implementation (python-ndn), for tests/unit/test_ndn.c.

Writes tests/unit/ndn_vectors.h: each vector is the wire encoding python-ndn makes for
the call shown beside it. Run it again (``.venv/bin/python tests/vectors/gen_ndn_vectors.py``)
only to add vectors; the header is committed, so the build needs no Python.
"""

from __future__ import annotations

import sys
from pathlib import Path

import ndn
from ndn.encoding import (
    Component,
    InterestParam,
    MetaInfo,
    Name,
    make_data,
    make_interest,
    make_network_nack,
)
from ndn.encoding.ndnlp_v2 import LpTypeNumber, NetworkNack
from ndn.encoding.tlv_model import BytesField, ModelField, TlvModel, UintField
from ndn.security import DigestSha256Signer
from ndn.security.signer.sha256_hmac_signer import HmacSha256Signer


class LpValue(TlvModel):
    """python-ndn's LpPacket fields (ndnlp_v2.LpPacketValue) in NDNLPv2's order, with the
    Sequence it names (LpTypeNumber.SEQUENCE) but does not model."""

    sequence = BytesField(LpTypeNumber.SEQUENCE)
    frag_index = UintField(LpTypeNumber.FRAG_INDEX)
    frag_count = UintField(LpTypeNumber.FRAG_COUNT)
    pit_token = BytesField(LpTypeNumber.PIT_TOKEN)
    nack = ModelField(LpTypeNumber.NACK, NetworkNack)
    congestion_mark = UintField(LpTypeNumber.CONGESTION_MARK)
    fragment = BytesField(LpTypeNumber.FRAGMENT)


class Lp(TlvModel):
    lp_packet = ModelField(LpTypeNumber.LP_PACKET, LpValue)


def lp(**fields: object) -> bytes:
    v = LpValue()
    for k, val in fields.items():
        setattr(v, k, val)
    p = Lp()
    p.lp_packet = v
    return bytes(p.encode())


VECTORS: list[tuple[str, str, bytes]] = []


def add(name: str, how: str, wire: bytes | bytearray | memoryview) -> None:
    VECTORS.append((name, how, bytes(wire)))


i1 = make_interest(Name.from_str("/a/b"), InterestParam(can_be_prefix=True, must_be_fresh=True,
                   nonce=0x01020304, lifetime=4000, hop_limit=32))  # fmt: skip
add("interest_flags", "make_interest('/a/b', CanBePrefix, MustBeFresh, nonce 0x01020304, "
    "lifetime 4000, hop_limit 32)", i1)  # fmt: skip
add("interest_params", "make_interest('/ndn/seg=3/v=7', nonce 0xa1b2c3d4, lifetime 2000, "
    "app_param b'hello')",
    make_interest(Name.from_str("/ndn/seg=3/v=7"), InterestParam(nonce=0xA1B2C3D4, lifetime=2000),
                  app_param=b"hello"))  # fmt: skip
add("interest_signed", "make_interest('/cmd/x', nonce 7, lifetime 1000, app_param b'', "
    "signer DigestSha256Signer)",
    make_interest(Name.from_str("/cmd/x"), InterestParam(nonce=7, lifetime=1000), app_param=b"",
                  signer=DigestSha256Signer()))  # fmt: skip
add("interest_long_name", "make_interest(a name of 20 generic components, nonce 1, lifetime 4000)",
    make_interest(Name.from_str("/" + "/".join(f"c{k}" for k in range(20))),
                  InterestParam(nonce=1, lifetime=4000)))  # fmt: skip
add("data_plain", "make_data('/a/b/c', MetaInfo(freshness_period=1000), b'hello', "
    "DigestSha256Signer)",
    make_data(Name.from_str("/a/b/c"), MetaInfo(freshness_period=1000), b"hello",
              signer=DigestSha256Signer()))  # fmt: skip
add("data_final_block", "make_data('/obj/v=3/seg=9', MetaInfo(content_type=0, freshness_period=0, "
    "final_block_id=seg=9), 300 bytes, DigestSha256Signer)",
    make_data(Name.from_str("/obj/v=3/seg=9"),
              MetaInfo(content_type=0, freshness_period=0,
                       final_block_id=Component.from_segment(9)),
              bytes(range(256)) + bytes(44), signer=DigestSha256Signer()))  # fmt: skip
add("nack_no_route", "make_network_nack(interest_flags, 150)", make_network_nack(i1, 150))
add("lp_pit_token", "LpPacket(pit_token=0102030405060708, fragment=interest_flags)",
    lp(pit_token=bytes.fromhex("0102030405060708"), fragment=bytes(i1)))  # fmt: skip
half = len(bytes(i1)) // 2
add("lp_frag0", "LpPacket(sequence=1000 (8 bytes), frag_index=0, frag_count=2, "
    "fragment=interest_flags[:half])",
    lp(sequence=(1000).to_bytes(8, "big"), frag_index=0, frag_count=2,
       fragment=bytes(i1)[:half]))  # fmt: skip
add("lp_frag1", "LpPacket(sequence=1001, frag_index=1, frag_count=2, "
    "fragment=interest_flags[half:])",
    lp(sequence=(1001).to_bytes(8, "big"), frag_index=1, frag_count=2,
       fragment=bytes(i1)[half:]))  # fmt: skip
add("lp_congestion", "LpPacket(congestion_mark=1, fragment=data_plain)",
    lp(congestion_mark=1, fragment=bytes(VECTORS[4][2])))  # fmt: skip
# (python-ndn writes period-only components as they are; the NDN URI scheme of ndn-cxx,
# which this project follows, adds three periods: that rule is tested apart)
NAMES = ["/a%20b/-._~/c%2Fd", "/seg=0/off=1024/v=1700000000/t=5/seq=42", "/8=x/32=kw/a%2Fb"]
for k, uri in enumerate(NAMES):
    add(f"name_{k}", f"Name.to_bytes(Name.from_str({uri!r})) (its TLV-VALUE: the Name's "
        f"components); to_str gives {Name.to_str(Name.from_str(uri))!r}",
        b"".join(bytes(c) for c in Name.from_str(uri)))  # fmt: skip


class TimedHmacSigner(HmacSha256Signer):
    """HMAC-SHA256 (SignatureHmacWithSha256) with a SignatureTime, as an NFD command
    Interest carries it (NDN 0.3 section 3.2)."""

    def __init__(self, key_name: str, key: bytes, time_ms: int) -> None:
        super().__init__(key_name, key)
        self.time_ms = time_ms

    def write_signature_info(self, signature_info: object) -> None:
        super().write_signature_info(signature_info)
        signature_info.signature_time = self.time_ms  # type: ignore[attr-defined]


add("interest_hmac", "make_interest('/localhop/nfd/rib/register', nonce 7, lifetime 1000, "
    "app_param b'', signer HmacSha256Signer('/tp/key', bytes(range(32))) with "
    "SignatureTime 1700000000000)",
    make_interest(Name.from_str("/localhop/nfd/rib/register"),
                  InterestParam(nonce=7, lifetime=1000), app_param=b"",
                  signer=TimedHmacSigner("/tp/key", bytes(range(32)), 1700000000000)))  # fmt: skip


def main() -> None:
    out = Path(__file__).resolve().parents[1] / "unit" / "ndn_vectors.h"
    lines = [
        "/* SPDX-License-Identifier: BSD-3-Clause */",
        f"/* NDN wire vectors made by python-ndn {ndn.__version__} "
        "(tests/vectors/gen_ndn_vectors.py): do not edit. */",
        "#ifndef TP_TEST_NDN_VECTORS_H", "#define TP_TEST_NDN_VECTORS_H", "",
        "/* generated data, laid out by the generator */", "/* clang-format off */", "",
        "#include <stdint.h>", "",
    ]  # fmt: skip
    for name, how, wire in VECTORS:
        lines.append(f"/* {how} */")
        lines.append(f"static const uint8_t v_{name}[{len(wire)}] = {{")
        for i in range(0, len(wire), 12):
            lines.append("\t" + " ".join(f"0x{b:02x}," for b in wire[i : i + 12]))
        lines.append("};")
    uris = ", ".join('"' + Name.to_str(Name.from_str(u)) + '"' for u in NAMES)
    lines += [
        "",
        "/* Name.to_str of name_0.. */",
        f"static const char *const v_name_uri[] = {{{uris}}};",
    ]
    lines += ["", "/* clang-format on */", "", "#endif", ""]
    out.write_text("\n".join(lines))
    print(f"{out}: {len(VECTORS)} vectors", file=sys.stderr)
    seeds = Path(__file__).resolve().parents[1] / "fuzz" / "ndn_seeds.txt"
    rows = [
        "# Seed inputs for tests/fuzz/fuzz_ndn.c: the NDN vectors of tests/unit/ndn_vectors.h",
        "# (python-ndn; tests/vectors/gen_ndn_vectors.py), one a line: name and hex.",
    ]
    rows += [f"{name} {wire.hex()}" for name, _, wire in VECTORS if not name.startswith("name_")]
    seeds.write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()

# SPDX-License-Identifier: BSD-3-Clause
"""phd-decode fed whole sessions, one APDU per line, as a person with a capture would.

The APDUs are the IEEE 11073-20601 Annex H and 104xx example APDUs as the
open-source Antidote stack keeps them (signove/antidote,
tests/resources/apdu/<file>, named with each); no daemon, no lab.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from twinplane.lab.daemon import build_dir

PHD_DECODE = build_dir() / "src" / "phd-decode"

# H211_ID_02BC (AARQ, 10407 config 0x02BC), H212 (AARE), H233_ID_02BC (GET answer),
# H241_ID_02BC (scan report: 120/80/100 mmHg, 60 bpm)
BP_SESSION = [
    "e2000032800000000001002a5079002680000000a00080000000400000000080000000081122334455667707"
    "02bc8480010100000000",
    "e300002c00035079002680000000800080000000000000008000000000081122334455667788000000000000"
    "00000000",
    "e700006c006a00240203006400000006005e0a5a0008000100041007000109280018000a546865436f6d7061"
    "6e79000a54686542504d204142430984000a000811223344556677070a44000202bc092d00120001000e0001"
    "000000084445313234353637098700082007020112050000",
    "e700003e003c0054010100360000004900500d1d002cf000000000020024000100120003000600780050006420"
    "071206121000000002000af2582007120612100000",
]
# H211 (AARQ, extended config 0x4000), H221 (its configuration report), H241 (a report)
EXT_SESSION = [
    "e2000032800000000001002a5079002680000000a00080000000000000000080000000088877665544332211"
    "40000081010100000000",
    "e7000070006e4321010100680000000000000d1c005e4000000200580006000100040024092f00040002e140"
    "0a460002d0400996000206c30a55000c000200080a560004099000080006000200040024092f00040002e14c"
    "0a460002d0420996000202200a55000c000200080a56000409900008",
    "e700003a00384321010100320000000000000d1d0028f0000000000200200001000cff000270200702011210"
    "00000002000cff0001002007020112100000",
]


def decode(lines: list[str]) -> tuple[int, list[dict[str, Any]]]:
    if not PHD_DECODE.exists():
        pytest.skip(f"{PHD_DECODE} not built")
    res = subprocess.run(
        [str(PHD_DECODE)], input="\n".join(lines) + "\n", capture_output=True, text=True,
        timeout=30, check=False,
    )  # fmt: skip
    # every line is valid JSON (strict: no NaN or Infinity literals)
    docs = [
        json.loads(ln, parse_constant=lambda c: pytest.fail(f"non-JSON {c}"))
        for ln in res.stdout.splitlines()
    ]
    return res.returncode, docs


def observations(doc: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = doc["message"]["scan_report"]["observations"]
    return out


def test_session_with_standard_configuration() -> None:
    rc, docs = decode(BP_SESSION)
    assert rc == 0 and len(docs) == 4
    assert docs[0]["standard_config"] == "IEEE 11073-10407 blood pressure monitor"
    get = docs[2]["message"]["attributes"]
    model = next(a for a in get if a.get("type") == "SystemModel")
    assert (model["manufacturer"], model["model_number"]) == ("TheCompany", "TheBPM ABC")
    report = docs[3]["message"]["scan_report"]
    assert report["config_used"] == "0x02bc"
    bp, pulse = observations(docs[3])
    assert bp["label"] == "blood-pressure"
    comps = bp["attributes"][0]["components"]
    assert [(c["label"], c["value"]) for c in comps] == [
        ("systolic", 120), ("diastolic", 80), ("mean-arterial-pressure", 100),
    ]  # fmt: skip
    assert bp["attributes"][1]["value"] == "2007-12-06T12:10:00.00"
    assert pulse["label"] == "pulse-rate" and pulse["attributes"][0]["value"] == 60


def test_session_with_extended_configuration() -> None:
    rc, docs = decode(EXT_SESSION)
    assert rc == 0 and "standard_config" not in docs[0]
    assert docs[2]["message"]["scan_report"]["config_used"] == "0x4000"
    weight, fat = observations(docs[2])
    assert weight["label"] == "body-weight" and weight["attributes"][0]["value"] == 62.4
    assert fat["label"] == "body-fat" and fat["attributes"][0]["value"] == 25.6
    # the same report after a session announcing 0x02BC: a clear error, not a guess
    rc, docs = decode([BP_SESSION[0], EXT_SESSION[2]])
    assert rc == 1 and docs[1]["code"] == "MAP_MISMATCH" and docs[1]["config_used"] == "0x02bc"


def test_special_values_and_unset_times_are_valid_json() -> None:
    report = bytearray(bytes.fromhex(BP_SESSION[3]))
    report[38:44] = bytes.fromhex("07ff080007fe")  # NaN, NRes, +INF
    report[44:52] = bytes(8)  # time stamp unset
    report[56:58] = bytes.fromhex("0802")  # pulse rate -INF
    rc, docs = decode([BP_SESSION[0], report.hex()])
    assert rc == 0
    bp, pulse = observations(docs[1])
    comps = bp["attributes"][0]["components"]
    assert [(c["value"], c["special"]) for c in comps] == [
        (None, "NaN"), (None, "NRes"), (None, "+INF"),
    ]  # fmt: skip
    assert bp["attributes"][0]["value"] == [
        {"value": None, "special": "NaN"},
        {"value": None, "special": "NRes"},
        {"value": None, "special": "+INF"},
    ]
    stamp = bp["attributes"][1]
    assert stamp["unset"] is True and stamp["time_source"] == "receive"
    assert len(stamp["value"]) == len("2007-12-06T12:10:00.00")
    assert pulse["attributes"][0]["value"] is None
    assert pulse["attributes"][0]["special"] == "-INF"


# H211_ID_05DC (AARQ, 10415 weighing scale, standard config 0x05DC: body weight, handle
# 1, only) and H241_ID_05DC, whose report also observes BMI under handle 3, which that
# configuration does not declare
WS_SESSION = [
    "e2000032800000000001002a5079002680000000a0008000000040000000008000000008112233445566"
    "778805dc0001010000000000",
    "e700005a00581236010100520000000000000d1d0048f0000000000400400001000cff0002fa20071206"
    "121000000003000cff0000f320071206121000000001000cff0002f820071206200500000003000cff00"
    "00f22007120620050000",
]


def test_undeclared_handle_is_listed_not_fatal() -> None:
    """A report naming an object the configuration does not declare: the declared
    observations are decoded, the unknown handle listed with its raw bytes, exit 0."""
    rc, docs = decode(WS_SESSION)
    assert rc == 0 and len(docs) == 2
    report = docs[1]["message"]["scan_report"]
    assert report["config_used"] == "0x05dc"
    assert report["undeclared_handles"] == [3]
    obs = observations(docs[1])
    weights = [o for o in obs if o["obj_handle"] == 1]
    assert [o["label"] for o in weights] == ["body-weight", "body-weight"]
    assert [(o["attributes"][0]["value"], o["attributes"][0]["unit"]) for o in weights] == [
        (76.2, "kg"), (76.0, "kg"),
    ]  # fmt: skip
    assert [o["attributes"][1]["value"] for o in weights] == [
        "2007-12-06T12:10:00.00", "2007-12-06T20:05:00.00",
    ]  # fmt: skip
    bmi = [o for o in obs if o["obj_handle"] == 3]
    assert [(o.get("undeclared"), o["obs_val_data"]) for o in bmi] == [
        (True, "ff0000f32007120612100000"), (True, "ff0000f22007120620050000"),
    ]  # fmt: skip
    assert all("attributes" not in o for o in bmi)


def test_nul_bytes_and_empty_arguments_are_errors() -> None:
    """Review F13: a line with a NUL byte was decoded up to it (strlen), the rest unseen;
    an empty or blank argument was skipped in silence. Both are errors now, naming the
    line or the argument; the APDUs around them still decode (exit 1)."""
    if not PHD_DECODE.exists():
        pytest.skip(f"{PHD_DECODE} not built")
    aare = BP_SESSION[1]
    # the AARE with a NUL after its first 4 digits: the tail would have gone unseen
    stdin = f"# a comment\n\n{aare}\n{aare[:4]}\0{aare[4:]}\n{aare}\n".encode()
    res = subprocess.run([str(PHD_DECODE)], input=stdin, capture_output=True, timeout=30,
                         check=False)  # fmt: skip
    docs = [json.loads(ln) for ln in res.stdout.decode().splitlines()]
    assert res.returncode == 1
    assert len(docs) == 3
    assert "error" not in docs[0] and "error" not in docs[2]
    assert docs[1] == {"error": "line 4: a NUL byte at character 4", "code": "HEX", "offset": 4}
    res = subprocess.run([str(PHD_DECODE), aare, "", " \t", "# only a comment", aare],
                         capture_output=True, text=True, timeout=30, check=False)  # fmt: skip
    docs = [json.loads(ln) for ln in res.stdout.splitlines()]
    assert res.returncode == 1
    assert [d.get("error") for d in docs] == [
        None,
        "argument 2 is empty: no APDU",
        "argument 3 is blank: no APDU",
        "argument 4 is blank: no APDU",
        None,
    ]
    # blank lines and comments on stdin are still skipped: exit 0
    assert decode(["", "# c", aare, "   "])[0] == 0

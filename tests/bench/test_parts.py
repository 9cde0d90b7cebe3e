# SPDX-License-Identifier: BSD-3-Clause
"""A report merged from parts: what must match, what is kept (report.load_parts,
report.merged_report, bench/rfc2544_ip4.py's merge)."""

import importlib.util
import json
from pathlib import Path

import pytest

from twinplane.bench import report

ROOT = Path(__file__).resolve().parents[2]
RULES = {"goal (every search)": "loss 0", "pairs": "10", "sizes / wires": "64 B on memif"}


def part(tmp_path, name, **over):
    doc = {"tree": "abc1234", "date": "2026-11-29T10:00:00Z", "argv": ["--wires", name],
           "machine": {"nproc": 2}, "tsc_hz": 2.445e9, "isolation": None,
           "rules": dict(RULES), "headline": {}, "bars": {}, "trials": [{"part": name}],
           "ndr_searches": {}, "cost_rounds": [], "errors": [],
           "goal": {"loss_ratio": 0.0}}  # fmt: skip
    doc.update(over)
    p = tmp_path / f"{name}.json"
    p.write_text(json.dumps(doc))
    return p


def test_parts_must_share_a_clean_tree_rules_and_host(tmp_path):
    a = part(tmp_path, "a")
    vary = {"sizes / wires"}
    b = part(tmp_path, "b", rules={**RULES, "sizes / wires": "64 B on veth"})
    assert len(report.load_parts("demo", [a, b], vary)) == 2  # the varying rule may differ
    with pytest.raises(report.PartsError, match="not on one line of history"):
        report.load_parts("demo", [a, part(tmp_path, "c", tree="def5678")], vary)
    with pytest.raises(report.PartsError, match="clean"):
        report.load_parts("demo", [part(tmp_path, "d", tree="abc1234-dirty")] * 2, vary)
    with pytest.raises(report.PartsError, match="rules differ.*pairs"):
        report.load_parts("demo", [a, part(tmp_path, "e", rules={**RULES, "pairs": "5"})], vary)
    with pytest.raises(report.PartsError, match="another host"):
        report.load_parts("demo", [a, part(tmp_path, "f", tsc_hz=2.596e9)], vary)
    with pytest.raises(report.PartsError, match="at least two"):
        report.load_parts("demo", [a], vary)


def test_merged_report_keeps_the_parts_tree_and_every_trial(tmp_path):
    b = part(tmp_path, "b", rules={**RULES, "sizes / wires": "64 B on veth"},
             date="2026-11-30T09:00:00Z")  # fmt: skip
    paths = [part(tmp_path, "a"), b]
    docs = report.load_parts("demo", paths, {"sizes / wires"})
    rep = report.merged_report("demo", paths, docs, {"sizes / wires"})
    doc = json.loads(rep.write(tmp_path / "out", None, ["--merge", "a", "b"]).read_text())
    assert doc["tree"] == "abc1234" and doc["date"] == "2026-11-30T09:00:00Z"
    assert doc["tsc_hz"] == 2.445e9 and doc["machine"] == {"nproc": 2}
    assert doc["rules"]["sizes / wires"] == "64 B on memif; 64 B on veth"
    assert doc["trials"] == [{"part": "a"}, {"part": "b"}]
    assert [p["argv"] for p in doc["parts"]] == [["--wires", "a"], ["--wires", "b"]]


def side(ndr, placement="near"):
    return {"ndr_pps": ndr, "placement": placement, "at_ceiling": False, "gen_reach_pps": 9e6}


def searches(wire, size, ratios):
    runs = []
    for i, r in enumerate(ratios):
        order = ["l3fwd", "twinplane"] if i % 2 else ["twinplane", "l3fwd"]
        runs.append({"index": i, "order": order, "l3fwd": side(1e6), "twinplane": side(1e6 * r)})
    return {f"{wire}_{size}": runs}


def test_rfc2544_merge_puts_the_parts_searches_side_by_side(tmp_path):
    spec = importlib.util.spec_from_file_location("rfc2544_ip4", ROOT / "bench/rfc2544_ip4.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    memif = part(tmp_path, "memif", ndr_searches=searches("memif", 64, [1.1] * 5 + [1.2] * 5))
    veth = part(tmp_path, "veth", rules={**RULES, "sizes / wires": "64 B on veth"},
                ndr_searches=searches("veth", 64, [0.9] * 10))  # fmt: skip
    rep = mod.merge([memif, veth])
    h = rep.headline
    assert h["ndr_twinplane_over_l3fwd_memif_64"]["pairs"] == 10
    assert h["ndr_twinplane_over_l3fwd_memif_64"]["ratio"] == pytest.approx(1.15)
    assert h["ndr_twinplane_over_l3fwd_veth_64"]["ratio"] == pytest.approx(0.9)
    assert set(rep.extra["ndr_searches"]) == {"memif_64", "veth_64"}
    again = part(tmp_path, "again", ndr_searches=searches("memif", 64, [1.0] * 10))
    with pytest.raises(report.PartsError, match="memif_64 is in another part"):
        mod.merge([memif, again])


def test_parts_of_two_trees_merge_when_their_code_is_the_same(tmp_path):
    from test_stale import commit, git

    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q")
    c1 = commit(repo, "src/nf/ip4/forward.c", "a", "code")
    c2 = commit(repo, "docs/results/fwd_cost.json", "{}", "a report between two parts")
    c3 = commit(repo, "src/nf/ip4/forward.c", "b", "the code changes")
    name, vary = "rfc2544_ip4", {"sizes / wires"}
    paths = [part(tmp_path, "a", tree=c1), part(tmp_path, "b", tree=c2)]
    docs = report.load_parts(name, paths, vary, repo)
    assert report.merged_report(name, paths, docs, vary, repo).tree == c2  # the newest
    with pytest.raises(report.PartsError, match="1 measured files changed.*forward.c"):
        report.load_parts(name, [paths[0], part(tmp_path, "c", tree=c3)], vary, repo)
    with pytest.raises(report.PartsError, match="no measured paths known"):
        report.load_parts("demo", paths, vary, repo)

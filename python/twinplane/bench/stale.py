# SPDX-License-Identifier: BSD-3-Clause
"""Which benchmark reports no longer describe the code: the stale-report check.

Each ``docs/results/<name>.json`` names the commit it measured (``tree``; older
reports say ``git`` or ``commit``, maybe with ``-dirty``) and may list its
measured paths (``measured_paths``: the DUT's sources, the generator, the bench
library and its script); for the older reports the paths come from
``DEFAULT_PATHS`` below. Of the bench library, only the modules the report's
script imports (directly or through each other) count. A report is

- ``broken`` when it names no commit, or one that is not an ancestor of HEAD
  (the figures were measured on a tree that main never had): the check fails;
- ``stale`` when a measured path changed between its commit and HEAD, or it
  was measured on a dirty tree: listed, and a failure with ``--strict``;
- ``fresh`` otherwise.

Run as ``python -m twinplane.bench.stale [--strict] [--results DIR]``; the test
command runs it (without ``--strict`` until every report has been re-run with
the paired method, issue 34).
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# what the common parts of every data-plane measurement are
_COMMON = [
    "src/core",
    "src/control",
    "src/tables",
    "src/proto",
    "src/gen",
    "python/twinplane/bench",
]

DEFAULT_PATHS: dict[str, list[str]] = {
    "fwd_cost": [
        *_COMMON,
        "src/nf/ip4",
        "src/nf/ip6",
        "bench/fwd_cost.py",
        "scripts/build-l3fwd.sh",
    ],
    "rfc2544_ip4": [*_COMMON, "src/nf/ip4", "bench/rfc2544_ip4.py"],
    "rfc2544_ip6": [
        *_COMMON,
        "src/nf/ip4",
        "src/nf/ip6",
        "bench/rfc2544_ip4.py",
        "bench/rfc2544_ip6.py",
    ],
    "ndn": [*_COMMON, "src/nf/ndn", "bench/ndn.py"],
    "ndn-ab": [*_COMMON, "src/nf/ndn", "bench/ndn_ab.py"],
    "ndn_ab": [*_COMMON, "src/nf/ndn", "bench/ndn_ab.py"],
    "iotgw": [*_COMMON, "src/nf/iotgw", "src/nf/ip4", "src/tools", "bench/iotgw.py"],
    "l2": [*_COMMON, "src/nf/l2", "src/tools/twinplane-nf.c", "bench/l2.py"],
    "fetch": [
        "src/fetch",
        "src/proto",
        "src/core/eal.c",
        "src/core/ethdev.c",
        "python/twinplane/bench",
        "python/twinplane/lab/fetch.py",
        "bench/fetch.py",
    ],
    "model": [*_COMMON, "src/model", "src/nf/ndn", "python/twinplane/model", "bench/model.py"],
    # the routers' data plane and the network the lab builds (FRR's configuration)
    "failover": [*_COMMON, "src/nf/ip4", "python/twinplane/lab/routed.py", "bench/failover.py"],
}


LIBRARY = "python/twinplane/bench"


def library_closure(repo: Path, script: str) -> list[str]:
    """The bench library's modules a script imports, directly or through each other
    (as they are in the work tree): the part of the library its figures depend on.
    A module another script alone uses, or this check itself, is not in it."""
    todo, seen = [script], {f"{LIBRARY}/__init__.py"}
    while todo:
        try:
            tree = ast.parse((repo / todo.pop()).read_text())
        except (OSError, SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            mods: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module == "twinplane.bench":
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                mods = [node.module.removeprefix("twinplane.bench.")]
                if mods[0] == node.module:
                    mods = []
            elif isinstance(node, ast.Import):
                mods = [
                    a.name.removeprefix("twinplane.bench.")
                    for a in node.names
                    if a.name.startswith("twinplane.bench.")
                ]
            for m in mods:
                path = f"{LIBRARY}/{m}.py"
                if m != "stale" and path not in seen and (repo / path).is_file():
                    seen.add(path)
                    todo.append(path)
    return sorted(seen)


def expand_library(repo: Path, paths: list[str]) -> list[str]:
    """Measured paths with the whole library replaced by what the report's scripts
    (``bench/*.py`` among the paths) import of it; unchanged without a script."""
    scripts = [p for p in paths if p.startswith("bench/") and p.endswith(".py")]
    if not scripts or LIBRARY not in (p.rstrip("/") for p in paths):
        return paths
    out = [p for p in paths if p.rstrip("/") != LIBRARY]
    for s in scripts:
        out += [m for m in library_closure(repo, s) if m not in out]
    return out


def default_paths(name: str) -> list[str] | None:
    """The measured paths of a report without ``measured_paths``: by its name,
    or the longest known prefix of it (``ndn-ab-keyed-hash`` is an ``ndn-ab``)."""
    best = None
    for key in DEFAULT_PATHS:
        if (name == key or name.startswith(key + "-")) and (best is None or len(key) > len(best)):
            best = key
    return DEFAULT_PATHS[best] if best else None


def report_tree(doc: dict[str, Any]) -> str | None:
    """The commit a report measured, as it wrote it (``abc1234`` or
    ``abc1234-dirty``), or None."""
    for key in ("tree", "git", "commit"):
        v = doc.get(key)
        if isinstance(v, dict):
            v = v.get("commit") or v.get("rev") or v.get("tree")
        if isinstance(v, str) and v:
            return v
    meta = doc.get("meta")
    if isinstance(meta, dict):
        return report_tree(meta)
    return None


@dataclass
class Status:
    name: str
    tree: str | None
    state: str  # fresh, stale, broken
    why: str = ""
    changed: list[str] = field(default_factory=list)


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False
    )


def check_report(repo: Path, path: Path) -> Status:
    name = path.stem
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        return Status(name, None, "broken", f"unreadable: {e}")
    raw = report_tree(doc) if isinstance(doc, dict) else None
    if not raw:
        return Status(name, None, "broken", "names no commit (tree)")
    commit, dirty = raw.removesuffix("-dirty"), raw.endswith("-dirty")
    if _git(repo, "cat-file", "-e", commit + "^{commit}").returncode != 0:
        return Status(name, raw, "broken", f"commit {commit} is not in this repository")
    if _git(repo, "merge-base", "--is-ancestor", commit, "HEAD").returncode != 0:
        return Status(name, raw, "broken", f"commit {commit} is not an ancestor of HEAD")
    paths = doc.get("measured_paths") or default_paths(name)
    if not paths:
        return Status(name, raw, "broken", "no measured_paths and no default for this name")
    paths = expand_library(repo, paths)
    diff = _git(repo, "diff", "--name-only", commit, "HEAD", "--", *paths)
    changed = [x for x in diff.stdout.splitlines() if x]
    if changed:
        why = f"{len(changed)} measured files changed since {commit}"
        return Status(name, raw, "stale", why, changed)
    if dirty:
        return Status(name, raw, "stale", "measured on a dirty tree")
    return Status(name, raw, "fresh")


def measured_changes(repo: Path, name: str, a: str, b: str) -> list[str] | None:
    """The files a report called ``name`` measures (its default paths, the library
    expanded as for the check) that changed between commits ``a`` and ``b``; None
    when the name has no default paths."""
    paths = default_paths(name)
    if not paths:
        return None
    diff = _git(repo, "diff", "--name-only", a, b, "--", *expand_library(repo, paths))
    return [x for x in diff.stdout.splitlines() if x]


def check_all(repo: Path, results: Path) -> list[Status]:
    return [check_report(repo, p) for p in sorted(results.glob("*.json"))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[3])
    ap.add_argument("--results", type=Path, default=None, help="default: REPO/docs/results")
    ap.add_argument("--strict", action="store_true", help="a stale report fails too")
    ap.add_argument("-v", "--verbose", action="store_true", help="list the changed files")
    a = ap.parse_args(argv)
    results = a.results or a.repo / "docs" / "results"
    shallow = _git(a.repo, "rev-parse", "--is-shallow-repository").stdout.strip() == "true"
    if shallow:
        print("stale reports: not checked, the clone is shallow (its history is cut)")
        return 0
    statuses = check_all(a.repo, results)
    for s in statuses:
        print(f"{s.state:6} {s.name}: {s.tree or '-'}{' (' + s.why + ')' if s.why else ''}")
        if a.verbose:
            for c in s.changed:
                print(f"         {c}")
    n = {k: sum(s.state == k for s in statuses) for k in ("fresh", "stale", "broken")}
    print(f"stale reports: {n['fresh']} fresh, {n['stale']} stale, {n['broken']} broken")
    bad = n["broken"] + (n["stale"] if a.strict else 0)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Re-run the stale benchmark reports on a quiet host, one after another (root).

Each report is written to build/rerun/<name>; when its run succeeds it is copied into
docs/results and committed at once, so the next run starts from a clean tree (a
report copied but not committed would make every later run's tree ``-dirty``).
The RFC 2544 reports run in parts (build/rerun/<report>/<part>); a part whose
measured code is still HEAD's is kept, so a later sitting runs only the missing
parts, and the report is merged when every part is there.

    scripts/rerun-reports.py --dry-run             # what would run, and how long
    scripts/rerun-reports.py --budget 170          # what fits in 170 minutes
    scripts/rerun-reports.py fwd_cost ndn          # these, if stale
    scripts/rerun-reports.py rfc2544_ip6           # its parts not run yet, then the merge

Nothing else may run on the machine meanwhile (no builds, no tests, no helpers):
the reports' rules assume a quiet host.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from twinplane.bench import stale  # noqa: E402

PY = str(ROOT / ".venv" / "bin" / "python")
# report -> (expected minutes on this 2-vCPU host, its command's arguments)
RUNS: dict[str, tuple[int, list[str]]] = {
    "fwd_cost": (6, ["bench/fwd_cost.py"]),
    "fetch": (12, ["bench/fetch.py"]),
    "model": (40, ["bench/model.py"]),
    "ndn": (40, ["bench/ndn.py"]),
    "iotgw": (50, ["bench/iotgw.py"]),
    "l2": (70, ["bench/l2.py"]),
    "failover": (25, ["bench/failover.py"]),
}
# report -> its parts: part -> (expected minutes, arguments of bench/<report>.py)
PARTS: dict[str, dict[str, tuple[int, list[str]]]] = {
    "rfc2544_ip4": {
        "cost": (6, ["--no-ndr"]),
        "memif": (120, ["--no-cost", "--wires", "memif"]),
        "veth1": (75, ["--no-cost", "--wires", "veth", "--sizes", "64,128,256,512"]),
        "veth2": (60, ["--no-cost", "--wires", "veth", "--sizes", "1024,1280,1518"]),
    },
    "rfc2544_ip6": {
        "memif78": (12, ["--wires", "memif", "--sizes", "78"]),
        "memif-large": (65, ["--wires", "memif", "--sizes", "128,256,512,1024,1280,1518"]),
        "veth1": (55, ["--wires", "veth", "--sizes", "78,128,256,512"]),
        "veth2": (45, ["--wires", "veth", "--sizes", "1024,1280,1518"]),
    },
}
OUT = ROOT / "build" / "rerun"


def git(*args: str) -> str:
    r = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True)
    return r.stdout.strip()


def clean() -> bool:
    return not git("status", "--porcelain", "--untracked-files=no")


def part_done(name: str, part: str) -> bool:
    """A part already run on HEAD's measured code."""
    path = OUT / name / part / f"{name}.json"
    if not path.is_file():
        return False
    tree = str(json.loads(path.read_text()).get("tree", ""))
    if not tree or tree.endswith("-dirty"):
        return False
    return stale.measured_changes(ROOT, name, tree, "HEAD") == []


def run(args: list[str], log: Path) -> bool:
    print(f"$ {' '.join(args)}  (log {log})", flush=True)
    with log.open("w") as f:
        rc = subprocess.run([PY, *args], cwd=ROOT, stdout=f, stderr=subprocess.STDOUT).returncode
    print(f"  exit {rc}; " + " | ".join(log.read_text().splitlines()[-3:]), flush=True)
    return rc == 0


def publish(name: str, src: Path) -> None:
    """Copy a report into docs/results and commit it with its headline."""
    files = sorted(src.glob(f"{name}.*"))
    for f in files:
        shutil.copy2(f, ROOT / "docs" / "results" / f.name)
    doc = json.loads((src / f"{name}.json").read_text())
    lines = [f"{k}: {v.get('ratio', v.get('value'))} {v.get('ci95', '')}".rstrip()
             for k, v in doc.get("headline", {}).items()]  # fmt: skip
    git("add", *[f"docs/results/{f.name}" for f in files])
    body = "\n".join(lines) or "(no headline)"
    git("commit", "-q", "-m", f"docs/results: {name} re-run at {doc['tree']}\n\n{body}")
    print(f"  committed {name} ({git('log', '--oneline', '-1')})", flush=True)


def plan_for(names: list[str]) -> list[tuple[str, int, list[str]]]:
    """(step, expected minutes, command) for every stale report among ``names``
    (all when empty); a report in parts: its parts still missing, then its merge."""
    todo = [s.name for s in stale.check_all(ROOT, ROOT / "docs" / "results") if s.state != "fresh"]
    # a report in parts named here runs its missing parts even when fresh (a merge of
    # fewer parts than it has, decision 0116)
    todo += [n for n in names if n in PARTS and n not in todo]
    plan: list[tuple[str, int, list[str]]] = []
    for name in (n for n in todo if not names or n in names):
        if name in PARTS:
            for p, (m, args) in PARTS[name].items():
                if not part_done(name, p):
                    out = str(OUT / name / p)
                    plan.append((f"{name}:{p}", m, [f"bench/{name}.py", *args, "--out", out]))
            plan.append((f"{name}:merge", 1, []))
        elif name in RUNS:
            m, args = RUNS[name]
            plan.append((name, m, [*args, "--out", str(OUT / name)]))
        else:
            print(f"{name}: stale, and no command known here; run it by hand")
    return plan


def merge_parts(name: str) -> None:
    if not all(part_done(name, p) for p in PARTS[name]):
        print(f"{name}: parts missing; merge in a later sitting")
        return
    parts = [str(OUT / name / p / f"{name}.json") for p in PARTS[name]]
    merged = OUT / name / "merged"
    merged.mkdir(parents=True, exist_ok=True)
    if run([f"bench/{name}.py", "--merge", *parts, "--out", str(merged)], merged / "log"):
        publish(name, merged)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="reports to re-run (default: every stale one)")
    ap.add_argument("--budget", type=float, default=1e9, help="minutes; skip what won't fit")
    ap.add_argument("--dry-run", action="store_true", help="list what would run")
    a = ap.parse_args()
    plan = plan_for(a.names)
    left = a.budget
    for step, minutes, _ in plan:
        print(f"{'run ' if minutes <= left else 'skip'} {step:22} ~{minutes} min")
        left -= minutes if minutes <= left else 0
    if a.dry_run:
        return 0
    if not clean():
        print("the tree has changes: commit or stash them first (a report names a clean tree)")
        return 2
    left = a.budget
    OUT.mkdir(parents=True, exist_ok=True)
    for step, minutes, args in plan:
        if minutes > left:
            continue
        start = time.monotonic()
        if step.endswith(":merge"):
            merge_parts(step.split(":")[0])
        elif run(args, OUT / f"{step.replace(':', '-')}.log") and ":" not in step:
            publish(step, OUT / step)
        left -= (time.monotonic() - start) / 60
    return 0


if __name__ == "__main__":
    sys.exit(main())

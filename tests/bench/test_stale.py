# SPDX-License-Identifier: BSD-3-Clause
"""The stale-report check on a scratch repository."""

import json
import subprocess

from twinplane.bench import stale


def git(repo, *args):
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def commit(repo, path, text, msg):
    f = repo / path
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(text)
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", msg)
    return git(repo, "rev-parse", "--short", "HEAD")


def test_fresh_stale_and_broken(tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q")
    c1 = commit(repo, "src/nf/l2/fast.c", "a", "one")
    res = repo / "docs" / "results"
    res.mkdir(parents=True)
    (res / "l2.json").write_text(json.dumps({"tree": c1}))
    (res / "fetch.json").write_text(json.dumps({"git": c1 + "-dirty"}))
    (res / "own.json").write_text(json.dumps({"tree": c1, "measured_paths": ["src/x"]}))
    (res / "none.json").write_text(json.dumps({"headline": {}}))
    commit(repo, "docs/results/.keep", "", "reports")
    # a side branch's commit, never on main
    git(repo, "checkout", "-qb", "side")
    side = commit(repo, "side.txt", "s", "side")
    git(repo, "checkout", "-q", "-")
    (res / "model.json").write_text(json.dumps({"commit": side}))

    by = {s.name: s for s in stale.check_all(repo, res)}
    assert by["l2"].state == "fresh"
    assert by["fetch"].state == "stale" and "dirty" in by["fetch"].why
    assert by["none"].state == "broken"
    assert by["model"].state == "broken" and "not an ancestor" in by["model"].why

    commit(repo, "src/nf/l2/fast.c", "b", "l2 changes")
    by = {s.name: s for s in stale.check_all(repo, res)}
    assert by["l2"].state == "stale" and by["l2"].changed == ["src/nf/l2/fast.c"]
    assert by["own"].state == "fresh"  # its own paths did not change

    assert stale.main(["--repo", str(repo)]) == 1  # broken reports fail the check
    for name in ("none", "model"):
        (res / f"{name}.json").unlink()
    assert stale.main(["--repo", str(repo)]) == 0  # stale ones are listed
    assert stale.main(["--repo", str(repo), "--strict"]) == 1


def test_default_paths_by_longest_prefix():
    assert stale.default_paths("ndn-ab-keyed-hash") == stale.DEFAULT_PATHS["ndn-ab"]
    assert stale.default_paths("ndn") == stale.DEFAULT_PATHS["ndn"]
    assert stale.default_paths("unknown") is None


def test_library_counts_only_what_the_script_imports(tmp_path):
    """Of python/twinplane/bench, a report depends on the modules its script imports,
    directly or through each other; another bed's module or this check does not
    stale it."""
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q")
    lib = "python/twinplane/bench"
    commit(repo, f"{lib}/__init__.py", "", "lib")
    commit(repo, f"{lib}/paired.py", "x = 1\n", "paired")
    commit(repo, f"{lib}/a_bed.py", "from twinplane.bench import paired\n", "a bed")
    commit(repo, f"{lib}/b_bed.py", "y = 2\n", "b bed")
    commit(repo, f"{lib}/stale.py", "z = 3\n", "check")
    c1 = commit(
        repo,
        "bench/a.py",
        "from twinplane.bench import a_bed as B\nfrom twinplane.bench import stale\n",
        "script",
    )
    assert stale.library_closure(repo, "bench/a.py") == [
        f"{lib}/__init__.py",
        f"{lib}/a_bed.py",
        f"{lib}/paired.py",
    ]
    res = repo / "docs" / "results"
    res.mkdir(parents=True)
    (res / "a.json").write_text(json.dumps({"tree": c1, "measured_paths": [lib, "bench/a.py"]}))
    commit(repo, f"{lib}/b_bed.py", "y = 3\n", "another bed")
    commit(repo, f"{lib}/stale.py", "z = 4\n", "the check")
    assert stale.check_report(repo, res / "a.json").state == "fresh"
    commit(repo, f"{lib}/paired.py", "x = 2\n", "what a_bed imports")
    s = stale.check_report(repo, res / "a.json")
    assert s.state == "stale" and s.changed == [f"{lib}/paired.py"]

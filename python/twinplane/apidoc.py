# SPDX-License-Identifier: BSD-3-Clause
"""docs/API.md's command reference, generated from the daemon's command registry.

The hand-written part of docs/API.md (framing, the server, JSON shapes) ends at
``MARKER``; everything after it is rendered from ``twinctl help --json`` (every
command registered in the running daemon: name, args, help, module), so the
reference cannot fall behind the code. ``scripts/gen-api.py`` rewrites the file;
``tests/integration/test_api_doc.py`` fails when the committed file differs.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
API_MD = REPO_ROOT / "docs" / "API.md"
MARKER = "<!-- generated below by scripts/gen-api.py from `twinctl help --json`: do not edit -->"
# The core first, then the network functions, then anything else, each by name.
MODULE_ORDER = ("core", "ip4", "l2", "iotgw", "ndn")


def header(text: str) -> str:
    """The hand-written part of an API.md text: up to and including MARKER's line."""
    at = text.find(MARKER)
    if at < 0:
        raise ValueError(f"docs/API.md has no marker line {MARKER!r}")
    return text[: at + len(MARKER)] + "\n"


def _module_key(name: str) -> tuple[int, str]:
    return (MODULE_ORDER.index(name) if name in MODULE_ORDER else len(MODULE_ORDER), name)


def render(head: str, commands: Iterable[Mapping[str, Any]]) -> str:
    """head (ending with MARKER) followed by the reference of commands, by module."""
    by_module: dict[str, list[Mapping[str, Any]]] = {}
    for c in commands:
        by_module.setdefault(str(c["module"]), []).append(c)
    out = [
        head,
        "",
        "## Command reference",
        "",
        "Every command of the daemon, as its command registry describes it (`help`),",
        "grouped by the module that registers it. The usage after each command's words",
        "is its own: `A|B` one of, `[...]` optional.",
    ]
    for mod in sorted(by_module, key=_module_key):
        out += ["", f"### Module `{mod}`", ""]
        for c in sorted(by_module[mod], key=lambda c: str(c["name"])):
            usage = f"{c['name']} {c['args']}".strip()
            out.append(f"- `{usage}`: {c['help']}")
    return "\n".join(out) + "\n"


def help_json_of(run_twinctl: Any) -> list[dict[str, Any]]:
    """The command list from ``twinctl help --json``; run_twinctl(*words) -> stdout."""
    return list(json.loads(run_twinctl("help", "--json"))["commands"])


def _generate_with_daemon() -> list[dict[str, Any]]:
    """Start a daemon without ports in a namespace of its own, as the lab does, and
    return its `help --json`; the namespace and the daemon are gone afterwards."""
    from twinplane.lab.daemon import Daemon, twinctl_binary
    from twinplane.lab.netns import Netns

    ns = Netns(f"tp-apidoc-{os.getpid()}").create()
    workdir = Path(tempfile.mkdtemp(prefix="tp-apidoc-"))
    daemon = Daemon(ns, "apidoc", workdir, config="")
    try:
        daemon.start()

        def run(*words: str) -> str:
            argv = [str(twinctl_binary()), "-s", daemon.socket, *words]
            return subprocess.run(argv, check=True, capture_output=True, text=True).stdout

        return help_json_of(run)
    finally:
        daemon.stop()
        ns.delete()
        shutil.rmtree(workdir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=API_MD, help="file to write (docs/API.md)")
    ap.add_argument("--check", action="store_true", help="exit 1 if the file would change")
    args = ap.parse_args(argv)
    old = args.out.read_text()
    new = render(header(old), _generate_with_daemon())
    if args.check:
        if new != old:
            sys.stdout.writelines(
                difflib.unified_diff(
                    old.splitlines(True), new.splitlines(True), str(args.out), "generated"
                )
            )
            return 1
        return 0
    args.out.write_text(new)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

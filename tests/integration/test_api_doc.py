# SPDX-License-Identifier: BSD-3-Clause
"""docs/API.md's command reference is the daemon's command registry: regenerated from
the running daemon's ``twinctl help --json``, it must equal the committed file
(``scripts/gen-api.py`` rewrites it), and it names the commands of every module."""

from __future__ import annotations

import difflib

import pytest

from twinplane.apidoc import API_MD, header, help_json_of, render
from twinplane.lab import RouterLab

pytestmark = pytest.mark.daemon


def test_api_doc_is_generated_from_help(router_lab: RouterLab) -> None:
    commands = help_json_of(router_lab.twinctl)
    for c in commands:
        assert set(c) == {"name", "args", "help", "module"}, c
        assert c["name"] and c["help"], c
    modules = {c["module"] for c in commands}
    # every network function and the core register commands, and help shows them all
    shown = {m["name"] for m in router_lab.ctl("show modules")["modules"]}
    assert {"core", "ip4", "l2", "iotgw", "ndn"} <= modules, modules
    assert shown <= modules, (shown, modules)

    old = API_MD.read_text()
    new = render(header(old), commands)
    diff = "".join(
        difflib.unified_diff(
            old.splitlines(True), new.splitlines(True), "docs/API.md", "help --json"
        )
    )
    assert new == old, f"docs/API.md is out of date; run scripts/gen-api.py:\n{diff}"

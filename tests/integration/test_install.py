# SPDX-License-Identifier: BSD-3-Clause
"""`meson install` (docs/INSTALL.md): staged with DESTDIR, it holds the daemon, twinctl,
the tools, the systemd unit and the configuration file; the unit passes `systemd-analyze
verify`; the staged daemon, started as the unit starts it, answers the staged twinctl
on the default socket (no -s) and serves its metrics."""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from twinplane.lab.daemon import build_dir
from twinplane.lab.lab import Lab
from twinplane.metrics import get, parse
from twinplane.proc import Process, remove_dpdk_runtime

TOOLS = ("twinplane", "twinctl", "twinplane-gen", "twinplane-fetch", "twinplane-nf",
         "twinplane-sockgw", "phd-decode")  # fmt: skip
DEFAULT_SOCKET = "/run/twinplane/twinplane.sock"


def meson() -> str:
    m = shutil.which("meson")
    if m is None:
        pytest.skip("meson not found")
    return m


def build_option(name: str) -> str:
    opts = json.loads(
        subprocess.run(
            [meson(), "introspect", str(build_dir()), "--buildoptions"],
            check=True, capture_output=True, text=True,
        ).stdout
    )  # fmt: skip
    return str(next(o["value"] for o in opts if o["name"] == name))


@pytest.fixture(scope="module")
def stage(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The build installed under a DESTDIR; yields DESTDIR/PREFIX."""
    dest = tmp_path_factory.mktemp("destdir")
    env = dict(os.environ, DESTDIR=str(dest))
    subprocess.run(
        [meson(), "install", "-C", str(build_dir()), "--no-rebuild", "--quiet"],
        check=True, env=env, capture_output=True, text=True,
    )  # fmt: skip
    prefix = build_option("prefix")
    yield dest / prefix.lstrip("/")
    shutil.rmtree(dest, ignore_errors=True)


def unit_of(stage: Path) -> tuple[Path, str]:
    unit = stage / "lib" / "systemd" / "system" / "twinplane.service"
    if build_option("systemdunitdir"):
        unit = Path(str(stage).removesuffix(build_option("prefix"))) / build_option(
            "systemdunitdir"
        ).lstrip("/")
    return unit, unit.read_text()


def test_destdir_install_has_programs_unit_and_config(stage: Path, tmp_path: Path) -> None:
    prefix = build_option("prefix")
    for tool in TOOLS:
        p = stage / "bin" / tool
        assert p.is_file() and os.access(p, os.X_OK), p
    unit, text = unit_of(stage)
    m = re.search(r"^ExecStart=(\S+) --config (\S+) \$TWINPLANE_ARGS$", text, re.M)
    assert m, text
    exe, conf = m.group(1), m.group(2)
    assert exe == f"{prefix}/bin/twinplane"
    # the unit's paths are the installed files
    root = Path(str(stage).removesuffix(prefix.lstrip("/")))
    assert (root / exe.lstrip("/")).is_file()
    assert (root / conf.lstrip("/")).is_file()
    assert "RuntimeDirectory=twinplane" in text and "LimitMEMLOCK=infinity" in text
    assert "hugepages" in text  # documented where the operator reads it
    assert (stage / "share" / "doc" / "twinplane" / "grafana-twinplane.json").is_file()
    analyze = shutil.which("systemd-analyze")
    if analyze is not None:
        # the staged unit, its paths pointing into the stage (verify checks ExecStart)
        copy = tmp_path / "twinplane.service"
        copy.write_text(text.replace(f"{prefix}/", f"{root}/{prefix.lstrip('/')}/"))
        r = subprocess.run([analyze, "verify", str(copy)], capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr


def test_staged_daemon_answers_twinctl_on_the_default_socket(stage: Path) -> None:
    if os.path.exists(DEFAULT_SOCKET):
        pytest.skip(f"{DEFAULT_SOCKET} exists: a twinplane runs on this host")
    prefix = build_option("prefix")
    root = Path(str(stage).removesuffix(prefix.lstrip("/")))
    _, text = unit_of(stage)
    m = re.search(r"^ExecStart=(.*)$", text, re.M)
    assert m
    # the unit's command line, with TWINPLANE_ARGS as /etc/default/twinplane would set it
    args = "--lcores 0,1 --metrics 127.0.0.1:19187"
    argv = [
        str(root / w.lstrip("/")) if w.startswith(prefix) else w
        for w in shlex.split(m.group(1).replace("$TWINPLANE_ARGS", args))
    ]
    with Lab() as lab:
        ns = lab.add_ns("r")
        daemon = Process(
            argv,
            lab.workdir / "twinplane.out",
            label="installed twinplane",
            netns=ns,
            stop_timeout=20.0,
            cleanup=functools.partial(remove_dpdk_runtime, "twinplane"),
        )
        daemon.start()
        lab.defer("stop the daemon", daemon.stop)
        twinctl = [str(stage / "bin" / "twinctl")]
        env = {k: v for k, v in os.environ.items() if k != "TWINPLANE_SOCKET"}

        def answers() -> bool:
            r = subprocess.run([*twinctl, "version"], env=env, capture_output=True, text=True)
            return r.returncode == 0 and "twinplane" in r.stdout

        daemon.wait_ready(answers, 60, "answering twinctl on the default socket")
        out = subprocess.run(
            [*twinctl, "--json", "show", "metrics"], env=env, check=True,
            capture_output=True, text=True,
        ).stdout  # fmt: skip
        assert json.loads(out)["listen"] == "127.0.0.1:19187"
        page = parse(
            get(
                lambda: ns.socket(socket.AF_INET, socket.SOCK_STREAM), "127.0.0.1:19187"
            ).body.decode()
        )
        assert page.value("twinplane_build_info") == 1
        assert daemon.stop() == 0
    assert not os.path.exists(DEFAULT_SOCKET)

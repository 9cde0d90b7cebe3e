# SPDX-License-Identifier: BSD-3-Clause
"""twinplane.proc.Process, the one wrapper of every process the lab and the benchmarks start."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from twinplane.proc import Process, ProcessError, remove_dpdk_runtime


def sh(script: str, tmp_path: Path, **kwargs: object) -> Process:
    return Process(["sh", "-c", script], tmp_path / "out.log", **kwargs)  # type: ignore[arg-type]


def test_prefixes_and_command_line(tmp_path: Path) -> None:
    p = Process(["prog", "--opt", "a b"], tmp_path / "log", netns="ns1", cpus=0)
    assert p.full_argv == [
        "ip",
        "netns",
        "exec",
        "ns1",
        "taskset",
        "-c",
        "0",
        "prog",
        "--opt",
        "a b",
    ]
    assert p.command_line == "ip netns exec ns1 taskset -c 0 prog --opt 'a b'"
    assert p.label == "prog" and p.state() == "not started"
    assert p.stop() is None and p.shutdown_problem() is None


def test_clean_stop(tmp_path: Path) -> None:
    cleaned: list[int] = []
    p = sh("echo up; exec sleep 30", tmp_path, cleanup=lambda: cleaned.append(1)).start()
    p.wait_ready(lambda: "up" in p.logs(), 5, "up")
    assert p.running() and p.pid > 0
    assert p.stop() == -signal.SIGTERM
    assert not p.running() and not p.killed and p.shutdown_problem() is None
    assert cleaned == [1]
    assert p.stop() == -signal.SIGTERM  # idempotent


# load-sensitive (killed within a time bound): reruns once
@pytest.mark.flaky(reruns=1, reruns_delay=3)
def test_ignoring_the_stop_signal_gets_killed(tmp_path: Path) -> None:
    p = sh("trap '' TERM; echo up; exec sleep 30", tmp_path).start()
    p.wait_ready(lambda: "up" in p.logs(), 5, "up")
    t0 = time.monotonic()
    assert p.stop(timeout=0.3) == -signal.SIGKILL
    assert time.monotonic() - t0 < 5
    assert p.killed
    assert p.shutdown_problem() == "sh ignored SIGTERM and was killed"


def test_exit_status_on_the_stop_signal_is_a_problem(tmp_path: Path) -> None:
    p = sh("trap 'exit 3' INT; echo up; while :; do sleep 0.05; done", tmp_path,
           stop_signal=signal.SIGINT).start()  # fmt: skip
    p.wait_ready(lambda: "up" in p.logs(), 5, "up")
    assert p.stop() == 3
    assert p.shutdown_problem() == "sh exited with status 3 on SIGINT"


def test_wait_ready_timeout_names_command_and_log(tmp_path: Path) -> None:
    p = sh("echo hello-from-child; exec sleep 30", tmp_path, label="child")
    with p, pytest.raises(ProcessError) as e:
        p.wait_ready(lambda: False, 0.3, "listening")
    msg = str(e.value)
    assert "child: not listening after 0.3s (running)" in msg
    assert "sh -c 'echo hello-from-child; exec sleep 30'" in msg
    assert "hello-from-child" in msg
    assert not p.running()


def test_wait_ready_sees_the_process_die(tmp_path: Path) -> None:
    class Boom(RuntimeError):
        pass

    p = sh("echo bye; exit 4", tmp_path, error=Boom).start()
    with pytest.raises(Boom, match=r"exited before it was ready \(exited with 4\)[\s\S]*bye"):
        p.wait_ready(lambda: False, 5)
    p.stop()
    assert p.shutdown_problem() == "sh had exited by itself: exited with 4"


def test_wait_ready_retries_and_quotes_the_last_error(tmp_path: Path) -> None:
    def ready() -> bool:
        raise ConnectionRefusedError("nobody home")

    with sh("exec sleep 30", tmp_path) as p, pytest.raises(ProcessError, match="nobody home"):
        p.wait_ready(ready, 0.3, retry_on=(OSError,))


def test_kill_group_reaches_children(tmp_path: Path) -> None:
    p = sh("sleep 30 & echo $!; wait", tmp_path, kill_group=True).start()
    p.wait_ready(lambda: p.log.read_text().strip(), 5, "forked")
    child = int(p.log.read_text().split()[0])
    p.stop()
    deadline = time.monotonic() + 5
    while os.path.exists(f"/proc/{child}") and time.monotonic() < deadline:
        time.sleep(0.05)  # reaped by init
    assert not os.path.exists(f"/proc/{child}") or "Z" in Path(f"/proc/{child}/stat").read_text()


def test_remove_dpdk_runtime(tmp_path: Path) -> None:
    prefix = f"tptestproc{os.getpid()}"
    run = Path(f"/var/run/dpdk/{prefix}")
    if not os.access("/var/run", os.W_OK):
        pytest.skip("needs root")
    run.mkdir(parents=True, exist_ok=True)
    (run / "config").write_text("x")
    remove_dpdk_runtime(prefix)
    assert not run.exists()

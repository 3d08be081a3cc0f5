"""`manage.py serve` stops everything it started: on Ctrl-C even when it was started with
SIGINT ignored, and on its own, saying why, when its worker dies."""

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.smoke.test_embedded_mode import ROOT, _free_port, _manage, embedded_env  # noqa: F401

pytestmark = pytest.mark.integration


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except FileNotFoundError:  # a thread (the demo agent's) ended while we looked
            continue
    return found


def _cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()


def _start(env, tmp_path, ignore_sigint: bool, *options: str):
    port = _free_port()
    log = open(tmp_path / "serve.log", "wb")  # noqa: SIM115
    serve = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--addr", f"127.0.0.1:{port}", *options],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        # As a shell's background job or nohup starts it.
        preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
        if ignore_sigint
        else None,
    )
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/login/", timeout=5)
            break
        except OSError:
            time.sleep(0.5)
    children = _children(serve.pid)
    while time.monotonic() < deadline and len(children) < 2:
        time.sleep(0.5)
        children = _children(serve.pid)
    return serve, port, children, log


def _waited_for(log: Path, text: str, seconds: float = 150) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        output = log.read_text()
        if text in output:
            return output
        time.sleep(0.5)
    return log.read_text()


@pytest.fixture
def migrated(embedded_env):  # noqa: F811
    _manage(embedded_env, "migrate", "--noinput")
    return embedded_env


def test_ctrl_c_stops_serve_started_with_sigint_ignored(embedded_env, tmp_path):  # noqa: F811
    # `make run` starts it so: the database migrated and the demo loaded by serve itself
    serve, port, children, log = _start(embedded_env, tmp_path, True, "--demo")
    try:
        assert len(children) == 2, (tmp_path / "serve.log").read_text()[-2000:]
        assert "Log in as one of" in (tmp_path / "serve.log").read_text()
        # and once the server listens, the demo agent runs the demo's tool world over MCP and
        # the gate's report per fault kind ends the output
        output = _waited_for(tmp_path / "serve.log", "  FAIL  ")
        assert "Demo agent: eval runs demo-worlds-baseline (1.4.0)" in output, output[-3000:]
        assert "fault empty          baseline 0 of 1 failed, candidate 1 of 1 failed" in output
        assert "invented_after_fault" in output
        serve.send_signal(signal.SIGINT)
        assert serve.wait(timeout=40) == 0
    finally:
        if serve.poll() is None:
            serve.kill()
        log.close()
    assert not [pid for pid in children if _alive(pid)]
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/login/", timeout=5)


def test_a_dead_worker_stops_serve_and_it_says_why(migrated, tmp_path):
    serve, port, children, log = _start(migrated, tmp_path, ignore_sigint=True)
    try:
        (worker,) = [pid for pid in children if "celery" in _cmdline(pid)]
        os.kill(worker, signal.SIGKILL)
        assert serve.wait(timeout=40) == 1
    finally:
        if serve.poll() is None:
            serve.kill()
        log.close()
    output = (tmp_path / "serve.log").read_text()
    assert "Stopped everything: the worker stopped on its own (killed by signal 9)" in output
    assert not [pid for pid in children if _alive(pid)]
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/login/", timeout=5)

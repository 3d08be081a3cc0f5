"""A server a bench launches: whether it answers yet (any HTTP answer counts, an error page too,
since the server is up; a refused or dropped connection does not), and one kept up for the
length of a `with` block."""

import contextlib
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path


def answered(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 - local URL
            return response.status == 200
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


def wait_answered(server: subprocess.Popen, url: str, started: float, seconds: float, what: str):
    """Poll `url` until the launched server answers; RuntimeError naming `what` if it exits or
    `seconds` pass since `started` (a perf_counter reading) first."""
    while not answered(url):
        if server.poll() is not None or time.perf_counter() - started > seconds:
            raise RuntimeError(f"{what} did not answer")
        time.sleep(0.02)


@contextlib.contextmanager
def serving(
    command: list[str], tree: Path, env: dict, port: int, seconds: float, what: str
) -> Iterator[subprocess.Popen]:
    """The server `command` launches in `tree`, once its /login/ on `port` answers (see
    wait_answered); on leaving, it is stopped with every process it started."""
    started = time.perf_counter()
    server = subprocess.Popen(
        command,
        cwd=tree,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group, so its children stop with it
    )
    try:
        wait_answered(server, f"http://127.0.0.1:{port}/login/", started, seconds, what)
        yield server
    finally:
        server.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=30)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)

"""Whether a server a bench launched answers yet: any HTTP answer counts (an error page too,
since the server is up); a refused or dropped connection does not."""

import subprocess
import time
import urllib.error
import urllib.request


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

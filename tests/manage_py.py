"""manage.py of this checkout run in a child process, as a person or a deploy script runs it."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def manage_py(env: dict, *args: str, timeout: float = 120, **run) -> subprocess.CompletedProcess:
    """The finished command, its output kept as text; the caller decides what failure means."""
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        **run,
    )


def environ_without(*names: str) -> dict:
    """This process's environment less `names`, for a child that must not inherit them."""
    return {k: v for k, v in os.environ.items() if k not in names}

"""A script run in a fresh interpreter of this checkout, as a server or worker process starts,
for tests of what a process loads."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def python_report(script: str, *args: str) -> dict:
    """Run `script` with the site's settings and read the JSON it prints last."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "evalsite.settings"}
    env.pop("CELERY_SKIP_CHECKS", None)
    answer = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(answer.stdout.strip().splitlines()[-1])

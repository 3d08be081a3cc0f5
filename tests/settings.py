"""Test settings: evalsite's own, with a fast password hasher and per-xdist-worker resources.

Under pytest-xdist every worker gets its own var folder (the SQLite test file, the filesystem
broker, the insights file cache), Redis database and default judge port, derived from the
worker id before `evalsite.settings` reads the environment. pytest-django already gives each
worker its own test database (`test_<name>_gw0`, ...). Processes a test starts inherit the
rewritten environment and the marker, so they are not shifted twice.
"""

import os
import re
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

REDIS_DATABASES = 16  # Redis's default `databases`; a worker past it would share one.
ISOLATED_MARKER = "EVALSITE_XDIST_ISOLATED"


def redis_url_for_worker(url: str, index: int) -> str:
    """The URL's database number plus the worker index: db 7 -> 7 for gw0, 8 for gw1, ..."""
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    database = base + index
    if database >= REDIS_DATABASES:
        raise RuntimeError(
            f"xdist worker gw{index} would need Redis db {database} (REDIS_URL db {base}); "
            "use a lower REDIS_URL db or fewer workers (-n)"
        )
    return urlunsplit(parts._replace(path=f"/{database}"))


def isolate_xdist_worker(environ) -> None:
    worker = environ.get("PYTEST_XDIST_WORKER", "")
    match = re.fullmatch(r"gw(\d+)", worker)
    if not match or environ.get(ISOLATED_MARKER) == worker:
        return
    index = int(match.group(1))
    base_var = Path(environ.get("EVALSITE_VAR_DIR") or Path(__file__).resolve().parents[1] / "var")
    environ["EVALSITE_VAR_DIR"] = str(base_var / "xdist" / worker)
    if environ.get("REDIS_URL"):
        environ["REDIS_URL"] = redis_url_for_worker(environ["REDIS_URL"], index)
    environ["SIMULATED_JUDGE_PORT"] = str(int(environ.get("SIMULATED_JUDGE_PORT", "8765")) + index)
    environ[ISOLATED_MARKER] = worker


isolate_xdist_worker(os.environ)

from evalsite.settings import *  # noqa: E402, F403

# Tests set many passwords; PBKDF2's deliberate slowness buys nothing here.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Webhook tests deliver to a receiver on 127.0.0.1; tests/webhooks/test_targets.py turns it off.
WEBHOOK_ALLOW_PRIVATE_TARGETS = True

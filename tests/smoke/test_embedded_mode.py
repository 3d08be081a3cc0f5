"""Embedded mode as `make run` starts it: SQLite, the filesystem broker, a real worker process,
the simulated judge, and the web server, all from `manage.py serve` in a fresh folder."""

import json
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.manage_py import environ_without, manage_py

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.integration

SPAN_TREE = {
    "trace_id": "5b8efff798038103d269b633813fc60c",
    "name": "invoke_agent support-agent",
    "type": "agent",
    "input": "Customer C-5120 asks: cancel order A-71234, it has not shipped yet.",
    "output": "Order A-71234 is cancelled.",
    "children": [
        {
            "name": "get_recent_orders",
            "type": "tool",
            "input": {"customer_id": "C-5120"},
            "output": {"orders": [{"order_id": "A-71234", "status": "processing"}]},
        },
        {
            "name": "cancel_order",
            "type": "tool",
            "input": {"order_id": "A-71234"},
            "output": {"status": "cancelled"},
        },
    ],
}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def embedded_env(tmp_path):
    env = environ_without(
        "DATABASE_URL",
        "REDIS_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "SECRET_KEY",
        "JUDGE_SIMULATED",
        "CELERY_TASK_ALWAYS_EAGER",
    )
    env.update(
        EVALSITE_VAR_DIR=str(tmp_path / "var"),
        SIMULATED_JUDGE_PORT=str(_free_port()),
        TRACE_SETTLE_SECONDS="1",
        PYTHONUNBUFFERED="1",
    )
    return env


def _manage(env, *args) -> str:
    result = manage_py(env, *args, timeout=180)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def _counts(env) -> dict:
    """Verdicts, and passes not yet done or failed, read from the SQLite file while `serve` runs:
    a `manage.py` process every poll would take the CPU the worker is judging with."""
    database = f"file:{env['EVALSITE_VAR_DIR']}/evalsite.sqlite3?mode=ro"
    with sqlite3.connect(database, uri=True, timeout=10) as connection:
        verdicts = connection.execute("SELECT count(*) FROM judges_verdict").fetchone()[0]
        pending = connection.execute(
            "SELECT count(*) FROM judges_judgment WHERE status NOT IN ('done', 'failed')"
        ).fetchone()[0]
    connection.close()
    return {"verdicts": verdicts, "pending": pending}


# 12 live traces x 3 demo rubrics, and the 4 eval-run traces (2 runs x 2 examples) that the
# demo's online rubric judges as they arrive.
DEMO_VERDICTS = 12 * 3 + 4


def test_make_run_stack_judges_the_demo_and_takes_traces_then_stops_cleanly(embedded_env, tmp_path):
    # Given a fresh folder with the demo loaded, twice (the second load changes nothing)
    _manage(embedded_env, "migrate", "--noinput")
    first = _manage(embedded_env, "load_demo")
    assert "Demo traces added: 12." in first and first.count("queued") == 3
    assert "Demo traces added: 0." in _manage(embedded_env, "load_demo")
    token = _manage(embedded_env, "create_api_token", "admin").strip()

    # When `serve` starts the web server, the worker and the simulated judge
    port = _free_port()
    log = open(tmp_path / "serve.log", "wb")  # noqa: SIM115
    serve = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--addr", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=embedded_env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 150
        counts = {}
        while time.monotonic() < deadline:
            counts = _counts(embedded_env)
            if counts["verdicts"] == DEMO_VERDICTS and counts["pending"] == 0:
                break
            time.sleep(1)
        # Then the worker judged every demo trace twice and reconciled the passes
        assert counts == {"verdicts": DEMO_VERDICTS, "pending": 0}, (
            tmp_path / "serve.log"
        ).read_text()[-3000:]

        # And the API stores a trace sent to the running server
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/traces/",
            data=json.dumps(SPAN_TREE).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 201
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/login/", timeout=30) as response:
            assert b"Log in" in response.read()
    finally:
        # And Ctrl-C stops every process serve started
        serve.send_signal(signal.SIGINT)
        assert serve.wait(timeout=40) == 0
        log.close()
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/login/", timeout=5)

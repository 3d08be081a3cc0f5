"""A database restarted under OTLP ingest (a PostgreSQL of the test's own, gunicorn in front, with
threads or as the Compose file's web):
every answer is the ordinary success or a JSON 503 with Retry-After, never an HTML 500; the
exporter's retries then store every span exactly once, whether or not the first try had
committed."""

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.error import HTTPError, URLError
from urllib.request import Request, urlopen

import pytest

from bench.throwaway_postgres import ThrowawayPostgres
from bench.topology_stack import compose_environment
from tests.manage_py import manage_py

ROOT = Path(__file__).resolve().parents[2]
TRACES, SPANS = 120, 10
SENDERS = 4


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _postgres_port() -> int:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or "0"
    return 55437 + 10 * int(worker)


def _body(index: int) -> bytes:
    trace_id = f"{index + 1:032x}"
    start = 1_763_632_800_000_000_000 + index * 1_000_000_000
    spans = [
        {
            "traceId": trace_id,
            "spanId": f"{index * SPANS + span + 1:016x}",
            "parentSpanId": "" if span == 0 else f"{index * SPANS + 1:016x}",
            "name": "invoke_agent outage" if span == 0 else f"execute_tool step_{span}",
            "startTimeUnixNano": str(start + span * 1000),
            "endTimeUnixNano": str(start + span * 1000 + 500),
            "attributes": [{"key": "gen_ai.tool.name", "value": {"stringValue": f"s{span}"}}],
        }
        for span in range(SPANS)
    ]
    request = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": spans}]}]}
    return json.dumps(request).encode()


def _send(url: str, token: str, body: bytes) -> tuple[int, str, str, bytes]:
    request = Request(
        url,
        data=body,
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
    )
    try:
        with urlopen(request, timeout=60) as answer:
            return answer.status, answer.headers.get("Content-Type", ""), "", answer.read()
    except HTTPError as error:
        headers = error.headers
        return (
            error.code,
            headers.get("Content-Type", ""),
            headers.get("Retry-After", ""),
            error.read(),
        )
    except (URLError, ConnectionError, TimeoutError) as error:
        return 0, "", "", str(error).encode()


def _manage(env: dict, *argv: str, code: str | None = None) -> str:
    result = manage_py(env, *argv, input=code)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.strip()


# gunicorn as the single-machine default runs it (threads sharing a process pool of 8), and as
# deploy/compose.yaml's web does (sync workers, one pooled connection each).
WEB_SETTINGS = {
    "threads": ({}, ["-w", "2", "--threads", "4"]),
    "compose-web": (compose_environment("web"), ["-w", "2"]),
}


@pytest.fixture(params=sorted(WEB_SETTINGS))
def stack(request, tmp_path):
    """The throwaway server, a migrated database, an admin's token and gunicorn."""
    settings, workers = WEB_SETTINGS[request.param]
    with ThrowawayPostgres(_postgres_port()) as server:
        url = server.database_create("evalsite_outage")
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in ("REDIS_URL", "DJANGO_SETTINGS_MODULE", "EVALSITE_XDIST_ISOLATED")
        }
        env.update(
            DATABASE_URL=url,
            EVALSITE_VAR_DIR=str(tmp_path / "var"),
            DB_POOL_TIMEOUT="5",
            LOG_LEVEL="ERROR",
            PYTHONUNBUFFERED="1",
        )
        env.update(settings)
        _manage(env, "migrate", "-v0")
        token = _manage(
            env,
            "shell",
            "-c",
            "from django.contrib.auth.models import User; from accounts.models import ApiToken; "
            "u = User.objects.create_superuser('ops', 'ops@example.com', 'x-pass-1'); "
            "print(ApiToken.generate(u, 'outage')[1])",
        ).splitlines()[-1]
        port = _free_port()
        web = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "evalsite.wsgi",
                *workers,
                "-b",
                f"127.0.0.1:{port}",
                "--graceful-timeout",
                "5",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(tmp_path / "gunicorn.log", "wb"),  # noqa: SIM115 - closed with the process
        )
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=1):
                        break
                except OSError:
                    time.sleep(0.2)
            yield server, f"http://127.0.0.1:{port}/v1/traces", token
        finally:
            web.terminate()
            try:
                web.wait(timeout=15)
            except subprocess.TimeoutExpired:
                web.kill()


def test_ingest_across_database_restarts_answers_json_and_loses_nothing(stack):
    server, url, token = stack
    answers: dict[int, list] = {index: [] for index in range(TRACES)}
    in_flight_at_restart = []
    in_flight = threading.Semaphore(0)
    sent = [0]
    lock = threading.Lock()

    def sender(indexes):
        for index in indexes:
            in_flight.release()
            answer = _send(url, token, _body(index))
            in_flight.acquire()
            with lock:
                answers[index].append(answer)
                sent[0] += 1

    threads = [
        threading.Thread(target=sender, args=(range(part, TRACES, SENDERS),), daemon=True)
        for part in range(SENDERS)
    ]
    for thread in threads:
        thread.start()
    for share, mode in ((0.2, "immediate"), (0.5, "fast"), (0.75, "immediate")):
        deadline = time.monotonic() + 120
        while sent[0] < TRACES * share and time.monotonic() < deadline:
            time.sleep(0.01)
        in_flight_at_restart.append(in_flight._value)  # requests the restart cut into
        server.restart(mode)
    for thread in threads:
        thread.join(timeout=180)

    first = [answers[index][0] for index in range(TRACES)]
    refused = [answer for answer in first if answer[0] != 200]
    for status, content_type, retry_after, body in refused:
        assert status == 503, (status, body[:300])
        assert content_type.startswith("application/json"), body[:300]
        assert int(retry_after) > 0
        assert json.loads(body)["error"]["code"] == "unavailable"
    # The exporter's retries, after Retry-After (shortened here).
    deadline = time.monotonic() + 90
    pending = [index for index in range(TRACES) if first[index][0] != 200]
    while pending and time.monotonic() < deadline:
        time.sleep(0.5)
        pending = [index for index in pending if _send(url, token, _body(index))[0] != 200]

    assert pending == []
    assert sum(in_flight_at_restart) > 0, "no restart cut into a request"
    assert server.query("evalsite_outage", "select count(*) from traces_trace") == str(TRACES)
    stored = server.query(
        "evalsite_outage", "select count(*), count(distinct span_id) from traces_span"
    )
    assert stored == f"{TRACES * SPANS}|{TRACES * SPANS}"
    print(f"first answers: {len(first) - len(refused)} x 200, {len(refused)} x 503")

"""A broker outage on the real stack: a web server process whose Redis (broker and insights
cache) is stopped mid-test. Committed work is answered 202 and enqueued by the sweep once the
broker is back; a retried POST with its Idempotency-Key creates nothing twice; pages still
render. The Redis here is this test's own server on a free port, never the shared one."""

import json
import shutil
import socket
import subprocess
import sys
import time

import pytest
import redis
import requests

from judges.models import JudgeRun, Judgment, JudgmentStatus, Rubric
from tests.factories import TraceFactory, UserFactory
from tests.integration.conftest import ROOT, database_url_for_worker, wait_for
from tests.manage_py import manage_py

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

PORT_RANGE = range(8180, 8200)


def free_port() -> int:
    for port in PORT_RANGE:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return port
    pytest.skip("no free port in 8180-8199")


@pytest.fixture
def own_redis(tmp_path):
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is needed for the broker outage test")
    port = free_port()
    process = redis_start(port, tmp_path)
    client = redis.Redis(port=port)
    wait_for(lambda: _pings(client), timeout=10, message="own redis-server did not start")
    server = {"process": process, "port": port, "dir": tmp_path}
    yield server, client, f"redis://127.0.0.1:{port}/0"
    if server["process"].poll() is None:
        server["process"].terminate()
        server["process"].wait(timeout=10)


def redis_start(port: int, folder) -> subprocess.Popen:
    return subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
        + ["--appendonly", "no", "--dir", str(folder)],
        stdout=subprocess.DEVNULL,
    )


def _pings(client) -> bool:
    try:
        return client.ping()
    except redis.ConnectionError:
        return False


def stack_env(redis_url: str, settings) -> dict:
    return {
        "PATH": "/usr/bin:/bin",
        # The test's settings: the user it logs in as has a password hashed the tests' way.
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": database_url_for_worker(),
        "REDIS_URL": redis_url,
        "SECRET_KEY": "broker-outage-test",
        "EVALSITE_VAR_DIR": str(settings.VAR_DIR),
        "PYTHONUNBUFFERED": "1",
    }


@pytest.fixture
def web_server(own_redis, tmp_path, settings):
    _, _, redis_url = own_redis
    port = free_port()
    env = stack_env(redis_url, settings)
    log = open(tmp_path / "web.log", "wb")  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "evalsite.wsgi", "-b", f"127.0.0.1:{port}", "-w", "1"]
        + ["--timeout", "60"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(
            lambda: process.poll() is not None or _answers(base),
            timeout=60,
            message="web server did not start",
        )
        assert process.poll() is None, (tmp_path / "web.log").read_text()
        yield base
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def _answers(base: str) -> bool:
    try:
        return requests.get(f"{base}/login/", timeout=10).status_code == 200
    except requests.RequestException:
        return False


def test_the_site_keeps_its_word_while_the_broker_is_down(own_redis, web_server, settings):
    from accounts.models import ApiToken

    redis_server, redis_client, redis_url = own_redis
    curator = UserFactory(username="cora", roles=["curator", "annotator"])
    _, token = ApiToken.generate(curator, "outage")
    api = requests.Session()
    api.headers["Authorization"] = f"Bearer {token}"
    version = Rubric.objects.get(name="Outcome 1-5").versions.get(number=1)
    body = {"rubric_version": version.pk, "trace_ids": [TraceFactory().pk, TraceFactory().pk]}

    healthy = api.post(f"{web_server}/api/judge-runs/", json=body, timeout=30)
    assert healthy.status_code == 201, healthy.text
    assert redis_client.llen("celery") == 4  # one message per pass

    redis_server["process"].terminate()
    redis_server["process"].wait(timeout=10)
    started = time.monotonic()
    keyed = {"Idempotency-Key": "outage-run-1"}
    down = api.post(f"{web_server}/api/judge-runs/", json=body, headers=keyed, timeout=30)
    retried = api.post(f"{web_server}/api/judge-runs/", json=body, headers=keyed, timeout=30)
    took = time.monotonic() - started

    assert down.status_code == 202, down.text
    assert (retried.status_code, retried.json()) == (202, down.json())
    assert JudgeRun.objects.count() == 2
    run = JudgeRun.objects.get(pk=down.json()["id"])
    unpublished = Judgment.objects.filter(run=run, status=JudgmentStatus.PENDING)
    assert unpublished.count() == 4
    assert took < 20, f"the outage cost {took:.1f}s for two requests"

    page = requests.Session()
    login = page.get(f"{web_server}/login/", timeout=10)
    page.post(
        f"{web_server}/login/",
        data={
            "username": "cora",
            "password": "pass-word-123",
            "csrfmiddlewaretoken": login.cookies["csrftoken"],
        },
        headers={"Referer": f"{web_server}/login/"},
        timeout=10,
    )
    overview = page.get(f"{web_server}/", timeout=60)
    assert overview.status_code == 200, overview.text[:500]
    assert "overview-figures" in overview.text

    # The broker is back, empty: the messages it held died with it. The periodic sweep enqueues
    # every pass still waiting, the ones it lost and the ones nobody could publish.
    redis_server["process"] = redis_start(redis_server["port"], redis_server["dir"])
    wait_for(lambda: _pings(redis_client), timeout=10, message="redis-server did not restart")
    sweep = manage_py(
        {**stack_env(redis_url, settings), "JUDGE_CLAIM_LEASE_SECONDS": "0"},
        "shell",
        "-c",
        SWEEP_ONCE,
        timeout=60,
    )
    assert sweep.returncode == 0, sweep.stderr
    assert sweep.stdout.split()[-1] == "8"
    queued = [
        json.loads(raw)["headers"]["argsrepr"] for raw in redis_client.lrange("celery", 0, -1)
    ]
    waiting = Judgment.objects.filter(status=JudgmentStatus.PENDING).values_list("pk", flat=True)
    assert sorted(queued) == sorted(f"({pk},)" for pk in waiting)


SWEEP_ONCE = "from judges.tasks import judgment_requeue_stale_task as t; print(t())"

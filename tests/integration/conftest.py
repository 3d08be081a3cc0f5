"""The real stack for integration tests: the simulated judge and a `celery worker` subprocess.

The worker process uses the very database pytest created (PostgreSQL, or a SQLite *file*: an
in-memory test database cannot be shared with another process) and the same broker.
"""

import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection, connections

from demo.simulator.server import start_simulator
from evalsite.celery import worker_command

ROOT = Path(__file__).resolve().parents[2]
# Short waits so injected failures resolve within a test's time budget.
WORKER_JUDGE_SETTINGS = {
    "JUDGE_RETRY_BASE_SECONDS": "0.2",
    "JUDGE_RETRY_MAX_SECONDS": "1",
    "JUDGE_TIMEOUT_SECONDS": "2",
    "JUDGE_CLAIM_LEASE_SECONDS": "6",
    "JUDGE_MAX_RETRIES": "4",
    "JUDGE_BATCH_POLL_SECONDS": "0.3",
}


def pytest_configure(config):
    # A worker process cannot see an in-memory SQLite database; give the test DB a file.
    database = settings.DATABASES["default"]
    if database["ENGINE"].endswith("sqlite3"):
        test = database.setdefault("TEST", {})
        if not test.get("NAME"):
            # Per process, so two test runs sharing a var folder never share a database.
            test["NAME"] = str(Path(settings.VAR_DIR) / f"test_evalsite_{os.getpid()}.sqlite3")


def database_url_for_worker() -> str:
    """The URL of the test database pytest-django set up, for another process to open."""
    params = connection.settings_dict
    if params["ENGINE"].endswith("sqlite3"):
        name = str(params["NAME"])
        if "memory" in name or not name:
            raise pytest.UsageError("integration tests need a SQLite file test database")
        return f"sqlite:///{Path(name).resolve()}"
    user = quote(params.get("USER") or "", safe="")
    password = quote(params.get("PASSWORD") or "", safe="")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = params.get("HOST") or "127.0.0.1"
    port = params.get("PORT") or 5432
    return f"postgres://{auth}{host}:{port}/{params['NAME']}"


def broker_purge() -> None:
    """Drop messages left by an earlier test so the new worker starts from an empty queue."""
    if settings.REDIS_URL:
        from evalsite.celery import app

        app.control.purge()
        return
    queue = Path(settings.BROKER_DIR) / "queue"
    if queue.exists():
        shutil.rmtree(queue)
    queue.mkdir(parents=True, exist_ok=True)


def wait_for(predicate, timeout: float = 30.0, interval: float = 0.2, message: str = ""):
    """Poll until predicate() is truthy; fail the test with message after timeout seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    pytest.fail(message or f"condition not met within {timeout}s")


def at_the_same_moment(work, arguments) -> list[BaseException]:
    """Call work(argument) on a thread per argument, all released at once; return what the
    threads raised. Each thread closes its own database connections."""
    start = threading.Barrier(len(arguments))
    errors: list[BaseException] = []

    def run(argument):
        try:
            start.wait()
            work(argument)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(argument,)) for argument in arguments]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return errors


def judge_run_done(run, timeout: float = 90.0):
    def finished():
        run.refresh_from_db()
        return run.status == "done"

    wait_for(finished, timeout=timeout, message=f"run {run.pk} did not finish")
    return run


def judge_run_resumed_after_a_kill(run, kill, restart, timeout: float = 120.0) -> int:
    """Kill the worker once some passes are done and others are being judged, start another,
    and sweep stale passes each second (beat would, every 30 s) until the run is finished.
    Returns how many passes the kill cut off."""
    from judges.models import Judgment, JudgmentStatus
    from judges.tasks import judgment_requeue_stale_task

    passes = Judgment.objects.filter(run=run)
    wait_for(lambda: passes.filter(status=JudgmentStatus.DONE).count() >= 2, timeout=60)
    wait_for(lambda: passes.filter(status=JudgmentStatus.RUNNING).exists())
    kill()
    in_flight = passes.filter(status=JudgmentStatus.RUNNING).count()
    restart()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.status == "done":
            break
        judgment_requeue_stale_task()
        time.sleep(1)
    return in_flight


class WorkerProcess:
    """One `celery -A evalsite worker` subprocess (thread pool, or `pool="gevent"`) against the
    test database."""

    def __init__(
        self,
        env: dict,
        log_path: Path,
        concurrency: int = 8,
        name: str = "w1",
        pool: str = "threads",
    ):
        self.env = env
        self.log_path = log_path
        self.concurrency = concurrency
        self.name = name
        self.pool = pool
        self.process: subprocess.Popen | None = None

    def start(self, ready_timeout: float = 60.0) -> "WorkerProcess":
        command = worker_command(
            self.pool,
            self.concurrency,
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-n",
            f"{self.name}-{os.getpid()}@%h",
        )
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        self._offset = self.log_path.stat().st_size
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=self.env, stdout=self._log, stderr=subprocess.STDOUT
        )
        wait_for(
            lambda: self.process.poll() is not None or b" ready." in self._new_log(),
            timeout=ready_timeout,
            message=f"worker did not start:\n{self.log_tail()}",
        )
        if self.process.poll() is not None:
            pytest.fail(f"worker exited ({self.process.returncode}):\n{self.log_tail()}")
        return self

    def _new_log(self) -> bytes:
        with open(self.log_path, "rb") as log:
            log.seek(self._offset)
            return log.read()

    def log_tail(self, chars: int = 4000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:]

    def kill(self) -> None:
        """SIGKILL: no warm shutdown, no acks, no cleanup, as when a machine dies."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        if getattr(self, "_log", None):
            self._log.close()


def worker_env(base_url: str, **overrides) -> dict:
    env = {**os.environ, **WORKER_JUDGE_SETTINGS}
    env.update(
        DATABASE_URL=database_url_for_worker(),
        EVALSITE_VAR_DIR=str(settings.VAR_DIR),
        ANTHROPIC_BASE_URL=base_url,
        JUDGE_SIMULATED="1",
        # The worker keeps the calibration gate a real judge has, as this process does.
        JUDGE_ONLINE_BEFORE_CALIBRATION="0",
        CELERY_TASK_ALWAYS_EAGER="0",
        PYTHONUNBUFFERED="1",
    )
    if settings.REDIS_URL:
        env["REDIS_URL"] = settings.REDIS_URL
    env.pop("ANTHROPIC_API_KEY", None)
    env.update({key: str(value) for key, value in overrides.items()})
    return env


@pytest.fixture(autouse=True)
def built_in_rubrics_back(request):
    """Every integration test is transactional, and each flushes the tables after it: the next
    one starts again from the rubrics and judge config the migrations seed."""
    if request.node.get_closest_marker("django_db") is not None:
        request.getfixturevalue("built_in_rubrics")


@pytest.fixture
def simulated_judge(settings):
    """The simulated Anthropic judge on a free port; this process's settings point at it."""
    handle = start_simulator()
    settings.ANTHROPIC_BASE_URL = handle.base_url
    settings.JUDGE_SIMULATED = True
    for name, value in WORKER_JUDGE_SETTINGS.items():
        setattr(settings, name, type(getattr(settings, name))(float(value)))
    yield handle
    handle.stop()


@pytest.fixture
def celery_worker(transactional_db, simulated_judge, tmp_path):
    """A real worker process on the test database and the simulated judge; more via .spawn()."""
    broker_purge()
    workers: list[WorkerProcess] = []

    def spawn(concurrency: int = 8, **env_overrides) -> WorkerProcess:
        worker = WorkerProcess(
            worker_env(simulated_judge.base_url, **env_overrides),
            tmp_path / f"worker{len(workers) + 1}.log",
            concurrency=concurrency,
            name=f"w{len(workers) + 1}",
        )
        workers.append(worker)
        return worker.start()

    first = spawn()
    first.spawn = spawn
    first.all = workers
    yield first
    for worker in workers:
        worker.stop()
    broker_purge()

"""More worker threads than database connections: passes wait for a pooled connection or are
retried, and a run always finishes. A pass with no connection is a transient failure."""

import os

import pytest
from celery.exceptions import Retry
from django.db import OperationalError, connection

from judges.models import JudgeConfig, Judgment, JudgmentStatus, Rubric
from judges.services import judge_run_start
from judges.tasks import judge_pass_task
from tests.integration.conftest import WorkerProcess, broker_purge, wait_for, worker_env
from tests.judges import sample_traces

THREADS = 12
POOL_SIZE = 2
WORKER_APP = f"evalsite-budget-{os.getpid()}"


def test_a_pass_without_a_connection_is_retried_not_failed(monkeypatch):
    # given the database refuses every connection
    def refused(judgment_id):
        raise OperationalError("FATAL: sorry, too many clients already")

    monkeypatch.setattr("judges.tasks.judgment_execute", refused)
    retried = {}

    def retry(**kwargs):
        retried.update(kwargs)
        return Retry("again", when=kwargs["countdown"])

    monkeypatch.setattr(judge_pass_task, "retry", retry)
    # when a pass runs, it asks to run again later instead of failing
    with pytest.raises(Retry):
        judge_pass_task(123)
    assert retried["countdown"] > 0
    assert isinstance(retried["exc"], OperationalError)


@pytest.fixture
def pooled_worker(transactional_db, simulated_judge, tmp_path):
    """A worker whose threads outnumber its pooled connections six to one."""
    broker_purge()
    env = worker_env(simulated_judge.base_url, DB_POOL_MAX_SIZE=POOL_SIZE, PGAPPNAME=WORKER_APP)
    worker = WorkerProcess(env, tmp_path / "worker.log", concurrency=THREADS).start()
    yield worker
    worker.stop()
    broker_purge()


def worker_connections() -> int:
    """Connections the worker holds: libpq labels them with the worker's PGAPPNAME."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [WORKER_APP]
        )
        return cursor.fetchone()[0]


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_more_threads_than_connections_finish_a_run(pooled_worker, simulated_judge):
    # given a worker with more threads than connections (pooled_worker)
    simulated_judge.set(latency_ms=150)
    traces = sample_traces.traces_mixed(12)
    rubric = Rubric.objects.get(name="Tool-call decision accuracy").versions.get(number=1)
    config = JudgeConfig.objects.get(name="default")
    peak = []

    # when a run of 24 passes is judged
    run = judge_run_start(rubric_version=rubric, config=config, traces=traces)

    def finished():
        if connection.vendor == "postgresql":
            peak.append(worker_connections())
        run.refresh_from_db()
        return run.status == "done"

    wait_for(finished, timeout=120, message=f"run did not finish:\n{pooled_worker.log_tail()}")

    # then every pass ended, none stuck, and the worker never held more than its pool
    passes = Judgment.objects.filter(run=run)
    assert passes.count() == 24
    assert not passes.exclude(status=JudgmentStatus.DONE).exists()
    if connection.vendor == "postgresql":
        assert 0 < max(peak) <= POOL_SIZE

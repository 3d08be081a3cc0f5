"""Celery tasks called as functions: dispatch in bounded batches, stale passes enqueued again."""

from datetime import timedelta

import pytest
from django.utils import timezone

from judges import tasks
from judges.models import JudgeConfig, Judgment, Rubric
from judges.services import judge_run_start
from tests.judges import sample_traces

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch):
    calls = []
    monkeypatch.setattr(tasks.judge_pass_task, "delay", lambda pk: calls.append(("pass", pk)))
    monkeypatch.setattr(
        tasks.judge_run_dispatch_task, "delay", lambda *a: calls.append(("dispatch", a))
    )
    # Enqueues after commit go through core.publish, which calls apply_async.
    monkeypatch.setattr(
        tasks.judge_pass_task, "apply_async", lambda a, **kw: calls.append(("pass", *a))
    )
    monkeypatch.setattr(
        tasks.judge_run_dispatch_task,
        "apply_async",
        lambda a, **kw: calls.append(("dispatch", tuple(a))),
    )
    return calls


def _run(traces, capture):
    version = Rubric.objects.get(name="Outcome 1-5").versions.get(number=1)
    with capture(execute=False):
        return judge_run_start(
            rubric_version=version, config=JudgeConfig.objects.get(name="default"), traces=traces
        )


def test_dispatch_enqueues_a_bounded_batch_then_hands_over(monkeypatch, sent, capture):
    monkeypatch.setattr(tasks, "DISPATCH_BATCH", 3)
    run = _run(sample_traces.traces_mixed(2), capture)
    ids = list(run.judgments.order_by("pk").values_list("pk", flat=True))

    tasks.judge_run_dispatch_task(run.pk)

    assert sent == [
        ("pass", ids[0]),
        ("pass", ids[1]),
        ("pass", ids[2]),
        ("dispatch", (run.pk, ids[2])),
    ]


def test_dispatch_sends_every_pending_pass_through_the_broker(capture):
    run = _run(sample_traces.traces_mixed(3), capture)
    ids = list(run.judgments.order_by("pk").values_list("pk", flat=True))
    app = tasks.judge_pass_task.app
    app.control.purge()

    tasks.judge_run_dispatch_task(run.pk)

    received = []
    with app.connection_for_read() as connection:
        queue = connection.SimpleQueue("celery")
        while True:
            try:
                message = queue.get(timeout=1)
            except queue.Empty:
                break
            received.append((message.headers["task"], message.payload[0][0]))
            message.ack()
        queue.close()
    assert sorted(received) == [(tasks.judge_pass_task.name, pk) for pk in ids]


def test_a_large_run_is_fanned_out_by_the_dispatch_task(monkeypatch, sent, capture):
    from judges import services

    monkeypatch.setattr(services, "DIRECT_ENQUEUE_LIMIT", 2)
    run = _run(sample_traces.traces_mixed(3), capture)

    with capture(execute=True):
        services._enqueue_after_commit(run)

    assert sent == [("dispatch", (run.pk,))]
    assert Judgment.objects.filter(run=run).count() == 6


def test_the_stale_sweep_enqueues_lost_passes_once(sent, capture, settings):
    run = _run(sample_traces.traces_mixed(1), capture)
    old = timezone.now() - timedelta(seconds=settings.JUDGE_CLAIM_LEASE_SECONDS + 5)
    Judgment.objects.filter(run=run).update(created_at=old)

    first = tasks.judgment_requeue_stale_task()
    second = tasks.judgment_requeue_stale_task()

    assert (first, second) == (2, 0)
    assert sorted(pk for kind, pk in sent) == sorted(run.judgments.values_list("pk", flat=True))

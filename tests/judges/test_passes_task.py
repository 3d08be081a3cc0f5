"""Several passes in one message (JUDGE_PASSES_PER_TASK): grouped by the dispatch, run at once
through the real SDK against the simulated judge, each stored once; a retried pass goes back as
a message of its own. Here the passes of a message run on OS threads (the pool a test process
has); tests/integration/test_judging_green_threads.py runs them on a gevent worker."""

import threading
import time
from functools import partial

import pytest
from django.db import connections

from judges import concurrency, tasks
from judges.concurrency import each_at_once, green_threads
from judges.models import Judgment, JudgmentStatus, Verdict
from judges.services import judge_run_start
from tests.built_in_rows import built_in_rubrics_seed
from tests.judges import sample_traces
from traces.models import Project


@pytest.fixture(autouse=True)
def seeded(request):
    """A test without a transaction of its own flushes the tables after it: put the built-in
    rubrics and the default config back for whichever test comes next."""
    if request.node.get_closest_marker("django_db") is not None:
        built_in_rubrics_seed()


def _run(traces, tool_rubric, default_config, capture, published=None):
    with capture(execute=False):
        run = judge_run_start(rubric_version=tool_rubric, config=default_config, traces=traces)
    if published is not None:
        # Without a test transaction the run's own publishes happen at its commit.
        published.clear()
    return run


@pytest.fixture
def published(monkeypatch):
    """What the passes of a message publish again (retries), instead of a broker."""
    sent = []
    monkeypatch.setattr(
        tasks.judge_pass_task,
        "apply_async",
        lambda args, **options: sent.append((args[0], options.get("countdown"))),
    )
    return sent


@pytest.mark.django_db(transaction=True)
def test_the_passes_of_a_message_ask_the_provider_at_the_same_time(
    simulator, tool_rubric, default_config, capture, published
):
    simulator.set(latency_ms=600, flip_rate=0.0)
    traces = sample_traces.traces_mixed(6)
    run = _run(traces, tool_rubric, default_config, capture, published)
    ids = list(run.judgments.order_by("pk").values_list("pk", flat=True))

    started = time.monotonic()
    outcomes = tasks.judge_passes_task(ids)
    elapsed = time.monotonic() - started

    assert outcomes == ["done"] * 12
    assert simulator.stats()["max_in_flight"] == 12
    assert elapsed < 12 * 0.6 / 2  # in sequence they take 7.2 s
    assert Judgment.objects.filter(run=run, status=JudgmentStatus.DONE).count() == 12
    assert Verdict.objects.filter(run=run).count() == 6
    assert published == []


@pytest.mark.django_db(transaction=True)
def test_a_redelivered_message_stores_nothing_twice_and_calls_nobody(
    simulator, tool_rubric, default_config, capture, published
):
    run = _run(sample_traces.traces_mixed(3), tool_rubric, default_config, capture, published)
    ids = list(run.judgments.values_list("pk", flat=True))
    tasks.judge_passes_task(ids)
    calls = simulator.request_count
    stored = list(Judgment.objects.filter(run=run).values_list("pk", "score", "completed_at"))

    assert tasks.judge_passes_task(ids) == ["skipped"] * 6

    assert calls == 6
    assert simulator.request_count == calls
    assert sorted(stored) == sorted(
        Judgment.objects.filter(run=run).values_list("pk", "score", "completed_at")
    )
    assert Verdict.objects.filter(run=run).count() == 3


@pytest.mark.django_db(transaction=True)
def test_a_transient_error_sends_that_pass_back_alone_after_its_delay(
    simulator, tool_rubric, default_config, capture, published
):
    # One 529 among four calls: whichever pass draws it is handed back, the others are stored.
    simulator.set(script=["529"], retry_after_s=0)
    run = _run(sample_traces.traces_mixed(2), tool_rubric, default_config, capture, published)
    ids = list(run.judgments.order_by("pk").values_list("pk", flat=True))

    outcomes = tasks.judge_passes_task(ids)

    assert sorted(outcomes) == ["done", "done", "done", "retry"]
    retried = ids[outcomes.index("retry")]
    assert [pk for pk, _ in published] == [retried]
    assert published[0][1] > 0
    pending = Judgment.objects.get(pk=retried)
    assert (pending.status, pending.attempts) == (JudgmentStatus.PENDING, 1)
    assert "InternalServerError" in pending.error or "529" in pending.error

    # The retry, delivered as a single pass, finishes the trace with one more call.
    assert tasks.judge_pass_task(retried) == "done"
    assert simulator.stats()["answers"] == 4
    assert Verdict.objects.filter(run=run).count() == 2


@pytest.mark.django_db
def test_the_dispatch_groups_passes_by_the_setting(settings, monkeypatch, tool_rubric, capture):
    from judges.models import JudgeConfig

    settings.JUDGE_PASSES_PER_TASK = 4
    sent = []
    monkeypatch.setattr(
        tasks.judge_passes_task, "apply_async", lambda a, **kw: sent.append(("group", *a))
    )
    monkeypatch.setattr(
        tasks.judge_pass_task, "apply_async", lambda a, **kw: sent.append(("pass", *a))
    )
    config = JudgeConfig.objects.get(name="default")
    run = _run(sample_traces.traces_mixed(5), tool_rubric, config, capture)
    ids = list(run.judgments.order_by("pk").values_list("pk", flat=True))

    tasks.judge_run_dispatch_task(run.pk)

    # Ten passes: two messages of four, and one of two; none left out, none sent twice.
    assert sent == [("group", ids[0:4]), ("group", ids[4:8]), ("group", ids[8:10])]


@pytest.mark.django_db
def test_a_dispatch_hands_over_after_a_bounded_number_of_messages(
    settings, monkeypatch, tool_rubric, capture
):
    from judges.models import JudgeConfig

    settings.JUDGE_PASSES_PER_TASK = 3
    monkeypatch.setattr(tasks, "DISPATCH_BATCH", 2)
    sent = []
    monkeypatch.setattr(
        tasks.judge_passes_task, "apply_async", lambda a, **kw: sent.append(("group", *a))
    )
    monkeypatch.setattr(
        tasks.judge_run_dispatch_task, "delay", lambda *a: sent.append(("dispatch", *a))
    )
    config = JudgeConfig.objects.get(name="default")
    run = _run(sample_traces.traces_mixed(4), tool_rubric, config, capture)
    ids = list(run.judgments.order_by("pk").values_list("pk", flat=True))

    tasks.judge_run_dispatch_task(run.pk)

    # Two messages of three passes, then the rest is the next dispatch's.
    assert sent == [("group", ids[0:3]), ("group", ids[3:6]), ("dispatch", run.pk, ids[5])]


@pytest.mark.django_db
def test_passes_are_published_one_a_message_by_default(monkeypatch):
    sent = []
    monkeypatch.setattr(
        tasks.judge_pass_task, "apply_async", lambda a, **kw: sent.append(("pass", *a))
    )
    monkeypatch.setattr(
        tasks.judge_passes_task, "apply_async", lambda a, **kw: sent.append(("group", *a))
    )

    assert tasks.judge_passes_publish([7, 8, 9]) == 3

    assert sent == [("pass", 7), ("pass", 8), ("pass", 9)]


def test_a_group_stops_publishing_at_the_first_broker_failure(settings, monkeypatch):
    settings.JUDGE_PASSES_PER_TASK = 2
    sent = []

    def publish(task, *args, **options):
        sent.append(args)
        return len(sent) < 2  # the second message finds the broker down

    monkeypatch.setattr(tasks, "task_publish", publish)

    assert tasks.judge_passes_publish([1, 2, 3, 4, 5]) == 2
    assert sent == [([1, 2],), ([3, 4],)]


def test_outside_a_gevent_worker_the_passes_run_on_threads():
    import threading

    assert not green_threads()
    names = each_at_once(lambda _: threading.current_thread().name, range(3))
    assert all(name.startswith("judge-pass") for name in names)
    assert each_at_once(lambda item: item * 2, []) == []


@pytest.fixture
def no_idle_wrappers(monkeypatch):
    monkeypatch.setattr(concurrency, "_idle_wrappers", {})


def _in_new_threads(function, count: int) -> list:
    """`function()` in `count` threads made for it, one after the other, as a worker makes a
    green thread per pass; what each returned."""
    results = []
    for _ in range(count):
        thread = threading.Thread(target=lambda: results.append(function()))
        thread.start()
        thread.join()
    return results


def _wrapper_after_a_query():
    Project.objects.count()
    return connections["default"]


@pytest.mark.django_db(transaction=True)
def test_passes_one_after_another_reuse_one_connection_object(no_idle_wrappers):
    wrappers = _in_new_threads(
        lambda: concurrency.call_with_reused_wrappers(lambda _: _wrapper_after_a_query(), None),
        20,
    )

    # Without reuse each thread made its own (a reference cycle left to the collector).
    assert len({id(wrapper) for wrapper in wrappers}) == 1
    assert wrappers[0].connection is None  # closed: the database connection is not kept


@pytest.mark.django_db(transaction=True)
def test_passes_at_the_same_time_never_share_a_connection_object(no_idle_wrappers):
    both_in = threading.Barrier(2, timeout=10)

    def pass_in_flight(_):
        wrapper = _wrapper_after_a_query()
        both_in.wait()
        return wrapper

    run_two_at_once = partial(concurrency.call_with_reused_wrappers, pass_in_flight)

    first = each_at_once(run_two_at_once, [1, 2])
    second = each_at_once(run_two_at_once, [1, 2])

    assert first[0] is not first[1]
    assert set(map(id, second)) == set(map(id, first))  # the next two take them over


@pytest.mark.django_db(transaction=True)
def test_calls_in_flight_are_bounded_by_the_provider_connections(
    settings, simulator, tool_rubric, default_config, capture, published
):
    settings.JUDGE_PROVIDER_CONNECTIONS = 2
    settings.JUDGE_TIMEOUT_SECONDS = 10.0
    simulator.set(latency_ms=300)
    run = _run(sample_traces.traces_mixed(3), tool_rubric, default_config, capture, published)

    outcomes = tasks.judge_passes_task(list(run.judgments.values_list("pk", flat=True)))

    # Six passes at once, two connections: the others waited for one, none failed.
    assert outcomes == ["done"] * 6
    assert simulator.stats()["max_in_flight"] == 2


def test_a_worker_reserves_only_the_messages_it_runs():
    # A message of passes reserved beyond the worker's slots waits a whole round of calls
    # while another worker may sit idle.
    from evalsite.celery import app

    assert app.conf.worker_prefetch_multiplier == 1

"""Judging on `celery worker --pool gevent` with several passes a message: many calls in flight
through the real SDK, and the same guarantees as the thread pool: each pass stored once, each
answer paid once, the shared rate limit kept, identical requests asked once, a killed worker's
passes taken over."""

import time
import uuid

import pytest

from judges.models import JudgeConfig, Judgment, JudgmentStatus, Rubric, Verdict
from judges.providers import rate_limit_scope
from judges.ratelimit import WINDOW_SECONDS, window_requests
from judges.services import judge_run_start
from reviews.models import ReviewItem
from tests.integration.conftest import (
    WorkerProcess,
    broker_purge,
    judge_run_done,
    judge_run_resumed_after_a_kill,
    wait_for,
    worker_env,
)
from tests.judges import sample_traces

pytestmark = [
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
    # The rate limit's Redis counters are per provider and minute, shared by every worker.
    pytest.mark.xdist_group("judge-rate-limit"),
]

PASSES_PER_TASK = 20


@pytest.fixture
def green_workers(simulated_judge, settings, tmp_path):
    """Start gevent workers with `.spawn(**env)`; this process groups passes as they do."""
    settings.JUDGE_PASSES_PER_TASK = PASSES_PER_TASK
    broker_purge()
    workers: list[WorkerProcess] = []

    def spawn(concurrency: int = 4, **env_overrides) -> WorkerProcess:
        env = {"JUDGE_PASSES_PER_TASK": PASSES_PER_TASK, **env_overrides}
        worker = WorkerProcess(
            worker_env(simulated_judge.base_url, **env),
            tmp_path / f"green{len(workers) + 1}.log",
            concurrency=concurrency,
            name=f"g{len(workers) + 1}",
            pool="gevent",
        )
        workers.append(worker)
        return worker.start()

    yield spawn
    for worker in workers:
        worker.stop()
    broker_purge()


def _tool_rubric():
    return Rubric.objects.get(name="Tool-call decision accuracy").versions.get(number=1)


def _config():
    return JudgeConfig.objects.get(name="default")


def _assert_each_pass_stored_once(run, traces):
    judgments = Judgment.objects.filter(run=run)
    assert judgments.count() == len(traces) * 2
    assert set(judgments.values_list("status", flat=True)) <= {
        JudgmentStatus.DONE,
        JudgmentStatus.FAILED,
    }
    assert Verdict.objects.filter(run=run).count() == len(traces)
    pairs = list(judgments.values_list("trace_id", "pass_index"))
    assert len(pairs) == len(set(pairs))


def test_one_green_worker_keeps_a_hundred_calls_in_flight(green_workers, simulated_judge):
    simulated_judge.set(latency_ms=2500, flip_rate=0.0)
    # 4 messages x 20 passes: 80 at once on one process; calls longer than the tests' 2 s.
    green_workers(concurrency=4, JUDGE_TIMEOUT_SECONDS=15, JUDGE_CLAIM_LEASE_SECONDS=30)
    traces = sample_traces.traces_mixed(40)

    started = time.monotonic()
    run = judge_run_done(
        judge_run_start(rubric_version=_tool_rubric(), config=_config(), traces=traces)
    )
    elapsed = time.monotonic() - started

    stats = simulated_judge.stats()
    # A thread pool of 4 would hold 4 calls; here the whole first round is in flight at once.
    assert stats["max_in_flight"] >= 60
    # 80 calls of 2.5 s in sequence would take 200 s; in one round, a few seconds.
    assert elapsed < 40
    _assert_each_pass_stored_once(run, traces)
    done = Judgment.objects.filter(run=run, status=JudgmentStatus.DONE, served_from_cache=False)
    assert stats["answers"] == done.count() == 80


def test_provider_errors_are_retried_and_each_answer_is_paid_once(green_workers, simulated_judge):
    simulated_judge.set(latency_ms=300, error_rate=0.3, timeout_rate=0.05, timeout_hang_s=3)
    green_workers(concurrency=2)
    traces = sample_traces.traces_mixed(20)

    run = judge_run_done(
        judge_run_start(rubric_version=_tool_rubric(), config=_config(), traces=traces),
        timeout=150,
    )

    _assert_each_pass_stored_once(run, traces)
    stats = simulated_judge.stats()
    assert stats.get("errors_429", 0) + stats.get("errors_500", 0) + stats.get("errors_529", 0)
    retried = Judgment.objects.filter(run=run, attempts__gt=0)
    assert retried.exists()
    done = Judgment.objects.filter(run=run, status=JudgmentStatus.DONE, served_from_cache=False)
    assert stats["answers"] == done.count()
    for judgment in Judgment.objects.filter(run=run, status=JudgmentStatus.FAILED):
        assert ReviewItem.objects.filter(trace_id=judgment.trace_id).exists()


def test_two_green_workers_share_the_rate_limit(green_workers, simulated_judge, settings):
    rpm = 12
    simulated_judge.set(latency_ms=50)
    # An account of this test's own: other tests' calls this minute count against theirs.
    settings.ANTHROPIC_API_KEY = f"rate-limit-{uuid.uuid4()}"
    for _ in range(2):
        green_workers(
            concurrency=2, JUDGE_RATE_LIMIT_RPM=rpm, ANTHROPIC_API_KEY=settings.ANTHROPIC_API_KEY
        )
    traces = sample_traces.traces_mixed(20)
    scope = rate_limit_scope(_config())
    first_window = int(time.time() // WINDOW_SECONDS)

    run = judge_run_start(rubric_version=_tool_rubric(), config=_config(), traces=traces)
    wait_for(lambda: window_requests(scope) >= rpm, timeout=2 * WINDOW_SECONDS + 30)
    time.sleep(3)  # anything past the limit would have been sent by now
    unfinished = Judgment.objects.filter(
        run=run, status__in=(JudgmentStatus.PENDING, JudgmentStatus.RUNNING)
    ).count()
    requests = simulated_judge.request_count
    # Read last: a window that began meanwhile only allows more.
    windows = int(time.time() // WINDOW_SECONDS) - first_window + 1

    # 40 passes were ready at once on two processes; the shared window filled and no more than
    # `rpm` a minute went (a block a worker reserved and had no pass left for goes unused).
    assert 0 < requests <= rpm * windows
    # The rest wait unanswered: given back as pending, or, when the next window is a few
    # seconds off, held running in the limiter until it begins.
    assert unfinished >= 40 - rpm * windows
    # Waiting for the limit is not a failed attempt.
    assert not Judgment.objects.filter(run=run, attempts__gt=0).exists()


def test_identical_requests_in_one_message_are_asked_once(green_workers, simulated_judge):
    simulated_judge.set(latency_ms=1500)
    traces = sample_traces.traces_mixed(5)
    green_workers(concurrency=2)

    # Two runs of one version on the same traces: ten pairs of identical requests at once.
    first = judge_run_start(rubric_version=_tool_rubric(), config=_config(), traces=traces)
    second = judge_run_start(rubric_version=_tool_rubric(), config=_config(), traces=traces)
    judge_run_done(first)
    judge_run_done(second)

    assert simulated_judge.stats()["answers"] == 10
    reused = Judgment.objects.filter(run__in=[first, second], served_from_cache=True)
    assert reused.count() == 10
    first_scores = dict(Verdict.objects.filter(run=first).values_list("trace_id", "score"))
    assert dict(Verdict.objects.filter(run=second).values_list("trace_id", "score")) == first_scores


def test_a_green_worker_killed_mid_run_loses_nothing(green_workers, simulated_judge):
    simulated_judge.set(latency_ms=1500)
    traces = sample_traces.traces_mixed(30)
    killed = green_workers(concurrency=2)
    run = judge_run_start(rubric_version=_tool_rubric(), config=_config(), traces=traces)

    in_flight = judge_run_resumed_after_a_kill(
        run, killed.kill, lambda: green_workers(concurrency=2)
    )

    assert in_flight > 0
    judge_run_done(run, timeout=1)
    _assert_each_pass_stored_once(run, traces)
    assert not Judgment.objects.filter(run=run, status=JudgmentStatus.FAILED).exists()
    # Only the calls cut off by the kill were made a second time.
    assert simulated_judge.request_count <= 60 + in_flight

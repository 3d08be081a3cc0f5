"""Judging through the real stack: a `celery worker` process, the database, the broker, and the
simulated judge spoken to through the real SDK. Nothing lost, nothing duplicated."""

import pytest
from django.db import transaction

from judges.calibration import judge_calibration_update
from judges.costs import call_cost_usd
from judges.models import (
    JudgeConfig,
    JudgeRun,
    Judgment,
    JudgmentStatus,
    Rubric,
    Verdict,
    VerdictStatus,
)
from judges.services import judge_config_default, judge_run_start
from reviews.models import ReviewItem
from tests.integration.conftest import (
    judge_run_done,
    judge_run_resumed_after_a_kill,
    wait_for,
)
from tests.judges import sample_traces
from traces.models import Trace
from traces.signals import spans_ingested, trace_completed

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _tool_rubric():
    return Rubric.objects.get(name="Tool-call decision accuracy").versions.get(number=1)


def _config(**fields):
    config = JudgeConfig.objects.get(name="default")
    for name, value in fields.items():
        setattr(config, name, value)
    config.save()
    return config


def _assert_nothing_lost_or_duplicated(run, traces):
    judgments = Judgment.objects.filter(run=run)
    assert judgments.count() == len(traces) * 2
    assert not judgments.exclude(status__in=[JudgmentStatus.DONE, JudgmentStatus.FAILED]).exists()
    assert Verdict.objects.filter(run=run).count() == len(traces)
    for trace in traces:
        verdict = Verdict.objects.get(run=run, trace=trace)
        queued = ReviewItem.objects.filter(trace=trace, verdict=verdict).exists()
        # Every trace ends with an agreed score, or in front of a person.
        assert (verdict.status == VerdictStatus.AGREED and verdict.score is not None) or queued


def test_flips_become_disputes_and_review_items(celery_worker, simulated_judge):
    simulated_judge.set(flip_rate=1.0)
    traces = sample_traces.traces_mixed(6)

    run = judge_run_start(rubric_version=_tool_rubric(), config=_config(), traces=traces)
    judge_run_done(run)

    verdicts = Verdict.objects.filter(run=run)
    assert verdicts.count() == 6
    assert set(verdicts.values_list("status", flat=True)) == {VerdictStatus.DISPUTED}
    assert ReviewItem.objects.filter(reason="passes_disagree").count() == 6
    assert simulated_judge.request_count == 12


def test_without_flips_the_passes_agree_and_match_the_visible_rules(celery_worker, simulated_judge):
    passing = [make() for make in sample_traces.PASSING]
    failing = [make() for make in sample_traces.FAILING]

    run = judge_run_start(rubric_version=_tool_rubric(), config=_config(), traces=passing + failing)
    judge_run_done(run)

    scores = {v.trace_id: v.score for v in Verdict.objects.filter(run=run)}
    assert [scores[t.pk] for t in passing] == [1.0, 1.0, 1.0]
    assert [scores[t.pk] for t in failing] == [0.0, 0.0, 0.0]


def test_injected_errors_timeouts_and_malformed_replies_lose_nothing(
    celery_worker, simulated_judge
):
    simulated_judge.set(
        latency_ms=50, error_rate=0.3, timeout_rate=0.05, timeout_hang_s=3, malformed_rate=0.1
    )
    traces = sample_traces.traces_mixed(12)

    run = judge_run_start(rubric_version=_tool_rubric(), config=_config(), traces=traces)
    judge_run_done(run, timeout=150)

    _assert_nothing_lost_or_duplicated(run, traces)
    stats = simulated_judge.stats()
    assert stats.get("errors_429", 0) + stats.get("errors_500", 0) + stats.get("errors_529", 0)
    done = Judgment.objects.filter(run=run, status=JudgmentStatus.DONE, served_from_cache=False)
    # Each stored reply is exactly one answered call: no pass was paid for twice.
    assert stats["answers"] == done.count()
    for judgment in Judgment.objects.filter(run=run).exclude(parse_status="ok"):
        assert ReviewItem.objects.filter(trace_id=judgment.trace_id).exists()


def test_a_worker_killed_mid_run_loses_nothing(celery_worker, simulated_judge):
    simulated_judge.set(latency_ms=1500)
    traces = sample_traces.traces_mixed(10)
    run = judge_run_start(rubric_version=_tool_rubric(), config=_config(), traces=traces)

    in_flight = judge_run_resumed_after_a_kill(run, celery_worker.kill, celery_worker.spawn)

    assert in_flight > 0
    judge_run_done(run, timeout=1)
    _assert_nothing_lost_or_duplicated(run, traces)
    assert not Judgment.objects.filter(run=run, status=JudgmentStatus.FAILED).exists()
    # Only the calls cut off by the kill were made a second time.
    assert simulated_judge.request_count <= 20 + in_flight


def test_a_repeated_request_costs_no_second_call(celery_worker, simulated_judge):
    traces = sample_traces.traces_mixed(3)
    first = judge_run_done(
        judge_run_start(rubric_version=_tool_rubric(), config=_config(), traces=traces)
    )
    calls = simulated_judge.request_count

    again = judge_run_done(
        judge_run_start(rubric_version=_tool_rubric(), config=_config(), traces=traces)
    )

    assert calls == 6
    assert simulated_judge.request_count == calls
    assert Judgment.objects.filter(run=again, served_from_cache=True).count() == 6
    first_scores = dict(Verdict.objects.filter(run=first).values_list("trace_id", "score"))
    assert dict(Verdict.objects.filter(run=again).values_list("trace_id", "score")) == first_scores


def test_a_backfill_through_the_batches_api_costs_half(celery_worker, simulated_judge):
    simulated_judge.set(batch_latency_ms=300)
    traces = sample_traces.traces_mixed(4)

    run = judge_run_start(
        rubric_version=_tool_rubric(), config=_config(use_batch_api=True), traces=traces
    )
    judge_run_done(run, timeout=60)

    stats = simulated_judge.stats()
    counts = (stats.get("batches"), stats.get("batch_requests"), stats.get("requests", 0))
    assert counts == (1, 8, 0)
    _assert_nothing_lost_or_duplicated(run, traces)
    judgment = Judgment.objects.filter(run=run).exclude(provider_batch_id="").first()
    tokens = {
        "input_tokens": judgment.input_tokens,
        "output_tokens": judgment.output_tokens,
        "cache_read_tokens": judgment.cache_read_tokens,
        "cache_write_tokens": judgment.cache_write_tokens,
    }
    live_price = call_cost_usd(judgment.config.model, **tokens)
    assert judgment.cost_usd == call_cost_usd(judgment.config.model, batch=True, **tokens)
    assert 0 < judgment.cost_usd < live_price


def test_online_judging_judges_settled_traces_and_late_spans_make_verdicts_stale(
    celery_worker, simulated_judge
):
    rubric = Rubric.objects.get(name="Tool-call decision accuracy")
    rubric.judge_new_traces = True
    rubric.sample_rate = 1.0
    rubric.save()
    # Online judging uses calibrated judge versions only.
    judge_calibration_update(_tool_rubric(), judge_config_default(), [(1, 1), (0, 0)] * 15)
    trace = sample_traces.support_cancel_ok()

    with transaction.atomic():
        trace_completed.send(sender=Trace, trace=trace)
    verdict = wait_for(lambda: Verdict.objects.filter(trace=trace).first(), timeout=60)
    with transaction.atomic():
        spans_ingested.send(sender=Trace, trace_ids=[trace.pk])

    assert JudgeRun.objects.get(pk=verdict.run_id).online
    verdict.refresh_from_db()
    assert verdict.stale

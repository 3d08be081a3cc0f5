"""judgment_execute: one pass through the simulated judge, stored, retried, reconciled."""

import pytest

from judges.execution import judgment_execute, judgments_stale
from judges.models import Judgment, JudgmentStatus, ParseStatus, Rubric, Verdict, VerdictStatus
from judges.services import judge_run_start
from reviews.models import ReviewItem
from tests.judges import sample_traces

pytestmark = pytest.mark.django_db


def _start(version, config, traces, capture):
    with capture(execute=False):
        run = judge_run_start(rubric_version=version, config=config, traces=traces)
    return run, list(run.judgments.order_by("trace_id", "pass_index"))


def _execute_all(judgments):
    return [judgment_execute(j.pk) for j in judgments]


def test_two_passes_agree_on_a_passing_trace(simulator, tool_rubric, default_config, capture):
    trace = sample_traces.travel_book_ok()
    run, judgments = _start(tool_rubric, default_config, [trace], capture)

    outcomes = _execute_all(judgments)

    assert [o.state for o in outcomes] == ["done", "done"]
    verdict = Verdict.objects.get(run=run, trace=trace)
    assert (verdict.status, verdict.score) == (VerdictStatus.AGREED, 1.0)
    stored = Judgment.objects.filter(run=run).order_by("pass_index")
    assert all(j.input_tokens > 0 and j.cost_usd > 0 and j.request_hash for j in stored)
    assert stored[0].cache_write_tokens > 0 and stored[1].cache_read_tokens > 0
    assert stored[0].request_hash != stored[1].request_hash
    run.refresh_from_db()
    assert run.status == "done"


def test_a_failing_trace_agrees_on_zero_and_cites_the_span(
    simulator, tool_rubric, default_config, capture
):
    trace = sample_traces.support_confident_after_error()
    run, judgments = _start(tool_rubric, default_config, [trace], capture)

    _execute_all(judgments)

    verdict = Verdict.objects.get(run=run)
    assert (verdict.status, verdict.score) == (VerdictStatus.AGREED, 0.0)
    cited = Judgment.objects.filter(run=run).first().cited_spans
    cancel = trace.spans.get(name="cancel_order").span_id
    assert {"cited": "cancel_order", "span_id": cancel} in cited


def test_a_flipped_second_pass_disputes_the_verdict_and_queues_review(
    simulator, tool_rubric, default_config, capture
):
    simulator.set(flip_rate=1.0)
    trace = sample_traces.coding_fix_ok()
    run, judgments = _start(tool_rubric, default_config, [trace], capture)

    _execute_all(judgments)

    verdict = Verdict.objects.get(run=run)
    assert verdict.status == VerdictStatus.DISPUTED
    assert "pass scores 1, 0" in verdict.reason
    item = ReviewItem.objects.get(trace=trace)
    assert (item.reason, item.verdict_id) == ("passes_disagree", verdict.pk)


def test_a_malformed_reply_is_kept_raw_and_routed_to_review(
    simulator, tool_rubric, default_config, capture
):
    simulator.set(script=["ok", "malformed"])
    trace = sample_traces.support_cancel_ok()
    run, judgments = _start(tool_rubric, default_config, [trace], capture)

    _execute_all(judgments)

    bad = Judgment.objects.get(run=run, pass_index=1)
    assert bad.parse_status == ParseStatus.UNPARSEABLE and bad.raw_response and bad.score is None
    assert Verdict.objects.get(run=run).status == VerdictStatus.DISPUTED
    assert ReviewItem.objects.filter(trace=trace, reason="unparseable").count() == 1


def test_a_transient_error_asks_for_a_retry_then_succeeds(
    settings, simulator, tool_rubric, default_config, capture
):
    settings.JUDGE_RETRY_MAX_SECONDS = 5
    simulator.set(script=["529"], retry_after_s=2)
    trace = sample_traces.support_cancel_ok()
    run, judgments = _start(tool_rubric, default_config, [trace], capture)

    first = judgment_execute(judgments[0].pk)
    again = judgment_execute(judgments[0].pk)

    # Backoff from 0.01 s would be tiny; the provider's retry-after wins.
    assert first.state == "retry" and 2 <= first.retry_in <= 5
    assert again.state == "done"
    judgment = Judgment.objects.get(pk=judgments[0].pk)
    assert (judgment.attempts, judgment.status) == (1, JudgmentStatus.DONE)


def test_past_the_retry_cap_the_pass_fails_and_the_trace_goes_to_review(
    simulator, tool_rubric, default_config, capture
):
    simulator.set(script=["500", "500", "500"])
    trace = sample_traces.support_cancel_ok()
    run, judgments = _start(tool_rubric, default_config, [trace], capture)

    states = [judgment_execute(judgments[0].pk).state for _ in range(3)]
    judgment_execute(judgments[1].pk)

    assert states == ["retry", "retry", "failed"]
    failed = Judgment.objects.get(pk=judgments[0].pk)
    assert failed.parse_status == ParseStatus.CALL_FAILED and "gave up after 3" in failed.error
    assert Verdict.objects.get(run=run).status == VerdictStatus.DISPUTED
    assert ReviewItem.objects.filter(trace=trace, reason="call_failed").exists()
    assert simulator.request_count == 4


def test_a_repeated_request_is_served_from_the_stored_judgment(
    simulator, tool_rubric, default_config, capture
):
    trace = sample_traces.travel_book_ok()
    _, first = _start(tool_rubric, default_config, [trace], capture)
    _execute_all(first)
    calls_before = simulator.request_count

    run, again = _start(tool_rubric, default_config, [trace], capture)
    _execute_all(again)

    assert simulator.request_count == calls_before == 2
    reused = Judgment.objects.filter(run=run)
    assert all(j.served_from_cache and j.cost_usd == 0 for j in reused)
    assert Verdict.objects.get(run=run).status == VerdictStatus.AGREED


def test_a_second_delivery_of_a_finished_pass_does_nothing(
    simulator, tool_rubric, default_config, capture
):
    trace = sample_traces.travel_book_ok()
    _, judgments = _start(tool_rubric, default_config, [trace], capture)
    _execute_all(judgments)

    repeat = judgment_execute(judgments[0].pk)

    assert repeat.state == "skipped"
    assert simulator.request_count == 2
    assert Verdict.objects.count() == 1


def test_a_pass_whose_worker_died_is_released_once_its_lease_ran_out(
    settings, tool_rubric, default_config, capture
):
    from datetime import timedelta

    from django.utils import timezone

    trace = sample_traces.travel_book_ok()
    _, judgments = _start(tool_rubric, default_config, [trace], capture)
    expired = timezone.now() - timedelta(seconds=1)
    Judgment.objects.filter(pk=judgments[0].pk).update(status="running", lease_until=expired)
    Judgment.objects.filter(pk=judgments[1].pk).update(
        status="running", lease_until=timezone.now() + timedelta(minutes=5)
    )

    released = judgments_stale()

    assert released == [judgments[0].pk]
    assert Judgment.objects.get(pk=judgments[0].pk).status == JudgmentStatus.PENDING
    assert judgments_stale() == []


def test_a_template_that_fails_on_this_trace_fails_the_pass_without_a_call(
    simulator, default_config, capture
):
    from judges.models import RubricVersion

    version = RubricVersion.objects.create(
        rubric=Rubric.objects.get(name="General trace judge"),
        number=2,
        system_prompt="Score from 0 to 10.",
        user_template="{{ trace_json }} {{ 10 // score_range[0] }}",
        score_type="range",
        score_min=0,
        score_max=10,
        output_format="score_reason",
    )
    trace = sample_traces.travel_book_ok()
    _, judgments = _start(version, default_config, [trace], capture)

    outcome = judgment_execute(judgments[0].pk)

    failed = Judgment.objects.get(pk=judgments[0].pk)
    assert outcome.state == "failed" and failed.status == JudgmentStatus.FAILED
    assert "template failed" in failed.error and "division" in failed.error
    assert simulator.request_count == 0

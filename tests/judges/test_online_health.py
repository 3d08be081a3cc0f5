"""Why (not) judged: online judging records each rule's decision on a trace, judged or the
reason it was not, and counts them per rule and hour."""

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from judges.models import (
    Judgment,
    JudgmentStatus,
    OnlineOutcome,
    OnlineRuleHour,
    ParseStatus,
    RubricVersionStatus,
    TraceOnlineDecision,
)
from judges.online_health import provider_health, trace_online_decisions
from judges.services import trace_judge_online
from tests.factories import JudgmentFactory, ProjectFactory
from tests.judges import sample_traces
from tests.judges.online_rules import rule_live

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_provider_health():
    provider_health.forget()
    yield
    provider_health.forget()


@pytest.fixture
def config_failing_at_three(settings, default_config):
    """The default judge config, whose provider counts as failing after three failed calls."""
    settings.JUDGE_PROVIDER_FAILING_CALLS = 3
    return default_config


def _failed_call(config, completed_at) -> None:
    JudgmentFactory(
        config=config,
        status=JudgmentStatus.FAILED,
        parse_status=ParseStatus.CALL_FAILED,
        completed_at=completed_at,
    )


def _counts(rubric) -> dict:
    return dict(OnlineRuleHour.objects.filter(rubric=rubric).values_list("outcome", "count"))


def _judge(trace, capture):
    with capture(execute=False), transaction.atomic():
        return trace_judge_online(trace)


def test_a_judged_trace_is_recorded_and_counted(capture):
    rubric = rule_live("Tool-call decision accuracy")
    first, second = sample_traces.travel_book_ok(), sample_traces.coding_fix_ok()

    _judge(first, capture)
    _judge(second, capture)

    # One row per rule, project, hour and outcome, added to by each trace.
    assert _counts(rubric) == {OnlineOutcome.JUDGED: 2}
    assert OnlineRuleHour.objects.filter(rubric=rubric).count() == 1
    decision = TraceOnlineDecision.objects.get(trace=first, rubric=rubric)
    assert decision.outcome == OnlineOutcome.JUDGED
    hour = OnlineRuleHour.objects.filter(rubric=rubric).first().hour
    assert (hour.minute, hour.second) == (0, 0)


def test_counts_add_up_within_the_hour(capture):
    rubric = rule_live("Tool-call decision accuracy", rate=0.0)
    project = ProjectFactory()

    for _ in range(3):
        _judge(sample_traces.travel_book_ok(project=project), capture)

    assert _counts(rubric) == {OnlineOutcome.NOT_SAMPLED: 3}


def test_an_uncalibrated_version_is_counted_as_not_calibrated(settings, capture):
    settings.JUDGE_ONLINE_BEFORE_CALIBRATION = False
    rubric = rule_live("Tool-call decision accuracy", calibrated=False)

    _judge(sample_traces.travel_book_ok(), capture)

    assert _counts(rubric) == {OnlineOutcome.NOT_CALIBRATED: 1}
    assert not Judgment.objects.exists()


def test_a_rule_over_its_hourly_limit_skips_and_says_so(settings, capture):
    settings.JUDGE_ONLINE_MAX_PER_HOUR = 2
    rubric = rule_live("Tool-call decision accuracy")
    project = ProjectFactory()

    for _ in range(3):
        _judge(sample_traces.travel_book_ok(project=project), capture)

    assert _counts(rubric) == {OnlineOutcome.JUDGED: 2, OnlineOutcome.OVER_LIMIT: 1}


def test_a_failing_provider_is_skipped_until_its_failures_age_out(
    settings, config_failing_at_three, capture
):
    rubric = rule_live("Tool-call decision accuracy")
    recently = timezone.now() - timedelta(seconds=30)
    for _ in range(3):
        _failed_call(config_failing_at_three, recently)
    project = ProjectFactory()

    _judge(sample_traces.travel_book_ok(project=project), capture)
    Judgment.objects.filter(config=config_failing_at_three).update(
        completed_at=timezone.now() - timedelta(seconds=settings.JUDGE_PROVIDER_FAILING_SECONDS + 1)
    )
    provider_health.forget()
    _judge(sample_traces.travel_book_ok(project=project), capture)

    assert _counts(rubric) == {OnlineOutcome.PROVIDER_FAILING: 1, OnlineOutcome.JUDGED: 1}


def test_one_good_call_among_failures_is_not_a_failing_provider(config_failing_at_three, capture):
    rubric = rule_live("Tool-call decision accuracy")
    now = timezone.now()
    for seconds, parse in ((10, ParseStatus.CALL_FAILED), (20, ParseStatus.OK)):
        JudgmentFactory(
            config=config_failing_at_three,
            status=JudgmentStatus.DONE,
            parse_status=parse,
            completed_at=now - timedelta(seconds=seconds),
        )
    _failed_call(config_failing_at_three, now - timedelta(seconds=5))

    _judge(sample_traces.travel_book_ok(), capture)

    assert _counts(rubric) == {OnlineOutcome.JUDGED: 1}


def test_a_trace_of_another_task_type_is_counted_with_its_type(capture):
    rubric = rule_live("Tool-call decision accuracy", task_type="flight_booking")
    project = ProjectFactory()

    _judge(sample_traces.support_cancel_ok(project=project), capture)
    _judge(sample_traces.travel_book_ok(project=project), capture)

    decision = TraceOnlineDecision.objects.filter(outcome=OnlineOutcome.OTHER_TASK_TYPE).get()
    assert decision.task_type == "order_cancellation"
    assert _counts(rubric) == {OnlineOutcome.OTHER_TASK_TYPE: 1, OnlineOutcome.JUDGED: 1}


def test_a_rubric_with_only_a_draft_version_says_so(capture):
    rubric = rule_live("Tool-call decision accuracy", calibrated=False)
    rubric.versions.update(status=RubricVersionStatus.DRAFT)

    _judge(sample_traces.travel_book_ok(), capture)

    assert _counts(rubric) == {OnlineOutcome.NO_APPROVED_VERSION: 1}


def test_the_trace_page_says_for_each_rule_why_it_was_or_was_not_judged(
    client, annotator, settings, capture
):
    settings.JUDGE_ONLINE_BEFORE_CALIBRATION = False
    judged = rule_live("Tool-call decision accuracy")
    skipped = rule_live("Outcome 1-5", calibrated=False)
    typed = rule_live("General trace judge", task_type="bug_fix", calibrated=False)
    trace = sample_traces.travel_book_ok()
    trace.task = '<img src=x onerror="alert(1)"> book it'
    trace.save(update_fields=["task"])
    _judge(trace, capture)
    client.force_login(annotator)

    html = client.get(f"/traces/{trace.pk}/").content.decode()

    rows = {row["rubric"].pk: row for row in trace_online_decisions(trace)}
    assert rows[judged.pk]["outcome"] == OnlineOutcome.JUDGED
    assert rows[skipped.pk]["outcome"] == OnlineOutcome.NOT_CALIBRATED
    assert rows[typed.pk]["outcome"] == OnlineOutcome.OTHER_TASK_TYPE
    assert 'id="trace-online-judging"' in html
    assert 'data-outcome="not_calibrated"' in html
    assert "Judge version not calibrated" in html
    assert '<img src=x onerror="alert(1)">' not in html


def test_an_unsettled_trace_is_explained_without_a_decision():
    rule_live("Tool-call decision accuracy")
    trace = sample_traces.travel_book_ok()  # never completed: no decision stored

    [row] = trace_online_decisions(trace)

    assert (row["outcome"], row["label"]) == (OnlineOutcome.NOT_SETTLED, "Trace not settled yet")

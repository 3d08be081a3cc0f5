"""Every reason online judging gives for not judging a trace, produced the way traces come:
spans are ingested, the settle sweep completes the trace, and the dispatcher decides per rule.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from judges.models import (
    JudgmentStatus,
    OnlineOutcome,
    OnlineRuleHour,
    ParseStatus,
    Rubric,
    TraceOnlineDecision,
)
from judges.online_health import live_rules, provider_health, trace_online_decisions
from judges.services import judge_config_default
from tests.factories import JudgmentFactory, ProjectFactory
from tests.judges.online_rules import rule_live
from traces.ingest.services import ingest_span_tree
from traces.ingest.span_tree import span_tree_records
from traces.ingest.store import spans_store
from traces.models import SourceFormat, Trace
from traces.tasks import trace_settle_sweep_task

pytestmark = pytest.mark.django_db
RUBRIC = "Tool-call decision accuracy"


@pytest.fixture(autouse=True)
def fresh_caches():
    provider_health.forget()
    live_rules.forget()
    yield
    provider_health.forget()
    live_rules.forget()


@pytest.fixture
def arrive(django_capture_on_commit_callbacks):
    """Ingest a tree's spans as an exporter sends them (no word on whether more follow), with
    what ingest does after its commit."""

    def send(project, number, task_type="order_cancellation"):
        payload = tree(number, task_type)
        with django_capture_on_commit_callbacks(execute=True):
            records, extras, external_id = span_tree_records(payload)
            spans_store(project, records, SourceFormat.OTLP, {external_id: extras})
        return Trace.objects.get(project=project, external_id=external_id)

    return send


@pytest.fixture
def settle(django_capture_on_commit_callbacks):
    """Let every trace's settle time pass and run the sweep (judging tasks are not sent)."""

    def sweep():
        Trace.objects.update(last_span_received_at=timezone.now() - timedelta(minutes=5))
        with django_capture_on_commit_callbacks(execute=False):
            return trace_settle_sweep_task()

    return sweep


def tree(number, task_type):
    return {
        "trace_id": f"{number:032x}",
        "name": "invoke_agent support",
        "type": "agent",
        "input": f"Cancel order A{number} for customer C-77.",
        "output": f"Order A{number} is cancelled.",
        "task_type": task_type,
        "start_time": "2026-11-20T10:00:00Z",
        "end_time": "2026-11-20T10:00:03Z",
        "children": [
            {
                "name": "get_recent_orders",
                "type": "tool",
                "input": {"customer_id": "C-77"},
                "output": {"orders": [{"order_id": f"A{number}"}]},
                "start_time": "2026-11-20T10:00:01Z",
                "end_time": "2026-11-20T10:00:02Z",
            }
        ],
    }


def counts(rubric) -> dict:
    # The project the traces arrive in (factories' traces elsewhere are settled too).
    rows = OnlineRuleHour.objects.filter(rubric=rubric, project=ProjectFactory()).values_list(
        "outcome", "count"
    )
    return {outcome: count for outcome, count in rows if count}


def decision(trace, rubric) -> str:
    return TraceOnlineDecision.objects.get(trace=trace, rubric=rubric).outcome


def test_a_trace_that_has_not_settled_is_recorded_and_counted_until_it_settles(arrive, settle):
    rubric = rule_live(RUBRIC)
    project = ProjectFactory()

    waiting = arrive(project, 1)
    arrive(project, 1)  # more spans of the same trace: still one decision, counted once

    assert decision(waiting, rubric) == OnlineOutcome.NOT_SETTLED
    assert counts(rubric) == {OnlineOutcome.NOT_SETTLED: 1}
    [row] = trace_online_decisions(waiting)
    assert (row["outcome"], row["label"], row["decided_at"] is not None) == (
        OnlineOutcome.NOT_SETTLED,
        "Trace not settled",
        True,
    )

    assert settle() == 1

    # Settling replaces the decision and moves the count.
    assert decision(waiting, rubric) == OnlineOutcome.JUDGED
    assert counts(rubric) == {OnlineOutcome.JUDGED: 1}


def test_a_trace_posted_whole_is_never_counted_as_not_settled(django_capture_on_commit_callbacks):
    rubric = rule_live(RUBRIC)

    with django_capture_on_commit_callbacks(execute=True):
        trace = ingest_span_tree(ProjectFactory(), tree(2, "order_cancellation"))

    assert decision(trace, rubric) == OnlineOutcome.JUDGED
    assert counts(rubric) == {OnlineOutcome.JUDGED: 1}


def test_a_rule_of_another_project_records_nothing_on_arrival(arrive):
    rubric = rule_live(RUBRIC)
    rubric.project = ProjectFactory(slug="travel", name="Travel")
    rubric.save()

    arrive(ProjectFactory(), 3)

    assert counts(rubric) == {}


@pytest.mark.parametrize("gone", ["deleted", "turned_off"])
def test_a_rule_gone_since_the_live_rules_were_read_records_nothing_and_fails_nothing(arrive, gone):
    # given the live rules read while the rule was live
    rubric = rule_live(RUBRIC)
    arrive(ProjectFactory(), 5)
    # when the rule goes before the next arrival, within the rules' cache time
    if gone == "deleted":
        Rubric.objects.filter(pk=rubric.pk).delete()
    else:
        Rubric.objects.filter(pk=rubric.pk).update(judge_new_traces=False)
    trace = arrive(ProjectFactory(), 6)
    # then the arrival is stored and nothing is decided for the gone rule
    assert not TraceOnlineDecision.objects.filter(trace=trace).exists()


def test_not_sampled(arrive, settle):
    rubric = rule_live(RUBRIC, rate=0.0)
    trace = arrive(ProjectFactory(), 4)
    settle()
    assert decision(trace, rubric) == OnlineOutcome.NOT_SAMPLED
    assert counts(rubric) == {OnlineOutcome.NOT_SAMPLED: 1}


def test_version_not_calibrated(settings, arrive, settle):
    settings.JUDGE_ONLINE_BEFORE_CALIBRATION = False
    rubric = rule_live(RUBRIC, calibrated=False)
    trace = arrive(ProjectFactory(), 5)
    settle()
    assert decision(trace, rubric) == OnlineOutcome.NOT_CALIBRATED
    assert counts(rubric) == {OnlineOutcome.NOT_CALIBRATED: 1}


def test_over_the_hourly_limit(settings, arrive, settle):
    settings.JUDGE_ONLINE_MAX_PER_HOUR = 1
    rubric = rule_live(RUBRIC)
    project = ProjectFactory()
    first, second = arrive(project, 6), arrive(project, 7)
    settle()
    assert {decision(first, rubric), decision(second, rubric)} == {
        OnlineOutcome.JUDGED,
        OnlineOutcome.OVER_LIMIT,
    }
    assert counts(rubric) == {OnlineOutcome.JUDGED: 1, OnlineOutcome.OVER_LIMIT: 1}


def test_provider_failing(settings, arrive, settle):
    settings.JUDGE_PROVIDER_FAILING_CALLS = 2
    rubric = rule_live(RUBRIC)
    elsewhere = ProjectFactory(slug="elsewhere", name="Elsewhere")
    for _ in range(2):
        JudgmentFactory(
            trace__project=elsewhere,
            config=judge_config_default(),
            status=JudgmentStatus.FAILED,
            parse_status=ParseStatus.CALL_FAILED,
            completed_at=timezone.now() - timedelta(seconds=5),
        )
    trace = arrive(ProjectFactory(), 8)
    settle()
    assert decision(trace, rubric) == OnlineOutcome.PROVIDER_FAILING
    assert counts(rubric) == {OnlineOutcome.PROVIDER_FAILING: 1}


def test_no_matching_task_type(arrive, settle):
    rubric = rule_live(RUBRIC, task_type="flight_booking")
    project = ProjectFactory()
    other = arrive(project, 9, task_type="order_cancellation")
    booking = arrive(project, 10, task_type="flight_booking")
    settle()
    assert decision(other, rubric) == OnlineOutcome.OTHER_TASK_TYPE
    assert decision(booking, rubric) == OnlineOutcome.JUDGED
    assert counts(rubric) == {OnlineOutcome.OTHER_TASK_TYPE: 1, OnlineOutcome.JUDGED: 1}


def test_a_trace_left_for_the_classifier_drops_its_not_settled_decision(arrive, settle):
    rubric = rule_live(RUBRIC, task_type="flight_booking")
    trace = arrive(ProjectFactory(), 11, task_type="")

    settle()

    # No rule or attribute typed it: the classifier task decides later, and until then the
    # trace page says why, without a stale "not settled".
    assert not TraceOnlineDecision.objects.filter(trace=trace).exists()
    assert counts(rubric) == {}
    [row] = trace_online_decisions(Trace.objects.get(pk=trace.pk))
    assert row["label"] == "No task type decided for this trace"

"""Online judging: settled traces are judged by rubrics set to judge new traces; late spans
make verdicts stale."""

import pytest
from django.db import transaction

from judges.models import (
    JudgeRun,
    Judgment,
    OnlineOutcome,
    OnlineRuleHour,
    TraceOnlineDecision,
    Verdict,
)
from judges.services import trace_judge_online
from tests.factories import ProjectFactory, SpanFactory, TraceFactory, VerdictFactory
from tests.judges import sample_traces
from tests.judges.online_rules import rule_live
from traces.models import SpanKind, Trace
from traces.signals import spans_ingested, trace_completed

pytestmark = pytest.mark.django_db


def test_a_completed_trace_is_judged_in_the_standing_online_run(capture):
    # Live traffic is judged only by a judge version whose agreement with people was measured.
    rule_live("Tool-call decision accuracy")
    first, second = sample_traces.travel_book_ok(), sample_traces.coding_fix_ok()

    with capture(execute=False) as callbacks, transaction.atomic():
        trace_completed.send(sender=Trace, trace=first)
        trace_completed.send(sender=Trace, trace=second)
        trace_completed.send(sender=Trace, trace=first)  # a repeated signal judges nothing twice

    run = JudgeRun.objects.get(online=True)
    assert (run.trace_count, run.status) == (2, "running")
    assert Judgment.objects.filter(run=run).count() == 4
    assert len(callbacks) == 2


def test_an_uncalibrated_version_does_not_judge_live_traffic(capture):
    rule_live("Tool-call decision accuracy", calibrated=False)

    with capture(execute=False):
        runs = trace_judge_online(sample_traces.travel_book_ok())

    assert runs == []


def test_the_sample_rate_and_the_project_limit_what_is_judged(capture):
    rule_live("Outcome 1-5", rate=0.0)
    rule_live("General trace judge", project=ProjectFactory(slug="other", name="Other"))
    trace = sample_traces.travel_book_ok()

    with capture(execute=False):
        runs = trace_judge_online(trace)

    assert runs == [] and not Judgment.objects.exists()


def test_spans_after_judging_make_the_verdict_stale():
    verdict = VerdictFactory(trace=sample_traces.travel_book_ok())
    untouched = VerdictFactory(trace=sample_traces.coding_fix_ok())

    spans_ingested.send(sender=Trace, trace_ids=[verdict.trace_id])

    assert Verdict.objects.get(pk=verdict.pk).stale
    assert not Verdict.objects.get(pk=untouched.pk).stale


def test_before_calibration_is_allowed_a_version_judges_live_traffic_uncalibrated(
    settings, capture
):
    settings.JUDGE_ONLINE_BEFORE_CALIBRATION = True
    rubric = rule_live("General trace judge", calibrated=False)
    trace = sample_traces.travel_book_ok()

    with capture(execute=False), transaction.atomic():
        [run] = trace_judge_online(trace)

    assert run.online and run.rubric_version == rubric.latest_version()
    assert Judgment.objects.filter(run=run, trace=trace).count() == 2


def test_a_trace_with_nothing_to_judge_is_not_judged_and_says_why(capture):
    # A framework's span for building its graph (OpenLIT traces LangGraph's `create_agent`
    # apart from the run), or a web request an app's own instrumentation traced: no task, no
    # answer, no model or tool call. Online judging would pay two calls for a verdict on nothing.
    rule_live("General trace judge")
    built = TraceFactory(task="", final_answer="", model="")
    SpanFactory(trace=built, name="create_agent default", kind=SpanKind.CUSTOM)

    with capture(execute=False) as callbacks:
        runs = trace_judge_online(built)

    assert runs == [] and callbacks == [] and not Judgment.objects.exists()
    decision = TraceOnlineDecision.objects.get(trace=built)
    assert decision.outcome == OnlineOutcome.NOTHING_TO_JUDGE
    assert OnlineRuleHour.objects.get().outcome == OnlineOutcome.NOTHING_TO_JUDGE


@pytest.mark.parametrize("kind", [SpanKind.TOOL, SpanKind.LLM])
def test_a_trace_without_task_or_answer_but_with_a_call_is_judged(capture, kind):
    rule_live("General trace judge")
    trace = TraceFactory(task="", final_answer="", model="")
    SpanFactory(trace=trace, name="lookup_order", kind=kind)

    with capture(execute=False):
        [run] = trace_judge_online(trace)

    assert Judgment.objects.filter(run=run, trace=trace).exists()
    assert TraceOnlineDecision.objects.get(trace=trace).outcome == OnlineOutcome.JUDGED

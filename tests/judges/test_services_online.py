"""Online judging: settled traces are judged by rubrics set to judge new traces; late spans
make verdicts stale."""

import pytest
from django.db import transaction

from judges.calibration import judge_calibration_update
from judges.models import JudgeRun, Judgment, Rubric, Verdict
from judges.services import judge_config_default, trace_judge_online
from tests.factories import ProjectFactory, VerdictFactory
from tests.judges import sample_traces
from traces.models import Trace
from traces.signals import spans_ingested, trace_completed

pytestmark = pytest.mark.django_db
# Judge and human labels that agree: enough for a judge version to pass calibration.
AGREEING = [(1, 1), (0, 0)] * 15


def _online(name, rate, project=None):
    rubric = Rubric.objects.get(name=name)
    rubric.judge_new_traces, rubric.sample_rate, rubric.project = True, rate, project
    rubric.save()
    return rubric


def test_a_completed_trace_is_judged_in_the_standing_online_run(capture):
    rubric = _online("Tool-call decision accuracy", 1.0)
    # Live traffic is judged only by a judge version whose agreement with people was measured.
    judge_calibration_update(rubric.latest_version(), judge_config_default(), AGREEING)
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
    _online("Tool-call decision accuracy", 1.0)

    with capture(execute=False):
        runs = trace_judge_online(sample_traces.travel_book_ok())

    assert runs == []


def test_the_sample_rate_and_the_project_limit_what_is_judged(capture):
    never = _online("Outcome 1-5", 0.0)
    elsewhere = _online(
        "General trace judge", 1.0, project=ProjectFactory(slug="other", name="Other")
    )
    for rubric in (never, elsewhere):
        judge_calibration_update(rubric.latest_version(), judge_config_default(), AGREEING)
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
    rubric = _online("General trace judge", 1.0)
    trace = sample_traces.travel_book_ok()

    with capture(execute=False), transaction.atomic():
        [run] = trace_judge_online(trace)

    assert run.online and run.rubric_version == rubric.latest_version()
    assert Judgment.objects.filter(run=run, trace=trace).count() == 2

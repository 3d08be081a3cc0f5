"""The demo a newcomer loads: their own first trace is judged online, before calibration."""

import pytest
from django.db import transaction

from demo.loader import DEMO_ONLINE_RUBRIC, demo_load
from judges.models import Judgment, Rubric
from tests.factories import ProjectFactory
from tests.traces.test_ingest_span_tree import refund_tree
from traces.ingest.services import ingest_span_tree
from traces.models import Trace
from traces.signals import trace_completed

pytestmark = pytest.mark.django_db


@pytest.fixture
def simulated_demo(settings, tmp_path, django_capture_on_commit_callbacks):
    settings.VAR_DIR = tmp_path
    settings.JUDGE_SIMULATED = True
    settings.JUDGE_ONLINE_BEFORE_CALIBRATION = True
    with django_capture_on_commit_callbacks(execute=False):
        return demo_load()


def test_a_new_trace_in_any_project_is_judged_online_after_the_demo_loads(
    simulated_demo, django_capture_on_commit_callbacks
):
    trace = ingest_span_tree(ProjectFactory(slug="support-agent"), refund_tree())

    with django_capture_on_commit_callbacks(execute=False), transaction.atomic():
        trace_completed.send(sender=Trace, trace=trace)

    judged = Judgment.objects.filter(trace=trace, run__online=True)
    assert {j.rubric_version.rubric.name for j in judged} == {DEMO_ONLINE_RUBRIC}


def test_loading_the_demo_again_keeps_a_curators_choice(
    simulated_demo, django_capture_on_commit_callbacks
):
    Rubric.objects.filter(name=DEMO_ONLINE_RUBRIC).update(judge_new_traces=False)

    with django_capture_on_commit_callbacks(execute=False):
        demo_load()

    assert not Rubric.objects.get(name=DEMO_ONLINE_RUBRIC).judge_new_traces


def test_with_a_real_judge_the_demo_leaves_online_judging_off(
    settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.VAR_DIR, settings.JUDGE_SIMULATED = tmp_path, False
    with django_capture_on_commit_callbacks(execute=False):
        demo_load()

    assert not Rubric.objects.filter(judge_new_traces=True).exists()


def test_the_demo_records_a_baseline_and_a_candidate_the_gate_blocks(simulated_demo):
    from golden.evals.gate import gate_evaluate
    from golden.models import EvalRun

    base = EvalRun.objects.get(name="demo-baseline")
    cand = EvalRun.objects.get(name="demo-candidate")
    # both are scored over every task of the gate's dataset, one trial each
    assert base.metrics["overall"] and cand.metrics["overall"]
    assert base.trials.filter(trace__isnull=False).count() == base.dataset_version.entries.count()
    # the candidate is right by accident: it cancelled the right order without looking it up
    assert cand.metrics["overall"]["outcome_score"] == base.metrics["overall"]["outcome_score"]
    # the outcome is measured (the answers state the expected ids and figures)
    assert base.metrics["overall"]["outcome_score"] == 1.0
    # and tool selection shows the skipped lookup: one of the cancel task's two steps
    assert base.metrics["overall"]["tool_selection_accuracy"] == 1.0
    assert cand.metrics["overall"]["tool_selection_accuracy"] < 1.0
    assert cand.metrics["matcher"] == "in_order"
    assert cand.metrics["overall"]["red_flags"] == {"prerequisite": 1, "hallucinated_parameter": 1}
    assert base.metrics["overall"]["red_flags"] == {}
    report = gate_evaluate(base, cand)
    assert report["decision"] == "block"
    assert {"parameter_accuracy", "red_flag_rate"} <= set(report["blocked_by"])
    assert "outcome_score" not in report["blocked_by"]
    # and loading again records nothing new
    demo_load()
    assert EvalRun.objects.count() == 2


def test_the_demo_has_end_user_feedback_once(django_capture_on_commit_callbacks):
    from demo.loader import demo_load
    from traces.models import Feedback

    with django_capture_on_commit_callbacks(execute=False):
        demo_load()
        first = Feedback.objects.count()
        demo_load()

    assert first > 0 and Feedback.objects.count() == first
    assert Feedback.objects.filter(value=0.0).exclude(comment="").exists()

"""Red flags are computed once per trace completion, again when late spans arrive, and only
read by reconciliation and the review queue in between."""

import pytest

from judges.reconcile import judgment_reconcile
from metrics import redflag_store
from metrics.models import GuardrailPolicy, RedFlag, RedFlagCheck
from metrics.redflags import flag_rules_for
from reviews.models import ReviewItem
from tests.factories import JudgeRunFactory, JudgmentFactory, ProjectFactory
from traces.ingest.services import ingest_span_tree
from traces.models import Trace

pytestmark = pytest.mark.django_db

TRACE_ID = "5b8efff798038103d269b633813fc60c"


def _cancel_payload(cancel: dict) -> dict:
    return {
        "trace_id": TRACE_ID,
        "task": "Cancel order A1042 for customer C-77.",
        "final_answer": "Done! Order A1042 has been cancelled.",
        "name": "support-agent",
        "type": "agent",
        "span_id": "root",
        "input": "Cancel order A1042 for customer C-77.",
        "output": "Done! Order A1042 has been cancelled.",
        "children": [
            {
                "name": "get_recent_orders",
                "type": "tool",
                "span_id": "lookup",
                "input": {"customer_id": "C-77"},
                "output": {"orders": [{"order_id": "A1042", "total": "54.20"}]},
            },
            {"name": "cancel_order", "type": "tool", "span_id": "cancel", **cancel},
        ],
    }


@pytest.fixture
def evaluations(monkeypatch):
    """Counts every run of the red-flag checks."""
    calls = []
    detect = redflag_store.red_flags_detect

    def counting(trace, spans=None, *args, **kwargs):
        calls.append(trace.pk)
        return detect(trace, spans, *args, **kwargs)

    monkeypatch.setattr(redflag_store, "red_flags_detect", counting)
    return calls


def _reconcile(trace, *scores):
    run = JudgeRunFactory()
    passes = [
        JudgmentFactory(trace=trace, run=run, pass_index=index, score=score)
        for index, score in enumerate(scores)
    ]
    return judgment_reconcile(passes, run)


def test_a_flagged_trace_is_checked_once_from_ingest_to_its_review_item(evaluations):
    # given a trace whose agent claims success after the cancel failed
    failed = {"input": {"order_id": "A1042"}, "status": "error", "error": "503 orders-db down"}
    trace = ingest_span_tree(ProjectFactory(), _cancel_payload(failed))
    # when both passes say it passed, so reconciliation reads the flags and queues an item
    verdict = _reconcile(trace, 1.0, 1.0)
    # then the flags were computed once, at completion, and read everywhere else
    assert evaluations == [trace.pk]
    assert "red flag confident_after_failure" in verdict.reason
    assert ReviewItem.objects.filter(trace=trace, reason="red_flag").count() == 1
    assert RedFlagCheck.objects.filter(trace=trace).count() == 1


def test_a_clean_trace_is_not_checked_again_by_the_review_queue(evaluations):
    # given a trace on which no flag fires
    ok = {"input": {"order_id": "A1042"}, "output": {"status": "cancelled"}}
    trace = ingest_span_tree(ProjectFactory(), _cancel_payload(ok))
    # when the passes disagree and an item is queued for people
    _reconcile(trace, 1.0, 0.0)
    # then the recorded check stood in for the missing rows
    assert ReviewItem.objects.filter(trace=trace, reason="passes_disagree").count() == 1
    assert evaluations == [trace.pk]
    assert not RedFlag.objects.filter(trace=trace).exists()


def test_late_spans_check_the_trace_again(evaluations):
    # given a completed, checked trace with no flags
    ok = {"input": {"order_id": "A1042"}, "output": {"status": "cancelled"}}
    project = ProjectFactory()
    trace = ingest_span_tree(project, _cancel_payload(ok))
    # when a late fragment repeats the cancel three more times under the root
    repeat = {"name": "cancel_order", "type": "tool", "input": {"order_id": "A1042"}}
    ingest_span_tree(
        project,
        {
            "trace_id": TRACE_ID,
            "name": "retry",
            "type": "custom",
            "parent_span_id": "root",
            "children": [dict(repeat, span_id=f"again-{n}") for n in range(3)],
        },
    )
    # then the checks ran a second time and the loop is stored
    assert evaluations == [trace.pk, trace.pk]
    assert list(RedFlag.objects.filter(trace=trace).values_list("kind", flat=True)) == ["loop"]


def test_a_project_s_policy_is_read_once_for_its_checks_until_it_is_saved(
    django_assert_num_queries,
):
    project = ProjectFactory()
    trace = Trace(project=project, context={})
    with django_assert_num_queries(1):
        assert flag_rules_for(trace).loop_repeats == 3  # the settings' default: no policy
        assert flag_rules_for(trace).loop_repeats == 3

    policy = GuardrailPolicy.objects.create(project=project, loop_repeats=5, max_steps=9)
    assert flag_rules_for(trace).loop_repeats == 5, "a saved policy was not read afresh"
    GuardrailPolicy.objects.filter(pk=policy.pk).update(loop_repeats=7)
    assert flag_rules_for(trace).loop_repeats == 5, "remembered for seconds, not read per check"
    policy.refresh_from_db()
    policy.save()
    assert flag_rules_for(trace).max_steps == 9 and flag_rules_for(trace).loop_repeats == 7
    policy.delete()
    assert flag_rules_for(trace).loop_repeats == 3, "a deleted policy was still applied"

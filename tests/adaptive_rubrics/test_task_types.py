"""trace_task_type_assign / trace_task_type_correct: attribute, rules, classifier, corrections."""

import pytest

from core.errors import ApplicationError
from judges.adaptive_rubrics.models import TaskTypeAssignment, TaskTypeSource
from judges.adaptive_rubrics.task_types import (
    task_type_rule_create,
    trace_task_type_assign,
    trace_task_type_correct,
)
from tests.judges import sample_traces

pytestmark = pytest.mark.django_db


def test_the_agents_attribute_comes_first(curator):
    trace = sample_traces.travel_book_ok()
    task_type_rule_create(task_type="support", task_pattern="flight", user=curator)

    assert trace_task_type_assign(trace) == "flight_booking"
    assert trace.task_type_assignment.source == TaskTypeSource.ATTRIBUTE


def test_a_rule_over_task_text_and_tools_types_an_untyped_trace(curator):
    trace = sample_traces.support_cancel_ok()
    trace.task_type = ""
    trace.save()
    task_type_rule_create(task_type="flights", task_pattern="flight", user=curator)
    rule = task_type_rule_create(
        task_type="refunds", task_pattern=r"cancel\s+order", tools=["cancel_order"], user=curator
    )

    assert trace_task_type_assign(trace, classify=False) == "refunds"
    trace.refresh_from_db()
    assert trace.task_type == "refunds"
    assert trace.task_type_assignment.rule == rule


def test_a_rule_needs_every_tool_it_names(curator):
    trace = sample_traces.support_cancel_ok()
    trace.task_type = ""
    trace.save()
    task_type_rule_create(task_type="refunds", tools=["cancel_order", "issue_refund"], user=curator)

    assert trace_task_type_assign(trace, classify=False) == ""
    assert not TaskTypeAssignment.objects.filter(trace=trace).exists()


def test_the_classifier_is_the_last_resort(simulator):
    trace = sample_traces.coding_fix_ok()
    trace.task_type = ""
    trace.save()

    assert trace_task_type_assign(trace) == "bug_fix"
    assert trace.task_type_assignment.source == TaskTypeSource.CLASSIFIER
    assert simulator.state.counts


def test_a_persons_correction_is_kept_over_attribute_rules_and_classifier(simulator, curator):
    trace = sample_traces.coding_fix_ok()
    task_type_rule_create(task_type="refactoring", task_pattern=".", user=curator)

    correction = trace_task_type_correct(trace=trace, task_type="test_repair", user=curator)
    trace.task_type = "bug_fix"  # the agent sends its attribute again
    again = trace_task_type_assign(trace)

    assert again == "test_repair"
    assert correction.previous_task_type == "bug_fix"
    assert TaskTypeAssignment.objects.get(trace=trace).corrected_by == curator


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"task_type": "", "task_pattern": "x"}, "task_type"),
        ({"task_type": "refunds", "task_pattern": "("}, "task_pattern"),
        ({"task_type": "refunds"}, "task_pattern"),
    ],
)
def test_a_rule_that_tests_nothing_or_does_not_compile_is_refused(fields, field):
    with pytest.raises(ApplicationError) as error:
        task_type_rule_create(**fields)

    assert error.value.field == field

"""rubric_criteria_generate / rubric_version_approve with the simulated judge through the SDK."""

import pytest

from core.errors import ApplicationError
from demo.simulator import criteria as simulated
from judges.adaptive_rubrics import generation
from judges.adaptive_rubrics.generation import (
    criteria_version_create,
    rubric_criteria_generate,
    rubric_version_approve,
)
from judges.models import OutputFormat, RubricVersionStatus, ScoreType
from tests.judges import sample_traces

pytestmark = pytest.mark.django_db


def test_generation_produces_a_draft_with_structured_type_specific_criteria(
    simulator, cancellation_traces, curator
):
    # given traces of one task type that call get_recent_orders and cancel_order
    # when the judge is asked for criteria
    draft = rubric_criteria_generate(task_type="order_cancellation", user=curator)

    # then a draft version holds 4-6 structured yes/no criteria naming the type's tools
    assert draft.status == RubricVersionStatus.DRAFT
    assert draft.score_type == ScoreType.CRITERIA
    assert draft.output_format == OutputFormat.CRITERIA
    assert draft.rubric.task_type == "order_cancellation"
    assert 4 <= len(draft.criteria) <= 6
    assert all(set(c) == {"question", "evidence", "weight"} for c in draft.criteria)
    assert all(c["question"].endswith("?") and c["evidence"] for c in draft.criteria)
    questions = " ".join(c["question"] for c in draft.criteria)
    assert "cancel_order" in questions and "get_recent_orders" in questions
    assert not any(simulated.question_is_generic(c["question"]) for c in draft.criteria)
    assert simulator.state.counts  # the call went through the server


def test_the_prompt_discourages_generic_criteria_and_shows_the_tools(cancellation_traces):
    prompt = generation.generation_prompt("order_cancellation", cancellation_traces[:2])

    assert "Tools: cancel_order, get_recent_orders" in prompt
    assert "generic" in generation.GENERATE_SYSTEM and "polite" in generation.GENERATE_SYSTEM
    assert generation.GENERATE_MARKER == simulated.GENERATE_MARKER


def test_coding_traces_get_coding_criteria(simulator, curator):
    traces = [sample_traces.coding_fix_ok() for _ in range(2)]

    draft = rubric_criteria_generate(task_type="bug_fix", user=curator)

    questions = " ".join(c["question"] for c in draft.criteria)
    assert "run_tests" in questions and "read_file" in questions
    assert "cancel_order" not in questions
    assert len(traces) == 2


def test_a_type_without_traces_is_refused(simulator):
    with pytest.raises(ApplicationError) as error:
        rubric_criteria_generate(task_type="nothing_here")

    assert error.value.field == "task_type"


def test_approval_turns_a_draft_into_an_approved_version_once(
    simulator, cancellation_traces, curator
):
    draft = rubric_criteria_generate(task_type="order_cancellation", user=curator)

    approved = rubric_version_approve(version=draft, user=curator)

    assert approved.status == RubricVersionStatus.APPROVED
    with pytest.raises(ApplicationError):
        rubric_version_approve(version=approved, user=curator)


def test_edited_criteria_are_validated_and_saved_as_the_next_draft(
    simulator, cancellation_traces, curator
):
    draft = rubric_criteria_generate(task_type="order_cancellation", user=curator)
    edited = [dict(draft.criteria[1], weight=3), {"question": "Was order A1042 refunded?"}]

    version = criteria_version_create(rubric=draft.rubric, criteria=edited, user=curator)

    assert version.number == draft.number + 1
    assert version.status == RubricVersionStatus.DRAFT
    assert [c["weight"] for c in version.criteria] == [3.0, 1.0]
    assert version.criteria[0]["question"] == draft.criteria[1]["question"]
    with pytest.raises(ApplicationError):
        criteria_version_create(rubric=draft.rubric, criteria=[{"question": "x?", "weight": -1}])


def test_calibration_judges_at_most_the_first_sample_of_the_type(
    simulator, cancellation_traces, curator, capture
):
    draft = rubric_criteria_generate(task_type="order_cancellation", user=curator)
    approved = rubric_version_approve(version=draft, user=curator)
    sample_traces.coding_fix_ok()

    with capture(execute=False) as callbacks:
        run = generation.generated_rubric_calibration_start(version=approved, user=curator)

    assert run.trace_count == len(cancellation_traces)
    assert set(run.judgments.values_list("trace_id", flat=True)) == {
        t.pk for t in cancellation_traces
    }
    assert callbacks  # the passes are enqueued once the transaction commits


def test_travel_traces_get_booking_criteria_about_search_and_booking(simulator, curator):
    sample_traces.travel_book_ok()
    sample_traces.travel_book_ok()

    draft = rubric_criteria_generate(task_type="flight_booking", user=curator)

    questions = [c["question"] for c in draft.criteria]
    assert any("book_flight" in q and "search_flights" in q for q in questions)
    assert 4 <= len(questions) <= 6

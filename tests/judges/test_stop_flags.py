"""Stop reasons read as one kind, whoever spelled them; a run that was truncated, refused or
stopped on an error raises a red flag, and a passing verdict with it goes to people."""

import pytest

from judges.execution import judgment_execute
from judges.models import Verdict, VerdictStatus
from judges.services import judge_run_start
from metrics.models import RedFlag
from metrics.redflags import red_flags_detect
from reviews.models import ReviewItem
from tests.factories import ProjectFactory
from tests.judges import sample_traces
from traces.ingest.services import ingest_span_tree
from traces.stop_reasons import StopKind, stop_reason_normalize

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("sent", "kind"),
    [
        ("max_tokens", StopKind.TRUNCATED),  # Anthropic
        ("length", StopKind.TRUNCATED),  # OpenAI
        ("MAX_TOKENS", StopKind.TRUNCATED),  # Gemini
        ("FINISH_REASON_MAX_TOKENS", StopKind.TRUNCATED),
        (["stop", "length"], StopKind.TRUNCATED),  # finish reasons, one per choice
        ("refusal", StopKind.REFUSED),
        ("content_filter", StopKind.REFUSED),
        ("SAFETY", StopKind.REFUSED),
        ("max_steps_exceeded", StopKind.STEP_LIMIT),
        ("max_turns", StopKind.STEP_LIMIT),  # openai-agents
        ("recursion_limit", StopKind.STEP_LIMIT),  # LangGraph
        ("error", StopKind.ERROR),
        ("end_turn", StopKind.COMPLETED),
        ("stop", StopKind.COMPLETED),
        ("tool_calls", StopKind.TOOL_CALL),
        ("FinishReason.TOOL_CALLS", StopKind.TOOL_CALL),  # Semantic Kernel's enum, as str()
        ("FinishReason.LENGTH", StopKind.TRUNCATED),
        ("sleepy", StopKind.OTHER),
        ("", ""),
    ],
)
def test_stop_reasons_are_normalized_across_providers(sent, kind):
    assert stop_reason_normalize(sent) == kind


def _tree(stop_reason=None, finish_reason=None, answer="Order A1042 was refunded in full."):
    chat = {
        "name": "chat",
        "type": "llm",
        "input": [{"role": "user", "content": "Refund order A1042"}],
        "output": answer,
        "attributes": {"gen_ai.request.model": "gpt-4o"},
    }
    if finish_reason:
        chat["attributes"]["gen_ai.response.finish_reasons"] = [finish_reason]
    tree = {
        "name": "agent",
        "type": "agent",
        "input": "Refund order A1042",
        "output": answer,
        "children": [
            chat,
            {
                "name": "refund",
                "type": "tool",
                "input": {"order_id": "A1042"},
                "output": {"refunded": True},
            },
        ],
    }
    if stop_reason:
        tree["stop_reason"] = stop_reason
    return tree


def _kinds(trace):
    return [hit.kind for hit in red_flags_detect(trace)]


def test_a_max_tokens_stop_raises_the_flag_on_the_root():
    trace = ingest_span_tree(ProjectFactory(), _tree(stop_reason="max_tokens"))
    hits = [h for h in red_flags_detect(trace) if h.kind == RedFlag.Kind.UNCLEAN_STOP]
    assert len(hits) == 1 and hits[0].span_id == trace.root_span_id
    assert "token limit" in hits[0].detail and "'max_tokens'" in hits[0].detail


def test_the_last_model_calls_length_finish_becomes_the_stop_reason_and_flags():
    # given no stop reason of its own, only the model call's `length` finish
    trace = ingest_span_tree(ProjectFactory(), _tree(finish_reason="length"))
    trace.refresh_from_db()
    assert trace.stop_reason == "length"
    assert RedFlag.Kind.UNCLEAN_STOP in _kinds(trace)


def test_a_content_filter_stop_flags_and_a_clean_finish_does_not():
    refused = ingest_span_tree(ProjectFactory(), _tree(stop_reason="content_filter"))
    clean = ingest_span_tree(ProjectFactory(), _tree(stop_reason="end_turn", finish_reason="stop"))
    assert RedFlag.Kind.UNCLEAN_STOP in _kinds(refused)
    assert RedFlag.Kind.UNCLEAN_STOP not in _kinds(clean)


def test_a_step_limit_under_another_spelling_is_the_step_limit_flag():
    trace = ingest_span_tree(ProjectFactory(), _tree(stop_reason="recursion_limit"))
    kinds = _kinds(trace)
    assert RedFlag.Kind.MAX_STEPS in kinds and RedFlag.Kind.UNCLEAN_STOP not in kinds


def test_a_max_tokens_run_with_a_plausible_answer_lands_in_review(
    simulator, tool_rubric, default_config, capture
):
    # given a run the judge passes, but which stopped at its token limit
    trace = sample_traces.travel_book_ok()
    trace.stop_reason = "max_tokens"
    trace.save(update_fields=["stop_reason"])
    with capture(execute=False):
        run = judge_run_start(rubric_version=tool_rubric, config=default_config, traces=[trace])
    # when both passes are judged
    for judgment in run.judgments.order_by("pass_index"):
        judgment_execute(judgment.pk)
    # then the agreed verdict is routed to people for the red flag, whatever it says: a pass
    # may be luck, a fail may be for the cut alone
    verdict = Verdict.objects.get(run=run, trace=trace)
    assert verdict.status == VerdictStatus.AGREED
    assert "red flag unclean_stop" in verdict.reason
    assert ReviewItem.objects.filter(trace=trace, reason="red_flag").exists()


def test_a_haystack_generators_stop_is_in_its_last_replys_meta():
    from traces.stop_reasons import finish_reason_of

    replies = [{"role": "assistant", "meta": {"finish_reason": "length"}, "content": []}]
    assert finish_reason_of({}, {"replies": replies}) == "length"
    assert finish_reason_of({}, {"replies": [{"role": "assistant", "meta": {}}]}) == ""

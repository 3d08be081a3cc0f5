"""Shapes real agents send: multi-turn transcripts, reused tool ids, failures written as text."""

import pytest

from core.errors import ApplicationError
from tests.factories import ProjectFactory
from tests.traces.openai_messages import assistant_tool_call
from traces.ingest.failures import text_failure
from traces.ingest.services import ingest_payload, ingest_span_tree
from traces.models import Span, SpanKind, SpanStatus

pytestmark = pytest.mark.django_db


def openai_support_conversation():
    return {
        "format": "openai",
        "context": {"eval_run": "nightly-12", "customer_tier": "gold"},
        "messages": [
            {"role": "system", "content": "You are Acme's booking assistant."},
            {"role": "user", "content": "I need to change my booking."},
            {"role": "assistant", "content": "Sure. What is your booking code?"},
            {"role": "user", "content": "It is QX7P2L, move it to Friday."},
            assistant_tool_call("call_1", "get_booking", '{"code": "QX7P2L"}'),
            {"role": "tool", "tool_call_id": "call_1", "content": "Error: booking service timeout"},
            assistant_tool_call("call_1", "get_booking", '{"code": "QX7P2L"}'),
            {
                "role": "tool",
                "tool_call_id": "call_1",
                "content": '{"code": "QX7P2L", "day": "Wed"}',
            },
            assistant_tool_call("call_2", "think", "{}"),
            {"role": "tool", "tool_call_id": "call_2", "content": ""},
            {"role": "assistant", "content": "Done: QX7P2L now departs Friday."},
        ],
    }


def test_every_user_turn_is_kept_on_the_model_calls_in_order():
    trace = ingest_payload(ProjectFactory(), openai_support_conversation())
    llm_spans = Span.objects.filter(trace=trace, kind=SpanKind.LLM).order_by("position")
    llm_inputs = [s.input for s in llm_spans]
    user_turns = [
        m["content"] for given in llm_inputs for m in given["messages"] if m["role"] == "user"
    ]
    assert user_turns == ["I need to change my booking.", "It is QX7P2L, move it to Friday."]
    # every message is on a span: what each call was given, and its reply
    assert sum(len(given["messages"]) for given in llm_inputs) + len(llm_spans) == 11
    assert trace.task == "I need to change my booking."
    assert trace.final_answer == "Done: QX7P2L now departs Friday."


def test_a_reused_call_id_pairs_each_result_with_its_own_call():
    trace = ingest_payload(ProjectFactory(), openai_support_conversation())
    first, retry = Span.objects.filter(trace=trace, tool_name="get_booking").order_by("position")
    assert first.status == SpanStatus.ERROR and "timeout" in first.error_message
    assert retry.status == SpanStatus.OK and retry.output == {"code": "QX7P2L", "day": "Wed"}


def test_an_empty_result_is_no_failure_and_context_is_stored():
    trace = ingest_payload(ProjectFactory(), openai_support_conversation())
    think = Span.objects.get(trace=trace, tool_name="think")
    assert think.status == SpanStatus.OK and think.output == ""
    trace.refresh_from_db()
    assert trace.context["eval_run"] == "nightly-12"
    assert trace.context["customer_tier"] == "gold"


@pytest.mark.parametrize(
    ("ingest", "payload", "field"),
    [
        (ingest_payload, {**openai_support_conversation(), "sesion_id": "s-1"}, "sesion_id"),
        (
            ingest_span_tree,
            {
                "name": "agent",
                "type": "agent",
                "children": [{"name": "t", "type": "tool", "args": 1}],
            },
            "children[0].args",
        ),
    ],
    ids=["transcript", "span"],
)
def test_an_unknown_field_is_refused_by_name(ingest, payload, field):
    with pytest.raises(ApplicationError) as caught:
        ingest(ProjectFactory(), payload)
    assert caught.value.field == field


def test_anthropic_trailing_user_turn_is_kept():
    payload = {
        "format": "anthropic",
        "messages": [
            {"role": "user", "content": "Refund A1042."},
            {"role": "assistant", "content": [{"type": "text", "text": "Refunded."}]},
            {"role": "user", "content": "Thanks, and the other one?"},
        ],
    }
    trace = ingest_payload(ProjectFactory(), payload)
    root = Span.objects.get(trace=trace, parent_span_id="")
    assert root.attributes["transcript.trailing_messages"][0]["content"].startswith("Thanks")


@pytest.mark.parametrize(
    "text",
    [
        "Error: payment method not found",
        "ValueError: amount must be positive",
        "Traceback (most recent call last):\n  File ...",
        "HTTP/1.1 503 Service Unavailable",
        "404 Not Found",
    ],
)
def test_error_text_is_a_failure(text):
    assert text_failure(text)


@pytest.mark.parametrize("text", ["", "404 items found", "Errors are rare today", "ok"])
def test_ordinary_text_is_no_failure(text):
    assert not text_failure(text)


def test_a_project_can_turn_text_detection_off_or_add_markers():
    tree = {
        "name": "agent",
        "type": "agent",
        "children": [
            {"name": "lookup", "type": "tool", "output": "Error: none"},
            {"name": "pay", "type": "tool", "output": "DECLINED card 4242"},
        ],
    }
    quiet = ProjectFactory(slug="quiet", tool_error_text_detection=False)
    ingest_span_tree(quiet, {**tree, "trace_id": "a" * 32})
    assert not Span.objects.filter(trace__project=quiet, status=SpanStatus.ERROR).exists()
    strict = ProjectFactory(slug="strict", tool_error_markers=["DECLINED"])
    ingest_span_tree(strict, {**tree, "trace_id": "b" * 32})
    failed = Span.objects.filter(trace__project=strict, status=SpanStatus.ERROR)
    assert sorted(failed.values_list("name", flat=True)) == ["lookup", "pay"]


GENAI_PARTS_IN = [
    {"role": "system", "parts": [{"type": "text", "content": "Be brief."}]},
    {"role": "user", "parts": [{"type": "text", "content": "Which gate for TP542?"}]},
]
GENAI_PARTS_OUT = [{"role": "assistant", "parts": [{"type": "text", "content": "Gate 14."}]}]
LANGCHAIN_IN = {"messages": [[{"type": "human", "content": "Which gate for TP542?"}]]}
LANGCHAIN_OUT = {"generations": [], "messages": [{"type": "ai", "content": "Gate 14."}]}
OPENINFERENCE_IN = [{"message": {"role": "user", "content": "Which gate for TP542?"}}]
OPENINFERENCE_OUT = [{"message": {"role": "assistant", "content": "Gate 14."}}]


@pytest.mark.parametrize(
    ("given", "reply"),
    [
        (GENAI_PARTS_IN, GENAI_PARTS_OUT),
        (LANGCHAIN_IN, LANGCHAIN_OUT),
        (OPENINFERENCE_IN, OPENINFERENCE_OUT),
    ],
    ids=["genai-parts", "langchain", "openinference"],
)
def test_task_and_answer_come_from_a_root_in_any_message_form(given, reply):
    tree = {"name": "invoke_agent", "type": "agent", "input": given, "output": reply}
    trace = ingest_span_tree(ProjectFactory(), tree)
    assert (trace.task, trace.final_answer) == ("Which gate for TP542?", "Gate 14.")


def test_a_rootless_trace_takes_them_from_its_model_calls():
    def call(start, given, reply, trace_id="c" * 32):
        return {
            "trace_id": trace_id,
            "name": "chat",
            "type": "llm",
            "parent_span_id": "00f067aa0ba902b7",
            "start_time": start,
            "input": given,
            "output": reply,
        }

    project = ProjectFactory()
    later = [
        {"role": "assistant", "parts": [{"type": "text", "content": "Gate 14, boarding 9:10."}]}
    ]
    ingest_span_tree(project, call("2026-11-20T10:00:05Z", GENAI_PARTS_IN, later))
    trace = ingest_span_tree(project, call("2026-11-20T10:00:01Z", GENAI_PARTS_IN, GENAI_PARTS_OUT))
    assert trace.task == "Which gate for TP542?"
    # the earlier call arrived last, but the answer stays the latest call's
    assert trace.final_answer == "Gate 14, boarding 9:10."


def test_a_root_input_of_keyword_arguments_bound_under_one_name_gives_the_task_inside():
    # OpenInference's DSPy instrumentation logs ReAct.forward(**input_args) as bound
    given = {"input_args": {"question": "Which gate for TP542?"}}
    tree = {"name": "ReAct.forward", "type": "chain", "input": given, "output": {"answer": "14"}}
    trace = ingest_span_tree(ProjectFactory(), tree)
    assert (trace.task, trace.final_answer) == ("Which gate for TP542?", "14")


def test_a_root_input_object_without_text_is_never_a_json_blob():
    tree = {"name": "agent", "type": "agent", "input": {"order": {"id": 7, "lines": [1, 2]}}}
    trace = ingest_span_tree(ProjectFactory(), tree)
    assert not trace.task.startswith("{")

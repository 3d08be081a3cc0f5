"""Tool calls a trace made only in its model calls' messages read as the checks' steps."""

from types import SimpleNamespace

from metrics.steps import tool_steps_from_spans
from traces.models import SpanKind


def span(span_id, kind=SpanKind.LLM, parent="", input=None, output=None, **fields):
    return SimpleNamespace(
        span_id=span_id,
        parent_span_id=parent,
        name=fields.pop("name", span_id),
        kind=kind,
        input=input,
        output=output,
        attributes={},
        status=fields.pop("status", "ok"),
        tool_name=fields.pop("tool_name", ""),
        tool_call_id=fields.pop("tool_call_id", ""),
        component="",
    )


def decided(call_id, name, arguments):
    call = {"id": call_id, "type": "function", "function": {"name": name}}
    call["function"]["arguments"] = arguments
    return [{"role": "assistant", "content": None, "tool_calls": [call]}]


def handed(*results):
    """A request resending the whole history: the task, then each (call id, result)."""
    history = [{"role": "user", "content": "Refund order A1042."}]
    for call_id, content in results:
        history.append({"role": "tool", "tool_call_id": call_id, "content": content})
    return history


def read(spans):
    return [(s.tool, s.inputs, s.output, s.failed, s.span_id) for s in tool_steps_from_spans(spans)]


def test_each_call_a_model_decided_with_the_result_handed_back_under_its_id():
    spans = [
        span("root", SpanKind.CUSTOM),
        span("m1", parent="root", input=handed(), output=decided("c1", "lookup", '{"id": 1}')),
        span(
            "m2",
            parent="root",
            input=handed(("c1", '{"total": 59}')),
            output=decided("c2", "refund", '{"amount": 59}'),
        ),
        span(
            "m3",
            parent="root",
            input=handed(("c1", '{"total": 59}'), ("c2", "Error: declined")),
            output="Refunded.",
        ),
    ]
    assert read(spans) == [
        ("lookup", {"id": 1}, {"total": 59}, False, "m1"),
        ("refund", {"amount": 59}, "Error: declined", True, "m2"),  # ingest's error rules
    ]


def test_a_call_id_used_again_takes_the_next_result_and_a_call_never_answered_has_none():
    # Gemini chat sessions make ids up per reply (`lookup_0`): a retry reuses the id
    spans = [
        span("m1", input=handed(), output=decided("lookup_0", "lookup", "{}")),
        span(
            "m2",
            input=handed(("lookup_0", {"error": "timed out"})),
            output=decided("lookup_0", "lookup", "{}"),
        ),
        span(
            "m3",
            input=handed(("lookup_0", {"error": "timed out"}), ("lookup_0", "found")),
            output=decided("c9", "refund", "{}"),
        ),
    ]
    assert [(s[2], s[3]) for s in read(spans)] == [
        ({"error": "timed out"}, True),
        ("found", False),
        (None, False),
    ]


def test_results_under_ids_no_call_has_go_to_the_calls_left_without_one_in_order():
    # OpenLLMetry names Responses API calls by item id (fc_...), results by call id
    spans = [
        span("m1", input=handed(), output=decided("fc_1", "lookup", "{}")),
        span("m2", input=handed(("call_1", "A")), output=decided("fc_2", "refund", "{}")),
        span("m3", input=handed(("call_1", "A"), ("call_2", "B")), output="Done."),
    ]
    assert [s[2] for s in read(spans)] == ["A", "B"]


def test_a_framework_model_span_over_the_providers_is_read_once():
    reply = decided("c1", "lookup", "{}")
    spans = [
        span("framework", input=handed(), output=reply),
        span("provider", parent="framework", input=handed(), output=reply),
    ]
    assert [s[4] for s in read(spans)] == ["provider"]


def test_traced_tools_are_the_steps_and_the_messages_are_not_read_again():
    spans = [
        span("m1", input=handed(), output=decided("c1", "lookup", "{}")),
        span("t1", SpanKind.TOOL, parent="m1", input={"id": 1}, output="found", tool_name="lookup"),
    ]
    assert read(spans) == [("lookup", {"id": 1}, "found", False, "t1")]


def test_a_tool_span_that_records_only_its_call_id_reads_the_call_and_its_result():
    # AutoGen's own `execute_tool` spans: the tool's name and call id, no content
    spans = [
        span("m1", input=handed(), output=decided("c1", "lookup", '{"id": 1}')),
        span("t1", SpanKind.TOOL, tool_name="lookup", tool_call_id="c1"),
        span("m2", input=handed(("c1", "Error: timed out")), output="Sorry."),
        span("t2", SpanKind.TOOL, tool_name="refund", tool_call_id="c9"),  # decided nowhere
    ]
    assert read(spans) == [
        ("lookup", {"id": 1}, "Error: timed out", True, "t1"),
        ("refund", {}, None, False, "t2"),
    ]


def test_a_tool_span_left_ok_is_failed_when_the_model_was_handed_its_result_as_an_error():
    # OpenInference's AgentChat instrumentation leaves a raising tool's span OK; AgentChat
    # tells the model the error with `is_error`, in the history the latest call resends
    flagged = {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "c1",
                "content": "service down",
                "is_error": True,
            },
            {"type": "tool_result", "tool_use_id": "c2", "content": "found"},
        ],
    }
    spans = [
        span("t1", SpanKind.TOOL, output="service down", tool_name="lookup"),  # names no call
        span("t2", SpanKind.TOOL, output="found", tool_name="lookup", tool_call_id="c2"),
        span("t3", SpanKind.TOOL, output="x", tool_name="refund", tool_call_id="c1"),
        span(
            "m", input=[{"role": "user", "content": "Refund order A1042."}, flagged], output="Ok."
        ),
    ]
    assert [(s[0], s[3]) for s in read(spans)] == [
        ("lookup", True),  # its result is the one flagged
        ("lookup", False),
        ("refund", True),  # its call id is the one flagged
    ]

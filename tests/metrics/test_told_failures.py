"""The failed calls the checks read that no failed span counts (metrics.told_failures): each
call once, a failed tool span and the message that told the model of it one failure, and an
error read from text alone only while the project reads text errors."""

from metrics.told_failures import told_failures_count
from tests.metrics.test_steps_from_messages import decided, handed, span
from traces.ingest.failures import DEFAULT_FAILURE_RULE, NO_TEXT_RULE
from traces.models import SpanKind


def loop(*results, final="Done.", tool_spans=()):
    """A plain tool loop's model calls: each (call id, tool, result) decided by one call and
    handed back to the next, which resends the whole history; then the final answer."""
    spans = [span("root", SpanKind.CUSTOM)]
    for index, (call_id, tool, _) in enumerate(results):
        history = handed(*((c, r) for c, _, r in results[:index]))
        spans.append(
            span(f"m{index}", parent="root", input=history, output=decided(call_id, tool, "{}"))
        )
    spans += tool_spans
    history = handed(*((c, r) for c, _, r in results))
    spans.append(span("last", parent="root", input=history, output=final))
    return spans


def anthropic_result(call_id, text, is_error=True):
    """A result handed back as an Anthropic tool_result block, flagged `is_error`."""
    block = {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": is_error}
    return {"role": "user", "content": [block]}


def test_a_plain_loop_counts_each_call_the_model_was_told_failed():
    spans = loop(
        ("c1", "lookup_order", "Error: order service unavailable"),
        ("c2", "lookup_order", '{"total": 59}'),
        ("c3", "refund", "Exception: declined"),
    )
    assert told_failures_count(spans) == 2


def test_a_plain_loop_whose_calls_succeeded_counts_none():
    spans = loop(("c1", "lookup_order", '{"total": 59}'), ("c2", "refund", "Refunded."))
    assert told_failures_count(spans) == 0


def test_a_result_that_reads_as_an_error_by_its_text_alone_counts_only_while_text_is_read():
    spans = loop(("c1", "lookup_order", "Error: order service unavailable"))
    assert told_failures_count(spans, DEFAULT_FAILURE_RULE) == 1
    assert told_failures_count(spans, NO_TEXT_RULE) == 0


def test_a_structured_error_result_counts_with_text_errors_off():
    spans = loop(("c1", "lookup_order", {"error": "order service unavailable"}))
    assert told_failures_count(spans, NO_TEXT_RULE) == 1


def test_a_result_flagged_is_error_counts_with_text_errors_off():
    call = [{"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "lookup"}]}]
    task = {"role": "user", "content": "Refund order A1042."}
    spans = [
        span("m1", input=[task], output=call),
        span("m2", input=[task, *call, anthropic_result("c1", "unavailable")], output="Sorry."),
    ]
    assert told_failures_count(spans, NO_TEXT_RULE) == 1
    spans[1].input[-1]["content"][0]["is_error"] = False
    assert told_failures_count(spans, NO_TEXT_RULE) == 0


def test_a_failed_tool_span_and_the_message_that_told_the_model_are_one_failure():
    failed = span(
        "t1",
        SpanKind.TOOL,
        parent="root",
        output="Error: order service unavailable",
        status="error",
        tool_name="lookup_order",
        tool_call_id="c1",
    )
    spans = loop(("c1", "lookup_order", "Error: order service unavailable"), tool_spans=[failed])
    # the failed span counts it (ingest's error count), so nothing is left to count here
    assert told_failures_count(spans) == 0


def test_an_ok_tool_span_whose_model_was_told_it_failed_counts_once():
    # the tool span stays OK while the model is handed the call's result flagged as an error
    call = [{"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "lookup"}]}]
    task = {"role": "user", "content": "Refund order A1042."}
    tool = dict(parent="root", tool_name="lookup", tool_call_id="c1", output="unavailable")
    spans = [
        span("m1", input=[task], output=call),
        span("t1", SpanKind.TOOL, **tool),
        span("t1-again", SpanKind.TOOL, **tool),  # another span of the same call
        span("m2", input=[task, *call, anthropic_result("c1", "unavailable")], output="Sorry."),
    ]
    assert told_failures_count(spans) == 1
    assert told_failures_count(spans, NO_TEXT_RULE) == 1
    # and once its span says it failed, the span counts it
    spans[1].status = spans[2].status = "error"
    assert told_failures_count(spans) == 0


def test_a_tool_span_read_from_its_call_counts_a_text_error_only_while_text_is_read():
    # a tool span that records only its call id (AutoGen's `execute_tool`) reads the result
    # handed back under it: an error by its text alone
    call = [{"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "lookup"}]}]
    task = {"role": "user", "content": "Refund order A1042."}
    told = anthropic_result("c1", "Error: unavailable", is_error=False)
    spans = [
        span("m1", input=[task], output=call),
        span("t1", SpanKind.TOOL, tool_name="lookup", tool_call_id="c1"),
        span("m2", input=[task, *call, told], output="Sorry."),
    ]
    assert told_failures_count(spans, DEFAULT_FAILURE_RULE) == 1
    assert told_failures_count(spans, NO_TEXT_RULE) == 0

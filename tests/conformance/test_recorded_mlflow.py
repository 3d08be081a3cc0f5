"""MLflow Tracing's OTLP export, recorded (runs/mlflow.py): `mlflow.openai.autolog()` for the
model calls, `@mlflow.trace` on the tools and around the loop."""

from decimal import Decimal

import pytest

from accounts.roles import ANNOTATOR
from metrics.steps import tool_steps_from_spans, trace_spans
from tests.conformance import support_task
from tests.conformance.fake_openai import COMPLETION_TOKENS, MODEL, PROMPT_TOKENS
from tests.conformance.recorded_reading import (
    assert_support_tools_offered,
    models_decided,
    results_handed_back,
    send_recorded,
)
from tests.conformance.test_frameworks import (
    JUDGE_READS,
    ORDER,
    REFUND,
    assert_checks_read_support_calls,
    assert_support_calls,
    judge_reads_after_failure,
)
from tests.factories import UserFactory
from tests.judges.judge_reads import assert_judge_reads, reading_steps
from traces.models import Span, SpanKind
from traces.serialize import trace_span_tree, tree_json

pytestmark = pytest.mark.django_db


def _sent(api_client_for, run: str):
    return send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), run)


def _kinds(trace) -> list[tuple[str, str]]:
    return [
        (span.name, span.kind) for span in Span.objects.filter(trace=trace).order_by("started_at")
    ]


@pytest.mark.parametrize("run", ["mlflow-openai", "mlflow-openai-stream"])
def test_mlflow_tracing_otlp_export(api_client_for, run):
    # every value MLflow sets is JSON text (`mlflow.spanType` is `"TOOL"` with its quotes);
    # the span's type, inputs and outputs, a model call's usage, model and tools offered are
    # MLflow's own attributes. Streamed, the completion MLflow composes keeps the text only:
    # the calls the model decided are in the chunk events
    trace = _sent(api_client_for, run)
    assert _kinds(trace) == [
        ("support", SpanKind.AGENT),
        ("Completions", SpanKind.LLM),
        ("lookup_order", SpanKind.TOOL),
        ("Completions", SpanKind.LLM),
        ("refund", SpanKind.TOOL),
        ("Completions", SpanKind.LLM),
    ]
    assert_support_calls(trace)
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.model == MODEL and trace.cost_usd > Decimal(0) and trace.error_count == 0
    assert trace.agent_name == "support"
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "refund"]
    # each tool step under the id of the call the model decided; its result read there once
    tools = [step for step in reading_steps(tree) if step["type"] == SpanKind.TOOL]
    assert [(step["call_id"], step["result"]) for step in tools] == [
        ("call_1", ORDER),
        ("call_2", REFUND),
    ]
    assert results_handed_back(tree) == []
    assert_checks_read_support_calls(trace)
    # stored as MLflow sent them
    tool = Span.objects.get(trace=trace, name="refund")
    assert tool.attributes["mlflow.spanType"] == '"TOOL"'
    assert tool.attributes["mlflow.spanInputs"] == '{"order_id": "R-7731", "amount": 42.5}'


def test_mlflow_tracing_tool_failure(api_client_for):
    # the first lookup raises: MLflow fails the tool span with the exception (its event carries
    # the traceback), the loop tells the model `Error: ...`, and the model looks it up again
    trace = _sent(api_client_for, "mlflow-openai-tool-error")
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.failed) for step in steps] == [
        ("lookup_order", True),
        ("lookup_order", False),
        ("refund", False),
    ]
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert (trace.input_tokens, trace.output_tokens) == (4 * PROMPT_TOKENS, 4 * COMPLETION_TOKENS)
    assert trace.error_count == 1
    error = support_task.ORDER_SERVICE_DOWN
    failed = Span.objects.get(trace=trace, kind=SpanKind.TOOL, status="error")
    assert failed.error_message == f"ConnectionError: {error}"
    assert_judge_reads(trace, judge_reads_after_failure(error))
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "lookup_order", "refund"]
    tools = [step for step in reading_steps(tree) if step["type"] == SpanKind.TOOL]
    assert [(step["call_id"], "error" in step) for step in tools] == [
        ("call_1", True),
        ("call_2", False),
        ("call_3", False),
    ]
    # what the model was told of the failure (`Error: <the error>`) reads once, as the failed
    # step's error, not again after it
    assert "result" not in tools[0] and tools[0]["error"] == f"ConnectionError: {error}"
    assert results_handed_back(tree) == []
    reading = tree_json(tree)
    assert "Traceback" not in reading and "site-packages" not in reading


def test_mlflow_tracing_genai_conventions(api_client_for):
    # with `MLFLOW_ENABLE_OTEL_GENAI_SEMCONV` MLflow sends the GenAI names in place of its own
    # (`chat <model>`, `execute_tool <tool>`, `invoke_agent <agent>`; its tokens as text, the
    # agent span without input or output): task and answer come from the model calls
    trace = _sent(api_client_for, "mlflow-openai-genai")
    assert [kind for _, kind in _kinds(trace)] == [
        SpanKind.AGENT,
        *[SpanKind.LLM, SpanKind.TOOL] * 2,
        SpanKind.LLM,
    ]
    assert_support_calls(trace)
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.model == MODEL and trace.error_count == 0
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    assert models_decided(trace_span_tree(trace)) == ["lookup_order", "refund"]

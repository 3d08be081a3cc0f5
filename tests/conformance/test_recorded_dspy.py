"""DSPy's ReAct under OpenInference's DSPy and LiteLLM instrumentations, recorded (runs/dspy.py)."""

from decimal import Decimal

import pytest

from accounts.roles import ANNOTATOR
from metrics.steps import tool_steps_from_spans, trace_spans
from tests.conformance import support_task
from tests.conformance.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS
from tests.conformance.harness import tool_calls
from tests.conformance.recorded_reading import (
    send_recorded,
)
from tests.conformance.test_frameworks import (
    EXPECTED_CALLS,
    JUDGE_READS,
    ORDER,
    REFUND,
    judge_reads_after_failure,
)
from tests.factories import UserFactory
from tests.judges.judge_reads import assert_judge_reads, reading_steps
from traces.models import Span, SpanKind
from traces.serialize import trace_span_tree, tree_json

pytestmark = pytest.mark.django_db


def test_dspy_react(api_client_for):
    # DSPy's ReAct under OpenInference's DSPy instrumentation: no native tool calls, the model
    # answers in DSPy's `[[ ## field ## ]]` text; each call is wrapped in `Predict.forward`,
    # `Predict(<signature>).forward` and `ChatAdapter.__call__` spans, tools in
    # `<tool>.__call__`, and the module's `forward(**input_args)` logs its input as such
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "dspy")
    calls = tool_calls(trace)
    # ReAct ends its loop by calling its own `finish` tool
    assert [(name, args) for name, args, _ in calls] == [*EXPECTED_CALLS, ("finish", {})]
    assert [result for *_, result in calls] == [ORDER, REFUND, "Completed."]
    # the question, not the first model call's adapter-formatted prompt
    assert trace.task == support_task.TASK
    # the extract step's `answer`, not the Prediction with the whole trajectory
    assert trace.final_answer == support_task.FINAL_ANSWER
    assert trace.error_count == 0 and trace.model == "gpt-4o-mini"
    # four model calls (three ReAct steps and the extract step), each one LLM span
    calls = Span.objects.filter(trace=trace, kind=SpanKind.LLM)
    assert [call.name for call in calls] == ["LM.__call__"] * 4
    # DSPy's LM spans carry no usage, and its default engine calls no LiteLLM whose
    # instrumentation would: there is nothing to count, and nothing is counted twice
    assert (trace.input_tokens, trace.output_tokens) == (0, 0)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    reading = tree_json(tree)
    # each decision read once, in the model's words: the wrappers' parsed fields repeat it
    assert reading.count("next_tool_name ## ]]\\nrefund") == 1
    assert '"next_tool_name": "refund"' not in reading
    assert reading.count('"answer": ') == 0  # the extract step's parsed fields, not repeated
    # the adapter is handed the module's whole signature each round: read once
    adapters = [s for s in reading_steps(tree) if s["name"].startswith("ChatAdapter.__call__")]
    assert len(adapters) == 4 and reading.count("StringSignature(question, trajectory -> ") == 2
    referred = f"(the same as in step {adapters[0]['step']})"
    assert [s["input"]["signature"] for s in adapters[1:3]] == [referred, referred]


def test_dspy_react_tool_failure(api_client_for):
    # the first lookup raises: the tool span fails, and ReAct tells the model the error with
    # its traceback in the next prompts; the model looks the order up again
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "dspy-tool-error")
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.failed) for step in steps] == [
        ("lookup_order", True),
        ("lookup_order", False),
        ("refund", False),
        ("finish", False),
    ]
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert trace.error_count == 1
    error = "ConnectionError: order service unavailable"
    assert_judge_reads(trace, judge_reads_after_failure(error))
    reading = tree_json(trace_span_tree(trace))
    # the error line on the failed step and in what the model was told, no frames
    assert "Traceback" not in reading and "site-packages" not in reading
    assert f"Execution error in lookup_order: \\n{error}" in reading


def test_dspy_react_through_litellm(api_client_for):
    # DSPy's LiteLLM engine: each `LM.__call__` span holds LiteLLM's `completion` span for the
    # same call, with the usage, the cost, the finish reason and the route `openai/gpt-4o-mini`
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "dspy-litellm")
    calls = tool_calls(trace)
    assert [(name, args) for name, args, _ in calls] == [*EXPECTED_CALLS, ("finish", {})]
    assert [result for *_, result in calls] == [ORDER, REFUND, "Completed."]
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert trace.error_count == 0
    spans = Span.objects.filter(trace=trace, kind=SpanKind.LLM).order_by("position")
    assert [span.name for span in spans] == ["LM.__call__", "completion"] * 4
    # the route names the model the DSPy span names: one model, priced as itself
    assert {span.model for span in spans} == {"gpt-4o-mini"} and trace.model == "gpt-4o-mini"
    # four calls (three ReAct steps and the extract step), each counted and priced once
    assert (trace.input_tokens, trace.output_tokens) == (4 * PROMPT_TOKENS, 4 * COMPLETION_TOKENS)
    completions = [span for span in spans if span.name == "completion"]
    assert trace.cost_usd == sum(span.cost_usd for span in completions) > Decimal(0)
    assert_judge_reads(trace, JUDGE_READS)
    # each call one step, the DSPy span's, with LiteLLM's finish reason: the decision once
    tree = trace_span_tree(trace)
    models = [step for step in reading_steps(tree) if step["type"] == SpanKind.LLM]
    assert [(step["name"], step.get("finish_reason")) for step in models] == [
        (f"LM.__call__#{n}", "completed") for n in range(1, 5)
    ]
    assert all("new_input" in step and "output" in step for step in models)
    reading = tree_json(tree)
    assert reading.count("next_tool_name ## ]]\\nrefund") == 1
    assert "openai/gpt-4o-mini" not in reading

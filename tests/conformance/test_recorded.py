"""Frameworks too heavy to install in CI, read from spans they emitted (see record.py)."""

import json
import re
from decimal import Decimal
from pathlib import Path

import pytest

from accounts.roles import ANNOTATOR
from metrics.redflags import red_flags_detect
from metrics.steps import tool_steps_from_spans, trace_spans
from tests.conformance import support_task
from tests.conformance.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS
from tests.conformance.harness import PROJECT, tool_calls
from tests.conformance.test_frameworks import (
    EXPECTED_CALLS,
    JUDGE_READS,
    ORDER,
    REFUND,
    assert_support_calls,
)
from tests.factories import UserFactory
from tests.judges.judge_reads import Expected, assert_judge_reads, reading_steps
from traces.messages import messages_read
from traces.models import Span, SpanKind, Trace
from traces.reading import merged_members, step_labels, traces_merged_members
from traces.serialize import trace_span_tree, tree_json

pytestmark = pytest.mark.django_db
RECORDED = Path(__file__).resolve().parent / "recorded"


def send_recorded(api_client, name: str, logs_first: bool = False) -> Trace:
    """POST a fixture's spans to /v1/traces and, where the run logged, its log records to
    /v1/logs (after the spans, or before them with `logs_first`), each joined to its span."""
    fixture = json.loads((RECORDED / f"{name}.json").read_text())
    sends = [("/v1/traces", fixture["request"])]
    if "logs" in fixture:
        sends.insert(0 if logs_first else 1, ("/v1/logs", fixture["logs"]))
    for path, body in sends:
        response = api_client.generic(
            "POST",
            path,
            json.dumps(body),
            content_type="application/json",
            HTTP_X_EVALSITE_PROJECT=PROJECT,
        )
        assert response.status_code == 200, response.content
        assert "partialSuccess" not in response.json(), response.content
    return Trace.objects.get(project__slug=PROJECT)


def assert_support_tools_offered(trace):
    """The two tools the model calls were offered are the trace's available tools."""
    assert [tool["name"] for tool in trace.context["available_tools"]] == [
        "lookup_order",
        "refund",
    ]


def calls_decided(tree: dict) -> list[tuple[dict, dict]]:
    """(step, call) for each tool call a step of the reading decides, in order."""
    return [
        (step, call)
        for step in reading_steps(tree)
        for message in step.get("output") or []
        if isinstance(message, dict)
        for call in message.get("tool_calls") or []
    ]


def models_decided(tree: dict) -> list[str]:
    """The tools the model steps of a reading decide to call, in order."""
    return [call["tool"] for step, call in calls_decided(tree) if step["type"] == SpanKind.LLM]


def results_handed_back(tree: dict) -> list[tuple[str, object, bool]]:
    """(call id, result, error mark) of each tool result a step of the reading is handed."""
    return [
        (result["call_id"], result["result"], result.get("error", False))
        for step in reading_steps(tree)
        for message in step.get("new_input") or []
        if isinstance(message, dict)
        for result in message.get("tool_results") or []
    ]


def test_strands_agents(api_client_for):
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "strands")
    assert_support_calls(trace)
    assert trace.agent_name == "support"
    root = Span.objects.get(trace=trace, parent_span_id="")
    assert root.kind == SpanKind.AGENT
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == 3
    # the agent span repeats its three calls' sums: counted once
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.cost_usd > Decimal(0) and trace.error_count == 0
    first_call = Span.objects.filter(trace=trace, kind=SpanKind.LLM).order_by("position")[0]
    assert support_task.TASK in json.dumps(first_call.input)
    assert_judge_reads(trace, JUDGE_READS)
    # each event-loop cycle's output repeats its model call's reply: the judge reads each
    # decision once, on the model call
    tree = trace_span_tree(trace)
    decided = [(step["name"], call["tool"]) for step, call in calls_decided(tree)]
    assert decided == [("chat#1", "lookup_order"), ("chat#2", "refund")]


def test_google_adk(api_client_for):
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "google-adk")
    assert_support_calls(trace)
    assert Span.objects.get(trace=trace, parent_span_id="").kind == SpanKind.AGENT
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == 3
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.model == "gemini-2.0-flash" and trace.cost_usd > Decimal(0)
    assert trace.error_count == 0
    assert_judge_reads(trace, JUDGE_READS)
    # ADK hands each result back as {"result": "<the tool's JSON>"}: read once, on its tool step
    calls = [s for s in reading_steps(trace_span_tree(trace)) if s["type"] == SpanKind.LLM]
    assert [("new_input" in call) for call in calls] == [True, False, False]


def test_beeai_lifecycle_event_spans(api_client_for, client):
    # BeeAI's OpenInference instrumentation (the event-per-span generation) emits each tool
    # call as `tool.custom.<tool>.start-N`, `.success-N` and `.finish-N`, each model call as
    # `backend.openai.chat.start-N` / `.success-N` / `.finish-N`, and each agent iteration as
    # `agent.tool_calling.start-N` (over the iteration's spans) and `.success-N` beside it
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "beeai")
    steps = tool_steps_from_spans(trace_spans(trace))
    # one step a call, named by the tool, with its arguments and result
    assert [(step.tool, step.inputs) for step in steps] == [
        *EXPECTED_CALLS,
        ("final_answer", {"response": support_task.FINAL_ANSWER}),
    ]
    assert [step.output for step in steps[:2]] == [ORDER, REFUND]
    assert [step.failed for step in steps] == [False, False, False]
    assert Span.objects.filter(trace=trace).count() == 25  # every span kept as sent
    merged = trace.attributes["evalsite.merged_calls"]
    carriers = dict(
        Span.objects.filter(trace=trace, span_id__in=merged).values_list("span_id", "name")
    )
    assert sorted(f"{carriers[c]} of {len(m)}" for c, m in merged.items()) == [
        "agent.tool_calling.success-1 of 2",
        "agent.tool_calling.success-2 of 2",
        "agent.tool_calling.success-3 of 2",
        "backend.openai.chat.success-1 of 3",
        "backend.openai.chat.success-2 of 3",
        "backend.openai.chat.success-3 of 3",
        "tool.custom.final_answer.success-1 of 3",
        "tool.custom.lookup_order.success-1 of 3",
        "tool.custom.refund.success-1 of 3",
    ]
    assert trace.task == support_task.TASK
    # the root's output is a Python-literal dict; the answer is its text
    assert trace.final_answer == support_task.FINAL_ANSWER
    # usage sits on each call's success span only: counted once a call
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.model.startswith("gpt-4o-mini") and trace.cost_usd > Decimal(0)
    assert trace.error_count == 0
    # one model call, one LLM span: the one with the usage, the reply and the start's input
    calls = list(Span.objects.filter(trace=trace, kind=SpanKind.LLM).order_by("position"))
    assert [call.name for call in calls] == [f"backend.openai.chat.success-{n}" for n in (1, 2, 3)]
    assert [call.input_tokens for call in calls] == [PROMPT_TOKENS] * 3
    # its flattened messages come out empty where a call was decided: read from the JSON
    decided = [[c.name for m in messages_read(s.output) or [] for c in m.tool_calls] for s in calls]
    assert decided == [["lookup_order"], ["refund"], ["final_answer"]]
    second_input = messages_read(calls[1].input)
    assert [(r.id, r.content) for m in second_input for r in m.tool_results] == [("call_1", ORDER)]
    # the agent's iterations are one agent, not one component an iteration
    components = set(Span.objects.filter(trace=trace).values_list("component", flat=True))
    assert {c for c in components if c.startswith("agent:")} == {
        "agent:beeai-framework-main",
        "agent:agent.tool_calling",
    }
    assert_judge_reads(trace, JUDGE_READS)
    # the judge reads each call once: three iterations, each a model call and a tool call
    tree = trace_span_tree(trace)
    assert [(node["step"], node["type"], node["name"]) for node in reading_steps(tree)] == [
        (1, "agent", "beeai-framework-main"),
        (2, "agent", "agent.tool_calling.success-1"),
        (3, "llm", "backend.openai.chat.success-1"),
        (6, "tool", "lookup_order"),
        (10, "agent", "agent.tool_calling.success-2"),
        (11, "llm", "backend.openai.chat.success-2"),
        (14, "tool", "refund"),
        (18, "agent", "agent.tool_calling.success-3"),
        (19, "llm", "backend.openai.chat.success-3"),
        (22, "tool", "final_answer"),
    ]
    # the root's Python-repr output is the final answer already at the top: not repeated
    assert "output" not in tree
    # the trace page numbers every span by the step a judge cites: a merged call's spans all
    # by the call's
    client.force_login(UserFactory(roles=[ANNOTATOR]))
    page = client.get(f"/traces/{trace.pk}/").content.decode()
    shown = re.findall(r'id="span-([0-9a-f]+)".*?span-step">step (\d+)<', page, re.S)
    numbered = {span_id: int(step) for span_id, step in shown}
    spans = list(trace.spans.order_by("position", "pk"))
    labels = step_labels(spans, traces_merged_members([trace])[trace.pk])
    assert {span_id: label.step for span_id, label in labels.items()} == {
        span_id: step for span_id, step in numbered.items() if span_id in labels
    }
    carrier_of = merged_members(trace)
    assert all(numbered[m] == numbered[c] for m, c in carrier_of.items())
    assert sorted(label.step for label in labels.values()) == [1, 2, 3, 6, 10, 11, 14, 18, 19, 22]


def test_llama_index_function_agent(api_client_for):
    # LlamaIndex's FunctionAgent is a workflow: each step's input is an event whose repr holds
    # the whole history, the run's input the workflow's serialized state, and OpenInference's
    # instrumentation reports every method of the model class as an LLM span
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "llama-index")
    # the root's output is the StopEvent's repr, cut short: the answer is the last reply's text
    assert_support_calls(trace)
    assert trace.agent_name == "support" and trace.error_count == 0
    # `_prepare_chat_with_tools` builds each request and calls no model: not a model call
    calls = Span.objects.filter(trace=trace, kind=SpanKind.LLM).order_by("position")
    assert [call.name for call in calls] == ["OpenAI.astream_chat"] * 3
    helpers = Span.objects.filter(trace=trace, name="OpenAI._prepare_chat_with_tools")
    assert [helper.kind for helper in helpers] == [SpanKind.CUSTOM] * 3
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    # the tools each call was offered (`llm.tools.N.tool.json_schema`) head the reading
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    reading = tree_json(trace_span_tree(trace))
    # events read as their class and plain fields; the workflow's state and object addresses,
    # which say nothing of the run, are left out
    assert "AgentSetup(current_agent_name='support')" in reading
    assert "ToolCallResult(tool_name='refund', tool_id='call_2')" in reading
    assert "init_state" not in reading and " object at 0x" not in reading
    assert "MessageRole" not in reading and "TextBlock" not in reading
    # each decision once, on its model call; each result once, on its tool step
    assert reading.count('"tool": "refund"') == 1
    # the refund's result, the last reply, and the final answer at the top
    assert reading.count("RF-0091") == 3


def test_crewai_crew(api_client_for):
    # a one-agent crew under OpenInference's CrewAI instrumentation, its model calls traced by
    # OpenInference's OpenAI instrumentation
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "crewai")
    calls = tool_calls(trace)
    assert [(name, args) for name, args, _ in calls] == EXPECTED_CALLS
    assert [result for *_, result in calls] == [ORDER, REFUND]
    # the task is the crew's task as written, not CrewAI's prompt around it
    assert trace.task == f"{support_task.TASK}\nExpected output: What was done."
    # the answer is the CrewOutput's `raw`, which the reading then does not repeat
    assert trace.final_answer == support_task.FINAL_ANSWER
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    assert "output" not in tree
    reading = tree_json(tree)
    # the model was told the task in CrewAI's words: the judge reads those too
    assert "you MUST return the actual complete content" in reading
    # the agent's tools, logged as pydantic str()s, read without functions and addresses
    assert "name='refund' description=" in reading and " at 0x" not in reading
    assert reading.count("RF-0091") == 3  # the refund's result, the last reply, the answer


def test_agno_agent(api_client_for):
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "agno")
    assert_support_calls(trace)
    assert trace.agent_name == "support" and trace.error_count == 0
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == 3
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)


def test_microsoft_agent_framework(api_client_for):
    # its own GenAI instrumentation: the agent span repeats the calls' usage and the whole
    # conversation, and lists the tools it offered
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "agent-framework")
    assert_support_calls(trace)
    assert trace.agent_name == "support" and trace.error_count == 0
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    assert "output" not in trace_span_tree(trace)  # the conversation, read on its steps


def test_vercel_ai_sdk(api_client_for):
    # generateText with two tools and its own telemetry (`ai.*` attributes), on Node
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "ai-sdk")
    assert_support_calls(trace)
    root = Span.objects.get(trace=trace, parent_span_id="")
    assert (root.name, root.kind) == ("ai.generateText", SpanKind.AGENT)
    calls = Span.objects.filter(trace=trace, kind=SpanKind.LLM)
    assert [call.name for call in calls] == ["ai.generateText.doGenerate"] * 3
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    # `tool-calls`, as the SDK spells it, is a stop to call a tool
    steps = reading_steps(trace_span_tree(trace))
    assert [s.get("finish_reason") for s in steps if s["type"] == SpanKind.LLM] == [
        "tool_call",
        "tool_call",
        "completed",
    ]


# Semantic Kernel offers a plugin's functions to the model as `<plugin>-<function>`.
SK_CALLS = [(f"SupportPlugin-{name}", arguments) for name, arguments in EXPECTED_CALLS]
SK_READS = Expected(
    task=support_task.TASK,
    final_answer=support_task.FINAL_ANSWER,
    calls=SK_CALLS,
    results=[ORDER, REFUND],
)


def assert_semantic_kernel_read(trace, expected: Expected, model_calls: int):
    """SK's spans carry the tool calls, usage and the agent's task and answer; each model
    call's messages come only as log records (JSON text bodies) joined to its span."""
    assert trace.task == support_task.TASK
    assert trace.final_answer == support_task.FINAL_ANSWER
    assert trace.agent_name == "support"
    calls = Span.objects.filter(trace=trace, kind=SpanKind.LLM).order_by("position")
    assert calls.count() == model_calls
    assert (trace.input_tokens, trace.output_tokens) == (
        model_calls * PROMPT_TOKENS,
        model_calls * COMPLETION_TOKENS,
    )
    assert [t["name"] for t in trace.context["available_tools"]] == [name for name, _ in SK_CALLS]
    assert_judge_reads(trace, expected)
    steps = [s for s in reading_steps(trace_span_tree(trace)) if s["type"] == SpanKind.LLM]
    decided = [
        [call["tool"] for message in step["output"] for call in message.get("tool_calls") or []]
        for step in steps
    ]
    assert decided == [[name] for name, _ in expected.calls] + [[]]
    assert steps[-1]["output"] == [{"role": "assistant", "text": support_task.FINAL_ANSWER}]
    # SK writes its FinishReason enum's str(): read as the stop it names
    assert [step["finish_reason"] for step in steps] == ["tool_call"] * len(expected.calls) + [
        "completed"
    ]
    # the logger's own attributes (its code location) are no part of a message
    assert "code.file.path" not in json.dumps([call.input for call in calls])


@pytest.mark.parametrize("run", ["semantic-kernel", "semantic-kernel-stream"])
def test_semantic_kernel_chat_completion_agent(api_client_for, run):
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), run)
    calls = tool_calls(trace)
    assert [(name, args) for name, args, _ in calls] == SK_CALLS
    assert [result for *_, result in calls] == [ORDER, REFUND]
    assert trace.error_count == 0 and trace.cost_usd > Decimal(0)
    assert_semantic_kernel_read(trace, SK_READS, model_calls=3)


def test_semantic_kernel_tool_that_raises(api_client_for):
    # the first lookup raises: SK marks its span failed with two exception events (one a
    # traceback) and tells the model the error in its own words; the model looks up again
    trace = send_recorded(
        api_client_for(UserFactory(roles=[ANNOTATOR])), "semantic-kernel-tool-error"
    )
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.failed) for step in steps] == [
        ("SupportPlugin-lookup_order", True),
        ("SupportPlugin-lookup_order", False),
        ("SupportPlugin-refund", False),
    ]
    assert trace.error_count == 1
    expected = Expected(
        task=support_task.TASK,
        final_answer=support_task.FINAL_ANSWER,
        calls=[SK_CALLS[0], *SK_CALLS],
        results=[ORDER, REFUND],
        errors=["ConnectionError: order service unavailable"],
    )
    assert_semantic_kernel_read(trace, expected, model_calls=4)
    assert "Traceback" not in tree_json(trace_span_tree(trace))


BEDROCK_MODEL = "anthropic.claude-3-5-sonnet-20240620-v1:0"


@pytest.mark.parametrize("name", ["bedrock", "bedrock-stream"])
def test_bedrock_converse_with_botocore_instrumentation(api_client_for, name):
    # a plain Converse (or ConverseStream) tool loop under a root that says nothing: the
    # botocore instrumentation makes one span a model call and sends the messages as log
    # records (pre-1.37 GenAI events), joined to the calls by span id
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), name)
    spans = Span.objects.filter(trace=trace)
    assert sorted(span.kind for span in spans) == [SpanKind.CUSTOM] + [SpanKind.LLM] * 3
    calls = spans.filter(kind=SpanKind.LLM).order_by("position")
    assert {call.name for call in calls} == {f"chat {BEDROCK_MODEL}"}
    assert [e["name"] for e in calls[0].attributes["otel.logs"]] == [
        "gen_ai.system.message",
        "gen_ai.user.message",
        "gen_ai.choice",
    ]
    assert trace.task == support_task.TASK
    assert trace.final_answer == support_task.FINAL_ANSWER
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.model == BEDROCK_MODEL and trace.cost_usd > Decimal(0)
    assert trace.error_count == 0
    # the instrumentation records no `toolConfig`: no tools offered to read
    assert "available_tools" not in trace.context
    assert_judge_reads(trace, JUDGE_READS)
    # each result is given as a `gen_ai.tool.message` event and again as the next user turn's
    # `toolResult` block: read once, under its call id
    tree = trace_span_tree(trace)
    decided = [(call["tool"], call["arguments"]) for _, call in calls_decided(tree)]
    assert decided == EXPECTED_CALLS
    assert results_handed_back(tree) == [("call_1", ORDER, False), ("call_2", REFUND, False)]
    assert tree_json(tree).count("RF-0091") == 3  # the refund's result, the reply, the answer


def test_bedrock_converse_tool_error(api_client_for):
    # `lookup_order` raises once; the loop answers the model with the error, `status: error`
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "bedrock-tool-error")
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == 4
    assert (trace.input_tokens, trace.output_tokens) == (4 * PROMPT_TOKENS, 4 * COMPLETION_TOKENS)
    assert trace.final_answer == support_task.FINAL_ANSWER
    error = "order service timed out"
    lookup = EXPECTED_CALLS[0]
    assert_judge_reads(
        trace,
        Expected(
            task=support_task.TASK,
            final_answer=support_task.FINAL_ANSWER,
            calls=[lookup, *EXPECTED_CALLS],
            results=[ORDER, REFUND],
            errors=[error],
        ),
    )
    tree = trace_span_tree(trace)
    decided = [(call["tool"], call["arguments"]) for _, call in calls_decided(tree)]
    assert decided == [lookup, *EXPECTED_CALLS]
    # the failed result is marked on the result the events give twice, and read once
    assert results_handed_back(tree) == [
        ("call_1", error, True),
        ("call_2", ORDER, False),
        ("call_3", REFUND, False),
    ]
    assert "Traceback" not in tree_json(tree)


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
    reading = tree_json(trace_span_tree(trace))
    # each decision read once, in the model's words: the wrappers' parsed fields repeat it
    assert reading.count("next_tool_name ## ]]\\nrefund") == 1
    assert '"next_tool_name": "refund"' not in reading
    assert reading.count('"answer": ') == 0  # the extract step's parsed fields, not repeated


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
    lookup = EXPECTED_CALLS[0]
    expected = Expected(
        task=support_task.TASK,
        final_answer=support_task.FINAL_ANSWER,
        calls=[lookup, *EXPECTED_CALLS],
        results=[ORDER, REFUND],
        errors=[error],
    )
    assert_judge_reads(trace, expected)
    reading = tree_json(trace_span_tree(trace))
    # the error line on the failed step and in what the model was told, no frames
    assert "Traceback" not in reading and "site-packages" not in reading
    assert f"Execution error in lookup_order: \\n{error}" in reading


def test_google_genai_automatic_function_calling(api_client_for):
    # generate_content with Python functions as tools runs the calls itself; the OpenTelemetry
    # instrumentation wraps the whole loop in one model span, the tools' spans under it, and
    # reports the last response's usage and reply (content on spans: SPAN_ONLY)
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "google-genai")
    assert_support_calls(trace)
    (call,) = Span.objects.filter(trace=trace, kind=SpanKind.LLM)
    tools = Span.objects.filter(trace=trace, kind=SpanKind.TOOL)
    assert {tool.parent_span_id for tool in tools} == {call.span_id}
    # its operation-details log record, sent without content, repeats the usage: counted once
    assert (trace.input_tokens, trace.output_tokens) == (PROMPT_TOKENS, COMPLETION_TOKENS)
    assert trace.model == "gemini-2.0-flash" and trace.cost_usd > Decimal(0)
    assert trace.error_count == 0
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    # the call's reply is read after the tools it ran, as it came
    reading = tree_json(trace_span_tree(trace))
    reply = reading.index('"output": [{"role": "assistant", "text": "Refunded')
    assert reading.index('"name": "lookup_order"') < reading.index('"name": "refund"') < reply


@pytest.mark.parametrize("logs_first", [False, True])
def test_google_genai_streamed_with_content_on_spans_and_events(api_client_for, logs_first):
    # the same loop streamed; SPAN_AND_EVENT writes the content on the span and again in its
    # log record, and the span's reply merges the loop's three replies
    api = api_client_for(UserFactory(roles=[ANNOTATOR]))
    trace = send_recorded(api, "google-genai-stream", logs_first=logs_first)
    assert_support_calls(trace)
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == 1
    assert (trace.input_tokens, trace.output_tokens) == (PROMPT_TOKENS, COMPLETION_TOKENS)
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    assert models_decided(trace_span_tree(trace)) == ["lookup_order", "refund"]


@pytest.mark.parametrize("logs_first", [False, True])
def test_google_genai_chat_session_with_content_in_events(api_client_for, logs_first):
    # a chat session runs the tools itself, one generate_content a model call and no tool
    # spans; EVENT_ONLY: the messages come only in the calls' log records
    api = api_client_for(UserFactory(roles=[ANNOTATOR]))
    trace = send_recorded(api, "google-genai-chat", logs_first=logs_first)
    calls = Span.objects.filter(trace=trace, kind=SpanKind.LLM)
    assert calls.count() == 3 and not Span.objects.filter(trace=trace, kind=SpanKind.TOOL)
    fixture = json.loads((RECORDED / "google-genai-chat.json").read_text())
    assert "gen_ai.input.messages" not in json.dumps(fixture["request"])
    assert trace.task == support_task.TASK
    assert trace.final_answer == support_task.FINAL_ANSWER
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "refund"]
    # each function response `{"result": "<the tool's JSON>"}` reads as what the tool returned
    handed_back = [(result, failed) for _, result, failed in results_handed_back(tree)]
    assert handed_back == [(ORDER, False), (REFUND, False)]


def test_google_genai_failing_tool(api_client_for):
    # the first lookup raises: the SDK hands the model the error, the model looks up again
    from tests.conformance.test_tool_failures import OUTAGE, assert_failure_read

    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "google-genai-failing")
    assert_failure_read(trace, OUTAGE, recovered=True)
    failed = Span.objects.get(trace=trace, kind=SpanKind.TOOL, status="error")
    assert failed.error_message == OUTAGE


def test_google_genai_chat_session_failing_tool(api_client_for):
    # in a chat session the failure lives only in the function response, `{"error": ...}`
    from tests.conformance.test_tool_failures import LOOKUP, OUTAGE, REFUND_CALL

    trace = send_recorded(
        api_client_for(UserFactory(roles=[ANNOTATOR])), "google-genai-chat-failing"
    )
    assert trace.final_answer == support_task.FINAL_ANSWER
    assert (trace.input_tokens, trace.output_tokens) == (4 * PROMPT_TOKENS, 4 * COMPLETION_TOKENS)
    tree = trace_span_tree(trace)
    (_, error, error_failed), *rest = results_handed_back(tree)
    assert error_failed and OUTAGE in error and "Traceback" not in tree_json(tree)
    assert [(result, failed) for _, result, failed in rest] == [(ORDER, False), (REFUND, False)]
    expected = Expected(
        task=support_task.TASK,
        final_answer=support_task.FINAL_ANSWER,
        calls=[LOOKUP, LOOKUP, REFUND_CALL],
        results=[ORDER, REFUND],
        errors=[OUTAGE],
    )
    assert_judge_reads(trace, expected)


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


def assert_autogen_read(trace, model_calls: int):
    """Task and answer, the model calls' usage counted once (the agent spans carry none)."""
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert trace.agent_name == "support" and trace.cost_usd > Decimal(0)
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == model_calls
    assert (trace.input_tokens, trace.output_tokens) == (
        model_calls * PROMPT_TOKENS,
        model_calls * COMPLETION_TOKENS,
    )


def test_autogen_assistant_agent_with_openinference_agentchat(api_client_for):
    # OpenInference's AgentChat instrumentation: an agent span, each model call (streamed)
    # and each tool execution; it records no tools offered (AgentChat hands the model client
    # tool schemas, which it lists only when they are Tool objects)
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "autogen")
    assert_support_calls(trace)
    assert_autogen_read(trace, model_calls=3)
    assert trace.error_count == 0 and "available_tools" not in trace.context
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    decided = [(call["tool"], call["arguments"]) for _, call in calls_decided(tree)]
    assert decided == EXPECTED_CALLS
    # each result is read on its tool step, not again where the model is handed it
    assert results_handed_back(tree) == []
    assert tree_json(tree).count("RF-0091") == 3  # the refund's result, the reply, the answer


def test_autogen_assistant_agent_tool_that_raises(api_client_for):
    from tests.conformance.test_tool_failures import OUTAGE

    # the first lookup raises: AgentChat hands the model the error as a result marked
    # `is_error`, and the model looks up again; the instrumentation's tool span stays OK
    # (its ERROR status comes after the OK it set first, which OpenTelemetry keeps)
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "autogen-tool-error")
    assert_autogen_read(trace, model_calls=4)
    lookup = EXPECTED_CALLS[0]
    calls = tool_calls(trace)
    assert [(name, args) for name, args, _ in calls] == [lookup, *EXPECTED_CALLS]
    assert [result for *_, result in calls] == [OUTAGE, ORDER, REFUND]
    expected = Expected(
        task=support_task.TASK,
        final_answer=support_task.FINAL_ANSWER,
        calls=[lookup, *EXPECTED_CALLS],
        results=[ORDER, REFUND],
        errors=[OUTAGE],
    )
    assert_judge_reads(trace, expected)
    tree = trace_span_tree(trace)
    tools = [step for step in reading_steps(tree) if step["type"] == SpanKind.TOOL]
    # the failed lookup reads as failed, from the error mark on what the model was handed
    assert [(step["name"], step.get("error")) for step in tools] == [
        ("lookup_order#1", OUTAGE),
        ("lookup_order#2", None),
        ("refund", None),
    ]
    assert results_handed_back(tree) == [] and "Traceback" not in tree_json(tree)


def test_autogen_own_telemetry_with_openinference_openai(api_client_for):
    # AutoGen's own spans (`create_agent`, `invoke_agent`, `execute_tool` with the tool's
    # name and call id, no arguments or result) under the user's span, the model calls
    # traced by OpenInference's OpenAI instrumentation
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "autogen-telemetry")
    assert_autogen_read(trace, model_calls=3)
    assert trace.error_count == 0
    tools = Span.objects.filter(trace=trace, kind=SpanKind.TOOL).order_by("position")
    assert [(t.tool_name, t.tool_call_id, t.input, t.output) for t in tools] == [
        ("lookup_order", "call_1", None, None),
        ("refund", "call_2", None, None),
    ]
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    # each tool step reads the arguments its call was decided with and the result the model
    # was handed for it, which the model call then does not repeat
    steps = [step for step in reading_steps(tree) if step["type"] == SpanKind.TOOL]
    assert [(s["name"], s["call_id"], s["arguments"], s["result"]) for s in steps] == [
        ("lookup_order", "call_1", EXPECTED_CALLS[0][1], ORDER),
        ("refund", "call_2", EXPECTED_CALLS[1][1], REFUND),
    ]
    assert results_handed_back(tree) == []
    assert models_decided(tree) == ["lookup_order", "refund"]
    # and so do the checks
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.inputs, step.output) for step in steps] == [
        (*EXPECTED_CALLS[0], ORDER),
        (*EXPECTED_CALLS[1], REFUND),
    ]


# Haystack's Agent under its own tracer (`haystack.component.run` spans, content as
# `haystack.component.input`/`output`) and under OpenInference's Haystack instrumentation
# (`OpenAIChatGenerator.run`, `ToolInvoker.run`): both write ChatMessages as reprs or dicts,
# and run a step's tool calls inside one ToolInvoker span.
HAYSTACK_RUNS = {"haystack": "haystack.component.run", "haystack-openinference": "ToolInvoker.run"}
ORDER_SERVICE_DOWN = "order service unavailable"


@pytest.mark.parametrize("name", HAYSTACK_RUNS)
def test_haystack_agent(api_client_for, name):
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), name)
    # each ToolInvoker span ran one call: read as that call, named, with its arguments
    assert_support_calls(trace)
    tools = Span.objects.filter(trace=trace, kind=SpanKind.TOOL)
    assert {tool.name for tool in tools} == {HAYSTACK_RUNS[name]}
    assert [tool.tool_call_id for tool in tools.order_by("position")] == ["call_1", "call_2"]
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == 3
    # Haystack's tracer states the usage only in each reply's `meta`: counted once a call
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.model == "gpt-4o-mini" and trace.cost_usd > Decimal(0)
    assert trace.error_count == 0
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "refund"]
    assert results_handed_back(tree) == []  # each result read once, on its tool step
    reading = tree_json(tree)
    assert "ChatMessage(" not in reading and " object at 0x" not in reading
    assert reading.count("RF-0091") == 3  # the refund's result, the last reply, the answer


@pytest.mark.parametrize("name", [f"{run}-tool-error" for run in HAYSTACK_RUNS])
def test_haystack_agent_tool_that_raises(api_client_for, name):
    # the first lookup raises; the ToolInvoker (raise_on_failure off, as the Agent sets it)
    # hands the model `Failed to invoke Tool ... Error: <the error>`, and it looks up again
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), name)
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.failed) for step in steps] == [
        ("lookup_order", True),
        ("lookup_order", False),
        ("refund", False),
    ]
    failed = Span.objects.get(trace=trace, kind=SpanKind.TOOL, status="error")
    assert failed.error_message.endswith(f"Error: {ORDER_SERVICE_DOWN}")
    assert trace.error_count == 1 and trace.final_answer == support_task.FINAL_ANSWER
    assert (trace.input_tokens, trace.output_tokens) == (4 * PROMPT_TOKENS, 4 * COMPLETION_TOKENS)
    lookup = EXPECTED_CALLS[0]
    expected = Expected(
        task=support_task.TASK,
        final_answer=support_task.FINAL_ANSWER,
        calls=[lookup, *EXPECTED_CALLS],
        results=[ORDER, REFUND],
        errors=[ORDER_SERVICE_DOWN],
    )
    assert_judge_reads(trace, expected)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "lookup_order", "refund"]
    # the error the model was told is the failed step's: read there, once
    assert results_handed_back(tree) == []
    assert "Traceback" not in tree_json(tree)


def assert_mastra_read(trace, decided: list[str]):
    """Mastra's Agent through its OpenTelemetry exporter: the task and answer on the agent
    run's own attributes, each model call once (the provider call carrying its turn's whole
    reply, which the call's own span gives as text alone), its usage counted once."""
    calls = Span.objects.filter(trace=trace, kind=SpanKind.LLM)
    assert {call.name for call in calls} == {"chat gpt-4o-mini"}
    model_calls = len(decided) + 1
    assert calls.count() == model_calls
    assert (trace.input_tokens, trace.output_tokens) == (
        model_calls * PROMPT_TOKENS,
        model_calls * COMPLETION_TOKENS,
    )
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert trace.agent_name == "support" and trace.cost_usd > Decimal(0)
    assert_support_tools_offered(trace)
    # each turn's span is its provider call's step: hidden from the reading, kept as sent
    turns = Span.objects.filter(trace=trace, name="agent_step support")
    assert turns.count() == model_calls
    assert set(merged_members(trace)) == {turn.span_id for turn in turns}
    tree = trace_span_tree(trace)
    assert models_decided(tree) == decided
    steps = [step for step in reading_steps(tree) if step["type"] == SpanKind.LLM]
    assert [step.get("finish_reason") for step in steps] == ["tool_call"] * len(decided) + [
        "completed"
    ]
    assert steps[-1]["output"] == [{"role": "assistant", "text": support_task.FINAL_ANSWER}]
    # the system prompt once, on the first call; the turns' preview markers are no message
    assert [step.get("new_input") for step in steps] == [
        [{"role": "system", "text": support_task.SYSTEM_PROMPT}]
    ] + [None] * len(decided)
    assert "[tool" not in tree_json(tree)
    # a turn's tools ran after its model call: beside the call, in step order, not inside it
    assert not [c for step in steps for c in step.get("children") or [] if c["type"] != "custom"]
    (loop,) = [
        step for step in reading_steps(tree) if step["name"] == "model_generation gpt-4o-mini"
    ]
    order = [(c["type"], c.get("tool_calls") or c["name"]) for c in loop["children"]]
    assert [kind for kind, _ in order] == [SpanKind.LLM, SpanKind.TOOL] * len(decided) + [
        SpanKind.LLM
    ]


def test_mastra_agent(api_client_for):
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "mastra")
    assert_support_calls(trace)
    assert trace.error_count == 0
    assert_mastra_read(trace, ["lookup_order", "refund"])
    assert_judge_reads(trace, JUDGE_READS)


def test_mastra_agent_tool_that_raises(api_client_for):
    # the first lookup throws: Mastra fails its tool span with the error's message (an
    # `exception` event, no stack), tells the model, and the model looks the order up again
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "mastra-tool-error")
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.failed) for step in steps] == [
        ("lookup_order", True),
        ("lookup_order", False),
        ("refund", False),
    ]
    assert trace.error_count == 1
    assert_mastra_read(trace, ["lookup_order", "lookup_order", "refund"])
    error = f"order service unavailable for {support_task.ORDER_ID}"
    (failed,) = [s for s in reading_steps(trace_span_tree(trace)) if s.get("error")]
    assert (failed["name"], failed["error"]) == ("lookup_order#1", error)
    lookup = EXPECTED_CALLS[0]
    assert_judge_reads(
        trace,
        Expected(
            task=support_task.TASK,
            final_answer=support_task.FINAL_ANSWER,
            calls=[lookup, *EXPECTED_CALLS],
            results=[ORDER, REFUND],
            errors=[error],
        ),
    )


@pytest.mark.parametrize(
    "run",
    ["logfire-openai", "logfire-openai-stream", "logfire-openai-v1", "logfire-openai-v1-stream"],
)
def test_logfire_openai_instrumentation(api_client_for, run):
    # `logfire.instrument_openai()` around the plain tool loop under a `logfire.span`: its
    # default writes the GenAI messages, its former attributes (`-v1`) the request body and
    # `{message, usage}` of the reply as `request_data` and `response_data`. Streamed, the
    # call's span ends with the stream opened and the reply is logged beside it
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), run)
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    calls = Span.objects.filter(trace=trace, kind=SpanKind.LLM)
    assert calls.count() == 3  # a streamed call and its logged reply: one model call
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.cost_usd > Decimal(0) and trace.error_count == 0
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "refund"]
    assert results_handed_back(tree) == [("call_1", ORDER, False), ("call_2", REFUND, False)]
    # Logfire names its spans by their message template: read by the message it fills in
    names = [step["name"] for step in reading_steps(tree)]
    assert not [name for name in names if "{" in name], names
    if "stream" in run:
        assert all(name.startswith("streaming response from 'gpt-4o-mini'") for name in names[1:])
    else:
        assert names[1:] == [f"Chat Completion with 'gpt-4o-mini'#{n}" for n in (1, 2, 3)]


def test_logfire_pydantic_ai_instrumentation(api_client_for):
    # `logfire.instrument_pydantic_ai()`: pydantic-ai's own spans through Logfire's tracer,
    # which adds its `logfire.*` attributes (a message of its own on each span, the run's
    # token sums as `logfire.metrics` on the agent span)
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "logfire-pydantic-ai")
    assert_support_calls(trace)
    root = Span.objects.get(trace=trace, parent_span_id="")
    assert (root.kind, root.name, trace.agent_name) == (
        SpanKind.AGENT,
        "invoke_agent support",
        "support",
    )
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == 3
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.cost_usd > Decimal(0) and trace.error_count == 0
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "refund"]
    # each result read on its tool step, not handed back again on the next model call
    assert results_handed_back(tree) == []


def test_logfire_pydantic_ai_tool_retry(api_client_for):
    # the first lookup raises ModelRetry: pydantic-ai fails its tool span (the exception event
    # with its traceback) and tells the model the message; the model looks the order up again
    trace = send_recorded(
        api_client_for(UserFactory(roles=[ANNOTATOR])), "logfire-pydantic-ai-tool-error"
    )
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.failed) for step in steps] == [
        ("lookup_order", True),
        ("lookup_order", False),
        ("refund", False),
    ]
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert (trace.input_tokens, trace.output_tokens) == (4 * PROMPT_TOKENS, 4 * COMPLETION_TOKENS)
    assert trace.error_count == 1
    error = "order service unavailable"
    failed = Span.objects.get(trace=trace, kind=SpanKind.TOOL, status="error")
    assert failed.error_message == f"pydantic_ai.exceptions.ToolRetryError: {error}"
    lookup = EXPECTED_CALLS[0]
    assert_judge_reads(
        trace,
        Expected(
            task=support_task.TASK,
            final_answer=support_task.FINAL_ANSWER,
            calls=[lookup, *EXPECTED_CALLS],
            results=[ORDER, REFUND],
            errors=[error],
        ),
    )
    reading = tree_json(trace_span_tree(trace))
    assert "Traceback" not in reading and "site-packages" not in reading


def test_autogen_own_telemetry_with_openllmetry_openai(api_client_for):
    # AutoGen's tracing guide: its own spans (`execute_tool` with the tool's name and call id
    # only) and OpenLLMetry's OpenAI instrumentation for the model calls, whose GenAI messages
    # hold the calls decided and the results handed back
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "autogen-traceloop")
    assert_autogen_read(trace, model_calls=3)
    assert trace.error_count == 0 and trace.model == "gpt-4o-mini"
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    steps = [step for step in reading_steps(tree) if step["type"] == SpanKind.TOOL]
    assert [(s["name"], s["call_id"], s["arguments"], s["result"]) for s in steps] == [
        ("lookup_order", "call_1", EXPECTED_CALLS[0][1], ORDER),
        ("refund", "call_2", EXPECTED_CALLS[1][1], REFUND),
    ]
    assert models_decided(tree) == ["lookup_order", "refund"]
    assert results_handed_back(tree) == []
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.inputs, step.output, step.failed) for step in steps] == [
        (*EXPECTED_CALLS[0], ORDER, False),
        (*EXPECTED_CALLS[1], REFUND, False),
    ]
    assert red_flags_detect(trace) == []


def test_autogen_own_telemetry_with_openllmetry_openai_tool_that_raises(api_client_for):
    from tests.conformance.test_tool_failures import OUTAGE

    # the first lookup raises: AutoGen's `execute_tool` span fails with the exception, and
    # the model is handed its text without a failure mark (AutoGen drops `is_error` when it
    # writes OpenAI's tool message, so OpenLLMetry's messages cannot keep it); the model looks
    # the order up again
    trace = send_recorded(
        api_client_for(UserFactory(roles=[ANNOTATOR])), "autogen-traceloop-tool-error"
    )
    assert_autogen_read(trace, model_calls=4)
    assert trace.error_count == 1
    failed = Span.objects.get(trace=trace, kind=SpanKind.TOOL, status="error")
    assert (failed.tool_call_id, failed.error_message) == ("call_1", f"ConnectionError: {OUTAGE}")
    lookup = EXPECTED_CALLS[0]
    assert_judge_reads(
        trace,
        Expected(
            task=support_task.TASK,
            final_answer=support_task.FINAL_ANSWER,
            calls=[lookup, *EXPECTED_CALLS],
            results=[ORDER, REFUND],
            errors=[OUTAGE],
        ),
    )
    tree = trace_span_tree(trace)
    # the failed lookup reads once, on its step: what the model was told, after the error line
    tools = [step for step in reading_steps(tree) if step["type"] == SpanKind.TOOL]
    assert [(s["name"], s["arguments"], s.get("result"), s.get("error")) for s in tools] == [
        ("lookup_order#1", lookup[1], OUTAGE, f"ConnectionError: {OUTAGE}"),
        ("lookup_order#2", lookup[1], ORDER, None),
        ("refund", EXPECTED_CALLS[1][1], REFUND, None),
    ]
    assert results_handed_back(tree) == [] and "Traceback" not in tree_json(tree)
    assert models_decided(tree) == ["lookup_order", "lookup_order", "refund"]
    # the checks: each call with its arguments and result, the first marked failed, and the
    # recovered run raises no flag
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.inputs, step.output, step.failed) for step in steps] == [
        (*lookup, OUTAGE, True),
        (*lookup, ORDER, False),
        (*EXPECTED_CALLS[1], REFUND, False),
    ]
    assert red_flags_detect(trace) == []


# Haystack 3's Agent under the tracer of the opentelemetry-haystack integration (content
# tracing on): one `haystack.agent.step.llm` span a model call and one
# `haystack.agent.step.tool` span a tool call (`haystack.tool.name`, `haystack.tool.error`),
# each with its content as `<span name>.input`/`.output`, under a `haystack.agent.step` a turn.
def test_haystack3_agent(api_client_for):
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "haystack3")
    assert_support_calls(trace)
    tools = Span.objects.filter(trace=trace, kind=SpanKind.TOOL)
    assert {tool.name for tool in tools} == {"haystack.agent.step.tool"}
    llm = Span.objects.filter(trace=trace, kind=SpanKind.LLM)
    assert [span.name for span in llm] == ["haystack.agent.step.llm"] * 3
    root = Span.objects.get(trace=trace, parent_span_id="")
    assert (root.name, root.kind) == ("haystack.agent.run", SpanKind.AGENT)
    # the usage only in each reply's `meta`: counted once a call
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.model == "gpt-4o-mini" and trace.cost_usd > Decimal(0)
    assert trace.error_count == 0
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "refund"]
    assert results_handed_back(tree) == []  # each result read once, on its tool step
    reading = tree_json(tree)
    assert "ChatMessage(" not in reading and " object at 0x" not in reading
    assert reading.count("RF-0091") == 3  # the refund's result, the last reply, the answer


def test_haystack3_agent_tool_that_raises(api_client_for):
    # the first lookup raises: its tool span gets `haystack.tool.error` and the output
    # `{"error": "Failed to invoke Tool ... Error: <the error>"}`, the text the model is told
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "haystack3-tool-error")
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.failed) for step in steps] == [
        ("lookup_order", True),
        ("lookup_order", False),
        ("refund", False),
    ]
    failed = Span.objects.get(trace=trace, kind=SpanKind.TOOL, status="error")
    assert failed.error_message.endswith(f"Error: {ORDER_SERVICE_DOWN}")
    assert trace.error_count == 1 and trace.final_answer == support_task.FINAL_ANSWER
    assert (trace.input_tokens, trace.output_tokens) == (4 * PROMPT_TOKENS, 4 * COMPLETION_TOKENS)
    lookup = EXPECTED_CALLS[0]
    expected = Expected(
        task=support_task.TASK,
        final_answer=support_task.FINAL_ANSWER,
        calls=[lookup, *EXPECTED_CALLS],
        results=[ORDER, REFUND],
        errors=[ORDER_SERVICE_DOWN],
    )
    assert_judge_reads(trace, expected)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "lookup_order", "refund"]
    # the error the model was told is the failed step's: read there, once
    assert results_handed_back(tree) == []
    assert "Traceback" not in tree_json(tree)


def test_haystack3_agent_with_openinference(api_client_for):
    # OpenInference's Haystack instrumentation wraps components, and Haystack 3's Agent runs
    # its tools itself, with no ToolInvoker: no tool spans, the calls live in the messages
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "haystack3-openinference")
    assert not Span.objects.filter(trace=trace, kind=SpanKind.TOOL).exists()
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.inputs, step.output) for step in steps] == [
        (*EXPECTED_CALLS[0], ORDER),
        (*EXPECTED_CALLS[1], REFUND),
    ]
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == 3
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.cost_usd > Decimal(0) and trace.error_count == 0
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "refund"]
    # each result read once, handed back to the model call after its decision
    assert [(result, error) for _, result, error in results_handed_back(tree)] == [
        (ORDER, False),
        (REFUND, False),
    ]
    assert "ChatMessage(_role=<" not in tree_json(tree)

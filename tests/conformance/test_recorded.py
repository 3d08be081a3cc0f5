"""Frameworks too heavy to install in CI, read from spans they emitted (see record.py)."""

import json
import re
from decimal import Decimal

import pytest

from accounts.roles import ANNOTATOR
from metrics.steps import tool_steps_from_spans, trace_spans
from tests.conformance import support_task
from tests.conformance.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS
from tests.conformance.harness import tool_calls
from tests.conformance.recorded_reading import (
    assert_support_tools_offered,
    calls_decided,
    models_decided,
    results_handed_back,
    send_recorded,
)
from tests.conformance.test_frameworks import (
    EXPECTED_CALLS,
    JUDGE_READS,
    ORDER,
    REFUND,
    assert_support_calls,
    judge_reads_after_failure,
)
from tests.factories import UserFactory
from tests.judges.judge_reads import assert_judge_reads, reading_steps
from traces.messages import messages_read
from traces.models import Span, SpanKind
from traces.reading import merged_members, step_labels, traces_merged_members
from traces.serialize import trace_span_tree, tree_json

pytestmark = pytest.mark.django_db


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


def test_crewai_crew_openllmetry(api_client_for):
    # the crew under OpenLLMetry's CrewAI instrumentation (crew, task and agent spans, no tool
    # spans), its model calls traced by OpenLLMetry's OpenAI instrumentation
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "crewai-openllmetry")
    # the calls, their arguments and results are read from the model calls' messages
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.inputs) for step in steps] == EXPECTED_CALLS
    assert [step.output for step in steps] == [ORDER, REFUND]
    # the task is the crew's task as written (`crewai.crew.tasks`), not CrewAI's prompt
    assert trace.task == f"{support_task.TASK}\nExpected output: What was done."
    assert trace.final_answer == support_task.FINAL_ANSWER
    assert trace.agent_name == "support" and trace.error_count == 0
    # the crew's `crewai.crew.token_usage` is a text, no token attribute: counted once
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == 3
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "refund"]


def _llama_index_openllmetry_tools(tree: dict) -> list[tuple]:
    return [
        (step["name"], step.get("arguments"), step.get("result"), step.get("error"))
        for step in reading_steps(tree)
        if step["type"] == SpanKind.TOOL
    ]


def test_llama_index_function_agent_openllmetry(api_client_for):
    # OpenLLMetry's LlamaIndex instrumentation reports each workflow step as a `task` span; the
    # step that calls a tool names it (`tool.name`, `tool.arguments`) and returns a
    # ToolCallResult event around the tool's ToolOutput
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "llama-index-openllmetry")
    assert_support_calls(trace)
    assert trace.agent_name == "support" and trace.error_count == 0
    calls = Span.objects.filter(trace=trace, kind=SpanKind.LLM)
    assert [call.name for call in calls] == ["openai.chat"] * 3
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    tool_spans = Span.objects.filter(trace=trace, kind=SpanKind.TOOL).order_by("position")
    assert [(s.name, s.tool_name) for s in tool_spans] == [
        ("BaseWorkflowAgent.task", "lookup_order"),
        ("BaseWorkflowAgent.task", "refund"),
    ]
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    # each call named, with its arguments and the tool's own result, not the event around it
    assert _llama_index_openllmetry_tools(tree) == [
        ("lookup_order", EXPECTED_CALLS[0][1], ORDER, None),
        ("refund", EXPECTED_CALLS[1][1], REFUND, None),
    ]
    assert models_decided(tree) == ["lookup_order", "refund"]
    assert results_handed_back(tree) == []  # read on the tool steps
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.inputs, step.failed) for step in steps] == [
        (*EXPECTED_CALLS[0], False),
        (*EXPECTED_CALLS[1], False),
    ]


def test_llama_index_function_agent_openllmetry_tool_error(api_client_for):
    # the first lookup raises: the agent hands the model a ToolOutput marked `is_error`, and
    # OpenLLMetry exports no span for the FunctionTool call that raised
    from tests.conformance.test_tool_failures import OUTAGE

    trace = send_recorded(
        api_client_for(UserFactory(roles=[ANNOTATOR])), "llama-index-openllmetry-tool-error"
    )
    assert trace.error_count == 1
    assert (trace.input_tokens, trace.output_tokens) == (4 * PROMPT_TOKENS, 4 * COMPLETION_TOKENS)
    failed = Span.objects.get(trace=trace, kind=SpanKind.TOOL, status="error")
    assert (failed.tool_name, failed.error_message) == ("lookup_order", OUTAGE)
    lookup = EXPECTED_CALLS[0]
    assert_judge_reads(trace, judge_reads_after_failure(OUTAGE))
    tree = trace_span_tree(trace)
    assert _llama_index_openllmetry_tools(tree) == [
        ("lookup_order#1", lookup[1], None, OUTAGE),  # its result `{"error": ...}`: the error
        ("lookup_order#2", lookup[1], ORDER, None),
        ("refund", EXPECTED_CALLS[1][1], REFUND, None),
    ]
    assert "Traceback" not in tree_json(tree)
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.inputs, step.failed) for step in steps] == [
        (*lookup, True),
        (*lookup, False),
        (*EXPECTED_CALLS[1], False),
    ]


def test_llama_index_openllmetry_reads_the_function_tool_layer_once(api_client_for):
    # the FunctionTool span under the tool-calling step returns the same ToolOutput: the
    # arguments and result are read on the call, the layer under it shows nothing again
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "llama-index-openllmetry")
    steps = reading_steps(trace_span_tree(trace))
    layers = [
        step for step in steps if step.get("span_name", step["name"]).startswith("FunctionTool")
    ]
    assert [sorted(step) for step in layers] == [["name", "step", "type"]] * 2
    assert tree_json(trace_span_tree(trace)).count("raw_output") == 0

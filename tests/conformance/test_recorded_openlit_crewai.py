"""CrewAI under OpenLIT's auto-instrumentation (`openlit.init`), recorded (runs/openlit_crewai.py):
the one-agent support crew whole, and with a lookup that fails once (CrewAI hands the model
`Error executing tool: ...`). OpenLIT traces the crew, the agent, CrewAI's agent-executor flow
(each of its methods an `invoke_agent` span that answers a coroutine's repr) and the model
calls; no tool span: the calls and results live in the model calls' messages."""

import json
from decimal import Decimal

import pytest

from accounts.roles import ANNOTATOR
from metrics.steps import tool_steps_from_spans, trace_spans
from tests.conformance import support_task
from tests.conformance.fake_openai import COMPLETION_TOKENS, MODEL, PROMPT_TOKENS
from tests.conformance.recorded_reading import (
    RECORDED,
    assert_support_tools_offered,
    models_decided,
    results_handed_back,
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
from traces.ingest.failures import text_failure
from traces.messages import object_repr
from traces.models import Span, SpanKind, Trace
from traces.serialize import trace_span_tree, trace_transcript, tree_json

pytestmark = pytest.mark.django_db

# what CrewAI hands the model for the lookup that raised
FAILED = f"Error executing tool: {support_task.ORDER_SERVICE_DOWN}"
# the crew's task as CrewAI's prompt template gives it to the model
TEMPLATE_OPENING = f"Current Task: {support_task.TASK}"


@pytest.fixture
def api(api_client_for):
    return api_client_for(UserFactory(roles=[ANNOTATOR]))


def run_trace(api, name: str) -> Trace:
    """The recorded run's trace. OpenLIT traces creating the agent (`create_agent support`)
    in a trace of its own, before the crew's."""
    with pytest.raises(Trace.MultipleObjectsReturned):
        send_recorded(api, name)
    return Trace.objects.exclude(final_answer="").get()


def fixture_spans(name: str) -> list[dict]:
    fixture = json.loads((RECORDED / f"{name}.json").read_text())
    return [
        span
        for resource in fixture["request"]["resourceSpans"]
        for scope in resource["scopeSpans"]
        for span in scope["spans"]
    ]


def test_the_recording_hides_the_task_in_a_template_and_logs_coroutines():
    # the premises of the tests below: the root says nothing of the task, each model call gets
    # it inside CrewAI's template, the agent step as it was given; the executor flow's
    # methods answer the repr of a coroutine
    spans = fixture_spans("openlit-crewai")
    attributes = {
        span["spanId"]: {a["key"]: a["value"].get("stringValue") for a in span["attributes"]}
        for span in spans
    }
    root = next(s for s in spans if s["name"] == "invoke_workflow crew")
    assert "gen_ai.input.messages" not in attributes[root["spanId"]]
    chats = [attributes[s["spanId"]] for s in spans if s["name"].startswith("chat ")]
    assert all(TEMPLATE_OPENING in chat["gen_ai.input.messages"] for chat in chats)
    agent = next(attributes[s["spanId"]] for s in spans if s["name"] == "invoke_agent support")
    assert json.loads(agent["gen_ai.input.messages"])[-1]["parts"][0]["content"] == (
        support_task.TASK
    )
    flow = [attributes[s["spanId"]] for s in spans if s["name"].endswith("check_max_iterations")]
    assert "<coroutine object" in flow[0]["gen_ai.output.messages"]


@pytest.mark.parametrize("run", ["openlit-crewai", "openlit-crewai-tool-error"])
def test_openlit_crewai(api, run):
    fails = run.endswith("tool-error")
    calls = 4 if fails else 3
    trace = run_trace(api, run)
    # the crew's task, not CrewAI's prompt template around it
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    # the crew's span repeats the calls' usage: counted once
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == calls
    assert (trace.input_tokens, trace.output_tokens) == (
        calls * PROMPT_TOKENS,
        calls * COMPLETION_TOKENS,
    )
    assert trace.model == MODEL and trace.cost_usd > Decimal(0)
    assert_support_tools_offered(trace)
    assert_judge_reads(
        trace,
        judge_reads_after_failure(support_task.ORDER_SERVICE_DOWN, failed_call="call_1")
        if fails
        else JUDGE_READS,
    )
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order"] * (1 + fails) + ["refund"]
    handed = [(f"call_{n}", ORDER, False) for n in range(1, 2 + fails)]
    if fails:  # CrewAI's text alone tells the failure: read failed, as the checks read it
        handed[0] = ("call_1", FAILED, True)
    assert results_handed_back(tree) == [*handed, (f"call_{2 + fails}", REFUND, False)]
    # the checks see each call once, the failed lookup failed
    steps = tool_steps_from_spans(trace_spans(trace))
    expected = [(*EXPECTED_CALLS[0], True)] if fails else []
    expected += [(*EXPECTED_CALLS[0], False), (*EXPECTED_CALLS[1], False)]
    assert [(step.tool, step.inputs, step.failed) for step in steps] == expected
    assert [step.output for step in steps] == [FAILED] * fails + [ORDER, REFUND]


@pytest.mark.parametrize("run", ["openlit-crewai", "openlit-crewai-tool-error"])
def test_openlit_crewai_reads_no_flow_bookkeeping(api, run):
    # the executor flow's methods (`check_max_iterations`, `increment_and_continue`, ...) say
    # nothing but a coroutine's address: no step of the reading, no line of the transcript
    trace = run_trace(api, run)
    tree = trace_span_tree(trace)
    names = [step["name"] for step in reading_steps(tree)]
    assert not [name for name in names if "check_max_iterations" in name], names
    assert [name.split("#")[0] for name in names] == [
        "invoke_workflow crew",
        "invoke_agent support",
        "invoke_workflow AgentExecutor",
        *["chat gpt-4o-mini"] * (4 if run.endswith("tool-error") else 3),
    ]
    reading, transcript = tree_json(tree), trace_transcript(trace)
    assert "coroutine" not in reading and "coroutine" not in transcript
    assert not [name for name in names if name.startswith("POST")]
    # the template the model got still shows, once, in the first call's new input
    assert reading.count(TEMPLATE_OPENING) == 1


def test_crewais_tool_error_and_a_coroutine_read_as_what_they_are():
    assert text_failure(FAILED) == FAILED
    assert not text_failure("Executing the tool went fine.")
    assert object_repr("<coroutine object Flow._execute_method at 0x7fc22af30210>")
    assert object_repr("<function lookup_order at 0x7fc22af30210>")
    assert not object_repr("<b>bold</b> at 0x1f>")


@pytest.mark.parametrize("run", ["openlit-crewai", "openlit-crewai-tool-error"])
def test_openlit_crewai_executor_state_is_no_answer(api, run):
    # CrewAI's agent-executor flow answers its state, `completed`, after the model call that
    # gave the answer: read as how that step ended, not as an answer before the final one
    trace = run_trace(api, run)
    executor = Span.objects.get(trace=trace, name="invoke_workflow AgentExecutor")
    assert '"completed"' in json.dumps(executor.output)
    tree = trace_span_tree(trace)
    step = next(s for s in reading_steps(tree) if s["name"] == "invoke_workflow AgentExecutor")
    assert "output" not in step and step["finish_reason"] == "completed"
    answers = [
        message.get("text")
        for step in reading_steps(tree)
        for message in step.get("output") or []
        if isinstance(message, dict) and message.get("role") == "assistant" and "text" in message
    ]
    assert answers == [support_task.FINAL_ANSWER]
    transcript = trace_transcript(trace).splitlines()
    assert not [line for line in transcript if "ASSISTANT" in line and "completed" in line]
    assert transcript[-3:-1] == [
        "[step 3] invoke_workflow AgentExecutor STOPPED: completed",
        f"FINAL ANSWER: {support_task.FINAL_ANSWER}",
    ]

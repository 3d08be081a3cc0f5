"""Frameworks too heavy to install in CI, read from spans they emitted (see record.py)."""

import json
from decimal import Decimal
from pathlib import Path

import pytest

from accounts.roles import ANNOTATOR
from tests.conformance import support_task
from tests.conformance.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS
from tests.conformance.harness import PROJECT, tool_calls
from tests.conformance.test_frameworks import EXPECTED_CALLS, JUDGE_READS, ORDER, REFUND
from tests.factories import UserFactory
from tests.judges.judge_reads import assert_judge_reads
from traces.models import Span, SpanKind, Trace

pytestmark = pytest.mark.django_db
RECORDED = Path(__file__).resolve().parent / "recorded"


def send_recorded(api_client, name: str) -> Trace:
    fixture = json.loads((RECORDED / f"{name}.json").read_text())
    response = api_client.generic(
        "POST",
        "/v1/traces",
        json.dumps(fixture["request"]),
        content_type="application/json",
        HTTP_X_EVALSITE_PROJECT=PROJECT,
    )
    assert response.status_code == 200, response.content
    return Trace.objects.get(project__slug=PROJECT)


def test_strands_agents(api_client_for):
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "strands")
    calls = tool_calls(trace)
    assert [(name, args) for name, args, _ in calls] == EXPECTED_CALLS
    assert [result for *_, result in calls] == [ORDER, REFUND]
    assert trace.task == support_task.TASK
    assert trace.final_answer == support_task.FINAL_ANSWER
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


def test_google_adk(api_client_for):
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "google-adk")
    calls = tool_calls(trace)
    assert [(name, args) for name, args, _ in calls] == EXPECTED_CALLS
    assert [result for *_, result in calls] == [ORDER, REFUND]
    assert trace.task == support_task.TASK
    assert trace.final_answer == support_task.FINAL_ANSWER
    assert Span.objects.get(trace=trace, parent_span_id="").kind == SpanKind.AGENT
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == 3
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.model == "gemini-2.0-flash" and trace.cost_usd > Decimal(0)
    assert trace.error_count == 0
    assert_judge_reads(trace, JUDGE_READS)

"""Tokens and cost of one model call count once, however many nested spans repeat them."""

from decimal import Decimal

import pytest
from django.core.management import call_command

from tests.traces.shape_spans import Recorder, chain_sent, send
from traces.models import Session, Span, Trace

pytestmark = pytest.mark.django_db

FRAMEWORK = {  # an agent framework's own model-call span (any-agent, ADK style)
    "gen_ai.operation.name": "call_llm",
    "gen_ai.request.model": "gpt-4o-mini",
    "gen_ai.usage.input_tokens": 100,
    "gen_ai.usage.output_tokens": 10,
}
GENAI_CHILD = {  # the provider instrumentation's span for the same call, current names
    "gen_ai.operation.name": "generate_content",
    "gen_ai.provider.name": "openai",
    "gen_ai.request.model": "gpt-4o-mini",
    "gen_ai.usage.input_tokens": 100,
    "gen_ai.usage.output_tokens": 10,
}
OPENAI_CHILD = {  # OpenLLMetry's `openai.chat`, pre-1.28 names
    "gen_ai.system": "openai",
    "gen_ai.request.model": "gpt-4o-mini",
    "llm.request.type": "chat",
    "gen_ai.usage.prompt_tokens": 100,
    "gen_ai.usage.completion_tokens": 10,
}


GENAI_NAME = "generate_content gpt-4o-mini"


def _one_call(recorder, shape):
    with recorder.span("invoke_agent helper", {"gen_ai.operation.name": "invoke_agent"}):
        chains = {
            "framework>genai": [("call_llm", FRAMEWORK), (GENAI_NAME, GENAI_CHILD)],
            "framework>openai": [("call_llm", FRAMEWORK), ("openai.chat", OPENAI_CHILD)],
            "framework>genai>openai": [
                ("call_llm", FRAMEWORK),
                (GENAI_NAME, GENAI_CHILD),
                ("openai.chat", OPENAI_CHILD),
            ],
            # a non-model span between the two
            "framework>plain>openai": [
                ("call_llm", FRAMEWORK),
                ("retry", {}),
                ("openai.chat", OPENAI_CHILD),
            ],
        }
        with recorder.chain(*chains[shape]):
            pass


@pytest.mark.parametrize(
    "shape",
    ["framework>genai", "framework>openai", "framework>genai>openai", "framework>plain>openai"],
)
def test_a_nested_model_call_counts_once(shape):
    # given one model call reported by two or three nested spans with the same usage
    recorder = Recorder()
    _one_call(recorder, shape)
    send(recorder.spans())
    trace = Trace.objects.get()
    # then the trace counts it once, and its cost is that of one call
    assert (trace.input_tokens, trace.output_tokens) == (100, 10)
    innermost = Span.objects.get(name="openai.chat" if "openai" in shape else "call_llm")
    if shape == "framework>genai":
        innermost = Span.objects.get(name="generate_content gpt-4o-mini")
    assert trace.cost_usd == innermost.cost_usd > 0
    # and the trace says which spans' usage was counted and which repeated it
    repeated = trace.attributes["evalsite.usage_repeated"]
    outer = Span.objects.get(name="call_llm")
    assert repeated[outer.span_id] == innermost.span_id
    assert innermost.span_id not in repeated


def test_two_separate_calls_still_add_up():
    # given two model calls one after the other, each with its own usage
    recorder = Recorder()
    with recorder.span("invoke_agent helper", {"gen_ai.operation.name": "invoke_agent"}):
        for _ in range(2):
            with recorder.chain(("call_llm", FRAMEWORK), ("openai.chat", OPENAI_CHILD)):
                pass
    send(recorder.spans())
    trace = Trace.objects.get()
    # then both count, each once
    assert (trace.input_tokens, trace.output_tokens) == (200, 20)
    assert len(trace.attributes["evalsite.usage_repeated"]) == 2


@pytest.mark.parametrize("inner_first", [True, False])
def test_nesting_across_requests_counts_once_in_trace_and_session(inner_first):
    # given the provider span and the framework span sent in separate requests, either order
    recorder = Recorder()
    attributes = {**FRAMEWORK, "gen_ai.conversation.id": "conv-usage"}
    with recorder.chain(
        ("invoke_agent helper", {"gen_ai.operation.name": "invoke_agent"}),
        ("call_llm", attributes),
        ("openai.chat", OPENAI_CHILD),
    ):
        pass
    spans = {span.name: span for span in recorder.spans()}
    first, second = ("openai.chat", "call_llm") if inner_first else ("call_llm", "openai.chat")
    send([spans[first]])
    send([spans[second], spans["invoke_agent helper"]])
    trace = Trace.objects.get()
    # then the trace and its session count the call once
    assert (trace.input_tokens, trace.output_tokens) == (100, 10)
    session = Session.objects.get()
    assert (session.input_tokens, session.output_tokens) == (100, 10)
    assert session.cost_usd == trace.cost_usd


def test_a_declared_cost_on_the_framework_span_only_is_kept():
    # given the framework span states the cost and the provider span has tokens of a model
    # no price list knows
    chain_sent(
        ("call_llm", {**FRAMEWORK, "gen_ai.usage.cost": 0.5}),
        ("openai.chat", {**OPENAI_CHILD, "gen_ai.request.model": "in-house-model-7"}),
    )
    trace = Trace.objects.get()
    # then tokens count once and the stated cost is not lost
    assert (trace.input_tokens, trace.output_tokens) == (100, 10)
    assert trace.cost_usd == Decimal("0.5")


def test_the_trace_page_says_which_spans_usage_was_counted(client, django_user_model):
    from accounts.roles import ANNOTATOR
    from tests.factories import UserFactory

    recorder = Recorder()
    _one_call(recorder, "framework>openai")
    send(recorder.spans())
    trace = Trace.objects.get()
    client.force_login(UserFactory(roles=[ANNOTATOR]))
    page = client.get(f"/traces/{trace.pk}/").content.decode()
    outer = Span.objects.get(name="call_llm")
    inner = Span.objects.get(name="openai.chat")
    assert 'id="usage-counted"' in page
    assert f"#span-{inner.span_id}" in page and f"#span-{outer.span_id}" in page
    assert "not counted" in page


def test_recount_usage_command_fixes_traces_stored_before(capsys):
    # given a trace stored with the doubled totals of earlier versions
    chain_sent(
        ("call_llm", {**FRAMEWORK, "gen_ai.conversation.id": "conv-old"}),
        ("openai.chat", OPENAI_CHILD),
    )
    trace = Trace.objects.get()
    Trace.objects.filter(pk=trace.pk).update(
        input_tokens=200, output_tokens=20, cost_usd=trace.cost_usd * 2
    )
    Session.objects.update(input_tokens=200, output_tokens=20, cost_usd=trace.cost_usd * 2)
    # when the command recounts
    call_command("recount_usage")
    # then the trace and its session hold the call once
    trace.refresh_from_db()
    session = Session.objects.get()
    assert (trace.input_tokens, trace.output_tokens) == (100, 10)
    assert (session.input_tokens, session.output_tokens) == (100, 10)
    assert session.cost_usd == trace.cost_usd
    assert "1 traces recounted of 1 read" in capsys.readouterr().out

"""The task's context, sent on every ingest path, is stored as the trace's context: a value
the agent took from it is grounded, not a hallucinated parameter."""

import json

import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from metrics.models import RedFlag
from metrics.redflag_store import red_flags_check
from tests.factories import ProjectFactory
from traces.context_attributes import context_from_attributes
from traces.ingest.services import ingest_otlp, ingest_payload
from traces.models import Trace

pytestmark = pytest.mark.django_db

TASK = "Please cancel my most recent order, I placed it by mistake."
CUSTOMER = "C-5120"
ORDERS = {"orders": [{"order_id": "A-71234", "status": "processing"}]}


def _hallucinated(trace: Trace) -> list[str]:
    return [
        flag.detail
        for flag in red_flags_check(trace)
        if flag.kind == RedFlag.Kind.HALLUCINATED_PARAMETER
    ]


def _span_tree(**extra) -> dict:
    return {
        "name": "invoke_agent support-agent",
        "type": "agent",
        "input": TASK,
        "output": "Order A-71234 is cancelled.",
        "children": [
            {
                "name": "get_recent_orders",
                "type": "tool",
                "input": {"customer_id": CUSTOMER},
                "output": ORDERS,
            },
            {"name": "cancel_order", "type": "tool", "input": {"order_id": "A-71234"}},
        ],
        **extra,
    }


def _transcript(**extra) -> dict:
    call = {"name": "get_recent_orders", "arguments": json.dumps({"customer_id": CUSTOMER})}
    return {
        "format": "openai",
        "messages": [
            {"role": "user", "content": TASK},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c1", "type": "function", "function": call}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": json.dumps(ORDERS)},
            {"role": "assistant", "content": "Order A-71234 is your latest; cancelling it."},
        ],
        **extra,
    }


def _otlp(resource: dict, root: dict) -> Trace:
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "support", **resource}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("support-agent")
    with (
        tracer.start_as_current_span(
            "invoke_agent support-agent",
            attributes={"gen_ai.operation.name": "invoke_agent", "input.value": TASK, **root},
        ),
        tracer.start_as_current_span(
            "execute_tool get_recent_orders",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_recent_orders",
                "gen_ai.tool.call.arguments": json.dumps({"customer_id": CUSTOMER}),
                "gen_ai.tool.call.result": json.dumps(ORDERS),
            },
        ),
    ):
        pass
    body = encode_spans(memory.get_finished_spans()).SerializeToString()
    ProjectFactory(slug="default")
    ingest_otlp(body=body, content_type="application/x-protobuf")
    return Trace.objects.get()


def test_without_context_the_id_is_flagged_as_hallucinated():
    trace = ingest_payload(ProjectFactory(), _span_tree())
    assert trace.context.get("customer_id") is None
    assert len(_hallucinated(trace)) == 1 and CUSTOMER in _hallucinated(trace)[0]


@pytest.mark.parametrize(
    ("send", "key"),
    [
        (lambda: ingest_payload(ProjectFactory(), _span_tree(context={"customer_id": CUSTOMER})),
         "customer_id"),
        (lambda: ingest_payload(
            ProjectFactory(), _span_tree(attributes={"evalsite.context.customer_id": CUSTOMER})
        ), "customer_id"),
        (lambda: ingest_payload(ProjectFactory(), _transcript(context={"customer_id": CUSTOMER})),
         "customer_id"),
        (lambda: _otlp({"evalsite.context.customer_id": CUSTOMER}, {}), "customer_id"),
        (lambda: _otlp({}, {"evalsite.context": json.dumps({"customer_id": CUSTOMER})}),
         "customer_id"),
        (lambda: _otlp({}, {"user.id": CUSTOMER}), "user_id"),
        (lambda: _otlp({"enduser.id": CUSTOMER}, {}), "user_id"),
    ],
    ids=[
        "span-tree context",
        "span-tree root attribute",
        "transcript context",
        "otlp resource evalsite.context.KEY",
        "otlp root evalsite.context JSON",
        "otlp root user.id",
        "otlp resource enduser.id",
    ],
)  # fmt: skip
def test_context_from_every_path_is_stored_and_grounds_the_value(send, key):
    trace = send()

    assert trace.context[key] == CUSTOMER
    assert _hallucinated(trace) == []


def test_the_root_span_wins_over_the_resource_and_explicit_keys_over_user_id():
    context = context_from_attributes(
        {
            "evalsite.context.account": "acme-eu",
            "user.id": "u-1",
            "evalsite.context.user_id": "u-2",
        },
        {"evalsite.context.account": "acme", "evalsite.context.plan": "pro"},
    )
    assert context == {"account": "acme-eu", "plan": "pro", "user_id": "u-2"}

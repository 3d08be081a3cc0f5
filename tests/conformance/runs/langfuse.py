"""The Langfuse Python SDK (OpenTelemetry-based since v3): `@observe` around the agent loop and
each tool, and the `langfuse.openai` drop-in around the model calls. Runs of the support task
for tests/conformance/record.py, each with its pins."""

from __future__ import annotations

import functools

PINS = {
    # The Langfuse SDK (~2 MB with its OpenTelemetry exporter), its span processor exporting to
    # the capture only: the OpenAI tool loop whole, streamed, and with a lookup that fails once
    name: ["langfuse==5.0.4", "openai==3.57.0", "opentelemetry-sdk==1.45.2"]
    for name in ("langfuse", "langfuse-stream", "langfuse-tool-error")
}

# What the runs propagate to every observation of their trace.
USER_ID, SESSION_ID, TAGS = "customer-118", "support-chat-7", ("support", "refunds")


def langfuse_run(provider, stream: bool = False, lookup_fails: bool = False) -> None:
    """The OpenAI tool loop (the tools declared, each reply whole or streamed) as a Langfuse
    user writes it: the loop an `@observe(as_type="agent")` function, each tool an
    `@observe(as_type="tool")` one, and the model calls traced by the `langfuse.openai`
    drop-in (which patches the `openai` module the loop calls). The Langfuse client exports
    through its own span processor, as it would to its server, to the capture's exporter
    (`span_exporter=`, as an application points it at evalsite's OTLP endpoint), on a
    provider of its own with the capture's resource; its server is a closed local port,
    never called. The run's user, session, tags and metadata are propagated to every
    observation (`propagate_attributes`), as Langfuse asks of trace-level attributes."""
    from langfuse import Langfuse, observe, propagate_attributes
    from langfuse.openai import openai  # noqa: F401 (the drop-in: patches `openai`)
    from opentelemetry.sdk.trace import TracerProvider

    from tests.conformance import support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    (processor,) = provider._active_span_processor._span_processors
    capture = processor.span_exporter
    langfuse = Langfuse(
        public_key="pk-lf-support",
        secret_key="sk-lf-support",
        base_url="http://127.0.0.1:9",
        tracer_provider=TracerProvider(resource=provider.resource),
        span_exporter=capture,
    )
    lookup_order = support_task.lookup_order_failing(lookup_fails)
    tools = {
        "lookup_order": observe(name="lookup_order", as_type="tool")(lookup_order),
        "refund": observe(name="refund", as_type="tool")(support_task.refund),
    }

    @observe(name="support-agent", as_type="agent")
    def support_agent(task: str) -> str:
        assert task == support_task.TASK
        return support_task.openai_agent_run(
            server.base_url, MODEL, tools=tools, stream=stream, offer_tools=True
        )

    trace_attributes = propagate_attributes(
        user_id=USER_ID,
        session_id=SESSION_ID,
        tags=list(TAGS),
        metadata={"channel": "email"},
        trace_name="support refund",
    )
    with FakeOpenAI() as server, trace_attributes:
        answer = support_agent(support_task.TASK)
        assert answer == support_task.FINAL_ANSWER, answer
    langfuse.flush()


RUNS = {
    "langfuse": lambda provider: langfuse_run(provider),
    "langfuse-stream": functools.partial(langfuse_run, stream=True),
    "langfuse-tool-error": functools.partial(langfuse_run, lookup_fails=True),
}

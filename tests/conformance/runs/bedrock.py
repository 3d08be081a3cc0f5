"""Bedrock's Converse API through boto3 under the OpenTelemetry botocore instrumentation (messages
as log records). Runs of the support task for tests/conformance/record.py, each with its pins."""

from __future__ import annotations

PINS = {
    # boto3 against the fake Converse server, whole, streamed, and with a tool that fails once;
    # message content comes as log records (36 MB installed, botocore's service models most)
    **{
        name: [
            "boto3==1.44.18",
            "opentelemetry-instrumentation-botocore==0.66b2",
            "opentelemetry-sdk==1.45.2",
        ]
        for name in ("bedrock", "bedrock-stream", "bedrock-tool-error")
    },
}


def bedrock_run(provider, stream: bool = False, tools: dict | None = None) -> None:
    """The plain Converse tool loop (boto3) on the fake Bedrock server, traced by the
    OpenTelemetry botocore instrumentation with message content captured (as log events, to
    the global logger provider), under a root span that says nothing about the task."""
    import os

    os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "true"
    from opentelemetry.instrumentation.botocore import BotocoreInstrumentor

    from tests.conformance import support_task
    from tests.conformance.fake_bedrock import MODEL, FakeBedrock

    instrumentor = BotocoreInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        with (
            FakeBedrock() as server,
            provider.get_tracer("support").start_as_current_span("support run"),
        ):
            support_task.bedrock_agent_run(server.base_url, MODEL, stream=stream, tools=tools)
    finally:
        instrumentor.uninstrument()


def bedrock_tool_error_run(provider) -> None:
    """The Converse loop with a `lookup_order` that fails on its first call: the loop answers
    with the error (`status: error`) and the model looks the order up again."""
    from tests.conformance import support_task

    calls = []

    def lookup_order(order_id: str) -> str:
        calls.append(order_id)
        if len(calls) == 1:
            raise TimeoutError("order service timed out")
        return support_task.lookup_order(order_id)

    bedrock_run(provider, tools={**support_task.TOOLS, "lookup_order": lookup_order})


RUNS = {
    "bedrock": bedrock_run,
    "bedrock-stream": lambda provider: bedrock_run(provider, stream=True),
    "bedrock-tool-error": bedrock_tool_error_run,
}

"""Pydantic Logfire's Anthropic instrumentation around the plain Anthropic tool loop. Runs of the
support task for tests/conformance/record.py, each with its pins."""

from __future__ import annotations

import functools

PINS = {
    # Logfire's SDK as runs/logfire.py pins it, with the Anthropic SDK it instruments (~4 MB)
    **{
        name: ["logfire==5.6.0", "anthropic==2.10.0", "opentelemetry-sdk==1.45.2"]
        for name in (
            "logfire-anthropic",
            "logfire-anthropic-stream",
            "logfire-anthropic-tool-error",
            "logfire-anthropic-v1-tool-error",
        )
    },
}


def logfire_anthropic_run(
    provider, stream: bool = False, failing: bool = False, version: int | None = None
) -> None:
    """`logfire.instrument_anthropic()` around the plain Anthropic tool loop (messages, the
    tools declared, whole or streamed) under a `logfire.span`; with `failing` the first lookup
    raises and is answered by a `tool_result` with `is_error`. `version` 1 is Logfire's former
    attributes (the request body as `request_data`), None its default (GenAI messages, which
    leave `is_error` out)."""
    import logfire

    from tests.conformance import support_task
    from tests.conformance.fake_anthropic import MODEL, FakeAnthropic
    from tests.conformance.runs.logfire import logfire_configured

    logfire_configured(provider)
    tools = {**support_task.TOOLS, "lookup_order": support_task.lookup_order_failing(failing)}
    instrumenting = logfire.instrument_anthropic(**({"version": version} if version else {}))
    with instrumenting, FakeAnthropic() as server, logfire.span("support run"):
        answer = support_task.anthropic_agent_run(server.base_url, MODEL, stream, tools)
        assert answer == support_task.FINAL_ANSWER, answer
    logfire.force_flush()


RUNS = {
    "logfire-anthropic": lambda provider: logfire_anthropic_run(provider),
    "logfire-anthropic-stream": functools.partial(logfire_anthropic_run, stream=True),
    "logfire-anthropic-tool-error": functools.partial(logfire_anthropic_run, failing=True),
    "logfire-anthropic-v1-tool-error": functools.partial(
        logfire_anthropic_run, failing=True, version=1
    ),
}

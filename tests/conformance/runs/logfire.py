"""Pydantic Logfire's OpenAI and pydantic-ai instrumentations, exporting to the capture only. Runs
of the support task for tests/conformance/record.py, each with its pins."""

from __future__ import annotations

import functools

PINS = {
    # Pydantic Logfire's SDK (~3 MB with `executing`; its OpenTelemetry pins fit
    # requirements-dev), exporting to our capture only: around the plain OpenAI tool loop
    # (whole and streamed, in its default and its former attributes) and a pydantic-ai agent
    # (whole, and with a lookup that fails once)
    **{
        name: [
            "logfire==5.6.0",
            "pydantic-ai-slim[openai]==2.68.0",
            "openai==3.57.0",
            "opentelemetry-sdk==1.45.2",
        ]
        for name in (
            "logfire-openai",
            "logfire-openai-stream",
            "logfire-openai-v1",
            "logfire-openai-v1-stream",
            "logfire-pydantic-ai",
            "logfire-pydantic-ai-tool-error",
        )
    },
}


def logfire_configured(provider) -> None:
    """Logfire configured to send nowhere but to `provider`'s processors (as
    `OTEL_EXPORTER_OTLP_ENDPOINT` would: completed spans, no pending ones) and to the log
    record processors of the global logger provider."""
    import logfire
    from opentelemetry._logs import get_logger_provider

    logger_provider = get_logger_provider()
    logfire.configure(
        send_to_logfire=False,
        console=False,
        metrics=False,
        service_name="support",
        additional_span_processors=provider._active_span_processor._span_processors,
        advanced=logfire.AdvancedOptions(
            log_record_processors=logger_provider._multi_log_record_processor._log_record_processors
        ),
    )


def logfire_openai_run(provider, stream: bool = False, version: int | None = None) -> None:
    """`logfire.instrument_openai()` around the plain OpenAI tool loop (chat completions, the
    tools declared, whole or streamed), under a `logfire.span`; `version` 1 is Logfire's
    former attributes (`request_data`, `response_data`), None its default (GenAI messages)."""
    import logfire

    from tests.conformance import support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    logfire_configured(provider)
    instrumenting = logfire.instrument_openai(**({"version": version} if version else {}))
    with instrumenting, FakeOpenAI() as server, logfire.span("support run"):
        support_task.openai_agent_run(server.base_url, MODEL, stream=stream, offer_tools=True)
    logfire.force_flush()


def logfire_pydantic_ai_run(provider, lookup_fails: bool = False) -> None:
    """A pydantic-ai agent with the two tools, instrumented by `logfire.instrument_pydantic_ai()`.
    With `lookup_fails` the first lookup raises ModelRetry, pydantic-ai's way to tell the model."""
    import logfire
    from pydantic_ai import Agent, ModelRetry
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from tests.conformance import support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    logfire_configured(provider)
    logfire.instrument_pydantic_ai()
    lookup_order = support_task.lookup_order_failing(lookup_fails, ModelRetry)

    with FakeOpenAI() as server:
        model = OpenAIChatModel(
            MODEL, provider=OpenAIProvider(base_url=server.base_url, api_key="test")
        )
        agent = Agent(model, system_prompt=support_task.SYSTEM_PROMPT, name="support")
        agent.tool_plain(lookup_order)
        agent.tool_plain(support_task.refund)
        result = agent.run_sync(support_task.TASK)
        assert result.output == support_task.FINAL_ANSWER, result.output
    logfire.force_flush()


RUNS = {
    "logfire-openai": lambda provider: logfire_openai_run(provider),
    "logfire-openai-stream": functools.partial(logfire_openai_run, stream=True),
    "logfire-openai-v1": functools.partial(logfire_openai_run, version=1),
    "logfire-openai-v1-stream": functools.partial(logfire_openai_run, stream=True, version=1),
    "logfire-pydantic-ai": lambda provider: logfire_pydantic_ai_run(provider),
    "logfire-pydantic-ai-tool-error": functools.partial(logfire_pydantic_ai_run, lookup_fails=True),
}

"""Haystack's Agent under its own OpenTelemetry tracer (2.x in core, 3.x in opentelemetry-haystack)
and under OpenInference's Haystack instrumentation. Runs of the support task for
tests/conformance/record.py, each with its pins."""

from __future__ import annotations

import functools

PINS = {
    # Haystack's Agent, traced by its own OpenTelemetryTracer (in core up to 2.x; 3.0 moved it
    # out) or by OpenInference's Haystack instrumentation; each whole and with a failing lookup
    **{
        name: [
            "haystack-ai==2.31.0",
            "openinference-instrumentation-haystack==0.1.46",
            "openai==3.63.0",
            "opentelemetry-sdk==1.45.2",
        ]
        for name in (
            "haystack",
            "haystack-tool-error",
            "haystack-openinference",
            "haystack-openinference-tool-error",
        )
    },
    # Haystack 3.x's Agent (one span per model call and per tool call), traced as its docs say
    # now: the OpenTelemetryTracer of the opentelemetry-haystack integration with content
    # tracing on, whole and with a failing lookup; and under OpenInference's instrumentation
    **{
        name: [
            "haystack-ai==3.4.1",
            "opentelemetry-haystack==2.0.0",
            "openinference-instrumentation-haystack==0.1.46",
            "openai==3.63.0",
            "opentelemetry-sdk==1.45.2",
        ]
        for name in ("haystack3", "haystack3-tool-error", "haystack3-openinference")
    },
}


def haystack_run(provider, openinference: bool = False, lookup_fails: bool = False) -> None:
    """Haystack's Agent (OpenAIChatGenerator on the fake OpenAI server, the tools made from
    functions), traced by Haystack's own OpenTelemetryTracer with content tracing on, or by
    OpenInference's Haystack instrumentation. With `lookup_fails` the first lookup raises; the
    agent does not raise but tells the model, which looks up again. Haystack 3.x takes the
    tracer from the opentelemetry-haystack integration, where 2.x had it in core."""
    import os

    # read when haystack is imported; no auto-enabled tracer, each setup enables its own
    os.environ["HAYSTACK_AUTO_TRACE_ENABLED"] = "false"
    os.environ["HAYSTACK_TELEMETRY_ENABLED"] = "False"  # no call home from the recording
    from haystack import tracing
    from haystack.components.agents import Agent
    from haystack.components.generators.chat import OpenAIChatGenerator
    from haystack.dataclasses import ChatMessage
    from haystack.tools import create_tool_from_function
    from haystack.utils import Secret

    try:
        from haystack_integrations.tracing.opentelemetry import OpenTelemetryTracer
    except ImportError:
        from haystack.tracing.opentelemetry import OpenTelemetryTracer

    from tests.conformance import support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    lookup_order = support_task.lookup_order_failing(lookup_fails)

    if openinference:
        from openinference.instrumentation.haystack import HaystackInstrumentor

        instrumentor = HaystackInstrumentor()
        instrumentor.instrument(tracer_provider=provider)
    else:
        tracing.enable_tracing(OpenTelemetryTracer(provider.get_tracer("haystack")))
        tracing.tracer.is_content_tracing_enabled = True
    try:
        with FakeOpenAI() as server:
            agent = Agent(
                chat_generator=OpenAIChatGenerator(
                    api_base_url=server.base_url, api_key=Secret.from_token("test"), model=MODEL
                ),
                tools=[
                    create_tool_from_function(lookup_order),
                    create_tool_from_function(support_task.refund),
                ],
                system_prompt=support_task.SYSTEM_PROMPT,
                # a tool that raises is told to the model, which may try again
                raise_on_tool_invocation_failure=False,
            )
            result = agent.run(messages=[ChatMessage.from_user(support_task.TASK)])
            assert result["last_message"].text == support_task.FINAL_ANSWER, result
    finally:
        if openinference:
            instrumentor.uninstrument()
        else:
            tracing.disable_tracing()


RUNS = {
    "haystack": haystack_run,
    "haystack-tool-error": functools.partial(haystack_run, lookup_fails=True),
    "haystack-openinference": functools.partial(haystack_run, openinference=True),
    "haystack-openinference-tool-error": functools.partial(
        haystack_run, openinference=True, lookup_fails=True
    ),
    "haystack3": haystack_run,
    "haystack3-tool-error": functools.partial(haystack_run, lookup_fails=True),
    "haystack3-openinference": functools.partial(haystack_run, openinference=True),
}

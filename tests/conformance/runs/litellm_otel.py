"""LiteLLM's own OpenTelemetry callback (`litellm.callbacks = ["otel"]`), exporting to the
capture only. Runs of the support task for tests/conformance/record.py, each with its pins."""

from __future__ import annotations

import functools
import os
import threading
import time

# 1.107.0 was a compromised release and is gone from the index; 1.110.2 is the latest.
LITELLM = ["litellm==1.110.2", "opentelemetry-sdk==1.45.2"]

PINS = {
    # a plain tool loop on `litellm.completion` (tools declared), whole and streamed, and with a
    # lookup that fails once (the model is told `Error: …`), inside the application's own span
    name: LITELLM
    for name in ("litellm-otel", "litellm-otel-stream", "litellm-otel-tool-error")
}

CALLS = 3  # the model calls of the support task, 4 with a failed lookup
SECONDS = 10


def litellm_otel_run(provider, stream: bool = False, lookup_fails: bool = False) -> None:
    """The support task as a loop on `litellm.completion("openai/gpt-4o-mini", …)` against the
    fake OpenAI server, under the application's own "support run" span, with LiteLLM's
    `otel` callback on the recording's provider (it takes a configured global SDK provider;
    no exporter of its own, no price map download). Each call names the run's span as its
    parent (`metadata["litellm_parent_otel_span"]`): without it LiteLLM writes a call's
    attributes onto the application's span, and a streamed call, logged on another thread,
    starts a trace of its own."""
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    from opentelemetry import trace
    from opentelemetry.sdk.trace import SpanProcessor

    trace.set_tracer_provider(provider)
    import litellm

    from tests.conformance import support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    logged = threading.Semaphore(0)

    class CallsLogged(SpanProcessor):
        """Counts the calls LiteLLM logged: it logs them on a thread of its own."""

        def on_end(self, span) -> None:
            if span.name == "litellm_request":
                logged.release()

    provider.add_span_processor(CallsLogged())
    litellm.callbacks = ["otel"]
    tools = {
        **support_task.TOOLS,
        "lookup_order": support_task.lookup_order_failing(lookup_fails),
    }
    tracer = trace.get_tracer("support")
    calls = 0
    with FakeOpenAI() as server, tracer.start_as_current_span("support run") as run:

        def complete(messages: list, streamed: bool):
            nonlocal calls
            calls += 1
            return litellm.completion(
                model=f"openai/{MODEL}",
                api_base=server.base_url,
                api_key="test",
                messages=messages,
                tools=support_task.OPENAI_CHAT_TOOLS,
                stream=streamed,
                metadata={"litellm_parent_otel_span": run},
            )

        answer = support_task.chat_tool_loop(complete, tools, stream)
    assert answer == support_task.FINAL_ANSWER, answer
    assert calls == CALLS + lookup_fails, calls
    deadline = time.monotonic() + SECONDS
    for _ in range(calls):
        assert logged.acquire(timeout=max(0.0, deadline - time.monotonic())), "calls not logged"
    provider.force_flush()


RUNS = {
    "litellm-otel": lambda provider: litellm_otel_run(provider),
    "litellm-otel-stream": functools.partial(litellm_otel_run, stream=True),
    "litellm-otel-tool-error": functools.partial(litellm_otel_run, lookup_fails=True),
}

"""The Google Gen AI SDK under the OpenTelemetry Google GenAI instrumentation. Runs of the support
task for tests/conformance/record.py, each with its pins."""

from __future__ import annotations

PINS = {
    # ~10 MB, but its instrumentation needs opentelemetry-util-genai 1.3, which the OpenAI v2
    # instrumentation of requirements-dev (2.4b0) fails to import with; and it instruments
    # google-genai <3 only, so the last 2.x
    **{
        name: [
            "google-genai==2.34.0",
            "opentelemetry-instrumentation-google-genai==1.3b0",
            "opentelemetry-sdk==1.45.2",
        ]
        for name in (
            "google-genai",
            "google-genai-stream",
            "google-genai-chat",
            "google-genai-failing",
            "google-genai-chat-failing",
        )
    },
}


def google_genai_run(provider, capture: str, way: str, failing: bool = False) -> None:
    """The Google Gen AI SDK on the fake Gemini server with the OpenTelemetry Google GenAI
    instrumentation, content captured as `capture` says (the latest conventions), the tools
    given as Python functions. `way`: "automatic" (generate_content runs the tools itself),
    "automatic-stream" (the same, streamed) or "chat" (a chat session runs them). `failing`:
    the first lookup raises."""
    import os

    os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
    os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = capture
    from opentelemetry.instrumentation.google_genai import GoogleGenAiSdkInstrumentor

    from tests.conformance import support_task
    from tests.conformance.fake_gemini import MODEL, gemini_client

    tools = [support_task.lookup_order_failing(failing), support_task.refund]
    with gemini_client(provider, GoogleGenAiSdkInstrumentor(), tools) as (client, config):
        task = {"model": MODEL, "contents": support_task.TASK, "config": config}
        if way == "automatic":
            client.models.generate_content(**task)
        elif way == "automatic-stream":
            for _ in client.models.generate_content_stream(**task):
                pass
        else:
            chat = client.chats.create(model=MODEL, config=config)
            chat.send_message(support_task.TASK)


# The Google Gen AI SDK's ways of running the tools, each under a content capture users set.
GOOGLE_GENAI_RUNS = {
    "google-genai": ("SPAN_ONLY", "automatic", False),
    "google-genai-stream": ("SPAN_AND_EVENT", "automatic-stream", False),
    "google-genai-chat": ("EVENT_ONLY", "chat", False),
    "google-genai-failing": ("SPAN_ONLY", "automatic", True),
    "google-genai-chat-failing": ("SPAN_ONLY", "chat", True),
}


RUNS = {
    **{
        name: lambda provider, args=args: google_genai_run(provider, *args)
        for name, args in GOOGLE_GENAI_RUNS.items()
    },
}

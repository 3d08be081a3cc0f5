"""The Google Gen AI SDK under OpenInference's Google GenAI instrumentation, the tool loop run by
hand (automatic function calling off). Runs of the support task for tests/conformance/record.py,
each with its pins."""

from __future__ import annotations

PINS = {
    # OpenInference's instrumentation (~1 MB with its conventions) of the same SDK version as
    # runs/google_genai.py, so both read one client
    **{
        name: [
            "google-genai==2.34.0",
            "openinference-instrumentation-google-genai==1.4.14",
            "opentelemetry-sdk==1.45.2",
        ]
        for name in (
            "openinference-google-genai",
            "openinference-google-genai-stream",
            "openinference-google-genai-chat",
            "openinference-google-genai-tool-error",
        )
    },
}


def manual_tool_loop(send, failing: bool) -> None:
    """The support task as a hand-run Gemini tool loop: `send(parts)` hands the model the
    user's or the tools' parts and returns the reply's parts; each `function_call` is
    answered with a function response, `{"result": ...}`, or `{"error": ...}` for a tool that
    raised, until the model answers in text."""
    from google.genai import types

    from tests.conformance import support_task

    tools = {**support_task.TOOLS, "lookup_order": support_task.lookup_order_failing(failing)}
    parts = send([types.Part.from_text(text=support_task.TASK)])
    while calls := [part.function_call for part in parts if part.function_call]:
        responses = []
        for call in calls:
            try:
                response = {"result": tools[call.name](**(call.args or {}))}
            except Exception as error:  # the model is told, as the SDK's own loop does
                response = {"error": str(error)}
            responses.append(
                types.Part(
                    function_response=types.FunctionResponse(
                        id=call.id, name=call.name, response=response
                    )
                )
            )
        parts = send(responses)
    text = "".join(part.text or "" for part in parts)
    assert text == support_task.FINAL_ANSWER, text


def gemini_send(client, config, way: str):
    """`send(parts)` for manual_tool_loop on `client`: "whole" (generate_content, the history
    resent each time), "stream" (generate_content_stream) or "chat" (a chat session keeps the
    history)."""
    from google.genai import types

    from tests.conformance.fake_gemini import MODEL

    if way == "chat":
        chat = client.chats.create(model=MODEL, config=config)

        def send(parts):
            return chat.send_message(parts).candidates[0].content.parts
    else:
        contents: list = []

        def send(parts):
            contents.append(types.Content(role="user", parts=parts))
            request = {"model": MODEL, "contents": contents, "config": config}
            if way == "stream":
                reply = []
                for chunk in client.models.generate_content_stream(**request):
                    reply += chunk.candidates[0].content.parts or []
                # the streamed text's pieces as one part, as the SDK's chat keeps it
                text = "".join(part.text or "" for part in reply)
                reply = [part for part in reply if not part.text]
                reply += [types.Part.from_text(text=text)] if text else []
            else:
                reply = client.models.generate_content(**request)
                reply = reply.candidates[0].content.parts
            contents.append(types.Content(role="model", parts=reply))
            return reply

    return send


def openinference_google_genai_run(provider, way: str, failing: bool = False) -> None:
    """The Google Gen AI SDK on the fake Gemini server under OpenInference's instrumentation,
    the tools declared as Python functions with automatic function calling off, the loop run
    by hand. `way`: "whole" (generate_content, the history resent each time), "stream"
    (generate_content_stream) or "chat" (a chat session keeps the history)."""
    from google.genai import types
    from openinference.instrumentation.google_genai import GoogleGenAIInstrumentor

    from tests.conformance import support_task
    from tests.conformance.fake_gemini import gemini_client

    with gemini_client(
        provider,
        GoogleGenAIInstrumentor(),
        [support_task.lookup_order, support_task.refund],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    ) as (client, config):
        manual_tool_loop(gemini_send(client, config, way), failing)


RUNS = {
    "openinference-google-genai": lambda provider: openinference_google_genai_run(
        provider, "whole"
    ),
    "openinference-google-genai-stream": lambda provider: openinference_google_genai_run(
        provider, "stream"
    ),
    "openinference-google-genai-chat": lambda provider: openinference_google_genai_run(
        provider, "chat"
    ),
    "openinference-google-genai-tool-error": lambda provider: openinference_google_genai_run(
        provider, "whole", failing=True
    ),
}

"""The Google Gen AI SDK under OpenLLMetry's Google Generative AI instrumentation (Traceloop's
`opentelemetry-instrumentation-google-generativeai`), content captured as it is by default
(`TRACELOOP_TRACE_CONTENT`). Runs of the support task for tests/conformance/record.py, each with
its pins."""

from __future__ import annotations

PINS = {
    # the instrumentation (~0.2 MB with its conventions) of the same SDK version as
    # runs/google_genai.py and runs/openinference_google_genai.py, so all three read one client
    **{
        name: [
            "google-genai==2.34.0",
            "opentelemetry-instrumentation-google-generativeai==0.62.4",
            "opentelemetry-sdk==1.45.2",
        ]
        for name in (
            "openllmetry-google-genai",
            "openllmetry-google-genai-stream",
            "openllmetry-google-genai-tool-error",
            "openllmetry-google-genai-automatic",
        )
    },
    # 0.57.0, the last version that writes the flattened `gen_ai.prompt.N.*` and
    # `gen_ai.completion.N.*` attributes (0.58 writes `gen_ai.input.messages` and
    # `gen_ai.output.messages`): each part not text as its Python repr
    **{
        name: [
            "google-genai==2.34.0",
            "opentelemetry-instrumentation-google-generativeai==0.57.0",
            "opentelemetry-sdk==1.45.2",
        ]
        for name in (
            "openllmetry-google-genai-flat",
            "openllmetry-google-genai-flat-stream",
            "openllmetry-google-genai-flat-tool-error",
        )
    },
}


def openllmetry_google_genai_run(provider, way: str, failing: bool = False) -> None:
    """The Google Gen AI SDK on the fake Gemini server under OpenLLMetry's instrumentation, the
    tools declared as Python functions. `way`: "whole" or "stream" (automatic function calling
    off, the loop run by hand, the history resent each time: generate_content or
    generate_content_stream), or "automatic" (generate_content runs the tools itself)."""
    from google.genai import types
    from opentelemetry.instrumentation.google_generativeai import (
        GoogleGenerativeAiInstrumentor,
    )

    from tests.conformance import support_task
    from tests.conformance.fake_gemini import MODEL, gemini_client
    from tests.conformance.runs.openinference_google_genai import gemini_send, manual_tool_loop

    automatic = way == "automatic"
    with gemini_client(
        provider,
        GoogleGenerativeAiInstrumentor(),
        [support_task.lookup_order_failing(failing), support_task.refund],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=not automatic),
    ) as (client, config):
        if automatic:
            reply = client.models.generate_content(
                model=MODEL, contents=support_task.TASK, config=config
            )
            assert reply.text == support_task.FINAL_ANSWER, reply.text
        else:
            manual_tool_loop(gemini_send(client, config, way), failing)


# name -> (way, failing), under either version's pins
OPENLLMETRY_GOOGLE_GENAI_RUNS = {
    "openllmetry-google-genai": ("whole", False),
    "openllmetry-google-genai-stream": ("stream", False),
    "openllmetry-google-genai-tool-error": ("whole", True),
    "openllmetry-google-genai-automatic": ("automatic", False),
    "openllmetry-google-genai-flat": ("whole", False),
    "openllmetry-google-genai-flat-stream": ("stream", False),
    "openllmetry-google-genai-flat-tool-error": ("whole", True),
}
RUNS = {
    name: lambda provider, args=args: openllmetry_google_genai_run(provider, *args)
    for name, args in OPENLLMETRY_GOOGLE_GENAI_RUNS.items()
}

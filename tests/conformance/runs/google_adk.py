"""Google's Agent Development Kit, traced by its own OpenTelemetry instrumentation. Runs of the
support task for tests/conformance/record.py, each with its pins."""

from __future__ import annotations

import json

PINS = {
    "google-adk": ["google-adk==2.13.0", "opentelemetry-sdk==1.44.0"],
}


def google_adk_run(provider) -> None:
    """ADK reaches OpenAI models only through LiteLLM; a scripted BaseLlm plays the same
    support script in Gemini's types instead, so the run needs no network and no key."""
    import asyncio
    import os

    os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
    os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"
    from google.adk.agents import LlmAgent
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_response import LlmResponse
    from google.adk.runners import InMemoryRunner
    from google.genai import types
    from opentelemetry import trace

    from tests.conformance import support_task
    from tests.conformance.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS, next_reply

    trace.set_tracer_provider(provider)

    class ScriptedGemini(BaseLlm):
        model: str = "gemini-2.0-flash"

        async def generate_content_async(self, llm_request, stream=False):
            results = []
            for content in llm_request.contents:
                for part in content.parts or []:
                    if part.function_response:
                        value = part.function_response.response
                        value = value.get("result", value)
                        text = value if isinstance(value, str) else json.dumps(value)
                        results.append({"role": "tool", "content": text})
            reply = next_reply(results)
            if reply.get("tool_calls"):
                call = reply["tool_calls"][0]
                function_call = types.FunctionCall(
                    id=call["id"],
                    name=call["function"]["name"],
                    args=json.loads(call["function"]["arguments"]),
                )
                part = types.Part(function_call=function_call)
            else:
                part = types.Part(text=reply["content"])
            usage = types.GenerateContentResponseUsageMetadata(
                prompt_token_count=PROMPT_TOKENS,
                candidates_token_count=COMPLETION_TOKENS,
                total_token_count=PROMPT_TOKENS + COMPLETION_TOKENS,
            )
            yield LlmResponse(
                content=types.Content(role="model", parts=[part]), usage_metadata=usage
            )

    agent = LlmAgent(
        name="support",
        model=ScriptedGemini(),
        instruction=support_task.SYSTEM_PROMPT,
        tools=[support_task.lookup_order, support_task.refund],
    )
    runner = InMemoryRunner(agent=agent, app_name="support")

    async def run():
        session = await runner.session_service.create_session(app_name="support", user_id="u")
        message = types.Content(role="user", parts=[types.Part(text=support_task.TASK)])
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
            pass

    asyncio.run(run())


RUNS = {
    "google-adk": google_adk_run,
}

"""DSPy's ReAct agent under OpenInference's DSPy and LiteLLM instrumentations. Runs of the support
task for tests/conformance/record.py, each with its pins."""

from __future__ import annotations

import functools

PINS = {
    # DSPy calls models through LiteLLM: OpenInference's documentation sets up both; a run
    # whole, one whose first lookup fails, and one on DSPy's LiteLLM engine (LiteLLM's spans,
    # with usage, inside DSPy's LM spans)
    **{
        name: [
            "dspy==3.4.1",
            "openinference-instrumentation-dspy==0.1.48",
            "openinference-instrumentation-litellm==0.1.51",
            "litellm==1.110.2",
            "opentelemetry-sdk==1.45.2",
        ]
        for name in ("dspy", "dspy-tool-error", "dspy-litellm")
    },
}


def dspy_run(provider, lookup_fails: bool = False, engine: str = "auto") -> None:
    """DSPy's ReAct agent on the fake OpenAI server (its default ChatAdapter, no native tool
    calls, cache off), with OpenInference's DSPy and LiteLLM instrumentations. With
    `lookup_fails` the first lookup raises; ReAct tells the model and it looks up again.
    `engine`: DSPy's default ("auto", its native lm15 engine for an OpenAI model) or
    "litellm", which calls through LiteLLM so its spans nest inside DSPy's LM spans."""
    import dspy
    from openinference.instrumentation.dspy import DSPyInstrumentor
    from openinference.instrumentation.litellm import LiteLLMInstrumentor

    from tests.conformance import support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    instrumentors = [DSPyInstrumentor(), LiteLLMInstrumentor()]
    for instrumentor in instrumentors:
        instrumentor.instrument(tracer_provider=provider)
    try:
        with FakeOpenAI() as server:
            lm = dspy.LM(
                f"openai/{MODEL}",
                api_base=server.base_url,
                api_key="test",
                cache=False,
                engine=engine,
            )
            dspy.configure(lm=lm)
            signature = dspy.Signature("question -> answer", support_task.SYSTEM_PROMPT)
            lookup_order = support_task.lookup_order_failing(lookup_fails)

            agent = dspy.ReAct(signature, tools=[lookup_order, support_task.refund])
            prediction = agent(question=support_task.TASK)
            assert prediction.answer == support_task.FINAL_ANSWER, prediction
    finally:
        for instrumentor in instrumentors:
            instrumentor.uninstrument()


RUNS = {
    "dspy": dspy_run,
    "dspy-tool-error": lambda provider: dspy_run(provider, lookup_fails=True),
    "dspy-litellm": functools.partial(dspy_run, engine="litellm"),
}

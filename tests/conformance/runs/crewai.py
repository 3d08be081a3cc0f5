"""CrewAI under OpenInference's CrewAI and OpenAI instrumentations, and under OpenLLMetry's. Runs
of the support task for tests/conformance/record.py, each with its pins."""

from __future__ import annotations

import functools

PINS = {
    "crewai": [
        "crewai==1.15.30",
        "openinference-instrumentation-crewai==1.1.21",
        # CrewAI calls OpenAI through its SDK, which its own instrumentation does not trace
        "openinference-instrumentation-openai==0.1.66",
        "opentelemetry-sdk==1.45.2",
    ],
    # OpenLLMetry's CrewAI instrumentation with its OpenAI one for the model calls
    "crewai-openllmetry": [
        "crewai==1.15.30",
        "opentelemetry-instrumentation-crewai==0.62.4",
        "opentelemetry-instrumentation-openai==0.62.4",
        "opentelemetry-sdk==1.45.2",
    ],
}


def crewai_instrumentors(instrumentation: str) -> list:
    """The CrewAI and OpenAI instrumentors of `instrumentation` ("openinference" or
    "openllmetry")."""
    if instrumentation == "openllmetry":
        from opentelemetry.instrumentation.crewai import CrewAIInstrumentor
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor
    else:
        from openinference.instrumentation.crewai import CrewAIInstrumentor
        from openinference.instrumentation.openai import OpenAIInstrumentor
    return [CrewAIInstrumentor(), OpenAIInstrumentor()]


def crewai_run(provider, instrumentation: str = "openinference") -> None:
    """A one-agent CrewAI crew on the fake OpenAI server, with the CrewAI and OpenAI
    instrumentations of `instrumentation` (the pair each one's documentation sets up)."""
    import os

    os.environ["CREWAI_DISABLE_TELEMETRY"] = "true"  # no call home from the recording
    from crewai import LLM, Agent, Crew, Task
    from crewai.tools import tool

    from tests.conformance import documented_tools, support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    instrumentors = crewai_instrumentors(instrumentation)
    for instrumentor in instrumentors:
        instrumentor.instrument(tracer_provider=provider)
    try:
        with FakeOpenAI() as server:
            agent = Agent(
                role="support",
                goal=support_task.SYSTEM_PROMPT,
                backstory="A support agent.",
                tools=[tool(documented_tools.lookup_order), tool(documented_tools.refund)],
                llm=LLM(model=f"openai/{MODEL}", base_url=server.base_url, api_key="test"),
            )
            task = Task(description=support_task.TASK, expected_output="What was done.")
            task.agent = agent
            Crew(agents=[agent], tasks=[task]).kickoff()
    finally:
        for instrumentor in instrumentors:
            instrumentor.uninstrument()


RUNS = {
    "crewai": crewai_run,
    "crewai-openllmetry": functools.partial(crewai_run, instrumentation="openllmetry"),
}

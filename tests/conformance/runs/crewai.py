"""CrewAI under OpenInference's CrewAI and OpenAI instrumentations. Runs of the support task for
tests/conformance/record.py, each with its pins."""

from __future__ import annotations

PINS = {
    "crewai": [
        "crewai==1.15.30",
        "openinference-instrumentation-crewai==1.1.21",
        # CrewAI calls OpenAI through its SDK, which its own instrumentation does not trace
        "openinference-instrumentation-openai==0.1.66",
        "opentelemetry-sdk==1.45.2",
    ],
}


def crewai_run(provider) -> None:
    """A one-agent CrewAI crew on the fake OpenAI server, with OpenInference's CrewAI and
    OpenAI instrumentations (the pair its documentation sets up)."""
    import os

    os.environ["CREWAI_DISABLE_TELEMETRY"] = "true"  # no call home from the recording
    from crewai import LLM, Agent, Crew, Task
    from crewai.tools import tool
    from openinference.instrumentation.crewai import CrewAIInstrumentor
    from openinference.instrumentation.openai import OpenAIInstrumentor

    from tests.conformance import documented_tools, support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    instrumentors = [CrewAIInstrumentor(), OpenAIInstrumentor()]
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
}

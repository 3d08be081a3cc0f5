"""CrewAI under OpenLIT's auto-instrumentation (`openlit.init`: its CrewAI instrumentation for the
crew, agent, task and tool, and its OpenAI one for the model calls beneath). Runs of the support
task for tests/conformance/record.py, each with its pins."""

from __future__ import annotations

import functools

from tests.conformance.runs.crewai import PINS as CREWAI_PINS
from tests.conformance.runs.openlit import OPENLIT, openlit_initialized

CREWAI = [pin for pin in CREWAI_PINS["crewai"] if pin.startswith("crewai==")]

PINS = {
    # the crew whole, and with a lookup that fails once (CrewAI hands the error to the agent)
    name: [*OPENLIT, *CREWAI]
    for name in ("openlit-crewai", "openlit-crewai-tool-error")
}


def openlit_crewai_run(provider, lookup_fails: bool = False) -> None:
    """The one-agent support crew of runs/crewai.py on the fake OpenAI server, under
    `openlit.init`; with `lookup_fails` the first lookup raises."""
    import os

    os.environ["CREWAI_DISABLE_TELEMETRY"] = "true"  # no call home from the recording
    from crewai import LLM, Agent, Crew, Task
    from crewai.tools import tool

    from tests.conformance import documented_tools, support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    openlit_initialized(provider)
    lookup_order = support_task.lookup_order_failing(lookup_fails)
    with FakeOpenAI() as server:
        agent = Agent(
            role="support",
            goal=support_task.SYSTEM_PROMPT,
            backstory="A support agent.",
            tools=[tool(lookup_order), tool(documented_tools.refund)],
            llm=LLM(model=f"openai/{MODEL}", base_url=server.base_url, api_key="test"),
        )
        task = Task(description=support_task.TASK, expected_output="What was done.")
        task.agent = agent
        output = Crew(agents=[agent], tasks=[task]).kickoff()
    assert support_task.FINAL_ANSWER in str(output), output
    provider.force_flush()


RUNS = {
    "openlit-crewai": lambda provider: openlit_crewai_run(provider),
    "openlit-crewai-tool-error": functools.partial(openlit_crewai_run, lookup_fails=True),
}

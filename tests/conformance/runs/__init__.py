"""The frameworks record.py records, a module each: its pins and its runs (name -> run, which
takes the tracer provider the recording captures)."""

from tests.conformance.runs import (
    agent_framework,
    agno,
    autogen,
    bedrock,
    beeai,
    crewai,
    dspy,
    google_adk,
    google_genai,
    haystack,
    llama_index,
    logfire,
    semantic_kernel,
    strands,
)

FRAMEWORKS = (
    agent_framework,
    agno,
    autogen,
    beeai,
    bedrock,
    crewai,
    dspy,
    google_adk,
    google_genai,
    haystack,
    llama_index,
    logfire,
    semantic_kernel,
    strands,
)
PINS = {name: pins for framework in FRAMEWORKS for name, pins in framework.PINS.items()}
RUNS = {name: run for framework in FRAMEWORKS for name, run in framework.RUNS.items()}

"""Record the spans of frameworks too heavy for requirements-dev (over 150 MB installed) into
small OTLP/JSON fixtures under tests/conformance/recorded/, which test_recorded.py ingests.

Installs the pinned versions into a throwaway virtualenv, runs the two-tool support agent
there against the fake OpenAI server (streaming), and writes what the framework's own
instrumentation emitted, exactly as the stock exporter would send it as JSON.

    python tests/conformance/record.py            # every framework below
    python tests/conformance/record.py strands    # one
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RECORDED = Path(__file__).resolve().parent / "recorded"
PINS = {
    "strands": ["strands-agents[openai]==1.62.0", "opentelemetry-sdk==1.44.0"],
}


def strands_run(provider) -> None:
    from opentelemetry import trace
    from strands import Agent, tool
    from strands.models.openai import OpenAIModel

    from tests.conformance import support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    trace.set_tracer_provider(provider)
    with FakeOpenAI() as server:
        model = OpenAIModel(
            client_args={"base_url": server.base_url, "api_key": "test"}, model_id=MODEL
        )
        agent = Agent(
            model=model,
            system_prompt=support_task.SYSTEM_PROMPT,
            tools=[tool(support_task.lookup_order), tool(support_task.refund)],
            name="support",
            callback_handler=None,
        )
        agent(support_task.TASK)


RUNS = {"strands": strands_run}


def record_inside(framework: str) -> None:
    """Run one framework in this interpreter and write its fixture."""
    from google.protobuf import json_format
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "support"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    RUNS[framework](provider)
    request = json_format.MessageToDict(encode_spans(memory.get_finished_spans()))
    _ids_to_hex(request)
    versions = {pin.split("==")[0]: pin.split("==")[1] for pin in PINS[framework]}
    fixture = {"recorded_with": versions, "request": request}
    RECORDED.mkdir(exist_ok=True)
    (RECORDED / f"{framework}.json").write_text(json.dumps(fixture, indent=1) + "\n")


def _ids_to_hex(node) -> None:
    """OTLP/JSON writes ids as hex, where protobuf's JSON mapping gives base64."""
    import base64

    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("traceId", "spanId", "parentSpanId") and isinstance(value, str):
                node[key] = base64.b64decode(value).hex()
            else:
                _ids_to_hex(value)
    elif isinstance(node, list):
        for item in node:
            _ids_to_hex(item)


def record(framework: str) -> None:
    """Install the pinned framework into a throwaway venv and record there."""
    with tempfile.TemporaryDirectory() as venv:
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        python = str(Path(venv) / "bin" / "python")
        exporter = "opentelemetry-exporter-otlp-proto-common"
        subprocess.run(
            [python, "-m", "pip", "install", "--quiet", *PINS[framework], exporter], check=True
        )
        subprocess.run(
            [python, str(Path(__file__).resolve()), "--inside", framework],
            check=True,
            cwd=ROOT,
            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--inside"]:
        sys.path.insert(0, str(ROOT))
        record_inside(sys.argv[2])
    else:
        for name in sys.argv[1:] or list(RUNS):
            record(name)
            print(f"recorded {RECORDED / (name + '.json')}")

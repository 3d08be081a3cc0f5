"""Record the spans of frameworks too heavy for requirements-dev (70 MB and more installed), or
whose pins clash with it, into small OTLP/JSON fixtures under tests/conformance/recorded/, which
test_recorded.py ingests (with the log records a run emitted).

Installs the pinned versions into a throwaway virtualenv, runs the two-tool support agent
there against the fake OpenAI server (streaming), and writes what the framework's own
instrumentation emitted, exactly as the stock exporter would send it as JSON (its spans, and
the log records of a framework that logs its messages, under `logs`).

    python tests/conformance/record.py            # every framework (tests/conformance/runs/)
    python tests/conformance/record.py strands    # one
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tests.conformance.runs import PINS, RUNS  # noqa: E402

RECORDED = Path(__file__).resolve().parent / "recorded"


def record_inside(framework: str) -> None:
    """Run one framework in this interpreter and write its fixture: its spans, and the log
    records it emitted (GenAI events, or Python logging through OpenTelemetry's handler)."""
    from google.protobuf import json_format
    from opentelemetry._logs import set_logger_provider
    from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from tests.otlp_ids import ids_to_hex

    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "support"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    logs = InMemoryLogRecordExporter()
    logger_provider = LoggerProvider(resource=Resource.create({"service.name": "support"}))
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    set_logger_provider(logger_provider)
    RUNS[framework](provider)
    request = json_format.MessageToDict(encode_spans(memory.get_finished_spans()))
    ids_to_hex(request)
    versions = {pin.split("==")[0]: pin.split("==")[1] for pin in PINS[framework]}
    fixture = {"recorded_with": versions, "request": request}
    if records := logs.get_finished_logs():
        fixture["logs"] = json_format.MessageToDict(encode_logs(records))
        ids_to_hex(fixture["logs"])
    RECORDED.mkdir(exist_ok=True)
    (RECORDED / f"{framework}.json").write_text(json.dumps(fixture, indent=1) + "\n")


# The Vercel AI SDK runs on Node: its packages, pinned, and the script that runs the agent.
AI_SDK_PINS = {
    "ai": "6.0.333",
    "@ai-sdk/openai": "3.0.141",
    "zod": "4.6.7",
    "@opentelemetry/api": "1.9.1",
    "@opentelemetry/sdk-trace-base": "2.12.1",
    "@opentelemetry/resources": "2.12.1",
    "@opentelemetry/context-async-hooks": "2.12.1",
    "@opentelemetry/otlp-transformer": "0.223.1",
}


# Mastra runs on Node: an Agent with its observability exporting OTLP/JSON over HTTP
# (`@mastra/otel-exporter`, "custom" provider); 221 MB installed, ~190 of it Mastra and
# OpenTelemetry. The @mastra scope once shipped versions whose dependency ran a malicious
# postinstall: record_node runs no lifecycle script.
MASTRA_PINS = {
    "@mastra/core": "1.71.0",
    "@mastra/observability": "1.17.9",
    "@mastra/otel-exporter": "1.4.0",
    # the OTLP/HTTP exporter the OtelExporter loads for "http/json" (its peer range)
    "@opentelemetry/exporter-trace-otlp-http": "0.218.0",
    "@ai-sdk/openai": "3.0.141",
    "zod": "4.6.7",
}
MASTRA_RUNS = {"mastra": "whole", "mastra-tool-error": "failing"}


# LangGraph.js runs on Node: `createReactAgent` with `ChatOpenAI`, traced by OpenInference's
# LangChain instrumentation into an in-memory exporter; 138 MB installed.
LANGGRAPHJS_PINS = {
    "@langchain/langgraph": "1.7.3",
    "@langchain/core": "1.4.0",
    "@langchain/openai": "1.6.0",
    "@arizeai/openinference-instrumentation-langchain": "4.1.1",
    "zod": "4.6.7",
    "@opentelemetry/api": "1.9.1",
    "@opentelemetry/sdk-trace-base": "2.12.1",
    "@opentelemetry/resources": "2.12.1",
    "@opentelemetry/context-async-hooks": "2.12.1",
    "@opentelemetry/otlp-transformer": "0.223.1",
}
LANGGRAPHJS_RUNS = {"langgraphjs": "whole", "langgraphjs-tool-error": "failing"}


# Each Node script, its pinned packages, and the runs it records (name -> the mode it is given).
NODE_RECORDINGS = {
    "ai_sdk_run.mjs": (AI_SDK_PINS, {"ai-sdk": "chat"}),
    "mastra_run.mjs": (MASTRA_PINS, MASTRA_RUNS),
    "langgraphjs_run.mjs": (LANGGRAPHJS_PINS, LANGGRAPHJS_RUNS),
}
NODE_RUNS = {name: script for script, (_, runs) in NODE_RECORDINGS.items() for name in runs}


def record_node(script_name: str, names: list[str]) -> None:
    """Install a Node script's pinned packages into a throwaway folder (without lifecycle
    scripts: none is needed) and record its runs `names` there against the fake OpenAI
    server, each the OTLP/JSON body the script wrote."""
    from tests.conformance.fake_openai import FakeOpenAI

    pins, runs = NODE_RECORDINGS[script_name]
    with tempfile.TemporaryDirectory() as folder:
        package = {"type": "module", "dependencies": pins}
        (Path(folder) / "package.json").write_text(json.dumps(package))
        subprocess.run(["npm", "install", "--silent", "--ignore-scripts"], cwd=folder, check=True)
        script = Path(folder) / "run.mjs"
        script.write_text((Path(__file__).parent / script_name).read_text())
        for name in names:
            body = Path(folder) / "body.json"
            with FakeOpenAI() as server:
                node = ["node", str(script), server.base_url, str(body), runs[name]]
                subprocess.run(node, cwd=folder, check=True)
            fixture = {"recorded_with": pins, "request": json.loads(body.read_text())}
            (RECORDED / f"{name}.json").write_text(json.dumps(fixture, indent=1) + "\n")


def record(framework: str) -> None:
    """Install the pinned framework into a throwaway venv and record there."""
    with tempfile.TemporaryDirectory() as venv:
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        python = str(Path(venv) / "bin" / "python")
        sdk = next(pin for pin in PINS[framework] if pin.startswith("opentelemetry-sdk=="))
        exporter = sdk.replace("opentelemetry-sdk", "opentelemetry-exporter-otlp-proto-common")
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
        record_inside(sys.argv[2])
    else:
        names = sys.argv[1:] or [*RUNS, *NODE_RUNS]
        for script_name in NODE_RECORDINGS:
            if on_node := [name for name in names if NODE_RUNS.get(name) == script_name]:
                record_node(script_name, on_node)
        for name in names:
            if name not in NODE_RUNS:
                record(name)
            print(f"recorded {RECORDED / (name + '.json')}")

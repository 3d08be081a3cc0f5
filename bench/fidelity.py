"""Ingest fidelity: one multi-turn support conversation sent through every ingest path, in the
shapes frameworks write it, and read back from the database.

Per path it prints messages kept / sent, tool results paired with the right call, failures
marked right, one step per tool call, tokens counted once (each model call's usage once,
however many nested spans repeat it), and whether the task and final answer are present and
readable (what is stored), then what the judge reads: of the task, final answer, tool names,
argument values, result starts, errors and later user turns the agent sent, how many the
prompt of every built-in rubric carries (the rubric that carries fewest counts), and how often
it reads a step twice (a tool decided more often than it was called, a result handed back
after its tool step showed it: tests/judges/judge_reads.read_twice). The sample has
three user turns, a reused tool-call id, an `Error:` text result and an empty `think` result.
The OTLP paths cover GenAI and OpenInference spans, model calls nested three deep,
a provider's span in each framework model-call span, lifecycle-event tool spans (plain and
namespaced as BeeAI writes them), MCP client and server spans, message content sent as OTLP
logs (before and after the spans, and records that missed their span, joined by the settle
sweep) and a Jaeger export; a last row sends the seed article's
instrumentation (agent_run, agent_step_N, tool_call) as OTLP protobuf.

    .venv/bin/python bench/fidelity.py [--database-url postgres://.../evalsite_fidelity]
"""

import argparse
import json
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.benchdb import django_setup  # noqa: E402
from core.json_text import json_text_decoded  # noqa: E402
from tests.otlp_ids import ids_to_hex  # noqa: E402

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/evalsite_fidelity"
from bench.fidelity_conversation import (  # noqa: E402
    EXPECTED_TOOLS,
    FINAL,
    SYSTEM,
    TASK,
    anthropic_messages,
    model_calls,
    openai_messages,
    otel_spans,
    recording_tracer,
    span_tree,
)
from bench.fidelity_shapes import (  # noqa: E402
    CALL_TOKENS,
    event_mode_spans_and_logs,
    jaeger_export,
    lifecycle_spans,
    mcp_spans,
    nested_spans,
    provider_in_framework_spans,
)


def send_all(client) -> dict:
    """Each path's trace, sent through the real endpoints with the Django test client."""
    from google.protobuf import json_format
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    from traces.models import Trace

    sent = {}

    def latest(project):
        return Trace.objects.filter(project__slug=project).latest("pk")

    def post_json(path, project, body, **extra):
        response = client.post(
            path,
            json.dumps(body),
            content_type="application/json",
            HTTP_X_EVALSITE_PROJECT=project,
            **extra,
        )
        assert response.status_code in (200, 201), (path, response.content[:300])

    run = uuid.uuid4().hex[:8]
    for name, body in (
        ("transcript openai", {"format": "openai", "messages": openai_messages()}),
        (
            "transcript anthropic",
            {"format": "anthropic", "system": SYSTEM, "messages": anthropic_messages()},
        ),
        ("span-tree JSON", span_tree()),
    ):
        project = f"fidelity-{run}-{len(sent)}"
        body = {**body, "context": {"run": run}} if "messages" in body else body
        post_json("/api/traces/", project, body)
        sent[name] = latest(project)
    project = f"fidelity-{run}-bulk"
    line = json.dumps(
        {"format": "openai", "messages": openai_messages(), "trace_id": uuid.uuid4().hex}
    )
    response = client.post(
        "/api/traces/bulk/",
        line,
        content_type="application/x-ndjson",
        HTTP_X_EVALSITE_PROJECT=project,
    )
    assert response.status_code == 201, response.content[:300]
    sent["bulk JSONL"] = latest(project)
    calls = sum(1 for _ in model_calls())
    once = (calls * CALL_TOKENS[0], calls * CALL_TOKENS[1])
    expected_tokens = {name: (0, 0) for name in sent}

    def post_otlp(path, project, request, media):
        if media == "application/json":
            data = json_format.MessageToDict(request)
            ids_to_hex(data)
            body = json.dumps(data)
        else:
            body = request.SerializePartialToString()
        response = client.generic(
            "POST", path, body, content_type=media, HTTP_X_EVALSITE_PROJECT=project
        )
        assert response.status_code == 200, response.content[:300]

    for name, spans, media, tokens in (
        ("OTLP protobuf, GenAI", otel_spans("genai"), "application/x-protobuf", once),
        ("OTLP JSON, OpenInference", otel_spans("openinference"), "application/json", (0, 0)),
        ("OTLP, nested model calls", nested_spans(), "application/x-protobuf", once),
        ("OTLP, provider in framework", provider_in_framework_spans(), "application/json", once),
        ("OTLP, lifecycle events", lifecycle_spans(), "application/json", once),
        (
            "OTLP, namespaced lifecycle",
            lifecycle_spans("custom."),
            "application/x-protobuf",
            once,
        ),
        ("OTLP, MCP client+server", mcp_spans(), "application/x-protobuf", once),
    ):
        project = f"fidelity-{run}-{len(sent)}"
        post_otlp("/v1/traces", project, encode_spans(spans), media)
        sent[name] = latest(project)
        expected_tokens[name] = tokens
    for name, logs_first, media in (
        ("OTLP logs after spans", False, "application/x-protobuf"),
        ("OTLP logs before spans", True, "application/json"),
    ):
        project = f"fidelity-{run}-{len(sent)}"
        spans, logs = event_mode_spans_and_logs()
        requests = [("/v1/traces", encode_spans(spans)), ("/v1/logs", logs)]
        for path, request in reversed(requests) if logs_first else requests:
            post_otlp(path, project, request, media)
        sent[name] = latest(project)
        expected_tokens[name] = once
    # Records that missed their span: sent while the process that stores the spans still
    # remembers the project had none waiting (as a request committing in the same instant
    # leaves them); the settle sweep joins them.
    from traces.ingest.span_logs import pending_logs_known
    from traces.models import PendingSpanLog, Project
    from traces.tasks import trace_settle_sweep_task

    project = f"fidelity-{run}-{len(sent)}"
    spans, logs = event_mode_spans_and_logs()
    post_otlp("/v1/logs", project, logs, "application/x-protobuf")
    pending_logs_known.entries.clear()
    pending_logs_known.get(Project.objects.get(slug=project).pk, lambda: False)
    post_otlp("/v1/traces", project, encode_spans(spans), "application/x-protobuf")
    assert PendingSpanLog.objects.filter(project__slug=project).exists()  # they missed it
    trace_settle_sweep_task()
    sent["OTLP logs missed, swept"] = latest(project)
    expected_tokens["OTLP logs missed, swept"] = once
    project = f"fidelity-{run}-jaeger"
    post_json("/api/traces/", project, jaeger_export(nested_spans()))
    sent["Jaeger export, nested"] = latest(project)
    expected_tokens["Jaeger export, nested"] = once
    return sent, expected_tokens


def fidelity(trace, tokens: tuple[int, int]) -> dict:
    """Kept / expected counts for each measure, read from what was stored."""
    from traces.messages import messages_read
    from traces.models import SpanKind, SpanStatus

    spans = list(trace.spans.order_by("position", "pk"))
    said = set()
    for span in spans:
        if span.kind == SpanKind.LLM:
            for value in (span.input, span.output):
                for message in messages_read(value) or ():
                    said.add((message.role, message.text.strip()))
    stored_text = json.dumps([[s.input, s.output, s.attributes] for s in spans], ensure_ascii=False)
    tools = [s for s in spans if s.kind == SpanKind.TOOL]
    sent_messages = openai_messages()
    kept = 0
    for message in sent_messages:
        if message["role"] in ("user", "assistant") and message.get("content"):
            kept += (message["role"], message["content"]) in said
        elif message["role"] == "system":
            kept += SYSTEM in stored_text
        elif message.get("tool_calls"):
            fn = message["tool_calls"][0]["function"]
            kept += any(
                t.tool_name == fn["name"] and t.input == json.loads(fn["arguments"]) for t in tools
            )
        else:
            kept += any(_result_equal(t.output, message["content"]) for t in tools)
    paired = sum(
        1
        for (name, result, _), tool in zip(EXPECTED_TOOLS, tools, strict=False)
        if tool.tool_name == name and _result_equal(tool.output, result)
    )
    marked = sum(
        1
        for (_, _, failed), tool in zip(EXPECTED_TOOLS, tools, strict=False)
        if (tool.status == SpanStatus.ERROR) == failed
    )
    return {
        "messages": (kept, len(sent_messages)),
        "paired": (paired, len(EXPECTED_TOOLS)),
        "failures": (marked, len(EXPECTED_TOOLS)),
        "steps": (int(len(tools) == len(EXPECTED_TOOLS)), 1),
        "tokens": (int((trace.input_tokens, trace.output_tokens) == tokens), 1),
        "task": (int(trace.task == TASK), 1),
        "final": (int(trace.final_answer == FINAL), 1),
    }


def _result_equal(stored, expected) -> bool:
    """Same result, whether a path keeps JSON text as text or as data."""
    return json_text_decoded(stored) == json_text_decoded(expected)


def judge_reads(trace, expected) -> tuple[int, int]:
    """(found, sent) for the built-in rubric whose prompt carries fewest of the sent values."""
    from tests.judges.judge_reads import expected_needles, judge_reads_missing

    total = len(expected_needles(expected))
    missing = judge_reads_missing(trace, expected)
    return total - max((len(lacking) for lacking in missing.values()), default=0), total


def judge_reads_twice(trace, expected) -> int:
    from tests.judges.judge_reads import read_twice

    return len(read_twice(trace, expected))


def conversation_expected():
    from bench import fidelity_conversation as conversation
    from tests.judges.judge_reads import Expected

    return Expected(
        task=TASK,
        final_answer=FINAL,
        calls=[(call[1], call[2]) for _, _, call, _ in conversation.CONVERSATION if call],
        results=[result for _, result, _ in EXPECTED_TOOLS if result != ""],
        errors=[result for _, result, failed in EXPECTED_TOOLS if failed],
        later_user_turns=[
            text for role, text, _, _ in conversation.CONVERSATION[1:] if role == "user" and text
        ],
    )


def seed_article_sent(client):
    """The seed article's instrumentation through the stock exporter's encoding."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    from tests.judges import seed_article_agent
    from traces.models import Trace

    tracer, memory = recording_tracer("seed-article")
    seed_article_agent.seed_article_run(tracer)
    project = f"fidelity-seed-{uuid.uuid4().hex[:8]}"
    response = client.generic(
        "POST",
        "/v1/traces",
        encode_spans(memory.get_finished_spans()).SerializePartialToString(),
        content_type="application/x-protobuf",
        HTTP_X_EVALSITE_PROJECT=project,
    )
    assert response.status_code == 200, response.content[:300]
    return Trace.objects.filter(project__slug=project).latest("pk"), seed_article_agent.EXPECTED


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=DEFAULT_DB)
    parser.add_argument("--var-dir", default=str(ROOT / "var" / "bench-fidelity"))
    args = parser.parse_args()
    django_setup(args.database_url, args.var_dir)
    from django.test import Client

    from accounts.models import ApiToken
    from accounts.roles import ANNOTATOR
    from tests.factories import UserFactory

    user = UserFactory(roles=[ANNOTATOR])
    token = ApiToken.generate(user, "fidelity")[1]
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    expected = conversation_expected()
    sent, tokens = send_all(client)
    results = {
        name: {
            **fidelity(trace, tokens[name]),
            "judge": judge_reads(trace, expected),
            "twice": judge_reads_twice(trace, expected),
        }
        for name, trace in sent.items()
    }
    seed_trace, seed_expected = seed_article_sent(client)
    columns = (
        ("messages", "messages kept"),
        ("paired", "paired right"),
        ("failures", "failures"),
        ("steps", "one step a call"),
        ("tokens", "tokens counted once"),
        ("task", "task"),
        ("final", "final"),
    )
    titles = " ".join(title for _, title in columns)
    print(f"{'path':28} {titles}   all   {'judge reads':>11} {'read twice':>10}")
    total, read, twice = [0, 0], [0, 0], 0
    for name, row in results.items():
        cells, got_all, of_all = [], 0, 0
        for key, title in columns:
            got, of = row[key]
            got_all, of_all = got_all + got, of_all + of
            cells.append(f"{f'{got}/{of}':>{len(title)}}")
        total[0] += got_all
        total[1] += of_all
        found, of_sent = row["judge"]
        read[0] += found
        read[1] += of_sent
        twice += row["twice"]
        print(
            f"{name:28} " + " ".join(cells) + f" {100 * got_all / of_all:5.0f}%"
            f"   {f'{found}/{of_sent}':>11} {row['twice']:>10}"
        )
    found, of_sent = judge_reads(seed_trace, seed_expected)
    read[0] += found
    read[1] += of_sent
    seed_twice = judge_reads_twice(seed_trace, seed_expected)
    twice += seed_twice
    dashes = " ".join(f"{'-':>{len(title)}}" for _, title in columns)
    print(
        f"{'seed article, OTLP protobuf':28} {dashes} {'-':>5}   {f'{found}/{of_sent}':>11}"
        f" {seed_twice:>10}"
    )
    print(f"stored overall: {100 * total[0] / total[1]:.1f}% of {total[1]} checks")
    print(f"judge reads overall: {100 * read[0] / read[1]:.1f}% of {read[1]} sent values")
    print(f"judge reads a step twice: {twice} times over {len(results) + 1} paths")


if __name__ == "__main__":
    main()

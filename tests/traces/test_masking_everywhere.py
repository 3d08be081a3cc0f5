"""Every detector's examples, sent through every ingest path of a project with masking on, are
in no table, no search document, no judge prompt and no export; the marks are, and the same
value gets the same mark across paths."""

import json
import re
import uuid

import pytest
from django.db import connection
from django.test import Client
from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

from bench.fidelity_shapes import jaeger_export
from tests.judges.judge_reads import judge_prompts
from tests.otlp_ids import ids_to_hex
from tests.traces.shape_spans import LogRecorder, Recorder
from traces.masking.detectors import DETECTORS
from traces.masking.rules import builtin_rules_enable, rule_create
from traces.models import Feedback, MaskingRule, Project, Span, Trace
from traces.search.documents import search_documents_build

pytestmark = pytest.mark.django_db(transaction=False)

PROJECT = "masked-support"
SECRETS = [example for detector in DETECTORS.values() for example in detector.examples]
SENTENCE = "Customer details: " + "; ".join(SECRETS) + "."
AUTHORIZATION = "Bearer " + DETECTORS["jwt"].examples[0]


@pytest.fixture
def masked_project(curator):
    project = Project.objects.create(name="Masked support", slug=PROJECT)
    builtin_rules_enable(project, curator)
    rule_create(
        project,
        {"kind": "attribute", "pattern": "http.request.header.authorization", "action": "drop"},
        curator,
    )
    rule_create(
        project,
        {"kind": "attribute", "pattern": "*.password", "label": "password", "action": "mark"},
        curator,
    )
    return project


@pytest.fixture
def web(curator):
    client = Client()
    client.force_login(curator)
    return client


def _post(web, path, body, media="application/json"):
    response = web.generic(
        "POST",
        path,
        body if isinstance(body, bytes) else json.dumps(body),
        content_type=media,
        HTTP_X_EVALSITE_PROJECT=PROJECT,
    )
    assert response.status_code in (200, 201), (path, response.content[:400])
    return response


def _otel_agent():
    """An agent whose task, tool arguments, tool result, attributes and answer hold secrets."""
    spans = Recorder()
    root = spans.span(
        "invoke_agent support",
        {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.input.messages": json.dumps([{"role": "user", "content": SENTENCE}]),
            "gen_ai.output.messages": json.dumps(
                [{"role": "assistant", "content": f"Refund sent to {SECRETS[0]}."}]
            ),
            "session.id": SECRETS[0],
            "http.request.header.authorization": AUTHORIZATION,
            "db.password": "hunter2-is-not-a-password",
        },
    )
    with root:
        tool = spans.span(
            "execute_tool lookup_customer",
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "lookup_customer",
                "gen_ai.tool.call.arguments": json.dumps({"email": SECRETS[0], "note": SENTENCE}),
                "gen_ai.tool.call.result": json.dumps({"card": SECRETS[4], "notes": SENTENCE}),
            },
        )
        with tool:
            pass
    return spans.spans()


def _send_every_path(web):
    sent = {}
    for name, body in (
        ("span-tree", _span_tree()),
        (
            "openai transcript",
            {
                "format": "openai",
                "messages": [
                    {"role": "user", "content": SENTENCE},
                    {"role": "assistant", "content": f"Done for {SECRETS[0]}."},
                ],
            },
        ),
        (
            "anthropic transcript",
            {
                "format": "anthropic",
                "system": f"Escalate to {SECRETS[2]}.",
                "messages": [
                    {"role": "user", "content": SENTENCE},
                    {"role": "assistant", "content": [{"type": "text", "text": SENTENCE}]},
                ],
            },
        ),
    ):
        sent[name] = _post(web, "/api/traces/", body).json()["id"]
    line = json.dumps(
        {
            "format": "openai",
            "trace_id": uuid.uuid4().hex,
            "messages": [{"role": "user", "content": SENTENCE}],
        }
    )
    _post(web, "/api/traces/bulk/", line.encode(), "application/x-ndjson")
    _post(
        web, "/v1/traces", encode_spans(_otel_agent()).SerializeToString(), "application/x-protobuf"
    )
    data = json_format.MessageToDict(encode_spans(_otel_agent()))
    ids_to_hex(data)
    _post(web, "/v1/traces", json.dumps(data).encode(), "application/json")
    _post(web, "/api/traces/", jaeger_export(_otel_agent()))
    for logs_first in (True, False):
        spans, logs = _event_mode_agent()
        requests = [("/v1/traces", encode_spans(spans)), ("/v1/logs", logs)]
        for path, request in reversed(requests) if logs_first else requests:
            _post(web, path, request.SerializeToString(), "application/x-protobuf")
    trace = Trace.objects.filter(project__slug=PROJECT).order_by("pk").first()
    _post(
        web,
        "/api/feedback/",
        {
            "trace_id": trace.external_id,
            "project": PROJECT,
            "kind": "thumbs",
            "value": False,
            "comment": SENTENCE,
            "end_user": SECRETS[0],
            "metadata": {"phone": SECRETS[2]},
        },
    )
    return sent


def _span_tree():
    return {
        "trace_id": uuid.uuid4().hex,
        "name": "support agent",
        "type": "agent",
        "input": SENTENCE,
        "output": f"Refunded {SECRETS[4]}",
        "attributes": {"user.id": SECRETS[0], "api.password": "s3cret-Pass"},
        "children": [
            {
                "name": "lookup_customer",
                "type": "tool",
                "input": {"email": SECRETS[0], "iban": SECRETS[6]},
                "output": SENTENCE,
                "error": f"Declined for {SECRETS[4]}",
            }
        ],
    }


def _event_mode_agent():
    spans, logs = Recorder(), LogRecorder()
    model_call = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini"}
    agent = spans.span("invoke_agent support", {"gen_ai.operation.name": "invoke_agent"})
    with agent, spans.span("chat gpt-4o-mini", model_call) as call:
        logs.event(call, "gen_ai.user.message", {"content": SENTENCE})
        logs.event(call, "gen_ai.choice", {"index": 0, "message": {"content": SENTENCE}})
    return spans.spans(), logs.request()


def _every_table_as_text() -> str:
    with connection.cursor() as cursor:
        texts = []
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f"SELECT coalesce(string_agg(t::text, '\n'), '') FROM \"{table}\" t")
            texts.append(cursor.fetchone()[0])
    return "\n".join(texts)


def _found(text: str) -> list[str]:
    return [
        secret for secret in SECRETS + [AUTHORIZATION, "hunter2", "s3cret-Pass"] if secret in text
    ]


def test_no_detected_value_reaches_a_table_the_index_a_prompt_or_an_export(masked_project, web):
    sent = _send_every_path(web)
    traces = list(Trace.objects.filter(project=masked_project))
    assert len(traces) >= 9, "every path stored its trace"
    search_documents_build([trace.pk for trace in traces])

    lexemes = _every_table_as_text()
    assert _found(lexemes) == []
    for secret in SECRETS:
        for piece in re.findall(r"[A-Za-z0-9]{4,}", secret):
            if piece.isdigit():
                assert f"'{piece}'" not in lexemes, (secret, piece)
    for trace in traces:
        for name, prompt in judge_prompts(trace).items():
            assert _found(prompt) == [], (trace.source_format, name)
    for export in ("jsonl", "csv"):
        response = web.get("/api/export/traces/", {"format": export, "project": PROJECT})
        assert response.status_code == 200
        body = b"".join(response.streaming_content) if response.streaming else response.content
        assert _found(body.decode()) == []
        assert "<email:" in body.decode()

    # The marks are there, and one address has one mark in every path.
    email_marks = set()
    for trace in traces:
        for span in Span.objects.filter(trace=trace):
            text = json.dumps([span.input, span.output, span.attributes], ensure_ascii=False)
            email_marks.update(re.findall(r"<email:[0-9a-f]{8}>", text))
    maria = {m for m in email_marks}
    assert len(maria) == 2, maria  # two addresses among the examples, each one mark
    tree = Trace.objects.get(pk=sent["span-tree"])
    tool = tree.spans.get(name="lookup_customer")
    assert tool.input["email"] in maria and tool.input["iban"].startswith("<iban:")
    root = tree.spans.get(parent_span_id="")
    assert root.attributes["api.password"] == "<password>"
    spans = list(Span.objects.filter(trace__project=masked_project))
    dropped = [span for span in spans if "evalsite.masking.dropped" in span.attributes]
    assert dropped and all(
        span.attributes["evalsite.masking.dropped"] == ["http.request.header.authorization"]
        for span in dropped
    )
    assert not any("http.request.header.authorization" in span.attributes for span in spans)
    feedback = Feedback.objects.get(trace__project=masked_project)
    assert feedback.end_user in maria and "<phone:" in feedback.metadata["phone"]


def test_a_project_without_rules_stores_what_it_was_sent(web):
    Project.objects.create(name="Plain", slug="plain")
    response = web.post(
        "/api/traces/",
        json.dumps(_span_tree()),
        content_type="application/json",
        HTTP_X_EVALSITE_PROJECT="plain",
    )
    assert response.status_code == 201
    assert Trace.objects.get(project__slug="plain").task == SENTENCE
    assert not MaskingRule.objects.exists()

"""The judge reads the whole trajectory: for every ingest path, each built-in rubric's prompt
carries the task, the final answer, every tool name and argument value, the start of every
result, every error and every later user turn, as the agent sent them."""

import json

import pytest
from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from accounts.models import ApiToken
from accounts.roles import ANNOTATOR
from bench import fidelity_conversation as conversation
from tests.built_in_rows import built_in_rubrics_seed
from tests.factories import ProjectFactory, UserFactory
from tests.judges import seed_article_agent
from tests.judges.judge_reads import Expected, assert_judge_reads
from tests.otlp_ids import ids_to_hex
from tests.traces import otel_agents
from tests.traces.test_ingest_span_tree import refund_tree
from tests.traces.test_ingest_transcripts import ANTHROPIC, OPENAI
from traces.ingest.services import ingest_span_tree, ingest_transcript
from traces.models import Trace

TRAVEL = Expected(
    task=otel_agents.TRAVEL_TASK,
    final_answer=otel_agents.TRAVEL_ANSWER,
    calls=[
        ("search_flights", {"origin": "LIS", "destination": "BER", "date": "2026-05-14"}),
        ("get_fare_rules", {"flight_id": "TP542"}),
        ("book_flight", {"flight_id": "TP542", "fare_class": "economy"}),
        ("book_flight", {"flight_id": "TP542", "fare_class": "economy"}),
        ("send_confirmation_email", {"to": "traveller@example.com", "confirmation": "QX7P2L"}),
    ],
    results=[
        {"flights": [{"id": "TP542", "price": 118}]},
        {"refundable": False, "bag": "none"},
        {"confirmation": "QX7P2L", "price": 118},
        {"sent": True},
    ],
    errors=["SeatMapUnavailable: upstream 503"],
)
LEGACY_SUPPORT = Expected(
    task="Where is my order A1042?",
    final_answer="Order A1042 is in transit, arriving Friday.",
    calls=[("get_order_status", {"order_id": "A1042"}), ("refund_lookup", {})],
    results=[{"status": "in transit"}],
    errors=["refund service timed out"],
)
OPENINFERENCE_CODING = Expected(
    task="Fix the failing test in tests/test_dates.py",
    final_answer="Changed the formatter to isoformat(); tests pass.",
    calls=[("run_tests", {"path": "tests/test_dates.py"})],
    results=["1 failed: expected '2026-05-14' got '14/05/2026'"],
)
SPAN_TREE = Expected(
    task="Refund order A1042, it arrived broken.",
    final_answer="I've refunded order A1042; you'll see it in 3-5 days.",
    calls=[("lookup_order", {"order_id": "A1042"}), ("issue_refund", {"order_id": "A1042"})],
    results=[{"status": "delivered", "total": 59.0}],
    errors=["PaymentGatewayTimeout after 30s"],
)
ANTHROPIC_TRANSCRIPT = Expected(
    task="Cancel my most recent order, it was placed by mistake.",
    final_answer="Order A1042 is being packed, so I couldn't cancel it.",
    calls=[
        ("get_recent_orders", {"customer_id": "C-77"}),
        ("cancel_order", {"order_id": "A1042", "reason": "placed by mistake"}),
    ],
    results=[{"orders": [{"order_id": "A1042", "status": "processing"}]}],
    errors=["OrderLocked: warehouse already picking"],
)
OPENAI_TRANSCRIPT = Expected(
    task="Find me a hotel in Porto for 3 nights from 2 June.",
    final_answer="Casa da Ribeira has 3 nights from 2 June at €142.",
    calls=[("search_hotels", {"city": "Porto", "check_in": "2026-06-02", "nights": 3})],
    results=[{"hotels": [{"name": "Casa da Ribeira", "price": 142}]}],
)
CONVERSATION = Expected(
    task=conversation.TASK,
    final_answer=conversation.FINAL,
    calls=[(call[1], call[2]) for _, _, call, _ in conversation.CONVERSATION if call],
    results=[result for _, result, _ in conversation.EXPECTED_TOOLS if result != ""],
    errors=[result for _, result, failed in conversation.EXPECTED_TOOLS if failed],
    later_user_turns=[
        text for role, text, _, _ in conversation.CONVERSATION[1:] if role == "user" and text
    ],
)


def _memory_spans(run) -> list:
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "agent"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    run(otel_agents.tracer_for(provider))
    return list(memory.get_finished_spans())


def send_otlp(client, spans, *, as_json: bool, project: str = "agents") -> Trace:
    request = encode_spans(spans)
    if as_json:
        data = json_format.MessageToDict(request)
        ids_to_hex(data)
        body, media = json.dumps(data), "application/json"
    else:
        body, media = request.SerializePartialToString(), "application/x-protobuf"
    response = client.generic(
        "POST", "/v1/traces", body, content_type=media, HTTP_X_EVALSITE_PROJECT=project
    )
    assert response.status_code == 200, response.content
    return Trace.objects.filter(project__slug=project).latest("pk")


@pytest.fixture
def agent_api(api_client_for):
    return api_client_for(UserFactory(roles=[ANNOTATOR]))


@pytest.mark.django_db(transaction=True)
def test_seed_article_shape_sent_by_the_stock_exporter(live_server):
    # given the README's exporter snippet, pointed at evalsite
    token = ApiToken.generate(UserFactory(roles=[ANNOTATOR]), "agent")[1]
    exporter = OTLPSpanExporter(
        endpoint=f"{live_server.url}/v1/traces",
        headers={"Authorization": f"Bearer {token}", "x-evalsite-project": "support-agent"},
    )
    provider = TracerProvider(resource=Resource.create({"service.name": "support-agent"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    # when the agent runs as the seed article instruments it
    seed_article_agent.seed_article_run(otel_agents.tracer_for(provider))
    provider.shutdown()
    # then every judge reads task, answer and each tool by name
    built_in_rubrics_seed()  # an earlier transactional test may have flushed them
    assert_judge_reads(Trace.objects.get(), seed_article_agent.EXPECTED)


@pytest.mark.django_db
@pytest.mark.parametrize("as_json", [False, True], ids=["protobuf", "json"])
@pytest.mark.parametrize(
    ("run", "expected"),
    [
        (seed_article_agent.seed_article_run, seed_article_agent.EXPECTED),
        (otel_agents.travel_agent_run, TRAVEL),
        (otel_agents.support_agent_legacy_run, LEGACY_SUPPORT),
        (otel_agents.coding_agent_openinference_run, OPENINFERENCE_CODING),
    ],
    ids=["seed-article", "genai-current", "genai-pre-1.37", "openinference"],
)
def test_otlp(agent_api, run, expected, as_json):
    trace = send_otlp(agent_api, _memory_spans(run), as_json=as_json)
    assert_judge_reads(trace, expected)


@pytest.mark.django_db
def test_span_tree_json():
    assert_judge_reads(ingest_span_tree(ProjectFactory(), refund_tree()), SPAN_TREE)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "expected"),
    [(ANTHROPIC, ANTHROPIC_TRANSCRIPT), (OPENAI, OPENAI_TRANSCRIPT)],
    ids=["anthropic", "openai"],
)
def test_transcripts(body, expected):
    assert_judge_reads(ingest_transcript(ProjectFactory(), body), expected)


@pytest.mark.django_db
def test_fidelity_conversation_on_every_path(client):
    from bench.fidelity import send_all

    token = ApiToken.generate(UserFactory(roles=[ANNOTATOR]), "fidelity")[1]
    client.defaults["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    sent, _usage = send_all(client)
    for path, trace in sent.items():
        try:
            assert_judge_reads(trace, CONVERSATION)
        except AssertionError as exc:
            raise AssertionError(f"{path}: {exc}") from None

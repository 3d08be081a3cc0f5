"""A judge cites steps the way its prompt shows them, and every citation finds its span:
by tool (`get_order_status`), by call (`get_order_status#2`), by step number, by span name."""

import pytest

from demo.simulator.replies import reply_compose
from demo.simulator.scoring import score_prompt
from judges.citations import citations_resolve
from judges.models import Rubric
from judges.parsing import reply_parse
from judges.prompts import prompt_render
from tests.factories import ProjectFactory
from tests.judges import seed_article_agent
from tests.judges.judge_reads import BUILT_IN_RUBRICS
from tests.judges.test_judge_reads import _memory_spans, send_otlp
from tests.traces import otel_agents
from tests.traces.test_ingest_span_tree import refund_tree
from tests.traces.test_ingest_transcripts import ANTHROPIC, OPENAI
from traces.ingest.services import ingest_span_tree, ingest_transcript
from traces.reading import citation_names

pytestmark = pytest.mark.django_db


def _resolved(trace, explanation, rubric_name="General trace judge"):
    spans = list(trace.spans.order_by("position", "pk"))
    version = Rubric.objects.get(name=rubric_name).latest_version()
    parsed = reply_parse(
        f'{{"score": 7, "reason": "{explanation}"}}',
        version,
        list(prompt_render(version, trace, spans=spans).span_names),
    )
    return citations_resolve(parsed.explanation, [], citation_names(spans)), spans


def test_the_prompt_says_how_to_cite(api_client_for):
    trace = ingest_span_tree(ProjectFactory(), refund_tree())
    prompt = prompt_render(Rubric.objects.get(name="General trace judge").latest_version(), trace)
    assert "`step 3`" in prompt.user and "lookup_order#2" in prompt.user


def test_a_recorded_reply_on_the_seed_article_shape_resolves_every_citation(api_client_for):
    # given the seed article's trace: three tool_call spans, get_order_status called twice
    from accounts.roles import ANNOTATOR
    from tests.factories import UserFactory

    agent = api_client_for(UserFactory(roles=[ANNOTATOR]))
    trace = send_otlp(agent, _memory_spans(seed_article_agent.seed_article_run), as_json=False)
    # when a judge cites the way the prompt tells it to
    reply = (
        "get_order_status#1 found the delay and get_order_status#2 its cause; track_shipment "
        "failed (step 5) and the answer says so. agent_step_4 wrote the answer."
    )
    cited, spans = _resolved(trace, reply)
    # then each citation is the span the judge saw under that name
    by_id = {span.span_id: span for span in spans}
    where = {c["cited"]: by_id[c["span_id"]] for c in cited}
    assert set(where) == {
        "get_order_status#1",
        "get_order_status#2",
        "track_shipment",
        "step 5",
        "agent_step_4",
    }
    first, second = sorted(
        (s for s in spans if s.tool_name == "get_order_status"), key=lambda s: s.position
    )
    assert where["get_order_status#1"] == first and where["get_order_status#2"] == second
    assert where["track_shipment"].tool_name == "track_shipment"
    assert where["step 5"] == where["track_shipment"]
    assert where["agent_step_4"].name == "agent_step_4"


def test_a_bare_tool_name_called_twice_cites_both_calls(api_client_for):
    from accounts.roles import ANNOTATOR
    from tests.factories import UserFactory

    agent = api_client_for(UserFactory(roles=[ANNOTATOR]))
    trace = send_otlp(agent, _memory_spans(seed_article_agent.seed_article_run), as_json=False)
    cited, _ = _resolved(trace, "get_order_status was called twice with the same id.")
    assert len([c for c in cited if c["cited"] == "get_order_status" and c["span_id"]]) == 2


# (label, the instrumented agent run, sent as OTLP JSON rather than protobuf)
OTLP_FIXTURES = [
    ("seed article", seed_article_agent.seed_article_run, False),
    ("GenAI", otel_agents.travel_agent_run, True),
    ("pre-1.37", otel_agents.support_agent_legacy_run, False),
    ("OpenInference", otel_agents.coding_agent_openinference_run, True),
]


def _fixture_traces(agent):
    for project, (label, agent_run, as_json) in zip("abcd", OTLP_FIXTURES, strict=True):
        yield label, send_otlp(agent, _memory_spans(agent_run), as_json=as_json, project=project)
    yield "span tree", ingest_span_tree(ProjectFactory(), refund_tree())
    yield "anthropic", ingest_transcript(ProjectFactory(), ANTHROPIC)
    yield "openai", ingest_transcript(ProjectFactory(), OPENAI)


def test_every_span_the_simulated_judge_cites_on_the_fixtures_resolves(api_client_for):
    from accounts.roles import ANNOTATOR
    from tests.factories import UserFactory

    agent = api_client_for(UserFactory(roles=[ANNOTATOR]))
    citations = unresolved = 0
    for path, trace in _fixture_traces(agent):
        spans = list(trace.spans.order_by("position", "pk"))
        for rubric in Rubric.objects.filter(name__in=BUILT_IN_RUBRICS):
            version = rubric.latest_version()
            prompt = prompt_render(version, trace, spans=spans, expected_behavior="Be right.")
            finding = score_prompt(prompt.user)
            reply = reply_compose(f"{prompt.system}\n{prompt.user}", finding, flip=False)
            parsed = reply_parse(reply, version, list(prompt.span_names))
            settling = [r["span"] for r in parsed.criteria_results if r.get("span")]
            cited = citations_resolve(parsed.explanation, settling, citation_names(spans))
            citations += len(cited)
            missed = [c["cited"] for c in cited if not c["span_id"]]
            unresolved += len(missed)
            assert not missed, f"{path}, {rubric.name}: {missed} in {parsed.explanation!r}"
    assert citations >= 7 and unresolved == 0

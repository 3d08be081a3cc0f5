"""Eval tags sent the OpenTelemetry way (resource attributes) attach traces to an eval run."""

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from accounts.models import ApiToken
from accounts.roles import ANNOTATOR
from golden.evals.scoring import ScoringOptions, eval_run_score
from golden.evals.services import eval_run_create
from golden.models import GoldenExample
from golden.services import dataset_version_create
from tests.factories import GoldenExampleFactory, UserFactory
from tests.golden.builders import reference_step
from tests.traces import otel_agents

pytestmark = pytest.mark.django_db(transaction=True)


def test_resource_attributes_tag_the_trace_for_the_run(live_server):
    # given a golden example for the travel task and a recorded run
    GoldenExampleFactory(
        key="lis-ber-cheapest",
        task=otel_agents.TRAVEL_TASK,
        task_type="flight_booking",
        reference_trajectory=[
            reference_step(
                1,
                "search_flights",
                {"origin": "LIS", "destination": "BER", "date": "2026-05-14"},
                ["flights"],
            ),
            reference_step(
                2,
                "book_flight",
                {"flight_id": "<from_step_1_output>", "fare_class": "economy"},
                ["confirmation"],
            ),
        ],
        expected_outcome="Booked TP 542, confirmation QX7P2L.",
    )
    dataset = dataset_version_create(name="travel-v1", examples=GoldenExample.objects.all())
    run = eval_run_create(name="ci-77", agent_version="3.2.0", dataset_version=dataset)
    token = ApiToken.generate(UserFactory(username="agent-ci", roles=[ANNOTATOR]), "ci")[1]
    # when the agent exports its spans with the eval tags on its resource
    resource = Resource.create(
        {
            "service.name": "travel",
            "evalsite.eval_run": "ci-77",
            "evalsite.example_key": "lis-ber-cheapest",
            "evalsite.trial": 0,
        }
    )
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(
        SimpleSpanProcessor(
            OTLPSpanExporter(
                endpoint=f"{live_server.url}/v1/traces",
                headers={"authorization": f"Bearer {token}"},
            )
        )
    )
    otel_agents.travel_agent_run(otel_agents.tracer_for(provider))
    provider.shutdown()
    # in_order: the agent also emails a confirmation, a write the reference leaves out
    metrics = eval_run_score(run, ScoringOptions(matcher="in_order"))
    # then the trace is the run's trial 0 of that example, and it is scored
    trial = run.trials.get()
    assert (trial.entry.example_key, trial.trial_index) == ("lis-ber-cheapest", 0)
    assert trial.trace.agent_version == "3.2.0"
    assert metrics["overall"]["tool_selection_accuracy"] == 1.0
    assert metrics["overall"]["outcome_score"] == 1.0

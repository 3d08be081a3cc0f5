"""GET /api/scores/: the judge's, people's, checks' and end users' scores per trace."""

import pytest

from reviews.models import Annotation
from tests.factories import (
    JudgeRunFactory,
    TraceFactory,
    trace_scored_every_way,
    verdict_disputed,
)

pytestmark = pytest.mark.django_db


def test_a_trace_has_both_passes_the_resolution_red_flags_and_feedback(
    curator, annotator, api_client_for
):
    span, item = trace_scored_every_way()
    trace, run = span.trace, item.verdict.run
    Annotation.objects.create(item=item, annotator=annotator, score=0.0, explanation="wrong order")

    body = api_client_for(curator).get(f"/api/scores/?trace_id={trace.external_id}").json()

    [row] = body["results"]
    [judged] = row["verdicts"]
    assert [p["score"] for p in judged["passes"]] == [1.0, 0.0]
    assert judged["status"] == "disputed" and judged["run"] == run.pk
    assert row["human"][0]["resolved_score"] == 0.0
    assert row["human"][0]["annotations"][0]["explanation"] == "wrong order"
    assert row["red_flags"] == [
        {"kind": "loop", "span_id": span.span_id, "detail": "3 identical calls"}
    ]
    assert row["feedback"][0]["value"] == 0.0


def test_scores_per_run_and_per_filter_are_paginated(curator, api_client_for):
    first, second = JudgeRunFactory(), JudgeRunFactory()
    traces = TraceFactory.create_batch(3)
    for trace in traces:
        verdict_disputed(trace, first, [1.0, 1.0])
    verdict_disputed(traces[0], second, [0.0, 0.0])
    client = api_client_for(curator)

    by_run = client.get(f"/api/scores/?run={second.pk}").json()
    paged = client.get("/api/scores/?limit=2").json()

    assert by_run["count"] == 1
    assert [v["run"] for v in by_run["results"][0]["verdicts"]] == [second.pk]
    assert paged["count"] == 3 and len(paged["results"]) == 2 and paged["next"]
    assert "run" in client.get("/api/scores/?run=abc").json()["error"]["fields"]
    assert client.get("/api/scores/?verdict=none").json()["count"] == 0


def test_annotators_cannot_read_judge_scores_here(annotator, api_client_for):
    assert api_client_for(annotator).get("/api/scores/").status_code == 403


def test_the_query_count_does_not_grow_with_traces(
    curator, api_client_for, django_assert_max_num_queries
):
    run = JudgeRunFactory()
    for trace in TraceFactory.create_batch(20):
        verdict_disputed(trace, run, [1.0, 1.0])
    client = api_client_for(curator)

    with django_assert_max_num_queries(14):
        assert len(client.get("/api/scores/?limit=20").json()["results"]) == 20

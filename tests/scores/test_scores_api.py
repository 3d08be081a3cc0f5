"""GET /api/scores/: the judge's, people's, checks' and end users' scores per trace."""

import pytest

from metrics.models import RedFlag
from reviews.models import Annotation
from tests.factories import (
    JudgeRunFactory,
    JudgmentFactory,
    ReviewItemFactory,
    SpanFactory,
    TraceFactory,
    VerdictFactory,
)
from traces.models import Feedback

pytestmark = pytest.mark.django_db


def _judged(trace, run, scores):
    verdict = VerdictFactory(trace=trace, run=run, status="disputed", score=None)
    for index, score in enumerate(scores):
        JudgmentFactory(
            trace=trace, run=run, pass_index=index, score=score, explanation=f"pass {index}"
        )
    return verdict


def test_a_trace_has_both_passes_the_resolution_red_flags_and_feedback(
    curator, annotator, api_client_for
):
    span = SpanFactory(name="cancel_order")
    trace = span.trace
    run = JudgeRunFactory()
    verdict = _judged(trace, run, [1.0, 0.0])
    item = ReviewItemFactory(trace=trace, verdict=verdict, status="resolved", resolved_score=0.0)
    Annotation.objects.create(item=item, annotator=annotator, score=0.0, explanation="wrong order")
    RedFlag.objects.create(trace=trace, span=span, kind="loop", detail="3 identical calls")
    Feedback.objects.create(trace=trace, kind="thumbs", value=0.0, key="k")

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
        _judged(trace, first, [1.0, 1.0])
    _judged(traces[0], second, [0.0, 0.0])
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
        _judged(trace, run, [1.0, 1.0])
    client = api_client_for(curator)

    with django_assert_max_num_queries(14):
        assert len(client.get("/api/scores/?limit=20").json()["results"]) == 20

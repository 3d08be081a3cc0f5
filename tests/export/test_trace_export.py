"""Trace export: JSONL with everything a trace has, CSV a row per trace, filters, held-out."""

import csv
import io
import json

import pytest
from django.test import Client

from tests.factories import SpanFactory, TraceFactory, trace_scored_every_way
from traces.models import TraceTag

pytestmark = pytest.mark.django_db


def _lines(response) -> list[dict]:
    body = b"".join(response.streaming_content).decode()
    return [json.loads(line) for line in body.splitlines()]


def test_jsonl_carries_spans_both_passes_resolutions_flags_and_feedback(annotator, api_client_for):
    span, _ = trace_scored_every_way(input={"order_id": "A1042"})
    trace = span.trace
    for name in ("checkout", "beta"):
        TraceTag.objects.create(trace=trace, name=name)
    TraceFactory()

    response = api_client_for(annotator).get(
        f"/api/export/traces/?format=jsonl&trace_id={trace.external_id}"
    )

    assert response["Content-Type"] == "application/x-ndjson"
    assert response["Content-Disposition"].startswith("attachment;")
    [record] = _lines(response)
    assert record["trace_id"] == trace.external_id and record["project"] == "support-agent"
    assert [s["input"] for s in record["spans"]] == [{"order_id": "A1042"}]
    assert [p["score"] for p in record["verdicts"][0]["passes"]] == [1.0, 0.0]
    assert record["resolutions"][0]["resolved_score"] == 0.0
    assert record["red_flags"] == [
        {"kind": "loop", "span_id": span.span_id, "detail": "3 identical calls"}
    ]
    assert record["feedback"][0]["value"] == 0.0
    assert record["tags"] == ["beta", "checkout"]


def test_csv_is_a_row_per_trace_and_defuses_formulas(annotator, api_client_for):
    span, _ = trace_scored_every_way()
    trace = span.trace
    TraceTag.objects.create(trace=trace, name="checkout")
    TraceFactory(task='=HYPERLINK("http://evil.example","click")')

    response = api_client_for(annotator).get("/api/export/traces/?format=csv&sort=started_at")

    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [r["trace_id"] for r in rows][0] == trace.external_id and len(rows) == 2
    first = rows[0]
    assert "disputed" in first["verdicts"] and first["resolved_scores"] == "0"
    assert (first["red_flags"], first["thumbs_down"], first["tags"]) == ("loop", "1", "checkout")
    assert rows[1]["task"].startswith("'=HYPERLINK")


def test_a_filter_applies_and_held_out_traces_stay_hidden(annotator, curator, api_client_for):
    shown = TraceFactory(agent_name="booker")
    TraceFactory(agent_name="booker", held_out=True)
    TraceFactory(agent_name="refunder")

    as_annotator = _lines(api_client_for(annotator).get("/api/export/traces/?agent_name=booker"))
    as_curator = _lines(api_client_for(curator).get("/api/export/traces/?agent_name=booker"))

    assert [r["id"] for r in as_annotator] == [shown.pk]
    assert len(as_curator) == 2


def test_bad_export_parameters_are_refused_by_name(annotator, api_client_for):
    client = api_client_for(annotator)
    bad_format = client.get("/api/export/traces/?format=xlsx")
    bad_filter = client.get("/api/export/traces/?verdict=maybe")

    assert bad_format.status_code == 400 and "format" in bad_format.json()["error"]["fields"]
    assert bad_filter.status_code == 400 and "verdict" in bad_filter.json()["error"]["fields"]


def test_a_large_export_reads_in_chunks_not_per_trace(
    annotator, api_client_for, django_assert_max_num_queries
):
    for _ in range(30):
        SpanFactory()
    client = api_client_for(annotator)

    with django_assert_max_num_queries(16):
        assert len(_lines(client.get("/api/export/traces/"))) == 30


def test_the_trace_list_links_its_filter_to_the_export(annotator):
    TraceFactory(agent_name="booker")
    web = Client()
    web.force_login(annotator)

    page = web.get("/traces/?agent_name=booker").content.decode()

    assert "/api/export/traces/?format=jsonl&amp;agent_name=booker" in page


def test_the_schema_is_still_served_as_json_beside_the_export(admin_user, api_client_for):
    response = api_client_for(admin_user).get("/api/schema/?format=json")

    assert response.status_code == 200 and "/api/export/traces/" in response.json()["paths"]

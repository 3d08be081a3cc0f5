"""A pass's rows read in plain SQL come back as the ORM would give them: the same values, typed
the same, with their related rows attached."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from judges.models import Judgment, JudgmentStatus
from judges.pass_rows import judgment_claim_and_load, passes_locked, trace_spans_ordered
from judges.services import judge_run_start
from tests.judges import sample_traces
from traces.models import Span, Trace

pytestmark = pytest.mark.django_db


def _run(version, config, capture):
    with capture(execute=False):
        run = judge_run_start(
            rubric_version=version, config=config, traces=[sample_traces.support_cancel_ok()]
        )
    return run, list(run.judgments.order_by("pass_index"))


def test_the_claim_loads_the_pass_with_its_trace_config_and_run_as_the_orm_does(
    tool_rubric, default_config, capture
):
    run, (first, _) = _run(tool_rubric, default_config, capture)
    Judgment.objects.filter(pk=first.pk).update(
        criteria_results=[{"question": "q", "met": True}], cost_usd=Decimal("0.000123")
    )

    claimed = judgment_claim_and_load(first.pk)

    expected = Judgment.objects.select_related("trace", "config", "run").get(pk=first.pk)
    for field in Judgment._meta.concrete_fields:
        assert getattr(claimed, field.attname) == getattr(expected, field.attname), field.name
    assert claimed.criteria_results == [{"question": "q", "met": True}]
    assert isinstance(claimed.cost_usd, Decimal)
    assert claimed.status == JudgmentStatus.RUNNING and claimed.lease_until is not None
    with CaptureQueriesContext(connection) as related:
        trace, config, loaded_run = claimed.trace, claimed.config, claimed.run
    assert not related.captured_queries, "a related row was loaded again"
    for loaded, row in ((trace, expected.trace), (config, expected.config), (loaded_run, run)):
        for field in type(row)._meta.concrete_fields:
            assert getattr(loaded, field.attname) == getattr(row, field.attname), field.name
    assert judgment_claim_and_load(first.pk) is None, "claimed twice"


def test_the_locked_passes_leave_out_only_what_reconciliation_never_reads(
    tool_rubric, default_config, capture
):
    run, (first, second) = _run(tool_rubric, default_config, capture)

    passes = passes_locked(first.trace_id, run.pk)

    assert [p.pk for p in passes] == [first.pk, second.pk]
    assert passes[0].get_deferred_fields() == {"raw_response", "explanation", "cited_spans"}
    assert passes[1].pass_index == 1 and passes[1].status == JudgmentStatus.PENDING


def test_a_trace_s_spans_come_in_order_even_when_retention_moved_their_day():
    trace = sample_traces.travel_search_loop()
    expected = list(trace.spans.order_by("position", "pk"))

    spans = trace_spans_ordered(trace)

    assert spans == expected
    for span, orm in zip(spans, expected, strict=True):
        for field in Span._meta.concrete_fields:
            assert getattr(span, field.attname) == getattr(orm, field.attname), field.name
        assert span.trace is trace

    # Read before retention moved the trace's spans to another day (and its spans_day after).
    stale = Trace.objects.get(pk=trace.pk)
    moved = stale.spans_day + timedelta(days=1)
    Span.objects.filter(trace=trace).update(trace_day=moved)
    Trace.objects.filter(pk=trace.pk).update(spans_day=moved)

    assert trace_spans_ordered(stale) == expected

"""A pass's rows read in plain SQL come back as the ORM would give them: the same values, typed
the same, with their related rows attached."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.plain_rows import instances_where
from judges.models import JudgeRun, JudgeRunScope, JudgeRunStatus, Judgment, JudgmentStatus
from judges.pass_rows import (
    judge_run_finish_if_done,
    judgment_claim_and_load,
    passes_locked,
    trace_spans_ordered,
    verdict_written_id,
)
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
    assert (claimed._state.adding, claimed._state.db) == (False, expected._state.db)
    assert claimed.get_deferred_fields() == set()
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


def test_rows_read_with_some_fields_come_typed_as_the_orm_s_only_gives_them():
    trace = sample_traces.travel_book_ok()
    Trace.objects.filter(pk=trace.pk).update(last_span_received_at=trace.created_at)
    names = ("span_count", "id", "last_span_received_at")  # not in the model's order

    [row] = instances_where(Trace, names, "id = %s", [trace.pk], lock=True)

    expected = Trace.objects.only(*names).get(pk=trace.pk)
    assert row.get_deferred_fields() == expected.get_deferred_fields()
    assert (row._state.adding, row._state.db) == (False, expected._state.db)
    assert row.task == expected.task, "a deferred field was not loaded on access"
    for name in names:
        assert getattr(row, name) == getattr(expected, name), name
    assert row.last_span_received_at is not None and row.span_count == expected.span_count
    assert instances_where(Trace, names, "id = %s", [-1]) == []


def test_a_run_is_finished_once_no_pass_is_outstanding_and_a_standing_online_run_never(
    tool_rubric, default_config, capture
):
    run, (first, second) = _run(tool_rubric, default_config, capture)
    Judgment.objects.filter(pk=first.pk).update(status=JudgmentStatus.DONE)

    assert not judge_run_finish_if_done(run.pk), "finished with a pass pending"
    Judgment.objects.filter(pk=second.pk).update(status=JudgmentStatus.RUNNING)
    assert not judge_run_finish_if_done(run.pk), "finished with a pass running"
    Judgment.objects.filter(pk=second.pk).update(status=JudgmentStatus.FAILED)
    assert judge_run_finish_if_done(run.pk)
    run.refresh_from_db()
    assert run.status == JudgeRunStatus.DONE and run.finished_at is not None
    assert not judge_run_finish_if_done(run.pk), "finished twice"

    JudgeRun.objects.filter(pk=run.pk).update(status=JudgeRunStatus.RUNNING, online=True)
    assert not judge_run_finish_if_done(run.pk), "a standing online run of traces ended"
    JudgeRun.objects.filter(pk=run.pk).update(scope=JudgeRunScope.SESSION)
    assert judge_run_finish_if_done(run.pk), "an idle-session sweep's run never ended"


def test_the_written_verdict_of_a_trace_is_found_by_its_run(tool_rubric, default_config, capture):
    run, (first, _) = _run(tool_rubric, default_config, capture)
    assert verdict_written_id(first.trace_id, run.pk) is None
    verdict = run.verdicts.create(
        trace_id=first.trace_id, rubric_version=tool_rubric, config=default_config, status="agreed"
    )

    assert verdict_written_id(first.trace_id, run.pk) == verdict.pk
    assert verdict_written_id(first.trace_id, run.pk + 1) is None

"""Failed tool calls known only from what the model was handed back, counted into the trace's
errors.

A trace's error_count counts its failed spans (ingest, traces.ingest.calls). A plain SDK tool
loop under a provider instrumentation traces no tool span: a failed call lives only in the
result handed back to the model (`is_error`, `Error: ...`), and a tool span may stay OK while
the model is told its tool failed. The checks read those calls as failed (metrics.steps); so
does the trace's error count, through told_error_count: the failed calls the checks read that
no failed span already counts, each call once (a failed tool span and the message that told
the model of it are one failure). It is counted when the checks read the settled trace, and
again when late spans arrive (metrics.redflag_store), never at ingest, whose recount of the
spans adds it back.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.db.models import F

from metrics.models import RedFlagCheck
from metrics.policy_cache import trace_failure_rule_remembered
from metrics.steps import SpanFacts, calls_told, tool_steps_from_spans, trace_spans
from traces.ingest.failures import DEFAULT_FAILURE_RULE, FailureRule, result_failed
from traces.models import Session, SpanKind, SpanStatus, Trace


def trace_told_failures(trace: Trace, spans: Sequence[SpanFacts]) -> int:
    """told_failures_count under the failure rule of the trace's project, as the red flags read
    it (remembered as its guardrail policy is, metrics.policy_cache)."""
    return told_failures_count(spans, trace_failure_rule_remembered(trace))


def told_failures_count(
    spans: Sequence[SpanFacts], rule: FailureRule = DEFAULT_FAILURE_RULE
) -> int:
    """The failed calls the checks read among `spans` (in trace order) that no failed span
    counts, each result read by the project's `rule`: with text detection off
    (Project.tool_error_text_detection) a result that only reads as an error by its text is no
    failure, and one opening with a project's own marker is one, as ingest reads tool spans."""
    if not any(span.kind == SpanKind.TOOL for span in spans):
        # No tool span: the checks read the calls the model calls decided.
        return sum(
            1
            for _, _, result in calls_told(spans)
            if result is not None and result_failed(result, rule)
        )
    by_id = {span.span_id: span for span in spans if span.kind == SpanKind.TOOL}
    failed_spans = [span for span in by_id.values() if span.status == SpanStatus.ERROR]
    counted_ids = {span.tool_call_id for span in failed_spans if span.tool_call_id}
    told = set()
    for step in tool_steps_from_spans(spans, rule):
        span = by_id.get(step.span_id)
        if not step.failed or span is None or span.status == SpanStatus.ERROR:
            continue  # not failed, or its failed span counts it
        if span.tool_call_id in counted_ids:
            continue  # another span of the same call failed and counts it
        told.add(span.tool_call_id or span.span_id)
    return len(told)


def told_failures_record(trace_pk: int, told: int, stored: int, session_id: int | None) -> None:
    """Store a trace's told failures (`told`, in place of the `stored` ones) and move its error
    count and its session's by the difference. Under the caller's lock of the trace row."""
    change = told - stored
    if not change:
        return
    Trace.objects.filter(pk=trace_pk).update(
        told_error_count=told, error_count=F("error_count") + change
    )
    if session_id is not None:
        Session.objects.filter(pk=session_id).update(error_count=F("error_count") + change)


def traces_told_failures_recount(batch: int = 200) -> tuple[int, int]:
    """Count the told failures of every trace the checks have read, each under its row lock as
    the checks count them: traces checked before told failures were counted hold none. (traces
    read, traces whose count changed)."""
    read = changed = last = 0
    while ids := list(
        RedFlagCheck.objects.filter(trace_id__gt=last)
        .order_by("trace_id")
        .values_list("trace_id", flat=True)[:batch]
    ):
        last = ids[-1]
        for trace in Trace.objects.filter(pk__in=ids).order_by("pk"):
            with transaction.atomic():
                locked = (
                    Trace.objects.select_for_update()
                    .only("told_error_count", "session_id")
                    .get(pk=trace.pk)
                )
                told = trace_told_failures(trace, trace_spans(trace))
                told_failures_record(trace.pk, told, locked.told_error_count, locked.session_id)
            read += 1
            changed += told != locked.told_error_count
    return read, changed

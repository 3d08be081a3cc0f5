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
from metrics.policy_cache import policy_copy
from metrics.steps import (
    SpanFacts,
    calls_told,
    results_flagged_failed,
    tool_steps_from_spans,
    trace_spans,
)
from traces.ingest.failures import result_failed, structured_failure
from traces.models import Session, SpanKind, SpanStatus, Trace
from traces.reading import project_reads_text_errors, tool_result_key

# Whether a project reads text errors, remembered as its guardrail policy is (forgotten when a
# project is saved, metrics.receivers).
_text_read_by_project = policy_copy()


def trace_told_failures(trace: Trace, spans: Sequence[SpanFacts]) -> int:
    """told_failures_count under the trace's project's rule for text errors. The project is
    read only when that rule changes the count: most traces have no told failure."""
    told = told_failures_count(spans)
    if not told:
        return 0
    flagged = told_failures_count(spans, detect_text=False)
    return told if flagged == told or _text_errors_read(trace) else flagged


def _text_errors_read(trace: Trace) -> bool:
    if Trace._meta.get_field("project").is_cached(trace):
        return project_reads_text_errors(trace)
    return _text_read_by_project.get(trace.project_id, lambda: project_reads_text_errors(trace))


def told_failures_count(spans: Sequence[SpanFacts], *, detect_text: bool = True) -> int:
    """The failed calls the checks read among `spans` (in trace order) that no failed span
    counts. Without `detect_text` (Project.tool_error_text_detection off) a result that only
    reads as an error by its text is no failure, as ingest does for tool spans."""
    if not any(span.kind == SpanKind.TOOL for span in spans):
        # No tool span: the checks read the calls the model calls decided.
        return sum(
            1
            for _, _, result in calls_told(spans)
            if result is not None and result_failed(result, detect_text=detect_text)
        )
    by_id = {span.span_id: span for span in spans if span.kind == SpanKind.TOOL}
    failed_spans = [span for span in by_id.values() if span.status == SpanStatus.ERROR]
    counted_ids = {span.tool_call_id for span in failed_spans if span.tool_call_id}
    flagged: tuple[set[str], set[str]] | None = None
    told = set()
    for step in tool_steps_from_spans(spans):
        span = by_id.get(step.span_id)
        if not step.failed or span is None or span.status == SpanStatus.ERROR:
            continue  # not failed, or its failed span counts it
        if span.tool_call_id in counted_ids:
            continue  # another span of the same call failed and counts it
        if not detect_text:
            flagged = flagged or results_flagged_failed(spans)
            if not _flagged(span.tool_call_id, step.output, flagged):
                continue
        told.add(span.tool_call_id or span.span_id)
    return len(told)


def _flagged(call_id: str, output, flagged: tuple[set[str], set[str]]) -> bool:
    """A call the model was told failed by a flag or a structured result, not by text alone."""
    ids, results = flagged
    if call_id:
        return call_id in ids or bool(structured_failure(output, None))
    return tool_result_key(output) in results or bool(structured_failure(output, None))


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

"""Recount stored traces' tokens and cost with each model call counted once
(traces.ingest.usage), for traces stored before nested model-call spans were told apart, and
their failures with each merged call counted once (traces.ingest.calls), for traces stored when
an MCP call failed on both sides counted twice.

Each batch is one transaction: the traces are locked (as ingest locks them), recounted from
their spans, and their sessions' totals counted again, so a request storing spans meanwhile
waits and then adds on top of the recounted values.
"""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction

from traces.ingest.calls import MERGED_KEY, failed_calls_count
from traces.ingest.store import MAX_TRACE_COST
from traces.ingest.usage import REPEATED_KEY, usage_totals
from traces.models import Span, Trace
from traces.session_totals import sessions_totals_recount

BATCH = 200
_SPAN_COLUMNS = (
    "trace_id",
    "span_id",
    "parent_span_id",
    "kind",
    "status",
    "input_tokens",
    "output_tokens",
)


def traces_usage_recount(batch: int = BATCH) -> tuple[int, int]:
    """(traces read, traces whose totals changed)."""
    read = changed = 0
    last = 0
    while True:
        ids = list(
            Trace.objects.filter(pk__gt=last).order_by("pk").values_list("pk", flat=True)[:batch]
        )
        if not ids:
            return read, changed
        last = ids[-1]
        read += len(ids)
        changed += _batch_recount(ids)


def _batch_recount(ids: list[int]) -> int:
    with transaction.atomic():
        traces = list(Trace.objects.select_for_update().filter(pk__in=ids).order_by("pk"))
        spans = defaultdict(list)
        for span in Span.objects.filter(trace_id__in=ids).only(*_SPAN_COLUMNS, "cost_usd"):
            spans[span.trace_id].append(span)
        changed, sessions = [], set()
        for trace in traces:
            usage = usage_totals(spans[trace.pk])
            cost = min(usage.cost_usd, MAX_TRACE_COST)
            merged = trace.attributes.get(MERGED_KEY)
            errors = failed_calls_count(spans[trace.pk], merged) + trace.told_error_count
            note = trace.attributes.get(REPEATED_KEY)
            stored = (trace.input_tokens, trace.output_tokens, trace.cost_usd, trace.error_count)
            if (*stored, note or {}) == (
                usage.input_tokens,
                usage.output_tokens,
                cost,
                errors,
                usage.repeated,
            ):
                continue
            trace.error_count = errors
            trace.input_tokens, trace.output_tokens = usage.input_tokens, usage.output_tokens
            trace.cost_usd = cost
            if usage.repeated or note is not None:
                trace.attributes = {**trace.attributes, REPEATED_KEY: usage.repeated}
            changed.append(trace)
            if trace.session_id:
                sessions.add(trace.session_id)
        Trace.objects.bulk_update(
            changed, ["input_tokens", "output_tokens", "cost_usd", "error_count", "attributes"]
        )
        if sessions:
            sessions_totals_recount(sessions)
    return len(changed)

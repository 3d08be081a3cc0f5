"""The red flag for a run that did not finish cleanly: its stop reason (or a model call's own)
says it was truncated at a token limit, refused or filtered, or stopped on an error. An answer
that looks right after such a stop may be right only by accident, so a passing verdict with
this flag goes to people. Step limits are the step-limit flag's (redflags.check_max_steps)."""

from __future__ import annotations

from collections.abc import Sequence

from evalsite_checks.flag_hit import FlagHit

from metrics.models import RedFlag
from metrics.steps import SpanFacts, TraceFacts, span_pk
from traces.models import SpanKind
from traces.stop_reasons import StopKind, finish_reason_of, stop_reason_normalize

FLAGGED_KINDS = {
    StopKind.TRUNCATED: "was cut off at its token limit",
    StopKind.REFUSED: "was refused or filtered",
    StopKind.ERROR: "stopped on an error",
}


def check_unclean_stop(trace: TraceFacts, spans: Sequence[SpanFacts]):
    """One flag for the run's own stop reason, else one per model call that stopped so."""
    kind = stop_reason_normalize(trace.stop_reason)
    if kind in FLAGGED_KINDS:
        root = next((s for s in spans if s.span_id == trace.root_span_id), None)
        yield FlagHit(
            RedFlag.Kind.UNCLEAN_STOP,
            root.span_id if root else "",
            f"The run {FLAGGED_KINDS[kind]} (stop reason {trace.stop_reason!r}).",
            span_pk(root) if root else None,
        )
        return
    for span in spans:
        if span.kind != SpanKind.LLM:
            continue
        reason = finish_reason_of(span.attributes, span.output)
        kind = stop_reason_normalize(reason)
        if kind in (StopKind.TRUNCATED, StopKind.REFUSED):
            yield FlagHit(
                RedFlag.Kind.UNCLEAN_STOP,
                span.span_id,
                f"{span.name} {FLAGGED_KINDS[kind]} (finish reason {reason!r}).",
                span_pk(span),
            )

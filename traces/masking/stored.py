"""Masking applied again to what a project already stored, after its rules changed.

Each batch is one transaction with its traces locked as ingest locks them: spans, the trace's
own fields, its feedback and its session's first task are rewritten where a rule now finds
something, and the search documents of changed traces are built again from the masked spans.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from traces.masking.masker import Masker
from traces.masking.rules import masker_build
from traces.models import Feedback, Project, Session, Span, Trace
from traces.search.documents import search_documents_build

BATCH = 200
SPAN_FIELDS = ("name", "input", "output", "attributes", "error_message")
TRACE_TEXTS = ("task", "final_answer", "stop_reason", "task_type", "agent_name", "agent_version")
FEEDBACK_TEXTS = ("name", "category", "comment")


@dataclass
class MaskedCounts:
    traces_read: int = 0
    traces_changed: int = 0
    spans_changed: int = 0
    feedback_changed: int = 0


def project_stored_mask(project: Project, *, batch: int = BATCH) -> MaskedCounts:
    """Mask every stored trace of the project with its current rules; counts of what changed."""
    counts = MaskedCounts()
    masker = masker_build(project.pk)
    if masker is None:
        return counts
    last = 0
    while True:
        ids = list(
            Trace.objects.filter(project=project, pk__gt=last)
            .order_by("pk")
            .values_list("pk", flat=True)[:batch]
        )
        if not ids:
            return counts
        last = ids[-1]
        counts.traces_read += len(ids)
        _batch_mask(masker, ids, counts)


def _changed(obj, fields, masked_of) -> list[str]:
    changed = []
    for name in fields:
        before = getattr(obj, name)
        after = masked_of(name, before)
        if after != before:
            setattr(obj, name, after)
            changed.append(name)
    return changed


def _batch_mask(masker: Masker, ids: list[int], counts: MaskedCounts) -> None:
    def value_masked(name, value):
        return masker.value(value, name)

    def span_value(name, value):
        if name == "attributes":
            return masker.attributes(value or {})
        return masker.value(value, name)

    with transaction.atomic():
        traces = list(Trace.objects.select_for_update().filter(pk__in=ids).order_by("pk"))
        changed_traces, changed_spans, sessions = set(), [], set()
        for span in Span.objects.filter(trace_id__in=ids).only("trace_id", *SPAN_FIELDS):
            if _changed(span, SPAN_FIELDS, span_value):
                changed_spans.append(span)
                changed_traces.add(span.trace_id)
        Span.objects.bulk_update(changed_spans, SPAN_FIELDS, batch_size=500)
        trace_fields = (*TRACE_TEXTS, "context", "attributes")
        for trace in traces:
            fields = _changed(trace, trace_fields, value_masked)
            if fields:
                trace.save(update_fields=fields)
                changed_traces.add(trace.pk)
                if "task" in fields and trace.session_id:
                    sessions.add(trace.session_id)
        for feedback in Feedback.objects.filter(trace_id__in=ids):
            fields = _changed(feedback, (*FEEDBACK_TEXTS, "metadata"), value_masked)
            if feedback.end_user != (user := masker.text(feedback.end_user, identifier=True)):
                feedback.end_user = user
                fields.append("end_user")
            if fields:
                feedback.save(update_fields=fields)
                counts.feedback_changed += 1
        for session in Session.objects.filter(pk__in=sessions):
            first_task = masker.text(session.first_task)
            if first_task != session.first_task:
                Session.objects.filter(pk=session.pk).update(first_task=first_task)
        if changed_traces:
            search_documents_build(sorted(changed_traces))
    counts.traces_changed += len(changed_traces)
    counts.spans_changed += len(changed_spans)

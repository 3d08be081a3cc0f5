"""Masking applied to what ingest is about to store: span records, trace extras, log events
and feedback."""

from __future__ import annotations

from traces.ingest.records import SpanRecord, TraceExtras
from traces.masking.masker import Masker

_EXTRA_TEXTS = ("task", "final_answer", "stop_reason", "task_type", "agent_name", "agent_version")


def records_mask(masker: Masker, records: list[SpanRecord]) -> None:
    """Each record's name, values, attributes, error and trace-level fields, in place."""
    for record in records:
        record.name = masker.text(record.name)
        record.input = masker.value(record.input, "input")
        record.output = masker.value(record.output, "output")
        record.attributes = masker.attributes(record.attributes)
        record.error_message = masker.text(record.error_message)
        if record.trace_fields:
            record.trace_fields = masker.value(record.trace_fields)


def extras_mask(masker: Masker, extras: dict[str, TraceExtras]) -> None:
    for extra in extras.values():
        for name in _EXTRA_TEXTS:
            value = getattr(extra, name)
            if value:
                setattr(extra, name, masker.value(value, name))
        extra.context = masker.value(extra.context)
        extra.attributes = masker.attributes(extra.attributes)


def events_mask(masker: Masker, events_by_span: dict) -> dict:
    """OTLP log records as span events ({"name", "time", "attributes", ...}), masked."""
    return {
        key: [masker.value(event) for event in events] for key, events in events_by_span.items()
    }


def feedback_fields_mask(masker: Masker, fields: dict) -> dict:
    """A feedback post's texts and metadata; the end user is an identifier (a pseudonym)."""
    return {
        **fields,
        "name": masker.text(fields["name"]),
        "category": masker.text(fields["category"]),
        "comment": masker.text(fields["comment"]),
        "end_user": masker.text(fields["end_user"], identifier=True),
        "metadata": masker.value(fields["metadata"]),
    }

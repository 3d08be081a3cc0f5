"""Masking applied to what ingest is about to store: span records, trace extras, log events
and feedback."""

from __future__ import annotations

import orjson

from traces.ingest.records import SpanRecord, TraceExtras
from traces.masking.masker import Masker, texts_of

_EXTRA_TEXTS = ("task", "final_answer", "stop_reason", "task_type", "agent_name", "agent_version")


def records_mask(masker: Masker, records: list[SpanRecord]) -> None:
    """Each record's name, values, attributes, error and trace-level fields, in place; a
    record no rule can find anything in is left as it is after one pass over its texts."""
    for record in records:
        here = masker.for_texts(_json(_record_values(record)))
        if here is None:
            continue
        record.name = here.text(record.name)
        record.input = here.value(record.input, "input")
        record.output = here.value(record.output, "output")
        record.attributes = here.attributes(record.attributes)
        record.error_message = here.text(record.error_message)
        if record.trace_fields:
            record.trace_fields = here.value(record.trace_fields)


def _record_values(record: SpanRecord) -> tuple:
    return (
        record.name,
        record.error_message,
        record.input,
        record.output,
        record.attributes,
        record.trace_fields,
    )


def _json(values) -> bytes | list[str]:
    """Values as one JSON text for the gate (a C call, where walking them costs a Python call
    per value). JSON escapes only quotes, backslashes and control characters, which no gate
    expression relies on."""
    try:
        return orjson.dumps(values, default=str, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # a value orjson cannot write (an integer beyond 64 bits)
        return texts_of(values, [])


def extras_mask(masker: Masker, extras: dict[str, TraceExtras]) -> None:
    """Each trace's payload-level values, after the same one-pass gate as a span's (an OTLP
    request carries its resource's attributes for every trace in it)."""
    for extra in extras.values():
        values = [getattr(extra, name) for name in _EXTRA_TEXTS]
        here = masker.for_texts(_json((*values, extra.context, extra.attributes, extra.tags)))
        if here is None:
            continue
        for name, value in zip(_EXTRA_TEXTS, values, strict=True):
            if value:
                setattr(extra, name, here.value(value, name))
        extra.context = here.value(extra.context)
        extra.attributes = here.attributes(extra.attributes)
        extra.tags = here.value(extra.tags)


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

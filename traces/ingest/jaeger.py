"""Jaeger query-API JSON exports, the file Jaeger's and Tempo's UIs hand a user, as span records.

The shape is `{"data": [{"traceID", "spans": [{"traceID", "spanID", "operationName",
"references": [{"refType", "traceID", "spanID"}], "startTime", "duration" (microseconds),
"tags": [{"key", "type", "value"}], "logs": [{"timestamp", "fields": [...]}], "processID"}],
"processes": {"p1": {"serviceName", "tags"}}}]}`. Tags are read like OTLP attributes (through
the same convention tables); logs become span events (the `event` field names one); the
process gives `service.name` and its tags. A CHILD_OF reference (else FOLLOWS_FROM) in the
same trace is the parent. Jaeger writes OpenTelemetry's status as `otel.status_code` /
`otel.status_description` and errors as the tag `error=true`.
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta

from core.errors import InvalidInput
from traces.ingest.conventions import json_maybe
from traces.ingest.records import SpanRecord, TraceExtras, nul_free, span_record_build

TAG_TYPES = frozenset(("string", "bool", "int64", "float64", "binary"))
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_HEX = frozenset("0123456789abcdef")


def is_jaeger_export(payload) -> bool:
    """Whether a payload is a Jaeger export: `data` is a list of traces with `spans`."""
    if not isinstance(payload, dict) or not isinstance(payload.get("data"), list):
        return False
    first = payload["data"][0] if payload["data"] else None
    return isinstance(first, dict) and "spans" in first


def jaeger_records(payload: dict) -> tuple[list[SpanRecord], dict[str, TraceExtras]]:
    """Span records of every trace in the export, and each trace's extras (its processes)."""
    records: list[SpanRecord] = []
    extras: dict[str, TraceExtras] = {}
    for t_index, trace in enumerate(payload["data"]):
        where = f"data[{t_index}]"
        if not isinstance(trace, dict) or not isinstance(trace.get("spans"), list):
            raise InvalidInput(f"{where}.spans", "Must be a list of spans.")
        processes = _processes(trace.get("processes") or {}, where)
        for s_index, span in enumerate(trace["spans"]):
            record = _record(span, processes, f"{where}.spans[{s_index}]")
            records.append(record)
            extras.setdefault(record.trace_external_id, TraceExtras())
    if not records:
        raise InvalidInput("data", "No span in this export: nothing was stored.")
    return records, extras


def _processes(processes, where: str) -> dict[str, dict]:
    if not isinstance(processes, dict):
        raise InvalidInput(f"{where}.processes", "Must be an object of processes.")
    out = {}
    for key, process in processes.items():
        if not isinstance(process, dict):
            raise InvalidInput(f"{where}.processes.{key}", "Must be an object.")
        resource = _tags(process.get("tags") or [], f"{where}.processes.{key}.tags")
        if process.get("serviceName"):
            resource["service.name"] = str(process["serviceName"])
        out[key] = resource
    return out


def _record(span, processes: dict, where: str) -> SpanRecord:
    if not isinstance(span, dict):
        raise InvalidInput(where, "Must be an object.")
    trace_id = _hex_id(span.get("traceID"), 32, f"{where}.traceID")
    span_id = _hex_id(span.get("spanID"), 16, f"{where}.spanID")
    name = span.get("operationName")
    if not isinstance(name, str) or not name:
        raise InvalidInput(f"{where}.operationName", "Every span needs a name.")
    attributes = _tags(span.get("tags") or [], f"{where}.tags")
    for key, value in processes.get(span.get("processID"), {}).items():
        attributes.setdefault(key, value)
    parent, others = _parent(span.get("references") or [], trace_id, f"{where}.references")
    if others:
        attributes["jaeger.references"] = others
    kind = attributes.pop("span.kind", None)
    attributes["otel.span_kind"] = str(kind) if kind else "unspecified"
    events = [_event(log, f"{where}.logs[{i}]") for i, log in enumerate(span.get("logs") or [])]
    if events:
        attributes["otel.events"] = events
    started = _time(span.get("startTime"), f"{where}.startTime")
    duration = span.get("duration")
    if duration is not None and (type(duration) is not int or duration < 0):
        raise InvalidInput(f"{where}.duration", "Must be whole microseconds, 0 or more.")
    ended = started + timedelta(microseconds=duration) if started and duration is not None else None
    status = str(attributes.get("otel.status_code", "")).upper()
    is_error = status == "ERROR" or attributes.get("error") in (True, "true")
    message = str(attributes.get("otel.status_description") or "") if is_error else ""
    return span_record_build(
        trace_external_id=trace_id,
        span_id=span_id,
        parent_span_id=parent,
        name=nul_free(name),
        attributes=attributes,
        started_at=started,
        ended_at=ended,
        events=events,
        is_error=is_error,
        error_message=message,
    )


def _hex_id(value, length: int, where: str) -> str:
    """A Jaeger id as OTLP writes it: lowercase hex, 64-bit trace ids padded to 128 bits."""
    text = str(value or "").strip().lower()
    if not text or len(text) > length or not set(text) <= _HEX or not text.strip("0"):
        raise InvalidInput(where, f"Must be up to {length} hex digits, not all zero.")
    return text.rjust(length, "0")


def _parent(references, trace_id: str, where: str) -> tuple[str, list]:
    if not isinstance(references, list):
        raise InvalidInput(where, "Must be a list.")
    parent, others = "", []
    for index, ref in enumerate(sorted(references, key=lambda r: r.get("refType") != "CHILD_OF")):
        if not isinstance(ref, dict):
            raise InvalidInput(f"{where}[{index}]", "Must be an object.")
        ref_trace = _hex_id(ref.get("traceID") or trace_id, 32, f"{where}[{index}].traceID")
        ref_span = _hex_id(ref.get("spanID"), 16, f"{where}[{index}].spanID")
        if not parent and ref_trace == trace_id:
            parent = ref_span
        else:
            others.append({"refType": ref.get("refType"), "traceID": ref_trace, "spanID": ref_span})
    return parent, others


def _tags(tags, where: str) -> dict:
    if not isinstance(tags, list):
        raise InvalidInput(where, "Must be a list of {key, type, value}.")
    out = {}
    for index, tag in enumerate(tags):
        if not isinstance(tag, dict) or not isinstance(tag.get("key"), str):
            raise InvalidInput(f"{where}[{index}]", "Each tag needs a key.")
        kind = tag.get("type", "string")
        if kind not in TAG_TYPES:
            raise InvalidInput(f"{where}[{index}].type", f"Unknown tag type {kind!r}.")
        value = tag.get("value")
        if kind == "binary" and isinstance(value, str):
            value = base64.b64encode(bytes.fromhex(value)).decode() if _is_hex(value) else value
        out[tag["key"]] = nul_free(value)
    return out


def _is_hex(text: str) -> bool:
    return len(text) % 2 == 0 and set(text.lower()) <= _HEX


def _event(log, where: str) -> dict:
    if not isinstance(log, dict):
        raise InvalidInput(where, "Must be an object.")
    # Log fields are scalars: a structured value (a GenAI event's message) comes as JSON text.
    fields = {
        key: json_maybe(value)
        for key, value in _tags(log.get("fields") or [], f"{where}.fields").items()
    }
    name = str(fields.pop("event", "") or "log")
    time = _time(log.get("timestamp"), f"{where}.timestamp")
    return {"name": name, "time": time.isoformat() if time else None, "attributes": fields}


def _time(value, where: str) -> datetime | None:
    if value is None:
        return None
    if type(value) is not int or value < 0:
        raise InvalidInput(where, "Must be whole microseconds since the epoch.")
    try:
        return _EPOCH + timedelta(microseconds=value)
    except OverflowError as exc:
        raise InvalidInput(where, "Out of range.") from exc

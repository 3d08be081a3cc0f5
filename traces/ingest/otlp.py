"""OTLP/HTTP trace export requests (protobuf or JSON) decoded into span records."""

from __future__ import annotations

import json
from dataclasses import dataclass

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1 import trace_pb2

from core.errors import InvalidInput
from traces.ingest.otlp_json import json_request_spans
from traces.ingest.otlp_wire import (
    JSON,
    attributes_dict,
    is_protobuf,
    media_type,
    protobuf_parse,
    time_from_nanos,
    unsupported_media,
)
from traces.ingest.records import SpanRecord, TraceExtras, nul_free, span_record_build
from traces.projects import PROJECT_ATTRIBUTE

STATUS_ERROR = trace_pb2.Status.STATUS_CODE_ERROR
_ZERO_TRACE_ID, _ZERO_SPAN_ID = bytes(16), bytes(8)
SPAN_KIND_NAMES = {
    value.number: value.name.removeprefix("SPAN_KIND_").lower()
    for value in trace_pb2.Span.SpanKind.DESCRIPTOR.values
}


@dataclass
class OtlpBatch:
    """Decoded spans grouped by the project each resource names (None: the request's default)."""

    records_by_project: dict[str | None, list[SpanRecord]]
    extras_by_project: dict[str | None, dict[str, TraceExtras]]
    span_count: int
    # Spans whose (trace id, span id) an earlier span of the same request had: the first is
    # kept; `conflicting` of them said something else under that id and are rejected.
    repeated: int = 0
    conflicting: int = 0
    # Spans that could not be read (an all-zero id, no name): each named with its reason, not
    # stored, and answered in partial_success while the rest of the request is stored.
    invalid: tuple[str, ...] = ()


def otlp_request_decode(body: bytes, content_type: str) -> ExportTraceServiceRequest:
    """Parse an ExportTraceServiceRequest from protobuf bytes (otlp_json reads OTLP/JSON)."""
    if is_protobuf(media_type(content_type)):
        return protobuf_parse(ExportTraceServiceRequest(), body, "OTLP")
    raise unsupported_media()


def _exception_message(events: list[dict]) -> str:
    for event in events:
        if event["name"] == "exception":
            attrs = event.get("attributes") or {}
            parts = [attrs.get("exception.type"), attrs.get("exception.message")]
            return ": ".join(str(p) for p in parts if p)
    return ""


def otlp_batch(body: bytes, content_type: str) -> OtlpBatch:
    """Span records from an export request body, protobuf or OTLP/JSON."""
    if media_type(content_type) == JSON:
        # Read straight into the same values protobuf gives: no protobuf message in between.
        return records_batch(json_request_spans(body))
    return records_batch(_protobuf_spans(otlp_request_decode(body, content_type)))


def _protobuf_spans(message: ExportTraceServiceRequest):
    """(resource attributes, scope name, (resource, scope, span) indexes, span, attributes,
    events) for every span."""
    for r_index, resource_spans in enumerate(message.resource_spans):
        resource = attributes_dict(resource_spans.resource.attributes)
        for s_index, scope_spans in enumerate(resource_spans.scope_spans):
            scope_name = scope_spans.scope.name
            for index, span in enumerate(scope_spans.spans):
                span_events = span.events
                events = (
                    [
                        {
                            "name": event.name,
                            "time": time_from_nanos(event.time_unix_nano).isoformat()
                            if event.time_unix_nano
                            else None,
                            "attributes": attributes_dict(event.attributes),
                        }
                        for event in span_events
                    ]
                    if span_events
                    else []
                )  # most spans have none: no comprehension run
                # The path is written out only for an error (span_path): most spans have none.
                where = (r_index, s_index, index)
                yield resource, scope_name, where, span, attributes_dict(span.attributes), events


def records_batch(spans) -> OtlpBatch:
    """Span records from decoded spans. A span without valid ids or a name is left out and
    named in `invalid`; a request with spans and none valid is refused with the first reason.
    A request without spans is an empty batch (OTLP: an empty export succeeds)."""
    records_by_project: dict[str | None, list[SpanRecord]] = {}
    extras_by_project: dict[str | None, dict[str, TraceExtras]] = {}
    count = repeated = conflicting = 0
    seen: dict[tuple[str, str], SpanRecord] = {}
    invalid: list[InvalidInput] = []
    last_resource = None
    for resource, scope_name, where, span, attributes, events in spans:
        if resource is not last_resource:
            last_resource = resource
            project = resource.get(PROJECT_ATTRIBUTE)
            project = str(project) if project else None
            records = records_by_project.setdefault(project, [])
            extras = extras_by_project.setdefault(project, {})
            defaults = resource_defaults(resource)
        try:
            record = span_record_from(span, attributes, events, where, scope_name, defaults)
        except InvalidInput as error:
            invalid.append(error)
            continue
        count += 1
        first = seen.setdefault((record.trace_external_id, record.span_id), record)
        if first is not record:
            repeated += 1
            conflicting += first != record
            continue
        records.append(record)
        ext = record.trace_external_id
        if ext not in extras:
            extras[ext] = TraceExtras(attributes={"resource": resource})
    if invalid and not count:
        raise invalid[0]
    return OtlpBatch(
        {project: records for project, records in records_by_project.items() if records},
        extras_by_project,
        count,
        repeated,
        conflicting,
        tuple(_reason(error) for error in invalid),
    )


def _reason(error: InvalidInput) -> str:
    """`path: message` of a span's refusal."""
    return error.answer_message()


def span_path(where: str | tuple[int, int, int]) -> str:
    """Where a span is in its request, for an error: the JSON reader's path, or protobuf's
    (resource, scope, span) indexes written the same way."""
    if isinstance(where, str):
        return where
    return "resource_spans[{}].scope_spans[{}].spans[{}]".format(*where)


# Resource values such as service.name/version describe the agent when spans do not.
_RESOURCE_DEFAULTS = ("service.name", "service.version")


def resource_defaults(resource: dict) -> tuple[tuple[str, object], ...]:
    """The (name, value) pairs a resource gives each of its spans that lacks the name: read
    once a resource, not once a span."""
    return tuple((key, resource[key]) for key in _RESOURCE_DEFAULTS if key in resource)


def span_record_from(
    span,
    attributes: dict,
    events: list[dict],
    where,
    scope_name: str,
    defaults: tuple[tuple[str, object], ...],
) -> SpanRecord:
    """A record from a span's values (a protobuf Span, or the same fields read from JSON);
    `where` names the span in errors (span_path); `defaults` are its resource_defaults."""
    # Each read of a protobuf bytes field makes a new bytes object: read each once.
    trace_id, span_id, parent_id = span.trace_id, span.span_id, span.parent_span_id
    # Compared with the all-zero ids: a strip would make a new bytes object each.
    if len(trace_id) != 16 or trace_id == _ZERO_TRACE_ID:
        raise InvalidInput(f"{span_path(where)}.trace_id", "Must be 16 bytes and not all zero.")
    if len(span_id) != 8 or span_id == _ZERO_SPAN_ID:
        raise InvalidInput(f"{span_path(where)}.span_id", "Must be 8 bytes and not all zero.")
    if parent_id and len(parent_id) != 8:
        raise InvalidInput(f"{span_path(where)}.parent_span_id", "Must be 8 bytes or empty.")
    name = span.name
    if not name:
        raise InvalidInput(f"{span_path(where)}.name", "Every span needs a name.")
    if "\x00" in name:
        name = nul_free(name)
    started = time_from_nanos(span.start_time_unix_nano)
    ended = time_from_nanos(span.end_time_unix_nano)
    if started and ended and ended < started:
        raise InvalidInput(f"{span_path(where)}.end_time_unix_nano", "Ends before it starts.")
    for key, value in defaults:
        if key not in attributes:
            attributes[key] = value
    attributes["otel.span_kind"] = SPAN_KIND_NAMES.get(span.kind, "unspecified")
    if scope_name:
        attributes["otel.scope.name"] = scope_name
    if events:
        attributes["otel.events"] = events
    status = span.status
    is_error = status.code == STATUS_ERROR
    error_message = status.message
    if "\x00" in error_message:
        error_message = nul_free(error_message)
    if not error_message and is_error:
        error_message = _exception_message(events)
    parent = parent_id.hex() if parent_id and parent_id != _ZERO_SPAN_ID else ""
    return span_record_build(
        trace_external_id=trace_id.hex(),
        span_id=span_id.hex(),
        parent_span_id=parent,
        name=name,
        attributes=attributes,
        started_at=started,
        ended_at=ended,
        events=events,
        is_error=is_error,
        error_message=error_message,
    )


def otlp_response_body(content_type: str, rejected: int = 0, message: str = "") -> bytes:
    """ExportTraceServiceResponse in the request's encoding; partial_success only when set."""
    response = ExportTraceServiceResponse()
    if rejected or message:
        response.partial_success.rejected_spans = rejected
        response.partial_success.error_message = message
    if media_type(content_type) == JSON:
        return json.dumps(json_format.MessageToDict(response)).encode()
    return response.SerializeToString()

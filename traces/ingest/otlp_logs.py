"""OTLP/HTTP log export requests (protobuf or JSON) read as span events by span.

GenAI instrumentations in event mode send message content as log records: the pre-1.37 events
(`gen_ai.system.message`, `gen_ai.user.message`, `gen_ai.assistant.message`,
`gen_ai.tool.message`, `gen_ai.choice`) with the content in the body, and
`gen_ai.client.inference.operation.details` with the whole call in its attributes. Each record
names its span by trace and span id; traces.ingest.span_logs joins it to the span.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)

from core.errors import InvalidInput
from traces.ingest.otlp_wire import (
    JSON,
    any_value,
    attributes_dict,
    is_protobuf,
    media_type,
    protobuf_parse,
    time_from_nanos,
    unsupported_media,
)
from traces.projects import PROJECT_ATTRIBUTE

# Older writers name the event in an attribute rather than the record's event_name field.
EVENT_NAME_ATTRIBUTE = "event.name"


@dataclass
class LogBatch:
    """Events by project (None: the request's default) and by (trace id, span id) in hex."""

    events_by_project: dict[str | None, dict[tuple[str, str], list[dict]]] = field(
        default_factory=dict
    )
    record_count: int = 0
    # Records naming no span (no trace or span id): they cannot be joined and are refused.
    unjoinable: int = 0


def logs_request_decode(body: bytes, content_type: str) -> ExportLogsServiceRequest:
    media = media_type(content_type)
    message = ExportLogsServiceRequest()
    if is_protobuf(media):
        return protobuf_parse(message, body, "OTLP logs")
    if media == JSON:
        try:
            data = json.loads(body)
        except ValueError as exc:
            raise InvalidInput("body", f"Not valid JSON: {exc}.") from exc
        try:
            json_format.ParseDict(_ids_as_base64(data), message)
        except (json_format.ParseError, ValueError, TypeError) as exc:
            raise InvalidInput("body", f"Not OTLP/JSON logs: {exc}") from exc
        return message
    raise unsupported_media()


def _ids_as_base64(data):
    """OTLP/JSON writes trace and span ids as hex; protobuf's JSON mapping reads base64."""
    if not isinstance(data, dict):
        raise InvalidInput("body", "Must be an ExportLogsServiceRequest object.")
    for r_index, resource in enumerate(data.get("resourceLogs") or []):
        for s_index, scope in enumerate((resource or {}).get("scopeLogs") or []):
            for index, record in enumerate((scope or {}).get("logRecords") or []):
                for key in ("traceId", "spanId"):
                    value = (record or {}).get(key)
                    if not value:
                        continue
                    try:
                        record[key] = base64.b64encode(bytes.fromhex(value)).decode()
                    except (TypeError, ValueError) as exc:
                        where = f"resourceLogs[{r_index}].scopeLogs[{s_index}].logRecords[{index}]"
                        raise InvalidInput(f"{where}.{key}", "Must be hex.") from exc
    return data


def logs_batch(message: ExportLogsServiceRequest) -> LogBatch:
    batch = LogBatch()
    for resource_logs in message.resource_logs:
        resource = attributes_dict(resource_logs.resource.attributes)
        project = resource.get(PROJECT_ATTRIBUTE)
        by_span = batch.events_by_project.setdefault(str(project) if project else None, {})
        for scope_logs in resource_logs.scope_logs:
            for record in scope_logs.log_records:
                batch.record_count += 1
                trace_id, span_id = record.trace_id, record.span_id
                if len(trace_id) != 16 or len(span_id) != 8 or not span_id.strip(b"\0"):
                    batch.unjoinable += 1
                    continue
                by_span.setdefault((trace_id.hex(), span_id.hex()), []).append(log_event(record))
    if not batch.record_count:
        raise InvalidInput(
            "resourceLogs", "No log record could be read from this request: nothing stored."
        )
    return batch


def log_event(record) -> dict:
    """A log record as a span event: its name, time, attributes and the body's fields."""
    attributes = attributes_dict(record.attributes)
    name = record.event_name or str(attributes.pop(EVENT_NAME_ATTRIBUTE, "") or "log")
    body = any_value(record.body) if record.HasField("body") else None
    if isinstance(body, dict):
        attributes.update(body)  # a GenAI event's content is its body's map
    elif body is not None:
        attributes["body"] = body
    nanos = record.time_unix_nano or record.observed_time_unix_nano
    time = time_from_nanos(nanos)
    return {"name": name, "time": time.isoformat() if time else None, "attributes": attributes}


def logs_response_body(content_type: str, rejected: int = 0, message: str = "") -> bytes:
    """ExportLogsServiceResponse in the request's encoding; partial_success only when set."""
    response = ExportLogsServiceResponse()
    if rejected or message:
        response.partial_success.rejected_log_records = rejected
        response.partial_success.error_message = message
    if (content_type or "").split(";")[0].strip().lower() == JSON:
        return json.dumps(json_format.MessageToDict(response)).encode()
    return response.SerializeToString()

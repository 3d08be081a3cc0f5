"""OTLP/JSON export requests read straight into the values otlp.py maps, by protobuf's JSON rules.

The fields a span record needs are read by hand (orjson, no protobuf message in between: its
pure-Python ParseDict cost as much as the rest of ingestion). Whatever else a request carries
is checked against the protobuf descriptors, so a field unknown to OTLP or a value of the
wrong type is refused as protobuf's own JSON parser refused it. Trace and span ids are hex,
as OTLP/JSON writes them; the field names of older OTLP versions are read as today's.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import math
from dataclasses import dataclass, field

import orjson
from google.protobuf.descriptor import FieldDescriptor
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.trace.v1 import trace_pb2

from core.errors import InvalidInput
from traces.ingest.otlp_wire import OLD_FIELD_NAMES, time_from_nanos
from traces.ingest.records import nul_free

_F = FieldDescriptor
_INT_RANGES = {
    _F.TYPE_INT32: (-(2**31), 2**31 - 1),
    _F.TYPE_ENUM: (-(2**31), 2**31 - 1),
    _F.TYPE_UINT32: (0, 2**32 - 1),
    _F.TYPE_FIXED32: (0, 2**32 - 1),
    _F.TYPE_INT64: (-(2**63), 2**63 - 1),
    _F.TYPE_FIXED64: (0, 2**64 - 1),
    _F.TYPE_UINT64: (0, 2**64 - 1),
}
_ID_FIELDS = ("trace_id", "span_id", "parent_span_id")


def _fields_by_json_key(descriptor) -> dict[str, FieldDescriptor]:
    """Each field under both spellings protobuf's JSON parser accepts: lowerCamel and proto."""
    out = {}
    for each in descriptor.fields:
        out[each.json_name] = out[each.name] = each
    return out


_FIELDS: dict[str, dict[str, FieldDescriptor]] = {}


def _fields(descriptor) -> dict[str, FieldDescriptor]:
    if descriptor.full_name not in _FIELDS:
        _FIELDS[descriptor.full_name] = _fields_by_json_key(descriptor)
    return _FIELDS[descriptor.full_name]


class _Invalid(Exception):
    """Bad input at a path; turned into the 400 protobuf's parser gave, naming `body`."""


def _refuse(message: str):
    raise InvalidInput("body", f"Not a valid OTLP/JSON request: {message}")


@dataclass(slots=True)
class _Status:
    code: int = 0
    message: str = ""


_NO_STATUS = _Status()  # shared by spans without a status: read, never changed


@dataclass(slots=True)
class JsonSpan:
    """The Span fields span_record_from reads, with protobuf's defaults."""

    trace_id: bytes = b""
    span_id: bytes = b""
    parent_span_id: bytes = b""
    name: str = ""
    kind: int = 0
    start_time_unix_nano: int = 0
    end_time_unix_nano: int = 0
    status: _Status = field(default_factory=_Status)


def json_request_spans(body: bytes):
    """(resource attributes, scope name, (resource, scope, span) indexes, span, attributes,
    events) for every span."""
    data = _loads(body)
    if not isinstance(data, dict):
        raise InvalidInput("body", "Expected an ExportTraceServiceRequest object.")
    try:
        request = _message(data, ExportTraceServiceRequest.DESCRIPTOR, "ExportTraceServiceRequest")
        spans = list(_spans(request))
    except _Invalid as exc:
        _refuse(str(exc))
    except RecursionError as exc:
        raise InvalidInput("body", "The JSON is nested too deeply.") from exc
    return spans


def _loads(body: bytes):
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        pass  # json reads what orjson refuses (NaN, UTF-16, huge integers) and words errors
    try:
        return json.loads(body)
    except RecursionError as exc:
        raise InvalidInput("body", "The JSON is nested too deeply.") from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidInput("body", f"Not valid JSON: {exc}.") from exc


def _message(node, descriptor, path: str) -> dict:
    """The object's fields by proto name, old names renamed; unknown or doubled names refused."""
    if not isinstance(node, dict):
        raise _Invalid(f"{path} must be an object, not {type(node).__name__}.")
    known = _fields(descriptor)
    out = {}
    for key, value in node.items():
        renamed = OLD_FIELD_NAMES.get(key, key)
        each = known.get(renamed)
        if each is None:
            raise _Invalid(
                f'Message type "{descriptor.full_name}" has no field named "{key}" at "{path}".'
            )
        if each.name in out:
            raise InvalidInput(key, f"Both {key!r} and another spelling are present.")
        if value is not None:  # null reads as the field's default, as protobuf reads it
            out[each.name] = value
    return out


def _list(node, path: str) -> list:
    if not isinstance(node, list):
        raise _Invalid(f"{path} must be a list, not {type(node).__name__}.")
    return node


_SCOPE = trace_pb2.ScopeSpans.DESCRIPTOR.fields_by_name["scope"].message_type


def _spans(request: dict):
    descriptor = trace_pb2.ResourceSpans.DESCRIPTOR
    for r_index, item in enumerate(_list(request.get("resource_spans", []), "resourceSpans")):
        r_path = f"resource_spans[{r_index}]"
        resource_spans = _message(item, descriptor, r_path)
        _check_rest(resource_spans, descriptor, r_path, ("resource", "scope_spans"))
        resource = _resource(resource_spans.get("resource", {}), f"{r_path}.resource")
        scopes = _list(resource_spans.get("scope_spans", []), f"{r_path}.scope_spans")
        for s_index, scope_item in enumerate(scopes):
            s_path = f"{r_path}.scope_spans[{s_index}]"
            scope_spans = _message(scope_item, trace_pb2.ScopeSpans.DESCRIPTOR, s_path)
            _check_rest(scope_spans, trace_pb2.ScopeSpans.DESCRIPTOR, s_path, ("spans",))
            scope = _message(scope_spans.get("scope", {}), _SCOPE, f"{s_path}.scope")
            _check_rest(scope, _SCOPE, f"{s_path}.scope", ("name",))
            scope_name = _string(scope.get("name", ""), f"{s_path}.scope.name")
            for index, span_item in enumerate(_list(scope_spans.get("spans", []), s_path)):
                read = _span_quick(span_item)
                if read is None:  # something unusual: the thorough reader says what, if wrong
                    read = _span(span_item, f"{s_path}.spans[{index}]")
                # otlp.span_path writes these indexes as s_path does, for an error only.
                yield (resource, scope_name, (r_index, s_index, index), *read)


def _resource(node, path: str) -> dict:
    descriptor = trace_pb2.ResourceSpans.DESCRIPTOR.fields_by_name["resource"].message_type
    resource = _message(node, descriptor, path)
    _check_rest(resource, descriptor, path, ("attributes",))
    return _attributes(resource.get("attributes", []), f"{path}.attributes")


_SPAN = trace_pb2.Span.DESCRIPTOR
_SPAN_READ = (
    "trace_id",
    "span_id",
    "parent_span_id",
    "name",
    "kind",
    "start_time_unix_nano",
    "end_time_unix_nano",
    "attributes",
    "events",
    "status",
)


def _span(node, path: str) -> tuple[JsonSpan, dict, list[dict]]:
    given = _message(node, _SPAN, path)
    span = JsonSpan()
    for key in _ID_FIELDS:
        value = given.get(key)
        if value is not None:
            setattr(span, key, _hex_id(value, _SPAN.fields_by_name[key].json_name))
    span.name = _string(given.get("name", ""), f"{path}.name")
    span.kind = _enum(given.get("kind", 0), _SPAN.fields_by_name["kind"], f"{path}.kind")
    span.start_time_unix_nano = _integer(
        given.get("start_time_unix_nano", 0), _F.TYPE_FIXED64, f"{path}.startTimeUnixNano"
    )
    span.end_time_unix_nano = _integer(
        given.get("end_time_unix_nano", 0), _F.TYPE_FIXED64, f"{path}.endTimeUnixNano"
    )
    if "status" in given:
        status = _message(given["status"], trace_pb2.Status.DESCRIPTOR, f"{path}.status")
        code_field = trace_pb2.Status.DESCRIPTOR.fields_by_name["code"]
        span.status = _Status(
            _enum(status.get("code", 0), code_field, f"{path}.status.code"),
            _string(status.get("message", ""), f"{path}.status.message"),
        )
    attributes = _attributes(given.get("attributes", []), f"{path}.attributes")
    events = [
        _event(item, f"{path}.events[{i}]")
        for i, item in enumerate(_list(given.get("events", []), f"{path}.events"))
    ]
    _check_rest(given, _SPAN, path, _SPAN_READ)
    return span, attributes, events


# The Span keys _span_quick reads, in the spelling exporters write: any other key (the proto
# spelling, an old name, an unknown field) leaves the span to _span.
_QUICK_SPAN_KEYS = frozenset(
    (
        "traceId",
        "spanId",
        "parentSpanId",
        "name",
        "kind",
        "startTimeUnixNano",
        "endTimeUnixNano",
        "attributes",
        "events",
        "status",
        "flags",
        "droppedAttributesCount",
        "droppedEventsCount",
        "droppedLinksCount",
        "traceState",
        "links",
    )
)
_QUICK_UINT32_KEYS = ("flags", "droppedAttributesCount", "droppedEventsCount", "droppedLinksCount")
_UINT32_MAX, _INT32_MIN, _INT32_MAX = 2**32 - 1, -(2**31), 2**31 - 1
_FIXED64_MAX, _INT64_MIN, _INT64_MAX = 2**64 - 1, -(2**63), 2**63 - 1
_SPAN_KINDS = {v.name: v.number for v in _SPAN.fields_by_name["kind"].enum_type.values}
_STATUS_CODES = {
    v.name: v.number for v in trace_pb2.Status.DESCRIPTOR.fields_by_name["code"].enum_type.values
}


def _span_quick(node) -> tuple[JsonSpan, dict, list[dict]] | None:
    """What _span reads of a span written as exporters write it (lowerCamel keys, string
    attribute values, no events or links), with a type check a field instead of a path built
    for each; None when anything else is there, and _span reads it. Whatever this accepts,
    _span accepts and reads the same."""
    if type(node) is not dict or not node.keys() <= _QUICK_SPAN_KEYS:
        return None
    ids = []
    for key in ("traceId", "spanId", "parentSpanId"):
        value = node.get(key)
        if value is None:
            ids.append(b"")
            continue
        if type(value) is not str:
            return None
        try:
            ids.append(bytes.fromhex(value))
        except ValueError:
            return None
    name = node.get("name", "")
    kind = node.get("kind", 0)
    if type(name) is not str:
        return None
    kind = _enum_quick(kind, _SPAN_KINDS)
    if kind is None:
        return None
    start = _fixed64_quick(node.get("startTimeUnixNano"))
    end = _fixed64_quick(node.get("endTimeUnixNano"))
    if start is None or end is None:
        return None
    status = node.get("status")
    if status:
        status = _status_quick(status)
        if status is None:
            return None
    elif status is None or status == {}:
        status = _NO_STATUS
    else:
        return None
    for key in _QUICK_UINT32_KEYS:
        value = node.get(key)
        if value is not None and (type(value) is not int or not 0 <= value <= _UINT32_MAX):
            return None
    for key in ("events", "links"):
        value = node.get(key)
        if value is not None and value != []:
            return None
    trace_state = node.get("traceState")
    if trace_state is not None and type(trace_state) is not str:
        return None
    attributes = _attributes_quick(node.get("attributes"))
    if attributes is None:
        return None
    span = JsonSpan(*ids, name, kind, start, end, status)
    return span, attributes, []


def _fixed64_quick(value) -> int | None:
    """A fixed64 as a decimal string of ASCII digits or a JSON integer (0 when absent)."""
    if value is None:
        return 0
    if type(value) is str:
        # Twenty digits hold any fixed64; int() refuses thousands of them with an error.
        if not (len(value) <= 20 and value.isascii() and value.isdigit()):
            return None
        value = int(value)
    elif type(value) is not int:
        return None
    return value if 0 <= value <= _FIXED64_MAX else None


def _enum_quick(value, numbers: dict[str, int]) -> int | None:
    """An enum by its name or number, as _enum reads it; None for anything else."""
    if type(value) is str:
        return numbers.get(value)
    if type(value) is int and _INT32_MIN <= value <= _INT32_MAX:
        return value
    return None


def _status_quick(node) -> _Status | None:
    if type(node) is not dict or not node.keys() <= {"code", "message"}:
        return None
    code = node.get("code", 0)
    message = node.get("message", "")
    code = _enum_quick(code, _STATUS_CODES)
    if code is None or type(message) is not str:
        return None
    return _Status(code, message)


def _attributes_quick(items) -> dict | None:
    """The attributes of _attributes when every item is `{key, value}` with a string, integer,
    boolean or double value as exporters write them; None otherwise."""
    if items is None:
        return {}
    if type(items) is not list:
        return None
    out = {}
    try:
        for item in items:
            # Read before the shape is checked: an item that is not an object, or lacks either
            # key, raises here (as a value that is not an object does at value.get) and is
            # left to _attributes.
            key = item["key"]
            value = item["value"]
            if len(item) != 2 or type(key) is not str or len(value) != 1:
                return None
            text = value.get("stringValue")
            if type(text) is str:
                out[key] = nul_free(text) if "\x00" in text else text
                continue
            number = value.get("intValue")
            if type(number) is str and len(number) <= 19 and number.isascii() and number.isdigit():
                number = int(number)
            if type(number) is int and _INT64_MIN <= number <= _INT64_MAX:
                out[key] = number
            elif type(value.get("boolValue")) is bool:
                out[key] = value["boolValue"]
            elif type(value.get("doubleValue")) is float:
                out[key] = value["doubleValue"]
            else:
                return None
    except (KeyError, TypeError, AttributeError):
        return None
    return out


def _event(node, path: str) -> dict:
    descriptor = trace_pb2.Span.Event.DESCRIPTOR
    event = _message(node, descriptor, path)
    _check_rest(event, descriptor, path, ("time_unix_nano", "name", "attributes"))
    nanos = _integer(event.get("time_unix_nano", 0), _F.TYPE_FIXED64, f"{path}.timeUnixNano")
    return {
        "name": _string(event.get("name", ""), f"{path}.name"),
        "time": time_from_nanos(nanos).isoformat() if nanos else None,
        "attributes": _attributes(event.get("attributes", []), f"{path}.attributes"),
    }


_KEY_VALUE = trace_pb2.Span.DESCRIPTOR.fields_by_name["attributes"].message_type
_ANY = AnyValue.DESCRIPTOR
_ANY_FIELDS = _fields_by_json_key(_ANY)


def _attributes(node, path: str) -> dict:
    """KeyValue list as a dict, values as otlp_wire.any_value gives them."""
    out = {}
    for item in _list(node, path):
        if isinstance(item, dict) and len(item) == 2 and "key" in item and "value" in item:
            key, value = item["key"], item["value"]  # the usual shape, checked quickly
        else:
            kv = _message(item, _KEY_VALUE, path)
            _check_rest(kv, _KEY_VALUE, path, ("key", "value"))
            key, value = kv.get("key", ""), kv.get("value")
        if not isinstance(key, str):
            raise _Invalid(f"{path} has a key that is not a string: {key!r}.")
        out[key] = _any_value(value, path) if value is not None else None
    return out


def _any_value(node, path: str):
    """An AnyValue as a plain Python value, as otlp_wire.any_value reads the protobuf one."""
    if not isinstance(node, dict):
        raise _Invalid(f"{path} must be an AnyValue object.")
    if not node:
        return None
    if len(node) > 1:
        present = [key for key, value in node.items() if value is not None]
        if len(present) > 1:
            raise _Invalid(f"{path} sets more than one value of the oneof: {present}.")
        if not present:
            return None
        node = {present[0]: node[present[0]]}
    ((key, value),) = node.items()
    each = _ANY_FIELDS.get(key)
    if each is None:
        raise _Invalid(f'Message type "{_ANY.full_name}" has no field named "{key}" at "{path}".')
    if value is None:
        return None
    name = each.name
    if name == "string_value":
        text = _string(value, path)
        return nul_free(text) if "\x00" in text else text
    if name == "int_value":
        return _integer(value, _F.TYPE_INT64, path)
    if name == "double_value":
        return _double(value, path)
    if name == "bool_value":
        if not isinstance(value, bool):
            raise _Invalid(f"{path}.boolValue must be true or false, not {value!r}.")
        return value
    if name in ("array_value", "kvlist_value"):
        inner = _message(value, each.message_type, f"{path}.{each.json_name}")
        values = _list(inner.get("values", []), f"{path}.{each.json_name}.values")
        if name == "array_value":
            return [_any_value(item, f"{path}.arrayValue.values") for item in values]
        return _attributes(values, f"{path}.kvlistValue.values")
    if name == "bytes_value":
        return base64.b64encode(_bytes(value, path)).decode()
    _scalar(value, each, path)  # string_value_strindex: valid, but no value of its own
    return None


def _string(value, path: str) -> str:
    if not isinstance(value, str):
        raise _Invalid(f"{path} must be a string, not {value!r}.")
    return value


def _integer(value, kind: int, path: str) -> int:
    """protobuf's JSON integers: a number or a decimal string, within the field's range."""
    number = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and " " not in value:
        with contextlib.suppress(ValueError):
            number = int(value)
    if number is None:
        raise _Invalid(f"{path} must be an integer, not {value!r}.")
    low, high = _INT_RANGES[kind]
    if not low <= number <= high:
        raise _Invalid(f"{path} is out of range: {number}.")
    return number


def _double(value, path: str) -> float:
    if isinstance(value, bool):
        raise _Invalid(f"{path} must be a number, not {value!r}.")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        if value in ("NaN", "Infinity", "-Infinity"):
            return float(value.lower().replace("infinity", "inf"))
        try:
            number = float(value)
        except ValueError:
            raise _Invalid(f"{path} must be a number, not {value!r}.") from None
        if not math.isnan(number):
            return number
    raise _Invalid(f"{path} must be a number, not {value!r}.")


def _enum(value, each: FieldDescriptor, path: str) -> int:
    if isinstance(value, str):
        known = each.enum_type.values_by_name.get(value)
        if known is None:
            raise _Invalid(f"{path}: invalid enum value {value!r} for {each.enum_type.full_name}.")
        return known.number
    return _integer(value, _F.TYPE_ENUM, path)


def _bytes(value, path: str) -> bytes:
    if not isinstance(value, str):
        raise _Invalid(f"{path} must be a base64 string, not {value!r}.")
    try:
        return base64.urlsafe_b64decode(value.replace("+", "-").replace("/", "_") + "==")
    except (binascii.Error, ValueError):
        raise _Invalid(f"{path} is not valid base64.") from None


def _hex_id(value, key: str) -> bytes:
    """Trace and span ids: hex in OTLP/JSON, where protobuf's own JSON mapping has base64."""
    if not isinstance(value, str):
        raise InvalidInput(key, "Expected a hex id.")
    try:
        return bytes.fromhex(value)
    except ValueError as exc:
        raise InvalidInput(key, "Expected a hex id.") from exc


def _scalar(value, each: FieldDescriptor, path: str) -> None:
    """Check a scalar field this reader does not use, by its protobuf type."""
    if each.type == _F.TYPE_STRING:
        _string(value, path)
    elif each.type == _F.TYPE_BOOL:
        if not isinstance(value, bool):
            raise _Invalid(f"{path} must be true or false, not {value!r}.")
    elif each.type == _F.TYPE_ENUM:
        _enum(value, each, path)
    elif each.type in _INT_RANGES:
        _integer(value, each.type, path)
    elif each.type in (_F.TYPE_DOUBLE, _F.TYPE_FLOAT):
        _double(value, path)
    elif each.type == _F.TYPE_BYTES:
        if each.name in _ID_FIELDS:
            _hex_id(value, each.json_name)
        else:
            _bytes(value, path)


def _check_rest(given: dict, descriptor, path: str, read: tuple[str, ...]) -> None:
    """Validate, by the descriptor, the fields of a message the reader does not use."""
    for name, value in given.items():
        if name in read:
            continue
        each = descriptor.fields_by_name[name]
        where = f"{path}.{each.json_name}"
        items = _list(value, where) if each.is_repeated else [value]
        for item in items:
            if item is None:
                continue
            if each.type == _F.TYPE_MESSAGE:
                if each.message_type is _KEY_VALUE:
                    _attributes([item], where)
                    continue
                inner = _message(item, each.message_type, where)
                _check_rest(inner, each.message_type, where, ())
            else:
                _scalar(item, each, where)

"""What every OTLP/HTTP request shares, traces and logs, protobuf and JSON: media types,
Content-Encoding, protobuf parsing, attribute values and times. The trace decoder (otlp.py),
the OTLP/JSON reader (otlp_json.py) and the logs decoder (otlp_logs.py) all read them here."""

from __future__ import annotations

import base64
import gzip
import zlib
from datetime import UTC, datetime, timedelta

from google.protobuf.message import DecodeError

from core.errors import ApplicationError, InvalidInput
from traces.ingest.records import nul_free

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
# Names older OTLP/JSON writers still use (proto before v0.19; Tempo's "batches" envelope).
OLD_FIELD_NAMES = {
    "instrumentationLibrarySpans": "scopeSpans",
    "instrumentation_library_spans": "scope_spans",
    "instrumentationLibrary": "scope",
    "instrumentation_library": "scope",
    "batches": "resourceSpans",
}


def body_decompress(body: bytes, encoding: str, max_bytes: int) -> bytes:
    """Undo Content-Encoding gzip/deflate, refusing bodies that inflate beyond max_bytes."""
    encoding = (encoding or "").strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding not in ("gzip", "deflate"):
        raise ApplicationError(
            f"Content-Encoding {encoding!r} is not supported; use gzip or none.",
            field="content-encoding",
            code="unsupported_encoding",
            status_code=415,
        )
    wbits = 16 + zlib.MAX_WBITS if encoding == "gzip" else zlib.MAX_WBITS
    try:
        inflater = zlib.decompressobj(wbits)
        out = inflater.decompress(body, max_bytes + 1)
        if len(out) > max_bytes or inflater.unconsumed_tail:
            raise ApplicationError(
                f"The decompressed body is over the {max_bytes} byte limit.",
                field="body",
                code="too_large",
                status_code=413,
            )
    except (zlib.error, gzip.BadGzipFile) as exc:
        raise ApplicationError(
            f"The body is not valid {encoding}.", field="body", code="bad_encoding"
        ) from exc
    return out


def media_type(content_type: str) -> str:
    """The bare media type of a Content-Type header, lower case."""
    return (content_type or "").split(";")[0].strip().lower()


def is_protobuf(media: str) -> bool:
    return media in (PROTOBUF, "application/protobuf")


def protobuf_parse(message, body: bytes, what: str):
    """Fill an OTLP request message from protobuf bytes, or refuse the body naming `what`."""
    try:
        message.ParseFromString(body)
    except (DecodeError, RuntimeWarning, ValueError) as exc:
        raise InvalidInput("body", f"Not a valid {what} protobuf message.") from exc
    return message


def unsupported_media() -> ApplicationError:
    return ApplicationError(
        f"Content-Type must be {PROTOBUF} or {JSON}.",
        field="content-type",
        code="unsupported_media_type",
        status_code=415,
    )


def any_value(value):
    """An OTLP AnyValue as a plain Python value."""
    which = value.WhichOneof("value")
    if which == "string_value":
        text = value.string_value
        return nul_free(text) if "\x00" in text else text
    if which == "int_value":
        return value.int_value
    if which == "double_value":
        return value.double_value
    if which == "bool_value":
        return value.bool_value
    if which == "array_value":
        return [any_value(item) for item in value.array_value.values]
    if which == "kvlist_value":
        return {kv.key: any_value(kv.value) for kv in value.kvlist_value.values}
    if which == "bytes_value":
        return base64.b64encode(value.bytes_value).decode()
    return None


def attributes_dict(key_values) -> dict:
    out = {}
    for kv in key_values:
        value = kv.value
        # Most attributes are non-empty strings: read them without asking which value is set.
        # Any other value (an empty string too) reads "" here and goes through any_value.
        text = value.string_value
        if text:
            out[kv.key] = nul_free(text) if "\x00" in text else text
        else:
            out[kv.key] = any_value(value)
    return out


_UNIX_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def time_from_nanos(nanos: int) -> datetime | None:
    """OTLP's nanoseconds since the epoch as an aware datetime; 0 means unset. Cut to the
    microsecond, as PostgreSQL keeps it."""
    if not nanos:
        return None
    # Exact integer arithmetic, and a third cheaper than fromtimestamp or timedelta(0, 0, us).
    return _UNIX_EPOCH + _MICROSECOND * (nanos // 1000)

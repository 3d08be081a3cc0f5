"""A local OTLP/HTTP relay: the agent's stock exporter sends to it, it tags every trace with
the eval run and forwards to evalsite with the CI token.

Only the resource of each batch is touched. Protobuf bodies are edited on the wire, without
a protobuf library: a second `resource` field appended to a ResourceSpans message is merged
into the first by every protobuf parser (embedded messages merge, repeated fields append), so
the run's attribute joins the resource's own. JSON bodies get the attribute added. A gzip
body is unpacked to be edited and packed again.
"""

from __future__ import annotations

import gzip
import json
import threading
import urllib.error
import urllib.parse
import urllib.request
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TRACES_PATH = "/v1/traces"
MAX_BODY_BYTES = 64 * 1024 * 1024
# Headers passed on to evalsite as the exporter sent them; the token is the relay's own.
FORWARDED_HEADERS = ("content-type", "content-encoding", "x-evalsite-project")


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _read_varint(data: bytes, position: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if position >= len(data):
            raise ValueError("truncated varint")
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, position
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _resource_with(attributes: dict[str, str]) -> bytes:
    """A Resource message holding `attributes` as string KeyValues."""
    pairs = b"".join(
        _field(1, _field(1, key.encode()) + _field(2, _field(1, value.encode())))
        for key, value in attributes.items()
    )
    return _field(1, pairs)


def tag_protobuf(body: bytes, attributes: dict[str, str]) -> bytes:
    """ExportTraceServiceRequest with `attributes` added to every ResourceSpans' resource."""
    extra = _resource_with(attributes)
    out = bytearray()
    position = 0
    while position < len(body):
        start = position
        key, position = _read_varint(body, position)
        number, wire_type = key >> 3, key & 7
        if wire_type == 2:
            length, position = _read_varint(body, position)
            end = position + length
            if end > len(body):
                raise ValueError("truncated field")
            if number == 1:  # resource_spans
                out += _field(1, body[position:end] + extra)
            else:
                out += body[start:end]
            position = end
        elif wire_type == 0:
            _, position = _read_varint(body, position)
            out += body[start:position]
        elif wire_type in (1, 5):
            position += 8 if wire_type == 1 else 4
            out += body[start:position]
        else:
            raise ValueError(f"unexpected wire type {wire_type}")
    return bytes(out)


def tag_json(body: bytes, attributes: dict[str, str]) -> bytes:
    """The OTLP/JSON request with `attributes` set on every resource."""
    request = json.loads(body)
    for resource_spans in request.get("resourceSpans") or []:
        resource = resource_spans.setdefault("resource", {})
        kept = [a for a in resource.get("attributes") or [] if a.get("key") not in attributes]
        added = [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()]
        resource["attributes"] = kept + added
    return json.dumps(request).encode()


class OtlpRelay:
    """An OTLP/HTTP endpoint on this machine that forwards to `target_url`/v1/traces."""

    def __init__(
        self,
        target_url: str,
        token: str,
        attributes: dict[str, str],
        host: str = "127.0.0.1",
        port: int = 0,
        timeout: float = 30.0,
    ):
        if urllib.parse.urlsplit(target_url).scheme not in ("http", "https"):
            raise ValueError(f"{target_url!r} is not an http(s) URL.")
        self.target = target_url.rstrip("/") + TRACES_PATH
        self.token = token
        self.attributes = attributes
        self.timeout = timeout
        self.forwarded = 0
        self.server = ThreadingHTTPServer((host, port), self._handler())
        self.thread: threading.Thread | None = None

    @property
    def endpoint(self) -> str:
        """The URL to give the exporter (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)."""
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}{TRACES_PATH}"

    def start(self) -> OtlpRelay:
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def tagged(self, body: bytes, headers: dict[str, str]) -> bytes:
        """The export request with the run's attributes; ValueError when it is not OTLP."""
        zipped = headers.get("content-encoding", "").lower() == "gzip"
        try:
            body = gzip.decompress(body) if zipped else body
            if "json" in headers.get("content-type", ""):
                body = tag_json(body, self.attributes)
            else:
                body = tag_protobuf(body, self.attributes)
            return gzip.compress(body) if zipped else body
        except (OSError, EOFError, zlib.error, UnicodeDecodeError) as exc:
            raise ValueError(str(exc)) from exc

    def forward(self, body: bytes, headers: dict[str, str]) -> tuple[int, bytes, str]:
        """Send a tagged request to evalsite; its answer, as it came."""
        sent = {name: headers[name] for name in FORWARDED_HEADERS if name in headers}
        sent["Authorization"] = f"Bearer {self.token}"
        # The scheme was checked when the relay was made.
        request = urllib.request.Request(self.target, data=body, headers=sent, method="POST")  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                self.forwarded += 1
                return response.status, response.read(), response.headers.get("Content-Type", "")
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read(), exc.headers.get("Content-Type", "")

    def _handler(self):
        relay = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the http.server name
                if self.path.split("?")[0] != TRACES_PATH:
                    return self._answer(404, b'{"message": "Only /v1/traces is relayed."}')
                length = int(self.headers.get("Content-Length") or 0)
                if length > MAX_BODY_BYTES:
                    return self._answer(413, b'{"message": "The body is too large."}')
                headers = {k.lower(): v for k, v in self.headers.items()}
                try:
                    body = relay.tagged(self.rfile.read(length), headers)
                except ValueError as exc:
                    message = json.dumps({"message": f"Not an OTLP trace export: {exc}"})
                    return self._answer(400, message.encode())
                try:
                    status, answer, kind = relay.forward(body, headers)
                except OSError as exc:
                    message = json.dumps({"message": f"evalsite did not answer: {exc}"})
                    return self._answer(502, message.encode())
                return self._answer(status, answer, kind)

            def _answer(self, status: int, body: bytes, kind: str = "application/json"):
                self.send_response(status)
                self.send_header("Content-Type", kind or "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format, *args):  # noqa: A002 - the http.server signature
                pass

        return Handler

"""A local webhook receiver: records each POST and answers with scripted status codes."""

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    headers: dict
    body: bytes


@dataclass
class ReceiverState:
    statuses: list[int] = field(default_factory=list)  # next answers; then 200
    received: list[Received] = field(default_factory=list)


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - quiet in tests
        return

    def do_POST(self):
        state: ReceiverState = self.server.state
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        state.received.append(Received(dict(self.headers.items()), body))
        status = state.statuses.pop(0) if state.statuses else 200
        reply = b'{"ok": true}' if status < 300 else b"busy"
        self.send_response(status)
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


class Receiver:
    def __init__(self):
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.server.state = ReceiverState()
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}/hooks/evalsite"

    @property
    def state(self) -> ReceiverState:
        return self.server.state

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

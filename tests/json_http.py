"""The base of the local fake servers tests and benches talk to (the OpenAI-compatible fakes,
a scripted Messages server): quiet, answering JSON, served from a thread on 127.0.0.1.
Standard library only."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class JsonHandler(BaseHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - quiet: tests and benches read counts
        return

    def send_json(self, status: int, payload: dict) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class LocalServer:
    """Context manager serving `handler` on a free port of 127.0.0.1 from a thread:
    `with Fake() as server: server.base_url` (ending in `path`); `server.requests` holds what
    the handler noted of each request."""

    handler: type[BaseHTTPRequestHandler]
    path = ""

    def __enter__(self):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self.handler)
        self.httpd.requests = []
        self.serving(self.httpd)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        host, port = self.httpd.server_address
        self.base_url = f"http://{host}:{port}{self.path}"
        return self

    def serving(self, httpd: ThreadingHTTPServer) -> None:
        """What the handler reads off its server beside `requests` (a script's options)."""

    @property
    def requests(self) -> list[dict]:
        return self.httpd.requests

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

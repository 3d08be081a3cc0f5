"""The base of the local fake servers tests and benches talk to (the OpenAI-compatible fakes,
a scripted Messages server): quiet, and answering JSON. Standard library only."""

import json
from http.server import BaseHTTPRequestHandler


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

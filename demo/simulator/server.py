"""A local stand-in for the Anthropic Messages API, spoken to through the real `anthropic` SDK,
and for OpenAI's Chat Completions (POST /v1/chat/completions) through the real `openai` SDK.

POST /v1/messages answers in the shape the SDK expects (usage with cache read/creation counts),
or with the API's error shapes (429/500/529 with retry-after) or a hung connection, as the knobs
say. POST /v1/messages/batches and friends cover the Message Batches API. GET/POST
/_simulator/knobs reads or changes the knobs of a running server; GET /_simulator/stats counts.
"""

import contextlib
import json
import re
import threading
import time
import uuid
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from demo.simulator.replies import (
    ERROR_TYPES,
    SimulatorState,
    chat_answer,
    message_answer,
)


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment else None


class SimulatorHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out as two writes; with Nagle's algorithm the body waited for the
    # client's delayed ACK (about 40 ms a call on top of the simulated latency).
    disable_nagle_algorithm = True
    server: "SimulatorServer"

    def log_message(self, format, *args):  # noqa: A002 - quiet: tests and benches read counts
        return

    def _send(self, status: int, payload, headers: dict | None = None, raw: bytes | None = None):
        body = raw if raw is not None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("request-id", f"req_sim_{uuid.uuid4().hex[:16]}")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(body)

    def _error(self, status: int, error_type: str, message: str, headers: dict | None = None):
        payload = {"type": "error", "error": {"type": error_type, "message": message}}
        self._send(status, payload, headers)

    def _body(self) -> dict:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b"{}"
        return json.loads(raw or b"{}")

    def do_GET(self):
        state = self.server.state
        if self.path == "/_simulator/knobs":
            return self._send(200, asdict(state.knobs))
        if self.path == "/_simulator/stats":
            return self._send(200, dict(state.counts))
        match = re.fullmatch(r"/v1/messages/batches/([\w-]+)(/results)?", self.path.split("?")[0])
        if match:
            batch = state.batches.get(match.group(1))
            if batch is None:
                return self._error(404, "not_found_error", "No such batch.")
            if match.group(2):
                lines = "\n".join(json.dumps(r) for r in batch["results"]) + "\n"
                return self._send(200, None, raw=lines.encode())
            return self._send(200, self._batch_view(batch))
        return self._error(404, "not_found_error", f"No route for GET {self.path}.")

    def do_POST(self):
        state = self.server.state
        try:
            body = self._body()
        except ValueError:
            return self._error(400, "invalid_request_error", "Body is not JSON.")
        if self.path == "/_simulator/knobs":
            try:
                state.set(**body)
            except ValueError as exc:
                return self._error(400, "invalid_request_error", str(exc))
            return self._send(200, asdict(state.knobs))
        if self.path.split("?")[0] == "/v1/messages":
            return self._messages(body)
        if self.path.split("?")[0] == "/v1/chat/completions":
            if "model" not in body or "messages" not in body:
                return self._error(400, "invalid_request_error", "model and messages: required")
            return self._messages(body, chat=True)
        if self.path.split("?")[0] == "/v1/messages/batches":
            return self._batch_create(body)
        return self._error(404, "not_found_error", f"No route for POST {self.path}.")

    def _messages(self, body: dict, chat: bool = False):
        state = self.server.state
        with state.lock:
            state.counts["requests"] += 1
            state.counts["chat_requests" if chat else "messages_requests"] += 1
            state.in_flight += 1
            state.counts["max_in_flight"] = max(state.counts["max_in_flight"], state.in_flight)
            latency = state.knobs.latency_ms
        try:
            return self._answer_or_fail(body, latency, chat)
        finally:
            with state.lock:
                state.in_flight -= 1

    def _answer_or_fail(self, body: dict, latency: int, chat: bool = False):
        state = self.server.state
        for required in () if chat else ("model", "max_tokens", "messages"):
            if required not in body:
                return self._error(400, "invalid_request_error", f"{required}: Field required")
        outcome = state.next_outcome()
        if outcome == "timeout":
            with state.lock:
                state.counts["timeouts"] += 1
                hang = state.knobs.timeout_hang_s
            time.sleep(hang)
            return self._error(504, "timeout_error", "The simulated judge hung up.")
        time.sleep(latency / 1000)
        if outcome.isdecimal():
            status = int(outcome)
            with state.lock:
                state.counts[f"errors_{status}"] += 1
                retry_after = state.knobs.retry_after_s
            headers = {"retry-after": str(retry_after)} if status in (429, 529) else None
            error_type = ERROR_TYPES.get(status, "api_error")
            return self._error(status, error_type, f"Simulated {error_type}.", headers)
        answer = chat_answer(state, body, outcome) if chat else message_answer(state, body, outcome)
        with state.lock:
            state.counts["answers"] += 1
            if outcome == "malformed":
                state.counts["malformed"] += 1
        return self._send(200, answer)

    def _batch_create(self, body: dict):
        state = self.server.state
        requests = body.get("requests") or []
        if not requests:
            return self._error(400, "invalid_request_error", "requests: at least one is required")
        now = datetime.now(UTC)
        batch = {
            "id": f"msgbatch_sim_{uuid.uuid4().hex[:20]}",
            "created_at": now,
            "ended_at": None,
            "requests": requests,
            "results": [],
        }
        with state.lock:
            state.batches[batch["id"]] = batch
            state.counts["batches"] += 1
            delay = state.knobs.batch_latency_ms / 1000
        threading.Thread(target=self._batch_process, args=(batch, delay), daemon=True).start()
        return self._send(200, self._batch_view(batch))

    def _batch_process(self, batch: dict, delay: float) -> None:
        state = self.server.state
        time.sleep(delay)
        results = []
        for request in batch["requests"]:
            outcome = state.next_outcome()
            if outcome.isdecimal() or outcome == "timeout":
                result = {
                    "type": "errored",
                    "error": {
                        "type": "error",
                        "error": {"type": "api_error", "message": "Simulated batch error."},
                    },
                }
            else:
                result = {
                    "type": "succeeded",
                    "message": message_answer(state, request["params"], outcome),
                }
            results.append({"custom_id": request["custom_id"], "result": result})
        with state.lock:
            state.counts["batch_requests"] += len(results)
        batch["results"] = results
        batch["ended_at"] = datetime.now(UTC)

    def _batch_view(self, batch: dict) -> dict:
        ended = batch["ended_at"] is not None
        succeeded = sum(1 for r in batch["results"] if r["result"]["type"] == "succeeded")
        host, port = self.server.server_address[:2]
        return {
            "id": batch["id"],
            "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": {
                "processing": 0 if ended else len(batch["requests"]),
                "succeeded": succeeded,
                "errored": len(batch["results"]) - succeeded,
                "canceled": 0,
                "expired": 0,
            },
            "created_at": _iso(batch["created_at"]),
            "ended_at": _iso(batch["ended_at"]),
            "expires_at": _iso(batch["created_at"] + timedelta(days=1)),
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": (
                f"http://{host}:{port}/v1/messages/batches/{batch['id']}/results" if ended else None
            ),
        }


class SimulatorServer(ThreadingHTTPServer):
    daemon_threads = True
    # Benchmarks keep thousands of calls in flight; the default backlog of 5 would refuse them.
    request_queue_size = 4096

    def __init__(self, address, state: SimulatorState):
        self.state = state
        super().__init__(address, SimulatorHandler)


class SimulatorHandle:
    """A simulator running in a background thread of this process."""

    def __init__(self, server: SimulatorServer, thread: threading.Thread):
        self._server = server
        self._thread = thread
        host, port = server.server_address[:2]
        self.base_url = f"http://{host}:{port}"
        self.port = port

    @property
    def state(self) -> SimulatorState:
        return self._server.state

    def set(self, **knobs) -> None:
        """Change knobs while it runs (latency_ms, error_rate, malformed_rate, flip_rate, ...)."""
        self.state.set(**knobs)

    @property
    def request_count(self) -> int:
        """POST /v1/messages requests received, whatever their outcome."""
        return self.state.counts["requests"]

    def stats(self) -> dict:
        with self.state.lock:
            return dict(self.state.counts)

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def start_simulator(host: str = "127.0.0.1", port: int = 0, **knobs) -> SimulatorHandle:
    """Start the simulated judge in a thread (port 0 picks a free one) and return its handle."""
    server = SimulatorServer((host, port), SimulatorState(**knobs))
    thread = threading.Thread(target=server.serve_forever, name="judge-simulator", daemon=True)
    thread.start()
    return SimulatorHandle(server, thread)

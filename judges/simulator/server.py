"""A local stand-in for the Anthropic Messages API, spoken to through the real `anthropic` SDK,
and for OpenAI's Chat Completions (POST /v1/chat/completions) through the real `openai` SDK.

POST /v1/messages answers in the shape the SDK expects (usage with cache read/creation counts),
or with the API's error shapes (429/500/529 with retry-after) or a hung connection, as the knobs
say. POST /v1/messages/batches and friends cover the Message Batches API. GET/POST
/_simulator/knobs reads or changes the knobs of a running server; GET /_simulator/stats counts.
"""

import contextlib
import hashlib
import json
import random
import re
import threading
import time
import uuid
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from judges.simulator.criteria import (
    CLASSIFY_MARKER,
    GENERATE_MARKER,
    criteria_propose,
    question_is_generic,
    task_type_guess,
)
from judges.simulator.scoring import Finding, score_prompt

ERROR_TYPES = {
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
MALFORMED_REPLIES = (
    '{"evaluation_summary": {"score": ',
    "I looked at the trace and the agent mostly did fine, though some calls were odd.",
    '{"score": "high", "reason": "The answer looks right"}',
    "Score: excellent",
)
SCORE_RANGE = re.compile(
    r"(?:from|between)\s+(-?\d+(?:\.\d+)?)\s+(?:to|and)\s+(-?\d+(?:\.\d+)?)", re.IGNORECASE
)
CRITERION_LINE = re.compile(r"^\s*Q\d+[:.]\s*(.+?)\s*$", re.MULTILINE)


@dataclass
class Knobs:
    latency_ms: int = 0
    error_rate: float = 0.0
    error_statuses: list[int] = field(default_factory=lambda: [429, 500, 529])
    timeout_rate: float = 0.0
    timeout_hang_s: float = 30.0
    malformed_rate: float = 0.0
    flip_rate: float = 0.0
    retry_after_s: int = 1
    batch_latency_ms: int = 200
    # Outcomes for the next requests, in order: "ok", "429", "500", "529", "timeout",
    # "malformed", "flip". Tests use it to inject exact failures.
    script: list[str] = field(default_factory=list)


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


class SimulatorState:
    """Knobs and counters shared by the handler threads."""

    def __init__(self, **knobs):
        self.lock = threading.Lock()
        self.knobs = Knobs()
        self.set(**knobs)
        self.counts: Counter = Counter()
        self.in_flight = 0
        self.answers_per_prompt: Counter = Counter()
        self.cached_systems: set[str] = set()
        self.batches: dict[str, dict] = {}

    def set(self, **knobs) -> None:
        with self.lock:
            for name, value in knobs.items():
                if not hasattr(self.knobs, name):
                    raise ValueError(f"unknown simulator knob {name!r}")
                setattr(self.knobs, name, value)

    def next_outcome(self) -> str:
        """Pick what happens to the next request: a scripted outcome first, then the rates."""
        with self.lock:
            knobs = self.knobs
            if knobs.script:
                return knobs.script.pop(0)
            roll = random.random()
            if roll < knobs.error_rate:
                return str(random.choice(knobs.error_statuses))
            roll -= knobs.error_rate
            if roll < knobs.timeout_rate:
                return "timeout"
            roll -= knobs.timeout_rate
            if roll < knobs.malformed_rate:
                return "malformed"
            return "ok"

    def should_flip(self, prompt_hash: str) -> bool:
        """Identical prompts alternate answers: every second answer flips at flip_rate."""
        with self.lock:
            seen = self.answers_per_prompt[prompt_hash]
            self.answers_per_prompt[prompt_hash] += 1
            rate = self.knobs.flip_rate
        if seen % 2 == 0:
            return False
        # Seeded by the prompt, so the same trace flips the same way on every run.
        return random.Random(f"{prompt_hash}:{seen}").random() < rate

    def cache_usage(self, system_text: str, cacheable: bool) -> tuple[int, int]:
        """(cache_read, cache_creation) tokens for the system block."""
        if not cacheable or not system_text:
            return 0, 0
        key = hashlib.sha256(system_text.encode()).hexdigest()
        with self.lock:
            hit = key in self.cached_systems
            self.cached_systems.add(key)
        tokens = _tokens(system_text)
        return (tokens, 0) if hit else (0, tokens)


def _system_text(system) -> tuple[str, bool]:
    if isinstance(system, str):
        return system, False
    blocks = system or []
    text = "\n".join(b.get("text", "") for b in blocks if isinstance(b, dict))
    cacheable = any(isinstance(b, dict) and b.get("cache_control") for b in blocks)
    return text, cacheable


def _user_text(messages) -> str:
    parts = []
    for message in messages or []:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        else:
            parts.extend(b.get("text", "") for b in content or [] if isinstance(b, dict))
    return "\n".join(parts)


def _score_range(prompt: str) -> tuple[float, float]:
    match = SCORE_RANGE.search(prompt)
    if not match:
        return 0.0, 1.0
    low, high = float(match.group(1)), float(match.group(2))
    return (low, high) if low < high else (0.0, 1.0)


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def reply_compose(prompt: str, finding: Finding, flip: bool) -> str:
    """Answer in the format the prompt asks for, with the verdict the rules gave."""
    passed = finding.passed != flip
    low, high = _score_range(prompt)
    score = _number(high if passed else low)
    why = (
        "Every tool call was needed, well-formed and grounded in earlier context."
        if passed
        else ("; ".join(finding.reasons) or "The trajectory has a problem the answer hides") + "."
    )
    cited = finding.cited_spans
    if cited:
        why += " See spans: " + ", ".join(cited) + "."
    if '"evaluation_summary"' in prompt:
        return json.dumps({"evaluation_summary": {"score": score, "explanation": why}})
    if '"criteria"' in prompt and '"met"' in prompt:
        questions = CRITERION_LINE.findall(prompt) or ["Was the task completed correctly?"]
        results = [
            {"question": q, "met": finding.passed or question_is_generic(q)} for q in questions
        ]
        for result in results if finding.cited_spans else []:
            result["span"] = finding.cited_spans[0]
        if flip:
            results[0]["met"] = not results[0]["met"]
        return json.dumps({"criteria": results})
    if "Score:" in prompt:
        return f"{why}\nScore: {score}"
    if '"reason"' in prompt:
        return json.dumps({"score": score, "reason": why})
    return "1.0" if passed else "0.0"


def message_answer(state: SimulatorState, body: dict, outcome: str = "ok") -> dict:
    """A Messages API response body for a request body (no errors: the caller decides those)."""
    system_text, cacheable = _system_text(body.get("system"))
    user_text = _user_text(body.get("messages"))
    prompt = f"{system_text}\n{user_text}"
    prompt_hash = hashlib.sha256(prompt.encode()).hexdigest()
    if outcome == "malformed":
        text = random.choice(MALFORMED_REPLIES)
    elif GENERATE_MARKER in system_text:
        text = criteria_propose(user_text)
    elif CLASSIFY_MARKER in system_text:
        text = task_type_guess(user_text)
    else:
        flip = outcome == "flip" or state.should_flip(prompt_hash)
        text = reply_compose(prompt, score_prompt(user_text), flip)
    cache_read, cache_write = state.cache_usage(system_text, cacheable)
    uncached = _tokens(user_text) + (0 if cacheable else _tokens(system_text))
    return {
        "id": f"msg_sim_{uuid.uuid4().hex[:24]}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "claude-sonnet-4-5"),
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": uncached,
            "output_tokens": _tokens(text),
            "cache_read_input_tokens": cache_read,
            "cache_creation_input_tokens": cache_write,
        },
    }


def messages_body_from_chat(body: dict) -> dict:
    """A Chat Completions body as the Messages body it stands for: system messages lifted out."""
    messages = body.get("messages") or []
    system = "\n".join(
        m.get("content") or ""
        for m in messages
        if isinstance(m, dict) and m.get("role") == "system"
    )
    return {
        "model": body.get("model"),
        "max_tokens": body.get("max_tokens") or body.get("max_completion_tokens") or 1024,
        "system": system,
        "messages": [m for m in messages if isinstance(m, dict) and m.get("role") != "system"],
    }


def chat_answer(state: SimulatorState, body: dict, outcome: str = "ok") -> dict:
    """A Chat Completions response body; cached prompt tokens as OpenAI reports them."""
    message = message_answer(state, messages_body_from_chat(body), outcome)
    usage = message["usage"]
    return {
        "id": f"chatcmpl-sim{uuid.uuid4().hex[:20]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": message["model"],
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": message["content"][0]["text"]},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": usage["input_tokens"],
            "completion_tokens": usage["output_tokens"],
            "total_tokens": usage["input_tokens"] + usage["output_tokens"],
            "prompt_tokens_details": {"cached_tokens": 0},
        },
    }


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment else None


class SimulatorHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
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
        if outcome.isdigit():
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
            if outcome.isdigit() or outcome == "timeout":
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
    # Benchmarks keep hundreds of calls in flight; the default backlog of 5 would refuse them.
    request_queue_size = 1024

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

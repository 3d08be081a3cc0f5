"""What the simulated judge answers: its knobs and counters, and the reply to a Messages or a
Chat Completions request (a score the prompt's trace earns, flipped or malformed as asked)."""

import hashlib
import json
import random
import re
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field

from demo.simulator.criteria import (
    CLASSIFY_MARKER,
    GENERATE_MARKER,
    criteria_propose,
    question_is_generic,
    task_type_guess,
)
from demo.simulator.few_shot import finding_with_examples
from demo.simulator.pairwise import is_pairwise_prompt, pairwise_reply
from demo.simulator.scoring import Finding, score_prompt
from demo.simulator.topic_names import NAME_MARKER, topic_name_guess

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
    elif NAME_MARKER in system_text:
        text = topic_name_guess(user_text)
    elif is_pairwise_prompt(system_text):
        flip = outcome == "flip" or state.should_flip(prompt_hash)
        text = pairwise_reply(system_text, user_text, flip)
    else:
        flip = outcome == "flip" or state.should_flip(prompt_hash)
        midpoint = sum(_score_range(prompt)) / 2
        finding = finding_with_examples(system_text, user_text, score_prompt(user_text), midpoint)
        text = reply_compose(prompt, finding, flip)
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

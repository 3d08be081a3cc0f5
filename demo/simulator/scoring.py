"""How the simulated judge decides: simple visible rules read from the trace in the prompt.

It reads the prompt as a model would: the task wherever the prompt states it, then each step in
order. A trace fails when a tool errored (or came back empty), no later call of that tool
succeeded, and the agent still answered confidently; when the same tool was called again with
identical input right after a call that did not fail; or when an identifier-like tool
parameter (an order or flight id, a file path) appears nowhere earlier in the prompt (task,
context, earlier steps and outputs); or when the prompt says the run stopped truncated,
refused, on its step limit or on an error. Otherwise it passes. Prerequisites, dates and text
aimed at the judge are beyond it: there it disagrees with the red flags, honestly, and the
disagreement routes the trace to people.
"""

import json
import re
from dataclasses import dataclass, field

from traces.stop_reasons import UNCLEAN_KINDS, stop_reason_normalize

TRACE_OPEN = "<untrusted_trace>"
TRACE_CLOSE = "</untrusted_trace>"
HEDGE_WORDS = (
    "sorry",
    "unable",
    "couldn't",
    "could not",
    "can't",
    "cannot",
    "failed",
    "error",
    "not able",
    "try again",
    "unfortunately",
)


@dataclass
class Finding:
    passed: bool
    reasons: list[str] = field(default_factory=list)
    cited_spans: list[str] = field(default_factory=list)


def trace_text_extract(prompt: str) -> str:
    """The fenced trace in the prompt, or the whole prompt when there is no fence."""
    start = prompt.find(TRACE_OPEN)
    end = prompt.rfind(TRACE_CLOSE)
    if start == -1 or end == -1 or end < start:
        return prompt
    return prompt[start + len(TRACE_OPEN) : end].strip()


def _walk(node: dict, out: list[dict]) -> None:
    out.append(node)
    for child in node.get("children") or []:
        if isinstance(child, dict):
            _walk(child, out)


# Ids mix letters and digits with no spaces (A-88213, UA1532, evt_5521); free text, plain
# numbers and dates are rephrased by agents too often to prove a hallucination.
IDENTIFIER = re.compile(r"^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9][A-Za-z0-9_.:-]{2,63}$")
# File paths name one thing just as exactly (src/orders/handlers.py).
PATH_LIKE = re.compile(r"^[\w.-]+(?:/[\w.-]+)+$")
DATE_LIKE = re.compile(r"^\d{4}-\d{2}-\d{2}")


def _identifiers(value) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _identifiers(v)]
    if isinstance(value, list):
        return [s for v in value for s in _identifiers(v)]
    if isinstance(value, bool) or value is None:
        return []
    text = str(value).strip()
    exact = (IDENTIFIER.match(text) and not DATE_LIKE.match(text)) or PATH_LIKE.match(text)
    return [text] if exact else []


def _text(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _is_empty(output) -> bool:
    if output in (None, "", [], {}):
        return True
    if isinstance(output, dict):
        return all(v in (None, "", [], {}) for v in output.values())
    return False


def _hedged(answer: str) -> bool:
    lowered = answer.lower()
    return any(word in lowered for word in HEDGE_WORDS)


@dataclass
class Call:
    """One tool call as the prompt shows it."""

    name: str
    arguments: object
    result: object = None
    failed: bool = False
    # Everything the prompt showed before this call: the task, earlier steps and results.
    earlier: str = ""


@dataclass
class Reading:
    task: str = ""
    answer: str = ""
    calls: list[Call] = field(default_factory=list)
    # As the prompt states it: "max_tokens (truncated)".
    stop: str = ""


def _base(name: str) -> str:
    return re.sub(r"#\d+$", "", name)


def _message_items(messages, key: str) -> list[dict]:
    """The tool calls or tool results of a model step's compact messages."""
    if not isinstance(messages, list):
        return []
    return [
        item
        for message in messages
        if isinstance(message, dict)
        for item in message.get(key) or []
        if isinstance(item, dict)
    ]


def _tree_reading(tree: dict, before: str) -> Reading:
    """The calls of a span tree: tool steps, and tool calls a model step made when no tool
    step shows them (results then come back in later model inputs)."""
    nodes: list[dict] = []
    _walk(tree, nodes)
    task = _text(tree.get("task") or tree.get("input") or "")
    reading = Reading(
        task=task,
        answer=_text(tree.get("final_answer") or tree.get("output") or ""),
        stop=str(tree.get("stop_reason") or ""),
    )
    seen = [before, task, _text(tree.get("context") or "")]
    has_tool_steps = any(node.get("type") == "tool" for node in nodes)
    pending: dict[str, Call] = {}
    for node in nodes[1:] if nodes and "step" not in nodes[0] else nodes:
        if node.get("type") == "tool":
            output = node.get("result", node.get("output"))
            reading.calls.append(
                Call(
                    str(node.get("name", "?")),
                    node.get("arguments", node.get("input")),
                    output,
                    bool(node.get("error")) or _is_empty(output),
                    "\n".join(seen),
                )
            )
        elif not has_tool_steps:
            for result in _message_items(node.get("new_input"), "tool_results"):
                call = pending.pop(str(result.get("call_id")), None)
                if call is not None:
                    call.result = result.get("result")
                    call.failed = bool(result.get("error")) or _is_empty(call.result)
            for request in _message_items(node.get("output"), "tool_calls"):
                call = Call(str(request.get("tool")), request.get("arguments"))
                call.earlier = "\n".join(seen)
                reading.calls.append(call)
                pending[str(request.get("call_id"))] = call
        seen.append(_text({k: v for k, v in node.items() if k != "children"}))
    return reading


TRANSCRIPT_CALL = re.compile(r"^(?:\[step \d+\] )?TOOL CALL (\S+)(?: \(call_id [^)]*\))?: (.*)$")
TRANSCRIPT_OUTCOME = re.compile(r"^(?:\[step \d+\] )?TOOL (RESULT|ERROR)(?: \S+)?: (.*)$")


def _transcript_reading(text: str, before: str) -> Reading:
    reading = Reading()
    seen = [before]
    for line in text.splitlines():
        if line.startswith("USER: ") and not reading.task:
            reading.task = line[len("USER: ") :]
        elif line.startswith("FINAL ANSWER: "):
            reading.answer = line[len("FINAL ANSWER: ") :]
        elif line.startswith("STOP REASON: "):
            reading.stop = line[len("STOP REASON: ") :]
        call = TRANSCRIPT_CALL.match(line)
        outcome = TRANSCRIPT_OUTCOME.match(line)
        if call:
            try:
                arguments = json.loads(call.group(2))
            except ValueError:
                arguments = call.group(2)
            reading.calls.append(Call(call.group(1), arguments, None, False, "\n".join(seen)))
        elif outcome and reading.calls:
            last = reading.calls[-1]
            last.failed = outcome.group(1) == "ERROR" or _is_empty(outcome.group(2).strip())
            last.result = outcome.group(2)
        seen.append(line)
    return reading


def score_reading(reading: Reading) -> Finding:
    """The rules, on what the prompt showed."""
    finding = Finding(passed=True)
    stopped = stop_reason_normalize(reading.stop.split(" (")[0])
    if stopped in UNCLEAN_KINDS:
        finding.reasons.append(f"the run did not finish: it stopped with {reading.stop}")
    previous: Call | None = None
    for index, call in enumerate(reading.calls):
        name = call.name
        key = _base(name) + json.dumps(call.arguments, sort_keys=True, default=str)
        previous_key = (
            _base(previous.name) + json.dumps(previous.arguments, sort_keys=True, default=str)
            if previous
            else ""
        )
        # Calling again after a failure is a retry, not a loop.
        if previous is not None and key == previous_key and not previous.failed:
            finding.reasons.append(f"repeated identical call to {_base(name)}")
            finding.cited_spans.append(name)
        previous = call
        for value in _identifiers(call.arguments):
            if value not in call.earlier:
                finding.reasons.append(f"{name} used {value!r}, found nowhere earlier")
                finding.cited_spans.append(name)
                break
        recovered = any(
            _base(later.name) == _base(name) and not later.failed
            for later in reading.calls[index + 1 :]
        )
        if call.failed and not recovered and reading.answer and not _hedged(reading.answer):
            finding.reasons.append(f"{name} failed but the answer is confident")
            finding.cited_spans.append(name)
    finding.passed = not finding.reasons
    if finding.passed and reading.calls:
        # A model names the evidence for a pass too: the call the answer rests on.
        finding.cited_spans.append(reading.calls[-1].name)
    finding.cited_spans = list(dict.fromkeys(finding.cited_spans))
    return finding


def score_tree(tree: dict, before: str = "") -> Finding:
    """Apply the rules to a span tree as the prompt shows it; `before` is the prompt's text
    outside the trace (the task a template put there, for one)."""
    return score_reading(_tree_reading(tree, before))


def score_transcript(text: str, before: str = "") -> Finding:
    """Apply the rules to a transcript (`TOOL CALL name: {...}` / `TOOL ERROR ...` lines)."""
    return score_reading(_transcript_reading(text, before))


def score_prompt(prompt: str) -> Finding:
    """Score whatever trace the prompt carries (span tree JSON, or a transcript)."""
    body = trace_text_extract(prompt)
    before = prompt.split(TRACE_OPEN, 1)[0] if TRACE_OPEN in prompt else ""
    # The trace may be introduced by a note before the JSON; start at the first brace.
    brace = body.find("{")
    if brace != -1:
        try:
            tree = json.loads(body[brace:])
        except ValueError:
            tree = None
        if isinstance(tree, dict):
            return score_tree(tree, before)
    return score_transcript(body, before)

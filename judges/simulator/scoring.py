"""How the simulated judge decides: simple visible rules read from the trace in the prompt.

A trace fails when a tool errored (or came back empty) and the agent still answered confidently,
when the same tool was called again with identical input and no other tool call in between, or
when an identifier-like tool parameter (an order or flight id, a file path)
appears nowhere earlier in the trace (task, context or earlier outputs). Otherwise it passes.
"""

import json
import re
from dataclasses import dataclass, field

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


def score_tree(tree: dict) -> Finding:
    """Apply the rules to a nested span tree `{name, type, input, output, children}`."""
    nodes: list[dict] = []
    _walk(tree, nodes)
    final_answer = _text(tree.get("output") or "")
    seen_text = [_text(tree.get("input") or ""), _text(tree.get("context") or "")]
    previous_call = ""
    finding = Finding(passed=True)

    for node in nodes[1:]:
        name = str(node.get("name", "?"))
        if node.get("type") == "tool":
            call_key = name + json.dumps(node.get("input"), sort_keys=True, default=str)
            if call_key == previous_call:
                finding.reasons.append(f"repeated identical call to {name}")
                finding.cited_spans.append(name)
            previous_call = call_key
            earlier = "\n".join(seen_text)
            for value in _identifiers(node.get("input")):
                if value not in earlier:
                    finding.reasons.append(f"{name} used {value!r}, found nowhere earlier")
                    finding.cited_spans.append(name)
                    break
            failed = bool(node.get("error")) or _is_empty(node.get("output"))
            if failed and final_answer and not _hedged(final_answer):
                finding.reasons.append(f"{name} failed but the answer is confident")
                finding.cited_spans.append(name)
        seen_text.append(_text(node.get("input") or ""))
        seen_text.append(_text(node.get("output") or ""))

    finding.passed = not finding.reasons
    finding.cited_spans = list(dict.fromkeys(finding.cited_spans))
    return finding


def score_transcript(text: str) -> Finding:
    """Apply the rules to a transcript (`TOOL CALL name: {...}` / `TOOL ERROR: ...` lines)."""
    finding = Finding(passed=True)
    calls = re.findall(r"^TOOL CALL (\S+): (.*)$", text, flags=re.MULTILINE)
    if len(calls) != len(set(calls)):
        finding.reasons.append("repeated identical tool call")
    answer = re.search(r"^FINAL ANSWER: (.*)$", text, flags=re.MULTILINE)
    if "TOOL ERROR" in text and answer and not _hedged(answer.group(1)):
        finding.reasons.append("a tool failed but the answer is confident")
    finding.cited_spans = [name for name, _ in calls][:3] if finding.reasons else []
    finding.passed = not finding.reasons
    return finding


def score_prompt(prompt: str) -> Finding:
    """Score whatever trace the prompt carries (span tree JSON, or a transcript)."""
    body = trace_text_extract(prompt)
    # The trace may be introduced by a note before the JSON; start at the first brace.
    brace = body.find("{")
    if brace != -1:
        try:
            tree = json.loads(body[brace:])
        except ValueError:
            tree = None
        if isinstance(tree, dict):
            return score_tree(tree)
    return score_transcript(body)

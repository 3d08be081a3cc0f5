"""How the simulated judge follows corrected examples in a rubric, as a model given few-shot
examples does: a trajectory that calls the same tools in the same order as an example gets the
example's score. One visible rule, so an alignment proposal's effect can be measured."""

import json
import re
from dataclasses import replace

from demo.simulator.scoring import TRACE_OPEN, Finding, trace_text_extract

EXAMPLE = re.compile(
    r"^Example \d+: people scored it (?P<score>-?\d+(?:\.\d+)?)\b.*?\n"
    r"Tools called, in order: (?P<tools>.*)$",
    re.MULTILINE,
)
VALUE = re.compile(r"<untrusted_value>(.*?)</untrusted_value>")
REPEAT_SUFFIX = re.compile(r"#\d+$")


def examples_in(text: str) -> list[tuple[tuple[str, ...], float]]:
    """(tool sequence, people's score) of each corrected example the prompt carries."""
    found = []
    for match in EXAMPLE.finditer(text):
        tools = tuple(VALUE.findall(match.group("tools")))
        found.append((tools, float(match.group("score"))))
    return found


def _tools_of(node: dict, out: list[str]) -> None:
    if node.get("type") == "tool":
        out.append(REPEAT_SUFFIX.sub("", str(node.get("name", ""))))
    for child in node.get("children") or []:
        if isinstance(child, dict):
            _tools_of(child, out)


def judged_tool_sequence(user_text: str) -> tuple[str, ...] | None:
    """The tools the judged trace (span tree JSON) called, in order; None for a transcript."""
    if TRACE_OPEN not in user_text:
        return None
    body = trace_text_extract(user_text)
    brace = body.find("{")
    try:
        tree = json.loads(body[brace:]) if brace != -1 else None
    except ValueError:
        return None
    if not isinstance(tree, dict):
        return None
    tools: list[str] = []
    _tools_of(tree, tools)
    return tuple(tools)


def finding_with_examples(
    system_text: str, user_text: str, finding: Finding, midpoint: float
) -> Finding:
    """The finding, or the matching example's verdict when the trace repeats its tool calls."""
    examples = examples_in(system_text) or examples_in(user_text.split(TRACE_OPEN, 1)[0])
    if not examples:
        return finding
    sequence = judged_tool_sequence(user_text)
    for tools, score in examples:
        if sequence is not None and tools == sequence:
            passed = score > midpoint
            reason = "It calls the same tools in the same order as a corrected example."
            return replace(finding, passed=passed, reasons=[reason] if not passed else [])
    return finding

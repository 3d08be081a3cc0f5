"""What every judge must read in its prompt: the trajectory as the trace page shows it.

`assert_judge_reads` renders each built-in rubric (the seeded ones, which every new rubric
starts from) on a stored trace and checks its prompt for the task, the final answer, every tool
name, every argument value, the start of every result, every error and every later user turn,
taken from what the agent sent, not from what was stored.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from core.json_text import json_text_decoded
from judges.models import Rubric
from judges.prompts import prompt_render
from traces.models import SpanKind, Trace
from traces.serialize import trace_span_tree

# The rubrics the migrations seed; the general judge and the tool-call judge are the ones a
# project starts with, the others back eval-time checks.
BUILT_IN_RUBRICS = (
    "Tool-call decision accuracy",
    "General trace judge",
    "Outcome 1-5",
    "Parameter equivalence",
    "Expected behavior",
)
RESULT_START_CHARS = 40
RESULT_LEAVES = 3


@dataclass
class Expected:
    task: str
    final_answer: str
    # (tool name, arguments) in the order they were called
    calls: list[tuple[str, object]]
    # every tool result that came back (an error text included)
    results: list[object] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    later_user_turns: list[str] = field(default_factory=list)
    # the call ids the reading marks failed, in order, where that is checked
    failed_calls: list[str] | None = None


def _leaves(value) -> list[str]:
    value = json_text_decoded(value)
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list | tuple):
        return [leaf for item in value for leaf in _leaves(item)]
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [value]
    return [json.dumps(value)]


def _result_start(result) -> list[str]:
    """The start of a result: a text's first characters, a structure's first values."""
    decoded = json_text_decoded(result)
    if isinstance(decoded, str):
        return [decoded[:RESULT_START_CHARS]] if decoded else []
    return [leaf[:RESULT_START_CHARS] for leaf in _leaves(decoded)[:RESULT_LEAVES]]


def expected_needles(expected: Expected) -> list[tuple[str, str]]:
    """(what it is, the text) pairs the prompt must contain."""
    needles = [("task", expected.task), ("final answer", expected.final_answer)]
    for name, arguments in expected.calls:
        needles.append(("tool name", name))
        needles += [(f"argument of {name}", leaf) for leaf in _leaves(arguments)]
    for result in expected.results:
        needles += [("result start", text) for text in _result_start(result)]
    needles += [("error", error) for error in expected.errors]
    needles += [("later user turn", turn) for turn in expected.later_user_turns]
    return [(what, text) for what, text in needles if text]


def _contains(prompt: str, text: str) -> bool:
    # Text inside a JSON string is escaped there; either spelling is the same text read.
    return text in prompt or json.dumps(text, ensure_ascii=False)[1:-1] in prompt


def judge_prompts(trace: Trace) -> dict[str, str]:
    """Each built-in rubric's whole prompt (system and user turn) on the trace."""
    prompts = {}
    for rubric in Rubric.objects.filter(name__in=BUILT_IN_RUBRICS):
        version = rubric.latest_version()
        prompt = prompt_render(
            version, trace, expected_behavior="Answer from the tool results only."
        )
        prompts[rubric.name] = f"{prompt.system}\n{prompt.user}"
    assert set(prompts) == set(BUILT_IN_RUBRICS), "a built-in rubric is missing"
    return prompts


def judge_reads_missing(trace: Trace, expected: Expected) -> dict[str, list[str]]:
    """Per rubric, what the prompt lacks ("tool name: lookup_order"); empty when whole."""
    needles = expected_needles(expected)
    missing = {}
    for name, prompt in judge_prompts(trace).items():
        lacking = [f"{what}: {text}" for what, text in needles if not _contains(prompt, text)]
        if lacking:
            missing[name] = lacking
    return missing


# A model call's reply rendered with neither text nor tool calls: its content was lost.
EMPTY_REPLY = '{"role": "assistant"}'


def reading_steps(node: dict) -> list[dict]:
    """The steps of a reading (trace_span_tree), the node's own first, depth first."""
    own = [node] if "step" in node else []
    return own + [step for child in node.get("children") or [] for step in reading_steps(child)]


def _messages(step: dict) -> list[dict]:
    return [
        message
        for field in ("new_input", "input", "output")
        if isinstance(step.get(field), list)
        for message in step[field]
        if isinstance(message, dict)
    ]


def _result_value(result):
    value = json_text_decoded(result)
    if isinstance(value, dict) and len(value) == 1 and next(iter(value)) in ("result", "output"):
        value = json_text_decoded(next(iter(value.values())))
    return json.dumps(value, sort_keys=True, default=str)


def read_twice(trace: Trace, expected: Expected) -> list[str]:
    """What the reading shows more often than the agent did it: a tool decided more times than
    it was called, a tool result handed back to the model after its tool step showed it."""
    steps = reading_steps(trace_span_tree(trace))
    decided = Counter(
        call.get("tool")
        for step in steps
        for message in _messages(step)
        for call in message.get("tool_calls") or []
    )
    called = Counter(name for name, _ in expected.calls)
    twice = [
        f"{name} decided {decided[name]} times" for name in called if decided[name] > called[name]
    ]
    on_tool_steps = {
        _result_value(step["result"])
        for step in steps
        if step["type"] == SpanKind.TOOL and "result" in step
    }
    twice += [
        f"result of {result.get('call_id')} handed back again"
        for step in steps
        for message in _messages(step)
        for result in message.get("tool_results") or []
        if _result_value(result.get("result")) in on_tool_steps
    ]
    return twice


def unnamed_calls(trace: Trace) -> list[int]:
    """The steps whose messages show a tool call with no tool: a part misread as a call."""
    return [
        step["step"]
        for step in reading_steps(trace_span_tree(trace))
        for message in _messages(step)
        for call in message.get("tool_calls") or []
        if not call.get("tool")
    ]


def calls_marked_failed(tree: dict) -> list[str]:
    """The call ids a reading marks failed, in order: a tool step with an error, a result
    handed back marked `"error": true`."""
    marked = []
    for step in reading_steps(tree):
        if step["type"] == SpanKind.TOOL and "error" in step:
            marked.append(step.get("call_id", ""))
        marked += [
            result.get("call_id", "")
            for message in _messages(step)
            for result in message.get("tool_results") or []
            if result.get("error") is True
        ]
    return marked


def assert_judge_reads(trace: Trace, expected: Expected) -> None:
    missing = judge_reads_missing(trace, expected)
    assert not missing, f"judge prompts lack what the trace holds: {missing}"
    emptied = [name for name, prompt in judge_prompts(trace).items() if EMPTY_REPLY in prompt]
    assert not emptied, f"a model call reads as an empty reply in {emptied}"
    twice = read_twice(trace, expected)
    assert not twice, f"the judge reads a step twice: {twice}"
    unnamed = unnamed_calls(trace)
    assert not unnamed, f"steps {unnamed} show a tool call that names no tool"
    if expected.failed_calls is not None:
        assert calls_marked_failed(trace_span_tree(trace)) == expected.failed_calls

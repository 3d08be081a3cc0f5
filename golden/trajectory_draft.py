"""Drafts a reference trajectory from a trace's tool calls, inferring placeholders.

An input value that an earlier tool returned becomes ``<from_step_N_output>`` (the latest such
step), a value found in the task or the trace context becomes ``<from_context>``; anything else
stays literal for the curator to judge.
"""

import re
from collections.abc import Iterable
from typing import Any

from evalsite_checks.steps import ToolStep

from golden.reference_trajectory import FROM_CONTEXT, from_step_output
from metrics.policy_cache import trace_failure_rule_remembered
from metrics.steps import tool_steps_from_spans, trace_spans
from traces.models import Trace


def _scalar_text(value: Any) -> str | None:
    """The comparable text of a leaf value; None for values too vague to match on."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        text = value.strip()
        return text if len(text) >= 2 else None
    return None


def _leaf_texts(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set().union(*(_leaf_texts(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_leaf_texts(v) for v in value)) if value else set()
    text = _scalar_text(value)
    return {text.casefold()} if text else set()


def _in_text(needle: str, haystack: str) -> bool:
    pattern = r"(?<!\w)" + re.escape(needle) + r"(?!\w)"
    return re.search(pattern, haystack, flags=re.IGNORECASE) is not None


# Tool schemas describe the agent, not the user's request: their words are no source.
CONTEXT_KEYS_IGNORED = ("available_tools",)


class _Sources:
    def __init__(self, task: str, context: dict):
        self.task = task or ""
        self.context_values = _leaf_texts(
            {k: v for k, v in context.items() if k not in CONTEXT_KEYS_IGNORED}
        )
        self.outputs: list[tuple[int, set[str]]] = []

    def _output_step(self, folded: str) -> int | None:
        """The latest earlier step whose output holds the value, whole or as a word."""
        for step, texts in reversed(self.outputs):
            if folded in texts:
                return step
        if len(folded) < 3:
            return None
        for step, texts in reversed(self.outputs):
            if any(_in_text(folded, text) for text in texts):
                return step
        return None

    def placeholder_for(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {key: self.placeholder_for(inner) for key, inner in value.items()}
        if isinstance(value, list):
            return [self.placeholder_for(inner) for inner in value]
        text = _scalar_text(value)
        if text is None:
            return value
        folded = text.casefold()
        step = self._output_step(folded)
        if step is not None:
            return from_step_output(step)
        if folded in self.context_values or _in_text(text, self.task):
            return FROM_CONTEXT
        return value


def _output_fields(output: Any) -> list[str]:
    if isinstance(output, dict):
        return sorted(str(key) for key in output)
    if isinstance(output, list) and output and isinstance(output[0], dict):
        return sorted(str(key) for key in output[0])
    return []


def reference_trajectory_draft(trace: Trace, steps: Iterable[ToolStep] | None = None) -> list[dict]:
    """The trace's tool calls in order (metrics.steps: its tool spans, or the calls its model
    calls decided where no tool was traced) as reference steps with inferred placeholders."""
    if steps is None:
        steps = tool_steps_from_spans(trace_spans(trace), trace_failure_rule_remembered(trace))
    sources = _Sources(trace.task, trace.context or {})
    drafted: list[dict] = []
    for step in steps:
        number = len(drafted) + 1
        raw = step.inputs if isinstance(step.inputs, dict) else {}
        if step.inputs not in (None, {}) and not isinstance(step.inputs, dict):
            raw = {"input": step.inputs}
        drafted.append(
            {
                "step": number,
                "tool": step.tool,
                "inputs": sources.placeholder_for(raw),
                "acceptable_output_fields": _output_fields(step.output),
            }
        )
        sources.outputs.append((number, _leaf_texts(step.output)))
    return drafted

"""Drafts a reference trajectory from a trace's tool calls, inferring placeholders.

An input value that an earlier tool returned becomes ``<from_step_N_output>`` (the latest such
step), a value found in the task or the trace context becomes ``<from_context>``; anything else
stays literal for the curator to judge.
"""

import re
from collections.abc import Iterable
from typing import Any

from golden.reference_trajectory import FROM_CONTEXT, from_step_output
from traces.models import Span, SpanKind, Trace


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


def reference_trajectory_draft(trace: Trace, spans: Iterable[Span] | None = None) -> list[dict]:
    """The trace's tool calls in order as reference steps with inferred placeholders."""
    if spans is None:
        spans = trace.spans.filter(kind=SpanKind.TOOL).order_by("position", "pk")
    sources = _Sources(trace.task, trace.context or {})
    steps: list[dict] = []
    for span in spans:
        if span.kind != SpanKind.TOOL:
            continue
        number = len(steps) + 1
        raw = span.input if isinstance(span.input, dict) else {}
        if span.input is not None and not isinstance(span.input, dict):
            raw = {"input": span.input}
        steps.append(
            {
                "step": number,
                "tool": span.tool_name or span.name,
                "inputs": sources.placeholder_for(raw),
                "acceptable_output_fields": _output_fields(span.output),
            }
        )
        sources.outputs.append((number, _leaf_texts(span.output)))
    return steps

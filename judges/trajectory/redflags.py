"""Deterministic red flags checked on every trace, golden or not; each names its span."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction

from judges.models import RedFlag
from judges.trajectory.steps import (
    ToolStep,
    canonical_json,
    is_empty_result,
    leaf_values,
    tool_steps_from_spans,
    trace_spans,
)
from traces.models import Span, SpanKind, Trace

Kind = RedFlag.Kind

STOP_REASONS_MAX_STEPS = {"max_steps_exceeded", "max_steps", "max_turns", "max_iterations"}
# Words that show the answer admits a problem instead of claiming success.
HEDGES = re.compile(
    r"\b(sorry|unable|couldn'?t|could not|can'?t|cannot|not able|failed|fail|unfortunately|"
    r"error|try again|no results|not found|wasn'?t able|unavailable|don'?t have|did not|"
    r"didn'?t|no matching|apolog\w*)\b",
    re.IGNORECASE,
)
ID_KEY = re.compile(r"(^id$|_id$|Id$|_ids$|number$|_code$|_ref$|reference$|email$)", re.I)


@dataclass(frozen=True)
class FlagHit:
    """A red flag before it is stored."""

    kind: str
    span_id: str
    detail: str
    span_pk: int | None = None


@dataclass
class FlagRules:
    """What the checks need besides the spans; filled from the trace and settings."""

    prerequisites: dict[str, list[str]]
    max_steps: int
    loop_repeats: int


def flag_rules_for(trace: Trace) -> FlagRules:
    """Prerequisites come from settings, the trace context, and tool definitions in it."""
    prerequisites: dict[str, list[str]] = {
        tool: list(reqs)
        for tool, reqs in getattr(settings, "TRAJECTORY_TOOL_PREREQUISITES", {}).items()
    }
    context = trace.context or {}
    for tool, reqs in (context.get("tool_prerequisites") or {}).items():
        prerequisites.setdefault(tool, []).extend(reqs if isinstance(reqs, list) else [reqs])
    for tool in context.get("available_tools") or []:
        if isinstance(tool, dict) and tool.get("name"):
            reqs = tool.get("prerequisites") or tool.get("requires") or []
            prerequisites.setdefault(tool["name"], []).extend(reqs)
    return FlagRules(
        prerequisites=prerequisites,
        max_steps=int(context.get("max_steps") or getattr(settings, "TRAJECTORY_MAX_STEPS", 30)),
        loop_repeats=int(getattr(settings, "TRAJECTORY_LOOP_REPEATS", 3)),
    )


def check_prerequisites(steps: list[ToolStep], prerequisites: dict[str, list[str]]):
    """A tool called while one of its prerequisites has not been called successfully yet."""
    done: set[str] = set()
    for step in steps:
        for required in prerequisites.get(step.tool, []):
            if required not in done:
                yield FlagHit(
                    Kind.PREREQUISITE,
                    step.span_id,
                    f"{step.tool} was called before its prerequisite {required}.",
                    step.span_pk,
                )
        if not step.failed:
            done.add(step.tool)


def _looks_like_identifier(key: str, value: Any) -> bool:
    # Free text and small numbers are composed by the agent legitimately; ids are not.
    if isinstance(value, bool):
        return False
    if ID_KEY.search(key or ""):
        return isinstance(value, (str, int)) and str(value).strip() != ""
    if isinstance(value, str):
        text = value.strip()
        return 3 <= len(text) <= 64 and " " not in text and any(ch.isdigit() for ch in text)
    return False


def _user_texts(llm_input: Any) -> list[str]:
    """User turns from an LLM span's input: later requests a person typed count as the task."""
    messages = llm_input.get("messages") if isinstance(llm_input, dict) else llm_input
    if not isinstance(messages, list):
        return []
    return [
        json.dumps(message.get("content"), default=str)
        for message in messages
        if isinstance(message, dict) and message.get("role") == "user"
    ]


MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
ISO_DAY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")


def _date_spellings(value: str) -> list[re.Pattern]:
    """How a person writes the ISO date's day: "3rd of December", "Dec 3", "3 Dec"."""
    match = ISO_DAY.match(value.strip())
    if not match or not 1 <= int(match.group(2)) <= 12:
        return []
    day, month = int(match.group(3)), MONTHS[int(match.group(2)) - 1]
    day_text = rf"0?{day}(st|nd|rd|th)?"
    return [
        re.compile(rf"\b{day_text}\s+(of\s+)?{month}[a-z]*\b"),
        re.compile(rf"\b{month}[a-z]*\.?\s+{day_text}\b"),
    ]


def _squash(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


class _Haystack:
    """Everything the agent was told or shown so far, searched case- and separator-blind."""

    def __init__(self, *texts: str):
        self.text = ""
        self.squashed = ""
        for text in texts:
            self.add(text)

    def add(self, text: str) -> None:
        self.text += "\n" + text.lower()
        self.squashed += "|" + _squash(text)

    def __contains__(self, value: Any) -> bool:
        needle = str(value).strip().lower()
        if needle in self.text:
            return True
        # A date the user wrote in words is not made up when the agent passes it as ISO.
        if any(pattern.search(self.text) for pattern in _date_spellings(needle)):
            return True
        squashed = _squash(needle)
        return bool(squashed) and squashed in self.squashed


def check_hallucinated_parameters(trace: Trace, spans: list[Span]):
    """An id-like argument found nowhere in the task, the context, or earlier outputs."""
    seen = _Haystack(trace.task or "", canonical_json(trace.context or {}))
    for span in spans:
        if span.kind == SpanKind.TOOL:
            for key, value in leaf_values(span.input):
                if _looks_like_identifier(key, value) and value not in seen:
                    yield FlagHit(
                        Kind.HALLUCINATED_PARAMETER,
                        span.span_id,
                        f"{span.tool_name or span.name}({key}={value!r}): the value appears "
                        "nowhere in the task, the context or earlier tool outputs.",
                        span.pk,
                    )
            seen.add(canonical_json(span.output))
        elif span.kind == SpanKind.LLM:
            for text in _user_texts(span.input):
                seen.add(text)
        else:
            # Agent and retriever spans carry handed-down tasks and retrieved documents.
            if span.kind == SpanKind.AGENT:
                seen.add(canonical_json(span.input))
            seen.add(canonical_json(span.output))


def check_loops(steps: list[ToolStep], repeats: int):
    """The same tool with the same arguments called `repeats` times."""
    counts: dict[str, int] = {}
    for step in steps:
        counts[step.call_key] = counts.get(step.call_key, 0) + 1
        if counts[step.call_key] == repeats:
            yield FlagHit(
                Kind.LOOP,
                step.span_id,
                f"{step.tool} was called {repeats} times with identical arguments.",
                step.span_pk,
            )


def check_confident_after_failure(trace: Trace, steps: list[ToolStep]):
    """A failed or empty tool result, never recovered, followed by an answer that admits nothing."""
    answer = (trace.final_answer or "").strip()
    if not answer or HEDGES.search(answer):
        return
    for index, step in enumerate(steps):
        if not (step.failed or is_empty_result(step.output)):
            continue
        recovered = any(
            later.tool == step.tool and not later.failed and not is_empty_result(later.output)
            for later in steps[index + 1 :]
        )
        if not recovered:
            what = "failed" if step.failed else "returned nothing"
            yield FlagHit(
                Kind.CONFIDENT_AFTER_FAILURE,
                step.span_id,
                f"{step.tool} {what}, yet the final answer states a result without caveat.",
                step.span_pk,
            )


def check_max_steps(trace: Trace, spans: list[Span], steps: list[ToolStep], max_steps: int):
    """The agent stopped on its step limit, or made more tool calls than allowed."""
    stopped = (trace.stop_reason or "").strip().lower() in STOP_REASONS_MAX_STEPS
    if not stopped and len(steps) <= max_steps:
        return
    last = spans[-1] if spans else None
    root = next((s for s in spans if s.span_id == trace.root_span_id), None) or last
    detail = (
        f"Stopped with stop reason {trace.stop_reason!r} after {len(steps)} tool calls."
        if stopped
        else f"{len(steps)} tool calls, more than the limit of {max_steps}."
    )
    yield FlagHit(
        Kind.MAX_STEPS,
        root.span_id if root else "",
        detail,
        root.pk if root else None,
    )


def red_flags_detect(
    trace: Trace, spans: list[Span] | None = None, rules: FlagRules | None = None
) -> list[FlagHit]:
    """Run the five checks on a trace without writing anything."""
    spans = trace_spans(trace) if spans is None else spans
    rules = rules or flag_rules_for(trace)
    steps = tool_steps_from_spans(spans)
    hits: list[FlagHit] = []
    hits += check_prerequisites(steps, rules.prerequisites)
    hits += check_hallucinated_parameters(trace, spans)
    hits += check_loops(steps, rules.loop_repeats)
    hits += check_confident_after_failure(trace, steps)
    hits += check_max_steps(trace, spans, steps, rules.max_steps)
    return hits


def red_flags_ensure(trace: Trace, spans: list[Span] | None = None) -> list[RedFlag]:
    """Compute and store the trace's red flags once; later calls return the stored rows.

    `spans`, in trace order, saves a query when the caller already loaded them.
    """
    with transaction.atomic():
        # The row lock keeps two concurrent callers from storing the flags twice.
        Trace.objects.select_for_update().filter(pk=trace.pk).first()
        stored = list(trace.red_flags.select_related("span").order_by("pk"))
        if stored:
            return stored
        hits = red_flags_detect(trace, spans)
        flags = [
            RedFlag(trace=trace, span_id=hit.span_pk, kind=hit.kind, detail=hit.detail)
            for hit in hits
        ]
        RedFlag.objects.bulk_create(flags)
        return list(trace.red_flags.select_related("span").order_by("pk"))

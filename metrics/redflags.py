"""Deterministic red flags checked on every trace, golden or not; each names its span."""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from evalsite_checks.answers import answer_admits, answer_claims
from evalsite_checks.effects import WRITE, tool_definitions, tool_effect_default
from evalsite_checks.flag_hit import FlagHit
from evalsite_checks.haystack import Haystack
from evalsite_checks.steps import (
    ToolStep,
    canonical_json,
    declares_output,
    is_empty_result,
    leaf_values,
)

from metrics.conversation import (
    TOLD_ROLES,
    conversation_messages,
    message_texts,
    system_prompt_texts,
)
from metrics.models import GuardrailPolicy, RedFlag
from metrics.policy_cache import project_policy_remembered, trace_failure_rule_remembered
from metrics.premature_stop import check_premature_stop
from metrics.steps import SpanFacts, TraceFacts, span_pk, tool_steps_from_spans, trace_spans
from metrics.stop_flags import check_unclean_stop
from traces.ingest.failures import DEFAULT_FAILURE_RULE, FailureRule
from traces.models import SpanKind, Trace
from traces.stop_reasons import StopKind, stop_reason_normalize

Kind = RedFlag.Kind

STOP_REASONS_MAX_STEPS = {"max_steps_exceeded", "max_steps", "max_turns", "max_iterations"}
ID_KEY = re.compile(r"(^id$|_id$|Id$|_ids$|number$|_code$|_ref$|reference$|email$)", re.I)


@dataclass
class FlagRules:
    """What the checks need besides the spans: thresholds, tool prerequisites, and how the
    project reads a tool result's failure."""

    prerequisites: dict[str, list[str]]
    max_steps: int
    loop_repeats: int
    failure_rule: FailureRule = DEFAULT_FAILURE_RULE


def flag_rules_build(
    context: dict | None,
    policy: GuardrailPolicy | None = None,
    failure_rule: FailureRule = DEFAULT_FAILURE_RULE,
) -> FlagRules:
    """Settings, then the project's policy, then what the trace itself declares.

    Prerequisites add up. The step limit is the stricter of the project's and the trace's own
    `max_steps`; the loop threshold is the project's, else the setting. A tool result failed as
    the project's `failure_rule` reads it.
    """
    prerequisites: dict[str, list[str]] = {
        tool: list(reqs) for tool, reqs in settings.TRAJECTORY_TOOL_PREREQUISITES.items()
    }
    if policy is not None:
        for tool, reqs in (policy.tool_prerequisites or {}).items():
            prerequisites.setdefault(tool, []).extend(reqs)
    context = context or {}
    for tool, reqs in (context.get("tool_prerequisites") or {}).items():
        prerequisites.setdefault(tool, []).extend(reqs if isinstance(reqs, list) else [reqs])
    for tool in context.get("available_tools") or []:
        if isinstance(tool, dict) and tool.get("name"):
            reqs = tool.get("prerequisites") or tool.get("requires") or []
            prerequisites.setdefault(tool["name"], []).extend(reqs)
    limits = [policy.max_steps] if policy is not None else []
    declared = context.get("max_steps")
    if isinstance(declared, int) and not isinstance(declared, bool) and declared > 0:
        limits.append(declared)
    elif isinstance(declared, str) and declared.strip().isdecimal() and int(declared) > 0:
        limits.append(int(declared))
    return FlagRules(
        prerequisites=prerequisites,
        max_steps=min(limits) if limits else settings.TRAJECTORY_MAX_STEPS,
        loop_repeats=(
            policy.loop_repeats if policy is not None else settings.TRAJECTORY_LOOP_REPEATS
        ),
        failure_rule=failure_rule,
    )


def flag_rules_for(trace: Trace) -> FlagRules:
    """The rules for a stored trace: its project's policy and failure rule, its own context."""
    return flag_rules_build(
        trace.context,
        project_policy_remembered(trace.project_id),
        trace_failure_rule_remembered(trace),
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


def _grounded(key: str, value: Any, seen: Haystack) -> bool:
    # An id is copied from somewhere; other values may also be derived from what was seen.
    return value in seen or (not ID_KEY.search(key or "") and seen.derives(value))


def check_hallucinated_parameters(trace: TraceFacts, spans: Sequence[SpanFacts]):
    """An id-like argument found nowhere the agent could have read it before the call: the
    task, the context, the system prompt, every user turn so far, and earlier tool outputs."""
    seen = Haystack(trace.task or "", canonical_json(trace.context or {}))
    for text in system_prompt_texts(trace, spans):
        seen.add(text)
    # Each model call is sent the conversation so far: only what it adds is read again.
    read: list = []
    for span in spans:
        if span.kind == SpanKind.TOOL:
            for key, value in leaf_values(span.input):
                if _looks_like_identifier(key, value) and not _grounded(key, value, seen):
                    yield FlagHit(
                        Kind.HALLUCINATED_PARAMETER,
                        span.span_id,
                        f"{span.tool_name or span.name}({key}={value!r}): the value appears "
                        "nowhere in the task, the context, the conversation or earlier tool "
                        "outputs.",
                        span_pk(span),
                    )
            seen.add(canonical_json(span.output))
        elif span.kind == SpanKind.LLM:
            messages = conversation_messages(span.input)
            resent = len(messages) >= len(read) and messages[: len(read)] == read
            for text in message_texts(span.input, TOLD_ROLES, skip=len(read) if resent else 0):
                seen.add(text)
            read = messages
        else:
            # Agent and retriever spans carry handed-down tasks and retrieved documents; the
            # root's output is the final answer, what the agent said last, not what it read.
            if span.kind == SpanKind.AGENT:
                seen.add(canonical_json(span.input))
            if span.span_id != trace.root_span_id:
                seen.add(canonical_json(span.output))


def check_loops(steps: list[ToolStep], repeats: int):
    """The same tool with the same or near-identical arguments (`loose_call_key`) called
    `repeats` times with the same result kind.

    Calls that succeeded and calls that failed are counted apart, so one retry after a failure
    is not a repeat, while retrying a failing call again and again is. A call not made yet
    (`failed` None) repeats either kind, and is flagged each time it would go round again;
    a stored trace is flagged once per loop.
    """
    counts: dict[tuple[str, bool], int] = {}
    for step in steps:
        call = step.loose_call_key
        outcomes = (True, False) if step.failed is None else (bool(step.failed),)
        for failed in outcomes:
            counts[(call, failed)] = counts.get((call, failed), 0) + 1
        pending = step.failed is None
        fired = [
            f
            for f in outcomes
            if counts[(call, f)] == repeats or (pending and counts[(call, f)] > repeats)
        ]
        if fired:
            failing = fired[0]
            yield FlagHit(
                Kind.LOOP,
                step.span_id,
                f"{step.tool} was called {counts[(call, failing)]} times with identical or "
                "near-identical arguments" + (", failing each time." if failing else "."),
                step.span_pk,
            )


LOOKUP_VERBS = {"get", "list", "search", "find", "fetch", "lookup", "query", "retrieve", "read"}


def empty_means_failure(tool: str, definitions: dict[str, dict]) -> bool:
    """Whether an empty result of `tool` says it found nothing: its definition declares an
    output, or, with no definition, its name says it fetches something. A scratchpad or a
    write that returns nothing by design has not failed."""
    if tool in definitions:
        return declares_output(definitions[tool])
    words = re.split(r"[^a-z]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", tool).lower())
    return bool(words) and words[0] in LOOKUP_VERBS


def check_confident_after_failure(trace: TraceFacts, steps: list[ToolStep]):
    """A failed or empty tool result never made up for, followed by an answer that claims what
    the call was for (`answer_claims`) and admits nothing.

    Made up for: a later call of the same tool that came back, or, for a lookup, a later
    lookup that came back with one of its argument values (another way to the same record).
    An empty result counts only for tools that promise one (see `empty_means_failure`).
    """
    answer = (trace.final_answer or "").strip()
    if not answer or answer_admits(answer):
        return
    definitions = tool_definitions(trace.context)

    def fell_short(step: ToolStep) -> bool:
        if step.failed:
            return True
        return is_empty_result(step.output) and empty_means_failure(step.tool, definitions)

    def writes(step: ToolStep) -> bool:
        return tool_effect_default(step.tool, definitions.get(step.tool)) == WRITE

    for index, step in enumerate(steps):
        if not fell_short(step):
            continue
        later = [s for s in steps[index + 1 :] if not fell_short(s)]
        if any(s.tool == step.tool for s in later):
            continue
        if not writes(step) and any(not writes(s) and _shares_value(step, s) for s in later):
            continue
        if not answer_claims(answer, step, writes(step)):
            continue
        what = "failed" if step.failed else "returned nothing"
        yield FlagHit(
            Kind.CONFIDENT_AFTER_FAILURE,
            step.span_id,
            f"{step.tool} {what}, yet the final answer states its result without caveat.",
            step.span_pk,
        )


def _shares_value(first: ToolStep, second: ToolStep) -> bool:
    values = {canonical_json(v) for _k, v in leaf_values(first.inputs) if not isinstance(v, bool)}
    return any(canonical_json(v) in values for _k, v in leaf_values(second.inputs))


def check_max_steps(
    trace: TraceFacts, spans: Sequence[SpanFacts], steps: list[ToolStep], max_steps: int
):
    """The agent stopped on its step limit (named on the root), or made more tool calls than
    allowed (named on the first call over the limit)."""
    stopped = stop_reason_normalize(trace.stop_reason) == StopKind.STEP_LIMIT
    if len(steps) > max_steps:
        over = steps[max_steps]
        yield FlagHit(
            Kind.MAX_STEPS,
            over.span_id,
            f"{len(steps)} tool calls, more than the limit of {max_steps}.",
            over.span_pk,
        )
        return
    if not stopped:
        return
    last = spans[-1] if spans else None
    root = next((s for s in spans if s.span_id == trace.root_span_id), None) or last
    yield FlagHit(
        Kind.MAX_STEPS,
        root.span_id if root else "",
        f"Stopped with stop reason {trace.stop_reason!r} after {len(steps)} tool calls.",
        span_pk(root) if root else None,
    )


# Text that speaks to whoever evaluates the trace rather than to the user: an agent, a tool or
# a page it read trying to steer the judge. Deterministic, so it works before any judge reads.
JUDGE_DIRECTED = re.compile(
    r"\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:the\s+|your\s+)?"
    r"(?:previous|prior|above|earlier|grading|scoring)\s+(?:instructions|rules|rubric|criteria)"
    r"|\b(?:note|message|instructions?)\s+(?:to|for)\s+(?:the\s+)?"
    r"(?:judge|evaluator|grader|reviewer|assessor)s?\b"
    r"|\b(?:dear|attention|hey)\s+(?:llm\s+|ai\s+)?(?:judge|evaluator|grader)s?\b"
    r"|\b(?:give|assign|award)\s+(?:this|the|it)\s+(?:trace|response|answer|run|trajectory)?"
    r"\s*(?:a\s+)?(?:perfect|full|maximum|max|top|passing)\s+(?:score|rating|grade|marks?)"
    r"|\b(?:score|rate|grade|mark)\s+this\s+(?:trace|response|answer|trajectory|run)\s+"
    r"(?:as\s+)?(?:a\s+)?(?:\d+|perfect|pass(?:ing)?|correct)",
    re.IGNORECASE,
)


def _texts(value) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, default=str)


def check_judge_injection(trace: TraceFacts, spans: Sequence[SpanFacts]):
    """Instructions aimed at the judge wherever agent-written text reaches a judge's prompt:
    the task, the final answer, and every span's name, input, output and error, of any kind.
    A model call's input resends the conversation, so text already flagged elsewhere is not
    flagged again there."""
    flagged: set[str] = set()  # every phrase aimed at the judge, in lower case
    task = JUDGE_DIRECTED.search(trace.task or "")
    if task:
        flagged.update(_phrases(trace.task))
        yield FlagHit(
            Kind.JUDGE_INJECTION,
            "",
            f"The task carries text aimed at the judge: {task.group(0)!r}.",
        )
    resent = []
    for span in spans:
        error = getattr(span, "error_message", "")
        values = (span.name, span.output, error)
        values += () if span.kind == SpanKind.LLM else (span.input,)
        match = next(filter(None, (JUDGE_DIRECTED.search(_texts(v)) for v in values)), None)
        if match is None:
            if span.kind == SpanKind.LLM:
                resent.append(span)
            continue
        flagged.update(phrase for value in values for phrase in _phrases(_texts(value)))
        yield _injection_hit(span, match)
    for span in resent:
        matches = JUDGE_DIRECTED.finditer(_texts(span.input))
        match = next((m for m in matches if m.group(0).lower() not in flagged), None)
        if match:
            flagged.update(_phrases(_texts(span.input)))
            yield _injection_hit(span, match)
    answer = JUDGE_DIRECTED.search(trace.final_answer or "")
    if answer:
        yield FlagHit(
            Kind.JUDGE_INJECTION,
            "",
            f"The final answer carries text aimed at the judge: {answer.group(0)!r}.",
        )


def _phrases(text: str) -> set[str]:
    return {match.group(0).lower() for match in JUDGE_DIRECTED.finditer(text)}


def _injection_hit(span: SpanFacts, match: re.Match) -> FlagHit:
    return FlagHit(
        Kind.JUDGE_INJECTION,
        span.span_id,
        f"{span.name} carries text aimed at the judge: {match.group(0)!r}.",
        getattr(span, "pk", None),
    )


def red_flags_detect(
    trace: TraceFacts,
    spans: Sequence[SpanFacts] | None = None,
    rules: FlagRules | None = None,
    kinds: Collection[str] | None = None,
    steps: list[ToolStep] | None = None,
) -> list[FlagHit]:
    """Run the checks without writing anything.

    `trace` and `spans` may be stored rows or records parsed in memory (then pass `spans` and
    `rules`, since nothing can be loaded). `kinds` limits which checks run. `steps` are the
    tool calls as the caller read them (the runtime check adds the call not made yet to a
    plain loop's told calls); by default they are read from `spans`."""
    spans = trace_spans(trace) if spans is None else spans  # type: ignore[arg-type]
    rules = rules or flag_rules_for(trace)  # type: ignore[arg-type]
    if steps is None:
        steps = tool_steps_from_spans(spans, rules.failure_rule)
    checks = {
        Kind.PREREQUISITE: lambda: check_prerequisites(steps, rules.prerequisites),
        Kind.HALLUCINATED_PARAMETER: lambda: check_hallucinated_parameters(trace, spans),
        Kind.LOOP: lambda: check_loops(steps, rules.loop_repeats),
        Kind.CONFIDENT_AFTER_FAILURE: lambda: check_confident_after_failure(trace, steps),
        Kind.MAX_STEPS: lambda: check_max_steps(trace, spans, steps, rules.max_steps),
        Kind.JUDGE_INJECTION: lambda: check_judge_injection(trace, spans),
        Kind.PREMATURE_STOP: lambda: check_premature_stop(trace, spans, steps),
        Kind.UNCLEAN_STOP: lambda: check_unclean_stop(trace, spans),
    }
    hits: list[FlagHit] = []
    for kind, check in checks.items():
        if kinds is None or kind in kinds:
            hits += check()
    return hits

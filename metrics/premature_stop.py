"""Premature stop: the run ended before even trying a write the user asked for, or the
reference expects, and the answer neither says so nor asks the user anything. (A write tried
and failed, then claimed, is `confident_after_failure`'s.)

Without a reference, what the user asked for is read from their own words: a write tool the
agent had whose verb the user used ("cancel" for `cancel_order`), in its plain form (a past
tense, "I placed an order", asks for nothing), with no call of a tool of that verb.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from evalsite_checks.answers import answer_admits_or_asks, tool_verb
from evalsite_checks.effects import WRITE, tool_definitions, tool_effect_default
from evalsite_checks.flag_hit import FlagHit
from evalsite_checks.steps import ToolStep

from metrics.conversation import message_texts
from metrics.models import RedFlag
from metrics.steps import SpanFacts, TraceFacts, span_pk
from traces.models import SpanKind

USER_ROLES = {"user", "human"}


def _asked(verb: str, words: str) -> bool:
    return len(verb) >= 3 and re.search(rf"\b{re.escape(verb)}s?\b", words, re.IGNORECASE)


def _user_words(trace: TraceFacts, spans: Sequence[SpanFacts]) -> str:
    texts = [trace.task or ""]
    for span in spans:
        if span.kind == SpanKind.LLM:
            texts += message_texts(span.input, USER_ROLES)
    return "\n".join(dict.fromkeys(texts))


def check_premature_stop(trace: TraceFacts, spans: Sequence[SpanFacts], steps: list[ToolStep]):
    """A write the user asked for was never tried, and the answer does not say so."""
    answer = (trace.final_answer or "").strip()
    if answer and answer_admits_or_asks(answer):
        return
    definitions = tool_definitions(trace.context)
    tools = sorted(set(definitions) | {s.tool for s in steps})

    def writes(tool: str) -> bool:
        return tool_effect_default(tool, definitions.get(tool)) == WRITE

    tried = {tool_verb(s.tool) for s in steps if writes(s.tool)}
    words = _user_words(trace, spans)
    root = next((s for s in spans if s.span_id == trace.root_span_id), None)
    reported: set[str] = set()
    for tool in tools:
        verb = tool_verb(tool)
        if not writes(tool) or verb in tried or verb in reported or not _asked(verb, words):
            continue
        reported.add(verb)
        yield _hit(
            root,
            f"The user asked to {verb}, the run never called {tool} (or any tool to {verb}), "
            "and the answer neither says so nor asks anything.",
        )


def reference_premature_stop(
    reference: list[dict], steps: list[ToolStep], answer: str, effects: dict[str, str] | None
):
    """Each reference write (not optional) whose tool the run never called, when the answer
    says nothing of it: the run stopped before the work the example expects."""
    answer = (answer or "").strip()
    if answer and answer_admits_or_asks(answer):
        return []
    effects = effects or {}
    tried = {s.tool for s in steps}
    hits, seen = [], set()
    for step in reference:
        tool = step.get("tool", "")
        effect = effects[tool] if tool in effects else tool_effect_default(tool)
        if effect != WRITE or step.get("optional") is True or tool in tried or tool in seen:
            continue
        seen.add(tool)
        hits.append(
            _hit(None, f"The run ended before the expected {tool}, and the answer does not say so.")
        )
    return hits


def _hit(span: SpanFacts | None, detail: str) -> FlagHit:
    return FlagHit(
        RedFlag.Kind.PREMATURE_STOP,
        span.span_id if span else "",
        detail,
        span_pk(span) if span else None,
    )

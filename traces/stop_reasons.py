"""Why an agent run (or one model call) stopped, read the same way whoever reported it.

Providers and frameworks spell the same stop differently: OpenAI `length`, Anthropic
`max_tokens`, Gemini `MAX_TOKENS`; `content_filter`, `refusal`, `SAFETY`; LangGraph's recursion
limit, openai-agents' max turns, smolagents' max steps. Each spelling is mapped to one kind here;
the stored value stays as it was sent.
"""

from django.db import models


class StopKind(models.TextChoices):
    COMPLETED = "completed", "Completed"
    TOOL_CALL = "tool_call", "Stopped to call a tool"
    TRUNCATED = "truncated", "Truncated (token limit)"
    REFUSED = "refused", "Refused or filtered"
    STEP_LIMIT = "step_limit", "Hit its step limit"
    ERROR = "error", "Stopped on an error"
    OTHER = "other", "Other"


# Lower-cased spellings, one registry for ingest, the reading, red flags, filters and charts.
STOP_SPELLINGS: dict[str, tuple[str, ...]] = {
    StopKind.COMPLETED: (
        "stop",
        "end_turn",
        "end",
        "completed",
        "complete",
        "finished",
        "stop_sequence",
        "eos",
        "done",
        "success",
        "final_answer",
    ),
    StopKind.TOOL_CALL: ("tool_use", "tool_calls", "tool_call", "function_call"),
    StopKind.TRUNCATED: (
        "max_tokens",
        "length",
        "max_output_tokens",
        "token_limit",
        "model_context_window_exceeded",
        "context_length_exceeded",
        "max_tokens_exceeded",
        "incomplete",
    ),
    StopKind.REFUSED: (
        "refusal",
        "refused",
        "content_filter",
        "content_filtered",
        "safety",
        "recitation",
        "blocklist",
        "prohibited_content",
        "spii",
        "guardrail_intervened",
        "image_safety",
    ),
    StopKind.STEP_LIMIT: (
        "max_steps_exceeded",
        "max_steps",
        "max_turns",
        "max_turns_exceeded",
        "maxturnsexceeded",
        "max_iterations",
        "max_iterations_reached",
        "recursion_limit",
        "graphrecursionerror",
        "step_limit",
        "pause_turn",
    ),
    StopKind.ERROR: ("error", "exception", "failed", "failure", "malformed_function_call"),
}
_KIND_OF = {spelling: kind for kind, spellings in STOP_SPELLINGS.items() for spelling in spellings}
# Kinds after which an answer that looks right may be right only by accident.
UNCLEAN_KINDS = (StopKind.TRUNCATED, StopKind.REFUSED, StopKind.STEP_LIMIT, StopKind.ERROR)


def stop_reason_normalize(raw) -> str:
    """The StopKind of a stop reason as sent, "" when none was sent. A list (finish reasons,
    one per choice) reads as its last entry; unknown spellings are `other`."""
    if isinstance(raw, list | tuple):
        raw = raw[-1] if raw else ""
    text = str(raw or "").strip().strip("[]\"' ").lower()
    if not text:
        return ""
    text = text.removeprefix("finish_reason_").removeprefix("stop_reason_")
    return _KIND_OF.get(text, StopKind.OTHER)


def stop_spellings(kind: str) -> tuple[str, ...]:
    """The lower-cased spellings of one kind, for filters over the stored values."""
    return STOP_SPELLINGS.get(kind, ())

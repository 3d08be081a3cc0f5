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
    StopKind.TOOL_CALL: ("tool_use", "tool_calls", "tool_call", "function_call", "tool-calls"),
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
        "content-filter",  # the Vercel AI SDK's
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
    ),
    StopKind.ERROR: ("error", "exception", "failed", "failure", "malformed_function_call"),
}
_KIND_OF = {spelling: kind for kind, spellings in STOP_SPELLINGS.items() for spelling in spellings}
# Where model calls state why they stopped, best first.
FINISH_ATTRIBUTES = (
    "gen_ai.response.finish_reasons",
    "gen_ai.response.finish_reason",
    "llm.finish_reason",
    "langfuse.observation.metadata.finish_reason",  # Langfuse's OpenAI wrapper, streamed: JSON
)
OUTPUT_FINISH_KEYS = ("finish_reason", "stop_reason", "finishReason")
# How enums spell a reason ahead of it: Gemini's names (`FINISH_REASON_MAX_TOKENS`), a Python
# enum member's str (`FinishReason.TOOL_CALLS`, Semantic Kernel's).
STOP_PREFIXES = ("finish_reason_", "stop_reason_", "finishreason.")
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
    for prefix in STOP_PREFIXES:
        text = text.removeprefix(prefix)
    return _KIND_OF.get(text, StopKind.OTHER)


def stop_spellings(kind: str) -> tuple[str, ...]:
    """The lower-cased spellings of one kind, for filters over the stored values."""
    return STOP_SPELLINGS.get(kind, ())


def finish_reason_of(attributes, output) -> str:
    """Why one model call stopped, as it said (`length`, `max_tokens`, `tool_calls`...), from
    its attributes or its output (a GenAI output message, an Anthropic or OpenAI response); ""
    when it did not say."""
    attributes = attributes if isinstance(attributes, dict) else {}
    for key in FINISH_ATTRIBUTES:
        value = attributes.get(key)
        if isinstance(value, list | tuple) and value:
            return str(value[-1])
        if isinstance(value, str) and value.strip("[]\"' "):
            return value.strip("[]\"' ").split('", "')[-1]
    if isinstance(output, list) and output and isinstance(output[-1], dict):
        output = output[-1]
    if isinstance(output, dict):
        for key in OUTPUT_FINISH_KEYS:
            if isinstance(output.get(key), str) and output[key]:
                return output[key]
        replies = output.get("replies")
        if isinstance(replies, list) and replies and isinstance(replies[-1], dict):
            meta = replies[-1].get("meta")  # Haystack's ChatMessage: the stop in its `meta`
            if isinstance(meta, dict) and isinstance(meta.get("finish_reason"), str):
                return meta["finish_reason"]
        choices = output.get("choices") or output.get("candidates")
        if isinstance(choices, list) and choices and isinstance(choices[-1], dict):
            for key in OUTPUT_FINISH_KEYS:
                if isinstance(choices[-1].get(key), str) and choices[-1][key]:
                    return choices[-1][key]
    return ""


def reply_finish_reason(output) -> str:
    """Why a run's last reply stopped, from the messages a LangChain run returns written as
    their fields (`{"messages": [..., {"type": "ai", "response_metadata": {"finish_reason":
    "stop"}}]}`): what a run tells whose model calls do not say (Langfuse's LangChain handler
    keeps no finish reason on its generations). "" when it does not say."""
    messages = output.get("messages") if isinstance(output, dict) else output
    if not isinstance(messages, list) or not messages or not isinstance(messages[-1], dict):
        return ""
    meta = messages[-1].get("response_metadata")
    if isinstance(meta, dict) and isinstance(meta.get("finish_reason"), str):
        return meta["finish_reason"]
    return ""

"""The reply a model call did not record, read from the next call's history: OpenLLMetry's
Gemini instrumentation before 0.58 records a reply's text only, so a call that answered with a
function call shows none (or, streamed, the text `None`: str() of the chunks' missing text),
while the next call is handed it back after what this one was handed."""

from __future__ import annotations

from collections.abc import Sequence

from traces.messages import Message, messages_read
from traces.models import SpanKind

_EMPTY = (None, "", [], {})
# A streamed reply's text where each chunk had none, joined with str().
NONE_TEXT = "None"


def reply_missing(output) -> bool:
    """A model call's recorded reply says nothing: none at all, or only the text `None`."""
    if output in _EMPTY:
        return True
    if isinstance(output, list) and len(output) == 1 and isinstance(output[0], dict):
        output = output[0]  # a one-message reply, as flattened completions are stored
        if output.get("tool_calls"):
            return False
        output = output.get("content", output.get("text"))
    return isinstance(output, str) and output.strip() == NONE_TEXT


def replies_untold(spans: Sequence) -> dict[str, Message]:
    """For each model span (in the order they happened) that recorded no reply, the assistant
    turn the next model call's history holds right after the messages this one was handed
    (the same turns, by role): by span id. Only spans without a reply are read."""
    calls = [span for span in spans if span.kind == SpanKind.LLM]
    found: dict[str, Message] = {}
    for span, after in zip(calls, calls[1:], strict=False):
        if not reply_missing(span.output) or span.input in _EMPTY or after.input in _EMPTY:
            continue
        handed = messages_read(span.input) or []
        later = messages_read(after.input) or []
        if not handed or len(later) <= len(handed):
            continue
        if [m.role for m in later[: len(handed)]] != [m.role for m in handed]:
            continue  # another conversation
        reply = later[len(handed)]
        if reply.role == "assistant" and (reply.tool_calls or reply.text.strip()):
            found[span.span_id] = reply
    return found

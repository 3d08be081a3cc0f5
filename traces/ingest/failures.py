"""When a tool call failed: one rule set for every way in.

A tool span is a failure when any of these holds, checked in this order:

1. its OpenTelemetry status is ERROR, or it carries `error.type` / `exception.type`;
2. it has an `exception` span event;
3. its result says so in a structured field: Anthropic `is_error`, MCP `isError`, a non-empty
   `error`, or `status` of `error`/`failed`;
4. its result is text that opens with an error marker: `Error:`, `Exception:`, a
   `SomethingError:` line, `Traceback (most recent call last)`, an HTTP 4xx/5xx status
   line, what a framework hands the model for a tool that raised (CrewAI's
   `Error executing tool: ...`), or one of the prose errors common coding agents' tools
   write (CODING_AGENT_ERRORS: SWE-agent's "Your proposed edit has introduced new syntax
   error(s)", the file editor's "No replacement was performed", a shell's "command not
   found", ...). A project can turn this rule off or add markers of its own
   (Project.tool_error_*).

An empty result is never a failure here: tools such as a scratchpad `think` return nothing by
design. Whether an empty result matters is the trajectory checks' call, which know the tool's
declared output.
"""

from __future__ import annotations

import re
from http import HTTPStatus

from traces.messages import ToolResult
from traces.models import SpanKind

FAILED_STATUSES = {"error", "failed", "failure"}
TEXT_ERROR_OPENINGS = re.compile(
    r"\s*(?:(?:error|exception|fatal)\s*[:\-!]|traceback \(most recent call last\)"
    r"|http(?:/\d(?:\.\d)?)?\s+[45]\d\d\b"
    # what a framework hands the model for a tool that raised (CrewAI: `Error executing tool:`)
    r"|error (?:while |when )?(?:executing|running|calling|invoking) (?:the )?tool\b)",
    re.IGNORECASE,
)
EXCEPTION_LINE = re.compile(r"\s*[A-Z][A-Za-z.]*(?:Error|Exception)\b\s*[:(]")
# "404 Not Found", "503 Service Unavailable": the standard reason phrases only.
_HTTP_ERROR_LINES = "|".join(
    re.escape(f"{status.value} {status.phrase}") for status in HTTPStatus if status.value >= 400
)
HTTP_STATUS_LINE = re.compile(rf"\s*(?:{_HTTP_ERROR_LINES})\b", re.IGNORECASE)
# Prose errors of coding agents' tools, as the result's opening: SWE-agent's edit and shell
# tools, the str_replace_editor file tool (OpenHands, Anthropic's), Claude Code's tool errors.
CODING_AGENT_ERRORS = re.compile(
    r"\s*(?:your proposed edit has introduced new syntax error"
    r"|your edit was not applied"
    r"|no replacement was performed"
    r"|the path \S+ does not exist"
    r"|invalid `\w+` parameter"
    r"|<tool_use_error>"
    r"|(?:command|execution) timed out"
    r"|(?:ba|z)?sh: (?:line \d+: )?\S+: (?:command not found|no such file or directory))",
    re.IGNORECASE,
)
MESSAGE_LIMIT = 500
_TOOL = SpanKind.TOOL  # read once: a metaclass attribute lookup, and this runs a span


def structured_failure(output, events: list[dict] | None) -> str:
    """The failure a tool span's events or structured result report; "" when none."""
    for event in events or ():
        if event.get("name") == "exception":
            attrs = event.get("attributes") or {}
            parts = [attrs.get("exception.type"), attrs.get("exception.message")]
            return ": ".join(str(p) for p in parts if p) or "exception"
    if isinstance(output, dict):
        if output.get("is_error") is True or output.get("isError") is True:
            return _short(output.get("content") or output.get("error") or "tool error")
        error = output.get("error")
        if error not in (None, "", False, {}, []):
            return _short(error)
        status = output.get("status")
        if isinstance(status, str) and status.lower() in FAILED_STATUSES:
            return _short(output.get("message") or output.get("detail") or f"status {status}")
    return ""


def text_failure(output, extra_markers: tuple[str, ...] = ()) -> str:
    """The error line a text result opens with; "" when it reads as a normal result."""
    text = _result_text(output)
    if not text:
        return ""
    lowered = text.lstrip().lower()
    if any(
        rule.match(text)
        for rule in (TEXT_ERROR_OPENINGS, EXCEPTION_LINE, HTTP_STATUS_LINE, CODING_AGENT_ERRORS)
    ) or any(lowered.startswith(marker.lower()) for marker in extra_markers if marker):
        return _short(text.strip().splitlines()[0])
    return ""


def result_failed(result: ToolResult, *, detect_text: bool = True) -> bool:
    """A result handed back to the model says its call failed: flagged so (`is_error`), or read
    so by rules 3 and 4 for a tool span's result, rule 4 only with `detect_text`
    (Project.tool_error_text_detection). The checks (metrics.steps, metrics.told_failures) and
    the judge's reading (traces.reading) ask this of the same result."""
    return result.is_error or bool(
        structured_failure(result.content, None) or (detect_text and text_failure(result.content))
    )


def tool_failures_mark(records, *, detect_text: bool, extra_markers: tuple[str, ...]) -> None:
    """Mark tool spans whose text result is an error report (rule 4), in place."""
    if not detect_text:
        return
    for record in records:
        if record.kind == _TOOL and record.status != "error":
            message = text_failure(record.output, extra_markers)
            if message:
                record.status = "error"
                record.error_message = message


def _result_text(output) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, dict) and isinstance(output.get("content"), str) and len(output) <= 2:
        return output["content"]
    if isinstance(output, list) and output and isinstance(output[0], dict):
        first = output[0]  # Anthropic/MCP content blocks
        if first.get("type") == "text" and isinstance(first.get("text"), str):
            return first["text"]
    return ""


def _short(value) -> str:
    text = value if isinstance(value, str) else str(value)
    return text[:MESSAGE_LIMIT]

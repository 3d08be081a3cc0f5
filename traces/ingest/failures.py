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
   (Project.tool_error_*, read as one FailureRule by everything that judges a result).

An empty result is never a failure here: tools such as a scratchpad `think` return nothing by
design. Whether an empty result matters is the trajectory checks' call, which know the tool's
declared output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from http import HTTPStatus

from traces.messages import ToolResult
from traces.models import Project, SpanKind, Trace
from traces.project_cache import failure_rules_by_project

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


@dataclass(frozen=True)
class FailureRule:
    """How a project reads a tool result's failure by its text (rule 4): whether it does at all
    (Project.tool_error_text_detection; off, its own markers are not read either) and the
    openings it adds (Project.tool_error_markers). Ingest, the checks (metrics.steps), the
    trace's error count (metrics.told_failures) and the judge's reading (traces.reading) all
    judge a result by the same one."""

    detect_text: bool = True
    extra_markers: tuple[str, ...] = ()


DEFAULT_FAILURE_RULE = FailureRule()
# Flags and structured errors only: what holds whatever a project's rule.
NO_TEXT_RULE = FailureRule(detect_text=False)


def failure_rule_build(detect_text: bool, markers) -> FailureRule:
    """The rule a project's two settings make."""
    return FailureRule(
        detect_text=detect_text is not False,
        extra_markers=tuple(text for text in (str(marker) for marker in markers or ()) if text),
    )


def project_failure_rule(project: Project | None) -> FailureRule:
    """A project's rule; the default one where there is no project (a guardrail check without)."""
    if project is None:
        return DEFAULT_FAILURE_RULE
    return failure_rule_build(project.tool_error_text_detection, project.tool_error_markers)


def trace_failure_rule(trace: Trace) -> FailureRule:
    """A stored trace's project's rule: from its project when the trace loaded it, else read
    at most once per PROJECT_REMEMBERED_SECONDS for the project (traces.project_cache)."""
    if Trace._meta.get_field("project").is_cached(trace):
        return project_failure_rule(trace.project)
    return failure_rules_by_project.get(trace.project_id, lambda: _rule_read(trace.project_id))


def _rule_read(project_id: int) -> FailureRule:
    row = (
        Project.objects.filter(pk=project_id)
        .values_list("tool_error_text_detection", "tool_error_markers")
        .first()
    )
    return failure_rule_build(*row) if row else DEFAULT_FAILURE_RULE


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


def text_failure(output, rule: FailureRule = DEFAULT_FAILURE_RULE) -> str:
    """The error line a text result opens with, as `rule` reads text; "" when it reads as a
    normal result."""
    if not rule.detect_text:
        return ""
    text = _result_text(output)
    if not text:
        return ""
    lowered = text.lstrip().lower()
    if any(
        opening.match(text)
        for opening in (TEXT_ERROR_OPENINGS, EXCEPTION_LINE, HTTP_STATUS_LINE, CODING_AGENT_ERRORS)
    ) or any(lowered.startswith(marker.lower()) for marker in rule.extra_markers):
        return _short(text.strip().splitlines()[0])
    return ""


def result_text_readable(output) -> bool:
    """Whether a result has text that rule 4 could read as a failure, under some project's rule."""
    return bool(_result_text(output))


def result_failed(result: ToolResult, rule: FailureRule = DEFAULT_FAILURE_RULE) -> bool:
    """A result handed back to the model says its call failed: flagged so (`is_error`), or read
    so by rules 3 and 4 for a tool span's result, rule 4 as the project's `rule` reads text.
    The checks (metrics.steps, metrics.told_failures) and the judge's reading (traces.reading)
    ask this of the same result."""
    return result.is_error or bool(
        structured_failure(result.content, None) or text_failure(result.content, rule)
    )


def tool_failures_mark(records, rule: FailureRule) -> None:
    """Mark tool spans whose text result is an error report (rule 4), in place."""
    if not rule.detect_text:
        return
    for record in records:
        if record.kind == _TOOL and record.status != "error":
            message = text_failure(record.output, rule)
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

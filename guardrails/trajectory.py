"""A trajectory the agent sends to be checked, read in memory the way ingest reads it.

Spans are read by ingest's own span-tree reader (span_tree.py), so what the guardrail accepts
ingest accepts, and derived span ids match the stored trace's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from evalsite_checks.steps import PENDING

from core.errors import NON_FIELD, InvalidInput
from metrics.steps import SpanFacts, TraceFacts
from traces.ingest.failures import DEFAULT_FAILURE_RULE, FailureRule, tool_failures_mark
from traces.ingest.records import SpanRecord
from traces.ingest.span_tree import TRACE_ID_MAX, optional_str, span_tree_spans
from traces.ingest.transcripts import transcript_span_tree
from traces.models import SourceFormat, SpanKind

_EPOCH = datetime.min.replace(tzinfo=UTC)
NEXT_CALL_SPAN_ID = "next_call"


@dataclass
class TrajectoryFacts:
    """The trace-level values the checks read (the fields a stored Trace has)."""

    task: str = ""
    final_answer: str = ""
    stop_reason: str = ""
    context: dict = field(default_factory=dict)
    attributes: dict = field(default_factory=dict)
    root_span_id: str = ""


@dataclass
class ParsedTrajectory:
    facts: TraceFacts
    spans: list[SpanFacts]
    external_id: str
    # Whether the sender named the trace (`trace_id`), rather than us hashing its content.
    named: bool


def _prefixed(exc: InvalidInput, prefix: str) -> InvalidInput:
    return InvalidInput(prefix if exc.field == NON_FIELD else f"{prefix}.{exc.field}", exc.message)


def _root_facts(tree: dict) -> tuple[TrajectoryFacts, str]:
    context = tree.get("context") or {}
    if not isinstance(context, dict):
        raise InvalidInput("context", "Expected an object.")
    tools = tree.get("available_tools")
    if tools is not None and not isinstance(tools, list):
        raise InvalidInput("available_tools", "Expected a list of tool definitions.")
    if tools is not None:
        context = {**context, "available_tools": tools}
    facts = TrajectoryFacts(
        task=optional_str(tree, "task", "") or "",
        final_answer=optional_str(tree, "final_answer", "") or "",
        stop_reason=optional_str(tree, "stop_reason", "", 100) or "",
        context=context,
        attributes=tree.get("attributes") if isinstance(tree.get("attributes"), dict) else {},
    )
    return facts, optional_str(tree, "trace_id", "", TRACE_ID_MAX) or ""


def trajectory_parse(payload, rule: FailureRule = DEFAULT_FAILURE_RULE) -> ParsedTrajectory:
    """Span records in the order they happened, from a span tree or a transcript.

    Read as ingest reads them (the same validation and conventions, tool failures read by the
    project's `rule`) but only what the checks need: no costs, tokens or content hash. Errors
    name the field under `trajectory.`.
    """
    if not isinstance(payload, dict):
        raise InvalidInput("trajectory", "Expected a span tree or transcript object.")
    fmt = payload.get("format")
    try:
        if fmt in (SourceFormat.ANTHROPIC, SourceFormat.OPENAI) or (
            fmt is None and "messages" in payload and "children" not in payload
        ):
            tree, _canonical, _format = transcript_span_tree(payload)
        elif fmt in (None, SourceFormat.SPAN_TREE):
            tree = payload
        else:
            raise InvalidInput(
                "format", f"Unknown format {fmt!r}; use span_tree, anthropic or openai."
            )
        facts, external_id = _root_facts(tree)
        records = span_tree_spans(tree, external_id)
    except InvalidInput as exc:
        raise _prefixed(exc, "trajectory") from exc
    except RecursionError as exc:
        raise InvalidInput("trajectory", "The trajectory is nested too deeply.") from exc
    tool_failures_mark(records, rule)
    # Stable: spans without times keep the order they were sent in, as ingest stores them.
    records.sort(key=lambda r: (r.started_at is None, r.started_at or _EPOCH))
    facts.root_span_id = records[0].span_id if records else ""
    named = bool(payload.get("trace_id"))
    return ParsedTrajectory(facts, records, external_id if named else "", named=named)


def pending_call_record(tool: str, arguments, call_id: str = "", parent: str = "") -> SpanRecord:
    """The tool call the agent is about to make, as a span whose result nobody knows yet."""
    return SpanRecord(
        trace_external_id="",
        span_id=call_id or NEXT_CALL_SPAN_ID,
        parent_span_id=parent,
        name=tool,
        kind=SpanKind.TOOL,
        input=arguments,
        status=PENDING,
        tool_name=tool,
        component=tool,
    )

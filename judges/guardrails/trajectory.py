"""A trajectory the agent sends to be checked, read in memory the way ingest reads it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from rest_framework.exceptions import ValidationError

from judges.trajectory.steps import PENDING, SpanFacts, TraceFacts
from traces.ingest.failures import tool_failures_mark
from traces.ingest.records import SpanRecord
from traces.ingest.span_tree import span_tree_records
from traces.ingest.transcripts import transcript_records
from traces.models import Project, SourceFormat, SpanKind

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


def _prefixed(exc: ValidationError, prefix: str) -> ValidationError:
    detail = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
    return ValidationError(
        {
            prefix if key == "non_field_errors" else f"{prefix}.{key}": value
            for key, value in detail.items()
        }
    )


def trajectory_parse(project: Project | None, payload) -> ParsedTrajectory:
    """Span records in the order they happened, from a span tree or a transcript.

    Errors name the field under `trajectory.`; tool failures are read with the project's
    markers, as ingest would store them.
    """
    if not isinstance(payload, dict):
        raise ValidationError({"trajectory": ["Expected a span tree or transcript object."]})
    fmt = payload.get("format")
    try:
        if fmt in (SourceFormat.ANTHROPIC, SourceFormat.OPENAI) or (
            fmt is None and "messages" in payload and "children" not in payload
        ):
            records, extras, external_id, _format = transcript_records(payload)
        elif fmt in (None, SourceFormat.SPAN_TREE):
            records, extras, external_id = span_tree_records(payload)
        else:
            raise ValidationError(
                {"format": [f"Unknown format {fmt!r}; use span_tree, anthropic or openai."]}
            )
    except ValidationError as exc:
        raise _prefixed(exc, "trajectory") from exc
    except RecursionError as exc:
        raise ValidationError({"trajectory": ["The trajectory is nested too deeply."]}) from exc
    tool_failures_mark(
        records,
        detect_text=project.tool_error_text_detection if project else True,
        extra_markers=tuple(str(m) for m in (project.tool_error_markers if project else ())),
    )
    # Stable: spans without times keep the order they were sent in, as ingest stores them.
    records.sort(key=lambda r: (r.started_at is None, r.started_at or _EPOCH))
    root = next((r for r in records if r.is_root), None)
    trace_fields: dict = {}
    for record in records:
        for key, value in record.trace_fields.items():
            trace_fields.setdefault(key, value)
    facts = TrajectoryFacts(
        task=extras.task or trace_fields.get("task") or "",
        final_answer=extras.final_answer or trace_fields.get("final_answer") or "",
        stop_reason=extras.stop_reason or trace_fields.get("stop_reason") or "",
        context=extras.context or {},
        attributes=extras.attributes or (root.attributes if root else {}),
        root_span_id=root.span_id if root else "",
    )
    return ParsedTrajectory(facts, records, external_id, named=bool(payload.get("trace_id")))


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

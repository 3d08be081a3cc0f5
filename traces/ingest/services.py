"""Ingest entry points: span-tree JSON, transcripts and OTLP requests, stored by ingest.store."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from rest_framework.exceptions import ValidationError

from evalsite.api import ApplicationError
from traces.ingest import otlp
from traces.ingest.span_tree import span_tree_records
from traces.ingest.store import spans_store
from traces.ingest.transcripts import transcript_records
from traces.models import Project, SourceFormat, Trace

DEFAULT_PROJECT_SLUG = "default"


def project_for_ingest(slug: str | None, *, field: str = "project") -> Project:
    """The project named by slug; without one, the "default" project (created on first use)."""
    if not slug:
        project, _ = Project.objects.get_or_create(
            slug=DEFAULT_PROJECT_SLUG, defaults={"name": "Default"}
        )
        return project
    project = Project.objects.filter(slug=slug).first()
    if project is None:
        raise ApplicationError(
            f"Unknown project {slug!r}. Create it first or leave it out to use 'default'.",
            field=field,
            code="unknown_project",
            status_code=403,
        )
    return project


def _nesting_guard(ingest):
    """JSON nested deeper than Python recurses is bad input, not a server error."""

    @functools.wraps(ingest)
    def guarded(*args, **kwargs):
        try:
            return ingest(*args, **kwargs)
        except RecursionError as exc:
            message = "The trace is nested too deeply."
            raise ValidationError({"non_field_errors": [message]}) from exc

    return guarded


@_nesting_guard
def ingest_span_tree(project: Project, payload: dict) -> Trace:
    """Store one span-tree JSON trace (`name`, `type`, `input`, `output`, `children`)."""
    records, extras, external_id = span_tree_records(payload)
    traces = spans_store(project, records, SourceFormat.SPAN_TREE, {external_id: extras})
    return traces[external_id]


@_nesting_guard
def ingest_transcript(project: Project, payload: dict) -> Trace:
    """Store an Anthropic Messages or OpenAI chat transcript as a span tree."""
    records, extras, external_id, source_format = transcript_records(payload)
    traces = spans_store(project, records, source_format, {external_id: extras})
    return traces[external_id]


def ingest_payload(project: Project, payload) -> Trace:
    """One API/JSONL payload: a transcript when it says so or has `messages`, else a span tree."""
    if not isinstance(payload, dict):
        raise ApplicationError("A trace must be a JSON object.", field="non_field_errors")
    fmt = payload.get("format")
    if fmt in (SourceFormat.ANTHROPIC, SourceFormat.OPENAI) or (
        fmt is None and "messages" in payload and "children" not in payload
    ):
        return ingest_transcript(project, payload)
    if fmt not in (None, SourceFormat.SPAN_TREE):
        raise ApplicationError(
            f"Unknown format {fmt!r}; use span_tree, anthropic or openai.", field="format"
        )
    return ingest_span_tree(project, payload)


@dataclass
class OtlpIngestResult:
    span_count: int
    stored_count: int
    traces: list[Trace]

    @property
    def duplicate_count(self) -> int:
        return self.span_count - self.stored_count

    @property
    def warning(self) -> str:
        if self.duplicate_count:
            return f"{self.duplicate_count} spans were already stored; they were left unchanged."
        return ""


@_nesting_guard
def ingest_otlp(
    *, body: bytes, content_type: str, content_encoding: str = "", project_slug: str | None = None
) -> OtlpIngestResult:
    """Decode and store one OTLP export request, all or nothing.

    The project is the header's slug, else each resource's `evalsite.project`, else "default".
    """
    raw = otlp.body_decompress(body, content_encoding, settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    batch = otlp.otlp_records(otlp.otlp_request_decode(raw, content_type))
    stored = 0
    touched: list[Trace] = []
    with transaction.atomic():
        for resource_project, records in batch.records_by_project.items():
            slug = project_slug or resource_project
            field = "x-evalsite-project" if project_slug else otlp.PROJECT_ATTRIBUTE
            project = project_for_ingest(slug, field=field)
            traces = spans_store(
                project, records, SourceFormat.OTLP, batch.extras_by_project[resource_project]
            )
            stored += sum(t.new_span_count for t in traces.values())
            touched.extend(traces.values())
    return OtlpIngestResult(batch.span_count, stored, touched)

"""Ingest entry points: span-tree JSON, transcripts and OTLP requests, stored by ingest.store."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction

from core.errors import NON_FIELD, ApplicationError, InvalidInput
from traces.completion import trace_complete
from traces.ingest import otlp, otlp_logs, otlp_wire
from traces.ingest.jaeger import jaeger_records
from traces.ingest.logs_join import span_logs_join
from traces.ingest.span_tree import span_tree_records
from traces.ingest.store import STORE_ATTEMPTS, StoredTrace, spans_store
from traces.ingest.trace_rows import TraceCreatedMeanwhile
from traces.ingest.transcripts import transcript_records
from traces.models import Project, SourceFormat, Trace
from traces.project_cache import projects_by_slug
from traces.projects import project_resolve


def _nesting_guard(ingest):
    """JSON nested deeper than Python recurses is bad input, not a server error."""

    @functools.wraps(ingest)
    def guarded(*args, **kwargs):
        try:
            return ingest(*args, **kwargs)
        except RecursionError as exc:
            message = "The trace is nested too deeply."
            raise InvalidInput(NON_FIELD, message) from exc

    return guarded


@_nesting_guard
def ingest_span_tree(project: Project, payload: dict) -> Trace:
    """Store one span-tree JSON trace (`name`, `type`, `input`, `output`, `children`)."""
    records, extras, external_id = span_tree_records(payload)
    return _store_whole(project, records, SourceFormat.SPAN_TREE, extras, external_id)


@_nesting_guard
def ingest_transcript(project: Project, payload: dict) -> Trace:
    """Store an Anthropic Messages or OpenAI chat transcript as a span tree."""
    records, extras, external_id, source_format = transcript_records(payload)
    return _store_whole(project, records, source_format, extras, external_id)


def _store_whole(project, records, source_format, extras, external_id) -> Trace:
    """A trace that arrives in one request is complete on arrival: judging starts at once.

    A posted tree whose root names a parent is a fragment of a larger trace; it waits for the
    settle sweep like OTLP spans do.
    """
    whole = any(record.is_root for record in records)
    with transaction.atomic():
        stored = spans_store(project, records, source_format, {external_id: extras})[external_id]
        if whole and stored.completed_at is None and stored.new_span_count:
            trace_complete(stored.pk, whole=True)
        return Trace.objects.get(pk=stored.pk)


@_nesting_guard
def ingest_jaeger(project: Project, payload: dict) -> list[Trace]:
    """Store every trace of a Jaeger query-API JSON export; each is whole, so complete."""
    records, extras = jaeger_records(payload)
    with transaction.atomic():
        stored = spans_store(project, records, SourceFormat.JAEGER, extras)
        rooted = {r.trace_external_id for r in records if r.is_root}
        for external_id, trace in stored.items():
            if external_id in rooted and trace.completed_at is None and trace.new_span_count:
                trace_complete(trace.pk, whole=True)
        keys = [trace.pk for trace in stored.values()]
        return sorted(Trace.objects.filter(pk__in=keys), key=lambda t: keys.index(t.pk))


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


# The first this many invalid spans of a request are named in its answer (a 512-span export of
# a broken exporter would otherwise get a 512-part message).
INVALID_SPANS_NAMED = 10


@dataclass
class OtlpIngestResult:
    span_count: int
    stored_count: int
    traces: list[StoredTrace]
    repeated_count: int = 0  # repeats of a span id within the request
    rejected_count: int = 0  # of those, the ones that said something else: not stored
    invalid: tuple[str, ...] = ()  # spans that could not be read, each with its reason

    @property
    def refused_count(self) -> int:
        """Spans of the request not stored: OTLP partial_success.rejected_spans."""
        return self.rejected_count + len(self.invalid)

    @property
    def duplicate_count(self) -> int:
        """Spans stored by an earlier request, left as they were."""
        return self.span_count - self.stored_count - self.repeated_count

    @property
    def warning(self) -> str:
        parts = []
        if self.invalid:
            shown = INVALID_SPANS_NAMED
            more = len(self.invalid) - shown
            parts.append(
                f"{len(self.invalid)} spans could not be stored: "
                + "; ".join(self.invalid[:shown])
                + (f"; and {more} more." if more > 0 else ".")
            )
        if self.rejected_count:
            parts.append(
                f"{self.rejected_count} spans reused a span id of this request with different "
                "content; the first span with each id was stored and these were rejected."
            )
        if self.repeated_count > self.rejected_count:
            parts.append(
                f"{self.repeated_count - self.rejected_count} spans were sent twice in this "
                "request; each was stored once."
            )
        if self.duplicate_count:
            parts.append(
                f"{self.duplicate_count} spans were already stored; they were left unchanged."
            )
        return " ".join(parts)


@_nesting_guard
def ingest_otlp(
    *, body: bytes, content_type: str, content_encoding: str = "", project_slug: str | None = None
) -> OtlpIngestResult:
    """Decode and store one OTLP export request, all or nothing.

    The project of each resource is traces.projects.project_resolve's: the header's slug, else
    the resource's `evalsite.project`, else "default".
    """
    raw = otlp_wire.body_decompress(body, content_encoding, settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    for _ in range(STORE_ATTEMPTS - 1):
        try:
            return _otlp_store(raw, content_type, project_slug)
        except TraceCreatedMeanwhile:
            continue  # another request made one of its new traces: the next attempt extends it
        except IntegrityError:
            # A project this process remembers may have been deleted by another since: read
            # the projects afresh (a missing one is made again) and store the request again.
            projects_by_slug.clear()
    return _otlp_store(raw, content_type, project_slug)


def _otlp_store(raw: bytes, content_type: str, project_slug: str | None) -> OtlpIngestResult:
    batch = otlp.otlp_batch(raw, content_type)
    stored = 0
    touched: list[StoredTrace] = []
    with transaction.atomic():
        for resource_project, records in batch.records_by_project.items():
            project = project_resolve(
                header=project_slug, resource=resource_project, remembered=True
            )
            traces = spans_store(
                project,
                records,
                SourceFormat.OTLP,
                batch.extras_by_project[resource_project],
                savepoint=False,  # ingest_otlp starts the whole request over instead
            )
            stored += sum(t.new_span_count for t in traces.values())
            touched.extend(traces.values())
    return OtlpIngestResult(
        batch.span_count, stored, touched, batch.repeated, batch.conflicting, batch.invalid
    )


@dataclass
class OtlpLogsIngestResult:
    record_count: int
    joined: int  # records joined to their stored spans
    pending: int  # records kept until their span arrives
    rejected: int  # records that name no span: not stored

    @property
    def warning(self) -> str:
        if not self.rejected:
            return ""
        return (
            f"{self.rejected} log records carry no trace and span id, so they cannot be joined "
            "to a span; they were not stored."
        )


def ingest_otlp_logs(
    *, body: bytes, content_type: str, content_encoding: str = "", project_slug: str | None = None
) -> OtlpLogsIngestResult:
    """Decode one OTLP logs export request and join its records to their spans (now, or when
    the spans come). The project is chosen as for spans."""
    raw = otlp_wire.body_decompress(body, content_encoding, settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    batch = otlp_logs.logs_batch(otlp_logs.logs_request_decode(raw, content_type))
    joined = pending = 0
    with transaction.atomic():
        for resource_project, events_by_span in batch.events_by_project.items():
            if not events_by_span:
                continue
            project = project_resolve(header=project_slug, resource=resource_project)
            now_joined, now_pending = span_logs_join(project, events_by_span)
            joined += now_joined
            pending += now_pending
    return OtlpLogsIngestResult(batch.record_count, joined, pending, batch.unjoinable)

"""Bulk import: one trace per JSONL line; a bad line is reported by number, the rest land."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.db import transaction
from rest_framework.exceptions import APIException, ValidationError

from core.errors import ApplicationError
from traces.ingest.jaeger import is_jaeger_export
from traces.ingest.services import ingest_jaeger, ingest_payload
from traces.models import Project
from traces.projects import project_resolve, project_slug_resolve


@dataclass
class LineError:
    line: int
    message: str
    fields: dict = field(default_factory=dict)


@dataclass
class ImportReport:
    trace_ids: list[int] = field(default_factory=list)
    errors: list[LineError] = field(default_factory=list)
    blank_lines: int = 0

    @property
    def created(self) -> int:
        return len(self.trace_ids)


def error_fields(exc: Exception) -> dict[str, list[str]]:
    """A validation error as {field path: [messages]}, the API error shape's `fields`."""
    if isinstance(exc, ApplicationError):
        return {exc.field or "non_field_errors": [exc.message]}
    detail = exc.detail if isinstance(exc, APIException) else str(exc)
    out: dict[str, list[str]] = {}

    def walk(value, prefix):
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{prefix}.{key}" if prefix else str(key))
        elif isinstance(value, list):
            out.setdefault(prefix or "non_field_errors", []).extend(str(v) for v in value)
        else:
            out.setdefault(prefix or "non_field_errors", []).append(str(value))

    walk(detail, "")
    return out


def _message(fields: dict[str, list[str]]) -> str:
    key, messages = next(iter(fields.items()), ("", ["invalid"]))
    return messages[0] if key == "non_field_errors" else f"{key}: {messages[0]}"


def traces_import_jsonl(
    project: Project,
    lines: Iterable[bytes | str],
    *,
    on_line: Callable[[int], None] | None = None,
) -> ImportReport:
    """Ingest each line in its own transaction; a line may name its own `project` over the
    request's (traces.projects). A line that is a Jaeger export stores each trace in it."""
    report = ImportReport()
    for number, raw in enumerate(lines, start=1):
        if on_line:
            on_line(number)
        text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
        if not text.strip():
            report.blank_lines += 1
            continue
        try:
            payload = json.loads(text)
        except RecursionError:
            report.errors.append(LineError(number, "The JSON is nested too deeply.", {}))
            continue
        except ValueError as exc:
            report.errors.append(LineError(number, f"Not valid JSON: {exc}.", {"line": [str(exc)]}))
            continue
        try:
            with transaction.atomic():
                line_project = _line_project(project, payload)
                if is_jaeger_export(payload):
                    traces = ingest_jaeger(line_project, payload)
                else:
                    traces = [ingest_payload(line_project, payload)]
        except (ValidationError, ApplicationError) as exc:
            fields = error_fields(exc)
            report.errors.append(LineError(number, _message(fields), fields))
            continue
        report.trace_ids.extend(trace.pk for trace in traces)
    return report


def _line_project(project: Project, payload) -> Project:
    """The line's project: the one it names, else the request's `project` (already read)."""
    named = payload.get("project") if isinstance(payload, dict) else None
    if project_slug_resolve(named=named, header=project.slug).slug == project.slug:
        return project
    return project_resolve(named=named, header=project.slug)

"""JSONL export (streamed, one example a line) and import (validated whole, then written)."""

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from golden.content import canonical_json, example_provenance
from golden.example_schema import CONTENT_FIELDS, ExampleInvalid, example_data_clean
from golden.held_out_traces import example_traces, traces_held_out_sync
from golden.masking import example_data_masked
from golden.models import DatasetVersion, ExampleOrigin, GoldenExample
from golden.reference_trajectory import reference_from_answer_key
from golden.selectors import dataset_entries_visible
from golden.services import dataset_version_create
from judges.models import Rubric
from metrics.coverage import checks_only_outcome, outcome_only_note
from reviews.audit import audit_event_record

EXPORT_PARTS = ("open", "held_out")
MAX_IMPORT_ERRORS = 200
IMPORTED_FIELDS = [
    *(name for name in CONTENT_FIELDS if name not in ("key", "outcome_rubric")),
    "outcome_rubric",
    "updated_at",
]


def dataset_version_export_lines(user, version: DatasetVersion, part: str) -> Iterator[str]:
    """Yield the JSONL lines of one part of a version, reading entries in small batches.

    The caller checks that the user may see the part; this filters once more regardless.
    """
    entries = (
        dataset_entries_visible(user, version)
        .filter(held_out=part == "held_out")
        .select_related("example__source_trace", "example__created_by")
        .order_by("example_key")
    )
    for entry in entries.iterator(chunk_size=200):
        line = dict(entry.content)
        if entry.example is not None:
            line["provenance"] = example_provenance(entry.example)
        yield canonical_json(line) + "\n"


@dataclass
class ImportLineError:
    source: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.source} line {self.line}: {self.field}: {self.message}"


class ImportInvalid(Exception):
    """At least one line was wrong; nothing was imported."""

    def __init__(self, errors: list[ImportLineError]):
        super().__init__(f"{len(errors)} line(s) invalid; nothing was imported.")
        self.errors = errors


@dataclass
class ImportResult:
    created: int = 0
    updated: int = 0
    version: DatasetVersion | None = None
    keys: list[str] = field(default_factory=list)
    # Keys of imported examples that check nothing but the outcome under the default matcher.
    outcome_only: list[str] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        if not self.outcome_only:
            return []
        keys = ", ".join(self.outcome_only[:20]) + (" ..." if len(self.outcome_only) > 20 else "")
        return [f"{len(self.outcome_only)} example(s) ({keys}): {outcome_only_note()}"]


def _decode(raw) -> str:
    return raw.decode("utf-8") if isinstance(raw, bytes) else raw


def _answer_key_apply(data: dict, label: str, number: int, errors: list) -> bool:
    """Turn a line's `answer_key` into its reference trajectory; False when it is wrong."""
    if "answer_key" not in data:
        return True
    if data.get("reference_trajectory"):
        errors.append(
            ImportLineError(
                label, number, "answer_key", "give answer_key or reference_trajectory, not both"
            )
        )
        return False
    steps, problems = reference_from_answer_key(data.pop("answer_key"))
    for path, message in problems.items():
        errors.append(ImportLineError(label, number, path, message))
    data["reference_trajectory"] = steps
    return not problems


def _parse(sources, errors: list[ImportLineError]) -> list[dict]:
    rubric_names = set(Rubric.objects.values_list("name", flat=True))
    seen: dict[str, str] = {}
    cleaned_lines = []
    for label, lines in sources:
        for number, raw in enumerate(lines, start=1):
            if len(errors) >= MAX_IMPORT_ERRORS:
                return cleaned_lines
            try:
                text = _decode(raw).strip()
            except UnicodeDecodeError:
                errors.append(ImportLineError(label, number, "line", "is not UTF-8 text"))
                continue
            if not text:
                continue
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                errors.append(ImportLineError(label, number, "line", f"not JSON: {exc.msg}"))
                continue
            if isinstance(data, dict):
                data.pop("provenance", None)
                if not _answer_key_apply(data, label, number, errors):
                    continue
            try:
                cleaned = example_data_clean(data, allow_key=True)
            except ExampleInvalid as exc:
                for path, message in exc.errors.items():
                    errors.append(ImportLineError(label, number, path, message))
                continue
            key = cleaned.get("key")
            if key and key in seen:
                errors.append(
                    ImportLineError(label, number, "key", f"repeats the key of {seen[key]}")
                )
                continue
            if key:
                seen[key] = f"{label} line {number}"
            rubric = cleaned["outcome_rubric"]
            if rubric and rubric not in rubric_names:
                errors.append(
                    ImportLineError(label, number, "outcome_rubric", f"no rubric named {rubric!r}")
                )
                continue
            cleaned_lines.append(cleaned)
    return cleaned_lines


def dataset_import_jsonl(
    *, sources: Iterable[tuple[str, Iterable]], user, version_name: str = "", note: str = ""
) -> ImportResult:
    """Import examples from JSONL sources (label, lines); all lines or none.

    Lines are matched to examples by ``key`` (a new example when absent or unknown). With a
    version name, the imported examples are snapshot as a new version, so an exported version
    imports to the same content hash.
    """
    errors: list[ImportLineError] = []
    cleaned_lines = _parse(sources, errors)
    if errors:
        raise ImportInvalid(errors)
    if not cleaned_lines:
        raise ImportInvalid([ImportLineError("upload", 0, "file", "has no examples")])
    rubrics = {
        r.name: r
        for r in Rubric.objects.filter(name__in={c["outcome_rubric"] for c in cleaned_lines})
    }
    result = ImportResult()
    with transaction.atomic():
        existing = GoldenExample.objects.select_for_update().in_bulk(
            [c["key"] for c in cleaned_lines if c.get("key")], field_name="key"
        )
        created, updated = [], []
        now = timezone.now()
        for cleaned in cleaned_lines:
            example = existing.get(cleaned.get("key"))
            project_id = (
                example.source_trace.project_id if example and example.source_trace_id else None
            )
            cleaned, _ = example_data_masked(cleaned, project_id)
            if example is None:
                example = GoldenExample(origin=ExampleOrigin.IMPORTED, created_by=user)
                if cleaned.get("key"):
                    example.key = cleaned["key"]
                created.append(example)
            else:
                example.updated_at = now
                updated.append(example)
            for name, value in cleaned.items():
                if name not in ("key", "outcome_rubric"):
                    setattr(example, name, value)
            example.outcome_rubric = rubrics.get(cleaned["outcome_rubric"])
            result.keys.append(example.key)
            if checks_only_outcome(cleaned):
                result.outcome_only.append(example.key)
        GoldenExample.objects.bulk_create(created, batch_size=500)
        GoldenExample.objects.bulk_update(updated, IMPORTED_FIELDS, batch_size=500)
        traces_held_out_sync(example_traces(created + updated))
        result.created, result.updated = len(created), len(updated)
        audit_event_record(
            actor=user,
            action="golden_import",
            object_type="golden_dataset",
            object_id="*",
            after={"created": result.created, "updated": result.updated},
        )
        if version_name:
            result.version = dataset_version_create(
                name=version_name,
                note=note,
                user=user,
                examples=GoldenExample.objects.filter(key__in=result.keys),
            )
    return result

"""Traces with their spans, verdicts, resolutions, red flags and feedback, streamed as JSONL or
CSV in chunks: memory stays flat however many traces a filter matches."""

import csv
from collections import defaultdict
from collections.abc import Iterable, Iterator
from decimal import Decimal
from itertools import islice

import orjson

from core.csv_cells import csv_cell
from judges.models import Judgment, Verdict
from metrics.models import RedFlag
from reviews.models import Annotation, ReviewItem
from traces.api import SpanOut, TraceDetailOut
from traces.context_attributes import end_user_of
from traces.models import TRACE_SPAN_TOTALS, Feedback, Span, Trace, TraceTag

CHUNK = 200
# The same fields the trace API answers with: an export line is the API's trace and spans,
# plus what judges, people and end users said of it.
RELATED_NAMES = {"project": "project__slug", "session": "session__external_id"}
TRACE_FIELDS = [
    RELATED_NAMES.get(name, name)
    for name in TraceDetailOut.Meta.fields
    # many a trace (read on their own, as the spans are), or read from the context
    if name not in ("spans", "tags", "end_user")
]
SPAN_FIELDS = list(SpanOut.Meta.fields)
CSV_COLUMNS = [
    "id",
    "project",
    "trace_id",
    "session",
    "task",
    "final_answer",
    "agent_name",
    "agent_version",
    "task_type",
    "tags",
    "end_user",
    *TRACE_SPAN_TOTALS,
    "verdicts",
    "resolved_scores",
    "red_flags",
    "thumbs_up",
    "thumbs_down",
]


def _default(value):
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def _grouped(rows: Iterable[dict], key: str = "trace_id") -> dict[int, list[dict]]:
    groups: dict[int, list[dict]] = defaultdict(list)
    for row in rows:
        groups[row.pop(key)].append(row)
    return groups


def _chunk_records(ids: list[int]) -> Iterator[dict]:
    """Every trace of one chunk with what belongs to it, in the order of `ids`."""
    traces = {row["id"]: row for row in Trace.objects.filter(pk__in=ids).values(*TRACE_FIELDS)}
    tags = _grouped(TraceTag.objects.filter(trace_id__in=ids).values("trace_id", "name"))
    spans = _grouped(
        Span.objects.filter(trace_id__in=ids)
        .order_by("trace_id", "position", "pk")
        .values("trace_id", *SPAN_FIELDS)
    )
    passes = defaultdict(list)
    for row in (
        Judgment.objects.filter(trace_id__in=ids)
        .order_by("run_id", "pass_index")
        .values("trace_id", "run_id", "pass_index", "status", "score", "parse_status")
    ):
        passes[(row.pop("trace_id"), row.pop("run_id"))].append(row)
    verdicts = _grouped(
        Verdict.objects.filter(trace_id__in=ids)
        .order_by("pk")
        .values(
            "trace_id",
            "run_id",
            "rubric_version__rubric__name",
            "rubric_version__number",
            "config__name",
            "status",
            "score",
            "reason",
            "stale",
        )
    )
    annotations = defaultdict(list)
    for row in (
        Annotation.objects.filter(item__trace_id__in=ids, undone_at__isnull=True)
        .order_by("pk")
        .values("item_id", "annotator__username", "score", "explanation", "failure_tags")
    ):
        annotations[row.pop("item_id")].append(row)
    resolutions = _grouped(
        ReviewItem.objects.filter(trace_id__in=ids)
        .order_by("pk")
        .values("trace_id", "id", "reason", "status", "resolved_score", "resolved_at")
    )
    flags = _grouped(
        RedFlag.objects.filter(trace_id__in=ids)
        .order_by("pk")
        .values("trace_id", "kind", "span__span_id", "detail")
    )
    feedback = _grouped(
        Feedback.objects.filter(trace_id__in=ids)
        .order_by("pk")
        .values("trace_id", "name", "kind", "value", "category", "comment", "span_id", "end_user")
    )
    for trace_id in ids:
        trace = traces.get(trace_id)
        if trace is None:
            continue  # deleted while the export ran
        trace["project"] = trace.pop("project__slug")
        trace["session"] = trace.pop("session__external_id")
        trace["trace_id"] = trace.pop("external_id")
        trace["tags"] = [tag["name"] for tag in tags.get(trace_id, [])]
        trace["end_user"] = end_user_of(trace["context"])
        trace["spans"] = spans.get(trace_id, [])
        trace["verdicts"] = [
            {
                "run": v["run_id"],
                "rubric": v["rubric_version__rubric__name"],
                "rubric_version": v["rubric_version__number"],
                "config": v["config__name"],
                "status": v["status"],
                "score": v["score"],
                "reason": v["reason"],
                "stale": v["stale"],
                "passes": passes.get((trace_id, v["run_id"]), []),
            }
            for v in verdicts.get(trace_id, [])
        ]
        trace["resolutions"] = [
            {**item, "annotations": annotations.get(item["id"], [])}
            for item in resolutions.get(trace_id, [])
        ]
        trace["red_flags"] = [
            {"kind": f["kind"], "span_id": f["span__span_id"], "detail": f["detail"]}
            for f in flags.get(trace_id, [])
        ]
        trace["feedback"] = feedback.get(trace_id, [])
        yield trace


def export_records(traces) -> Iterator[dict]:
    """The traces of a queryset (in its order), chunk by chunk."""
    ids = traces.values_list("pk", flat=True).iterator(chunk_size=2000)
    while chunk := list(islice(ids, CHUNK)):
        yield from _chunk_records(chunk)


def export_jsonl(traces) -> Iterator[bytes]:
    for record in export_records(traces):
        yield orjson.dumps(record, default=_default, option=orjson.OPT_APPEND_NEWLINE)


class _Line:
    """csv.writer's file: hands each written row back instead of keeping it."""

    def write(self, value: str) -> str:
        return value


def _csv_row(record: dict) -> list:
    verdicts = "; ".join(
        f"{v['rubric']} v{v['rubric_version']}: {v['status']}"
        + ("" if v["score"] is None else f" {v['score']:g}")
        for v in record["verdicts"]
    )
    resolved = "; ".join(
        f"{r['resolved_score']:g}" for r in record["resolutions"] if r["resolved_score"] is not None
    )
    thumbs = [f["value"] for f in record["feedback"] if f["kind"] == "thumbs"]
    row = {
        **record,
        "verdicts": verdicts,
        "resolved_scores": resolved,
        "red_flags": "; ".join(sorted({f["kind"] for f in record["red_flags"]})),
        "tags": "; ".join(record["tags"]),
        "thumbs_up": thumbs.count(1.0),
        "thumbs_down": thumbs.count(0.0),
    }
    return [csv_cell(row[column]) for column in CSV_COLUMNS]


def export_csv(traces) -> Iterator[str]:
    writer = csv.writer(_Line())
    yield writer.writerow(CSV_COLUMNS)
    for record in export_records(traces):
        yield writer.writerow(_csv_row(record))

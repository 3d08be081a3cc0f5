"""Reads that feed the judging pages and API: run progress, version diffs, trace selection."""

import difflib
import json
from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet, Sum
from django.http import QueryDict

from judges.models import (
    JudgeRun,
    Judgment,
    JudgmentStatus,
    Rubric,
    RubricVersion,
    Verdict,
    VerdictStatus,
)
from judges.rubrics import VERSION_FIELDS
from metrics.models import ToolEffect
from traces.filters import TraceFilter
from traces.models import Trace
from traces.selectors import trace_blind_rule_ask, traces_visible

# A version diff compares what shapes the prompt and the score; the note is commentary.
DIFF_FIELDS = tuple(name for name in VERSION_FIELDS if name != "note")


def rubric_list() -> QuerySet:
    return Rubric.objects.annotate(version_count=Count("versions")).order_by("name")


def rubric_versions(rubric: Rubric) -> list[RubricVersion]:
    return list(rubric.versions.select_related("created_by").order_by("-number"))


@dataclass
class FieldDiff:
    field: str
    lines: list[tuple[str, str]]  # (css class, text)


def _field_text(version: RubricVersion, name: str) -> str:
    value = getattr(version, name)
    if isinstance(value, list | dict):
        return json.dumps(value, indent=1, ensure_ascii=False)
    return str(value)


def rubric_version_diff(old: RubricVersion, new: RubricVersion) -> list[FieldDiff]:
    """A unified diff per field that changed between two versions."""
    diffs = []
    for name in DIFF_FIELDS:
        before, after = _field_text(old, name), _field_text(new, name)
        if before == after:
            continue
        lines = []
        for line in difflib.unified_diff(
            before.splitlines(), after.splitlines(), f"v{old.number}", f"v{new.number}", lineterm=""
        ):
            if line.startswith(("---", "+++")):
                continue
            kind = {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "same")
            lines.append((kind, line))
        diffs.append(FieldDiff(name, lines))
    return diffs


def judge_run_progress(run: JudgeRun) -> dict:
    """Counts, tokens and cost of a run so far, in two aggregate queries."""
    passes = Judgment.objects.filter(run=run).aggregate(
        total=Count("pk"),
        done=Count("pk", filter=Q(status=JudgmentStatus.DONE)),
        failed=Count("pk", filter=Q(status=JudgmentStatus.FAILED)),
        cancelled=Count("pk", filter=Q(status=JudgmentStatus.CANCELLED)),
        running=Count("pk", filter=Q(status=JudgmentStatus.RUNNING)),
        cached=Count("pk", filter=Q(served_from_cache=True)),
        input_tokens=Sum("input_tokens", default=0),
        output_tokens=Sum("output_tokens", default=0),
        cache_read_tokens=Sum("cache_read_tokens", default=0),
        cache_write_tokens=Sum("cache_write_tokens", default=0),
        cost_usd=Sum("cost_usd", default=0),
    )
    verdicts = Verdict.objects.filter(run=run).aggregate(
        total=Count("pk"),
        agreed=Count("pk", filter=Q(status=VerdictStatus.AGREED)),
        disputed=Count("pk", filter=Q(status=VerdictStatus.DISPUTED)),
        failed=Count("pk", filter=Q(status=VerdictStatus.FAILED)),
        stale=Count("pk", filter=Q(stale=True)),
    )
    finished = passes["done"] + passes["failed"] + passes["cancelled"]
    percent = round(100 * finished / passes["total"]) if passes["total"] else 100
    return {
        "passes": passes,
        "verdicts": verdicts,
        "finished_passes": finished,
        "percent": percent,
        "cost_usd": str(passes["cost_usd"]),
    }


RUN_RELATED = ("rubric_version__rubric", "config", "created_by")


def judge_runs_recent(limit: int = 50) -> QuerySet:
    return JudgeRun.objects.select_related(*RUN_RELATED).order_by("-pk")[:limit]


def judge_runs_listed(*, status: str = "", online: bool | None = None) -> QuerySet:
    """Runs newest first, narrowed to a status and to online or requested runs when asked."""
    runs = JudgeRun.objects.select_related(*RUN_RELATED).order_by("-pk")
    if status:
        runs = runs.filter(status=status)
    if online is not None:
        runs = runs.filter(online=online)
    return runs


def judge_run_get(run_id: int) -> JudgeRun:
    return JudgeRun.objects.select_related(*RUN_RELATED).get(pk=run_id)


def run_verdicts(user, run: JudgeRun, limit: int = 200) -> QuerySet:
    """A run's latest verdicts on traces the user may see and is not labelling blind."""
    return (
        traces_visible(user, Verdict.objects.filter(run=run), via="trace")
        .exclude(trace_id__in=trace_blind_rule_ask(user))
        .select_related("trace")
        .only("pk", "status", "score", "stale", "reason", "trace__id", "trace__task")
        .order_by("-pk")[:limit]
    )


def traces_for_filter(spec: dict) -> QuerySet:
    """Traces matching an API/page filter: project slug, agent, version, task type, dates."""
    traces = Trace.objects.all()
    if spec.get("project"):
        traces = traces.filter(project__slug=spec["project"])
    for name in ("agent_name", "agent_version", "task_type"):
        if spec.get(name):
            traces = traces.filter(**{name: spec[name]})
    if spec.get("since"):
        traces = traces.filter(started_at__gte=spec["since"])
    if spec.get("until"):
        traces = traces.filter(started_at__lt=spec["until"])
    traces = traces.order_by("-pk")
    if spec.get("limit"):
        traces = traces[: spec["limit"]]
    return traces


def trace_external_ids_unknown(external_ids: list[str]) -> list[str]:
    """The hex trace ids among these that no stored trace carries."""
    known = set(
        Trace.objects.filter(external_id__in=external_ids).values_list("external_id", flat=True)
    )
    return [value for value in external_ids if value not in known]


def traces_for_run_selection(
    *, external_ids: list[str], trace_list_query: str, spec: dict
) -> tuple[QuerySet, dict]:
    """The traces a judge-run form picked, and the filter the run records.

    Hex ids win; else a trace list query (the list page's own filters); else the spec.
    """
    if external_ids:
        return Trace.objects.filter(external_id__in=external_ids), {"trace_ids": external_ids}
    if trace_list_query:
        listed = TraceFilter(QueryDict(trace_list_query), queryset=traces_visible(None))
        traces = listed.qs.order_by("-pk")
        if spec.get("limit"):
            traces = traces[: spec["limit"]]
        return traces, {"trace_list": trace_list_query, **spec}
    return traces_for_filter(spec), spec


def traces_for_prompt_preview() -> QuerySet:
    """Traces a rubric author may preview a prompt on: never the source of a held-out example.

    Held-out golden data must not shape prompt edits; the reverse relation keeps judges from
    importing golden.
    """
    return traces_visible(None, Trace.objects.all())


def tool_catalogue_rows(project) -> QuerySet:
    """A project's tools with what calling each does, writes first, then by name."""
    return (
        ToolEffect.objects.filter(project=project)
        .select_related("updated_by")
        .order_by("-effect", "tool")
    )

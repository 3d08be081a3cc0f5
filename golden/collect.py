"""Collecting traces into the golden dataset from anywhere a trace is shown: one trace, or
every trace of a trace-list filter, each saved as a draft example that a curator checks.

A draft's reference trajectory is drafted exactly as a promotion drafts it
(services.trace_example_draft). Its expected outcome is the trace's final answer when
people (else the judge, agreed) scored it a pass; otherwise it is left for the curator.
"""

from dataclasses import dataclass, field

from django.db import transaction

from accounts.roles import CURATOR, has_role
from core.errors import ApplicationError
from golden.example_schema import example_data_clean
from golden.models import ExampleOrigin, GoldenExample
from golden.services import (
    example_add,
    resolved_score_passes,
    trace_example_draft,
)
from judges.models import Verdict, VerdictStatus
from reviews.audit import audit_event_record
from reviews.models import ReviewItem, ReviewStatus

# One request drafts at most this many; a wider filter is refused, naming the count.
MAX_TRACES_AT_ONCE = 500


@dataclass
class CollectReport:
    created: list[GoldenExample] = field(default_factory=list)
    # Traces that already back an example (a draft or not): nothing is added twice.
    skipped_trace_ids: list[int] = field(default_factory=list)


def _judged_outcome(trace) -> tuple[bool, str, str | None, list]:
    """(passed, explanation, rubric name, failure tags) from people first, then the judge."""
    item = (
        ReviewItem.objects.filter(
            trace=trace, session=None, status=ReviewStatus.RESOLVED, resolved_score__isnull=False
        )
        .select_related("rubric_version__rubric")
        .order_by("-resolved_at", "-pk")
        .first()
    )
    if item is not None:
        answer = item.annotations.filter(undone_at__isnull=True).order_by("-created_at").first()
        version = item.rubric_version
        return (
            resolved_score_passes(version, item.resolved_score),
            answer.explanation if answer else "",
            version.rubric.name if version else None,
            answer.failure_tags if answer else [],
        )
    verdict = (
        Verdict.objects.filter(
            trace=trace, session=None, status=VerdictStatus.AGREED, score__isnull=False
        )
        .select_related("rubric_version__rubric")
        .order_by("-created_at")
        .first()
    )
    if verdict is not None:
        version = verdict.rubric_version
        return version.score_passes(verdict.score), "", version.rubric.name, []
    return False, "", None, []


def golden_drafts_from_traces(*, traces, user) -> CollectReport:
    """Save each trace (a queryset the user may see) as a draft golden example."""
    if not has_role(user, CURATOR):
        raise ApplicationError(
            "Adding to the golden dataset needs the curator role.", status_code=403
        )
    total = traces.count()
    if total == 0:
        raise ApplicationError("No traces to add: the selection is empty.", field="traces")
    if total > MAX_TRACES_AT_ONCE:
        raise ApplicationError(
            f"{total} traces match; add at most {MAX_TRACES_AT_ONCE} at once (narrow the filter).",
            field="traces",
        )
    report = CollectReport()
    backed = set(
        GoldenExample.objects.filter(source_trace__in=traces).values_list(
            "source_trace_id", flat=True
        )
    )
    with transaction.atomic():
        for trace in traces.order_by("pk"):
            if trace.pk in backed:
                report.skipped_trace_ids.append(trace.pk)
                continue
            passed, explanation, rubric_name, tags = _judged_outcome(trace)
            data, _ = trace_example_draft(
                trace,
                passed=passed,
                explanation=explanation,
                rubric_name=rubric_name,
                failure_tags=tags,
            )
            example = GoldenExample(
                origin=ExampleOrigin.COLLECTED, draft=True, source_trace=trace, created_by=user
            )
            example_add(
                example,
                example_data_clean(data),
                action="golden_example_draft",
                after={"trace": trace.pk},
            )
            report.created.append(example)
    return report


def golden_example_confirm(*, example: GoldenExample, user) -> GoldenExample:
    """A curator checked a draft: it joins the dataset (and the next version)."""
    if not has_role(user, CURATOR):
        raise ApplicationError("Confirming examples needs the curator role.", status_code=403)
    changed = GoldenExample.objects.filter(pk=example.pk, draft=True).update(draft=False)
    if changed:
        audit_event_record(
            actor=user,
            action="golden_example_confirm",
            object_type="golden_example",
            object_id=example.pk,
        )
    example.refresh_from_db()
    return example

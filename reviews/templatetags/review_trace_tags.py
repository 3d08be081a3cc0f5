"""The trace page's "Score this trace" card and the people's scores on the trace, as a tag so
the trace page (traces app) shows them without importing reviews."""

from django import template

from judges.models import RubricVersion, RubricVersionStatus
from reviews.models import Annotation, FailureTag
from reviews.selectors import version_criteria_questions, version_score_choices

register = template.Library()
SCORES_SHOWN = 50


def _newest_approved_versions() -> list[RubricVersion]:
    versions = RubricVersion.objects.select_related("rubric").filter(
        status=RubricVersionStatus.APPROVED
    )
    newest: dict[int, RubricVersion] = {}
    for version in versions.order_by("rubric__name", "-number"):
        newest.setdefault(version.rubric_id, version)
    return list(newest.values())


def _chosen(versions: list[RubricVersion], wanted: str, trace) -> RubricVersion | None:
    by_id = {str(version.pk): version for version in versions}
    if wanted in by_id:
        return by_id[wanted]
    judged = trace.verdicts.filter(session=None).order_by("-created_at").first()
    if judged is not None:
        # The rubric that judged the trace, in its newest approved version.
        same = [v for v in versions if v.rubric_id == judged.rubric_version.rubric_id]
        if same:
            return same[0]
    return versions[0] if versions else None


@register.inclusion_tag("reviews/_trace_scoring.html", takes_context=True)
def trace_scoring(context, trace, blind=False):
    """The scoring form (a rubric's scale, explanation, failure tags) and, unless the view is
    blind, every person's active score on this trace from any queue or from this page."""
    request = context["request"]
    versions = _newest_approved_versions()
    version = _chosen(versions, request.GET.get("score_rubric", ""), trace)
    scores = []
    if not blind:
        scores = list(
            Annotation.objects.filter(item__trace=trace, undone_at__isnull=True)
            .select_related("annotator", "item__rubric_version__rubric")
            .order_by("-created_at", "-pk")[:SCORES_SHOWN]
        )
    return {
        "trace": trace,
        "blind": blind,
        "versions": versions,
        "version": version,
        "score_choices": version_score_choices(version) if version else [],
        "criteria": version_criteria_questions(version),
        "failure_tags": FailureTag.choices,
        "scores": scores,
        "csrf_token": context.get("csrf_token"),
    }

"""Writes for rubrics: every edit is a new immutable version, checked before it is saved."""

from django.db import transaction

from judges.models import Rubric, RubricVersion
from judges.prompts import TemplateProblem, rubric_templates_check

VERSION_FIELDS = (
    "system_prompt",
    "user_template",
    "evaluation_steps",
    "rubric_text",
    "criteria",
    "score_type",
    "score_min",
    "score_max",
    "output_format",
    "trace_format",
    "status",
    "note",
)


class RubricTemplateError(ValueError):
    """The templates do not render; each problem names the field and the line."""

    def __init__(self, problems: list[TemplateProblem]):
        super().__init__("; ".join(f"{p.field}: {p}" for p in problems))
        self.problems = problems


def rubric_version_create(*, rubric: Rubric, user=None, **fields) -> RubricVersion:
    """Save the next version of a rubric; raises RubricTemplateError when a template is broken."""
    unknown = set(fields) - set(VERSION_FIELDS)
    if unknown:
        raise TypeError(f"not rubric version fields: {sorted(unknown)}")
    if fields.get("score_min", 0) >= fields.get("score_max", 1):
        raise RubricTemplateError(
            [TemplateProblem("score_max", None, "The top score must be above the bottom score.")]
        )
    version = RubricVersion(rubric=rubric, created_by=user, **fields)
    problems = rubric_templates_check(version)
    if problems:
        raise RubricTemplateError(problems)
    with transaction.atomic():
        # The rubric row lock hands out version numbers one at a time.
        Rubric.objects.select_for_update().filter(pk=rubric.pk).first()
        latest = rubric.versions.order_by("-number").values_list("number", flat=True).first()
        version.number = (latest or 0) + 1
        version.save()
    return version

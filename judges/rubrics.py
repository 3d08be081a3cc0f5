"""Writes for rubrics: every edit is a new immutable version, checked before it is saved."""

from django.db import transaction

from core.errors import ApplicationError
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


def rubric_create(
    *, name: str, description: str = "", task_type: str = "", user=None, **version_fields
) -> Rubric:
    """A new rubric with its first version; nothing is stored when a template is broken.

    Raises ApplicationError when the name is taken, RubricTemplateError for bad templates.
    """
    name = name.strip()
    if not name:
        raise ApplicationError("Give the rubric a name.", field="name")
    with transaction.atomic():
        if Rubric.objects.filter(name__iexact=name).exists():
            raise ApplicationError(f"A rubric named {name!r} exists already.", field="name")
        rubric = Rubric.objects.create(
            name=name, description=description, task_type=task_type, created_by=user
        )
        # A template problem raises here and rolls the new rubric back with it.
        rubric_version_create(rubric=rubric, user=user, **version_fields)
    return rubric


def rubric_version_fields(version: RubricVersion | None) -> dict:
    """A version's fields as a form's initial data, to start a new rubric from a seed."""
    if version is None:
        return {}
    fields = {name: getattr(version, name) for name in VERSION_FIELDS}
    fields["evaluation_steps"] = "\n".join(version.evaluation_steps or [])
    fields["status"], fields["note"] = (
        "draft",
        f"Started from {version.rubric.name} v{version.number}.",
    )
    return fields

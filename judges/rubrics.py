"""Writes for rubrics: every edit is a new immutable version, checked before it is saved."""

from django.db import transaction
from django.utils import timezone

from core.errors import ApplicationError
from judges.models import Rubric, RubricVersion, ScoreType
from judges.prompts import TemplateProblem, rubric_templates_check
from judges.session_online import sessions_cursor_start

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


ONLINE_FIELDS = ("judge_new_traces", "sample_rate", "judge_idle_sessions", "session_idle_minutes")
# The longest quiet time a rubric may wait for before judging a session: a week.
SESSION_IDLE_MINUTES_MAX = 7 * 24 * 60


def rubric_online_update(
    *,
    rubric: Rubric,
    judge_new_traces: bool,
    sample_rate: float,
    judge_idle_sessions: bool,
    session_idle_minutes: int | None,
    now=None,
) -> Rubric:
    """Set what the rubric judges online: new traces, idle sessions, or both, at a sample rate."""
    if not 0 <= sample_rate <= 1:
        raise ApplicationError("Sample rate must be between 0 and 1.", field="sample_rate")
    if session_idle_minutes is not None and session_idle_minutes < 1:
        raise ApplicationError("Give at least one minute.", field="session_idle_minutes")
    if judge_idle_sessions and rubric.task_type:
        raise ApplicationError(
            "A rubric for one task type judges traces of that type; a session mixes them.",
            field="judge_idle_sessions",
        )
    latest = rubric.latest_version()
    pairwise = latest is not None and latest.score_type == ScoreType.PAIRWISE
    if pairwise and (judge_new_traces or judge_idle_sessions):
        raise ApplicationError(
            "A pairwise rubric compares two trajectories; it does not judge traces one by one.",
            field="judge_new_traces",
        )
    switched_on = judge_idle_sessions and not rubric.judge_idle_sessions
    rubric.judge_new_traces, rubric.sample_rate = judge_new_traces, sample_rate
    rubric.judge_idle_sessions = judge_idle_sessions
    rubric.session_idle_minutes = session_idle_minutes
    fields = list(ONLINE_FIELDS)
    if switched_on:
        # From here on: conversations already quiet are not judged, as with new traces.
        sessions_cursor_start(rubric, now or timezone.now())
        fields += ["sessions_swept_through", "sessions_swept_through_id"]
    rubric.save(update_fields=fields)
    return rubric

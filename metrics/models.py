"""The data of trajectory metrics: the red flags a trace raised (and that it was checked), what
each of a project's tools does, and a project's red-flag thresholds. The tables keep the names
they were created under in the judges app."""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from traces.models import Project, Span, Trace


class RedFlag(models.Model):
    """A deterministic trajectory check that fired on a span of a trace."""

    class Kind(models.TextChoices):
        PREREQUISITE = "prerequisite", "Called before its prerequisite"
        HALLUCINATED_PARAMETER = "hallucinated_parameter", "Hallucinated parameter"
        LOOP = "loop", "Repeated identical calls"
        CONFIDENT_AFTER_FAILURE = "confident_after_failure", "Confident answer after a failed tool"
        MAX_STEPS = "max_steps_exceeded", "Step limit exceeded"
        JUDGE_INJECTION = "judge_injection", "Instructions aimed at the judge"
        PREMATURE_STOP = "premature_stop", "Stopped before finishing"
        UNCLEAN_STOP = "unclean_stop", "Truncated, refused or errored stop"

    trace = models.ForeignKey(Trace, on_delete=models.CASCADE, related_name="red_flags")
    # No database constraint: a key to a table partitioned by day must hold the day. Red flags
    # go with their trace, before its spans (traces.retention); the ORM cascades span deletes.
    span = models.ForeignKey(
        Span,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="red_flags",
        db_constraint=False,
    )
    kind = models.CharField(max_length=40, choices=Kind.choices)
    detail = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "judges_redflag"
        indexes = [models.Index(fields=["trace", "kind"], name="redflag_trace_kind")]


class RedFlagCheck(models.Model):
    """That a trace's red flags were computed; spans arriving later remove it."""

    trace = models.OneToOneField(Trace, on_delete=models.CASCADE, related_name="red_flag_check")
    checked_at = models.DateTimeField()

    class Meta:
        db_table = "judges_redflagcheck"


class ToolEffect(models.Model):
    """A project's tool and what calling it does: reads (no lasting change) or writes state.

    Trajectory matching compares writes for correctness and counts reads only for efficiency.
    """

    class Effect(models.TextChoices):
        READ = "read", "Read"
        WRITE = "write", "Write"

    class Source(models.TextChoices):
        DEFAULT = "default", "Guessed from the name and definition"
        CURATOR = "curator", "Set by a curator"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="tool_effects")
    tool = models.CharField(max_length=200)
    effect = models.CharField(max_length=10, choices=Effect.choices)
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.DEFAULT)
    definition = models.JSONField(default=dict, blank=True, help_text="As the agent sent it.")
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "judges_tooleffect"
        constraints = [
            models.UniqueConstraint(fields=["project", "tool"], name="tool_effect_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.tool}: {self.effect}"


class GuardrailPolicy(models.Model):
    """A project's thresholds for the red-flag checks, at runtime and after a trace settles."""

    project = models.OneToOneField(
        Project, on_delete=models.CASCADE, related_name="guardrail_policy"
    )
    loop_repeats = models.PositiveSmallIntegerField(
        default=3,
        validators=[MinValueValidator(2), MaxValueValidator(100)],
        help_text="Identical or near-identical calls that make a loop.",
    )
    max_steps = models.PositiveIntegerField(
        default=30,
        validators=[MinValueValidator(1), MaxValueValidator(10_000)],
        help_text="Tool calls allowed in one trajectory.",
    )
    tool_prerequisites = models.JSONField(
        default=dict, blank=True, help_text="Tool -> tools that must have succeeded before it."
    )
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "judges_guardrailpolicy"
        verbose_name_plural = "guardrail policies"

    def __str__(self) -> str:
        return f"guardrails of {self.project}"

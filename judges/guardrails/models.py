"""A project's guardrail thresholds, and the runtime decisions agents asked to keep. Models of
the judges app (judges/models.py imports this module so the app registers them)."""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from traces.models import Project


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
        verbose_name_plural = "guardrail policies"

    def __str__(self) -> str:
        return f"guardrails of {self.project}"


class GuardrailDecision(models.Model):
    """A runtime guardrail answer the agent asked to keep (`record: true`)."""

    class Decision(models.TextChoices):
        ALLOW = "allow"
        BLOCK = "block"

    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="guardrail_decisions"
    )
    # The id the agent exports the trace under; the trace may arrive after the decision.
    trace_external_id = models.CharField(max_length=64)
    decision = models.CharField(max_length=10, choices=Decision.choices)
    # The first blocking check's kind (a RedFlag kind), counted on the overview.
    blocked_by = models.CharField(max_length=40, blank=True)
    next_tool = models.CharField(max_length=200, blank=True)
    steps = models.PositiveIntegerField(default=0)
    # [{"check", "span_id", "detail", "fallback", "blocking"}] as answered.
    checks = models.JSONField(default=list, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            # The trace page lists the decisions recorded under its external id.
            models.Index(fields=["project", "trace_external_id"], name="guardrail_trace"),
        ]

    def __str__(self) -> str:
        return f"{self.decision} {self.next_tool} on {self.trace_external_id[:12]}"

"""The runtime decisions agents asked to keep. The thresholds they were decided by are
metrics' (`metrics.models.GuardrailPolicy`); the table keeps the name it was created under in
the judges app."""

from django.db import models

from core.created_by import CreatedBy
from traces.models import Project


class GuardrailDecision(CreatedBy):
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

    class Meta:
        db_table = "judges_guardraildecision"
        indexes = [
            # The trace page lists the decisions recorded under its external id.
            models.Index(fields=["project", "trace_external_id"], name="guardrail_trace"),
        ]

    def __str__(self) -> str:
        return f"{self.decision} {self.next_tool} on {self.trace_external_id[:12]}"

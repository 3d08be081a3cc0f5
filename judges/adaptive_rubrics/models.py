"""Task types: curators' rules that assign them, and where each trace's type came from. Models
of the judges app (judges/models.py imports this module so the app registers them)."""

from django.conf import settings
from django.db import models

from core.created_by import CreatedBy
from traces.models import Trace


class TaskTypeSource(models.TextChoices):
    ATTRIBUTE = "attribute", "Sent by the agent"
    RULE = "rule", "Curator rule"
    CLASSIFIER = "classifier", "LLM classifier"
    PERSON = "person", "Corrected by a person"


class TaskTypeRule(CreatedBy):
    """A curator's rule: a trace whose task text matches and that called these tools is a type."""

    task_type = models.CharField(max_length=100)
    task_pattern = models.CharField(
        max_length=500, blank=True, help_text="Regular expression over the task text."
    )
    tools = models.JSONField(default=list, blank=True, help_text="Every one of these was called.")
    priority = models.IntegerField(default=0)

    class Meta:
        ordering = ["-priority", "pk"]

    def __str__(self) -> str:
        return f"{self.task_type}: /{self.task_pattern}/ {self.tools}"


class TaskTypeAssignment(models.Model):
    """Where a trace's task type came from; a person's correction is never overwritten."""

    trace = models.OneToOneField(
        Trace, on_delete=models.CASCADE, related_name="task_type_assignment"
    )
    task_type = models.CharField(max_length=100)
    source = models.CharField(max_length=20, choices=TaskTypeSource.choices)
    rule = models.ForeignKey(TaskTypeRule, null=True, blank=True, on_delete=models.SET_NULL)
    previous_task_type = models.CharField(max_length=100, blank=True)
    corrected_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    updated_at = models.DateTimeField(auto_now=True)

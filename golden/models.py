import uuid

from django.db import models

from core.created_by import CreatedBy
from judges.models import Rubric
from reviews.models import ReviewItem
from traces.models import Trace


def example_key_new() -> str:
    return uuid.uuid4().hex


class ExampleOrigin(models.TextChoices):
    PROMOTED = "promoted", "Promoted from review"
    HANDWRITTEN = "handwritten", "Written by hand"
    IMPORTED = "imported", "Imported"
    COLLECTED = "collected", "Added from a trace"


class AdversarialKind(models.TextChoices):
    NONE = "", "Not adversarial"
    AMBIGUOUS_PARAMETERS = "ambiguous_parameters", "Ambiguous parameters (agent should ask)"
    EMPTY_TOOL_RESULT = "empty_tool_result", "Empty tool result"
    CONTRADICTORY_OUTPUTS = "contradictory_outputs", "Contradictory tool outputs"
    TOOL_ERROR = "tool_error", "Tool error"
    TOOL_TIMEOUT = "tool_timeout", "Tool timeout"


class GoldenExample(CreatedBy):
    # Stable across versions, exports and imports; diffs match examples by it.
    key = models.CharField(max_length=64, unique=True, default=example_key_new)
    origin = models.CharField(
        max_length=20, choices=ExampleOrigin.choices, default=ExampleOrigin.HANDWRITTEN
    )
    adversarial_kind = models.CharField(
        max_length=30, choices=AdversarialKind.choices, default="", blank=True
    )
    task = models.TextField()
    task_type = models.CharField(max_length=100, blank=True)
    context = models.JSONField(default=dict, blank=True)
    reference_trajectory = models.JSONField(
        default=list,
        blank=True,
        help_text='[{"step", "tool", "inputs", "acceptable_output_fields"}]',
    )
    expected_outcome = models.TextField(blank=True)
    outcome_rubric = models.ForeignKey(Rubric, null=True, blank=True, on_delete=models.SET_NULL)
    expected_behavior = models.TextField(blank=True)
    failure_tags = models.JSONField(default=list, blank=True)
    red_flags = models.JSONField(default=list, blank=True, help_text='[{"text", "rule"}]')
    source_trace = models.ForeignKey(
        Trace, null=True, blank=True, on_delete=models.SET_NULL, related_name="golden_examples"
    )
    source_review_item = models.ForeignKey(
        ReviewItem, null=True, blank=True, on_delete=models.SET_NULL
    )
    held_out = models.BooleanField(default=False)
    # The tools an agent under test meets: schemas, recorded results, fault variants
    # (evalsite_checks/worlds/schema.py). Content: versioned and exported with the example.
    tool_world = models.JSONField(default=dict, blank=True)
    # Drafted from a trace and not yet checked by a curator: dataset versions leave it out.
    draft = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [
            models.Index(fields=["held_out", "task_type"], name="golden_heldout_type"),
            # The example list and API: newest first, stopping after one page.
            models.Index(fields=["-created_at", "-id"], name="golden_example_newest"),
        ]

    def __str__(self) -> str:
        return self.task[:80]


class DatasetVersionImmutable(Exception):
    """A dataset version or one of its entries was about to change after creation."""


class _ImmutableQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise DatasetVersionImmutable("Dataset versions cannot be changed; create a new one.")


class _ImmutableModel(models.Model):
    """Rows are written once; a later save or queryset update raises."""

    objects = _ImmutableQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise DatasetVersionImmutable("Dataset versions cannot be changed; create a new one.")
        super().save(*args, **kwargs)


class DatasetVersion(_ImmutableModel, CreatedBy):
    """An immutable snapshot of the examples; eval runs point at one."""

    name = models.CharField(max_length=200, unique=True)
    note = models.TextField(blank=True)
    content_hash = models.CharField(max_length=64)
    example_count = models.PositiveIntegerField(default=0)
    # Lets pages show people without the curator role the open count only.
    held_out_count = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return self.name


class DatasetVersionEntry(_ImmutableModel):
    version = models.ForeignKey(DatasetVersion, on_delete=models.CASCADE, related_name="entries")
    example = models.ForeignKey(GoldenExample, null=True, blank=True, on_delete=models.SET_NULL)
    example_key = models.CharField(max_length=64, help_text="Stable id across versions.")
    held_out = models.BooleanField(default=False)
    content = models.JSONField()
    content_hash = models.CharField(max_length=64)

    class Meta:
        verbose_name_plural = "dataset version entries"
        constraints = [
            models.UniqueConstraint(fields=["version", "example_key"], name="entry_unique_key"),
        ]


class EvalRun(CreatedBy):
    name = models.CharField(max_length=200)
    agent_name = models.CharField(max_length=200, blank=True)
    agent_version = models.CharField(max_length=100)
    dataset_version = models.ForeignKey(
        DatasetVersion, on_delete=models.PROTECT, related_name="eval_runs"
    )
    trials_per_task = models.PositiveSmallIntegerField(default=1)
    is_noop = models.BooleanField(default=False, help_text="A repeat of an unchanged agent.")
    # Set when the run's tool worlds were handed out: its tasks are then (example, variant).
    tool_worlds_started_at = models.DateTimeField(null=True, blank=True)
    metrics = models.JSONField(default=dict, blank=True)

    class Meta:
        # The eval-run list and the compare page's choices: newest first.
        indexes = [models.Index(fields=["-created_at", "-id"], name="evalrun_newest")]

    def __str__(self) -> str:
        return f"{self.name} ({self.agent_version})"


class EvalTrial(models.Model):
    eval_run = models.ForeignKey(EvalRun, on_delete=models.CASCADE, related_name="trials")
    entry = models.ForeignKey(DatasetVersionEntry, on_delete=models.PROTECT)
    trial_index = models.PositiveSmallIntegerField(default=0)
    # A fault variant of the example's tool world is a task of its own; "" is the base world.
    variant = models.CharField(max_length=100, blank=True, default="")
    # sha256 of the token that opens this trial's tool world; "" when none was handed out.
    tool_token_hash = models.CharField(max_length=64, blank=True, default="")
    trace = models.ForeignKey(Trace, null=True, blank=True, on_delete=models.SET_NULL)
    metrics = models.JSONField(default=dict, blank=True)
    passed = models.BooleanField(null=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["eval_run", "entry", "variant", "trial_index"], name="trial_unique"
            ),
        ]


class ToolWorldCall(models.Model):
    """One call an agent made to its trial's tool world, and what the world answered."""

    class Transport(models.TextChoices):
        HTTP = "http", "Plain HTTP"
        MCP = "mcp", "MCP"

    trial = models.ForeignKey(EvalTrial, on_delete=models.CASCADE, related_name="tool_calls")
    # 1, 2, ... in the order the world answered; faults "at the Nth call" count by it.
    sequence = models.PositiveIntegerField()
    tool = models.CharField(max_length=200)
    arguments = models.JSONField(null=True, blank=True)
    # The HTTP status the world answered with (200, an injected error, 504 for a timeout).
    status = models.PositiveSmallIntegerField()
    # What was returned: the result, the error body, or a malformed text as served.
    returned = models.JSONField(null=True, blank=True)
    # Which recording answered (its index), None when none matched.
    recording = models.IntegerField(null=True, blank=True)
    # The fault that fired ({"variant", "kind", ...}), None for a plain answer.
    fault = models.JSONField(null=True, blank=True)
    transport = models.CharField(max_length=10, choices=Transport.choices)
    # The W3C trace id from the call's traceparent header, joining the call to its span.
    trace_id = models.CharField(max_length=32, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["trial", "sequence"], name="tool_call_sequence"),
        ]

    def __str__(self) -> str:
        return f"{self.tool} #{self.sequence}"

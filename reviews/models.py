from django.conf import settings
from django.db import models

from judges.models import JudgeConfig, PairwiseVerdict, Rubric, RubricVersion, Verdict
from judges.verdict_reasons import VerdictReason
from traces.models import Project, Session, Trace


class QueueKind(models.TextChoices):
    SINGLE = "single", "One trace, scored"
    PAIRWISE = "pairwise", "Two traces of one task, compared"


class JudgeAssist(models.TextChoices):
    """What a pairwise queue's judge does once its version is calibrated against people."""

    OFF = "off", "No judge"
    PREFILL = "prefill", "The judge's pick is filled in; people confirm or change it"
    REPLACE = "replace", "The judge answers; only pairs it is unsure of go to people"


class Queue(models.Model):
    name = models.CharField(max_length=200, unique=True)
    kind = models.CharField(max_length=20, choices=QueueKind.choices, default=QueueKind.SINGLE)
    rubric = models.ForeignKey(
        Rubric, null=True, blank=True, on_delete=models.SET_NULL, related_name="queues"
    )
    project = models.ForeignKey(Project, null=True, blank=True, on_delete=models.SET_NULL)
    priority = models.IntegerField(default=0, help_text="Higher queues are worked first.")
    blind = models.BooleanField(default=False, help_text="Hide judge passes until submitted.")
    annotators_per_item = models.PositiveSmallIntegerField(default=1)
    audit_sample_rate = models.FloatField(default=0.0)
    # Pairwise queues: the queue's (pairwise) rubric judges each pair under this config; until
    # that judge version is calibrated its answers stay hidden and only measure it.
    judge_assist = models.CharField(
        max_length=20, choices=JudgeAssist.choices, default=JudgeAssist.OFF
    )
    judge_config = models.ForeignKey(
        JudgeConfig,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Blank: the default judge config.",
    )
    judge_answers_confirm_gate = models.BooleanField(
        default=False,
        help_text="Pairs the judge settled count for the gate's people confirmation.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


# The verdict's reasons come from judges, which owns them; these are the ones reviews adds.
ReviewReason = models.TextChoices(
    "ReviewReason",
    [(reason.name, (reason.value, reason.label)) for reason in VerdictReason]
    + [
        ("AUDIT_SAMPLE", ("audit_sample", "Random audit sample")),
        ("CALIBRATION", ("calibration", "Judge calibration sample")),
        ("FLAGGED", ("flagged", "Flagged by a person")),
        ("USER_FEEDBACK", ("user_feedback", "An end user gave a thumbs-down")),
        ("DIRECT", ("direct", "Scored on the trace page")),
        ("PAIRWISE", ("pairwise", "Two trajectories of one task to compare")),
    ],
)


class ReviewStatus(models.TextChoices):
    OPEN = "open"
    RESOLVED = "resolved"
    CLOSED = "closed"


class FailureTag(models.TextChoices):
    """Failure modes a reviewer can name; any other short text is a custom tag."""

    WRONG_TOOL_SELECTION = "wrong_tool_selection", "Wrong tool selection"
    HALLUCINATED_PARAMETER = "hallucinated_parameter", "Hallucinated parameter"
    UNNECESSARY_LOOP = "unnecessary_loop", "Unnecessary loop"
    PREMATURE_TERMINATION = "premature_termination", "Premature termination"


class ReviewItem(models.Model):
    queue = models.ForeignKey(Queue, on_delete=models.CASCADE, related_name="items")
    trace = models.ForeignKey(Trace, on_delete=models.CASCADE, related_name="review_items")
    # Set when the item is about a whole session (a session verdict); `trace` is its last trace.
    session = models.ForeignKey(
        Session, null=True, blank=True, on_delete=models.CASCADE, related_name="review_items"
    )
    verdict = models.ForeignKey(
        Verdict, null=True, blank=True, on_delete=models.SET_NULL, related_name="review_items"
    )
    rubric_version = models.ForeignKey(
        RubricVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="review_items"
    )
    reason = models.CharField(max_length=30, choices=ReviewReason.choices)
    detail = models.TextField(blank=True)
    # The trace's task, copied at enqueue: the queue page lists and searches it without
    # joining or scanning every trace.
    task_excerpt = models.CharField(max_length=500, blank=True)
    status = models.CharField(
        max_length=20, choices=ReviewStatus.choices, default=ReviewStatus.OPEN
    )
    priority = models.IntegerField(default=0)
    claimed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="claimed_items",
    )
    lock_expires_at = models.DateTimeField(null=True, blank=True)
    # A curator may hand an item to one annotator; only that person can then claim it.
    assigned_to = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="assigned_items",
    )
    resolved_score = models.FloatField(null=True, blank=True)
    needs_curator = models.BooleanField(default=False)
    # Who sent it to a curator by hand; undoing an annotation keeps a hand-made flag.
    flagged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="flagged_items",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # A trace (or a session) is never queued twice for one rubric version and reason.
            # A pairwise item is unique on its pair (PairwiseComparison), not on one trace.
            models.UniqueConstraint(
                fields=["trace", "rubric_version", "reason"],
                condition=models.Q(session__isnull=True) & ~models.Q(reason="pairwise"),
                name="review_item_unique_reason",
            ),
            models.UniqueConstraint(
                fields=["session", "rubric_version", "reason"],
                condition=models.Q(session__isnull=False),
                name="review_item_unique_session_reason",
            ),
            # A person holds at most one open item per queue, however many claims race.
            models.UniqueConstraint(
                fields=["queue", "claimed_by"],
                condition=models.Q(status="open", claimed_by__isnull=False),
                name="review_item_one_hold_per_queue",
            ),
        ]
        indexes = [
            # claim_next and the queue page: open items of a queue by priority, age, id.
            models.Index(
                fields=["queue", "status", "-priority", "created_at", "id"],
                name="review_item_queue_order",
            ),
            models.Index(fields=["status", "resolved_at"], name="review_item_resolved"),
        ]


class PairwiseSource(models.TextChoices):
    EVAL_RUNS = "eval_runs", "Two eval runs (compare page)"
    AGENT_VERSIONS = "agent_versions", "Two agent versions in a session"
    TRACES = "traces", "Two traces picked by hand"


class PairwiseComparison(models.Model):
    """What a pairwise item compares: a baseline and a candidate trajectory of one task, and
    the side each was shown on (drawn at random once, so every annotator sees the same)."""

    item = models.OneToOneField(ReviewItem, on_delete=models.CASCADE, related_name="pairwise")
    baseline_trace = models.ForeignKey(Trace, on_delete=models.CASCADE, related_name="+")
    candidate_trace = models.ForeignKey(Trace, on_delete=models.CASCADE, related_name="+")
    candidate_on_left = models.BooleanField()
    source = models.CharField(max_length=20, choices=PairwiseSource.choices)
    # Eval runs live in golden, to the right of reviews: their ids are kept, not a relation.
    baseline_run_id = models.BigIntegerField(null=True, blank=True)
    candidate_run_id = models.BigIntegerField(null=True, blank=True)
    task_key = models.CharField(max_length=200, blank=True)
    # "regressed" or "improved" on the compare page when the pair was made; "" otherwise.
    direction = models.CharField(max_length=20, blank=True)
    # The pairwise judge's latest answer on this pair (judged as trace = baseline).
    judge_verdict = models.ForeignKey(
        PairwiseVerdict, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The item was settled by the calibrated judge, not by people.
    settled_by_judge = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["baseline_trace", "candidate_trace"], name="pairwise_pair_unique"
            ),
        ]
        indexes = [
            # The gate's confirmation: pairs of two eval runs.
            models.Index(fields=["baseline_run_id", "candidate_run_id"], name="pairwise_runs"),
        ]


class Annotation(models.Model):
    item = models.ForeignKey(ReviewItem, on_delete=models.CASCADE, related_name="annotations")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="annotations"
    )
    score = models.FloatField()
    explanation = models.TextField(blank=True)
    failure_tags = models.JSONField(default=list, blank=True)
    criteria_results = models.JSONField(default=list, blank=True)
    blind = models.BooleanField(default=False, help_text="Made without seeing the judge.")
    is_adjudication = models.BooleanField(default=False)
    promoted = models.BooleanField(default=False, help_text="Asked for promotion to golden.")
    created_at = models.DateTimeField(auto_now_add=True)
    undone_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            # Progress and "previous item": a person's annotations by time.
            models.Index(fields=["annotator", "created_at"], name="annotation_by_annotator"),
            # The agreement cache key reads the latest undo without a scan.
            models.Index(fields=["undone_at"], name="annotation_undone"),
        ]


class ItemSkip(models.Model):
    """A person passed on an item; claim_next does not hand it to them again."""

    item = models.ForeignKey(ReviewItem, on_delete=models.CASCADE, related_name="skips")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "user"], name="item_skip_unique"),
        ]


class SavedView(models.Model):
    """A named set of queue filters (the query string of the queue page)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_review_views"
    )
    queue = models.ForeignKey(Queue, on_delete=models.CASCADE, related_name="saved_views")
    name = models.CharField(max_length=100)
    query = models.CharField(max_length=1000, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "queue", "name"], name="saved_view_unique"),
        ]


class Comment(models.Model):
    item = models.ForeignKey(ReviewItem, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT)
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)


class AuditLogAppendOnly(Exception):
    """An audit event was about to be changed or removed; the log only grows."""


class AuditEventQuerySet(models.QuerySet):
    def update(self, **kwargs):
        # Removing a person clears the actor (on_delete=SET_NULL); nothing else may change.
        if kwargs.keys() != {"actor"} or kwargs["actor"] is not None:
            raise AuditLogAppendOnly("Audit events cannot be changed.")
        return super().update(**kwargs)

    def delete(self):
        raise AuditLogAppendOnly("Audit events cannot be deleted.")


class AuditEvent(models.Model):
    """Who did what to which object, when, with the state before and after. Append-only."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    action = models.CharField(max_length=50)
    object_type = models.CharField(max_length=50)
    object_id = models.CharField(max_length=50)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["object_type", "object_id"], name="audit_object"),
            # The audit page, newest first, whole or by action or by person: a page reads one
            # page of the index, however long the log has grown.
            models.Index(fields=["-created_at", "-id"], name="audit_newest"),
            models.Index(fields=["action", "-created_at", "-id"], name="audit_action_newest"),
            models.Index(fields=["actor", "-created_at", "-id"], name="audit_actor_newest"),
        ]

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AuditLogAppendOnly("Audit events cannot be changed.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AuditLogAppendOnly("Audit events cannot be deleted.")

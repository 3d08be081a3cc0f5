from django.core.validators import MinValueValidator
from django.db import models

from core.created_by import CreatedBy
from traces.models import Project, Session, Trace


class ScoreType(models.TextChoices):
    BINARY = "binary", "Binary (0 or 1)"
    RANGE = "range", "Integer range"
    CRITERIA = "criteria", "Per-criterion yes/no"
    CONTINUOUS = "continuous", "1.0 / 0.5 / 0.0"
    # Two trajectories of one task: A, B or equal per criterion and overall (judges/pairwise.py).
    PAIRWISE = "pairwise", "Two trajectories compared (A / B / equal)"


class OutputFormat(models.TextChoices):
    EVALUATION_SUMMARY = "evaluation_summary", '{"evaluation_summary": {"score", "explanation"}}'
    SCORE_REASON = "score_reason", '{"score", "reason"}'
    SCORE_LINE = "score_line", "Last line `Score: N`"
    CRITERIA = "criteria", '{"criteria": [{"question", "met"}]}'
    BARE_NUMBER = "bare_number", "A bare number"
    PAIRWISE = "pairwise", '{"criteria": [{"question", "better", "reason"}], "overall"}'


class TraceFormat(models.TextChoices):
    SPAN_TREE = "span_tree", "Nested span tree JSON"
    TRANSCRIPT = "transcript", "Transcript"


class Rubric(CreatedBy):
    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    task_type = models.CharField(max_length=100, blank=True)
    # Online judging: new complete traces are judged at this sample rate.
    judge_new_traces = models.BooleanField(default=False)
    sample_rate = models.FloatField(default=0.05)
    # judges/session_online.py: a session quiet this long (empty: SESSION_IDLE_MINUTES) is judged.
    judge_idle_sessions = models.BooleanField(default=False)
    session_idle_minutes = models.PositiveIntegerField(
        null=True, blank=True, validators=[MinValueValidator(1)]
    )
    # How far the idle-session sweep has come: sessions are taken in (last received, id) order.
    sessions_swept_through = models.DateTimeField(null=True, blank=True)
    sessions_swept_through_id = models.BigIntegerField(default=0)
    project = models.ForeignKey(Project, null=True, blank=True, on_delete=models.SET_NULL)

    def __str__(self) -> str:
        return self.name

    def latest_version(self) -> "RubricVersion | None":
        return self.versions.order_by("-number").first()


class RubricVersionStatus(models.TextChoices):
    DRAFT = "draft"
    APPROVED = "approved"


class RubricVersion(CreatedBy):
    """Immutable once saved: editing a rubric creates the next version."""

    rubric = models.ForeignKey(Rubric, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    system_prompt = models.TextField(help_text="Sandboxed Jinja2; cached as the system block.")
    user_template = models.TextField(help_text="Sandboxed Jinja2; receives the trace.")
    evaluation_steps = models.JSONField(default=list, blank=True)
    rubric_text = models.TextField(blank=True)
    criteria = models.JSONField(
        default=list, blank=True, help_text='[{"question", "evidence", "weight"}]'
    )
    score_type = models.CharField(max_length=20, choices=ScoreType.choices)
    score_min = models.FloatField(default=0)
    score_max = models.FloatField(default=1)
    output_format = models.CharField(max_length=30, choices=OutputFormat.choices)
    trace_format = models.CharField(
        max_length=20, choices=TraceFormat.choices, default=TraceFormat.SPAN_TREE
    )
    status = models.CharField(
        max_length=20, choices=RubricVersionStatus.choices, default=RubricVersionStatus.APPROVED
    )
    note = models.CharField(max_length=500, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["rubric", "number"], name="rubric_version_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.rubric.name} v{self.number}"

    @property
    def score_range(self) -> tuple[float, float]:
        return (self.score_min, self.score_max)

    def score_passes(self, score: float) -> bool:
        """Whether a score on this scale says the agent got it right: the top of a binary
        scale, else strictly above the middle. A middle score (3 of 1-5, the 0.5 of partial
        credit) is the judge's "neither": it is not a pass, so it neither counts as a pass that
        contradicts a red flag nor makes a trace's answer a golden example's expected outcome.
        """
        if self.score_type == ScoreType.BINARY:
            return score >= self.score_max
        return score > (self.score_min + self.score_max) / 2


class JudgeConfig(models.Model):
    name = models.CharField(max_length=200, unique=True)
    provider = models.CharField(
        max_length=50,
        choices=[("anthropic", "Anthropic"), ("openai", "OpenAI-compatible")],
        default="anthropic",
    )
    base_url = models.URLField(
        blank=True, help_text="OpenAI-compatible server; blank: OPENAI_BASE_URL or OpenAI's."
    )
    model = models.CharField(max_length=200)
    temperature = models.FloatField(default=0.0)
    max_tokens = models.PositiveIntegerField(default=1024)
    passes = models.PositiveSmallIntegerField(default=2)
    tolerance = models.FloatField(default=0.0, help_text="Largest score gap still agreeing.")
    use_batch_api = models.BooleanField(default=False)

    def __str__(self) -> str:
        return self.name


class JudgeRunStatus(models.TextChoices):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    CANCELLED = "cancelled"


class JudgeRunScope(models.TextChoices):
    TRACE = "trace", "Each trace"
    SESSION = "session", "Each session, as one conversation"
    PAIR = "pair", "Each pair of trajectories, compared"


class JudgeRun(CreatedBy):
    rubric_version = models.ForeignKey(RubricVersion, on_delete=models.PROTECT, related_name="runs")
    config = models.ForeignKey(JudgeConfig, on_delete=models.PROTECT, related_name="runs")
    status = models.CharField(
        max_length=20, choices=JudgeRunStatus.choices, default=JudgeRunStatus.PENDING
    )
    trace_filter = models.JSONField(default=dict, blank=True)
    sample_rate = models.FloatField(default=1.0)
    online = models.BooleanField(default=False, help_text="Created by online judging.")
    # A session run judges each session's traces together; trace_count counts sessions then.
    scope = models.CharField(
        max_length=10, choices=JudgeRunScope.choices, default=JudgeRunScope.TRACE
    )
    trace_count = models.PositiveIntegerField(default=0)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"run {self.pk} ({self.rubric_version})"


class JudgmentStatus(models.TextChoices):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


class ParseStatus(models.TextChoices):
    OK = "ok"
    UNPARSEABLE = "unparseable"
    OUT_OF_RANGE = "out_of_range"
    CALL_FAILED = "call_failed"


class Judgment(models.Model):
    """One pass of one judge on one trace (or one session) under one rubric version."""

    # For a session pass: the session's last trace when the run began, so every page and
    # queue that shows a trace can show this pass; `session` says the judge read them all.
    trace = models.ForeignKey(Trace, on_delete=models.CASCADE, related_name="judgments")
    session = models.ForeignKey(
        Session, null=True, blank=True, on_delete=models.CASCADE, related_name="judgments"
    )
    # For a pass of a pairwise run: the other trajectory, compared with `trace`. The score is
    # then the preference for it (0 `trace`, 0.5 equal, 1 `pair_trace`), whatever side it sat.
    pair_trace = models.ForeignKey(
        Trace, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    rubric_version = models.ForeignKey(
        RubricVersion, on_delete=models.PROTECT, related_name="judgments"
    )
    config = models.ForeignKey(JudgeConfig, on_delete=models.PROTECT, related_name="judgments")
    run = models.ForeignKey(JudgeRun, on_delete=models.CASCADE, related_name="judgments")
    pass_index = models.PositiveSmallIntegerField()
    status = models.CharField(
        max_length=20, choices=JudgmentStatus.choices, default=JudgmentStatus.PENDING
    )
    score = models.FloatField(null=True, blank=True)
    explanation = models.TextField(blank=True)
    cited_spans = models.JSONField(default=list, blank=True)
    criteria_results = models.JSONField(default=list, blank=True)
    raw_response = models.TextField(blank=True)
    parse_status = models.CharField(max_length=20, choices=ParseStatus.choices, blank=True)
    error = models.TextField(blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cache_read_tokens = models.PositiveIntegerField(default=0)
    cache_write_tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    request_hash = models.CharField(max_length=64, blank=True)
    # Set when an identical earlier request answered this one without a new call.
    served_from_cache = models.BooleanField(default=False)
    # A running pass whose lease has run out belongs to whoever claims it next.
    lease_until = models.DateTimeField(null=True, blank=True)
    provider_batch_id = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["trace", "rubric_version", "config", "run", "pass_index"],
                condition=models.Q(pair_trace__isnull=True),
                name="judgment_unique_pass",
            ),
            # A trace may be compared with several others in one pairwise run.
            models.UniqueConstraint(
                fields=["trace", "pair_trace", "run", "pass_index"],
                condition=models.Q(pair_trace__isnull=False),
                name="judgment_unique_pair_pass",
            ),
            models.UniqueConstraint(
                fields=["session", "run", "pass_index"],
                condition=models.Q(session__isnull=False),
                name="judgment_unique_session_pass",
            ),
        ]
        indexes = [
            # The request cache looks up a finished judgment by its request hash.
            models.Index(fields=["request_hash"], name="judgment_request_hash"),
            # Cost and flip-rate charts group judgments by day.
            models.Index(fields=["completed_at"], name="judgment_completed"),
            # The stale-pass sweep looks for unfinished passes by status and lease.
            models.Index(fields=["status", "lease_until"], name="judgment_status_lease"),
            # "Is the run done?" after each verdict reads the run's unfinished passes alone.
            models.Index(
                fields=["run"],
                condition=models.Q(status__in=[JudgmentStatus.PENDING, JudgmentStatus.RUNNING]),
                name="judgment_run_unfinished",
            ),
        ]


class VerdictStatus(models.TextChoices):
    AGREED = "agreed"
    DISPUTED = "disputed"
    FAILED = "failed"


class Verdict(models.Model):
    """The reconciled result of all passes of one judge run on one trace (or one session)."""

    trace = models.ForeignKey(Trace, on_delete=models.CASCADE, related_name="verdicts")
    session = models.ForeignKey(
        Session, null=True, blank=True, on_delete=models.CASCADE, related_name="verdicts"
    )
    rubric_version = models.ForeignKey(
        RubricVersion, on_delete=models.PROTECT, related_name="verdicts"
    )
    config = models.ForeignKey(JudgeConfig, on_delete=models.PROTECT, related_name="verdicts")
    run = models.ForeignKey(JudgeRun, on_delete=models.CASCADE, related_name="verdicts")
    status = models.CharField(max_length=20, choices=VerdictStatus.choices)
    score = models.FloatField(null=True, blank=True)
    reason = models.TextField(blank=True)
    # Spans that arrived after judging make the verdict stale.
    stale = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["trace", "rubric_version", "config", "run"], name="verdict_unique_run"
            ),
            # One verdict per session and run, whichever trace it is shown on.
            models.UniqueConstraint(
                fields=["session", "run"],
                condition=models.Q(session__isnull=False),
                name="verdict_unique_session_run",
            ),
        ]
        # The overview's rebuild reads the verdicts of the days that changed.
        indexes = [models.Index(fields=["created_at"], name="verdict_created")]


class PairwiseVerdictStatus(models.TextChoices):
    AGREED = "agreed", "Both orders agreed"
    POSITION_BIASED = "position_biased", "The order changed the answer"
    FAILED = "failed", "A pass failed or was unreadable"


class PairwiseVerdict(models.Model):
    """The reconciled answer of a pairwise run on one pair: the two passes (the second with
    the order swapped) agreeing after un-swapping, or the pair sent to people."""

    run = models.ForeignKey(JudgeRun, on_delete=models.CASCADE, related_name="pairwise_verdicts")
    rubric_version = models.ForeignKey(
        RubricVersion, on_delete=models.PROTECT, related_name="pairwise_verdicts"
    )
    config = models.ForeignKey(
        JudgeConfig, on_delete=models.PROTECT, related_name="pairwise_verdicts"
    )
    trace = models.ForeignKey(Trace, on_delete=models.CASCADE, related_name="+")
    pair_trace = models.ForeignKey(Trace, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=20, choices=PairwiseVerdictStatus.choices)
    # The preference for pair_trace: 0 (trace), 0.5 (equal), 1 (pair_trace); None unless agreed.
    score = models.FloatField(null=True, blank=True)
    # Per criterion, overall last: {"question", "preferred", "passes": [.., ..], "reason"}.
    criteria_results = models.JSONField(default=list, blank=True)
    # Both passes named the same position (A twice, or B twice) overall: the answer followed
    # the order, not the trajectories. The position-bias figure counts these.
    followed_position = models.BooleanField(default=False)
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["run", "trace", "pair_trace"], name="pairwise_verdict_unique_pair"
            ),
        ]
        indexes = [
            # Reviews finds the judge's answer on a pair it queued.
            models.Index(fields=["trace", "pair_trace"], name="pairwise_verdict_pair"),
        ]


class CalibrationStatus(models.TextChoices):
    CALIBRATING = "calibrating"
    APPROVED = "approved"
    RETIRED = "retired"


class JudgeCalibration(models.Model):
    """Whether a judge version (rubric version x config) is trusted to score live traffic."""

    rubric_version = models.ForeignKey(
        RubricVersion, on_delete=models.CASCADE, related_name="calibrations"
    )
    config = models.ForeignKey(JudgeConfig, on_delete=models.CASCADE, related_name="calibrations")
    status = models.CharField(
        max_length=20, choices=CalibrationStatus.choices, default=CalibrationStatus.CALIBRATING
    )
    kappa = models.FloatField(null=True, blank=True, help_text="Against all human labels.")
    items = models.PositiveIntegerField(default=0, help_text="Human labels the kappa is on.")
    # Kappa of the most recent window of labels; a drop below the bar flags the version.
    window_kappa = models.FloatField(null=True, blank=True)
    # Verdicts seen while calibrating: the first N are all sampled for review, then a share.
    verdicts_seen = models.PositiveIntegerField(default=0)
    flagged = models.BooleanField(default=False)
    flag_reason = models.TextField(blank=True)
    approved_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["rubric_version", "config"], name="judge_calibration_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.rubric_version} / {self.config}: {self.status}"


class OnlineOutcome(models.TextChoices):
    """What online judging decided for one rule (rubric x project x task type) on one trace."""

    JUDGED = "judged", "Judged"
    NOT_SAMPLED = "not_sampled", "Not sampled"
    NOT_CALIBRATED = "not_calibrated", "Judge version not calibrated"
    NOT_SETTLED = "not_settled", "Trace not settled"
    OVER_LIMIT = "over_limit", "Over the hourly limit"
    PROVIDER_FAILING = "provider_failing", "Provider failing"
    OTHER_TASK_TYPE = "other_task_type", "No matching task type"
    NO_APPROVED_VERSION = "no_approved_version", "No approved version"
    NOTHING_TO_JUDGE = "nothing_to_judge", "Nothing to judge"


class OnlineRuleHour(models.Model):
    """How many traces one online rule judged or skipped, by outcome, in one UTC hour.

    Counted where the online dispatcher decides (judges.online_health), one upsert per trace."""

    rubric = models.ForeignKey(Rubric, on_delete=models.CASCADE, related_name="online_hours")
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="online_hours")
    hour = models.DateTimeField()
    outcome = models.CharField(max_length=30, choices=OnlineOutcome.choices)
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["rubric", "project", "hour", "outcome"], name="online_rule_hour_unique"
            ),
        ]
        indexes = [
            # The judging-health page and the silent-rule alert read the last hours of all rules.
            models.Index(fields=["hour"], name="online_rule_hour_hour"),
        ]


class TraceOnlineDecision(models.Model):
    """The last online-judging decision of one rule on one trace: the trace page's "why (not)
    judged"."""

    trace = models.ForeignKey(Trace, on_delete=models.CASCADE, related_name="online_decisions")
    rubric = models.ForeignKey(Rubric, on_delete=models.CASCADE, related_name="online_decisions")
    outcome = models.CharField(max_length=30, choices=OnlineOutcome.choices)
    task_type = models.CharField(max_length=100, blank=True)
    decided_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["trace", "rubric"], name="trace_online_decision_unique"
            ),
        ]


# Registered with the judges app here; import them from the modules that define them.
from judges.adaptive_rubrics.models import (  # noqa: E402, F401
    TaskTypeAssignment,
    TaskTypeRule,
    TaskTypeSource,
)
from judges.alignment.models import AlignmentProposal  # noqa: E402, F401

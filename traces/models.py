import secrets
from datetime import UTC, date

from django.conf import settings
from django.contrib.postgres.search import SearchVectorField
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import F
from django.db.models.fields.json import KeyTextTransform
from django.utils import timezone

from core.created_by import CreatedBy
from core.fields import JSONTextField
from core.indexes import NullsLastIndex
from traces.context_attributes import USER_ID_KEY


def utc_today() -> date:
    """Today in UTC: the day a trace received now stores its spans under."""
    return timezone.now().astimezone(UTC).date()


def masking_key_new() -> str:
    return secrets.token_hex(32)


class Project(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Tool results that open with an error marker are failures (traces/ingest/failures.py).
    tool_error_text_detection = models.BooleanField(
        default=True, help_text="Tool results that open with Error:, Traceback, HTTP 4xx/5xx fail."
    )
    tool_error_markers = models.JSONField(
        default=list, blank=True, help_text="More openings that mark a tool result as failed."
    )
    route_thumbs_down_to_review = models.BooleanField(
        default=False, help_text="A thumbs-down from end users queues the trace for review."
    )
    # Read by traces.retention; traces that people or evaluations rely on are always kept.
    retention_days = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text="Remove traces received more than this many days ago; empty keeps them all. "
        "Golden sources and traces under review, eval runs or running judge runs stay.",
    )
    # The key of this project's masking pseudonyms (traces.masking): the same value gets the
    # same mark within a project and a different one in another.
    masking_key = models.CharField(max_length=64, default=masking_key_new, editable=False)
    # OTLP log records whose span never came within settings.PENDING_LOG_HOURS
    # (traces.ingest.span_logs.pending_logs_expire): counted here, shown on the projects page.
    log_records_unjoined = models.PositiveBigIntegerField(
        default=0, editable=False, help_text="OTLP log records whose span never came."
    )

    def __str__(self) -> str:
        return self.name


class Session(models.Model):
    """A conversation: the traces a project sent under one session or conversation id."""

    # No index of its own: the unique (project, external_id) key starts with it.
    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="sessions", db_index=False
    )
    # As the agent sent it (`session.id`, `gen_ai.conversation.id`, a transcript's context).
    external_id = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)
    # Totals over the session's traces, kept by ingest (traces/session_totals.py) so the
    # session list reads no trace rows.
    trace_count = models.IntegerField(default=0)
    error_count = models.IntegerField(default=0)
    input_tokens = models.BigIntegerField(default=0)
    output_tokens = models.BigIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=14, decimal_places=6, default=0)
    # The earliest trace start, and the latest moment of any trace (its end, else its start):
    # both only move outwards as spans arrive, so ingest keeps them with MIN and MAX.
    first_started_at = models.DateTimeField(null=True, blank=True)
    last_trace_at = models.DateTimeField(null=True, blank=True)
    first_task = models.TextField(blank=True, help_text="The first trace's task, cut short.")
    # Held-out traces count above; pages for people who may not see them recount those rows.
    held_out_trace_count = models.IntegerField(default=0)
    # Our clock: the last time ingest stored anything for one of its traces.
    last_received_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "external_id"], name="session_unique_external_id"
            ),
        ]
        indexes = [
            # The session list's default order (latest activity first), whole and per project.
            NullsLastIndex(fields=["-last_trace_at", "-id"], name="session_list_latest"),
            NullsLastIndex(
                fields=["project", "-last_trace_at", "-id"], name="session_project_latest"
            ),
            # Online session judging looks for sessions gone quiet, oldest activity first.
            models.Index(fields=["last_received_at", "id"], name="session_received"),
        ]

    def __str__(self) -> str:
        return self.external_id


class SourceFormat(models.TextChoices):
    OTLP = "otlp", "OTLP"
    SPAN_TREE = "span_tree", "Span-tree JSON"
    ANTHROPIC = "anthropic", "Anthropic transcript"
    OPENAI = "openai", "OpenAI transcript"
    JAEGER = "jaeger", "Jaeger export"


# What a trace's sender says of its run, in the words it was sent: the trace API shows them,
# ingest writes them, and a span tree's root may carry them under the same names.
TRACE_DESCRIPTION = (
    "task",
    "final_answer",
    "stop_reason",
    "task_type",
    "agent_name",
    "agent_version",
)
# What a trace sums up from its spans: its time span, counts, tokens and cost. The trace API
# and the CSV export show them side by side, in this order.
TRACE_SPAN_TOTALS = (
    "started_at",
    "ended_at",
    "span_count",
    "error_count",
    "input_tokens",
    "output_tokens",
    "cost_usd",
)


class Trace(models.Model):
    # No index of its own (each costs every trace write): the unique (project, external_id)
    # key starts with it, as trace_session_started does with the session.
    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="traces", db_index=False
    )
    external_id = models.CharField(max_length=64, help_text="OpenTelemetry trace id (hex).")
    task = models.TextField(blank=True, help_text="The user's request.")
    final_answer = models.TextField(blank=True)
    stop_reason = models.CharField(max_length=100, blank=True)
    task_type = models.CharField(max_length=100, blank=True)
    agent_name = models.CharField(max_length=200, blank=True)
    agent_version = models.CharField(max_length=100, blank=True)
    model = models.CharField(max_length=200, blank=True)
    source_format = models.CharField(max_length=20, choices=SourceFormat.choices)
    context = models.JSONField(
        default=dict, blank=True, help_text="available_tools, conversation id, user context."
    )
    attributes = models.JSONField(default=dict, blank=True)
    # Set at ingest from the conversation id, whichever span or payload carries it.
    session = models.ForeignKey(
        Session,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="traces",
        db_index=False,
    )
    root_span_id = models.CharField(max_length=32, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    span_count = models.PositiveIntegerField(default=0)
    error_count = models.PositiveIntegerField(default=0)
    # Of error_count, the failed tool calls known only from what the model was handed back (an
    # `is_error` result, an error text) that no failed span counts: set when the trace's checks
    # read it (metrics.told_failures); ingest's recount of its spans adds it back. Left out of
    # a new row's insert (db_default).
    told_error_count = models.PositiveIntegerField(default=0, db_default=0)
    input_tokens = models.PositiveBigIntegerField(default=0)
    output_tokens = models.PositiveBigIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    content_hash = models.CharField(max_length=64, blank=True)
    # The judge waits until the root has ended and no span has arrived for a settle time.
    last_span_received_at = models.DateTimeField(null=True, blank=True)
    # Set by the settle sweep when trace_completed is sent; null while spans may still come.
    completed_at = models.DateTimeField(null=True, blank=True)
    # True while the trace backs a held-out golden example; golden's services keep it so.
    held_out = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # Every span of the trace carries this day (Span.trace_day, the spans partition on PostgreSQL):
    # the UTC day it was received, or the later day retention moved a kept trace's spans to.
    spans_day = models.DateField(default=utc_today)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "external_id"], name="trace_unique_external_id"
            ),
        ]
        indexes = [
            # Trace list default order (newest first, traces without a start last), whole list
            # and one project's; the page stops after one page of this index.
            NullsLastIndex(fields=["-started_at", "-id"], name="trace_list_newest"),
            NullsLastIndex(fields=["project", "-started_at", "-id"], name="trace_project_newest"),
            # Every other sort of the list, whole and one project's, in its keyset order
            # (traces.filters.SORT_CHOICES), so a sorted page also stops after one page.
            NullsLastIndex(fields=["started_at", "-id"], name="trace_list_oldest"),
            NullsLastIndex(fields=["project", "started_at", "-id"], name="trace_project_oldest"),
            models.Index(fields=["-span_count", "-id"], name="trace_list_spans"),
            models.Index(fields=["project", "-span_count", "-id"], name="trace_project_spans"),
            models.Index(fields=["-error_count", "-id"], name="trace_list_errors"),
            models.Index(fields=["project", "-error_count", "-id"], name="trace_project_errors"),
            models.Index(fields=["-cost_usd", "-id"], name="trace_list_cost"),
            models.Index(fields=["project", "-cost_usd", "-id"], name="trace_project_cost"),
            models.Index(fields=["-input_tokens", "-id"], name="trace_list_input_tokens"),
            models.Index(
                fields=["project", "-input_tokens", "-id"], name="trace_project_input_tokens"
            ),
            models.Index(fields=["agent_name", "-id"], name="trace_list_agent"),
            models.Index(fields=["project", "agent_name", "-id"], name="trace_project_agent"),
            models.Index(fields=["-created_at"], name="trace_created"),
            # Retention finds the traces (and their projects) of one spans partition.
            models.Index(fields=["spans_day", "project"], name="trace_spans_day"),
            models.Index(fields=["agent_name", "agent_version"], name="trace_agent"),
            models.Index(fields=["task_type"], name="trace_task_type"),
            # A session's traces in order, and the session list's counts and times.
            models.Index(fields=["session", "started_at"], name="trace_session_started"),
            # The held-out rule of lists that reach traces through a relation (review items,
            # verdicts, feedback) reads only these few (traces.selectors.traces_visible).
            models.Index(fields=["id"], name="trace_held_out", condition=models.Q(held_out=True)),
            # The traces of one end user (the context's user_id), newest first: only traces
            # that name one are in it, so ingest of the others writes no entry.
            models.Index(
                KeyTextTransform(USER_ID_KEY, "context"),
                F("id").desc(),
                name="trace_end_user",
                condition=models.Q(context__has_key=USER_ID_KEY),
            ),
            # The settle sweep scans traces not completed yet, oldest last span first.
            models.Index(
                fields=["last_span_received_at"],
                name="trace_unsettled",
                condition=models.Q(completed_at__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.external_id[:12]} {self.task[:60]}"

    @property
    def duration_ms(self) -> int | None:
        if self.started_at and self.ended_at:
            return int((self.ended_at - self.started_at).total_seconds() * 1000)
        return None


class SpanKind(models.TextChoices):
    AGENT = "agent"
    LLM = "llm"
    TOOL = "tool"
    RETRIEVER = "retriever"
    CUSTOM = "custom"


class SpanStatus(models.TextChoices):
    UNSET = "unset"
    OK = "ok"
    ERROR = "error"


class Span(models.Model):
    # No database constraint: on PostgreSQL spans are partitioned by day, and a foreign key
    # check would probe every partition for each deleted trace. Spans are only written under
    # their trace's row lock and deleted before it (traces.retention; the ORM's cascade).
    # No index of its own: (trace, position) and the unique key both start with the trace.
    trace = models.ForeignKey(
        Trace,
        on_delete=models.CASCADE,
        related_name="spans",
        db_constraint=False,
        db_index=False,
    )
    span_id = models.CharField(max_length=32)
    parent_span_id = models.CharField(max_length=32, blank=True)
    name = models.CharField(max_length=500)
    kind = models.CharField(max_length=20, choices=SpanKind.choices, default=SpanKind.CUSTOM)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    # Read whole, seldom queried inside: kept as JSON text, which ingestion writes far faster.
    input = JSONTextField(null=True, blank=True)
    output = JSONTextField(null=True, blank=True)
    attributes = JSONTextField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=SpanStatus.choices, default=SpanStatus.UNSET)
    error_message = models.TextField(blank=True)
    tool_name = models.CharField(max_length=200, blank=True)
    tool_call_id = models.CharField(max_length=200, blank=True)
    model = models.CharField(max_length=200, blank=True)
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    # Order of the span among all spans of its trace (start time, then arrival).
    position = models.PositiveIntegerField(default=0)
    component = models.CharField(
        max_length=200, blank=True, help_text="Agent or tool this span is attributed to."
    )
    # Its trace's spans_day, the partition key on PostgreSQL (traces/span_partitions.py).
    trace_day = models.DateField(default=utc_today)

    class Meta:
        constraints = [
            # A partitioned table's unique keys hold the partition key; a trace's spans share
            # one day, so this is still one row per (trace, span id).
            models.UniqueConstraint(
                fields=["trace", "span_id", "trace_day"], name="span_unique_per_trace"
            ),
        ]
        # The trace page loads all spans of one trace in order.
        indexes = [models.Index(fields=["trace", "position"], name="span_trace_position")]

    def __str__(self) -> str:
        return f"{self.kind} {self.name}"


class FeedbackKind(models.TextChoices):
    THUMBS = "thumbs", "Thumbs up or down"
    NUMBER = "number", "A number"
    CATEGORY = "category", "A category"


class Feedback(CreatedBy):
    """A score sent from outside (an end user's thumbs, a rating), about a trace or one span."""

    trace = models.ForeignKey(Trace, on_delete=models.CASCADE, related_name="feedback")
    # The span it is about, by its hex id: a span re-sent under the same id keeps its feedback.
    span_id = models.CharField(max_length=32, blank=True)
    name = models.CharField(max_length=100, default="user_feedback")
    kind = models.CharField(max_length=20, choices=FeedbackKind.choices)
    # Thumbs: 1 up, 0 down. Number: the number. Category: null, the label is in `category`.
    value = models.FloatField(null=True, blank=True)
    category = models.CharField(max_length=100, blank=True)
    comment = models.TextField(blank=True)
    end_user = models.CharField(max_length=200, blank=True, help_text="Who gave it, as sent.")
    metadata = models.JSONField(default=dict, blank=True)
    # The sender's key for this piece of feedback: a retry with the same key is the same row.
    key = models.CharField(max_length=200)

    class Meta:
        verbose_name_plural = "feedback"
        constraints = [
            models.UniqueConstraint(fields=["trace", "key"], name="feedback_unique_key"),
        ]
        indexes = [models.Index(fields=["kind", "value"], name="feedback_kind_value")]


class TraceSearchDocument(models.Model):
    """What full-text search reads for one trace, built by traces.search.documents.

    Built apart from ingest (which stays a plain insert): a trace's document is (re)built once
    spans stop arriving for a moment, so late spans are folded in and re-sends cost nothing.
    On PostgreSQL `document` is a tsvector with a GIN index (made by the traces migration); on
    SQLite the text lives in the FTS5 table traces_search_fts under the trace's id and `document`
    is null.
    """

    trace = models.OneToOneField(
        Trace, on_delete=models.CASCADE, primary_key=True, related_name="search_document"
    )
    document = SearchVectorField(null=True)
    # The trace's last_span_received_at when built: a later span makes the document stale.
    spans_received_at = models.DateTimeField(null=True)
    built_at = models.DateTimeField()


class TraceAttributeValue(models.Model):
    """One short scalar attribute value of a trace or of one of its spans, for `key op value`.

    Rows are per trace and distinct; long strings are left to full-text search.
    """

    trace = models.ForeignKey(Trace, on_delete=models.CASCADE, related_name="attribute_values")
    key = models.CharField(max_length=200)
    value_text = models.CharField(max_length=200)
    # Set when the value is a number (or a string that reads as one), for range filters.
    value_number = models.FloatField(null=True)

    class Meta:
        indexes = [
            # `key = value`: an index-only scan returns the matching trace ids.
            models.Index(fields=["key", "value_text", "trace"], name="trace_attr_text"),
            # `key > n` and the other ranges.
            models.Index(
                fields=["key", "value_number", "trace"],
                name="trace_attr_number",
                condition=models.Q(value_number__isnull=False),
            ),
        ]


class PendingSpanLog(models.Model):
    """OTLP log records (GenAI events) that name a span not stored yet, kept until it comes.

    Ingest joins them to the span when it arrives (traces.ingest.span_logs) and deletes them;
    records are never dropped for arriving first. Those still waiting after
    settings.PENDING_LOG_HOURS are counted on their project and removed.
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    trace_external_id = models.CharField(max_length=64)
    span_id = models.CharField(max_length=32)
    # The records as span events: [{"name", "time", "attributes"}], in arrival order.
    events = models.JSONField(default=list)
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            # Span ingest looks up the pending records of the traces it stores.
            models.Index(fields=["project", "trace_external_id"], name="pending_log_trace"),
        ]


class MaskingRule(models.Model):
    """What a project masks before anything it sends is stored (traces.masking)."""

    class Kind(models.TextChoices):
        DETECTOR = "detector", "Built-in detector"
        PATTERN = "pattern", "Pattern (regular expression)"
        ATTRIBUTE = "attribute", "Attribute name"

    class Action(models.TextChoices):
        MARK = "mark", "Fixed mark, e.g. <email>"
        PSEUDONYM = "pseudonym", "Stable pseudonym, e.g. <email:7f3a91c2>"
        DROP = "drop", "Drop the attribute"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="masking_rules")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    # The built-in detector's name (traces.masking.detectors) for DETECTOR rules.
    detector = models.CharField(max_length=16, blank=True)
    # A regular expression for PATTERN rules; a glob of attribute names for ATTRIBUTE rules.
    pattern = models.CharField(max_length=500, blank=True)
    label = models.SlugField(max_length=40, help_text="The mark's name: <label> or <label:…>.")
    action = models.CharField(max_length=16, choices=Action.choices, default=Action.PSEUDONYM)
    enabled = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["project", "kind", "id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.detector or self.pattern}"


class MaskingRuleChange(models.Model):
    """Who changed which masking rule, when, and from what to what; kept when the rule goes."""

    class Action(models.TextChoices):
        CREATED = "created"
        CHANGED = "changed"
        DELETED = "deleted"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    rule_id = models.IntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    username = models.CharField(max_length=150, blank=True)
    action = models.CharField(max_length=16, choices=Action.choices)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["project", "-at"], name="masking_change_project_at")]


class TraceDeletion(CreatedBy):
    """A trace-list filter's traces deleted by a worker, a chunk a transaction, for more traces
    than one request deletes (traces.deletion_jobs). Traces newer than the request stay."""

    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting for a worker"
        RUNNING = "running", "Deleting"
        DONE = "done", "Done"
        STOPPED = "stopped", "Stopped"
        FAILED = "failed", "Failed"

    query = models.TextField(blank=True, help_text="The trace-list filter, as a query string.")
    up_to_trace_id = models.BigIntegerField(help_text="The newest trace it may delete.")
    matched = models.PositiveIntegerField(help_text="Traces the filter matched when asked.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.WAITING)
    # Traces up to this id are done: a worker that dies resumes after it.
    after_trace_id = models.BigIntegerField(default=0)
    deleted = models.PositiveIntegerField(default=0)
    kept = models.PositiveIntegerField(default=0)
    kept_by = models.JSONField(default=dict, blank=True)  # keeper's label -> traces it kept
    kept_sample = models.JSONField(default=list, blank=True)  # the first kept traces' ids
    error = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Deletion #{self.pk}: {self.get_status_display()}"

    @property
    def live(self) -> bool:
        return self.status in (self.Status.WAITING, self.Status.RUNNING)

    @property
    def done_count(self) -> int:
        return self.deleted + self.kept

    @property
    def percent(self) -> int:
        if self.status == self.Status.DONE or not self.matched:
            return 100
        return min(99, self.done_count * 100 // self.matched)


class TraceTag(models.Model):
    """A tag the agent gave its trace: OpenInference's `tag.tags`, Langfuse's
    `langfuse.trace.tags` or a span tree's `tags`, gathered over all its spans (traces.tags)."""

    # No index of its own: the unique key starts with the trace.
    trace = models.ForeignKey(Trace, on_delete=models.CASCADE, related_name="tags", db_index=False)
    name = models.CharField(max_length=200)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["trace", "name"], name="trace_tag_unique")]
        # The trace list's tag filter finds a tag's traces.
        indexes = [models.Index(fields=["name", "trace"], name="trace_tag_name")]

    def __str__(self) -> str:
        return self.name

"""Topics (failure discovery) and the judging-health alerts: what insights stores itself."""

from django.db import models

from judges.models import OnlineOutcome, Rubric
from traces.models import Project, Trace


class TopicBuildQuerySet(models.QuerySet):
    def newest_first(self, project_id: int):
        """The project's builds, newest first: its first is the build pages and arrivals use."""
        return self.filter(project_id=project_id).order_by("-built_at")

    def newest_id(self, project_id: int) -> int | None:
        return self.newest_first(project_id).values_list("pk", flat=True).first()


class TopicBuild(models.Model):
    """One grouping of a project's traces in a time window, with the vectorizer it fitted: its
    vocabulary and idf weights, so a new trace is placed without fitting again."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="topic_builds")
    window_start = models.DateTimeField()
    window_end = models.DateTimeField()
    built_at = models.DateTimeField()
    trace_count = models.PositiveIntegerField(default=0)
    # Traces in the window past TOPICS_MAX_TRACES were left out (the newest are kept).
    traces_left_out = models.PositiveIntegerField(default=0)
    duration_ms = models.PositiveIntegerField(default=0)
    peak_memory_kb = models.PositiveIntegerField(default=0)
    method = models.CharField(max_length=50, default="tfidf-kmeans")
    # The embedding model the topics were grouped by ("" for TF-IDF), and why a configured one
    # was not used (its failure: the build fell back to TF-IDF).
    embedding_model = models.CharField(max_length=200, blank=True)
    representation_note = models.CharField(max_length=300, blank=True)
    # Traces placed on arrival by their TF-IDF terms because embedding them failed.
    arrivals_fallback = models.PositiveIntegerField(default=0)
    # Topic names asked of the judge model for this build, and why some were not (or none).
    names_asked = models.PositiveSmallIntegerField(default=0)
    naming_note = models.CharField(max_length=300, blank=True)
    vocabulary = models.JSONField(default=list)
    idf = models.JSONField(default=list)
    # The share of the build's traces that failed: a topic "fails more than usual" against it.
    failure_share = models.FloatField(default=0)

    objects = TopicBuildQuerySet.as_manager()

    class Meta:
        indexes = [
            # The topics page and arrival assignment read a project's newest build.
            models.Index(fields=["project", "-built_at"], name="topic_build_project_newest"),
        ]


class Topic(models.Model):
    """A group of traces about the same thing that went the same way."""

    build = models.ForeignKey(TopicBuild, on_delete=models.CASCADE, related_name="topics")
    number = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=200)
    # "judge" when the judge model named it, "terms" when the name is its top terms.
    name_source = models.CharField(max_length=10, default="terms")
    terms = models.JSONField(default=list)
    # The mean TF-IDF vector of its traces (its terms; arrivals placed by TF-IDF), and, for an
    # embeddings build, the mean embedding arrivals are placed by.
    centroid = models.JSONField(default=list)
    embedding_centroid = models.JSONField(default=list, blank=True)
    size = models.PositiveIntegerField(default=0)
    failure_count = models.PositiveIntegerField(default=0)
    # Members in the first and the second half of the window: the trend.
    earlier_count = models.PositiveIntegerField(default=0)
    later_count = models.PositiveIntegerField(default=0)
    # Traces placed here on arrival since the build (not in size, which is the build's).
    arrived_count = models.PositiveIntegerField(default=0)
    arrived_failures = models.PositiveIntegerField(default=0)
    example_trace_ids = models.JSONField(default=list)
    # Unlike every topic of the previous build (by its terms).
    is_new = models.BooleanField(default=False)
    # A red-flag rule the topic's traces share and the others mostly do not, with its hit rates.
    rule_draft = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["build", "number"], name="topic_build_number"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def failure_share(self) -> float:
        return self.failure_count / self.size if self.size else 0.0

    @property
    def trend(self) -> float | None:
        """Growth of the second half of the window over the first, as a fraction."""
        if not self.earlier_count:
            return None
        return (self.later_count - self.earlier_count) / self.earlier_count


class TraceTopic(models.Model):
    """Which topic a trace belongs to: from the build, or placed on arrival."""

    trace = models.OneToOneField(Trace, on_delete=models.CASCADE, related_name="topic_membership")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="members")
    distance = models.FloatField()
    failed = models.BooleanField(default=False)
    on_arrival = models.BooleanField(default=False)


class SilentRuleAlert(models.Model):
    """A live online rule that judged nothing for JUDGING_SILENT_MINUTES while traces came:
    raised once (a webhook event), cleared when it judges again."""

    rubric = models.ForeignKey(Rubric, on_delete=models.CASCADE, related_name="silent_alerts")
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="silent_alerts")
    raised_at = models.DateTimeField()
    cleared_at = models.DateTimeField(null=True, blank=True)
    decisions = models.PositiveIntegerField(default=0)
    top_reason = models.CharField(max_length=30, choices=OnlineOutcome.choices, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["rubric", "project"],
                condition=models.Q(cleared_at__isnull=True),
                name="silent_rule_alert_open",
            ),
        ]

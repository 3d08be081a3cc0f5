"""factory_boy factories for the domain; tests build only the rows they need."""

import hashlib

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.utils import timezone

from golden.models import GoldenExample
from judges.models import (
    JudgeConfig,
    JudgeRun,
    Judgment,
    JudgmentStatus,
    OutputFormat,
    Rubric,
    RubricVersion,
    ScoreType,
    Verdict,
    VerdictStatus,
)
from metrics.models import RedFlag
from reviews.models import Queue, ReviewItem, ReviewReason
from traces.models import Feedback, Project, SourceFormat, Span, SpanKind, SpanStatus, Trace
from traces.partition_sql import spans_partitioned
from traces.session_totals import sessions_totals_recount
from traces.span_partitions import span_partitions_ensure


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.PostGenerationMethodCall("set_password", "pass-word-123")

    @factory.post_generation
    def roles(self, create, extracted, **kwargs):
        for role in extracted or ():
            self.groups.add(Group.objects.get_or_create(name=role)[0])
        if create:
            self.save()


class ProjectFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Project
        django_get_or_create = ("slug",)

    name = "Support agent"
    slug = "support-agent"


class TraceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Trace
        skip_postgeneration_save = True

    project = factory.SubFactory(ProjectFactory)
    external_id = factory.Sequence(lambda n: hashlib.md5(str(n).encode()).hexdigest())
    task = "Cancel my most recent order, it was placed by mistake."
    final_answer = "Your order #A1042 has been cancelled."
    agent_name = "support-agent"
    agent_version = "1.0.0"
    source_format = SourceFormat.SPAN_TREE
    started_at = factory.LazyFunction(timezone.now)
    ended_at = factory.LazyFunction(timezone.now)

    @factory.post_generation
    def session_totals(trace, create, extracted, **kwargs):
        # Ingest keeps a session's totals; a trace made here counts in its session the same.
        if create and trace.session_id:
            sessions_totals_recount([trace.session_id])


class SpanFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Span

    trace = factory.SubFactory(TraceFactory)
    span_id = factory.Sequence(lambda n: f"{n:016x}")
    name = "get_recent_orders"
    kind = SpanKind.TOOL
    tool_name = "get_recent_orders"
    input = factory.LazyFunction(lambda: {"customer_id": "C-77"})
    output = factory.LazyFunction(lambda: {"orders": [{"order_id": "A1042"}]})
    position = factory.Sequence(lambda n: n)
    trace_day = factory.LazyAttribute(lambda span: span.trace.spans_day)

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        # Ingest makes a missing day's partition before it writes; so does the factory.
        if spans_partitioned():
            span_partitions_ensure([kwargs["trace_day"]])
        return super()._create(model_class, *args, **kwargs)


class ToolSpanFactory(SpanFactory):
    """A tool call's span, named for its tool as the conventions name one."""

    tool_name = factory.SelfAttribute("name")


def trace_of_steps(steps, *, root_name: str = "agent", **fields) -> Trace:
    """A trace whose root agent span made each (tool, arguments, result, error) call in turn."""
    trace = TraceFactory(span_count=len(steps) + 1, **fields)
    root = SpanFactory(
        trace=trace,
        name=root_name,
        kind=SpanKind.AGENT,
        tool_name="",
        input=trace.task,
        output=trace.final_answer,
        position=0,
    )
    trace.root_span_id = root.span_id
    trace.save(update_fields=["root_span_id"])
    for position, (name, inputs, output, error) in enumerate(steps, start=1):
        ToolSpanFactory(
            trace=trace,
            parent_span_id=root.span_id,
            name=name,
            input=inputs,
            output=output,
            status=SpanStatus.ERROR if error else SpanStatus.OK,
            error_message=error or "",
            position=position,
        )
    return trace


class RubricFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Rubric
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"rubric {n}")


class RubricVersionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = RubricVersion

    rubric = factory.SubFactory(RubricFactory)
    number = factory.Sequence(lambda n: n + 1)
    system_prompt = "You judge whether each tool call of an agent was right."
    user_template = "<trace>{{ trace_json }}</trace>"
    score_type = ScoreType.BINARY
    score_min = 0
    score_max = 1
    output_format = OutputFormat.EVALUATION_SUMMARY

    class Params:
        # A 1-5 outcome scale: the ordinal rubric beside the default binary one.
        one_to_five = factory.Trait(score_type=ScoreType.RANGE, score_min=1, score_max=5)


class JudgeConfigFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = JudgeConfig
        django_get_or_create = ("name",)

    name = "default"
    model = "claude-sonnet-4-5"


class JudgeRunFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = JudgeRun

    rubric_version = factory.SubFactory(RubricVersionFactory)
    config = factory.SubFactory(JudgeConfigFactory)


class _JudgedInRunFactory(factory.django.DjangoModelFactory):
    """A row about one trace judged in a run: its rubric version and config are the run's."""

    class Meta:
        abstract = True

    trace = factory.SubFactory(TraceFactory)
    run = factory.SubFactory(JudgeRunFactory)
    rubric_version = factory.SelfAttribute("run.rubric_version")
    config = factory.SelfAttribute("run.config")


class JudgmentFactory(_JudgedInRunFactory):
    class Meta:
        model = Judgment

    pass_index = 0
    status = JudgmentStatus.DONE
    score = 1.0
    parse_status = "ok"


class VerdictFactory(_JudgedInRunFactory):
    class Meta:
        model = Verdict

    status = VerdictStatus.DISPUTED


def verdict_disputed(trace: Trace, run: JudgeRun, scores) -> Verdict:
    """`run`'s disputed verdict on `trace`, with no score of its own: a pass for each of
    `scores`, in order, explained as "pass <index>"."""
    verdict = VerdictFactory(trace=trace, run=run, status=VerdictStatus.DISPUTED, score=None)
    for index, score in enumerate(scores):
        JudgmentFactory(
            trace=trace, run=run, pass_index=index, score=score, explanation=f"pass {index}"
        )
    return verdict


class QueueFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Queue
        django_get_or_create = ("name",)

    name = "Default"


class ReviewItemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ReviewItem

    queue = factory.SubFactory(QueueFactory)
    trace = factory.SubFactory(TraceFactory)
    reason = ReviewReason.PASSES_DISAGREE
    task_excerpt = factory.LazyAttribute(lambda item: item.trace.task[:500])


class VerdictItemFactory(ReviewItemFactory):
    """An item asking people to settle a verdict: on the verdict's trace and rubric version."""

    verdict = factory.SubFactory(VerdictFactory)
    trace = factory.SelfAttribute("verdict.trace")
    rubric_version = factory.SelfAttribute("verdict.rubric_version")


def trace_scored_every_way(**span_fields) -> tuple[Span, ReviewItem]:
    """A trace of one `cancel_order` span with a score from each source: the judge's passes 1.0
    and 0.0 (disputed), a person's resolution to 0.0, a loop red flag on the span ("3 identical
    calls") and an end user's thumbs down. The span, and the resolved item with its verdict."""
    span = SpanFactory(name="cancel_order", **span_fields)
    trace = span.trace
    verdict = verdict_disputed(trace, JudgeRunFactory(), [1.0, 0.0])
    item = ReviewItemFactory(trace=trace, verdict=verdict, status="resolved", resolved_score=0.0)
    RedFlag.objects.create(trace=trace, span=span, kind="loop", detail="3 identical calls")
    Feedback.objects.create(trace=trace, kind="thumbs", value=0.0, key="k")
    return span, item


class GoldenExampleFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = GoldenExample

    task = "Cancel order A1042 for customer C-77."
    task_type = "order_cancellation"

"""What a person does with a topic: send a sample to review, add drafts to the golden set.

Opening a topic as a trace list is the trace list's `topic` filter (insights.trace_filters);
the drafted red-flag rule is stored on the topic by the build (insights.topic_rules).
"""

from __future__ import annotations

import random

from django.db.models import QuerySet

from golden.collect import CollectReport, golden_drafts_from_traces
from insights.models import Topic
from reviews.models import ReviewItem, ReviewReason
from reviews.trace_actions import review_item_flag_trace
from traces.models import Trace
from traces.selectors import traces_visible

REVIEW_SAMPLE_SIZE = 10
GOLDEN_DRAFTS_AT_ONCE = 20


def topic_traces(user, topic: Topic) -> QuerySet:
    """The topic's traces the user may see."""
    return traces_visible(user, Trace.objects.filter(topic_membership__topic=topic))


def topic_review_sample(*, topic: Topic, user, size: int = REVIEW_SAMPLE_SIZE) -> int:
    """Flag a sample of the topic's traces (failed ones first, then a fixed-seed draw) that are
    not already flagged; returns how many were queued."""
    flagged = ReviewItem.objects.filter(reason=ReviewReason.FLAGGED).values("trace_id")
    rows = list(
        topic_traces(user, topic)
        .exclude(pk__in=flagged)
        .order_by("pk")
        .values_list("pk", "topic_membership__failed")
    )
    failed = [pk for pk, fail in rows if fail]
    passed = [pk for pk, fail in rows if not fail]
    draw = random.Random(topic.pk)  # the same topic samples the same way  # noqa: S311
    chosen = draw.sample(failed, min(size, len(failed)))
    chosen += draw.sample(passed, min(size - len(chosen), len(passed)))
    note = f"Topic: {topic.name}"
    for trace in Trace.objects.filter(pk__in=chosen).order_by("pk"):
        review_item_flag_trace(trace=trace, user=user, note=note)
    return len(chosen)


def topic_golden_drafts(*, topic: Topic, user) -> CollectReport:
    """Save the topic's failed traces (else its examples) as draft golden examples, at most
    GOLDEN_DRAFTS_AT_ONCE, closest to the topic's centre first."""
    traces = topic_traces(user, topic)
    chosen = list(
        traces.filter(topic_membership__failed=True)
        .order_by("topic_membership__distance", "pk")
        .values_list("pk", flat=True)[:GOLDEN_DRAFTS_AT_ONCE]
    )
    if not chosen:
        chosen = list(
            traces.order_by("topic_membership__distance", "pk").values_list("pk", flat=True)[
                :GOLDEN_DRAFTS_AT_ONCE
            ]
        )
    return golden_drafts_from_traces(traces=traces.filter(pk__in=chosen), user=user)

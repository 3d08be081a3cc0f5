"""Reads that feed the review pages and API: queues, filtered items, progress, one item."""

from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone

from accounts.roles import CURATOR, has_role
from core.bounded_paginator import COUNT_CAP
from core.keyset import KeysetPage, keyset_page_for_view
from judges.models import Judgment
from reviews.access import queue_hides_judge_from, review_items_visible
from reviews.holds import held_by
from reviews.models import Annotation, Queue, ReviewItem, ReviewStatus, SavedView
from traces.selectors import span_citations, trace_span_nodes, trace_span_outline


def queues_with_counts():
    """All queues, highest priority first, with open and waiting-for-curator counts."""
    return (
        Queue.objects.select_related("rubric", "project")
        .annotate(
            open_count=Count("items", filter=Q(items__status=ReviewStatus.OPEN)),
            curator_count=Count(
                "items", filter=Q(items__status=ReviewStatus.OPEN, items__needs_curator=True)
            ),
        )
        .order_by("-priority", "name")
    )


def queue_items(queue, filters: dict, user):
    """The queue's items matching the filter form's cleaned data (the bulk actions use it too)."""
    items = review_items_visible(user, ReviewItem.objects.filter(queue=queue))
    status = filters.get("status") or ReviewStatus.OPEN
    if status != "all":
        items = items.filter(status=status)
    # The reason is the judge's side: a blind queue is not sorted by it for annotators.
    if (reason := filters.get("reason")) and not queue_hides_judge_from(user, queue):
        items = items.filter(reason=reason)
    now = timezone.now()
    claim = filters.get("claim")
    if claim == "mine":
        items = items.filter(held_by(user, now))
    elif claim == "free":
        items = items.filter(Q(claimed_by__isnull=True) | Q(lock_expires_at__lte=now))
    elif claim == "held":
        items = items.filter(claimed_by__isnull=False, lock_expires_at__gt=now)
    curator = filters.get("curator")
    if curator == "yes":
        items = items.filter(needs_curator=True)
    elif curator == "no":
        items = items.filter(needs_curator=False)
    if filters.get("assigned") == "me":
        items = items.filter(assigned_to=user)
    if text := (filters.get("q") or "").strip():
        items = items.filter(task_excerpt__icontains=text)
    return items


# The index review_item_queue_order serves it; the id breaks ties, so a page cursor
# (core/keyset.py) has one place in it.
CLAIM_ORDER = ("-priority", "created_at", "id")


# Counting stops past this many matching items (the page says "more than"): a full count of a
# queue of 100,000 items read 2,000 index blocks a page load, the rest of the page about 60.
QUEUE_COUNT_CAP = COUNT_CAP


@dataclass(frozen=True)
class QueuePage:
    page: KeysetPage
    rows: list
    count: int  # matching items, exact unless count_is_lower_bound
    count_is_lower_bound: bool


def queue_items_page(items, params, per_page: int):
    """The page of items `params` asks for (cursor links, see core/keyset.py).

    The page's keys come from the ordering index alone, starting at the cursor, so page 300
    costs what page 1 does; rows are then loaded for those 50 ids. Returns (QueuePage, error).
    """
    keys = items.only("pk", "priority", "created_at")
    page, error = keyset_page_for_view(keys, CLAIM_ORDER, params, per_page)
    ids = [item.pk for item in page.rows]
    by_id = {item.pk: item for item in queue_items_page_rows(ReviewItem.objects.filter(pk__in=ids))}
    count, lower_bound = _count_capped(items)
    rows = [by_id[pk] for pk in ids if pk in by_id]
    return QueuePage(page, rows, count, lower_bound), error


def _count_capped(items) -> tuple[int, bool]:
    """Items counted up to QUEUE_COUNT_CAP, and whether there are more than that."""
    count = items.order_by()[: QUEUE_COUNT_CAP + 1].count()
    return min(count, QUEUE_COUNT_CAP), count > QUEUE_COUNT_CAP


def queue_items_page_rows(items):
    """What the queue table shows per row, in claim order, without per-row queries."""
    return (
        items.select_related("claimed_by", "assigned_to", "rubric_version__rubric")
        .only(
            "pk",
            "reason",
            "status",
            "priority",
            "needs_curator",
            "lock_expires_at",
            "created_at",
            "resolved_score",
            "trace_id",
            "task_excerpt",
            "claimed_by__username",
            "assigned_to__username",
            "rubric_version__number",
            "rubric_version__rubric__name",
        )
        .order_by(*CLAIM_ORDER)
    )


@dataclass(frozen=True)
class Progress:
    left: int
    done_today: int
    mine_today: int
    my_per_hour: float | None
    left_is_lower_bound: bool = False  # more than `left` items are open


def queue_progress(
    queue, user, open_count: int | None = None, open_is_lower_bound: bool = False
) -> Progress:
    """Items left, settled today, and this person's answers today and per hour.

    open_count saves a second count when the page already counted the open items (up to
    QUEUE_COUNT_CAP: open_is_lower_bound says when there are more).
    """
    now = timezone.now()
    day_start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if open_count is None:
        open_count = ReviewItem.objects.filter(queue=queue, status=ReviewStatus.OPEN).count()
    # Uses the (status, resolved_at) index rather than scanning the queue's items.
    done_today = ReviewItem.objects.filter(
        status=ReviewStatus.RESOLVED, resolved_at__gte=day_start, queue=queue
    ).count()
    mine = Annotation.objects.filter(
        annotator=user, created_at__gte=day_start, item__queue=queue, undone_at__isnull=True
    ).order_by("created_at")
    mine_today = mine.count()
    per_hour = None
    if mine_today >= 2:
        first = mine.values_list("created_at", flat=True).first()
        hours = max((now - first).total_seconds() / 3600, 1 / 60)
        per_hour = round(mine_today / hours, 1)
    return Progress(open_count, done_today, mine_today, per_hour, open_is_lower_bound)


def annotation_undoable(user, queue=None) -> Annotation | None:
    """The person's latest answer, while it can still be undone.

    Undo takes back the last answer only: once it is undone (or promoted) nothing is offered,
    never the answer before it, which the person did not just give."""
    since = timezone.now() - timedelta(seconds=settings.REVIEW_UNDO_SECONDS)
    found = Annotation.objects.filter(annotator=user, created_at__gte=since)
    if queue is not None:
        found = found.filter(item__queue=queue)
    latest = found.select_related("item").order_by("-created_at", "-pk").first()
    if latest is None or latest.undone_at is not None or latest.promoted:
        return None
    return latest


def annotation_previous(user, queue, before_item_id=None) -> Annotation | None:
    """The person's answer just before the current one, for the "previous item" key."""
    found = Annotation.objects.filter(annotator=user, item__queue=queue, undone_at__isnull=True)
    if before_item_id:
        found = found.exclude(item_id=before_item_id)
    return found.order_by("-created_at", "-pk").first()


def saved_views_for(user, queue):
    return SavedView.objects.filter(user=user, queue=queue).order_by("name")


@dataclass
class ItemPage:
    item: ReviewItem
    nodes: list
    passes: list
    highlight_span_ids: set[str]
    red_flags: list
    annotations: list
    comments: list
    mine: Annotation | None
    reveal: bool  # judge passes and others' answers are shown
    score_choices: list = field(default_factory=list)
    criteria: list = field(default_factory=list)


def item_judgment_passes(item, spans: list) -> list[Judgment]:
    """The judge passes behind the item's verdict (or the latest run on this rubric version)."""
    if item.verdict_id:
        passes = Judgment.objects.filter(
            run_id=item.verdict.run_id, trace_id=item.trace_id, config_id=item.verdict.config_id
        )
    elif item.rubric_version_id:
        latest = (
            Judgment.objects.filter(
                trace_id=item.trace_id, rubric_version_id=item.rubric_version_id
            )
            .order_by("-run_id")
            .values_list("run_id", flat=True)
            .first()
        )
        passes = Judgment.objects.filter(trace_id=item.trace_id, run_id=latest)
    else:
        return []
    passes = list(passes.order_by("pass_index"))
    for judgment in passes:
        judgment.citations = span_citations(judgment.cited_spans, spans)
        judgment.cited_span_ids = [c["span_id"] for c in judgment.citations if c["span_id"]]
    return passes


def criteria_questions(item) -> list[str]:
    """The rubric's yes/no questions when it scores per criterion, else []."""
    return version_criteria_questions(item.rubric_version)


def version_criteria_questions(version) -> list[str]:
    if version is None or version.score_type != "criteria":
        return []
    return [str(c.get("question", "")) for c in version.criteria or []]


def score_choices(item) -> list[tuple[str, str]]:
    """(score, key) radio choices for rubrics with few discrete scores; [] means free input."""
    return version_score_choices(item.rubric_version)


def version_score_choices(version) -> list[tuple[str, str]]:
    if version is None:
        values = [0, 1]
    elif version.score_type == "continuous":
        values = [0.0, 0.5, 1.0]
    elif version.score_type in ("binary", "range") and version.score_max - version.score_min <= 9:
        values = list(range(int(version.score_min), int(version.score_max) + 1))
    else:
        return []
    # Digits type a whole score itself (0-9); the 0 / 0.5 / 1 scale uses 1, 2, 3.
    whole = all(isinstance(v, int) and 0 <= v <= 9 for v in values)
    return [(f"{v:g}", str(v) if whole else str(i + 1)) for i, v in enumerate(values)]


def review_item_page(item_id: int, user) -> ItemPage:
    """Everything the item page shows, in a fixed number of queries."""
    item = ReviewItem.objects.select_related(
        "trace", "queue", "verdict", "rubric_version__rubric", "claimed_by", "flagged_by"
    ).get(pk=item_id)
    annotations = list(
        item.annotations.filter(undone_at__isnull=True)
        .select_related("annotator")
        .order_by("created_at")
    )
    mine = next((a for a in reversed(annotations) if a.annotator_id == user.pk), None)
    is_curator = has_role(user, CURATOR)
    # Blind queues show the judge only after the person's own answer; curators see all.
    reveal = is_curator or mine is not None or not item.queue.blind
    spans = trace_span_outline(item.trace)
    passes = item_judgment_passes(item, spans) if reveal else []
    highlight = {span_id for p in passes for span_id in p.cited_span_ids}
    # Red flags anchor a label as much as a score does: blind until the person answers.
    red_flags = list(item.trace.red_flags.select_related("span").order_by("pk")) if reveal else []
    # Highlighted spans are always rendered, however big the tree: their links must land.
    highlight.update(flag.span.span_id for flag in red_flags if flag.span_id)
    visible_annotations = annotations if (is_curator or mine is not None) else []
    return ItemPage(
        item=item,
        nodes=trace_span_nodes(item.trace, spans),
        passes=passes,
        highlight_span_ids=highlight,
        red_flags=red_flags,
        annotations=visible_annotations,
        comments=list(item.comments.select_related("author").order_by("created_at")),
        mine=mine,
        reveal=reveal,
        score_choices=score_choices(item),
        criteria=criteria_questions(item),
    )


@dataclass
class ReviewProgress:
    left: int  # open items of the queue the person may see, this one among them while open
    left_is_lower_bound: bool  # more than `left` are open
    answered_last_hour: int
    seconds_per_item: float | None  # None until two answers in the hour give a pace

    @property
    def left_text(self) -> str:
        return f"{'More than ' if self.left_is_lower_bound else ''}{self.left:,} left"

    @property
    def pace_text(self) -> str:
        if self.seconds_per_item is None:
            return ""
        pace = _duration_text(self.seconds_per_item)
        if self.left_is_lower_bound or not self.left:
            return f"about {pace} per item"
        to_go = _duration_text(self.seconds_per_item * self.left)
        return f"about {pace} per item, so about {to_go} to go"


def _duration_text(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


PACE_WINDOW = timedelta(hours=1)


def review_progress(user, item: ReviewItem) -> ReviewProgress:
    """How many items are left in the queue and the person's pace over the last hour.

    Counts what is left rather than a place among every item the queue ever held: that place
    grows with the queue's history, and counting it read all of it on every item page."""
    open_items = review_items_visible(
        user, ReviewItem.objects.filter(queue_id=item.queue_id, status=ReviewStatus.OPEN)
    )
    left, left_is_lower_bound = _count_capped(open_items)
    since = timezone.now() - PACE_WINDOW
    times = list(
        Annotation.objects.filter(annotator=user, undone_at__isnull=True, created_at__gte=since)
        .order_by("created_at")
        .values_list("created_at", flat=True)
    )
    pace = None
    if len(times) >= 2:
        pace = (times[-1] - times[0]).total_seconds() / (len(times) - 1)
    return ReviewProgress(
        left=left,
        left_is_lower_bound=left_is_lower_bound,
        answered_last_hour=len(times),
        seconds_per_item=pace,
    )


def annotation_to_restore(user, item: ReviewItem) -> Annotation | None:
    """The person's answer on this item they took back, so the form comes back filled in."""
    return (
        Annotation.objects.filter(annotator=user, item=item, undone_at__isnull=False)
        .order_by("-undone_at", "-pk")
        .first()
    )


def queue_purpose(queue: Queue) -> str:
    """What a queue is for, in a sentence, as the queues page says it."""
    from reviews.calibration_receivers import CALIBRATION_QUEUE_NAME
    from reviews.services import DEFAULT_QUEUE_NAME

    if queue.name == CALIBRATION_QUEUE_NAME:
        return (
            "Blind samples of judge versions still being calibrated: your labels measure how "
            "well the judge agrees with people before it may judge live traffic."
        )
    if queue.name == DEFAULT_QUEUE_NAME:
        return (
            "Disputes: judge passes that disagree, unusable replies, outcomes contradicted by a "
            "red flag, and traces people flagged."
        )
    if queue.rubric_id:
        return f"Disputed and sampled verdicts of the rubric {queue.rubric.name}."
    if queue.project_id:
        return f"Disputed and sampled verdicts of the project {queue.project.name}."
    return "Items curators route here."


def criteria_answers_by_people(version) -> list[tuple[int, dict[str, bool]]]:
    """(trace, {question: met}) of every standing per-criterion answer people gave to the
    rubric version's items."""
    rows = Annotation.objects.filter(
        item__rubric_version=version, undone_at__isnull=True
    ).values_list("item__trace_id", "criteria_results")
    answers = []
    for trace_id, results in rows.iterator():
        by_question = {
            str(r.get("question", "")): r["met"]
            for r in results or []
            if isinstance(r, dict) and isinstance(r.get("met"), bool)
        }
        if by_question:
            answers.append((trace_id, by_question))
    return answers

"""Writes for the review queue: enqueue, resolve, undo, adjudicate, skip, flag.

Claims live in claims.py, answer validation in scoring.py, reads in selectors.py.
"""

import logging
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.roles import ANNOTATOR, CURATOR, has_role
from core.errors import ApplicationError
from core.plain_rows import instances_where
from metrics.redflag_store import red_flags_ensure
from reviews.audit import annotation_snapshot, audit_event_record, review_item_snapshot
from reviews.claims import LockLost, lock_expiry, lock_lost_message, review_item_holds_release
from reviews.holds import item_held_by
from reviews.models import (
    Annotation,
    Comment,
    ItemSkip,
    Queue,
    QueueKind,
    ReviewItem,
    ReviewStatus,
)
from reviews.scoring import explanation_clean, failure_tags_clean, score_with_criteria

logger = logging.getLogger(__name__)

DEFAULT_QUEUE_NAME = "Default"
QUEUE_FIELDS = tuple(field.name for field in Queue._meta.concrete_fields)
TASK_EXCERPT_CHARS = 500


def queue_for_rubric(rubric, project=None) -> Queue:
    """The queue named for the rubric, else the one named for the project, else the default.
    Each may be given as the row or its id."""
    # One query for the three candidates; the first rank present wins, by priority then age.
    # Plain SQL: every agreed verdict asks (its audit rate), and judging is bound by CPU.
    rubric_id = getattr(rubric, "pk", rubric)
    project_id = getattr(project, "pk", project)
    candidates, params = ["name = %s"], [DEFAULT_QUEUE_NAME]
    if rubric is not None:
        candidates.append("rubric_id = %s")
        params.append(rubric_id)
    if project is not None:
        candidates.append("(project_id = %s AND rubric_id IS NULL)")
        params.append(project_id)
    # Pairwise queues take pairs only: a single trace never lands in one.
    found = instances_where(
        Queue,
        QUEUE_FIELDS,
        f"kind = %s AND ({' OR '.join(candidates)})",
        [QueueKind.SINGLE, *params],
        order="priority DESC, id",
    )
    ranks = (
        lambda q: rubric is not None and q.rubric_id == rubric_id,
        lambda q: project is not None and q.project_id == project_id and q.rubric_id is None,
        lambda q: q.name == DEFAULT_QUEUE_NAME,
    )
    for matches in ranks:
        named = next((queue for queue in found if matches(queue)), None)
        if named:
            return named
    queue, _ = Queue.objects.get_or_create(name=DEFAULT_QUEUE_NAME)
    return queue


def task_excerpt_of(trace) -> str:
    """The start of the trace's task as the queue page shows and searches it."""
    return " ".join((trace.task or "").split())[:TASK_EXCERPT_CHARS]


def review_item_enqueue(
    *,
    trace,
    reason,
    verdict=None,
    rubric_version=None,
    detail="",
    priority=0,
    queue=None,
    session_id=None,
) -> ReviewItem:
    """Queue a trace for review; a trace is queued once per rubric version and reason.

    With `session_id` the item is about the whole session (shown on `trace`, its last trace),
    and a session is queued once per rubric version and reason."""
    same = {"session_id": session_id} if session_id else {"trace": trace, "session__isnull": True}
    existing = ReviewItem.objects.filter(
        **same, rubric_version=rubric_version, reason=reason
    ).first()
    if existing:
        return existing
    rubric = rubric_version.rubric if rubric_version else None
    queue = queue or queue_for_rubric(rubric, trace.project)
    try:
        with transaction.atomic():
            item = ReviewItem.objects.create(
                queue=queue,
                trace=trace,
                session_id=session_id,
                verdict=verdict,
                rubric_version=rubric_version,
                reason=reason,
                detail=detail,
                priority=priority,
                task_excerpt=task_excerpt_of(trace),
            )
    except IntegrityError:
        # Lost a race with another writer: the row it made is the one we wanted.
        return ReviewItem.objects.get(**same, rubric_version=rubric_version, reason=reason)
    _red_flags_prepare(trace)
    return item


def verdict_item_enqueue(*, verdict, reason, detail="", queue=None) -> ReviewItem:
    """Queue a verdict for review: the item is on the verdict's trace (or session) and rubric
    version."""
    return review_item_enqueue(
        trace=verdict.trace,
        verdict=verdict,
        rubric_version=verdict.rubric_version,
        reason=reason,
        detail=detail,
        queue=queue,
        session_id=verdict.session_id,
    )


def _red_flags_prepare(trace) -> None:
    """Store the trace's red flags now so the item page only reads them."""
    try:
        with transaction.atomic():
            red_flags_ensure(trace)
    except Exception:
        # Red flags are advice for the reviewer; a detector fault must not lose the item.
        logger.exception("red flags for trace %s could not be computed", trace.pk)


# --- Resolve --------------------------------------------------------------------------------


def review_item_lock_for_write(item) -> ReviewItem:
    # A row lock on PostgreSQL; SQLite's IMMEDIATE transactions already serialize writers.
    return (
        ReviewItem.objects.select_for_update(of=("self",))
        .select_related("queue", "rubric_version")
        .get(pk=item.pk)
    )


def _item_state_recompute(item: ReviewItem, now) -> None:
    """Status, settled score and curator flag from the item's active annotations."""
    if item.status == ReviewStatus.CLOSED:
        return
    active = list(item.annotations.filter(undone_at__isnull=True).order_by("created_at", "pk"))
    adjudications = [a for a in active if a.is_adjudication]
    votes = [a.score for a in active if not a.is_adjudication]
    needed = max(1, item.queue.annotators_per_item)
    if adjudications:
        item.status, item.resolved_score = ReviewStatus.RESOLVED, adjudications[-1].score
        item.needs_curator = False
    elif len(votes) >= needed and len(set(votes)) == 1:
        item.status, item.resolved_score = ReviewStatus.RESOLVED, votes[0]
        item.needs_curator = False
    elif len(votes) >= needed:
        # N annotators who disagree: a curator settles it.
        item.status, item.resolved_score, item.needs_curator = ReviewStatus.OPEN, None, True
    else:
        item.status, item.resolved_score = ReviewStatus.OPEN, None
        item.needs_curator = item.flagged_by_id is not None
    if item.status == ReviewStatus.RESOLVED:
        item.resolved_at = item.resolved_at or now
    else:
        item.resolved_at = None


_STATE_FIELDS = ["status", "resolved_score", "needs_curator", "resolved_at"]


def review_annotation_write(
    *,
    item,
    user,
    score,
    explanation,
    failure_tags,
    promote,
    is_adjudication,
    action,
    criteria_results=(),
    blind=None,
) -> Annotation:
    now = timezone.now()
    before = review_item_snapshot(item)
    annotation = Annotation.objects.create(
        item=item,
        annotator=user,
        score=score,
        criteria_results=list(criteria_results),
        explanation=explanation,
        failure_tags=failure_tags,
        blind=(item.queue.blind and not is_adjudication) if blind is None else blind,
        is_adjudication=is_adjudication,
        promoted=promote,
    )
    if item.claimed_by_id == user.pk:
        item.claimed_by, item.lock_expires_at = None, None
    _item_state_recompute(item, now)
    item.save(update_fields=[*_STATE_FIELDS, "claimed_by", "lock_expires_at"])
    audit_event_record(
        actor=user,
        action=action,
        obj=item,
        before=before,
        after={**review_item_snapshot(item), **annotation_snapshot(annotation)},
    )
    if promote:
        audit_event_record(
            actor=user,
            action="review_item.promote",
            obj=item,
            before=None,
            after=annotation_snapshot(annotation),
        )
    return annotation


def review_item_resolve(
    *, item, user, score=None, explanation="", failure_tags=(), promote=False, criteria_results=None
) -> Annotation:
    """Record the person's answer on an item they hold; refused with LockLost if they do not.

    The item settles when the queue's number of annotators agree; if they disagree it goes
    to a curator. With promote set, the item is suggested for the golden dataset (audited).
    """
    if not has_role(user, ANNOTATOR):
        raise ApplicationError("Resolving review items needs the annotator role.", status_code=403)
    return _item_answer(
        item, user, score, criteria_results, explanation, failure_tags, promote, adjudicate=False
    )


def review_item_adjudicate(
    *, item, user, score=None, explanation="", failure_tags=(), promote=False, criteria_results=None
) -> Annotation:
    """A curator's final answer on an open item (annotators disagreed, or it was flagged)."""
    if not has_role(user, CURATOR):
        raise ApplicationError("Adjudication needs the curator role.", status_code=403)
    return _item_answer(
        item, user, score, criteria_results, explanation, failure_tags, promote, adjudicate=True
    )


def review_item_answerable_check(item, user, *, adjudicate: bool) -> None:
    """A curator adjudicates any open item; anyone else answers only an open item they hold
    (LockLost otherwise). Asked of the item as locked for the write."""
    if adjudicate and item.status != ReviewStatus.OPEN:
        raise ApplicationError(
            f"Item #{item.pk} is already {item.status}; nothing to adjudicate.",
            field="item",
            code="not_open",
            status_code=409,
        )
    if not adjudicate and (item.status != ReviewStatus.OPEN or not item_held_by(item, user)):
        raise LockLost(lock_lost_message(item))


def _item_answer(
    item, user, score, criteria_results, explanation, failure_tags, promote, *, adjudicate
) -> Annotation:
    """An annotator's answer on an item they hold, or a curator's on any open item; the
    answer's text is checked before the item is locked, its score against the locked item."""
    explanation = explanation_clean(explanation)
    failure_tags = failure_tags_clean(failure_tags)
    with transaction.atomic():
        item = review_item_lock_for_write(item)
        review_item_answerable_check(item, user, adjudicate=adjudicate)
        score, criteria = score_with_criteria(item, score, criteria_results)
        return review_annotation_write(
            item=item,
            user=user,
            score=score,
            criteria_results=criteria,
            explanation=explanation,
            failure_tags=failure_tags,
            promote=promote,
            is_adjudication=adjudicate,
            action="review_item.adjudicate" if adjudicate else "review_item.resolve",
        )


def annotation_undo(*, annotation, user) -> ReviewItem:
    """Take back one's own last answer within the undo window; the item is held again."""
    now = timezone.now()
    with transaction.atomic():
        annotation = Annotation.objects.select_for_update().get(pk=annotation.pk)
        if annotation.annotator_id != user.pk:
            raise ApplicationError(
                "Only the person who answered can undo it.", status_code=403, code="forbidden"
            )
        if annotation.undone_at is not None:
            raise ApplicationError("This answer was already undone.", field="annotation")
        if annotation.created_at < now - timedelta(seconds=settings.REVIEW_UNDO_SECONDS):
            raise ApplicationError(
                f"Undo is possible for {settings.REVIEW_UNDO_SECONDS} seconds after answering; "
                "ask a curator to re-queue the item instead.",
                field="annotation",
                code="undo_window_passed",
            )
        item = review_item_lock_for_write(annotation.item)
        before = {**review_item_snapshot(item), **annotation_snapshot(annotation)}
        annotation.undone_at = now
        annotation.save(update_fields=["undone_at"])
        _item_state_recompute(item, now)
        fields = list(_STATE_FIELDS)
        still_held = item.claimed_by_id and item.lock_expires_at and item.lock_expires_at > now
        if item.status == ReviewStatus.OPEN and not still_held and not annotation.is_adjudication:
            # The person gets the item back to answer again, in place of what they held there.
            review_item_holds_release(user=user, queue=item.queue, expired_only=False)
            item.claimed_by, item.lock_expires_at = user, lock_expiry(now)
            fields += ["claimed_by", "lock_expires_at"]
        item.save(update_fields=fields)
        audit_event_record(
            actor=user,
            action="annotation.undo",
            obj=item,
            before=before,
            after={**review_item_snapshot(item), **annotation_snapshot(annotation)},
        )
        return item


# --- Skip, flag, comment --------------------------------------------------------------------


def _lock_release_if_held(item, user) -> list[str]:
    if item.claimed_by_id == user.pk:
        item.claimed_by, item.lock_expires_at = None, None
        return ["claimed_by", "lock_expires_at"]
    return []


def review_item_skip(*, item, user) -> None:
    """Pass on an item: the lock is released and the item is not offered to this person again."""
    with transaction.atomic():
        item = review_item_lock_for_write(item)
        before = review_item_snapshot(item)
        ItemSkip.objects.get_or_create(item=item, user=user)
        if fields := _lock_release_if_held(item, user):
            item.save(update_fields=fields)
        audit_event_record(
            actor=user,
            action="review_item.skip",
            obj=item,
            before=before,
            after=review_item_snapshot(item),
        )


def review_item_flag(*, item, user, note="") -> ReviewItem:
    """Send an item to a curator; the note becomes a comment."""
    if not has_role(user, ANNOTATOR):
        raise ApplicationError("Flagging needs the annotator role.", status_code=403)
    with transaction.atomic():
        item = review_item_lock_for_write(item)
        if item.status != ReviewStatus.OPEN:
            raise ApplicationError(f"Item #{item.pk} is {item.status}.", field="item")
        before = review_item_snapshot(item)
        item.needs_curator, item.flagged_by = True, user
        fields = ["needs_curator", "flagged_by", *_lock_release_if_held(item, user)]
        item.save(update_fields=fields)
        if note.strip():
            Comment.objects.create(item=item, author=user, text=note.strip()[:5000])
        audit_event_record(
            actor=user,
            action="review_item.flag",
            obj=item,
            before=before,
            after=review_item_snapshot(item),
        )
        return item


def review_item_comment(*, item, user, text) -> Comment:
    """Add a comment to an item."""
    text = (text or "").strip()
    if not text:
        raise ApplicationError("Write a comment first.", field="text")
    if len(text) > 5000:
        raise ApplicationError("A comment is at most 5000 characters.", field="text")
    return Comment.objects.create(item=item, author=user, text=text)

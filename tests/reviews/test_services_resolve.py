"""review_item_resolve, annotation_undo, review_item_adjudicate and overlap settlement."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.roles import ANNOTATOR
from core.errors import ApplicationError
from golden.models import GoldenExample
from judges.models import ScoreType
from reviews.claims import LockLost, review_item_claim_next
from reviews.models import Annotation, AuditEvent, ReviewStatus
from reviews.services import (
    annotation_undo,
    review_item_adjudicate,
    review_item_flag,
    review_item_resolve,
)
from tests.factories import (
    QueueFactory,
    ReviewItemFactory,
    RubricVersionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def _claimed(user, **item_kwargs):
    item = ReviewItemFactory(**item_kwargs)
    claimed = review_item_claim_next(user=user, queue=item.queue)
    assert claimed.pk == item.pk
    return claimed


def test_resolve_settles_the_item_and_writes_an_audit_event(annotator):
    item = _claimed(annotator)
    annotation = review_item_resolve(
        item=item,
        user=annotator,
        score=0,
        explanation="Called cancel_order before looking the order up.",
        failure_tags=["wrong_tool_selection", "  Refund Policy  "],
    )
    item.refresh_from_db()
    assert item.status == ReviewStatus.RESOLVED
    assert item.resolved_score == 0
    assert item.claimed_by is None
    assert annotation.failure_tags == ["wrong_tool_selection", "refund policy"]
    event = AuditEvent.objects.get(action="review_item.resolve")
    assert event.actor == annotator
    assert event.before["status"] == "open"
    assert event.after["status"] == "resolved"
    assert event.after["score"] == 0


def test_resolve_after_the_lock_expired_is_refused_and_nothing_is_saved(annotator):
    item = _claimed(annotator)
    item.lock_expires_at = timezone.now() - timedelta(seconds=1)
    item.save(update_fields=["lock_expires_at"])
    with pytest.raises(LockLost) as refused:
        review_item_resolve(item=item, user=annotator, score=1, explanation="typed text")
    assert refused.value.status_code == 409
    assert "expired" in refused.value.message
    assert not Annotation.objects.exists()


def test_resolve_of_an_item_someone_else_holds_is_refused(annotator):
    other = UserFactory(roles=[ANNOTATOR])
    item = _claimed(other)
    with pytest.raises(LockLost):
        review_item_resolve(item=item, user=annotator, score=1)


@pytest.mark.parametrize(
    ("score_type", "low", "high", "score", "ok"),
    [
        (ScoreType.RANGE, 1, 5, 5, True),
        (ScoreType.RANGE, 1, 5, 6, False),
        (ScoreType.RANGE, 1, 5, 0, False),
        (ScoreType.RANGE, 1, 5, 2.5, False),
        (ScoreType.BINARY, 0, 1, 1, True),
        (ScoreType.CONTINUOUS, 0, 1, 0.5, True),
        (ScoreType.CONTINUOUS, 0, 1, 0.7, False),
    ],
)
def test_score_must_fit_the_rubric_version(annotator, score_type, low, high, score, ok):
    version = RubricVersionFactory(score_type=score_type, score_min=low, score_max=high)
    item = _claimed(annotator, rubric_version=version)
    if ok:
        assert review_item_resolve(item=item, user=annotator, score=score).score == score
    else:
        with pytest.raises(ApplicationError) as refused:
            review_item_resolve(item=item, user=annotator, score=score)
        assert refused.value.field == "score"
        assert not Annotation.objects.exists()


def test_promote_suggests_the_item_and_audits_it_but_writes_no_example(annotator):
    item = _claimed(annotator)
    annotation = review_item_resolve(item=item, user=annotator, score=1, promote=True)
    assert annotation.promoted is True
    assert not GoldenExample.objects.filter(source_review_item=item).exists()
    assert AuditEvent.objects.filter(action="review_item.promote", object_id=str(item.pk)).exists()


def test_undo_within_the_window_reopens_and_gives_the_item_back(annotator):
    item = _claimed(annotator)
    annotation = review_item_resolve(item=item, user=annotator, score=1)
    annotation_undo(annotation=annotation, user=annotator)
    item.refresh_from_db()
    annotation.refresh_from_db()
    assert annotation.undone_at is not None
    assert item.status == ReviewStatus.OPEN
    assert item.resolved_score is None
    assert item.claimed_by == annotator
    assert AuditEvent.objects.get(action="annotation.undo").before["status"] == "resolved"
    # And the person can answer again
    review_item_resolve(item=item, user=annotator, score=0)
    item.refresh_from_db()
    assert item.resolved_score == 0


def test_undo_after_the_window_or_by_someone_else_is_refused(annotator):
    item = _claimed(annotator)
    annotation = review_item_resolve(item=item, user=annotator, score=1)
    other = UserFactory(roles=[ANNOTATOR])
    with pytest.raises(ApplicationError):
        annotation_undo(annotation=annotation, user=other)
    Annotation.objects.filter(pk=annotation.pk).update(
        created_at=timezone.now() - timedelta(minutes=5)
    )
    with pytest.raises(ApplicationError) as refused:
        annotation_undo(annotation=annotation, user=annotator)
    assert refused.value.code == "undo_window_passed"


def test_overlap_settles_when_n_annotators_agree(annotator):
    queue = QueueFactory(name="Overlap", annotators_per_item=2)
    other = UserFactory(roles=[ANNOTATOR])
    item = _claimed(annotator, queue=queue)
    review_item_resolve(item=item, user=annotator, score=1)
    item.refresh_from_db()
    assert item.status == ReviewStatus.OPEN  # one of two answers
    # The first annotator is not offered the item again; the second is
    assert review_item_claim_next(user=annotator, queue=queue) is None
    assert review_item_claim_next(user=other, queue=queue).pk == item.pk
    review_item_resolve(item=item, user=other, score=1)
    item.refresh_from_db()
    assert item.status == ReviewStatus.RESOLVED
    assert item.resolved_score == 1


def test_overlap_disagreement_goes_to_a_curator_who_adjudicates(annotator, curator):
    queue = QueueFactory(name="Overlap", annotators_per_item=2)
    other = UserFactory(roles=[ANNOTATOR])
    item = _claimed(annotator, queue=queue)
    review_item_resolve(item=item, user=annotator, score=1)
    review_item_claim_next(user=other, queue=queue)
    review_item_resolve(item=item, user=other, score=0)
    item.refresh_from_db()
    assert item.status == ReviewStatus.OPEN
    assert item.needs_curator
    # Annotators cannot adjudicate; the curator can
    with pytest.raises(ApplicationError):
        review_item_adjudicate(item=item, user=other, score=0)
    review_item_adjudicate(item=item, user=curator, score=0, explanation="Order was not found.")
    item.refresh_from_db()
    assert item.status == ReviewStatus.RESOLVED
    assert item.resolved_score == 0
    assert not item.needs_curator
    assert AuditEvent.objects.filter(action="review_item.adjudicate", actor=curator).exists()


def test_flag_sends_the_item_to_a_curator_with_the_note(annotator):
    item = _claimed(annotator)
    review_item_flag(item=item, user=annotator, note="Tool output looks truncated.")
    item.refresh_from_db()
    assert item.needs_curator
    assert item.flagged_by == annotator
    assert item.claimed_by is None
    assert item.comments.get().text == "Tool output looks truncated."

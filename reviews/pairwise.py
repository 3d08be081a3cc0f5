"""Pairwise review: two trajectories of one task shown side by side, answered A / B / equal.

A pairwise item is a ReviewItem in a pairwise queue, so claims, overlap, blind mode, undo and
adjudication are the other queues' own. What differs lives here: making the pair (sides drawn
at random once and recorded, so left or right never tells which is the candidate), and the
answer, which the person gives in sides (A is left) and which is stored in terms of the pair:
score 1 when the candidate is preferred, 0 for the baseline, 0.5 for equal. Agreement and the
settling of an item then read the score as for any item.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.db import IntegrityError, transaction

from accounts.roles import ANNOTATOR, CURATOR, has_role
from core.errors import ApplicationError
from reviews.models import (
    Annotation,
    PairwiseComparison,
    PairwiseSource,
    Queue,
    QueueKind,
    ReviewItem,
    ReviewReason,
    ReviewStatus,
)
from reviews.pairwise_judge import pairwise_judge_calibrate, pairwise_pairs_judge
from reviews.scoring import explanation_clean, failure_tags_clean
from reviews.services import (
    review_annotation_write,
    review_item_answerable_check,
    review_item_lock_for_write,
    task_excerpt_of,
)
from traces.selectors import traces_visible

PAIRWISE_QUEUE_NAME = "Pairwise"
SIDES = ("A", "B", "equal")
BASELINE, CANDIDATE, EQUAL = "baseline", "candidate", "equal"
# The stored score of each preference: agreement reads it as an ordered scale.
PREFERENCE_SCORE = {BASELINE: 0.0, EQUAL: 0.5, CANDIDATE: 1.0}
SCORE_PREFERENCE = {score: name for name, score in PREFERENCE_SCORE.items()}
OVERALL = "Overall, which trajectory is better?"


def pairwise_queue() -> Queue:
    """The default pairwise queue (blind: the judge's view of either trace stays hidden)."""
    queue, _ = Queue.objects.get_or_create(
        name=PAIRWISE_QUEUE_NAME, defaults={"kind": QueueKind.PAIRWISE, "blind": True}
    )
    if queue.kind != QueueKind.PAIRWISE:
        raise ApplicationError(
            f"The queue named {PAIRWISE_QUEUE_NAME!r} is not a pairwise queue.", field="queue"
        )
    return queue


def _same_task(first, second) -> bool:
    return " ".join((first.task or "").split()) == " ".join((second.task or "").split())


def pairwise_item_create(
    *,
    baseline_trace,
    candidate_trace,
    source: str,
    queue: Queue | None = None,
    baseline_run_id: int | None = None,
    candidate_run_id: int | None = None,
    task_key: str = "",
    direction: str = "",
    priority: int = 0,
) -> tuple[ReviewItem, bool]:
    """Queue two trajectories of one task for comparison; (item, created). A pair is queued
    once. Held-out traces are refused: annotators never see them."""
    queue = queue or pairwise_queue()
    if queue.kind != QueueKind.PAIRWISE:
        raise ApplicationError(f"Queue {queue.name!r} is not a pairwise queue.", field="queue")
    if source not in PairwiseSource.values:
        raise ApplicationError(
            f"source is one of {', '.join(PairwiseSource.values)}.", field="source"
        )
    if baseline_trace.pk == candidate_trace.pk:
        raise ApplicationError("Pick two different traces.", field="candidate_trace")
    if not task_key and not _same_task(baseline_trace, candidate_trace):
        raise ApplicationError(
            "The two traces ask different tasks; compare trajectories of one task.",
            field="candidate_trace",
        )
    visible = set(
        traces_visible(None)
        .filter(pk__in=[baseline_trace.pk, candidate_trace.pk])
        .values_list("pk", flat=True)
    )
    for role, trace in (("baseline_trace", baseline_trace), ("candidate_trace", candidate_trace)):
        if trace.pk not in visible:
            raise ApplicationError(
                f"Trace {trace.pk} belongs to a held-out task and cannot be reviewed.",
                field=role,
            )
    existing = PairwiseComparison.objects.filter(
        baseline_trace=baseline_trace, candidate_trace=candidate_trace
    ).select_related("item")
    if found := existing.first():
        return found.item, False
    # Drawn once and kept: every annotator, and the adjudicator, sees one layout. The item's
    # trace is the left one, so nothing on the item says which side is the candidate.
    candidate_on_left = secrets.randbelow(2) == 1
    try:
        with transaction.atomic():
            item = ReviewItem.objects.create(
                queue=queue,
                trace=candidate_trace if candidate_on_left else baseline_trace,
                reason=ReviewReason.PAIRWISE,
                rubric_version=queue.rubric.latest_version() if queue.rubric_id else None,
                detail="Compare two trajectories of one task.",
                priority=priority,
                task_excerpt=task_excerpt_of(candidate_trace),
            )
            PairwiseComparison.objects.create(
                item=item,
                baseline_trace=baseline_trace,
                candidate_trace=candidate_trace,
                candidate_on_left=candidate_on_left,
                source=source,
                baseline_run_id=baseline_run_id,
                candidate_run_id=candidate_run_id,
                task_key=task_key[:200],
                direction=direction,
            )
    except IntegrityError:
        # A parallel request queued the same pair first: its item is the one.
        return existing.get().item, False
    # The queue's judge, when on, answers the pair too (shown or used once calibrated).
    pairwise_pairs_judge(queue, [item.pairwise])
    return item, True


@dataclass(frozen=True)
class PairwiseLayout:
    """Which trace is shown on which side."""

    left_trace_id: int
    right_trace_id: int
    candidate_on_left: bool

    def preference_of(self, side: str) -> str:
        """ "A" (left) / "B" (right) / "equal" as baseline / candidate / equal."""
        if side == "equal":
            return EQUAL
        left_is_candidate = self.candidate_on_left
        return CANDIDATE if (side == "A") == left_is_candidate else BASELINE

    def side_of(self, preference: str) -> str:
        if preference == EQUAL:
            return "equal"
        return "A" if (preference == CANDIDATE) == self.candidate_on_left else "B"


def pairwise_layout(comparison: PairwiseComparison) -> PairwiseLayout:
    base, cand = comparison.baseline_trace_id, comparison.candidate_trace_id
    left, right = (cand, base) if comparison.candidate_on_left else (base, cand)
    return PairwiseLayout(left, right, comparison.candidate_on_left)


def pairwise_questions(item: ReviewItem) -> list[str]:
    """The rubric's criteria (when the queue has a rubric), then the overall question."""
    version = item.rubric_version
    questions = [str(c.get("question", "")) for c in (version.criteria if version else [])]
    return [q for q in questions if q] + [OVERALL]


def pairwise_answers_clean(item: ReviewItem, answers) -> tuple[float, list[dict]]:
    """A / B / equal for each question, overall last; returns (score, criteria_results)."""
    questions = pairwise_questions(item)
    answers = list(answers) if isinstance(answers, list | tuple) else None
    if answers is None or len(answers) != len(questions) or not all(a in SIDES for a in answers):
        raise ApplicationError(
            f"Answer each of the {len(questions)} questions with A, B or equal "
            "(the last one is the overall preference).",
            field="answers",
        )
    layout = pairwise_layout(item.pairwise)
    results = [
        {"question": question, "side": side, "preferred": layout.preference_of(side)}
        for question, side in zip(questions, answers, strict=True)
    ]
    return PREFERENCE_SCORE[results[-1]["preferred"]], results


def pairwise_answer(
    *, item, user, answers, explanation="", failure_tags=(), adjudicate: bool = False
) -> Annotation:
    """Record a person's A / B / equal answers on a pairwise item.

    An annotator answers an item they hold (LockLost otherwise); a curator's adjudication
    settles an open item. The item settles as any other: agreement of the queue's number of
    annotators on the overall preference, or a curator.
    """
    needed = CURATOR if adjudicate else ANNOTATOR
    if not has_role(user, needed):
        raise ApplicationError(f"Answering this needs the {needed} role.", status_code=403)
    explanation = explanation_clean(explanation)
    failure_tags = failure_tags_clean(failure_tags)
    with transaction.atomic():
        item = review_item_lock_for_write(item)
        if not hasattr(item, "pairwise"):
            raise ApplicationError(f"Item #{item.pk} is not a pairwise item.", field="item")
        review_item_answerable_check(item, user, adjudicate=adjudicate)
        score, results = pairwise_answers_clean(item, answers)
        annotation = review_annotation_write(
            item=item,
            user=user,
            score=score,
            criteria_results=results,
            explanation=explanation,
            failure_tags=failure_tags,
            promote=False,
            is_adjudication=adjudicate,
            action="review_item.adjudicate" if adjudicate else "review_item.resolve",
        )
        verdict = item.pairwise.judge_verdict
        if item.status == ReviewStatus.RESOLVED and verdict is not None:
            # People settled a pair the judge answered: a new calibration label.
            pairwise_judge_calibrate(verdict.rubric_version, verdict.config)
        return annotation


def pairwise_run_preferences(baseline_run_id: int, candidate_run_id: int) -> dict[str, str | None]:
    """Per task key of two eval runs: what people settled on (baseline, candidate, equal), or
    None while the pair is still open. A task with several pairs takes its latest settled one.
    A pair the judge settled counts only where the queue's curator allowed it; elsewhere it
    waits for people like an open one."""
    rows = (
        PairwiseComparison.objects.filter(
            baseline_run_id=baseline_run_id, candidate_run_id=candidate_run_id
        )
        .exclude(task_key="")
        .order_by("item__resolved_at", "pk")
        .values_list(
            "task_key",
            "item__status",
            "item__resolved_score",
            "settled_by_judge",
            "item__queue__judge_answers_confirm_gate",
        )
    )
    found: dict[str, str | None] = {}
    for key, status, score, by_judge, judge_counts in rows:
        settled = status == ReviewStatus.RESOLVED and score is not None
        if settled and (judge_counts or not by_judge):
            found[key] = SCORE_PREFERENCE.get(score)
        else:
            found.setdefault(key, None)
    return found

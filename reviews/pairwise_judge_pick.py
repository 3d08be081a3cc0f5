"""What a pairwise item page shows of the queue's judge: its pick, in the page's sides, once
the judge version is calibrated (before that its answers only measure it, unseen)."""

from __future__ import annotations

from judges.models import PairwiseVerdictStatus
from judges.pairwise import PAIR_TRACE, TRACE
from reviews.models import JudgeAssist, ReviewItem
from reviews.pairwise import BASELINE, CANDIDATE, EQUAL, pairwise_layout, pairwise_questions
from reviews.pairwise_judge import queue_judge_calibrated

# The judge compares (trace = baseline, pair_trace = candidate).
PREFERENCE_OF_JUDGE = {TRACE: BASELINE, PAIR_TRACE: CANDIDATE, EQUAL: EQUAL}


def pairwise_judge_pick(item: ReviewItem) -> dict | None:
    """The judge's answers on the item's questions in sides (A, B, equal; "" where it has
    none or was unsure), or None when nothing of the judge may be shown."""
    comparison = item.pairwise
    verdict = comparison.judge_verdict
    if verdict is None or item.queue.judge_assist == JudgeAssist.OFF:
        return None
    if not (comparison.settled_by_judge or queue_judge_calibrated(item.queue)):
        return None
    layout = pairwise_layout(comparison)
    by_question = {c.get("question"): c for c in verdict.criteria_results or []}
    rows = []
    for question in pairwise_questions(item):
        answer = by_question.get(question) or {}
        preferred = PREFERENCE_OF_JUDGE.get(answer.get("preferred") or "")
        rows.append(
            {
                "question": question,
                "side": layout.side_of(preferred) if preferred else "",
                "reason": answer.get("reason", ""),
            }
        )
    return {
        "verdict": verdict,
        "sure": verdict.status == PairwiseVerdictStatus.AGREED,
        "settled_by_judge": comparison.settled_by_judge,
        "rows": rows,
        "answers": [row["side"] for row in rows],
    }

"""The demo annotator's calibration labels: what a careful person says of each sampled verdict.

The demo's annotator reads the trajectory, not only the answer: a trace with a trajectory red
flag (a call before its prerequisite, an invented id, a loop, a confident answer after a failed
tool) fails, any other passes. The simulated judge misses some of these, so the labels disagree
with it where a real judge would be corrected too, and an alignment proposal has work to do.
"""

from django.contrib.auth import get_user_model

from judges.models import ScoreType
from metrics.models import RedFlag
from reviews.calibration_receivers import calibration_queue
from reviews.claims import review_item_claim_next
from reviews.services import review_item_resolve, review_item_skip

DEMO_ANNOTATOR = "annie"


def demo_calibration_label(limit: int = 200) -> dict:
    """Answer the open calibration items the demo annotator can claim; returns the counts."""
    annotator = get_user_model().objects.get(username=DEMO_ANNOTATOR)
    queue = calibration_queue()
    counts = {"labelled": 0, "skipped": 0}
    for _ in range(limit):
        item = review_item_claim_next(user=annotator, queue=queue)
        if item is None:
            break
        version = item.rubric_version
        if version is None or version.score_type == ScoreType.CRITERIA:
            # Criteria rubrics are answered question by question; the demo leaves them to you.
            review_item_skip(item=item, user=annotator)
            counts["skipped"] += 1
            continue
        flags = list(RedFlag.objects.filter(trace_id=item.trace_id).order_by("pk"))
        failed = bool(flags)
        review_item_resolve(
            item=item,
            user=annotator,
            score=version.score_min if failed else version.score_max,
            explanation="; ".join(f.detail for f in flags)[:500]
            if failed
            else "Every call was needed and grounded; the answer matches the tool results.",
            failure_tags=sorted({f.kind for f in flags}),
        )
        counts["labelled"] += 1
    return counts

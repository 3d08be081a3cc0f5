"""A blind review item whose judge said what an annotator must not see before answering: two
passes citing a tool span, the verdict's reason and a red flag on that span."""

from metrics.models import RedFlag
from reviews.models import ReviewItem, ReviewReason
from tests.factories import (
    JudgmentFactory,
    QueueFactory,
    ToolSpanFactory,
    TraceFactory,
    VerdictFactory,
    VerdictItemFactory,
)

EXPLANATIONS = ("The refund went to a card the customer never gave.", "Refund matches the order.")
VERDICT_DETAIL = "pass scores 1, 0 on Refund policy"
FLAG_DETAIL = "card_id 4242-XX appears nowhere in the task or earlier outputs"
REASON_TEXT = "Outcome passes but a trajectory red flag fired"
# Each of them tells the judge's answer; none may be on a page before the holder answers.
JUDGE_TEXTS = (*EXPLANATIONS, VERDICT_DETAIL, FLAG_DETAIL, REASON_TEXT)


def blind_red_flag_item() -> ReviewItem:
    trace = TraceFactory(task="Refund order A1042 to the card it was paid with, please.")
    ToolSpanFactory(trace=trace, name="get_order", position=0)
    refund = ToolSpanFactory(trace=trace, name="issue_refund", input={"card_id": "4242-XX"})
    verdict = VerdictFactory(trace=trace, reason=VERDICT_DETAIL)
    for index, (score, text) in enumerate(zip((0, 1), EXPLANATIONS, strict=True)):
        JudgmentFactory(
            trace=trace, run=verdict.run, pass_index=index, score=score, explanation=text,
            cited_spans=[refund.span_id],
        )  # fmt: skip
    RedFlag.objects.create(
        trace=trace, span=refund, kind=RedFlag.Kind.HALLUCINATED_PARAMETER, detail=FLAG_DETAIL
    )
    return VerdictItemFactory(
        verdict=verdict,
        queue=QueueFactory(name="Blind refunds", blind=True),
        reason=ReviewReason.RED_FLAG,
        detail=VERDICT_DETAIL,
    )

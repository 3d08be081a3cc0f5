"""Hand-offs from judging to the stages on its right. Sent inside the writing transaction,
except the one question below, which asks them for what people answered."""

from django.dispatch import Signal

# Sent with verdict=<Verdict>, reasons=[VerdictReason values], detail=str when a verdict
# needs a person: passes disagree, a reply was unusable, or a red flag contradicts the outcome.
verdict_needs_review = Signal()

# Sent with verdict=<Verdict> for every verdict written (audit sampling, calibration).
verdict_written = Signal()

# Sent with calibration=<JudgeCalibration> when an approved judge version's recent agreement
# with people fell below the bar and it went back to calibrating.
judge_drift_flagged = Signal()

# Sent with version=<RubricVersion> to ask what people answered to its criteria; each receiver
# returns [(trace_id, {question: met}), ...]. Nothing is written.
criteria_answers_wanted = Signal()

# Sent with verdict=<PairwiseVerdict> for every pairwise verdict written (reviews pre-fills or
# settles the pair it queued, and routes an unsure one to people).
pairwise_verdict_written = Signal()

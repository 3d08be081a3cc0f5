"""The events a webhook can subscribe to, by their wire names."""

GATE_BLOCKED = "gate.blocked"
JUDGE_DRIFT = "judge.drift_flagged"
REVIEW_BACKLOG = "review.backlog_over_threshold"
GOLDEN_VERSION = "golden.version_created"
TOPIC_EMERGED = "topic.emerged"
JUDGING_SILENT = "judging.rule_silent"
TEST = "webhook.test"

EVENT_CHOICES = [
    (GATE_BLOCKED, "The CI gate blocked a candidate"),
    (JUDGE_DRIFT, "A judge version was flagged for drift"),
    (REVIEW_BACKLOG, "The review backlog went over the threshold"),
    (GOLDEN_VERSION, "A golden dataset version was created"),
    (TOPIC_EMERGED, "A new topic of traces grows or fails more than usual"),
    (JUDGING_SILENT, "A live online rule judged nothing while traces arrived"),
]
SUBSCRIBABLE = [name for name, _ in EVENT_CHOICES]

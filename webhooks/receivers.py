"""Events from every stage, turned into deliveries for the webhooks subscribed to them."""

from django.dispatch import receiver

from golden.signals import dataset_version_created, gate_decided
from judges.signals import judge_drift_flagged
from webhooks.events import GATE_BLOCKED, GOLDEN_VERSION, JUDGE_DRIFT
from webhooks.services import event_publish


@receiver(gate_decided, dispatch_uid="webhooks_gate_blocked")
def on_gate_decided(sender, report, **kwargs):
    if report.get("decision") != "block":
        return
    event_publish(
        GATE_BLOCKED,
        {
            "summary": report["summary"],
            "blocked_by": report["blocked_by"],
            "baseline": report["baseline"],
            "candidate": report["candidate"],
        },
    )


@receiver(judge_drift_flagged, dispatch_uid="webhooks_judge_drift")
def on_judge_drift(sender, calibration, **kwargs):
    event_publish(
        JUDGE_DRIFT,
        {
            "rubric": calibration.rubric_version.rubric.name,
            "rubric_version": calibration.rubric_version.number,
            "judge_config": calibration.config.name,
            "kappa": calibration.kappa,
            "window_kappa": calibration.window_kappa,
            "reason": calibration.flag_reason,
        },
    )


@receiver(dataset_version_created, dispatch_uid="webhooks_golden_version")
def on_dataset_version(sender, version, **kwargs):
    event_publish(
        GOLDEN_VERSION,
        {
            "name": version.name,
            "content_hash": version.content_hash,
            "examples": version.example_count,
            "held_out": version.held_out_count,
        },
    )

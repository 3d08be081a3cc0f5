"""Judging health: for every online rule, what it judged and why it skipped, and the alert when
a live rule has judged nothing for a while although traces came.

Reads the hourly counters online judging keeps (judges.online_health); a rule is a rubric set
to judge new traces, in one project, for its task type.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from insights.models import SilentRuleAlert
from judges.models import OnlineOutcome, OnlineRuleHour, Rubric
from traces.models import Project
from webhooks.events import JUDGING_SILENT
from webhooks.services import event_publish

SKIP_REASONS = [outcome for outcome in OnlineOutcome.values if outcome != OnlineOutcome.JUDGED]
# Decisions of these outcomes are traffic the rule was meant to see; a trace of another task
# type, or one with nothing to judge, is not.
NOT_TRAFFIC = {OnlineOutcome.OTHER_TASK_TYPE, OnlineOutcome.NOTHING_TO_JUDGE}


def _counts_since(since) -> dict[tuple[int, int], dict[str, int]]:
    rows = (
        OnlineRuleHour.objects.filter(hour__gte=since.replace(minute=0, second=0, microsecond=0))
        .values("rubric_id", "project_id", "outcome")
        .annotate(total=Sum("count"))
    )
    counts: dict[tuple[int, int], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in rows:
        counts[(row["rubric_id"], row["project_id"])][row["outcome"]] += row["total"]
    return counts


def rule_health_rows(hours: int = 24, now=None) -> list[dict]:
    """One row per rule (rubric x project) with decisions in the last hours, and per live rule
    without any: judged and each skip reason ("not settled": traces that arrived and have not
    settled since)."""
    now = now or timezone.now()
    since = now - timedelta(hours=hours)
    counts = _counts_since(since)
    live = list(Rubric.objects.filter(judge_new_traces=True).select_related("project"))
    for rubric in live:
        # A live rule of one project that saw no trace is listed too, with zeros.
        if rubric.project_id and not any(key[0] == rubric.pk for key in counts):
            counts[(rubric.pk, rubric.project_id)] = defaultdict(int)
    rubrics = Rubric.objects.in_bulk({rubric_id for rubric_id, _ in counts})
    projects = Project.objects.in_bulk({project_id for _, project_id in counts})
    rows = []
    for (rubric_id, project_id), outcomes in counts.items():
        rubric = rubrics[rubric_id]
        skipped = {reason: outcomes.get(reason, 0) for reason in SKIP_REASONS}
        rows.append(
            {
                "rubric": rubric,
                "project": projects.get(project_id),
                "task_type": rubric.task_type,
                "live": rubric.judge_new_traces,
                "sample_rate": rubric.sample_rate,
                "judged": outcomes.get(OnlineOutcome.JUDGED, 0),
                "skipped": [skipped[reason] for reason in SKIP_REASONS],
                "skipped_total": sum(skipped.values()),
            }
        )
    rows.sort(key=lambda row: (row["rubric"].name, row["project"].name if row["project"] else ""))
    return rows


def rules_silent(now=None) -> list[dict]:
    """Live rules that judged nothing in the last JUDGING_SILENT_MINUTES although enough traces
    came that their sample rate should have judged at least JUDGING_SILENT_MIN_EXPECTED."""
    now = now or timezone.now()
    since = now - timedelta(minutes=settings.JUDGING_SILENT_MINUTES)
    rows = (
        OnlineRuleHour.objects.filter(
            hour__gte=since.replace(minute=0, second=0, microsecond=0),
            rubric__judge_new_traces=True,
        )
        .values("rubric_id", "project_id", "outcome")
        .annotate(total=Sum("count"))
    )
    counts: dict[tuple[int, int], dict[str, int]] = defaultdict(dict)
    for row in rows:
        counts[(row["rubric_id"], row["project_id"])][row["outcome"]] = row["total"]
    rubrics = Rubric.objects.in_bulk({rubric_id for rubric_id, _ in counts})
    silent = []
    for (rubric_id, project_id), outcomes in sorted(counts.items()):
        if outcomes.get(OnlineOutcome.JUDGED):
            continue
        traffic = {k: v for k, v in outcomes.items() if k not in NOT_TRAFFIC}
        arrived = sum(traffic.values())
        rubric = rubrics[rubric_id]
        if not arrived or arrived * rubric.sample_rate < settings.JUDGING_SILENT_MIN_EXPECTED:
            continue
        top_reason = max(traffic, key=lambda outcome: (traffic[outcome], outcome))
        silent.append(
            {
                "rubric": rubric,
                "project_id": project_id,
                "decisions": arrived,
                "top_reason": top_reason,
            }
        )
    return silent


def silent_rules_check(now=None) -> list[SilentRuleAlert]:
    """Raise an alert (once, with a webhook event) for each newly silent rule; clear the alerts
    of rules that judge again. Returns the alerts raised."""
    now = now or timezone.now()
    silent = rules_silent(now)
    keys = {(row["rubric"].pk, row["project_id"]) for row in silent}
    raised = []
    with transaction.atomic():
        for alert in SilentRuleAlert.objects.filter(cleared_at__isnull=True).select_for_update():
            if (alert.rubric_id, alert.project_id) not in keys:
                alert.cleared_at = now
                alert.save(update_fields=["cleared_at"])
        open_keys = set(
            SilentRuleAlert.objects.filter(cleared_at__isnull=True).values_list(
                "rubric_id", "project_id"
            )
        )
        for row in silent:
            key = (row["rubric"].pk, row["project_id"])
            if key in open_keys:
                continue
            alert = SilentRuleAlert.objects.create(
                rubric=row["rubric"],
                project_id=row["project_id"],
                raised_at=now,
                decisions=row["decisions"],
                top_reason=row["top_reason"],
            )
            raised.append(alert)
            transaction.on_commit(lambda alert=alert: _silent_publish(alert))
    return raised


def _silent_publish(alert: SilentRuleAlert) -> None:
    event_publish(
        JUDGING_SILENT,
        {
            "rubric": alert.rubric.name,
            "project": alert.project.slug,
            "task_type": alert.rubric.task_type,
            "minutes": settings.JUDGING_SILENT_MINUTES,
            "traces_seen": alert.decisions,
            "top_reason": alert.top_reason,
            "top_reason_label": dict(OnlineOutcome.choices).get(alert.top_reason, ""),
        },
    )


def silent_alerts_open() -> list[SilentRuleAlert]:
    """The alerts the overview's banner shows."""
    return list(
        SilentRuleAlert.objects.filter(cleared_at__isnull=True)
        .select_related("rubric", "project")
        .order_by("raised_at", "pk")
    )

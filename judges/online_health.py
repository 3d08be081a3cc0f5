"""Why (not) judged: online judging's decision for every rule on every trace, and its counts.

A rule is a rubric set to judge new traces, in a project, for its task type. The dispatcher
(judges.services.trace_judge_online) decides per rule and hands all its decisions for a trace
to `online_decisions_record`, which writes them in two statements: the trace's decision per
rule (an upsert, for the trace page) and the hourly counters (an upsert that adds, in
judges.sql), so the health page and the silent-rule alert read a few rows per rule and hour.
A trace that arrives before it settles is recorded "not settled" for every live rule of its
project (`traces_arrived_unsettled`, after ingest commits); settling replaces that decision.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from judges.models import (
    JudgeConfig,
    Judgment,
    JudgmentStatus,
    OnlineOutcome,
    OnlineRuleHour,
    ParseStatus,
    Rubric,
    TraceOnlineDecision,
)
from judges.sql import decisions_not_settled_insert, online_rule_hours_add
from traces.models import Trace

# A provider's recent calls are read at most this often per process and config: the dispatcher
# asks for every trace, and a failing provider stays failing for longer than this.
PROVIDER_CHECK_SECONDS = 10.0


@dataclass(frozen=True)
class OnlineDecision:
    rubric: Rubric
    outcome: str
    task_type: str = ""


def hour_of(moment: datetime) -> datetime:
    return moment.replace(minute=0, second=0, microsecond=0)


def online_rule_over_limit(rubric: Rubric, project_id: int, now: datetime) -> bool:
    """Whether the rule already judged JUDGE_ONLINE_MAX_PER_HOUR traces of the project this
    hour (0: no limit); one indexed read of its counter."""
    limit = settings.JUDGE_ONLINE_MAX_PER_HOUR
    if not limit:
        return False
    judged = (
        OnlineRuleHour.objects.filter(
            rubric=rubric, project_id=project_id, hour=hour_of(now), outcome=OnlineOutcome.JUDGED
        )
        .values_list("count", flat=True)
        .first()
    )
    return (judged or 0) >= limit


class ProviderHealth:
    """Whether a judge config's provider is failing: its last JUDGE_PROVIDER_FAILING_CALLS
    finished calls within JUDGE_PROVIDER_FAILING_SECONDS all failed. While it is, online
    judging skips (and says so) instead of queueing calls that would fail; once those failures
    age out of the window the next trace tries again."""

    def __init__(self):
        self.lock = threading.Lock()
        self.answers: dict[int, tuple[float, bool]] = {}

    def failing(self, config: JudgeConfig, now: datetime) -> bool:
        calls = settings.JUDGE_PROVIDER_FAILING_CALLS
        if not calls:
            return False
        with self.lock:
            known = self.answers.get(config.pk)
        if known and time.monotonic() - known[0] < PROVIDER_CHECK_SECONDS:
            return known[1]
        since = now - timedelta(seconds=settings.JUDGE_PROVIDER_FAILING_SECONDS)
        recent = list(
            Judgment.objects.filter(config=config, completed_at__gte=since)
            .exclude(status=JudgmentStatus.CANCELLED)
            .exclude(served_from_cache=True)
            .order_by("-completed_at")
            .values_list("parse_status", flat=True)[:calls]
        )
        failing = len(recent) == calls and all(s == ParseStatus.CALL_FAILED for s in recent)
        with self.lock:
            self.answers[config.pk] = (time.monotonic(), failing)
        return failing

    def forget(self) -> None:
        with self.lock:
            self.answers.clear()


provider_health = ProviderHealth()


def online_decisions_record(
    trace: Trace, decisions: list[OnlineDecision], now=None, *, settled: bool = True
) -> None:
    """Store each rule's decision on the trace and add them to the rules' hourly counters.

    A settled trace's "not settled" decisions (stored when it arrived) are replaced by these,
    or removed when a rule decides later (a task type still to classify), and leave the
    counters of the hour they were stored in."""
    now = now or timezone.now()
    arrived = []
    if settled:
        arrived = list(
            TraceOnlineDecision.objects.filter(
                trace=trace, outcome=OnlineOutcome.NOT_SETTLED
            ).values_list("pk", "rubric_id", "decided_at")
        )
    if decisions:
        TraceOnlineDecision.objects.bulk_create(
            [
                TraceOnlineDecision(
                    trace=trace,
                    rubric=decision.rubric,
                    outcome=decision.outcome,
                    task_type=decision.task_type,
                    decided_at=now,
                )
                for decision in decisions
            ],
            update_conflicts=True,
            unique_fields=["trace", "rubric"],
            update_fields=["outcome", "task_type", "decided_at"],
        )
    decided = {decision.rubric.pk for decision in decisions}
    undecided = [pk for pk, rubric_id, _ in arrived if rubric_id not in decided]
    if undecided:
        TraceOnlineDecision.objects.filter(pk__in=undecided).delete()
    counts = Counter((decision.rubric.pk, decision.outcome) for decision in decisions)
    online_rule_hours_add(
        [
            (rubric_id, trace.project_id, hour_of(now), outcome, count)
            for (rubric_id, outcome), count in sorted(counts.items())
        ]
    )
    for _, rubric_id, decided_at in arrived:
        OnlineRuleHour.objects.filter(
            rubric_id=rubric_id,
            project_id=trace.project_id,
            hour=hour_of(decided_at),
            outcome=OnlineOutcome.NOT_SETTLED,
            count__gt=0,
        ).update(count=F("count") - 1)


# Live rules are read at most this often per process: ingest asks for every request.
LIVE_RULES_SECONDS = 5.0


class LiveRules:
    """The rubrics set to judge new traces as (rubric id, project id or None), kept briefly."""

    def __init__(self):
        self.lock = threading.Lock()
        self.known: tuple[float, list[tuple[int, int | None]]] | None = None

    def get(self) -> list[tuple[int, int | None]]:
        with self.lock:
            known = self.known
        if known and time.monotonic() - known[0] < LIVE_RULES_SECONDS:
            return known[1]
        rules = list(
            Rubric.objects.filter(judge_new_traces=True)
            .order_by("pk")
            .values_list("pk", "project_id")
        )
        with self.lock:
            self.known = (time.monotonic(), rules)
        return rules

    def forget(self) -> None:
        with self.lock:
            self.known = None


live_rules = LiveRules()


def traces_arrived_unsettled(trace_ids: list[int], now=None) -> int:
    """Record "trace not settled" for every live rule of their project on the given traces that
    have not settled yet, once per trace and rule, and count it; the dispatcher replaces it
    when the trace settles. Returns how many decisions were stored."""
    rules = live_rules.get()
    if not rules or not trace_ids:
        return 0
    now = now or timezone.now()
    unsettled = Trace.objects.filter(pk__in=trace_ids, completed_at__isnull=True).values_list(
        "pk", "project_id"
    )
    project_of = dict(unsettled)
    pairs = [
        (trace_id, rubric_id)
        for trace_id, project_id in sorted(project_of.items())
        for rubric_id, rule_project in rules
        if rule_project in (None, project_id)
    ]
    stored = decisions_not_settled_insert(pairs, OnlineOutcome.NOT_SETTLED, now)
    counts = Counter((rubric_id, project_of[trace_id]) for rubric_id, trace_id in stored)
    online_rule_hours_add(
        [
            (rubric_id, project_id, hour_of(now), OnlineOutcome.NOT_SETTLED, count)
            for (rubric_id, project_id), count in sorted(counts.items())
        ]
    )
    return len(stored)


def trace_online_decisions(trace: Trace) -> list[dict]:
    """For every rule that could judge the trace: judged or why not, as the trace page says it.

    A rule without a stored decision is explained from the trace's state: it has not settled,
    its task type is still being decided, or it came before the rule was live."""
    decided = {
        row.rubric_id: row
        for row in TraceOnlineDecision.objects.filter(trace=trace).select_related("rubric")
    }
    labels = dict(OnlineOutcome.choices)
    rubrics = {row.rubric_id: row.rubric for row in decided.values()}
    for rubric in Rubric.objects.filter(judge_new_traces=True).order_by("pk"):
        if rubric.project_id in (None, trace.project_id):
            rubrics.setdefault(rubric.pk, rubric)
    rows = []
    for rubric_id, rubric in sorted(rubrics.items()):
        decision = decided.get(rubric_id)
        if decision is not None:
            outcome, when = decision.outcome, decision.decided_at
            label = labels.get(outcome, outcome)
        elif trace.completed_at is None:
            outcome, when, label = OnlineOutcome.NOT_SETTLED, None, "Trace not settled yet"
        elif rubric.task_type and not trace.task_type:
            outcome, when = OnlineOutcome.OTHER_TASK_TYPE, None
            label = "No task type decided for this trace"
        else:
            outcome, when = "", None
            label = "Not considered: the trace settled before this rule judged new traces"
        rows.append(
            {
                "rubric": rubric,
                "task_type": rubric.task_type,
                "outcome": outcome,
                "judged": outcome == OnlineOutcome.JUDGED,
                "label": label,
                "decided_at": when,
                "live": rubric.judge_new_traces,
            }
        )
    return rows

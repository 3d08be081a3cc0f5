"""Online judging of sessions: a conversation is judged whole once it has gone quiet.

A rubric set to judge idle sessions judges each session of its project (or of every project)
once no trace of it has arrived for its idle time (`Rubric.session_idle_minutes`, else
SESSION_IDLE_MINUTES), at its sample rate, with its newest approved version and the default
config, through the same two passes, verdict and review routing as "Judge this session": one
run per rubric and sweep, made by judge_run_start with the sessions.

Once per activity. The sweep walks sessions in (last received, id) order from the rubric's
cursor and moves the cursor in the transaction that starts the run, under a lock on the
rubric row, so two sweeps never take the same session. A session that gets a new trace (or
span) afterwards has a later last-received time, comes past the cursor again and is judged
again once quiet; ingest has already marked its earlier verdicts stale. A session that this
version and config already judged since its last trace arrived (a person started it) is not
judged again. The cursor starts where the rubric was switched on: conversations quiet before
that are not judged, as online trace judging judges new traces only.
"""

from __future__ import annotations

import logging
import random
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from core.errors import ApplicationError
from judges.calibration import judge_version_approved_for_online
from judges.models import Judgment, Rubric, RubricVersionStatus
from judges.services import judge_config_default, judge_run_start
from traces.models import Session

logger = logging.getLogger(__name__)

# Sessions one sweep takes per rubric; the task runs again at once while batches come full.
SWEEP_BATCH = 200


def session_idle_minutes(rubric: Rubric) -> int:
    """How long a session of this rubric must be quiet before it is judged."""
    return rubric.session_idle_minutes or settings.SESSION_IDLE_MINUTES


def sessions_cursor_start(rubric: Rubric, now: datetime) -> None:
    """Start the rubric's cursor at `now`'s idle cutoff: sessions quiet before it are not
    judged (the caller saves the two fields)."""
    rubric.sessions_swept_through = now - timedelta(minutes=session_idle_minutes(rubric))
    rubric.sessions_swept_through_id = 0


def rubric_sessions_judge_idle(rubric_id: int, limit: int, now: datetime) -> tuple[int, bool]:
    """Judge up to `limit` of the rubric's sessions that went quiet past its cursor.

    Returns (sessions judged, whether the batch came back full)."""
    with transaction.atomic():
        rubric = (
            Rubric.objects.select_for_update()
            .filter(pk=rubric_id, judge_idle_sessions=True)
            .first()
        )
        if rubric is None:
            return 0, False
        version = (
            rubric.versions.filter(status=RubricVersionStatus.APPROVED).order_by("-number").first()
        )
        if version is None:
            return 0, False
        config = judge_config_default()
        # Live traffic is judged only by versions whose agreement with people was measured.
        before_calibration = settings.JUDGE_ONLINE_BEFORE_CALIBRATION
        if not before_calibration and not judge_version_approved_for_online(version, config):
            return 0, False
        if rubric.sessions_swept_through is None:
            sessions_cursor_start(rubric, now)
        since, since_id = rubric.sessions_swept_through, rubric.sessions_swept_through_id
        cutoff = now - timedelta(minutes=session_idle_minutes(rubric))
        quiet = Session.objects.filter(trace_count__gt=0, last_received_at__lte=cutoff).filter(
            Q(last_received_at__gt=since) | Q(last_received_at=since, pk__gt=since_id)
        )
        if rubric.project_id:
            quiet = quiet.filter(project_id=rubric.project_id)
        rows = list(
            quiet.order_by("last_received_at", "pk").values_list("pk", "last_received_at")[:limit]
        )
        if not rows:
            return 0, False
        ids = [pk for pk, _ in rows]
        judged_since = set(
            Judgment.objects.filter(
                session_id__in=ids,
                rubric_version=version,
                config=config,
                created_at__gte=F("session__last_received_at"),
            ).values_list("session_id", flat=True)
        )
        due = [pk for pk in ids if pk not in judged_since and random.random() < rubric.sample_rate]
        last_id, last_at = rows[-1]
        Rubric.objects.filter(pk=rubric.pk).update(
            sessions_swept_through=last_at, sessions_swept_through_id=last_id
        )
        if due:
            try:
                judge_run_start(
                    rubric_version=version, config=config, traces=None, sessions=due, online=True
                )
            except ApplicationError as exc:
                # A config the judge refuses (or sessions emptied meanwhile): said, and passed.
                logger.warning("Idle sessions of rubric %s not judged: %s", rubric.pk, exc)
                return 0, len(rows) == limit
        return len(due), len(rows) == limit


def sessions_judge_idle(limit: int = SWEEP_BATCH, now: datetime | None = None) -> tuple[int, bool]:
    """One bounded sweep over every rubric that judges idle sessions.

    Returns (sessions judged, whether any rubric has more waiting)."""
    now = now or timezone.now()
    judged, more = 0, False
    rubrics = Rubric.objects.filter(judge_idle_sessions=True).order_by("pk")
    for rubric_id in rubrics.values_list("pk", flat=True):
        count, full = rubric_sessions_judge_idle(rubric_id, limit, now)
        judged, more = judged + count, more or full
    return judged, more

"""The topics page and its actions, and the judging-health page."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_POST

from accounts.roles import ANNOTATOR, CURATOR, has_role, require_role
from core.errors import ApplicationError
from core.publish import task_publish
from insights.judging_health import SKIP_REASONS, rule_health_rows, silent_alerts_open
from insights.models import Topic
from insights.tasks import topics_build_task
from insights.topic_actions import topic_golden_drafts, topic_review_sample
from insights.topics_page import (
    topics_builds_health,
    topics_figures,
    topics_newest_build,
    topics_of_build,
    topics_projects,
)
from judges.models import OnlineOutcome

HEALTH_WINDOWS = (1, 24, 168)


@login_required
@require_role(ANNOTATOR)
def topics(request):
    """A project's traces grouped by what they are about and how they went."""
    projects = topics_projects()
    chosen = request.GET.get("project", "")
    project = next((p for p in projects if p.slug == chosen), projects[0] if projects else None)
    build = topics_newest_build(project)
    rows = topics_of_build(request.user, build) if build else []
    return render(
        request,
        "insights/topics.html",
        {
            "projects": projects,
            "project": project,
            "build": build,
            "rows": rows,
            "figures": topics_figures(build, [row["topic"] for row in rows]) if build else {},
            "is_curator": has_role(request.user, CURATOR),
            "window_days": settings.TOPICS_WINDOW_DAYS,
            "build_every_minutes": settings.TOPICS_BUILD_SECONDS // 60,
            "judge_simulated": settings.JUDGE_SIMULATED,
            "judge_named": sum(row["topic"].name_source == "judge" for row in rows),
        },
    )


def _back(topic: Topic):
    query = urlencode({"project": topic.build.project.slug})
    return redirect(f"{reverse('insights:topics')}?{query}#topic-{topic.pk}")


@require_POST
@login_required
@require_role(ANNOTATOR)
def topic_action(request, topic_id: int):
    """Send a sample of the topic to review, or (curators) add drafts to the golden set."""
    topic = get_object_or_404(Topic.objects.select_related("build__project"), pk=topic_id)
    action = request.POST.get("action", "")
    try:
        if action == "review_sample":
            queued = topic_review_sample(topic=topic, user=request.user)
            messages.success(request, f"{queued} trace(s) of “{topic.name}” sent to review.")
        elif action == "golden_drafts":
            report = topic_golden_drafts(topic=topic, user=request.user)
            messages.success(
                request,
                f"{len(report.created)} draft golden example(s) added; "
                f"{len(report.skipped_trace_ids)} trace(s) already had one.",
            )
        else:
            messages.error(request, "Choose an action: review_sample or golden_drafts.")
    except ApplicationError as error:
        messages.error(request, str(error.message))
    return _back(topic)


@require_POST
@login_required
@require_role(CURATOR)
def topics_rebuild(request):
    """Build topics now, in the worker (never in this request)."""
    if task_publish(topics_build_task):
        messages.success(request, "Topics are being rebuilt in the worker; reload in a minute.")
    else:
        messages.error(request, "The task queue is unreachable; the hourly build will run later.")
    query = urlencode({"project": request.POST.get("project", "")})
    return redirect(f"{reverse('insights:topics')}?{query}")


@login_required
@require_role(ANNOTATOR)
def judging_health(request):
    """Every online rule: what it judged, and what it skipped and why."""
    try:
        hours = int(request.GET.get("hours", 24))
    except ValueError:
        hours = 24
    hours = hours if hours in HEALTH_WINDOWS else 24
    labels = dict(OnlineOutcome.choices)
    return render(
        request,
        "insights/judging_health.html",
        {
            "rows": rule_health_rows(hours),
            "reasons": [(reason, labels[reason]) for reason in SKIP_REASONS],
            "hours": hours,
            "windows": HEALTH_WINDOWS,
            "alerts": silent_alerts_open(),
            "silent_minutes": settings.JUDGING_SILENT_MINUTES,
            "topic_builds": topics_builds_health(),
        },
    )

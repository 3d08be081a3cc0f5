"""The overview, CSV downloads of its charts, the calibration pages and the held-out report."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_POST

from accounts.roles import ANNOTATOR, CURATOR, has_role, require_role
from insights.agent_dashboard import AGENT_DASHBOARD
from insights.calibration import calibration_detail as calibration_detail_read
from insights.calibration import calibration_get_or_404, calibration_rows
from insights.calibration import calibration_list as calibration_list_read
from insights.heldout import held_out_agreement
from insights.judging_health import silent_alerts_open
from insights.overview import overview_chart_get, overview_snapshot_get
from judges.alignment.models import AlignmentProposal
from judges.calibration import (
    judge_calibration_restart,
    judge_calibration_retire,
)
from judges.models import JudgeCalibration


@login_required
@require_role(ANNOTATOR)
def overview(request):
    """The lead's page: flip rate, judge vs people, failures, queue and cost, as charts."""
    context = {
        **_dashboard_context(overview_snapshot_get()),
        "is_curator": has_role(request.user, CURATOR),
        "silent_alerts": silent_alerts_open(),
        "silent_minutes": settings.JUDGING_SILENT_MINUTES,
    }
    return render(request, "insights/overview.html", context)


def _dashboard_context(snapshot: dict) -> dict:
    """What a dashboard page shows of its snapshot: the chart cards and the figures they draw."""
    charts = snapshot["charts"]
    return {
        "charts": charts,
        "figures": {chart["key"]: chart["figure"] for chart in charts},
        "built_at": snapshot["built_at"],
        "build_ms": snapshot["build_ms"],
        "refresh_seconds": settings.INSIGHTS_REFRESH_SECONDS,
    }


def _chart_csv_response(chart) -> HttpResponse:
    """The rows behind one dashboard chart, as the snapshot the page showed."""
    if chart is None:
        raise Http404("No such chart.")
    response = HttpResponse(chart.csv_text(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, f"{chart.key}.csv")
    return response


@login_required
@require_role(ANNOTATOR)
def chart_csv(request, key):
    """The rows behind one overview chart, as the snapshot the page showed."""
    return _chart_csv_response(overview_chart_get(key))


@login_required
@require_role(CURATOR)
def calibration_list(request):
    calibrations = calibration_list_read()
    context = {
        "calibrations": calibrations,
        "rows": calibration_rows(calibrations),
        "bar": settings.CALIBRATION_KAPPA_BAR,
        "min_items": settings.CALIBRATION_MIN_ITEMS,
        "online_before_calibration": settings.JUDGE_ONLINE_BEFORE_CALIBRATION,
    }
    return render(request, "insights/calibration_list.html", context)


@login_required
@require_role(CURATOR)
def calibration_detail(request, calibration_id):
    calibration = calibration_get_or_404(calibration_id)
    proposals = (
        AlignmentProposal.objects.filter(
            source_version=calibration.rubric_version, config=calibration.config
        )
        .select_related("proposed_version")
        .order_by("-pk")[:5]
    )
    context = {
        "calibration": calibration,
        "proposals": list(proposals),
        **calibration_detail_read(calibration),
    }
    return render(request, "insights/calibration_detail.html", context)


@require_POST
@login_required
@require_role(CURATOR)
def calibration_status_change(request, calibration_id):
    """Retire a judge version, or send it back to calibrating."""
    calibration = get_object_or_404(JudgeCalibration, pk=calibration_id)
    action = {"retire": judge_calibration_retire, "recalibrate": judge_calibration_restart}.get(
        request.POST.get("action", "")
    )
    if action is None:
        messages.error(request, "Choose retire or recalibrate.")
    else:
        action(calibration.rubric_version, calibration.config)
    return redirect("insights:calibration_detail", calibration_id=calibration.pk)


@login_required
@require_role(CURATOR)
def held_out_report(request):
    """Curator-only: how the judge does on examples nobody tunes prompts against."""
    return render(request, "insights/held_out_report.html", {"results": held_out_agreement()})


@login_required
@require_role(ANNOTATOR)
def agent_dashboard(request):
    """The agent's own health: volume, latency, errors, tokens, cost and failing tools."""
    return render(
        request, "insights/agent_dashboard.html", _dashboard_context(AGENT_DASHBOARD.get())
    )


@login_required
@require_role(ANNOTATOR)
def agent_chart_csv(request, key):
    """The rows behind one agent dashboard chart, as the snapshot the page showed."""
    return _chart_csv_response(AGENT_DASHBOARD.chart(key))

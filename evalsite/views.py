from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpResponseServerError
from django.shortcuts import render

from accounts.roles import ANNOTATOR, CURATOR, has_role, require_role
from evalsite.insights.overview import overview_snapshot_get


@login_required
@require_role(ANNOTATOR)
def overview(request):
    """The lead's page: flip rate, judge vs people, failures, queue and cost, as charts."""
    snapshot = overview_snapshot_get()
    charts = snapshot["charts"]
    return render(
        request,
        "evalsite/overview.html",
        {
            "charts": charts,
            "figures": {chart["key"]: chart["figure"] for chart in charts},
            "built_at": snapshot["built_at"],
            "build_ms": snapshot["build_ms"],
            "is_curator": has_role(request.user, CURATOR),
            "refresh_seconds": settings.INSIGHTS_REFRESH_SECONDS,
        },
    )


def server_error(request):
    """The 500 page with the navigation; falls back to plain text if the page itself fails."""
    try:
        return render(request, "500.html", status=500)
    except Exception:  # noqa: BLE001 - the error page must not raise in turn
        return HttpResponseServerError("Server error: try again in a moment.")

"""Periodic precompute of the overview, so the page reads one cached snapshot."""

from celery import shared_task
from django.conf import settings

from insights.overview import overview_refresh_lock, overview_snapshot_refresh


@shared_task(ignore_result=True)
def insights_overview_refresh_task() -> None:
    # A build slower than the beat interval must not pile up behind itself.
    with overview_refresh_lock(settings.INSIGHTS_REFRESH_SECONDS * 5) as acquired:
        if acquired:
            overview_snapshot_refresh()

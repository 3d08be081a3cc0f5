"""Periodic precompute of the overview, so the page reads one cached snapshot."""

from celery import shared_task

from evalsite.insights.overview import overview_snapshot_refresh


@shared_task(ignore_result=True)
def insights_overview_refresh_task() -> None:
    overview_snapshot_refresh()

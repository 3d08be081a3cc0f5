"""Where a test's insights cache lives: a memory cache of the test's own process (which a
browser test's live server thread shares), or a server that is down."""

from insights.agent_dashboard import AGENT_DASHBOARD
from insights.overview import overview_snapshot_clear
from insights.topics import placer

LOCMEM = "django.core.cache.backends.locmem.LocMemCache"


def insights_cache_set(settings, backend: str, location: str) -> None:
    settings.CACHES = {**settings.CACHES, "insights": {"BACKEND": backend, "LOCATION": location}}


def snapshots_forget() -> None:
    """The overview, the agent dashboard and the topics: computed again from this test's rows."""
    overview_snapshot_clear()
    AGENT_DASHBOARD.clear()
    placer.forget()

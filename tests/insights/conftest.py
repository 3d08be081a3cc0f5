import pytest

from insights.overview import overview_snapshot_clear


@pytest.fixture(autouse=True)
def fresh_overview_snapshot(settings):
    """Each test sees the overview computed from its own rows, in a cache of its own process."""
    settings.CACHES = {
        **settings.CACHES,
        "insights": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "insights-tests",
        },
    }
    overview_snapshot_clear()
    yield
    overview_snapshot_clear()


@pytest.fixture(autouse=True)
def topics_named_by_terms(settings):
    """Topics are named by their terms unless a test starts a judge to name them."""
    settings.TOPICS_NAMES_FROM_JUDGE = False
    settings.TOPICS_EMBEDDING_MODEL = ""

"""While the shared cache (Redis) is away the overview is computed per request, not a 500."""

import pytest
from django.urls import reverse

from insights.overview import CHART_BUILDERS
from tests.insights.caches import insights_cache_set
from tests.insights.test_overview_view import figures_of
from tests.insights.world import insights_world

pytestmark = pytest.mark.django_db

# A port in this suite's range with nothing listening: every cache call is refused.
UNREACHABLE_REDIS = "redis://127.0.0.1:8199/0"


@pytest.fixture
def insights_cache_down(settings):
    insights_cache_set(settings, "django.core.cache.backends.redis.RedisCache", UNREACHABLE_REDIS)


def test_the_overview_and_its_csvs_are_served_without_the_cache(
    client, annotator, insights_cache_down
):
    insights_world()
    client.force_login(annotator)

    page = client.get(reverse("overview"))
    csv = client.get(reverse("insights:chart_csv", args=["flip_rate"]))

    assert page.status_code == 200
    assert len(figures_of(page)) == len(CHART_BUILDERS)
    assert csv.status_code == 200
    assert b"," in csv.content

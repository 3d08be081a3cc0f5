import pytest
from django.db import transaction

from tests.insights.caches import LOCMEM, insights_cache_set, snapshots_forget
from tests.insights.world import insights_world


@pytest.fixture(autouse=True)
def fresh_snapshots(settings):
    """Each test sees the overview, the agent dashboard and the topics computed from its own
    rows, in a cache of its own process."""
    insights_cache_set(settings, LOCMEM, "insights-tests")
    snapshots_forget()
    yield
    snapshots_forget()


@pytest.fixture(autouse=True)
def topics_named_by_terms(settings):
    """Topics are named by their terms unless a test starts a judge to name them."""
    settings.TOPICS_NAMES_FROM_JUDGE = False
    settings.TOPICS_EMBEDDING_MODEL = ""


@pytest.fixture(scope="module")
def module_world(django_db_setup, django_db_blocker):
    """insights_world() built once for a module whose tests only read it: inside a transaction
    rolled back after the module, where each test's own transaction is a savepoint."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield insights_world()
        transaction.set_rollback(True)

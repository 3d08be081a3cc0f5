"""Personas (annotator, curator, admin, outsider) and API clients shared by every test."""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.roles import ADMIN, ANNOTATOR, CURATOR
from demo.simulator.server import start_simulator
from tests.built_in_rows import built_in_rubrics_seed
from tests.factories import UserFactory


@pytest.fixture(autouse=True)
def judge_online_only_when_calibrated(settings):
    """Tests see the calibration gate a real judge has; a test about the demo lifts it."""
    settings.JUDGE_ONLINE_BEFORE_CALIBRATION = False


@pytest.fixture(autouse=True)
def process_caches_start_empty():
    """Tokens, ingest projects, guardrail policies and rubric versions are remembered per
    process; a test's rolled back rows must not be remembered into the next test."""
    from accounts.token_cache import token_cache
    from guardrails.check import project_policies
    from judges.execution import versions_loaded as rubric_versions
    from metrics.policy_cache import policies_by_project
    from traces.masking.cache import maskers
    from traces.project_cache import failure_rules_by_project, projects_by_slug

    token_cache.clear()
    projects_by_slug.clear()
    failure_rules_by_project.clear()
    rubric_versions.clear()  # SQLite gives a rolled-back version's id to the next one
    project_policies.clear()
    policies_by_project.clear()
    maskers.clear()


@pytest.fixture(autouse=True)
def shared_cache_starts_empty(settings):
    """Failure counts live in the shared cache (Redis under the suite): each test starts
    without another test's, and without flushing the Redis database workers also use."""
    from django.core.cache import caches

    shared = caches[settings.SHARED_CACHE]
    if settings.REDIS_URL:
        import redis

        client = redis.Redis.from_url(settings.REDIS_URL)
        keys = list(client.scan_iter(match=f"{shared.key_prefix}:*", count=1000))
        if keys:
            client.delete(*keys)
        client.close()
    else:
        shared.clear()


@pytest.fixture
def built_in_rubrics(db):
    """Transactional tests flush the tables after them; put the migrations' rubrics back."""
    built_in_rubrics_seed()


@pytest.fixture
def annotator(db):
    return UserFactory(username="annie", roles=[ANNOTATOR])


@pytest.fixture
def curator(db):
    return UserFactory(username="cora", roles=[CURATOR])


@pytest.fixture
def admin_user(db):
    return UserFactory(username="adam", roles=[ADMIN], is_staff=True, is_superuser=True)


@pytest.fixture
def outsider(db):
    """Logged in, but holds no role."""
    return UserFactory(username="otto")


@pytest.fixture
def client_for(db):
    """A test client logged in as the user, each with its own session."""

    def make(user) -> Client:
        client = Client()
        client.force_login(user)
        return client

    return make


@pytest.fixture
def logged_in(client, annotator):
    """The test client with the annotator's session."""
    client.force_login(annotator)
    return client


@pytest.fixture
def api_client_for(db):
    """An API client authenticated the way agents are: a bearer token."""

    def make(user) -> APIClient:
        _, raw = ApiToken.generate(user, "test")
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
        return client

    return make


@pytest.fixture
def simulator(settings):
    """An in-process simulated judge, reached through the real SDK, retrying quickly."""
    handle = start_simulator()
    settings.ANTHROPIC_BASE_URL = handle.base_url
    settings.JUDGE_SIMULATED = True
    settings.JUDGE_RETRY_BASE_SECONDS = 0.01
    settings.JUDGE_RETRY_MAX_SECONDS = 0.05
    settings.JUDGE_MAX_RETRIES = 2
    yield handle
    handle.stop()

"""A valid token is looked up once per interval; revoking it, or changing its user's roles,
counts from the next request."""

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from accounts import authentication, token_cache
from accounts.models import ApiToken
from accounts.roles import ANNOTATOR

pytestmark = pytest.mark.django_db


def _client(raw: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def _account_queries(client) -> tuple[int, list[str]]:
    with CaptureQueriesContext(connection) as captured:
        status = client.get("/api/me/").status_code
    tables = ("accounts_apitoken", "auth_group", "auth_user")
    return status, [q["sql"] for q in captured if any(t in q["sql"] for t in tables)]


def test_a_token_in_use_is_not_looked_up_on_every_request(annotator):
    _, raw = ApiToken.generate(annotator, "agent")
    client = _client(raw)

    first = _account_queries(client)
    second = _account_queries(client)

    assert first[0] == second[0] == 200
    assert first[1], "the first request looks the token and roles up"
    assert second[1] == []


def test_a_token_revoked_on_the_tokens_page_is_refused_at_once(client, annotator):
    token, raw = ApiToken.generate(annotator, "agent")
    agent = _client(raw)
    assert agent.get("/api/me/").status_code == 200
    client.force_login(annotator)

    client.post(reverse("accounts:token_revoke", args=[token.pk]))

    response = agent.get("/api/me/")
    assert response.status_code == 401
    assert response.json()["error"]["message"] == "Invalid or revoked API token."


def test_a_revoke_made_by_another_process_counts_once_the_interval_is_over(annotator, monkeypatch):
    token, raw = ApiToken.generate(annotator, "agent")
    agent = _client(raw)
    assert agent.get("/api/me/").status_code == 200
    # Another process revoked it: no signal reaches this one.
    ApiToken.objects.filter(pk=token.pk).update(revoked_at=token.created_at)
    assert agent.get("/api/me/").status_code == 200

    later = token_cache.time.monotonic() + 6
    monkeypatch.setattr(token_cache.time, "monotonic", lambda: later)

    assert agent.get("/api/me/").status_code == 401


def test_a_user_who_loses_a_role_loses_it_from_the_next_request(annotator, api_client_for):
    agent = api_client_for(annotator)
    assert agent.get("/api/traces/").status_code == 200

    annotator.groups.remove(Group.objects.get(name=ANNOTATOR))

    assert agent.get("/api/traces/").status_code == 403


def test_a_deactivated_user_is_refused_from_the_next_request(annotator, api_client_for):
    agent = api_client_for(annotator)
    assert agent.get("/api/me/").status_code == 200

    annotator.is_active = False
    annotator.save(update_fields=["is_active"])

    assert agent.get("/api/me/").status_code == 401


def test_no_interval_looks_the_token_up_every_time(annotator, monkeypatch):
    monkeypatch.setattr(authentication, "TOKEN_REMEMBERED_SECONDS", 0)
    _, raw = ApiToken.generate(annotator, "agent")
    client = _client(raw)
    _account_queries(client)

    status, queries = _account_queries(client)

    assert status == 200
    assert any("accounts_apitoken" in q for q in queries)


def test_a_role_given_through_the_group_counts_and_other_users_keep_their_tokens(
    annotator, curator, api_client_for
):
    agent = api_client_for(annotator)
    other = api_client_for(curator)
    assert agent.get("/api/me/").status_code == other.get("/api/me/").status_code == 200

    Group.objects.get(name=ANNOTATOR).user_set.remove(annotator)

    assert agent.get("/api/traces/").status_code == 403
    status, queries = _account_queries(other)
    assert status == 200 and queries == []

"""Wrong passwords lock the account and the client for a while; invalid API tokens likewise."""

import pytest
from axes.models import AccessAttempt
from django.core.cache import cache
from django.urls import reverse

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def clean_counts():
    cache.clear()
    yield
    cache.clear()


def _login(client, username, password, address="10.0.0.1"):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


def test_after_the_failure_limit_even_the_right_password_is_refused(client, settings):
    UserFactory(username="vic", password="right-pass-1")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _login(client, "vic", "wrong")

    locked = _login(client, "vic", "right-pass-1")

    assert locked.status_code == 429
    assert b"Too many login attempts" in locked.content
    assert "_auth_user_id" not in client.session


def test_the_account_is_locked_from_another_address_too(client, settings):
    UserFactory(username="vic", password="right-pass-1")
    for index in range(settings.AXES_FAILURE_LIMIT):
        _login(client, "vic", "wrong", address=f"10.0.0.{index + 10}")

    assert _login(client, "vic", "right-pass-1", address="10.9.9.9").status_code == 429


def test_one_address_guessing_many_accounts_is_locked(client, settings):
    UserFactory(username="vic", password="right-pass-1")
    for index in range(settings.AXES_FAILURE_LIMIT):
        _login(client, f"user{index}", "wrong")

    assert _login(client, "vic", "right-pass-1").status_code == 429


def test_an_admin_unlocks_by_clearing_the_attempts(client, settings):
    UserFactory(username="vic", password="right-pass-1")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _login(client, "vic", "wrong")

    AccessAttempt.objects.all().delete()  # what the admin's delete action does

    assert _login(client, "vic", "right-pass-1").status_code == 302


def test_invalid_api_tokens_from_one_address_are_throttled(api_client_for, annotator, settings):
    settings.API_TOKEN_FAILURE_LIMIT = 3
    good = api_client_for(annotator)
    from rest_framework.test import APIClient

    bad = APIClient()
    bad.credentials(HTTP_AUTHORIZATION="Bearer evs_guess")
    answers = [bad.get("/api/me/").status_code for _ in range(4)]
    throttled = good.get("/api/me/")
    elsewhere = good.get("/api/me/", REMOTE_ADDR="10.1.1.1")

    assert answers == [401, 401, 401, 429]
    assert throttled.status_code == 429
    assert "Too many invalid API tokens" in throttled.json()["error"]["message"]
    assert elsewhere.status_code == 200

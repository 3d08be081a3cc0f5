"""Wrong passwords lock the account; a client address only at a much higher count, so one
person's mistakes never lock out another who shares the address (a proxy, an office)."""

import pytest
from axes.models import AccessAttempt
from django.urls import reverse

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _login(client, username, password, address="10.0.0.1", **headers):
    return client.post(
        reverse("login"),
        {"username": username, "password": password},
        REMOTE_ADDR=address,
        **headers,
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


def test_another_users_wrong_passwords_do_not_lock_out_a_colleague_at_the_same_address(
    client, settings
):
    UserFactory(username="vic", password="right-pass-1")
    UserFactory(username="wanda", password="right-pass-2")
    for _ in range(settings.AXES_FAILURE_LIMIT + 2):
        _login(client, "vic", "wrong")

    assert _login(client, "vic", "right-pass-1").status_code == 429
    assert _login(client, "wanda", "right-pass-2").status_code == 302


def test_a_colleagues_right_password_does_not_reset_a_locked_account(client, settings):
    UserFactory(username="vic", password="right-pass-1")
    UserFactory(username="wanda", password="right-pass-2")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _login(client, "vic", "wrong")
    _login(client, "wanda", "right-pass-2")
    client.logout()

    assert _login(client, "vic", "right-pass-1").status_code == 429


def test_an_address_guessing_many_accounts_is_locked_at_the_higher_address_limit(client, settings):
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 8
    UserFactory(username="vic", password="right-pass-1")
    for index in range(7):
        _login(client, f"user{index}", "wrong")
    assert _login(client, "vic", "right-pass-1").status_code == 302
    client.logout()

    _login(client, "user7", "wrong")

    assert _login(client, "vic", "right-pass-1").status_code == 429
    assert _login(client, "vic", "right-pass-1", address="10.0.0.2").status_code == 302


def test_the_address_limit_is_much_higher_than_the_account_limit(settings):
    assert settings.LOGIN_ADDRESS_FAILURE_LIMIT >= 10 * settings.AXES_FAILURE_LIMIT


def test_behind_a_trusted_proxy_logins_are_told_apart_by_the_forwarded_address(client, settings):
    settings.TRUSTED_PROXIES = ["10.0.0.254"]
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 3
    UserFactory(username="vic", password="right-pass-1")
    via_proxy = {"address": "10.0.0.254"}
    for index in range(3):
        _login(client, f"user{index}", "wrong", **via_proxy, HTTP_X_FORWARDED_FOR="198.51.100.7")

    assert AccessAttempt.objects.filter(ip_address="198.51.100.7").count() == 3
    other = _login(client, "vic", "right-pass-1", **via_proxy, HTTP_X_FORWARDED_FOR="198.51.100.8")
    assert other.status_code == 302


def test_an_admin_unlocks_by_clearing_the_attempts(client, settings):
    UserFactory(username="vic", password="right-pass-1")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _login(client, "vic", "wrong")

    AccessAttempt.objects.all().delete()  # what the admin's delete action does

    assert _login(client, "vic", "right-pass-1").status_code == 302

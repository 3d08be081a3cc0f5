import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken, hash_token

pytestmark = pytest.mark.django_db


def test_every_page_needs_a_login(client):
    response = client.get(reverse("explorer:list"))
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


def test_annotator_cannot_reach_curator_pages_or_admin(client, annotator):
    client.force_login(annotator)
    assert client.get(reverse("golden:example_create")).status_code == 403
    admin_response = client.get(reverse("admin:index"))
    assert admin_response.status_code == 302 and "login" in admin_response.url


def test_curator_reaches_golden_pages(client, curator):
    client.force_login(curator)
    assert client.get(reverse("golden:example_create")).status_code == 200


def test_api_token_is_stored_hashed_and_authenticates(annotator):
    token, raw = ApiToken.generate(annotator, "agent")
    assert token.token_hash == hash_token(raw) and raw not in token.token_hash
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=raw)
    assert client.get("/api/me/").status_code == 200


def test_bad_token_is_refused_with_json_error():
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Bearer evs_not-a-token")
    response = client.get("/api/me/")
    assert response.status_code == 401
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["error"]["message"] == "Invalid or revoked API token."


def test_revoked_token_stops_working(annotator):
    token, raw = ApiToken.generate(annotator, "agent")
    token.revoked_at = token.created_at
    token.save(update_fields=["revoked_at"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert client.get("/api/me/").status_code == 401


def test_create_api_token_command_prints_a_working_token(annotator, capsys):
    call_command("create_api_token", annotator.username, "--name", "ci")
    raw = capsys.readouterr().out.strip()
    assert ApiToken.objects.filter(user=annotator, token_hash=hash_token(raw)).exists()


def test_token_page_creates_a_token_shown_once(client, annotator):
    client.force_login(annotator)
    response = client.post(reverse("accounts:tokens"), {"name": "my agent"})
    assert response.status_code == 200
    raw = response.context["new_token"]
    assert ApiToken.objects.get(token_hash=hash_token(raw)).name == "my agent"
    assert raw not in client.get(reverse("accounts:tokens")).content.decode()


def test_a_token_name_too_long_is_refused_not_cut(client, annotator):
    client.force_login(annotator)
    response = client.post(reverse("accounts:tokens"), {"name": "n" * 101}, follow=True)
    assert response.context["new_token"] is None
    assert not ApiToken.objects.filter(user=annotator).exists()
    assert "at most 100 characters" in response.content.decode()

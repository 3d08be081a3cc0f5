"""Invalid API tokens are counted per (client address, presented token prefix) in the cache
every web process shares; a token that verifies is never refused for anyone's failures."""

import gzip

import pytest
from django.core.cache import caches
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

BAD = "evs_revoked0000000000000000000000000000000"
OTHER_BAD = "evs_typo00000000000000000000000000000000"


def _bad(raw=BAD) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def test_a_valid_token_is_never_refused_after_others_failures_from_its_address(
    api_client_for, annotator, settings
):
    settings.API_TOKEN_FAILURE_LIMIT = 3
    good = api_client_for(annotator)
    for raw in (BAD, OTHER_BAD):
        for _ in range(6):
            _bad(raw).get("/api/me/", REMOTE_ADDR="10.2.0.1")

    assert good.get("/api/me/", REMOTE_ADDR="10.2.0.1").status_code == 200
    otlp = good.post(
        "/v1/traces", b"", content_type="application/x-protobuf", REMOTE_ADDR="10.2.0.1"
    )
    assert otlp.status_code != 429


def test_the_same_bad_token_from_one_address_is_throttled_and_told_when_to_retry(settings):
    settings.API_TOKEN_FAILURE_LIMIT = 3
    answers = [_bad().get("/api/me/", REMOTE_ADDR="10.2.0.2") for _ in range(4)]

    assert [a.status_code for a in answers] == [401, 401, 401, 429]
    assert "Too many invalid API tokens" in answers[-1].json()["error"]["message"]
    assert int(answers[-1]["Retry-After"]) > 0


def test_another_bad_token_or_another_address_has_its_own_count(settings):
    settings.API_TOKEN_FAILURE_LIMIT = 3
    for _ in range(4):
        _bad().get("/api/me/", REMOTE_ADDR="10.2.0.3")

    assert _bad(OTHER_BAD).get("/api/me/", REMOTE_ADDR="10.2.0.3").status_code == 401
    assert _bad().get("/api/me/", REMOTE_ADDR="10.2.0.4").status_code == 401
    assert _bad().get("/api/me/", REMOTE_ADDR="10.2.0.3").status_code == 429


def test_failures_are_counted_in_the_shared_cache_not_in_one_process(settings):
    settings.API_TOKEN_FAILURE_LIMIT = 3
    for _ in range(3):
        _bad().get("/api/me/", REMOTE_ADDR="10.2.0.5")
        caches["default"].clear()  # what another web process would have: its own memory

    assert _bad().get("/api/me/", REMOTE_ADDR="10.2.0.5").status_code == 429


def test_the_shared_cache_is_redis_when_redis_is_configured(settings):
    if not settings.REDIS_URL:
        pytest.skip("runs where REDIS_URL is set")
    assert "Redis" in type(caches[settings.SHARED_CACHE]).__name__


def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_count(settings):
    settings.API_TOKEN_FAILURE_LIMIT = 2
    settings.TRUSTED_PROXIES = ["10.2.9.0/24"]
    proxy = {"REMOTE_ADDR": "10.2.9.1"}
    for _ in range(3):
        _bad().get("/api/me/", HTTP_X_FORWARDED_FOR="203.0.113.5", **proxy)

    assert _bad().get("/api/me/", HTTP_X_FORWARDED_FOR="203.0.113.5", **proxy).status_code == 429
    assert _bad().get("/api/me/", HTTP_X_FORWARDED_FOR="203.0.113.6", **proxy).status_code == 401


def test_an_untrusted_client_cannot_dodge_its_count_with_a_forwarded_header(settings):
    settings.API_TOKEN_FAILURE_LIMIT = 2
    settings.TRUSTED_PROXIES = ["10.2.9.0/24"]
    for index in range(3):
        _bad().get("/api/me/", REMOTE_ADDR="10.2.0.6", HTTP_X_FORWARDED_FOR=f"203.0.113.{index}")

    assert _bad().get("/api/me/", REMOTE_ADDR="10.2.0.6").status_code == 429


def test_an_otlp_exporter_with_a_revoked_token_does_not_stop_another_one(
    api_client_for, annotator, settings
):
    settings.API_TOKEN_FAILURE_LIMIT = 2
    collector = {"REMOTE_ADDR": "10.2.0.7", "content_type": "application/x-protobuf"}
    for _ in range(5):
        _bad().post("/v1/traces", gzip.compress(b""), HTTP_CONTENT_ENCODING="gzip", **collector)

    answer = api_client_for(annotator).post("/v1/traces", b"", **collector)

    assert answer.status_code != 429

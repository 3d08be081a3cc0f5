"""During a database or broker outage the API and OTLP answer JSON 503 with Retry-After, which
exporters and clients retry; ingest is idempotent, so a retry of a request that had in fact
committed gets the ordinary success and stores nothing twice."""

import psycopg
import pytest
from django.db import InterfaceError, OperationalError
from django.test import Client
from redis.exceptions import ConnectionError as RedisConnectionError

import traces.api
from traces.api import TraceListCreateApi

pytestmark = pytest.mark.django_db


def _raise(error):
    def fail(*args, **kwargs):
        raise error

    return fail


SHUTTING_DOWN = OperationalError("the database system is shutting down")


def _session_load_raising(annotator, monkeypatch, error) -> Client:
    """The annotator's logged-in client, whose every request fails reading its session."""
    client = Client(raise_request_exception=False)
    client.force_login(annotator)
    monkeypatch.setattr("django.contrib.sessions.backends.db.SessionStore.load", _raise(error))
    return client


def _assert_retry_later(answer):
    assert answer.status_code == 503
    assert answer["Content-Type"].startswith("application/json")
    assert int(answer["Retry-After"]) > 0
    error = answer.json()["error"]
    assert error["code"] == "unavailable"
    assert "retry" in error["message"].lower()


@pytest.mark.parametrize(
    "error",
    [
        OperationalError("connection to server at 127.0.0.1 failed"),
        InterfaceError("connection already closed"),
        RedisConnectionError("Error 111 connecting to 127.0.0.1:6379"),
        psycopg.OperationalError("consuming input failed: server closed the connection"),
    ],
    ids=["database", "closed connection", "redis", "COPY on the driver's cursor"],
)
def test_otlp_ingest_during_an_outage_is_a_json_503(api_client_for, annotator, monkeypatch, error):
    monkeypatch.setattr(traces.api, "ingest_otlp", _raise(error))

    answer = api_client_for(annotator).post(
        "/v1/traces", b"\x0a\x00", content_type="application/x-protobuf"
    )

    _assert_retry_later(answer)


def test_an_api_read_during_a_database_outage_is_a_json_503(api_client_for, annotator, monkeypatch):
    monkeypatch.setattr(
        TraceListCreateApi, "get_queryset", _raise(OperationalError("server closed"))
    )

    _assert_retry_later(api_client_for(annotator).get("/api/traces/"))


def test_an_outage_outside_the_api_views_is_still_json_for_api_clients(annotator, monkeypatch):
    # Session authentication reads the database before any API view runs.
    client = _session_load_raising(annotator, monkeypatch, SHUTTING_DOWN)

    _assert_retry_later(client.get("/api/traces/"))


def test_a_page_during_an_outage_says_so_with_a_503(annotator, monkeypatch):
    client = _session_load_raising(annotator, monkeypatch, SHUTTING_DOWN)

    answer = client.get("/traces/")

    assert answer.status_code == 503
    assert int(answer["Retry-After"]) > 0
    assert b"unavailable" in answer.content


def test_other_server_errors_of_api_clients_are_json_500(annotator, monkeypatch):
    client = _session_load_raising(annotator, monkeypatch, RuntimeError("bug"))

    answer = client.get("/api/traces/")

    assert answer.status_code == 500
    assert answer.json()["error"]["code"] == "server_error"

"""A send-only token (an agent's) sends traces, logs and feedback and asks the runtime check;
everything else refuses it with a 403 that says why, whatever its person's role."""

import io

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from accounts.authentication import SEND_ONLY_REFUSAL
from accounts.models import ApiToken, TokenScope
from tests.accounts.route_world import route_url, route_world
from tests.accounts.test_authorization_matrix import ROUTES
from tests.traces.test_otlp_api_errors import GOOD
from traces.models import Trace

pytestmark = pytest.mark.django_db

# (route, method) a send-only token may use; every other API route refuses it.
SENDING = {
    ("v1/traces", "post"),
    ("api/public/otel/v1/traces", "post"),
    ("v1/logs", "post"),
    ("api/traces/", "post"),
    ("api/traces/bulk/", "post"),
    ("api/feedback/", "post"),
    ("api/guardrails/check", "post"),
    ("api/me/", "get"),
}


def _client(user, scope=TokenScope.SEND) -> APIClient:
    _, raw = ApiToken.generate(user, "agent", scope)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def test_it_sends_spans_and_traces_and_says_what_it_is(curator):
    agent = _client(curator)

    otlp = agent.generic("POST", "/v1/traces", GOOD, content_type="application/x-protobuf")
    tree = agent.post(
        "/api/traces/",
        {"name": "support-agent", "input": {"task": "Cancel order A1"}, "output": "Done"},
        format="json",
    )
    me = agent.get("/api/me/")

    assert otlp.status_code == 200
    assert tree.status_code == 201, tree.json()
    assert Trace.objects.count() == 2
    assert me.json() == {
        "username": "cora",
        "roles": ["annotator", "curator"],
        "token_scope": "send",
    }


def test_it_cannot_read_back_what_it_sent(curator):
    agent = _client(curator)
    agent.post("/api/traces/", {"name": "a", "input": "x", "output": "y"}, format="json")
    trace = Trace.objects.get()

    for url in ("/api/traces/", f"/api/traces/{trace.pk}/", "/api/scores/", "/api/feedback/"):
        response = agent.get(url)
        assert response.status_code == 403, url
        assert response["Content-Type"] == "application/json"
        assert response.json()["error"]["message"] == SEND_ONLY_REFUSAL

    # The same person's full token reads them.
    assert _client(curator, TokenScope.FULL).get(f"/api/traces/{trace.pk}/").status_code == 200


def test_every_other_api_route_refuses_it(admin_user, annotator, curator):
    values = route_world(owner=annotator, curator=curator)
    agent = _client(admin_user)
    wrong = []
    for route, access in ROUTES.items():
        if not route.startswith(("api/", "v1/")):
            continue
        for method in access.methods.lower().split():
            # Token-only routes (a trial's tool world) take no API token at all.
            if access.answer == "401":
                continue
            response = getattr(agent, method)(route_url(route, values), {}, format="json")
            allowed = (route, method) in SENDING
            # An admin's token: a 403 is the token's scope, not a role.
            refused = response.status_code == 403
            if allowed == refused:
                wrong.append(f"{method.upper()} /{route}: {response.status_code}")
    assert not wrong, "\n".join(wrong)


def test_the_tokens_page_makes_one_and_lists_what_each_may_do(client, annotator):
    client.force_login(annotator)
    page = client.post("/accounts/tokens/", {"name": "support agent", "scope": "send"})
    assert ApiToken.objects.get(name="support agent").scope == TokenScope.SEND
    assert '<span class="badge">send only</span>' in page.content.decode()

    refused = client.post("/accounts/tokens/", {"name": "odd", "scope": "read"})
    assert not ApiToken.objects.filter(name="odd").exists()
    assert "A token may do one of: full, send." in refused.content.decode()


def test_the_command_makes_a_send_only_token(annotator):
    out = io.StringIO()
    call_command("create_api_token", annotator.username, "--send-only", "--name", "ci", stdout=out)
    token = ApiToken.objects.get(name="ci")
    assert token.scope == TokenScope.SEND
    assert out.getvalue().strip().startswith("evs_")

"""The Langfuse SDK pointed at evalsite by LANGFUSE_HOST alone: it exports its spans to
/api/public/otel/v1/traces with `Authorization: Basic base64(public key:secret key)`, the secret
key an evalsite API token."""

import base64
import json

import pytest

from accounts.models import ApiToken
from accounts.roles import ANNOTATOR
from tests.conformance import support_task
from tests.conformance.recorded_reading import RECORDED
from tests.factories import UserFactory
from traces.models import Trace

pytestmark = pytest.mark.django_db
PATH = "/api/public/otel/v1/traces"


def _basic(public: str, secret: str) -> str:
    return "Basic " + base64.b64encode(f"{public}:{secret}".encode()).decode()


def _export(client, authorization: str | None):
    body = json.loads((RECORDED / "langfuse-tool-error.json").read_text())["request"]
    headers = {"HTTP_AUTHORIZATION": authorization} if authorization else {}
    return client.generic(
        "POST", PATH, json.dumps(body), content_type="application/json", **headers
    )


def test_the_langfuse_sdk_exports_with_its_keys_the_secret_an_api_token(client):
    # An empty public key names no project (test_langfuse_project.py): the default one.
    _, raw = ApiToken.generate(UserFactory(roles=[ANNOTATOR]), "langfuse")
    response = _export(client, _basic("", raw))
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/json"
    trace = Trace.objects.get()
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert trace.project.slug == "default"


@pytest.mark.parametrize(
    "authorization, detail",
    [
        (_basic("pk-lf-anything", "sk-lf-not-a-token"), "Invalid or revoked API token."),
        ("Basic not-base64!", "Authorization: Basic must be base64"),
        (_basic("pk-lf-anything", ""), "Authorization: Basic must be base64"),
        (None, "Authentication credentials were not provided."),
    ],
)
def test_keys_that_are_no_token_are_refused_saying_why(client, authorization, detail):
    response = _export(client, authorization)
    assert response.status_code == 401
    assert response.json()["error"]["message"].startswith(detail)
    assert not Trace.objects.exists()

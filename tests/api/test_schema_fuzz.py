"""Schemathesis over the generated OpenAPI schema, as an admin and as an annotator: no answer
is a server error and every answer matches what the schema documents.

Bounded and seeded: a few derandomized examples per operation over a small world, so the run is
repeatable and takes well under a minute and a half."""

import hypothesis
import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
)

from accounts.models import ApiToken
from accounts.roles import ADMIN, ANNOTATOR, CURATOR
from tests.factories import UserFactory
from tests.insights.world import insights_world

pytestmark = pytest.mark.django_db

EXAMPLES_PER_OPERATION = 6
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]
# OTLP export takes protobuf bodies a schema cannot describe; it has its own malformed-body tests.
SKIPPED = {("POST", "/v1/traces"), ("POST", "/api/public/otel/v1/traces")}


@pytest.fixture
def world(db):
    insights_world()


@pytest.fixture
def wsgi_app():
    """The real WSGI handler, keeping the test's database connection as Django's test client
    does: otherwise each request closes the connection that holds the test transaction."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield get_wsgi_application()
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.mark.parametrize(
    "roles", [[ADMIN, CURATOR, ANNOTATOR], [ANNOTATOR]], ids=["admin", "annotator"]
)
def test_no_operation_answers_a_server_error_or_breaks_its_schema(world, wsgi_app, roles):
    user = UserFactory(username="fuzz", roles=roles, is_staff=ADMIN in roles)
    _, token = ApiToken.generate(user, "fuzz")
    auth = {"Authorization": f"Bearer {token}"}
    schema = schemathesis.openapi.from_wsgi("/api/schema/", wsgi_app, headers=auth)
    failures = []
    for result in schema.get_all_operations():
        operation = result.ok()
        if (operation.method.upper(), operation.path) in SKIPPED:
            continue
        failures += _fuzz(operation, auth)
    assert not failures, "\n\n".join(failures)


def _fuzz(operation, auth) -> list[str]:
    failures: list[str] = []

    @hypothesis.settings(
        max_examples=EXAMPLES_PER_OPERATION,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @hypothesis.given(case=operation.as_strategy())
    def run(case):
        response = case.call(headers=auth)
        try:
            case.validate_response(response, checks=CHECKS, headers=auth)
        except FailureGroup as exc:
            if not failures:  # the first example that fails says enough for this operation
                failures.append(f"{operation.method.upper()} {operation.path}: {exc}"[:900])

    run()
    return failures

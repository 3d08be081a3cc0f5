"""Every route of the URL conf, as every persona: who gets in, who is refused, and how.

The table below declares each route's access; a route added to the URL conf without a row
fails the test, so nobody ships a page or endpoint whose access was never decided. Personas:
anonymous, outsider (logged in, no role), annotator, curator, admin, plus a second annotator
for objects one person owns (a held review item, an answer, an API token, a saved view).
Projects do not scope access in evalsite (every role sees every project), so there is no
other-project persona. Pages answer anonymous visitors with a redirect to the login page and
logged-in users without the role with 403; the API answers 401 and 403.
"""

from dataclasses import dataclass

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.roles import ADMIN, ANNOTATOR, CURATOR
from tests.accounts.route_world import route_url, route_world, routes
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PUBLIC, LOGIN = "public", "login"
LEVELS = (PUBLIC, LOGIN, ANNOTATOR, CURATOR, ADMIN)
PERSONAS = ("anonymous", "outsider", ANNOTATOR, CURATOR, ADMIN)
# Whose own object a route acts on: the owner only (others get 404), or its holder and curators.
OWNER, HOLDER = "owner", "holder"


@dataclass(frozen=True)
class Access:
    level: str
    methods: str = "GET"
    post_level: str | None = None  # when writing (POST, PATCH) needs more than GET
    get_status: int = 200  # what an allowed GET answers
    scope: str | None = None
    answer: str | None = None  # what every persona gets, when it is the same for all


A = Access
ROUTES = {
    "": A(ANNOTATOR),
    "login/": A(PUBLIC, "GET POST"),
    "logout/": A(PUBLIC, "POST", answer="login"),  # logged out, and sent to the login page
    "api/docs/": A(LOGIN),
    "api/schema/": A(LOGIN),
    "api/me/": A(LOGIN),
    "api/traces/": A(ANNOTATOR, "GET POST"),
    "api/traces/bulk/": A(ANNOTATOR, "POST"),
    "api/traces/delete/": A(CURATOR, "POST"),
    "api/traces/deletions/": A(CURATOR, "GET POST"),
    "api/traces/deletions/<int:deletion_id>/": A(CURATOR),
    "api/traces/deletions/<int:deletion_id>/stop/": A(CURATOR, "POST"),
    "api/traces/<int:trace_id>/": A(ANNOTATOR),
    "api/traces/<int:trace_id>/spans/": A(ANNOTATOR),
    "api/feedback/": A(ANNOTATOR, "GET POST"),
    "api/projects/<slug:slug>/masking-rules/": A(CURATOR, "GET POST"),
    "api/projects/<slug:slug>/masking-rules/<int:rule_id>/": A(CURATOR, "GET PATCH"),
    "api/projects/<slug:slug>/masking-changes/": A(CURATOR),
    "api/projects/<slug:slug>/masking-preview/": A(CURATOR, "POST"),
    "api/insights/agent/": A(ANNOTATOR),
    "api/judge-runs/": A(ANNOTATOR, "GET POST", post_level=CURATOR),
    "api/judge-runs/<int:run_id>/": A(ANNOTATOR),
    "api/judge-runs/<int:run_id>/cancel/": A(CURATOR, "POST"),
    "api/rubrics/<int:rubric_id>/versions/": A(CURATOR, "POST"),
    "api/rubrics/<int:rubric_id>/online/": A(ANNOTATOR, "GET PATCH", post_level=CURATOR),
    "api/guardrails/check": A(ANNOTATOR, "POST"),
    "api/reviews/queues/": A(ANNOTATOR),
    "api/reviews/queues/<int:queue_id>/items/": A(ANNOTATOR),
    "api/reviews/queues/<int:queue_id>/claim/": A(ANNOTATOR, "POST"),
    "api/reviews/items/<int:item_id>/resolve/": A(ANNOTATOR, "POST"),
    "api/reviews/items/<int:item_id>/adjudicate/": A(CURATOR, "POST"),
    "api/reviews/items/<int:item_id>/skip/": A(ANNOTATOR, "POST"),
    "api/reviews/pairwise/": A(CURATOR, "POST"),
    "api/reviews/queues/<int:queue_id>/pairwise-judge/": A(CURATOR, "POST"),
    "api/reviews/items/<int:item_id>/prefer/": A(ANNOTATOR, "POST"),
    "api/reviews/items/<int:item_id>/heartbeat/": A(ANNOTATOR, "POST"),
    "api/reviews/annotations/<int:annotation_id>/undo/": A(ANNOTATOR, "POST", scope=OWNER),
    "api/reviews/flags/": A(ANNOTATOR, "POST"),
    "api/scores/": A(CURATOR),
    "api/export/traces/": A(ANNOTATOR),
    "api/golden/examples/": A(ANNOTATOR, "GET POST", post_level=CURATOR),
    "api/golden/examples/<int:pk>/": A(ANNOTATOR),
    "api/golden/examples/promote/": A(CURATOR, "POST"),
    "api/golden/held-out/draw/": A(CURATOR, "POST"),
    "api/golden/versions/": A(ANNOTATOR, "GET POST", post_level=CURATOR),
    "api/golden/versions/diff/": A(ANNOTATOR, get_status=400),  # without ?a=&b=
    "api/golden/versions/<int:pk>/": A(ANNOTATOR),
    "api/golden/versions/<int:pk>/export/": A(ANNOTATOR),
    "api/golden/import/": A(CURATOR, "POST"),
    "api/golden/health/": A(ANNOTATOR),
    "api/eval-runs/": A(ANNOTATOR, "GET POST", post_level=CURATOR),
    "api/eval-runs/<int:pk>/": A(ANNOTATOR),
    "api/eval-runs/<int:pk>/score/": A(CURATOR, "POST"),
    "api/eval-runs/<int:pk>/tool-worlds/start/": A(CURATOR, "POST"),
    "api/eval-runs/<int:pk>/tool-worlds/finish/": A(CURATOR, "POST"),
    "api/eval-runs/<int:pk>/trials/<int:trial_id>/tool-calls/": A(ANNOTATOR),
    # A trial's tool world answers its own bearer token only, never a person's session.
    "api/tool-worlds/<int:trial_id>/tools": A(PUBLIC, answer="401"),
    "api/tool-worlds/<int:trial_id>/tools/<str:name>": A(PUBLIC, "POST", answer="401"),
    "api/tool-worlds/<int:trial_id>/mcp": A(PUBLIC, "POST", answer="401"),
    "api/eval-runs/<int:pk>/judge/": A(CURATOR, "POST"),
    "api/eval-runs/<int:pk>/traces/": A(ANNOTATOR),
    "api/gate/": A(ANNOTATOR, "POST"),
    "api/webhooks/": A(CURATOR, "GET POST"),
    "api/webhooks/<int:pk>/": A(CURATOR),
    "api/webhooks/<int:pk>/deliveries/": A(CURATOR),
    "api/webhooks/<int:pk>/test/": A(CURATOR, "POST"),
    "v1/traces": A(ANNOTATOR, "POST"),
    "api/public/otel/v1/traces": A(ANNOTATOR, "POST"),
    "v1/logs": A(ANNOTATOR, "POST"),
    "accounts/tokens/": A(LOGIN, "GET POST"),
    "accounts/tokens/<int:token_id>/revoke/": A(LOGIN, "POST", scope=OWNER),
    "traces/": A(ANNOTATOR),
    "traces/upload/": A(ANNOTATOR, "POST"),
    "traces/projects/": A(CURATOR, "GET POST"),
    "traces/projects/<slug:slug>/masking/": A(CURATOR, "GET POST"),
    "traces/projects/<slug:slug>/masking/builtins/": A(CURATOR, "POST"),
    "traces/projects/<slug:slug>/masking/<int:rule_id>/": A(CURATOR, "POST"),
    "traces/<int:trace_id>/": A(ANNOTATOR),
    "traces/<int:trace_id>/tree/": A(ANNOTATOR, get_status=400),  # without ?from=&to=
    "traces/<int:trace_id>/delete/": A(CURATOR, "GET POST"),
    "traces/delete/": A(CURATOR, "GET POST"),
    "traces/delete/background/": A(CURATOR, "POST"),
    "traces/deletions/": A(CURATOR),
    "traces/deletions/<int:deletion_id>/": A(CURATOR),
    "traces/deletions/<int:deletion_id>/progress/": A(CURATOR),
    "traces/deletions/<int:deletion_id>/stop/": A(CURATOR, "POST"),
    "traces/sessions/": A(ANNOTATOR),
    "traces/pair/": A(ANNOTATOR, get_status=302),  # without two ?trace=: back to the list
    "traces/pair/queue/": A(CURATOR, "POST"),
    "traces/sessions/<int:session_id>/": A(ANNOTATOR),
    "api/sessions/": A(ANNOTATOR),
    "api/sessions/<int:session_id>/": A(ANNOTATOR),
    "judges/sessions/<int:session_id>/judge/": A(CURATOR, "GET POST"),
    "golden/collect/": A(CURATOR, "POST"),
    "golden/collect/<int:trace_id>/": A(CURATOR, "POST"),
    "api/golden/examples/from-traces/": A(CURATOR, "POST"),
    "api/golden/examples/<int:pk>/confirm/": A(CURATOR, "POST"),
    "api/golden/examples/delete/": A(CURATOR, "POST"),
    "api/traces/<int:trace_id>/scores/": A(ANNOTATOR, "POST"),
    "reviews/traces/<int:trace_id>/score/": A(ANNOTATOR, "POST"),
    "traces/<int:trace_id>/spans/<int:span_pk>/": A(ANNOTATOR),
    "traces/<int:trace_id>/spans/<int:span_pk>/raw/<str:field>/": A(ANNOTATOR),
    "judges/rubrics/": A(ANNOTATOR),
    "judges/rubrics/new/": A(CURATOR, "GET POST"),
    "judges/rubrics/new/preview/": A(CURATOR, "POST"),
    "judges/configs/": A(CURATOR, "GET POST"),
    "judges/tools/": A(ANNOTATOR, "GET POST", post_level=CURATOR),
    "judges/guardrails/": A(ANNOTATOR, "GET POST", post_level=CURATOR),
    "judges/rubrics/<int:rubric_id>/": A(ANNOTATOR),
    "judges/rubrics/<int:rubric_id>/edit/": A(CURATOR, "GET POST"),
    "judges/rubrics/<int:rubric_id>/preview/": A(ANNOTATOR),
    "judges/rubrics/<int:rubric_id>/online/": A(CURATOR, "POST"),
    "judges/runs/": A(ANNOTATOR),
    "judges/runs/new/": A(CURATOR, "GET POST"),
    "judges/runs/<int:run_id>/": A(ANNOTATOR),
    "judges/runs/<int:run_id>/progress/": A(ANNOTATOR),
    "judges/runs/<int:run_id>/cancel/": A(CURATOR, "POST"),
    "judges/adarubric/task-types/": A(ANNOTATOR),
    "judges/adarubric/task-types/rules/": A(CURATOR, "POST"),
    "judges/adarubric/task-types/corrections/": A(ANNOTATOR, "POST"),
    "judges/adarubric/task-types/generate/": A(CURATOR, "POST"),
    "judges/adarubric/rubrics/<int:rubric_id>/criteria/": A(
        ANNOTATOR, "GET POST", post_level=CURATOR
    ),
    "judges/adarubric/rubrics/<int:rubric_id>/versions/<int:number>/approve/": A(CURATOR, "POST"),
    "reviews/": A(ANNOTATOR),
    "reviews/claim/": A(ANNOTATOR, "POST"),
    "reviews/queues/new/": A(CURATOR, "GET POST"),
    "reviews/queues/<int:queue_id>/edit/": A(CURATOR, "GET POST"),
    "reviews/queues/<int:queue_id>/": A(ANNOTATOR),
    "reviews/queues/<int:queue_id>/claim/": A(ANNOTATOR, "POST"),
    "reviews/queues/<int:queue_id>/bulk/": A(CURATOR, "POST"),
    "reviews/queues/<int:queue_id>/views/": A(ANNOTATOR, "POST"),
    "reviews/views/<int:view_id>/delete/": A(ANNOTATOR, "POST", scope=OWNER),
    "reviews/items/<int:item_id>/": A(ANNOTATOR, scope=HOLDER),
    "reviews/items/<int:item_id>/resolve/": A(ANNOTATOR, "POST"),
    "reviews/items/<int:item_id>/skip/": A(ANNOTATOR, "POST"),
    "reviews/items/<int:item_id>/prefer/": A(ANNOTATOR, "POST"),
    "reviews/items/<int:item_id>/flag/": A(ANNOTATOR, "POST"),
    "reviews/items/<int:item_id>/comment/": A(ANNOTATOR, "POST", scope=HOLDER),
    "reviews/items/<int:item_id>/heartbeat/": A(ANNOTATOR, "POST"),
    "reviews/traces/<int:trace_id>/flag/": A(ANNOTATOR, "POST"),
    "reviews/annotations/<int:annotation_id>/undo/": A(ANNOTATOR, "POST", scope=OWNER),
    "reviews/audit/": A(CURATOR),
    "golden/": A(ANNOTATOR),
    "golden/examples/new/": A(CURATOR, "GET POST"),
    "golden/examples/<int:pk>/": A(ANNOTATOR),
    "golden/examples/<int:pk>/edit/": A(CURATOR, "GET POST"),
    "golden/examples/<int:pk>/delete/": A(CURATOR, "GET POST"),
    "golden/examples/delete/": A(CURATOR, "GET POST"),
    "golden/promote/": A(CURATOR),
    # An open item is not promotable yet: the page sends the curator back to the list.
    "golden/promote/<int:item_id>/": A(CURATOR, "GET POST", get_status=302),
    "golden/held-out/": A(CURATOR, "GET POST"),
    "golden/health/": A(ANNOTATOR),
    "golden/versions/": A(ANNOTATOR),
    "golden/versions/new/": A(CURATOR, "POST"),
    "golden/versions/diff/": A(ANNOTATOR),
    "golden/versions/<int:pk>/": A(ANNOTATOR),
    "golden/versions/<int:pk>/export/<str:part>.jsonl": A(ANNOTATOR),
    "golden/import/": A(CURATOR, "GET POST"),
    "golden/evals/": A(ANNOTATOR),
    "golden/evals/compare/": A(ANNOTATOR),
    "golden/evals/compare/pairs/": A(CURATOR, "POST"),
    "reviews/queues/<int:queue_id>/pairwise-judge/": A(CURATOR, "POST"),
    "webhooks/": A(CURATOR, "GET POST"),
    "webhooks/<int:pk>/": A(CURATOR),
    "webhooks/<int:pk>/test/": A(CURATOR, "POST"),
    "webhooks/<int:pk>/toggle/": A(CURATOR, "POST"),
    "webhooks/<int:pk>/delete/": A(CURATOR, "POST"),
    "insights/charts/<slug:key>.csv": A(ANNOTATOR),
    "insights/agent/": A(ANNOTATOR),
    "insights/agent/charts/<slug:key>.csv": A(ANNOTATOR),
    "insights/calibration/": A(CURATOR),
    "insights/calibration/<int:calibration_id>/": A(CURATOR),
    "insights/calibration/<int:calibration_id>/status/": A(CURATOR, "POST"),
    "insights/calibration/<int:calibration_id>/align/": A(CURATOR, "POST"),
    "insights/alignment/<int:proposal_id>/": A(CURATOR),
    "insights/alignment/<int:proposal_id>/approve/": A(CURATOR, "POST"),
    "insights/held-out/": A(CURATOR),
    "insights/topics/": A(ANNOTATOR),
    "insights/topics/rebuild/": A(CURATOR, "POST"),
    "insights/topics/<int:topic_id>/action/": A(ANNOTATOR, "POST"),
    "insights/judging/": A(ANNOTATOR),
}
# Django's admin: staff only; everyone else is sent to the admin's own login page.
ADMIN_PREFIX = "admin/"
ADMIN_PUBLIC = {"admin/login/", "admin/logout/"}
# Destructive routes go last, so the rows the other routes read are still there.
LAST = ("delete/", "revoke/", "undo/", "cancel/", "resolve/", "skip/", "flag/")


@pytest.fixture
def personas(annotator, curator, admin_user, outsider, settings):
    settings.AXES_ENABLED = False  # hundreds of requests from one address are the point here
    return {
        "anonymous": None,
        "outsider": outsider,
        ANNOTATOR: annotator,
        CURATOR: curator,
        ADMIN: admin_user,
        "other annotator": UserFactory(username="ines", roles=[ANNOTATOR]),
    }


def _client(user, api: bool):
    if api and user is not None:
        client = APIClient()
        _, raw = ApiToken.generate(user, "matrix")
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    else:
        client = Client()
        if user is not None:
            client.force_login(user)
    client.raise_request_exception = False
    return client


def _outcome(response) -> str:
    location = response.get("Location", "") if response.status_code == 302 else ""
    if location.startswith(("/login/", "/admin/login/")):
        return "login"
    return str(response.status_code)


def _expected(access: Access, method: str, persona: str, api: bool) -> set[str] | None:
    """The outcomes allowed for this persona, or None when any non-refusal will do."""
    if access.answer:
        return {access.answer}
    level = access.post_level if method != "get" and access.post_level else access.level
    allowed = LEVELS.index(level) <= _persona_level(persona)
    if persona == "other annotator":
        allowed = LEVELS.index(level) <= LEVELS.index(ANNOTATOR)
        if access.scope == OWNER:
            return {"404"}
        if access.scope == HOLDER:
            return {"403"}
    if not allowed:
        if persona == "anonymous":
            return {"401"} if api else {"login"}
        return {"403"}
    if access.scope == OWNER and persona != ANNOTATOR:
        return {"404"}
    if method == "get":
        return {str(access.get_status)}
    return None


def _persona_level(persona: str) -> int:
    return {"anonymous": 0, "outsider": 1, ANNOTATOR: 2, CURATOR: 3, ADMIN: 4}.get(persona, 2)


def test_every_route_has_a_declared_access():
    declared = set(ROUTES)
    found = {route for route in routes() if not route.startswith(ADMIN_PREFIX)}

    assert found - declared == set(), "routes without an access row in ROUTES"
    assert declared - found == set(), "rows in ROUTES for routes that no longer exist"


def test_every_route_answers_each_persona_as_declared(personas, annotator, curator):
    values = route_world(owner=annotator, curator=curator)
    ordered = sorted(ROUTES, key=lambda route: route.endswith(LAST))
    wrong, walked = [], 0
    # A GET changes nothing, so each persona asks every GET on one login (or token); any
    # other method gets a client of its own, as it may end the session or revoke the token.
    readers = {}
    for route in ordered:
        access = ROUTES[route]
        url = route_url(route, values)
        api = url.startswith(("/api/", "/v1/"))
        for method in access.methods.lower().split():
            for persona, user in personas.items():
                if method == "get":
                    if (persona, api) not in readers:
                        readers[(persona, api)] = _client(user, api)
                    client = readers[(persona, api)]
                else:
                    client = _client(user, api)
                response = getattr(client, method)(url)
                got, expected = _outcome(response), _expected(access, method, persona, api)
                walked += 1
                refused = got in ("401", "403", "login") or got.startswith("5")
                if (expected is None and refused) or (expected and got not in expected):
                    wrong.append(f"{method.upper()} {url} as {persona}: {got}, not {expected}")
    assert walked > 500
    assert not wrong, "\n".join(wrong)


def test_the_admin_site_is_for_staff_only(personas):
    admin_routes = [r for r in routes() if r.startswith(ADMIN_PREFIX) and r not in ADMIN_PUBLIC]
    values = {"object_id": "1", "app_label": "traces", "url": "traces/trace/"}
    wrong = []
    browsers = {persona: _client(user, api=False) for persona, user in personas.items()}
    for route in admin_routes:
        url = route_url(route, values)
        for persona in ("anonymous", "outsider", ANNOTATOR, CURATOR):
            got = _outcome(browsers[persona].get(url))
            if got != "login" and not (got == "404" and "<path:" in route):
                wrong.append(f"GET {url} as {persona}: {got}")
        if "<" not in route and not route.endswith(("add/", "autocomplete/")):
            got = _outcome(browsers[ADMIN].get(url))
            if got != "200":
                wrong.append(f"GET {url} as admin: {got}")
    assert len(admin_routes) > 50
    assert not wrong, "\n".join(wrong)


def test_no_route_takes_a_cross_site_post_on_a_logged_in_session(personas, annotator, curator):
    values = route_world(owner=annotator, curator=curator)
    accepted = []
    for route, access in ROUTES.items():
        if "POST" not in access.methods:
            continue
        browser = Client(enforce_csrf_checks=True)  # a form on another site, our cookie
        browser.force_login(curator)
        browser.raise_request_exception = False
        response = browser.post(route_url(route, values), "{}", content_type="application/json")
        # Token-only endpoints (a trial's tool world) take no session at all: 401 refuses too.
        token_only = access.answer == "401" and response.status_code == 401
        if response.status_code != 403 and not token_only:
            accepted.append(f"POST {route}: {response.status_code}")
    assert not accepted, "\n".join(accepted)

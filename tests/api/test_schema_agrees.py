"""The OpenAPI schema and the API's behaviour agree, checked from the schema itself, so an
operation added later is checked too: a query value outside a documented enum is refused
naming the parameter, a body of the wrong JSON type is a 400 (never a 500 or a write), and
every documented page takes `limit`, links its neighbours by cursor (`next`, `previous`),
refuses `offset` naming it, and refuses a limit out of its documented range."""

import pytest

from tests.insights.world import insights_world

pytestmark = pytest.mark.django_db

NOT_AN_ENUM_VALUE = "not-a-documented-value"
# Bodies that are valid JSON of the wrong type for an object schema.
WRONG_BODIES = ["[]", '"text"', "17", "null"]


@pytest.fixture
def api(admin_user, api_client_for):
    insights_world()
    return api_client_for(admin_user)


@pytest.fixture
def schema(api):
    response = api.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    return response.json()


def test_the_schema_describes_the_api_token(schema):
    assert schema["components"]["securitySchemes"]["apiToken"]["scheme"] == "bearer"
    assert {"apiToken": []} in schema["paths"]["/api/traces/"]["get"]["security"]


def _operations(schema, method: str):
    for path, operations in schema["paths"].items():
        operation = operations.get(method)
        if operation and "{" not in path:
            yield path, operation


def test_every_documented_enum_is_enforced(api, schema):
    wrong, checked = [], 0
    for path, operation in _operations(schema, "get"):
        for parameter in operation.get("parameters", []):
            if parameter["in"] != "query" or "enum" not in parameter.get("schema", {}):
                continue
            name = parameter["name"]
            response = api.get(path, {name: NOT_AN_ENUM_VALUE})
            checked += 1
            named = response.status_code == 400 and name in response.json()["error"]["fields"]
            if not named:
                wrong.append(f"GET {path}?{name}=…: {response.status_code}")
    assert checked >= 10  # held_out, sort, status, verdict, feedback, format, part, kind, ...
    assert not wrong, "\n".join(wrong)


def test_a_body_of_the_wrong_json_type_is_refused(api, schema):
    wrong, checked = [], 0
    for path, operation in _operations(schema, "post"):
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if body is None:
            continue
        for raw in WRONG_BODIES:
            response = api.generic("POST", path, raw, content_type="application/json")
            checked += 1
            if response.status_code != 400 or response["Content-Type"] != "application/json":
                wrong.append(f"POST {path} with {raw}: {response.status_code}")
    assert checked >= 40
    assert not wrong, "\n".join(wrong)


def _walked(api, path: str, wrong: list) -> int:
    """Pages of one row from the first page to the last by `next`, and back by `previous`:
    the same rows, each once. Returns how many rows were walked."""
    forward, url = [], f"{path}?limit=1"
    while url and len(forward) < 20:
        body = api.get(url).json()
        forward.append([row.get("id", str(row)) for row in body["results"]])
        last, url = url, body["next"]
    backward, url = [], last
    while url:
        body = api.get(url).json()
        backward.append([row.get("id", str(row)) for row in body["results"]])
        url = body["previous"]
    rows = sum(forward, [])
    if len(set(map(str, rows))) != len(rows) or backward[::-1] != forward:
        wrong.append(f"GET {path}: pages {forward} forward, {backward} back")
    return len(rows)


def test_every_documented_page_pages_by_cursor_and_refuses_offset(api, schema):
    wrong, pages, walked = [], 0, 0
    for path, operation in _operations(schema, "get"):
        answer = operation["responses"].get("200", {}).get("content", {})
        reference = answer.get("application/json", {}).get("schema", {}).get("$ref", "")
        if not reference.rsplit("/", 1)[-1].startswith("Paginated"):
            continue
        pages += 1
        page = api.get(path, {"limit": 1})
        fields = {"count", "count_is_lower_bound", "next", "previous", "results"}
        if page.status_code != 200 or not fields <= set(page.json()):
            wrong.append(f"GET {path}?limit=1: {page.status_code}")
            continue
        if len(page.json()["results"]) > 1:
            wrong.append(f"GET {path}?limit=1 gave {len(page.json()['results'])} results")
        walked += _walked(api, path, wrong) > 1
        refused = api.get(path, {"offset": 0})
        if refused.status_code != 400 or list(refused.json()["error"]["fields"]) != ["offset"]:
            wrong.append(f"GET {path}?offset=0: {refused.status_code}")
        [limit_doc] = [p for p in operation["parameters"] if p["name"] == "limit"]
        for limit in (0, limit_doc["schema"]["maximum"] + 1, "x"):
            refused = api.get(path, {"limit": limit})
            if refused.status_code != 400 or "limit" not in refused.json()["error"]["fields"]:
                wrong.append(f"GET {path}?limit={limit}: {refused.status_code}")
    assert pages >= 7 and walked >= 3
    assert not wrong, "\n".join(wrong)

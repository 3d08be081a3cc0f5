"""What the fuzzer answered with a server error is now refused with 400 naming the field."""

import pytest
from django.urls import reverse

from golden.services import dataset_version_create
from tests.factories import GoldenExampleFactory

pytestmark = pytest.mark.django_db

PAGINATED_LISTS = [
    "/api/golden/examples/",
    "/api/traces/",
    "/api/reviews/queues/{queue}/items/",
]


@pytest.fixture
def queue_id(db):
    from reviews.models import Queue

    return Queue.objects.get_or_create(name="Default")[0].pk


@pytest.mark.parametrize(
    ("url", "param"),
    [
        ("/api/golden/examples/?q=%00", "q"),
        ("/api/golden/examples/?task_type=a%00b", "task_type"),
        ("/api/traces/?q=%00", "q"),
        ("/api/traces/?agent_name=%00", "agent_name"),
    ],
)
def test_a_nul_in_an_api_filter_is_refused_naming_it(annotator, api_client_for, url, param):
    response = api_client_for(annotator).get(url)

    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [param]


@pytest.mark.parametrize("url", ["/golden/?q=%00", "/traces/?q=x%00"])
def test_a_nul_in_a_page_filter_is_a_bad_request(client, curator, url):
    client.force_login(curator)

    response = client.get(url)

    assert response.status_code == 400
    assert b"q: Must not contain NUL" in response.content


@pytest.mark.parametrize("url", PAGINATED_LISTS)
@pytest.mark.parametrize(
    ("query", "param"),
    [
        ("limit=99999999999999999999", "limit"),
        ("limit=0", "limit"),
        ("limit=ten", "limit"),
        ("offset=99999999999999999999", "offset"),
        ("offset=-1", "offset"),
        # Lists page by cursor: an offset, even a harmless one, is refused rather than ignored.
        ("offset=0", "offset"),
        ("after=not-a-cursor", "after"),
        # A cursor whose id overflows bigint, and one whose text holds a NUL.
        ("after=WyIyMDI2LTEyLTA2VDAwOjAwOjAwKzAwOjAwIiwxMDAwMDAwMDAwMDAwMDAwMDAwMDAwXQ", "after"),
        ("before=WyJcdTAwMDAiLDFd", "before"),
        ("after=x&before=y", "before"),
    ],
)
def test_limit_offset_and_cursors_out_of_range_are_refused(
    annotator, api_client_for, queue_id, url, query, param
):
    response = api_client_for(annotator).get(f"{url.format(queue=queue_id)}?{query}")

    assert response.status_code == 400, response.content
    assert list(response.json()["error"]["fields"]) == [param]


def test_a_page_is_at_most_max_limit_long(annotator, api_client_for):
    GoldenExampleFactory.create_batch(3)

    api = api_client_for(annotator)
    first = api.get("/api/golden/examples/?limit=1").json()
    rest = api.get(first["next"].replace("limit=1", "limit=500")).json()

    assert (first["count"], len(first["results"]), len(rest["results"])) == (3, 1, 2)
    assert rest["next"] is None


def test_an_unknown_held_out_value_is_refused(annotator, api_client_for):
    response = api_client_for(annotator).get("/api/golden/examples/?held_out=maybe")

    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["held_out"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("v1\nevil: header", "attachment; filename*=utf-8''v1%0Aevil%3A%20header-open.jsonl"),
        ("v1-\U0001f600", "attachment; filename*=utf-8''v1-%F0%9F%98%80-open.jsonl"),
        ('v1 "quoted"', 'attachment; filename="v1 \\"quoted\\"-open.jsonl"'),
    ],
)
def test_an_export_of_any_version_name_has_a_safe_file_name(client, curator, name, expected):
    version = dataset_version_create(name=name, user=curator)
    client.force_login(curator)

    response = client.get(reverse("golden:version_export", args=[version.pk, "open"]))

    assert response.status_code == 200
    assert response["Content-Disposition"] == expected


@pytest.mark.parametrize("url", ["/api/docs/", "/api/schema/"])
def test_the_api_docs_and_schema_are_for_people_who_logged_in(client, annotator, url):
    anonymous = client.get(url)
    client.force_login(annotator)
    logged_in = client.get(url)

    assert anonymous.status_code in (401, 403)
    assert logged_in.status_code == 200

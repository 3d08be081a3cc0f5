"""Content negotiation answers a client that accepts anything without parsing its Accept header,
and every other client as DRF does."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("headers", "path", "status", "media"),
    [
        ({}, "/api/me/", 200, "application/json"),
        ({"HTTP_ACCEPT": "*/*"}, "/api/me/", 200, "application/json"),
        ({"HTTP_ACCEPT": "application/json; indent=4"}, "/api/me/", 200, "application/json"),
        ({"HTTP_ACCEPT": "text/html"}, "/api/me/", 406, "application/json"),
        ({"HTTP_ACCEPT": ""}, "/api/me/", 406, "application/json"),
        ({}, "/api/me/?format=json", 200, "application/json"),
        ({}, "/api/me/?format=xml", 404, None),
    ],
)
def test_the_answer_is_negotiated_as_drf_negotiates_it(
    api_client_for, annotator, headers, path, status, media
):
    response = api_client_for(annotator).get(path, **headers)

    assert response.status_code == status
    if media:
        assert response["Content-Type"].startswith(media)

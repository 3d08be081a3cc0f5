"""Held-out examples are invisible without the curator role: pages, API, exports, counts."""

import json

import pytest
from django.urls import reverse

from golden.services import dataset_version_create
from tests.golden.builders import example

OPEN_TASK = "Cancel my latest order, customer C-77"
SECRET_TASK = "Rebook my cancelled LIS-BER flight HELDOUT-SECRET"


@pytest.fixture
def dataset(curator):
    visible = example(task=OPEN_TASK, task_type="order_cancellation", failure_tags=["wrong_order"])
    hidden = example(
        task=SECRET_TASK, task_type="flight_rebooking", held_out=True, failure_tags=["secret_mode"]
    )
    old = dataset_version_create(
        name="v1", user=curator, examples=visible.__class__.objects.filter(pk=visible.pk)
    )
    new = dataset_version_create(name="v2", user=curator)
    return {"open": visible, "held_out": hidden, "old": old, "new": new}


def _text(response) -> str:
    if hasattr(response, "streaming_content"):
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


def _pages(dataset):
    v2 = dataset["new"].pk
    return [
        reverse("golden:example_list"),
        reverse("golden:example_list") + "?held_out=yes",
        reverse("golden:health"),
        reverse("golden:version_list"),
        reverse("golden:version_detail", args=[v2]),
        reverse("golden:version_export", args=[v2, "open"]),
        reverse("golden:version_diff") + f"?old={dataset['old'].pk}&new={v2}",
    ]


def test_annotator_pages_never_show_held_out_content_or_counts(client, annotator, dataset):
    client.force_login(annotator)
    for url in _pages(dataset):
        response = client.get(url)
        assert response.status_code == 200, url
        body = _text(response)
        assert "HELDOUT-SECRET" not in body, url
        assert "secret_mode" not in body, url
        assert "flight_rebooking" not in body, url


def test_annotator_page_counts_leave_held_out_out(client, annotator, dataset):
    client.force_login(annotator)
    listing = client.get(reverse("golden:example_list")).content.decode()
    assert "1 example<" in listing
    version = client.get(reverse("golden:version_detail", args=[dataset["new"].pk]))
    assert '<span id="version-count">1</span>' in version.content.decode()
    health = client.get(reverse("golden:health")).content.decode()
    assert '<strong id="dataset-size">1</strong>' in health
    versions = client.get(reverse("golden:version_list")).content.decode()
    assert "<td>1</td>" in versions and "<td>2</td>" not in versions


def test_annotator_cannot_open_a_held_out_example_or_part(client, annotator, dataset):
    client.force_login(annotator)
    detail = client.get(reverse("golden:example_detail", args=[dataset["held_out"].pk]))
    assert detail.status_code == 404
    part = client.get(reverse("golden:version_export", args=[dataset["new"].pk, "held_out"]))
    assert part.status_code == 404


def test_curator_sees_held_out_everywhere(client, curator, dataset):
    client.force_login(curator)
    listing = client.get(reverse("golden:example_list")).content.decode()
    assert "HELDOUT-SECRET" in listing and "2 examples" in listing
    assert (
        client.get(reverse("golden:example_detail", args=[dataset["held_out"].pk])).status_code
        == 200
    )
    part = client.get(reverse("golden:version_export", args=[dataset["new"].pk, "held_out"]))
    assert "HELDOUT-SECRET" in _text(part)
    health = client.get(reverse("golden:health")).content.decode()
    assert '<strong id="dataset-size">2</strong>' in health


def test_outsider_gets_no_golden_page(client, outsider, dataset):
    client.force_login(outsider)
    for url in _pages(dataset):
        assert client.get(url).status_code == 403, url


def _api_urls(dataset):
    v2 = dataset["new"].pk
    return [
        "/api/golden/examples/",
        "/api/golden/examples/?held_out=yes",
        "/api/golden/versions/",
        f"/api/golden/versions/{v2}/",
        f"/api/golden/versions/{v2}/export/",
        f"/api/golden/versions/diff/?old={dataset['old'].pk}&new={v2}",
        "/api/golden/health/",
    ]


def test_annotator_token_never_receives_held_out_data(api_client_for, annotator, dataset):
    client = api_client_for(annotator)
    for url in _api_urls(dataset):
        response = client.get(url)
        assert response.status_code == 200, url
        body = _text(response)
        assert "HELDOUT-SECRET" not in body and "secret_mode" not in body, url
    assert client.get("/api/golden/examples/").json()["count"] == 1
    assert client.get(f"/api/golden/versions/{dataset['new'].pk}/").json()["example_count"] == 1
    assert client.get("/api/golden/health/").json()["size"] == 1
    assert client.get(f"/api/golden/examples/{dataset['held_out'].pk}/").status_code == 404
    part = client.get(f"/api/golden/versions/{dataset['new'].pk}/export/?part=held_out")
    assert part.status_code == 404
    assert json.loads(part.content)["error"]["code"] == "not_found"


def test_curator_token_receives_both_parts(api_client_for, curator, dataset):
    client = api_client_for(curator)
    assert client.get("/api/golden/examples/").json()["count"] == 2
    assert client.get(f"/api/golden/versions/{dataset['new'].pk}/").json()["example_count"] == 2
    part = client.get(f"/api/golden/versions/{dataset['new'].pk}/export/?part=held_out")
    assert "HELDOUT-SECRET" in _text(part)
    diff = client.get(f"/api/golden/versions/diff/?old={dataset['old'].pk}&new={dataset['new'].pk}")
    assert [row["task"] for row in diff.json()["added"]] == [SECRET_TASK]


def test_token_without_a_role_is_refused(api_client_for, outsider, dataset):
    client = api_client_for(outsider)
    for url in _api_urls(dataset):
        assert client.get(url).status_code == 403, url


def test_admin_sees_held_out_like_a_curator(client, api_client_for, admin_user, dataset):
    client.force_login(admin_user)
    assert "HELDOUT-SECRET" in client.get(reverse("golden:example_list")).content.decode()
    token = api_client_for(admin_user)
    assert token.get("/api/golden/examples/").json()["count"] == 2
    part = token.get(f"/api/golden/versions/{dataset['new'].pk}/export/?part=held_out")
    assert "HELDOUT-SECRET" in _text(part)


def test_annotator_cannot_reach_held_out_through_write_routes(client, annotator, dataset):
    client.force_login(annotator)
    hidden = dataset["held_out"].pk
    assert client.get(reverse("golden:example_edit", args=[hidden])).status_code == 403
    assert client.get(reverse("golden:held_out")).status_code == 403
    assert client.get(reverse("golden:import")).status_code == 403

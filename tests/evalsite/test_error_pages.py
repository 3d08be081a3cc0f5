"""Error pages keep the navigation and say why: a person is never left on a bare status line."""

import pytest
from django.urls import reverse

from tests.factories import ReviewItemFactory


@pytest.fixture
def someone_elses_item(db):
    return ReviewItemFactory(task_excerpt="Refund order 1234")


def test_an_item_that_is_not_yours_says_so_on_a_page_with_the_navigation(
    client, annotator, someone_elses_item
):
    client.force_login(annotator)
    response = client.get(reverse("reviews:item_detail", args=[someone_elses_item.pk]))
    body = response.content.decode()
    assert response.status_code == 403
    assert "This item is not yours: claim the next item from its queue." in body
    assert 'class="mainnav"' in body
    assert reverse("reviews:queue_list") in body


def test_a_missing_page_is_a_styled_404_with_the_navigation(client, annotator):
    client.force_login(annotator)
    response = client.get("/traces/999999/")
    body = response.content.decode()
    assert response.status_code == 404
    assert "<h1" in body and "Not found" in body
    assert 'class="mainnav"' in body


def test_a_role_refusal_names_the_role(client, outsider):
    client.force_login(outsider)
    response = client.get(reverse("reviews:queue_list"))
    assert response.status_code == 403
    assert "needs the annotator role" in response.content.decode()


def test_a_server_error_is_a_styled_500_with_the_navigation(client, annotator, monkeypatch):
    def broken():
        raise RuntimeError("snapshot store is down")

    monkeypatch.setattr("insights.views.overview_snapshot_get", broken)
    client.raise_request_exception = False
    client.force_login(annotator)
    response = client.get(reverse("overview"))
    body = response.content.decode()
    assert response.status_code == 500
    assert "Something went wrong on our side" in body
    assert 'class="mainnav"' in body
    assert "snapshot store is down" not in body

"""Deleting golden examples through the pages, the API and the admin."""

import pytest

from golden.models import GoldenExample
from reviews.models import AuditEvent
from tests.factories import GoldenExampleFactory, TraceFactory
from traces.models import Trace

pytestmark = pytest.mark.django_db


def _drafts_and_confirmed():
    drafts = [GoldenExampleFactory(task=f"Draft {n}", draft=True) for n in range(3)]
    confirmed = GoldenExampleFactory(task="Confirmed one")
    return drafts, confirmed


# The pages


def test_the_list_offers_deleting_the_filtered_examples_to_curators_only(
    client, annotator, curator
):
    _drafts_and_confirmed()
    client.force_login(annotator)
    assert 'id="examples-delete"' not in client.get("/golden/?draft=yes").content.decode()
    client.force_login(curator)
    page = client.get("/golden/?draft=yes").content.decode()
    assert 'href="/golden/examples/delete/?draft=yes" id="examples-delete"' in page


def test_a_filter_is_confirmed_then_deleted(client, curator):
    drafts, confirmed = _drafts_and_confirmed()
    client.force_login(curator)

    page = client.get("/golden/examples/delete/", {"draft": "yes"})
    html = page.content.decode()
    assert page.status_code == 200
    assert "Delete 3 golden examples?" in html
    assert "3 are drafts" in html
    assert "Confirmed one" not in html
    assert 'name="expected" value="3"' in html

    done = client.post("/golden/examples/delete/", {"draft": "yes", "expected": "3"})

    assert done.status_code == 302
    assert done["Location"] == "/golden/?draft=yes"
    assert list(GoldenExample.objects.all()) == [confirmed]
    followed = client.get(done["Location"]).content.decode()
    assert "Deleted 3 golden examples." in followed
    assert "No examples match this filter." in followed


def test_a_filter_that_matches_more_by_now_is_shown_again_not_deleted(client, curator):
    _drafts_and_confirmed()
    client.force_login(curator)
    GoldenExampleFactory(task="Drafted meanwhile", draft=True)

    again = client.post("/golden/examples/delete/", {"draft": "yes", "expected": "3"})

    assert again.status_code == 409
    html = again.content.decode()
    assert "The filter matches 4 examples now, not 3" in html
    assert 'name="expected" value="4"' in html
    assert GoldenExample.objects.count() == 5


def test_one_example_is_deleted_from_its_page(client, curator):
    trace = TraceFactory()
    example = GoldenExampleFactory(task="Held out one", held_out=True, source_trace=trace)
    client.force_login(curator)
    detail = client.get(f"/golden/examples/{example.pk}/").content.decode()
    assert f'href="/golden/examples/{example.pk}/delete/" id="example-delete"' in detail

    confirm = client.get(f"/golden/examples/{example.pk}/delete/").content.decode()
    assert "Delete this golden example?" in confirm
    assert "the traces it holds out become visible to annotators again" in confirm

    done = client.post(f"/golden/examples/{example.pk}/delete/")

    assert done["Location"] == "/golden/"
    assert not GoldenExample.objects.exists()
    assert Trace.objects.get(pk=trace.pk).held_out is False
    assert "1 trace is no longer held out." in client.get("/golden/").content.decode()


def test_annotators_cannot_delete_through_the_pages(client, annotator):
    example = GoldenExampleFactory()
    client.force_login(annotator)
    assert client.get(f"/golden/examples/{example.pk}/delete/").status_code == 403
    assert client.post(f"/golden/examples/{example.pk}/delete/").status_code == 403
    assert client.post("/golden/examples/delete/", {"expected": "1"}).status_code == 403
    assert GoldenExample.objects.filter(pk=example.pk).exists()


def test_a_filter_of_one_example_is_counted_not_called_this(client, curator):
    GoldenExampleFactory(task="The only draft", draft=True)
    client.force_login(curator)
    page = client.get("/golden/examples/delete/", {"draft": "yes"}).content.decode()
    assert "Delete 1 golden example?" in page
    assert "Delete this golden example?" not in page


def test_an_empty_filter_says_nothing_matches(client, curator):
    client.force_login(curator)
    page = client.get("/golden/examples/delete/", {"q": "no such task"}).content.decode()
    assert "No examples to delete" in page
    assert 'id="delete-form"' not in page


# The API


def test_delete_one_example_through_the_api(api_client_for, curator, annotator):
    example = GoldenExampleFactory()
    assert (
        api_client_for(annotator).delete(f"/api/golden/examples/{example.pk}/").status_code == 403
    )
    curator_api = api_client_for(curator)

    assert curator_api.delete(f"/api/golden/examples/{example.pk}/").status_code == 204
    again = curator_api.delete(f"/api/golden/examples/{example.pk}/")

    assert again.status_code == 404
    assert again["Content-Type"] == "application/json"
    assert AuditEvent.objects.filter(action="golden_example_delete").count() == 1


def test_delete_by_ids_or_filter_through_the_api(api_client_for, curator):
    drafts, confirmed = _drafts_and_confirmed()
    api = api_client_for(curator)

    by_ids = api.post(
        "/api/golden/examples/delete/", {"ids": [drafts[0].pk, drafts[1].pk]}, format="json"
    )
    assert by_ids.status_code == 200
    assert by_ids.json() == {"deleted": 2, "released_traces": 0}

    by_filter = api.post(
        "/api/golden/examples/delete/", {"filter": {"draft": "yes"}}, format="json"
    )
    assert by_filter.json() == {"deleted": 1, "released_traces": 0}
    assert list(GoldenExample.objects.all()) == [confirmed]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"ids": [1, 2]}, "ids"),  # no such examples
        ({}, "ids"),  # neither ids nor filter
        ({"ids": [1], "filter": {}}, "ids"),  # both
        ({"ids": []}, "ids"),
        ({"filter": {"draft": "maybe"}}, "filter.draft"),
        ({"filter": {"q": "nothing matches this"}}, "examples"),
    ],
)
def test_a_refused_api_deletion_names_the_field_and_deletes_nothing(
    api_client_for, curator, body, field
):
    kept = GoldenExampleFactory()
    if "ids" in body and body["ids"]:
        body = {**body, "ids": [kept.pk + 1000, kept.pk + 1001]}
    response = api_client_for(curator).post("/api/golden/examples/delete/", body, format="json")
    assert response.status_code == 400, response.json()
    assert field in response.json()["error"]["fields"]
    assert GoldenExample.objects.filter(pk=kept.pk).exists()


def test_an_annotator_cannot_delete_through_the_api(api_client_for, annotator):
    hidden = GoldenExampleFactory(held_out=True)
    response = api_client_for(annotator).post(
        "/api/golden/examples/delete/", {"ids": [hidden.pk]}, format="json"
    )
    assert response.status_code == 403
    assert GoldenExample.objects.filter(pk=hidden.pk).exists()


# The admin


def test_the_admins_bulk_delete_goes_through_the_service(client, admin_user):
    trace = TraceFactory()
    examples = [
        GoldenExampleFactory(task=f"Held {n}", held_out=True, source_trace=trace) for n in range(2)
    ]
    client.force_login(admin_user)
    response = client.post(
        "/admin/golden/goldenexample/",
        {
            "action": "delete_selected",
            "_selected_action": [example.pk for example in examples],
            "post": "yes",
        },
    )
    assert response.status_code == 302
    assert not GoldenExample.objects.exists()
    assert AuditEvent.objects.filter(action="golden_example_delete").count() == 2
    assert Trace.objects.get(pk=trace.pk).held_out is False
